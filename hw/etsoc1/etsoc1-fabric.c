/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1 on-chip fabric: tensor messages between minions
 * (TensorSend/Recv/Broadcast/Reduce), the fast local barrier CSR, and the
 * deadlock detector.
 *
 * Modelled from isa.md sections 4, 5 and 7 and timing.md section 7.
 *
 * tensor_reduce (CSR 0x800) moves whole 256-bit f registers (8 x 32-bit
 * lanes) from a sender minion to a receiver minion, which combines them
 * into its own registers.  The instruction is asynchronous, as on the chip:
 * thread 0 goes on with integer code, while its FP instructions wait for
 * the transfer (env->et_tensor_busy, qemu-patches/0002), as do a second
 * tensor_reduce (one outstanding operation per minion) and tensor_wait
 * event 9.
 *
 * Handshake (machine property "handshake"):
 *  sysemu  both sides name each other and are matched directly, as in
 *          Esperanto's simulator: nothing is ever lost.
 *  rtl     the inferred silicon rule for peer-to-peer send/recv: a
 *          receiver that issues its recv sends one "ready" to its sender;
 *          each minion has a single incoming ready bit with no source and no
 *          count.  A sender delivers to the partner it names when its bit
 *          is set and that partner is waiting for it, and the delivery
 *          clears the bit.  A ready that arrives while the bit is set is
 *          lost.  The hardware trees (broadcast/reduce) have a ready per
 *          level, so their pairs are matched directly in both modes.
 *
 * All fabric state is protected by the BQL.
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "fpu/softfloat.h"
#include "exec/exec-all.h"
#include "exec/helper-proto.h"
#include "hw/etsoc1/etsoc1.h"
#include "trace.h"

/* tensor_reduce fields (isa.md section 4) */
FIELD(TREDUCE, OP, 0, 2)
FIELD(TREDUCE, PARTNER, 3, 13)
FIELD(TREDUCE, LEVEL, 3, 4)
FIELD(TREDUCE, NUM_REGS, 16, 7)
FIELD(TREDUCE, FUNC, 24, 4)
FIELD(TREDUCE, START_REG, 57, 5)

enum { TR_SEND = 0, TR_RECV = 1, TR_BROADCAST = 2, TR_REDUCE = 3 };

/* Receive functions; the others are reserved. */
enum {
    TR_FADD = 0, TR_FMAX = 2, TR_FMIN = 3, TR_IADD = 4, TR_IMAX = 6,
    TR_IMIN = 7, TR_MOVE = 8,
};

static const char *const etsoc1_reduce_func_name[16] = {
    [TR_FADD] = "fadd", [TR_FMAX] = "fmax", [TR_FMIN] = "fmin",
    [TR_IADD] = "iadd", [TR_IMAX] = "imax", [TR_IMIN] = "imin",
    [TR_MOVE] = "move",
};

static Etsoc1MachineState *etsoc1_machine(void)
{
    return ETSOC1_MACHINE(qdev_get_machine());
}

/* The thread-0 hart of global minion @gid, or NULL if there is none. */
static Etsoc1MinionCPU *etsoc1_minion_hart(Etsoc1MachineState *m, unsigned gid)
{
    if (gid >= m->num_shires * ETSOC1_MINIONS_PER_SHIRE) {
        return NULL;
    }
    return &m->shire[gid / ETSOC1_MINIONS_PER_SHIRE]
                .hart[(gid % ETSOC1_MINIONS_PER_SHIRE) * ETSOC1_THREADS];
}

static Etsoc1Reduce *etsoc1_reduce_of(Etsoc1MinionCPU *cpu)
{
    uint64_t hartid = cpu->parent_obj.env.mhartid;

    return &cpu->shire->reduce[(hartid % ETSOC1_HARTS_PER_SHIRE) /
                               ETSOC1_THREADS];
}

