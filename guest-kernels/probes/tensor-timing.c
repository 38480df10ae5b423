/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tensor unit timing probes (timing.md section 5), on hart 0, each timed
 * with the hart's own cycle counter, median of REPS after a warm-up:
 *
 *  tfma-alone       one full-size TensorFMA, then tensor_wait 7
 *  tfma-pipelined   per TensorFMA of PIPE issued back to back
 *  tfma-masked      fp32 alone with tensor_mask 0x5555 (timing.md: no
 *                   time change)
 *  tfma-zero        fp32 alone with A all +0.0 (zero skip: no change)
 *  tload-l2         TensorLoad of 16/8/4 rows from the L2 scratchpad
 *  tload-dram       TensorLoad of 16/8/4/1 rows from DRAM
 */
#include "probe.h"

#define REPS 5
#define PIPE 16

static uint32_t dram_buf[16][16] __attribute__((aligned(64)));
static uint32_t zeros[16][16] __attribute__((aligned(64)));

/* 16 rows x 16 passes, B of 16 columns from line 16; type 0/1/3 */
static uint64_t tfma_full(unsigned type)
{
    return 3ULL << 55 | 15ULL << 51 | 15ULL << 47 | 16ULL << 12 |
           (uint64_t)type << 1 | 1;
}

/* A (lines 0-15) and B (lines 16-31) from @a and @b, 16 rows each */
static void load_ab(const void *a, const void *b)
{
    csr_write_x31(0x83f, (uint64_t)a | 15, 64);
    csr_write_x31(0x83f, 16ULL << 53 | (uint64_t)b | 15, 64);
    csr_write(0x830, 0);
}

static uint64_t time_fma(uint64_t ctl, unsigned n)
{
    uint64_t t[REPS + 1], t0;
    unsigned k, i;

    for (k = 0; k <= REPS; k++) {
        t0 = cycles();
        for (i = 0; i < n; i++) {
            csr_write_x31(0x801, ctl, 0);
        }
        csr_write(0x830, 7);
        t[k] = cycles() - t0;
    }
    return median(t + 1, REPS) / n;
}

static uint64_t time_load(uint64_t src, unsigned rows)
{
    uint64_t t[REPS + 1], t0;
    unsigned k;

    for (k = 0; k <= REPS; k++) {
        t0 = cycles();
        csr_write_x31(0x83f, (src & 0xffffffffffc0ULL) | (rows - 1), 64);
        csr_write(0x830, 0);
        t[k] = cycles() - t0;
    }
    return median(t + 1, REPS);
}

int main(uint64_t hartid, const void *fdt)
{
    static const char *const name[4] = { "fp32", "fp16", "", "int8" };
    static const unsigned types[] = { 0, 1, 3 };
    static const unsigned l2_rows[] = { 16, 8, 4 }, dram_rows[] = { 16, 8, 4, 1 };
    unsigned i;

    if (hartid != 0) {
        return 0;
    }
    csr_write(0x7e0, 1);
    csr_write(0x7e0, 3);                /* L1 scratchpad on */
    for (i = 0; i < 16 * 16; i++) {
        dram_buf[i / 16][i % 16] = 0x3f800000;      /* 1.0f */
    }
    load_ab(dram_buf, dram_buf);
    for (i = 0; i < 3; i++) {
        print("probe tfma-alone %s cycles=%lu\n", name[types[i]],
              time_fma(tfma_full(types[i]), 1));
        print("probe tfma-pipelined %s cycles=%lu\n", name[types[i]],
              time_fma(tfma_full(types[i]), PIPE));
    }
    csr_write(0x805, 0x5555);                       /* tensor_mask */
    print("probe tfma-masked fp32 cycles=%lu\n",
          time_fma(1ULL << 63 | tfma_full(0), 1));
    load_ab(zeros, dram_buf);
    print("probe tfma-zero fp32 cycles=%lu\n", time_fma(tfma_full(0), 1));
    for (i = 0; i < 3; i++) {
        print("probe tload-l2 rows=%u cycles=%lu\n", l2_rows[i],
              time_load(SCP_LOCAL, l2_rows[i]));
    }
    for (i = 0; i < 4; i++) {
        print("probe tload-dram rows=%u cycles=%lu\n", dram_rows[i],
              time_load((uint64_t)dram_buf, dram_rows[i]));
    }
    print("probe tensor done\n");
    return 0;
}
