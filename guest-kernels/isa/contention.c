/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Atomics under contention.  Every AMO kind in .w and .d: the global
 * forms on one word per kind and width that every hart hammers, the local
 * forms (which act in the shire's L2, isa.md section 8) on one DRAM word
 * per kind, width and shire that the 64 harts of that shire hammer.  All
 * start together and work on every word in every round; now and then each
 * also takes a compare-and-swap spinlock (one lock word for all harts)
 * around a plain counter.
 *
 * Checks: a word must end as the same AMOs leave it one after another on
 * a private word (the operations' results themselves are atomics.c's
 * known answers); amoswap's old values and the last value must be each
 * hart's once; a .w word's high half (a canary) must survive.  Each
 * shire's hart 0 checks its shire's local words, hart 0 the global ones
 * and the counter.
 */
#include "etsoc1.h"
#include "et-atomic.h"
#include "tap.h"

/*
 * Rounds (AMOs per hart and word): 1,000 on up to 2 shires, a quarter
 * beyond, where more harts share the global words (and the run stays
 * within a minute of two host CPUs on 32 shires).
 */
#define MAX_ROUNDS 1000
#define LOCKS 6400          /* locked increments, about, of all harts */
#define MAX_SHIRES 34
#define MAX_HARTS (MAX_SHIRES * HARTS_PER_SHIRE)
#define C 0xa5a5a5a500000000ULL

/* [0][op]: .w in the low half of a doubleword, [1][op]: .d */
struct words {
    uint64_t word[2][ET_NAMO];
};
/* identities of and, min, max, minu; 0 for the others */
#define INIT { { {                                                      \
        C, C, C, C, C | 0xffffffff, C | 0x7fffffff, C | 0x80000000,     \
        C | 0xffffffff, C, C,                                           \
    }, {                                                                \
        0, 0, 0, 0, ~0ULL, 0x7fffffffffffffffULL, 1ULL << 63, ~0ULL,    \
        0, 0,                                                           \
    } } }

static const struct words init = INIT;
static volatile struct words glob = INIT;
static volatile struct words local[MAX_SHIRES] = { [0 ... 33] = INIT };
/* amoswap's old values: [global][d][hart] */
static volatile uint64_t swap_olds[2][2][MAX_HARTS];
/* per (d, op): a bit for each shire whose local word is wrong */
static volatile uint64_t bad_local[2][ET_NAMO];
static volatile uint64_t lock, counter, owner, overlaps;

static uint64_t mix(uint64_t h)
{
    return h * 0x9e3779b97f4a7c15ULL;
}

/* x += 1 with compare-and-swap, x31 the value the last one returned */
static void cas_inc(int d, int g, volatile uint64_t *p)
{
    uint64_t want, seen = 0;

    do {
        want = seen;
        seen = et_amo(ET_AMOCMPSWAP, d, g, p, want + 1, want);
    } while (seen != want);
}

/* The operand of hart @h's @i-th amo<op>; @k: see step() */
static uint64_t operand(unsigned op, int d, uint64_t h, uint64_t k,
                        uint64_t i)
{
    uint64_t bit = 1ULL << (k % (d ? 64 : 32));

    switch (op) {
    case ET_AMOADD:
    case ET_AMOSWAP:
        return k + 1;
    case ET_AMOOR:
        return bit;
    case ET_AMOAND:
        return ~bit;
    default:                                /* xor, min, max, minu, maxu */
        return mix(h * MAX_ROUNDS + i);
    }
}

/*
 * Hart @h's @i-th amo<op> on @p (cmpswap: an increment); the hart is the
 * @k-th of the harts that share the word.  Returns the old value.
 */
static uint64_t step(unsigned op, int d, int g, volatile uint64_t *p,
                     uint64_t h, uint64_t k, uint64_t i)
{
    if (op == ET_AMOCMPSWAP) {
        cas_inc(d, g, p);
        return 0;
    }
    return et_amo(op, d, g, p, operand(op, d, h, k, i), 0);
}

/*
 * Round @i of hart @h on the words @w: one AMO of each kind and width
 * (amoswap in round 0 only), so that every hart works on every word all
 * the time.
 */
static void round_on(volatile struct words *w, int g, uint64_t h,
                     uint64_t k, uint64_t i)
{
    unsigned op, d;

    for (op = 0; op < ET_NAMO; op++) {
        for (d = 0; d < 2; d++) {
            if (op != ET_AMOSWAP) {
                step(op, d, g, &w->word[d][op], h, k, i);
            } else if (i == 0) {
                swap_olds[g][d][h] = step(op, d, g, &w->word[d][op], h, k,
                                          i);
            }
        }
    }
}

/*
 * Under a compare-and-swap spinlock: a plain increment of the counter,
 * and the owner must still be this hart at the end.
 */
