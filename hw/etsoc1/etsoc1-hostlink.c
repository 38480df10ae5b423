/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the host link (docs/host-link.md).
 *
 * One client at a time on a chardev socket.  Frames are parsed
 * incrementally from the chardev's read callback into a bounded buffer;
 * a frame is checked as soon as its header is in (magic, version, type,
 * length), so a bad frame closes the connection at once.  Host requests
 * (MMIO through the inbound iATU, PAUSE/RESUME/STOP) are served on the
 * main loop and answered in order; writes, PAUSE and (under record=) STOP
 * are inputs, applied at an emulated time the card stamps (etsoc1-sync.c,
 * "Host inputs").  Card events go out as frames: READY
 * once the firmware has enabled inbound iATU region 3, MSI bitmaps, and
 * the eDMA's host accesses, which are asynchronous requests completed
 * when the host's reply arrives (interface etsoc1-host-mem).  Everything
 * goes through one ordered stream, and the eDMA only goes on after the
 * host acknowledged a write, so an MSI never overtakes the data it
 * announces.
 *
 * The link never blocks the main loop: frames go into a bounded output
 * queue that is written with non-blocking writes as the socket takes them
 * (a G_IO_OUT watch).  While the queue holds out-limit bytes or more, the
 * link reads no more requests, defers the eDMA's host accesses and folds
 * MSIs into one; a host that leaves frames unread or a host access
 * unanswered for host-timeout-ms is dropped.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "migration/blocker.h"
#include "sysemu/runstate.h"
#include "qemu/units.h"
#include "qemu/main-loop.h"
#include <sys/mman.h>
#ifdef CONFIG_LINUX
#include <sys/syscall.h>
#include <sys/uio.h>
#endif
#include "hw/etsoc1/etsoc1-hostlink.h"
#include "hw/etsoc1/etsoc1-trace.h"
#include "trace.h"

#define HL_OPTS         (HL_OPT_HOSTMEM | HL_OPT_SHM)
/* how often a STOP under record= looks for an idle card (hl_stop_wait) */
#define HL_STOP_LOOK_MS 5

static const char *hl_type_name(uint8_t type)
{
    switch (type & ~HL_REPLY) {
    case HL_HELLO: return "HELLO";
    case HL_MMIO_READ: return "MMIO_READ";
    case HL_MMIO_WRITE: return "MMIO_WRITE";
    case HL_PAUSE: return "PAUSE";
    case HL_RESUME: return "RESUME";
    case HL_STOP: return "STOP";
    case HL_SHM_MAP: return "SHM_MAP";
    case HL_SHM_UNMAP: return "SHM_UNMAP";
    case HL_MEM_FD: return "MEM_FD";
    case HL_READY: return "READY";
    case HL_MSI: return "MSI";
    case HL_HOSTMEM_READ: return "HOSTMEM_READ";
    case HL_HOSTMEM_WRITE: return "HOSTMEM_WRITE";
    case HL_FATAL: return "FATAL";
    default: return "?";
    }
}

/*
 * Payload length a frame of @type must have; @len is what the header
 * says.  Return false if that is wrong for the type (or the type is
 * unknown or goes the other way).
 */
static bool hl_length_ok(uint8_t type, uint32_t len)
{
    switch (type) {
    case HL_HELLO:
        return len == 8;
    case HL_MMIO_READ:
        return len == 12;
    case HL_MMIO_WRITE:
        return len >= 12 && len - 12 <= HL_MAX_DATA;
    case HL_PAUSE:
    case HL_RESUME:
    case HL_STOP:
        return len == 0;
    case HL_SHM_MAP:
        return len == 16;
    case HL_SHM_UNMAP:
        return len == 8;
    case HL_MEM_FD:
        return len == 16;
    case HL_HOSTMEM_READ | HL_REPLY:
        return len <= HL_MAX_DATA;
    case HL_HOSTMEM_WRITE | HL_REPLY:
        return len == 0;
    default:
        return false;
    }
}

/* Types the host may send. */
static bool hl_host_type(uint8_t type)
{
    return (type >= HL_HELLO && type <= HL_MEM_FD) ||
           type == (HL_HOSTMEM_READ | HL_REPLY) ||
           type == (HL_HOSTMEM_WRITE | HL_REPLY);
}

/* ---- sending ------------------------------------------------------------- */

static void hl_arm_watchdog(Etsoc1HostLinkState *s);
static void hl_flush(Etsoc1HostLinkState *s);

static uint32_t hl_out_pending(Etsoc1HostLinkState *s)
{
    return s->out->len - s->out_head;
}

/* Back-pressure: read no request, send no eDMA access, fold MSIs. */
static bool hl_out_full(Etsoc1HostLinkState *s)
{
    return hl_out_pending(s) >= s->out_limit;
}

/*
 * Queue one frame (a header, then @a and @b as its payload); a bottom
 * half writes it, so no caller (the eDMA starting an access, say) ever
 * sees the connection close under it.  A frame is queued whole even past
 * out-limit: the callers that may be refused check hl_out_full() first,
 * so the queue holds at most out-limit plus one frame.
 */
static bool hl_send(Etsoc1HostLinkState *s, uint8_t type, uint16_t status,
                    uint32_t seq, const void *a, uint32_t alen,
                    const void *b, uint32_t blen)
{
    uint32_t len = alen + blen;
    uint8_t hdr[HL_HDR_SIZE];

    if (!s->connected || s->closing) {
        return false;
    }
    stl_le_p(hdr, HL_MAGIC);
    hdr[4] = HL_VERSION;
    hdr[5] = type;
    stw_le_p(hdr + 6, status);
    stl_le_p(hdr + 8, len);
    stl_le_p(hdr + 12, seq);
    if (!hl_out_pending(s)) {
        /* the host's time to take it starts now */
        s->out_progress_ms = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    }
    g_byte_array_append(s->out, hdr, sizeof(hdr));
    if (alen) {
        g_byte_array_append(s->out, a, alen);
    }
    if (blen) {
        g_byte_array_append(s->out, b, blen);
    }
    trace_etsoc1_hostlink_tx(hl_type_name(type), type, seq, status, len);
    qemu_bh_schedule(s->flush_bh);
    return true;
}

static void hl_reply(Etsoc1HostLinkState *s, uint8_t type, uint32_t seq,
                     uint16_t status, const void *data, uint32_t len)
{
    hl_send(s, type | HL_REPLY, status, seq, data, len, NULL, 0);
}

static void hl_maybe_ready(Etsoc1HostLinkState *s)
{
    uint8_t p[16];

    if (!s->hello || s->ready_sent || !etsoc1_pcie_iatu_enabled(s->pcie, 3)) {
        return;
    }
    s->ready_sent = true;
    etsoc1_rr_note_ready(s->rr, s->pcie->bar0_addr, s->pcie->bar2_addr);
    stq_le_p(p, s->pcie->bar0_addr);
    stq_le_p(p + 8, s->pcie->bar2_addr);
    hl_send(s, HL_READY, 0, s->seq++, p, sizeof(p), NULL, 0);
}

