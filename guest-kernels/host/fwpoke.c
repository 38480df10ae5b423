/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A kernel bug that would overwrite the firmware: hart 0 of each shire
 * stores to the address it is launched with (a0), the others return.  On
 * the card secure memory (mprot, set by the service processor) makes a
 * U-mode store below the OS box (0x80_0400_0000) a store access fault,
 * and the launch is answered with an exception (docs/firmware.md).
 */
#include <stdint.h>

int64_t entry_point(uint64_t addr);

int64_t entry_point(uint64_t addr)
{
    uint64_t hart;

    __asm__ volatile("csrr %0, 0xcd0" : "=r"(hart));   /* hartid */
    if (hart % 64 == 0) {
        *(volatile uint64_t *)addr = 0x5eedbad;
    }
    return 0;
}
