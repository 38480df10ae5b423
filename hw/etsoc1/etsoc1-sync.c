/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: halting polls and the global-read gate, so that what
 * a hart sees through memory, and when, follows the model's clocks and not
 * the host's order of the vCPU threads (docs/timing.md, "Polls and the
 * read gate").
 *
 * A global read is a global operation that leaves memory unchanged: an
 * atomic whose result equals the old value (amoorg rd, x0; amoaddg rd,
 * x0; a compare-and-swap that fails; an amomax that loses), except swaps,
 * which are writes by intent.  Each hart remembers the last word it read
 * or wrote with a global operation, and the value (etsoc1_sync_note).
 *
 *  - The gate: every global atomic and coherent global store, and every
 *    credit wait whose earliest credit lies in the hart's future, first
 *    waits, halted, until every hart that runs or is about to is past the
 *    time it takes effect, less the lookahead, and every hart at the
 *    gate before it in (time, hart) order on the same line has gone
 *    (etsoc1_sync_gate, etsoc1_gate_release).  Global memory and the credit counters then see
 *    the model's order; a write made early by a hart that ran ahead is
 *    not seen (etsoc1_line_value_at).  Harts halted on polls or in fabric
 *    waits do not hold the gate: they go on only at the time of what
 *    wakes them, no earlier than its sender's clock.
 *  - A poll is a read of that word that finds that value, as of when the
 *    read reaches the line, with nothing newer in memory.  The hart halts
 *    (no host CPU) until the line is written, and then sees the write at
 *    the write's time if that is later than its read (it would have gone
 *    on polling until then; etsoc1-l3.c, line_read).  With no hart that
 *    could write, it goes on after ETSOC1_POLL_IDLE_MS of host time, or,
 *    alone from the start, runs ETSOC1_POLL_BURST polls in a row before
 *    it naps, backing off while nothing writes: only the host or a device
 *    can write then.
 *
 * Releases are made by scans, one at a time under scan_lock (not the
 * BQL): when a hart halts on a poll or at the gate, when a TCG thread has
 * no hart left to run, and from a timer on the realtime clock while any
 * hart waits.
 */

#include "qemu/osdep.h"
#include "qemu/bitmap.h"
#include "qemu/main-loop.h"
#include "qemu/memalign.h"
#include "qemu/timer.h"
#include "hw/core/cpu.h"
#include "sysemu/runstate.h"
#include "sysemu/tcg.h"
#include "hw/etsoc1/etsoc1-timing.h"
#include "hw/etsoc1/etsoc1.h"
#include "hw/etsoc1/etsoc1-trace.h"
#include "trace.h"

/*
 * poll-halt=on: polls halt, reads are gated, and a pure read sees the
 * value as of its effect time.  Off, a read sees what memory holds, as a
 * hart woken by the host (whose commands carry no time) must.
 */
/* How a halted hart was let go (gate.released, and the trace event's) */
enum {
    ETSOC1_LET_GO = 1,          /* from the gate, or a lone poll's nap */
    ETSOC1_HANDED_ON = 2,       /* by the access before it at the gate */
    ETSOC1_PLAIN_LET_GO = 3,    /* a plain poll no writer can precede */
};

bool etsoc1_sync_enabled(Etsoc1MinionCPU *cpu)
{
    return cpu->shire->chip->poll_halt;
}

/* Is @why a wait of this unit's, at the gate or on a poll? */
static bool etsoc1_sync_wait(uint32_t why)
{
    return why == ETSOC1_WAIT_GATE || why == ETSOC1_WAIT_POLL;
}

/*
 * Parked harts.  A hart halted with no ET wait (in WFI, after a stall, or
 * stopped), or in a wait for a credit, a tensor_reduce's end or a
 * cooperative load's partners, cannot act until its own thread runs
 * again, and that thread first asks has_work, which unparks it
 * (etsoc1_sync_unpark) before the hart leaves its halt; what ends one of
 * those waits unparks the hart first (etsoc1_minion_wake), before the
 * sender's clock moves on, as an IPI does.  So a scan that looks only at
 * harts not parked sees every hart that etsoc1_next_act could find
 * acting, at the cost of the harts that may act, not of the chip
 * (docs/timing.md, "Cost").  Harts at the gate, on a poll or waiting for
 * a host input are never parked: the scans let them go.  Only the
 * hart's own thread parks it; anyone may unpark.
 */
static bool etsoc1_parks(uint32_t why)
{
    switch (why) {
    case ETSOC1_WAIT_NONE:
    case ETSOC1_WAIT_STOPPED:
    case ETSOC1_WAIT_FCC0:
    case ETSOC1_WAIT_FCC1:
    case ETSOC1_WAIT_REDUCE:
    case ETSOC1_WAIT_COOP:
        return true;
    default:
        return false;
    }
}

/*
 * The eDMA's next step waits for the harts (etsoc1_link_turn): one that
 * halts behind it or parks may have let it go, so put its timer due now
 * rather than at its next look.  Thread-safe (timer_mod_anticipate).
 */
static void etsoc1_link_kick(Etsoc1MachineState *m)
{
    QEMUTimer *kick = qatomic_read(&m->link_kick);

    if (kick && qatomic_read(&m->link_head_t) != UINT64_MAX) {
        timer_mod_anticipate(kick, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    }
}

/* *@p = MAX(*@p, @v), atomically */
static void etsoc1_input_max(uint64_t *p, uint64_t v)
{
    uint64_t old = qatomic_read(p), seen;

    while (v > old) {
        seen = qatomic_cmpxchg(p, old, v);
        if (seen == old) {
            break;
        }
        old = seen;
    }
}

/* Another hart's clock, read from outside its thread: never ahead. */
static uint64_t etsoc1_clock_peek(Etsoc1MinionCPU *cpu)
{
    CPURISCVState *env = &cpu->parent_obj.env;

    return qatomic_read(&env->et_insns) + qatomic_read(&env->et_cycles) +
           qatomic_read(&cpu->et->stall);
}

/*
 * Bounds by word.  The scans ask "may a hart still act before t?" of
 * every hart not parked.  Each word of awake (64 harts) keeps a lower
 * bound on the times from which its harts may act (etsoc1_next_act), and
 * a look passes over a word whose bound is past what it asks about.  A
 * hart's time only grows while it runs or waits at the gate (a clock, or
 * a gated access's time, which is past the clock); what lets it act from
 * an earlier time lowers its word first (etsoc1_sync_lower), before the
 * sender's clock moves on: an unpark (every wake), an interrupt raised at
 * a minion (once raised), a hart leaving the gate, a clock set by a CSR,
 * a reset or a migration's load.  A look at a word's harts stores their
 * least time as its new bound (etsoc1_act_word), unless a lowering came
 * meanwhile: the epoch says so.
 */
typedef struct Etsoc1ActWord {
    uint64_t lb;        /* no awake hart of the word acts before it */
    uint32_t epoch;     /* one more at every lowering */
    uint32_t looks;     /* looks at its harts under way */
} QEMU_ALIGNED(64) Etsoc1ActWord;

/*
 * @cpu may act from an earlier time than its word's bound says, or from
 * its clock where it could not act before (@always: its clock may have
 * gone back).  Unless no look at the word is under way and its bound is
 * at or below the hart's clock already, the word is looked at again: its
 * epoch first, so that a look that began before and stores its bound
 * after sees the change (etsoc1_act_word); the bound is 0 before the
 * caller goes on.  A look that begins after the caller published what
 * lets the hart act sees it (the full barriers on both sides).
 */
void etsoc1_sync_lower(Etsoc1MinionCPU *cpu, bool always)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    Etsoc1ActWord *w;

    if (!m || !m->act) {
        return;
    }
    w = &m->act[BIT_WORD(etsoc1_minion_cs(cpu)->cpu_index)];
    smp_mb();       /* what lets it act is published before the looks */
    if (!always && !qatomic_read(&w->looks) &&
        qatomic_read(&w->lb) <= etsoc1_clock_peek(cpu)) {
        return;
    }
    qatomic_inc(&w->epoch);
    smp_mb();
    qatomic_set(&w->lb, 0);
    smp_mb();
}

/*
 * On @cpu's thread, which halted: park it if it waits for nothing the
 * scans let go (etsoc1_parks).  Not while an interrupt that ends its WFI
 * is pending, or what it waits for came: it is about to run
 * (etsoc1_next_act), though its thread has not yet asked has_work (under
 * thread=single the round may first run every other vCPU).  One raised
 * or sent after the look unparks it (etsoc1_shire_ipi,
 * etsoc1_minion_wake) or is seen here.
 */
void etsoc1_sync_park(Etsoc1MinionCPU *cpu)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    unsigned i = etsoc1_minion_cs(cpu)->cpu_index;
    unsigned long bit = BIT_MASK(i);
    uint32_t why = qatomic_read(&cpu->et->wait);

    if (m && m->awake && etsoc1_parks(why) &&
        (qatomic_read(&m->awake[BIT_WORD(i)]) & bit)) {
        /*
         * The stamping of a host input looks at the harts not parked and
         * at this: the clock first, then the bit (the RMW is a barrier).
         */
        if (m->input_q) {
            etsoc1_input_max(&m->parked_max, MAX(etsoc1_now(cpu),
                                                 cpu->et->host.obs_t));
        }
        qatomic_and(&m->awake[BIT_WORD(i)], ~bit);
        /* cleared before the look; a raiser or sender publishes, then sets */
        smp_mb();
        if (riscv_cpu_all_pending(&cpu->parent_obj.env) ||
            etsoc1_minion_wait_over(cpu, why)) {
            qatomic_or(&m->awake[BIT_WORD(i)], bit);
        } else {
            etsoc1_link_kick(m);
        }
    }
}

/*
 * @cpu may act from now on: before it leaves a halt, at a reset, or
 * before an IPI is raised at it (its own thread asks has_work only when
 * it runs, and under thread=single the round may first run every other
 * vCPU: the scans must see it from the raise on)
 */
void etsoc1_sync_unpark(Etsoc1MinionCPU *cpu)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    unsigned i = etsoc1_minion_cs(cpu)->cpu_index;
    unsigned long bit = BIT_MASK(i);

    smp_mb();   /* what ends its wait is published before the look */
    if (m && m->awake && !(qatomic_read(&m->awake[BIT_WORD(i)]) & bit)) {
        qatomic_or(&m->awake[BIT_WORD(i)], bit);
    }
    /*
     * even if it was not parked (halted, not parked yet).  What ends its
     * wait is published: the callers that raise an interrupt or clear
     * cs->halted after this lower its word again once they have.
     */
    etsoc1_sync_lower(cpu, false);
}

/*
 * Every minion hart of @m whose bit is set in @map (awake: those not
 * parked; waiters), as @cpu (index @i).  Other threads set and clear bits
 * meanwhile: find_next_bit_atomic().
 */
#define ETSOC1_MAP_FOREACH(m, map, i, cpu) \
    for ((i) = find_next_bit_atomic(map, (m)->minion_slots, 0); \
         (i) < (m)->minion_slots; \
         (i) = find_next_bit_atomic(map, (m)->minion_slots, (i) + 1)) \
        if (!((cpu) = (m)->minion[i])) { } else
#define ETSOC1_AWAKE_FOREACH(m, i, cpu) \
    ETSOC1_MAP_FOREACH(m, (m)->awake, i, cpu)
/* a hart at the gate or on a poll is never parked: a subset of awake */
#define ETSOC1_WAITERS_FOREACH(m, i, cpu) \
    ETSOC1_MAP_FOREACH(m, (m)->waiters, i, cpu)

/* The same, for the harts of word @w of awake (@bits: what is left) */
#define ETSOC1_WORD_FOREACH(m, w, bits, i, cpu) \
    for ((bits) = qatomic_read(&(m)->awake[w]); (bits); \
         (bits) &= (bits) - 1) \
        if ((i) = (w) * BITS_PER_LONG + ctz64(bits), \
            !((cpu) = (m)->minion[i])) { } else

/*
 * Is @cpu, halted in ET wait @why (read once by the caller), about to run
 * (what it waits for came)?  A hart in WFI is not: it waits for an
 * interrupt, which comes from a hart that runs or from outside.
 */
static bool etsoc1_woken(Etsoc1MinionCPU *cpu, uint32_t why)
{
    return why != ETSOC1_WAIT_GATE && etsoc1_minion_wait_over(cpu, why);
}

