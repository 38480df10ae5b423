/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The whole card through libetsoc1-host: QEMU with the firmware stubs,
 * driven as Esperanto's device layer drives its simulator
 * (shared/spec/host-interface.md sections 2-4): READY, DIR discovery with
 * CRC, virtual queues with wrap, SQ threshold, doorbells, MSIs, then the
 * device-api commands: API compatibility, echo, DMA lists both ways,
 * kernel launch / abort / exception and the error paths, and one SP
 * management command.  Prints TAP.  With --session QEMU_ARG... it runs
 * only session() (a DMA session with two launches, which tests/rr_tests.py
 * records), the arguments added to QEMU's command line.
 *
 * Environment: ETSOC1_QEMU (qemu-system-riscv64), ETSOC1_GUEST_DIR
 * (etsoc1-sp.elf, etsoc1-fw.elf and the kernels vecadd.elf, hang.elf,
 * exception.elf).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <elf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "etsoc1-host.h"
#include "tap.h"

#define KIB (1u << 10)
#define MIB (1u << 20)

/* ---- device-api messages (host-interface.md section 4), packed ---- */

#define PACKED __attribute__((packed))

typedef struct PACKED Hdr {
    uint16_t size;      /* commands: total; responses: after the header */
    uint16_t tag;
    uint16_t msg;
    uint16_t flags;
} Hdr;

enum {
    MSG_COMPAT = 513, MSG_COMPAT_RSP, MSG_FW_VERSION, MSG_FW_VERSION_RSP,
    MSG_ECHO, MSG_ECHO_RSP, MSG_ABORT, MSG_ABORT_RSP, MSG_LAUNCH,
    MSG_LAUNCH_RSP, MSG_KABORT, MSG_KABORT_RSP, MSG_READLIST,
    MSG_READLIST_RSP, MSG_WRITELIST, MSG_WRITELIST_RSP,
    MSG_FW_ERROR = 535,
};

typedef struct PACKED DummyCmd {        /* compat, echo */
    Hdr h;
    uint64_t dummy;
} DummyCmd;

typedef struct PACKED CompatRsp {
    Hdr h;
    uint32_t status;
    uint16_t major, minor, patch;
    uint8_t pad[6];
} CompatRsp;

typedef struct PACKED EchoRsp {
    Hdr h;
    uint64_t start_ts;
    uint32_t status;
    uint32_t pad;
} EchoRsp;

typedef struct PACKED DmaNode {
    uint64_t host_virt;
    uint64_t host_phys;
    uint64_t dev_phys;
    uint32_t size;
    uint32_t pad;
} DmaNode;

typedef struct PACKED DmaCmd {
    Hdr h;
    DmaNode node[4];
} DmaCmd;

typedef struct PACKED TimedRsp {        /* DMA lists, kernel launch */
    Hdr h;
    uint64_t start_ts;
    uint64_t exec_dur;
    uint64_t wait_dur;
    uint32_t status;
    uint32_t pad;
} TimedRsp;

typedef struct PACKED LaunchCmd {
    Hdr h;
    uint64_t code;
    uint64_t args;
    uint64_t exception_buf;
    uint64_t shire_mask;
} LaunchCmd;

typedef struct PACKED KAbortCmd {
    Hdr h;
    uint16_t tag;
    uint8_t pad[6];
} KAbortCmd;

typedef struct PACKED StatusRsp {       /* abort */
    Hdr h;
    uint32_t status;
    uint32_t pad;
} StatusRsp;

typedef struct PACKED FwErrorEvt {
    Hdr h;
    uint64_t payload;
    uint32_t error_type;
    uint32_t pad;
} FwErrorEvt;

typedef struct PACKED MgmtRsp {         /* dev_mgmt_rsp_hdr_extn_t */
    Hdr h;
    uint64_t latency_us;
    int32_t status;
    uint32_t pad;
} MgmtRsp;

static_assert(sizeof(Hdr) == 8, "cmn_header_t");
static_assert(sizeof(CompatRsp) == 24, "api_compatibility_rsp");
static_assert(sizeof(EchoRsp) == 24, "echo_rsp");
static_assert(sizeof(DmaNode) == 32, "dma node");
static_assert(sizeof(DmaCmd) == 136, "4-node dma list");
static_assert(sizeof(TimedRsp) == 40, "dma/launch rsp");
static_assert(sizeof(LaunchCmd) == 40, "kernel_launch_cmd");
static_assert(sizeof(KAbortCmd) == 16, "kernel_abort_cmd");
static_assert(sizeof(FwErrorEvt) == 24, "device_fw_error");
static_assert(sizeof(MgmtRsp) == 24, "mgmt rsp");

/* ---- TAP ----------------------------------------------------------------- */


static void diag(const char *fmt, ...)
{
    va_list ap;

    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

static uint64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

    nanosleep(&ts, NULL);
}

/* ---- host memory: one arena, DMA outside it is refused ------------------ */

static uint8_t *arena;
static size_t arena_size;
static uint8_t *arena2;                 /* test_mem_fd's plain memory */
static size_t arena2_size;
static unsigned long refused;
static volatile unsigned long served;   /* host accesses served */

static bool in_region(uint8_t *p, size_t size, uint64_t addr, uint32_t len)
{
    uint64_t base = (uintptr_t)p;

    return p && addr >= base && len <= size && addr - base <= size - len;
}

static bool in_arena(uint64_t addr, uint32_t len)
{
    return in_region(arena, arena_size, addr, len) ||
           in_region(arena2, arena2_size, addr, len);
}

static int mem_read(void *opaque, uint64_t addr, void *buf, uint32_t len)
{
    (void)opaque;
    if (!in_arena(addr, len)) {
        refused++;
        return -1;
    }
    memcpy(buf, (void *)(uintptr_t)addr, len);
    served++;
    return 0;
}

static int mem_write(void *opaque, uint64_t addr, void *buf, uint32_t len)
{
    (void)opaque;
    if (!in_arena(addr, len)) {
        refused++;
        return -1;
    }
    memcpy((void *)(uintptr_t)addr, buf, len);
    served++;
    return 0;
}

/* ---- the card ------------------------------------------------------------ */

static Etsoc1Host *card;
static uint64_t bar0, bar2;
static int link_err;            /* first link error seen */

static void rd(uint64_t bus, void *buf, uint32_t n)
{
    int r = etsoc1_host_mmio_read(card, bus, buf, n);

    if (r && !link_err) {
        link_err = r;
        diag("MMIO read 0x%" PRIx64 "+%u: %s", bus, n,
             etsoc1_host_strerror(r));
    }
    if (r) {
        memset(buf, 0, n);
    }
}

static void wr(uint64_t bus, const void *buf, uint32_t n)
{
    int r = etsoc1_host_mmio_write(card, bus, buf, n);

    if (r && !link_err) {
        link_err = r;
        diag("MMIO write 0x%" PRIx64 "+%u: %s", bus, n,
             etsoc1_host_strerror(r));
    }
}

static uint64_t rd64(uint64_t bus)
{
    uint64_t v;

    rd(bus, &v, 8);
    return v;
}

static void wr64(uint64_t bus, uint64_t v)
{
    wr(bus, &v, 8);
}

/* The standard reflected CRC-32 (poly 0xEDB88320), table-less. */
static uint32_t crc32(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffff;
    int k;

    while (n--) {
        c ^= *p++;
        for (k = 0; k < 8; k++) {
            c = (c >> 1) ^ (0xedb88320 & -(c & 1));
        }
    }
    return ~c;
}

