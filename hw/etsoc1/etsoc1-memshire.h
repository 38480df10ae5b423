/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1 memory shires: the DRAM behind the L3 (isa.md
 * section 11), as a unit that passes one line at a time (docs/timing.md,
 * "TensorLoads from DRAM").  Timing state only: QEMU's RAM holds the data.
 */

#ifndef HW_ETSOC1_MEMSHIRE_H
#define HW_ETSOC1_MEMSHIRE_H

#include "hw/sysbus.h"

/*
 * QEMU interface ("etsoc1-memshire", ETSOC1_MEMSHIRES of them, created by
 * the machine as /machine/memshire[i]):
 *  + property "index": its place, the memory shire of the lines with
 *    PA[8:6] = @index
 * Its pace is the timing table's dram.line; etsoc1_tload_dram (fabric)
 * books it under the machine's port_lock.
 */
#define TYPE_ETSOC1_MEMSHIRE "etsoc1-memshire"
/* dram.line is not a whole number of cycles: 1/1024 of a minion cycle */
#define ETSOC1_MEMSHIRE_FX 1024
OBJECT_DECLARE_SIMPLE_TYPE(Etsoc1MemShireState, ETSOC1_MEMSHIRE)

struct Etsoc1MemShireState {
    SysBusDevice parent_obj;

    uint32_t index;
    /* when its DRAM can next pass a line, in ETSOC1_MEMSHIRE_FX units */
    uint64_t dram_free;
};

/*
 * Memory shire @s's DRAM passes @lines lines that reach it at @at (minion
 * cycles), @line cycles each, after those it took before; returns how
 * long they waited.  The caller orders the requests (the gate: requests
 * that may reach DRAM go one at a time, etsoc1_dram_gate) and holds the
 * machine's port_lock.
 */
uint64_t etsoc1_memshire_take(Etsoc1MemShireState *s, uint64_t at,
                              unsigned lines, double line);

#endif
