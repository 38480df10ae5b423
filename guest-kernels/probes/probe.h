/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers of the latency probes: medians, and the 6x6 shire map of
 * timing.md section 2 for printing hop counts (the probes measure; the
 * hop counts only label the output).
 */
#ifndef PROBE_H
#define PROBE_H
#include "etsoc1.h"

#define PROBE_RUNS 7        /* timed runs per figure; the median is kept */

/* The hart's own clock (docs/timing.md) */
static inline uint64_t cycles(void)
{
    return csr_read(mcycle);
}

static inline uint64_t median(uint64_t *v, unsigned n)
{
    unsigned i, j;

    for (i = 1; i < n; i++) {
        for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint64_t t = v[j];

            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    }
    return v[n / 2];
}

/* Extra cycles per access of a timed loop over its overhead loop. */
static inline uint64_t per_access(uint64_t timed, uint64_t overhead,
                                  uint64_t n)
{
    return timed > overhead ? (timed - overhead + n / 2) / n : 0;
}

/* Cells of the compute shires; -1 marks the four non-compute cells. */
static const signed char probe_map[6][6] = {
    {  0, 24,  9, 25,  2, 11 },
    {  8, 16,  1, 17, 10, 19 },
    {  3,  4, 13, 14, 18, 27 },
    { -1, 12, 21, 22, 26, -1 },
    { -1, 20, 29, 30, 15, 23 },
    { -1, 28,  5,  6,  7, 31 },
};

static inline void probe_cell(unsigned shire, int *x, int *y)
{
    for (*y = 0; *y < 6; (*y)++) {
        for (*x = 0; *x < 6; (*x)++) {
            if (probe_map[*y][*x] == (int)shire) {
                return;
            }
        }
    }
}

static inline unsigned probe_abs(int v)
{
    return v < 0 ? -v : v;
}

static inline unsigned probe_hops(unsigned a, unsigned b)
{
    int ax, ay, bx, by;

    probe_cell(a, &ax, &ay);
    probe_cell(b, &bx, &by);
    return probe_abs(ax - bx) + probe_abs(ay - by);
}

/* Memory shires 0-3 sit above row 0, 4-7 below row 5, at x = 1..4. */
static inline unsigned probe_memhops(unsigned shire, unsigned m)
{
    int x, y;

    probe_cell(shire, &x, &y);
    return probe_abs(x - (int)(1 + m % 4)) +
           probe_abs(y - (m < 4 ? -1 : 6));
}

/*
 * The @n lines at @base, @stride bytes apart, chained in order: each
 * holds the next one's address, the last the first's (the cache probes'
 * pointer chases).  Returns @base.
 */
static inline uint64_t probe_chain(uint64_t base, unsigned n,
                                   uint64_t stride)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        /* a store the compiler must make: the chain is read only in asm */
        *(volatile uint64_t *)(base + i * stride) =
            base + (i + 1) % n * stride;
    }
    return base;
}

/* mcycle across @n steps of a pointer chase (ld, addi, bnez) from @p */
static inline uint64_t probe_chase(uint64_t p, uint64_t n)
{
    uint64_t a, b;

    __asm__ volatile("csrr %0, mcycle\n"
                     "1:\tld %2, 0(%2)\n\t"
                     "addi %3, %3, -1\n\t"
                     "bnez %3, 1b\n\t"
                     "csrr %1, mcycle"
                     : "=&r"(a), "=&r"(b), "+r"(p), "+r"(n) :: "memory");
    return b - a;
}
#endif
