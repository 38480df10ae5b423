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
#include <math.h>
#include "qemu/log.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "qapi/visitor.h"
#include "sysemu/reset.h"
#include "exec/address-spaces.h"
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
#define ETSOC1_SC_BANKS 4
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
 * Shire cache registers (offset within one bank).  Only the cache-op state
 * machine's control is modelled: the model has no coalescing buffer and no
 * L2 contents to operate on (stores reach memory at once), so an operation
 * is done the moment it is started, and the state field reads idle.
 */
REG64(SC_IDX_COP_SM_CTL, 0x030)
REG64(SC_IDX_COP_SM_CTL_USER, 0x100)
    FIELD(SC_IDX_COP_SM_CTL_USER, STATE, 24, 8)
#define SC_COP_SM_IDLE 4

/* Reset values (sysemu cold/warm reset; docs/esr.md). */
#define MPROT_RESET              0x13
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

typedef struct Etsoc1EsrReg {
    const char *name;
    uint32_t offset;
    uint8_t count;
    uint8_t pp;
    Etsoc1EsrAccess access;
} Etsoc1EsrReg;

#define ESR_REG(n, off, cnt, p, acc) { \
    .name = n, .offset = off, .count = cnt, .pp = ETSOC1_PP_##p, .access = acc }

static const Etsoc1EsrReg neigh_regs[] = {
    ESR_REG("dummy1", A_NEIGH_DUMMY1, 1, M, ESR_RO),
    ESR_REG("minion_boot", A_NEIGH_MINION_BOOT, 1, M, ESR_RW),
    ESR_REG("mprot", A_NEIGH_MPROT, 1, M, ESR_RW),
    ESR_REG("dummy3", A_NEIGH_DUMMY3, 1, M, ESR_RO),
    ESR_REG("ipi_redirect_pc", A_NEIGH_IPI_REDIRECT_PC, 1, U, ESR_RW),
    ESR_REG("neigh_chicken", A_NEIGH_CHICKEN, 1, M, ESR_RW),
    ESR_REG("icache_err_log_address", A_NEIGH_ICACHE_ERR_LOG_ADDRESS, 1, M,
            ESR_RO),
};

static const Etsoc1EsrReg other_regs[] = {
    ESR_REG("minion_feature", A_MINION_FEATURE, 1, M, ESR_RW),
    ESR_REG("shire_config", A_SHIRE_CONFIG, 1, M, ESR_RW),
    ESR_REG("thread1_disable", A_THREAD1_DISABLE, 1, M, ESR_RW),
    ESR_REG("shire_cache_build_config", A_SHIRE_CACHE_BUILD_CONFIG, 1, M,
            ESR_RO),
    ESR_REG("shire_cache_revision_id", A_SHIRE_CACHE_REVISION_ID, 1, M, ESR_RO),
    ESR_REG("ipi_redirect_trigger", A_IPI_REDIRECT_TRIGGER, 1, U, ESR_W_RZ),
    ESR_REG("ipi_redirect_filter", A_IPI_REDIRECT_FILTER, 1, M, ESR_RW),
    ESR_REG("ipi_trigger", A_IPI_TRIGGER, 1, M, ESR_RW),
    ESR_REG("ipi_trigger_clear", A_IPI_TRIGGER_CLEAR, 1, M, ESR_W_RZ),
    ESR_REG("fcc_credinc", A_FCC_CREDINC, 4, U, ESR_W_RZ),
    ESR_REG("fast_local_barrier", A_FAST_LOCAL_BARRIER, 32, U, ESR_RW),
    ESR_REG("shire_power_pll_dll", A_SHIRE_POWER, 5, M, ESR_UNIMP),
    ESR_REG("thread0_disable", A_THREAD0_DISABLE, 1, M, ESR_RW),
    ESR_REG("shire_coop_mode", A_SHIRE_COOP_MODE, 1, S, ESR_RW),
    ESR_REG("broadcast_data", A_BROADCAST_DATA, 1, U, ESR_RW),
    ESR_REG("ubroadcast", A_BROADCAST, 1, U, ESR_W_RZ),
    ESR_REG("sbroadcast", A_BROADCAST, 1, S, ESR_W_RZ),
    ESR_REG("mbroadcast", A_BROADCAST, 1, M, ESR_W_RZ),
};

