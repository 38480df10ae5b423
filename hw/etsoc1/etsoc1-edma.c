/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the DesignWare PCIe embedded DMA ("eDMA") of PCIe0,
 * unrolled register map in the DBI space (host-interface.md 5.1).
 *
 * 4 write channels (card -> host) and 4 read channels (host -> card), in
 * linked-list mode (or single-block with LLE clear).  A doorbell only
 * arms a timer: the list is walked in steps of at most "step-bytes", each
 * step taking the time its bytes take at the channel's share of the link
 * (timing.md 6, rows dma.* in etsoc1-timing.c).  A channel a hart starts
 * is on the chip's time: its steps go in emulated-time order with the
 * other such channels', each once no hart can still act before it
 * (etsoc1_link_turn), so its figures depend on emulated times only
 * (docs/timing.md "DMA").  One started from outside (qtest) steps on
 * QEMU_CLOCK_VIRTUAL.  Host memory is reached through the "host-mem" link
 * (interface etsoc1-host-mem); card memory is DRAM and the L2 scratchpads
 * only, checked before any byte moves.  docs/host-interface.md has the
 * register and error model.
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qemu/units.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "qemu/rcu.h"
#include "qapi/error.h"
#include "hw/irq.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "hw/etsoc1/etsoc1-map.h"
#include "hw/etsoc1/etsoc1-timing.h"
#include "hw/etsoc1/etsoc1-trace.h"
#include "hw/etsoc1/etsoc1-pcie.h"
#include "trace.h"

/* Global registers, offsets from the eDMA base (DBI + 0x380000). */
REG32(CTRL_DATA_ARB_PRIOR, 0x00)
REG32(CTRL, 0x08)
    FIELD(CTRL, NUM_WR, 0, 4)
    FIELD(CTRL, NUM_RD, 16, 4)
REG32(WR_ENGINE_EN, 0x0c)
    FIELD(ENGINE_EN, EN, 0, 1)
REG32(WR_DOORBELL, 0x10)
    FIELD(DOORBELL, CH, 0, 3)
    FIELD(DOORBELL, STOP, 31, 1)
REG32(WR_ARB_LOW, 0x18)
REG32(WR_ARB_HIGH, 0x1c)
REG32(RD_ENGINE_EN, 0x2c)
REG32(RD_DOORBELL, 0x30)
REG32(RD_ARB_LOW, 0x38)
REG32(RD_ARB_HIGH, 0x3c)
REG32(WR_INT_STATUS, 0x4c)
    FIELD(INT, DONE, 0, 8)
    FIELD(INT, ABORT, 16, 8)
REG32(WR_INT_MASK, 0x54)
REG32(WR_INT_CLEAR, 0x58)
REG32(WR_ERR_STATUS, 0x5c)
    FIELD(ERR, APP, 0, 8)       /* WR: local read; RD: local write */
    FIELD(ERR, LL_FETCH, 16, 8)
REG32(RD_INT_STATUS, 0xa0)
REG32(RD_INT_MASK, 0xa8)
REG32(RD_INT_CLEAR, 0xac)
REG32(RD_ERR_STATUS_LOW, 0xb4)
REG32(RD_ERR_STATUS_HIGH, 0xb8)
    FIELD(RD_ERR_HIGH, UNSUPPORTED, 0, 8)
    FIELD(RD_ERR_HIGH, CPL_ABORT, 8, 8)
    FIELD(RD_ERR_HIGH, CPL_TIMEOUT, 16, 8)
    FIELD(RD_ERR_HIGH, POISON, 24, 8)

/* Channel registers: write channel n at 0x200 + n * 0x200, read +0x100. */
#define CH_BASE         0x200
#define CH_STRIDE       0x200
#define CH_RD_OFFSET    0x100
REG32(CH_CONTROL1, 0x00)
    FIELD(CH_CONTROL1, CB, 0, 1)
    FIELD(CH_CONTROL1, TCB, 1, 1)
    FIELD(CH_CONTROL1, LLP, 2, 1)
    FIELD(CH_CONTROL1, LIE, 3, 1)
    FIELD(CH_CONTROL1, RIE, 4, 1)
    FIELD(CH_CONTROL1, CS, 5, 2)
    FIELD(CH_CONTROL1, CCS, 8, 1)
    FIELD(CH_CONTROL1, LLE, 9, 1)
REG32(CH_CONTROL2, 0x04)
REG32(CH_TRANSFER_SIZE, 0x08)
REG32(CH_SAR_LO, 0x0c)
REG32(CH_SAR_HI, 0x10)
REG32(CH_DAR_LO, 0x14)
REG32(CH_DAR_HI, 0x18)
REG32(CH_LLP_LO, 0x1c)
REG32(CH_LLP_HI, 0x20)

/* A linked-list element: 24 bytes; a link element has LLP set in ctrl. */
#define ELEM_CTRL       0
#define ELEM_SIZE       4
#define ELEM_SAR        8       /* link element: the next element */
#define ELEM_DAR        16

#define EDMA_MMIO_SIZE  0x80000
#define EDMA_CATCH_UP   64      /* pieces one late timer may move */
#define EDMA_LINK_LOOK_NS   (1 * SCALE_MS)  /* the harts looked at again */
#define WR 0
#define RD 1

/* Channel status (CH_CONTROL1.CS) */
typedef enum {
    EDMA_CS_IDLE = 0,       /* reset: never started */
    EDMA_CS_RUNNING = 1,
    EDMA_CS_HALTED = 2,     /* stopped on an error */
    EDMA_CS_STOPPED = 3,    /* end of list, or the STOP doorbell */
} Etsoc1EdmaCs;

/* Why a channel aborts */
typedef enum {
    EDMA_ERR_STOP,          /* STOP doorbell: abort bit only */
    EDMA_ERR_LL_FETCH,      /* bad or endless list, element too large */
    EDMA_ERR_APP,           /* card side outside DRAM / scratchpad */
    EDMA_ERR_HOST,          /* the host side failed */
} Etsoc1EdmaErr;

static const char *const edma_err_name[] = {
    "stop", "ll-fetch", "card-address", "host-access",
};

static inline const char *dir_name(bool write)
{
    return write ? "wr" : "rd";
}

static void edma_update_irq(Etsoc1EdmaState *s)
{
    unsigned side, n;

    for (side = WR; side <= RD; side++) {
        uint32_t live = s->int_status[side] & ~s->int_mask[side];

        for (n = 0; n < ETSOC1_EDMA_CHANNELS; n++) {
            bool level = live & (BIT(n) | BIT(16 + n));

            qemu_set_irq(s->irq[side * ETSOC1_EDMA_CHANNELS + n], level);
        }
    }
}

/* Card memory the engine may touch: DRAM, or one existing L2 scratchpad. */
static bool edma_card_ok(Etsoc1EdmaState *s, uint64_t addr, uint64_t len)
{
    uint64_t end = addr + len;

    if (end < addr) {
        return false;
    }
    if (addr >= s->dram_base && end <= s->dram_base + s->dram_size) {
        return true;
    }
    if (addr >= s->scp_base && s->scp_window) {
        uint64_t shire = (addr - s->scp_base) / s->scp_window;
        uint64_t off = (addr - s->scp_base) % s->scp_window;

        return shire < s->scp_shires && off + len <= s->scp_size;
    }
    return false;
}

/*
 * Does @x use the link when @c's next piece starts?  On the chip's time
 * that is a fact of emulated time: @x, on it too, started no later and
 * had not ended then (its work [start, at)).  The steps go in that time's
 * order (edma_link_run), so a channel still running has not come to its
 * end before @c's piece, and one that starts later cannot start before
 * it.  On host time, whether @x runs at this host instant.
 */
static bool edma_busy(const Etsoc1EdmaChan *x, const Etsoc1EdmaChan *c)
{
    if (!c->on_chip) {
        return x->state == EDMA_CS_RUNNING;
    }
    return x->on_chip && x->state != EDMA_CS_IDLE && x->start <= c->at &&
           (x->state == EDMA_CS_RUNNING || c->at < x->at);
}