static uint16_t ld16(const uint8_t *p)
{
    return p[0] | p[1] << 8;
}

static uint32_t ld32(const uint8_t *p)
{
    return ld16(p) | (uint32_t)ld16(p + 2) << 16;
}

static uint64_t ld64(const uint8_t *p)
{
    return ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

/* ---- virtual queues (host-interface.md 3.4, 2.4 steps 4-5) -------------- */

typedef struct Vq {
    const char *name;
    uint64_t bus;       /* CircBuffCb */
    uint64_t len;       /* ring bytes */
    unsigned wraps;     /* head/tail went past the end */
    unsigned splits;    /* a message crossed the end */
    unsigned msgs;
} Vq;

static Vq mm_sq, mm_cq, sp_sq, sp_cq;
static unsigned sq_threshold = 136;     /* a 4-node DMA list */

static void vq_init(Vq *q, const char *name, uint64_t bus)
{
    q->name = name;
    q->bus = bus;
    q->len = rd64(bus + 16);
}

static uint64_t vq_used(Vq *q, uint64_t head, uint64_t tail)
{
    return (head + q->len - tail) % q->len;
}

static uint64_t vq_free(Vq *q)
{
    return q->len - 1 - vq_used(q, rd64(q->bus), rd64(q->bus + 8));
}

/* Copy at ring offset @off, wrapping; true if it crossed the end. */
static bool ring_io(Vq *q, uint64_t off, void *buf, uint32_t n, bool write)
{
    uint32_t first = q->len - off < n ? q->len - off : n;

    if (write) {
        wr(q->bus + 32 + off, buf, first);
    } else {
        rd(q->bus + 32 + off, buf, first);
    }
    if (first < n) {
        if (write) {
            wr(q->bus + 32, (uint8_t *)buf + first, n - first);
        } else {
            rd(q->bus + 32, (uint8_t *)buf + first, n - first);
        }
        return true;
    }
    return false;
}

/* Push if there is room (free = len - 1 - used); false otherwise. */
static bool vq_push(Vq *q, const void *msg, uint32_t n)
{
    uint64_t head = rd64(q->bus), tail = rd64(q->bus + 8);

    if (q->len - 1 - vq_used(q, head, tail) < n) {
        return false;
    }
    q->splits += ring_io(q, head, (void *)msg, n, true);
    q->wraps += head + n >= q->len;
    wr64(q->bus, (head + n) % q->len);
    q->msgs++;
    return true;
}

/* Pop one message (8-byte header, then hdr.size bytes); its length. */
static uint32_t vq_pop(Vq *q, uint8_t *buf, uint32_t max)
{
    uint64_t head = rd64(q->bus), tail = rd64(q->bus + 8);
    uint32_t n;
    bool split;

    if (head == tail || link_err) {
        return 0;
    }
    split = ring_io(q, tail, buf, 8, false);
    n = 8 + ld16(buf);
    if (n > max || n > vq_used(q, head, tail)) {
        diag("%s: bad message size %u at tail 0x%" PRIx64 " (head 0x%"
             PRIx64 ")", q->name, n, tail, head);
        link_err = -ETSOC1_HOST_EINVAL;
        return 0;
    }
    split |= ring_io(q, (tail + 8) % q->len, buf + 8, n - 8, false);
    q->splits += split;
    q->wraps += tail + n >= q->len;
    wr64(q->bus + 8, (tail + n) % q->len);
    q->msgs++;
    return n;
}

/* ---- commands and responses ---------------------------------------------- */

#define MAX_RSP     256
#define RSP_BYTES   128

static struct {
    uint8_t b[RSP_BYTES];
    bool used;
} rsps[MAX_RSP];
static uint16_t next_tag = 1;

/* Move every queued response of @q into rsps[]; how many. */
static int drain(Vq *q)
{
    uint8_t buf[RSP_BYTES];
    int got = 0, i;
    uint32_t n;

    while ((n = vq_pop(q, buf, sizeof(buf)))) {
        for (i = 0; i < MAX_RSP && rsps[i].used; i++) {
        }
        if (i == MAX_RSP) {
            diag("too many responses kept");
            break;
        }
        memset(rsps[i].b, 0, RSP_BYTES);
        memcpy(rsps[i].b, buf, n);
        rsps[i].used = true;
        got++;
    }
    return got;
}

static bool is_sp(Vq *q)
{
    return q == &sp_sq || q == &sp_cq;
}

/*
 * Push @cmd on @sq (its tag set here) and ring the doorbell; while the
 * SQ is full, drain @cq and wait for an MSI as the device layer does.
 */
static uint16_t send_cmd(Vq *sq, Vq *cq, void *cmd, uint32_t n)
{
    Hdr *h = cmd;
    uint32_t sqbit = is_sp(sq) ? ETSOC1_HOST_MSI_SP_SQ : ETSOC1_HOST_MSI_MM_SQ;
    uint32_t cqbit = is_sp(sq) ? ETSOC1_HOST_MSI_SP_CQ : ETSOC1_HOST_MSI_MM_CQ;
    uint64_t end = now_ms() + 30000;

    h->size = n;
    h->tag = next_tag++;
    while (!vq_push(sq, cmd, n)) {
        if (link_err || now_ms() > end) {
            diag("%s: no room for %u bytes", sq->name, n);
            return 0;
        }
        drain(cq);
        etsoc1_host_wait_msi(card, sqbit | cqbit, 50);
    }
    etsoc1_host_doorbell(card, is_sp(sq) ? ETSOC1_HOST_SP : ETSOC1_HOST_MM);
    return h->tag;
}

/*
 * The response (or event) with @tag (0: any) and @msg, copied into a
 * static slot of its own (later drains reuse rsps[]); NULL on timeout.
 */
static const uint8_t *wait_rsp(Vq *cq, uint16_t tag, uint16_t msg,
                               unsigned timeout_ms)
{
    static uint8_t out[8][RSP_BYTES];
    static unsigned next;
    uint32_t bit = is_sp(cq) ? ETSOC1_HOST_MSI_SP_CQ : ETSOC1_HOST_MSI_MM_CQ;
    uint64_t end = now_ms() + timeout_ms;
    int i;

    for (;;) {
        drain(cq);
        for (i = 0; i < MAX_RSP; i++) {
            const Hdr *h = (const Hdr *)rsps[i].b;

            if (rsps[i].used && (!tag || h->tag == tag) && h->msg == msg) {
                uint8_t *o = out[next++ % 8];

                memcpy(o, rsps[i].b, RSP_BYTES);
                rsps[i].used = false;
                return o;
            }
        }
        if (link_err || now_ms() > end) {
            return NULL;
        }
        etsoc1_host_wait_msi(card, bit, 100);
    }
}

/* ---- discovery ----------------------------------------------------------- */

static uint64_t host_managed, host_managed_size;
static uint32_t dma_max_elem = 128 * MIB;
static uint64_t compute_shires;         /* SP DIR cm_shires_mask */
static TimedRsp last_rsp;               /* of the last DMA or launch */

static bool discover(const char *what, uint64_t dir, uint32_t size,
                     unsigned status_off, int want, uint8_t *buf)
{
    uint64_t end = now_ms() + 120000;
    int16_t st = 0;
    uint16_t attr, total;
    uint32_t crc, want_crc;
    unsigned crc_off = size == 352 ? 16 : 10;

    /* devicelayer polls every 100 ms; a negative status is a failure */
    while (now_ms() < end && !link_err) {
        rd(dir + status_off, &st, 2);
        if (st >= want || st < 0) {
            break;
        }
        sleep_ms(100);
    }
    rd(dir, buf, size);
    attr = ld16(buf);
    total = ld16(buf + 4);
    crc = ld32(buf + crc_off);
    want_crc = attr < total && total <= size ?
               crc32(buf + attr, total - attr) : ~crc;
    return report(st >= want && total == size && crc == want_crc,
                  "%s DIR: status %d (>= %d), %u bytes, version %u, "
                  "CRC 0x%08x (computed 0x%08x over %u bytes)", what, st,
                  want, total, ld16(buf + 2), crc, want_crc, total - attr);
}

static bool setup(void)
{
    uint8_t sp[352], mm[112];
    const uint8_t *vq;
    uint64_t vq_base = 0;
    bool ok;
    int i;

    ok = discover("SP", bar2 + 0x1000, 352, 44, 10, sp);
    compute_shires = ld32(sp + 24);             /* cm_shires_mask */
    /* SP: vq_attr at 72 (no HP queues), regions at 96 */
    vq = sp + ld16(sp);
    for (i = 0; i < ld16(sp + 6) && i < 8; i++) {
        const uint8_t *r = sp + 96 + 32 * i;

        if (r[2] == 0 && r[3] == 2) {           /* VQ_BUFFER in BAR2 */
            vq_base = bar2 + ld64(r + 8);
        }
    }
    if (vq_base) {
        vq_init(&sp_sq, "SP SQ", vq_base + ld32(vq + 8));
        vq_init(&sp_cq, "SP CQ", vq_base + ld32(vq + 16));
    }
    ok &= report(vq_base && sp_sq.len && sp_cq.len,
                 "SP queues: SQ at BAR2+0x%" PRIx64 " (ring %" PRIu64
                 "), CQ at BAR2+0x%" PRIx64 " (ring %" PRIu64 ")",
                 sp_sq.bus - bar2, sp_sq.len, sp_cq.bus - bar2, sp_cq.len);

    ok &= discover("MM", bar2, 112, 8, 8, mm);
    vq = mm + 16;
    vq_base = 0;
    for (i = 0; i < ld16(mm + 6) && i < 2; i++) {
        const uint8_t *r = mm + 48 + 32 * i;

        if (r[2] == 0) {
            vq_base = bar2 + ld64(r + 8);
        } else if (r[2] == 1) {                 /* OPS_HOST_MANAGED */
            uint32_t a = ld32(r + 4);

            host_managed = ld64(r + 24);
            host_managed_size = ld64(r + 16);
            if ((a >> 9) & 0xff) {
                dma_max_elem = ((a >> 9) & 0xff) * 32 * MIB;
            }
        }
    }
    if (vq_base) {
        /* SQ 0 and the CQ; the device layer also has SQ 1 and HP SQs */
        vq_init(&mm_sq, "MM SQ0", vq_base + ld32(vq + 8));
        vq_init(&mm_cq, "MM CQ0", vq_base + ld32(vq + 16));
    }
    ok &= report(vq_base && mm_sq.len == 0x420 && mm_cq.len &&
                 host_managed,
                 "MM queues: %u SQ of 0x%x, %u CQ of 0x%x, SQ0 ring 0x%"
                 PRIx64 ", CQ ring 0x%" PRIx64 "; host-managed DRAM 0x%"
                 PRIx64 " + 0x%" PRIx64 ", DMA element <= %u MiB",
                 ld16(vq + 12), ld16(vq + 14), ld16(vq + 20), ld16(vq + 22),
                 mm_sq.len, mm_cq.len, host_managed, host_managed_size,
                 dma_max_elem >> 20);
    {
        /* the library's DRAM: $ETSOC1_DRAM_MIB, else a card's 32 GiB */
        const char *e = getenv("ETSOC1_DRAM_MIB");
        uint64_t mib = e && *e ? strtoull(e, NULL, 10)
                               : ETSOC1_HOST_DRAM_MIB_DEFAULT;

        ok &= report(host_managed + host_managed_size ==
                     0x8000000000ull + (mib << 20),
                     "host-managed DRAM ends at 0x%" PRIx64 ": %" PRIu64
                     " MiB of card DRAM, as the library was asked",
                     host_managed + host_managed_size, mib);
    }
    return ok;
}

/* ---- tests --------------------------------------------------------------- */

static void test_compat_echo(void)
{
    DummyCmd c = { .h.msg = MSG_COMPAT };
    const CompatRsp *cr;
    const EchoRsp *er;
    uint16_t tag;

    tag = send_cmd(&mm_sq, &mm_cq, &c, sizeof(c));
    cr = (const CompatRsp *)wait_rsp(&mm_cq, tag, MSG_COMPAT_RSP, 10000);
    report(cr && cr->h.size == sizeof(*cr) - 8 && cr->status == 0,
           "API compatibility: status %d, version %u.%u.%u",
           cr ? (int)cr->status : -1, cr ? cr->major : 0,
           cr ? cr->minor : 0, cr ? cr->patch : 0);

    c.h.msg = MSG_ECHO;
    tag = send_cmd(&mm_sq, &mm_cq, &c, sizeof(c));
    er = (const EchoRsp *)wait_rsp(&mm_cq, tag, MSG_ECHO_RSP, 10000);
    report(er && er->h.size == sizeof(*er) - 8 && er->status == 0,
           "echo: status %d, device timestamp %" PRIu64,
           er ? (int)er->status : -1, er ? er->start_ts : 0);
}

/*
 * SQ threshold: without a doorbell the firmware does not look, so the
 * SQ fills; it is "not available" below the threshold; after the
 * doorbell an MM_SQ MSI says the firmware took commands, and the SQ is
 * available again.  The responses then fill (and wrap) the CQ.
 */
static void test_threshold(void)
{
    DummyCmd c = { .h.msg = MSG_ECHO };
    uint64_t free0, free1, end;
    uint32_t msi;
    unsigned pushed = 0, got = 0, i;
    uint16_t first = next_tag;

    etsoc1_host_wait_msi(card, ETSOC1_HOST_MSI_MM_SQ, 0);
    for (;;) {
        c.h.size = sizeof(c);
        c.h.tag = next_tag;
        if (vq_free(&mm_sq) < sq_threshold || !vq_push(&mm_sq, &c, 16)) {
            break;
        }
        next_tag++;
        pushed++;
    }
    free0 = vq_free(&mm_sq);
    etsoc1_host_doorbell(card, ETSOC1_HOST_MM);
    msi = etsoc1_host_wait_msi(card, ETSOC1_HOST_MSI_MM_SQ, 10000);
    end = now_ms() + 10000;
    while ((free1 = vq_free(&mm_sq)) < sq_threshold && now_ms() < end) {
        etsoc1_host_wait_msi(card, ETSOC1_HOST_MSI_MM_SQ, 100);
    }
    report(pushed > 40 && free0 < sq_threshold && msi && free1 >= sq_threshold,
           "SQ threshold %u: %u echoes fill SQ0 to %" PRIu64 " free "
           "bytes; after the doorbell an MM_SQ MSI (0x%x) and %" PRIu64
           " free", sq_threshold, pushed, free0, msi, free1);
    for (i = 0; i < pushed; i++) {
        got += wait_rsp(&mm_cq, first + i, MSG_ECHO_RSP, 10000) != NULL;
    }
    report(got == pushed, "%u of %u echo responses from the CQ", got,
           pushed);
}

static void test_echo_flood(unsigned n, bool want_wraps)
{
    DummyCmd c = { .h.msg = MSG_ECHO };
    unsigned i, got = 0;
    uint16_t first = next_tag;
    Vq sq0 = mm_sq, cq0 = mm_cq;

    for (i = 0; i < n; i++) {
        send_cmd(&mm_sq, &mm_cq, &c, sizeof(c));
    }
    for (i = 0; i < n; i++) {
        got += wait_rsp(&mm_cq, first + i, MSG_ECHO_RSP, 10000) != NULL;
    }
    report(got == n && (!want_wraps || (mm_sq.wraps > sq0.wraps &&
                                        mm_cq.wraps > cq0.wraps)),
           "%u echoes in a row: %u responses; SQ wrapped %u times, CQ %u",
           n, got, mm_sq.wraps - sq0.wraps, mm_cq.wraps - cq0.wraps);
}

/* A DMA list over up to 4 nodes; the response's status or -1. */
static int dma_list(bool to_card, const DmaNode *nodes, int n)
{
    DmaCmd c = { .h.msg = to_card ? MSG_WRITELIST : MSG_READLIST };
    const TimedRsp *r;
    uint16_t tag;

    memcpy(c.node, nodes, n * sizeof(*nodes));
    tag = send_cmd(&mm_sq, &mm_cq, &c, 8 + 32 * n);
    r = (const TimedRsp *)wait_rsp(&mm_cq, tag, to_card ? MSG_WRITELIST_RSP
                                   : MSG_READLIST_RSP, 120000);
    last_rsp = r ? *r : (TimedRsp) { .status = -1 };
    return r ? (int)r->status : -1;
}

/* @size bytes between host @buf and card @dev, in <= 4 nodes. */
static int dma(bool to_card, void *buf, uint64_t dev, uint32_t size)
{
    DmaNode nodes[4];
    int n = size <= 4 * KIB ? 1 : 4, i;
    uint32_t part = size / n;

    for (i = 0; i < n; i++) {
        uint64_t host = (uintptr_t)buf + (uint64_t)i * part;

        nodes[i] = (DmaNode) {
            .host_virt = host, .host_phys = host,
            .dev_phys = dev + (uint64_t)i * part,
            .size = i == n - 1 ? size - i * part : part,
        };
    }
    return dma_list(to_card, nodes, n);
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    size_t i;

    for (i = 0; i < n; i++) {
        p[i] = (uint8_t)(i * 13 + seed + (i >> 16));
    }
}

/* the machine's default minion clock (property clock-mhz) */
#define MINION_MHZ  600.0

/* GB/s of @bytes moved in @cycles of the minion clock */
static double rate_gbps(uint64_t bytes, uint64_t cycles)
{
    return cycles ? bytes / (cycles / MINION_MHZ) / 1e3 : 0;
}

static bool within(double v, double want, double tol)
{
    return v >= want * (1 - tol) && v <= want * (1 + tol);
}

static uint64_t dma64_cycles[2];   /* 64 MiB over the socket: in, out */

static void test_dma(void)
{
    static const uint32_t sizes[] = {
        4 * KIB, 64 * KIB, MIB, 16 * MIB, 64 * MIB,
    };
    uint8_t *src = arena, *dst = arena + 64 * MIB;
    uint64_t dev = host_managed + 0x1000000;
    uint8_t probe[4096];
    uint64_t cyc_in = 0, cyc_out = 0;
    unsigned i;

    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        uint32_t n = sizes[i];
        uint64_t t0, t1, t2;
        int w, r;
        bool seen;

        fill(src, n, i + 1);
        memset(dst, 0, n);
        t0 = now_ms();
        w = dma(true, src, dev, n);
        t1 = now_ms();
        cyc_in = last_rsp.exec_dur;
        /* what the card got, seen through BAR0 */
        rd(bar0 + dev - (host_managed - 0x1800000) + n - sizeof(probe),
           probe, sizeof(probe));
        seen = !memcmp(probe, src + n - sizeof(probe), sizeof(probe));
        r = dma(false, dst, dev, n);
        t2 = now_ms();
        cyc_out = last_rsp.exec_dur;
        report(w == 0 && r == 0 && seen && !memcmp(src, dst, n),
               "DMA %u KiB host->card (status %d, %" PRIu64 " ms) and "
               "card->host (status %d, %" PRIu64 " ms), %d node(s), data "
               "checked%s", n >> 10, w, t1 - t0, r, t2 - t1,
               n <= 4 * KIB ? 1 : 4, seen ? "" : " (BAR0 view differs)");
    }
    /*
     * The firmware's execute_dur is emulated time (its hart halts while
     * the channel runs): 64 MiB must move at timing.md 6's rates, 12.5
     * GB/s host->card and 10.5 GB/s card->host, within 5 %.
     */
    dma64_cycles[0] = cyc_in;
    dma64_cycles[1] = cyc_out;
    report(within(rate_gbps(64 * MIB, cyc_in), 12.5, 0.05) &&
           within(rate_gbps(64 * MIB, cyc_out), 10.5, 0.05),
           "DMA 64 MiB in emulated time (execute_dur): host->card %.2f "
           "GB/s (12.5), card->host %.2f GB/s (10.5), within 5 %%",
           rate_gbps(64 * MIB, cyc_in), rate_gbps(64 * MIB, cyc_out));
}

