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
 * The pairs of tensor messages (every Etsoc1Reduce and its ready bit) are
 * protected by the machine's fabric_lock, not the BQL: every
 * tensor_reduce takes it, and on the full chip a vCPU thread that queued
 * for the BQL there also queued behind the main loop and the read gate's
 * scans.  The deadlock detector takes it for its look at the transfers.
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
#include "hw/etsoc1/etsoc1-timing.h"
#include "hw/etsoc1/etsoc1.h"
#include "hw/etsoc1/etsoc1-csr.h"
#include "hw/etsoc1/etsoc1-trace.h"
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
    return &etsoc1_minion_state(cpu)->reduce;
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
        snd->et->tensor.error |= ETSOC1_TENSOR_ERROR_SEND_RECV;
        rcv->et->tensor.error |= ETSOC1_TENSOR_ERROR_SEND_RECV;
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
 * The same in both handshake modes.  A tree pair has no late case: a
 * tree keeps a ready per level (timing.md 7), standing at the sender
 * before the receiver's reduce is issued, so the data leaves when the
 * send can go and a late receiver completes at its own issue (docs/
 * timing.md, "Late and early receives").
 */
static uint64_t etsoc1_reduce_times(Etsoc1MinionCPU *snd, Etsoc1Reduce *s,
                                    Etsoc1MinionCPU *rcv, Etsoc1Reduce *r)
{
    unsigned a = etsoc1_gid(snd), b = etsoc1_gid(rcv);
    double reg = etsoc1_stream_reg(snd->timing, a, b);
    double leg = etsoc1_msg_latency(snd->timing, a, b);
    uint64_t start = MAX(s->t_issue, s->t_send_free);

    if (r->t_issue > start && !s->tree) {
        start = r->t_issue + llround(leg);  /* late: the ready travels */
    }
    r->t_done = MAX(start + llround(leg + reg * (r->count - 1)), r->t_issue);
    s->t_done = start + llround(reg * r->count);
    s->t_send_free = start + llround(etsoc1_stream_fixed(snd->timing, a, b) +
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
    etsoc1_trace_wait_until(etsoc1_hart(cpu), etsoc1_now(cpu),
                            ETSOC1_WAIT_REDUCE,
                            MAX(etsoc1_reduce_of(cpu)->t_done,
                                cpu->et->tensor.t[ETSOC1_TT_FREG]), 0);
    etsoc1_advance_to(cpu, MAX(etsoc1_reduce_of(cpu)->t_done,
                               cpu->et->tensor.t[ETSOC1_TT_FREG]));
}

/* ---- the shires' mesh ports ---------------------------------------------- */

/*
 * docs/timing.md, "Contention".  All traffic of a shire's minions to and
 * from other shires passes the one point where the shire meets the mesh
 * (timing.md 1).  A peer message between shires holds the sender shire's
 * out-port, then the receiver shire's in-port, for mesh.port.reg per
 * register; a message that finds a port busy waits, and the receive
 * completes that much later.  Only the wait is charged: the path latency
 * of timing.md 3 already holds one pass through each port.
 *
 * Messages are delivered in the host's order (a pair meets when the host
 * runs the second of its send and receive), so a port's next-free time
 * cannot follow deliveries.  A message is booked at its delivery, in its
 * out-port's queue; the receiver, before it takes its result, waits at
 * the gate for the time its message reaches the port, then serves, in
 * (time, receiving minion) order, every booked message up to its own:
 * none can still come that reaches the port earlier (etsoc1_port_book),
 * so what each waits depends on the set of messages, not on the order
 * the host delivered them in.
 *
 * Only peer messages under handshake=rtl with poll-halt=on are booked:
 * the gate orders them; the hardware trees, handshake=sysemu and
 * poll-halt=off do not pass it (documented limits).
 */

static Etsoc1Reduce *etsoc1_reduce_of_gid(Etsoc1MachineState *m, unsigned gid)
{
    return &m->shire[gid / ETSOC1_MINIONS_PER_SHIRE]
               .minion[gid % ETSOC1_MINIONS_PER_SHIRE].reduce;
}

/*
 * From where the data leaves (or reaches the receiver's shire) to the
 * shire's mesh stop: our choice, half the fixed one-way part of the
 * message round trip between shires (150 / 4).  It must exceed the
 * gate's lookahead (etsoc1_sync_lookahead).
 */
static double etsoc1_port_leg(const Etsoc1Timing *tm)
{
    return etsoc1_t(tm, ETSOC1_T_MSG_RTT_MESH) / 4;
}

/* From shire @a's mesh stop to shire @b's: the hops of the one way */
static uint64_t etsoc1_port_transit(const Etsoc1Timing *tm, unsigned a,
                                    unsigned b)
{
    return llround(etsoc1_hops(a, b) *
                   etsoc1_t(tm, ETSOC1_T_MESH_HOP_RTT) / 2);
}

/*
 * How far past the time T a port must have served up to the gate must
 * let its receiver go: every message that reaches a port before T must
 * be booked.  A running hart at clock u delivers data that leaves no
 * earlier than u (less the CSR's own cycle), so reaches its out-port
 * after u + the port leg, past the lookahead.  But a receive waiting at
 * the gate is there at the time its ready reaches its sender, up to the
 * longest one way between shires (the map's diameter, 10 hops) after its
 * issue, and the gate does not wait for one within the lookahead: once
 * let go, its data may leave as early as its issue (an early receive,
 * etsoc1_reduce_times).  So the receiver waits at the gate for T + this.
 */
static uint64_t etsoc1_port_slack(Etsoc1MachineState *m)
{
    const Etsoc1Timing *tm = m->timing;
    double lead = (etsoc1_t(tm, ETSOC1_T_MSG_RTT_MESH) +
                   10 * etsoc1_t(tm, ETSOC1_T_MESH_HOP_RTT)) / 2 -
                  etsoc1_port_leg(tm);

    return m->sync_lookahead + (lead > 0 ? (uint64_t)ceil(lead) : 0);
}

/* Cycles a message of @count registers holds a port */
static uint64_t etsoc1_port_service(const Etsoc1Timing *tm, unsigned count)
{
    return llround(count * etsoc1_t(tm, ETSOC1_T_MESH_PORT_REG));
}

/*
 * Book the message to @rcv (record @r) whose data left sender minion @a
 * at @left.  @left is no earlier than the clock of the hart that delivers
 * it (the later of the pair: etsoc1_reduce_times), so it reaches its
 * out-port at least the port leg after that clock, past the gate's
 * lookahead: a receiver let go from the gate at T has every message that
 * reaches a port before T booked.
 */
static void etsoc1_port_book(Etsoc1MachineState *m, unsigned a,
                             Etsoc1MinionCPU *rcv, Etsoc1Reduce *r,
                             uint64_t left)
{
    Etsoc1ShireState *out = &m->shire[a / ETSOC1_MINIONS_PER_SHIRE];

    etsoc1_mutex_lock(&m->port_lock);
    qatomic_set(&r->port, ETSOC1_PORT_BOOKED);
    r->port_from = a / ETSOC1_MINIONS_PER_SHIRE;
    r->port_out = left + llround(etsoc1_port_leg(m->timing));
    r->port_in = 0;
    r->port_wait = 0;
    if (out->port_npend < ETSOC1_PORT_PEND_MAX) {
        out->port_pend[out->port_npend++] = etsoc1_gid(rcv);
    }
    qemu_mutex_unlock(&m->port_lock);
}

/* a message's turn at a port or a link: (time, receiver) */
typedef Etsoc1MeshEvent Etsoc1PortTurn;

static int etsoc1_port_turn_cmp(const void *a, const void *b)
{
    const Etsoc1PortTurn *x = a, *y = b;

    if (x->t != y->t) {
        return x->t < y->t ? -1 : 1;
    }
    return x->gid < y->gid ? -1 : x->gid > y->gid;
}

static bool etsoc1_port_before(uint64_t t, unsigned gid, uint64_t u,
                               unsigned hgid)
{
    return t < u || (t == u && gid <= hgid);
}

/* the mesh's heap of messages on the links, in (time, receiver) order */
static bool etsoc1_fly_before(const Etsoc1MeshEvent *a,
                              const Etsoc1MeshEvent *b)
{
    return etsoc1_port_turn_cmp(a, b) < 0;
}

/*
 * A unit free from *@free passes what reaches it at @at for @hold: from
 * the later of the two, which it returns; *@free moves past it
 */
static uint64_t etsoc1_unit_take(uint64_t *free, uint64_t at, uint64_t hold)
{
    uint64_t go = MAX(at, *free);

    *free = go + hold;
    return go;
}

/* Do tensor messages take turns at the mesh links (mesh.link.reg)? */
static bool etsoc1_msg_links(const Etsoc1Timing *tm)
{
    return etsoc1_t(tm, ETSOC1_T_MESH_LINK_REG) > 0;
}

/* Is a received message still to be served by the ports or links? */
static bool etsoc1_port_pending(uint8_t port)
{
    return port == ETSOC1_PORT_BOOKED || port == ETSOC1_PORT_LINKS ||
           port == ETSOC1_PORT_OUT_DONE;
}

static void etsoc1_fly_push(Etsoc1MeshState *mesh, uint64_t t, uint32_t gid)
{
    Etsoc1MeshEvent v = { .t = t, .gid = gid };
    unsigned i;

    if (mesh->nfly == ARRAY_SIZE(mesh->fly)) {
        /* full of entries whose receivers were reset: built again */
        mesh->fly_stale = true;
        return;
    }
    i = mesh->nfly++;

    while (i && etsoc1_fly_before(&v, &mesh->fly[(i - 1) / 2])) {
        mesh->fly[i] = mesh->fly[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    mesh->fly[i] = v;
}

static Etsoc1MeshEvent etsoc1_fly_pop(Etsoc1MeshState *mesh)
{
    Etsoc1MeshEvent top = mesh->fly[0], v = mesh->fly[--mesh->nfly];
    unsigned i = 0, c, n = mesh->nfly;

    while ((c = 2 * i + 1) < n) {
        if (c + 1 < n && etsoc1_fly_before(&mesh->fly[c + 1], &mesh->fly[c])) {
            c++;
        }
        if (!etsoc1_fly_before(&mesh->fly[c], &v)) {
            break;
        }
        mesh->fly[i] = mesh->fly[c];
        i = c;
    }
    mesh->fly[i] = v;
    return top;
}

/*
 * Shire @s's out-port serves, in (time, receiver) order, every message in
 * its queue up to (@t, @gid).  Under port_lock.
 */
static void etsoc1_port_serve_out(Etsoc1MachineState *m, unsigned s,
                                  uint64_t t, unsigned gid)
{
    Etsoc1ShireState *sh = &m->shire[s];
    Etsoc1PortTurn turn[ETSOC1_PORT_PEND_MAX];  /* port_npend is bounded */
    unsigned i, n = 0, keep = 0;

    for (i = 0; i < sh->port_npend; i++) {
        unsigned g = sh->port_pend[i];
        Etsoc1Reduce *r = etsoc1_reduce_of_gid(m, g);

        if (etsoc1_port_before(r->port_out, g, t, gid)) {
            turn[n++] = (Etsoc1PortTurn) { r->port_out, g };
        } else {
            sh->port_pend[keep++] = g;
        }
    }
    sh->port_npend = keep;
    qsort(turn, n, sizeof(*turn), etsoc1_port_turn_cmp);
    for (i = 0; i < n; i++) {
        Etsoc1Reduce *r = etsoc1_reduce_of_gid(m, turn[i].gid);
        uint64_t go = etsoc1_unit_take(&sh->port_free[0], r->port_out,
                                       etsoc1_port_service(m->timing,
                                                           r->count));

        r->port_wait = go - r->port_out;
        if (etsoc1_msg_links(m->timing)) {
            /* its route's links next (etsoc1_port_links) */
            r->port_hop = 0;
            r->port_at = go;
            qatomic_set(&r->port, ETSOC1_PORT_LINKS);
            etsoc1_fly_push(m->mesh, go, turn[i].gid);
            continue;
        }
        r->port_in = go + etsoc1_port_transit(m->timing, s,
                                              turn[i].gid /
                                              ETSOC1_MINIONS_PER_SHIRE);
        qatomic_set(&r->port, ETSOC1_PORT_OUT_DONE);
    }
}

/* When a message on the links reaches its next one (etsoc1_port_links) */
static uint64_t etsoc1_port_next_link(const Etsoc1Reduce *r, double hop)
{
    return r->port_at + llround(r->port_hop * hop);
}

/*
 * Every out-port serves its messages up to @t, then the mesh links pass
 * every message that reaches one up to @t, in (time, receiver) order
 * across the chip: a link serves a message one register per
 * mesh.link.reg, from the later of its arrival and the end of the one
 * before.  A message reaches link k of its route k half round-trip hops
 * after its out-port let it go, plus what it waited at the links before
 * (Etsoc1Reduce.port_at: that time plus the waits), and its receiver's
 * in-port the route's transit after that.  The caller's receiver waited
 * at the gate for @t + etsoc1_port_slack, so every message that reaches
 * a port up to @t is booked, and every link passage up to @t is known:
 * one that comes later belongs to a message that reached its out-port
 * later.  So each link's order follows the model's times, whichever
 * receiver settles first in host time.  Under port_lock.
 */
static void etsoc1_port_links(Etsoc1MachineState *m, uint64_t t)
{
    const Etsoc1Timing *tm = m->timing;
    double hop = etsoc1_t(tm, ETSOC1_T_MESH_HOP_RTT) / 2;
    double reg = etsoc1_t(tm, ETSOC1_T_MESH_LINK_REG);
    Etsoc1MeshState *mesh = m->mesh;
    unsigned s, i;

    for (s = 0; s < m->num_shires; s++) {
        etsoc1_port_serve_out(m, s, t, UINT32_MAX);
    }
    if (mesh->fly_stale) {
        /*
         * After a load, or a heap full of entries whose receivers were
         * reset: the records say which messages are on the links
         */
        mesh->nfly = 0;
        mesh->fly_stale = false;
        for (s = 0; s < m->num_shires; s++) {
            for (i = 0; i < ETSOC1_MINIONS_PER_SHIRE; i++) {
                Etsoc1Reduce *r = &m->shire[s].minion[i].reduce;

                if (r->port == ETSOC1_PORT_LINKS) {
                    etsoc1_fly_push(mesh, etsoc1_port_next_link(r, hop),
                                    s * ETSOC1_MINIONS_PER_SHIRE + i);
                }
            }
        }
    }
    while (mesh->nfly && mesh->fly[0].t <= t) {
        Etsoc1MeshEvent ev = etsoc1_fly_pop(mesh);
        unsigned to = ev.gid / ETSOC1_MINIONS_PER_SHIRE;
        Etsoc1Reduce *r = etsoc1_reduce_of_gid(m, ev.gid);
        uint8_t links[ETSOC1_ROUTE_MAX];
        unsigned hops;

        if (r->port != ETSOC1_PORT_LINKS ||
            ev.t != etsoc1_port_next_link(r, hop)) {
            continue;           /* its receiver was reset meanwhile */
        }
        hops = etsoc1_route(r->port_from, to, links);
        if (r->port_hop < hops) {
            uint64_t pass = etsoc1_unit_take(
                &mesh->msg_free[links[r->port_hop]], ev.t,
                llround(r->count * reg));

            trace_etsoc1_mesh_link_msg(ev.gid, links[r->port_hop], ev.t,
                                       pass);
            r->port_wait += pass - ev.t;
            r->port_at += pass - ev.t;
            r->port_hop++;
        }
        if (r->port_hop >= hops) {
            r->port_in = r->port_at + etsoc1_port_transit(tm, r->port_from,
                                                          to);
            qatomic_set(&r->port, ETSOC1_PORT_OUT_DONE);
        } else {
            etsoc1_fly_push(mesh, etsoc1_port_next_link(r, hop), ev.gid);
        }
    }
}

/*
 * Shire @s's in-port serves, in (time, receiver) order, every message to
 * its minions that reaches it up to (@t, @gid), each one's out-port
 * first.  Under port_lock.
 */
static void etsoc1_port_serve_in(Etsoc1MachineState *m, unsigned s,
                                 uint64_t t, unsigned gid)
{
    Etsoc1ShireState *sh = &m->shire[s];
    Etsoc1PortTurn turn[ETSOC1_MINIONS_PER_SHIRE];
    unsigned i, n = 0, base = s * ETSOC1_MINIONS_PER_SHIRE;

    for (i = 0; i < ETSOC1_MINIONS_PER_SHIRE; i++) {
        Etsoc1Reduce *r = &sh->minion[i].reduce;

        if (r->port == ETSOC1_PORT_BOOKED &&
            etsoc1_port_before(r->port_out, base + i, t, gid)) {
            etsoc1_port_serve_out(m, r->port_from, r->port_out, base + i);
        }
        if (r->port == ETSOC1_PORT_OUT_DONE &&
            etsoc1_port_before(r->port_in, base + i, t, gid)) {
            turn[n++] = (Etsoc1PortTurn) { r->port_in, base + i };
        }
    }
    qsort(turn, n, sizeof(*turn), etsoc1_port_turn_cmp);
    for (i = 0; i < n; i++) {
        Etsoc1Reduce *r = etsoc1_reduce_of_gid(m, turn[i].gid);
        uint64_t go = etsoc1_unit_take(&sh->port_free[1], r->port_in,
                                       etsoc1_port_service(m->timing,
                                                           r->count));

        r->port_wait += go - r->port_in;
        r->t_done += r->port_wait;
        qatomic_set(&r->port, ETSOC1_PORT_SETTLED);
        /* the receiver's wait for its data shows it, to the new t_done */
        trace_etsoc1_port_wait(turn[i].gid, r->port_from, s, r->port_out,
                               r->port_wait);
    }
}

/*
 * Before @cpu takes the result of its operation: if it received a message
 * from another shire, the ports' waits must be known.  False: the hart
 * waits at the gate (the caller halts it and runs the instruction again).
 */
bool etsoc1_reduce_settle(Etsoc1MinionCPU *cpu)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    Etsoc1Reduce *r = etsoc1_reduce_of(cpu);
    unsigned me = etsoc1_gid(cpu), s = me / ETSOC1_MINIONS_PER_SHIRE;
    uint64_t t, slack, cleared;
    uint8_t port;

    /*
     * Most operations had no message through the ports: no lock.  The
     * booking is made before the operation ends (etsoc1_try_deliver), and
     * the hart has seen it end.
     */
    port = qatomic_read(&r->port);
    if (!etsoc1_port_pending(port)) {
        return true;
    }
    for (;;) {
        etsoc1_mutex_lock(&m->port_lock);
        port = r->port;
        /* the earliest its message can reach the in-port */
        t = port == ETSOC1_PORT_BOOKED ?
            r->port_out + etsoc1_port_transit(m->timing, r->port_from, s) :
            port == ETSOC1_PORT_LINKS ?
            r->port_at + etsoc1_port_transit(m->timing, r->port_from, s) :
            r->port_in;
        qemu_mutex_unlock(&m->port_lock);
        if (!etsoc1_port_pending(port)) {
            return true;
        }
        /*
         * Let go from an earlier wait at the gate (the instruction ran
         * again), the hart may go on only to that wait's time: other
         * receivers' settles may have moved this message on since, and
         * its time with it.
         */
        slack = etsoc1_port_slack(m);
        cleared = qatomic_read(&cpu->et->wait) == ETSOC1_WAIT_GATE ?
                  cpu->et->gate.t : UINT64_MAX;
        if (!etsoc1_sync_gate(cpu, t + slack, NULL)) {
            return false;
        }
        if (cleared < t + slack) {
            t = cleared > slack ? cleared - slack : 0;
        }
        etsoc1_mutex_lock(&m->port_lock);
        if (etsoc1_msg_links(m->timing)) {
            /* links are shared across ports: every port and link to t */
            etsoc1_port_links(m, t);
        } else if (r->port == ETSOC1_PORT_BOOKED) {
            etsoc1_port_serve_out(m, r->port_from, r->port_out, me);
        }
        if (r->port == ETSOC1_PORT_OUT_DONE && r->port_in <= t) {
            etsoc1_port_serve_in(m, s, r->port_in, me);
        }
        qemu_mutex_unlock(&m->port_lock);
        /* the out-port held it back: wait at the gate again, further on */
    }
}

/*
 * Take port @free (its next-free time) at @t for @hold cycles through the
 * gate: *@go is when this load's data passes.  False: the hart halts at
 * the gate (etsoc1_tload_port).
 */
static bool etsoc1_tload_take(Etsoc1MinionCPU *cpu, uint64_t *free,
                              uint64_t t, uint64_t hold, uint64_t *go)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    Etsoc1GateAccess a = { .slot = free };

    if (!etsoc1_sync_gate(cpu, t, &a)) {
        return false;
    }
    etsoc1_mutex_lock(&m->port_lock);
    *go = etsoc1_unit_take(free, t, hold);
    qemu_mutex_unlock(&m->port_lock);
    etsoc1_sync_done(cpu);          /* the next load at that port */
    return true;
}

/*
 * The last leg of a TensorLoad from outside the shire: its data, let go
 * by the first leg at et->tload_port.go, reaches the reader's in-port
 * @transit later and holds it for @hold.  *@wait: what the load waited
 * at both legs.  False: the hart halts at the gate (the first leg's turn
 * is kept in et->tload_port).
 */
static bool etsoc1_tload_in(Etsoc1MinionCPU *cpu, uint64_t transit,
                            uint64_t hold, uint64_t *wait)
{
    Etsoc1ShireState *in = &cpu->shire->chip->shire[cpu->shire->shire_id];
    uint64_t t_in = cpu->et->tload_port.go + transit, go_in = t_in;

    if (hold > 0 &&
        !etsoc1_tload_take(cpu, &in->tload_free[1], t_in, hold, &go_in)) {
        return false;
    }
    *wait = cpu->et->tload_port.go - cpu->et->tload_port.out + go_in - t_in;
    return true;
}

/*
 * The first leg of a TensorLoad from shire @src's scratchpad: its data
 * reaches @src's out-port at @t and holds it for @hold, then takes each
 * link of its route (docs/timing.md, "Mesh links"), half a round-trip
 * hop after the one before plus what it waited there, holding each for
 * mesh.link.tload a line.  The out-port and the links are one access at
 * the gate: loads that share any of them pass in (time, hart) order and
 * are served in that order.  *@go: when the data left the last link less
 * the hops (so that the hops of the route come after it); false: the
 * hart halts at the gate.
 */
static bool etsoc1_tload_out(Etsoc1MinionCPU *cpu, unsigned src,
                             unsigned lines, uint64_t t, uint64_t hold,
                             uint64_t *go)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    const Etsoc1Timing *tm = m->timing;
    uint64_t *free = &m->shire[src].tload_free[0];
    uint64_t link_hold = llround(lines *
                                 etsoc1_t(tm, ETSOC1_T_MESH_LINK_TLOAD));
    double hop = etsoc1_t(tm, ETSOC1_T_MESH_HOP_RTT) / 2;
    Etsoc1GateAccess a = { .slot = free };
    uint8_t links[ETSOC1_ROUTE_MAX];
    unsigned n = 0, k;

    if (link_hold) {
        n = etsoc1_route(src, cpu->shire->shire_id, links);
        for (k = 0; k < n; k++) {
            set_bit(links[k], a.links);
        }
    }
    if (!etsoc1_sync_gate(cpu, t, &a)) {
        return false;
    }
    etsoc1_mutex_lock(&m->port_lock);
    *go = etsoc1_unit_take(free, t, hold);
    for (k = 0; k < n; k++) {
        uint64_t at = *go + llround(k * hop);
        uint64_t pass = etsoc1_unit_take(&m->mesh->link_free[links[k]], at,
                                         link_hold);

        trace_etsoc1_mesh_link_take(cpu->parent_obj.env.mhartid, links[k],
                                    at, pass);
        *go += pass - at;
    }
    qemu_mutex_unlock(&m->port_lock);
    etsoc1_sync_done(cpu);          /* the next load on any of them */
    return true;
}

