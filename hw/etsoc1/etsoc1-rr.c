/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: record and replay of a host session, over MMIO and
 * the eDMA (docs/record-replay.md; design:
 * docs/research/record-replay-design.md, 3.5, 3.6, 3.9, 4.2 "Stage 2 as
 * built" and 4.3 "Stage 3 as built").
 *
 * Record (-M etsoc1,record=FILE,hostlink=...): every host MMIO write is
 * already applied at an emulated time T the model chose (etsoc1-sync.c,
 * "Host inputs"); the host link reports each one here with its T and its
 * result, and the host's STOP, which is stamped too while recording.
 * The eDMA's accesses to host memory go in per channel (HOSTMEM: a
 * read's data, a write's crc32c, failures), and where each DMA ended
 * (DMA_END).  The card's outputs that replay can check go in as well:
 * MSIs (per hart, with the writer's clock), READY, and at STOP an END
 * trailer with every hart's clock and retired instructions and, if the
 * card is idle then, a digest of its RAM.
 *
 * Replay (-M etsoc1,replay=FILE, no host): the whole file is read and
 * checked before any CPU is built; each input then goes into the same
 * host-input queue at its recorded T, so it is applied through the same
 * path at the same point of the card's history, once the card has
 * produced the outputs the record had before it; the eDMA's host memory
 * is served from each channel's recorded byte stream (the "etsoc1-host-mem"
 * interface); the checks are compared as the card produces them, and the
 * first that differs stops QEMU with exit status ETSOC1_RR_DIVERGED.
 *
 * The file (little-endian; tools/rr-dump.py prints it):
 *   header: "ETSOC1RR" | u32 format | u32 text length | text |
 *           u32 crc32c(all before)
 *   text:   key=value lines, sorted; keys under "info." are not compared
 *   event:  u8 kind | u8 flags | u16 source | u32 payload length |
 *           u64 seq | u64 T | payload | u32 crc32c(event), the crc seeded
 *           with the previous event's (the first: with the header's), so
 *           a changed, removed or reordered event fails its own check
 * Every crc is the usual CRC-32C (Castagnoli), continued from event to
 * event.
 *
 * Everything runs with the BQL held (the host link, the MSI and iATU
 * callbacks, the input queue), so the unit has no lock.
 */

#include "qemu/osdep.h"
#include <sys/utsname.h>
#include "qemu/crc32c.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qapi/error.h"
#include "exec/cpu-common.h"
#include "hw/boards.h"
#include "hw/core/cpu.h"
#include "hw/qdev-properties.h"
#include "migration/blocker.h"
#include "sysemu/runstate.h"
#include "hw/etsoc1/etsoc1.h"
#include "hw/etsoc1/etsoc1-minion.h"
#include "hw/etsoc1/etsoc1-pcie.h"
#include "hw/etsoc1/etsoc1-rr.h"
#include "hw/etsoc1/etsoc1-sync.h"
#include "hw/etsoc1/etsoc1-timing.h"
#include "etsoc1-build-id.h"
#include "trace.h"

#define RR_MAGIC            "ETSOC1RR"
/*
 * 2: HOSTMEM events carry the channel, status and data (stage 3)
 * 3: HANG events, the hang report at rest (stage 4; END counts 10 kinds)
 * 4: PAUSE events, the card stopped at a stamped T (END counts 11 kinds)
 */
#define RR_FORMAT           4
#define RR_HDR_FIXED        16          /* magic, format, text length */
#define RR_EV_HDR           24          /* kind .. T */
#define RR_MAX_TEXT         (64 * KiB)
/* the largest payload: an END of every hart, or a 1 MiB write */
#define RR_MAX_PAYLOAD      (2 * MiB)
#define RR_MMIO_HDR         16          /* bus u64, len u32, result u16 */
#define RR_NO_SOURCE        0xffff      /* an MSI from no minion (the SP) */
/*
 * HOSTMEM: dir u8 (1: card -> host), ok u8, u16 0, len u32, host u64,
 * done u32, crc32c u32 of the done bytes, then a read's done bytes.  An
 * access of more than RR_HM_CHUNK bytes (a span of shared memory) is
 * written as several events: the stream is of bytes, not of accesses.
 */
#define RR_HM_HDR           24
#define RR_HM_CHUNK         (1 * MiB)
#define RR_HM_WRITE         0x1
#define RR_HM_OK            0x1
#define RR_DMA_ABORT        0x1         /* DMA_END's flags: ABORT, not DONE */
#define RR_DIGEST_LEN       32          /* sha256 */
/* END: flags, harts, events, counts per kind, then the table, the digest */
#define RR_END_FIXED        (4 + 4 + 8 + 8 * ETSOC1_RR_KINDS)
#define RR_END_HART         20          /* hart u32, clock u64, instret u64 */
#define RR_END_STOPPED      0x1         /* the record ended at a STOP */
#define RR_END_IDLE         0x2         /* no CPU could act then: digest */

static const char *const rr_kind_name[ETSOC1_RR_KINDS] = {
    [ETSOC1_RR_CONNECT] = "CONNECT",
    [ETSOC1_RR_DISCONNECT] = "DISCONNECT",
    [ETSOC1_RR_MMIO_WRITE] = "MMIO_WRITE",
    [ETSOC1_RR_STOP] = "STOP",
    [ETSOC1_RR_MSI] = "MSI",
    [ETSOC1_RR_READY] = "READY",
    [ETSOC1_RR_HOSTMEM] = "HOSTMEM",
    [ETSOC1_RR_END] = "END",
    [ETSOC1_RR_DMA_END] = "DMA_END",
    [ETSOC1_RR_HANG] = "HANG",
    [ETSOC1_RR_PAUSE] = "PAUSE",
};

/* The kinds the replay applies at their T through the input queue */
static bool rr_is_input(uint8_t kind)
{
    return kind == ETSOC1_RR_MMIO_WRITE || kind == ETSOC1_RR_STOP ||
           kind == ETSOC1_RR_PAUSE;
}

/* One event of a file being replayed: points into the file's buffer */
typedef struct RrEvent {
    uint8_t kind, flags;
    uint16_t source;
    uint32_t len;
    uint64_t t;
    const uint8_t *p;       /* the payload */
    size_t off;             /* of the event in the file */
} RrEvent;

/* The record's MSIs of one source, in order, and how far replay got */
typedef struct RrMsiStream {
    GArray *idx;            /* event indices */
    guint next;
} RrMsiStream;

/*
 * The record's HOSTMEM events of one eDMA channel, as one byte stream
 * (and its DMA_END events, where the channel raised DONE or ABORT): the
 * card's requests must continue it wherever they cut it.  @off bytes
 * of event idx[@next] are served; @crc covers the bytes the card wrote of
 * it so far.
 */
typedef struct RrHmStream {
    GArray *idx;            /* event indices */
    guint next;
    uint64_t off;
    uint32_t crc;
    /* a request held until the record's events before it are met */
    bool waiting;
    bool write;
    uint64_t addr, len;
    uint8_t *buf;           /* a read's destination */
    uint8_t *copy;          /* a write's data, copied: the interface's rule */
    Etsoc1HostMemDone *done;
    void *opaque;
    uint64_t tag;
    Etsoc1HostMemCtx ctx;
} RrHmStream;

/* What an END says, recorded or taken now */
typedef struct RrEnd {
    uint32_t flags;
    uint32_t harts;
    uint8_t *table;         /* harts x RR_END_HART bytes */
    uint8_t digest[RR_DIGEST_LEN];
} RrEnd;

struct Etsoc1Rr {
    Object parent_obj;

    Etsoc1MachineState *m;
    Etsoc1PcieState *pcie;
    bool replay;
    char *path;
    Error *migration_blocker;
    Error *reset_blocker;

    char *text;             /* record: the header's text, less dev.* */
    char *rec_text;         /* replay: the record's header text */

    /* record */
    FILE *f;
    bool started;           /* the header is written: events may follow */
    uint32_t crc;           /* the last event's, or the header's */
    uint64_t seq;           /* events written */
    uint64_t counts[ETSOC1_RR_KINDS];
    uint64_t last_t;        /* the latest T written */

    /* replay */
    uint8_t *buf;           /* the whole file */
    size_t size;
    GArray *ev;             /* RrEvent, END last */
    GHashTable *msi;        /* source + 1 -> RrMsiStream */
    int ready_idx;          /* the record's READY, or -1 */
    RrHmStream hm[ETSOC1_HOST_MEM_CHANS];   /* HOSTMEM per eDMA channel */
    uint8_t *met;           /* per event: an output the card has produced */
    guint scan;             /* events before it: met, or no output */
    guint scan_all;         /* ... or an input applied: rr_hm_ready */
    QEMUBH *hm_bh;          /* serves held eDMA requests */
    uint64_t hm_held;       /* eDMA requests held */
    uint64_t hm_events, hm_late, hm_bytes;  /* HOSTMEM served, at other T */
    uint64_t dma_ends, dma_late;    /* DMA_END met, at another T here */
    guint hm_late_idx;      /* the first served at another T */
    uint64_t hm_late_at;    /* ... and the card's T then */
    int64_t stuck_ms;       /* held for outputs, the card idle since */
    uint64_t waited;        /* inputs that waited for outputs */
    bool ready_seen;
    bool held;              /* the queue waits: rr_release */
    guint next_in;          /* the next input to apply (event index) */
    QEMUTimer *sp_timer;    /* looks for the SP idle while held */
    guint hang_next;        /* the record's next HANG to compare */
    bool done;              /* the STOP is in: nothing more is checked */
    uint64_t stop_t;        /* the record's STOP (or END) time */
    Notifier iatu_notifier;
    QEMUBH *release_bh;
    VMChangeStateEntry *vmse;
};

/* The state of the inputs replay queued: one per MMIO_WRITE or STOP */
typedef struct RrInput {
    Etsoc1Rr *rr;
    guint idx;
} RrInput;

/*
 * The CRC-32C of what @crc covered followed by @p: QEMU's crc32c() inverts
 * its result, so a continuation starts from the inverse (the empty crc is
 * 0: rr_crc(0, p, n) is the usual CRC-32C of p).
 */
static uint32_t rr_crc(uint32_t crc, const void *p, size_t len)
{
    return crc32c(crc ^ 0xffffffff, p, len);
}

static const char *rr_name(unsigned kind)
{
    return kind < ETSOC1_RR_KINDS && rr_kind_name[kind] ? rr_kind_name[kind]
                                                         : "?";
}

/* ---- the header: what a replay must match -------------------------------- */

/* sha256 of a file's bytes, or "none" without one, or an error */
static char *rr_file_sha256(const char *path, Error **errp)
{
    g_autofree char *data = NULL;
    gsize len;
    GError *gerr = NULL;

    if (!path || !strcmp(path, "none")) {
        return g_strdup("none");
    }
    if (!g_file_get_contents(path, &data, &len, &gerr)) {
        error_setg(errp, "cannot read '%s': %s", path, gerr->message);
        g_error_free(gerr);
        return NULL;
    }
    return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (guchar *)data,
                                       len);
}