/*
 * The same through a buffer shared with the card (etsoc1_host_dma_alloc):
 * data checked, no memory callback, the same emulated time as over the
 * socket; a node running past the buffer's end, and one into a freed
 * buffer, fail without touching memory outside it.
 */
static void test_dma_shared(void)
{
    const uint32_t n = 64 * MIB;
    uint8_t *buf = etsoc1_host_dma_alloc(card, 2 * (size_t)n);
    uint64_t dev = host_managed + 0x1000000, cyc[2], t0, t1, t2;
    unsigned long served0 = served, refused0;
    DmaNode node;
    int w, r, edge, freed;

    if (!report(buf && etsoc1_host_dma_shared(card, buf),
                "a 128 MiB DMA buffer shared with the card (memfd)")) {
        return;
    }
    fill(buf, n, 77);
    t0 = now_ms();
    w = dma(true, buf, dev, n);
    cyc[0] = last_rsp.exec_dur;
    t1 = now_ms();
    r = dma(false, buf + n, dev, n);
    cyc[1] = last_rsp.exec_dur;
    t2 = now_ms();
    report(w == 0 && r == 0 && !memcmp(buf, buf + n, n) && served == served0,
           "DMA 64 MiB host->card (%" PRIu64 " ms) and card->host (%" PRIu64
           " ms) through shared memory: data checked, no memory callback "
           "(%lu)", t1 - t0, t2 - t1, served - served0);
    report(cyc[0] == dma64_cycles[0] && cyc[1] == dma64_cycles[1],
           "the same emulated time on both paths: host->card %" PRIu64
           " cycles shared, %" PRIu64 " socket; card->host %" PRIu64
           " shared, %" PRIu64 " socket", cyc[0], dma64_cycles[0], cyc[1],
           dma64_cycles[1]);

    /* 4 KiB inside the buffer, 4 KiB past its end */
    node = (DmaNode) {
        .host_virt = (uintptr_t)buf + 2 * (uint64_t)n - 4096,
        .host_phys = (uintptr_t)buf + 2 * (uint64_t)n - 4096,
        .dev_phys = dev, .size = 8192,
    };
    refused0 = refused;
    edge = dma_list(false, &node, 1);
    report(edge != 0 && served == served0 && refused == refused0,
           "DMA card->host running past the end of a shared buffer: status "
           "%d (the channel's error), nothing served outside it", edge);
    etsoc1_host_dma_free(card, buf);
    node.host_virt = node.host_phys = (uintptr_t)buf;
    node.size = 4096;
    freed = dma_list(false, &node, 1);
    report(freed != 0 && refused == refused0 + 1,
           "DMA into a freed shared buffer: not shared any more, refused by "
           "the memory callback (status %d)", freed);
}

