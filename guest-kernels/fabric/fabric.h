/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared helpers of the fabric guest kernels. */
#ifndef FABRIC_H
#define FABRIC_H
#include "etsoc1.h"

/* The inputs every test uses; tests/run.py computes the same in Python. */
static inline uint32_t input_float(unsigned gid)
{
    uint32_t sign = (gid * 7u) & 1, exp = 120 + gid % 13;
    uint32_t mant = (gid * 2654435761u) & 0x7fffff;

    return sign << 31 | exp << 23 | mant;
}

static inline uint32_t input_int(unsigned gid)
{
    return (gid * 2654435761u) ^ (gid << 7);
}

/*
 * Chip barrier over thread 0 of every minion: a fast local barrier in each
 * shire, whose last arrival credits minion 0; minion 0 releases every
 * shire with one credit write per shire.  Counter 1 is reserved for it.
 */
static inline void chip_barrier(unsigned gid, unsigned shires)
{
    chip_barrier_of(gid == 0, shires, MINIONS_PER_SHIRE, 1);
}

/*
 * The same inside one shire: the last arrival releases the other 31.  It
 * uses counter 0, so that a chip barrier that other shires have already
 * entered cannot feed it a credit.
 */
static inline void shire_barrier(unsigned shire)
{
    if (flb_arrive(1, MINIONS_PER_SHIRE)) {
        fcc_send(shire, 0, 0, 0xffffffffu);
    }
    fcc_wait(0);
}

/*
 * One step along a ring or grid line: hand f1 to @to and take @from's f1
 * (through f2).  Even positions send first and odd ones receive first, so
 * a cycle of even length never has every member sending at once.
 */
static inline void pass_step(unsigned pos, unsigned to, unsigned from)
{
    if (pos % 2 == 0) {
        tensor_send(to, 1, 1);
        tensor_recv(from, 2, 1, TR_MOVE);
    } else {
        tensor_recv(from, 2, 1, TR_MOVE);
        tensor_send(to, 1, 1);
    }
    __asm__ volatile("fmv.s f1, f2");
}

/* tensor_wait (CSR 0x830) event 9: the minion's tensor_reduce is done */
static inline void twait_reduce(void)
{
    csr_write(0x830, 9);
}

/*
 * An allreduce of f0 over the tree's first 2^@k minions: TensorReduce with
 * @func up every level (auto-pair), TensorBroadcast down, then the wait.
 */
static inline void tree_allreduce(unsigned k, unsigned func)
{
    unsigned h;

    for (h = 0; h < k; h++) {
        tensor_reduce(tr_cmd(TR_REDUCE, h, 1, func, 0));
    }
    for (h = k; h-- > 0;) {
        tensor_reduce(tr_cmd(TR_BROADCAST, h, 1, TR_MOVE, 0));
    }
    twait_reduce();
}

const int etsoc1_park_thread1 = 1;
#endif