/* ---- connection ---------------------------------------------------------- */

/*
 * A card started for one host process (exit-on-close, host-pid) whose
 * host is gone: nothing it computes can be read any more, so it powers
 * off at once, as a card does when its host goes.  Not an orderly
 * shutdown: stopping 2,113 vCPU threads first takes 0.2-1 s and more on a
 * loaded host, and the card must be gone within a second
 * (docs/host-link.md).  Nothing is lost: QEMU's log is flushed at every
 * line and file chardevs write through.
 */
static G_NORETURN void hl_power_off(const char *why)
{
    info_report("etsoc1-hostlink: %s: exiting", why);
    etsoc1_trace_close();
    _exit(0);
}

static void hl_process_rx(Etsoc1HostLinkState *s);
static void hl_send_deferred(Etsoc1HostLinkState *s);

/*
 * A host-memory access of the eDMA is over (@res): under record= it goes
 * in the channel's HOSTMEM stream, with the data read (@done bytes of
 * @data) or the data written (the copy kept when it was sent).
 */
static void hl_note_hostmem(Etsoc1HostLinkState *s, Etsoc1HostLinkReq *r,
                            MemTxResult res)
{
    bool ok = res == MEMTX_OK;

    etsoc1_rr_note_hostmem(s->rr, &r->ctx, r->write, r->addr, r->len,
                           r->write ? r->rec : r->buf, ok ? r->len : 0, ok);
    g_free(r->rec);
    r->rec = NULL;
}

/* Fail every host-memory request still out (the host has gone). */
static void hl_fail_pending(Etsoc1HostLinkState *s)
{
    unsigned i;

    for (i = 0; i < HL_MAX_PENDING; i++) {
        Etsoc1HostLinkReq r = s->req[i];

        if (r.used) {
            s->req[i].used = false;
            s->req[i].rec = NULL;
            trace_etsoc1_hostlink_hostmem_done(r.seq, r.write, MEMTX_ERROR);
            hl_note_hostmem(s, &r, MEMTX_ERROR);
            r.done(r.opaque, r.tag, MEMTX_ERROR);
        }
    }
}

static void hl_shm_unmap_all(Etsoc1HostLinkState *s)
{
    unsigned i;

    for (i = 0; i < HL_MAX_SHM; i++) {
        if (s->shm[i].size) {
            munmap(s->shm[i].ptr, s->shm[i].size);
            s->shm[i].size = 0;
        }
    }
}

static void hl_reset_conn(Etsoc1HostLinkState *s)
{
    hl_shm_unmap_all(s);
    if (s->mem_fd >= 0) {
        close(s->mem_fd);
        s->mem_fd = -1;
    }
    s->hello = false;
    s->ready_sent = false;
    s->options = 0;
    s->seq = 0;
    s->rx_len = 0;
    g_byte_array_set_size(s->out, 0);
    s->out_head = 0;
    s->msi_deferred = 0;
    if (s->out_watch) {
        g_source_remove(s->out_watch);
        s->out_watch = 0;
    }
    qemu_bh_cancel(s->flush_bh);
    timer_del(s->watchdog);
}

/* Tell the host why (if the socket takes it now), then close. */
static void hl_close(Etsoc1HostLinkState *s, const char *why)
{
    trace_etsoc1_hostlink_drop(why);
    hl_send(s, HL_FATAL, 0, s->seq++, why, strlen(why), NULL, 0);
    s->closing = true;
    hl_flush(s);
    if (s->connected) {
        qemu_chr_fe_disconnect(&s->chr);
    }
}

/* Drop the connection for a protocol error: log it, tell the host, close. */
static void G_GNUC_PRINTF(2, 3)
hl_drop(Etsoc1HostLinkState *s, const char *fmt, ...)
{
    g_autofree char *why = NULL;
    va_list ap;

    va_start(ap, fmt);
    why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (s->closing) {
        return;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-hostlink: closing the connection: "
                  "%s\n", why);
    hl_close(s, why);
}

static gboolean hl_writable(void *do_not_use, GIOCondition cond, void *opaque)
{
    Etsoc1HostLinkState *s = opaque;

    s->out_watch = 0;
    hl_flush(s);
    return G_SOURCE_REMOVE;
}

/*
 * Write what the chardev takes of the output queue without blocking; wait
 * for G_IO_OUT for the rest.  Once the queue is under out-limit again,
 * send what back-pressure held back and read requests again.
 */
static void hl_flush(Etsoc1HostLinkState *s)
{
    bool was_full = hl_out_full(s);

    while (s->connected && hl_out_pending(s)) {
        int n = qemu_chr_fe_write(&s->chr, s->out->data + s->out_head,
                                  hl_out_pending(s));

        if (n <= 0) {
            if (n < 0 && errno != EAGAIN && s->connected) {
                /* a broken socket: G_IO_OUT would fire for ever */
                qemu_chr_fe_disconnect(&s->chr);
            }
            break;
        }
        s->out_head += n;
        s->out_progress_ms = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    }
    if (!s->connected) {
        return;         /* closed meanwhile: hl_event reset everything */
    }
    if (!hl_out_pending(s)) {
        g_byte_array_set_size(s->out, 0);
        s->out_head = 0;
    } else if (s->out_head >= s->out->len / 2) {
        /* amortized: each byte is moved at most once */
        g_byte_array_remove_range(s->out, 0, s->out_head);
        s->out_head = 0;
    }
    if (hl_out_pending(s) && !s->out_watch) {
        s->out_watch = qemu_chr_fe_add_watch(&s->chr, G_IO_OUT | G_IO_HUP,
                                             hl_writable, s);
    }
    if (was_full && !hl_out_full(s) && !s->closing) {
        trace_etsoc1_hostlink_backpressure(false, hl_out_pending(s));
        hl_send_deferred(s);
        hl_process_rx(s);
        qemu_chr_fe_accept_input(&s->chr);
    }
    hl_arm_watchdog(s);
}

static void hl_flush_bh(void *opaque)
{
    hl_flush(opaque);
}

/* A host input is in: parse the frames that waited behind it. */
static void hl_rx_bh(void *opaque)
{
    Etsoc1HostLinkState *s = opaque;

    if (s->connected && !s->closing) {
        hl_process_rx(s);
        qemu_chr_fe_accept_input(&s->chr);
    }
}

/*
 * The host-side bound (host time, QEMU_CLOCK_REALTIME, as the host's
 * slowness is in host time): the oldest frame the host has not taken
 * and every sent HOSTMEM request must move within host-timeout-ms.
 */
