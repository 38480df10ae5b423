/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1 minion shire: 64 harts, the L2 scratchpad and the
 * shire's ESR (Esperanto System Register) space
 *
 * Modelled from isa.md section 2 ("ESR address encoding") and the sysemu
 * behaviour summarised in docs/esr.md.  An ESR address is
 *   [32] 1 | [31:30] PP | [29:22] shire | [21:20] subregion | ...
 * Each register exists only at its own PP.  Access rules, in the order the
 * chip applies them:
 *  - not 8 bytes or not 8-aligned, or PP above the hart's privilege, or
 *    PP = debug (service processor only): synchronous access fault;
 *  - an offset with no register (including another PP's alias), a write to
 *    a read-only register, a read of a write-only one: the access retires,
 *    the hart gets the bus-error interrupt (23) and mbusaddr.
 * Requesters that are not minions (qtest, gdb, a future service processor)
 * have every privilege.
 *
 * Not modelled yet (LOG_UNIMP, read as zero): message ports and debug
 * registers of the hart subregion, the shire cache block (but for its
 * cache-op state machine control, which reads idle) and RBOX blocks,
 * power/PLL control.  The thread disable masks are
 * stored; harts start released (docs/choices.md).
 */

#include "qemu/osdep.h"
#include "exec/exec-all.h"
#include "sysemu/tcg.h"
#include <math.h>
#include "qemu/log.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "qapi/visitor.h"
#include "sysemu/reset.h"
#include "hw/etsoc1/etsoc1-timing.h"
#include "hw/etsoc1/etsoc1.h"
#include "hw/etsoc1/etsoc1-trace.h"
#include "trace.h"

/* Subregion, address bits [21:20] of the shire's window. */
FIELD(ESR, SUBREGION, 20, 2)
FIELD(ESR, HART, 12, 8)         /* hart subregion: hart index */
FIELD(ESR, HART_REG, 0, 12)
FIELD(ESR, NEIGH, 16, 4)        /* neighbourhood subregion */
FIELD(ESR, NEIGH_REG, 0, 16)
FIELD(ESR, OTHER_BLOCK, 17, 3)  /* "other" subregion: which block */
FIELD(ESR, OTHER_REG, 0, 17)
FIELD(ESR, CACHE_BANK, 13, 4)   /* shire cache block: bank, 0xf = all */
FIELD(ESR, CACHE_REG, 0, 13)

enum {
    ESR_SUB_HART = 0,
    ESR_SUB_NEIGH = 1,
    ESR_SUB_OTHER = 3,
};
enum {
    ESR_OTHER_CACHE = 0,
    ESR_OTHER_RBOX = 1,
    ESR_OTHER_SHIRE = 2,
};
#define ESR_NEIGH_BROADCAST 0xf
#define ESR_CACHE_BANK_BROADCAST 0xf
/* Offset of the shire_other block in a shire's ESR window. */
#define ESR_OTHER_BASE \
    (ESR_SUB_OTHER << R_ESR_SUBREGION_SHIFT | \
     ESR_OTHER_SHIRE << R_ESR_OTHER_BLOCK_SHIFT)

/* Neighbourhood registers (offset within one neighbourhood). */
REG64(NEIGH_DUMMY1, 0x08)
REG64(NEIGH_MINION_BOOT, 0x18)
REG64(NEIGH_MPROT, 0x20)
REG64(NEIGH_DUMMY3, 0x30)
REG64(NEIGH_IPI_REDIRECT_PC, 0x40)
REG64(NEIGH_CHICKEN, 0x70)
REG64(NEIGH_ICACHE_ERR_LOG_ADDRESS, 0x88)

/* shire_other registers. */
REG64(MINION_FEATURE, 0x000)
REG64(SHIRE_CONFIG, 0x008)
REG64(THREAD1_DISABLE, 0x010)
REG64(SHIRE_CACHE_BUILD_CONFIG, 0x018)
REG64(SHIRE_CACHE_REVISION_ID, 0x020)
REG64(IPI_REDIRECT_TRIGGER, 0x080)
REG64(IPI_REDIRECT_FILTER, 0x088)
REG64(IPI_TRIGGER, 0x090)
REG64(IPI_TRIGGER_CLEAR, 0x098)
REG64(FCC_CREDINC, 0x0c0)              /* 4 registers: thread * 2 + counter */
REG64(FAST_LOCAL_BARRIER, 0x100)       /* 32 registers */
REG64(SHIRE_POWER, 0x218)              /* power, PLL, DLL, clock gating... */
REG64(THREAD0_DISABLE, 0x240)
REG64(SHIRE_COOP_MODE, 0x290)
REG64(BROADCAST_DATA, 0x1fff0)
REG64(BROADCAST, 0x1fff8)

/*
 * Shire cache registers (offset within one bank): the SRAM's partition
 * (below) and the cache-op state machine's control.  The model has no
 * coalescing buffer and no L2 contents to operate on (stores reach memory
 * at once), so an operation is done the moment it is started, and the
 * state field reads idle.
 */
REG64(SC_IDX_COP_SM_CTL, 0x030)
REG64(SC_IDX_COP_SM_CTL_USER, 0x100)
    FIELD(SC_IDX_COP_SM_CTL_USER, STATE, 24, 8)
#define SC_COP_SM_IDLE 4

/*
 * The partition of the shire's 4 MiB of SRAM (docs/research/cache-facts.md
 * 3): sc_scp/l2/l3_cache_ctl give, per bank, the first set and the number
 * of sets of the region (a set: 1 KiB of a bank, 4 KiB of the shire) and
 * its index masks.  Only the L2's size acts (the L2 tags, etsoc1-l1.c);
 * the rest is held.  Reset values: Esperanto's simulator's, the
 * firmware's default split (2.5 MiB scratchpad, 0.5 MiB L2, 1 MiB L3).
 */
REG64(SC_L2_CACHE_CTL, 0x018)
REG64(SC_L3_CACHE_CTL, 0x020)
REG64(SC_SCP_CACHE_CTL, 0x028)
FIELD(SC_CACHE_CTL, TAG_MASK, 0, 12)
FIELD(SC_CACHE_CTL, SET_MASK, 16, 12)
FIELD(SC_CACHE_CTL, SET_SIZE, 32, 13)
FIELD(SC_CACHE_CTL, SET_BASE, 48, 12)
#define SC_CACHE_CTL_BITS (R_SC_CACHE_CTL_TAG_MASK_MASK | \
                           R_SC_CACHE_CTL_SET_MASK_MASK | \
                           R_SC_CACHE_CTL_SET_SIZE_MASK | \
                           R_SC_CACHE_CTL_SET_BASE_MASK)
#define SC_SET_BYTES (4 * KiB)      /* a set of the four banks */
static const uint64_t sc_ctl_reset[ETSOC1_SC_REGIONS] = {
    [ETSOC1_SC_SCP] = 0x0000028003ff01ffULL,
    [ETSOC1_SC_L2] = 0x02800080007f007fULL,     /* size: l2-size */
    [ETSOC1_SC_L3] = 0x0300010000ff00ffULL,
};

/* Reset values (sysemu cold/warm reset; docs/esr.md). */
#define MINION_FEATURE_RESET     0x01
#define SHIRE_CONFIG_RESET       0x0392a000
#define BUILD_CONFIG_VALUE       0x2040040404040400ULL
#define REVISION_ID_VALUE        0x0000000900000001ULL

typedef enum {
    ESR_RW,
    ESR_RO,
    ESR_W_RZ,   /* writes act, reads return zero */
    ESR_UNIMP,  /* known register, behaviour not modelled */
} Etsoc1EsrAccess;

/* Where an ESR access lands: which register of which neighbourhood */
typedef struct Etsoc1EsrAt {
    Etsoc1ShireState *s;
    unsigned pp;        /* the privilege window it came through */
    unsigned neigh;     /* neighbourhood registers: which neighbourhood */
    unsigned idx;       /* arrays of registers: which one */
} Etsoc1EsrAt;

/*
 * A register: where it is, who may reach it, and what it does, in one
 * row.  A register that only holds a value names its field (@field, the
 * offset of a uint64_t in Etsoc1ShireState, one per neighbourhood for
 * those registers) and the bits a write keeps (@mask); one that acts has
 * @read and/or @write.  etsoc1_esr_table_check() makes sure that every
 * row that can be written says how.
 */
typedef struct Etsoc1EsrReg {
    const char *name;
    uint32_t offset;
    uint8_t count;
    uint8_t pp;
    Etsoc1EsrAccess access;
    ptrdiff_t field;    /* ESR_NO_FIELD: none */
    uint64_t mask;
    uint64_t (*read)(const Etsoc1EsrAt *at);
    void (*write)(const Etsoc1EsrAt *at, uint64_t val);
} Etsoc1EsrReg;

#define ESR_NO_FIELD (-1)

/* A register that holds a value: @fld of the shire, @msk of a write kept */
#define ESR_VAL(n, off, p, acc, fld, msk) { \
    .name = n, .offset = off, .count = 1, .pp = ETSOC1_PP_##p, \
    .access = acc, .field = offsetof(Etsoc1ShireState, fld), .mask = msk }
/* A register whose reads and writes act: @rd and @wr (either may be NULL) */
#define ESR_FN(n, off, cnt, p, acc, rd, wr) { \
    .name = n, .offset = off, .count = cnt, .pp = ETSOC1_PP_##p, \
    .access = acc, .field = ESR_NO_FIELD, .read = rd, .write = wr }

/* Find the register at @off seen at privilege @pp; *idx is the array index. */
static const Etsoc1EsrReg *esr_lookup(const Etsoc1EsrReg *regs, size_t n,
                                      uint32_t off, unsigned pp, unsigned *idx)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (regs[i].pp == pp && off >= regs[i].offset &&
            off < regs[i].offset + 8 * regs[i].count) {
            *idx = (off - regs[i].offset) / 8;
            return &regs[i];
        }
    }
    return NULL;
}

