/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the machine (etsoc1.c)
 *
 * QEMU interface of the machine ("etsoc1"):
 *  + property "shires": number of minion shires (1..34); 0 derives it from
 *    -smp, which must then be a multiple of 64 harts
 *  + property "reset-pc": reset value of every neighbourhood's minion_boot
 *  + -m: DRAM size at 0x80_0000_0000 (allocated lazily by the host)
 *  + serial_hd(0), serial_hd(1): PU UART0 and UART1
 *  + the other properties: README.md, docs/
 */

#ifndef HW_ETSOC1_ETSOC1_H
#define HW_ETSOC1_ETSOC1_H

#include "hw/boards.h"
#include "hw/cpu/cluster.h"
#include "hw/etsoc1/etsoc1-map.h"
#include "hw/etsoc1/etsoc1-memshire.h"
#include "hw/etsoc1/etsoc1-mesh.h"
#include "hw/etsoc1/etsoc1-shire.h"
#include "hw/etsoc1/etsoc1-rr.h"

#define TYPE_ETSOC1_MACHINE MACHINE_TYPE_NAME("etsoc1")
OBJECT_DECLARE_SIMPLE_TYPE(Etsoc1MachineState, ETSOC1_MACHINE)

struct Etsoc1MachineState {
    MachineState parent_obj;

    Etsoc1ShireState *shire;
    uint32_t num_shires;
    Etsoc1Timing *timing;   /* child "timing": this chip's table */
    Etsoc1L3SliceState *l3[ETSOC1_L3_SLICES];   /* children "l3[i]" */
    /* children "memshire[i]": their DRAM, under port_lock */
    Etsoc1MemShireState *memshire[ETSOC1_MEMSHIRES];
    /* child "mesh": its links, under port_lock */
    Etsoc1MeshState *mesh;
    MemoryRegion maxion;
    MemoryRegion scp_hole;
    MemoryRegion esr_hole;
    MemoryRegion dram_uc;
    hwaddr fdt_addr;
    int fdt_size;

    CPUClusterState sp_cluster;
    RISCVCPU *sp;
    MemoryRegion sp_sram;

    QEMUTimer *deadlock_timer;
    bool deadlocked;        /* reported */
    unsigned hang_ticks;    /* ticks that saw a hang in a row */
    bool *hang_seen;        /* hung harts reported, by cpu_index */
    uint8_t *hang_seen_minion;  /* stuck transfers, lost readies reported */
    bool idle_reported;
    char *hang_rest;        /* the last report at rest (etsoc1_hang_at_rest) */
    bool quiet;             /* the last tick saw every hart asleep ... */
    uint64_t quiet_insns;   /* ... with this many instructions retired */

