/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reset entry of every hart: a0 = mhartid, a1 = device tree (machine boot
 * protocol).  Sets up a per-hart stack and the trap vector, enables the FPU,
 * and calls main(hartid, fdt).  main's return value becomes the hart's
 * verdict through the validation0 CSR: 0 = PASS (the hart stops; the run
 * ends when every hart has passed), anything else = FAIL (the run ends
 * with exit status 1).  .bss is not cleared: the ELF loader zero-fills it.
 */
#include "trap-frame.h"

#define STACK_SHIFT 12

    .section .text.start, "ax"
    .globl _start
_start:
    csrr    a0, mhartid
    la      sp, __stacks
    addi    t0, a0, 1
    slli    t0, t0, STACK_SHIFT
    add     sp, sp, t0
    la      t0, trap_entry
    csrw    mtvec, t0
    li      t0, (1 << 13)           /* mstatus.FS = Initial */
    csrs    mstatus, t0
    csrwi   fcsr, 0
    /* thread 1 parked? */
    andi    t0, a0, 1
    beqz    t0, 1f
    la      t1, etsoc1_park_thread1
    lw      t1, 0(t1)
    bnez    t1, pass
1:  call    main
    bnez    a0, failed
pass:
    fence
    li      t0, 0x1feed000
    csrw    0x8d0, t0               /* validation0 = PASS: this hart stops */
    j       pass
failed:
    fence
    li      t0, 0x50bad000
    csrw    0x8d0, t0               /* validation0 = FAIL: the run ends */
    j       failed

/* Save every register, call trap_handler(frame), restore, mret. */
    .align 4
    .globl trap_entry
trap_entry:
    addi    sp, sp, -TRAP_FRAME_SIZE
    trap_frame_save
    addi    t0, sp, TRAP_FRAME_SIZE
    sd      t0, 16(sp)              /* the interrupted sp */
    trap_frame_call trap_handler
    trap_frame_restore
    addi    sp, sp, TRAP_FRAME_SIZE
    mret
