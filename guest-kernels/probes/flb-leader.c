/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which minion of a shire reads 1 at its FLB barrier (docs/timing.md,
 * "Fast local barrier").  On every shire the device tree gives, thread 0
 * of the 32 minions runs ROUNDS rounds: each spins a number of cycles
 * drawn from (round, minion), notes its clock, arrives at FLB counter 2,
 * and the one told it was last notes its minion number and releases the
 * others with a credit.  Their arrivals differ by the spins, so the
 * model's last arrival (the latest clock, the higher minion on a tie)
 * moves from round to round.  Hart 0 prints, after a chip barrier:
 *
 *   probe flb-leader shires=N rounds=R leaders=H latest=L errors=E
 *
 * H: a hash of every round's leader on every shire; L: the rounds whose
 * leader noted the latest clock of its shire's round (of N x R); E:
 * rounds with no leader or more than one.  With the machine's flb-order
 * (the default) L is N x R and H is the same in every run and TCG mode;
 * with flb-order=off the leader is the one the host ran last.
 *
 * Built with -DSPREAD=1 (flb-tie.elf) no minion spins: released together
 * by one credit, all 32 issue their access at the same cycle in every
 * round, and the tie goes to the highest minion (hart order).
 */
#include "etsoc1.h"
#include "probe.h"
#include "../fabric/fabric.h"

#define ROUNDS  50
#ifndef SPREAD
#define SPREAD  64      /* the spins: 0 to SPREAD - 1 loop turns */
#endif
#define FLB_N   2       /* not the chip barrier's (1) */

static volatile uint64_t clock_at[34][MINIONS_PER_SHIRE];
static volatile uint32_t leader[34][ROUNDS], leaders_n[34][ROUNDS];
static volatile uint32_t latest[34][ROUNDS];

static unsigned spin_of(unsigned round, unsigned gid)
{
    uint32_t x = (round + 1) * 2654435761u ^ (gid + 1) * 40503u;

    x ^= x >> 13;
    x *= 0x5bd1e995u;
    return (x >> 15) % SPREAD;
}

/* Did minion @m arrive last of shire @s's round: the latest clock? */
static uint32_t arrived_last(unsigned s, unsigned m)
{
    uint64_t mine = clock_at[s][m];
    unsigned k;

    for (k = 0; k < MINIONS_PER_SHIRE; k++) {
        uint64_t c = clock_at[s][k];

        if (k != m && (c > mine || (c == mine && k > m))) {
            return 0;
        }
    }
    return 1;
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned gid = hart_gid(hartid), s = gid / MINIONS_PER_SHIRE;
    unsigned m = gid % MINIONS_PER_SHIRE, round, n;
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    uint64_t hash = 1469598103934665603ULL, last = 0, errors = 0;
    volatile unsigned sink = 0;

    if (hart_thread(hartid)) {
        return 0;
    }
    clock_at[s][m] = 0;         /* its line in the L1: every note a hit */
    for (round = 0; round < ROUNDS; round++) {
        for (n = spin_of(round, gid); n; n--) {
            sink++;
        }
        /* the same instructions on every minion up to the FLB access */
        clock_at[s][m] = cycles();
        if (flb_arrive(FLB_N, MINIONS_PER_SHIRE)) {
            leader[s][round] = m;
            leaders_n[s][round]++;
            latest[s][round] = arrived_last(s, m);
            fcc_send(s, 0, 0, 0xffffffffu);
        }
        fcc_wait(0);
    }
    chip_barrier(gid, shires);
    if (gid != 0) {
        return 0;
    }
    for (s = 0; s < shires; s++) {
        for (round = 0; round < ROUNDS; round++) {
            hash = (hash ^ (leader[s][round] + 1)) * 1099511628211ULL;
            errors += leaders_n[s][round] != 1;
            last += latest[s][round];
        }
    }
    print("probe flb-leader shires=%u rounds=%u leaders=%lu latest=%lu "
          "errors=%lu\n", shires, ROUNDS, hash, last, errors);
    return 0;
}
