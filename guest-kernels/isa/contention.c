/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every hart hammers shared words with each AMO kind (global atomics on
 * DRAM words, local ones on a word per shire), and the harts of shire 0
 * take turns in a compare-and-swap spinlock around a plain counter.  Hart
 * 0 collects a credit from every hart and checks the exact final values.
 */
#include "etsoc1.h"
#include "et-atomic.h"
#include "tap.h"

#define REPS 50
#define LOCKED 200

static volatile uint64_t sum_g, or_g, and_g = ~0ULL, xor_g, swap_g;
static volatile int64_t min_g, max_g;
static volatile uint64_t minu_g = ~0ULL, maxu_g;
static volatile uint64_t swap_olds[34 * HARTS_PER_SHIRE];
static volatile uint32_t sum_l[34] __attribute__((aligned(8)));
static volatile uint64_t lock, counter;

static uint64_t mix(uint64_t h)
{
    return h * 0x9e3779b97f4a7c15ULL;
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    uint64_t harts = shires * HARTS_PER_SHIRE, h, xor = 0, i;
    int64_t v = (int64_t)hartid - (int64_t)harts / 2;

    for (i = 0; i < REPS; i++) {
        et_amoaddg_d(&sum_g, hartid + 1);
        et_amoaddl_w(&sum_l[hart_shire(hartid)], 3);
    }
    et_amoorg_d(&or_g, 1ULL << (hartid % 64));
    et_amoandg_d(&and_g, ~(1ULL << (hartid % 64)));
    et_amoxorg_d(&xor_g, mix(hartid));
    et_amoming_d(&min_g, v);
    et_amomaxg_d(&max_g, v);
    et_amominug_d(&minu_g, mix(hartid));
    et_amomaxug_d(&maxu_g, mix(hartid));
    swap_olds[hartid] = et_amoswapg_d(&swap_g, hartid + 1);

    if (hart_shire(hartid) == 0) {
        for (i = 0; i < LOCKED; i++) {
            while (et_amocmpswapg_d(&lock, 0, 1) != 0) {
            }
            counter = counter + 1;          /* plain load and store */
            __asm__ volatile("fence rw, w" ::: "memory");
            lock = 0;
        }
    }

    if (hartid != 0) {
        fcc_send(0, 0, 0, 1u << 0);         /* orders the AMOs before it */
        return 0;
    }
    for (h = 1; h < harts; h++) {
        fcc_wait(0);
    }

    {
        uint64_t want_sum = REPS * harts * (harts + 1) / 2, olds = 0;
        uint64_t want_minu = ~0ULL, want_maxu = 0;
        unsigned s, bad_l = 0;

        for (h = 0; h < harts; h++) {
            xor ^= mix(h);
            want_minu = mix(h) < want_minu ? mix(h) : want_minu;
            want_maxu = mix(h) > want_maxu ? mix(h) : want_maxu;
            olds += swap_olds[h];
        }
        for (s = 0; s < shires; s++) {
            bad_l += sum_l[s] != 3 * REPS * HARTS_PER_SHIRE;
        }
        print("# %lu harts\n", harts);
        CHECK_EQ(sum_g, want_sum, "amoaddg.d from every hart");
        CHECK(bad_l == 0, "amoaddl.w per shire (%u shires wrong)", bad_l);
        CHECK_EQ(or_g, harts >= 64 ? ~0ULL : (1ULL << harts) - 1, "amoorg.d");
        CHECK_EQ(and_g, harts >= 64 ? 0 : ~((1ULL << harts) - 1), "amoandg.d");
        CHECK_EQ(xor_g, xor, "amoxorg.d");
        CHECK_EQ(min_g, (uint64_t)-(int64_t)(harts / 2), "amoming.d");
        CHECK_EQ(max_g, harts - 1 - harts / 2, "amomaxg.d");
        CHECK_EQ(minu_g, want_minu, "amominug.d");
        CHECK_EQ(maxu_g, want_maxu, "amomaxug.d");
        CHECK_EQ(olds + swap_g, harts * (harts + 1) / 2,
                 "amoswapg.d: the old values and the last one are each id once");
        CHECK_EQ(counter, (uint64_t)HARTS_PER_SHIRE * LOCKED,
                 "compare-and-swap lock protects a plain counter");
    }
    return tap_done();
}
