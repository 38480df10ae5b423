/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/counters: hart 0 runs LOOP_N iterations of a 4-instruction ALU
 * loop (addi; xor; addi; bnez), or with -DBODY16 the same plus 12 ALU
 * instructions, then ends the run (validation1 EOT); the others halt.
 */
#include "alu-loop.h"

    .section .text.start, "ax"
    .globl _start
_start:
    csrr    t0, mhartid
    bnez    t0, 2f
    alu_loop
    li      t0, (1 << 56) | 4
    csrw    0x8d1, t0
2:  wfi
    j       2b