/* ---- credits and IPIs ---------------------------------------------------- */

/*
 * Deliver credit event @ev (dst = hart id) on @counter.  Returns false on
 * a 16-bit wrap, which also sets tensor_error[3].  Called with the BQL held.
 */
bool etsoc1_shire_credit(Etsoc1ShireState *s, unsigned counter,
                         const Etsoc1Event *ev)
{
    unsigned hart = ev->dst % ETSOC1_HARTS_PER_SHIRE;
    Etsoc1HartEt *et = &s->hart[hart].et_state;
    uint16_t old = qatomic_read(&et->credit.fcc[counter]), seen;

    etsoc1_event_trace(ev);
    etsoc1_fcc_arrive(et, counter, ev->time);   /* before the credit shows */
    while ((seen = qatomic_cmpxchg(&et->credit.fcc[counter], old,
                                   (uint16_t)(old + 1))) != old) {
        old = seen;
    }
    trace_etsoc1_shire_credit(s->shire_id, hart, counter, (uint16_t)(old + 1));
    etsoc1_trace_credits(ev->dst, counter, ev->time, (uint16_t)(old + 1));
    if (qatomic_read(&et->wait) == ETSOC1_WAIT_FCC0 + counter &&
        !etsoc1_sync_credit_gate(&s->hart[hart], ETSOC1_WAIT_FCC0 + counter,
                                 etsoc1_fcc_earliest(et, counter))) {
        etsoc1_minion_wake(&s->hart[hart]);
    }
    if (old == UINT16_MAX) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: shire %u hart %u fcc%u "
                      "overflow\n", s->shire_id, hart, counter);
        et->tensor.error |= ETSOC1_TENSOR_ERROR_FCC_WRAP;
        return false;
    }
    return true;
}

/* Departure and arrival of a credit-like event @ev that @sender sent. */
static void etsoc1_credit_times(Etsoc1Event *ev, Etsoc1MinionCPU *sender)
{
    if (sender) {
        ev->sent = etsoc1_arrival(sender, 0);
        ev->time = ev->sent + llround(etsoc1_credit_latency(sender->timing,
                                                            ev->src, ev->dst));
    }
}

static void etsoc1_shire_send_credits(Etsoc1ShireState *s, unsigned n,
                                      uint64_t mask)
{
    unsigned thread = n / 2, counter = n % 2;
    uint32_t minions = mask;
    Etsoc1MinionCPU *sender = etsoc1_current_minion();

    /*
     * One bit per minion of the shire: higher bits name nobody.  A kernel
     * that builds the mask from the chip-wide minion number (hartid >> 1)
     * lands there on odd shires and then waits for ever for its credits.
     */
    if (mask >> ETSOC1_MINIONS_PER_SHIRE) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: shire %u: fcc_credinc%u: "
                      "minion mask 0x%" PRIx64 " has bits above minion %u, "
                      "ignored\n", s->shire_id, n, mask,
                      ETSOC1_MINIONS_PER_SHIRE - 1);
    }
    while (minions) {
        unsigned m = ctz32(minions);
        Etsoc1Event ev = {
            .kind = ETSOC1_EV_CREDIT,
            .src = etsoc1_current_hartid(),
            .dst = s->shire_id * ETSOC1_HARTS_PER_SHIRE +
                   m * ETSOC1_THREADS + thread,
        };

        etsoc1_credit_times(&ev, sender);
        minions &= minions - 1;
        etsoc1_shire_credit(s, counter, &ev);
    }
}

static void etsoc1_shire_ipi(Etsoc1ShireState *s, uint64_t mask, bool raise)
{
    Etsoc1MinionCPU *writer = etsoc1_current_minion();

    while (mask) {
        unsigned h = ctz64(mask);
        Etsoc1Event ev = {
            .kind = ETSOC1_EV_IPI,
            .src = etsoc1_current_hartid(),
            .dst = s->shire_id * ETSOC1_HARTS_PER_SHIRE + h,
        };

        mask &= mask - 1;
        if (raise) {
            /* our choice: an IPI travels as a credit does (docs/timing.md) */
            etsoc1_credit_times(&ev, writer);
            s->hart[h].et->ipi_at = MAX(s->hart[h].et->ipi_at, ev.time);
            etsoc1_event_trace(&ev);
            etsoc1_sync_unpark(&s->hart[h]);   /* seen before it is raised */
        } else if (writer == &s->hart[h] &&
                   (writer->parent_obj.env.mip & MIP_MSIP)) {
            /*
             * A hart that clears its own pending IPI has seen it arrive,
             * even when it woke from WFI without taking the interrupt.
             */
            etsoc1_advance_to(writer, s->hart[h].et_state.ipi_at);
        }
        riscv_cpu_update_mip(&s->hart[h].parent_obj, MIP_MSIP,
                             BOOL_TO_MASK(raise));
        if (raise) {
            /* raised: before the writer's clock moves on */
            etsoc1_sync_lower(&s->hart[h], false);
        }
    }
}

/*
 * ipi_redirect_trigger: each selected hart (mask AND ipi_redirect_filter)
 * that sits in the stall CSR in U-mode jumps to its neighbourhood's
 * ipi_redirect_pc; any other gets interrupt 16 (bad IPI redirect).
 */
static void etsoc1_shire_ipi_redirect(Etsoc1ShireState *s, uint64_t mask)
{
    Etsoc1MinionCPU *writer = etsoc1_current_minion();

    mask &= s->ipi_redirect_filter;
    while (mask) {
        unsigned h = ctz64(mask);
        Etsoc1MinionCPU *cpu = &s->hart[h];
        Etsoc1Event ev = {
            .kind = ETSOC1_EV_IPI,
            .src = etsoc1_current_hartid(),
            .dst = s->shire_id * ETSOC1_HARTS_PER_SHIRE + h,
        };

        mask &= mask - 1;
        /* it travels as an IPI; the hart resumes at its arrival */
        etsoc1_credit_times(&ev, writer);
        s->hart[h].et->ipi_at = MAX(s->hart[h].et->ipi_at, ev.time);
        etsoc1_event_trace(&ev);
        if (etsoc1_minion_stalled_in_u(cpu)) {
            etsoc1_minion_redirect(cpu,
                s->ipi_redirect_pc[h / ETSOC1_HARTS_PER_NEIGH]);
        } else {
            etsoc1_sync_unpark(cpu);
            riscv_cpu_update_mip(&cpu->parent_obj,
                                 1ULL << ETSOC1_IRQ_BAD_IPI_REDIRECT,
                                 BOOL_TO_MASK(1));
            etsoc1_sync_lower(cpu, false);
        }
    }
}

/* ---- register file ------------------------------------------------------- */

static MemTxResult etsoc1_esr_access(Etsoc1EsrWindow *w, hwaddr addr,
                                     uint64_t *data, unsigned size,
                                     bool is_write);

/* Broadcast command word (isa.md section 2, "Chip-wide ESR broadcast"). */
FIELD(BCAST, SHIRE_MASK, 0, 40)
FIELD(BCAST, REG, 40, 14)       /* address bits [16:3] */
FIELD(BCAST, SUBEXT, 54, 5)     /* address bits [21:17] */

/*
 * One ESR write of broadcast_data per selected shire, at the privilege of
 * the broadcast register that was written.  Bits for shires this machine
 * does not have are ignored with a log.
 */
static void etsoc1_esr_broadcast(Etsoc1ShireState *s, unsigned pp,
                                 uint64_t cmd)
{
    Etsoc1MachineState *m = s->chip;
    uint64_t mask = FIELD_EX64(cmd, BCAST, SHIRE_MASK);
    hwaddr off = FIELD_EX64(cmd, BCAST, SUBEXT) << 17 |
                 FIELD_EX64(cmd, BCAST, REG) << 3;

    trace_etsoc1_esr_broadcast(s->shire_id, pp, off, mask, s->broadcast_data);
    if (off == ESR_OTHER_BASE + A_BROADCAST ||
        off == ESR_OTHER_BASE + A_BROADCAST_DATA) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: an ESR broadcast cannot "
                      "target the broadcast registers\n");
        return;
    }
    if (mask >> m->num_shires) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: ESR broadcast to shire mask "
                      "0x%" PRIx64 ": this chip has %u minion shires\n", mask,
                      m->num_shires);
        mask &= MAKE_64BIT_MASK(0, m->num_shires);
    }
    while (mask) {
        unsigned shire = ctz64(mask);
        uint64_t data = s->broadcast_data;

        mask &= mask - 1;
        etsoc1_esr_access(&m->shire[shire].esr[pp], off, &data, 8, true);
    }
}

static uint64_t esr_ipi_trigger_read(const Etsoc1EsrAt *at)
{
    uint64_t pending = 0;
    unsigned h;

    for (h = 0; h < ETSOC1_HARTS_PER_SHIRE; h++) {
        if (at->s->hart[h].parent_obj.env.mip & MIP_MSIP) {
            pending |= 1ULL << h;
        }
    }
    return pending;
}

static void esr_ipi_trigger_write(const Etsoc1EsrAt *at, uint64_t val)
{
    etsoc1_shire_ipi(at->s, val, true);
}

static void esr_ipi_trigger_clear_write(const Etsoc1EsrAt *at, uint64_t val)
{
    etsoc1_shire_ipi(at->s, val, false);
}

static void esr_ipi_redirect_trigger_write(const Etsoc1EsrAt *at,
                                           uint64_t val)
{
    etsoc1_shire_ipi_redirect(at->s, val);
}

static void esr_fcc_credinc_write(const Etsoc1EsrAt *at, uint64_t val)
{
    etsoc1_shire_send_credits(at->s, at->idx, val);
}

static uint64_t esr_flb_read(const Etsoc1EsrAt *at)
{
    return qatomic_read(&at->s->flb[at->idx]);
}

