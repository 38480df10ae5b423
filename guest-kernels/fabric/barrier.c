/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fast local barrier over the 32 minions of each shire, ROUNDS times: each
 * minion stamps its slot with the round, arrives, and after the barrier
 * checks every slot of its shire carries the same round.  Exactly one
 * arrival per round must be told it was last.
 */
#include "fabric.h"

#define ROUNDS 200

static volatile uint32_t stamp[34 * MINIONS_PER_SHIRE];
static volatile uint32_t lasts[34][ROUNDS];

int main(uint64_t hartid, const void *fdt)
{
    unsigned gid = hart_gid(hartid), s = gid / MINIONS_PER_SHIRE;
    unsigned round, m, bad = 0;

    for (round = 1; round <= ROUNDS; round++) {
        stamp[gid] = round;
        if (flb_arrive(1, MINIONS_PER_SHIRE)) {
            lasts[s][round - 1]++;
            fcc_send(s, 0, 1, 0xffffffffu);
        }
        fcc_wait(1);
        for (m = 0; m < MINIONS_PER_SHIRE; m++) {
            bad += stamp[s * MINIONS_PER_SHIRE + m] < round;
        }
        shire_barrier(s);
    }
    if (gid % MINIONS_PER_SHIRE == 0) {
        for (round = 0; round < ROUNDS; round++) {
            bad += lasts[s][round] != 1;
        }
        print("barrier: shire %u: %u rounds, %u errors\n", s, ROUNDS, bad);
    }
    return bad != 0;
}