static const Etsoc1EsrReg cache_regs[] = {
    ESR_REG("sc_idx_cop_sm_ctl", A_SC_IDX_COP_SM_CTL, 1, M, ESR_RW),
    ESR_REG("sc_idx_cop_sm_ctl_user", A_SC_IDX_COP_SM_CTL_USER, 1, U, ESR_RW),
};

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

void etsoc1_event_trace(const Etsoc1Event *ev)
{
    trace_etsoc1_event(ev->kind, ev->src, ev->dst, ev->time);
    etsoc1_trace_json(ev);
}

/* Record that a credit on @counter arrives at time @t (0: no constraint). */
static void etsoc1_fcc_arrive(Etsoc1HartEt *et, unsigned counter, uint64_t t)
{
    uint64_t *at = et->fcc_at[counter];
    uint16_t *n = et->fcc_n[counter];
    unsigned i, last = 0;

    qemu_spin_lock(&et->fcc_lock);
    for (i = 0; i < ETSOC1_FCC_SLOTS && n[i]; i++) {
        last = at[i] > at[last] ? i : last;
    }
    if (i == ETSOC1_FCC_SLOTS) {
        i = last;                       /* merge into the latest */
        t = MAX(t, at[i]);
    }
    at[i] = t;
    n[i]++;
    qemu_spin_unlock(&et->fcc_lock);
}

/* The slot of the earliest pending credit, or ETSOC1_FCC_SLOTS. */
static unsigned etsoc1_fcc_first(const uint64_t *at, const uint16_t *n)
{
    unsigned i, first = ETSOC1_FCC_SLOTS;

    for (i = 0; i < ETSOC1_FCC_SLOTS; i++) {
        if (n[i] && (first == ETSOC1_FCC_SLOTS || at[i] < at[first])) {
            first = i;
        }
    }
    return first;
}

/*
 * When did the earliest pending credit on @counter arrive (0: none, or
 * no constraint)?  With @take, a wait took it.  Called by the hart itself.
 */
static uint64_t etsoc1_fcc_pending(Etsoc1HartEt *et, unsigned counter,
                                   bool take)
{
    uint64_t *at = et->fcc_at[counter];
    uint16_t *n = et->fcc_n[counter];
    unsigned first;
    uint64_t t = 0;

    qemu_spin_lock(&et->fcc_lock);
    first = etsoc1_fcc_first(at, n);
    if (first < ETSOC1_FCC_SLOTS) {
        t = at[first];
        n[first] -= take;
    }
    qemu_spin_unlock(&et->fcc_lock);
    return t;
}

uint64_t etsoc1_fcc_arrival(Etsoc1HartEt *et, unsigned counter)
{
    return etsoc1_fcc_pending(et, counter, true);
}

uint64_t etsoc1_fcc_earliest(Etsoc1HartEt *et, unsigned counter)
{
    return etsoc1_fcc_pending(et, counter, false);
}

/*
 * Deliver credit event @ev (dst = hart id) on @counter.  Returns false on
 * a 16-bit wrap, which also sets tensor_error[3].  Called with the BQL held.
 */
