/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The first instruction any hart runs ends the run (validation1 EOT). */
    .section .text.start, "ax"
    .globl _start
_start:
    li      t0, (1 << 56) | 4
    csrw    0x8d1, t0
1:  j       1b