static unsigned etsoc1_gid(Etsoc1MinionCPU *cpu)
{
    return cpu->parent_obj.env.mhartid / ETSOC1_THREADS;
}

static uint32_t etsoc1_combine(unsigned func, uint32_t snd, uint32_t rcv,
                               float_status *st)
{
    switch (func) {
    case TR_FADD:
        return ETSOC1_FTZ(float32_add(rcv, snd, st), 23, 8, st);
    case TR_FMAX:
        return float32_maximum_number(rcv, snd, st);
    case TR_FMIN:
        return float32_minimum_number(rcv, snd, st);
    case TR_IADD:
        return rcv + snd;
    case TR_IMAX:
        return MAX((int32_t)rcv, (int32_t)snd);
    case TR_IMIN:
        return MIN((int32_t)rcv, (int32_t)snd);
    case TR_MOVE:
        return snd;
    default:
        g_assert_not_reached();  /* rejected at issue */
    }
}

/* Move the registers; the receiver's rounding mode, flags accrue on it. */
static void etsoc1_transfer(Etsoc1MinionCPU *snd, Etsoc1Reduce *s,
                            Etsoc1MinionCPU *rcv, Etsoc1Reduce *r)
{
    float_status *st = &rcv->parent_obj.env.fp_status;
    FloatRoundMode saved = get_float_rounding_mode(st);
    unsigned k, lane;

    trace_etsoc1_reduce_transfer(etsoc1_gid(snd), etsoc1_gid(rcv), r->count,
                                 etsoc1_reduce_func_name[r->func]);
    if (s->count != r->count) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: tensor send of %u registers "
                      "from minion %u meets a receive of %u at minion %u\n",
                      s->count, etsoc1_gid(snd), r->count, etsoc1_gid(rcv));
        snd->et->tensor_error |= ETSOC1_TENSOR_ERROR_SEND_RECV;
        rcv->et->tensor_error |= ETSOC1_TENSOR_ERROR_SEND_RECV;
        return;
    }
    set_float_rounding_mode(etsoc1_rm(r->frm), st);
    for (k = 0; k < r->count; k++) {
        unsigned fs = (s->start + k) % 32, fr = (r->start + k) % 32;

        for (lane = 0; lane < ETSOC1_FLANES; lane++) {
            etsoc1_set_flane(&rcv->parent_obj.env, fr, lane,
                etsoc1_combine(r->func, etsoc1_flane(&snd->parent_obj.env, fs,
                                                     lane),
                               etsoc1_flane(&rcv->parent_obj.env, fr, lane),
                               st));
        }
    }
    set_float_rounding_mode(saved, st);
    if (r->count) {
        rcv->parent_obj.env.mstatus |= MSTATUS_FS;   /* registers written */
    }
}

/*
 * When the transfer completes on each side (docs/timing.md); returns when
 * the data leaves.  The send can go when it is issued and the minion's
 * send path is free (streamed messages follow one another at the stream
 * cost of the path).  The data leaves only when the receiver's ready has
 * reached the sender: a receiver that posted its recv by then (early) has
 * its ready there already and waits only for the data's one-way arrival;
 * a late one (recv issued after the send could go) waits for its ready to
 * travel to the sender and the data to come back, the round trip of the
 * path.  Each register after the first takes a stream slot.  The sender's
 * registers are free once read out.  Combining costs the same as a move.
 * The same in both handshake modes and for the tree pairs.
 */
static uint64_t etsoc1_reduce_times(Etsoc1MinionCPU *snd, Etsoc1Reduce *s,
                                    Etsoc1MinionCPU *rcv, Etsoc1Reduce *r)
{
    unsigned a = etsoc1_gid(snd), b = etsoc1_gid(rcv);
    double reg = etsoc1_stream_reg(a, b);
    double leg = etsoc1_msg_latency(a, b);
    uint64_t start = MAX(s->t_issue, s->t_send_free);

    if (r->t_issue > start) {
        start = r->t_issue + llround(leg);  /* late: the ready travels */
    }
    r->t_done = MAX(start + llround(leg + reg * (r->count - 1)), r->t_issue);
    s->t_done = start + llround(reg * r->count);
    s->t_send_free = start + llround(etsoc1_stream_fixed(a, b) +
                                     reg * r->count);
    return start;
}