/* sha256 of the effective timing table: every row's value, every cost */
static char *rr_timing_sha256(const Etsoc1Timing *tm)
{
    GChecksum *ck = g_checksum_new(G_CHECKSUM_SHA256);
    char *hex;

    g_checksum_update(ck, (const guchar *)tm->value, sizeof(tm->value));
    g_checksum_update(ck, tm->cost, sizeof(tm->cost));
    g_checksum_update(ck, (const guchar *)&tm->clock_mhz,
                      sizeof(tm->clock_mhz));
    hex = g_strdup(g_checksum_get_string(ck));
    g_checksum_free(ck);
    return hex;
}

static gint rr_strcmp(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The machine's configuration as sorted key=value lines.  Every input of
 * the card's behaviour that the command line sets is a key; the host's
 * pacing (the PU timers' scan-ms and warp-idle-ms, the host link's bounds,
 * trace-json, on-deadlock, on-idle) is not: a replay may change it.
 */
static char *rr_config(Etsoc1MachineState *m, MachineState *ms, Error **errp)
{
    g_autoptr(GPtrArray) kv = g_ptr_array_new_with_free_func(g_free);
    struct {
        const char *key;
        const char *path;
    } images[] = {
        { "image.bios", ms->firmware },
        { "image.kernel", ms->kernel_filename },
        { "image.sp-firmware", m->sp_firmware },
    };
    g_autoptr(GDateTime) now = g_date_time_new_now_utc();
    g_autofree char *date = g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ");
    g_autofree char *timing = rr_timing_sha256(m->timing);
    /* END's RAM digest covers the RAM blocks' names: the backend's id */
    const char *memdev = ms->memdev ?
        object_get_canonical_path_component(OBJECT(ms->memdev)) : NULL;
    struct utsname u;
    GString *text;
    unsigned i;

    g_ptr_array_add(kv, g_strdup_printf("build=%s", ETSOC1_BUILD_ID));
    for (i = 0; i < ARRAY_SIZE(images); i++) {
        char *sha = rr_file_sha256(images[i].path, errp);

        if (!sha) {
            return NULL;
        }
        g_ptr_array_add(kv, g_strdup_printf("%s=%s", images[i].key, sha));
        g_free(sha);
        g_ptr_array_add(kv, g_strdup_printf("info.%s.name=%s", images[i].key,
                                            images[i].path ? images[i].path
                                                           : "none"));
    }
    g_ptr_array_add(kv, g_strdup_printf("machine.shires=%u", m->num_shires));
    g_ptr_array_add(kv, g_strdup_printf("machine.smp=%u", ms->smp.cpus));
    g_ptr_array_add(kv, g_strdup_printf("machine.ram-size=%" PRIu64,
                                        (uint64_t)ms->ram_size));
    g_ptr_array_add(kv, g_strdup_printf("machine.memory-backend=%s",
                                        memdev ? memdev : "none"));
    g_ptr_array_add(kv, g_strdup_printf("machine.clock-mhz=%u",
                                        m->clock_mhz));
    g_ptr_array_add(kv, g_strdup_printf("machine.reset-pc=0x%" PRIx64,
                                        m->reset_pc));
    g_ptr_array_add(kv, g_strdup_printf("machine.handshake=%d",
                                        m->handshake));
    g_ptr_array_add(kv, g_strdup_printf("machine.poll-halt=%d",
                                        m->poll_halt));
    g_ptr_array_add(kv, g_strdup_printf("machine.stamp-host=%d",
                                        m->stamp_host));
    g_ptr_array_add(kv, g_strdup_printf("machine.cache-model=%d",
                                        m->cache_model));
    g_ptr_array_add(kv, g_strdup_printf("machine.plain-dram-turns=%d",
                                        m->plain_dram_turns));
    g_ptr_array_add(kv, g_strdup_printf("machine.sp=%d", !!m->sp_firmware));
    g_ptr_array_add(kv, g_strdup_printf("machine.timing=%s", timing));
    g_ptr_array_add(kv, g_strdup_printf("info.machine.timing-file=%s",
                                        m->timing_file ? m->timing_file
                                                       : "none"));
    g_ptr_array_add(kv, g_strdup_printf("info.qemu=%s", QEMU_VERSION));
    g_ptr_array_add(kv, g_strdup_printf("info.host.accel=%s",
                                        qemu_tcg_mttcg_enabled() ? "mttcg"
                                                                 : "single"));
    g_ptr_array_add(kv, g_strdup_printf("info.host.date=%s", date));
    if (uname(&u) == 0) {
        g_ptr_array_add(kv, g_strdup_printf("info.host.uname=%s %s %s",
                                            u.sysname, u.release,
                                            u.machine));
    }
    g_ptr_array_sort(kv, rr_strcmp);
    text = g_string_new(NULL);
    for (i = 0; i < kv->len; i++) {
        g_string_append_printf(text, "%s\n", (char *)kv->pdata[i]);
    }
    return g_string_free(text, false);
}

/*
 * The devices' properties as "dev.<type>.<name>" keys: the endpoint, its
 * eDMA, the PU timers and shire 0 (the shires share theirs), as the
 * command line (-global) left them; links are wiring, and the PU timers'
 * scan-ms and warp-idle-ms are the host's pacing, so they are not keys.
 * Read once every device is realized.
 */
static const char *const rr_pacing[] = {
    "etsoc1-pu-timer.scan-ms", "etsoc1-pu-timer.warp-idle-ms", NULL,
};

static void rr_dev_keys(GPtrArray *kv, Object *obj)
{
    DeviceClass *dc = obj ? DEVICE_GET_CLASS(obj) : NULL;
    Property *p;

    for (p = dc ? dc->props_ : NULL; p && p->name; p++) {
        g_autofree char *key = g_strdup_printf("%s.%s",
                                               object_get_typename(obj),
                                               p->name);
        g_autofree char *val = NULL;

        if (!strcmp(p->info->name, "link") ||
            g_strv_contains(rr_pacing, key)) {
            continue;
        }
        val = object_property_print(obj, p->name, true, NULL);
        if (val) {
            g_ptr_array_add(kv, g_strdup_printf("dev.%s=%s", key, val));
        }
    }
}

static char *rr_dev_config(Etsoc1Rr *rr)
{
    g_autoptr(GPtrArray) kv = g_ptr_array_new_with_free_func(g_free);
    Object *m = OBJECT(rr->m), *pcie = object_resolve_path_component(m,
                                                                      "pcie");
    GString *text = g_string_new(NULL);
    unsigned i;

    rr_dev_keys(kv, pcie);
    rr_dev_keys(kv, pcie ? object_resolve_path_component(pcie, "edma")
                         : NULL);
    rr_dev_keys(kv, object_resolve_path_component(m, "pu-timer"));
    rr_dev_keys(kv, object_resolve_path_component(m, "shire[0]"));
    g_ptr_array_sort(kv, rr_strcmp);
    for (i = 0; i < kv->len; i++) {
        g_string_append_printf(text, "%s\n", (char *)kv->pdata[i]);
    }
    return g_string_free(text, false);
}

/* The value of @key in @text (key=value lines), or NULL */
static char *rr_lookup(const char *text, const char *key)
{
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    size_t klen = strlen(key);
    unsigned i;

    for (i = 0; lines[i]; i++) {
        if (!strncmp(lines[i], key, klen) && lines[i][klen] == '=') {
            return g_strdup(lines[i] + klen + 1);
        }
    }
    return NULL;
}

/*
 * The recorded configuration against this one: the build first, then the
 * first key (in sorted order) that differs, of either side, "info." keys
 * aside; the "dev." keys only (@dev) or all but them.
 */
static bool rr_config_match(Etsoc1Rr *rr, const char *rec, const char *here,
                            bool dev, Error **errp)
{
    g_autofree char *rb = rr_lookup(rec, "build");
    g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(g_free);
    const char *sides[] = { rec, here };
    unsigned i, j;

    if (!dev && (!rb || strcmp(rb, ETSOC1_BUILD_ID))) {
        error_setg(errp, "%s was recorded by build %s; this QEMU is build %s",
                   rr->path, rb ? rb : "(none)", ETSOC1_BUILD_ID);
        return false;
    }
    for (j = 0; j < ARRAY_SIZE(sides); j++) {
        g_auto(GStrv) lines = g_strsplit(sides[j], "\n", -1);

        for (i = 0; lines[i]; i++) {
            char *eq = strchr(lines[i], '=');

            /* dev.* keys only once the devices exist (etsoc1_rr_start) */
            if (eq && strncmp(lines[i], "info.", 5) &&
                !strncmp(lines[i], "dev.", 4) == dev) {
                g_ptr_array_add(keys, g_strndup(lines[i], eq - lines[i]));
            }
        }
    }
    g_ptr_array_sort(keys, rr_strcmp);
    for (i = 0; i < keys->len; i++) {
        const char *key = keys->pdata[i];
        g_autofree char *a = rr_lookup(rec, key);
        g_autofree char *b = rr_lookup(here, key);

        if (a && b && !strcmp(a, b)) {
            continue;
        }
        if (g_str_has_prefix(key, "image.")) {
            g_autofree char *nk = g_strdup_printf("info.%s.name", key);
            g_autofree char *na = rr_lookup(rec, nk);
            g_autofree char *nb = rr_lookup(here, nk);

            error_setg(errp, "%s: %s sha256 %s in the record (%s), %s here "
                       "(%s)", rr->path, key, a ? a : "(none)",
                       na ? na : "?", b ? b : "(none)", nb ? nb : "?");
        } else {
            error_setg(errp, "%s: %s=%s in the record, %s here", rr->path,
                       key, a ? a : "(none)", b ? b : "(none)");
        }
        return false;
    }
    return true;
}

/* ---- record -------------------------------------------------------------- */

static void rr_put(Etsoc1Rr *rr, Etsoc1RrKind kind, uint8_t flags,
                   uint16_t source, uint64_t t, const void *p1, uint32_t l1,
                   const void *p2, uint32_t l2)
{
    uint8_t h[RR_EV_HDR], c[4];
    uint32_t crc;

    if (!rr || rr->replay || !rr->f || !rr->started) {
        return;
    }
    h[0] = kind;
    h[1] = flags;
    stw_le_p(h + 2, source);
    stl_le_p(h + 4, l1 + l2);
    stq_le_p(h + 8, rr->seq);
    stq_le_p(h + 16, t);
    crc = rr_crc(rr->crc, h, sizeof(h));
    crc = rr_crc(crc, p1, l1);
    crc = rr_crc(crc, p2, l2);
    stl_le_p(c, crc);
    if (fwrite(h, sizeof(h), 1, rr->f) != 1 ||
        (l1 && fwrite(p1, l1, 1, rr->f) != 1) ||
        (l2 && fwrite(p2, l2, 1, rr->f) != 1) ||
        fwrite(c, sizeof(c), 1, rr->f) != 1 || fflush(rr->f)) {
        /* a record with a hole would replay wrong: say so, stop writing */
        error_report("etsoc1: record=%s: write failed (%s): the record is "
                     "incomplete", rr->path, strerror(errno));
        fclose(rr->f);
        rr->f = NULL;
        return;
    }
    trace_etsoc1_rr_record(rr->seq, rr_name(kind), t, l1 + l2);
    rr->crc = crc;
    rr->seq++;
    rr->counts[kind]++;
    rr->last_t = MAX(rr->last_t, t);
}

/*
 * The service processor is halted with nothing to do.  It has no clock:
 * its boot, and its answers to the host, go at the host's pace, so an
 * input applied while it was idle waits in replay until it is idle again
 * (a host waits for the card's boot by reading, which is not an input).
 */
static bool rr_sp_idle(Etsoc1Rr *rr)
{
    CPUState *cs = rr->m->sp ? CPU(rr->m->sp) : NULL;

    return !cs || (qatomic_read(&cs->halted) && !cpu_has_work(cs));
}

/*
 * What an input carries besides its T: the VM stopped (by a PAUSE, at its
 * T: etsoc1_input_vm_state), the SP idle
 */
static uint8_t rr_input_flags(Etsoc1Rr *rr)
{
    return (runstate_is_running() ? 0 : ETSOC1_RR_F_PAUSED) |
           (rr->m->input_pause_t ? ETSOC1_RR_F_AT_PAUSE : 0) |
           (rr_sp_idle(rr) ? ETSOC1_RR_F_SP_IDLE : 0);
}

/* The clock and number of the minion making the current access */
static uint16_t rr_requester(uint64_t *t)
{
    Etsoc1MinionCPU *cpu = etsoc1_current_minion();

    *t = cpu ? etsoc1_now(cpu) : 0;
    return cpu ? CPU(cpu)->cpu_index : RR_NO_SOURCE;
}

void etsoc1_rr_note_connect(Etsoc1Rr *rr, uint32_t options)
{
    uint8_t p[4];

    if (rr) {
        stl_le_p(p, options);
        rr_put(rr, ETSOC1_RR_CONNECT, 0, 0, rr->m->input_last_t, p,
               sizeof(p), NULL, 0);
    }
}

void etsoc1_rr_note_disconnect(Etsoc1Rr *rr)
{
    if (rr) {
        rr_put(rr, ETSOC1_RR_DISCONNECT, 0, 0, rr->m->input_last_t, NULL, 0,
               NULL, 0);
    }
}

void etsoc1_rr_note_mmio_write(Etsoc1Rr *rr, uint64_t t, uint64_t addr,
                               const void *data, uint32_t len,
                               uint16_t status)
{
    uint8_t p[RR_MMIO_HDR] = { 0 };

    if (rr) {
        stq_le_p(p, addr);
        stl_le_p(p + 8, len);
        stw_le_p(p + 12, status);
        rr_put(rr, ETSOC1_RR_MMIO_WRITE, rr_input_flags(rr), 0, t, p,
               sizeof(p), data, len);
    }
}

void etsoc1_rr_note_msi(Etsoc1Rr *rr, uint32_t vectors)
{
    uint8_t p[4];
    uint16_t src;
    uint64_t t;

    if (rr) {
        src = rr_requester(&t);
        stl_le_p(p, vectors);
        rr_put(rr, ETSOC1_RR_MSI, 0, src, t, p, sizeof(p), NULL, 0);
    }
}

void etsoc1_rr_note_ready(Etsoc1Rr *rr, uint64_t bar0, uint64_t bar2)
{
    uint8_t p[16];

    if (rr) {
        stq_le_p(p, bar0);
        stq_le_p(p + 8, bar2);
        rr_put(rr, ETSOC1_RR_READY, 0, 0, rr->m->input_last_t, p, sizeof(p),
               NULL, 0);
    }
}

static G_NORETURN void rr_diverged_why(Etsoc1Rr *rr, guint idx, char *why);
static G_NORETURN void G_GNUC_PRINTF(3, 4)
rr_diverged(Etsoc1Rr *rr, guint idx, const char *fmt, ...);

/* The next HANG event at or after @from, or the event count */
static guint rr_next_hang(Etsoc1Rr *rr, guint from)
{
    while (from < rr->ev->len &&
           g_array_index(rr->ev, RrEvent, from).kind != ETSOC1_RR_HANG) {
        from++;
    }
    return from;
}

/* Line @n (from 1) of @text, up to @len bytes, as a new string */
static char *rr_line(const char *text, size_t len, unsigned n)
{
    const char *p = text, *end = text + len, *nl;

    while (--n && p < end) {
        nl = memchr(p, '\n', end - p);
        p = nl ? nl + 1 : end;
    }
    nl = memchr(p, '\n', end - p);
    return g_strndup(p, (nl ? nl : end) - p);
}

/*
 * The hang report the model took at rest (etsoc1_hang_at_rest), at @t,
 * the expiry that found the chip at rest: a record writes it, a replay
 * compares it with the record's next one, naming the first line that
 * differs.
 */
void etsoc1_rr_note_hang(Etsoc1Rr *rr, uint64_t t, const char *report)
{
    size_t len = strlen(report);
    RrEvent *e;
    unsigned n;
    char *why;

    if (!rr || !len) {
        return;
    }
    if (!rr->replay) {
        rr_put(rr, ETSOC1_RR_HANG, 0, 0, t, report, MIN(len, RR_MAX_PAYLOAD),
               NULL, 0);
        return;
    }
    if (rr->done || !rr->ev) {
        return;
    }
    rr->hang_next = rr_next_hang(rr, rr->hang_next);
    if (rr->hang_next >= rr->ev->len) {
        char *first = rr_line(report, len, 1);

        why = g_strdup_printf("this run reports a hang at T=%" PRIu64
                              " that the record does not have: \"%s\"", t,
                              first);
        g_free(first);
        rr_diverged_why(rr, rr->ev->len - 1, why);
    }
    e = &g_array_index(rr->ev, RrEvent, rr->hang_next);
    for (n = 1;; n++) {
        char *a = rr_line((const char *)e->p, e->len, n);
        char *b = rr_line(report, len, n);
        bool same = !strcmp(a, b), over = !*a && !*b;

        /* the message is made, and both lines freed, before exit */
        why = same ? NULL : g_strdup_printf("hang report line %u: \"%s\"; "
                                            "the record has \"%s\"", n, b,
                                            a);
        g_free(a);
        g_free(b);
        if (why) {
            rr_diverged_why(rr, rr->hang_next, why);
        }
        if (over) {
            break;
        }
    }
    if (e->t != t) {
        rr_diverged(rr, rr->hang_next, "the hang report at T=%" PRIu64 "; "
                    "the record's is at T=%" PRIu64, t, e->t);
    }
    rr->met[rr->hang_next] = 1;
    trace_etsoc1_rr_check(rr->hang_next, "HANG", t);
    info_report("etsoc1: replay=%s: the hang report at T=%" PRIu64
                " matches the record's (event %u)", rr->path, t,
                rr->hang_next);
    rr->hang_next++;
}

/*
 * One access of an eDMA channel to host memory, in its stream (source =
 * the channel), at the channel's emulated time: in pieces of at most
 * RR_HM_CHUNK bytes, each with the bytes that moved of it and their crc
 * (a read's data too).  A failure ends in the piece where it happened;
 * nothing after it moved.
 */
void etsoc1_rr_note_hostmem(Etsoc1Rr *rr, const Etsoc1HostMemCtx *ctx,
                            bool write, uint64_t addr, uint64_t len,
                            const void *data, uint64_t done, bool ok)
{
    uint8_t p[RR_HM_HDR];
    uint16_t chan = ctx ? ctx->chan : (write ? 0 : ETSOC1_EDMA_CHANNELS);
    uint64_t t = ctx ? ctx->at : 0, o = 0;

    if (!rr) {
        return;
    }
    done = MIN(done, len);
    do {
        uint64_t n = MIN(len - o, (uint64_t)RR_HM_CHUNK);
        uint64_t moved = done > o ? MIN(done - o, n) : 0;
        bool all = ok || o + n <= done;
        const uint8_t *d = (const uint8_t *)data + o;

        memset(p, 0, sizeof(p));
        p[0] = write ? RR_HM_WRITE : 0;
        p[1] = all ? RR_HM_OK : 0;
        stl_le_p(p + 4, n);
        stq_le_p(p + 8, addr + o);
        stl_le_p(p + 16, moved);
        stl_le_p(p + 20, moved ? rr_crc(0, d, moved) : 0);
        rr_put(rr, ETSOC1_RR_HOSTMEM, 0, chan, t, p, sizeof(p),
               write ? NULL : d, write ? 0 : moved);
        if (!all) {
            break;          /* the failure: nothing after it moved */
        }
        o += n;
    } while (o < len);
}

/*
 * An eDMA channel raised DONE or ABORT at its emulated time: in its
 * stream, so that a replay checks it, and ends the channel at that time
 * where the pace still followed the host (a STOP doorbell or an abort
 * mid-list: docs/record-replay.md, Limits).
 */
void etsoc1_rr_note_dma_end(Etsoc1Rr *rr, const Etsoc1HostMemCtx *ctx,
                            bool abort)
{
    if (rr && ctx) {
        rr_put(rr, ETSOC1_RR_DMA_END, abort ? RR_DMA_ABORT : 0, ctx->chan,
               ctx->at, NULL, 0, NULL, 0);
    }
}

/* ---- the END trailer ----------------------------------------------------- */

/*
 * Every RAM block (DRAM, scratchpads, SRAMs, the SP mailbox): its name,
 * size, and each 4 KiB page that is not all zero with its offset.  DRAM
 * is allocated lazily: its untouched pages read as zero and cost a
 * page-table walk each, not a copy (32 GiB: 0.7 s).
 */
static int rr_digest_block(RAMBlock *rb, void *opaque)
{
    GChecksum *ck = opaque;
    const uint8_t *host = qemu_ram_get_host_addr(rb);
    uint64_t size = qemu_ram_get_used_length(rb), off;
    const char *name = qemu_ram_get_idstr(rb);
    uint8_t le[8];

    g_checksum_update(ck, (const guchar *)name, strlen(name) + 1);
    stq_le_p(le, size);
    g_checksum_update(ck, le, sizeof(le));
    for (off = 0; host && off < size; off += 4 * KiB) {
        uint64_t n = MIN(4 * KiB, size - off);

        if (buffer_is_zero(host + off, n)) {
            continue;
        }
        stq_le_p(le, off);
        g_checksum_update(ck, le, sizeof(le));
        g_checksum_update(ck, host + off, n);
    }
    return 0;
}

/*
 * The card as it stands at a STOP at @stop_t (0: at exit): each minion
 * hart's clock and retired instructions, and if it was idle at @stop_t
 * (so nothing still moves with the host's timing), a digest of every RAM
 * block.  Idle at @stop_t: no CPU can act, no input is pending, and every
 * clock is below @stop_t (etsoc1_sync_at_rest).  The STOP goes in once
 * no hart can act before it, but a hart may run past it meanwhile and
 * halt (a kernel the watchdog aborts): idle now, yet not at @stop_t, and
 * a replay's harts run past it by their own host's pace.
 */
static void rr_end_take(Etsoc1Rr *rr, uint64_t stop_t, bool may_digest,
                        RrEnd *e)
{
    Etsoc1MachineState *m = rr->m;
    unsigned i, n = 0;
    bool idle = false;

    memset(e, 0, sizeof(*e));
    if (may_digest) {
        etsoc1_sync_horizon(&idle);
        idle = idle && etsoc1_sync_at_rest(stop_t);
    }
    e->flags = (stop_t ? RR_END_STOPPED : 0) | (idle ? RR_END_IDLE : 0);
    e->table = g_malloc0(m->minion_slots * RR_END_HART);
    for (i = 0; i < m->minion_slots; i++) {
        Etsoc1MinionCPU *cpu = m->minion[i];
        uint8_t *row = e->table + n * RR_END_HART;

        if (!cpu) {
            continue;
        }
        stl_le_p(row, i);
        stq_le_p(row + 4, etsoc1_now(cpu));
        stq_le_p(row + 12, cpu->parent_obj.env.et_insns);
        n++;
    }
    e->harts = n;
    if (idle) {
        GChecksum *ck = g_checksum_new(G_CHECKSUM_SHA256);
        gsize len = RR_DIGEST_LEN;

        qemu_ram_foreach_block(rr_digest_block, ck);
        /* the MM mailbox (SQs, CQ) is an I/O region, not a RAM block */
        if (rr->pcie) {
            g_checksum_update(ck, rr->pcie->mbox_mm_buf,
                              sizeof(rr->pcie->mbox_mm_buf));
        }
        g_checksum_get_digest(ck, e->digest, &len);
        g_checksum_free(ck);
    }
}

/* Write END and close: at the STOP at @stop_t, at exit, or before an _exit */
static void rr_finish(Etsoc1Rr *rr, uint64_t stop_t, bool may_digest)
{
    RrEnd e;
    g_autoptr(GByteArray) p = g_byte_array_new();
    uint8_t le[8];
    unsigned i;

    if (!rr || rr->replay || !rr->f || !rr->started) {
        return;     /* a run refused before the header: the file is empty */
    }
    rr_end_take(rr, stop_t, may_digest, &e);
    stl_le_p(le, e.flags);
    stl_le_p(le + 4, e.harts);
    g_byte_array_append(p, le, 8);
    stq_le_p(le, rr->seq);
    g_byte_array_append(p, le, 8);
    for (i = 0; i < ETSOC1_RR_KINDS; i++) {
        stq_le_p(le, rr->counts[i]);
        g_byte_array_append(p, le, 8);
    }
    g_byte_array_append(p, e.table, e.harts * RR_END_HART);
    g_byte_array_append(p, e.digest, RR_DIGEST_LEN);
    rr_put(rr, ETSOC1_RR_END, 0, 0, rr->last_t, p->data, p->len, NULL, 0);
    g_free(e.table);
    if (rr->f) {
        fclose(rr->f);
        rr->f = NULL;
    }
}

void etsoc1_rr_note_pause(Etsoc1Rr *rr, uint64_t t)
{
    if (rr) {
        rr_put(rr, ETSOC1_RR_PAUSE, rr_input_flags(rr), 0, t, NULL, 0, NULL,
               0);
    }
}

void etsoc1_rr_note_stop(Etsoc1Rr *rr, uint64_t t)
{
    if (rr) {
        rr_put(rr, ETSOC1_RR_STOP, rr_input_flags(rr), 0, t, NULL, 0, NULL,
               0);
        rr_finish(rr, t, true);
    }
}

void etsoc1_rr_close(Etsoc1Rr *rr)
{
    /* the vCPUs still run: their clocks are as good as any, no digest */
    rr_finish(rr, 0, false);
}

/* A run that ends without STOP (the guest, QMP quit, a signal) */
static void rr_atexit(void)
{
    Object *o = object_resolve_path_component(qdev_get_machine(), "rr");

    if (o) {
        etsoc1_rr_close(ETSOC1_RR(o));
    }
}

/* ---- loading a record ---------------------------------------------------- */

static bool G_GNUC_PRINTF(3, 4)
rr_bad(Etsoc1Rr *rr, Error **errp, const char *fmt, ...)
{
    g_autofree char *why = NULL;
    va_list ap;

    va_start(ap, fmt);
    why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    error_setg(errp, "%s: %s", rr->path, why);
    return false;
}

/* The payload length each kind must have (0: any, checked below) */
static bool rr_len_ok(const RrEvent *e)
{
    switch (e->kind) {
    case ETSOC1_RR_CONNECT:
    case ETSOC1_RR_MSI:
        return e->len == 4;
    case ETSOC1_RR_DISCONNECT:
    case ETSOC1_RR_STOP:
    case ETSOC1_RR_PAUSE:
        return e->len == 0;
    case ETSOC1_RR_DMA_END:
        return e->len == 0 && e->source < ETSOC1_HOST_MEM_CHANS &&
               !(e->flags & ~RR_DMA_ABORT);
    case ETSOC1_RR_READY:
        return e->len == 16;
    case ETSOC1_RR_HANG:
        /* the report's text, not NUL-terminated */
        return e->len > 0 && !memchr(e->p, 0, e->len);
    case ETSOC1_RR_HOSTMEM:
        /* the content: rr_hm_ok */
        return e->len >= RR_HM_HDR &&
               e->len == RR_HM_HDR + ((e->p[0] & RR_HM_WRITE) ? 0 :
                                      (uint64_t)ldl_le_p(e->p + 16));
    case ETSOC1_RR_MMIO_WRITE:
        return e->len > RR_MMIO_HDR &&
               ldl_le_p(e->p + 8) == e->len - RR_MMIO_HDR;
    case ETSOC1_RR_END:
        return e->len >= RR_END_FIXED + RR_DIGEST_LEN &&
               e->len == RR_END_FIXED + RR_DIGEST_LEN +
                         (uint64_t)ldl_le_p(e->p + 4) * RR_END_HART;
    default:
        return false;
    }
}

/*
 * What a HOSTMEM event cannot hold (its length is checked already), or
 * NULL: a channel the engine does not have, a direction that is not the
 * channel's, more bytes moved than asked, a success that moved less, a
 * read whose data is not what its crc says.
 */
static const char *rr_hm_bad(const RrEvent *e)
{
    bool write = e->p[0] & RR_HM_WRITE;
    uint32_t len = ldl_le_p(e->p + 4), done = ldl_le_p(e->p + 16);

    if (e->source >= ETSOC1_HOST_MEM_CHANS) {
        return "no such eDMA channel (0-7)";
    }
    if ((e->p[0] & ~RR_HM_WRITE) || (e->p[1] & ~RR_HM_OK) ||
        lduw_le_p(e->p + 2)) {
        return "unknown flags";
    }
    if (write != (e->source < ETSOC1_EDMA_CHANNELS)) {
        return "a direction that is not its channel's";
    }
    if (!len || len > RR_HM_CHUNK || done > len ||
        ((e->p[1] & RR_HM_OK) && done != len)) {
        return "a length, or bytes moved, it cannot have";
    }
    if (!write && (done ? rr_crc(0, e->p + RR_HM_HDR, done) : 0) !=
        ldl_le_p(e->p + 20)) {
        return "data that is not its crc's";
    }
    return NULL;
}

/*
 * Read and check the whole file: its header, every event's crc and shape,
 * the order of the inputs, the END trailer and its counts.  Nothing here
 * reads outside the buffer: every length is checked against what is
 * left before it is used.
 */
static bool rr_load(Etsoc1Rr *rr, const char *here, Error **errp)
{
    GError *gerr = NULL;
    gchar *data;
    gsize size;
    uint32_t tlen, crc;
    size_t off;
    uint64_t last_in = 0, counts[ETSOC1_RR_KINDS] = { 0 };
    g_autofree char *text = NULL;
    bool ended = false;
    guint i;

    if (!g_file_get_contents(rr->path, &data, &size, &gerr)) {
        error_setg(errp, "cannot read '%s': %s", rr->path, gerr->message);
        g_error_free(gerr);
        return false;
    }
    rr->buf = (uint8_t *)data;
    rr->size = size;
    if (size < RR_HDR_FIXED) {
        return rr_bad(rr, errp, size >= 8 && memcmp(data, RR_MAGIC, 8)
                      ? "not a record file (no ETSOC1RR at its start)"
                      : "truncated in its header (%zu bytes)", (size_t)size);
    }
    if (memcmp(data, RR_MAGIC, 8)) {
        return rr_bad(rr, errp, "not a record file (no ETSOC1RR at its "
                      "start)");
    }
    tlen = ldl_le_p(rr->buf + 12);
    if (tlen > RR_MAX_TEXT) {
        return rr_bad(rr, errp, "a header text of %u bytes (at most %u): "
                      "the file was changed", tlen, (unsigned)RR_MAX_TEXT);
    }
    if (size < RR_HDR_FIXED + (size_t)tlen + 4) {
        return rr_bad(rr, errp, "truncated in its header (%zu bytes)",
                      (size_t)size);
    }
    crc = rr_crc(0, rr->buf, RR_HDR_FIXED + tlen);
    if (crc != ldl_le_p(rr->buf + RR_HDR_FIXED + tlen)) {
        return rr_bad(rr, errp, "the header fails its checksum: the file "
                      "was changed");
    }
    if (ldl_le_p(rr->buf + 8) != RR_FORMAT) {
        return rr_bad(rr, errp, "format %u; this QEMU reads format %u",
                      ldl_le_p(rr->buf + 8), RR_FORMAT);
    }
    text = g_strndup((const char *)rr->buf + RR_HDR_FIXED, tlen);
    if (!rr_config_match(rr, text, here, false, errp)) {
        return false;
    }
    rr->rec_text = g_strdup(text);

    off = RR_HDR_FIXED + tlen + 4;
    rr->ev = g_array_new(false, true, sizeof(RrEvent));
    while (off < size) {
        RrEvent e;
        size_t left = size - off;
        guint n = rr->ev->len;

        if (ended) {
            return rr_bad(rr, errp, "%zu bytes after the end marker (byte "
                          "%zu): the file was changed", left, off);
        }
        if (left < RR_EV_HDR + 4) {
            break;                      /* truncated: below */
        }
        e = (RrEvent) {
            .kind = rr->buf[off], .flags = rr->buf[off + 1],
            .source = lduw_le_p(rr->buf + off + 2),
            .len = ldl_le_p(rr->buf + off + 4),
            .t = ldq_le_p(rr->buf + off + 16),
            .p = rr->buf + off + RR_EV_HDR, .off = off,
        };
        if (e.len > RR_MAX_PAYLOAD) {
            return rr_bad(rr, errp, "event %u (byte %zu): a payload of %u "
                          "bytes (at most %u): the file was changed", n, off,
                          e.len, (unsigned)RR_MAX_PAYLOAD);
        }
        if (left < RR_EV_HDR + (size_t)e.len + 4) {
            break;                      /* truncated */
        }
        crc = rr_crc(crc, rr->buf + off, RR_EV_HDR + e.len);
        if (crc != ldl_le_p(rr->buf + off + RR_EV_HDR + e.len)) {
            return rr_bad(rr, errp, "event %u (%s, T=%" PRIu64 ") fails its "
                          "checksum: the file was changed", n, rr_name(e.kind),
                          e.t);
        }
        /* a right crc over impossible content: also an edited file */
        if (ldq_le_p(rr->buf + off + 8) != n) {
            return rr_bad(rr, errp, "event %u carries sequence number %"
                          PRIu64 ": the file was changed", n,
                          ldq_le_p(rr->buf + off + 8));
        }
        if (!rr_len_ok(&e)) {
            return rr_bad(rr, errp, "event %u (%s, T=%" PRIu64 "): a payload "
                          "of %u bytes that kind cannot have", n,
                          rr_name(e.kind), e.t, e.len);
        }
        if (rr_is_input(e.kind)) {
            if (e.t < last_in || !e.t) {
                return rr_bad(rr, errp, "event %u (%s): T=%" PRIu64 " before "
                              "the previous input's %" PRIu64, n,
                              rr_name(e.kind), e.t, last_in);
            }
            last_in = e.t;
        }
        if (e.kind == ETSOC1_RR_MSI && e.source != RR_NO_SOURCE &&
            e.source >= rr->m->num_shires * ETSOC1_HARTS_PER_SHIRE) {
            return rr_bad(rr, errp, "event %u (MSI): from hart %u, which "
                          "this card does not have", n, e.source);
        }
        if (e.kind == ETSOC1_RR_HOSTMEM) {
            const char *why = rr_hm_bad(&e);

            if (why) {
                return rr_bad(rr, errp, "event %u (HOSTMEM, channel %u, T=%"
                              PRIu64 "): %s: the file was changed", n,
                              e.source, e.t, why);
            }
        }
        if (e.kind == ETSOC1_RR_END) {
            const uint8_t *q = e.p + 16;
            unsigned k;

            for (k = 0; k < ETSOC1_RR_KINDS; k++) {
                if (ldq_le_p(q + 8 * k) != counts[k]) {
                    return rr_bad(rr, errp, "END counts %" PRIu64 " %s "
                                  "events, the file holds %" PRIu64 ": the "
                                  "file was changed", ldq_le_p(q + 8 * k),
                                  rr_name(k), counts[k]);
                }
            }
            ended = true;
        }
        counts[e.kind]++;
        g_array_append_val(rr->ev, e);
        off += RR_EV_HDR + e.len + 4;
    }
    if (!ended) {
        return rr_bad(rr, errp, "truncated after event %d (byte %zu); the "
                      "record ends without its end marker",
                      (int)rr->ev->len - 1, off);
    }

    rr->ready_idx = -1;
    rr->met = g_malloc0(rr->ev->len);
    for (i = 0; i < ETSOC1_HOST_MEM_CHANS; i++) {
        rr->hm[i].idx = g_array_new(false, false, sizeof(guint));
    }
    rr->msi = g_hash_table_new(NULL, NULL);
    for (i = 0; i < rr->ev->len; i++) {
        RrEvent *e = &g_array_index(rr->ev, RrEvent, i);
        RrMsiStream *s;

        switch (e->kind) {
        case ETSOC1_RR_READY:
            if (rr->ready_idx < 0) {
                rr->ready_idx = i;
            }
            break;
        case ETSOC1_RR_HOSTMEM:
        case ETSOC1_RR_DMA_END:
            g_array_append_val(rr->hm[e->source].idx, i);
            break;
        case ETSOC1_RR_MSI:
            s = g_hash_table_lookup(rr->msi, GUINT_TO_POINTER(e->source + 1));
            if (!s) {
                s = g_new0(RrMsiStream, 1);
                s->idx = g_array_new(false, false, sizeof(guint));
                g_hash_table_insert(rr->msi, GUINT_TO_POINTER(e->source + 1),
                                    s);
            }
            g_array_append_val(s->idx, i);
            break;
        case ETSOC1_RR_STOP:
        case ETSOC1_RR_END:
            if (!rr->stop_t) {
                rr->stop_t = e->t;
            }
            break;
        default:
            break;
        }
    }
    return true;
}

/* ---- replay -------------------------------------------------------------- */

/*
 * Stop: the replay diverged at event @idx, for reason @why (freed here:
 * exit() runs no cleanup, and LeakSanitizer would report it)
 */
static G_NORETURN void rr_diverged_why(Etsoc1Rr *rr, guint idx, char *why)
{
    RrEvent *e = &g_array_index(rr->ev, RrEvent, idx);

    error_report("etsoc1: replay diverged at record event %u (%s, T=%" PRIu64
                 "): %s", idx, rr_name(e->kind), e->t, why);
    g_free(why);
    exit(ETSOC1_RR_DIVERGED);
}

static G_NORETURN void G_GNUC_PRINTF(3, 4)
rr_diverged(Etsoc1Rr *rr, guint idx, const char *fmt, ...)
{
    char *why;
    va_list ap;

    va_start(ap, fmt);
    why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    rr_diverged_why(rr, idx, why);
}

/*
 * Why the card's figures may not be the record's although it replays the
 * same inputs and host data, or NULL: a request or a channel's end came
 * at another emulated time (the ends are then the record's, the requests
 * are counted).  Since stage 5a the eDMA steps on the chip's time and
 * this is left to its limits (docs/record-replay.md): a channel stopped
 * or aborted where the host's pace had its steps.
 */
static char *rr_dma_pacing(Etsoc1Rr *rr)
{
    g_autofree char *first = NULL;

    if (!rr->hm_late && !rr->dma_late) {
        return NULL;
    }
    if (rr->hm_late) {
        first = g_strdup_printf(", the first request event %u at T=%" PRIu64
                                " (the record's %" PRIu64 ")",
                                rr->hm_late_idx, rr->hm_late_at,
                                g_array_index(rr->ev, RrEvent,
                                              rr->hm_late_idx).t);
    }
    return g_strdup_printf("the eDMA's pace was not the record's: %" PRIu64
                           " of %" PRIu64 " HOSTMEM requests and %" PRIu64
                           " of %" PRIu64 " DMA ends came at other emulated "
                           "times%s (a channel stopped or aborted at a "
                           "host-timed point? docs/record-replay.md, "
                           "Limits)",
                           rr->hm_late, rr->hm_events, rr->dma_late,
                           rr->dma_ends, first ? first : "");
}

/* The END of the record against the card now; false if it diverged */
static void rr_end_check(Etsoc1Rr *rr, guint idx)
{
    RrEvent *e = &g_array_index(rr->ev, RrEvent, idx);
    uint32_t flags = ldl_le_p(e->p), harts = ldl_le_p(e->p + 4);
    const uint8_t *table = e->p + RR_END_FIXED;
    const uint8_t *digest = table + (size_t)harts * RR_END_HART;
    GHashTableIter it;
    RrMsiStream *s;
    gpointer key;
    RrEnd now;
    unsigned i, nclock, ninsn;
    int first, finsn;
    g_autofree char *pacing = rr_dma_pacing(rr);

    /* the record's MSIs before its STOP that this run did not send */
    g_hash_table_iter_init(&it, rr->msi);
    while (g_hash_table_iter_next(&it, &key, (gpointer *)&s)) {
        if (s->next < s->idx->len) {
            guint j = g_array_index(s->idx, guint, s->next);
            RrEvent *m = &g_array_index(rr->ev, RrEvent, j);

            if (m->t < rr->stop_t) {
                rr_diverged(rr, j, "the record has MSI 0x%x from hart %u; "
                            "this run did not send it", ldl_le_p(m->p),
                            m->source);
            }
        }
    }
    /* the record's hang reports before its STOP that this run did not take */
    rr->hang_next = rr_next_hang(rr, rr->hang_next);
    if (rr->hang_next < rr->ev->len) {
        RrEvent *hg = &g_array_index(rr->ev, RrEvent, rr->hang_next);
        char *first = rr_line((const char *)hg->p, hg->len, 1);
        char *why = g_strdup_printf("the record has a hang report (\"%s\"); "
                                    "this run did not take it", first);

        g_free(first);
        rr_diverged_why(rr, rr->hang_next, why);
    }
    if (!(flags & RR_END_IDLE)) {
        warn_report("etsoc1: replay=%s: the card was not idle when the "
                    "record ended: its clocks and memory are not compared",
                    rr->path);
        return;
    }
    rr_end_take(rr, rr->stop_t, true, &now);
    if (!(now.flags & RR_END_IDLE)) {
        g_free(now.table);
        rr_diverged(rr, idx, "the record's card was idle at its end; this "
                    "one is not");
    }
    if (now.harts != harts) {
        rr_diverged(rr, idx, "%u harts, the record has %u", now.harts, harts);
    }
    for (i = 0, first = -1, finsn = -1, nclock = ninsn = 0; i < harts;
         i++) {
        const uint8_t *a = table + i * RR_END_HART;
        const uint8_t *b = now.table + i * RR_END_HART;

        if (ldl_le_p(a) != ldl_le_p(b) || ldq_le_p(a + 4) != ldq_le_p(b + 4)) {
            first = first < 0 ? i : first;
            nclock++;
        } else if (ldq_le_p(a + 12) != ldq_le_p(b + 12)) {
            finsn = finsn < 0 ? i : finsn;
            ninsn++;
        }
    }
    if (first >= 0) {
        const uint8_t *a = table + first * RR_END_HART;
        const uint8_t *b = now.table + first * RR_END_HART;
        g_autofree char *why = g_strdup_printf(
            "hart %u clock %" PRIu64 ", instret %" PRIu64 "; the record "
            "has clock %" PRIu64 ", instret %" PRIu64 " (%u harts differ in "
            "their clock)", ldl_le_p(b), ldq_le_p(b + 4), ldq_le_p(b + 12),
            ldq_le_p(a + 4), ldq_le_p(a + 12), nclock);

        if (!pacing) {
            rr_diverged_why(rr, idx, g_steal_pointer(&why));
        }
        /*
         * The eDMA's pace was not the record's (its limits): the clocks
         * cannot be expected equal then; said, not hidden.
         */
        warn_report("etsoc1: replay=%s: END: %s; %s: the clocks are not "
                    "compared", rr->path, why, pacing);
    }
    /*
     * Equal clocks, other instruction counts: which hart of a shire is
     * last at a barrier whose arrivals lie within the gate's lookahead of
     * each other is the host's order (the last one sends the others their
     * credits, design 4.2); the clocks meet again at the next launch.
     * Said, not a divergence.
     */
    if (finsn >= 0) {
        const uint8_t *a = table + finsn * RR_END_HART;
        const uint8_t *b = now.table + finsn * RR_END_HART;

        warn_report("etsoc1: replay=%s: END: %u harts retired another "
                    "number of instructions with the same clock (hart %u: "
                    "%" PRIu64 ", the record %" PRIu64 ")", rr->path, ninsn,
                    ldl_le_p(b), ldq_le_p(b + 12), ldq_le_p(a + 12));
    }
    if (memcmp(digest, now.digest, RR_DIGEST_LEN)) {
        rr_diverged(rr, idx, "the RAM digest differs (the card's memory is "
                    "not the record's)%s%s", pacing ? "; " : "",
                    pacing ? pacing : "");
    }
    g_free(now.table);
    if (first >= 0) {
        info_report("etsoc1: replay=%s: END: the RAM digest and every MSI "
                    "match; %u of %u harts' clocks differ (eDMA pacing, "
                    "above); %" PRIu64 " HOSTMEM events served (%" PRIu64
                    " bytes)", rr->path, nclock, harts, rr->hm_events,
                    rr->hm_bytes);
        return;
    }
    info_report("etsoc1: replay=%s: END matches: %u harts' clocks (%u "
                "with the record's instret too), the RAM digest, every MSI; "
                "%" PRIu64 " HOSTMEM events served (%" PRIu64 " bytes, %"
                PRIu64 " at another T); %" PRIu64 " DMA ends (%" PRIu64
                " at another T, the record's taken); %" PRIu64 " inputs "
                "and %" PRIu64 " eDMA requests waited for the record's "
                "events before them", rr->path, harts, harts - ninsn,
                rr->hm_events, rr->hm_bytes, rr->hm_late, rr->dma_ends,
                rr->dma_late, rr->waited, rr->hm_held);
}

/*
 * The first output the record has before input @k that this card has not
 * produced yet, or -1: an MSI written at a time before the input's T, a
 * HOSTMEM event not served in full, a channel's DONE or ABORT.  The
 * record's host may have acted on any of them (it read the CQ after an
 * MSI; the eDMA's DONE came after its host accesses), and the eDMA is no
 * actor that the input's apply waits for: an input waits for them, as
 * the record's host did, not only for its T.
 * An MSI at or after the input's T is not waited for: the input holds
 * its writer at T (the gate), so the record's could not have come first.
 */
static int rr_unmet_before(Etsoc1Rr *rr, guint k)
{
    uint64_t tk = k < rr->ev->len ? g_array_index(rr->ev, RrEvent, k).t
                                  : UINT64_MAX;
    guint i;

    for (; rr->scan < k && rr->scan < rr->ev->len; rr->scan++) {
        uint8_t kind = g_array_index(rr->ev, RrEvent, rr->scan).kind;

        if ((kind == ETSOC1_RR_MSI || kind == ETSOC1_RR_HOSTMEM ||
             kind == ETSOC1_RR_DMA_END) && !rr->met[rr->scan]) {
            break;
        }
    }
    for (i = rr->scan; i < k && i < rr->ev->len; i++) {
        RrEvent *e = &g_array_index(rr->ev, RrEvent, i);

        if (rr->met[i]) {
            continue;
        }
        if (e->kind == ETSOC1_RR_HOSTMEM || e->kind == ETSOC1_RR_DMA_END ||
            (e->kind == ETSOC1_RR_MSI && e->t < tk)) {
            return i;
        }
    }
    return -1;
}

/* The eDMA moves, or may: a channel runs */
static bool rr_edma_busy(Etsoc1Rr *rr)
{
    unsigned side, n;

    for (side = 0; side < 2; side++) {
        for (n = 0; n < ETSOC1_EDMA_CHANNELS; n++) {
            if (rr->pcie->edma.ch[side][n].state == 1 /* RUNNING */) {
                return true;
            }
        }
    }
    return false;
}

/* How long the card may stand idle short of an output the record has */
#define RR_STUCK_MS     3000

/*
 * Let the queue apply the next input once the card is where the record's
 * was: the VM runs, the card has sent READY (the host's first write came
 * after it), the SP is idle if it was when the record applied it, and
 * the card has produced the outputs the record had before it.
 */
static void rr_release(Etsoc1Rr *rr)
{
    int64_t now = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    RrEvent *e;
    int unmet;
    bool idle;

    if (!rr->held || !runstate_is_running() ||
        (rr->ready_idx >= 0 && !rr->ready_seen)) {
        return;
    }
    e = rr->next_in < rr->ev->len ?
        &g_array_index(rr->ev, RrEvent, rr->next_in) : NULL;
    unmet = rr_unmet_before(rr, rr->next_in);
    if (unmet >= 0) {
        /*
         * No minion can act before the input, the SP and the eDMA are
         * idle: nothing will produce the output.  Said after a while (a
         * DONE just raised wakes its hart on the next look).
         */
        uint64_t h = etsoc1_sync_horizon(&idle);

        if (!e || h < e->t || !rr_sp_idle(rr) || rr_edma_busy(rr)) {
            rr->stuck_ms = 0;
        } else if (!rr->stuck_ms) {
            rr->stuck_ms = now;
        } else if (now - rr->stuck_ms > RR_STUCK_MS) {
            RrEvent *u = &g_array_index(rr->ev, RrEvent, unmet);

            rr_diverged(rr, unmet, "the card is idle before the record's "
                        "next input (event %u, T=%" PRIu64 ") without the "
                        "%s the record has here (%s %u)", rr->next_in,
                        e->t, rr_name(u->kind), u->kind == ETSOC1_RR_MSI ?
                        "from hart" : "channel", u->source);
        }
        timer_mod(rr->sp_timer, now + ETSOC1_SYNC_TICK_MS);
        return;
    }
    rr->stuck_ms = 0;
    if (e && (e->flags & ETSOC1_RR_F_SP_IDLE) && !rr_sp_idle(rr)) {
        timer_mod(rr->sp_timer, now + ETSOC1_SYNC_TICK_MS);
        return;
    }
    rr->held = false;
    etsoc1_input_hold(rr->m, false);
}

/* The card produced output event @idx: a held input may go in now */
static void rr_met(Etsoc1Rr *rr, guint idx)
{
    rr->met[idx] = 1;
    if (rr->held) {
        qemu_bh_schedule(rr->release_bh);
    }
    qemu_bh_schedule(rr->hm_bh);
}

/* The input after @idx in the record, or the end */
static guint rr_next_input(Etsoc1Rr *rr, guint idx)
{
    for (idx++; idx < rr->ev->len; idx++) {
        if (rr_is_input(g_array_index(rr->ev, RrEvent, idx).kind)) {
            break;
        }
    }
    return idx;
}

static void rr_input_apply(void *opaque, uint64_t t)
{
    RrInput *in = opaque;
    Etsoc1Rr *rr = in->rr;
    RrEvent *e = &g_array_index(rr->ev, RrEvent, in->idx);
    guint idx = in->idx;
    bool unmet;

    g_free(in);
    trace_etsoc1_rr_replay(idx, rr_name(e->kind), t);
    if (rr->done) {
        return;
    }
    if (e->kind == ETSOC1_RR_MMIO_WRITE) {
        uint64_t addr = ldq_le_p(e->p);
        uint32_t len = ldl_le_p(e->p + 8);
        uint16_t want = lduw_le_p(e->p + 12);
        MemTxResult r = etsoc1_pcie_host_write(rr->pcie, addr,
                                               e->p + RR_MMIO_HDR, len);

        if ((uint16_t)r != want) {
            rr_diverged(rr, idx, "the write to bus 0x%" PRIx64 " +%u gives "
                        "result %u; the record has %u", addr, len, r, want);
        }
    }
    /*
     * A PAUSE changes nothing on the card: the record's stop only held
     * the harts past its T until the writes made meanwhile (at its T) were
     * in, as the queue's order holds them here.
     */
    if (e->kind == ETSOC1_RR_MMIO_WRITE || e->kind == ETSOC1_RR_PAUSE) {
        /*
         * the next one waits for the SP if the record's did, and for the
         * outputs the record had before it
         */
        rr->next_in = rr_next_input(rr, idx);
        qemu_bh_schedule(rr->hm_bh);    /* eDMA requests held for it */
        unmet = rr->next_in < rr->ev->len &&
                rr_unmet_before(rr, rr->next_in) >= 0;
        rr->waited += unmet;
        if (rr->next_in < rr->ev->len &&
            (((g_array_index(rr->ev, RrEvent, rr->next_in).flags &
               ETSOC1_RR_F_SP_IDLE) && !rr_sp_idle(rr)) || unmet)) {
            rr->held = true;
            etsoc1_input_hold(rr->m, true);
            /* not from inside the queue's apply loop */
            qemu_bh_schedule(rr->release_bh);
        }
        return;
    }
    /*
     * STOP, or the END of a record that had none: the session is over.
     * The card stops at T, as the record's did (hl_stop_apply).
     */
    rr->done = true;
    rr_end_check(rr, rr->ev->len - 1);
    if (runstate_is_running()) {
        vm_stop(RUN_STATE_PAUSED);
    }
    qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_QMP_QUIT);
}