static void hl_arm_watchdog(Etsoc1HostLinkState *s)
{
    int64_t deadline = INT64_MAX;
    unsigned i;

    if (!s->host_timeout_ms || !s->connected || s->closing) {
        timer_del(s->watchdog);
        return;
    }
    if (hl_out_pending(s)) {
        deadline = s->out_progress_ms + s->host_timeout_ms;
    }
    for (i = 0; i < HL_MAX_PENDING; i++) {
        if (s->req[i].used && s->req[i].sent) {
            deadline = MIN(deadline, s->req[i].sent_ms + s->host_timeout_ms);
        }
    }
    if (deadline == INT64_MAX) {
        timer_del(s->watchdog);
    } else {
        timer_mod(s->watchdog, deadline);
    }
}

static void G_GNUC_PRINTF(2, 3)
hl_drop_stalled(Etsoc1HostLinkState *s, const char *fmt, ...)
{
    g_autofree char *why = NULL;
    va_list ap;

    va_start(ap, fmt);
    why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    /* not a malformed frame, so not LOG_GUEST_ERROR: always say it */
    warn_report("etsoc1-hostlink: dropping the host: %s", why);
    hl_close(s, why);
}

static void hl_watchdog(void *opaque)
{
    Etsoc1HostLinkState *s = opaque;
    int64_t now = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    unsigned i;

    if (!s->connected || s->closing) {
        return;
    }
    if (hl_out_pending(s) &&
        now - s->out_progress_ms >= s->host_timeout_ms) {
        hl_drop_stalled(s, "it has not read for %u ms (%u bytes waiting)",
                        s->host_timeout_ms, hl_out_pending(s));
        return;
    }
    for (i = 0; i < HL_MAX_PENDING; i++) {
        Etsoc1HostLinkReq *r = &s->req[i];

        if (r->used && r->sent &&
            now - r->sent_ms >= s->host_timeout_ms) {
            hl_drop_stalled(s, "it has not answered %s %u (0x%" PRIx64
                            ", %" PRIu64 " bytes) for %u ms",
                            r->write ? "HOSTMEM_WRITE" : "HOSTMEM_READ",
                            r->seq, r->addr, r->len, s->host_timeout_ms);
            return;
        }
    }
    hl_arm_watchdog(s);
}

static void hl_event(void *opaque, QEMUChrEvent event)
{
    Etsoc1HostLinkState *s = opaque;

    switch (event) {
    case CHR_EVENT_OPENED:
        trace_etsoc1_hostlink_conn(true, 0);
        hl_reset_conn(s);
        s->conn_gen++;      /* a write still waiting answers no one */
        s->connected = true;
        s->closing = false;
        break;
    case CHR_EVENT_CLOSED:
        trace_etsoc1_hostlink_conn(false, s->rx_len);
        if (s->rx_len && !s->closing) {
            qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-hostlink: connection "
                          "closed inside a frame (truncated frame: %u bytes "
                          "kept)\n", s->rx_len);
        }
        s->connected = false;
        s->closing = false;
        hl_reset_conn(s);
        hl_fail_pending(s);
        etsoc1_rr_note_disconnect(s->rr);
        if (s->exit_on_close) {
            etsoc1_rr_close(s->rr);
            hl_power_off("the host link closed (exit-on-close)");
        }
        break;
    default:
        break;
    }
}

/* ---- host requests ------------------------------------------------------- */

static uint16_t hl_status(MemTxResult r)
{
    return r == MEMTX_OK ? HL_OK :
           r == MEMTX_DECODE_ERROR ? HL_E_DECODE : HL_E_ACCESS;
}

/* One host access of @len bytes: 1, 2, 4 or 8 are single accesses. */
static MemTxResult hl_mmio(Etsoc1HostLinkState *s, uint64_t addr,
                           uint8_t *buf, uint32_t len, bool write)
{
    return write ? etsoc1_pcie_host_write(s->pcie, addr, buf, len)
                 : etsoc1_pcie_host_read(s->pcie, addr, buf, len);
}

static void hl_mmio_read(Etsoc1HostLinkState *s, uint32_t seq,
                         const uint8_t *p)
{
    uint64_t addr = ldq_le_p(p);
    uint32_t len = ldl_le_p(p + 8);
    g_autofree uint8_t *buf = NULL;
    MemTxResult r;

    trace_etsoc1_hostlink_mmio(false, addr, len);
    if (!len || len > HL_MAX_DATA) {
        hl_reply(s, HL_MMIO_READ, seq, HL_E_LENGTH, NULL, 0);
        return;
    }
    buf = g_malloc0(len);
    r = hl_mmio(s, addr, buf, len, false);
    hl_reply(s, HL_MMIO_READ, seq, hl_status(r), buf, r ? 0 : len);
}

/* An MMIO_WRITE waiting for its stamped time */
typedef struct HlInput {
    Etsoc1HostLinkState *s;
    uint32_t gen;
    uint32_t seq;
    uint64_t addr;
    uint32_t len;
    uint8_t data[];
} HlInput;

/* Is the connection that sent @in still the one served? */
static bool hl_input_live(Etsoc1HostLinkState *s, const HlInput *in)
{
    return s->connected && !s->closing && s->conn_gen == in->gen;
}

/*
 * Input @in (@what, its @addr and @len for the trace) goes in at its
 * stamped time through @fn, and no later frame is parsed before; at once
 * (@fn(@in, 0)) unless @stamp and this machine stamps host inputs.
 */
static void hl_input_post(Etsoc1HostLinkState *s, HlInput *in,
                          const char *what, bool stamp,
                          void (*fn)(void *opaque, uint64_t t))
{
    /* before the post, which may apply it at once (an idle card) */
    s->input_pending = true;
    if (!stamp || !etsoc1_dma_chip_input_post(s->pcie->edma.chip, what,
                                              in->addr, in->len, fn, in)) {
        fn(in, 0);
    }
}

/* At its stamped time @t (BQL held): the write, its reply, the next frame */
static void hl_mmio_write_apply(void *opaque, uint64_t t)
{
    HlInput *in = opaque;
    Etsoc1HostLinkState *s = in->s;
    MemTxResult r = hl_mmio(s, in->addr, in->data, in->len, true);

    etsoc1_rr_note_mmio_write(s->rr, t, in->addr, in->data, in->len, r);
    if (hl_input_live(s, in)) {
        hl_reply(s, HL_MMIO_WRITE, in->seq, hl_status(r), NULL, 0);
    }
    s->input_pending = false;
    qemu_bh_schedule(s->rx_bh);     /* not from inside hl_process_rx */
    g_free(in);
}

static void hl_mmio_write(Etsoc1HostLinkState *s, uint32_t seq,
                          uint8_t *p, uint32_t plen)
{
    uint64_t addr = ldq_le_p(p);
    uint32_t len = ldl_le_p(p + 8);
    HlInput *in;

    trace_etsoc1_hostlink_mmio(true, addr, len);
    if (!len || len != plen - 12) {
        hl_reply(s, HL_MMIO_WRITE, seq, HL_E_LENGTH, NULL, 0);
        return;
    }
    in = g_malloc(sizeof(*in) + len);
    *in = (HlInput) {
        .s = s, .gen = s->conn_gen, .seq = seq, .addr = addr, .len = len,
    };
    memcpy(in->data, p + 12, len);
    hl_input_post(s, in, ETSOC1_INPUT_MMIO_WRITE, true, hl_mmio_write_apply);
}