/*
 * The operation is over: the hart may go on.  Its f registers stay marked
 * busy until the hart itself sees the end (etsoc1_reduce_observe), so its
 * clock catches up with the completion time.
 */
static void etsoc1_reduce_finish(Etsoc1MinionCPU *cpu, Etsoc1Reduce *op)
{
    qatomic_set(&op->state, ETSOC1_REDUCE_IDLE);
    if (qatomic_read(&cpu->et->wait) == ETSOC1_WAIT_REDUCE) {
        etsoc1_minion_wake(cpu);
    }
}

/* When the minion's last tensor_reduce completed (timing model). */
uint64_t etsoc1_reduce_done_at(Etsoc1MinionCPU *cpu)
{
    return etsoc1_reduce_of(cpu)->t_done;
}

/*
 * Called by the hart once its operation is done: take its results (and
 * those of a TensorFMA or TensorQuant writing the f registers).
 */
void etsoc1_reduce_observe(Etsoc1MinionCPU *cpu)
{
    qatomic_set(&cpu->parent_obj.env.et_tensor_busy, 0);
    etsoc1_advance_to(cpu, MAX(etsoc1_reduce_of(cpu)->t_done,
                               cpu->et->t_tensor[ETSOC1_TT_FREG]));
}

/* Deliver if sender @snd and its named partner can now complete. */
static void etsoc1_try_deliver(Etsoc1MachineState *m, Etsoc1MinionCPU *snd)
{
    Etsoc1Reduce *s = etsoc1_reduce_of(snd);
    Etsoc1MinionCPU *rcv;
    Etsoc1Reduce *r;
    Etsoc1Event ev = { .kind = ETSOC1_EV_MESSAGE };

    if (s->state != ETSOC1_REDUCE_PENDING || s->op != TR_SEND) {
        return;
    }
    rcv = etsoc1_minion_hart(m, s->partner);
    r = etsoc1_reduce_of(rcv);
    ev.src = snd->parent_obj.env.mhartid;
    ev.dst = rcv->parent_obj.env.mhartid;
    if (r->state != ETSOC1_REDUCE_PENDING || r->op != TR_RECV ||
        r->partner != etsoc1_gid(snd)) {
        return;
    }
    if (m->handshake == ETSOC1_HANDSHAKE_RTL && !s->tree) {
        if (!s->ready) {
            return;
        }
        s->ready = false;
    }
    ev.sent = etsoc1_reduce_times(snd, s, rcv, r);
    ev.time = r->t_done;
    etsoc1_event_trace(&ev);
    etsoc1_transfer(snd, s, rcv, r);
    etsoc1_reduce_finish(snd, s);
    etsoc1_reduce_finish(rcv, r);
}

/* rtl handshake: receiver @rcv tells its sender it is ready. */
static void etsoc1_send_ready(Etsoc1MachineState *m, Etsoc1MinionCPU *rcv,
                              Etsoc1MinionCPU *snd)
{
    Etsoc1Reduce *s = etsoc1_reduce_of(snd);
    unsigned from = etsoc1_gid(rcv);
    Etsoc1Event ev = {
        .kind = ETSOC1_EV_READY,
        .src = rcv->parent_obj.env.mhartid,
        .dst = snd->parent_obj.env.mhartid,
        /* one way; hidden when the send was not ready to go yet */
        .sent = etsoc1_reduce_of(rcv)->t_issue,
        .time = etsoc1_reduce_of(rcv)->t_issue +
                llround(etsoc1_msg_latency(from, etsoc1_gid(snd))),
    };

    etsoc1_event_trace(&ev);
    if (s->ready) {
        /* One bit, no source, no count: this ready is gone. */
        trace_etsoc1_reduce_ready_lost(etsoc1_gid(snd), s->ready_from, from);
        s->lost = true;
        s->lost_from = from;
        s->lost_first = s->ready_from;
        return;
    }
    trace_etsoc1_reduce_ready(etsoc1_gid(snd), from);
    s->ready = true;
    s->ready_from = from;
}