static void rr_release_bh(void *opaque)
{
    rr_release(opaque);
}

static void rr_sp_tick(void *opaque)
{
    rr_release(opaque);
}

/* Inputs go in once the VM runs, and the card has sent READY */
static void rr_vm_state(void *opaque, bool running, RunState state)
{
    Etsoc1Rr *rr = opaque;

    if (running) {
        qemu_bh_schedule(rr->release_bh);
    }
}

/*
 * The card's READY: the host's first write came after it in the record,
 * so the inputs wait for it here too (the SP's boot has no clock).
 */
static void rr_iatu_changed(Notifier *n, void *data)
{
    Etsoc1Rr *rr = container_of(n, Etsoc1Rr, iatu_notifier);

    if (rr->ready_seen || !etsoc1_pcie_iatu_enabled(rr->pcie, 3)) {
        return;
    }
    rr->ready_seen = true;
    if (rr->ready_idx >= 0) {
        RrEvent *e = &g_array_index(rr->ev, RrEvent, rr->ready_idx);

        if (ldq_le_p(e->p) != rr->pcie->bar0_addr ||
            ldq_le_p(e->p + 8) != rr->pcie->bar2_addr) {
            rr_diverged(rr, rr->ready_idx, "READY with BAR0 0x%" PRIx64
                        ", BAR2 0x%" PRIx64 "; the record has 0x%" PRIx64
                        ", 0x%" PRIx64, rr->pcie->bar0_addr,
                        rr->pcie->bar2_addr, ldq_le_p(e->p),
                        ldq_le_p(e->p + 8));
        }
    }
    qemu_bh_schedule(rr->release_bh);
}

