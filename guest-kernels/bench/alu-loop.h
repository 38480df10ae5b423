/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The 4-instruction ALU loop (addi; xor; addi; bnez) of bench/counters,
 * bench/speed and bench/virt, LOOP_N iterations counted in t1; with
 * -DBODY16, 12 more ALU instructions in the body.  One copy, so that the
 * benches (and the two machines bench/virt compares) run the same loop.
 */
.macro alu_loop
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
.endm