static void esr_flb_write(const Etsoc1EsrAt *at, uint64_t val)
{
    Etsoc1ShireState *s = at->s;

    /* a counter set by software starts a new round */
    etsoc1_mutex_lock(&s->flb_lock);
    s->flb[at->idx] = val;
    s->flb_n[at->idx] = 0;
    qemu_mutex_unlock(&s->flb_lock);
}

static void esr_thread_disable(const Etsoc1EsrAt *at, uint64_t val,
                               unsigned thread, uint64_t *reg)
{
    if ((uint32_t)val) {
        qemu_log_mask(LOG_UNIMP, "etsoc1: shire %u: stopping harts with "
                      "thread%u_disable is not modelled\n", at->s->shire_id,
                      thread);
    }
    *reg = (uint32_t)val;
}

static void esr_thread0_disable_write(const Etsoc1EsrAt *at, uint64_t val)
{
    esr_thread_disable(at, val, 0, &at->s->thread0_disable);
}

static void esr_thread1_disable_write(const Etsoc1EsrAt *at, uint64_t val)
{
    esr_thread_disable(at, val, 1, &at->s->thread1_disable);
}

static uint64_t esr_thread0_disable_read(const Etsoc1EsrAt *at)
{
    return at->s->thread0_disable;
}

static uint64_t esr_thread1_disable_read(const Etsoc1EsrAt *at)
{
    return at->s->thread1_disable;
}

static uint64_t esr_build_config_read(const Etsoc1EsrAt *at)
{
    return BUILD_CONFIG_VALUE;
}

static uint64_t esr_revision_id_read(const Etsoc1EsrAt *at)
{
    return REVISION_ID_VALUE;
}

static void esr_broadcast_write(const Etsoc1EsrAt *at, uint64_t val)
{
    etsoc1_esr_broadcast(at->s, at->pp, val);
}

/* The shire cache's op state machine: every operation is done at once */
static uint64_t esr_sc_cop_sm_read(const Etsoc1EsrAt *at)
{
    return FIELD_DP64(0, SC_IDX_COP_SM_CTL_USER, STATE, SC_COP_SM_IDLE);
}

static void esr_sc_cop_sm_write(const Etsoc1EsrAt *at, uint64_t val)
{
}

/* Region @r's register at reset: the L2's set size is the l2-size's */
static uint64_t sc_ctl_reset_value(Etsoc1ShireState *s, Etsoc1ScRegion r)
{
    return r == ETSOC1_SC_L2 ?
           FIELD_DP64(sc_ctl_reset[r], SC_CACHE_CTL, SET_SIZE,
                      s->l2_size / SC_SET_BYTES) : sc_ctl_reset[r];
}

/* The bytes of SRAM the L2 has: the sets of its four banks, 1 KiB each */
static uint64_t sc_l2_bytes(Etsoc1ShireState *s)
{
    uint64_t sets = 0;
    unsigned b;

    for (b = 0; b < ETSOC1_SC_BANKS; b++) {
        sets += FIELD_EX64(s->sc_ctl[ETSOC1_SC_L2][b], SC_CACHE_CTL, SET_SIZE);
    }
    return sets * SC_SET_BYTES / ETSOC1_SC_BANKS;
}

/* The L2 takes the size its registers give, at most the SRAM's */
static void sc_l2_apply(Etsoc1ShireState *s)
{
    uint64_t bytes = sc_l2_bytes(s);

    if (bytes > ETSOC1_SCP_SIZE) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: shire %u: sc_l2_cache_ctl "
                      "gives the L2 %" PRIu64 " KiB, more than the shire's "
                      "%u KiB of SRAM: taken as all of it\n", s->shire_id,
                      bytes / KiB, (unsigned)(ETSOC1_SCP_SIZE / KiB));
        bytes = ETSOC1_SCP_SIZE;
    }
    trace_etsoc1_shire_l2_size(s->shire_id, bytes);
    etsoc1_l2_configure(&s->l2, bytes);
}

/* sc_scp/l2/l3_cache_ctl of one bank (@at->idx) */
static uint64_t esr_sc_ctl_read(const Etsoc1EsrAt *at, Etsoc1ScRegion r)
{
    return at->s->sc_ctl[r][at->idx];
}

/* ... of one bank, or of all four (bank 0xf) */
static void esr_sc_ctl_write(const Etsoc1EsrAt *at, Etsoc1ScRegion r,
                             uint64_t val)
{
    unsigned b;

    for (b = 0; b < ETSOC1_SC_BANKS; b++) {
        if (at->idx == ESR_CACHE_BANK_BROADCAST || at->idx == b) {
            at->s->sc_ctl[r][b] = val & SC_CACHE_CTL_BITS;
        }
    }
    if (r == ETSOC1_SC_L2) {
        sc_l2_apply(at->s);
    }
}