/* The host's answer to one of our HOSTMEM requests. */
static void hl_hostmem_reply(Etsoc1HostLinkState *s, uint8_t type,
                             uint32_t seq, uint16_t status,
                             const uint8_t *p, uint32_t len)
{
    bool write = (type & ~HL_REPLY) == HL_HOSTMEM_WRITE;
    Etsoc1HostLinkReq r;
    MemTxResult res;
    unsigned i;

    for (i = 0; i < HL_MAX_PENDING; i++) {
        if (s->req[i].used && s->req[i].sent && s->req[i].seq == seq &&
            s->req[i].write == write) {
            break;
        }
    }
    if (i == HL_MAX_PENDING) {
        hl_drop(s, "%s reply with sequence id %u matches no request",
                hl_type_name(type), seq);
        return;
    }
    r = s->req[i];
    if (!write && status == HL_OK && len != r.len) {
        hl_drop(s, "HOSTMEM_READ reply of %u bytes for a %" PRIu64
                " byte request", len, r.len);
        return;
    }
    s->req[i].used = false;
    s->req[i].rec = NULL;
    if (!write && status == HL_OK) {
        memcpy(r.buf, p, len);
    }
    res = status == HL_OK ? MEMTX_OK : MEMTX_ERROR;
    hl_note_hostmem(s, &r, res);
    if (res != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-hostlink: the host refused "
                      "eDMA %s 0x%" PRIx64 " (%" PRIu64 " bytes): status %u\n",
                      write ? "write" : "read", r.addr, r.len, status);
    }
    trace_etsoc1_hostlink_hostmem_done(seq, write, res);
    hl_arm_watchdog(s);
    r.done(r.opaque, r.tag, res);
}

/*
 * SHM_MAP: the host shares one DMA buffer, host [addr, addr + size), as
 * a memfd passed with the frame (SCM_RIGHTS).  It must be sealed against
 * shrinking (F_SEAL_SHRINK), or a host that truncates it would make our
 * accesses fault; a bad request is refused with a status and a log line.
 */
static void hl_shm_map(Etsoc1HostLinkState *s, uint32_t seq, const uint8_t *p)
{
    uint64_t addr = ldq_le_p(p), size = ldq_le_p(p + 8);
    int fd = qemu_chr_fe_get_msgfd(&s->chr);
    const char *why = NULL;
    struct stat st;
    void *ptr;
    unsigned i, slot = HL_MAX_SHM;
    int seals;

    if (fd < 0) {
        why = "no file descriptor came with it";
    } else if (!(s->options & HL_OPT_SHM)) {
        why = "option SHM was not negotiated";
    } else if (!size || addr + size < addr) {
        why = "empty or wrapping range";
    } else if (fstat(fd, &st) < 0 || st.st_size < size) {
        why = "the file is smaller than the range";
    } else if ((seals = fcntl(fd, F_GET_SEALS)) < 0 ||
               !(seals & F_SEAL_SHRINK)) {
        /* only memfds (and shmem files) take seals */
        why = "the file is not sealed against shrinking (F_SEAL_SHRINK)";
    }
    for (i = 0; i < HL_MAX_SHM && !why; i++) {
        if (!s->shm[i].size) {
            slot = MIN(slot, i);
        } else if (addr < s->shm[i].addr + s->shm[i].size &&
                   s->shm[i].addr < addr + size) {
            why = "it overlaps a buffer already shared";
        }
    }
    if (!why && slot == HL_MAX_SHM) {
        why = "too many shared buffers";
    }
    ptr = why ? MAP_FAILED : mmap(NULL, size, PROT_READ | PROT_WRITE,
                                  MAP_SHARED, fd, 0);
    if (!why && ptr == MAP_FAILED) {
        why = "mmap failed";
    }
    if (fd >= 0) {
        close(fd);
    }
    trace_etsoc1_hostlink_shm(true, addr, size, why ? why : "mapped");
    if (why) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-hostlink: SHM_MAP 0x%" PRIx64
                      " + 0x%" PRIx64 " refused: %s\n", addr, size, why);
        hl_reply(s, HL_SHM_MAP, seq, HL_E_ACCESS, NULL, 0);
        return;
    }
    s->shm[slot] = (Etsoc1HostLinkShm) { addr, size, ptr };
    hl_reply(s, HL_SHM_MAP, seq, HL_OK, NULL, 0);
}

/*
 * MEM_FD: the host's own memory as a file whose offsets are its addresses
 * (its /proc/self/mem, opened by the host, so the kernel checked the
 * access then): the card reads and writes host [base, base + size) with
 * pread/pwrite, for a host whose DMA buffers are ordinary memory (the
 * sysemu layer).  An address the host has not mapped fails cleanly
 * (EIO), it cannot fault QEMU.  One such range per connection.
 */
static void hl_mem_fd(Etsoc1HostLinkState *s, uint32_t seq, const uint8_t *p)
{
    uint64_t base = ldq_le_p(p), size = ldq_le_p(p + 8);
    int fd = qemu_chr_fe_get_msgfd(&s->chr);
    const char *why = NULL;

    if (fd < 0) {
        why = "no file descriptor came with it";
    } else if (!(s->options & HL_OPT_SHM)) {
        why = "option SHM was not negotiated";
    } else if (!size || base + size < base) {
        why = "empty or wrapping range";
    } else if (s->mem_fd >= 0) {
        why = "the host already gave one";
    }
    trace_etsoc1_hostlink_shm(true, base, size, why ? why : "memory fd");
    if (why) {
        if (fd >= 0) {
            close(fd);
        }
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-hostlink: MEM_FD 0x%" PRIx64
                      " + 0x%" PRIx64 " refused: %s\n", base, size, why);
        hl_reply(s, HL_MEM_FD, seq, HL_E_ACCESS, NULL, 0);
        return;
    }
    s->mem_fd = fd;
    s->mem_base = base;
    s->mem_size = size;
    s->mem_vm = false;
#ifdef CONFIG_LINUX
    if (s->host_pid) {
        /*
         * The memory of host-pid itself: process_vm_readv/writev copy it
         * once, where pread/pwrite of /proc/pid/mem copy it twice.
         */
        g_autofree char *link = g_strdup_printf("/proc/self/fd/%d", fd);
        g_autofree char *want = g_strdup_printf("/proc/%u/mem", s->host_pid);
        g_autofree char *got = g_file_read_link(link, NULL);

        s->mem_vm = got && !strcmp(got, want);
    }
#endif
    hl_reply(s, HL_MEM_FD, seq, HL_OK, NULL, 0);
}

