/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fast local barrier over the 32 minions of each shire, ROUNDS times: each
 * minion stamps its slot with the round, arrives, and after the barrier
 * checks every slot of its shire carries the same round.  Exactly one
 * arrival per round must be told it was last.
 */
#include "fabric.h"
#include "et-atomic.h"

#define ROUNDS 200

static volatile uint32_t stamp[34 * MINIONS_PER_SHIRE];
static volatile uint32_t lasts[34][ROUNDS];
static volatile uint32_t errors[34];

int main(uint64_t hartid, const void *fdt)
{
    unsigned gid = hart_gid(hartid), s = gid / MINIONS_PER_SHIRE;
    unsigned round, m, bad = 0;

    for (round = 1; round <= ROUNDS; round++) {
        stamp[gid] = round;
        if (flb_arrive(1, MINIONS_PER_SHIRE)) {
            lasts[s][round - 1]++;
            fcc_send(s, 0, 0, 0xffffffffu);
        }
        fcc_wait(0);
        for (m = 0; m < MINIONS_PER_SHIRE; m++) {
            bad += stamp[s * MINIONS_PER_SHIRE + m] < round;
        }
        shire_barrier(s);
    }
    if (gid % MINIONS_PER_SHIRE == 0) {
        for (round = 0; round < ROUNDS; round++) {
            bad += lasts[s][round] != 1;
        }
    }
    et_amoaddg_w(&errors[s], bad);
    chip_barrier(gid, fdt_root_u32(fdt, "esperanto,shires", 1));
    if (gid == 0) {
        unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1), total = 0;

        for (m = 0; m < shires; m++) {
            total += errors[m];
        }
        print("barrier: %u shire(s) x %u rounds, %u errors\n", shires, ROUNDS,
              total);
    }
    return bad != 0;
}