/*
 * Is @cpu, halted in WFI or a stall's sleep (@why), about to run because
 * an interrupt that ends it is pending?  It may then act from its own
 * clock: it has not taken the interrupt yet, and a WFI with interrupts
 * off goes on without taking it.
 */
static bool etsoc1_irq_woken(Etsoc1MinionCPU *cpu, uint32_t why)
{
    return (why == ETSOC1_WAIT_NONE || why == ETSOC1_WAIT_STALL) &&
           riscv_cpu_all_pending(&cpu->parent_obj.env);
}

/*
 * May @cpu still act, and from when?  A hart at the gate acts at its
 * access's time (*@gated true), one that runs or is about to from its
 * clock; any other waits for what only a running hart or the outside
 * can send.
 */
static bool etsoc1_next_act(Etsoc1MinionCPU *cpu, uint64_t *t, bool *gated)
{
    uint32_t why = qatomic_read(&cpu->et->wait);

    *gated = why == ETSOC1_WAIT_GATE;
    if (*gated) {
        *t = cpu->et->gate.t;
    } else if (!qatomic_read(&etsoc1_minion_cs(cpu)->halted) ||
               etsoc1_woken(cpu, why) || etsoc1_irq_woken(cpu, why)) {
        *t = etsoc1_clock_peek(cpu);
    } else {
        return false;
    }
    return true;
}

/*
 * Lower *@lb, a word's bound, to @cpu's clock if it is halted on a poll
 * or for a host input (etsoc1_next_act found it unable to act): what ends
 * those waits (a line's write, a host input) is published before the hart
 * is woken and its word lowered, by the host too, whose writes have no
 * clock that the second look could see move on (etsoc1_gate_open).
 */
static void etsoc1_act_idle(Etsoc1MinionCPU *cpu, uint64_t *lb)
{
    uint32_t why = qatomic_read(&cpu->et->wait);

    if (why == ETSOC1_WAIT_POLL || why == ETSOC1_WAIT_HOST) {
        *lb = MIN(*lb, etsoc1_clock_peek(cpu));
    }
}

/*
 * What a look at a word gives each of its harts that may act: the time
 * @t from which it may (at the gate if @at_gate).  False: stop the look.
 */
typedef bool Etsoc1ActVisit(Etsoc1MinionCPU *cpu, uint64_t t, bool at_gate,
                            void *opaque);

/*
 * Look at the harts of word @w, giving each that may act to @visit.
 * Unless @visit stops the look (then false), their least time becomes
 * the word's bound, or 0 if a lowering came since the look began (its
 * epoch, read before the harts; etsoc1_sync_lower): the next look then
 * looks at them again.  The looks under way are counted, for the
 * lowerings' skip.
 */
static bool etsoc1_act_word(Etsoc1MachineState *m, unsigned w,
                            Etsoc1ActVisit *visit, void *opaque)
{
    Etsoc1ActWord *aw = &m->act[w];
    uint64_t t, lb = UINT64_MAX;
    Etsoc1MinionCPU *cpu;
    unsigned long bits;
    uint32_t epoch;
    unsigned i;
    bool at_gate;

    qatomic_inc(&aw->looks);    /* a full barrier: before the epoch */
    epoch = qatomic_read(&aw->epoch);
    ETSOC1_WORD_FOREACH(m, w, bits, i, cpu) {
        if (!etsoc1_next_act(cpu, &t, &at_gate)) {
            etsoc1_act_idle(cpu, &lb);
            continue;
        }
        lb = MIN(lb, t);
        if (!visit(cpu, t, at_gate, opaque)) {
            qatomic_dec(&aw->looks);
            return false;
        }
    }
    qatomic_store_release(&aw->lb, lb);
    smp_mb();   /* the bound, then the epoch: see etsoc1_sync_lower */
    if (qatomic_read(&aw->epoch) != epoch) {
        qatomic_set(&aw->lb, 0);
    }
    qatomic_dec(&aw->looks);
    return true;
}

/* etsoc1_others_mins' look at a hart */
typedef struct Etsoc1MinsLook {
    Etsoc1MinionCPU *self;
    bool halting;
    uint64_t *running, *any;
} Etsoc1MinsLook;

/*
 * Does @self, which is halting in an ET wait (its thread scans before it
 * sets cs->halted), run on once halted: what it waits for came, or an
 * interrupt that ends the wait is pending?  Then it acts from its clock,
 * as etsoc1_next_act says of a halted hart so woken.
 */
static bool etsoc1_halting_runs(Etsoc1MinionCPU *self)
{
    uint32_t why = qatomic_read(&self->et->wait);

    return etsoc1_woken(self, why) || etsoc1_irq_woken(self, why);
}

static bool etsoc1_mins_visit(Etsoc1MinionCPU *cpu, uint64_t t, bool at_gate,
                              void *opaque)
{
    Etsoc1MinsLook *look = opaque;

    if (cpu != look->self ||
        (look->halting && !at_gate && etsoc1_halting_runs(cpu))) {
        *look->any = MIN(*look->any, t);
        if (!at_gate) {
            *look->running = MIN(*look->running, t);
        }
    }
    return true;
}

/*
 * The lowest times from which a minion hart other than @self may act
 * (etsoc1_next_act): *@running among those not at the gate, *@any among
 * all; UINT64_MAX for none.  @halting: @self halts in an ET wait (a
 * scan's), and counts from its clock if it runs on once halted
 * (etsoc1_halting_runs): a credit may have come since its wait began,
 * and the sender's clock gone past it.  Exact below @bound: a word whose
 * bound is at or past it gives that bound to both, unlooked at (with
 * UINT64_MAX, only a word none of whose harts may act).
 */
static void etsoc1_others_mins(Etsoc1MachineState *m, Etsoc1MinionCPU *self,
                               bool halting, uint64_t bound,
                               uint64_t *running, uint64_t *any)
{
    Etsoc1MinsLook look = {
        .self = self, .halting = halting, .running = running, .any = any,
    };
    unsigned w, words = BITS_TO_LONGS(m->minion_slots);
    uint64_t lb;

    *running = *any = UINT64_MAX;
    for (w = 0; w < words; w++) {
        lb = qatomic_load_acquire(&m->act[w].lb);
        if (lb >= bound) {
            *running = MIN(*running, lb);
            *any = MIN(*any, lb);
        } else {
            etsoc1_act_word(m, w, etsoc1_mins_visit, &look);
        }
    }
}

/*
 * The chip's time, for the timers on emulated time (etsoc1-pu-timer.c):
 * the earliest time from which a minion hart may still act
 * (etsoc1_next_act, and a hart halted in WFI whose wake-up interrupt is
 * pending, which is about to run), UINT64_MAX if none may.  *@idle: no
 * CPU at all may act, the service processor included, so only a timer can
 * wake one.  A halt or a wake between two looks at a hart can make it
 * wrong by that hart; its caller looks again (the main loop, with the
 * BQL, where host input and devices wake harts, so none of theirs is
 * missed).  Costs a look at every CPU: the timers call it at a host pace
 * (their "scan-ms"), never per event.
 */
uint64_t etsoc1_sync_horizon(bool *idle)
{
    uint64_t min = UINT64_MAX, t;
    Etsoc1MachineState *m = NULL;
    Etsoc1MinionCPU *cpu;
    CPUState *cs;
    bool gated;

    *idle = true;
    CPU_FOREACH(cs) {
        cpu = etsoc1_minion_of(cs);
        if (cpu && !m) {
            m = cpu->shire->chip;
        }
        if (!cpu) {
            if (!qatomic_read(&cs->halted) || cpu_has_work(cs)) {
                *idle = false;      /* the service processor runs */
            }
            continue;
        }
        if (!etsoc1_next_act(cpu, &t, &gated)) {
            continue;
        }
        min = MIN(min, t);
        *idle = false;
    }
    /*
     * A host input still to come acts at its T: no expiry, and no warp,
     * past it before it is in (etsoc1_input_apply_due raises those up
     * to T first).
     */
    if (m && m->input_q && !g_queue_is_empty(m->input_q)) {
        min = MIN(min, qatomic_read(&m->input_head_t));
        *idle = false;
    }
    /* so does the eDMA's next step (etsoc1_link_turn) */
    if (m && qatomic_read(&m->link_head_t) != UINT64_MAX) {
        min = MIN(min, qatomic_read(&m->link_head_t));
        *idle = false;
    }
    return min;
}

/*
 * Had the chip come to rest before @before, on its own?  Every CPU halted
 * with nothing to wake it (the service processor too), whatever the host
 * queue holds, and every minion's clock below @before.  The clocks make it
 * a fact of the model, not of when the host looked: a hart that ran at a
 * time >= @before could have been running when @before was reached, and
 * its clock never goes back, so a chip at rest with every clock below
 * @before was at rest there in every run (etsoc1_hang_at_rest).
 */
bool etsoc1_sync_at_rest(uint64_t before)
{
    Etsoc1MinionCPU *cpu;
    CPUState *cs;
    uint64_t t;
    bool gated;

    CPU_FOREACH(cs) {
        cpu = etsoc1_minion_of(cs);
        if (!cpu) {
            if (!qatomic_read(&cs->halted) || cpu_has_work(cs)) {
                return false;       /* the service processor runs */
            }
            continue;
        }
        /* a DMA still to take a step will raise its DONE */
        if (qatomic_read(&cpu->shire->chip->link_head_t) != UINT64_MAX ||
            etsoc1_next_act(cpu, &t, &gated) ||
            etsoc1_clock_peek(cpu) >= before) {
            return false;
        }
    }
    return true;
}

/* One of etsoc1_others_mins: harts at the gate count if @gated. */
static uint64_t etsoc1_others_min(Etsoc1MachineState *m,
                                  Etsoc1MinionCPU *self, bool gated)
{
    uint64_t running, any;

    etsoc1_others_mins(m, self, false, UINT64_MAX, &running, &any);
    return gated ? any : running;
}

/*
 * Does a hart at the gate with key (@t, @a) go before one at (@u, @b)?
 * Equal times go in hart order, so that two can never wait for each other.
 */
static bool etsoc1_gate_before(uint64_t t, int a, uint64_t u, int b)
{
    return t < u || (t == u && a < b);
}

/*
 * Can a hart that acts from @u (its clock, or its access's time at the
 * gate) still do something that takes effect at or before @t?  Nothing
 * it does reaches another line or hart sooner than the lookahead
 * (etsoc1_sync_start), so only if @u + lookahead <= @t.
 */
static bool etsoc1_may_precede(Etsoc1MachineState *m, uint64_t u,
                               uint64_t t)
{
    return u <= t && t - u >= m->sync_lookahead;
}

/*
 * Must two accesses at the gate go one after the other?  Those on one
 * line clock slot do, reads too: which goes first decides which one
 * takes the L3 miss, and so both times.  Two on one L3 sub-bank do: it
 * serves writes in the order they pass (an operation may turn out a
 * read only when it runs).  Two that may reach DRAM at the same memory
 * shire do: it serves requests in the order they pass.  So do two
 * TensorLoads whose data takes a mesh link both (etsoc1_tload_out).
 */
static bool etsoc1_gate_conflict(const Etsoc1GateAccess *a,
                                 const Etsoc1GateAccess *b)
{
    unsigned i;

    if ((a->slot && a->slot == b->slot) ||
        (a->bank && a->bank == b->bank) || (a->dram & b->dram)) {
        return true;
    }
    for (i = 0; i < ARRAY_SIZE(a->links); i++) {
        if (a->links[i] & b->links[i]) {
            return true;
        }
    }
    return false;
}

/*
 * Does the owner of the access at the gate at (@t, hart @index) (a
 * sender, for a ready that reaches its bit) still act before it?  Its
 * wake by another hart comes later than @t whenever that hart is within
 * the lookahead of @t (etsoc1_sync_lookahead), so one look is enough.
 */
static bool etsoc1_owner_before(Etsoc1MinionCPU *owner, uint64_t t, int index)
{
    uint64_t u;
    bool at_gate;

    return owner && etsoc1_next_act(owner, &u, &at_gate) &&
           (at_gate ? etsoc1_gate_before(u, etsoc1_minion_cs(owner)->cpu_index,
                                         t, index)
                    : u <= t);
}

