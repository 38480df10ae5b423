/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Faults in U-mode: a store to address 0, as Esperanto's exception kernel
 * does; the Maxion region there answers a minion with a bus error, so
 * this is a store access fault (mcause 7).  The instruction after it is
 * illegal everywhere (all zeros), should the store ever pass.
 */
#include <stdint.h>

int64_t entry_point(void);

int64_t entry_point(void)
{
    volatile uint64_t *null;

    /* opaque to gcc, which would otherwise replace the store by ebreak */
    __asm__ volatile("li %0, 0" : "=r"(null));
    *null = 0xdeadbeef;
    __asm__ volatile(".4byte 0");
    return 0;
}