#define ESR_SC_CTL_FNS(r)                                                   \
    static uint64_t esr_sc_ctl_read_##r(const Etsoc1EsrAt *at)              \
    {                                                                       \
        return esr_sc_ctl_read(at, ETSOC1_SC_##r);                          \
    }                                                                       \
    static void esr_sc_ctl_write_##r(const Etsoc1EsrAt *at, uint64_t val)   \
    {                                                                       \
        esr_sc_ctl_write(at, ETSOC1_SC_##r, val);                           \
    }
ESR_SC_CTL_FNS(SCP)
ESR_SC_CTL_FNS(L2)
ESR_SC_CTL_FNS(L3)

static uint64_t esr_mprot_read(const Etsoc1EsrAt *at)
{
    return qatomic_read(&at->s->mprot[at->neigh]);
}

/*
 * The DRAM protection of the neighbourhood's harts (target/etsoc1/
 * etsoc1-pma.c): their TLBs hold the rights the old value gave.
 */
static void esr_mprot_write(const Etsoc1EsrAt *at, uint64_t val)
{
    unsigned h, first = at->neigh * 2 * ETSOC1_MINIONS_PER_NEIGH;

    qatomic_set(&at->s->mprot[at->neigh], val & 0x7f);
    for (h = first; tcg_enabled() && h < first + 2 * ETSOC1_MINIONS_PER_NEIGH;
         h++) {
        tlb_flush(CPU(&at->s->hart[h]));    /* qtest has no TLB */
    }
}

/* Neighbourhood registers: @field is one uint64_t per neighbourhood. */
static const Etsoc1EsrReg neigh_regs[] = {
    ESR_FN("dummy1", A_NEIGH_DUMMY1, 1, M, ESR_RO, NULL, NULL),
    /* takes effect at the next warm reset; QEMU's reset is cold */
    ESR_VAL("minion_boot", A_NEIGH_MINION_BOOT, M, ESR_RW, minion_boot,
            MAKE_64BIT_MASK(0, 40)),
    ESR_FN("mprot", A_NEIGH_MPROT, 1, M, ESR_RW, esr_mprot_read,
           esr_mprot_write),
    ESR_FN("dummy3", A_NEIGH_DUMMY3, 1, M, ESR_RO, NULL, NULL),
    ESR_VAL("ipi_redirect_pc", A_NEIGH_IPI_REDIRECT_PC, U, ESR_RW,
            ipi_redirect_pc, UINT64_MAX),
    ESR_VAL("neigh_chicken", A_NEIGH_CHICKEN, M, ESR_RW, neigh_chicken,
            UINT64_MAX),
    ESR_FN("icache_err_log_address", A_NEIGH_ICACHE_ERR_LOG_ADDRESS, 1, M,
           ESR_RO, NULL, NULL),
};

static const Etsoc1EsrReg other_regs[] = {
    ESR_VAL("minion_feature", A_MINION_FEATURE, M, ESR_RW, minion_feature,
            0x3f),
    ESR_VAL("shire_config", A_SHIRE_CONFIG, M, ESR_RW, shire_config,
            MAKE_64BIT_MASK(0, 26)),
    ESR_FN("thread1_disable", A_THREAD1_DISABLE, 1, M, ESR_RW,
           esr_thread1_disable_read, esr_thread1_disable_write),
    ESR_FN("shire_cache_build_config", A_SHIRE_CACHE_BUILD_CONFIG, 1, M,
           ESR_RO, esr_build_config_read, NULL),
    ESR_FN("shire_cache_revision_id", A_SHIRE_CACHE_REVISION_ID, 1, M, ESR_RO,
           esr_revision_id_read, NULL),
    ESR_FN("ipi_redirect_trigger", A_IPI_REDIRECT_TRIGGER, 1, U, ESR_W_RZ,
           NULL, esr_ipi_redirect_trigger_write),
    ESR_VAL("ipi_redirect_filter", A_IPI_REDIRECT_FILTER, M, ESR_RW,
            ipi_redirect_filter, UINT64_MAX),
    ESR_FN("ipi_trigger", A_IPI_TRIGGER, 1, M, ESR_RW, esr_ipi_trigger_read,
           esr_ipi_trigger_write),
    ESR_FN("ipi_trigger_clear", A_IPI_TRIGGER_CLEAR, 1, M, ESR_W_RZ, NULL,
           esr_ipi_trigger_clear_write),
    ESR_FN("fcc_credinc", A_FCC_CREDINC, 4, U, ESR_W_RZ, NULL,
           esr_fcc_credinc_write),
    ESR_FN("fast_local_barrier", A_FAST_LOCAL_BARRIER, 32, U, ESR_RW,
           esr_flb_read, esr_flb_write),
    ESR_FN("shire_power_pll_dll", A_SHIRE_POWER, 5, M, ESR_UNIMP, NULL, NULL),
    ESR_FN("thread0_disable", A_THREAD0_DISABLE, 1, M, ESR_RW,
           esr_thread0_disable_read, esr_thread0_disable_write),
    ESR_VAL("shire_coop_mode", A_SHIRE_COOP_MODE, S, ESR_RW, coop_mode, 1),
    ESR_VAL("broadcast_data", A_BROADCAST_DATA, U, ESR_RW, broadcast_data,
            UINT64_MAX),
    ESR_FN("ubroadcast", A_BROADCAST, 1, U, ESR_W_RZ, NULL,
           esr_broadcast_write),
    ESR_FN("sbroadcast", A_BROADCAST, 1, S, ESR_W_RZ, NULL,
           esr_broadcast_write),
    ESR_FN("mbroadcast", A_BROADCAST, 1, M, ESR_W_RZ, NULL,
           esr_broadcast_write),
};

/* Shire cache registers; idx is the bank */
static const Etsoc1EsrReg cache_regs[] = {
    ESR_FN("sc_l2_cache_ctl", A_SC_L2_CACHE_CTL, 1, M, ESR_RW,
           esr_sc_ctl_read_L2, esr_sc_ctl_write_L2),
    ESR_FN("sc_l3_cache_ctl", A_SC_L3_CACHE_CTL, 1, M, ESR_RW,
           esr_sc_ctl_read_L3, esr_sc_ctl_write_L3),
    ESR_FN("sc_scp_cache_ctl", A_SC_SCP_CACHE_CTL, 1, M, ESR_RW,
           esr_sc_ctl_read_SCP, esr_sc_ctl_write_SCP),
    ESR_FN("sc_idx_cop_sm_ctl", A_SC_IDX_COP_SM_CTL, 1, M, ESR_RW,
           esr_sc_cop_sm_read, esr_sc_cop_sm_write),
    ESR_FN("sc_idx_cop_sm_ctl_user", A_SC_IDX_COP_SM_CTL_USER, 1, U, ESR_RW,
           esr_sc_cop_sm_read, esr_sc_cop_sm_write),
};

/* The value that register @reg (one with a field) holds at @at */
static uint64_t *esr_field(const Etsoc1EsrReg *reg, const Etsoc1EsrAt *at)
{
    uint64_t *f = (uint64_t *)((uint8_t *)at->s + reg->field);
    bool per_neigh = reg >= neigh_regs &&
                     reg < neigh_regs + ARRAY_SIZE(neigh_regs);

    return per_neigh ? f + at->neigh : f;
}

static uint64_t esr_reg_read(const Etsoc1EsrReg *reg, const Etsoc1EsrAt *at)
{
    if (reg->field != ESR_NO_FIELD) {
        return *esr_field(reg, at);
    }
    return reg->read ? reg->read(at) : 0;   /* dummies and logs read 0 */
}

static void esr_reg_write(const Etsoc1EsrReg *reg, const Etsoc1EsrAt *at,
                          uint64_t val)
{
    if (reg->field != ESR_NO_FIELD) {
        *esr_field(reg, at) = val & reg->mask;
    } else {
        reg->write(at, val);    /* every writable row has one: table check */
    }
}

/*
 * Every row a guest can write says what a write does, and no row both
 * holds a value and acts: a table edit that forgets it fails when the
 * type registers, before any guest runs, not at a guest's access.
 */
static void esr_table_check(const Etsoc1EsrReg *regs, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        const Etsoc1EsrReg *r = &regs[i];
        bool writable = r->access == ESR_RW || r->access == ESR_W_RZ;

        g_assert(r->field == ESR_NO_FIELD || (!r->read && !r->write));
        g_assert(!writable || r->field != ESR_NO_FIELD || r->write);
        g_assert(r->field == ESR_NO_FIELD || r->count == 1);
    }
}

/* ---- decode -------------------------------------------------------------- */

/*
 * A load that etsoc1_sync_plain_read() found to be a poll: leave the
 * access (an MMIO read of the ESR or remote scratchpad windows) and halt;
 * the load runs again when the hart is woken.  QEMU's I/O path holds
 * nothing across the callback that cpu_exec's longjmp landing does not
 * undo (it drops the BQL), except the per-device re-entrancy guard, which
 * these two regions therefore do not use (none of their accesses
 * re-enters them).  The load left its host return address in mem_io_pc.
 */
static G_NORETURN void etsoc1_poll_exit_io(Etsoc1MinionCPU *cpu)
{
    riscv_raise_exception(&cpu->parent_obj.env, etsoc1_halt_cause(cpu),
                          CPU(cpu)->mem_io_pc);
}

/*
 * Which ESR a poll waits on: its address in the shire's U-mode window,
 * so that a write through any privilege window wakes a read through any
 * other.  ESR polls wait in the shire's scratchpad line clock's gen[]
 * (only its gen[]: an ESR write is no line's write).
 */
static hwaddr esr_poll_key(Etsoc1ShireState *s, hwaddr addr)
{
    return ETSOC1_ESR_ADDR(ETSOC1_PP_U, s->shire_id, addr);
}

static MemTxResult etsoc1_esr_access(Etsoc1EsrWindow *w, hwaddr addr,
                                     uint64_t *data, unsigned size,
                                     bool is_write)
{
    Etsoc1ShireState *s = w->shire;
    Etsoc1MinionCPU *hart = etsoc1_current_minion();
    hwaddr pa = ETSOC1_ESR_ADDR(w->pp, s->shire_id, addr);
    const Etsoc1EsrReg *reg = NULL;
    const char *why = "no register";
    bool cache = false;     /* the shire cache block; idx = its bank */
    unsigned idx = 0, neigh = 0, n;
    uint32_t off = 0;

    if (size != 8 || (addr & 7)) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: ESR 0x%" HWADDR_PRIx
                      ": %u-byte %s; ESRs take aligned 8-byte accesses only\n",
                      pa, size, is_write ? "write" : "read");
        return MEMTX_ERROR;
    }
    if (hart && (w->pp == ETSOC1_PP_DEBUG ||
                 w->pp > hart->parent_obj.env.priv)) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: ESR 0x%" HWADDR_PRIx ": hart %"
                      PRIu64 " in privilege %u cannot access PP %u\n", pa,
                      (uint64_t)hart->parent_obj.env.mhartid,
                      (unsigned)hart->parent_obj.env.priv, w->pp);
        return MEMTX_ERROR;
    }

    switch (FIELD_EX64(addr, ESR, SUBREGION)) {
    case ESR_SUB_HART:
        if (FIELD_EX64(addr, ESR, HART) >= ETSOC1_HARTS_PER_SHIRE) {
            break;
        }
        qemu_log_mask(LOG_UNIMP, "etsoc1: ESR 0x%" HWADDR_PRIx ": hart "
                      "message-port and debug registers are not modelled\n",
                      pa);
        goto unimp;
    case ESR_SUB_NEIGH:
        neigh = FIELD_EX64(addr, ESR, NEIGH);
        off = FIELD_EX64(addr, ESR, NEIGH_REG);
        if (neigh >= ETSOC1_NEIGHS_PER_SHIRE &&
            (neigh != ESR_NEIGH_BROADCAST || !is_write)) {
            why = "bad neighbourhood";
            break;
        }
        reg = esr_lookup(neigh_regs, ARRAY_SIZE(neigh_regs), off, w->pp, &idx);
        break;
    case ESR_SUB_OTHER:
        switch (FIELD_EX64(addr, ESR, OTHER_BLOCK)) {
        case ESR_OTHER_CACHE:
            off = FIELD_EX64(addr, ESR, CACHE_REG);
            reg = esr_lookup(cache_regs, ARRAY_SIZE(cache_regs), off, w->pp,
                             &idx);
            if (!reg) {
                qemu_log_mask(LOG_UNIMP, "etsoc1: ESR 0x%" HWADDR_PRIx ": "
                              "shire cache register not modelled\n", pa);
                goto unimp;
            }
            idx = FIELD_EX64(addr, ESR, CACHE_BANK);
            if (idx >= ETSOC1_SC_BANKS &&
                (idx != ESR_CACHE_BANK_BROADCAST || !is_write)) {
                why = "bad shire cache bank";
                reg = NULL;
            }
            cache = true;
            break;
        case ESR_OTHER_RBOX:
            qemu_log_mask(LOG_UNIMP, "etsoc1: ESR 0x%" HWADDR_PRIx ": RBOX "
                          "registers are not modelled\n", pa);
            goto unimp;
        case ESR_OTHER_SHIRE:
            off = FIELD_EX64(addr, ESR, OTHER_REG);
            reg = esr_lookup(other_regs, ARRAY_SIZE(other_regs), off, w->pp,
                             &idx);
            break;
        }
        break;
    }

    if (reg && is_write && reg->access == ESR_RO) {
        why = "read-only register";
        reg = NULL;
    }
    if (!reg) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: ESR 0x%" HWADDR_PRIx ": %s "
                      "(%s): bus error\n", pa, is_write ? "write" : "read",
                      why);
        if (hart) {
            etsoc1_minion_bus_error(hart, pa);
        }
        if (!is_write) {
            *data = 0;
        }
        return MEMTX_OK;
    }
    if (reg->access == ESR_UNIMP) {
        qemu_log_mask(LOG_UNIMP, "etsoc1: ESR %s (0x%" HWADDR_PRIx ") is not "
                      "modelled\n", reg->name, pa);
        goto unimp;
    }

    if (!is_write) {
        Etsoc1EsrAt at = { .s = s, .pp = w->pp, .neigh = neigh, .idx = idx };

        *data = reg->access == ESR_W_RZ ? 0 : esr_reg_read(reg, &at);
        trace_etsoc1_esr_read(s->shire_id, w->pp, addr, reg->name, idx, *data);
        if (hart && etsoc1_sync_plain_read(hart, &s->scp_written,
                                           esr_poll_key(s, addr), data, 8,
                                           etsoc1_now(hart), false)) {
            etsoc1_poll_exit_io(hart);
        }
        return MEMTX_OK;
    }
    trace_etsoc1_esr_write(s->shire_id, w->pp, addr, reg->name, idx, *data);
    for (n = 0; n < ETSOC1_NEIGHS_PER_SHIRE; n++) {
        Etsoc1EsrAt at = { .s = s, .pp = w->pp, .neigh = n, .idx = idx };
        bool neigh_reg = FIELD_EX64(addr, ESR, SUBREGION) == ESR_SUB_NEIGH;

        if (neigh_reg ? neigh != ESR_NEIGH_BROADCAST && n != neigh : n) {
            continue;
        }
        esr_reg_write(reg, &at, *data);
        if (!cache) {
            /* a cache operation is done at once: nothing polls on it */
            etsoc1_sync_plain_written(s->chip, &s->scp_written, esr_poll_key(
                s, neigh_reg ? FIELD_DP64(addr, ESR, NEIGH, n) : addr),
                hart ? etsoc1_now(hart) : 0);
        }
    }
    return MEMTX_OK;

