/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flag ping-pong through global atomics of probes/sync-atomic and of
 * bench/sync25.c (pingpong8): the shire pairs and the DRAM words of
 * each.
 */
#ifndef PINGPONG_H
#define PINGPONG_H
#include "etsoc1.h"

#define PP_PAIRS 8

/* minion 0 of shire a (the pinger) and of shire b (the ponger) */
static const struct {
    unsigned a, b;
} pp_pairs[PP_PAIRS] = {
    { 10, 17 }, { 1, 4 }, { 2, 14 }, { 3, 9 }, { 5, 16 }, { 6, 19 },
    { 7, 24 }, { 0, 31 },
};

/* The L3 slice (PA[10:6]) that homes pair @p's words */
static inline unsigned pp_home(unsigned p)
{
    return (p * 4 + 1) % 32;
}

/* A DRAM word per pair and @use, homed at slice @home (pp_home) */
static inline volatile uint64_t *pp_word(unsigned home, unsigned use)
{
    return (volatile uint64_t *)(DRAM_BASE + (80ULL << 20) +
                                 use * 0x10000 + home * 64);
}
#endif
