/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every hart of the chip sums its slice of a sequence, stores the partial
 * sum in its own slot and sends one credit to hart 0.  Hart 0 waits for a
 * credit from every other hart (halting while none has arrived), combines
 * the partial sums and checks them against the closed form.
 *
 * The sequence is x(i) = i * (i % 7 + 1), summed over i < harts * SLICE.
 */
#include "etsoc1.h"

#define SLICE 8192
#define MAX_HARTS (34 * HARTS_PER_SHIRE)

static uint64_t partial[MAX_HARTS];

static uint64_t x(uint64_t i)
{
    return i * (i % 7 + 1);
}

/* Sum of x(i) for i < n by residue classes: no loop over n. */
static uint64_t closed_form(uint64_t n)
{
    uint64_t total = 0;
    unsigned r;

    for (r = 0; r < 7; r++) {
        /* i = 7k + r for k < m, where m counts those below n */
        uint64_t m = n > r ? (n - r + 6) / 7 : 0;
        uint64_t sum_i = 7 * (m * (m - 1) / 2) + r * m;

        total += (r + 1) * sum_i;
    }
    return total;
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned harts = fdt_root_u32(fdt, "esperanto,shires", 1) * HARTS_PER_SHIRE;
    uint64_t i, sum = 0, expect;
    unsigned h;

    for (i = hartid * SLICE; i < (hartid + 1) * SLICE; i++) {
        sum += x(i);
    }
    partial[hartid] = sum;
    if (hartid != 0) {
        /* esr_write orders the store above before the credit */
        fcc_send(0, 0, 0, 1u << 0);
        return 0;
    }

    for (h = 1; h < harts; h++) {
        fcc_wait(0);
    }
    sum = 0;
    for (h = 0; h < harts; h++) {
        sum += partial[h];
    }
    expect = closed_form((uint64_t)harts * SLICE);
    print("allsum: %u harts x %u terms: sum %lu, expected %lu: %s\n", harts,
          SLICE, sum, expect, sum == expect ? "OK" : "MISMATCH");
    {
        /* hart 0's own clock: its loop, then the last credit's arrival */
        uint64_t c = csr_read(mcycle), n = csr_read(minstret);
        uint32_t mhz = fdt_root_u32(fdt, "esperanto,minion-clock-mhz", 600);

        print("allsum: emulated time on hart 0: %lu cycles = %lu.%03lu us "
              "at %u MHz (%lu instructions retired)\n", c, c / mhz,
              c % mhz * 1000 / mhz, mhz, n);
    }
    return sum != expect;
}
