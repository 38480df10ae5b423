/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: a minion shire (etsoc1-shire.c, docs/esr.md).
 *
 * QEMU interface of a shire ("etsoc1-shire", one per minion shire):
 *  + property "shire-id"
 *  + 64 child harts "hart[N]" of type etsoc1-minion-riscv-cpu
 *  + MMIO: esr[pp] for pp = 0..3, 4 MiB each (the shire's ESR space at
 *    privilege pp), and scp, its L2 scratchpad RAM
 */

#ifndef HW_ETSOC1_SHIRE_H
#define HW_ETSOC1_SHIRE_H

#include "hw/sysbus.h"
#include "hw/etsoc1/etsoc1-minion.h"
#include "hw/etsoc1/etsoc1-l3.h"
#include "hw/etsoc1/etsoc1-tensor.h"
#include "hw/etsoc1/etsoc1-fabric.h"

typedef struct Etsoc1MachineState Etsoc1MachineState;

/*
 * What a minion has that is neither hart's own: both threads share it.
 * Reset and migrated as a unit (etsoc1_minion_state_reset,
 * vmstate_etsoc1_minion): a new per-minion field goes here only.
 */
typedef struct Etsoc1MinionState {
    Etsoc1Reduce reduce;        /* tensor_reduce, issued by thread 0 */
    uint8_t menable_shadows;
    uint8_t cache_ctl;          /* mcache_control */
    uint16_t ucache_ctl;        /* ucache_control's own fields */
    uint32_t l1_gen;            /* mode changes: the harts drop their tags */
    uint8_t l1scp[ETSOC1_L1SCP_LINES][64];  /* L1 scratchpad */
    uint32_t tenc[32 * ETSOC1_FLANES];      /* int8 TensorFMA accumulators */
    /* TenB: B operand lines of one TensorFMA, and how many are loaded */
    uint8_t tenb[16][64];
    uint8_t tenb_rows;
} Etsoc1MinionState;

/* The ESR space of one shire seen at one privilege level. */
typedef struct Etsoc1EsrWindow {
    MemoryRegion mr;
    Etsoc1ShireState *shire;
    uint8_t pp;
} Etsoc1EsrWindow;

#define TYPE_ETSOC1_SHIRE "etsoc1-shire"
OBJECT_DECLARE_SIMPLE_TYPE(Etsoc1ShireState, ETSOC1_SHIRE)

/* mprot at reset in Esperanto's simulator: IO mode 3, 16 GiB, not secure */
#define ETSOC1_MPROT_RESET 0x13

/* The shire cache's banks, and the regions its SRAM is split into */
#define ETSOC1_SC_BANKS 4
typedef enum Etsoc1ScRegion {
    ETSOC1_SC_SCP,      /* sc_scp_cache_ctl: the L2 scratchpad */
    ETSOC1_SC_L2,       /* sc_l2_cache_ctl */
    ETSOC1_SC_L3,       /* sc_l3_cache_ctl: the L3 slice */
    ETSOC1_SC_REGIONS
} Etsoc1ScRegion;

/* Arrivals of one FLB round: an 8-bit counter steps at most 256 times */
#define ETSOC1_FLB_ROUND_MAX 256

/* Messages in a mesh port's queue: at most one per receiving minion */
#define ETSOC1_PORT_PEND_MAX (ETSOC1_MAX_SHIRES * ETSOC1_MINIONS_PER_SHIRE)

struct Etsoc1ShireState {
    SysBusDevice parent_obj;

    Etsoc1MinionCPU hart[ETSOC1_HARTS_PER_SHIRE];
    Etsoc1EsrWindow esr[4];
    MemoryRegion scp;
    /* This shire's view of the bus: local-shire aliases resolve to us. */
    MemoryRegion view;
    MemoryRegion view_sys;
    MemoryRegion view_scp;
    MemoryRegion view_esr[4];
    /* other shires' scratchpads, timed (etsoc1-l3.c); our own, as RAM */
    MemoryRegion view_scp_remote;
    MemoryRegion view_scp_own;
    /* the bus without our aliases: where a remote window's access goes */
    AddressSpace bus_as;