/*
 * Link bandwidth in bytes per ns (= GB/s) of channel @c's next piece,
 * from the rules of timing.md 6 (docs/host-interface.md, "Timing"): a
 * direction alone moves at its rate; two or more channels of one
 * direction share dma.pair (or dma.same-stream with the same-stream
 * property) times that rate; both directions at once share dma.duplex
 * times the faster one.  The channels that count are edma_busy's.
 */
static double edma_chan_rate(Etsoc1EdmaChan *c)
{
    Etsoc1EdmaState *s = c->engine;
    bool write = c->write;
    double agg[2] = { 0, 0 };
    unsigned busy[2] = { 0, 0 };
    unsigned side, n;
    double total, scale = 1;

    for (side = WR; side <= RD; side++) {
        for (n = 0; n < ETSOC1_EDMA_CHANNELS; n++) {
            busy[side] += edma_busy(&s->ch[side][n], c);
        }
        if (busy[side]) {
            double rate = etsoc1_t(s->timing, side == RD ? ETSOC1_T_DMA_H2D
                                                         : ETSOC1_T_DMA_D2H);

            if (busy[side] > 1) {
                rate *= etsoc1_t(s->timing,
                                 s->same_stream ? ETSOC1_T_DMA_SAME_STREAM
                                                : ETSOC1_T_DMA_PAIR);
            }
            agg[side] = rate;
        }
    }
    side = write ? WR : RD;
    if (!busy[side]) {
        busy[side] = 1;     /* not running yet: price it as if it were */
        agg[side] = etsoc1_t(s->timing,
                             write ? ETSOC1_T_DMA_D2H : ETSOC1_T_DMA_H2D);
    }
    total = agg[WR] + agg[RD];
    if (agg[WR] && agg[RD]) {
        double cap = etsoc1_t(s->timing, ETSOC1_T_DMA_DUPLEX) *
                     MAX(agg[WR], agg[RD]);

        scale = MIN(1.0, cap / total);
    }
    return MAX(agg[side] * scale / busy[side], 1e-6);
}

/*
 * Host writes land in the lines' home L3 slices (timing.md 4).  The
 * pieces one timer run moves follow each other in card memory, and
 * installing [a, b) then [b, c) leaves the L3 as installing [a, c) does
 * (etsoc1_l3_install), so they are gathered and installed at once, before
 * the channel reports anything and before the main loop runs again.
 * While the element goes on, the rest of it follows them: the L3 does not
 * look up the lines that rest will replace anyway (all but the last
 * slices x size bytes of a long element; etsoc1_l3_install_ahead), and
 * [skip_lo, skip_hi) remembers them in case the channel stops first.
 */
static void edma_install_flush(Etsoc1EdmaChan *c, bool going_on)
{
    uint64_t more = 0;

    if (going_on && c->state == EDMA_CS_RUNNING && c->e_left &&
        c->e_dar == c->ins_hi) {
        more = c->e_left;
    }
    if (!more && c->skip_hi > c->skip_lo) {
        if (c->e_left) {
            /* stopped inside the element: what a walk would have left */
            etsoc1_dma_chip_written(c->engine->chip, c->skip_lo,
                                    c->skip_hi - c->skip_lo, 0);
        }
        /* else its last bytes, gathered, replace what it skipped */
        c->skip_lo = c->skip_hi = 0;
    }
    if (c->ins_hi > c->ins_lo) {
        uint64_t upto = etsoc1_dma_chip_written(c->engine->chip, c->ins_lo,
                                                c->ins_hi - c->ins_lo, more);

        if (upto > c->ins_lo) {
            if (c->skip_hi != c->ins_lo) {
                c->skip_lo = c->ins_lo;
            }
            c->skip_hi = upto;
        }
    }
    c->ins_lo = c->ins_hi = 0;
}

static void edma_install(Etsoc1EdmaChan *c, uint64_t pa, uint64_t len)
{
    if (c->ins_hi == c->ins_lo) {
        c->ins_lo = pa;
    } else if (c->ins_hi != pa) {
        edma_install_flush(c, true);
        c->ins_lo = pa;
    }
    c->ins_hi = pa + len;
}

static void edma_finish(Etsoc1EdmaChan *c, Etsoc1EdmaCs cs)
{
    edma_install_flush(c, false);
    c->state = cs;
    c->pending = false;
    c->waiting = false;
    c->e_left = 0;
    c->run_len = c->run_ok = 0;
    c->stop_at = UINT64_MAX;
    timer_del(c->timer);
}

/* The channel as the host-memory backend sees it (a record's stream) */
static Etsoc1HostMemCtx edma_ctx(Etsoc1EdmaChan *c)
{
    return (Etsoc1HostMemCtx) {
        .chan = (c->write ? WR : RD) * ETSOC1_EDMA_CHANNELS + c->index,
        .write = c->write, .at = c->at,
    };
}

/*
 * The channel's end time as the host-memory backend has it: its own, or
 * a replay's record's (etsoc1_host_mem_end), before anyone sees DONE or
 * ABORT.
 */
static void edma_end_at(Etsoc1EdmaChan *c, bool abort)
{
    Etsoc1HostMemCtx ctx = edma_ctx(c);

    c->at = etsoc1_host_mem_end(c->engine->host_mem, &ctx, abort);
}

static void edma_abort(Etsoc1EdmaChan *c, Etsoc1EdmaErr why, uint64_t addr)
{
    Etsoc1EdmaState *s = c->engine;
    unsigned side = c->write ? WR : RD;

    if (why != EDMA_ERR_STOP) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-edma: %s channel %u aborts: "
                      "%s at 0x%" PRIx64 "\n", dir_name(c->write), c->index,
                      edma_err_name[why], addr);
    }
    switch (why) {
    case EDMA_ERR_LL_FETCH:
        s->err_low[side] |= BIT(R_ERR_LL_FETCH_SHIFT + c->index);
        break;
    case EDMA_ERR_APP:
        s->err_low[side] |= BIT(R_ERR_APP_SHIFT + c->index);
        break;
    case EDMA_ERR_HOST:
        /* A read completion with Completer Abort; posted writes: none. */
        if (side == RD) {
            s->rd_err_high |= BIT(R_RD_ERR_HIGH_CPL_ABORT_SHIFT + c->index);
        }
        break;
    default:
        break;
    }
    trace_etsoc1_edma_abort(dir_name(c->write), c->index,
                            edma_err_name[why], addr);
    edma_end_at(c, true);
    etsoc1_trace_dma_end(c->write, c->index, c->at, c->walked, false);
    edma_finish(c, why == EDMA_ERR_STOP ? EDMA_CS_STOPPED : EDMA_CS_HALTED);
    s->int_status[side] |= BIT(R_INT_ABORT_SHIFT + c->index);
    edma_update_irq(s);
}

static void edma_done(Etsoc1EdmaChan *c)
{
    Etsoc1EdmaState *s = c->engine;

    edma_install_flush(c, false);
    edma_end_at(c, false);
    c->done_raised = true;
    etsoc1_trace_dma_end(c->write, c->index, c->at, c->walked, true);
    s->int_status[c->write ? WR : RD] |= BIT(c->index);
    trace_etsoc1_edma_done(dir_name(c->write), c->index);
    edma_update_irq(s);
}

static void edma_link_kick(Etsoc1EdmaState *s);

/*
 * A STOP doorbell (@quiet: the engine disabled) for running channel @c.
 * On the chip's time it takes effect at the channel's first step at or
 * after the writer's emulated time (a hart's clock, or a host input's
 * stamped time): the steps before that time may not all have been taken
 * yet when the write comes, and which ones had was the host's pace.
 * True if it was left for then (edma_link_run).  Not while the host owes
 * the channel an answer: a host that never answers would keep the stop
 * from ever taking effect (docs/record-replay.md, Limits).
 */