/*
 * TensorLoad data through the mesh ports (docs/timing.md, "TensorLoads
 * through the ports").  A TensorLoad of @lines 64 B lines from the
 * scratchpad of shire @src, which the minion's load unit starts at
 * @start, holds @src's out-port, then the reader's shire's in-port, for
 * mesh.port.tload a line; *@wait is what it waited at the two, which the
 * caller adds to the load's end (the path of timing.md 4 already holds
 * one pass through each port).
 *
 * Unlike a message, a TensorLoad is timed when issued (its data moves
 * then), so each port is taken through the gate: the load waits until
 * no hart can still bring data to that port earlier (the port is the
 * gate's slot, so loads at one port within the lookahead go one at a
 * time, in (time, hart) order), then takes the port's next-free time.
 * Data reaches the out-port the port leg after the load starts, past
 * the lookahead, so a hart that runs holds the gate for it.  What each
 * load waits then depends on the model's times only.  False: the hart
 * halts at the gate and the CSR write runs again when let go; between
 * the two ports the out-port's turn is kept in et->tload_port.
 */
bool etsoc1_tload_port(Etsoc1MinionCPU *cpu, unsigned src, unsigned lines,
                       uint64_t start, uint64_t *wait)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    const Etsoc1Timing *tm = m->timing;
    unsigned s = cpu->shire->shire_id;
    uint64_t hold = llround(lines * etsoc1_t(tm, ETSOC1_T_MESH_PORT_TLOAD));

    *wait = 0;
    if (hold == 0 || !etsoc1_sync_enabled(cpu)) {
        return true;    /* no ports, or no gate to order them (a limit) */
    }
    if (!cpu->et->tload_port.go) {
        uint64_t t_out = start + llround(etsoc1_port_leg(tm)), go;

        if (!etsoc1_tload_out(cpu, src, lines, t_out, hold, &go)) {
            return false;
        }
        cpu->et->tload_port.out = t_out;
        cpu->et->tload_port.go = go;
    }
    if (!etsoc1_tload_in(cpu, etsoc1_port_transit(tm, src, s), hold, wait)) {
        return false;
    }
    trace_etsoc1_tload_port(cpu->parent_obj.env.mhartid, src, s, lines,
                            cpu->et->tload_port.out, *wait);
    cpu->et->tload_port.go = 0;
    return true;
}