static void locked_inc(uint64_t hartid)
{
    while (et_amocmpswapg_d(&lock, 0, 1) != 0) {
    }
    owner = hartid;
    counter = counter + 1;                  /* plain load and store */
    overlaps += owner != hartid;
    __asm__ volatile("fence rw, w" ::: "memory");
    et_amoswapg_d(&lock, 0);
}

/* amoswap: @last and the @n old values are 0..n, each once */
static int swaps_ok(uint64_t last, const volatile uint64_t *olds,
                    uint64_t n, int d)
{
    uint64_t seen[MAX_HARTS / 64 + 1], v, i;

    if (!d && (last & ~0xffffffffULL) != C) {
        return 0;
    }
    for (i = 0; i <= n / 64; i++) {
        seen[i] = 0;
    }
    for (i = 0; i <= n; i++) {
        v = i < n ? olds[i] : d ? last : (uint32_t)last;
        if (v > n || (seen[v / 64] >> (v % 64) & 1)) {
            return 0;
        }
        seen[v / 64] |= 1ULL << (v % 64);
    }
    return 1;
}

/*
 * Check @w, hammered by harts @h0..@h0+@n-1 with the @g forms for
 * @rounds rounds: sets bit @bit of bad[d][op] for each wrong word.
 */
static void check_words(const volatile struct words *w, int g, uint64_t h0,
                        uint64_t n, uint64_t rounds,
                        volatile uint64_t bad[2][ET_NAMO], unsigned bit)
{
    unsigned op, d;
    uint64_t cell, h, i;
    int ok;

    for (op = 0; op < ET_NAMO; op++) {
        for (d = 0; d < 2; d++) {
            if (op == ET_AMOSWAP) {
                ok = swaps_ok(w->word[d][op], &swap_olds[g][d][h0], n, d);
            } else {
                cell = init.word[d][op];
                for (h = h0; h < h0 + n; h++) {
                    for (i = 0; i < rounds; i++) {
                        step(op, d, g, &cell, h, h - h0, i);
                    }
                }
                ok = cell == w->word[d][op];
            }
            if (!ok) {
                et_amoorg_d(&bad[d][op], 1ULL << bit);
            }
        }
    }
}

static unsigned popcount(uint64_t x)
{
    unsigned n = 0;

    for (; x; x &= x - 1) {
        n++;
    }
    return n;
}

int main(uint64_t hartid, const void *fdt)
{
    static volatile uint64_t bad_glob[2][ET_NAMO];
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned s = hart_shire(hartid), op, d, i;
    uint64_t harts = shires * HARTS_PER_SHIRE, h;
    uint64_t rounds = harts <= 128 ? MAX_ROUNDS : MAX_ROUNDS / 4;
    /* spread over the rounds, while every hart hammers the words */
    uint64_t lock_every = rounds * harts / LOCKS;
    uint64_t locks = harts * ((rounds + lock_every - 1) / lock_every);

    chip_barrier_of(hartid == 0, shires, HARTS_PER_SHIRE, 3);
    for (i = 0; i < rounds; i++) {
        round_on(&glob, 1, hartid, hartid, i);
        round_on(&local[s], 0, hartid, hartid % HARTS_PER_SHIRE, i);
        if (i % lock_every == 0) {
            locked_inc(hartid);
        }
    }

    /* every hart -> its shire's hart 0 (counter 0) -> hart 0 (counter 1) */
    if (hartid % HARTS_PER_SHIRE) {
        fcc_send(s, 0, 0, 1u << 0);         /* orders the AMOs before it */
        return 0;
    }
    for (h = 1; h < HARTS_PER_SHIRE; h++) {
        fcc_wait(0);
    }
    check_words(&local[s], 0, hartid, HARTS_PER_SHIRE, rounds, bad_local,
                s);
    if (hartid != 0) {
        fcc_send(0, 0, 1, 1u << 0);
        return 0;
    }
    for (i = 1; i < shires; i++) {
        fcc_wait(1);
    }
    check_words(&glob, 1, 0, harts, rounds, bad_glob, 0);

    print("# %lu harts\n# %lu rounds\n", harts, rounds);
    for (op = 0; op < ET_NAMO; op++) {
        for (d = 0; d < 2; d++) {
            CHECK(!bad_glob[d][op], "amo%sg.%c: %lu harts on one word",
                  et_amo_names[op], d ? 'd' : 'w', harts);
            CHECK(!bad_local[d][op], "amo%sl.%c: 64 harts on a word of "
                  "their shire (%u of %u shires wrong)", et_amo_names[op],
                  d ? 'd' : 'w', popcount(bad_local[d][op]), shires);
        }
    }
    CHECK(counter == locks && overlaps == 0,
          "compare-and-swap lock protects a plain counter: %lu increments "
          "(want %lu), %lu overlaps", counter, locks, overlaps);
    return tap_done();
}
