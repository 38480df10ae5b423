/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/speed: the synchronization programs of issue 25's targets, on the
 * full chip with every other hart stopped at once.
 *
 *   -DFLB100     the 32 minions (thread 0) of shire 0 pass a fast local
 *                barrier + credit barrier (fabric.h shire_barrier) 100
 *                times
 *   -DPINGPONG8  minion 0 of 8 shire pairs ping-pongs a flag through
 *                global atomics 200 times (the pairs and words
 *                of probes/pingpong.h, as probes/sync-atomic)
 *
 * Hart 0 prints the cycles: the same on every run and in both TCG modes.
 */
#include "../fabric/fabric.h"
#include "et-atomic.h"

#define ROUNDS_FLB 100
#define ROUNDS_PP  200

static volatile uint64_t took[34];

#ifdef FLB100
static int run(unsigned gid, unsigned shires)
{
    uint64_t t0;
    unsigned r;

    if (gid >= MINIONS_PER_SHIRE) {
        return 0;
    }
    t0 = csr_read(mcycle);
    for (r = 0; r < ROUNDS_FLB; r++) {
        shire_barrier(0);
    }
    if (gid == 0) {
        print("sync25 flb100 minions=%u rounds=%u cycles=%u\n",
              MINIONS_PER_SHIRE, ROUNDS_FLB,
              (unsigned)(csr_read(mcycle) - t0));
    }
    return 0;
}
#else
#include "../probes/pingpong.h"

static int run(unsigned gid, unsigned shires)
{
    unsigned s = gid / MINIONS_PER_SHIRE, p, i;
    volatile uint64_t *f;
    uint64_t t0;

    if (gid % MINIONS_PER_SHIRE) {
        return 0;
    }
    for (p = 0; p < PP_PAIRS; p++) {
        if (pp_pairs[p].a >= shires || pp_pairs[p].b >= shires) {
            continue;
        }
        f = pp_word(pp_home(p), 0);
        if (s == pp_pairs[p].a) {
            et_amoorg_d(f, 0);
            t0 = csr_read(mcycle);
            for (i = 0; i < ROUNDS_PP; i++) {
                et_amoswapg_d(f, 2 * i + 1);
                while (et_amoorg_d(f, 0) != 2 * i + 2) {
                }
            }
            took[p] = csr_read(mcycle) - t0;
        } else if (s == pp_pairs[p].b) {
            for (i = 0; i < ROUNDS_PP; i++) {
                while (et_amoorg_d(f, 0) != 2 * i + 1) {
                }
                et_amoswapg_d(f, 2 * i + 2);
            }
        }
    }
    if (gid == 0) {
        /* pair 7's pinger: the last of its own; the others' may lag */
        print("sync25 pingpong8 pairs=%u rounds=%u cycles=%u\n", PP_PAIRS,
              ROUNDS_PP, (unsigned)took[7]);
    }
    return 0;
}
#endif

int main(uint64_t hartid, const void *fdt)
{
    return run(hart_gid(hartid), fdt_root_u32(fdt, "esperanto,shires", 1));
}