/*
 * TensorLoad data from DRAM (docs/timing.md, "TensorLoads from DRAM"): the
 * load's @n lines, at the physical addresses @pa, which the minion's load
 * unit starts at @start.  Each memory shire (PA[8:6]) passes its lines
 * one at a time, dram.line each, in the order of etsoc1_dram_gate; the
 * data then comes in through the reader's in-port, as a remote
 * scratchpad's does.  *@wait is what the load waited at the two, which
 * the caller adds to its end (the measured DRAM figures of timing.md 5
 * hold the unloaded path).
 *
 * The request leaves the shire's mesh stop the port leg after @start and
 * reaches memory shire j its hops later; its data reaches the in-port
 * the farthest of its memory shires' round trips after the request,
 * plus its wait there.
 */
bool etsoc1_tload_dram(Etsoc1MinionCPU *cpu, const hwaddr *pa, unsigned n,
                       uint64_t start, uint64_t *wait)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    const Etsoc1Timing *tm = m->timing;
    unsigned s = cpu->shire->shire_id;
    uint64_t hold = llround(n * etsoc1_t(tm, ETSOC1_T_MESH_PORT_TLOAD));
    unsigned i, j;

    *wait = 0;
    if (!etsoc1_sync_enabled(cpu)) {
        return true;    /* no gate to order them (a limit) */
    }
    if (!cpu->et->tload_port.go) {
        uint64_t t = start + llround(etsoc1_port_leg(tm)), far = 0, w = 0;
        unsigned lines[ETSOC1_MEMSHIRES] = { 0 };
        uint8_t memshires = 0;

        for (i = 0; i < n; i++) {
            j = etsoc1_memshire_of(pa[i]);
            lines[j]++;
            memshires |= BIT(j);
        }
        if (!etsoc1_dram_gate(cpu, t, memshires)) {
            return false;
        }
        for (j = 0; j < ETSOC1_MEMSHIRES; j++) {
            uint64_t way = llround(etsoc1_memshire_way(tm, s, j));

            if (lines[j]) {
                far = MAX(far, way);
                w = MAX(w, etsoc1_dram_take(cpu, j, t + way, lines[j]));
            }
        }
        etsoc1_sync_done(cpu);      /* the next request to DRAM */
        cpu->et->tload_port.out = t + 2 * far;
        cpu->et->tload_port.go = t + 2 * far + w;
    }
    if (!etsoc1_tload_in(cpu, 0, hold, wait)) {
        return false;
    }
    trace_etsoc1_tload_dram(cpu->parent_obj.env.mhartid, s, n,
                            cpu->et->tload_port.out,
                            cpu->et->tload_port.go - cpu->et->tload_port.out,
                            *wait);
    cpu->et->tload_port.go = 0;
    return true;
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
    /* only where the gate orders it (etsoc1_reduce_settle) */
    if (m->handshake == ETSOC1_HANDSHAKE_RTL && m->poll_halt && !s->tree &&
        etsoc1_gid(snd) / ETSOC1_MINIONS_PER_SHIRE !=
        etsoc1_gid(rcv) / ETSOC1_MINIONS_PER_SHIRE &&
        etsoc1_t(m->timing, ETSOC1_T_MESH_PORT_REG) > 0) {
        etsoc1_port_book(m, etsoc1_gid(snd), rcv, r, ev.sent);
    }
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
                llround(etsoc1_msg_latency(rcv->timing, from,
                                           etsoc1_gid(snd))),
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

static bool op_is_tree(unsigned kind)
{
    return kind == TR_BROADCAST || kind == TR_REDUCE;
}

/*
 * handshake=rtl: what one ready bit sees must follow the model's time,
 * not the host's.  A recv's ready reaches its sender's bit a message leg
 * after @t_issue, a send acts on its own bit at @t_issue; each waits at
 * the gate (poll-halt=on) until no hart can still act on that bit before
 * it, the sender itself included.  False: the hart halts there and the
 * CSR write runs again when it is let go.
 */
