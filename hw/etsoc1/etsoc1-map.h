/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: topology and physical memory map (isa.md sections 1-2,
 * docs/memory-map.md).  Plain constants and address arithmetic, shared by
 * every unit, the device models that are not minion code among them; no
 * target header.
 */

#ifndef HW_ETSOC1_MAP_H
#define HW_ETSOC1_MAP_H

#include "qemu/units.h"
#include "exec/hwaddr.h"
#include "hw/boards.h"

/* Topology (isa.md section 1). */
#define ETSOC1_MAX_SHIRES        34     /* compute 0-31, master 32, spare 33 */
#define ETSOC1_NEIGHS_PER_SHIRE  4
#define ETSOC1_MINIONS_PER_NEIGH 8
#define ETSOC1_MINIONS_PER_SHIRE 32
#define ETSOC1_THREADS           2
#define ETSOC1_HARTS_PER_SHIRE   64
#define ETSOC1_HARTS_PER_NEIGH   16
#define ETSOC1_MAX_HARTS         (ETSOC1_MAX_SHIRES * ETSOC1_HARTS_PER_SHIRE)
#define ETSOC1_LOCAL_SHIRE       0xff   /* ESR shire field: "my shire" */
#define ETSOC1_SCP_LOCAL_SHIRE   0x7f   /* L2 SCP format-0 shire field */

/* minion_boot at reset (sysemu esrs.cpp, RESET_PC). */
#define ETSOC1_DEFAULT_RESET_PC  0x8000001000ULL

/* Physical memory map (isa.md section 2); etsoc1_memmap[] in etsoc1.c. */
enum {
    ETSOC1_MAXION,
    ETSOC1_PU_IO,
    ETSOC1_PU_UART0,
    ETSOC1_PU_UART1,
    ETSOC1_PU_MBOX,
    ETSOC1_SP,
    ETSOC1_SCP,         /* format 0: one 8 MiB window per shire */
    ETSOC1_SCP_LINEAR,  /* format 1: 64-byte lines interleaved over shires */
    ETSOC1_ESR,
    ETSOC1_PCIE,
    ETSOC1_DRAM,
    ETSOC1_DRAM_UC,     /* uncacheable alias of DRAM */
    ETSOC1_PU_PLIC,     /* interrupts of the master shire */
    ETSOC1_SP_SRAM,     /* the service processor's code and data */
    ETSOC1_SP_PLIC,
    ETSOC1_SP_UART0,
    ETSOC1_PU_TIMER_REGS,
};
extern const MemMapEntry etsoc1_memmap[];

/* Is physical address @pa in region @region of etsoc1_memmap? */
static inline bool etsoc1_in(int region, hwaddr pa)
{
    return pa - etsoc1_memmap[region].base < etsoc1_memmap[region].size;
}

#define ETSOC1_SCP_WINDOW        (8 * MiB)  /* address space per shire */
#define ETSOC1_SCP_SIZE          (4 * MiB)  /* SRAM behind each window */

/* The shire whose format-0 scratchpad window holds @pa (in ETSOC1_SCP) */
static inline unsigned etsoc1_scp_shire(hwaddr pa)
{
    return (pa - etsoc1_memmap[ETSOC1_SCP].base) / ETSOC1_SCP_WINDOW;
}
#define ETSOC1_ESR_PP_SHIFT      30
#define ETSOC1_ESR_SHIRE_SHIFT   22
#define ETSOC1_ESR_WINDOW        (4 * MiB)  /* one shire at one PP */
#define ETSOC1_MEMSHIRE_FIRST    232
#define ETSOC1_MEMSHIRES         8
/* the mesh's directed links: four out of each cell of its 6x6 map */
#define ETSOC1_MESH_LINKS        (6 * 6 * 4)
#define ETSOC1_IO_SHIRE          254

/* ESR address of register @off of @shire at privilege @pp. */
#define ETSOC1_ESR_ADDR(pp, shire, off) \
    (0x100000000ULL | ((uint64_t)(pp) << ETSOC1_ESR_PP_SHIFT) | \
     ((uint64_t)(shire) << ETSOC1_ESR_SHIRE_SHIFT) | (off))

/* Privilege levels as encoded in ESR address bits [31:30]. */
enum {
    ETSOC1_PP_U = 0,
    ETSOC1_PP_S = 1,
    ETSOC1_PP_DEBUG = 2,    /* reachable by the service processor only */
    ETSOC1_PP_M = 3,
};

/* Local interrupts beyond the standard ones (isa.md section 3). */
#define ETSOC1_IRQ_BAD_IPI_REDIRECT 16
#define ETSOC1_IRQ_ICACHE_ECC       19
#define ETSOC1_IRQ_BUS_ERROR        23
#define ETSOC1_LOCAL_IRQS ((1ULL << ETSOC1_IRQ_BAD_IPI_REDIRECT) | \
                           (1ULL << ETSOC1_IRQ_ICACHE_ECC) | \
                           (1ULL << ETSOC1_IRQ_BUS_ERROR))

/* map cells of the non-compute shires (beside shire ids 32 and 33) */
#define ETSOC1_MASTER_SHIRE 32
#define ETSOC1_SPARE_SHIRE  33
#define ETSOC1_PCIE_CELL    34
#define ETSOC1_IO_CELL      35

#define ETSOC1_L3_SLICES 32
#define ETSOC1_LINE      64     /* bytes in a cache line */

/* Home slice of a physical line, and the memory shire behind it. */
static inline unsigned etsoc1_l3_home(hwaddr pa)
{
    return extract64(pa, 6, 5);
}

static inline unsigned etsoc1_memshire_of(hwaddr pa)
{
    return extract64(pa, 6, 3);
}

#endif