    /* polls and gated global reads (etsoc1-sync.c) */
    QEMUTimer *sync_timer;
    bool sync_waiting;      /* a hart may be halted on a poll or the gate */
    bool gate_waiting;      /* ... at the gate */
    bool poll_halt;         /* property: polls halt, reads are gated */
    bool cache_model;       /* property: plain accesses ask the caches */
    /* property: plain misses fill the L3 and take turns at the DRAM */
    bool plain_dram_turns;
    bool flb_order;         /* FLB accesses pass the gate: the leader */
    bool host_loopback;     /* property: loopback host memory, host view */
    int64_t sync_scan_ns;   /* host time of the last scan from a halt */
    int64_t sync_scan_gap_ns;   /* ... and the least time to the next */
    uint64_t sync_lookahead;    /* cycles: see etsoc1_sync_start */
    Notifier sync_idle;     /* a TCG thread has no hart to run */
    bool sync_idle_heard;   /* ... and one has said so: it scans then */
    /*
     * The minion harts by cpu_index (NULL for the service processor), and
     * a bit per hart that is not parked: parked harts (halted in WFI or
     * stopped) cannot act until their own thread runs again, so the
     * scans look only at the others (etsoc1_sync_park).
     */
    Etsoc1MinionCPU **minion;
    unsigned long *awake;
    unsigned minion_slots;
    /*
     * Per word of awake (64 harts): a lower bound on the time from which
     * any of its harts may act, so that the gate's looks pass over the
     * words that cannot hold them (etsoc1_sync_lower, etsoc1_act_end).
     */
    struct Etsoc1ActWord *act;
    /* harts that may be halted on a poll */
    unsigned long *waiters;
    /* the harts at the gate, a heap in (time, hart) order (gate_lock) */
    struct Etsoc1GateNode *gate_heap;
    unsigned gate_heap_n, gate_heap_len;
    unsigned *gate_heap_pos;    /* by cpu_index: 1 + place in it, or 0 */
    unsigned *gate_walk;        /* the scan's, a walk of the heap */
    unsigned gate_walk_len;
    uint64_t gate_first;    /* the last scan's earliest time at the gate */
    uint32_t sync_enters;   /* waits entered (gate_lock): see the scan */
    uint32_t gate_enters;   /* of them at the gate: etsoc1_gate_window */
    struct Etsoc1GateEntry *gate_entries;   /* the scan's, by hart */
    unsigned gate_entries_len;
    GHashTable *gate_slots;     /* the scan's: slot -> last entry on it */
    QemuMutex gate_lock;        /* harts into and out of the gate */
    QemuMutex scan_lock;        /* one scan at a time, and its scratch */
    QemuMutex port_lock;        /* the shires' mesh ports (etsoc1-fabric.c) */
    /* tensor messages' pairs and ready bits (etsoc1-fabric.c) */
    QemuMutex fabric_lock;
    /*
     * Host inputs at a stamped emulated time (etsoc1-sync.c, "Host
     * inputs"; docs/timing.md "The host link").  Changed with the BQL
     * held; input_head_t is read by the harts without it.
     */
    bool stamp_host;        /* property: host inputs are stamped */
    GQueue *input_q;        /* Etsoc1Input, in T order */
    uint64_t input_head_t;  /* the head's T; UINT64_MAX: none */
    uint64_t input_last_t;  /* the latest T given */
    uint64_t input_applying_t;  /* the T of the input being applied, or 0 */
    /*
     * The T of the input whose apply stopped the VM (a host's PAUSE),
     * until it runs again, or 0: the card stands at that T meanwhile
     */
    uint64_t input_pause_t;
    VMChangeStateEntry *input_vmse;
    uint64_t declared_t;    /* the latest expiry the model published */
    uint64_t parked_max;    /* the latest clock of a hart when it parked */
    bool host_waiting;      /* a hart may be in ETSOC1_WAIT_HOST */
    QEMUTimer *input_timer;
    /*
     * Before a host input applies at T, what else of the chip happens up
     * to T (the PU timers' expiries): set by the machine, so that the
     * sync unit does not call back into the timer block that calls it
     */
    void (*input_catch_up)(void *opaque, uint64_t t);
    void *input_catch_up_opaque;
    bool input_hold;        /* apply nothing yet (a replay's start) */
    /*
     * The eDMA on the chip's time (etsoc1-sync.c, "The eDMA's steps"):
     * the emulated time of its next step (UINT64_MAX: none), an actor at
     * the gate as a host input is, and the timer that runs its steps.
     * Set with the BQL held; read by the harts without it.
     */
    uint64_t link_head_t;
    bool link_host_wait;    /* that step waits for its host's answer */
    QEMUTimer *link_kick;
    Etsoc1Rr *rr;           /* child "rr": record= or replay= */

    /* properties */
    uint32_t shires_prop;
    uint64_t reset_pc;
    int handshake;          /* Etsoc1Handshake */
    int on_deadlock;        /* Etsoc1OnDeadlock */
    int on_idle;            /* Etsoc1OnIdle */
    uint32_t clock_mhz;
    char *timing_file;
    char *trace_json;
    uint64_t trace_json_max_events;  /* 0: no limit */
    char *hostlink_id;
    char *sp_firmware;
    char *rr_record;        /* record=: docs/record-replay.md */
    char *rr_replay;        /* replay= */
};

#endif
