/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/speed and the speed test (tests/etsoc1test/speed.py): every hart
 * runs LOOP_N iterations of the 4-instruction ALU loop (alu-loop.h), then
 * stops itself (validation0 = 0x1feed000); the run ends with status 0
 * when every hart has.  LOOP_N=1 is the start-to-exit of a full chip.
 */
#include "alu-loop.h"

    .section .text.start, "ax"
    .globl _start
_start:
    alu_loop
    li      t0, 0x1feed000
    csrw    0x8d0, t0
2:  wfi
    j       2b
