/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Faults in U-mode: a store to address 0, then an illegal instruction. */
#include <stdint.h>

int64_t entry_point(void);

int64_t entry_point(void)
{
    *(volatile uint64_t *)0 = 0xdeadbeef;
    __asm__ volatile("unimp");
    return 0;
}