static RISCVException etsoc1_reduce_reject(Etsoc1MinionCPU *cpu,
                                           const char *why, uint64_t val)
{
    qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": tensor_reduce "
                  "0x%" PRIx64 ": %s\n", (uint64_t)cpu->parent_obj.env.mhartid,
                  val, why);
    cpu->et->tensor_error |= ETSOC1_TENSOR_ERROR_SEND_RECV;
    return RISCV_EXCP_NONE;
}

/* CSR 0x800 written on thread 0; called with the BQL held. */
RISCVException etsoc1_tensor_reduce(Etsoc1MinionCPU *cpu, uint64_t val)
{
    Etsoc1MachineState *m = etsoc1_machine();
    Etsoc1Reduce *op = etsoc1_reduce_of(cpu);
    unsigned me = etsoc1_gid(cpu), kind = FIELD_EX64(val, TREDUCE, OP);
    unsigned func = FIELD_EX64(val, TREDUCE, FUNC);
    Etsoc1MinionCPU *partner;
    unsigned role, peer;

    if (op->state == ETSOC1_REDUCE_PENDING) {
        /* one outstanding operation: wait, then this write is replayed */
        return etsoc1_block(cpu, ETSOC1_WAIT_REDUCE);
    }
    qatomic_set(&cpu->et->wait, ETSOC1_WAIT_NONE);
    etsoc1_reduce_observe(cpu);

    role = kind;
    peer = FIELD_EX64(val, TREDUCE, PARTNER);
    if (kind == TR_BROADCAST || kind == TR_REDUCE) {
        /* auto-pair: one tree level h over global minion ids (isa.md 5) */
        unsigned d = 1u << FIELD_EX64(val, TREDUCE, LEVEL);
        unsigned pos = me & (2 * d - 1);

        if (pos == d) {
            role = kind == TR_REDUCE ? TR_SEND : TR_RECV;
            peer = me - d;
        } else if (pos == 0) {
            role = kind == TR_REDUCE ? TR_RECV : TR_SEND;
            peer = me + d;
        } else {
            return RISCV_EXCP_NONE;     /* not at this level */
        }
    }

    if (peer == me) {
        return etsoc1_reduce_reject(cpu, "partner is the minion itself", val);
    }
    partner = etsoc1_minion_hart(m, peer);
    if (!partner) {
        return etsoc1_reduce_reject(cpu, "partner minion does not exist", val);
    }
    if (role == TR_RECV && !etsoc1_reduce_func_name[func]) {
        return etsoc1_reduce_reject(cpu, "reserved receive function", val);
    }
    if (FIELD_EX64(val, TREDUCE, NUM_REGS) == 0) {
        return RISCV_EXCP_NONE;
    }
    if (role == TR_RECV && func == TR_FADD &&
        !ETSOC1_RM_VALID(cpu->parent_obj.env.frm)) {
        return RISCV_EXCP_ILLEGAL_INST;
    }

    op->op = role;
    op->partner = peer;
    op->count = FIELD_EX64(val, TREDUCE, NUM_REGS);
    op->start = FIELD_EX64(val, TREDUCE, START_REG);
    op->func = func;
    op->frm = cpu->parent_obj.env.frm;
    op->tree = kind == TR_BROADCAST || kind == TR_REDUCE;
    /* when this CSR write began, and not before the last one is done */
    op->t_issue = MAX(etsoc1_arrival(cpu, 0), op->t_done);
    etsoc1_advance_to(cpu, op->t_issue + etsoc1_insn_cost(ET_INSN_SYSTEM));
    op->state = ETSOC1_REDUCE_PENDING;
    cpu->et->tensor_insns[ETSOC1_TI_REDUCE]++;
    qatomic_set(&cpu->parent_obj.env.et_tensor_busy, 1);
    trace_etsoc1_reduce_issue(me, role == TR_SEND ? "send" : "recv", peer,
                              op->count, op->start);

    if (role == TR_RECV) {
        if (m->handshake == ETSOC1_HANDSHAKE_RTL && !op->tree) {
            etsoc1_send_ready(m, cpu, partner);
        }
        etsoc1_try_deliver(m, partner);
    } else {
        etsoc1_try_deliver(m, cpu);
    }

    return RISCV_EXCP_NONE;
}