/*
 * MEM_FD (etsoc1_host_share_memory, as the sysemu layer uses it) over a
 * range that begins in plain memory and runs on over a shared buffer: the
 * card moves the pieces of one timer run with one host access, but never
 * past what it may reach that way.  Plain memory P = [X - 12 MiB, X) right
 * below a shared buffer S = [X, X + 4 MiB); the range is [X - 8 MiB,
 * X + 8 MiB).  A node that begins below the range: its first 2 MiB go
 * through the memory callbacks (32 pieces of 64 KiB), the rest through
 * MEM_FD.  A node from X - 2 MiB into S: MEM_FD, then S's own copy; one
 * access across both would fail ("leaves the shared buffer").  Last:
 * MEM_FD is once per connection.
 */
static void test_mem_fd(void)
{
    const size_t mib = MIB;
    uint8_t *tried[8], *s = NULL, *p = MAP_FAILED, *want = arena + 64 * MIB;
    uint64_t dev = host_managed + 0x1000000;
    unsigned long served0;
    unsigned n = 0, i;
    DmaNode node;
    int r, below, into;

    /* a buffer with 12 MiB free below it (the next one lies lower) */
    while (n < 8 && p == MAP_FAILED &&
           (s = tried[n++] = etsoc1_host_dma_alloc(card, 4 * mib)) &&
           etsoc1_host_dma_shared(card, s)) {
        p = mmap(s - 12 * mib, 12 * mib, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p != MAP_FAILED && p != s - 12 * mib) {
            munmap(p, 12 * mib);        /* (an older kernel's hint) */
            p = MAP_FAILED;
        }
    }
    if (!report(p != MAP_FAILED, "a 4 MiB DMA buffer shared with the card "
                "(memfd, %p) with 12 MiB of plain memory right below it",
                (void *)s)) {
        goto out;
    }
    arena2 = p;
    arena2_size = 12 * mib;
    r = etsoc1_host_share_memory(card, (uintptr_t)s - 8 * mib, 16 * mib);
    report(r == 0, "MEM_FD over [buffer - 8 MiB, buffer + 8 MiB) (%s)",
           etsoc1_host_strerror(r));

    /* the card's side: 4 MiB of a pattern */
    fill(want, 4 * mib, 31);
    memcpy(p, want, 4 * mib);
    r = dma(true, p, dev, 4 * mib);
    node = (DmaNode) {
        .host_virt = (uintptr_t)s - 10 * mib,
        .host_phys = (uintptr_t)s - 10 * mib,
        .dev_phys = dev, .size = 4 * mib,
    };
    memset(s - 10 * mib, 0, 4 * mib);
    served0 = served;
    below = dma_list(false, &node, 1);
    report(r == 0 && below == 0 && !memcmp(s - 10 * mib, want, 4 * mib) &&
           served - served0 == 32,
           "DMA card->host of 4 MiB from 2 MiB below the MEM_FD range: "
           "data checked, the 2 MiB outside through the memory callback "
           "(%lu pieces, 32), the rest not (status %d)",
           served - served0, below);

    node.host_virt = node.host_phys = (uintptr_t)s - 2 * mib;
    memset(s - 2 * mib, 0, 4 * mib);
    served0 = served;
    into = dma_list(false, &node, 1);
    report(into == 0 && !memcmp(s - 2 * mib, want, 4 * mib) &&
           served == served0,
           "DMA card->host of 4 MiB from MEM_FD memory on into the shared "
           "buffer: data checked, no memory callback (status %d)", into);
    fill(s - 2 * mib, 4 * mib, 57);
    memset(want, 0, 4 * mib);
    r = dma(true, s - 2 * mib, dev, 4 * mib);
    into = dma(false, want, dev, 4 * mib);
    report(r == 0 && into == 0 && !memcmp(s - 2 * mib, want, 4 * mib),
           "the same host->card: data checked (status %d, back %d)", r,
           into);
    arena2 = NULL;
    munmap(p, 12 * mib);
out:
    for (i = 0; i < n; i++) {
        etsoc1_host_dma_free(card, tried[i]);
    }
}