bool etsoc1_shire_credit(Etsoc1ShireState *s, unsigned counter,
                         const Etsoc1Event *ev)
{
    unsigned hart = ev->dst % ETSOC1_HARTS_PER_SHIRE;
    Etsoc1HartEt *et = &s->et[hart];
    uint16_t old = qatomic_read(&et->fcc[counter]), seen;

    etsoc1_event_trace(ev);
    etsoc1_fcc_arrive(et, counter, ev->time);   /* before the credit shows */
    while ((seen = qatomic_cmpxchg(&et->fcc[counter], old,
                                   (uint16_t)(old + 1))) != old) {
        old = seen;
    }
    trace_etsoc1_shire_credit(s->shire_id, hart, counter, (uint16_t)(old + 1));
    etsoc1_trace_credits(ev->dst, counter, ev->time, (uint16_t)(old + 1));
    if (qatomic_read(&et->wait) == ETSOC1_WAIT_FCC0 + counter) {
        etsoc1_minion_wake(&s->hart[hart]);
    }
    if (old == UINT16_MAX) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: shire %u hart %u fcc%u "
                      "overflow\n", s->shire_id, hart, counter);
        et->tensor_error |= ETSOC1_TENSOR_ERROR_FCC_WRAP;
        return false;
    }
    return true;
}

/* Departure and arrival of a credit-like event @ev that @sender sent. */
static void etsoc1_credit_times(Etsoc1Event *ev, Etsoc1MinionCPU *sender)
{
    if (sender) {
        ev->sent = etsoc1_arrival(sender, 0);
        ev->time = ev->sent + llround(etsoc1_credit_latency(ev->src,
                                                            ev->dst));
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
            s->et[h].ipi_at = MAX(s->et[h].ipi_at, ev.time);
            etsoc1_event_trace(&ev);
        } else if (writer == &s->hart[h] &&
                   (writer->parent_obj.env.mip & MIP_MSIP)) {
            /*
             * A hart that clears its own pending IPI has seen it arrive,
             * even when it woke from WFI without taking the interrupt.
             */
            etsoc1_advance_to(writer, s->et[h].ipi_at);
        }
        riscv_cpu_update_mip(&s->hart[h].parent_obj, MIP_MSIP,
                             BOOL_TO_MASK(raise));
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
        s->et[h].ipi_at = MAX(s->et[h].ipi_at, ev.time);
        etsoc1_event_trace(&ev);
        if (etsoc1_minion_stalled_in_u(cpu)) {
            etsoc1_minion_redirect(cpu,
                s->ipi_redirect_pc[h / ETSOC1_HARTS_PER_NEIGH]);
        } else {
            riscv_cpu_update_mip(&cpu->parent_obj,
                                 1ULL << ETSOC1_IRQ_BAD_IPI_REDIRECT,
                                 BOOL_TO_MASK(1));
        }
    }
}

/* ---- register file ------------------------------------------------------- */

static uint64_t esr_neigh_read(Etsoc1ShireState *s, unsigned neigh,
                               uint32_t off)
{
    switch (off) {
    case A_NEIGH_MINION_BOOT:
        return s->minion_boot[neigh];
    case A_NEIGH_MPROT:
        return s->mprot[neigh];
    case A_NEIGH_IPI_REDIRECT_PC:
        return s->ipi_redirect_pc[neigh];
    case A_NEIGH_CHICKEN:
        return s->neigh_chicken[neigh];
    default:
        return 0;   /* dummy and error-log registers */
    }
}

static void esr_neigh_write(Etsoc1ShireState *s, unsigned neigh, uint32_t off,
                            uint64_t val)
{
    switch (off) {
    case A_NEIGH_MINION_BOOT:
        /* Takes effect at the next warm reset; QEMU's reset is cold. */
        s->minion_boot[neigh] = val & MAKE_64BIT_MASK(0, 40);
        break;
    case A_NEIGH_MPROT:
        s->mprot[neigh] = val & 0x7f;
        break;
    case A_NEIGH_IPI_REDIRECT_PC:
        s->ipi_redirect_pc[neigh] = val;
        break;
    case A_NEIGH_CHICKEN:
        s->neigh_chicken[neigh] = val;
        break;
    default:
        /* a writable row of the ESR table without a case here */
        qemu_log_mask(LOG_UNIMP, "etsoc1: neighbourhood ESR 0x%x: write "
                      "not modelled, ignored\n", off);
        break;
    }
}