unimp:
    if (!is_write) {
        *data = 0;
    }
    return MEMTX_OK;
}

static MemTxResult etsoc1_esr_read(void *opaque, hwaddr addr, uint64_t *data,
                                   unsigned size, MemTxAttrs attrs)
{
    return etsoc1_esr_access(opaque, addr, data, size, false);
}

static MemTxResult etsoc1_esr_write(void *opaque, hwaddr addr, uint64_t data,
                                    unsigned size, MemTxAttrs attrs)
{
    return etsoc1_esr_access(opaque, addr, &data, size, true);
}

static const MemoryRegionOps etsoc1_esr_ops = {
    .read_with_attrs = etsoc1_esr_read,
    .write_with_attrs = etsoc1_esr_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    /* Let every size and alignment through: the chip faults on them. */
    .valid = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
};

/* ---- other shires' scratchpads ------------------------------------------- */

/*
 * In a shire's view, the scratchpad windows of the other shires are this
 * I/O region: it passes each access on to the system bus, where the
 * scratchpads are RAM (and the parts of a window with no SRAM an error),
 * and charges the hart the mesh round trip (etsoc1-l3.c).  Requesters
 * that are not one of our harts (qtest, gdb) are not charged.  An access
 * and its timing happen under the line clock of the target line
 * (etsoc1_line_clock_of): a load can then not see a store that is later
 * in time, nor miss one that it reads.
 */
static MemTxResult etsoc1_scp_remote_rw(Etsoc1ShireState *s, hwaddr addr,
                                        uint8_t *buf, unsigned size,
                                        MemTxAttrs attrs, bool write)
{
    Etsoc1MinionCPU *cpu = etsoc1_current_minion();
    hwaddr pa = etsoc1_memmap[ETSOC1_SCP].base + addr;
    Etsoc1LineClock *lc = NULL;
    MemTxResult r;

    if (cpu && cpu->shire != s) {
        cpu = NULL;
    }
    if (cpu) {
        lc = etsoc1_line_clock_of(cpu, pa);
    }
    if (lc) {
        qemu_mutex_lock(&lc->lock);
    }
    r = address_space_rw(&s->bus_as, pa, attrs, buf, size, write);
    if (r == MEMTX_OK && cpu && !write &&
        etsoc1_sync_plain_read(cpu, lc, pa, buf, size,
                               etsoc1_global_arrival(cpu, pa), true)) {
        qemu_mutex_unlock(&lc->lock);
        etsoc1_poll_exit_io(cpu);
    }
    if (r == MEMTX_OK && cpu) {
        /* a load or store instruction left its host address in mem_io_pc */
        etsoc1_scp_remote_access(cpu, pa, write, CPU(cpu)->mem_io_pc);
    }
    if (lc) {
        qemu_mutex_unlock(&lc->lock);
        if (write) {
            etsoc1_sync_written(s->chip, lc, pa);
        }
    }
    return r;
}

static MemTxResult etsoc1_scp_remote_read(void *opaque, hwaddr addr,
                                          uint64_t *data, unsigned size,
                                          MemTxAttrs attrs)
{
    uint8_t buf[8];
    MemTxResult r = etsoc1_scp_remote_rw(opaque, addr, buf, size, attrs,
                                         false);

    *data = r == MEMTX_OK ? ldn_le_p(buf, size) : 0;
    return r;
}

static MemTxResult etsoc1_scp_remote_write(void *opaque, hwaddr addr,
                                           uint64_t data, unsigned size,
                                           MemTxAttrs attrs)
{
    uint8_t buf[8];

    stn_le_p(buf, size, data);
    return etsoc1_scp_remote_rw(opaque, addr, buf, size, attrs, true);
}

static const MemoryRegionOps etsoc1_scp_remote_ops = {
    .read_with_attrs = etsoc1_scp_remote_read,
    .write_with_attrs = etsoc1_scp_remote_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
};

/* ---- lifecycle ----------------------------------------------------------- */

static void etsoc1_hart_reset(void *opaque)
{
    Etsoc1MinionCPU *cpu = opaque;
    CPURISCVState *env = &cpu->parent_obj.env;

    cpu_reset(CPU(cpu));
    /* Boot protocol of QEMU's RISC-V machines: a0 = hartid, a1 = the DTB. */
    env->gpr[xA0] = env->mhartid;
    env->gpr[xA1] = cpu->shire->fdt_addr;
}

static void etsoc1_shire_reset_enter(Object *obj, ResetType type)
{
    Etsoc1ShireState *s = ETSOC1_SHIRE(obj);
    unsigned n, r;

    for (n = 0; n < ETSOC1_HARTS_PER_SHIRE; n++) {
        etsoc1_fcc_reset(&s->hart[n].et_state);
        memset(&s->hart[n].et_state, 0, sizeof(s->hart[n].et_state));
        /* our choice: every lane active at reset */
        s->hart[n].et_state.m[0] = 0xff;
    }
    memset(s->flb, 0, sizeof(s->flb));
    memset(s->flb_n, 0, sizeof(s->flb_n));
    memset(s->flb_arr, 0, sizeof(s->flb_arr));
    memset(s->port_free, 0, sizeof(s->port_free));
    memset(s->tload_free, 0, sizeof(s->tload_free));
    s->port_npend = 0;
    for (r = 0; r < ETSOC1_SC_REGIONS; r++) {
        for (n = 0; n < ETSOC1_SC_BANKS; n++) {
            s->sc_ctl[r][n] = sc_ctl_reset_value(s, r);
        }
    }
    sc_l2_apply(s);
    for (n = 0; n < ETSOC1_HARTS_PER_SHIRE; n++) {
        etsoc1_l2_forget(&s->hart[n]);
        s->hart[n].parent_obj.env.et_tensor_busy = 0;
    }
    for (n = 0; n < ETSOC1_MINIONS_PER_SHIRE; n++) {
        etsoc1_minion_state_reset(&s->minion[n]);
    }
    s->harts_passed = 0;
    for (n = 0; n < ETSOC1_NEIGHS_PER_SHIRE; n++) {
        s->minion_boot[n] = s->reset_pc;
        s->mprot[n] = s->mprot_reset;
        s->ipi_redirect_pc[n] = 0;
        s->neigh_chicken[n] = 0;
    }
    s->minion_feature = MINION_FEATURE_RESET;
    s->shire_config = SHIRE_CONFIG_RESET | s->shire_id;
    /* As the service processor leaves them: every hart released. */
    s->thread0_disable = 0;
    s->thread1_disable = 0;
    s->ipi_redirect_filter = UINT64_MAX;
    s->broadcast_data = 0;
    s->coop_mode = 0;
    memset(s->coop_all, 0, sizeof(s->coop_all));
    memset(s->coop_arrived, 0, sizeof(s->coop_arrived));
    etsoc1_line_clock_reset(&s->scp_written);
}