static void rr_msi(void *opaque, uint32_t vectors)
{
    Etsoc1Rr *rr = opaque;
    RrMsiStream *s;
    RrEvent *e;
    uint16_t src;
    uint64_t t;
    guint j;

    if (rr->done) {
        return;
    }
    src = rr_requester(&t);
    s = g_hash_table_lookup(rr->msi, GUINT_TO_POINTER(src + 1));
    if (!s || s->next >= s->idx->len) {
        if (t >= rr->stop_t) {
            return;     /* after the record's end: not in it */
        }
        error_report("etsoc1: replay diverged at T=%" PRIu64 ": MSI 0x%x "
                     "from hart %u, which the record does not have (its "
                     "MSIs from that hart: %u)", t, vectors, src,
                     s ? s->idx->len : 0);
        exit(ETSOC1_RR_DIVERGED);
    }
    j = g_array_index(s->idx, guint, s->next++);
    e = &g_array_index(rr->ev, RrEvent, j);
    if (ldl_le_p(e->p) != vectors || e->t != t) {
        g_autofree char *pacing = rr_dma_pacing(rr);

        rr_diverged(rr, j, "MSI from hart %u: vectors 0x%x at T=%" PRIu64
                    "; the record has 0x%x at T=%" PRIu64 "%s%s", src,
                    vectors, t, ldl_le_p(e->p), e->t, pacing ? "; " : "",
                    pacing ? pacing : "");
    }
    trace_etsoc1_rr_check(j, "MSI", t);
    rr_met(rr, j);
}

