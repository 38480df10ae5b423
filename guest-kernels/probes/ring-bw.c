/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Aggregate ring bandwidth (issue 28).  Thread 0 of every minion passes
 * 1 KiB messages (32 registers, f0-f31) around rings: each round a minion
 * sends one message to its successor and receives one from its
 * predecessor (even ring positions send first, odd ones receive first),
 * ROUNDS rounds, after a tree allreduce over all minions as the start
 * barrier.  Three kinds of ring, one after the other:
 *
 *   inside, stride 1     minion i -> i + 1 of its shire (32 rings of 32,
 *                        one a shire)
 *   shires, stride 1     minion m of shire s -> minion m of shire s + 1
 *                        (mod shires)
 *   shires, stride S/2   minion m of shire s -> minion m of shire s + S/2
 *                        (S shires: rings of two, pairs of shires; 16 on
 *                        the full chip)
 *   shires, stride 4     minion m of shire s -> minion m of shire s + 4
 *                        (mod S; S >= 8: four rings of S/4 shires); on the
 *                        full chip four routes share the busiest mesh link
 *                        (docs/timing.md, "Mesh links")
 *
 * The time is the latest end less the earliest start over all minions, in
 * each one's own clock; the aggregate moves minions x ROUNDS x 1 KiB in
 * it.  Lines, read by tests/etsoc1test/timing.py and bench/fabric:
 *
 *   probe ring-bw ring=R stride=D minions=N bytes=B gbps=G cycles=C
 *
 * G: GB/s at the machine's minion clock (esperanto,minion-clock-mhz), so
 * TB/s = G / 1000.  A stride ring needs an even number of shires.
 */
#include "../fabric/fabric.h"
#include "probe.h"

#define ROUNDS 20
#define MSG_REGS 32             /* 1 KiB: 32 registers of 32 B */
#define MAX_MINIONS 1024

/* written by every minion, read by minion 0 after a chip barrier */
static volatile uint64_t t_start[MAX_MINIONS], t_end[MAX_MINIONS];

static void ring_rounds(unsigned pos, unsigned to, unsigned from)
{
    unsigned r;

    for (r = 0; r < ROUNDS; r++) {
        if (pos % 2 == 0) {
            tensor_send(to, 0, MSG_REGS);
            tensor_recv(from, 0, MSG_REGS, TR_MOVE);
        } else {
            tensor_recv(from, 0, MSG_REGS, TR_MOVE);
            tensor_send(to, 0, MSG_REGS);
        }
    }
    twait_reduce();
}

static void ring(const char *name, unsigned stride, unsigned gid,
                 unsigned minions, unsigned k, unsigned mhz, unsigned pos,
                 unsigned to, unsigned from)
{
    uint64_t lo = ~0ull, hi = 0, cyc, bytes;
    unsigned m, shires = minions / MINIONS_PER_SHIRE;

    FREG_SET(0, 1);
    tree_allreduce(k, TR_IADD);         /* the start barrier */
    t_start[gid] = cycles();
    ring_rounds(pos, to, from);
    t_end[gid] = cycles();
    chip_barrier(gid, shires);
    if (gid != 0) {
        return;
    }
    for (m = 0; m < minions; m++) {
        lo = t_start[m] < lo ? t_start[m] : lo;
        hi = t_end[m] > hi ? t_end[m] : hi;
    }
    cyc = hi - lo;
    bytes = (uint64_t)minions * ROUNDS * MSG_REGS * 32;
    /* bytes / (cycles / MHz) = bytes x MHz / cycles in B/us = MB/s */
    print("probe ring-bw ring=%s stride=%u minions=%u bytes=%lu gbps=%lu "
          "cycles=%lu\n", name, stride, minions, bytes,
          (bytes * mhz / cyc + 500) / 1000, cyc);
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned mhz = fdt_root_u32(fdt, "esperanto,minion-clock-mhz", 600);
    unsigned minions = shires * MINIONS_PER_SHIRE, gid = hart_gid(hartid);
    unsigned shire = gid / MINIONS_PER_SHIRE, m = gid % MINIONS_PER_SHIRE;
    unsigned k, base = shire * MINIONS_PER_SHIRE, half = shires / 2;

    if (hart_thread(hartid)) {
        return 0;
    }
    k = 0;
    while ((2u << k) <= minions) {
        k++;
    }
    if ((1u << k) != minions || minions > MAX_MINIONS) {
        if (gid == 0) {
            print("ring-bw: needs a power of two of shires, up to 32\n");
        }
        return 1;
    }
    ring("inside", 1, gid, minions, k, mhz, m,
         base + (m + 1) % MINIONS_PER_SHIRE,
         base + (m + MINIONS_PER_SHIRE - 1) % MINIONS_PER_SHIRE);
    if (shires >= 2) {
        ring("shires", 1, gid, minions, k, mhz, shire,
             (shire + 1) % shires * MINIONS_PER_SHIRE + m,
             (shire + shires - 1) % shires * MINIONS_PER_SHIRE + m);
        ring("shires", half, gid, minions, k, mhz, shire / half,
             (shire + half) % shires * MINIONS_PER_SHIRE + m,
             (shire + half) % shires * MINIONS_PER_SHIRE + m);
    }
    if (shires >= 8) {
        ring("shires", 4, gid, minions, k, mhz, shire / 4,
             (shire + 4) % shires * MINIONS_PER_SHIRE + m,
             (shire + shires - 4) % shires * MINIONS_PER_SHIRE + m);
    }
    if (gid == 0) {
        print("probe ring-bw done, tensor_error 0x%lx\n",
              csr_read(CSR_TENSOR_ERROR));
    }
    return csr_read(CSR_TENSOR_ERROR) != 0;
}
