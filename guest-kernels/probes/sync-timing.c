/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synchronization timing probes (docs/timing.md, "Fast local barrier" and
 * "Late and early receives").  Each case sets the clocks of the harts
 * taking part (mcycle = a base far above every earlier time) so that who
 * arrives when is fixed in emulated time, whatever order the host runs
 * the harts in; the figures are then exact and equal on every run.
 *
 *   probe flb-barrier stagger=S cycles=C
 *        the 32 minions of shire 0 arrive at one fast local barrier,
 *        minion m at base + m * S; C: the clock of the access that reads
 *        "last" when it completes, less the base
 *   probe flb-access stagger=S spread=D cycles=C
 *        the same barrier: C the longest of the other 31 accesses (from
 *        their own issue), D the longest less the shortest
 *   probe flb-credit stagger=S spread=D cycles=C
 *        the same arrivals; the last one credits all 32 (fcc_credinc) and
 *        all wait on fcc: C the latest minion's clock after its wait,
 *        less the base, D the latest less the earliest
 *   probe recv-late <path> cycles=C
 *        the sender sends at base, the receiver posts its recv LATE
 *        cycles after: C from the recv's issue to its completion
 *   probe recv-early <path> cycles=C
 *        the receiver posts at base, the sender sends LATE cycles after:
 *        C from the send's issue to the receive's completion
 *
 * <path>: tree (minions 0-1), xbar (0-3), or shires=0,S (minion 0 of
 * shire 0 and of shire S).  Thread 0 of the minions run the probes.
 */
#include "../fabric/fabric.h"
#include "probe.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BASE 100000000ULL       /* clocks of case k start at (k + 1) x BASE */
#define LATE 1000               /* how late the late side posts */
#define FLB_N 2                 /* barrier counters of the probe */
#define FLB_CREDIT_N 3
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static volatile uint64_t flb_cost[MINIONS_PER_SHIRE];
static volatile uint64_t flb_end[MINIONS_PER_SHIRE];
static volatile uint64_t flb_last;
static volatile uint64_t msg_cycles;

/* Set the clock to @t, then arrive at barrier @n of 32: (last, clock). */
static uint64_t flb_at(uint64_t t, unsigned n, uint64_t *end)
{
    uint64_t cmd = n | (uint64_t)(MINIONS_PER_SHIRE - 1) << 5, last, e;

    __asm__ volatile("csrw mcycle, %2\n\t"
                     "csrrw %0, 0x820, %3\n\t"
                     "csrr %1, mcycle"
                     : "=&r"(last), "=&r"(e) : "r"(t), "r"(cmd) : "memory");
    *end = e;
    return last;
}

/*
 * The same barrier; the last arrival credits thread 0 of every minion of
 * shire 0 (counter 0), and every minion waits for its credit.
 */
static uint64_t flb_credit_at(uint64_t t)
{
    uint64_t cmd = FLB_CREDIT_N | (uint64_t)(MINIONS_PER_SHIRE - 1) << 5;
    uint64_t addr = ESR_OTHER(PP_U, 0, FCC_CREDINC(0, 0));
    uint64_t mask = 0xffffffffu, last, e;

    __asm__ volatile("csrw mcycle, %2\n\t"
                     "csrrw %0, 0x820, %3\n\t"
                     "beqz %0, 1f\n\t"
                     "sd %5, 0(%4)\n"
                     "1:\tcsrwi 0x821, 0\n\t"
                     "csrr %1, mcycle"
                     : "=&r"(last), "=&r"(e)
                     : "r"(t), "r"(cmd), "r"(addr), "r"(mask) : "memory");
    return e;
}

/* Set the clock to @t, issue @cmd (tensor_reduce), wait: the clock. */
static uint64_t reduce_at(uint64_t t, uint64_t cmd)
{
    uint64_t e;

    __asm__ volatile("csrw mcycle, %1\n\t"
                     "csrw 0x800, %2\n\t"
                     "csrwi 0x830, 9\n\t"
                     "csrr %0, mcycle"
                     : "=&r"(e) : "r"(t), "r"(cmd) : "memory");
    return e;
}

