/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Many harts on one global-atomic line, or one L3 sub-bank
 * (docs/timing.md, "One sub-bank at a time"): hart 0 of every minion
 * that takes part runs OPS dependent amoaddg.d in a row, from a chip
 * barrier of credits.
 *
 *   probe hammer phase=P harts=N lines=L home=S ops=K cycles=C
 *        N harts (the first N minions of the chip, hart 0 of each), on
 *        one counter line (L = 1) or each on its own line of the same
 *        home slice S (L = N).  C: the most any of them took for its K
 *        atomics.  A sub-bank of the slice serves one write at a time
 *        (l3.bank.service), so N harts on one line take about
 *        N x K x service once that exceeds their round trips.  On lines
 *        of their own, consecutive lines of the slice (phase 3), they
 *        spread over its BANKS sub-banks: their round trips, and turns
 *        at N / BANKS x K x service at most.  Phase 5 puts every line in
 *        one sub-bank: N x K x service again.
 *   probe hammer phase=4 harts=N lines=N*K home=S ops=K cycles=C
 *        every op on a line no one has touched (L = N x K): each misses
 *        the slice and takes its turn at the line's memory shire
 *        (PA[8:6] = S mod 8, "TensorLoads from DRAM"), whose DRAM
 *        passes a line per dram.line, so N x K x dram.line once that
 *        exceeds the round trips.
 *
 * Every figure must be the same on every run and under both TCG modes.
 */
#include "etsoc1.h"
#include "et-atomic.h"
#include "probe.h"

#define OPS     8
#define HOME    13      /* the slice every line of the probe lives in */
#define BANKS   16      /* its sub-banks (etsoc1-l3-slice's "banks") */

/*
 * DRAM line @i of the probe, homed at slice HOME (PA[10:6]), the slice's
 * consecutive lines 2 KiB apart: phases 0-3 from 82 MiB, 1 MiB apart (up
 * to 2 MiB each), phase 4 from 96 MiB (16 MiB); phase 5 from 128 MiB,
 * every BANKS-th line of the slice, so all in one sub-bank (32 MiB)
 */
static volatile uint64_t *line(unsigned phase, unsigned i)
{
    uint64_t base = phase < 4 ? (82ULL << 20) + phase * 0x100000
                    : phase == 4 ? 96ULL << 20 : 128ULL << 20;
    uint64_t step = phase == 5 ? BANKS * 2048ULL : 2048ULL;

    return (volatile uint64_t *)(DRAM_BASE + base + i * step + HOME * 64);
}

static volatile uint64_t took[MINIONS_PER_SHIRE * 34];

/*
 * the phases: minions that take part, and whether each has its own line,
 * or each op a fresh line (not touched before: an L3 miss)
 */
static const struct {
    unsigned minions;       /* 0: every minion of the chip */
    int own_line;
    int fresh;
} phases[] = {
    { 1, 0, 0 }, { 32, 0, 0 }, { 0, 0, 0 }, { 0, 1, 0 }, { 0, 1, 1 },
    { 0, 1, 0 },
};

/* OPS atomics from @l on, @step words apart: the cycles they took */
static inline __attribute__((always_inline))
uint64_t hammer(volatile uint64_t *l, unsigned step)
{
    uint64_t t0 = cycles();
    unsigned k;

    for (k = 0; k < OPS; k++) {
        et_amoaddg_d(l + k * step, 1);
    }
    return cycles() - t0;
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned gid = hart_gid(hartid), p, n, i;

    if (hartid & 1) {
        return 0;
    }
    for (p = 0; p < sizeof(phases) / sizeof(phases[0]); p++) {
        volatile uint64_t *l;
        uint64_t worst = 0;

        n = phases[p].minions ? phases[p].minions
                              : shires * MINIONS_PER_SHIRE;
        /* every line in its slice first: a miss is the first toucher's */
        if (hartid == 0 && !phases[p].fresh) {
            for (i = 0; i < (phases[p].own_line ? n : 1); i++) {
                et_amoaddg_d(line(p, i), 0);
            }
        }
        chip_barrier_of(hartid == 0, shires, MINIONS_PER_SHIRE, 1);
        if (gid < n) {
            l = line(p, phases[p].own_line ? gid * (phases[p].fresh ? OPS : 1)
                                           : 0);
            /* the step a constant in each loop: nothing else is timed */
            took[gid] = phases[p].fresh ? hammer(l, 256) : hammer(l, 0);
        }
        chip_barrier_of(hartid == 0, shires, MINIONS_PER_SHIRE, 1);
        if (hartid == 0) {
            for (i = 0; i < n; i++) {
                worst = took[i] > worst ? took[i] : worst;
            }
            if (!phases[p].own_line && *line(p, 0) != (uint64_t)n * OPS) {
                print("l3-hammer: phase %u counted %lu, want %lu\n", p,
                      *line(p, 0), (uint64_t)n * OPS);
                return 1;
            }
            print("probe hammer phase=%u harts=%u lines=%u home=%u ops=%u "
                  "cycles=%lu\n", p, n,
                  phases[p].own_line ? n * (phases[p].fresh ? OPS : 1) : 1,
                  HOME, OPS, worst);
        }
    }
    return 0;
}