static bool etsoc1_reduce_gate(Etsoc1MinionCPU *cpu, unsigned role,
                               Etsoc1MinionCPU *partner, uint64_t t_issue)
{
    Etsoc1MinionCPU *snd = role == TR_RECV ? partner : cpu;
    Etsoc1GateAccess a = {
        .slot = etsoc1_reduce_of(snd),
        .owner = role == TR_RECV ? snd : NULL,
    };
    uint64_t t = t_issue;

    if (role == TR_RECV) {
        t += llround(etsoc1_msg_latency(cpu->timing, etsoc1_gid(cpu),
                                        etsoc1_gid(snd)));
    }
    return etsoc1_sync_gate(cpu, t, &a);
}

static RISCVException etsoc1_reduce_reject(Etsoc1MinionCPU *cpu,
                                           const char *why, uint64_t val)
{
    qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": tensor_reduce "
                  "0x%" PRIx64 ": %s\n", (uint64_t)cpu->parent_obj.env.mhartid,
                  val, why);
    cpu->et->tensor.error |= ETSOC1_TENSOR_ERROR_SEND_RECV;
    return RISCV_EXCP_NONE;
}

/* CSR 0x800 written on thread 0; called with fabric_lock held. */
static RISCVException etsoc1_tensor_reduce(Etsoc1MinionCPU *cpu, uint64_t val)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    Etsoc1Reduce *op = etsoc1_reduce_of(cpu);
    unsigned me = etsoc1_gid(cpu), kind = FIELD_EX64(val, TREDUCE, OP);
    unsigned func = FIELD_EX64(val, TREDUCE, FUNC);
    Etsoc1MinionCPU *partner;
    unsigned role, peer;
    uint64_t t_issue;

    if (op->state == ETSOC1_REDUCE_PENDING) {
        /* one outstanding operation: wait, then this write is replayed */
        return etsoc1_block(cpu, ETSOC1_WAIT_REDUCE);
    }
    if (qatomic_read(&cpu->et->wait) != ETSOC1_WAIT_GATE) {
        /* one that waited at the gate leaves it in etsoc1_reduce_gate */
        qatomic_set(&cpu->et->wait, ETSOC1_WAIT_NONE);
    }
    if (!etsoc1_reduce_settle(cpu)) {
        return (RISCVException)etsoc1_halt_cause(cpu);
    }
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

    /* when this CSR write began, and not before the last one is done */
    t_issue = MAX(etsoc1_arrival(cpu, 0), op->t_done);
    if (m->handshake == ETSOC1_HANDSHAKE_RTL && !op_is_tree(kind) &&
        !etsoc1_reduce_gate(cpu, role, partner, t_issue)) {
        return (RISCVException)etsoc1_halt_cause(cpu);
    }

    op->op = role;
    op->partner = peer;
    op->count = FIELD_EX64(val, TREDUCE, NUM_REGS);
    op->start = FIELD_EX64(val, TREDUCE, START_REG);
    op->func = func;
    op->frm = cpu->parent_obj.env.frm;
    op->tree = op_is_tree(kind);
    op->t_issue = t_issue;
    qatomic_set(&op->port, ETSOC1_PORT_NONE);  /* settled above, if booked */
    etsoc1_advance_to(cpu, op->t_issue +
                      etsoc1_insn_cost(cpu->timing, ET_INSN_SYSTEM));
    op->state = ETSOC1_REDUCE_PENDING;
    cpu->et->tensor.insns[ETSOC1_TI_REDUCE]++;
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

/* ---- fast local barrier -------------------------------------------------- */

static int etsoc1_u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/*
 * When the FLB unit is done with the last of the @n accesses at @arr
 * (their arrivals at the unit), serving one at a time for @service
 * cycles each in their time order: each starts at the later of its
 * arrival and the end of the one before.  Depends only on the set of
 * arrivals, not on the order in which the host recorded them.
 */
static uint64_t etsoc1_flb_served(uint64_t *arr, unsigned n, double service)
{
    double end = 0;
    unsigned i;

    qsort(arr, n, sizeof(*arr), etsoc1_u64_cmp);
    for (i = 0; i < n; i++) {
        end = MAX(end, (double)arr[i]) + service;
    }
    return llround(end);
}

/*
 * CSR flb (0x820): [4:0] barrier, [12:5] participants - 1.  The last
 * arrival resets the counter and reads 1; the others read 0.
 *
 * The counters are a unit of the shire, not of the minion: an access
 * travels to the unit (half of flb.rtt), waits for its turn, is served
 * (flb.service: one access at a time) and its answer travels back (the
 * other half).  The accesses to one counter take it through the gate in
 * (arrival, hart) order, so the latest arrival reads 1 in every run and
 * a replay's leader is its record's (machine property flb-order, always
 * on under record= and replay=; off, the one the host runs last reads 1
 * and no access pays a gate pass).
 * Ordered so, each access finds the round's earlier arrivals in and no
 * later one, and is answered when the unit has served it in its turn
 * (docs/timing.md, "Fast local barrier").  With flb-order=off which
 * accesses of a round the unit has seen when an access comes is the
 * host's; so that the figures are still the model's:
 *  - the access that completes the barrier answers when the unit has
 *    served every access of the round in their time order: by then they
 *    have all arrived, in the host's time too, so the unit knows them all;
 *  - any other access answers as if it found the unit free: its own
 *    arrival + one service.  Its true turn may depend on arrivals the host
 *    has not run yet; it is at most (arrivals before it in the round) x
 *    flb.service early.
 */
static RISCVException etsoc1_flb(Etsoc1MinionCPU *cpu, uint64_t val,
                                 uint64_t *ret)
{
    Etsoc1ShireState *sh = cpu->shire;
    unsigned n = extract64(val, 0, 5);
    uint8_t match = extract64(val, 5, 8), old;
    double rtt = etsoc1_t(cpu->timing, ETSOC1_T_FLB_RTT);
    double service = etsoc1_t(cpu->timing, ETSOC1_T_FLB_SERVICE);
    /* when this access reaches the unit, and when the unit is done */
    uint64_t own = etsoc1_arrival(cpu, 0) + llround(rtt / 2), done;
    Etsoc1GateAccess a = { .slot = &sh->flb[n] };
    bool ordered = sh->chip->flb_order || sh->chip->rr;
    unsigned count;
    bool last;

    /*
     * Gated at the hart's clock + the lookahead: a hart that does not hold
     * the gate then is past this clock, so an access of its own arrives
     * after this one whatever flb.rtt is (gated at the arrival, issue +
     * 30, a hart up to 3 cycles behind would not hold it and could arrive
     * first).  The clock, not the issue: it already counts the CSR
     * write's own cycle, and a hart whose clock does so holds only what
     * lies a lookahead past it, so two accesses issued at the same cycle
     * went through in the host's order when gated at the issue (a
     * launch barrier's leader swapped in a replay of the rr group's
     * library session, CI of 7 December)
     */
    if (ordered &&
        !etsoc1_sync_gate(cpu, etsoc1_now(cpu) + sh->chip->sync_lookahead,
                          &a)) {
        return (RISCVException)etsoc1_halt_cause(cpu);
    }
    etsoc1_mutex_lock(&sh->flb_lock);
    old = sh->flb[n];
    last = old == match;
    sh->flb[n] = last ? 0 : (uint8_t)(old + 1);
    /*
     * A round is at most 256 steps of the 8-bit counter, so this is full
     * only after a migration stream that did not keep the counter and its
     * arrivals together: then the last slot keeps the latest.
     */
    if (sh->flb_n[n] < ETSOC1_FLB_ROUND_MAX) {
        sh->flb_arr[n][sh->flb_n[n]++] = own;
    } else {
        sh->flb_arr[n][ETSOC1_FLB_ROUND_MAX - 1] =
            MAX(own, sh->flb_arr[n][ETSOC1_FLB_ROUND_MAX - 1]);
    }
    count = sh->flb_n[n];
    if (last || ordered) {
        /* ordered, the round so far is every access before this one */
        done = etsoc1_flb_served(sh->flb_arr[n], count, service);
        if (last) {
            sh->flb_n[n] = 0;
        }
    } else {
        done = own + llround(service);
    }
    qemu_mutex_unlock(&sh->flb_lock);
    etsoc1_sync_done(cpu);      /* the next access to this counter */

    trace_etsoc1_flb(cpu->parent_obj.env.mhartid, n, old, last);
    if (last) {
        trace_etsoc1_flb_served(sh->shire_id, n, count, own, done);
    }
    if (cpu->parent_obj.cfg.et_counters) {
        /* the answer leg, from when the unit served this access */
        etsoc1_trace_span(etsoc1_hart(cpu),
                          last ? "FLB barrier (last)" : "FLB barrier",
                          etsoc1_now(cpu),
                          done + llround(rtt) - llround(rtt / 2), n);
        etsoc1_advance_to(cpu, done + llround(rtt) - llround(rtt / 2));
    }
    *ret = last;
    return RISCV_EXCP_NONE;
}

/* ---- hang detection ------------------------------------------------------ */

/*
 * docs/fabric.md, "Hang report".  Every ETSOC1_DEADLOCK_POLL_MS of host time
 * the harts are sorted into running (not halted, or halted with work),
 * stopped (validation0 PASS: never runs again) and waiting (halted, nothing
 * to wake it now).
 *
 * A wait for a credit, an interrupt, a poll, a gate or the partners of a
 * cooperative load can be ended by any hart that still runs (a credit or
 * a store or an IPI from anywhere), by the host link or the host loopback
 * (a qtest driving the card): it is
 * part of a hang only when the machine is frozen, every hart waiting or
 * stopped on two ticks in a row with no instruction retired in between
 * and nobody outside.
 *
 * A tensor transfer can only be completed by the partner it names, and a
 * minion has one transfer outstanding.  A pending transfer can never
 * complete (Etsoc1Stuck) when:
 *   READY    the pair has met but the sender's ready bit is empty: the
 *            receiver's one ready was lost or spent by another send, and
 *            it cannot send another while its receive is pending;
 *   STOPPED  the partner has no transfer pending and has stopped;
 *   HALTED   ... or nothing can run at all (frozen machines only);
 *   CHAIN    the partner's own transfer, with someone else, can never
 *            complete, so it never issues the one that pairs with ours;
 *   CYCLE    the partners form a cycle of transfers none of which pairs.
 * These verdicts are permanent, so a hart halted on such a transfer is
 * reported at once, while other harts run.  A ready from a third minion
 * that issues a receive from our sender could still complete a READY
 * pair; it would spend the ready that minion's own transfer needs, so a
 * program whose sends and receives pair up hangs either way.
 *
 * A frozen machine in which every waiting hart waits for an interrupt and
 * no transfer is pending is idle (a program that parked its harts in wfi),
 * not deadlocked.
 */
