/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * result[i] = a[i] + b[i] (int32), every launched hart one slice.  The
 * argument block is Esperanto's add_vector layout; the slices use the
 * kernel environment's shire mask so any set of shires works.
 */
#include <stdint.h>

struct vectors {
    int32_t *a, *b, *result;
    int32_t n;
};

struct kernel_env {
    uint16_t major, minor, patch, reserved;
    uint64_t shire_mask;
    uint32_t frequency_mhz;
};

/* bits set; no libgcc here (__builtin_popcountll would call it) */
static inline int64_t popcount64(uint64_t x)
{
    int64_t n = 0;

    for (; x; x &= x - 1) {
        n++;
    }
    return n;
}

int64_t entry_point(const struct vectors *v, const struct kernel_env *env);

int64_t entry_point(const struct vectors *v, const struct kernel_env *env)
{
    uint64_t hart, below;
    int64_t harts, rank, per, lo, hi;

    __asm__ volatile("csrr %0, 0xcd0" : "=r"(hart));   /* hartid */
    below = env->shire_mask & ((1ULL << (hart / 64)) - 1);
    harts = popcount64(env->shire_mask) * 64;
    rank = popcount64(below) * 64 + hart % 64;
    per = (v->n + harts - 1) / harts;
    lo = rank * per;
    hi = lo + per < v->n ? lo + per : v->n;
    for (int64_t i = lo; i < hi; i++) {
        v->result[i] = v->a[i] + v->b[i];
    }
    return 0;
}