/* SHM_UNMAP: after the reply the card never touches that buffer again. */
static void hl_shm_unmap(Etsoc1HostLinkState *s, uint32_t seq,
                         const uint8_t *p)
{
    uint64_t addr = ldq_le_p(p);
    unsigned i;

    for (i = 0; i < HL_MAX_SHM; i++) {
        if (s->shm[i].size && s->shm[i].addr == addr) {
            trace_etsoc1_hostlink_shm(false, addr, s->shm[i].size,
                                      "unmapped");
            munmap(s->shm[i].ptr, s->shm[i].size);
            s->shm[i].size = 0;
            hl_reply(s, HL_SHM_UNMAP, seq, HL_OK, NULL, 0);
            return;
        }
    }
    hl_reply(s, HL_SHM_UNMAP, seq, HL_E_DECODE, NULL, 0);
}

/*
 * STOP ends the session at once, except under record=: there it is an
 * input like a write, stamped and applied in the model's order, so that
 * the record's end, and the card's state in its END, fall at a point of
 * the card's history that a replay reaches too.  At its stamped time
 * under record= (else @t is 0).  The card then stops at T, as at a
 * PAUSE, before QEMU shuts down: no hart acts past T meanwhile (a timer
 * could wake one), so trace-json ends where the replay's does.
 */
static void hl_stop_apply(void *opaque, uint64_t t)
{
    HlInput *in = opaque;
    Etsoc1HostLinkState *s = in->s;

    /* the session's end in the record: its T, then the END trailer */
    etsoc1_rr_note_stop(s->rr, t);
    if (t && runstate_is_running()) {
        vm_stop(RUN_STATE_PAUSED);
    }
    if (hl_input_live(s, in)) {
        hl_reply(s, HL_STOP, in->seq, HL_OK, NULL, 0);
        /* the main loop may not run the flush BH again before it exits */
        hl_flush(s);
    }
    s->input_pending = false;
    g_free(in);
    qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_QMP_QUIT);
}

/*
 * PAUSE is an input like a write: the card stops at its stamped T (the
 * harts past T wait there while the vCPUs stop), and the writes that
 * come before RESUME take effect at that T (etsoc1-sync.c,
 * etsoc1_input_vm_state), in the run and in its replay alike.  Not
 * stamped (stamp-host=off, poll-halt=off): the VM stops at once.  A host
 * gone before @t would leave the card stopped with nobody to resume it:
 * the card runs on.
 */
static void hl_pause_apply(void *opaque, uint64_t t)
{
    HlInput *in = opaque;
    Etsoc1HostLinkState *s = in->s;

    if (hl_input_live(s, in)) {
        etsoc1_rr_note_pause(s->rr, t);
        if (runstate_is_running()) {
            vm_stop(RUN_STATE_PAUSED);
        }
        hl_reply(s, HL_PAUSE, in->seq, HL_OK, NULL, 0);
    }
    s->input_pending = false;
    qemu_bh_schedule(s->rx_bh);     /* not from inside hl_process_rx */
    g_free(in);
}

/* A frame with no data (STOP, PAUSE) as input @what: hl_input_post */
static void hl_bare_input(Etsoc1HostLinkState *s, uint32_t seq,
                          const char *what, bool stamp,
                          void (*fn)(void *opaque, uint64_t t))
{
    HlInput *in = g_new0(HlInput, 1);

    *in = (HlInput) { .s = s, .gen = s->conn_gen, .seq = seq };
    hl_input_post(s, in, what, stamp, fn);
}

/*
 * A STOP under record= first waits, up to stop-idle-ms of host time, for
 * the card to be idle (the machine's "idle": nothing can act, no input
 * pending), so that its END holds clocks and memory that a replay
 * compares; then it is stamped and applied as any STOP.  The firmware
 * goes on for a while after its last answer, for longer in host time on
 * a loaded host.  No later frame is parsed meanwhile (input_pending).  A
 * stopped VM cannot go idle: the STOP goes in by the stopped VM's rule.
 */
static void hl_stop_wait(void *opaque)
{
    Etsoc1HostLinkState *s = opaque;
    int64_t now = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    Error *err = NULL;
    bool idle = object_property_get_bool(s->pcie->edma.chip, "idle", &err);

    if (err) {
        error_free(err);
        idle = true;            /* no chip that can say: at once */
    }
    if (!idle && runstate_is_running() &&
        now - s->stop_asked_ms < s->stop_idle_ms) {
        timer_mod(s->stop_wait, now + HL_STOP_LOOK_MS);
        return;
    }
    trace_etsoc1_hostlink_stop_wait(now - s->stop_asked_ms, idle);
    hl_bare_input(s, s->stop_seq, ETSOC1_INPUT_STOP, true, hl_stop_apply);
}

static void hl_dispatch(Etsoc1HostLinkState *s, uint8_t type, uint16_t status,
                        uint32_t seq, uint8_t *p, uint32_t len)
{
    uint8_t ack[8];

    if (!s->hello && type != HL_HELLO) {
        hl_drop(s, "%s before HELLO", hl_type_name(type));
        return;
    }
    switch (type) {
    case HL_HELLO:
        if (s->hello) {
            hl_drop(s, "second HELLO");
            return;
        }
        if (ldl_le_p(p) != HL_VERSION) {
            hl_drop(s, "HELLO for protocol version %u (this is %u)",
                    ldl_le_p(p), HL_VERSION);
            return;
        }
        s->hello = true;
        s->options = ldl_le_p(p + 4) & HL_OPTS;
        etsoc1_rr_note_connect(s->rr, s->options);
        stl_le_p(ack, HL_VERSION);
        stl_le_p(ack + 4, s->options);
        hl_reply(s, HL_HELLO, seq, HL_OK, ack, sizeof(ack));
        hl_maybe_ready(s);
        break;
    case HL_MMIO_READ:
        hl_mmio_read(s, seq, p);
        break;
    case HL_MMIO_WRITE:
        hl_mmio_write(s, seq, p, len);
        break;
    case HL_PAUSE:
        hl_bare_input(s, seq, ETSOC1_INPUT_PAUSE, true, hl_pause_apply);
        break;
    case HL_RESUME:
        if (runstate_check(RUN_STATE_PAUSED)) {
            vm_start();
        }
        hl_reply(s, type, seq, HL_OK, NULL, 0);
        break;
    case HL_STOP:
        if (s->rr && s->stop_idle_ms) {
            s->input_pending = true;
            s->stop_seq = seq;
            s->stop_asked_ms = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
            hl_stop_wait(s);
            break;
        }
        hl_bare_input(s, seq, ETSOC1_INPUT_STOP, s->rr != NULL,
                      hl_stop_apply);
        break;
    case HL_SHM_MAP:
        hl_shm_map(s, seq, p);
        break;
    case HL_SHM_UNMAP:
        hl_shm_unmap(s, seq, p);
        break;
    case HL_MEM_FD:
        hl_mem_fd(s, seq, p);
        break;
    case HL_HOSTMEM_READ | HL_REPLY:
    case HL_HOSTMEM_WRITE | HL_REPLY:
        hl_hostmem_reply(s, type, seq, status, p, len);
        break;
    default:
        g_assert_not_reached();     /* hl_length_ok refused it */
    }
}

