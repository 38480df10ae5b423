/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the global-read gate and halting polls, so that what
 * a hart sees through memory, and when, follows the model's clocks and not
 * the host's order of the vCPU threads (docs/timing.md, "Polls and the
 * read gate").
 *
 * A global read is a global operation that leaves memory unchanged: an
 * atomic whose result equals the old value (amoorg rd, x0; amoaddg rd,
 * x0; a compare-and-swap that fails; an amomax that loses), except swaps,
 * which are writes by intent.
 *
 *  - A global read at clock T waits at the gate (halted, no host CPU)
 *    until every other running minion hart's clock is past T - read-slack
 *    (0 by default): every write issued before it has then been made.  A
 *    write made early by a hart that runs ahead is not seen by a read in
 *    its past (etsoc1_line_value_at).  So a poller can neither run ahead
 *    of the harts that may write its flag nor see a flag early or late:
 *    it runs every iteration of its loop, each one timed, at the pace of
 *    the slowest running hart.
 *  - Halted harts do not hold the gate: a hart that waits for a credit, a
 *    message, an IPI or a write moves on only at the time of what wakes
 *    it, which is no earlier than its sender's clock.
 *  - A hart that no other hart can hold back (none runs) and that has
 *    read the same unchanged word ETSOC1_POLL_BURST times in a row only
 *    waits for the host or a device: it halts until the line is written,
 *    or for ETSOC1_POLL_IDLE_MS of host time, and then goes on reading.
 *    Its clock counts every read, as before.
 *
 * Releases are made with the BQL held: when a hart halts at the gate or
 * on a poll, and from a timer on the realtime clock while any does.
 */

#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "hw/core/cpu.h"
#include "hw/etsoc1/etsoc1.h"
#include "trace.h"

/* The machine whose harts sync (issue 15 replaces this with a link) */
static Etsoc1MachineState *etsoc1_sync_m;

static Etsoc1MachineState *etsoc1_sync_machine(void)
{
    return etsoc1_sync_m;
}

/* Another hart's clock, read from outside its thread: never ahead. */
static uint64_t etsoc1_clock_peek(Etsoc1MinionCPU *cpu)
{
    CPURISCVState *env = &cpu->parent_obj.env;

    return qatomic_read(&env->et_insns) + qatomic_read(&env->et_cycles) +
           qatomic_read(&cpu->et->stall);
}

/*
 * The harts that hold a read at the gate: the running ones, at their
 * clock, and the ones halted at the gate (let go or not), at their read's
 * clock, which is when they will go on.  Keys are (clock, hartid), so
 * that equal clocks go in hart order.
 */
typedef struct Etsoc1SyncKey {
    uint64_t t;
    uint64_t hart;
} Etsoc1SyncKey;

static bool etsoc1_key_lt(Etsoc1SyncKey a, Etsoc1SyncKey b)
{
    return a.t < b.t || (a.t == b.t && a.hart < b.hart);
}

/* Does @cpu hold reads back, and from which clock?  @self never does. */
static bool etsoc1_holder(Etsoc1MinionCPU *cpu, Etsoc1MinionCPU *self,
                          Etsoc1SyncKey *k)
{
    k->hart = cpu->parent_obj.env.mhartid;
    if (cpu == self) {
        return false;
    }
    if (qatomic_read(&cpu->et->wait) == ETSOC1_WAIT_GATE) {
        k->t = cpu->et->sync_t;
        return true;
    }
    if (qatomic_read(&CPU(cpu)->halted)) {
        return false;
    }
    k->t = etsoc1_clock_peek(cpu);
    return true;
}

/*
 * The lowest key of the harts other than @self that hold reads back
 * (t = UINT64_MAX if none); the scan stops at the first below @stop.
 */
static Etsoc1SyncKey etsoc1_holders_min(Etsoc1MinionCPU *self,
                                        Etsoc1SyncKey stop)
{
    Etsoc1SyncKey min = { UINT64_MAX, UINT64_MAX }, k;
    Etsoc1MinionCPU *cpu;
    CPUState *cs;

    ETSOC1_MINION_FOREACH(cs, cpu) {
        if (etsoc1_holder(cpu, self, &k) && etsoc1_key_lt(k, min)) {
            min = k;
            if (etsoc1_key_lt(min, stop)) {
                break;
            }
        }
    }
    return min;
}

/* The key of @cpu's read at @t, the slack taken off. */
static Etsoc1SyncKey etsoc1_read_key(Etsoc1MachineState *m,
                                     Etsoc1MinionCPU *cpu, uint64_t t)
{
    Etsoc1SyncKey k = {
        .t = t > m->read_slack ? t - m->read_slack : 0,
        .hart = cpu->parent_obj.env.mhartid,
    };

    return k;
}

/*
 * May @self read at @t: is every other holder past it?  Scans only when
 * the floor of an earlier scan does not tell.
 */