static void etsoc1_shire_realize(DeviceState *dev, Error **errp)
{
    Etsoc1ShireState *s = ETSOC1_SHIRE(dev);
    Object *obj = OBJECT(dev);
    g_autofree char *name = NULL;
    unsigned i;

    if (s->shire_id >= ETSOC1_MAX_SHIRES) {
        error_setg(errp, "shire-id %u out of range (0..%u)", s->shire_id,
                   ETSOC1_MAX_SHIRES - 1);
        return;
    }
    if (!s->sysmem || !s->chip || !s->timing) {
        error_setg(errp, "'sysmem', 'chip' and 'timing' links must be set");
        return;
    }

    if (s->l2_size % SC_SET_BYTES || s->l2_size > ETSOC1_SCP_SIZE) {
        error_setg(errp, "l2-size=%" PRIu64 ": must be a multiple of %u KiB "
                   "(sc_l2_cache_ctl counts sets of 4 KiB) up to the "
                   "shire's %u KiB of SRAM", s->l2_size,
                   (unsigned)(SC_SET_BYTES / KiB),
                   (unsigned)(ETSOC1_SCP_SIZE / KiB));
        return;
    }
    if (s->l2_rbuf_lines > ETSOC1_L2_RBUF_MAX) {
        error_setg(errp, "l2-rbuf-lines=%u: at most %u", s->l2_rbuf_lines,
                   ETSOC1_L2_RBUF_MAX);
        return;
    }
    qemu_mutex_init(&s->scp_written.lock);
    qemu_mutex_init(&s->flb_lock);
    etsoc1_l2_init(&s->l2, s->l2_size, s->timing, s->shire_id);
    s->l2.rbuf_lines = s->l2_rbuf_lines;
    address_space_init(&s->bus_as, s->sysmem, "etsoc1-shire-bus");
    /* RAM block names must be unique: a sysbus device has no qdev path */
    name = g_strdup_printf("etsoc1.scp[%u]", s->shire_id);
    memory_region_init_ram(&s->scp, obj, name, ETSOC1_SCP_SIZE, errp);
    if (*errp) {
        return;
    }
    for (i = 0; i < 4; i++) {
        s->esr[i].shire = s;
        s->esr[i].pp = i;
        memory_region_init_io(&s->esr[i].mr, obj, &etsoc1_esr_ops, &s->esr[i],
                              "etsoc1.esr", ETSOC1_ESR_WINDOW);
        /* a poll leaves the read by longjmp: see etsoc1_poll_exit_io */
        s->esr[i].mr.disable_reentrancy_guard = true;
    }

    /*
     * The harts of this shire see the bus through this view, in which the
     * local-shire aliases of the scratchpad and the ESRs are our own.
     */
    memory_region_init(&s->view, obj, "etsoc1.shire-view", UINT64_MAX);
    memory_region_init_alias(&s->view_sys, obj, "etsoc1.shire-view.bus",
                             s->sysmem, 0, UINT64_MAX);
    memory_region_add_subregion(&s->view, 0, &s->view_sys);
    memory_region_init_alias(&s->view_scp, obj, "etsoc1.scp-local", &s->scp,
                             0, ETSOC1_SCP_SIZE);
    memory_region_add_subregion_overlap(&s->view,
        etsoc1_memmap[ETSOC1_SCP].base +
        ETSOC1_SCP_LOCAL_SHIRE * ETSOC1_SCP_WINDOW, &s->view_scp, 1);
    /*
     * The windows of shires 0..126 (the local-shire one excepted) are
     * timed I/O; our own window lies above them as plain RAM, so that
     * only other shires' scratchpads cost the mesh.
     */
    memory_region_init_io(&s->view_scp_remote, obj, &etsoc1_scp_remote_ops, s,
                          "etsoc1.scp-remote",
                          ETSOC1_SCP_LOCAL_SHIRE * ETSOC1_SCP_WINDOW);
    s->view_scp_remote.disable_reentrancy_guard = true;
    memory_region_add_subregion_overlap(&s->view,
        etsoc1_memmap[ETSOC1_SCP].base, &s->view_scp_remote, 1);
    memory_region_init_alias(&s->view_scp_own, obj, "etsoc1.scp-own", &s->scp,
                             0, ETSOC1_SCP_SIZE);
    memory_region_add_subregion_overlap(&s->view,
        etsoc1_memmap[ETSOC1_SCP].base + s->shire_id * ETSOC1_SCP_WINDOW,
        &s->view_scp_own, 2);
    for (i = 0; i < 4; i++) {
        memory_region_init_alias(&s->view_esr[i], obj, "etsoc1.esr-local",
                                 &s->esr[i].mr, 0, ETSOC1_ESR_WINDOW);
        memory_region_add_subregion_overlap(&s->view,
            ETSOC1_ESR_ADDR(i, ETSOC1_LOCAL_SHIRE, 0), &s->view_esr[i], 1);
    }

    for (i = 0; i < ETSOC1_HARTS_PER_SHIRE; i++) {
        Etsoc1MinionCPU *cpu = &s->hart[i];
        g_autofree char *child = g_strdup_printf("hart[%u]", i);

        object_initialize_child(obj, child, cpu, TYPE_ETSOC1_MINION_CPU);
        cpu->shire = s;
        cpu->timing = s->timing;
        /* the cache model (etsoc1-l1.c, qemu-patches/0014) */
        cpu->parent_obj.cfg.et_l1 = s->chip->cache_model;
        cpu->parent_obj.env.mhartid = s->shire_id * ETSOC1_HARTS_PER_SHIRE + i;
        /*
         * cpu_index = mhartid (the PLICs and the gdb threads count on it):
         * given, cpu_list_add() need not look at every hart made so far
         */
        CPU(cpu)->cpu_index = cpu->parent_obj.env.mhartid;
        qdev_prop_set_uint64(DEVICE(cpu), "resetvec", s->reset_pc);
        object_property_set_link(OBJECT(cpu), "memory", OBJECT(&s->view),
                                 &error_abort);
        if (!qdev_realize(DEVICE(cpu), NULL, errp)) {
            return;
        }
        qemu_register_reset(etsoc1_hart_reset, cpu);
    }
}

static const VMStateDescription vmstate_etsoc1_credit_more = {
    .name = "etsoc1-credit-more",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT64(at, Etsoc1CreditMore),
        VMSTATE_UINT16(n, Etsoc1CreditMore),
        VMSTATE_UINT8(counter, Etsoc1CreditMore),
        VMSTATE_END_OF_LIST()
    }
};

static bool etsoc1_credit_more_needed(void *opaque)
{
    Etsoc1HartEt *et = opaque;

    return et->credit.nmore > 0;
}

/* A stream without the subsection has no more pairs: drop ours first */
static int etsoc1_hart_et_pre_load(void *opaque)
{
    etsoc1_fcc_reset(opaque);
    return 0;
}

static int etsoc1_credit_more_post_load(void *opaque, int version_id)
{
    Etsoc1HartEt *et = opaque;

    if (et->credit.nmore < 0) {
        return -EINVAL;
    }
    et->credit.more_cap = et->credit.nmore;
    return 0;
}