static uint64_t esr_other_read(Etsoc1ShireState *s, uint32_t reg, unsigned idx)
{
    switch (reg) {
    case A_MINION_FEATURE:
        return s->minion_feature;
    case A_SHIRE_CONFIG:
        return s->shire_config;
    case A_THREAD0_DISABLE:
        return s->thread0_disable;
    case A_THREAD1_DISABLE:
        return s->thread1_disable;
    case A_SHIRE_CACHE_BUILD_CONFIG:
        return BUILD_CONFIG_VALUE;
    case A_SHIRE_CACHE_REVISION_ID:
        return REVISION_ID_VALUE;
    case A_IPI_REDIRECT_FILTER:
        return s->ipi_redirect_filter;
    case A_IPI_TRIGGER: {
        uint64_t pending = 0;
        unsigned h;

        for (h = 0; h < ETSOC1_HARTS_PER_SHIRE; h++) {
            if (s->hart[h].parent_obj.env.mip & MIP_MSIP) {
                pending |= 1ULL << h;
            }
        }
        return pending;
    }
    case A_FAST_LOCAL_BARRIER:
        return qatomic_read(&s->flb[idx]);
    case A_BROADCAST_DATA:
        return s->broadcast_data;
    case A_SHIRE_COOP_MODE:
        return s->coop_mode;
    default:
        return 0;   /* write-only commands read as zero */
    }
}

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
    Etsoc1MachineState *m = ETSOC1_MACHINE(qdev_get_machine());
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

