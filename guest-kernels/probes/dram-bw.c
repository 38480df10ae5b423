/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Plain loads from DRAM under load (issue 28; docs/timing.md, "The cache
 * model" and "TensorLoads from DRAM").  Every hart (both threads of every
 * minion) loads one word of each of LINES lines no cache holds, one load
 * after the other (a miss blocks its hart), from a chip barrier.  The
 * cases, one after the other, each on lines of its own:
 *
 *   all     every hart its own LINES lines: the memory shires take turns
 *           (one 64 B line per dram.line each), so the chip moves at
 *           most 8 x 64 B per dram.line
 *   single  hart 0 alone, its own lines: the unloaded DRAM path, line
 *           after line
 *   table   every hart the same LINES lines: the first miss of each line
 *           (in the model's order) goes on to DRAM and leaves the line in
 *           its home L3 slice, where every later one finds it
 *
 * The time is the latest end less the earliest start, each in its hart's
 * own clock.  Lines, read by tests/etsoc1test/timing.py:
 *
 *   probe dram-bw case=C harts=N bytes=B gbps=G cycles=T
 *
 * B: the bytes of the lines the harts loaded (64 a line); G: B over T at
 * the machine's minion clock, in GB/s.
 */
#include <stdbool.h>

#include "etsoc1.h"
#include "probe.h"

#define LINES 64
#define HARTS_MAX (34 * 64)
/* each case's lines: 8 MiB from here, LINES x 64 B a hart (no image) */
#define AREA (DRAM_BASE + (128ULL << 20))

static volatile uint64_t t_start[HARTS_MAX], t_end[HARTS_MAX];

/* the lines of case @c for hart @h */
static volatile uint64_t *lines(unsigned c, unsigned h)
{
    return (volatile uint64_t *)(AREA + ((uint64_t)c << 23) +
                                 (uint64_t)h * LINES * 64);
}

/*
 * a word of each of LINES lines from @p, one load after the other, from
 * line @first on (harts that start together then ask the eight memory
 * shires, PA[8:6], in turn, not all the same one first)
 */
static uint64_t load_lines(volatile uint64_t *p, unsigned first)
{
    uint64_t sum = 0;
    unsigned i;

    for (i = 0; i < LINES; i++) {
        sum += p[(i + first) % LINES * 8];
    }
    return sum;
}

int main(uint64_t hartid, const void *fdt)
{
    static const char *const names[] = { "all", "single", "table" };
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned mhz = fdt_root_u32(fdt, "esperanto,minion-clock-mhz", 600);
    unsigned harts = shires * MINIONS_PER_SHIRE * 2, c, h;
    uint64_t sum = 0;

    if (harts > HARTS_MAX) {
        return 1;
    }
    for (c = 0; c < 3; c++) {
        bool mine = c != 1 || hartid == 0;

        chip_barrier_of(hartid == 0, shires, MINIONS_PER_SHIRE * 2, 3);
        t_start[hartid] = cycles();
        if (mine) {
            sum += load_lines(lines(c, c == 2 ? 0 : hartid), hartid % 8);
        }
        t_end[hartid] = mine ? cycles() : 0;
        chip_barrier_of(hartid == 0, shires, MINIONS_PER_SHIRE * 2, 3);
        if (hartid == 0) {
            uint64_t lo = ~0ULL, hi = 0, bytes;
            unsigned n = 0;

            for (h = 0; h < harts; h++) {
                if (t_end[h]) {
                    n++;
                    lo = t_start[h] < lo ? t_start[h] : lo;
                    hi = t_end[h] > hi ? t_end[h] : hi;
                }
            }
            bytes = (uint64_t)n * LINES * 64;
            print("probe dram-bw case=%s harts=%u bytes=%lu gbps=%lu "
                  "cycles=%lu\n", names[c], n, bytes,
                  (bytes * mhz / (hi - lo) + 500) / 1000, hi - lo);
        }
    }
    return sum != 0;    /* DRAM no one wrote reads 0 */
}
