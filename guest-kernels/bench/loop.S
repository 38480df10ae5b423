/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/counters: hart 0 runs LOOP_N iterations of a 4-instruction ALU
 * loop (addi; xor; addi; bnez), or with -DBODY16 the same plus 12 ALU
 * instructions, then ends the run (validation1 EOT); the others halt.
 */
    .section .text.start, "ax"
    .globl _start
_start:
    csrr    t0, mhartid
    bnez    t0, 2f
    li      t1, LOOP_N
1:  addi    t1, t1, -1
    xor     t2, t2, t1
#ifdef BODY16
    .rept 12
    xor     t4, t4, t1
    .endr
#endif
    addi    t3, t3, 1
    bnez    t1, 1b
    li      t0, (1 << 56) | 4
    csrw    0x8d1, t0
2:  wfi
    j       2b
