/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cache model's tags across a migration (run with poll-halt=on;
 * tests/migrate_tests.py): hart 0 brings a 32-line chain into its L1
 * (two lines of it soft-locked with lock_va, one left dirty) after a
 * 1,024-line chain, which stays in its copy of the shire's L2; it polls
 * cache_flag with amoorg.d (halted: no cycles pass while it waits), then
 * chases both chains and flushes the dirty line:
 *
 *   cache-migrate l1=A l2=B flush=C
 *
 * A, B: mcycle across a pass of each chain; C across the flush_va of
 * the dirty line to the L2 and its tensor_wait.  The harness migrates
 * the run while hart 0 polls and checks that the figures are those of a
 * run without the migration: the tags, locks and dirty bits came along.
 * Hart 2 spins on the flag with plain loads, so that hart 0's poll halts
 * without running bursts.
 */
#include "probe.h"
#include "et-atomic.h"

#define LINE 64
#define SMALL (DRAM_BASE + (64ULL << 20))
#define BIG (DRAM_BASE + (72ULL << 20))

/* written by gdb, read by hart 2's plain loads: volatile, in memory */
volatile uint64_t cache_flag __attribute__((aligned(64)));

int main(uint64_t hartid, const void *fdt)
{
    uint64_t small, big, a, b, c;

    if (hartid == 2) {
        while (!cache_flag) {
        }
        return 0;
    }
    if (hartid != 0) {
        return 0;
    }
    big = probe_chain(BIG, 1024, LINE);
    probe_chase(big, 1024);
    probe_chase(big, 1024);             /* now in the L2 only */
    csr_write_x31(0x8df, SMALL | 1, LINE);      /* lock_va of 2 lines */
    small = probe_chain(SMALL, 32, LINE);
    probe_chase(small, 32);
    *(volatile uint64_t *)(SMALL + 31 * LINE + 8) = 1;  /* dirty */
    et_amoorg_d(&cache_flag, 0);        /* the flag's line in its slice */
    while (!et_amoorg_d(&cache_flag, 0)) {
    }
    a = probe_chase(small, 32);
    b = probe_chase(big, 1024);
    c = cycles();
    csr_write(0x8bf, 1ULL << 58 | (SMALL + 31 * LINE));
    csr_write(0x830, 6);
    c = cycles() - c;
    print("cache-migrate l1=%lu l2=%lu flush=%lu\n", a, b, c);
    return 0;
}