/* A HOSTMEM event's fields */
typedef struct RrHm {
    bool write, ok;
    uint32_t len, done, crc;
    uint64_t addr;
    const uint8_t *data;    /* a read's */
} RrHm;

static RrHm rr_hm(const RrEvent *e)
{
    return (RrHm) {
        .write = e->p[0] & RR_HM_WRITE, .ok = e->p[1] & RR_HM_OK,
        .len = ldl_le_p(e->p + 4), .addr = ldq_le_p(e->p + 8),
        .done = ldl_le_p(e->p + 16), .crc = ldl_le_p(e->p + 20),
        .data = e->p + RR_HM_HDR,
    };
}

static const char *rr_dir(bool write)
{
    return write ? "writes" : "reads";
}

/* The event of @s in progress is over: a write's bytes are checked */
static void rr_hm_next(Etsoc1Rr *rr, RrHmStream *s, guint idx,
                       const RrHm *h, unsigned chan)
{
    if (h->write && s->crc != h->crc) {
        rr_diverged(rr, idx, "channel %u: the card wrote host 0x%" PRIx64
                    " + %u with data of crc32c 0x%08x; the record's has "
                    "0x%08x", chan, h->addr, h->done, s->crc, h->crc);
    }
    trace_etsoc1_rr_check(idx, "HOSTMEM", g_array_index(rr->ev, RrEvent,
                                                        idx).t);
    s->next++;
    s->off = 0;
    s->crc = 0;
    rr_met(rr, idx);
}