static void test_dma_errors(void)
{
    DmaNode node = {
        .host_virt = (uintptr_t)arena, .host_phys = (uintptr_t)arena,
        .dev_phys = host_managed + host_managed_size + 0x100000,
        .size = 4096,
    };
    uint64_t beyond = node.dev_phys;
    unsigned long ref0 = refused;
    int bad_addr, too_big;

    bad_addr = dma_list(true, &node, 1);
    node.dev_phys = host_managed;
    node.size = dma_max_elem + 4096;
    too_big = dma_list(true, &node, 1);
    report(bad_addr == 6, "DMA to device address 0x%" PRIx64 " (beyond "
           "DRAM): status %d (6 invalid address)", beyond, bad_addr);
    report(too_big == 7 && refused == ref0,
           "DMA element of %u MiB + 4 KiB: status %d (7 invalid size), "
           "no host memory touched", dma_max_elem >> 20, too_big);
}

/* ---- kernels ------------------------------------------------------------- */

static const char *guest_dir(void)
{
    const char *g = getenv("ETSOC1_GUEST_DIR");

    return g && *g ? g : "build/guest";
}

/* Load @name's PT_LOAD segments by DMA at p_paddr; entry or 0. */
static uint64_t load_elf(const char *name)
{
    char path[512];
    FILE *f;
    long size;
    uint8_t *img = arena + 130 * MIB;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    int i;

    snprintf(path, sizeof(path), "%s/%s", guest_dir(), name);
    f = fopen(path, "rb");
    if (!f) {
        diag("%s: cannot open", path);
        return 0;
    }
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    rewind(f);
    if (size < (long)sizeof(*eh) || size > 8 * MIB ||
        fread(img, 1, size, f) != (size_t)size) {
        fclose(f);
        return 0;
    }
    fclose(f);
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) >
        (uint64_t)size) {
        diag("%s: not an ELF64", path);
        return 0;
    }
    for (i = 0; i < eh->e_phnum; i++) {
        const Elf64_Phdr *ph = (const Elf64_Phdr *)(img + eh->e_phoff) + i;
        uint8_t *zero = arena + 140 * MIB;
        int st;

        if (ph->p_type != PT_LOAD || !ph->p_memsz) {
            continue;
        }
        if (ph->p_offset + ph->p_filesz > (uint64_t)size ||
            ph->p_memsz > 4 * MIB) {
            return 0;
        }
        memset(zero, 0, ph->p_memsz);
        memcpy(zero, img + ph->p_offset, ph->p_filesz);
        st = dma(true, zero, ph->p_paddr, (ph->p_memsz + 7) & ~7ull);
        if (st) {
            diag("%s: segment at 0x%" PRIx64 ": DMA status %d", name,
                 (uint64_t)ph->p_paddr, st);
            return 0;
        }
    }
    return eh->e_entry;
}