/*
 * Does @cpu, another hart than @self (at the gate as hart @me), which may
 * act from @u (at the gate if @at_gate: etsoc1_next_act), keep @self from
 * going at @t with access @a?  If it runs or is about to and can still
 * act before @t; if it is at the gate before @self in (time, hart) order
 * with an access that conflicts with @a, or can act before @t once let
 * go (a hart let go runs from its own time, and may send or write what
 * @self must see).  Harts halted on polls do not hold the gate.  Never
 * when @u > @t (etsoc1_gate_scan passes over such words).
 */
static bool etsoc1_gate_blocks(Etsoc1MachineState *m, Etsoc1MinionCPU *cpu,
                               uint64_t u, bool at_gate, uint64_t t, int me,
                               const Etsoc1GateAccess *a)
{
    return at_gate ? etsoc1_gate_before(u, etsoc1_minion_cs(cpu)->cpu_index,
                                        t, me) &&
                     (etsoc1_gate_conflict(a, &cpu->et->gate.access) ||
                      etsoc1_may_precede(m, u, t))
                   : etsoc1_may_precede(m, u, t);
}

/* etsoc1_gate_scan's look at a hart */
typedef struct Etsoc1GateLook {
    Etsoc1MachineState *m;
    Etsoc1MinionCPU *self, *hint, *blocker;
    uint64_t t;
    int me;
    const Etsoc1GateAccess *a;
} Etsoc1GateLook;

static bool etsoc1_gate_visit(Etsoc1MinionCPU *cpu, uint64_t u, bool at_gate,
                              void *opaque)
{
    Etsoc1GateLook *look = opaque;

    if (cpu != look->self && cpu != look->hint &&
        etsoc1_gate_blocks(look->m, cpu, u, at_gate, look->t, look->me,
                           look->a)) {
        look->blocker = cpu;
        return false;
    }
    return true;
}

/*
 * May @self go at @t with access @a?  Only when no other hart keeps it
 * (etsoc1_gate_blocks), nor the access's owner (etsoc1_owner_before) can
 * still act before it.  The hart that kept it the last time is asked
 * first (et->gate.hint): a hart that must halt finds out in one look,
 * not a look at every hart, most of the time.  A word whose bound is
 * past @t has no hart that keeps it: only the others are looked at.
 */
static bool etsoc1_gate_scan(Etsoc1MinionCPU *self, uint64_t t,
                             const Etsoc1GateAccess *a)
{
    Etsoc1MachineState *m = self->shire->chip;
    Etsoc1GateLook look = {
        .m = m, .self = self, .hint = self->et->gate.hint, .t = t,
        .me = etsoc1_minion_cs(self)->cpu_index, .a = a,
    };
    unsigned w, words = BITS_TO_LONGS(m->minion_slots);
    uint64_t u;
    bool at_gate;

    if (look.hint && etsoc1_next_act(look.hint, &u, &at_gate) &&
        etsoc1_gate_blocks(m, look.hint, u, at_gate, t, look.me, a)) {
        return false;
    }
    for (w = 0; w < words; w++) {
        if (qatomic_load_acquire(&m->act[w].lb) <= t &&
            !etsoc1_act_word(m, w, etsoc1_gate_visit, &look)) {
            self->et->gate.hint = look.blocker;
            return false;
        }
    }
    return !etsoc1_owner_before(a->owner, t, look.me);
}

/*
 * A hart that a write, credit or IPI wakes is marked woken before its
 * sender's clock moves on, but one pass may read the woken hart before
 * the sender and the sender after: seeing the sender past @t, it would
 * miss the woken hart behind @t.  A second pass sees it.
 */
static bool etsoc1_gate_open(Etsoc1MinionCPU *self, uint64_t t,
                             const Etsoc1GateAccess *a)
{
    return etsoc1_gate_scan(self, t, a) && etsoc1_gate_scan(self, t, a);
}

/*
 * Does a host input still to come act at or before @t?  Then an access
 * at @t waits at the gate until it is in (etsoc1_input_apply_due): inputs
 * get no lookahead.  @cpu first publishes @t, so that an input stamped
 * meanwhile is stamped after it (etsoc1_input_post: either this sees the
 * stamping's 0, or the stamping sees @t).
 */
static bool etsoc1_gate_host_before(Etsoc1MachineState *m,
                                    Etsoc1MinionCPU *cpu, uint64_t t)
{
    if (!m->input_q) {
        return false;
    }
    qatomic_set(&cpu->et->host.obs_t, MAX(cpu->et->host.obs_t, t));
    smp_mb();
    return qatomic_read(&m->input_head_t) <= t;
}

/*
 * Does the eDMA's next step come at or before @t?  Then an access at @t
 * waits at the gate until it is taken (etsoc1_link_turn), and the eDMA is
 * told: the harts it waited for may be past it now.
 */
static bool etsoc1_gate_link_before(Etsoc1MachineState *m, uint64_t t)
{
    if (qatomic_read(&m->link_head_t) > t) {
        return false;
    }
    etsoc1_link_kick(m);
    return true;
}

/*
 * Remember @val as what @cpu last saw at @pa through a global operation;
 * count the reads in a row that saw it.
 */
void etsoc1_sync_note(Etsoc1MinionCPU *cpu, hwaddr pa, uint64_t val)
{
    Etsoc1HartEt *et = cpu->et;

    if (et->poll.valid && et->poll.pa == pa && et->poll.val == val) {
        et->poll.count++;
    } else {
        et->poll.count = 0;
        et->poll.naps = 0;      /* something changed: full pace again */
    }
    et->poll.valid = true;
    et->poll.pa = pa;
    et->poll.val = val;
}

/*
 * The harts at the gate, kept in (time, hart) order as they come and go
 * (a binary heap, under gate_lock), so that a scan reads the ones it may
 * let go, from the earliest on (etsoc1_gate_window), not every hart that
 * waits there.  The key is kept in the node: no look at the hart to
 * compare.
 */
typedef struct Etsoc1GateNode {
    uint64_t t;
    int index;
    Etsoc1MinionCPU *cpu;
} Etsoc1GateNode;

/* The earliest time at the gate, UINT64_MAX if none.  Under gate_lock. */
static uint64_t etsoc1_heap_top(Etsoc1MachineState *m)
{
    return m->gate_heap_n ? m->gate_heap[0].t : UINT64_MAX;
}

static bool etsoc1_node_before(const Etsoc1GateNode *a,
                               const Etsoc1GateNode *b)
{
    return etsoc1_gate_before(a->t, a->index, b->t, b->index);
}

static void etsoc1_heap_put(Etsoc1MachineState *m, unsigned i,
                            Etsoc1GateNode node)
{
    m->gate_heap[i] = node;
    m->gate_heap_pos[node.index] = i + 1;
}

/* the node at @i, moved up or down to its place */
static void etsoc1_heap_fix(Etsoc1MachineState *m, unsigned i)
{
    Etsoc1GateNode node = m->gate_heap[i];
    unsigned c;

    while (i && etsoc1_node_before(&node, &m->gate_heap[(i - 1) / 2])) {
        etsoc1_heap_put(m, i, m->gate_heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    while ((c = 2 * i + 1) < m->gate_heap_n) {
        if (c + 1 < m->gate_heap_n &&
            etsoc1_node_before(&m->gate_heap[c + 1], &m->gate_heap[c])) {
            c++;
        }
        if (!etsoc1_node_before(&m->gate_heap[c], &node)) {
            break;
        }
        etsoc1_heap_put(m, i, m->gate_heap[c]);
        i = c;
    }
    etsoc1_heap_put(m, i, node);
}

/* @cpu leaves the heap, if it is in it.  With gate_lock held. */
static void etsoc1_heap_remove(Etsoc1MachineState *m, Etsoc1MinionCPU *cpu)
{
    unsigned *pos_of = &m->gate_heap_pos[etsoc1_minion_cs(cpu)->cpu_index];
    unsigned pos = *pos_of;

    if (!pos) {
        return;
    }
    *pos_of = 0;
    if (pos - 1 < --m->gate_heap_n) {
        m->gate_heap[pos - 1] = m->gate_heap[m->gate_heap_n];
        etsoc1_heap_fix(m, pos - 1);
    }
}

/* @cpu, at the gate for gate.t, joins the heap.  With gate_lock held. */
static void etsoc1_heap_push(Etsoc1MachineState *m, Etsoc1MinionCPU *cpu)
{
    if (m->gate_heap_n == m->gate_heap_len) {
        m->gate_heap_len = MAX(64, m->gate_heap_len * 2);
        m->gate_heap = g_renew(Etsoc1GateNode, m->gate_heap,
                               m->gate_heap_len);
    }
    m->gate_heap[m->gate_heap_n] = (Etsoc1GateNode) {
        .t = cpu->et->gate.t, .index = etsoc1_minion_cs(cpu)->cpu_index,
        .cpu = cpu,
    };
    etsoc1_heap_fix(m, m->gate_heap_n++);
}

/* @cpu is in no wait at the gate or on a poll.  With gate_lock held. */
static void etsoc1_waiters_clear(Etsoc1MachineState *m, Etsoc1MinionCPU *cpu)
{
    unsigned i = etsoc1_minion_cs(cpu)->cpu_index;

    qatomic_and(&m->waiters[BIT_WORD(i)], ~BIT_MASK(i));
    etsoc1_heap_remove(m, cpu);
}

/*
 * @cpu enters wait @why (at the gate or on a poll) for time @t, a new
 * wait number (etsoc1_sync_release_locked).  With gate_lock held.
 */
static void etsoc1_sync_enter_locked(Etsoc1MinionCPU *cpu, Etsoc1Wait why,
                                     uint64_t t)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    Etsoc1HartEt *et = cpu->et;

    etsoc1_heap_remove(m, cpu);     /* a wait it left without a leave */
    et->gate.t = t;
    et->gate.halted_ms = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    m->sync_enters++;
    qatomic_set(&m->sync_waiting, true);
    if (why == ETSOC1_WAIT_GATE) {
        etsoc1_heap_push(m, cpu);
        qatomic_set(&m->gate_enters, m->gate_enters + 1);
        qatomic_set(&m->gate_waiting, true);
    } else {
        /* seen by the scans from before the wait (etsoc1_sync_scan) */
        qatomic_or(&m->waiters[BIT_WORD(etsoc1_minion_cs(cpu)->cpu_index)],
                   BIT_MASK(etsoc1_minion_cs(cpu)->cpu_index));
    }
    qatomic_set(&et->gate.wait_seq, et->gate.wait_seq + 1);
    /*
     * a release of an earlier wait that was never taken (its instruction
     * ran again and did not come to the gate) does not let this one go
     */
    qatomic_set(&et->gate.released, 0);
    smp_wmb();      /* the scan reads wait_seq, then wait */
    qatomic_set(&et->wait, why);
    /* from @t, before its clock: lowered once a look sees the wait */
    if (why == ETSOC1_WAIT_GATE && t < etsoc1_clock_peek(cpu)) {
        etsoc1_sync_lower(cpu, true);
    }
    trace_etsoc1_sync_halt(cpu->parent_obj.env.mhartid, why, t);
    etsoc1_trace_wait_begin(etsoc1_hart(cpu), etsoc1_clock_peek(cpu), why,
                            why == ETSOC1_WAIT_POLL ? et->poll.pa : t);
}

static Etsoc1ReadStep etsoc1_sync_halt(Etsoc1MinionCPU *cpu, Etsoc1Wait why,
                                       uint64_t t)
{
    Etsoc1MachineState *m = cpu->shire->chip;

    etsoc1_mutex_lock(&m->gate_lock);
    etsoc1_sync_enter_locked(cpu, why, t);
    qemu_mutex_unlock(&m->gate_lock);
    return ETSOC1_READ_HALT;
}

/*
 * @cpu, on its own thread, leaves a wait at the gate or on a poll (if it
 * is in one), under gate_lock: a release is made only to a hart still in
 * the wait it was meant for (etsoc1_sync_release_locked), so it is taken
 * here or never made.  A release that came after the hart left (a scan
 * and the hand-on of the access before it both let it go, and it ran
 * between the two) would let its next access pass the gate out of order.
 * Returns how the wait was let go: 0 if it was not (woken by a write, or
 * no wait).
 */
uint8_t etsoc1_sync_leave(Etsoc1MinionCPU *cpu)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    Etsoc1HartEt *et = cpu->et;
    uint32_t why = qatomic_read(&et->wait);
    uint8_t how;

    if (!etsoc1_sync_wait(why)) {
        return 0;
    }
    etsoc1_mutex_lock(&m->gate_lock);
    qatomic_set(&et->wait, ETSOC1_WAIT_NONE);
    if (why == ETSOC1_WAIT_GATE) {
        /*
         * from its access to its clock, once a look sees it run: a look
         * that began before this and read it at the gate is under way
         * (looks), so the word is lowered; one that begins after reads
         * its clock
         */
        etsoc1_sync_lower(cpu, false);
    }
    etsoc1_waiters_clear(m, cpu);
    how = qatomic_xchg(&et->gate.released, 0);
    qemu_mutex_unlock(&m->gate_lock);
    return how;
}

