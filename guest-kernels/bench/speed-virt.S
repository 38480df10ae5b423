/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/virt: the loop of speed.S (alu-loop.h) on upstream QEMU's `virt`
 * machine, for the same binary's rate with and without the ET-SoC-1
 * model.  Every hart runs LOOP_N iterations, then counts itself done;
 * the last of NHARTS ends the run through the test device (sifive_test:
 * 0x5555 passes).
 */
#define VIRT_TEST 0x100000

#include "alu-loop.h"

    .section .text.start, "ax"
    .globl _start
_start:
    alu_loop
    la      t0, done
    li      t1, 1
    amoadd.w t1, t1, (t0)
    li      t2, NHARTS - 1
    bne     t1, t2, 2f
    li      t0, VIRT_TEST
    li      t1, 0x5555
    sw      t1, 0(t0)
2:  wfi
    j       2b

    .data
    .balign 64
done:
    .word   0