static bool etsoc1_gate_open(Etsoc1MachineState *m, Etsoc1MinionCPU *self,
                             uint64_t t)
{
    Etsoc1SyncKey key = etsoc1_read_key(m, self, t), min;

    if (key.t < qatomic_read(&m->sync_floor)) {
        return true;
    }
    min = etsoc1_holders_min(self, key);
    if (etsoc1_key_lt(min, key)) {
        return false;
    }
    /* no holder is below MIN(min, key) now: a floor for later reads */
    if (MIN(min.t, key.t) > qatomic_read(&m->sync_floor)) {
        qatomic_set(&m->sync_floor, MIN(min.t, key.t));
    }
    return true;
}

/* Does any minion hart other than @self run? */
static bool etsoc1_others_run(Etsoc1MinionCPU *self)
{
    Etsoc1MinionCPU *cpu;
    CPUState *cs;

    ETSOC1_MINION_FOREACH(cs, cpu) {
        if (cpu != self && !qatomic_read(&cs->halted)) {
            return true;
        }
    }
    return false;
}

/*
 * Remember @val as what @cpu last saw at @pa through a global operation;
 * count the reads in a row that saw it.
 */
void etsoc1_sync_note(Etsoc1MinionCPU *cpu, hwaddr pa, uint64_t val)
{
    Etsoc1HartEt *et = cpu->et;

    if (et->poll_valid && et->poll_pa == pa && et->poll_val == val) {
        et->poll_count++;
    } else {
        et->poll_count = 0;
    }
    et->poll_valid = true;
    et->poll_pa = pa;
    et->poll_val = val;
}

static Etsoc1ReadStep etsoc1_sync_halt(Etsoc1MinionCPU *cpu, Etsoc1Wait why,
                                       uint64_t t)
{
    Etsoc1MachineState *m = etsoc1_sync_machine();

    cpu->et->sync_t = t;
    cpu->et->sync_halted_ms = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    qatomic_set(&m->sync_waiting, true);
    qatomic_set(&cpu->et->wait, why);
    trace_etsoc1_sync_halt(cpu->parent_obj.env.mhartid, why, t);
    return ETSOC1_READ_HALT;
}

/*
 * A global read by @cpu of @size bytes at @pa (in line clock @lc, whose
 * lock the caller holds) that finds @cur in memory: go on, or halt (the
 * caller then restarts the instruction, charging nothing).
 */
Etsoc1ReadStep etsoc1_sync_read(Etsoc1MinionCPU *cpu, Etsoc1LineClock *lc,
                                hwaddr pa, unsigned size, uint64_t cur)
{
    Etsoc1MachineState *m = etsoc1_sync_machine();
    Etsoc1HartEt *et = cpu->et;
    uint64_t now = etsoc1_now(cpu);
    unsigned i;

    qatomic_set(&et->wait, ETSOC1_WAIT_NONE);
    if (qatomic_read(&et->sync_released)) {
        qatomic_set(&et->sync_released, 0);
        return ETSOC1_READ_DONE;
    }
    if (!etsoc1_gate_open(m, cpu, now)) {
        return etsoc1_sync_halt(cpu, ETSOC1_WAIT_GATE, now);
    }
    if (et->poll_count >= ETSOC1_POLL_BURST && et->poll_pa == pa &&
        et->poll_val == cur && !etsoc1_others_run(cpu)) {
        i = etsoc1_line_slot(pa);
        et->poll_lc = lc;
        et->poll_slot = i;
        et->poll_gen = qatomic_read(&lc->gen[i]);
        et->poll_count = 0;
        qatomic_set(&lc->polled, true);
        return etsoc1_sync_halt(cpu, ETSOC1_WAIT_POLL, now);
    }
    return ETSOC1_READ_DONE;
}

/* For has_work: may a hart halted on a poll or at the gate go on? */
bool etsoc1_sync_has_work(Etsoc1MinionCPU *cpu)
{
    Etsoc1HartEt *et = cpu->et;

    if (qatomic_read(&et->sync_released)) {
        return true;
    }
    return qatomic_read(&et->wait) == ETSOC1_WAIT_POLL &&
           (!et->poll_lc ||
            qatomic_read(&et->poll_lc->gen[et->poll_slot]) != et->poll_gen);
}

static void etsoc1_sync_release(Etsoc1MinionCPU *cpu, Etsoc1Wait why)
{
    trace_etsoc1_sync_release(cpu->parent_obj.env.mhartid, why,
                              cpu->et->sync_t);
    qatomic_set(&cpu->et->sync_released, why);
    if (CPU(cpu) != current_cpu) {
        etsoc1_minion_wake(cpu);
    }
}

