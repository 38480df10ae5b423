/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One hart faults, every other one spins: the firmware must stop the
 * spinning harts and answer the launch with an exception.
 */
#include <stdint.h>

int64_t entry_point(void);

int64_t entry_point(void)
{
    uint64_t hart;

    __asm__ volatile("csrr %0, 0xcd0" : "=r"(hart));   /* hartid */
    if (hart % 64 == 5) {
        __asm__ volatile(".4byte 0");
    }
    for (;;) {
        __asm__ volatile("");
    }
    return 0;
}