/*
 * May @cpu go on with something that takes effect at @t, which a hart
 * still behind @t could change (an earlier credit it sends)?  If not,
 * @cpu halts at the gate (the caller restarts its instruction) until
 * every running hart is past @t.  Always yes with poll-halt=off.
 */
/* A credit wait's access at the gate: no line, no owner */
static const Etsoc1GateAccess etsoc1_credit_access;

bool etsoc1_sync_gate(Etsoc1MinionCPU *cpu, uint64_t t,
                      const Etsoc1GateAccess *a)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    Etsoc1HartEt *et = cpu->et;
    bool released;

    if (!m || !m->poll_halt) {
        return true;
    }
    released = etsoc1_sync_leave(cpu);
    qatomic_set(&et->wait, ETSOC1_WAIT_NONE);   /* any other wait is over */
    if (released) {
        return true;    /* let go from the gate, or a poll let go */
    }
    if (!a) {
        a = &etsoc1_credit_access;
    }
    if (!etsoc1_gate_host_before(m, cpu, t) &&
        !etsoc1_gate_link_before(m, t) && etsoc1_gate_open(cpu, t, a)) {
        return true;
    }
    et->gate.access = *a;
    etsoc1_sync_halt(cpu, ETSOC1_WAIT_GATE, t);
    return false;
}

/*
 * @cpu is halted in credit wait @why, and a credit came whose earliest
 * arrival @t lies past its clock: woken, it would only halt at the gate
 * for @t (write_fcc).  Put it there now, as that halt would, so that the
 * scan that lets it go wakes it once, not twice.  False if it was not
 * (it left the wait, or a host input or an eDMA step may come first:
 * etsoc1_sync_gate looks at those on the hart's own thread); the caller
 * then wakes it.  It is unparked first, so that the scans see it from
 * before the sender's clock moves on, as a woken hart.
 */
bool etsoc1_sync_credit_gate(Etsoc1MinionCPU *cpu, uint32_t why, uint64_t t)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    Etsoc1HartEt *et = cpu->et;
    bool moved = false;

    if (!m || !m->poll_halt || m->input_q ||
        qatomic_read(&m->link_head_t) <= t || t <= etsoc1_clock_peek(cpu)) {
        return false;
    }
    etsoc1_sync_unpark(cpu);
    etsoc1_mutex_lock(&m->gate_lock);
    if (qatomic_read(&et->wait) == why &&
        qatomic_read(&etsoc1_minion_cs(cpu)->halted) &&
        !qatomic_read(&et->gate.released)) {
        et->gate.access = etsoc1_credit_access;
        etsoc1_sync_enter_locked(cpu, ETSOC1_WAIT_GATE, t);
        moved = true;
    }
    qemu_mutex_unlock(&m->gate_lock);
    if (moved) {
        etsoc1_sync_halting(cpu);
    }
    return moved;
}

/*
 * A global read by @cpu of @size bytes at @pa (in line clock @lc, whose
 * lock the caller holds) that finds @cur in memory, after it passed the
 * gate (etsoc1_amo_lock, etsoc1_sync_gate, which also took any release
 * of an earlier halt): go on, or halt on a poll (the caller then
 * restarts the instruction, charging nothing).
 */
Etsoc1ReadStep etsoc1_sync_read(Etsoc1MinionCPU *cpu, Etsoc1LineClock *lc,
                                hwaddr pa, unsigned size, uint64_t cur)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    Etsoc1HartEt *et = cpu->et;
    Etsoc1LineWord w = { .pa = pa, .size = size, .old = cur };
    /* timed where the read takes effect, as the gate is */
    uint64_t now = etsoc1_global_arrival(cpu, pa);
    unsigned i;

    if (!m->poll_halt) {
        return ETSOC1_READ_DONE;
    }
    if (et->poll.valid && et->poll.pa == pa && et->poll.val == cur &&
        etsoc1_line_value_at(lc, &w, now) == cur) {
        if (etsoc1_others_min(m, cpu, true) == UINT64_MAX &&
            et->poll.count < ETSOC1_POLL_BURST >> et->poll.naps) {
            return ETSOC1_READ_DONE;    /* alone: only the host can write */
        }
        i = etsoc1_line_slot(pa);
        et->poll.lc = lc;
        et->poll.slot = i;
        et->poll.gen = qatomic_read(&lc->gen[i]);
        et->poll.count = 0;
        et->poll.plain = false;
        qatomic_set(&lc->polled[i], true);
        return etsoc1_sync_halt(cpu, ETSOC1_WAIT_POLL, now);
    }
    return ETSOC1_READ_DONE;
}

/*
 * A read that the gate does not order: a load from another shire's
 * scratchpad, an ESR, a coherent global vector load (docs/timing.md,
 * "Plain polls").  @cpu found the @size bytes at @val at @pa, a read that
 * reaches it at @arrive (@timed: the caller times it at @lc, after the
 * line's last global write); the writes there that other
 * harts make through the fabric count in @lc's gen[] at @pa's slot.
 * Called before the read is charged (with @lc's lock held, or none).  True: a poll;
 * the hart halts and the caller restarts the instruction, charging
 * nothing.
 *
 * A poll is the same value at the same word as the hart's last such
 * read, while another hart may act (a lone poller spins as before: only
 * the host or a device can write).  It halts until the line is written
 * through the fabric (it then reads no earlier than the write took
 * effect: the caller's timing sees to it for a @timed read, else the
 * hart waits for the line's last global write or the write that woke
 * it, etsoc1_sync_plain_written), or until every hart that may act is
 * past its next read (etsoc1_sync_scan): the write it waits for may be
 * one the fabric does not see (the scratchpad's own shire writes it as
 * local memory).  Let go, it reads again at its own time and goes on
 * whatever it finds.  A write through the fabric that the host has not
 * made yet then takes effect after its next read, so that read (halted
 * again, and woken by the write) sees it at the write's time, as it
 * would have had the host made it first: when the scan looks is not
 * part of what the hart sees.  Only a change that no line clock saw is
 * read at the time the scan chose, the least clock of the harts that
 * may write, which no such write still to come can precede.
 */
bool etsoc1_sync_plain_read(Etsoc1MinionCPU *cpu, Etsoc1LineClock *lc,
                            hwaddr pa, const void *val, unsigned size,
                            uint64_t arrive, bool timed)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    Etsoc1HartEt *et = cpu->et;
    unsigned i = etsoc1_line_slot(pa);
    uint64_t bound, spacing = 0;
    bool repeat, let_go;

    if (!m || !m->poll_halt || !lc || et->poll.helper_access) {
        return false;
    }
    /*
     * Let go by the scan: this read goes on.  Halting it again because
     * another poller let go in the same scan has not run yet would keep
     * such pollers halting and letting each other go for ever under
     * thread=single.
     */
    let_go = etsoc1_sync_leave(cpu) == ETSOC1_PLAIN_LET_GO;
    bound = et->poll.bound;
    et->poll.bound = 0;
    assert(size <= sizeof(et->poll.plain_val));
    repeat = et->poll.plain_valid && et->poll.plain_pa == pa &&
             et->poll.plain_size == size &&
             !memcmp(et->poll.plain_val, val, size);
    if (!repeat) {
        /*
         * It may see a write that another hart made ahead in time (the
         * poll woken by it, or let go by the scan, or a first read after
         * the host ran that hart first): no earlier than the line's last
         * write took effect, as a timed read (line_clock).
         */
        uint64_t line = etsoc1_line_tag(pa), w = 0;

        if (qatomic_read(&lc->plain_line[i]) == line) {
            w = qatomic_read(&lc->plain_at[i]);
        }
        if (!timed && qatomic_read(&lc->line[i]) == line) {
            w = MAX(w, qatomic_read(&lc->at[i]));
        }
        if (let_go && qatomic_read(&lc->gen[i]) == et->poll.gen) {
            w = MAX(w, bound);  /* a change no line clock saw */
        }
        if (w > arrive) {
            etsoc1_stall(cpu, w - arrive);
            arrive = w;
        }
    } else if (arrive > et->poll.plain_arrive) {
        spacing = arrive - et->poll.plain_arrive;
    }
    et->poll.plain_valid = true;
    et->poll.plain_pa = pa;
    et->poll.plain_size = size;
    et->poll.plain_arrive = arrive;
    memcpy(et->poll.plain_val, val, size);
    if (!repeat || let_go || etsoc1_others_min(m, cpu, true) == UINT64_MAX) {
        return false;
    }
    et->poll.lc = lc;
    et->poll.slot = i;
    et->poll.gen = qatomic_read(&lc->gen[i]);
    et->poll.plain = true;
    et->poll.next = arrive + spacing;
    qatomic_set(&lc->polled[i], true);
    etsoc1_sync_halt(cpu, ETSOC1_WAIT_POLL, arrive);
    return true;
}

/*
 * A write to @pa that no round trip times (an ESR, a local atomic, a
 * coherent store) took effect at @t: count it in @lc's gen[] and wake
 * the polls on it, which see it no earlier than @t.
 */
void etsoc1_sync_plain_written(Etsoc1MachineState *m, Etsoc1LineClock *lc,
                               hwaddr pa, uint64_t t)
{
    unsigned i = etsoc1_line_slot(pa);

    qatomic_set(&lc->plain_at[i], t);
    qatomic_set(&lc->plain_line[i], etsoc1_line_tag(pa));
    smp_wmb();      /* a poll woken by gen[] reads plain_at[] after it */
    qatomic_inc(&lc->gen[i]);
    etsoc1_sync_written(m, lc, pa);
}

/* For has_work: may a hart halted on a poll or at the gate go on? */
bool etsoc1_sync_has_work(Etsoc1MinionCPU *cpu)
{
    Etsoc1HartEt *et = cpu->et;

    if (qatomic_read(&et->gate.released)) {
        return true;
    }
    return qatomic_read(&et->wait) == ETSOC1_WAIT_POLL &&
           (!et->poll.lc ||
            qatomic_read(&et->poll.lc->gen[et->poll.slot]) != et->poll.gen);
}

/*
 * Let @cpu go from its wait number @seq (at the gate, or a poll that
 * nothing can write now) if it is still in that wait and was not let go
 * yet (etsoc1_sync_leave).  With gate_lock held.
 */
static void etsoc1_sync_release_locked(Etsoc1MinionCPU *cpu, uint8_t how,
                                       uint32_t seq)
{
    Etsoc1HartEt *et = cpu->et;
    uint32_t why = qatomic_read(&et->wait);

    if (!etsoc1_sync_wait(why) || et->gate.wait_seq != seq ||
        qatomic_read(&et->gate.released)) {
        return;
    }
    trace_etsoc1_sync_release(cpu->parent_obj.env.mhartid, how, et->gate.t);
    qatomic_set(&et->gate.released, how);
    if (CPU(cpu) != current_cpu) {
        etsoc1_minion_wake(cpu);
    }
}

/* etsoc1_sync_release_locked, for a scan (gate_lock not held) */
static void etsoc1_sync_release(Etsoc1MachineState *m, Etsoc1MinionCPU *cpu,
                                uint8_t how, uint32_t seq)
{
    etsoc1_mutex_lock(&m->gate_lock);
    etsoc1_sync_release_locked(cpu, how, seq);
    qemu_mutex_unlock(&m->gate_lock);
}

/* A hart at the gate, as the scan sees it */
typedef struct Etsoc1GateEntry {
    uint64_t t;
    int index;
    Etsoc1MinionCPU *cpu;
    bool may_release;       /* halted there, not let go yet */
    bool going;             /* let go, or handed on by the one before */
    uint32_t seq;           /* its wait_seq when the scan saw it */
} Etsoc1GateEntry;

