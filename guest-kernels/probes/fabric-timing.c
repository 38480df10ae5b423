/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fabric timing probes (timing.md sections 2-3).  Every figure is timed
 * by the measuring hart with its own cycle counter and is the median of
 * REPS repetitions after a warm-up round; lines "probe <name> <args>
 * cycles=<n>" are read by tests/run.py and bench/fidelity.
 *
 *  msg-rtt      32-byte TensorSend round trip: a tree edge and a crossbar
 *               pair in shire 0, and minion 0 of every pair of shires
 *  msg-combine  the tree-edge round trip receiving with each combining
 *               function (fadd, fmax, fmin, iadd, imax, imin)
 *  stream       per-message cost of a sender streaming M messages of 1 and
 *               8 registers on the four paths
 *  credit-rtt   fcc_credinc + fcc wait round trip, in shire 0 and from
 *               shire 0 to shires at several distances
 *
 * Thread 0 of the minions run the probes; the partners answer.
 */
#include "../fabric/fabric.h"
#include "probe.h"

#define REPS 5
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define STREAM_M 8
#define FAR_SHIRE 31            /* (5,5) on the map: 10 hops from shire 0 */
#define NEAR_SHIRE 9            /* (2,0): 2 hops */
#define MID_SHIRE 18            /* (4,2): 6 hops, the furthest 'near' */

/* Minion @me takes part in a ping-pong of a (initiator) with b. */
static uint64_t pingpong(unsigned me, unsigned a, unsigned b, unsigned func)
{
    uint64_t t[REPS + 1], t0;
    unsigned k;

    if (me == b) {
        for (k = 0; k <= REPS; k++) {
            tensor_recv(a, 0, 1, func);
            twait_reduce();
            tensor_send(a, 0, 1);
        }
        twait_reduce();
        return 0;
    }
    for (k = 0; k <= REPS; k++) {
        t0 = cycles();
        tensor_send(b, 0, 1);
        tensor_recv(b, 0, 1, func);
        twait_reduce();
        t[k] = cycles() - t0;
    }
    return median(t + 1, REPS);
}

/*
 * a streams M messages of n registers to b: the cycles between arrivals
 * at b, the sender's per-message cost once the stream runs
 */
static uint64_t stream(unsigned me, unsigned a, unsigned b, unsigned n)
{
    uint64_t t[REPS + 1], t0 = 0;
    unsigned k, i;

    for (k = 0; k <= REPS; k++) {
        if (me == a) {
            for (i = 0; i < STREAM_M; i++) {
                tensor_send(b, 0, n);
            }
            twait_reduce();
            continue;
        }
        for (i = 0; i < STREAM_M; i++) {
            tensor_recv(a, 0, n, TR_MOVE);
            twait_reduce();
            if (i == 0) {
                t0 = cycles();
            }
        }
        t[k] = cycles() - t0;
    }
    return me == b ? median(t + 1, REPS) / (STREAM_M - 1) : 0;
}

/* A credit to thread 0 of global minion @g: a plain store, no fence. */
static void credit_to_minion(unsigned g)
{
    *(volatile uint64_t *)ESR_OTHER(PP_U, g / MINIONS_PER_SHIRE,
                                    FCC_CREDINC(0, 0)) =
        1u << g % MINIONS_PER_SHIRE;
}

/* Credit round trip between thread 0 of minions a (initiator) and b. */
static uint64_t credit_rtt(unsigned me, unsigned a, unsigned b)
{
    uint64_t t[REPS + 1], t0;
    unsigned k;

    for (k = 0; k <= REPS; k++) {
        if (me == b) {
            fcc_wait(0);
            credit_to_minion(a);
            continue;
        }
        t0 = cycles();
        credit_to_minion(b);
        fcc_wait(0);
        t[k] = cycles() - t0;
    }
    return me == a ? median(t + 1, REPS) : 0;
}