static bool edma_stop_later(Etsoc1EdmaChan *c, bool quiet)
{
    Object *chip = c->engine->chip;
    uint64_t t;

    if (!c->on_chip || c->waiting) {
        return false;
    }
    if (!etsoc1_dma_chip_requester_time(chip, &t)) {
        t = etsoc1_dma_chip_input_time(chip);
        if (!t) {
            return false;   /* no emulated time (gdb, qtest): now */
        }
    }
    if (t < c->stop_at) {
        c->stop_at = t;
        c->stop_quiet = quiet;
    }
    trace_etsoc1_edma_stop_at(dir_name(c->write), c->index, c->stop_at,
                              c->stop_quiet);
    edma_link_kick(c->engine);
    return true;
}

/* The stop that edma_stop_later left for the channel's step at c->at */
static void edma_stop_now(Etsoc1EdmaChan *c)
{
    if (c->stop_quiet) {
        edma_finish(c, EDMA_CS_STOPPED);
    } else {
        edma_abort(c, EDMA_ERR_STOP, c->llp);
    }
}

/*
 * Fetch the next data element at c->llp, following link elements.  Return
 * false when the list ends (cycle bit mismatch) or the channel aborted.
 */
static bool edma_fetch(Etsoc1EdmaChan *c)
{
    Etsoc1EdmaState *s = c->engine;
    uint8_t e[ETSOC1_EDMA_ELEM_SIZE];

    for (;;) {
        uint32_t ctrl, size;
        bool ccs = FIELD_EX32(c->control1, CH_CONTROL1, CCS);

        if (++c->walked > s->max_walk) {
            edma_abort(c, EDMA_ERR_LL_FETCH, c->llp);   /* never ends */
            return false;
        }
        if (!edma_card_ok(s, c->llp, sizeof(e)) ||
            address_space_read(&s->dma_as, c->llp,
                               MEMTXATTRS_UNSPECIFIED, e, sizeof(e))) {
            edma_abort(c, EDMA_ERR_LL_FETCH, c->llp);
            return false;
        }
        ctrl = ldl_le_p(e + ELEM_CTRL);
        size = ldl_le_p(e + ELEM_SIZE);
        trace_etsoc1_edma_elem(dir_name(c->write), c->index, c->llp, ctrl,
                               size, ldq_le_p(e + ELEM_SAR),
                               ldq_le_p(e + ELEM_DAR));
        if (FIELD_EX32(ctrl, CH_CONTROL1, CB) != ccs) {
            return false;           /* not ours yet: the list ends here */
        }
        if (FIELD_EX32(ctrl, CH_CONTROL1, LLP)) {
            c->llp = ldq_le_p(e + ELEM_SAR);
            if (FIELD_EX32(ctrl, CH_CONTROL1, TCB)) {
                c->control1 ^= R_CH_CONTROL1_CCS_MASK;
            }
            continue;
        }
        c->e_sar = ldq_le_p(e + ELEM_SAR);
        c->e_dar = ldq_le_p(e + ELEM_DAR);
        c->e_left = size;
        c->lie = FIELD_EX32(ctrl, CH_CONTROL1, LIE);
        if (size > s->max_elem) {
            edma_abort(c, EDMA_ERR_LL_FETCH, c->llp);
            return false;
        }
        if (!edma_card_ok(s, c->write ? c->e_sar : c->e_dar, size)) {
            edma_abort(c, EDMA_ERR_APP, c->write ? c->e_sar : c->e_dar);
            return false;
        }
        c->llp += ETSOC1_EDMA_ELEM_SIZE;
        return true;
    }
}

/*
 * The piece of the element in progress (c->req_len bytes) has moved: the
 * channel now waits the time those bytes take on the link.  On the chip's
 * time its next step comes that much later in emulated time, however
 * long the host took to answer.  On host time, a piece the host answered
 * @at_once follows the previous one on the link, from c->due on; one
 * answered later starts when the answer came.
 */
static void edma_moved(Etsoc1EdmaChan *c, bool at_once)
{
    uint64_t n = c->req_len;
    int64_t start = at_once ? c->due : qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    double ns;

    trace_etsoc1_edma_move(dir_name(c->write), c->index, c->e_sar, c->e_dar,
                           n);
    c->e_sar += n;
    c->e_dar += n;
    c->e_left -= n;
    c->pending = true;
    ns = n / edma_chan_rate(c);
    c->at += etsoc1_ns_to_cycles(c->engine->timing, ns);
    if (!c->on_chip) {
        c->due = start + (int64_t)ceil(ns);
        timer_mod(c->timer, c->due);
    }
}

/*
 * The host side of a piece has answered, @at_once inside edma_move() or
 * later for a host across a socket.  A completion for a request the
 * channel gave up (stopped, aborted, reset, or a newer request) is
 * dropped.
 */
static void edma_host_answer(Etsoc1EdmaChan *c, uint64_t tag,
                             MemTxResult res, bool at_once, bool in_place)
{
    if (!c->waiting || tag != c->req_tag || c->state != EDMA_CS_RUNNING) {
        return;
    }
    c->waiting = false;
    if (res != MEMTX_OK) {
        edma_abort(c, EDMA_ERR_HOST, c->write ? c->e_dar : c->e_sar);
        return;
    }
    if (!c->write) {
        if (!in_place &&
            address_space_write(&c->engine->dma_as, c->e_dar,
                                MEMTXATTRS_UNSPECIFIED, c->bounce,
                                c->req_len)) {
            edma_abort(c, EDMA_ERR_APP, c->e_dar);
            return;
        }
        edma_install(c, c->e_dar, c->req_len);
    }
    edma_moved(c, at_once);
}

static void edma_host_done(void *opaque, uint64_t tag, MemTxResult res)
{
    Etsoc1EdmaChan *c = opaque;

    edma_host_answer(c, tag, res, false, false);
    edma_install_flush(c, true);
    if (c->on_chip) {
        edma_link_kick(c->engine);      /* the steps after it may go */
    }
}

/*
 * How many bytes of the element in progress this timer run moves from its
 * next piece on: edma_step() goes on at once after each piece whose link
 * time has already passed, for at most @pieces pieces.  Each is priced as
 * edma_moved() will price it; no other channel changes state within the
 * run, so the rate stays the same.  The virtual clock only moves on, so
 * the run moves at least this much (and plans its next pieces again).
 */
static uint64_t edma_run_bytes(Etsoc1EdmaChan *c, unsigned pieces)
{
    Etsoc1EdmaState *s = c->engine;
    double rate = edma_chan_rate(c);
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    int64_t due = c->due;
    uint64_t len = 0;

    while (pieces-- && len < c->e_left) {
        uint64_t n = MIN(c->e_left - len, (uint64_t)s->step_bytes);

        len += n;
        due += (int64_t)ceil(n / rate);
        if (due > now) {
            break;
        }
    }
    return len;
}

/*
 * A piece whose host side answers at once (host memory the host shared,
 * or the loopback) is copied between host memory and the card's RAM
 * directly, once, not through the bounce buffer (which an answer that
 * comes later needs: it must not write card memory after the channel
 * gave up).  Where the backend takes several pieces in one access
 * (etsoc1_host_mem_direct_span), the pieces this timer run will move
 * (@pieces at most) are copied with one access, and the run then prices
 * them one by one (edma_move_ahead).  Return false if that cannot be done
 * (the card side is not RAM in one piece, or the host needs a round
 * trip): nothing was moved.
 */