/*
 * Let go what may go: the lowest read at the gate, if no other holder is
 * below it (one at a time: once let go, it holds the next ones back from
 * its own clock); with no other hart running, polls that have waited
 * ETSOC1_POLL_IDLE_MS; polls whose line was written.  @self is halting.
 * With the BQL held.
 */
static void etsoc1_sync_scan(Etsoc1MachineState *m, Etsoc1MinionCPU *self)
{
    Etsoc1SyncKey lowest = { UINT64_MAX, UINT64_MAX }, k;
    Etsoc1MinionCPU *cpu, *gate = NULL;
    int64_t now_ms = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    bool waiting = false, running = false;
    CPUState *cs;

    ETSOC1_MINION_FOREACH(cs, cpu) {
        uint32_t why = qatomic_read(&cpu->et->wait);

        waiting |= why == ETSOC1_WAIT_GATE || why == ETSOC1_WAIT_POLL;
        running |= cpu != self && !qatomic_read(&cs->halted);
        if (cpu == self && why == ETSOC1_WAIT_GATE) {
            k.t = cpu->et->sync_t;      /* @self, at its read */
        } else if (!etsoc1_holder(cpu, self, &k)) {
            continue;
        }
        k = etsoc1_read_key(m, cpu, k.t);
        if (etsoc1_key_lt(k, lowest)) {
            lowest = k;
            gate = why == ETSOC1_WAIT_GATE &&
                   !qatomic_read(&cpu->et->sync_released) ? cpu : NULL;
        }
    }
    if (gate && (gate == self || qatomic_read(&CPU(gate)->halted))) {
        etsoc1_sync_release(gate, ETSOC1_WAIT_GATE);
    }
    ETSOC1_MINION_FOREACH(cs, cpu) {
        Etsoc1HartEt *et = cpu->et;

        if (qatomic_read(&et->wait) != ETSOC1_WAIT_POLL ||
            qatomic_read(&et->sync_released) ||
            (cpu != self && !qatomic_read(&cs->halted))) {
            continue;
        }
        if (!running && now_ms - et->sync_halted_ms >= ETSOC1_POLL_IDLE_MS) {
            etsoc1_sync_release(cpu, ETSOC1_WAIT_POLL);
        } else if (etsoc1_sync_has_work(cpu)) {
            etsoc1_minion_wake(cpu);    /* written: has_work lets it go */
        }
    }
    qatomic_set(&m->sync_waiting, waiting);
    if (waiting) {
        timer_mod(m->sync_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                  ETSOC1_SYNC_TICK_MS);
    }
}

/* @cpu halts on a poll or at the gate (do_interrupt, BQL held). */
void etsoc1_sync_halting(Etsoc1MinionCPU *cpu)
{
    etsoc1_sync_scan(etsoc1_sync_machine(), cpu);
}

static void etsoc1_sync_tick(void *opaque)
{
    etsoc1_sync_scan(opaque, NULL);
}

/*
 * A global write to a line of @lc (NULL: of any) was made: wake the polls
 * halted on it.  Called without the line clock's lock.
 */
void etsoc1_sync_written(Etsoc1LineClock *lc)
{
    Etsoc1MachineState *m = etsoc1_sync_machine();
    Etsoc1MinionCPU *cpu;
    CPUState *cs;
    bool locked, found = false;

    if (!m || !qatomic_read(&m->sync_waiting) || (lc && !qatomic_read(&lc->polled))) {
        return;
    }
    locked = qemu_mutex_iothread_locked();
    if (!locked) {
        qemu_mutex_lock_iothread();
    }
    ETSOC1_MINION_FOREACH(cs, cpu) {
        if (qatomic_read(&cpu->et->wait) == ETSOC1_WAIT_POLL &&
            (!lc || cpu->et->poll_lc == lc)) {
            found = true;
            if (cpu != etsoc1_current_minion() && etsoc1_sync_has_work(cpu)) {
                etsoc1_minion_wake(cpu);
            }
        }
    }
    if (lc && !found) {
        /* a poll that halts meanwhile is found by the timer's scan */
        qatomic_set(&lc->polled, false);
    }
    if (!locked) {
        qemu_mutex_unlock_iothread();
    }
}

/*
 * After a migration or a reset, a hart that was halted on a poll or at
 * the gate runs its read again (its line clock pointer is not migrated).
 */
void etsoc1_sync_resume(Etsoc1MinionCPU *cpu)
{
    uint32_t why = cpu->et->wait;

    if (why == ETSOC1_WAIT_POLL || why == ETSOC1_WAIT_GATE) {
        cpu->et->wait = ETSOC1_WAIT_NONE;
        cpu->et->poll_lc = NULL;
        CPU(cpu)->halted = 0;
    }
}

void etsoc1_sync_start(Etsoc1MachineState *s)
{
    etsoc1_sync_m = s;
    s->sync_timer = timer_new_ms(QEMU_CLOCK_REALTIME, etsoc1_sync_tick, s);
}