static void esr_other_write(Etsoc1ShireState *s, unsigned pp, uint32_t reg,
                            unsigned idx, uint64_t val)
{
    switch (reg) {
    case A_MINION_FEATURE:
        s->minion_feature = val & 0x3f;
        break;
    case A_SHIRE_CONFIG:
        s->shire_config = val & MAKE_64BIT_MASK(0, 26);
        break;
    case A_THREAD0_DISABLE:
    case A_THREAD1_DISABLE:
        if ((uint32_t)val) {
            qemu_log_mask(LOG_UNIMP, "etsoc1: shire %u: stopping harts with "
                          "thread%d_disable is not modelled\n", s->shire_id,
                          reg == A_THREAD1_DISABLE);
        }
        *(reg == A_THREAD0_DISABLE ? &s->thread0_disable :
          &s->thread1_disable) = (uint32_t)val;
        break;
    case A_IPI_REDIRECT_FILTER:
        s->ipi_redirect_filter = val;
        break;
    case A_IPI_TRIGGER:
        etsoc1_shire_ipi(s, val, true);
        break;
    case A_IPI_TRIGGER_CLEAR:
        etsoc1_shire_ipi(s, val, false);
        break;
    case A_FCC_CREDINC:
        etsoc1_shire_send_credits(s, idx, val);
        break;
    case A_FAST_LOCAL_BARRIER:
        /* a counter set by software starts a new round */
        qemu_mutex_lock(&s->flb_lock);
        s->flb[idx] = val;
        s->flb_at[idx] = 0;
        qemu_mutex_unlock(&s->flb_lock);
        break;
    case A_IPI_REDIRECT_TRIGGER:
        etsoc1_shire_ipi_redirect(s, val);
        break;
    case A_BROADCAST_DATA:
        s->broadcast_data = val;
        break;
    case A_SHIRE_COOP_MODE:
        s->coop_mode = val & 1;
        break;
    case A_BROADCAST:
        etsoc1_esr_broadcast(s, pp, val);
        break;
    default:
        /* a writable row of the ESR table without a case here */
        qemu_log_mask(LOG_UNIMP, "etsoc1: shire ESR 0x%x: write not "
                      "modelled, ignored\n", reg);
        break;
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
    riscv_raise_exception(&cpu->parent_obj.env, ETSOC1_EXCP_WAIT,
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
        *data = cache ? FIELD_DP64(0, SC_IDX_COP_SM_CTL_USER, STATE,
                                   SC_COP_SM_IDLE)
                : FIELD_EX64(addr, ESR, SUBREGION) == ESR_SUB_NEIGH
                ? esr_neigh_read(s, neigh, reg->offset)
                : esr_other_read(s, reg->offset, idx);
        trace_etsoc1_esr_read(s->shire_id, w->pp, addr, reg->name, idx, *data);
        if (hart && etsoc1_sync_plain_read(hart, &s->scp_written,
                                           esr_poll_key(s, addr), data, 8,
                                           etsoc1_now(hart))) {
            etsoc1_poll_exit_io(hart);
        }
        return MEMTX_OK;
    }
    trace_etsoc1_esr_write(s->shire_id, w->pp, addr, reg->name, idx, *data);
    if (cache) {
        /* a cache operation: done at once (above), nothing to keep */
    } else if (FIELD_EX64(addr, ESR, SUBREGION) == ESR_SUB_OTHER) {
        esr_other_write(s, w->pp, reg->offset, idx, *data);
        etsoc1_sync_plain_written(&s->scp_written, esr_poll_key(s, addr));
    } else {
        for (n = 0; n < ETSOC1_NEIGHS_PER_SHIRE; n++) {
            if (neigh == ESR_NEIGH_BROADCAST || n == neigh) {
                esr_neigh_write(s, n, reg->offset, *data);
                etsoc1_sync_plain_written(&s->scp_written, esr_poll_key(
                    s, FIELD_DP64(addr, ESR, NEIGH, n)));
            }
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
    r = address_space_rw(&address_space_memory, pa, attrs, buf, size, write);
    if (r == MEMTX_OK && cpu && !write &&
        etsoc1_sync_plain_read(cpu, lc, pa, buf, size,
                               etsoc1_global_arrival(cpu, pa))) {
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
            etsoc1_sync_written(lc, pa);
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
    unsigned n;

    memset(s->et, 0, sizeof(s->et));
    for (n = 0; n < ETSOC1_HARTS_PER_SHIRE; n++) {
        s->et[n].m[0] = 0xff;   /* our choice: every lane active at reset */
    }
    memset(s->flb, 0, sizeof(s->flb));
    memset(s->flb_at, 0, sizeof(s->flb_at));
    memset(s->reduce, 0, sizeof(s->reduce));
    for (n = 0; n < ETSOC1_HARTS_PER_SHIRE; n++) {
        s->hart[n].parent_obj.env.et_tensor_busy = 0;
    }
    memset(s->menable_shadows, 0, sizeof(s->menable_shadows));
    memset(s->cache_ctl, 0, sizeof(s->cache_ctl));
    memset(s->l1scp, 0, sizeof(s->l1scp));
    memset(s->tenc, 0, sizeof(s->tenc));
    memset(s->tenb, 0, sizeof(s->tenb));
    memset(s->tenb_rows, 0, sizeof(s->tenb_rows));
    memset(s->ucache_ctl, 0, sizeof(s->ucache_ctl));
    s->harts_passed = 0;
    for (n = 0; n < ETSOC1_NEIGHS_PER_SHIRE; n++) {
        s->minion_boot[n] = s->reset_pc;
        s->mprot[n] = MPROT_RESET;
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
    if (!s->sysmem) {
        error_setg(errp, "'sysmem' link not set");
        return;
    }

    qemu_mutex_init(&s->scp_written.lock);
    qemu_mutex_init(&s->flb_lock);
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
        cpu->et = &s->et[i];
        cpu->parent_obj.env.mhartid = s->shire_id * ETSOC1_HARTS_PER_SHIRE + i;
        qdev_prop_set_uint64(DEVICE(cpu), "resetvec", s->reset_pc);
        object_property_set_link(OBJECT(cpu), "memory", OBJECT(&s->view),
                                 &error_abort);
        if (!qdev_realize(DEVICE(cpu), NULL, errp)) {
            return;
        }
        qemu_register_reset(etsoc1_hart_reset, cpu);
    }
}

static const VMStateDescription vmstate_etsoc1_hart_et = {
    .name = "etsoc1-hart",
    .version_id = 2,      /* 2: ETSOC1_FCC_SLOTS 8 -> 40 */
    .minimum_version_id = 2,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32(wait, Etsoc1HartEt),
        VMSTATE_UINT16_ARRAY(fcc, Etsoc1HartEt, 2),
        VMSTATE_UINT64(tensor_error, Etsoc1HartEt),
        VMSTATE_UINT64(mbusaddr, Etsoc1HartEt),
        VMSTATE_UINT64(stall_pc, Etsoc1HartEt),
        VMSTATE_UINT64(tensor_mask, Etsoc1HartEt),
        VMSTATE_UINT64(tensor_conv_size, Etsoc1HartEt),
        VMSTATE_UINT64(tensor_conv_ctrl, Etsoc1HartEt),
        VMSTATE_UINT8_ARRAY(m, Etsoc1HartEt, 8),
        VMSTATE_UINT8(gsc_progress, Etsoc1HartEt),
        VMSTATE_UINT64_ARRAY(validation, Etsoc1HartEt, 4),
        VMSTATE_UINT64(stall, Etsoc1HartEt),
        VMSTATE_UINT64_2DARRAY(fcc_at, Etsoc1HartEt, 2, ETSOC1_FCC_SLOTS),
        VMSTATE_UINT16_2DARRAY(fcc_n, Etsoc1HartEt, 2, ETSOC1_FCC_SLOTS),
        VMSTATE_UINT64(ipi_at, Etsoc1HartEt),
        VMSTATE_UINT64_ARRAY(t_tensor, Etsoc1HartEt, ETSOC1_TT_COUNT),
        VMSTATE_UINT64_ARRAY(tensor_insns, Etsoc1HartEt, ETSOC1_TI_COUNT),
        VMSTATE_UINT8_ARRAY(pmu_event, Etsoc1HartEt, 6),
        VMSTATE_UINT64_ARRAY(pmu_base, Etsoc1HartEt, 6),
        VMSTATE_UINT32(tensor_coop, Etsoc1HartEt),
        VMSTATE_UINT8_ARRAY(coop_state, Etsoc1HartEt, ETSOC1_TLOAD_FSMS),
        VMSTATE_UINT8(coop_wait, Etsoc1HartEt),
        VMSTATE_UINT16_ARRAY(coop_mask, Etsoc1HartEt, ETSOC1_TLOAD_FSMS),
        VMSTATE_UINT64_ARRAY(coop_ctl, Etsoc1HartEt, ETSOC1_TLOAD_FSMS),
        VMSTATE_UINT64_ARRAY(coop_x31, Etsoc1HartEt, ETSOC1_TLOAD_FSMS),
        VMSTATE_END_OF_LIST()
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
    .version_id = 1,
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
        VMSTATE_END_OF_LIST()
    }
};

/* What a hart last saw through global operations (etsoc1-sync.c) */
static const VMStateDescription vmstate_etsoc1_hart_sync = {
    .name = "etsoc1-hart-sync",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_BOOL(poll_valid, Etsoc1HartEt),
        VMSTATE_UINT64(poll_pa, Etsoc1HartEt),
        VMSTATE_UINT64(poll_val, Etsoc1HartEt),
        VMSTATE_UINT64(sync_t, Etsoc1HartEt),
        VMSTATE_UINT8(sync_released, Etsoc1HartEt),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_etsoc1_shire_sync = {
    .name = TYPE_ETSOC1_SHIRE "/sync",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(et, Etsoc1ShireState, ETSOC1_HARTS_PER_SHIRE, 1,
                             vmstate_etsoc1_hart_sync, Etsoc1HartEt),
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
static int etsoc1_shire_post_load(void *opaque, int version_id)
{
    Etsoc1ShireState *s = opaque;
    unsigned m;

    for (m = 0; m < ETSOC1_HARTS_PER_SHIRE; m++) {
        etsoc1_sync_resume(&s->hart[m]);
    }

    for (m = 0; m < ETSOC1_MINIONS_PER_SHIRE; m++) {
        Etsoc1MinionCPU *cpu = &s->hart[m * ETSOC1_THREADS];
        uint64_t now = etsoc1_now(cpu);

        cpu->parent_obj.env.et_tensor_busy =
            s->reduce[m].state == ETSOC1_REDUCE_PENDING ||
            s->reduce[m].t_done > now ||
            cpu->et->t_tensor[ETSOC1_TT_FREG] > now;
    }
    return 0;
}

static const VMStateDescription vmstate_etsoc1_shire = {
    .name = TYPE_ETSOC1_SHIRE,
    .version_id = 2,
    .minimum_version_id = 1,
    .post_load = etsoc1_shire_post_load,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(et, Etsoc1ShireState, ETSOC1_HARTS_PER_SHIRE, 1,
                             vmstate_etsoc1_hart_et, Etsoc1HartEt),
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
        /* version 2: the FLB unit's latest arrival per counter */
        VMSTATE_UINT64_ARRAY_V(flb_at, Etsoc1ShireState, 32, 2),
        VMSTATE_STRUCT_ARRAY(reduce, Etsoc1ShireState, ETSOC1_MINIONS_PER_SHIRE,
                             1, vmstate_etsoc1_reduce, Etsoc1Reduce),
        VMSTATE_STRUCT(scp_written, Etsoc1ShireState, 1,
                       vmstate_etsoc1_line_clock, Etsoc1LineClock),
        VMSTATE_UINT8_ARRAY(menable_shadows, Etsoc1ShireState,
                            ETSOC1_MINIONS_PER_SHIRE),
        VMSTATE_UINT32(harts_passed, Etsoc1ShireState),
        VMSTATE_UINT8_ARRAY(cache_ctl, Etsoc1ShireState,
                            ETSOC1_MINIONS_PER_SHIRE),
        VMSTATE_BUFFER_UNSAFE(l1scp, Etsoc1ShireState, 0,
                              sizeof(((Etsoc1ShireState *)0)->l1scp)),
        VMSTATE_UINT32_2DARRAY(tenc, Etsoc1ShireState,
                               ETSOC1_MINIONS_PER_SHIRE, 32 * ETSOC1_FLANES),
        VMSTATE_BUFFER_UNSAFE(tenb, Etsoc1ShireState, 0,
                              sizeof(((Etsoc1ShireState *)0)->tenb)),
        VMSTATE_UINT8_ARRAY(tenb_rows, Etsoc1ShireState,
                            ETSOC1_MINIONS_PER_SHIRE),
        VMSTATE_UINT16_ARRAY(ucache_ctl, Etsoc1ShireState,
                             ETSOC1_MINIONS_PER_SHIRE),
        VMSTATE_UINT64(coop_mode, Etsoc1ShireState),
        VMSTATE_UINT32_2DARRAY(coop_all, Etsoc1ShireState, ETSOC1_TLOAD_FSMS,
                               ETSOC1_COOP_GROUPS),
        VMSTATE_UINT32_2DARRAY(coop_arrived, Etsoc1ShireState,
                               ETSOC1_TLOAD_FSMS, ETSOC1_COOP_GROUPS),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * []) {
        &vmstate_etsoc1_shire_sync,
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
            uint16_t c = qatomic_read(&s->et[h].fcc[n]);

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