/*
 * An eDMA access to host memory, served from the record: it must continue
 * its channel's stream (same direction, the next host address, within the
 * bytes the record holds), however the card cuts it into pieces.  A read
 * takes its data from the file; a write's bytes are checked against the
 * record's crc once its event is complete; a recorded failure fails here
 * after the same bytes.  *@done: the bytes that moved.
 */
static MemTxResult rr_host_access(Etsoc1Rr *rr, bool write, uint64_t addr,
                                  uint8_t *buf, uint64_t len, uint64_t *done,
                                  const Etsoc1HostMemCtx *ctx)
{
    unsigned chan = ctx ? ctx->chan : (write ? 0 : ETSOC1_EDMA_CHANNELS);
    uint64_t at = ctx ? ctx->at : 0, moved = 0;
    RrHmStream *s;

    *done = 0;
    if (rr->done) {
        return MEMTX_ERROR;     /* after the record's STOP: not in it */
    }
    if (chan >= ETSOC1_HOST_MEM_CHANS) {
        error_report("etsoc1: replay diverged at T=%" PRIu64 ": host memory "
                     "asked by no eDMA channel", at);
        exit(ETSOC1_RR_DIVERGED);
    }
    s = &rr->hm[chan];
    while (moved < len) {
        guint idx;
        RrEvent *e;
        RrHm h;
        uint64_t take, n;

        if (s->next >= s->idx->len) {
            if (!s->idx->len) {
                error_report("etsoc1: replay diverged at T=%" PRIu64 ": eDMA "
                             "channel %u %s host 0x%" PRIx64 " + %" PRIu64
                             "; the record has no HOSTMEM event on that "
                             "channel (the card asks for DMA data the "
                             "record does not hold)", at, chan,
                             rr_dir(write), addr + moved, len - moved);
                exit(ETSOC1_RR_DIVERGED);
            }
            idx = g_array_index(s->idx, guint, s->idx->len - 1);
            rr_diverged(rr, idx, "channel %u at T=%" PRIu64 ": the card %s "
                        "host 0x%" PRIx64 " + %" PRIu64 "; the record's "
                        "stream of that channel ended with this event (the "
                        "card asks for DMA data the record does not hold)",
                        chan, at, rr_dir(write), addr + moved, len - moved);
        }
        idx = g_array_index(s->idx, guint, s->next);
        e = &g_array_index(rr->ev, RrEvent, idx);
        if (e->kind == ETSOC1_RR_DMA_END) {
            rr_diverged(rr, idx, "channel %u at T=%" PRIu64 ": the card %s "
                        "host 0x%" PRIx64 " + %" PRIu64 "; the record's "
                        "channel raised %s here (the card asks for DMA data "
                        "the record does not hold)", chan, at, rr_dir(write),
                        addr + moved, len - moved,
                        e->flags & RR_DMA_ABORT ? "ABORT" : "DONE");
        }
        h = rr_hm(e);
        if (h.write != write || h.addr + s->off != addr + moved) {
            rr_diverged(rr, idx, "channel %u at T=%" PRIu64 ": the card %s "
                        "host 0x%" PRIx64 " + %" PRIu64 "; the record holds "
                        "a %s of host 0x%" PRIx64 " + %" PRIu64 " here (the "
                        "card asks for DMA data the record does not hold)",
                        chan, at, rr_dir(write), addr + moved, len - moved,
                        h.write ? "write" : "read", h.addr + s->off,
                        h.len - s->off);
        }
        if (s->off == 0) {
            /* the eDMA's pace (its limits): counted, said at END */
            rr->hm_events++;
            if (moved == 0 && e->t != at && !rr->hm_late++) {
                rr->hm_late_idx = idx;
                rr->hm_late_at = at;
            }
        }
        take = MIN(len - moved, h.len - s->off);
        n = h.done > s->off ? MIN(take, h.done - s->off) : 0;
        if (write) {
            s->crc = rr_crc(s->crc, buf + moved, n);
        } else {
            memcpy(buf + moved, h.data + s->off, n);
        }
        moved += n;
        s->off += n;
        rr->hm_bytes += n;
        if (n < take) {
            /* the record's access failed after h.done bytes: so does this */
            trace_etsoc1_rr_hostmem(chan, write, addr, len, moved, false);
            rr_hm_next(rr, s, idx, &h, chan);
            *done = moved;
            return MEMTX_ERROR;
        }
        if (s->off == h.len) {
            rr_hm_next(rr, s, idx, &h, chan);
        }
    }
    trace_etsoc1_rr_hostmem(chan, write, addr, len, moved, true);
    *done = moved;
    return MEMTX_OK;
}