static int hl_can_receive(void *opaque)
{
    Etsoc1HostLinkState *s = opaque;

    /* a full output queue: no more requests until the host reads */
    if (s->closing || hl_out_full(s)) {
        return 0;
    }
    return HL_HDR_SIZE + HL_MAX_PAYLOAD - s->rx_len;
}

/* Serve the whole frames in the receive buffer, while the host reads. */
static void hl_process_rx(Etsoc1HostLinkState *s)
{
    while (s->rx_len >= HL_HDR_SIZE && !s->closing && !s->input_pending) {
        uint32_t magic = ldl_le_p(s->rx);
        uint8_t version = s->rx[4], type = s->rx[5];
        uint16_t status = lduw_le_p(s->rx + 6);
        uint32_t len = ldl_le_p(s->rx + 8), seq = ldl_le_p(s->rx + 12);
        uint32_t whole;

        if (magic != HL_MAGIC) {
            hl_drop(s, "bad magic 0x%08x", magic);
            return;
        }
        if (version != HL_VERSION) {
            hl_drop(s, "bad version %u", version);
            return;
        }
        if (len > HL_MAX_PAYLOAD) {
            hl_drop(s, "frame length %u over the bound %u", len,
                    HL_MAX_PAYLOAD);
            return;
        }
        if (!hl_length_ok(type, len)) {
            if (!hl_host_type(type)) {
                hl_drop(s, "unknown or misdirected frame type 0x%02x", type);
            } else {
                hl_drop(s, "%s frame with a payload of %u bytes",
                        hl_type_name(type), len);
            }
            return;
        }
        whole = HL_HDR_SIZE + len;
        if (s->rx_len < whole) {
            return;                 /* the rest comes later */
        }
        if (hl_out_full(s)) {
            /* back-pressure: hl_flush() comes back when the host reads */
            trace_etsoc1_hostlink_backpressure(true, hl_out_pending(s));
            return;
        }
        trace_etsoc1_hostlink_rx(hl_type_name(type), type, seq, status, len);
        hl_dispatch(s, type, status, seq, s->rx + HL_HDR_SIZE, len);
        if (s->closing || !s->connected) {
            return;
        }
        memmove(s->rx, s->rx + whole, s->rx_len - whole);
        s->rx_len -= whole;
    }
}

static void hl_receive(void *opaque, const uint8_t *buf, int size)
{
    Etsoc1HostLinkState *s = opaque;
    uint32_t room = HL_HDR_SIZE + HL_MAX_PAYLOAD - s->rx_len;

    if (s->closing) {
        return;
    }
    if ((uint32_t)size > room) {
        /* can_receive bounds it; never trust it with memory */
        hl_drop(s, "receive buffer overrun");
        return;
    }
    memcpy(s->rx + s->rx_len, buf, size);
    s->rx_len += size;
    hl_process_rx(s);
}

/* ---- card events --------------------------------------------------------- */

static void hl_msi(void *opaque, uint32_t vectors)
{
    Etsoc1HostLinkState *s = opaque;
    uint8_t p[4];

    /* what the card sent, whether a host hears it or not */
    etsoc1_rr_note_msi(s->rr, vectors);
    if (!s->hello) {
        trace_etsoc1_hostlink_msi_dropped(vectors);
        return;
    }
    if (hl_out_full(s)) {
        /* the host ORs MSI bitmaps: one frame later says the same */
        s->msi_deferred |= vectors;
        return;
    }
    stl_le_p(p, vectors);
    hl_send(s, HL_MSI, 0, s->seq++, p, sizeof(p), NULL, 0);
}

static void hl_iatu_changed(Notifier *n, void *data)
{
    Etsoc1HostLinkState *s = container_of(n, Etsoc1HostLinkState,
                                          iatu_notifier);

    hl_maybe_ready(s);
}

/* ---- host memory (interface etsoc1-host-mem) ----------------------------- */

static void hl_send_req(Etsoc1HostLinkState *s, Etsoc1HostLinkReq *r)
{
    uint8_t p[12];

    r->seq = s->seq++;
    r->sent = true;
    r->sent_ms = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    stq_le_p(p, r->addr);
    stl_le_p(p + 8, r->len);
    trace_etsoc1_hostlink_hostmem(r->seq, r->write, r->addr, r->len);
    hl_send(s, r->write ? HL_HOSTMEM_WRITE : HL_HOSTMEM_READ, 0, r->seq,
            p, sizeof(p), r->write ? r->buf : NULL, r->write ? r->len : 0);
}

/* The output queue has room again: what back-pressure held, in order. */
static void hl_send_deferred(Etsoc1HostLinkState *s)
{
    uint8_t p[4];

    if (s->msi_deferred && s->hello) {
        stl_le_p(p, s->msi_deferred);
        s->msi_deferred = 0;
        hl_send(s, HL_MSI, 0, s->seq++, p, sizeof(p), NULL, 0);
    }
    while (!hl_out_full(s)) {
        Etsoc1HostLinkReq *first = NULL;
        unsigned i;

        for (i = 0; i < HL_MAX_PENDING; i++) {
            Etsoc1HostLinkReq *r = &s->req[i];

            if (r->used && !r->sent && (!first || r->order < first->order)) {
                first = r;
            }
        }
        if (!first) {
            break;
        }
        hl_send_req(s, first);
    }
}

static bool hl_serving(Etsoc1HostLinkState *s)
{
    return s->connected && !s->closing && s->hello &&
           (s->options & HL_OPT_HOSTMEM);
}

/*
 * An eDMA access inside memory the host shared (SHM_MAP, MEM_FD): copied
 * now, between that memory and @buf; ETSOC1_HOST_MEM_PENDING for an
 * address outside all of it (the socket's).  *@done: the bytes that
 * moved.  The eDMA passes one piece, or the pieces of a timer run within
 * hl_direct_span(): one copy, one system call for MEM_FD.
 */
