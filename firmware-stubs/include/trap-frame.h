/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The frame both trap entries build (struct trap_frame in etsoc1.h), for
 * assembler files: x1..x31 at 8 * n (slot 2, the interrupted sp, is the
 * entry's to fill), mcause at 256, mepc at 264, mtval at 272.
 */
#ifndef ETSOC1_TRAP_FRAME_H
#define ETSOC1_TRAP_FRAME_H

#define TRAP_FRAME_SIZE 288     /* 280, rounded up to keep sp 16-aligned */

/* Save every register but sp, and the trap CSRs; t0 is free afterwards. */
.macro trap_frame_save
    .irp n,1,3,4,5,6,7,8,9,10,11,12,13,14,15,16
    sd      x\n, (\n*8)(sp)
    .endr
    .irp n,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    sd      x\n, (\n*8)(sp)
    .endr
    csrr    t0, mcause
    sd      t0, 256(sp)
    csrr    t0, mepc
    sd      t0, 264(sp)
    csrr    t0, mtval
    sd      t0, 272(sp)
.endm

/* handler(frame); it may change frame->mepc, where mret resumes. */
.macro trap_frame_call handler
    mv      a0, sp
    call    \handler
    ld      t0, 264(sp)
    csrw    mepc, t0
.endm

/* Restore every register but sp. */
.macro trap_frame_restore
    .irp n,1,3,4,5,6,7,8,9,10,11,12,13,14,15,16
    ld      x\n, (\n*8)(sp)
    .endr
    .irp n,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    ld      x\n, (\n*8)(sp)
    .endr
.endm

#endif