static gint etsoc1_gate_cmp(gconstpointer a, gconstpointer b)
{
    const Etsoc1GateEntry *x = a, *y = b;

    if (x->t != y->t) {
        return x->t < y->t ? -1 : 1;
    }
    return x->index - y->index;
}

/* Swap two entries */
static void etsoc1_gate_swap(Etsoc1GateEntry *a, Etsoc1GateEntry *b)
{
    Etsoc1GateEntry x = *a;

    *a = *b;
    *b = x;
}

/*
 * Put the @want least of @e[0..@n) (etsoc1_gate_cmp: no two equal) first,
 * in any order: a quickselect, on average a pass over each
 */
static void etsoc1_gate_select(Etsoc1GateEntry *e, unsigned n,
                               unsigned want)
{
    unsigned lo = 0, hi = n, s, i;

    while (hi - lo > 1) {
        /* the pivot (the middle one) to the end, the lesser before s */
        etsoc1_gate_swap(&e[lo + (hi - lo) / 2], &e[hi - 1]);
        for (s = i = lo; i < hi - 1; i++) {
            if (etsoc1_gate_cmp(&e[i], &e[hi - 1]) < 0) {
                etsoc1_gate_swap(&e[i], &e[s++]);
            }
        }
        etsoc1_gate_swap(&e[s], &e[hi - 1]);
        if (want <= s) {
            hi = s;
        } else if (want > s + 1) {
            lo = s + 1;
        } else {
            return;
        }
    }
}

/*
 * @e joins chain @key (a line clock slot, an L3 sub-bank, a memory shire
 * or a mesh link) in this release, as its last.  The entry before it
 * there is *@prev, unless another chain of @e gave another one: then
 * *@two.
 */
static void etsoc1_gate_chain(Etsoc1MachineState *m, const void *key,
                              Etsoc1GateEntry *e, Etsoc1GateEntry **prev,
                              bool *two)
{
    Etsoc1GateEntry *p;

    if (!key) {
        return;
    }
    p = g_hash_table_lookup(m->gate_slots, key);
    g_hash_table_insert(m->gate_slots, (gpointer)key, e);
    if (p && *prev && p != *prev) {
        *two = true;
    } else if (p) {
        *prev = p;
    }
}

/*
 * Let go from the gate what may go, in (time, hart) order: every hart at
 * a time below the lookahead window (the earliest hart at the gate, or
 * running, plus the lookahead), except one whose access conflicts with an
 * earlier one there (etsoc1_gate_conflict).  Within the window, harts
 * whose accesses do not conflict cannot affect one another: whatever one
 * does once let go takes effect past the window.  A hart behind a
 * conflicting one that goes is handed on to it (etsoc1_sync_done).
 * @running: the lowest clock of the harts not at the gate.
 */
static void etsoc1_gate_release(Etsoc1MachineState *m, uint64_t running,
                                Etsoc1GateEntry *e, unsigned n)
{
    /*
     * a host input or an eDMA step still to come goes first
     * (etsoc1_gate_host_before, etsoc1_gate_link_before)
     */
    uint64_t head = MIN(qatomic_read(&m->input_head_t),
                        qatomic_read(&m->link_head_t));
    unsigned i, first = 0, k = 0;
    uint64_t t0;

    if (!n) {
        return;
    }
    /*
     * Only the window is looked at, in order, and whether a hart lies in
     * it depends on its time alone: sort those, not every hart at the
     * gate (a barrier's thousand credit waits).
     */
    for (i = 1; i < n; i++) {
        if (etsoc1_gate_cmp(&e[i], &e[first]) < 0) {
            first = i;
        }
    }
    t0 = e[first].t;
    if (etsoc1_may_precede(m, running, t0)) {
        return;         /* a running hart may still go before them all */
    }
    for (i = 0; i < n; i++) {
        /* the window: e[first], and what lies within the lookahead of it */
        if (i == first || (!etsoc1_may_precede(m, running, e[i].t) &&
                           !etsoc1_may_precede(m, t0, e[i].t))) {
            e[k++] = e[i];
        }
    }
    n = k;
    /*
     * Only accesses that may conflict (a line clock slot, an L3 sub-bank,
     * a memory shire; a TensorLoad's links come with its out-port's slot)
     * need the (time, hart) order, for their chains: they go first,
     * sorted.  The others (credit waits: a barrier's thousand) are let
     * go in any order.  An access read here that its hart has left since
     * names another wait, and is let go by neither.
     */
    for (i = k = 0; i < n; i++) {
        const Etsoc1GateAccess *a = &e[i].cpu->et->gate.access;

        if (qatomic_read(&a->slot) || qatomic_read(&a->bank) ||
            qatomic_read(&a->dram)) {
            etsoc1_gate_swap(&e[k++], &e[i]);
        }
    }
    if (k > ETSOC1_GATE_ORDER_MAX) {
        /*
         * Only the earliest of them go into chains this time; the rest
         * come after them all, and a later scan, once those have gone,
         * takes them.  A full-chip program's start puts thousands of
         * DRAM requests at the gate at once, and every scan sorted them
         * all while their chains handed on one at a time.
         */
        etsoc1_gate_select(e, k, ETSOC1_GATE_ORDER_MAX);
        memmove(&e[ETSOC1_GATE_ORDER_MAX], &e[k], (n - k) * sizeof(*e));
        n -= k - ETSOC1_GATE_ORDER_MAX;
        k = ETSOC1_GATE_ORDER_MAX;
    }
    if (k > 1) {
        qsort(e, k, sizeof(*e), etsoc1_gate_cmp);
    }
    g_hash_table_remove_all(m->gate_slots);
    etsoc1_mutex_lock(&m->gate_lock);   /* once for the batch */
    for (i = 0; i < n; i++) {
        const Etsoc1GateAccess *a = &e[i].cpu->et->gate.access;
        Etsoc1GateEntry *prev = NULL;
        bool two = false;
        unsigned j;

        e[i].going = !e[i].may_release &&
                     qatomic_read(&e[i].cpu->et->gate.released);
        etsoc1_gate_chain(m, a->slot, &e[i], &prev, &two);
        etsoc1_gate_chain(m, a->bank, &e[i], &prev, &two);
        /* each memory shire is one more chain (etsoc1_gate_conflict) */
        for (j = 0; j < ETSOC1_MEMSHIRES; j++) {
            if (a->dram & BIT(j)) {
                etsoc1_gate_chain(m, m->memshire[j], &e[i], &prev, &two);
            }
        }
        /* and each mesh link (a load's route: its slot is its out-port) */
        for (j = find_first_bit(a->links, ETSOC1_MESH_LINKS);
             j < ETSOC1_MESH_LINKS;
             j = find_next_bit(a->links, ETSOC1_MESH_LINKS, j + 1)) {
            etsoc1_gate_chain(m, &m->mesh->link_free[j], &e[i], &prev, &two);
        }
        if (!e[i].may_release || e[i].t >= head ||
            etsoc1_owner_before(a->owner, e[i].t, e[i].index)) {
            continue;
        }
        if (two) {
            continue;   /* behind two others: a later scan lets it go */
        }
        if (!prev) {
            etsoc1_sync_release_locked(e[i].cpu, ETSOC1_LET_GO, e[i].seq);
            e[i].going = true;
        } else if (prev->going) {
            /* prev hands the line on once its access is done */
            Etsoc1HartEt *pet = prev->cpu->et;

            if (qatomic_read(&pet->wait) == ETSOC1_WAIT_GATE &&
                pet->gate.wait_seq == prev->seq && !pet->gate.next) {
                pet->gate.next = e[i].cpu;
                pet->gate.next_seq = e[i].seq;
                e[i].going = true;
            }
        }
    }
    qemu_mutex_unlock(&m->gate_lock);
}

/*
 * @cpu made the access it waited at the gate for (etsoc1_amo_unlock), or
 * left the gate without it (an interrupt, a reset): let the next hart on
 * that line go, if the scan handed it on to @cpu and it still waits
 * there for the same access.  Every change into or out of the gate is
 * made under gate_lock, so that a hand-on never reaches a later wait.
 */
void etsoc1_sync_done(Etsoc1MinionCPU *cpu)
{
    Etsoc1HartEt *et = cpu ? cpu->et : NULL;
    Etsoc1MachineState *m;
    Etsoc1MinionCPU *next;

    if (!et || !qatomic_read(&et->gate.next)) {
        return;
    }
    m = cpu->shire->chip;
    etsoc1_mutex_lock(&m->gate_lock);
    next = et->gate.next;
    et->gate.next = NULL;
    if (next) {     /* only if still in the wait it was handed on in */
        etsoc1_sync_release_locked(next, ETSOC1_HANDED_ON, et->gate.next_seq);
    }
    qemu_mutex_unlock(&m->gate_lock);
}

/*
 * Into m->gate_entries, the harts at the gate that a release may let go
 * with @running the least clock of the others (etsoc1_gate_release): those
 * before the lookahead past the earlier of @running and the earliest at
 * the gate, walked from the heap's top (a node's children come after it,
 * so each branch stops at its first node past that).  Only the heap's
 * nodes are read under gate_lock, which every hart that comes to the gate
 * or leaves it takes; each hart's wait is read after, as the wait number
 * first (a release names it), then the wait and its time.  A hart that
 * left the gate without etsoc1_sync_leave leaves the heap.  Returns how
 * many; *@first: the earliest time at the gate, UINT64_MAX if none;
 * *@enters: how many times harts had come to the gate then.
 */
static unsigned etsoc1_gate_window(Etsoc1MachineState *m,
                                   Etsoc1MinionCPU *self, uint64_t running,
                                   uint64_t *first, uint32_t *enters)
{
    Etsoc1MinionCPU *stale[16];
    unsigned top = 0, n = 0, n_stale = 0, k, i, at;
    uint64_t end;

    etsoc1_mutex_lock(&m->gate_lock);
    *enters = m->gate_enters;
    *first = etsoc1_heap_top(m);
    if (*first == UINT64_MAX) {
        qemu_mutex_unlock(&m->gate_lock);
        return 0;
    }
    end = MIN(running, *first);
    end = end > UINT64_MAX - m->sync_lookahead ? UINT64_MAX
                                               : end + m->sync_lookahead;
    if (m->gate_walk_len < m->gate_heap_len) {
        m->gate_walk_len = m->gate_heap_len;
        m->gate_walk = g_renew(unsigned, m->gate_walk, m->gate_walk_len);
    }
    if (m->gate_entries_len < m->gate_heap_len) {
        m->gate_entries_len = m->gate_heap_len;
        m->gate_entries = g_renew(Etsoc1GateEntry, m->gate_entries,
                                  m->gate_entries_len);
    }
    m->gate_walk[top++] = 0;
    while (top) {
        Etsoc1GateNode *node = &m->gate_heap[at = m->gate_walk[--top]];

        if (node->t >= end) {
            continue;
        }
        for (i = 2 * at + 1; i < m->gate_heap_n && i <= 2 * at + 2; i++) {
            m->gate_walk[top++] = i;    /* a stack no deeper than the heap */
        }
        m->gate_entries[n++] = (Etsoc1GateEntry) { .cpu = node->cpu };
    }
    qemu_mutex_unlock(&m->gate_lock);

    for (i = k = 0; i < n; i++) {
        Etsoc1MinionCPU *cpu = m->gate_entries[i].cpu;
        Etsoc1HartEt *et = cpu->et;
        CPUState *cs = etsoc1_minion_cs(cpu);
        /* a release for a wait the hart left is not made: wait_seq first */
        uint32_t seq = qatomic_read(&et->gate.wait_seq);
        uint32_t why = (smp_rmb(), qatomic_read(&et->wait));

        if (why != ETSOC1_WAIT_GATE) {
            if (n_stale < ARRAY_SIZE(stale)) {
                stale[n_stale++] = cpu;     /* the rest: a later scan */
            }
            continue;
        }
        m->gate_entries[k++] = (Etsoc1GateEntry) {
            .t = qatomic_read(&et->gate.t), .index = cs->cpu_index,
            .cpu = cpu, .seq = seq,
            .may_release = !qatomic_read(&et->gate.released) &&
                           (cpu == self || qatomic_read(&cs->halted)),
        };
    }
    if (n_stale) {
        /*
         * left the gate, most by etsoc1_sync_leave (out of the heap then);
         * one that left it another way and is in no wait now leaves it
         */
        etsoc1_mutex_lock(&m->gate_lock);
        for (i = 0; i < n_stale; i++) {
            if (!etsoc1_sync_wait(qatomic_read(&stale[i]->et->wait))) {
                etsoc1_waiters_clear(m, stale[i]);
            }
        }
        qemu_mutex_unlock(&m->gate_lock);
    }
    return k;
}

