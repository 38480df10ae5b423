/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/isa: hart 0 runs one of three loops (selected at build time),
 * each N iterations, and ends the run.  The harness times them.
 *   scalar: 8 scalar FP adds per iteration
 *   packed: 8 packed FP adds (64 lane operations) per iteration
 *   tfma:   one 16x16x16 fp32 TensorFMA (4,096 multiply-adds)
 */
#include "etsoc1.h"
#include "et-vpu.h"

static uint32_t a[16][16] __attribute__((aligned(64)));

int main(uint64_t hartid, const void *fdt)
{
    unsigned long i;

    if (hartid != 0) {
        return 0;
    }
#if defined(BENCH_TFMA)
    for (i = 0; i < 256; i++) {
        a[i / 16][i % 16] = 0x3f800000 + i * 0x1234;    /* no zero skips */
    }
    csr_write(0x7e0, 1);
    csr_write(0x7e0, 3);
    {
        register uint64_t x31 __asm__("x31") = 64;
        __asm__ volatile("csrw 0x83f, %0" :: "r"((uint64_t)a | 15), "r"(x31));
        __asm__ volatile("csrw 0x83f, %0"
                         :: "r"(16ULL << 53 | (uint64_t)a | 15), "r"(x31));
    }
    for (i = 0; i < BENCH_N; i++) {
        csr_write(0x801, 3ULL << 55 | 15ULL << 51 | 15ULL << 47 |
                         16ULL << 12 | 1);
    }
#else
    set_m0(0xff);
    for (i = 0; i < BENCH_N; i++) {
#if defined(BENCH_PACKED)
        __asm__ volatile("fadd.ps f1, f1, f2"); __asm__ volatile("fadd.ps f3, f3, f4");
        __asm__ volatile("fadd.ps f5, f5, f6"); __asm__ volatile("fadd.ps f7, f7, f8");
        __asm__ volatile("fadd.ps f1, f1, f2"); __asm__ volatile("fadd.ps f3, f3, f4");
        __asm__ volatile("fadd.ps f5, f5, f6"); __asm__ volatile("fadd.ps f7, f7, f8");
#else
        __asm__ volatile("fadd.s f1, f1, f2\n fadd.s f3, f3, f4\n"
                         "fadd.s f5, f5, f6\n fadd.s f7, f7, f8\n"
                         "fadd.s f1, f1, f2\n fadd.s f3, f3, f4\n"
                         "fadd.s f5, f5, f6\n fadd.s f7, f7, f8\n");
#endif
    }
#endif
    (void)a;
    return 0;
}
