/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A TensorFMA in flight across a migration (run with poll-halt=on):
 * hart 0 issues a full-size fp32 TensorFMA, polls tfma_flag with amoorg.d
 * (halted: no cycles pass while it waits), then reads f0, which waits for
 * the tensor unit (its f registers are busy until it is done).  Hart 2
 * spins on the flag with plain loads, so hart 0 is not alone and its poll
 * halts without running bursts.  The harness migrates the run while hart 0
 * polls, writes the flag through gdb on the destination, and checks that
 * "tfma-migrate cycles=N" is the same as without the migration.
 */
#include "probe.h"
#include "et-atomic.h"

static uint32_t ones[16][16] __attribute__((aligned(64)));
volatile uint64_t tfma_flag __attribute__((aligned(64)));

int main(uint64_t hartid, const void *fdt)
{
    uint64_t t0, t1;
    uint32_t f0;
    unsigned i;

    if (hartid == 2) {
        while (!tfma_flag) {
        }
        return 0;
    }
    if (hartid != 0) {
        return 0;
    }
    csr_write(0x7e0, 1);
    csr_write(0x7e0, 3);                /* L1 scratchpad on */
    for (i = 0; i < 16 * 16; i++) {
        ones[i / 16][i % 16] = 0x3f800000;      /* 1.0f */
    }
    csr_write_x31(0x83f, (uint64_t)ones | 15, 64);          /* A */
    csr_write_x31(0x83f, 16ULL << 53 | (uint64_t)ones | 15, 64);   /* B */
    csr_write(0x830, 0);
    et_amoorg_d(&tfma_flag, 0);         /* the flag's line in its slice */
    t0 = cycles();
    /* 16 rows x 16 passes of fp32, B from line 16 */
    csr_write_x31(0x801, 3ULL << 55 | 15ULL << 51 | 15ULL << 47 |
                  16ULL << 12 | 1, 0);
    while (!et_amoorg_d(&tfma_flag, 0)) {
    }
    __asm__ volatile("fmv.x.w %0, f0" : "=r"(f0));
    t1 = cycles();
    print("tfma-migrate cycles=%lu f0=0x%x\n", t1 - t0, f0);
    return 0;
}