/* Launch; returns the tag (the response is read by the caller). */
static uint16_t launch(uint64_t entry, uint64_t args, uint64_t mask)
{
    LaunchCmd c = {
        .h.msg = MSG_LAUNCH, .code = entry, .args = args,
        .exception_buf = host_managed + 0x100000, .shire_mask = mask,
    };

    return send_cmd(&mm_sq, &mm_cq, &c, sizeof(c));
}

static int launch_status(uint16_t tag, unsigned timeout_ms)
{
    const TimedRsp *r = (const TimedRsp *)wait_rsp(&mm_cq, tag,
                                                   MSG_LAUNCH_RSP,
                                                   timeout_ms);
    last_rsp = r ? *r : (TimedRsp) { .status = -1 };
    return r ? (int)r->status : -1;
}

/*
 * vecadd: c[i] = a[i] + b[i] over n 32-bit integers.  Its argument
 * block (at pointer_to_args): u64 a, u64 b, u64 c, u64 n.
 */
#define VEC_N 4096

/*
 * The last response's figures (its start_ts, execute_dur and wait_dur,
 * the card's cycles) on a "# figures" line.
 */
static void figures(const char *what)
{
    diag("figures %s: status %u start_ts %" PRIu64 " execute_dur %" PRIu64
         " wait_dur %" PRIu64, what, last_rsp.status, last_rsp.start_ts,
         last_rsp.exec_dur, last_rsp.wait_dur);
}

/*
 * vecadd's vectors and argument block: on the card (a, b, c, args_dev,
 * in host-managed DRAM) and their host copies (in the arena), the
 * argument block filled in.
 */
typedef struct VecAdd {
    uint64_t a, b, c, args_dev;
    uint32_t *ha, *hb, *hc;
    uint64_t *args;
} VecAdd;

static VecAdd vecadd_buffers(void)
{
    uint64_t base = host_managed + 0x4000000;
    VecAdd v = {
        .a = base, .b = base + 0x10000, .c = base + 0x20000,
        .args_dev = base + 0x30000, .ha = (uint32_t *)arena,
    };

    v.hb = v.ha + VEC_N;
    v.hc = v.hb + VEC_N;
    v.args = (uint64_t *)(v.hc + VEC_N);
    v.args[0] = v.a;
    v.args[1] = v.b;
    v.args[2] = v.c;
    v.args[3] = VEC_N;
    return v;
}

/*
 * vecadd's c back from the card by DMA (its figures printed as @what, if
 * any): 0 if c == a + b, else -1 (DMA failed) or the first wrong + 1.
 */
static int vecadd_check(const VecAdd *v, const char *what)
{
    int i;

    memset(v->hc, 0, VEC_N * 4);
    if (dma(false, v->hc, v->c, VEC_N * 4)) {
        return -1;
    }
    if (what) {
        figures(what);
    }
    for (i = 0; i < VEC_N; i++) {
        if (v->hc[i] != v->ha[i] + v->hb[i]) {
            return i + 1;
        }
    }
    return 0;
}

static void test_vecadd(void)
{
    uint64_t entry = load_elf("vecadd.elf");
    VecAdd v = vecadd_buffers();
    int st = -1, s1 = -1, s2 = -1, s3 = -1, s4 = -1, bad = 0, i;

    if (entry) {
        for (i = 0; i < VEC_N; i++) {
            v.ha[i] = i * 3 + 1;
            v.hb[i] = 0x10000 * i + 7;
            v.hc[i] = 0xdeadbeef;
        }
        s1 = dma(true, v.ha, v.a, VEC_N * 4);
        s2 = dma(true, v.hb, v.b, VEC_N * 4);
        s3 = dma(true, v.hc, v.c, VEC_N * 4);
        s4 = dma(true, v.args, v.args_dev, 32);
        st = launch_status(launch(entry, v.args_dev, 1), 60000);
        bad = vecadd_check(&v, NULL);
    }
    report(entry && !s1 && !s2 && !s3 && !s4 && st == 0 && !bad,
           "kernel launch vecadd.elf (entry 0x%" PRIx64 ", %d ints): status "
           "%d, result %s", entry, VEC_N, st,
           bad ? "wrong" : "checked by DMA readlist");
}

/*
 * --demo (make demo): vecadd over DEMO_N ints on every compute shire the
 * SP reports, through the firmware as a runtime drives it, with the
 * emulated times the card's firmware measures on its harts' cycle
 * counters (at the machine's minion clock, 600 MHz by default).
 */
#define DEMO_N      (1 << 20)

static void demo_line(const char *what, uint64_t bytes, uint64_t cycles)
{
    printf("  %-24s %10" PRIu64 " cycles = %9.1f us", what, cycles,
           cycles / MINION_MHZ);
    if (bytes && cycles) {
        printf("  (%.2f GB/s)", rate_gbps(bytes, cycles));
    }
    printf("\n");
}

static int demo(void)
{
    uint64_t entry = load_elf("vecadd.elf");
    uint64_t a = host_managed + 0x8000000, b = a + 4 * DEMO_N;
    uint64_t c = b + 4 * DEMO_N, args_dev = c + 4 * DEMO_N;
    uint32_t *ha = (uint32_t *)arena, *hb = ha + DEMO_N, *hc = hb + DEMO_N;
    uint64_t *args = (uint64_t *)(hc + DEMO_N), t_in, t_out, t_kernel;
    uint64_t wall = now_ms();
    int st, bad = 0, i;

    if (!entry) {
        return 1;
    }
    for (i = 0; i < DEMO_N; i++) {
        ha[i] = i * 3 + 1;
        hb[i] = 0x10000 * i + 7;
    }
    args[0] = a;
    args[1] = b;
    args[2] = c;
    args[3] = DEMO_N;
    st = dma(true, ha, a, 8 * DEMO_N);          /* a and b, adjacent */
    t_in = last_rsp.exec_dur;
    st |= dma(true, args, args_dev, 32);
    st |= launch_status(launch(entry, args_dev, compute_shires), 120000);
    t_kernel = last_rsp.exec_dur;
    st |= dma(false, hc, c, 4 * DEMO_N);
    t_out = last_rsp.exec_dur;
    for (i = 0; i < DEMO_N && !bad; i++) {
        bad = hc[i] != ha[i] + hb[i] ? i + 1 : 0;
    }
    printf("vecadd.elf: c[i] = a[i] + b[i] over %d int32 on %d compute "
           "shires (%d harts, U-mode): status %d, result %s\n", DEMO_N,
           __builtin_popcountll(compute_shires),
           64 * __builtin_popcountll(compute_shires), st,
           bad ? "WRONG" : "checked");
    printf("emulated time (the card's own cycle counters, %.0f MHz):\n",
           MINION_MHZ);
    demo_line("DMA host->card a, b", 8 * DEMO_N, t_in);
    demo_line("kernel launch to done", 0, t_kernel);
    demo_line("DMA card->host c", 4 * DEMO_N, t_out);
    printf("wall time of the three commands: %" PRIu64 " ms\n",
           now_ms() - wall);
    return st || bad;
}

/*
 * --session (tests/rr_tests.py records it): vecadd.elf and its inputs by
 * DMA, a launch on shire 0, its sums back by DMA and checked; a new b by
 * DMA, a second launch on shires 0-1, the sums back and checked.  Each
 * command's figures on a "# figures" line, in order (figures()).
 */