/*
 * The card's channel raises DONE or ABORT: the record's must have, at
 * this point of its stream; the channel takes the record's time (it
 * differs only where the pace followed the host, docs/record-replay.md
 * Limits: counted, said at END).
 */
static uint64_t rr_host_end(Etsoc1HostMem *hm, const Etsoc1HostMemCtx *ctx,
                            bool abort)
{
    Etsoc1Rr *rr = ETSOC1_RR(hm);
    RrHmStream *s;
    RrEvent *e;
    guint idx;

    if (rr->done || !ctx || ctx->chan >= ETSOC1_HOST_MEM_CHANS) {
        return ctx ? ctx->at : 0;
    }
    s = &rr->hm[ctx->chan];
    if (s->next >= s->idx->len) {
        error_report("etsoc1: replay diverged at T=%" PRIu64 ": eDMA "
                     "channel %u raises %s; the record's channel has no "
                     "more events", ctx->at, ctx->chan,
                     abort ? "ABORT" : "DONE");
        exit(ETSOC1_RR_DIVERGED);
    }
    idx = g_array_index(s->idx, guint, s->next);
    e = &g_array_index(rr->ev, RrEvent, idx);
    if (e->kind != ETSOC1_RR_DMA_END || s->off ||
        !(e->flags & RR_DMA_ABORT) != !abort) {
        rr_diverged(rr, idx, "channel %u raises %s at T=%" PRIu64 "; the "
                    "record's channel %s here", ctx->chan,
                    abort ? "ABORT" : "DONE", ctx->at,
                    e->kind == ETSOC1_RR_DMA_END ?
                    (e->flags & RR_DMA_ABORT ? "raised ABORT" :
                     "raised DONE") : "still moves host data");
    }
    rr->dma_ends++;
    if (e->t != ctx->at && !rr->dma_late++) {
        warn_report("etsoc1: replay=%s: event %u: eDMA channel %u ends at "
                    "T=%" PRIu64 " here, at T=%" PRIu64 " in the record: "
                    "it takes the record's (a channel stopped or aborted "
                    "at a host-timed point? docs/record-replay.md, Limits)",
                    rr->path, idx,
                    ctx->chan, ctx->at, e->t);
    }
    trace_etsoc1_rr_check(idx, "DMA_END", e->t);
    s->next++;
    rr_met(rr, idx);
    return e->t;
}

/*
 * May the channel's next event be served now: has everything the record
 * has before it happened here (its inputs applied, its MSIs sent, the
 * other channels' accesses and ends)?  A request served before them could
 * let a later one overtake a DONE, an MSI or a host write here.  An event
 * begun is served on.  Inputs and MSIs at a T after the request's step
 * are not waited for: the eDMA takes a step only once no input at or
 * before it is queued and the harts are past it (docs/timing.md "DMA"),
 * so they cannot change it; and a hart behind the step at the gate, or
 * an input waiting for that hart, may wait for it, as in the record (a
 * socket's answer came after them there).
 */
static bool rr_hm_ready(Etsoc1Rr *rr, RrHmStream *s)
{
    guint idx;
    uint64_t at;

    if (s->next >= s->idx->len || s->off) {
        return true;        /* the access says what is wrong, or goes on */
    }
    idx = g_array_index(s->idx, guint, s->next);
    at = g_array_index(rr->ev, RrEvent, idx).t;
    for (; rr->scan_all < idx; rr->scan_all++) {
        RrEvent *e = &g_array_index(rr->ev, RrEvent, rr->scan_all);

        switch (e->kind) {
        case ETSOC1_RR_MSI:
            if (e->t <= at && !rr->met[rr->scan_all]) {
                return false;
            }
            break;
        case ETSOC1_RR_HOSTMEM:
        case ETSOC1_RR_DMA_END:
            if (!rr->met[rr->scan_all]) {
                return false;
            }
            break;
        case ETSOC1_RR_MMIO_WRITE:
        case ETSOC1_RR_STOP:
            if (e->t <= at && rr->next_in <= rr->scan_all) {
                return false;   /* not applied yet */
            }
            break;
        default:
            break;
        }
    }
    return true;
}

/* Serve the held requests whose turn has come (from a bottom half) */
static void rr_hm_bh(void *opaque)
{
    Etsoc1Rr *rr = opaque;
    unsigned c;

    for (c = 0; c < ETSOC1_HOST_MEM_CHANS; c++) {
        RrHmStream *s = &rr->hm[c];
        uint64_t moved;
        MemTxResult r;

        if (!s->waiting || rr->done || !rr_hm_ready(rr, s)) {
            continue;
        }
        s->waiting = false;
        r = rr_host_access(rr, s->write, s->addr, s->write ? s->copy : s->buf,
                           s->len, &moved, &s->ctx);
        g_free(s->copy);
        s->copy = NULL;
        s->done(s->opaque, s->tag, r);
    }
}

/*
 * The asynchronous pair: served at once if its turn has come, else held
 * (rr_hm_ready) and answered from rr_hm_bh.  A held read fails whole if
 * the record's failed part way (the synchronous path moves the part).
 */
static MemTxResult rr_host_start(Etsoc1Rr *rr, bool write, uint64_t addr,
                                 void *buf, uint64_t len,
                                 Etsoc1HostMemDone *done, void *opaque,
                                 uint64_t tag, const Etsoc1HostMemCtx *ctx)
{
    unsigned chan = ctx ? ctx->chan : (write ? 0 : ETSOC1_EDMA_CHANNELS);
    RrHmStream *s;
    uint64_t moved;

    if (chan >= ETSOC1_HOST_MEM_CHANS || rr->done ||
        rr_hm_ready(rr, &rr->hm[chan])) {
        return rr_host_access(rr, write, addr, buf, len, &moved, ctx);
    }
    s = &rr->hm[chan];
    g_free(s->copy);
    *s = (RrHmStream) {
        .idx = s->idx, .next = s->next, .off = s->off, .crc = s->crc,
        .waiting = true, .write = write, .addr = addr, .len = len,
        .buf = buf, .copy = write ? g_memdup2(buf, len) : NULL,
        .done = done, .opaque = opaque, .tag = tag, .ctx = *ctx,
    };
    rr->hm_held++;
    return ETSOC1_HOST_MEM_PENDING;
}

static MemTxResult rr_host_start_read(Etsoc1HostMem *hm, uint64_t addr,
                                      void *buf, uint64_t len,
                                      Etsoc1HostMemDone *done, void *opaque,
                                      uint64_t tag,
                                      const Etsoc1HostMemCtx *ctx)
{
    return rr_host_start(ETSOC1_RR(hm), false, addr, buf, len, done, opaque,
                         tag, ctx);
}