static MemTxResult hl_shared(Etsoc1HostLinkState *s, bool write,
                             uint64_t addr, void *buf, uint64_t len,
                             uint64_t *done)
{
    unsigned i;

    *done = 0;
    for (i = 0; i < HL_MAX_SHM; i++) {
        Etsoc1HostLinkShm *m = &s->shm[i];

        if (!m->size || addr >= m->addr + m->size || addr + len <= m->addr) {
            continue;
        }
        if (addr < m->addr || addr + len > m->addr + m->size) {
            /* never outside what the host shared: not even partly */
            qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-hostlink: eDMA host %s "
                          "0x%" PRIx64 " + 0x%" PRIx64 " leaves the shared "
                          "buffer 0x%" PRIx64 " + 0x%" PRIx64 "\n",
                          write ? "write" : "read", addr, len, m->addr,
                          m->size);
            return MEMTX_ERROR;
        }
        /* shared memory: a copy, done now; emulated time is the eDMA's */
        trace_etsoc1_hostlink_hostmem_shm(write, addr, len);
        if (write) {
            memcpy(m->ptr + (addr - m->addr), buf, len);
        } else {
            memcpy(buf, m->ptr + (addr - m->addr), len);
        }
        *done = len;
        return MEMTX_OK;
    }
    if (s->mem_fd >= 0 && addr >= s->mem_base &&
        addr - s->mem_base + len <= s->mem_size && len <= s->mem_size) {
        ssize_t n = -1;

#ifdef CONFIG_LINUX
        if (s->mem_vm) {
            struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

            n = write ? process_vm_writev(s->host_pid, &l, 1, &r, 1, 0)
                      : process_vm_readv(s->host_pid, &l, 1, &r, 1, 0);
            if (n < 0 && (errno == EPERM || errno == ENOSYS)) {
                s->mem_vm = false;      /* not allowed here: the fd */
            }
        }
#endif
        if (!s->mem_vm) {
            n = write ? pwrite(s->mem_fd, buf, len, addr)
                      : pread(s->mem_fd, buf, len, addr);
        }

        trace_etsoc1_hostlink_hostmem_shm(write, addr, len);
        if (n != (ssize_t)len) {
            /* a page the host unmapped: the bytes before it have moved */
            *done = MAX(n, 0);
            qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-hostlink: eDMA host %s "
                          "0x%" PRIx64 " + 0x%" PRIx64 " through the host's "
                          "memory fd: %s at 0x%" PRIx64 "\n",
                          write ? "write" : "read", addr, len,
                          n < 0 ? strerror(errno) : "short", addr + *done);
            return MEMTX_ERROR;
        }
        *done = len;
        return MEMTX_OK;
    }
    return ETSOC1_HOST_MEM_PENDING;
}

/*
 * How much of [addr, addr + len) hl_shared() should take in one call: in
 * the MEM_FD range, up to its end or the next SHM_MAP buffer (whose
 * pieces are that buffer's), as one system call instead of one per piece.
 * Elsewhere 0, one piece at a time: a SHM_MAP buffer's memcpy costs the
 * same per byte in one call, and on the test host 64 KiB pieces copied one
 * by one were 10-20 % faster than 4 MiB at once (docs/host-link.md).
 */
static uint64_t hl_direct_span(Etsoc1HostMem *hm, uint64_t addr,
                               uint64_t len, const Etsoc1HostMemCtx *ctx)
{
    Etsoc1HostLinkState *s = ETSOC1_HOSTLINK(hm);
    uint64_t span;
    unsigned i;

    if (!hl_serving(s) || s->mem_fd < 0 || addr < s->mem_base ||
        addr - s->mem_base >= s->mem_size) {
        return 0;
    }
    span = MIN(len, s->mem_size - (addr - s->mem_base));
    for (i = 0; i < HL_MAX_SHM; i++) {
        Etsoc1HostLinkShm *m = &s->shm[i];

        if (m->size && addr >= m->addr && addr - m->addr < m->size) {
            return 0;
        }
        if (m->size && m->addr > addr) {
            span = MIN(span, m->addr - addr);
        }
    }
    return span;
}

/*
 * The host's shared memory (or a failure) answered at once: under
 * record= the data read, or written, goes in the channel's stream
 * (*@done bytes of it: a failure part way moved the bytes before it).
 */
static MemTxResult hl_shared_noted(Etsoc1HostLinkState *s, bool write,
                                   uint64_t addr, void *buf, uint64_t len,
                                   uint64_t *done,
                                   const Etsoc1HostMemCtx *ctx)
{
    MemTxResult r = hl_shared(s, write, addr, buf, len, done);

    if (r != ETSOC1_HOST_MEM_PENDING) {
        etsoc1_rr_note_hostmem(s->rr, ctx, write, addr, len, buf,
                               MIN(*done, len), r == MEMTX_OK);
    }
    return r;
}

static MemTxResult hl_direct(Etsoc1HostMem *hm, bool write, uint64_t addr,
                             void *buf, uint64_t len, uint64_t *done,
                             const Etsoc1HostMemCtx *ctx)
{
    Etsoc1HostLinkState *s = ETSOC1_HOSTLINK(hm);

    *done = 0;
    /* no host: hl_start() logs and fails it */
    return hl_serving(s) ? hl_shared_noted(s, write, addr, buf, len, done,
                                           ctx)
                         : ETSOC1_HOST_MEM_PENDING;
}

/* A channel raised DONE or ABORT: its end time goes in its stream */
static uint64_t hl_end(Etsoc1HostMem *hm, const Etsoc1HostMemCtx *ctx,
                       bool abort)
{
    etsoc1_rr_note_dma_end(ETSOC1_HOSTLINK(hm)->rr, ctx, abort);
    return ctx->at;
}

static MemTxResult hl_start(Etsoc1HostLinkState *s, bool write, uint64_t addr,
                            void *buf, uint64_t len, Etsoc1HostMemDone *done,
                            void *opaque, uint64_t tag,
                            const Etsoc1HostMemCtx *ctx)
{
    MemTxResult r;
    uint64_t moved;
    unsigned i;

    if (!hl_serving(s)) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-hostlink: eDMA host %s at "
                      "0x%" PRIx64 " with no host serving memory\n",
                      write ? "write" : "read", addr);
        /* a failure is part of the record: the replay fails it too */
        etsoc1_rr_note_hostmem(s->rr, ctx, write, addr, len, buf, 0, false);
        return MEMTX_DECODE_ERROR;
    }
    r = hl_shared_noted(s, write, addr, buf, len, &moved, ctx);
    if (r != ETSOC1_HOST_MEM_PENDING) {
        return r;
    }
    if (len > HL_MAX_DATA) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-hostlink: eDMA host access "
                      "of %" PRIu64 " bytes over the link's bound\n", len);
        etsoc1_rr_note_hostmem(s->rr, ctx, write, addr, len, buf, 0, false);
        return MEMTX_ERROR;
    }
    for (i = 0; i < HL_MAX_PENDING && s->req[i].used; i++) {
        /* find a free slot */
    }
    if (i == HL_MAX_PENDING) {
        /* 8 channels: cannot happen */
        etsoc1_rr_note_hostmem(s->rr, ctx, write, addr, len, buf, 0, false);
        return MEMTX_ERROR;
    }
    s->req[i] = (Etsoc1HostLinkReq) {
        .used = true, .write = write, .order = s->req_order++, .addr = addr,
        .buf = buf, .len = len, .done = done, .opaque = opaque, .tag = tag,
        .ctx = ctx ? *ctx : (Etsoc1HostMemCtx) { .write = write },
        /*
         * the data as sent: the channel may reuse its buffer before the
         * host answers (a STOP doorbell), and the record is written then
         */
        .rec = s->rr && write ? g_memdup2(buf, len) : NULL,
    };
    if (hl_out_full(s)) {
        /* back-pressure: the channel waits until the host reads */
        trace_etsoc1_hostlink_hostmem_deferred(write, addr, len);
    } else {
        hl_send_req(s, &s->req[i]);
        hl_arm_watchdog(s);
    }
    return ETSOC1_HOST_MEM_PENDING;
}

