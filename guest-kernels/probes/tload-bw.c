/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Aggregate TensorLoad and DRAM bandwidth (issue 28).  Thread 0 of every
 * minion streams TensorLoads of 16 rows (1 KiB) from an L2 scratchpad or
 * DRAM into its L1 scratchpad, LOADS of them issued back to back, then
 * tensor_wait 0, or moves 1 KiB of DRAM by cache ops LOADS times; a tree
 * allreduce over all minions is the start barrier.  The cases, one after
 * the other:
 *
 *   remote   shire s reads the scratchpad of shire s + S/2 (mod S, S
 *            shires: 16 IDs away on the full chip), the card's
 *            0.96 TB/s figure: every byte crosses the source shire's
 *            mesh port out and the reader's in
 *   remote4  shire s reads the scratchpad of shire s + 4 (mod S): on
 *            the full chip four routes share the busiest mesh link
 *            (docs/timing.md, "Mesh links"), which then limits them
 *   own      shire s reads its own scratchpad (no mesh port)
 *   single   minion 0 of shire 0 alone reads shire S/2's scratchpad
 *            (the unloaded stream, for comparison)
 *   dram     every minion reads DRAM: the memory shires take turns
 *            (docs/timing.md, "TensorLoads from DRAM")
 *   dram-shire  the 32 minions of shire 0 alone read DRAM (its in-port)
 *   dram-single minion 0 of shire 0 alone reads DRAM (unloaded)
 *   prefetch every minion prefetches its lines from DRAM into the L3 and
 *            evicts them to memory again, LOADS times (bytes: both ways)
 *   prefetch-single  minion 0 of shire 0 alone does the same
 *
 * Each minion reads its own 1 KiB of the source (rows m KiB into it; in
 * DRAM, gid KiB into dram_src), so that no two minions read the same
 * lines; a KiB of DRAM is 16 lines, 2 in each memory shire (PA[8:6]).
 * The time is the latest end less the earliest start over the minions
 * that load, in each one's own clock.  Lines, read by tests/etsoc1test/timing.py:
 *
 *   probe tload-bw src=R minions=N bytes=B gbps=G cycles=C
 *
 * G: GB/s at the machine's minion clock, so TB/s = G / 1000.
 */
#include <stdbool.h>

#include "../fabric/fabric.h"
#include "probe.h"

#define LOADS 32                /* TensorLoads per minion and case */
#define ROWS 16                 /* 16 lines of 64 B: 1 KiB a load */
#define SRC_OFF 0x20000         /* rows of minion m at SRC_OFF + m KiB */
#define MAX_MINIONS 1024

/* the DRAM the dram cases read, 1 KiB a minion */
static uint8_t dram_src[MAX_MINIONS * ROWS * 64] __attribute__((aligned(1024)));

/* written by every minion, read by minion 0 after a chip barrier */
static volatile uint64_t t_start[MAX_MINIONS], t_end[MAX_MINIONS];

/* LOADS TensorLoads (CSR 0x83f) of ROWS lines at @src into L1 lines 0-15 */
static void stream(uint64_t src)
{
    unsigned i;

    for (i = 0; i < LOADS; i++) {
        csr_write_x31(0x83f, (src & 0xffffffffffc0ULL) | (ROWS - 1), 64);
    }
    csr_write(0x830, 0);        /* tensor_wait: load id 0 is done */
}

#define CACHE_L3  2ULL          /* cache op destination levels (isa.md 3) */
#define CACHE_MEM 3ULL

/*
 * LOADS times, prefetch_va (0x81f) of the ROWS lines at @src into the L3
 * and evict_va (0x89f) of them to memory, each waited for (tensor_wait
 * 4, 6): each line read from DRAM and written back
 */
static void cacheops(uint64_t src)
{
    uint64_t lines = (src & 0xffffffffffc0ULL) | (ROWS - 1);
    unsigned i;

    for (i = 0; i < LOADS; i++) {
        csr_write_x31(0x81f, CACHE_L3 << 58 | lines, 64);
        csr_write(0x830, 4);
        csr_write_x31(0x89f, CACHE_MEM << 58 | lines, 64);
        csr_write(0x830, 6);
    }
}

/*
 * Minion 0, after a chip barrier: print a case's figures from every
 * minion's start and end, @ways times LOADS KiB moved per minion that
 * took part (t_end set)
 */