/*
 * Minion @a sends one register to @b; the side named @late posts LATE
 * cycles after the other.  The receiver keeps its figure.
 */
static void late_early(unsigned me, unsigned a, unsigned b, int recv_late,
                       uint64_t base)
{
    uint64_t ts = recv_late ? base : base + LATE;
    uint64_t tr = recv_late ? base + LATE : base;

    if (me == a) {
        reduce_at(ts, tr_cmd(TR_SEND, b, 1, 0, 0));
    } else if (me == b) {
        msg_cycles = reduce_at(tr, tr_cmd(TR_RECV, a, 1, TR_MOVE, 0)) -
                     MAX(ts, tr);
    }
}

static const unsigned staggers[] = { 0, 7 };
static const unsigned cross_shires[] = { 8, 9, 1, 2, 6 };  /* 1-4, 8 hops */

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned gid = hart_gid(hartid), shire = gid / MINIONS_PER_SHIRE;
    unsigned m = gid % MINIONS_PER_SHIRE, i, k = 0, p, late;
    uint64_t base, e, lo, hi;

    if (hart_thread(hartid)) {
        return 0;
    }

    /* (a) a barrier of 32 minions; (b) the same releasing through credits */
    for (i = 0; i < ARRAY_SIZE(staggers); i++) {
        base = ++k * BASE;
        if (shire == 0) {
            uint64_t t = base + m * staggers[i];

            if (flb_at(t, FLB_N, &e)) {
                flb_last = e - base;
                flb_cost[m] = 0;
            } else {
                flb_cost[m] = e - t;
            }
        }
        chip_barrier(gid, shires);
        if (gid == 0) {
            lo = ~0ULL;
            hi = 0;
            for (p = 0; p < MINIONS_PER_SHIRE; p++) {
                if (flb_cost[p]) {
                    lo = MIN(lo, flb_cost[p]);
                    hi = MAX(hi, flb_cost[p]);
                }
            }
            print("probe flb-barrier stagger=%u cycles=%lu\n", staggers[i],
                  flb_last);
            print("probe flb-access stagger=%u spread=%lu cycles=%lu\n",
                  staggers[i], hi - lo, hi);
        }
        chip_barrier(gid, shires);

        base = ++k * BASE;
        if (shire == 0) {
            flb_end[m] = flb_credit_at(base + m * staggers[i]) - base;
        }
        chip_barrier(gid, shires);
        if (gid == 0) {
            lo = ~0ULL;
            hi = 0;
            for (p = 0; p < MINIONS_PER_SHIRE; p++) {
                lo = MIN(lo, flb_end[p]);
                hi = MAX(hi, flb_end[p]);
            }
            print("probe flb-credit stagger=%u spread=%lu cycles=%lu\n",
                  staggers[i], hi - lo, hi);
        }
        chip_barrier(gid, shires);
    }

    /* (c) late and early receives on every path */
    for (late = 0; late < 2; late++) {
        for (p = 0; p < 2 + ARRAY_SIZE(cross_shires); p++) {
            unsigned b = p == 0 ? 1 : p == 1 ? 3 :
                         cross_shires[p - 2] * MINIONS_PER_SHIRE;

            if (b / MINIONS_PER_SHIRE >= shires) {
                continue;
            }
            base = ++k * BASE;
            late_early(gid, 0, b, !late, base);
            chip_barrier(gid, shires);
            if (gid == 0) {
                const char *what = late ? "recv-early" : "recv-late";

                if (p < 2) {
                    print("probe %s %s cycles=%lu\n", what,
                          p ? "xbar" : "tree", msg_cycles);
                } else {
                    print("probe %s shires=0,%u cycles=%lu\n", what,
                          b / MINIONS_PER_SHIRE, msg_cycles);
                }
            }
            chip_barrier(gid, shires);
        }
    }
    if (gid == 0) {
        print("probe sync done\n");
    }
    return 0;
}