static MemTxResult rr_host_start_write(Etsoc1HostMem *hm, uint64_t addr,
                                       const void *buf, uint64_t len,
                                       Etsoc1HostMemDone *done, void *opaque,
                                       uint64_t tag,
                                       const Etsoc1HostMemCtx *ctx)
{
    return rr_host_start(ETSOC1_RR(hm), true, addr, (void *)buf, len, done,
                         opaque, tag, ctx);
}

static MemTxResult rr_host_direct(Etsoc1HostMem *hm, bool write,
                                  uint64_t addr, void *buf, uint64_t len,
                                  uint64_t *done, const Etsoc1HostMemCtx *ctx)
{
    Etsoc1Rr *rr = ETSOC1_RR(hm);

    *done = 0;
    /* not its turn: the eDMA asks through the asynchronous pair */
    if (ctx && ctx->chan < ETSOC1_HOST_MEM_CHANS && !rr->done &&
        !rr_hm_ready(rr, &rr->hm[ctx->chan])) {
        return ETSOC1_HOST_MEM_PENDING;
    }
    return rr_host_access(rr, write, addr, buf, len, done, ctx);
}

static MemTxResult rr_host_read(Etsoc1HostMem *hm, uint64_t addr, void *buf,
                                uint64_t len, const Etsoc1HostMemCtx *ctx)
{
    uint64_t done;

    return rr_host_access(ETSOC1_RR(hm), false, addr, buf, len, &done, ctx);
}

static MemTxResult rr_host_write(Etsoc1HostMem *hm, uint64_t addr,
                                 const void *buf, uint64_t len,
                                 const Etsoc1HostMemCtx *ctx)
{
    uint64_t done;

    return rr_host_access(ETSOC1_RR(hm), true, addr, (void *)buf, len, &done,
                          ctx);
}

/* ---- the machine's side -------------------------------------------------- */

/*
 * -M etsoc1,record=FILE or replay=FILE: refuse what cannot work, then
 * write the header or read and check the whole record, before any CPU is
 * built.  Exits with status 1 on a refusal, with a one-line message.
 */
Etsoc1Rr *etsoc1_rr_create(Etsoc1MachineState *m, MachineState *ms,
                           bool qtest)
{
    const char *record = m->rr_record, *replay = m->rr_replay;
    Etsoc1Rr *rr;
    g_autofree char *text = NULL;
    Error *err = NULL;
    const char *why = NULL;

    if (!record && !replay) {
        return NULL;
    }
    if (record && replay) {
        why = "record= and replay= together: choose one";
    } else if (!m->poll_halt || !m->stamp_host) {
        why = "record= and replay= need poll-halt=on and stamp-host=on "
              "(inputs at a stamped time)";
    } else if (record && !m->hostlink_id) {
        why = "record= records a host session: it needs hostlink=";
    } else if (replay && m->hostlink_id) {
        why = "replay= plays the record's host: it takes no hostlink=";
    } else if (replay && m->host_loopback) {
        why = "replay= plays the record's host: it takes no host-loopback=on";
    } else if (qtest) {
        why = "record= and replay= need TCG, not qtest";
    }
    if (why) {
        error_report("etsoc1: %s", why);
        exit(1);
    }
    rr = ETSOC1_RR(object_new(TYPE_ETSOC1_RR));
    object_property_add_child(OBJECT(m), "rr", OBJECT(rr));
    object_unref(OBJECT(rr));
    rr->m = m;
    rr->replay = !!replay;
    rr->path = g_strdup(replay ? replay : record);
    text = rr_config(m, ms, &err);
    if (!text) {
        error_reportf_err(err, "etsoc1: %s=%s: ", replay ? "replay" : "record",
                          rr->path);
        exit(1);
    }
    error_setg(&rr->migration_blocker, "etsoc1: a session under %s= cannot "
               "be saved or migrated (the record would lose its place)",
               replay ? "replay" : "record");
    if (migrate_add_blocker(rr->migration_blocker, &err) < 0) {
        error_reportf_err(err, "etsoc1: ");
        exit(1);
    }
    /*
     * The record holds no reset (the card would restart where the record
     * goes on): system_reset is refused (qemu-patches/0015).
     */
    error_setg(&rr->reset_blocker, "etsoc1: a session under %s= cannot be "
               "reset (the record holds no reset: quit and start again)",
               replay ? "replay" : "record");
    qemu_system_reset_add_blocker(rr->reset_blocker);
    if (replay) {
        if (!rr_load(rr, text, &err)) {
            error_reportf_err(err, "etsoc1: replay: ");
            exit(1);
        }
        rr->held = true;
        return rr;
    }
    /* created now, so that a path that cannot be written is refused now */
    rr->f = fopen(rr->path, "wb");
    if (!rr->f) {
        error_report("etsoc1: record: cannot write '%s': %s", rr->path,
                     strerror(errno));
        exit(1);
    }
    rr->text = g_steal_pointer(&text);
    atexit(rr_atexit);
    return rr;
}

/* Record: the header, with the devices' keys, before any event */
static void rr_write_header(Etsoc1Rr *rr)
{
    g_autofree char *dev = rr_dev_config(rr);
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;
    uint8_t fixed[RR_HDR_FIXED], c[4];
    GString *all;
    unsigned i;

    /* one sorted list of both */
    all = g_string_new(rr->text);
    g_string_append(all, dev);
    lines = g_strsplit(all->str, "\n", -1);
    g_string_free(all, true);
    qsort(lines, g_strv_length(lines), sizeof(char *), rr_strcmp);
    all = g_string_new(NULL);
    for (i = 0; lines[i]; i++) {
        if (*lines[i]) {
            g_string_append_printf(all, "%s\n", lines[i]);
        }
    }
    text = g_string_free(all, false);
    memcpy(fixed, RR_MAGIC, 8);
    stl_le_p(fixed + 8, RR_FORMAT);
    stl_le_p(fixed + 12, strlen(text));
    rr->crc = rr_crc(rr_crc(0, fixed, sizeof(fixed)), (uint8_t *)text,
                     strlen(text));
    stl_le_p(c, rr->crc);
    if (fwrite(fixed, sizeof(fixed), 1, rr->f) != 1 ||
        fwrite(text, strlen(text), 1, rr->f) != 1 ||
        fwrite(c, sizeof(c), 1, rr->f) != 1 || fflush(rr->f)) {
        error_report("etsoc1: record: cannot write '%s': %s", rr->path,
                     strerror(errno));
        exit(1);
    }
    rr->started = true;
}

/* After the endpoint is realized.  Replay: its MSIs and iATU come here. */
void etsoc1_rr_attach(Etsoc1Rr *rr, Etsoc1PcieState *pcie)
{
    if (!rr) {
        return;
    }
    rr->pcie = pcie;
    if (!rr->replay) {
        return;
    }
    etsoc1_pcie_set_msi_handler(pcie, rr_msi, rr);
    rr->iatu_notifier.notify = rr_iatu_changed;
    etsoc1_pcie_add_iatu_notifier(pcie, &rr->iatu_notifier);
    rr->release_bh = qemu_bh_new(rr_release_bh, rr);
    rr->hm_bh = qemu_bh_new(rr_hm_bh, rr);
    rr->sp_timer = timer_new_ms(QEMU_CLOCK_REALTIME, rr_sp_tick, rr);
    rr->vmse = qemu_add_vm_change_state_handler(rr_vm_state, rr);
}

/*
 * Once the host-input queue exists (etsoc1_sync_start), before the VM
 * runs: every input of the record goes in at its T, held until the VM
 * runs and the card has sent READY.
 */
void etsoc1_rr_start(Etsoc1Rr *rr)
{
    g_autofree char *dev = NULL;
    Error *err = NULL;
    guint i;

    if (!rr) {
        return;
    }
    if (!rr->replay) {
        rr_write_header(rr);
        return;
    }
    /* the devices' keys, now that they exist; still before the run */
    dev = rr_dev_config(rr);
    if (!rr_config_match(rr, rr->rec_text, dev, true, &err)) {
        error_reportf_err(err, "etsoc1: replay: ");
        exit(1);
    }
    etsoc1_input_hold(rr->m, true);
    rr->next_in = rr_next_input(rr, -1);
    for (i = 0; i < rr->ev->len; i++) {
        RrEvent *e = &g_array_index(rr->ev, RrEvent, i);
        bool last = i == rr->ev->len - 1, mmio;
        const char *what;
        RrInput *in;

        if (!rr_is_input(e->kind) && !last) {
            continue;
        }
        if ((e->flags & (ETSOC1_RR_F_PAUSED | ETSOC1_RR_F_AT_PAUSE)) ==
            ETSOC1_RR_F_PAUSED) {
            warn_report("etsoc1: replay=%s: event %u was applied while the "
                        "VM was paused: exact only if the card was idle",
                        rr->path, i);
        }
        in = g_new0(RrInput, 1);
        in->rr = rr;
        in->idx = i;
        /* an END after a STOP is checked at the STOP */
        if (last && e->kind == ETSOC1_RR_END && rr->ev->len > 1 &&
            g_array_index(rr->ev, RrEvent, i - 1).kind == ETSOC1_RR_STOP) {
            g_free(in);
            break;
        }
        mmio = e->kind == ETSOC1_RR_MMIO_WRITE;
        /* under the live host link's names (ETSOC1_INPUT_*) */
        what = mmio ? ETSOC1_INPUT_MMIO_WRITE :
               e->kind == ETSOC1_RR_STOP ? ETSOC1_INPUT_STOP :
               e->kind == ETSOC1_RR_PAUSE ? ETSOC1_INPUT_PAUSE :
               rr_name(e->kind);
        if (!etsoc1_input_post_at(rr->m, MAX(e->t, 1), what,
                                  mmio ? ldq_le_p(e->p) : 0,
                                  mmio ? ldl_le_p(e->p + 8) : 0,
                                  rr_input_apply, in)) {
            /* the loader checked the order; no queue: no TCG */
            error_report("etsoc1: replay=%s: event %u cannot be queued at "
                         "T=%" PRIu64, rr->path, i, e->t);
            exit(1);
        }
    }
}

static void rr_finalize(Object *obj)
{
    Etsoc1Rr *rr = ETSOC1_RR(obj);

    if (rr->f) {
        fclose(rr->f);
    }
    g_free(rr->buf);
    g_free(rr->met);
    g_free(rr->path);
    g_free(rr->text);
    g_free(rr->rec_text);
}

static void rr_class_init(ObjectClass *oc, void *data)
{
    Etsoc1HostMemClass *k = ETSOC1_HOST_MEM_CLASS(oc);

    k->read = rr_host_read;
    k->write = rr_host_write;
    k->direct = rr_host_direct;
    k->start_read = rr_host_start_read;
    k->start_write = rr_host_start_write;
    k->end = rr_host_end;
}

static const TypeInfo rr_types[] = {
    {
        .name = TYPE_ETSOC1_RR,
        .parent = TYPE_OBJECT,
        .instance_size = sizeof(Etsoc1Rr),
        .instance_finalize = rr_finalize,
        .class_init = rr_class_init,
        .interfaces = (InterfaceInfo[]) {
            { TYPE_ETSOC1_HOST_MEM },
            { }
        },
    },
};

DEFINE_TYPES(rr_types)