static bool edma_move_direct(Etsoc1EdmaChan *c, uint64_t n, unsigned pieces)
{
    Etsoc1EdmaState *s = c->engine;
    hwaddr card = c->write ? c->e_sar : c->e_dar, len;
    uint64_t host = c->write ? c->e_dar : c->e_sar;
    uint64_t want = n, done = 0;
    Etsoc1HostMemCtx ctx = edma_ctx(c);
    MemoryRegion *mr;
    hwaddr xlat;
    void *p;
    MemTxResult r;

    if (pieces > 1) {
        want = edma_run_bytes(c, pieces);
    }
    if (want > n) {
        uint64_t span = etsoc1_host_mem_direct_span(s->host_mem, host, want,
                                                    &ctx);

        /* whole pieces: all but the element's last are step-bytes */
        if (span < want) {
            want = MAX(QEMU_ALIGN_DOWN(span, s->step_bytes), n);
        }
    }
    len = want;
    WITH_RCU_READ_LOCK_GUARD() {
        mr = address_space_translate(&s->dma_as, card, &xlat,
                                     &len, !c->write, MEMTXATTRS_UNSPECIFIED);
        if (len < n || !memory_access_is_direct(mr, !c->write)) {
            return false;   /* not RAM: address_space_map would bounce */
        }
    }
    if (len < want) {
        want = MAX(QEMU_ALIGN_DOWN(len, s->step_bytes), n);
    }
    len = want;
    p = address_space_map(&s->dma_as, card, &len, !c->write,
                          MEMTXATTRS_UNSPECIFIED);
    if (!p) {
        return false;
    }
    r = len == want ? etsoc1_host_mem_direct(s->host_mem, c->write, host, p,
                                             want, &done, &ctx)
                    : ETSOC1_HOST_MEM_PENDING;
    /* host -> card: what reached card memory is dirty, if only a part */
    address_space_unmap(&s->dma_as, p, len, !c->write,
                        r == ETSOC1_HOST_MEM_PENDING ? 0 : len);
    if (r == ETSOC1_HOST_MEM_PENDING) {
        return false;
    }
    c->run_len = want;
    c->run_ok = r == MEMTX_OK ? want : MIN(done, want);
    c->run_res = r;
    return true;
}

/*
 * The next piece (c->req_len bytes), which the run's one host access has
 * already moved, or failed on: it moves now, as it would have alone.
 */
static void edma_move_ahead(Etsoc1EdmaChan *c)
{
    uint64_t n = c->req_len;
    MemTxResult r = n <= c->run_ok ? MEMTX_OK : c->run_res;

    c->run_len -= n;
    c->run_ok -= MIN(c->run_ok, n);
    c->waiting = true;
    edma_host_answer(c, c->req_tag, r, true, true);
}

/*
 * Move up to step-bytes of the element in progress, the first of at most
 * @pieces this timer run may move.  The channel goes on in
 * edma_host_done(), at once or when an asynchronous host answers; the
 * data of a card -> host piece has reached the host (and the host has
 * acknowledged it) before the channel goes on.
 */
static void edma_move(Etsoc1EdmaChan *c, unsigned pieces)
{
    Etsoc1EdmaState *s = c->engine;
    uint64_t n = MIN(c->e_left, (uint64_t)s->step_bytes);
    Etsoc1HostMemCtx ctx;
    MemTxResult r;

    c->req_len = n;
    c->req_tag++;
    if (!n) {
        edma_moved(c, true);
        return;
    }
    if (c->run_len < n) {
        c->run_len = c->run_ok = 0;     /* runs plan whole pieces: stale */
    }
    if (c->run_len || edma_move_direct(c, n, pieces)) {
        edma_move_ahead(c);
        return;
    }
    if (c->write &&
        address_space_read(&c->engine->dma_as, c->e_sar,
                           MEMTXATTRS_UNSPECIFIED, c->bounce, n)) {
        edma_abort(c, EDMA_ERR_APP, c->e_sar);
        return;
    }
    c->waiting = true;
    ctx = edma_ctx(c);
    r = etsoc1_host_mem_start(s->host_mem, c->write,
                              c->write ? c->e_dar : c->e_sar, c->bounce, n,
                              edma_host_done, c, c->req_tag, &ctx);
    if (r != ETSOC1_HOST_MEM_PENDING) {
        edma_host_answer(c, c->req_tag, r, true, false);
    }
}

/*
 * One step of a channel: the bytes moved by the previous step have now
 * arrived (their time has passed); finish that element if it is done,
 * then move the next piece, which sets the timer for its time.  Return
 * whether the channel still runs and is not waiting for the host.
 */
static bool edma_step_one(Etsoc1EdmaChan *c, unsigned pieces)
{
    if (c->state != EDMA_CS_RUNNING || c->waiting) {
        return false;
    }
    if (c->pending && !c->e_left) {
        c->pending = false;
        /* the element's last bytes, gathered, replace what it skipped */
        c->skip_lo = c->skip_hi = 0;
        if (c->lie) {
            edma_done(c);
        }
        if (!FIELD_EX32(c->control1, CH_CONTROL1, LLE)) {
            edma_finish(c, EDMA_CS_STOPPED);
            return false;
        }
    }
    if (!c->e_left) {
        if (!FIELD_EX32(c->control1, CH_CONTROL1, LLE) || !edma_fetch(c)) {
            if (c->state == EDMA_CS_RUNNING) {
                /* end of list; sysemu raises DONE here if no LIE did */
                edma_finish(c, EDMA_CS_STOPPED);
                if (!c->done_raised) {
                    edma_done(c);
                }
            }
            return false;
        }
    }
    edma_move(c, pieces);
    return c->state == EDMA_CS_RUNNING && !c->waiting;
}

/*
 * The channel's timer.  A timer that fires late (the main loop was busy:
 * a piece of host memory takes longer to copy than the link time of its
 * bytes) goes on at once with the pieces whose time has passed, as far
 * as EDMA_CATCH_UP pieces, so that the main loop is not entered once a
 * piece; each piece is still priced, and c->at advanced, one by one as
 * edma_moved() does.  Bounded work.
 */
static void edma_step(void *opaque)
{
    Etsoc1EdmaChan *c = opaque;
    unsigned k;

    for (k = 0; k < EDMA_CATCH_UP && edma_step_one(c, EDMA_CATCH_UP - k);
         k++) {
        if (c->due > qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL)) {
            break;
        }
    }
    /* the run moved all it planned (edma_run_bytes): none carries over */
    c->run_len = c->run_ok = 0;
    edma_install_flush(c, true);
}

/* The running channel on the chip's time whose next step comes first */
static Etsoc1EdmaChan *edma_link_next(Etsoc1EdmaState *s)
{
    Etsoc1EdmaChan *best = NULL;
    unsigned side, n;

    /* equal times: write channels first, then by number */
    for (side = WR; side <= RD; side++) {
        for (n = 0; n < ETSOC1_EDMA_CHANNELS; n++) {
            Etsoc1EdmaChan *c = &s->ch[side][n];

            if (c->on_chip && c->state == EDMA_CS_RUNNING &&
                (!best || c->at < best->at)) {
                best = c;
            }
        }
    }
    return best;
}

/* Tell the chip when the next step comes; true if it may be taken now. */
static bool edma_link_publish(Etsoc1EdmaState *s)
{
    Etsoc1EdmaChan *c = edma_link_next(s);

    return etsoc1_dma_chip_link_turn(s->chip, c ? c->at : UINT64_MAX,
                                     c && c->waiting, s->link_timer);
}

