/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Service-processor stub entry: one plain RV64 hart in M-mode.  A stack,
 * a trap vector that reports and stops, the FPU on, then sp_main().
 */
    .section .text.start, "ax"
    .globl _start
_start:
    la      sp, __stack_top
    la      t0, sp_trap_entry
    csrw    mtvec, t0
    li      t0, (1 << 13)           /* mstatus.FS = Initial */
    csrs    mstatus, t0
    call    sp_main
1:  wfi
    j       1b

    .align 4
sp_trap_entry:
    csrr    a0, mcause
    csrr    a1, mepc
    csrr    a2, mtval
    call    sp_trap
1:  wfi
    j       1b