typedef enum Etsoc1Stuck {
    ETSOC1_STUCK_NO,
    ETSOC1_STUCK_READY,
    ETSOC1_STUCK_STOPPED,
    ETSOC1_STUCK_HALTED,
    ETSOC1_STUCK_CHAIN,
    ETSOC1_STUCK_CYCLE,
} Etsoc1Stuck;

static const char *const etsoc1_stuck_name[] = {
    [ETSOC1_STUCK_NO] = "none",
    [ETSOC1_STUCK_READY] = "ready-gone",
    [ETSOC1_STUCK_STOPPED] = "partner-stopped",
    [ETSOC1_STUCK_HALTED] = "partner-halted",
    [ETSOC1_STUCK_CHAIN] = "partner-stuck",
    [ETSOC1_STUCK_CYCLE] = "cycle",
};

typedef enum Etsoc1HangState {
    ETSOC1_HANG_RUNNING,
    ETSOC1_HANG_IDLE,
    ETSOC1_HANG_DEADLOCKED,
} Etsoc1HangState;

static const char *const etsoc1_hang_state_name[] = {
    [ETSOC1_HANG_RUNNING] = "running",
    [ETSOC1_HANG_IDLE] = "idle",
    [ETSOC1_HANG_DEADLOCKED] = "deadlocked",
};

/* What each hart was doing when scanned */
enum { HART_RUNNING, HART_STOPPED, HART_WAITING, HART_HUNG };

typedef struct Etsoc1HangScan {
    Etsoc1HangState state;
    bool asleep;        /* every hart halted with nothing to wake it */
    bool frozen;        /* ... confirmed: nothing can ever run */
    uint64_t insns;     /* instructions retired by all minions so far */
    unsigned hung;      /* waiting harts that can never be woken */
    unsigned running;
    unsigned minions;
    uint8_t *stuck;     /* Etsoc1Stuck of each minion's pending transfer */
    uint8_t *hart;      /* HART_* by cpu_index */
    uint8_t *wait;      /* Etsoc1Wait by cpu_index, as scanned */
} Etsoc1HangScan;

static const char *etsoc1_wait_name(uint32_t wait, Etsoc1Reduce *op)
{
    switch (wait) {
    case ETSOC1_WAIT_FCC0:
        return "fcc0-credit";
    case ETSOC1_WAIT_FCC1:
        return "fcc1-credit";
    case ETSOC1_WAIT_REDUCE:
        return op->op == TR_SEND ? "tensor-send" : "tensor-recv";
    case ETSOC1_WAIT_COOP:
        return "coop-tensor-load";
    case ETSOC1_WAIT_POLL:
        return "poll";
    case ETSOC1_WAIT_GATE:
        return "gate";
    case ETSOC1_WAIT_HOST:
        return "host-input";
    case ETSOC1_WAIT_STOPPED:
        return "stopped";
    default:
        return "interrupt";     /* wfi, stall */
    }
}

static Etsoc1Reduce *etsoc1_reduce_at(Etsoc1MachineState *s, unsigned gid)
{
    return &s->shire[gid / ETSOC1_MINIONS_PER_SHIRE]
                .minion[gid % ETSOC1_MINIONS_PER_SHIRE].reduce;
}

static bool etsoc1_minion_stopped(Etsoc1MachineState *s, unsigned gid)
{
    return qatomic_read(&etsoc1_minion_hart(s, gid)->et->wait) ==
           ETSOC1_WAIT_STOPPED;
}

/* Halted, and nothing would wake it if nobody did anything. */
static bool etsoc1_hart_asleep(CPUState *cs)
{
    return qatomic_read(&cs->halted) && !cpu_has_work(cs);
}

/*
 * One step along the transfer graph: the verdict on minion @gid's pending
 * transfer, or -1 when it depends on its partner's pending one (@dep).
 */
static int etsoc1_stuck_step(Etsoc1MachineState *s, unsigned gid,
                             bool frozen, unsigned *dep)
{
    Etsoc1Reduce *op = etsoc1_reduce_at(s, gid);
    Etsoc1Reduce *peer = etsoc1_reduce_at(s, op->partner);
    unsigned want = op->op == TR_SEND ? TR_RECV : TR_SEND;

    if (peer->state == ETSOC1_REDUCE_PENDING && peer->op == want &&
        peer->partner == gid) {
        Etsoc1Reduce *snd = op->op == TR_SEND ? op : peer;

        if (s->handshake == ETSOC1_HANDSHAKE_RTL && !snd->tree &&
            !snd->ready) {
            return ETSOC1_STUCK_READY;
        }
        return ETSOC1_STUCK_NO;     /* about to be delivered */
    }
    if (peer->state == ETSOC1_REDUCE_PENDING) {
        *dep = op->partner;
        return -1;
    }
    if (etsoc1_minion_stopped(s, op->partner)) {
        return ETSOC1_STUCK_STOPPED;
    }
    return frozen ? ETSOC1_STUCK_HALTED : ETSOC1_STUCK_NO;
}

/*
 * The verdict on every pending transfer.  Each depends on at most one
 * other (its partner's), so the graph is a set of chains ending in a
 * verdict or in a cycle: follow each chain once, then unwind it.
 */
static void etsoc1_scan_transfers(Etsoc1MachineState *s, Etsoc1HangScan *h,
                                  bool frozen)
{
    g_autofree uint8_t *mark = g_new0(uint8_t, h->minions); /* 1 path 2 done */
    g_autofree unsigned *path = g_new(unsigned, h->minions);
    unsigned gid;

    for (gid = 0; gid < h->minions; gid++) {
        unsigned len = 0, cur = gid, dep = 0, k;
        int v;

        if (mark[gid]) {
            continue;
        }
        if (etsoc1_reduce_at(s, gid)->state != ETSOC1_REDUCE_PENDING) {
            h->stuck[gid] = ETSOC1_STUCK_NO;
            mark[gid] = 2;
            continue;
        }
        for (;;) {
            mark[cur] = 1;
            path[len++] = cur;
            v = etsoc1_stuck_step(s, cur, frozen, &dep);
            if (v >= 0) {
                break;
            }
            if (mark[dep] == 2) {
                v = h->stuck[dep] != ETSOC1_STUCK_NO ? ETSOC1_STUCK_CHAIN :
                    etsoc1_minion_stopped(s, dep) ? ETSOC1_STUCK_STOPPED :
                    ETSOC1_STUCK_NO;
                break;
            }
            if (mark[dep] == 1) {
                /* dep ... cur is a cycle; whoever led into it is stuck */
                k = len;
                do {
                    k--;
                    h->stuck[path[k]] = ETSOC1_STUCK_CYCLE;
                    mark[path[k]] = 2;
                } while (path[k] != dep);
                len = k;
                v = ETSOC1_STUCK_CHAIN;
                break;
            }
            cur = dep;
        }
        while (len) {
            cur = path[--len];
            h->stuck[cur] = v;
            mark[cur] = 2;
            v = v != ETSOC1_STUCK_NO ? ETSOC1_STUCK_CHAIN :
                etsoc1_minion_stopped(s, cur) ? ETSOC1_STUCK_STOPPED :
                ETSOC1_STUCK_NO;
        }
    }
}

/*
 * Sort the harts and decide.  @s->quiet and @s->quiet_insns are what the
 * previous tick saw: the machine is frozen only if every hart was already
 * asleep then and no minion has retired an instruction since (a hart
 * woken and put back to sleep between two reads of the scan would
 * otherwise pass for asleep).
 */
static void etsoc1_scan_hang_as(Etsoc1MachineState *s, Etsoc1HangScan *h,
                                bool at_rest);

static void etsoc1_scan_hang(Etsoc1MachineState *s, Etsoc1HangScan *h)
{
    etsoc1_scan_hang_as(s, h, false);
}

/*
 * @at_rest: the model's own look (etsoc1_hang_at_rest), which must not
 * depend on the ticks: only the permanent verdicts on transfers count,
 * never "frozen" (which two host ticks confirm).
 */
static void etsoc1_scan_hang_as(Etsoc1MachineState *s, Etsoc1HangScan *h,
                                bool at_rest)
{
    bool waiting = false, pending = false;
    CPUState *cs;
    Etsoc1MinionCPU *cpu;
    unsigned gid, n = 0;

    CPU_FOREACH(cs) {
        n = MAX(n, cs->cpu_index + 1);
    }
    memset(h, 0, sizeof(*h));
    h->minions = s->num_shires * ETSOC1_MINIONS_PER_SHIRE;
    h->stuck = g_new0(uint8_t, h->minions);
    h->hart = g_new0(uint8_t, n);
    h->wait = g_new0(uint8_t, n);
    h->asleep = !s->hostlink_id && !s->host_loopback && !s->rr_replay;
    CPU_FOREACH(cs) {
        cpu = etsoc1_minion_of(cs);
        if (cpu) {
            h->insns += qatomic_read(&cpu->parent_obj.env.et_insns);
            h->wait[cs->cpu_index] = qatomic_read(&cpu->et->wait);
        }
        if (!etsoc1_hart_asleep(cs)) {
            h->hart[cs->cpu_index] = HART_RUNNING;
            h->running++;
            h->asleep = false;
        } else if (h->wait[cs->cpu_index] == ETSOC1_WAIT_STOPPED) {
            h->hart[cs->cpu_index] = HART_STOPPED;
        } else {
            h->hart[cs->cpu_index] = HART_WAITING;
            waiting |= cpu && h->wait[cs->cpu_index] != ETSOC1_WAIT_NONE &&
                       h->wait[cs->cpu_index] != ETSOC1_WAIT_STALL;
        }
    }
    h->frozen = !at_rest && h->asleep && s->quiet &&
                h->insns == s->quiet_insns;
    qemu_mutex_lock(&s->fabric_lock);
    etsoc1_scan_transfers(s, h, h->frozen);
    for (gid = 0; gid < h->minions; gid++) {
        pending |= etsoc1_reduce_at(s, gid)->state == ETSOC1_REDUCE_PENDING;
    }
    qemu_mutex_unlock(&s->fabric_lock);

    CPU_FOREACH(cs) {
        uint8_t *hart = &h->hart[cs->cpu_index];

        cpu = etsoc1_minion_of(cs);
        if (*hart == HART_WAITING &&
            (h->frozen ? waiting || pending :
             cpu && h->wait[cs->cpu_index] == ETSOC1_WAIT_REDUCE &&
             h->stuck[etsoc1_gid(cpu)] != ETSOC1_STUCK_NO)) {
            *hart = HART_HUNG;
            h->hung++;
        }
    }
    h->state = h->hung ? ETSOC1_HANG_DEADLOCKED :
               h->frozen ? ETSOC1_HANG_IDLE : ETSOC1_HANG_RUNNING;
}