static void edma_link_kick(Etsoc1EdmaState *s)
{
    timer_mod_anticipate(s->link_timer,
                         qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
}

/*
 * The channels on the chip's time take their steps (edma_step_one: a
 * piece onto the link, or the end of an element or list) one at a time,
 * the earliest in emulated time first, each once no hart or host input
 * can act before it any more (etsoc1_link_turn): then no doorbell can
 * still start a channel that shares the link with it (edma_busy), and a
 * DONE is seen by harts that are all past it.  A step whose host has not
 * answered yet holds the later ones.  Each piece is one host access (the
 * spans of edma_run_bytes plan by host time).  Bounded work per run; the
 * harts kick the timer when they may have let a step go, and it looks
 * again every EDMA_LINK_LOOK_NS of QEMU_CLOCK_VIRTUAL (which stands still
 * while the VM is stopped, as the steps then do).
 */
static void edma_link_run(void *opaque)
{
    Etsoc1EdmaState *s = opaque;
    Etsoc1EdmaChan *c;
    unsigned k;

    for (k = 0; k < EDMA_CATCH_UP; k++) {
        c = edma_link_next(s);
        if (!c || c->waiting) {
            break;
        }
        if (!edma_link_publish(s)) {
            trace_etsoc1_edma_step(dir_name(c->write), c->index, c->at, false);
            timer_mod(s->link_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                                     EDMA_LINK_LOOK_NS);
            return;
        }
        trace_etsoc1_edma_step(dir_name(c->write), c->index, c->at, true);
        s->link_t = c->at;
        if (c->stop_at <= c->at) {
            edma_stop_now(c);       /* a STOP or disable came before this */
            continue;
        }
        edma_step_one(c, 1);
        c->run_len = c->run_ok = 0;
        edma_install_flush(c, true);
    }
    if (k == EDMA_CATCH_UP) {
        edma_link_kick(s);      /* the main loop runs in between */
    }
    edma_link_publish(s);
}

static void edma_doorbell(Etsoc1EdmaState *s, unsigned side, uint32_t val)
{
    unsigned n = FIELD_EX32(val, DOORBELL, CH);
    Etsoc1EdmaChan *c;

    s->doorbell[side] = val;
    if (n >= ETSOC1_EDMA_CHANNELS) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-edma: %s doorbell for "
                      "channel %u of %u\n", dir_name(side == WR), n,
                      ETSOC1_EDMA_CHANNELS);
        return;
    }
    c = &s->ch[side][n];
    trace_etsoc1_edma_doorbell(dir_name(c->write), n,
                               FIELD_EX32(val, DOORBELL, STOP));
    if (FIELD_EX32(val, DOORBELL, STOP)) {
        if (c->state == EDMA_CS_RUNNING && !edma_stop_later(c, false)) {
            edma_abort(c, EDMA_ERR_STOP, c->llp);
            edma_link_publish(s);
        }
        return;
    }
    if (!FIELD_EX32(s->engine_en[side], ENGINE_EN, EN)) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-edma: %s doorbell %u with the "
                      "engine disabled: ignored\n", dir_name(c->write), n);
        return;
    }
    if (c->state == EDMA_CS_RUNNING) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-edma: %s doorbell %u while "
                      "the channel runs: ignored\n", dir_name(c->write), n);
        return;
    }
    if (!s->host_mem) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-edma: no host attached\n");
    }
    c->state = EDMA_CS_RUNNING;
    c->on_chip = etsoc1_dma_chip_requester_time(s->chip, &c->at);
    if (c->on_chip) {
        /*
         * A hart behind the link's last step (one a device interrupt woke
         * at its old clock) cannot start the channel in its past.
         */
        c->at = MAX(c->at, s->link_t);
    }
    c->start = c->at;
    c->due = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    etsoc1_trace_dma_start(c->write, n, c->at);
    c->pending = false;
    c->done_raised = false;
    c->walked = 0;
    c->e_left = 0;
    if (!FIELD_EX32(c->control1, CH_CONTROL1, LLE)) {
        /* single block: the element is in the channel registers */
        c->e_sar = c->sar;
        c->e_dar = c->dar;
        c->e_left = c->xfer_size;
        c->lie = FIELD_EX32(c->control1, CH_CONTROL1, LIE);
        if (c->xfer_size > s->max_elem) {
            edma_abort(c, EDMA_ERR_LL_FETCH, c->sar);
            return;
        }
        if (!edma_card_ok(s, c->write ? c->sar : c->dar, c->xfer_size)) {
            edma_abort(c, EDMA_ERR_APP, c->write ? c->sar : c->dar);
            return;
        }
    }
    /* The walk runs from a timer, never inside this MMIO write. */
    if (c->on_chip) {
        edma_link_publish(s);
        edma_link_kick(s);
    } else {
        timer_mod(c->timer, c->due);
    }
}

static void edma_engine_en(Etsoc1EdmaState *s, unsigned side, uint32_t val)
{
    unsigned n;

    s->engine_en[side] = val;
    if (FIELD_EX32(val, ENGINE_EN, EN)) {
        return;
    }
    /* Disabling the engine stops its channels without an interrupt. */
    for (n = 0; n < ETSOC1_EDMA_CHANNELS; n++) {
        if (s->ch[side][n].state == EDMA_CS_RUNNING &&
            !edma_stop_later(&s->ch[side][n], true)) {
            edma_finish(&s->ch[side][n], EDMA_CS_STOPPED);
        }
    }
    edma_link_publish(s);
}

static void edma_int_clear(Etsoc1EdmaState *s, unsigned side, uint32_t val)
{
    uint32_t aborts = FIELD_EX32(val, INT, ABORT);

    s->int_status[side] &= ~(val & (R_INT_DONE_MASK | R_INT_ABORT_MASK));
    /* Error status goes with the abort it explains. */
    s->err_low[side] &= ~(aborts | aborts << R_ERR_LL_FETCH_SHIFT);
    if (side == RD) {
        s->rd_err_high &= ~(aborts * 0x01010101u);
    }
    edma_update_irq(s);
}

static uint64_t edma_ch_read(Etsoc1EdmaChan *c, hwaddr off)
{
    switch (off) {
    case A_CH_CONTROL1:
        return FIELD_DP32(c->control1, CH_CONTROL1, CS, c->state);
    case A_CH_CONTROL2:
        return c->control2;
    case A_CH_TRANSFER_SIZE:
        return c->state == EDMA_CS_RUNNING ? c->e_left : c->xfer_size;
    case A_CH_SAR_LO:
        return (uint32_t)c->sar;
    case A_CH_SAR_HI:
        return c->sar >> 32;
    case A_CH_DAR_LO:
        return (uint32_t)c->dar;
    case A_CH_DAR_HI:
        return c->dar >> 32;
    case A_CH_LLP_LO:
        return (uint32_t)c->llp;
    case A_CH_LLP_HI:
        return c->llp >> 32;
    }
    qemu_log_mask(LOG_UNIMP, "etsoc1-edma: channel register 0x%" HWADDR_PRIx
                  "\n", off);
    return 0;
}

static void edma_ch_write(Etsoc1EdmaChan *c, hwaddr off, uint32_t val)
{
    if (c->state == EDMA_CS_RUNNING && off != A_CH_CONTROL2) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-edma: %s channel %u register "
                      "0x%" HWADDR_PRIx " written while it runs: ignored\n",
                      dir_name(c->write), c->index, off);
        return;
    }
    switch (off) {
    case A_CH_CONTROL1:
        c->control1 = val & ~R_CH_CONTROL1_CS_MASK;
        break;
    case A_CH_CONTROL2:
        c->control2 = val;
        break;
    case A_CH_TRANSFER_SIZE:
        c->xfer_size = val;
        break;
    case A_CH_SAR_LO:
        c->sar = deposit64(c->sar, 0, 32, val);
        break;
    case A_CH_SAR_HI:
        c->sar = deposit64(c->sar, 32, 32, val);
        break;
    case A_CH_DAR_LO:
        c->dar = deposit64(c->dar, 0, 32, val);
        break;
    case A_CH_DAR_HI:
        c->dar = deposit64(c->dar, 32, 32, val);
        break;
    case A_CH_LLP_LO:
        c->llp = deposit64(c->llp, 0, 32, val);
        break;
    case A_CH_LLP_HI:
        c->llp = deposit64(c->llp, 32, 32, val);
        break;
    default:
        qemu_log_mask(LOG_UNIMP, "etsoc1-edma: channel register 0x%"
                      HWADDR_PRIx "\n", off);
    }
}

/* The channel block at @addr, or NULL; *off is the offset inside it. */
static Etsoc1EdmaChan *edma_chan_at(Etsoc1EdmaState *s, hwaddr addr,
                                    hwaddr *off)
{
    hwaddr rel, n;

    if (addr < CH_BASE) {
        return NULL;
    }
    rel = addr - CH_BASE;
    n = rel / CH_STRIDE;
    if (n >= ETSOC1_EDMA_CHANNELS) {
        return NULL;
    }
    *off = rel % CH_RD_OFFSET;
    return &s->ch[(rel % CH_STRIDE) >= CH_RD_OFFSET ? RD : WR][n];
}