    /* ESR state */
    uint64_t minion_boot[ETSOC1_NEIGHS_PER_SHIRE];
    /* sc_scp/l2/l3_cache_ctl per bank: the SRAM's partition */
    uint64_t sc_ctl[ETSOC1_SC_REGIONS][ETSOC1_SC_BANKS];
    uint64_t mprot[ETSOC1_NEIGHS_PER_SHIRE];
    uint64_t ipi_redirect_pc[ETSOC1_NEIGHS_PER_SHIRE];
    uint64_t neigh_chicken[ETSOC1_NEIGHS_PER_SHIRE];
    uint64_t minion_feature;    /* MINION_FEATURE_* */
    uint64_t shire_config;
    uint64_t thread0_disable;
    uint64_t thread1_disable;
    uint64_t ipi_redirect_filter;
    uint64_t broadcast_data;
    /*
     * Fast local barrier unit: the 32 counters and, per counter, the
     * arrivals at the unit (minion cycles) of the round under way, in the
     * host's order: the access that completes the round is served after
     * all of them in their time order (docs/timing.md, "Fast local
     * barrier"), which needs them all, not only the latest.  A round has
     * at most 256 arrivals (8-bit counter).  flb_lock makes a counter
     * step and its time one update: the flb CSR runs on the vCPU threads
     * without the BQL.
     */
    QemuMutex flb_lock;
    uint8_t flb[32];
    uint16_t flb_n[32];
    uint64_t flb_arr[32][ETSOC1_FLB_ROUND_MAX];
    /*
     * The shire's mesh port for tensor messages (docs/timing.md,
     * "Contention"): when the out-port and the in-port are free after the
     * messages served so far, and the receivers (global minion ids) of
     * the messages sent from here that the out-port has not served yet.
     * Under the machine's port_lock.
     */
    uint64_t port_free[2];
    uint16_t port_npend;
    uint16_t port_pend[ETSOC1_PORT_PEND_MAX];
    /*
     * When the out-port and the in-port are free after the TensorLoad
     * data (from another shire's scratchpad) served so far, in model time
     * order through the gate (etsoc1_tload_port).  Under port_lock.
     */
    uint64_t tload_free[2];
    Etsoc1LineClock scp_written;    /* global writes to our scratchpad */
    Etsoc1ShireL2 l2;               /* the L2 cache's tags (etsoc1-l1.c) */
    Etsoc1MinionState minion[ETSOC1_MINIONS_PER_SHIRE];
    /* cooperative TensorLoad groups, per load FSM (guarded by the BQL) */
    uint64_t coop_mode;     /* shire_coop_mode ESR */
    uint32_t coop_all[ETSOC1_TLOAD_FSMS][ETSOC1_COOP_GROUPS];
    uint32_t coop_arrived[ETSOC1_TLOAD_FSMS][ETSOC1_COOP_GROUPS];
    uint32_t harts_passed;  /* harts that wrote PASS to validation0 */

    /* properties */
    Etsoc1MachineState *chip;   /* link "chip": the machine it is part of */
    Etsoc1Timing *timing;       /* link "timing": the chip's table */
    uint32_t shire_id;
    uint64_t reset_pc;
    uint64_t fdt_addr;
    uint8_t mprot_reset;
    uint64_t l2_size;           /* bytes of the shire's SRAM that are L2 */
    uint32_t l2_rbuf_lines;     /* lines in the L2's read buffer */
    MemoryRegion *sysmem;
};
/* The state of @cpu's minion, which it shares with its other thread */
static inline Etsoc1MinionState *etsoc1_minion_state(Etsoc1MinionCPU *cpu)
{
    return &cpu->shire->minion[cpu->parent_obj.env.mhartid %
                               ETSOC1_HARTS_PER_SHIRE / ETSOC1_THREADS];
}

/* etsoc1-shire.c */
void etsoc1_minion_state_reset(Etsoc1MinionState *m);
bool etsoc1_shire_credit(Etsoc1ShireState *s, unsigned counter,
                         const Etsoc1Event *ev);

#endif