/*
 * Did a hart come to the gate since the window counted @enters?  Asked
 * after the second look: a hart that it saw at the gate had counted its
 * arrival before it set its wait (etsoc1_sync_enter_locked).
 */
static bool etsoc1_gate_came(Etsoc1MachineState *m, uint32_t enters)
{
    smp_rmb();      /* the look's reads of the waits, then the count */
    return qatomic_read(&m->gate_enters) != enters;
}

/*
 * Let go what may go: harts at the gate (etsoc1_gate_release); polls
 * whose line was written; with no hart left that could write, polls that
 * have waited ETSOC1_POLL_IDLE_MS.  A poll is not let go because the
 * writers passed its clock: it would read the old value at its own time
 * where a poll that halted after the write was made sees the write at
 * the write's time (line_read), and the host's order would choose between
 * the two.  A plain poll is, once they are past its next read, which
 * leaves the host no such choice (etsoc1_sync_plain_read).  @self is
 * halting.  With scan_lock held (etsoc1_sync_scan).
 */
static void etsoc1_sync_scan_locked(Etsoc1MachineState *m,
                                    Etsoc1MinionCPU *self)
{
    uint64_t running, running2, writers, any, first, bound;
    int64_t now_ms = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    int64_t next_ms = INT64_MAX;
    uint32_t enters = qatomic_read(&m->sync_enters), gate_enters;
    bool waiting, exact;
    Etsoc1MinionCPU *cpu;
    unsigned i, n, tries;

    /*
     * The running harts first, then those at the gate: a hart that goes
     * to the gate in between is seen running, at a clock a lookahead or
     * more before its access.  Only the words that may hold a hart
     * before the earliest at the gate now are looked at, the others give
     * their bounds (any bound gives a lower bound; the last scan's
     * earliest, once harts came to the gate since, gave a smaller window,
     * and only the next scan let them go).  A poll asks for the least
     * time of all (below).
     */
    etsoc1_mutex_lock(&m->gate_lock);
    bound = m->gate_heap_n ? etsoc1_heap_top(m) : m->gate_first;
    qemu_mutex_unlock(&m->gate_lock);
    exact = bound == UINT64_MAX;
    etsoc1_others_mins(m, self, true, bound, &running, &writers);
    n = etsoc1_gate_window(m, self, running, &first, &gate_enters);
    waiting = first != UINT64_MAX;
    ETSOC1_WAITERS_FOREACH(m, i, cpu) {
        CPUState *cs = etsoc1_minion_cs(cpu);
        Etsoc1HartEt *et = cpu->et;
        /* a release for a wait the hart left is not made: wait_seq first */
        uint32_t seq = qatomic_read(&et->gate.wait_seq);
        uint32_t why = (smp_rmb(), qatomic_read(&et->wait));
        bool released = qatomic_read(&et->gate.released);

        if (why == ETSOC1_WAIT_GATE) {
            continue;       /* in the heap */
        }
        if (why != ETSOC1_WAIT_POLL) {
            /* left its poll without etsoc1_sync_leave: its bit goes */
            etsoc1_mutex_lock(&m->gate_lock);
            if (!etsoc1_sync_wait(qatomic_read(&et->wait))) {
                etsoc1_waiters_clear(m, cpu);
            }
            qemu_mutex_unlock(&m->gate_lock);
            continue;
        }
        waiting = true;
        if (released || (cpu != self && !qatomic_read(&cs->halted))) {
            continue;       /* let go already, or not halted yet */
        }
        if (etsoc1_sync_has_work(cpu)) {
            etsoc1_minion_wake(cpu);    /* written: has_work lets it go */
            continue;
        }
        if (!exact) {
            /* the least time of every hart that may write */
            etsoc1_others_mins(m, self, true, UINT64_MAX, &running2,
                               &writers);
            running = MIN(running, running2);
            exact = true;
        }
        if (self && qatomic_read(&self->et->wait) == ETSOC1_WAIT_GATE) {
            writers = MIN(writers, self->et->gate.t);   /* it will run */
        }
        if (et->poll.plain) {
            /*
             * every hart that may act is past its next read (or none
             * may): read again (etsoc1_sync_plain_read)
             */
            if (writers == UINT64_MAX || writers > et->poll.next) {
                et->poll.bound = writers == UINT64_MAX ? 0 : writers;
                etsoc1_sync_release(m, cpu, ETSOC1_PLAIN_LET_GO, seq);
            }
        } else if (writers == UINT64_MAX) {
            int64_t due = et->gate.halted_ms +
                          (ETSOC1_POLL_IDLE_MS << et->poll.naps);

            if (now_ms >= due) {
                et->poll.naps = MIN(et->poll.naps + 1, ETSOC1_POLL_BACKOFF);
                etsoc1_sync_release(m, cpu, ETSOC1_LET_GO, seq);
            } else {
                next_ms = MIN(next_ms, due);
            }
        }
    }
    /* the second look at the running harts: see etsoc1_gate_open */
    etsoc1_others_mins(m, self, true, first, &running2, &any);
    /*
     * A hart that the first look saw at the gate (not running) and that
     * was let go, ran and came to the gate again after the window was
     * taken is in neither look nor the window: a credit wait's hart,
     * let go, that takes its credit and makes an FLB access at the same
     * time as the others (probes/flb-leader, flb-tie) went after one
     * that the window put first.  Every such hart came to the gate after
     * the window: take it and the second look again, or let none go.
     */
    for (tries = 0; etsoc1_gate_came(m, gate_enters); tries++) {
        if (tries == ETSOC1_GATE_RETAKES) {
            n = 0;      /* a later scan: ones that come keep scanning */
            break;
        }
        n = etsoc1_gate_window(m, self, running, &first, &gate_enters);
        etsoc1_others_mins(m, self, true, first, &running2, &any);
    }
    m->gate_first = first;
    etsoc1_gate_release(m, MIN(running, running2), m->gate_entries, n);
    /*
     * A hart that came to a wait after the looks set these flags itself;
     * they stay set, or its thread's idle scan and its halt would take
     * the chip for one with nothing to let go, and only the timer would
     * (etsoc1_sync_idle, etsoc1_sync_halting).
     */
    etsoc1_mutex_lock(&m->gate_lock);
    if (m->sync_enters != enters) {
        waiting = true;
        first = MIN(first, etsoc1_heap_top(m));
    }
    qatomic_set(&m->sync_waiting, waiting);
    qatomic_set(&m->gate_waiting, first != UINT64_MAX);
    qemu_mutex_unlock(&m->gate_lock);
    /*
     * Come back while harts run (they may pass a gated time without
     * halting) or wait at the gate; with every hart halted only the
     * host can write, and only a lone poll's nap has a due time.  A
     * timer due sooner stays: moving it later at every scan woke the
     * main loop each time (timer_mod notifies it of a new first timer),
     * and a scan that comes early costs only itself.
     */
    if (first != UINT64_MAX || running != UINT64_MAX) {
        next_ms = now_ms + ETSOC1_SYNC_TICK_MS;
    }
    if (waiting && next_ms != INT64_MAX) {
        timer_mod_anticipate(m->sync_timer, next_ms * SCALE_MS);
    }
}

/*
 * One scan at a time, under a lock of the scans' own (their scratch:
 * gate_entries, gate_slots, gate_first), not the BQL: a hart that halts
 * or a TCG thread with nothing to run scans without queueing behind the
 * main loop and its devices, nor they behind it.  What a scan changes in
 * the harts' waits is made under gate_lock, as their own moves are.
 * Order: the BQL (the main loop's timer, the round-robin thread), then
 * scan_lock, then gate_lock; nothing under scan_lock takes the BQL.
 */
static void etsoc1_sync_scan(Etsoc1MachineState *m, Etsoc1MinionCPU *self)
{
    etsoc1_mutex_lock(&m->scan_lock);
    etsoc1_sync_scan_locked(m, self);
    qemu_mutex_unlock(&m->scan_lock);
}

/*
 * Scan for a halting @cpu if the last scan is ETSOC1_SYNC_SCAN_NS, or five
 * times its host time, ago: scans from halts then take at most a fifth of
 * a host CPU.  Not if another scan is under way (it is the last scan).
 * True if it scanned.
 */
static bool etsoc1_sync_halt_scan(Etsoc1MachineState *m, Etsoc1MinionCPU *cpu)
{
    bool due;
    int64_t now;

    now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    if (now - qatomic_read(&m->sync_scan_ns) <
        qatomic_read(&m->sync_scan_gap_ns) ||
        qemu_mutex_trylock(&m->scan_lock)) {
        return false;
    }
    now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    due = now - m->sync_scan_ns >= m->sync_scan_gap_ns;   /* still? */
    if (due) {
        qatomic_set(&m->sync_scan_ns, now);
        etsoc1_sync_scan_locked(m, cpu);
        qatomic_set(&m->sync_scan_gap_ns,
                    MAX(ETSOC1_SYNC_SCAN_NS,
                        5 * (qemu_clock_get_ns(QEMU_CLOCK_REALTIME) - now)));
    }
    qemu_mutex_unlock(&m->scan_lock);
    return due;
}

/*
 * @cpu halts in an ET wait (etsoc1_minion_exec_exit: its own thread, no
 * BQL).  A hart that halts can let harts at the gate go
 * (etsoc1_sync_halt_scan, else the timer comes back when a scan is due);
 * a poll that halts with none there has nothing urgent to let go.  A halt
 * that does not scan takes no lock.
 *
 * Once a TCG thread has said it has no hart to run (etsoc1_sync_idle),
 * the threads scan whenever they run out of harts, and the halts that
 * come later scan once due: the timer need only catch harts that run on
 * without halting, and comes back at the tick, not when the next scan is
 * due.  That due time woke the main loop up to 10,000 times a second in
 * a program of many harts, each wake a host context switch taken from a
 * thread that runs harts.  A thread per vCPU never says so.
 */
void etsoc1_sync_halting(Etsoc1MinionCPU *cpu)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    uint32_t why = cpu->et->wait;
    bool gated;
    int64_t due, at;

    if (!m || !m->poll_halt) {
        return;
    }
    gated = qatomic_read(&m->gate_waiting);
    if (!etsoc1_sync_wait(why) && !gated) {
        return;
    }
    if ((why != ETSOC1_WAIT_POLL || gated) && etsoc1_sync_halt_scan(m, cpu)) {
        return;
    }
    at = qemu_clock_get_ns(QEMU_CLOCK_REALTIME) +
         ETSOC1_SYNC_TICK_MS * SCALE_MS;
    if (gated) {
        due = qatomic_read(&m->sync_scan_ns) +
              qatomic_read(&m->sync_scan_gap_ns);
        at = qatomic_read(&m->sync_idle_heard) ? MAX(due, at) : due;
    }
    if (!timer_pending(m->sync_timer) ||
        timer_expire_time_ns(m->sync_timer) > at) {
        timer_mod(m->sync_timer, at);
    }
}

static void etsoc1_sync_tick(void *opaque)
{
    etsoc1_sync_scan(opaque, NULL);
}

/*
 * A TCG thread has no hart left to run (tcg_idle_notify): a scan now
 * takes time from no hart, and may give the thread one.  It waits for
 * no rate limit: that limit keeps the scans from taking a running hart's
 * host time, and this thread would otherwise sleep.
 */
static void etsoc1_sync_idle(Notifier *n, void *unused)
{
    Etsoc1MachineState *m = container_of(n, Etsoc1MachineState, sync_idle);

    if (!qatomic_read(&m->sync_idle_heard)) {   /* see etsoc1_sync_halting */
        qatomic_set(&m->sync_idle_heard, true);
    }
    if (!qatomic_read(&m->sync_waiting)) {
        return;
    }
    qatomic_set(&m->sync_scan_ns, qemu_clock_get_ns(QEMU_CLOCK_REALTIME));
    etsoc1_sync_scan(m, NULL);
}