/*
 * Causality (docs/timing.md): a hart that reads the DONE or ABORT bit of a
 * channel learns of its end, so its clock moves to at least that time.
 */
static void edma_observe(Etsoc1EdmaState *s, unsigned side, uint32_t status)
{
    unsigned n;

    for (n = 0; n < ETSOC1_EDMA_CHANNELS; n++) {
        if (status & (BIT(n) | BIT(R_INT_ABORT_SHIFT + n))) {
            etsoc1_dma_chip_requester_sees(s->chip, s->ch[side][n].at);
        }
    }
}

static uint64_t edma_read(void *opaque, hwaddr addr, unsigned size)
{
    Etsoc1EdmaState *s = opaque;
    Etsoc1EdmaChan *c;
    hwaddr off;
    uint64_t val = 0;

    switch (addr) {
    case A_CTRL:
        val = ETSOC1_EDMA_CHANNELS << R_CTRL_NUM_WR_SHIFT |
              ETSOC1_EDMA_CHANNELS << R_CTRL_NUM_RD_SHIFT;
        break;
    case A_WR_ENGINE_EN:
    case A_RD_ENGINE_EN:
        val = s->engine_en[addr == A_RD_ENGINE_EN];
        break;
    case A_WR_DOORBELL:
    case A_RD_DOORBELL:
        val = s->doorbell[addr == A_RD_DOORBELL];
        break;
    case A_WR_ARB_LOW:
    case A_WR_ARB_HIGH:
        val = s->arb[(addr - A_WR_ARB_LOW) / 4];
        break;
    case A_RD_ARB_LOW:
    case A_RD_ARB_HIGH:
        val = s->arb[2 + (addr - A_RD_ARB_LOW) / 4];
        break;
    case A_WR_INT_STATUS:
    case A_RD_INT_STATUS:
        val = s->int_status[addr == A_RD_INT_STATUS];
        edma_observe(s, addr == A_RD_INT_STATUS, val);
        break;
    case A_WR_INT_MASK:
    case A_RD_INT_MASK:
        val = s->int_mask[addr == A_RD_INT_MASK];
        break;
    case A_WR_INT_CLEAR:
    case A_RD_INT_CLEAR:
    case A_CTRL_DATA_ARB_PRIOR:
        break;
    case A_WR_ERR_STATUS:
    case A_RD_ERR_STATUS_LOW:
        val = s->err_low[addr == A_RD_ERR_STATUS_LOW];
        break;
    case A_RD_ERR_STATUS_HIGH:
        val = s->rd_err_high;
        break;
    default:
        c = edma_chan_at(s, addr, &off);
        if (c) {
            val = edma_ch_read(c, off);
        } else {
            qemu_log_mask(LOG_UNIMP, "etsoc1-edma: read of register 0x%"
                          HWADDR_PRIx "\n", addr);
        }
    }
    trace_etsoc1_edma_read(addr, val);
    return val;
}

static void edma_write(void *opaque, hwaddr addr, uint64_t val,
                       unsigned size)
{
    Etsoc1EdmaState *s = opaque;
    Etsoc1EdmaChan *c;
    hwaddr off;

    trace_etsoc1_edma_write(addr, val);
    switch (addr) {
    case A_WR_ENGINE_EN:
    case A_RD_ENGINE_EN:
        edma_engine_en(s, addr == A_RD_ENGINE_EN, val);
        break;
    case A_WR_DOORBELL:
    case A_RD_DOORBELL:
        edma_doorbell(s, addr == A_RD_DOORBELL, val);
        break;
    case A_WR_ARB_LOW:
    case A_WR_ARB_HIGH:
        s->arb[(addr - A_WR_ARB_LOW) / 4] = val;
        break;
    case A_RD_ARB_LOW:
    case A_RD_ARB_HIGH:
        s->arb[2 + (addr - A_RD_ARB_LOW) / 4] = val;
        break;
    case A_WR_INT_MASK:
    case A_RD_INT_MASK:
        s->int_mask[addr == A_RD_INT_MASK] =
            val & (R_INT_DONE_MASK | R_INT_ABORT_MASK);
        edma_update_irq(s);
        break;
    case A_WR_INT_CLEAR:
    case A_RD_INT_CLEAR:
        edma_int_clear(s, addr == A_RD_INT_CLEAR, val);
        break;
    case A_CTRL:
    case A_CTRL_DATA_ARB_PRIOR:
    case A_WR_INT_STATUS:
    case A_RD_INT_STATUS:
    case A_WR_ERR_STATUS:
    case A_RD_ERR_STATUS_LOW:
    case A_RD_ERR_STATUS_HIGH:
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-edma: write to read-only "
                      "register 0x%" HWADDR_PRIx "\n", addr);
        break;
    default:
        c = edma_chan_at(s, addr, &off);
        if (c) {
            edma_ch_write(c, off, val);
        } else {
            qemu_log_mask(LOG_UNIMP, "etsoc1-edma: write of register 0x%"
                          HWADDR_PRIx "\n", addr);
        }
    }
}

static const MemoryRegionOps edma_ops = {
    .read = edma_read,
    .write = edma_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 4, .max_access_size = 4 },
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

static void edma_reset(DeviceState *dev)
{
    Etsoc1EdmaState *s = ETSOC1_EDMA(dev);
    unsigned side, n;

    for (side = WR; side <= RD; side++) {
        for (n = 0; n < ETSOC1_EDMA_CHANNELS; n++) {
            Etsoc1EdmaChan *c = &s->ch[side][n];

            timer_del(c->timer);
            c->control1 = c->control2 = c->xfer_size = 0;
            c->sar = c->dar = c->llp = 0;
            c->state = EDMA_CS_IDLE;
            c->pending = c->lie = c->done_raised = false;
            c->waiting = false;
            c->walked = 0;
            c->e_sar = c->e_dar = c->e_left = 0;
            c->ins_lo = c->ins_hi = 0;
            c->skip_lo = c->skip_hi = 0;
            c->run_len = c->run_ok = 0;
            c->on_chip = false;
            c->start = 0;
            c->stop_at = UINT64_MAX;
            c->stop_quiet = false;
        }
        s->engine_en[side] = 0;
        s->doorbell[side] = 0;
        s->int_status[side] = 0;
        s->int_mask[side] = 0;
        s->err_low[side] = 0;
    }
    s->rd_err_high = 0;
    memset(s->arb, 0, sizeof(s->arb));
    s->link_t = 0;
    timer_del(s->link_timer);
    edma_link_publish(s);
    edma_update_irq(s);
}

static void edma_realize(DeviceState *dev, Error **errp)
{
    Etsoc1EdmaState *s = ETSOC1_EDMA(dev);
    unsigned side, n;

    if (!s->timing || !s->dma_mr) {
        error_setg(errp, "'timing' and 'dma' links must be set");
        return;
    }
    if (!s->step_bytes || s->step_bytes > 16 * MiB) {
        error_setg(errp, "step-bytes=%u: must be 1 byte to 16 MiB",
                   s->step_bytes);
        return;
    }
    memory_region_init_io(&s->mmio, OBJECT(s), &edma_ops, s, "etsoc1.edma",
                          EDMA_MMIO_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(s), &s->mmio);
    address_space_init(&s->dma_as, s->dma_mr, "etsoc1-edma");
    qdev_init_gpio_out(dev, s->irq, ARRAY_SIZE(s->irq));
    s->link_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, edma_link_run, s);
    for (side = WR; side <= RD; side++) {
        for (n = 0; n < ETSOC1_EDMA_CHANNELS; n++) {
            Etsoc1EdmaChan *c = &s->ch[side][n];

            c->engine = s;
            c->index = n;
            c->write = side == WR;
            c->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, edma_step, c);
            c->bounce = g_malloc(s->step_bytes);
        }
    }
}

