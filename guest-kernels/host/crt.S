/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * U-mode entry of a compute kernel (docs/firmware.md, kernel ABI): the
 * firmware sets sp, a0 = arguments, a1 = kernel environment.  The return
 * value goes back with ecall SYSCALL_RETURN_FROM_KERNEL (a0 = 8,
 * a1 = value, a2 = KERNEL_RETURN_SUCCESS 0), as Esperanto's kernels do.
 */
    .section .text.init, "ax"
    .globl _start
_start:
.option push
.option norelax
    la      gp, __global_pointer$
.option pop
    call    entry_point
    mv      a1, a0
    li      a2, 0
    li      a0, 8
    ecall
1:  j       1b