bool etsoc1_reduce_done(Etsoc1MinionCPU *cpu)
{
    return qatomic_read(&etsoc1_reduce_of(cpu)->state) != ETSOC1_REDUCE_PENDING;
}

/*
 * An F or packed instruction on a hart whose f registers a tensor operation
 * owns (env->et_tensor_busy, tested before it runs): halt until the
 * operation is done, then run the instruction again.  has_work re-tests
 * the state.
 */
void HELPER(etsoc1_fp_wait)(CPURISCVState *env)
{
    Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(env_archcpu(env));
    CPUState *cs = env_cpu(env);

    if (etsoc1_reduce_done(cpu)) {
        etsoc1_reduce_observe(cpu);
        return;
    }
    qatomic_set(&cpu->et->wait, ETSOC1_WAIT_REDUCE);
    trace_etsoc1_minion_halt(env->mhartid, ETSOC1_WAIT_REDUCE);
    cs->halted = 1;
    cs->exception_index = EXCP_HLT;
    cpu_loop_exit_restore(cs, GETPC());
}

/* ---- fast local barrier -------------------------------------------------- */

/*
 * CSR flb (0x820): [4:0] barrier, [12:5] participants - 1.  The last
 * arrival resets the counter and reads 1; the others read 0.
 *
 * The counters are a unit of the shire, not of the minion: an access
 * travels to the unit (half of flb.rtt), steps the counter there and its
 * answer travels back (the other half).  The unit keeps, per counter,
 * the latest arrival of the round under way, so the access that
 * completes the barrier answers no earlier than the latest arrival of
 * its round: whichever hart the host runs last, the barrier completes at
 * the same time (docs/timing.md, "Fast local barrier").
 */
uint64_t etsoc1_flb(Etsoc1MinionCPU *cpu, uint64_t val)
{
    Etsoc1ShireState *sh = cpu->shire;
    unsigned n = extract64(val, 0, 5);
    uint8_t match = extract64(val, 5, 8), old;
    double rtt = etsoc1_t(ETSOC1_T_FLB_RTT);
    /* when this access reaches the unit, and the latest of its round */
    uint64_t own = etsoc1_arrival(cpu, 0) + llround(rtt / 2), latest;
    bool last;

    qemu_mutex_lock(&sh->flb_lock);
    old = sh->flb[n];
    last = old == match;
    sh->flb[n] = last ? 0 : (uint8_t)(old + 1);
    latest = MAX(own, sh->flb_at[n]);
    sh->flb_at[n] = last ? 0 : latest;
    qemu_mutex_unlock(&sh->flb_lock);

    trace_etsoc1_flb(cpu->parent_obj.env.mhartid, n, old, last);
    if (cpu->parent_obj.cfg.et_counters) {
        /* the answer leg, from the round's latest arrival or our own */
        etsoc1_advance_to(cpu, (last ? latest : own) + llround(rtt) -
                               llround(rtt / 2));
    }
    return last;
}

/* ---- deadlock detection -------------------------------------------------- */

typedef struct Etsoc1HartWait {
    uint64_t hartid;
    const char *what;
    int64_t partner;            /* global minion id, or -1 */
} Etsoc1HartWait;