static void edma_unrealize(DeviceState *dev)
{
    Etsoc1EdmaState *s = ETSOC1_EDMA(dev);
    unsigned side, n;

    address_space_destroy(&s->dma_as);
    timer_free(s->link_timer);
    for (side = WR; side <= RD; side++) {
        for (n = 0; n < ETSOC1_EDMA_CHANNELS; n++) {
            timer_free(s->ch[side][n].timer);
            g_free(s->ch[side][n].bounce);
        }
    }
}

/* A restored channel's pieces follow on from its timer's deadline. */
static int edma_chan_post_load(void *opaque, int version_id)
{
    Etsoc1EdmaChan *c = opaque;
    int64_t due = timer_expire_time_ns(c->timer);

    c->due = due >= 0 ? due : qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    return 0;
}

static const VMStateDescription vmstate_edma_chan = {
    .name = "etsoc1-edma-chan",
    .version_id = 4,
    .minimum_version_id = 1,
    .post_load = edma_chan_post_load,
    .fields = (VMStateField[]) {
        VMSTATE_TIMER_PTR(timer, Etsoc1EdmaChan),
        VMSTATE_UINT32(control1, Etsoc1EdmaChan),
        VMSTATE_UINT32(control2, Etsoc1EdmaChan),
        VMSTATE_UINT32(xfer_size, Etsoc1EdmaChan),
        VMSTATE_UINT64(sar, Etsoc1EdmaChan),
        VMSTATE_UINT64(dar, Etsoc1EdmaChan),
        VMSTATE_UINT64(llp, Etsoc1EdmaChan),
        VMSTATE_UINT8(state, Etsoc1EdmaChan),
        VMSTATE_BOOL(pending, Etsoc1EdmaChan),
        VMSTATE_BOOL(lie, Etsoc1EdmaChan),
        VMSTATE_BOOL(done_raised, Etsoc1EdmaChan),
        VMSTATE_UINT32(walked, Etsoc1EdmaChan),
        VMSTATE_UINT64(e_sar, Etsoc1EdmaChan),
        VMSTATE_UINT64(e_dar, Etsoc1EdmaChan),
        VMSTATE_UINT64(e_left, Etsoc1EdmaChan),
        VMSTATE_UINT64_V(at, Etsoc1EdmaChan, 2),
        VMSTATE_BOOL_V(on_chip, Etsoc1EdmaChan, 3),
        VMSTATE_UINT64_V(start, Etsoc1EdmaChan, 3),
        VMSTATE_UINT64_V(stop_at, Etsoc1EdmaChan, 4),
        VMSTATE_BOOL_V(stop_quiet, Etsoc1EdmaChan, 4),
        VMSTATE_END_OF_LIST()
    }
};

/* The chip learns the restored link's next step, which then runs. */
static int edma_post_load(void *opaque, int version_id)
{
    Etsoc1EdmaState *s = opaque;

    edma_link_publish(s);
    edma_link_kick(s);
    return 0;
}

static const VMStateDescription vmstate_edma = {
    .name = TYPE_ETSOC1_EDMA,
    .version_id = 4,
    .minimum_version_id = 1,
    .post_load = edma_post_load,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT_2DARRAY(ch, Etsoc1EdmaState, 2, ETSOC1_EDMA_CHANNELS,
                               1, vmstate_edma_chan, Etsoc1EdmaChan),
        VMSTATE_UINT32_ARRAY(engine_en, Etsoc1EdmaState, 2),
        VMSTATE_UINT32_ARRAY(doorbell, Etsoc1EdmaState, 2),
        VMSTATE_UINT32_ARRAY(int_status, Etsoc1EdmaState, 2),
        VMSTATE_UINT32_ARRAY(int_mask, Etsoc1EdmaState, 2),
        VMSTATE_UINT32_ARRAY(err_low, Etsoc1EdmaState, 2),
        VMSTATE_UINT32(rd_err_high, Etsoc1EdmaState),
        VMSTATE_UINT32_ARRAY(arb, Etsoc1EdmaState, 4),
        VMSTATE_UINT64_V(link_t, Etsoc1EdmaState, 3),
        VMSTATE_END_OF_LIST()
    }
};

static Property edma_properties[] = {
    DEFINE_PROP_LINK("dma", Etsoc1EdmaState, dma_mr, TYPE_MEMORY_REGION,
                     MemoryRegion *),
    DEFINE_PROP_LINK("chip", Etsoc1EdmaState, chip, TYPE_ETSOC1_DMA_CHIP,
                     Object *),
    DEFINE_PROP_LINK("timing", Etsoc1EdmaState, timing, TYPE_ETSOC1_TIMING,
                     Etsoc1Timing *),
    DEFINE_PROP_LINK("host-mem", Etsoc1EdmaState, host_mem,
                     TYPE_ETSOC1_HOST_MEM, Object *),
    DEFINE_PROP_UINT64("dram-base", Etsoc1EdmaState, dram_base,
                       0x8000000000ULL),
    DEFINE_PROP_UINT64("dram-size", Etsoc1EdmaState, dram_size, 0),
    DEFINE_PROP_UINT64("scp-base", Etsoc1EdmaState, scp_base, 0x80000000),
    DEFINE_PROP_UINT32("scp-shires", Etsoc1EdmaState, scp_shires, 0),
    DEFINE_PROP_UINT64("scp-window", Etsoc1EdmaState, scp_window, 8 * MiB),
    DEFINE_PROP_UINT64("scp-size", Etsoc1EdmaState, scp_size, 4 * MiB),
    /* firmware: 8 data elements and a link; far more means a loop */
    DEFINE_PROP_UINT32("max-walk", Etsoc1EdmaState, max_walk, 1024),
    DEFINE_PROP_UINT64("max-element", Etsoc1EdmaState, max_elem, 128 * MiB),
    DEFINE_PROP_UINT32("step-bytes", Etsoc1EdmaState, step_bytes, 64 * KiB),
    DEFINE_PROP_BOOL("same-stream", Etsoc1EdmaState, same_stream, false),
    DEFINE_PROP_END_OF_LIST(),
};

static void edma_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);

    dc->desc = "ET-SoC-1 PCIe embedded DMA (DesignWare eDMA)";
    dc->realize = edma_realize;
    dc->unrealize = edma_unrealize;
    dc->reset = edma_reset;
    dc->vmsd = &vmstate_edma;
    dc->user_creatable = false;
    device_class_set_props(dc, edma_properties);
}

/* ---- the chip behind the eDMA (no chip: nothing to tell, no requester) -- */

uint64_t etsoc1_dma_chip_written(Object *chip, uint64_t pa, uint64_t len,
                                 uint64_t more)
{
    return chip ? ETSOC1_DMA_CHIP_GET_CLASS(chip)->lines_written(
                      ETSOC1_DMA_CHIP(chip), pa, len, more) : pa;
}

bool etsoc1_dma_chip_requester_time(Object *chip, uint64_t *t)
{
    *t = 0;
    return chip && ETSOC1_DMA_CHIP_GET_CLASS(chip)->requester_time(
                       ETSOC1_DMA_CHIP(chip), t);
}

void etsoc1_dma_chip_requester_sees(Object *chip, uint64_t t)
{
    if (chip) {
        ETSOC1_DMA_CHIP_GET_CLASS(chip)->requester_sees(ETSOC1_DMA_CHIP(chip),
                                                        t);
    }
}

bool etsoc1_dma_chip_input_post(Object *chip, const char *what,
                                uint64_t addr, uint64_t len,
                                void (*fn)(void *opaque, uint64_t t),
                                void *opaque)
{
    return chip && ETSOC1_DMA_CHIP_GET_CLASS(chip)->input_post(
        ETSOC1_DMA_CHIP(chip), what, addr, len, fn, opaque);
}

uint64_t etsoc1_dma_chip_input_time(Object *chip)
{
    return chip ? ETSOC1_DMA_CHIP_GET_CLASS(chip)->input_time(
                      ETSOC1_DMA_CHIP(chip)) : 0;
}