static const unsigned stream_to[4][2] = {     /* path: minions a -> b */
    { 0, 1 },                                   /* tree edge */
    { 0, 3 },                                   /* crossbar */
    { 0, NEAR_SHIRE * MINIONS_PER_SHIRE },      /* near cross-shire */
    { 0, FAR_SHIRE * MINIONS_PER_SHIRE },       /* far cross-shire */
};
static uint64_t pair_rtt[32][32];
static const char *const path_name[4] = { "tree", "xbar", "near", "far" };
static const unsigned credit_to[] = { 1, NEAR_SHIRE, 17, FAR_SHIRE };
static const struct {
    unsigned func;
    const char *name;
} combine[] = {
    { TR_FADD, "fadd" }, { TR_FMAX, "fmax" }, { TR_FMIN, "fmin" },
    { TR_IADD, "iadd" }, { TR_IMAX, "imax" }, { TR_IMIN, "imin" },
};

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned gid = hart_gid(hartid), shire = gid / MINIONS_PER_SHIRE;
    unsigned m = gid % MINIONS_PER_SHIRE, a, b, p, n, i, r;
    uint64_t c;

    if (hart_thread(hartid)) {
        return 0;
    }
    /* inside shire 0: a tree edge, a crossbar pair, a combining receive */
    if (gid == 0 || gid == 1) {
        c = pingpong(gid, 0, 1, TR_MOVE);
        if (gid == 0) {
            print("probe msg-rtt tree cycles=%lu\n", c);
        }
        for (i = 0; i < ARRAY_SIZE(combine); i++) {
            c = pingpong(gid, 0, 1, combine[i].func);
            if (gid == 0) {
                print("probe msg-combine tree func=%s cycles=%lu\n",
                      combine[i].name, c);
            }
        }
    }
    /* a phase apart: one ready bit per minion (timing.md 7) */
    chip_barrier(gid, shires);
    if (gid == 0 || gid == 3) {
        c = pingpong(gid, 0, 3, TR_MOVE);
        if (gid == 0) {
            print("probe msg-rtt xbar cycles=%lu\n", c);
        }
    }
    chip_barrier(gid, shires);

    /*
     * minion 0 of every pair of shires, in the rounds of a round-robin
     * tournament: each shire has one partner per round, and rounds are a
     * barrier apart, so no minion gets readies from two partners at once.
     */
    for (r = 0; r + 1 < (shires + 1) / 2 * 2; r++) {
        unsigned n2 = (shires + 1) / 2 * 2, me = shire, other;

        /* circle method: shire n2 - 1 stays, the others turn */
        if (me == n2 - 1) {
            other = r;
        } else if (me == r) {
            other = n2 - 1;
        } else {
            other = (2 * r + n2 - 1 - me) % (n2 - 1);
        }
        if (m == 0 && other < shires && other != me) {
            a = me < other ? me : other;
            b = me < other ? other : me;
            c = pingpong(gid, a * MINIONS_PER_SHIRE, b * MINIONS_PER_SHIRE,
                         TR_MOVE);
            if (shire == a) {
                pair_rtt[a][b] = c;
            }
        }
        chip_barrier(gid, shires);
    }
    if (gid == 0) {             /* one hart prints: lines do not mix */
        for (a = 0; a < shires; a++) {
            for (b = a + 1; b < shires; b++) {
                print("probe msg-rtt shires=%u,%u cycles=%lu\n", a, b,
                      pair_rtt[a][b]);
            }
        }
    }
    chip_barrier(gid, shires);

    /* streams on the four paths, 1 and 8 registers */
    for (p = 0; p < 4; p++) {
        if (stream_to[p][1] / MINIONS_PER_SHIRE >= shires) {
            continue;
        }
        for (n = 1; n <= 8; n += 7) {
            if (gid == stream_to[p][0] || gid == stream_to[p][1]) {
                c = stream(gid, stream_to[p][0], stream_to[p][1], n);
                if (gid == stream_to[p][1]) {
                    print("probe stream %s regs=%u cycles=%lu\n",
                          path_name[p], n, c);
                }
            }
            chip_barrier(gid, shires);
        }
    }

    /* credits: in shire 0, and shire 0 to other shires */
    for (i = 0; i < ARRAY_SIZE(credit_to); i++) {
        b = i ? credit_to[i] * MINIONS_PER_SHIRE : credit_to[i];
        if (b / MINIONS_PER_SHIRE >= shires) {
            continue;
        }
        if (gid == 0 || gid == b) {
            c = credit_rtt(gid, 0, b);
            if (gid == 0) {
                print("probe credit-rtt minions=0,%u cycles=%lu\n", b, c);
            }
        }
        chip_barrier(gid, shires);
    }
    if (gid == 0) {
        print("probe fabric done\n");
    }
    return 0;
}