static void etsoc1_hang_scan_free(Etsoc1HangScan *h)
{
    g_free(h->stuck);
    g_free(h->hart);
    g_free(h->wait);
}

/* Why minion @gid's transfer can never complete, in words. */
static char *etsoc1_stuck_why(Etsoc1MachineState *s, Etsoc1HangScan *h,
                              unsigned gid)
{
    Etsoc1Reduce *op = etsoc1_reduce_at(s, gid), *peer;
    unsigned p = op->partner, q, k;
    GString *cycle;

    switch (h->stuck[gid]) {
    case ETSOC1_STUCK_READY:
        return op->op == TR_SEND ?
            g_strdup_printf("minion %u waits for it, but the ready bit of "
                            "minion %u is empty (its ready was lost or "
                            "spent)", p, gid) :
            g_strdup_printf("minion %u sends to it, but its ready bit is "
                            "empty (the ready of minion %u was lost or "
                            "spent)", p, gid);
    case ETSOC1_STUCK_STOPPED:
        return g_strdup_printf("minion %u has stopped", p);
    case ETSOC1_STUCK_HALTED:
        return g_strdup_printf("minion %u cannot run", p);
    case ETSOC1_STUCK_CHAIN:
        peer = etsoc1_reduce_at(s, p);
        return g_strdup_printf("minion %u is stuck in its own %s %s minion %u",
                               p, peer->op == TR_SEND ? "tensor-send" :
                               "tensor-recv", peer->op == TR_SEND ? "to" :
                               "from", peer->partner);
    case ETSOC1_STUCK_CYCLE:
        cycle = g_string_new("a cycle of transfers that never pair: ");
        g_string_append_printf(cycle, "minion %u", gid);
        for (q = p, k = 0; q != gid && k < h->minions; k++) {
            g_string_append_printf(cycle, " -> %u", q);
            q = etsoc1_reduce_at(s, q)->partner;
        }
        g_string_append_printf(cycle, " -> %u", gid);
        return g_string_free(cycle, false);
    default:
        return g_strdup("");
    }
}

static void etsoc1_hart_ids(uint64_t h, uint64_t *shire, uint64_t *minion,
                            uint64_t *thread)
{
    *shire = h / ETSOC1_HARTS_PER_SHIRE;
    *minion = (h % ETSOC1_HARTS_PER_SHIRE) / ETSOC1_THREADS;
    *thread = h % ETSOC1_THREADS;
}

/*
 * Print what has not been printed for this deadlock: the first report
 * names every hung hart; a hang that grows (harts that wait on the hung
 * ones, a second hang) adds a line per new hart.  @s->hang_seen marks
 * the harts by cpu_index, @s->hang_seen_minion the stuck transfers (1)
 * and lost readies (2) by global minion id.
 */
static void etsoc1_print_deadlock(Etsoc1MachineState *s, Etsoc1HangScan *h)
{
    CPUState *cs;
    Etsoc1MinionCPU *cpu;
    unsigned gid, fresh = 0;
    bool first = !s->deadlocked;

    CPU_FOREACH(cs) {
        fresh += h->hart[cs->cpu_index] == HART_HUNG &&
                 !s->hang_seen[cs->cpu_index];
    }
    if (!fresh) {
        return;
    }
    if (!first) {
        error_printf("etsoc1: deadlock grows: %u more waiting hart%s can "
                     "never be woken (%u in all)\n", fresh,
                     fresh == 1 ? "" : "s", h->hung);
    } else if (h->frozen) {
        error_printf("etsoc1: deadlock: no hart can make progress\n");
    } else {
        error_printf("etsoc1: deadlock: %u waiting hart%s can never be "
                     "woken", h->hung, h->hung == 1 ? "" : "s");
        if (h->running) {
            error_printf(" (%u other%s still run%s)", h->running,
                         h->running == 1 ? "" : "s",
                         h->running == 1 ? "s" : "");
        }
        error_printf("\n");
    }
    CPU_FOREACH(cs) {
        uint64_t hid, shire, minion, thread;
        uint32_t wait = h->wait[cs->cpu_index];
        Etsoc1Reduce *op;

        if (h->hart[cs->cpu_index] != HART_HUNG ||
            s->hang_seen[cs->cpu_index]) {
            continue;
        }
        s->hang_seen[cs->cpu_index] = true;
        cpu = etsoc1_minion_of(cs);
        if (!cpu) {
            error_printf("  cpu %d (service processor) waits on interrupt\n",
                         cs->cpu_index);
            continue;
        }
        hid = cpu->parent_obj.env.mhartid;
        etsoc1_hart_ids(hid, &shire, &minion, &thread);
        op = etsoc1_reduce_of(cpu);
        error_printf("  hart %" PRIu64 " (shire %" PRIu64 " minion %" PRIu64
                     " thread %" PRIu64 ") waits on %s", hid, shire, minion,
                     thread, etsoc1_wait_name(wait, op));
        if (wait == ETSOC1_WAIT_REDUCE) {
            g_autofree char *why = etsoc1_stuck_why(s, h, etsoc1_gid(cpu));

            error_printf(" %s minion %u%s%s", op->op == TR_SEND ? "to" : "from",
                         op->partner, *why ? ": " : "", why);
            s->hang_seen_minion[etsoc1_gid(cpu)] |= 1;
        }
        /* its clock stands still in the wait: when the wait began */
        error_printf(" (clock %" PRIu64 ")\n", etsoc1_now(cpu));
    }
    /* stuck transfers of minions that are not halted on them */
    for (gid = 0; gid < h->minions; gid++) {
        Etsoc1MinionCPU *t0 = etsoc1_minion_hart(s, gid);
        Etsoc1Reduce *op = etsoc1_reduce_at(s, gid);
        uint8_t state = h->hart[CPU(t0)->cpu_index];
        g_autofree char *why = NULL;

        if (h->stuck[gid] == ETSOC1_STUCK_NO ||
            (s->hang_seen_minion[gid] & 1)) {
            continue;
        }
        s->hang_seen_minion[gid] |= 1;
        why = etsoc1_stuck_why(s, h, gid);
        error_printf("  minion %u (hart %" PRIu64 ", %s) has a %s %s minion "
                     "%u pending that can never complete: %s\n", gid,
                     (uint64_t)t0->parent_obj.env.mhartid,
                     state == HART_RUNNING ? "running" :
                     state == HART_STOPPED ? "stopped" : "waiting",
                     op->op == TR_SEND ? "tensor-send" : "tensor-recv",
                     op->op == TR_SEND ? "to" : "from", op->partner, why);
    }
    for (gid = 0; gid < h->minions; gid++) {
        Etsoc1Reduce *op = etsoc1_reduce_at(s, gid);

        if (op->lost && !(s->hang_seen_minion[gid] & 2)) {
            s->hang_seen_minion[gid] |= 2;
            error_printf("  lost ready: minion %u took a ready from minion %u, "
                         "then the ready from minion %u was lost\n", gid,
                         op->lost_first, op->lost_from);
        }
    }
}

static void etsoc1_deadlock_tick(void *opaque)
{
    Etsoc1MachineState *s = opaque;
    Etsoc1HangScan h;
    unsigned ncpus = 0;
    CPUState *cs;

    CPU_FOREACH(cs) {
        ncpus = MAX(ncpus, cs->cpu_index + 1);
    }
    if (!s->hang_seen) {
        s->hang_seen = g_new0(bool, ncpus);
        s->hang_seen_minion = g_new0(uint8_t, s->num_shires *
                                     ETSOC1_MINIONS_PER_SHIRE);
    }
    etsoc1_scan_hang(s, &h);
    /*
     * While other harts run, a hang may still be spreading to the harts
     * that wait on the hung ones: report it once it has lasted a tick.
     */
    s->hang_ticks = h.state == ETSOC1_HANG_DEADLOCKED ? s->hang_ticks + 1 : 0;
    if (h.state != ETSOC1_HANG_DEADLOCKED) {
        if (s->deadlocked) {
            memset(s->hang_seen, 0, ncpus * sizeof(bool));
            memset(s->hang_seen_minion, 0, h.minions);
        }
        s->deadlocked = false;
    } else if (h.frozen || s->hang_ticks > 1) {
        if (s->on_deadlock != ETSOC1_ON_DEADLOCK_HANG) {
            etsoc1_print_deadlock(s, &h);
            if (s->on_deadlock == ETSOC1_ON_DEADLOCK_EXIT) {
                exit(ETSOC1_DEADLOCK_EXIT_STATUS);
            }
        }
        s->deadlocked = true;
    }
    if (h.state == ETSOC1_HANG_IDLE && !s->idle_reported &&
        s->on_idle != ETSOC1_ON_IDLE_IGNORE) {
        error_printf("etsoc1: idle: every hart waits for an interrupt or has "
                     "stopped, and no transfer is pending\n");
        s->idle_reported = true;
        if (s->on_idle == ETSOC1_ON_IDLE_EXIT) {
            exit(ETSOC1_IDLE_EXIT_STATUS);
        }
    }
    s->quiet = h.asleep;
    s->quiet_insns = h.insns;
    etsoc1_hang_scan_free(&h);
    timer_mod(s->deadlock_timer,
              qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + ETSOC1_DEADLOCK_POLL_MS);
}