void etsoc1_dma_chip_host_observe(Object *chip, uint64_t last_t)
{
    if (chip) {
        ETSOC1_DMA_CHIP_GET_CLASS(chip)->host_observe(ETSOC1_DMA_CHIP(chip),
                                                      last_t);
    }
}

bool etsoc1_dma_chip_link_turn(Object *chip, uint64_t t, bool host_wait,
                               QEMUTimer *kick)
{
    return !chip || ETSOC1_DMA_CHIP_GET_CLASS(chip)->link_turn(
                        ETSOC1_DMA_CHIP(chip), t, host_wait, kick);
}

/* ---- host memory backends ------------------------------------------------ */

MemTxResult etsoc1_host_mem_read(Object *hm, uint64_t addr, void *buf,
                                 uint64_t len, const Etsoc1HostMemCtx *ctx)
{
    Etsoc1HostMemClass *k;

    if (!hm) {
        return MEMTX_DECODE_ERROR;
    }
    k = ETSOC1_HOST_MEM_GET_CLASS(hm);
    if (!k->read) {
        return MEMTX_ERROR;     /* an asynchronous-only backend */
    }
    return k->read(ETSOC1_HOST_MEM(hm), addr, buf, len, ctx);
}

MemTxResult etsoc1_host_mem_write(Object *hm, uint64_t addr, const void *buf,
                                  uint64_t len, const Etsoc1HostMemCtx *ctx)
{
    Etsoc1HostMemClass *k;

    if (!hm) {
        return MEMTX_DECODE_ERROR;
    }
    k = ETSOC1_HOST_MEM_GET_CLASS(hm);
    if (!k->write) {
        return MEMTX_ERROR;
    }
    return k->write(ETSOC1_HOST_MEM(hm), addr, buf, len, ctx);
}

MemTxResult etsoc1_host_mem_start(Object *hm, bool write, uint64_t addr,
                                  void *buf, uint64_t len,
                                  Etsoc1HostMemDone *done, void *opaque,
                                  uint64_t tag, const Etsoc1HostMemCtx *ctx)
{
    Etsoc1HostMemClass *k;

    if (!hm) {
        return MEMTX_DECODE_ERROR;
    }
    k = ETSOC1_HOST_MEM_GET_CLASS(hm);
    if (write && k->start_write) {
        return k->start_write(ETSOC1_HOST_MEM(hm), addr, buf, len, done,
                              opaque, tag, ctx);
    }
    if (!write && k->start_read) {
        return k->start_read(ETSOC1_HOST_MEM(hm), addr, buf, len, done,
                             opaque, tag, ctx);
    }
    return write ? etsoc1_host_mem_write(hm, addr, buf, len, ctx)
                 : etsoc1_host_mem_read(hm, addr, buf, len, ctx);
}

MemTxResult etsoc1_host_mem_direct(Object *hm, bool write, uint64_t addr,
                                   void *buf, uint64_t len, uint64_t *done,
                                   const Etsoc1HostMemCtx *ctx)
{
    Etsoc1HostMemClass *k;
    MemTxResult r;

    *done = 0;
    if (!hm) {
        return MEMTX_DECODE_ERROR;
    }
    k = ETSOC1_HOST_MEM_GET_CLASS(hm);
    if (k->direct) {
        return k->direct(ETSOC1_HOST_MEM(hm), write, addr, buf, len, done,
                         ctx);
    }
    if ((write && k->start_write) || (!write && k->start_read)) {
        return ETSOC1_HOST_MEM_PENDING;
    }
    /* a synchronous backend: always at once */
    r = write ? etsoc1_host_mem_write(hm, addr, buf, len, ctx)
              : etsoc1_host_mem_read(hm, addr, buf, len, ctx);
    *done = r == MEMTX_OK ? len : 0;
    return r;
}

uint64_t etsoc1_host_mem_end(Object *hm, const Etsoc1HostMemCtx *ctx,
                             bool abort)
{
    Etsoc1HostMemClass *k;

    if (!hm) {
        return ctx->at;
    }
    k = ETSOC1_HOST_MEM_GET_CLASS(hm);
    return k->end ? k->end(ETSOC1_HOST_MEM(hm), ctx, abort) : ctx->at;
}

uint64_t etsoc1_host_mem_direct_span(Object *hm, uint64_t addr,
                                     uint64_t len,
                                     const Etsoc1HostMemCtx *ctx)
{
    Etsoc1HostMemClass *k;

    if (!hm) {
        return 0;
    }
    k = ETSOC1_HOST_MEM_GET_CLASS(hm);
    return k->direct_span ? MIN(k->direct_span(ETSOC1_HOST_MEM(hm), addr,
                                                len, ctx), len) : 0;
}

static MemTxResult loopback_read(Etsoc1HostMem *hm, uint64_t addr, void *buf,
                                 uint64_t len, const Etsoc1HostMemCtx *ctx)
{
    Etsoc1HostLoopback *lb = ETSOC1_HOST_LOOPBACK(hm);

    if (!memory_region_size(&lb->mr) || addr > lb->size ||
        len > lb->size - addr) {
        trace_etsoc1_host_loopback("read", addr, len, false);
        return MEMTX_DECODE_ERROR;
    }
    memcpy(buf, (uint8_t *)memory_region_get_ram_ptr(&lb->mr) + addr, len);
    trace_etsoc1_host_loopback("read", addr, len, true);
    return MEMTX_OK;
}

static MemTxResult loopback_write(Etsoc1HostMem *hm, uint64_t addr,
                                  const void *buf, uint64_t len,
                                  const Etsoc1HostMemCtx *ctx)
{
    Etsoc1HostLoopback *lb = ETSOC1_HOST_LOOPBACK(hm);

    if (!memory_region_size(&lb->mr) || addr > lb->size ||
        len > lb->size - addr) {
        trace_etsoc1_host_loopback("write", addr, len, false);
        return MEMTX_DECODE_ERROR;
    }
    memcpy((uint8_t *)memory_region_get_ram_ptr(&lb->mr) + addr, buf, len);
    trace_etsoc1_host_loopback("write", addr, len, true);
    return MEMTX_OK;
}

/*
 * Allocate the buffer once "size" is set.  Host memory is not card state:
 * it does not migrate.
 */
void etsoc1_host_loopback_init_ram(Etsoc1HostLoopback *lb, Error **errp)
{
    memory_region_init_ram_nomigrate(&lb->mr, OBJECT(lb),
                                     "etsoc1.host-loopback", lb->size, errp);
}

static void loopback_class_init(ObjectClass *oc, void *data)
{
    Etsoc1HostMemClass *k = ETSOC1_HOST_MEM_CLASS(oc);

    k->read = loopback_read;
    k->write = loopback_write;
}

static void loopback_init(Object *obj)
{
    Etsoc1HostLoopback *lb = ETSOC1_HOST_LOOPBACK(obj);

    lb->size = ETSOC1_LOOPBACK_DEFAULT;
    object_property_add_uint64_ptr(obj, "size", &lb->size,
                                   OBJ_PROP_FLAG_READWRITE);
}

static const TypeInfo edma_types[] = {
    {
        .name = TYPE_ETSOC1_DMA_CHIP,
        .parent = TYPE_INTERFACE,
        .class_size = sizeof(Etsoc1DmaChipClass),
    }, {
        .name = TYPE_ETSOC1_HOST_MEM,
        .parent = TYPE_INTERFACE,
        .class_size = sizeof(Etsoc1HostMemClass),
    }, {
        .name = TYPE_ETSOC1_HOST_LOOPBACK,
        .parent = TYPE_OBJECT,
        .instance_size = sizeof(Etsoc1HostLoopback),
        .instance_init = loopback_init,
        .class_init = loopback_class_init,
        .interfaces = (InterfaceInfo[]) {
            { TYPE_ETSOC1_HOST_MEM },
            { }
        },
    }, {
        .name = TYPE_ETSOC1_EDMA,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(Etsoc1EdmaState),
        .class_init = edma_class_init,
    },
};

DEFINE_TYPES(edma_types)