/* Credit arrivals beyond the slots (Etsoc1HartCredits) */
static const VMStateDescription vmstate_etsoc1_hart_credit_more = {
    .name = "etsoc1-hart/credit-more",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = etsoc1_credit_more_needed,
    .post_load = etsoc1_credit_more_post_load,
    .fields = (VMStateField[]) {
        VMSTATE_INT32(credit.nmore, Etsoc1HartEt),
        VMSTATE_STRUCT_VARRAY_ALLOC(credit.more, Etsoc1HartEt, credit.nmore,
                                    1, vmstate_etsoc1_credit_more,
                                    Etsoc1CreditMore),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_etsoc1_hart_et = {
    .name = "etsoc1-hart",
    .version_id = 4,      /* 2: ETSOC1_FCC_SLOTS 8 -> 40; 3: coop_tcoop */
    .minimum_version_id = 3,
    .pre_load = etsoc1_hart_et_pre_load,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32(wait, Etsoc1HartEt),
        VMSTATE_UINT16_ARRAY(credit.fcc, Etsoc1HartEt, 2),
        VMSTATE_UINT64(tensor.error, Etsoc1HartEt),
        VMSTATE_UINT64(mbusaddr, Etsoc1HartEt),
        VMSTATE_UINT64(stall_pc, Etsoc1HartEt),
        VMSTATE_UINT64(tensor.mask, Etsoc1HartEt),
        VMSTATE_UINT64(tensor.conv_size, Etsoc1HartEt),
        VMSTATE_UINT64(tensor.conv_ctrl, Etsoc1HartEt),
        VMSTATE_UINT8_ARRAY(m, Etsoc1HartEt, 8),
        VMSTATE_UINT8(gsc_progress, Etsoc1HartEt),
        VMSTATE_UINT64_ARRAY(validation, Etsoc1HartEt, 4),
        VMSTATE_UINT64(stall, Etsoc1HartEt),
        VMSTATE_UINT64_2DARRAY(credit.slot_at, Etsoc1HartEt, 2,
                               ETSOC1_FCC_SLOTS),
        VMSTATE_UINT16_2DARRAY(credit.slot_n, Etsoc1HartEt, 2,
                               ETSOC1_FCC_SLOTS),
        VMSTATE_UINT64(ipi_at, Etsoc1HartEt),
        VMSTATE_UINT64_ARRAY(tensor.t, Etsoc1HartEt, ETSOC1_TT_COUNT),
        VMSTATE_UINT64_ARRAY(tensor.insns, Etsoc1HartEt, ETSOC1_TI_COUNT),
        VMSTATE_UINT8_ARRAY(pmu.event, Etsoc1HartEt, 6),
        VMSTATE_UINT64_ARRAY(pmu.base, Etsoc1HartEt, 6),
        VMSTATE_UINT32(tensor.coop, Etsoc1HartEt),
        VMSTATE_UINT8_ARRAY(coop.state, Etsoc1HartEt, ETSOC1_TLOAD_FSMS),
        VMSTATE_UINT8(coop.wait, Etsoc1HartEt),
        VMSTATE_UINT16_ARRAY(coop.mask, Etsoc1HartEt, ETSOC1_TLOAD_FSMS),
        VMSTATE_UINT64_ARRAY(coop.ctl, Etsoc1HartEt, ETSOC1_TLOAD_FSMS),
        VMSTATE_UINT64_ARRAY(coop.x31, Etsoc1HartEt, ETSOC1_TLOAD_FSMS),
        VMSTATE_UINT32_ARRAY(coop.tcoop, Etsoc1HartEt, ETSOC1_TLOAD_FSMS),
        /* 4: a TensorLoad between its out-port and its in-port */
        VMSTATE_UINT64_V(tload_port.out, Etsoc1HartEt, 4),
        VMSTATE_UINT64_V(tload_port.go, Etsoc1HartEt, 4),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * []) {
        &vmstate_etsoc1_hart_credit_more,
        NULL
    }
};

/*
 * The hart's L1 tags (etsoc1-l1.c): with cache-model=on once it has used
 * them, with it off only while it holds lock_sw locks, so that such a
 * machine migrates as before the cache model.  Which mode the hart has
 * taken goes as whether its minion's has changed since (behind):
 * etsoc1_shire_post_load makes the count of changes agree again.
 */
static bool etsoc1_hart_l1_needed(void *opaque)
{
    return etsoc1_l1_vmstate_needed(opaque);
}

static int etsoc1_hart_l1_pre_save(void *opaque)
{
    Etsoc1MinionCPU *cpu = opaque;

    cpu->et->l1.behind = cpu->et->l1.gen !=
                         qatomic_read(&etsoc1_minion_state(cpu)->l1_gen);
    return 0;
}

static const VMStateDescription vmstate_etsoc1_hart_l1 = {
    .name = "etsoc1-cpu-et/l1",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = etsoc1_hart_l1_needed,
    .pre_save = etsoc1_hart_l1_pre_save,
    .fields = (VMStateField[]) {
        VMSTATE_UINT64_2DARRAY(et_state.l1.tag, Etsoc1MinionCPU,
                               ETSOC1_L1_SETS, ETSOC1_L1_WAYS),
        VMSTATE_UINT64_2DARRAY(et_state.l1.used, Etsoc1MinionCPU,
                               ETSOC1_L1_SETS, ETSOC1_L1_WAYS),
        VMSTATE_UINT8_2DARRAY(et_state.l1.state, Etsoc1MinionCPU,
                              ETSOC1_L1_SETS, ETSOC1_L1_WAYS),
        VMSTATE_UINT64(et_state.l1.clock, Etsoc1MinionCPU),
        VMSTATE_UINT8(et_state.l1.ctl, Etsoc1MinionCPU),
        VMSTATE_BOOL(et_state.l1.behind, Etsoc1MinionCPU),
        VMSTATE_UINT64_ARRAY(et_state.l1.served, Etsoc1MinionCPU,
                             ETSOC1_LVL_COUNT),
        VMSTATE_END_OF_LIST()
    }
};

/* The hart's copy of its shire's L2 tags, once it has looked a line up */
static bool etsoc1_hart_l2_needed(void *opaque)
{
    Etsoc1MinionCPU *cpu = opaque;

    return cpu->et->l1.l2_clock != 0;
}

static const VMStateDescription vmstate_etsoc1_hart_l2 = {
    .name = "etsoc1-cpu-et/l2",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = etsoc1_hart_l2_needed,
    .fields = (VMStateField[]) {
        /*
         * The copy's size, as the source's L2 had it when the hart last
         * looked (a size the loaded sc_l2_cache_ctl changed since is
         * taken at its next access, as on the source); the copy is
         * allocated by the load (VMS_ALLOC), the shire's pre_load having
         * freed the old one
         */
        VMSTATE_UINT32(l2_n, Etsoc1MinionCPU),
        VMSTATE_VARRAY_UINT32_ALLOC(l2_tag, Etsoc1MinionCPU, l2_n, 0,
                                    vmstate_info_uint64, uint64_t),
        VMSTATE_VARRAY_UINT32_ALLOC(l2_used, Etsoc1MinionCPU, l2_n, 0,
                                    vmstate_info_uint64, uint64_t),
        VMSTATE_UINT64(et_state.l1.l2_clock, Etsoc1MinionCPU),
        VMSTATE_UINT64_ARRAY(et_state.l1.rbuf, Etsoc1MinionCPU,
                             ETSOC1_L2_RBUF_MAX),
        VMSTATE_UINT64_ARRAY(et_state.l1.rbuf_used, Etsoc1MinionCPU,
                             ETSOC1_L2_RBUF_MAX),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * Each hart's et_state (the same bytes as when the shire held them), and
 * its caches' tags.  A subsection's name starts with its description's;
 * one that also starts with an inner description's ("etsoc1-hart") is
 * taken for that one's when it is loaded: hence "etsoc1-cpu-et", not a
 * name the stream has (a struct's name is not in it).
 */
static const VMStateDescription vmstate_etsoc1_hart_et_of = {
    .name = "etsoc1-cpu-et",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT(et_state, Etsoc1MinionCPU, 1, vmstate_etsoc1_hart_et,
                       Etsoc1HartEt),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * []) {
        &vmstate_etsoc1_hart_l1,
        &vmstate_etsoc1_hart_l2,
        NULL
    }
};

/* Lanes 1-7 of the f registers: CPURISCVState, which RISC-V does not migrate */
static const VMStateDescription vmstate_etsoc1_hart_lanes = {
    .name = "etsoc1-hart-lanes",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32_2DARRAY(parent_obj.env.et_fhi, Etsoc1MinionCPU, 32,
                               ETSOC1_FLANES - 1),
        VMSTATE_UINT64(parent_obj.env.et_insns, Etsoc1MinionCPU),
        VMSTATE_UINT64(parent_obj.env.et_cycles, Etsoc1MinionCPU),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_etsoc1_reduce = {
    .name = "etsoc1-reduce",
    .version_id = 2,        /* 2: the mesh links (port_hop, port_at) */
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT8(state, Etsoc1Reduce),
        VMSTATE_UINT8(op, Etsoc1Reduce),
        VMSTATE_UINT8(count, Etsoc1Reduce),
        VMSTATE_UINT8(start, Etsoc1Reduce),
        VMSTATE_UINT8(func, Etsoc1Reduce),
        VMSTATE_UINT8(frm, Etsoc1Reduce),
        VMSTATE_BOOL(tree, Etsoc1Reduce),
        VMSTATE_UINT32(partner, Etsoc1Reduce),
        VMSTATE_BOOL(ready, Etsoc1Reduce),
        VMSTATE_UINT32(ready_from, Etsoc1Reduce),
        VMSTATE_BOOL(lost, Etsoc1Reduce),
        VMSTATE_UINT32(lost_first, Etsoc1Reduce),
        VMSTATE_UINT32(lost_from, Etsoc1Reduce),
        VMSTATE_UINT64(t_issue, Etsoc1Reduce),
        VMSTATE_UINT64(t_done, Etsoc1Reduce),
        VMSTATE_UINT64(t_send_free, Etsoc1Reduce),
        VMSTATE_UINT8(port, Etsoc1Reduce),
        VMSTATE_UINT8(port_from, Etsoc1Reduce),
        VMSTATE_UINT64(port_out, Etsoc1Reduce),
        VMSTATE_UINT64(port_in, Etsoc1Reduce),
        VMSTATE_UINT64(port_wait, Etsoc1Reduce),
        VMSTATE_UINT8_V(port_hop, Etsoc1Reduce, 2),
        VMSTATE_UINT64_V(port_at, Etsoc1Reduce, 2),
        VMSTATE_END_OF_LIST()
    }
};

void etsoc1_minion_state_reset(Etsoc1MinionState *m)
{
    memset(m, 0, sizeof(*m));
}

static const VMStateDescription vmstate_etsoc1_minion = {
    .name = "etsoc1-minion",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT(reduce, Etsoc1MinionState, 1, vmstate_etsoc1_reduce,
                       Etsoc1Reduce),
        VMSTATE_UINT8(menable_shadows, Etsoc1MinionState),
        VMSTATE_UINT8(cache_ctl, Etsoc1MinionState),
        VMSTATE_UINT16(ucache_ctl, Etsoc1MinionState),
        VMSTATE_UINT8_2DARRAY(l1scp, Etsoc1MinionState, ETSOC1_L1SCP_LINES,
                              64),
        VMSTATE_UINT32_ARRAY(tenc, Etsoc1MinionState, 32 * ETSOC1_FLANES),
        VMSTATE_UINT8_2DARRAY(tenb, Etsoc1MinionState, 16, 64),
        VMSTATE_UINT8(tenb_rows, Etsoc1MinionState),
        VMSTATE_END_OF_LIST()
    }
};

/* What a hart last saw through global operations (etsoc1-sync.c) */
static const VMStateDescription vmstate_etsoc1_hart_sync = {
    .name = "etsoc1-hart-sync",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_BOOL(poll.valid, Etsoc1HartEt),
        VMSTATE_UINT64(poll.pa, Etsoc1HartEt),
        VMSTATE_UINT64(poll.val, Etsoc1HartEt),
        VMSTATE_UINT64(gate.t, Etsoc1HartEt),
        VMSTATE_UINT8(gate.released, Etsoc1HartEt),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_etsoc1_hart_sync_of = {
    .name = "etsoc1-hart-sync-of",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT(et_state, Etsoc1MinionCPU, 1, vmstate_etsoc1_hart_sync,
                       Etsoc1HartEt),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_etsoc1_shire_sync = {
    .name = TYPE_ETSOC1_SHIRE "/sync",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(hart, Etsoc1ShireState, ETSOC1_HARTS_PER_SHIRE, 1,
                             vmstate_etsoc1_hart_sync_of, Etsoc1MinionCPU),
        VMSTATE_STRUCT(scp_written, Etsoc1ShireState, 1,
                       vmstate_etsoc1_line_versions, Etsoc1LineClock),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * et_tensor_busy lives in CPURISCVState, which RISC-V does not migrate:
 * a minion's f registers are busy while a tensor_reduce is pending or has
 * not been seen by the hart, and while a TensorFMA or TensorQuant that
 * writes them has not completed by the hart's clock (etsoc1-tensor.c).
 * Set, the next F instruction catches up (etsoc1_reduce_observe), which
 * is harmless when there is nothing left to wait for.  A hart halted on
 * a poll or at the gate reads again (etsoc1-sync.c).
 */
/*
 * The caches' tags come in subsections that a hart without cache state
 * leaves out: empty them first, as the source had them (etsoc1-l1.c)
 */
static int etsoc1_shire_pre_load(void *opaque)
{
    Etsoc1ShireState *s = opaque;
    unsigned h;

    for (h = 0; h < ETSOC1_HARTS_PER_SHIRE; h++) {
        memset(&s->hart[h].et_state.l1, 0, sizeof(s->hart[h].et_state.l1));
        etsoc1_l2_forget(&s->hart[h]);
    }
    return 0;
}

/* The partition of the SRAM, if a program changed it */
static bool etsoc1_shire_sc_ctl_needed(void *opaque)
{
    Etsoc1ShireState *s = opaque;
    unsigned r, b;

    for (r = 0; r < ETSOC1_SC_REGIONS; r++) {
        for (b = 0; b < ETSOC1_SC_BANKS; b++) {
            if (s->sc_ctl[r][b] != sc_ctl_reset_value(s, r)) {
                return true;
            }
        }
    }
    return false;
}

static int etsoc1_shire_sc_ctl_post_load(void *opaque, int version_id)
{
    sc_l2_apply(opaque);
    return 0;
}

static const VMStateDescription vmstate_etsoc1_shire_sc_ctl = {
    .name = TYPE_ETSOC1_SHIRE "/sc-ctl",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = etsoc1_shire_sc_ctl_needed,
    .post_load = etsoc1_shire_sc_ctl_post_load,
    .fields = (VMStateField[]) {
        VMSTATE_UINT64_2DARRAY(sc_ctl, Etsoc1ShireState, ETSOC1_SC_REGIONS,
                               ETSOC1_SC_BANKS),
        VMSTATE_END_OF_LIST()
    }
};

static int etsoc1_shire_post_load(void *opaque, int version_id)
{
    Etsoc1ShireState *s = opaque;
    unsigned m;

    for (m = 0; m < ARRAY_SIZE(s->flb_n); m++) {
        if (s->flb_n[m] > ETSOC1_FLB_ROUND_MAX) {
            return -EINVAL;     /* the unit's arrivals would overflow */
        }
    }
    if (s->port_npend > ETSOC1_PORT_PEND_MAX) {
        return -EINVAL;
    }
    for (m = 0; m < ETSOC1_HARTS_PER_SHIRE; m++) {
        etsoc1_sync_resume(&s->hart[m]);
    }

    /*
     * The L1 mode a hart has taken (etsoc1_l1_sync): count the minions'
     * mode changes from 0 again, a hart behind its minion one behind.
     * With cache-model=off the tags hold no line, only locks, and each
     * hart takes its minion's mode now.  The memo of lines (env, not
     * migrated) starts empty.
     */
    for (m = 0; m < ETSOC1_MINIONS_PER_SHIRE; m++) {
        qatomic_set(&s->minion[m].l1_gen, 1);
    }
    for (m = 0; m < ETSOC1_HARTS_PER_SHIRE; m++) {
        Etsoc1MinionCPU *cpu = &s->hart[m];
        Etsoc1HartL1 *l1 = &cpu->et->l1;

        if (!cpu->parent_obj.cfg.et_l1) {
            l1->ctl = s->minion[m / ETSOC1_THREADS].cache_ctl;
            l1->behind = false;
        }
        l1->gen = l1->behind ? 0 : 1;
        etsoc1_l1_forget(cpu);
    }

    for (m = 0; m < ETSOC1_MINIONS_PER_SHIRE; m++) {
        Etsoc1MinionCPU *cpu = &s->hart[m * ETSOC1_THREADS];
        uint64_t now = etsoc1_now(cpu);

        cpu->parent_obj.env.et_tensor_busy =
            s->minion[m].reduce.state == ETSOC1_REDUCE_PENDING ||
            s->minion[m].reduce.t_done > now ||
            cpu->et->tensor.t[ETSOC1_TT_FREG] > now;
    }
    return 0;
}

static const VMStateDescription vmstate_etsoc1_shire = {
    .name = TYPE_ETSOC1_SHIRE,
    /*
     * 3: the per-minion state as one struct each; 4: the FLB arrivals;
     * 5: the ports' TensorLoad data
     */
    .version_id = 5,
    .minimum_version_id = 4,
    .pre_load = etsoc1_shire_pre_load,
    .post_load = etsoc1_shire_post_load,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(hart, Etsoc1ShireState, ETSOC1_HARTS_PER_SHIRE, 1,
                             vmstate_etsoc1_hart_et_of, Etsoc1MinionCPU),
        VMSTATE_STRUCT_ARRAY(hart, Etsoc1ShireState, ETSOC1_HARTS_PER_SHIRE, 1,
                             vmstate_etsoc1_hart_lanes, Etsoc1MinionCPU),
        VMSTATE_UINT64_ARRAY(minion_boot, Etsoc1ShireState, 4),
        VMSTATE_UINT64_ARRAY(mprot, Etsoc1ShireState, 4),
        VMSTATE_UINT64_ARRAY(ipi_redirect_pc, Etsoc1ShireState, 4),
        VMSTATE_UINT64_ARRAY(neigh_chicken, Etsoc1ShireState, 4),
        VMSTATE_UINT64(minion_feature, Etsoc1ShireState),
        VMSTATE_UINT64(shire_config, Etsoc1ShireState),
        VMSTATE_UINT64(thread0_disable, Etsoc1ShireState),
        VMSTATE_UINT64(thread1_disable, Etsoc1ShireState),
        VMSTATE_UINT64(ipi_redirect_filter, Etsoc1ShireState),
        VMSTATE_UINT64(broadcast_data, Etsoc1ShireState),
        VMSTATE_UINT8_ARRAY(flb, Etsoc1ShireState, 32),
        /* version 4: the FLB unit's arrivals of each round under way */
        VMSTATE_UINT16_ARRAY_V(flb_n, Etsoc1ShireState, 32, 4),
        VMSTATE_UINT64_2DARRAY_V(flb_arr, Etsoc1ShireState, 32,
                                 ETSOC1_FLB_ROUND_MAX, 4),
        /* version 4: the mesh port and its queue */
        VMSTATE_UINT64_ARRAY_V(port_free, Etsoc1ShireState, 2, 4),
        VMSTATE_UINT16_V(port_npend, Etsoc1ShireState, 4),
        VMSTATE_UINT16_ARRAY_V(port_pend, Etsoc1ShireState,
                               ETSOC1_PORT_PEND_MAX, 4),
        /* version 5: the ports' TensorLoad data */
        VMSTATE_UINT64_ARRAY_V(tload_free, Etsoc1ShireState, 2, 5),
        VMSTATE_STRUCT(scp_written, Etsoc1ShireState, 1,
                       vmstate_etsoc1_line_clock, Etsoc1LineClock),
        VMSTATE_UINT32(harts_passed, Etsoc1ShireState),
        VMSTATE_STRUCT_ARRAY(minion, Etsoc1ShireState,
                             ETSOC1_MINIONS_PER_SHIRE, 3, vmstate_etsoc1_minion,
                             Etsoc1MinionState),
        VMSTATE_UINT64(coop_mode, Etsoc1ShireState),
        VMSTATE_UINT32_2DARRAY(coop_all, Etsoc1ShireState, ETSOC1_TLOAD_FSMS,
                               ETSOC1_COOP_GROUPS),
        VMSTATE_UINT32_2DARRAY(coop_arrived, Etsoc1ShireState,
                               ETSOC1_TLOAD_FSMS, ETSOC1_COOP_GROUPS),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * []) {
        &vmstate_etsoc1_shire_sync,
        &vmstate_etsoc1_shire_sc_ctl,
        NULL
    }
};

static Property etsoc1_shire_props[] = {
    DEFINE_PROP_UINT32("shire-id", Etsoc1ShireState, shire_id, 0),
    /* reset value of minion_boot: where every hart starts */
    DEFINE_PROP_UINT64("reset-pc", Etsoc1ShireState, reset_pc,
                       ETSOC1_DEFAULT_RESET_PC),
    /* address handed to every hart in a1 */
    DEFINE_PROP_UINT64("fdt-addr", Etsoc1ShireState, fdt_addr, 0),
    /* reset value of mprot (the machine raises its DRAM size to -m's) */
    DEFINE_PROP_UINT8("mprot-reset", Etsoc1ShireState, mprot_reset,
                      ETSOC1_MPROT_RESET),
    /*
     * the SRAM the L2 cache has at reset (sc_l2_cache_ctl's set size):
     * the firmware's default split (2.5 MiB scratchpad, 0.5 MiB L2, 1 MiB
     * L3 slice); a program changes it through the register
     */
    DEFINE_PROP_SIZE("l2-size", Etsoc1ShireState, l2_size,
                     ETSOC1_L2_DEFAULT_SIZE),
    /* our choice: the sources give the read buffer no size (0: none) */
    DEFINE_PROP_UINT32("l2-rbuf-lines", Etsoc1ShireState, l2_rbuf_lines,
                       ETSOC1_L2_RBUF_LINES),
    DEFINE_PROP_LINK("chip", Etsoc1ShireState, chip, TYPE_ETSOC1_MACHINE,
                     Etsoc1MachineState *),
    DEFINE_PROP_LINK("timing", Etsoc1ShireState, timing, TYPE_ETSOC1_TIMING,
                     Etsoc1Timing *),
    DEFINE_PROP_LINK("sysmem", Etsoc1ShireState, sysmem, TYPE_MEMORY_REGION,
                     MemoryRegion *),
    DEFINE_PROP_END_OF_LIST(),
};

/*
 * Read-only QOM property "fcc": the credit counters of the 64 harts as
 * [[fcc0, fcc1], ...], for debugging a hung chip (qom-get) and for qtests.
 */
static void etsoc1_shire_get_fcc(Object *obj, Visitor *v, const char *name,
                                 void *opaque, Error **errp)
{
    Etsoc1ShireState *s = ETSOC1_SHIRE(obj);
    unsigned h, n;

    if (!visit_start_list(v, name, NULL, 0, errp)) {
        return;
    }
    for (h = 0; h < ETSOC1_HARTS_PER_SHIRE; h++) {
        visit_start_list(v, NULL, NULL, 0, &error_abort);
        for (n = 0; n < 2; n++) {
            uint16_t c = qatomic_read(&s->hart[h].et_state.credit.fcc[n]);

            visit_type_uint16(v, NULL, &c, &error_abort);
        }
        visit_end_list(v, NULL);
    }
    visit_end_list(v, NULL);
}

static void etsoc1_shire_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    ResettableClass *rc = RESETTABLE_CLASS(oc);

    esr_table_check(neigh_regs, ARRAY_SIZE(neigh_regs));
    esr_table_check(other_regs, ARRAY_SIZE(other_regs));
    esr_table_check(cache_regs, ARRAY_SIZE(cache_regs));
    dc->realize = etsoc1_shire_realize;
    dc->vmsd = &vmstate_etsoc1_shire;
    dc->user_creatable = false;
    device_class_set_props(dc, etsoc1_shire_props);
    rc->phases.enter = etsoc1_shire_reset_enter;
    object_class_property_add(oc, "fcc", "uint16 list",
                              etsoc1_shire_get_fcc, NULL, NULL, NULL);
    object_class_property_set_description(oc, "fcc",
        "Credit counters of the shire's harts, [[fcc0, fcc1], ...] "
        "(read-only)");
}

static const TypeInfo etsoc1_shire_info = {
    .name = TYPE_ETSOC1_SHIRE,
    .parent = TYPE_SYS_BUS_DEVICE,
    .instance_size = sizeof(Etsoc1ShireState),
    .class_init = etsoc1_shire_class_init,
};

static void etsoc1_shire_register_types(void)
{
    type_register_static(&etsoc1_shire_info);
}

type_init(etsoc1_shire_register_types)