void etsoc1_deadlock_start(Etsoc1MachineState *s)
{
    if (s->on_deadlock == ETSOC1_ON_DEADLOCK_HANG &&
        s->on_idle == ETSOC1_ON_IDLE_IGNORE) {
        return;     /* like the silicon: nobody notices */
    }
    s->deadlock_timer = timer_new_ms(QEMU_CLOCK_REALTIME, etsoc1_deadlock_tick,
                                     s);
    timer_mod(s->deadlock_timer,
              qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + ETSOC1_DEADLOCK_POLL_MS);
}

/* Minion harts in hart id order */
static int etsoc1_hart_cmp(const void *a, const void *b)
{
    uint64_t x = (*(Etsoc1MinionCPU *const *)a)->parent_obj.env.mhartid;
    uint64_t y = (*(Etsoc1MinionCPU *const *)b)->parent_obj.env.mhartid;

    return x < y ? -1 : x > y;
}

/*
 * The hang report at rest (docs/fabric.md, "Hang report at rest"), from
 * the PU timers (etsoc1-pu-timer.c) when an expiry at @t finds the chip
 * at rest: every CPU halted with nothing to wake it and every minion's
 * clock below @t (etsoc1_sync_at_rest), so that the state is the one the
 * chip reached on its own, in every run and TCG mode, however the host's
 * ticks fell.  Lines in hart order (minion, lost ready: in minion order),
 * each hart with its clock, which stands still in its wait: when it began
 * to wait.  Nothing in it is host time, so a record holds it (HANG) and a
 * replay compares it (etsoc1-rr.c).  Printed when it differs from the
 * last one (a second launch that hangs the same way is not repeated);
 * on-deadlock=hang prints nothing, =exit ends QEMU after it (status 3).
 */
void etsoc1_hang_at_rest(Etsoc1MachineState *s, uint64_t t)
{
    Etsoc1HangScan h;
    g_autoptr(GString) r = g_string_new(NULL);
    g_autofree Etsoc1MinionCPU **hung = NULL;
    CPUState *cs;
    Etsoc1MinionCPU *cpu;
    unsigned n = 0, stuck = 0, i, gid;

    if (!s->num_shires) {
        return;
    }
    etsoc1_scan_hang_as(s, &h, true);
    hung = g_new0(Etsoc1MinionCPU *, h.hung + 1);
    ETSOC1_MINION_FOREACH(cs, cpu) {
        if (h.hart[cs->cpu_index] == HART_HUNG && n < h.hung) {
            hung[n++] = cpu;
        }
    }
    for (gid = 0; gid < h.minions; gid++) {
        stuck += h.stuck[gid] != ETSOC1_STUCK_NO;
    }
    if (!n && !stuck) {
        etsoc1_hang_scan_free(&h);
        return;
    }
    qsort(hung, n, sizeof(*hung), etsoc1_hart_cmp);
    g_string_append_printf(r, "etsoc1: deadlock at rest (cycle %" PRIu64
                           "): %u waiting hart%s can never be woken, %u "
                           "transfer%s can never complete\n", t, n,
                           n == 1 ? "" : "s", stuck, stuck == 1 ? "" : "s");
    for (i = 0; i < n; i++) {
        uint64_t hid, shire, minion, thread;
        Etsoc1Reduce *op = etsoc1_reduce_of(hung[i]);
        uint32_t wait = h.wait[CPU(hung[i])->cpu_index];

        hid = hung[i]->parent_obj.env.mhartid;
        etsoc1_hart_ids(hid, &shire, &minion, &thread);
        g_string_append_printf(r, "  hart %" PRIu64 " (shire %" PRIu64
                               " minion %" PRIu64 " thread %" PRIu64
                               ") waits on %s", hid, shire, minion, thread,
                               etsoc1_wait_name(wait, op));
        if (wait == ETSOC1_WAIT_REDUCE) {
            g_autofree char *why = etsoc1_stuck_why(s, &h, etsoc1_gid(hung[i]));

            g_string_append_printf(r, " %s minion %u%s%s",
                                   op->op == TR_SEND ? "to" : "from",
                                   op->partner, *why ? ": " : "", why);
        }
        g_string_append_printf(r, " (clock %" PRIu64 ")\n",
                               etsoc1_now(hung[i]));
    }
    for (gid = 0; gid < h.minions; gid++) {
        Etsoc1MinionCPU *t0 = etsoc1_minion_hart(s, gid);
        Etsoc1Reduce *op = etsoc1_reduce_at(s, gid);
        g_autofree char *why = NULL;

        if (h.stuck[gid] == ETSOC1_STUCK_NO ||
            h.hart[CPU(t0)->cpu_index] == HART_HUNG) {
            continue;
        }
        why = etsoc1_stuck_why(s, &h, gid);
        g_string_append_printf(r, "  minion %u (hart %" PRIu64 ", %s) has a "
                               "%s %s minion %u pending that can never "
                               "complete: %s\n", gid,
                               (uint64_t)t0->parent_obj.env.mhartid,
                               h.hart[CPU(t0)->cpu_index] == HART_STOPPED ?
                               "stopped" : "waiting",
                               op->op == TR_SEND ? "tensor-send" :
                               "tensor-recv", op->op == TR_SEND ? "to" : "from",
                               op->partner, why);
    }
    for (gid = 0; gid < h.minions; gid++) {
        Etsoc1Reduce *op = etsoc1_reduce_at(s, gid);

        if (op->lost) {
            g_string_append_printf(r, "  lost ready: minion %u took a ready "
                                   "from minion %u, then the ready from "
                                   "minion %u was lost\n", gid,
                                   op->lost_first, op->lost_from);
        }
    }
    etsoc1_hang_scan_free(&h);
    /* the same hang seen at the next expiry is not news */
    if (s->hang_rest && !strcmp(s->hang_rest, r->str)) {
        return;
    }
    g_free(s->hang_rest);
    s->hang_rest = g_strdup(r->str);
    etsoc1_rr_note_hang(s->rr, t, r->str);
    if (s->on_deadlock != ETSOC1_ON_DEADLOCK_HANG) {
        error_printf("%s", r->str);
        if (s->on_deadlock == ETSOC1_ON_DEADLOCK_EXIT) {
            exit(ETSOC1_DEADLOCK_EXIT_STATUS);
        }
    }
}

/*
 * QOM property "deadlock" (qom-get): the same report as JSON, as of now
 * (a frozen machine is confirmed by the last tick, see etsoc1_scan_hang).
 * { "state": "running" | "idle" | "deadlocked",
 *   "deadlocked": bool,
 *   "waiting": [ { "hartid", "shire", "minion", "thread", "clock", "wait",
 *                  "partner"?, "hung", "why"? } ],
 *   "stuck-transfers": [ { "minion", "op", "partner", "why" } ],
 *   "lost-readies": [ { "minion", "ready-from", "lost-from" } ] }
 */