static const char *etsoc1_wait_name(Etsoc1MinionCPU *cpu, int64_t *partner)
{
    Etsoc1Reduce *op = etsoc1_reduce_of(cpu);

    *partner = -1;
    switch (qatomic_read(&cpu->et->wait)) {
    case ETSOC1_WAIT_FCC0:
        return "fcc0-credit";
    case ETSOC1_WAIT_FCC1:
        return "fcc1-credit";
    case ETSOC1_WAIT_REDUCE:
        *partner = op->partner;
        return op->op == TR_SEND ? "tensor-send" : "tensor-recv";
    case ETSOC1_WAIT_COOP:
        return "coop-tensor-load";
    case ETSOC1_WAIT_STOPPED:
        return "stopped";
    default:
        return "interrupt";
    }
}

/*
 * Fill @s->deadlock if no hart can make progress: every hart halted with
 * nothing to wake it and at least one of them waiting (not stopped).  The
 * host link (which may ring a doorbell at any time) turns the scan off;
 * a PU timer still counting is not consulted (docs/fabric.md).
 */
static bool etsoc1_scan_deadlock(Etsoc1MachineState *s)
{
    CPUState *cs;
    bool waiting = false;

    CPU_FOREACH(cs) {
        Etsoc1MinionCPU *cpu = etsoc1_minion_of(cs);

        if (!cs->halted || cpu_has_work(cs)) {
            return false;
        }
        waiting |= cpu && qatomic_read(&cpu->et->wait) != ETSOC1_WAIT_STOPPED;
    }
    return waiting;
}

static void etsoc1_print_deadlock(Etsoc1MachineState *s)
{
    CPUState *cs;
    Etsoc1MinionCPU *cpu;
    unsigned i, m;

    error_printf("etsoc1: deadlock: no hart can make progress\n");
    ETSOC1_MINION_FOREACH(cs, cpu) {
        uint64_t h = cpu->parent_obj.env.mhartid;
        int64_t partner;
        const char *what = etsoc1_wait_name(cpu, &partner);

        if (!strcmp(what, "stopped")) {
            continue;
        }
        error_printf("  hart %" PRIu64 " (shire %" PRIu64 " minion %" PRIu64
                     " thread %" PRIu64 ") waits on %s", h,
                     h / ETSOC1_HARTS_PER_SHIRE,
                     (h % ETSOC1_HARTS_PER_SHIRE) / ETSOC1_THREADS,
                     h % ETSOC1_THREADS, what);
        if (partner >= 0) {
            error_printf(" %s minion %" PRId64, strcmp(what, "tensor-send")
                         ? "from" : "to", partner);
        }
        error_printf("\n");
    }
    for (i = 0; i < s->num_shires; i++) {
        for (m = 0; m < ETSOC1_MINIONS_PER_SHIRE; m++) {
            Etsoc1Reduce *op = &s->shire[i].reduce[m];

            if (op->lost) {
                error_printf("  lost ready: minion %u took a ready from "
                             "minion %u, then the ready from minion %u was "
                             "lost\n", i * ETSOC1_MINIONS_PER_SHIRE + m,
                             op->lost_first, op->lost_from);
            }
        }
    }
}

static void etsoc1_deadlock_tick(void *opaque)
{
    Etsoc1MachineState *s = opaque;
    bool dead = etsoc1_scan_deadlock(s);

    if (dead && !s->deadlocked) {
        etsoc1_print_deadlock(s);
        if (s->on_deadlock == ETSOC1_ON_DEADLOCK_EXIT) {
            exit(ETSOC1_DEADLOCK_EXIT_STATUS);
        }
    }
    s->deadlocked = dead;
    timer_mod(s->deadlock_timer,
              qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + ETSOC1_DEADLOCK_POLL_MS);
}

