/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the SP found at boot, handed to the master minion in DRAM below the
 * minion image (0x80_0000_0000, unused by anything else): the SP probes,
 * the minions need not.
 */
#ifndef ETSOC1_BOOTINFO_H
#define ETSOC1_BOOTINFO_H

#include "card.h"

#define BOOTINFO            DRAM_START
#define BOOTINFO_MAGIC      0x4f464e49544f4f42ULL   /* "BOOTINFO" */
#define BOOTINFO_DRAM_END   8
#define BOOTINFO_SHIRES     16

static inline void bootinfo_publish(uint64_t dram_end, uint32_t shires)
{
    wr64(BOOTINFO + BOOTINFO_DRAM_END, dram_end);
    wr64(BOOTINFO + BOOTINFO_SHIRES, shires);
    __asm__ volatile("fence" ::: "memory");
    wr64(BOOTINFO, BOOTINFO_MAGIC);
}

#endif
