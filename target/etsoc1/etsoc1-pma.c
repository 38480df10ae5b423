/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the minion's DRAM protection by its neighbourhood's
 * mprot ESR (isa.md section 2; the rules of Esperanto's simulator, which
 * docs/robustness.md describes).  mprot bits: [1:0] IO access mode, [2]
 * PCIe off, [3] OS box off, [5:4] DRAM size 8/16/24/32 GiB, [6] secure
 * memory.  The service processor's boot sets [6] (firmware-stubs/sp);
 * the reset value 0x13 does not.  An access the row does not allow is an
 * access fault, as a PMP violation is.  The shire flushes the TLBs of a
 * neighbourhood's harts when its mprot is written, so a page's rights are
 * asked once per TLB fill.
 *
 * Not checked here (docs/robustness.md): the IO and PCIe bits, the
 * uncacheable DRAM alias (0xC0_...; atomics and tensor operations through
 * it fault elsewhere), page-table walks (they ask as S-mode data reads:
 * the card refuses S-code to them too, satp is bare in Esperanto's
 * runtime), and the service processor, which is not a minion.
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "hw/etsoc1/etsoc1-minion.h"
#include "hw/etsoc1/etsoc1-shire.h"
#include "hw/etsoc1/trace.h"
#include "etsoc1-pma.h"

#define MPROT_OSBOX_OFF     (1u << 3)
#define MPROT_SECURE        (1u << 6)

#define M   (1u << PRV_M)
#define S   (1u << PRV_S)
#define U   (1u << PRV_U)
#define ALL (M | S | U)

/* One DRAM region: which privileges may read, write and fetch there. */
typedef struct Etsoc1PmaRow {
    uint64_t end;           /* offset in DRAM, exclusive; starts at the last */
    const char *name;
    uint8_t r, w, x;        /* sets of privileges (1 << PRV_*) */
    bool osbox;             /* closed to every privilege by mprot[3] */
} Etsoc1PmaRow;

/* mprot[6] set: the firmware's regions, as the card's secure boot sets */
static const Etsoc1PmaRow pma_secure[] = {
    { 2 * MiB,    "M-code",       M,     0,     M },
    { 8 * MiB,    "M-data",       M,     M,     0 },
    { 16 * MiB,   "S-code",       M | S, M,     S },
    { 64 * MiB,   "S-data",       M | S, M | S, 0 },
    { 4 * GiB,    "OS box",       ALL,   ALL,   U, true },
    { UINT64_MAX, "DRAM",         ALL,   ALL,   U },
};

/* mprot[6] clear (the reset value): the first 8 MiB are machine mode's */
static const Etsoc1PmaRow pma_open[] = {
    { 8 * MiB,    "M box",        M,     M,     M },
    { 4 * GiB,    "S and OS box", ALL,   ALL,   ALL, true },
    { UINT64_MAX, "DRAM",         ALL,   ALL,   ALL },
};

bool etsoc1_pma_check(CPURISCVState *env, hwaddr pa, int access_type,
                      int mode, int *prot)
{
    Etsoc1MinionCPU *cpu = etsoc1_minion_of(env_cpu(env));
    const Etsoc1PmaRow *row;
    uint64_t off = pa - etsoc1_memmap[ETSOC1_DRAM].base;
    unsigned mprot, neigh;
    uint8_t priv = 1u << mode;

    *prot = PAGE_READ | PAGE_WRITE | PAGE_EXEC;
    if (!cpu || !etsoc1_in(ETSOC1_DRAM, pa)) {
        return true;
    }
    neigh = etsoc1_hart(cpu) % ETSOC1_HARTS_PER_SHIRE /
            (2 * ETSOC1_MINIONS_PER_NEIGH);
    mprot = qatomic_read(&cpu->shire->mprot[neigh]);
    row = mprot & MPROT_SECURE ? pma_secure : pma_open;
    while (off >= row->end) {
        row++;
    }
    if (off >= (extract32(mprot, 4, 2) + 1) * 8 * GiB ||   /* [5:4]: size */
        (row->osbox && (mprot & MPROT_OSBOX_OFF))) {
        *prot = 0;
    } else {
        *prot = (row->r & priv ? PAGE_READ : 0) |
                (row->w & priv ? PAGE_WRITE : 0) |
                (row->x & priv ? PAGE_EXEC : 0);
    }
    if (*prot & (1 << access_type)) {
        return true;
    }
    trace_etsoc1_pma_fault(env->mhartid, pa, access_type, mode, mprot,
                           row->name);
    return false;
}