void etsoc1_deadlock_start(Etsoc1MachineState *s)
{
    if (s->on_deadlock == ETSOC1_ON_DEADLOCK_HANG) {
        return;     /* like the silicon: nobody notices */
    }
    if (s->hostlink_id) {
        return;     /* the host may ring a doorbell at any time */
    }
    s->deadlock_timer = timer_new_ms(QEMU_CLOCK_REALTIME, etsoc1_deadlock_tick,
                                     s);
    timer_mod(s->deadlock_timer,
              qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + ETSOC1_DEADLOCK_POLL_MS);
}

/*
 * QOM property "deadlock" (qom-get): the same report as JSON.
 * { "deadlocked": bool,
 *   "waiting": [ { "hartid", "shire", "minion", "thread", "wait",
 *                  "partner"? } ],
 *   "lost-readies": [ { "minion", "ready-from", "lost-from" } ] }
 */
void etsoc1_get_deadlock(Object *obj, Visitor *v, const char *name,
                         void *opaque, Error **errp)
{
    Etsoc1MachineState *s = ETSOC1_MACHINE(obj);
    bool dead = s->num_shires && etsoc1_scan_deadlock(s);
    CPUState *cs;
    Etsoc1MinionCPU *cpu;
    unsigned i, m;

    if (!visit_start_struct(v, name, NULL, 0, errp)) {
        return;
    }
    visit_type_bool(v, "deadlocked", &dead, &error_abort);
    visit_start_list(v, "waiting", NULL, 0, &error_abort);
    ETSOC1_MINION_FOREACH(cs, cpu) {
        uint64_t h = cpu->parent_obj.env.mhartid;
        uint64_t shire = h / ETSOC1_HARTS_PER_SHIRE;
        uint64_t minion = (h % ETSOC1_HARTS_PER_SHIRE) / ETSOC1_THREADS;
        uint64_t thread = h % ETSOC1_THREADS;
        int64_t partner;
        char *what = (char *)etsoc1_wait_name(cpu, &partner);

        if (!cs->halted || !strcmp(what, "stopped") ||
            (qatomic_read(&cpu->et->wait) == ETSOC1_WAIT_NONE &&
             cpu_has_work(cs))) {
            continue;
        }
        visit_start_struct(v, NULL, NULL, 0, &error_abort);
        visit_type_uint64(v, "hartid", &h, &error_abort);
        visit_type_uint64(v, "shire", &shire, &error_abort);
        visit_type_uint64(v, "minion", &minion, &error_abort);
        visit_type_uint64(v, "thread", &thread, &error_abort);
        visit_type_str(v, "wait", &what, &error_abort);
        if (partner >= 0) {
            visit_type_int64(v, "partner", &partner, &error_abort);
        }
        visit_check_struct(v, &error_abort);
        visit_end_struct(v, NULL);
    }
    visit_check_list(v, &error_abort);
    visit_end_list(v, NULL);
    visit_start_list(v, "lost-readies", NULL, 0, &error_abort);
    for (i = 0; i < s->num_shires; i++) {
        for (m = 0; m < ETSOC1_MINIONS_PER_SHIRE; m++) {
            Etsoc1Reduce *op = &s->shire[i].reduce[m];
            uint32_t gid = i * ETSOC1_MINIONS_PER_SHIRE + m;
            uint32_t first = op->lost_first, lost = op->lost_from;

            if (!op->lost) {
                continue;
            }
            visit_start_struct(v, NULL, NULL, 0, &error_abort);
            visit_type_uint32(v, "minion", &gid, &error_abort);
            visit_type_uint32(v, "ready-from", &first, &error_abort);
            visit_type_uint32(v, "lost-from", &lost, &error_abort);
            visit_check_struct(v, &error_abort);
            visit_end_struct(v, NULL);
        }
    }
    visit_check_list(v, &error_abort);
    visit_end_list(v, NULL);
    visit_check_struct(v, &error_abort);
    visit_end_struct(v, NULL);
}
