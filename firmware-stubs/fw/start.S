/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Minion firmware entry for every hart (docs/firmware.md).  Each hart gets
 * a 4 KiB M-mode stack whose top also sits in mscratch: a trap from
 * U-mode swaps to it.  fw_main(hartid) picks the role.
 */
#include "trap-frame.h"
#include "fw-frame.h"

#define STACK_SHIFT 12

    .section .text.start, "ax"
    .globl _start
_start:
    csrr    a0, mhartid
    call    stack_top
    mv      sp, a0
    csrw    mscratch, a0
    la      t0, fw_trap_entry
    csrw    mtvec, t0
    li      t0, (1 << 13)           /* mstatus.FS = Initial */
    csrs    mstatus, t0
    csrwi   fcsr, 0
    csrwi   0x7d2, 1                /* menable_shadows: hartid CSR in U */
    csrr    a0, mhartid
    call    fw_main
1:  wfi
    j       1b

/* a0 = hartid -> a0 = top of its M-mode stack; uses t0 only */
stack_top:
    la      t0, __stacks
    addi    a0, a0, 1
    slli    a0, a0, STACK_SHIFT
    add     a0, a0, t0
    ret

/*
 * fw_restart(fn): drop whatever the hart was doing, reset its stack and
 * mscratch, and run fn() (which does not return).
 */
    .globl fw_restart
fw_restart:
    mv      s1, a0
    csrr    a0, mhartid
    call    stack_top
    mv      sp, a0
    csrw    mscratch, a0
    jr      s1

/*
 * enter_umode(entry, a0, a1, sp): run a kernel in U-mode with the
 * registers Esperanto's compute kernels expect: a0 = arguments, a1 =
 * kernel environment, sp below a 32-byte frame whose saved ra is 0, gp and
 * the rest zero.  The M-mode context is not kept: the kernel's end comes
 * back through a trap and fw_restart.
 */
    .globl enter_umode
enter_umode:
    csrw    mepc, a0
    li      t0, (3 << 11)           /* mstatus.MPP = U */
    csrc    mstatus, t0
    li      t0, (1 << 7)            /* MPIE */
    csrs    mstatus, t0
    mv      s0, a3
    addi    sp, a3, -32
    sd      zero, 24(sp)            /* ra of the frame */
    sd      s0, 16(sp)
    mv      a0, a1
    mv      a1, a2
    li      ra, 0
    li      gp, 0
    li      tp, 0
    .irp r,t0,t1,t2,s1,a2,a3,a4,a5,a6,a7,t3,t4,t5,t6
    li      \r, 0
    .endr
    .irp r,s2,s3,s4,s5,s6,s7,s8,s9,s10,s11
    li      \r, 0
    .endr
    fence.i
    mret

/*
 * Trap entry: swap to the M-mode stack (mscratch), save every register,
 * call fw_trap(frame).  If it returns, restore and resume at frame->mepc.
 * The frame: trap-frame.h, then struct fw_frame (fw.h).
 *
 * mcycle and minstret are read first (after the 3 instructions that free
 * t0; FW_ENTRY_INSNS counts what precedes the second read).  A trap that
 * fw_trap marks hidden (an IPI the kernel must not see: the watchdog's
 * look, a late launch IPI) writes them back at the end, less the fixed
 * tail that follows each write, so the kernel's counters read as if the
 * trap had not happened (docs/firmware.md, launch watchdog).  Keep the
 * tail in step with FW_TAIL_*_AFTER_* in fw.h.
 */
    .align 4
    .globl fw_trap_entry
fw_trap_entry:
    csrrw   sp, mscratch, sp
    addi    sp, sp, -FW_FRAME_SIZE
    sd      t0, 40(sp)              /* x5 */
    csrr    t0, mcycle
    sd      t0, FW_CYC_IN(sp)
    csrr    t0, minstret
    sd      t0, FW_INS_IN(sp)
    ld      t0, 40(sp)
    trap_frame_save
    sd      zero, FW_HIDE(sp)
    csrr    t0, mscratch
    sd      t0, 16(sp)              /* the interrupted sp */
    trap_frame_call fw_trap
    addi    t0, sp, FW_FRAME_SIZE
    csrw    mscratch, t0
    ld      t0, FW_HIDE(sp)
    beqz    t0, 1f
    ld      t0, FW_INS_OUT(sp)
    csrw    minstret, t0            /* then 34 insns: FW_TAIL_INSNS */
    ld      t0, FW_CYC_OUT(sp)
    csrw    mcycle, t0              /* then 31 loads and mret */
1:  trap_frame_restore
    ld      sp, 16(sp)
    mret
