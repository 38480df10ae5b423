/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fast local barrier over the 32 minions of each shire, ROUNDS times: each
 * minion stamps its slot with the round, arrives, and after the barrier
 * checks every slot of its shire carries the same round.  Exactly one
 * arrival per round must be told it was last; which one (the round's
 * latest arrival) is the model's, so the leaders' hash is the same in
 * every run.
 */
#include "fabric.h"
#include "et-atomic.h"

#define ROUNDS 200

static volatile uint32_t stamp[34 * MINIONS_PER_SHIRE];
static volatile uint32_t lasts[34][ROUNDS];
static volatile uint8_t leader[34][ROUNDS];     /* the minion told last */
static volatile uint32_t errors[34];

int main(uint64_t hartid, const void *fdt)
{
    unsigned gid = hart_gid(hartid), s = gid / MINIONS_PER_SHIRE;
    unsigned round, m, bad = 0;

    for (round = 1; round <= ROUNDS; round++) {
        stamp[gid] = round;
        if (flb_arrive(1, MINIONS_PER_SHIRE)) {
            lasts[s][round - 1]++;
            leader[s][round - 1] = gid % MINIONS_PER_SHIRE;
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
        uint32_t h = 2166136261u;       /* FNV-1a of every round's leader */

        for (m = 0; m < shires; m++) {
            total += errors[m];
            for (round = 0; round < ROUNDS; round++) {
                h = (h ^ leader[m][round]) * 16777619u;
            }
        }
        print("barrier: %u shire(s) x %u rounds, %u errors, leaders %08x\n",
              shires, ROUNDS, total, h);
    }
    return bad != 0;
}
