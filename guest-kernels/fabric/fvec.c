/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * All eight lanes travel: minion 0 sends f4-f5 to minion 1, which adds
 * them into f8-f9 (iadd), waits for the transfer and stops at fvec_done().
 * The harness fills the registers through gdb before the run and reads
 * them back there; then a scalar write to f9 must clear its lanes 1-7.
 */
#include "etsoc1.h"

void __attribute__((noinline)) fvec_done(void)
{
    __asm__ volatile("" ::: "memory");
}

void __attribute__((noinline)) fvec_scalar_done(void)
{
    __asm__ volatile("" ::: "memory");
}

int main(uint64_t hartid, const void *fdt)
{
    if (hartid == 0) {
        tensor_send(1, 4, 2);
    } else if (hartid == 2) {
        tensor_recv(0, 8, 2, TR_IADD);
        csr_write(0x830, 9);        /* tensor_wait: the transfer is done */
        fvec_done();
        FREG_SET(9, 0x3f800000);    /* a scalar F write: lanes 1-7 -> 0 */
        fvec_scalar_done();
    }
    return 0;
}