static void report(const char *name, unsigned gid, unsigned minions,
                   unsigned mhz, unsigned ways)
{
    uint64_t lo = ~0ull, hi = 0, cyc, bytes;
    unsigned m, n = 0;

    chip_barrier(gid, minions / MINIONS_PER_SHIRE);
    if (gid != 0) {
        return;
    }
    for (m = 0; m < minions; m++) {
        if (t_end[m] == 0) {
            continue;
        }
        n++;
        lo = t_start[m] < lo ? t_start[m] : lo;
        hi = t_end[m] > hi ? t_end[m] : hi;
    }
    cyc = hi - lo;
    bytes = (uint64_t)n * LOADS * ROWS * 64 * ways;
    /* bytes / (cycles / MHz) = bytes x MHz / cycles in B/us = MB/s */
    print("probe tload-bw src=%s minions=%u bytes=%lu gbps=%lu cycles=%lu\n",
          name, n, bytes, (bytes * mhz / cyc + 500) / 1000, cyc);
}

/* A case of TensorLoads (stream), from the tree allreduce's barrier */
static void measure(const char *name, unsigned gid, unsigned minions,
                    unsigned k, unsigned mhz, bool loads, uint64_t src)
{
    FREG_SET(0, 1);
    tree_allreduce(k, TR_IADD);         /* the start barrier */
    t_start[gid] = cycles();
    if (loads) {
        stream(src);
    }
    t_end[gid] = loads ? cycles() : 0;
    report(name, gid, minions, mhz, 1);
}

/* The same with cache ops, whose bytes go both ways */
static void measure_cacheops(const char *name, unsigned gid,
                             unsigned minions, unsigned k, unsigned mhz,
                             bool ops, uint64_t src)
{
    FREG_SET(0, 1);
    tree_allreduce(k, TR_IADD);
    t_start[gid] = cycles();
    if (ops) {
        cacheops(src);
    }
    t_end[gid] = ops ? cycles() : 0;
    report(name, gid, minions, mhz, 2);
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned mhz = fdt_root_u32(fdt, "esperanto,minion-clock-mhz", 600);
    unsigned minions = shires * MINIONS_PER_SHIRE, gid = hart_gid(hartid);
    unsigned shire = gid / MINIONS_PER_SHIRE, m = gid % MINIONS_PER_SHIRE;
    unsigned k, far = (shire + shires / 2) % shires;
    uint64_t rows = SRC_OFF + (uint64_t)m * ROWS * 64;

    if (hart_thread(hartid)) {
        return 0;
    }
    k = 0;
    while ((2u << k) <= minions) {
        k++;
    }
    if ((1u << k) != minions || minions > MAX_MINIONS || shires < 2) {
        if (gid == 0) {
            print("tload-bw: needs a power of two of shires, 2 to 32\n");
        }
        return 1;
    }
    csr_write(0x7e0, 1);
    csr_write(0x7e0, 3);                /* L1 scratchpad on */
    measure("remote", gid, minions, k, mhz, true,
            SCP_BASE + far * SCP_WINDOW + rows);
    measure("remote4", gid, minions, k, mhz, true,
            SCP_BASE + (shire + 4) % shires * SCP_WINDOW + rows);
    measure("own", gid, minions, k, mhz, true,
            SCP_BASE + shire * SCP_WINDOW + rows);
    measure("single", gid, minions, k, mhz, gid == 0,
            SCP_BASE + far * SCP_WINDOW + rows);
    measure("dram", gid, minions, k, mhz, true,
            (uint64_t)&dram_src[gid * ROWS * 64]);
    measure("dram-shire", gid, minions, k, mhz, shire == 0,
            (uint64_t)&dram_src[gid * ROWS * 64]);
    measure("dram-single", gid, minions, k, mhz, gid == 0,
            (uint64_t)&dram_src[gid * ROWS * 64]);
    measure_cacheops("prefetch", gid, minions, k, mhz, true,
            (uint64_t)&dram_src[gid * ROWS * 64]);
    measure_cacheops("prefetch-single", gid, minions, k, mhz, gid == 0,
            (uint64_t)&dram_src[gid * ROWS * 64]);
    if (gid == 0) {
        print("probe tload-bw done, tensor_error 0x%lx\n",
              csr_read(CSR_TENSOR_ERROR));
    }
    return csr_read(CSR_TENSOR_ERROR) != 0;
}