static void session(void)
{
    uint64_t entry = load_elf("vecadd.elf");
    VecAdd v = vecadd_buffers();
    int st[2] = { -1, -1 }, bad[2] = { -1, -1 }, in = -1, i;

    if (entry) {
        for (i = 0; i < VEC_N; i++) {
            v.ha[i] = i * 5 + 3;
            v.hb[i] = 0x10001 * i;
        }
        in = dma(true, v.ha, v.a, VEC_N * 4);
        in |= dma(true, v.hb, v.b, VEC_N * 4);
        in |= dma(true, v.args, v.args_dev, 32);
        figures("writelist args");
        st[0] = launch_status(launch(entry, v.args_dev, 0x1), 60000);
        figures("launch 1");
        bad[0] = vecadd_check(&v, "readlist 1");
        for (i = 0; i < VEC_N; i++) {
            v.hb[i] = 7 - 3 * i;
        }
        in |= dma(true, v.hb, v.b, VEC_N * 4);
        figures("writelist b");
        st[1] = launch_status(launch(entry, v.args_dev, 0x3), 60000);
        figures("launch 2");
        bad[1] = vecadd_check(&v, "readlist 2");
    }
    report(entry && !in && !st[0] && !st[1] && !bad[0] && !bad[1],
           "vecadd.elf (entry 0x%" PRIx64 ", %d ints) by DMA, launched on "
           "shire 0 then shires 0-1: DMA status %d, launch status %d and "
           "%d, sums %s and %s", entry, VEC_N, in, st[0], st[1],
           bad[0] ? "wrong" : "checked", bad[1] ? "wrong" : "checked");
}

static void test_hang_abort(void)
{
    uint64_t entry = load_elf("hang.elf");
    KAbortCmd k = { .h.msg = MSG_KABORT };
    const StatusRsp *ar = NULL;
    uint16_t tag = 0, atag;
    int st = -1;

    if (entry) {
        tag = launch(entry, 0, 1);
        sleep_ms(500);
        k.tag = tag;
        atag = send_cmd(&mm_sq, &mm_cq, &k, sizeof(k));
        ar = (const StatusRsp *)wait_rsp(&mm_cq, atag, MSG_KABORT_RSP,
                                         30000);
        st = launch_status(tag, 30000);
    }
    report(entry && ar && ar->status == 0 && st == 4,
           "kernel abort of hang.elf: abort status %d, launch status %d "
           "(4 host aborted)", ar ? (int)ar->status : -1, st);
}

static void test_exception(void)
{
    uint64_t entry = load_elf("exception.elf");
    int st = entry ? launch_status(launch(entry, 0, 1), 60000) : -1;

    report(entry && st == 2, "exception.elf: launch status %d (2 exception)",
           st);
}

/* A kernel that returns a negative value failed: status 1 (error). */
static void test_kernel_error(void)
{
    uint64_t entry = load_elf("kerror.elf");
    int st = entry ? launch_status(launch(entry, 0, 1), 60000) : -1;

    report(entry && st == 1, "kerror.elf (returns -10): launch status %d "
           "(1 error)", st);
}

static void test_bad_shire_mask(void)
{
    uint64_t entry = load_elf("vecadd.elf");
    int st = launch_status(launch(entry ? entry : host_managed,
                                  0, 0xffffffff00000000ull), 30000);

    report(st == 12, "kernel launch with shire mask 0xffffffff00000000: "
           "status %d (12 bad shire mask)", st);
}

static void test_unknown(void)
{
    DummyCmd c = { .h.msg = 600 };
    const FwErrorEvt *e;
    uint16_t tag = send_cmd(&mm_sq, &mm_cq, &c, sizeof(c));

    e = (const FwErrorEvt *)wait_rsp(&mm_cq, 0, MSG_FW_ERROR, 10000);
    report(e && e->error_type == 0, "unknown msg_id 600 (tag %u): "
           "DEVICE_FW_ERROR event 535, error_type %d (0 unsupported), "
           "payload 0x%" PRIx64 ", tag %u", tag,
           e ? (int)e->error_type : -1, e ? e->payload : 0,
           e ? e->h.tag : 0);
}

static void test_sp(void)
{
    DummyCmd c = { .h.msg = 3 };        /* a DM_CMD asset-info query */
    const MgmtRsp *r;
    uint16_t tag = send_cmd(&sp_sq, &sp_cq, &c, sizeof(c));

    r = (const MgmtRsp *)wait_rsp(&sp_cq, tag, 3, 10000);
    report(r && r->h.size == sizeof(*r) - 8 && r->status != 0,
           "SP management command 3 over the SP SQ + doorbell: answered "
           "on the SP CQ after an MSI, status %d (an error)",
           r ? r->status : 0);
}

static void test_wraps(void)
{
    report(mm_sq.wraps && mm_sq.splits && mm_cq.wraps && mm_cq.splits,
           "wrap-around happened: MM SQ %u messages, %u wraps, %u split "
           "across the end; MM CQ %u messages, %u wraps, %u split",
           mm_sq.msgs, mm_sq.wraps, mm_sq.splits, mm_cq.msgs, mm_cq.wraps,
           mm_cq.splits);
}

static double secs_min(double best, const struct timespec *a,
                       const struct timespec *b)
{
    double s = (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) * 1e-9;

    return s < best ? s : best;
}

/*
 * bench/dma: wall-clock rate of DMA lists through the library, 4 KiB to
 * 256 MiB (4 nodes above 4 KiB), best of a few runs; data checked.
 */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Wall-clock rates of DMA lists from @src / into @dst, one table. */
static void bench_path(const char *label, uint8_t *src, uint8_t *dst)
{
    static const uint32_t sizes[] = {
        4 * KIB, 64 * KIB, MIB, 16 * MIB, 64 * MIB, 256 * MIB,
    };
    enum { MAX_RUNS = 20 };
    uint64_t dev = host_managed + 0x1000000;
    unsigned i, k, d;

    printf("\n%s\n\n| size | host->card wall, median (min-max) | "
           "card->host wall, median (min-max) | host->card emulated | "
           "card->host emulated |\n|---|---|---|---|---|\n", label);
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        uint32_t n = sizes[i];
        unsigned runs = n <= MIB ? 20 : 5;
        double t[2][MAX_RUNS];
        uint64_t emu[2] = { 0, 0 };     /* execute_dur: the same each run */
        int bad = 0;

        fill(src, n, i);
        for (k = 0; k < runs; k++) {
            struct timespec a, b, c;

            clock_gettime(CLOCK_MONOTONIC, &a);
            bad |= dma(true, src, dev, n);
            emu[0] = last_rsp.exec_dur;
            clock_gettime(CLOCK_MONOTONIC, &b);
            bad |= dma(false, dst, dev, n);
            emu[1] = last_rsp.exec_dur;
            clock_gettime(CLOCK_MONOTONIC, &c);
            t[0][k] = secs_min(1e9, &a, &b);
            t[1][k] = secs_min(1e9, &b, &c);
        }
        bad |= memcmp(src, dst, n) != 0;
        if (n >= MIB) {
            printf("| %u MiB |", n >> 20);
        } else {
            printf("| %u KiB |", n >> 10);
        }
        for (d = 0; d < 2; d++) {
            qsort(t[d], runs, sizeof(double), cmp_double);
            printf(" %.2f GB/s (%.2f-%.2f) |", n / t[d][runs / 2] / 1e9,
                   n / t[d][runs - 1] / 1e9, n / t[d][0] / 1e9);
        }
        printf(" %.2f GB/s | %.2f GB/s |%s\n", rate_gbps(n, emu[0]),
               rate_gbps(n, emu[1]), bad ? " **failed**" : "");
        fflush(stdout);
    }
}