/*
 * A global write to line @pa of @lc (@lc NULL: to any line) was made:
 * wake the polls halted on it.  Called without the line clock's lock,
 * and with no lock: a wake is a kick, and a poll that halts meanwhile is
 * found by the next scan.
 */
void etsoc1_sync_written(Etsoc1MachineState *m, Etsoc1LineClock *lc,
                         hwaddr pa)
{
    unsigned i = etsoc1_line_slot(pa), h;
    Etsoc1MinionCPU *cpu;
    bool found = false;

    if (!m || !qatomic_read(&m->sync_waiting) ||
        (lc && !qatomic_read(&lc->polled[i]))) {
        return;
    }
    ETSOC1_WAITERS_FOREACH(m, h, cpu) {
        if (qatomic_read(&cpu->et->wait) == ETSOC1_WAIT_POLL &&
            (!lc || (cpu->et->poll.lc == lc && cpu->et->poll.slot == i))) {
            found = true;
            if (cpu != etsoc1_current_minion() && etsoc1_sync_has_work(cpu)) {
                etsoc1_minion_wake(cpu);
            }
        }
    }
    if (lc && !found) {
        /* a poll that halts meanwhile is found by the timer's scan */
        qatomic_set(&lc->polled[i], false);
    }
}

/*
 * After a migration or a reset, a hart that was halted on a poll or at
 * the gate runs its read again (its line clock pointer is not migrated).
 */
void etsoc1_sync_resume(Etsoc1MinionCPU *cpu)
{
    uint32_t why = cpu->et->wait;

    if (cpu->shire->chip && cpu->shire->chip->waiters) {
        etsoc1_mutex_lock(&cpu->shire->chip->gate_lock);
        etsoc1_waiters_clear(cpu->shire->chip, cpu);
        qemu_mutex_unlock(&cpu->shire->chip->gate_lock);
    }
    if (etsoc1_sync_wait(why) || why == ETSOC1_WAIT_HOST) {
        cpu->et->wait = ETSOC1_WAIT_NONE;
        cpu->et->gate.released = 0;     /* it goes through the gate again */
        cpu->et->poll.lc = NULL;
        cpu->et->poll.plain = false;
        cpu->et->poll.bound = 0;
        etsoc1_sync_unpark(cpu);
        CPU(cpu)->halted = 0;
    }
    cpu->et->gate.next = NULL;  /* every hart at the gate goes through again */
    etsoc1_sync_lower(cpu, true);   /* its clock was loaded or reset */
}

/*
 * ---- Host inputs -----------------------------------------------------------
 *
 * A host input (a host-link MMIO write: kernel images, SQ entries,
 * doorbells) takes effect at an emulated time T chosen when it arrives,
 * after everything the card has done or shown: T = 1 + the latest of every
 * hart's clock, every time a hart looked at host state or passed the gate,
 * every timer expiry the model declared, and the previous T.  It is then
 * applied in the model's order, as one more actor at the gate whose clock
 * is T: once no hart can act before T (etsoc1_input_clear), after every
 * timer expiry up to T.  Until then an access through the gate at or
 * after T waits (etsoc1_gate_host_before), and so does a minion that looks
 * at host state (the mailbox, the doorbell count: etsoc1_host_observe) at
 * or after T, halted in ETSOC1_WAIT_HOST.  A look moves the hart's clock
 * to the T of the last input that changed what it looks at.  So a command
 * is seen at the same point of the card's history whatever the host's
 * pace, and the worker that takes it runs from T, above every clock that
 * the host's timing could have moved (docs/timing.md, "The host link";
 * docs/research/record-replay-design.md, 3.1-3.3).
 *
 * Everything here runs with the BQL, on the main loop, except the harts'
 * looks, which read input_head_t after publishing their time.
 */

typedef struct Etsoc1Input {
    uint64_t t;
    const char *what;
    uint64_t addr, len;     /* for the trace */
    Etsoc1InputFn *fn;
    void *opaque;
} Etsoc1Input;

/* The latest time any hart has reached, shown or looked at */
static uint64_t etsoc1_input_frontier(Etsoc1MachineState *m)
{
    uint64_t d = 0;
    Etsoc1MinionCPU *cpu;
    unsigned i;

    ETSOC1_AWAKE_FOREACH(m, i, cpu) {
        d = MAX(d, etsoc1_clock_peek(cpu));
        d = MAX(d, qatomic_read(&cpu->et->host.obs_t));
        if (qatomic_read(&cpu->et->wait) == ETSOC1_WAIT_GATE) {
            d = MAX(d, cpu->et->gate.t);
        }
    }
    smp_rmb();      /* a hart parks after it published its clock */
    return MAX(d, qatomic_read(&m->parked_max));
}

/*
 * Can no hart act before @t any more?  Looked at twice (etsoc1_gate_open).
 * A hart at the gate behind an eDMA step that waits for its host's answer
 * does not hold the input: the host may answer only once this input is
 * in (a host library waits for each write's reply), and the step, and so
 * the hart, wait for the answer.  What that hart does through the gate
 * still comes before what the input wakes (it is counted at the gate).
 */
static bool etsoc1_input_clear(Etsoc1MachineState *m, uint64_t t)
{
    uint64_t link = qatomic_read(&m->link_host_wait) ?
                    qatomic_read(&m->link_head_t) : UINT64_MAX;
    uint64_t running, any;
    unsigned look;

    /*
     * The earliest time from which a hart not parked may act (at the gate
     * at its access's time, else at its clock; a WFI with its wake-up
     * pending counts: etsoc1_next_act)
     */
    for (look = 0; look < 2; look++) {
        etsoc1_others_mins(m, NULL, false, UINT64_MAX, &running, &any);
        if (running < t || (any < t && any < link)) {
            return false;
        }
    }
    return true;
}

/*
 * An input at @t waits for the harts behind it, while the harts already
 * past it run on and share the host's CPUs with them: with a shire of
 * spinning harts the slowest took seconds of host time to catch up with
 * the fastest, per host write.  Kick the running harts past @t out of
 * their translated code: they give way (etsoc1_host_hold) until the
 * input is in.  Host pacing only: a held hart's clock does not move.
 */
static void etsoc1_input_kick(Etsoc1MachineState *m, uint64_t t)
{
    Etsoc1MinionCPU *cpu;
    unsigned i;

    ETSOC1_AWAKE_FOREACH(m, i, cpu) {
        CPUState *cs = etsoc1_minion_cs(cpu);

        if (!qatomic_read(&cs->halted) && etsoc1_clock_peek(cpu) >= t) {
            qemu_cpu_kick(cs);
        }
    }
}

/* Let the harts in ETSOC1_WAIT_HOST before the queue's new head go */
static void etsoc1_input_release(Etsoc1MachineState *m)
{
    uint64_t head = qatomic_read(&m->input_head_t);
    Etsoc1MinionCPU *cpu;
    unsigned i;

    if (!qatomic_read(&m->host_waiting)) {
        return;
    }
    /* a hart in that wait is never parked */
    ETSOC1_AWAKE_FOREACH(m, i, cpu) {
        if (qatomic_read(&cpu->et->wait) == ETSOC1_WAIT_HOST &&
            qatomic_read(&cpu->et->host.t) < head) {
            etsoc1_minion_wake(cpu);
        }
    }
}

/* The queue's head, or the T a host's PAUSE stopped the card at */
static void etsoc1_input_set_head(Etsoc1MachineState *m)
{
    Etsoc1Input *in = g_queue_peek_head(m->input_q);
    uint64_t head = in ? in->t : UINT64_MAX;

    if (m->input_pause_t) {
        head = MIN(head, m->input_pause_t);
    }
    qatomic_set(&m->input_head_t, head);
    smp_mb();       /* before the looks at the harts' waits */
}

/* The head moved on: what waited for it looks again */
static void etsoc1_input_head_moved(Etsoc1MachineState *m)
{
    etsoc1_input_release(m);
    if (qatomic_read(&m->gate_waiting)) {
        etsoc1_sync_scan(m, NULL);      /* what waited at the gate */
    }
}

void etsoc1_input_apply_due(Etsoc1MachineState *m)
{
    Etsoc1Input *in;
    bool applied = false;

    /* held: etsoc1_input_hold(m, false) comes back */
    if (!m->input_q || m->input_hold) {
        return;
    }
    /* an input's fn may hold the queue for the next one (a replay) */
    while (!m->input_hold && (in = g_queue_peek_head(m->input_q)) != NULL) {
        if (m->input_pause_t) {
            /* stopped at a PAUSE's T: those at it now, later ones at run */
            if (in->t > m->input_pause_t) {
                break;
            }
        } else if (!runstate_is_running()) {
            break;      /* stopped otherwise: by the same rule once it runs */
        } else if (!etsoc1_input_clear(m, in->t)) {
            etsoc1_input_kick(m, in->t);
            break;
        }
        g_queue_pop_head(m->input_q);
        /* every expiry up to T first: the chip is there */
        if (m->input_catch_up) {
            m->input_catch_up(m->input_catch_up_opaque, in->t);
        }
        trace_etsoc1_input_apply(in->what, in->addr, in->len, in->t);
        etsoc1_trace_host_input(in->what, in->addr, in->len, in->t);
        m->input_applying_t = in->t;
        in->fn(in->opaque, in->t);
        m->input_applying_t = 0;
        g_free(in);
        applied = true;
        /*
         * The next input's clear looks at the new head: a hart waiting in
         * ETSOC1_WAIT_HOST for this input, now before the head, counts
         * at its clock (etsoc1_next_act), as it runs once released.  With
         * the old head it did not count, and a replay, whose queue holds
         * every input, applied the next ones before that hart's look at
         * the mailbox (a record's next input is stamped after it).
         */
        etsoc1_input_set_head(m);
    }
    if (applied) {
        etsoc1_input_head_moved(m);
    }
    if (!g_queue_is_empty(m->input_q) && runstate_is_running()) {
        timer_mod(m->input_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                                  ETSOC1_SYNC_TICK_MS);
    }
}

static void etsoc1_input_tick(void *opaque)
{
    etsoc1_input_apply_due(opaque);
}

/* Queue the input (@what, @addr, @len, @fn, @opaque) at @t, the latest */
static void etsoc1_input_queue(Etsoc1MachineState *m, uint64_t t,
                               const char *what, uint64_t addr, uint64_t len,
                               Etsoc1InputFn *fn, void *opaque)
{
    Etsoc1Input *in = g_new0(Etsoc1Input, 1);

    m->input_last_t = t;
    *in = (Etsoc1Input) {
        .t = t, .what = what, .addr = addr, .len = len, .fn = fn,
        .opaque = opaque,
    };
    g_queue_push_tail(m->input_q, in);
    trace_etsoc1_input_post(what, addr, len, t);
    etsoc1_input_set_head(m);
}

bool etsoc1_input_post(Etsoc1MachineState *m, const char *what,
                       uint64_t addr, uint64_t len, Etsoc1InputFn *fn,
                       void *opaque)
{
    if (!m || !m->input_q) {
        return false;
    }
    /*
     * Hold every look and gated access while the clocks are read: a hart
     * publishes its time, then reads the head (Dekker), so either it sees
     * this 0 and waits, or the frontier below sees its time.
     */
    qatomic_set(&m->input_head_t, 0);
    smp_mb();
    /* stopped by a PAUSE, the card stands at its T: harts past it wait */
    etsoc1_input_queue(m, m->input_pause_t ? m->input_pause_t :
                       MAX(MAX(etsoc1_input_frontier(m), m->declared_t),
                           m->input_last_t) + 1,
                       what, addr, len, fn, opaque);
    etsoc1_input_release(m);        /* the harts the 0 held */
    etsoc1_input_apply_due(m);      /* an idle chip: at once */
    return true;
}

/*
 * An input whose T is already known (a replay, etsoc1-rr.c): queued as
 * etsoc1_input_post queues a stamped one, in T order, and applied by the
 * same rules (a stopped VM applies none, but at a PAUSE's T).
 */
bool etsoc1_input_post_at(Etsoc1MachineState *m, uint64_t t,
                          const char *what, uint64_t addr, uint64_t len,
                          Etsoc1InputFn *fn, void *opaque)
{
    if (!m || !m->input_q || t < m->input_last_t) {
        return false;
    }
    etsoc1_input_queue(m, t, what, addr, len, fn, opaque);
    etsoc1_input_apply_due(m);
    return true;
}

