/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/mem: hart 0 runs one memory loop LOOP_N times, then ends the run
 * (validation1 EOT); the others halt.
 *   -DL1      a load, an add and a store per 8 bytes of a 1 KiB buffer
 *             (16 lines): every access stays in the L1
 *   -DSTREAM  a load per 8 bytes of a 16 MiB buffer in DRAM: one L1 miss
 *             in 8 loads, every line from DRAM (the L2 holds 0.5 MiB)
 */
#define BUF     0x8020000000
#ifdef L1
#define BYTES   1024
#else
#define BYTES   (16 << 20)
#endif
    .section .text.start, "ax"
    .globl _start
_start:
    csrr    t0, mhartid
    bnez    t0, 3f
    li      t1, LOOP_N
1:  li      a0, BUF
    li      t5, BYTES / 8
2:  ld      t2, 0(a0)
#ifdef L1
    add     t2, t2, t1
    sd      t2, 0(a0)
#endif
    addi    a0, a0, 8
    addi    t5, t5, -1
    bnez    t5, 2b
    addi    t1, t1, -1
    bnez    t1, 1b
    li      t0, (1 << 56) | 4
    csrw    0x8d1, t0
3:  wfi
    j       3b