static MemTxResult hl_start_read(Etsoc1HostMem *hm, uint64_t addr, void *buf,
                                 uint64_t len, Etsoc1HostMemDone *done,
                                 void *opaque, uint64_t tag,
                                 const Etsoc1HostMemCtx *ctx)
{
    return hl_start(ETSOC1_HOSTLINK(hm), false, addr, buf, len, done, opaque,
                    tag, ctx);
}

static MemTxResult hl_start_write(Etsoc1HostMem *hm, uint64_t addr,
                                  const void *buf, uint64_t len,
                                  Etsoc1HostMemDone *done, void *opaque,
                                  uint64_t tag, const Etsoc1HostMemCtx *ctx)
{
    return hl_start(ETSOC1_HOSTLINK(hm), true, addr, (void *)buf, len, done,
                    opaque, tag, ctx);
}

/* ---- device -------------------------------------------------------------- */

static void hl_host_gone(void *opaque)
{
    Etsoc1HostLinkState *s = opaque;
    g_autofree char *why = g_strdup_printf("host process %u is gone "
                                           "(host-pid)", s->host_pid);

    etsoc1_rr_close(s->rr);
    hl_power_off(why);
}

/*
 * host-pid: a pidfd turns readable when the process has exited, however
 * it ended (killed, _Exit, crashed), and unlike PR_SET_PDEATHSIG it
 * follows the process, not the thread that forked QEMU.
 */
static bool hl_watch_host(Etsoc1HostLinkState *s, Error **errp)
{
    s->host_pidfd = -1;
    if (!s->host_pid) {
        return true;
    }
#if defined(CONFIG_LINUX) && defined(__NR_pidfd_open)
    s->host_pidfd = syscall(__NR_pidfd_open, (pid_t)s->host_pid, 0);
    if (s->host_pidfd < 0) {
        error_setg_errno(errp, errno, "etsoc1-hostlink: host-pid=%u",
                         s->host_pid);
        return false;
    }
    qemu_set_fd_handler(s->host_pidfd, hl_host_gone, NULL, s);
    return true;
#else
    error_setg(errp, "etsoc1-hostlink: host-pid needs Linux (pidfd_open)");
    return false;
#endif
}

static void hl_realize(DeviceState *dev, Error **errp)
{
    Etsoc1HostLinkState *s = ETSOC1_HOSTLINK(dev);

    if (!qemu_chr_fe_backend_connected(&s->chr)) {
        error_setg(errp, "etsoc1-hostlink: property chardev is required");
        return;
    }
    if (!s->pcie) {
        error_setg(errp, "etsoc1-hostlink: link pcie is required");
        return;
    }
    if (s->pcie->edma.step_bytes > HL_MAX_DATA) {
        error_setg(errp, "etsoc1-hostlink: eDMA step-bytes %u over the "
                   "link's bound of %u", s->pcie->edma.step_bytes,
                   HL_MAX_DATA);
        return;
    }
    if (!s->out_limit) {
        error_setg(errp, "etsoc1-hostlink: out-limit must be at least 1");
        return;
    }
    if (!hl_watch_host(s, errp)) {
        return;
    }
    error_setg(&s->migration_blocker, "etsoc1-hostlink: a live host link "
               "cannot migrate");
    if (migrate_add_blocker(s->migration_blocker, errp) < 0) {
        error_free(s->migration_blocker);
        s->migration_blocker = NULL;
        return;
    }
    s->mem_fd = -1;
    s->rx = g_malloc(HL_HDR_SIZE + HL_MAX_PAYLOAD);
    s->out = g_byte_array_new();
    s->flush_bh = qemu_bh_new(hl_flush_bh, s);
    s->rx_bh = qemu_bh_new(hl_rx_bh, s);
    s->watchdog = timer_new_ms(QEMU_CLOCK_REALTIME, hl_watchdog, s);
    s->stop_wait = timer_new_ms(QEMU_CLOCK_REALTIME, hl_stop_wait, s);
    etsoc1_pcie_set_msi_handler(s->pcie, hl_msi, s);
    s->iatu_notifier.notify = hl_iatu_changed;
    etsoc1_pcie_add_iatu_notifier(s->pcie, &s->iatu_notifier);
    qemu_chr_fe_set_handlers(&s->chr, hl_can_receive, hl_receive, hl_event,
                             NULL, s, NULL, true);
}

static Property hl_properties[] = {
    DEFINE_PROP_CHR("chardev", Etsoc1HostLinkState, chr),
    /* docs/host-link.md, "A host that does not read" */
    DEFINE_PROP_UINT32("out-limit", Etsoc1HostLinkState, out_limit, 4 * MiB),
    DEFINE_PROP_UINT32("host-timeout-ms", Etsoc1HostLinkState,
                       host_timeout_ms, 10000),
    /* docs/host-link.md, "A card for one host process" */
    DEFINE_PROP_BOOL("exit-on-close", Etsoc1HostLinkState, exit_on_close,
                     false),
    DEFINE_PROP_UINT32("host-pid", Etsoc1HostLinkState, host_pid, 0),
    /* docs/record-replay.md, "Recording" */
    DEFINE_PROP_UINT32("stop-idle-ms", Etsoc1HostLinkState, stop_idle_ms,
                       2000),
    DEFINE_PROP_LINK("pcie", Etsoc1HostLinkState, pcie, TYPE_ETSOC1_PCIE_EP,
                     Etsoc1PcieState *),
    DEFINE_PROP_LINK("recorder", Etsoc1HostLinkState, rr, TYPE_ETSOC1_RR,
                     Etsoc1Rr *),
    DEFINE_PROP_END_OF_LIST(),
};

static void hl_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    Etsoc1HostMemClass *k = ETSOC1_HOST_MEM_CLASS(oc);

    dc->desc = "ET-SoC-1 host link (chardev)";
    dc->realize = hl_realize;
    /* the machine wires it before the endpoint's realize */
    dc->user_creatable = false;
    device_class_set_props(dc, hl_properties);
    k->start_read = hl_start_read;
    k->start_write = hl_start_write;
    k->direct = hl_direct;
    k->direct_span = hl_direct_span;
    k->end = hl_end;
}

static const TypeInfo hl_types[] = {
    {
        .name = TYPE_ETSOC1_HOSTLINK,
        .parent = TYPE_DEVICE,
        .instance_size = sizeof(Etsoc1HostLinkState),
        .class_init = hl_class_init,
        .interfaces = (InterfaceInfo[]) {
            { TYPE_ETSOC1_HOST_MEM },
            { }
        },
    },
};

DEFINE_TYPES(hl_types)