void etsoc1_get_deadlock(Object *obj, Visitor *v, const char *name,
                         void *opaque, Error **errp)
{
    Etsoc1MachineState *s = ETSOC1_MACHINE(obj);
    Etsoc1HangScan h = { .state = ETSOC1_HANG_RUNNING };
    char *state;
    bool dead;
    CPUState *cs;
    Etsoc1MinionCPU *cpu;
    unsigned i, m;
    uint32_t gid;

    if (s->num_shires) {
        etsoc1_scan_hang(s, &h);
    }
    state = (char *)etsoc1_hang_state_name[h.state];
    dead = h.state == ETSOC1_HANG_DEADLOCKED;
    if (!visit_start_struct(v, name, NULL, 0, errp)) {
        etsoc1_hang_scan_free(&h);
        return;
    }
    visit_type_str(v, "state", &state, &error_abort);
    visit_type_bool(v, "deadlocked", &dead, &error_abort);
    visit_start_list(v, "waiting", NULL, 0, &error_abort);
    ETSOC1_MINION_FOREACH(cs, cpu) {
        uint64_t hid = cpu->parent_obj.env.mhartid, shire, minion, thread;
        uint64_t clock = etsoc1_now(cpu);     /* at its wait: it stands */
        uint32_t wait;
        Etsoc1Reduce *op = etsoc1_reduce_of(cpu);
        char *what, *why;
        bool hung;
        int64_t partner = op->partner;

        if (!h.hart || (h.hart[cs->cpu_index] != HART_WAITING &&
                        h.hart[cs->cpu_index] != HART_HUNG)) {
            continue;
        }
        wait = h.wait[cs->cpu_index];
        what = (char *)etsoc1_wait_name(wait, op);
        hung = h.hart[cs->cpu_index] == HART_HUNG;
        etsoc1_hart_ids(hid, &shire, &minion, &thread);
        visit_start_struct(v, NULL, NULL, 0, &error_abort);
        visit_type_uint64(v, "hartid", &hid, &error_abort);
        visit_type_uint64(v, "shire", &shire, &error_abort);
        visit_type_uint64(v, "minion", &minion, &error_abort);
        visit_type_uint64(v, "thread", &thread, &error_abort);
        visit_type_uint64(v, "clock", &clock, &error_abort);
        visit_type_str(v, "wait", &what, &error_abort);
        if (wait == ETSOC1_WAIT_REDUCE) {
            visit_type_int64(v, "partner", &partner, &error_abort);
        }
        visit_type_bool(v, "hung", &hung, &error_abort);
        if (wait == ETSOC1_WAIT_REDUCE &&
            h.stuck[etsoc1_gid(cpu)] != ETSOC1_STUCK_NO) {
            why = (char *)etsoc1_stuck_name[h.stuck[etsoc1_gid(cpu)]];
            visit_type_str(v, "why", &why, &error_abort);
        }
        visit_check_struct(v, &error_abort);
        visit_end_struct(v, NULL);
    }
    visit_check_list(v, &error_abort);
    visit_end_list(v, NULL);
    visit_start_list(v, "stuck-transfers", NULL, 0, &error_abort);
    for (gid = 0; gid < h.minions; gid++) {
        Etsoc1Reduce *op = etsoc1_reduce_at(s, gid);
        uint32_t partner = op->partner;
        char *kind = (char *)(op->op == TR_SEND ? "send" : "recv");
        char *why = (char *)etsoc1_stuck_name[h.stuck[gid]];

        if (h.stuck[gid] == ETSOC1_STUCK_NO) {
            continue;
        }
        visit_start_struct(v, NULL, NULL, 0, &error_abort);
        visit_type_uint32(v, "minion", &gid, &error_abort);
        visit_type_str(v, "op", &kind, &error_abort);
        visit_type_uint32(v, "partner", &partner, &error_abort);
        visit_type_str(v, "why", &why, &error_abort);
        visit_check_struct(v, &error_abort);
        visit_end_struct(v, NULL);
    }
    visit_check_list(v, &error_abort);
    visit_end_list(v, NULL);
    visit_start_list(v, "lost-readies", NULL, 0, &error_abort);
    for (i = 0; i < s->num_shires; i++) {
        for (m = 0; m < ETSOC1_MINIONS_PER_SHIRE; m++) {
            Etsoc1Reduce *op = &s->shire[i].minion[m].reduce;
            uint32_t first = op->lost_first, lost = op->lost_from;

            gid = i * ETSOC1_MINIONS_PER_SHIRE + m;
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
    etsoc1_hang_scan_free(&h);
}

/* ---- deliveries and credit slots ----------------------------------------- */

/* Trace a delivery (a credit, an IPI, a fabric event) */
void etsoc1_event_trace(const Etsoc1Event *ev)
{
    trace_etsoc1_event(ev->kind, ev->src, ev->dst, ev->time);
    etsoc1_trace_json(ev);
}

/*
 * Record that a credit on @counter arrives at time @t (0: no constraint):
 * one more credit at a time already pending, else a free slot, else a
 * pair in the list that grows.
 */
void etsoc1_fcc_arrive(Etsoc1HartEt *et, unsigned counter, uint64_t t)
{
    Etsoc1HartCredits *c = &et->credit;
    uint64_t *at = c->slot_at[counter];
    uint16_t *n = c->slot_n[counter];
    unsigned i, free = ETSOC1_FCC_SLOTS;
    int32_t m, last;

    qemu_spin_lock(&c->lock);
    for (i = 0; i < ETSOC1_FCC_SLOTS; i++) {
        if (n[i] && at[i] == t) {
            n[i] += n[i] < UINT16_MAX;  /* more only past a counter's wrap */
            goto out;
        }
        free = !n[i] && free == ETSOC1_FCC_SLOTS ? i : free;
    }
    if (free < ETSOC1_FCC_SLOTS) {
        at[free] = t;
        n[free] = 1;
        goto out;
    }
    for (m = 0, last = -1; m < c->nmore; m++) {
        if (c->more[m].counter == counter && c->more[m].at == t) {
            c->more[m].n += c->more[m].n < UINT16_MAX;
            goto out;
        }
        if (c->more[m].counter == counter &&
            (last < 0 || c->more[m].at > c->more[last].at)) {
            last = m;
        }
    }
    if (c->nmore >= ETSOC1_FCC_MORE_MAX && last >= 0) {
        /* full: merge into the latest, which can only delay a wait */
        c->more[last].at = MAX(c->more[last].at, t);
        c->more[last].n += c->more[last].n < UINT16_MAX;
        goto out;
    }
    if (c->nmore == c->more_cap) {
        c->more_cap = MAX(2 * c->more_cap, 64);
        c->more = g_renew(Etsoc1CreditMore, c->more, c->more_cap);
    }
    c->more[c->nmore++] = (Etsoc1CreditMore) {
        .at = t, .n = 1, .counter = counter,
    };
out:
    qemu_spin_unlock(&c->lock);
}

/*
 * When did the earliest pending credit on @counter arrive (0: none, or
 * no constraint)?  With @take, a wait took it.  Called by the hart itself.
 */
static uint64_t etsoc1_fcc_pending(Etsoc1HartEt *et, unsigned counter,
                                   bool take)
{
    Etsoc1HartCredits *c = &et->credit;
    uint64_t *at = c->slot_at[counter];
    uint16_t *n = c->slot_n[counter], *first = NULL;
    uint64_t t = 0;
    int32_t m, in_more = -1;
    unsigned i;

    qemu_spin_lock(&c->lock);
    for (i = 0; i < ETSOC1_FCC_SLOTS; i++) {
        if (n[i] && (!first || at[i] < t)) {
            first = &n[i];
            t = at[i];
        }
    }
    for (m = 0; m < c->nmore; m++) {
        if (c->more[m].counter == counter && (!first || c->more[m].at < t)) {
            first = &c->more[m].n;
            t = c->more[m].at;
            in_more = m;
        }
    }
    if (first && take && !--*first && in_more >= 0) {
        c->more[in_more] = c->more[--c->nmore];
    }
    qemu_spin_unlock(&c->lock);
    return t;
}

/* A reset's: no credit is pending */
void etsoc1_fcc_reset(Etsoc1HartEt *et)
{
    g_free(et->credit.more);
    et->credit.more = NULL;
    et->credit.nmore = 0;
    et->credit.more_cap = 0;
}

uint64_t etsoc1_fcc_arrival(Etsoc1HartEt *et, unsigned counter)
{
    return etsoc1_fcc_pending(et, counter, true);
}

uint64_t etsoc1_fcc_earliest(Etsoc1HartEt *et, unsigned counter)
{
    return etsoc1_fcc_pending(et, counter, false);
}

/* ---- CSRs (etsoc1-csr.h) ------------------------------------------------- */

enum {
    CSR_TENSOR_REDUCE = 0x800,
    CSR_FLB = 0x820,
    CSR_FCC = 0x821,
    CSR_STALL = 0x822,
    CSR_FCCNB = 0xcc0,
};

/* Take one credit from counter @n if there is one. */
static bool fcc_take(Etsoc1HartEt *et, unsigned n)
{
    uint16_t old = qatomic_read(&et->credit.fcc[n]);

    while (old) {
        uint16_t seen = qatomic_cmpxchg(&et->credit.fcc[n], old, old - 1);
        if (seen == old) {
            return true;
        }
        old = seen;
    }
    return false;
}

/*
 * fcc: take a credit on counter @n, halting until there is one; the wait
 * ends when the credit arrives.  Credits are taken in the order they
 * arrive in the model, not on the host: with poll-halt=on a credit from
 * the hart's future waits at the gate until no hart can still send an
 * earlier one.
 */
static RISCVException write_fcc(Etsoc1MinionCPU *cpu, int csrno, uint64_t val)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    Etsoc1HartEt *et = cpu->et;
    unsigned n = val & 1;
    uint64_t at;

    if (etsoc1_sync_enabled(cpu) && qatomic_read(&et->credit.fcc[n])) {
        at = etsoc1_fcc_earliest(et, n);
        if (at > etsoc1_now(cpu) && !etsoc1_sync_gate(cpu, at, NULL)) {
            return (RISCVException)etsoc1_halt_cause(cpu);
        }
    }
    /*
     * let go from the gate, a credit that arrived earlier may have come
     * meanwhile, so the gate was not asked again: the release is taken
     * here, or it would stay set (a halted hart with work)
     */
    etsoc1_sync_leave(cpu);
    if (!fcc_take(et, n)) {
        return etsoc1_block(cpu, ETSOC1_WAIT_FCC0 + n);
    }
    qatomic_set(&et->wait, ETSOC1_WAIT_NONE);
    etsoc1_l1_sync(cpu);        /* a mode change its sibling made */
    at = etsoc1_fcc_arrival(et, n);
    trace_etsoc1_fcc_take(env->mhartid, n, etsoc1_now(cpu), at);
    etsoc1_trace_wait_until(env->mhartid, etsoc1_now(cpu), ETSOC1_WAIT_FCC0 + n,
                            at, n);
    etsoc1_advance_to(cpu, at);
    etsoc1_trace_credits(env->mhartid, n, etsoc1_now(cpu),
                         qatomic_read(&et->credit.fcc[n]));
    return RISCV_EXCP_NONE;
}

static uint64_t read_fccnb(Etsoc1MinionCPU *cpu, int csrno)
{
    return (uint64_t)qatomic_read(&cpu->et->credit.fcc[1]) << 16 |
           qatomic_read(&cpu->et->credit.fcc[0]);
}

static RISCVException write_stall(Etsoc1MinionCPU *cpu, int csrno,
                                  uint64_t val)
{
    return etsoc1_block(cpu, ETSOC1_WAIT_STALL);
}

/* A reduction pairs harts across shires: under fabric_lock */
static RISCVException write_tensor_reduce(Etsoc1MinionCPU *cpu, int csrno,
                                          uint64_t val)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    RISCVException r;

    etsoc1_mutex_lock(&m->fabric_lock);
    r = etsoc1_tensor_reduce(cpu, val);
    qemu_mutex_unlock(&m->fabric_lock);
    return r;
}

static const Etsoc1CsrReg fabric_csrs[] = {
    ETSOC1_CSR(CSR_TENSOR_REDUCE, "tensor_reduce", etsoc1_pred_ml_t0, NULL,
               write_tensor_reduce),
    /* flb: csrrw returns 1 to the last hart to arrive */
    { .csrno = CSR_FLB, .name = "flb", .predicate = etsoc1_pred_ml,
      .swap = etsoc1_flb },
    ETSOC1_CSR(CSR_FCC, "fcc", etsoc1_pred_ml, NULL, write_fcc),
    ETSOC1_CSR(CSR_STALL, "stall", etsoc1_pred_ml, NULL, write_stall),
    ETSOC1_CSR(CSR_FCCNB, "fccnb", etsoc1_pred_minion, read_fccnb, NULL),
};

void etsoc1_fabric_register_csrs(void)
{
    etsoc1_csr_register(fabric_csrs, ARRAY_SIZE(fabric_csrs));
}