static void bench_dma(void)
{
    uint8_t *shared = etsoc1_host_dma_alloc(card, 512 * MIB);

    printf("%d runs per size (5 from 16 MiB); GB/s = 1e9 bytes/s\n", 20);
    bench_path("socket (HOSTMEM frames, memory callbacks)", arena,
               arena + 256 * MIB);
    if (shared && etsoc1_host_dma_shared(card, shared)) {
        bench_path("shared memory (etsoc1_host_dma_alloc)", shared,
                   shared + 256 * MIB);
    } else {
        printf("\nshared memory: not available\n");
    }
}

/*
 * --orphan dma|kernel: leave the card busy (a 256 MiB DMA host->card that
 * has started, or hang.elf running) and wait; tests/host_tests.py kills
 * this process with SIGKILL and checks that its QEMU exits.
 */
static int orphan(const char *what)
{
    DmaCmd c = { .h.msg = MSG_WRITELIST };
    uint64_t end = now_ms() + 60000;
    unsigned i;

    if (!strcmp(what, "dma")) {
        for (i = 0; i < 4; i++) {
            uint64_t host = (uintptr_t)arena + (uint64_t)i * 64 * MIB;

            c.node[i] = (DmaNode) {
                .host_virt = host, .host_phys = host,
                .dev_phys = host_managed + (uint64_t)i * 64 * MIB,
                .size = 64 * MIB,
            };
        }
        send_cmd(&mm_sq, &mm_cq, &c, sizeof(c));
        while (served < 4 && now_ms() < end) {
            sleep_ms(1);            /* the DMA has begun */
        }
    } else if (!strcmp(what, "kernel")) {
        uint64_t entry = load_elf("hang.elf");

        if (!entry) {
            return 1;
        }
        launch(entry, 0, 1);
        sleep_ms(500);              /* it spins for ever */
    } else {
        return 1;
    }
    printf("# orphan: %s in flight, served %lu host accesses\n", what,
           served);
    fflush(stdout);
    while (now_ms() < end) {
        sleep_ms(100);              /* until killed */
    }
    return 1;
}

/* The last line of a log in the run directory, in @line ("" if none). */
static void last_line(const char *dir, const char *name, char *line,
                      size_t size)
{
    char path[512], buf[256];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    *line = 0;
    f = fopen(path, "r");
    if (!f) {
        return;
    }
    while (fgets(buf, sizeof(buf), f)) {
        snprintf(line, size, "%s", buf);
    }
    fclose(f);
    line[strcspn(line, "\n")] = 0;
}

/* The last lines of a log in the run directory, as TAP comments. */
static void show_log(const char *dir, const char *name)
{
    char path[512], line[256][160];
    unsigned n = 0, i;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "r");
    if (!f) {
        return;
    }
    while (fgets(line[n % 256], sizeof(line[0]), f)) {
        n++;
    }
    fclose(f);
    for (i = n > 20 ? n - 20 : 0; i < n; i++) {
        printf("# %s: %s", name, line[i % 256]);
    }
}

static void on_fatal(void *opaque, const char *why)
{
    (void)opaque;
    printf("# link lost: %s\n", why);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    static const char *const fw[] = {
        "etsoc1-sp.elf", "etsoc1-fw.elf", "vecadd.elf", "hang.elf",
        "exception.elf", "kerror.elf",
    };
    Etsoc1HostOptions o = { .ready_timeout_ms = 120000 };
    char run_dir[256], exit_line[256];
    bool bench = argc > 1 && !strcmp(argv[1], "--bench-dma");
    bool demo_mode = argc > 1 && !strcmp(argv[1], "--demo");
    /* --session QEMU_ARG...: the arguments added to QEMU's command line */
    bool session_mode = argc > 1 && !strcmp(argv[1], "--session");
    const char *orphan_what = argc > 2 && !strcmp(argv[1], "--orphan")
                              ? argv[2] : NULL;
    /* the demo boots the whole chip: the spare shire too */
    static const char *const full_chip[] = {
        "-M", "shires=34", "-smp", "2177", NULL
    };
    uint64_t t0;
    unsigned i;
    int r;

    for (i = 0; i < sizeof(fw) / sizeof(fw[0]); i++) {
        char path[512];

        snprintf(path, sizeof(path), "%s/%s", guest_dir(), fw[i]);
        if (access(path, R_OK)) {
            printf("Bail out! %s is missing\n", path);
            return 1;
        }
    }
    arena_size = bench || orphan_what ? 512 * MIB : 160 * MIB;
    arena = calloc(1, arena_size);
    if (!arena) {
        return 1;
    }

    snprintf(run_dir, sizeof(run_dir), "%s/etsoc1-host-test-XXXXXX",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR")
                                                  : "/tmp");
    o.run_dir = mkdtemp(run_dir);
    if (demo_mode) {
        o.extra_args = full_chip;
    } else if (session_mode) {
        o.extra_args = (const char *const *)argv + 2;
    }
    t0 = now_ms();
    r = etsoc1_host_start(&o, &card);
    if (!report(r == 0, "start QEMU with the firmware, HELLO (%s)",
                etsoc1_host_strerror(r))) {
        show_log(run_dir, "qemu.log");
        printf("1..%d\n", test_no);
        return 1;
    }
    diag("run dir %s", etsoc1_host_run_dir(card));
    etsoc1_host_on_fatal(card, on_fatal, NULL);
    etsoc1_host_set_memory(card, mem_read, mem_write, NULL);
    r = etsoc1_host_wait_ready(card, 0, &bar0, &bar2);
    report(r == 0 && bar0 == 0x1000000000ull && bar2 == 0x2000000000ull,
           "READY in %" PRIu64 " ms: BAR0 0x%" PRIx64 ", BAR2 0x%" PRIx64,
           now_ms() - t0, bar0, bar2);
    if (r == 0 && orphan_what && setup()) {
        return orphan(orphan_what);
    } else if (r == 0 && session_mode && setup()) {
        session();
    } else if (r == 0 && demo_mode && setup()) {
        failures += demo();
    } else if (r == 0 && bench && setup()) {
        bench_dma();
    } else if (r == 0 && setup()) {
        test_sp();
        test_compat_echo();
        test_threshold();
        test_dma();
        test_dma_shared();
        test_dma_errors();
        test_echo_flood(200, true);
        test_vecadd();
        test_hang_abort();
        test_exception();
        test_kernel_error();
        test_bad_shire_mask();
        test_unknown();
        test_echo_flood(10, false);
        test_wraps();
        test_mem_fd();
    }
    if (failures) {
        show_log(run_dir, "qemu.log");
        show_log(run_dir, "sp0.log");
        show_log(run_dir, "pu0.log");
    }
    r = etsoc1_host_stop(card);
    report(r == 0 && !link_err, "STOP (%s), no link error on the way (%s)",
           etsoc1_host_strerror(r), etsoc1_host_strerror(link_err));
    /* a card the library started powers off when its link closes */
    last_line(run_dir, "qemu.log", exit_line, sizeof(exit_line));
    if (!report(!strcmp(exit_line, "libetsoc1-host: QEMU exited with "
                        "status 0"),
                "QEMU exits 0 after STOP, as its log's last line says "
                "('%s')", exit_line)) {
        show_log(run_dir, "qemu.log");
    }
    etsoc1_host_close(card);
    printf("1..%d\n", test_no);
    free(arena);
    return failures ? 1 : 0;
}