/*
 * While held, the queue applies nothing (its head still bounds the
 * horizon and the gate): a replay waits for the VM to run and for the
 * card's READY, after which the record's host wrote.
 */
void etsoc1_input_hold(Etsoc1MachineState *m, bool hold)
{
    if (m && m->input_q) {
        m->input_hold = hold;
        if (!hold) {
            etsoc1_input_apply_due(m);
        }
    }
}

/*
 * An input's apply that stops the VM (the host link's PAUSE) stops the
 * card at the input's T: until the VM runs again, the head stays there,
 * so that no access through the gate and no look at host state at or
 * after T goes on while the vCPUs are being stopped, and the inputs that
 * come while it is stopped are stamped T too and applied at once.  What
 * they change is then seen by the harts from T on, in a run and in its
 * replay alike, however far each hart ran before its vCPU stopped
 * (docs/record-replay.md, "PAUSE and RESUME").  Any other stop (QMP
 * `stop`, a debugger, -S) comes at a host-chosen point: the inputs made
 * during it are stamped after every clock as always, and go in by the
 * same rule once the VM runs (so their host waits for their replies).
 */
static void etsoc1_input_vm_state(void *opaque, bool running, RunState state)
{
    Etsoc1MachineState *m = opaque;

    if (!running) {
        if (m->input_applying_t) {
            m->input_pause_t = m->input_applying_t;
            trace_etsoc1_input_pause(m->input_pause_t);
        }
        return;
    }
    if (m->input_pause_t) {
        m->input_pause_t = 0;
        etsoc1_input_set_head(m);
        etsoc1_input_head_moved(m);
        trace_etsoc1_input_pause(0);
    }
    if (!g_queue_is_empty(m->input_q)) {
        timer_mod(m->input_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME));
    }
}

/* A timer expiry at @t was raised: later inputs are stamped after it. */
void etsoc1_input_declare(Etsoc1MachineState *m, uint64_t t)
{
    if (m) {
        m->declared_t = MAX(m->declared_t, t);
    }
}

/*
 * @cpu (on its own thread), at clock @now, waits in ETSOC1_WAIT_HOST if
 * the head input acts at or before @now: true, and the wait is traced.
 * The wait is set before the head is looked at again, so that an input
 * applied meanwhile either is seen here or sees the wait
 * (etsoc1_input_release).
 */
static bool etsoc1_host_wait(Etsoc1MachineState *m, Etsoc1MinionCPU *cpu,
                             uint64_t now)
{
    Etsoc1HartEt *et = cpu->et;

    if (qatomic_read(&m->input_head_t) > now) {
        return false;
    }
    qatomic_set(&m->host_waiting, true);
    qatomic_set(&et->host.t, now);
    qatomic_set(&et->wait, ETSOC1_WAIT_HOST);
    smp_mb();       /* the wait, then the head again */
    if (qatomic_read(&m->input_head_t) > now) {
        qatomic_set(&et->wait, ETSOC1_WAIT_NONE);   /* it came meanwhile */
        return false;
    }
    etsoc1_trace_wait_begin(etsoc1_hart(cpu), now, ETSOC1_WAIT_HOST, now);
    return true;
}

/*
 * @cpu (on its own thread) looks at host state that a host input last
 * changed at @last_t: it learns of that input (its clock moves to
 * @last_t), publishes its time, and if an input still to come acts at or
 * before its time, halts in ETSOC1_WAIT_HOST (true: the caller leaves the
 * access, which runs again when the hart is let go).  A check of the
 * head, never a look at other harts.
 */
bool etsoc1_host_observe(Etsoc1MinionCPU *cpu, uint64_t last_t)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    Etsoc1HartEt *et = cpu->et;
    uint64_t now;

    if (qatomic_read(&et->wait) == ETSOC1_WAIT_HOST) {
        qatomic_set(&et->wait, ETSOC1_WAIT_NONE);       /* let go */
        etsoc1_trace_wait_end(etsoc1_hart(cpu), etsoc1_now(cpu));
    }
    if (!m || !m->input_q) {
        return false;
    }
    etsoc1_advance_to(cpu, last_t);
    now = etsoc1_now(cpu);
    qatomic_set(&et->host.obs_t, MAX(et->host.obs_t, now));
    smp_mb();
    if (!etsoc1_host_wait(m, cpu, now)) {
        return false;
    }
    trace_etsoc1_sync_halt(etsoc1_hart(cpu), ETSOC1_WAIT_HOST, now);
    return true;
}

/*
 * @cpu (on its own thread, its cpu_exec() over, running) gives way to a
 * host input at or before its clock: it halts in ETSOC1_WAIT_HOST until
 * the input is in, so that the harts still behind it get the host's CPUs
 * (etsoc1_input_kick).  Where it stands in its program does not change.
 */
void etsoc1_host_hold(Etsoc1MinionCPU *cpu)
{
    Etsoc1MachineState *m = cpu->shire->chip;

    if (!m || !m->input_q ||
        qatomic_read(&cpu->et->wait) != ETSOC1_WAIT_NONE) {
        return;
    }
    if (etsoc1_host_wait(m, cpu, etsoc1_now(cpu))) {
        qatomic_set(&CPU(cpu)->halted, 1);
    }
}

/* Is @cpu's ETSOC1_WAIT_HOST over: are the inputs up to its time in? */
bool etsoc1_host_wait_over(Etsoc1MinionCPU *cpu)
{
    Etsoc1MachineState *m = cpu->shire->chip;

    return !m ||
           qatomic_read(&m->input_head_t) > qatomic_read(&cpu->et->host.t);
}

/*
 * ---- The eDMA's steps -------------------------------------------------------
 *
 * The eDMA on the chip's time (etsoc1-edma.c, docs/timing.md "DMA") takes
 * its steps (a piece onto the link; the end of a list, DONE) one at a
 * time in emulated-time order across its channels, and a step at t only
 * once no hart and no host input can still act at or before t: no
 * doorbell can then still start a channel that would share the link with
 * that piece, and every hart that could see its DONE at a point between
 * two steps is past it.  Until then the eDMA is one more actor at the
 * gate, as a host input is (its head bounds the gate, the horizon and a
 * rest), and its step times are declared as timer expiries are, so that
 * a host input is stamped after every step already taken.
 */
bool etsoc1_link_turn(Etsoc1MachineState *m, uint64_t t, bool host_wait,
                      QEMUTimer *kick)
{
    uint64_t old = m->link_head_t, running, any;
    unsigned look;

    qatomic_set(&m->link_kick, kick);
    qatomic_set(&m->link_head_t, t);
    qatomic_set(&m->link_host_wait, host_wait);
    smp_mb();       /* the head, then the looks at the harts */
    if (t > old && m->gate_waiting) {
        etsoc1_sync_scan(m, NULL);      /* what waited for the old one */
    }
    /* without the gate (poll-halt=off) the host's order: at once */
    if (t == UINT64_MAX || !m->poll_halt || !m->awake) {
        return true;
    }
    if (qatomic_read(&m->input_head_t) <= t) {
        return false;
    }
    /* twice, for a hart woken between the looks: see etsoc1_gate_open */
    for (look = 0; look < 2; look++) {
        etsoc1_others_mins(m, NULL, false, UINT64_MAX, &running, &any);
        if (running <= t || any < t) {
            return false;
        }
    }
    etsoc1_input_declare(m, t);
    return true;
}

/*
 * The lookahead: nothing a hart does reaches another line or hart sooner
 * than this after its clock.  A global request reaches its line half a
 * round trip after it leaves (an L3 hit on the hart's own mesh stop, or
 * a scratchpad at no hops, is the shortest); a credit arrives half the
 * shire's credit round trip after its instruction's cycles (etsoc1_arrival
 * counts from before the instruction); with handshake=rtl a ready
 * reaches its sender's bit half the shortest message round trip after
 * the recv.  One cycle less for rounding.
 */
static uint64_t etsoc1_sync_lookahead(const Etsoc1Timing *tm, bool rtl)
{
    double l3 = etsoc1_t(tm, ETSOC1_T_L3_HIT) / 2;
    double scp = (etsoc1_t(tm, ETSOC1_T_SCP_REMOTE_CYC) +
                  etsoc1_t(tm, ETSOC1_T_SCP_REMOTE_NS)) / 2;
    double credit = etsoc1_credit_latency(tm, 0, 0) -
                    etsoc1_insn_cost(tm, ET_INSN_SYSTEM);
    double msg = MIN(MIN(etsoc1_t(tm, ETSOC1_T_MSG_RTT_TREE),
                         etsoc1_t(tm, ETSOC1_T_MSG_RTT_XBAR)),
                     etsoc1_t(tm, ETSOC1_T_MSG_RTT_MESH)) / 2;
    double la = MIN(MIN(l3, scp), credit);

    if (rtl) {
        la = MIN(la, msg);      /* a ready reaches its sender a leg later */
        /*
         * A message between shires reaches its out-port a quarter of the
         * mesh round trip after its data leaves, which is no earlier than
         * the clock of the hart that delivers it (etsoc1_port_book); one
         * cycle more for the CSR's own, counted before it runs.
         */
        la = MIN(la, etsoc1_t(tm, ETSOC1_T_MSG_RTT_MESH) / 4 - 1);
    }
    la -= 1;
    return la > 0 ? (uint64_t)la : 0;
}

void etsoc1_sync_start(Etsoc1MachineState *s)
{
    Etsoc1MinionCPU *cpu;
    CPUState *cs;

    ETSOC1_MINION_FOREACH(cs, cpu) {
        s->minion_slots = MAX(s->minion_slots, cs->cpu_index + 1);
    }
    s->minion = g_new0(Etsoc1MinionCPU *, s->minion_slots);
    s->awake = bitmap_new(s->minion_slots);
    s->waiters = bitmap_new(s->minion_slots);
    s->gate_heap_pos = g_new0(unsigned, s->minion_slots);
    /* every bound 0: the first look at each word looks at its harts */
    s->act = qemu_memalign(sizeof(Etsoc1ActWord),
                           BITS_TO_LONGS(s->minion_slots) *
                           sizeof(Etsoc1ActWord));
    memset(s->act, 0, BITS_TO_LONGS(s->minion_slots) * sizeof(Etsoc1ActWord));
    ETSOC1_MINION_FOREACH(cs, cpu) {
        s->minion[cs->cpu_index] = cpu;
        set_bit(cs->cpu_index, s->awake);  /* until it halts (reset too) */
    }

    s->sync_lookahead = etsoc1_sync_lookahead(s->timing,
                                              s->handshake ==
                                              ETSOC1_HANDSHAKE_RTL);
    s->sync_scan_gap_ns = ETSOC1_SYNC_SCAN_NS;
    s->gate_first = UINT64_MAX;
    s->sync_timer = timer_new_ns(QEMU_CLOCK_REALTIME, etsoc1_sync_tick, s);
    if (s->poll_halt && tcg_enabled()) {
        s->sync_idle.notify = etsoc1_sync_idle;
        tcg_idle_notifier_add(&s->sync_idle);
    }
    s->gate_slots = g_hash_table_new(NULL, NULL);
    qemu_mutex_init(&s->gate_lock);
    qemu_mutex_init(&s->scan_lock);
    qemu_mutex_init(&s->port_lock);
    qemu_mutex_init(&s->fabric_lock);

    s->input_head_t = UINT64_MAX;
    s->link_head_t = UINT64_MAX;
    /*
     * The gate and the polls order the inputs: without them, no stamps.
     * Nor without TCG: under qtest the harts never run (nor park), so no
     * input would ever be clear of them.  Without a host link there is
     * no input, and the gate and the parks pay nothing for them; a
     * replay (etsoc1-rr.c) brings the record's host's.
     */
    if (s->stamp_host && s->poll_halt && tcg_enabled() &&
        (s->hostlink_id || s->rr_replay)) {
        s->input_q = g_queue_new();
        s->input_timer = timer_new_ms(QEMU_CLOCK_REALTIME,
                                      etsoc1_input_tick, s);
        s->input_vmse = qemu_add_vm_change_state_handler(
            etsoc1_input_vm_state, s);
    }
}
