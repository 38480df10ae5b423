/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: polls and the gate of global accesses (etsoc1-sync.c,
 * docs/timing.md "Polls and the read gate").  A global atomic, coherent
 * store or early credit waits at the gate until no hart can still act
 * before it in the model's time; a hart that re-reads an unchanged word
 * halts until the word is written.  Called by the ISA helpers, the L3 and
 * scratchpad models and the minion CPU.
 */

#ifndef HW_ETSOC1_SYNC_H
#define HW_ETSOC1_SYNC_H

#include "hw/etsoc1/etsoc1-l3.h"

typedef struct Etsoc1MinionCPU Etsoc1MinionCPU;
typedef struct Etsoc1MachineState Etsoc1MachineState;

/*
 * A global access waiting at the gate (etsoc1-sync.c): two on one line
 * clock slot go one at a time, and so do two global operations on one
 * L3 sub-bank (they take turns there, whatever their lines) and two that
 * may reach DRAM at the same memory shire (they take turns there,
 * etsoc1_dram_gate; a slice's lines all have one memory shire, PA[8:6]
 * of PA[10:6], so its fills and evictions are ordered with them), and
 * two TensorLoads whose data takes a mesh link both.  Credit waits have
 * none of these (slot NULL): only their own counter sees them.  A tensor
 * ready that reaches a sender's ready bit has an owner, the sender: it
 * acts on its own bit at its own clock, with no lookahead, so it must be
 * past the ready too.
 */
typedef struct Etsoc1GateAccess {
    const void *slot;       /* &lc->gen[slot], or a minion's ready bit */
    const void *bank;       /* an L3 sub-bank (etsoc1_l3_bank_of) */
    /* mesh links it takes turns at: a bit each (etsoc1_route) */
    unsigned long links[BITS_TO_LONGS(ETSOC1_MESH_LINKS)];
    Etsoc1MinionCPU *owner;
    uint8_t dram;           /* memory shires it may take turns at: a bit each */
} Etsoc1GateAccess;

/* Every memory shire: an access whose lines are not known at the gate */
#define ETSOC1_DRAM_ANY     ((uint8_t)MAKE_64BIT_MASK(0, ETSOC1_MEMSHIRES))

/* etsoc1-sync.c: polls and the global-read gate (docs/timing.md) */
#define ETSOC1_SYNC_TICK_MS         1
#define ETSOC1_SYNC_SCAN_NS         100000
/* gated accesses that may conflict put in order by one release, at most */
#define ETSOC1_GATE_ORDER_MAX       128
/* a scan's window taken again, at most, while harts come to the gate */
#define ETSOC1_GATE_RETAKES         4
/*
 * A lone poller's pace in host time: ETSOC1_POLL_BURST equal reads, then a
 * nap of ETSOC1_POLL_IDLE_MS; each further nap with no write halves the
 * burst and doubles the nap, ETSOC1_POLL_BACKOFF times at most.
 */
#define ETSOC1_POLL_BURST           4096
#define ETSOC1_POLL_IDLE_MS         10
#define ETSOC1_POLL_BACKOFF         5

/* What a global read (an operation that left memory unchanged) does */
typedef enum Etsoc1ReadStep {
    ETSOC1_READ_DONE,       /* take effect now */
    ETSOC1_READ_HALT,       /* halt (the caller restarts the instruction) */
} Etsoc1ReadStep;

bool etsoc1_sync_gate(Etsoc1MinionCPU *cpu, uint64_t t,
                      const Etsoc1GateAccess *a);
bool etsoc1_sync_credit_gate(Etsoc1MinionCPU *cpu, uint32_t why, uint64_t t);
Etsoc1ReadStep etsoc1_sync_read(Etsoc1MinionCPU *cpu, Etsoc1LineClock *lc,
                                hwaddr pa, unsigned size, uint64_t cur);
void etsoc1_sync_note(Etsoc1MinionCPU *cpu, hwaddr pa, uint64_t val);
bool etsoc1_sync_plain_read(Etsoc1MinionCPU *cpu, Etsoc1LineClock *lc,
                            hwaddr pa, const void *val, unsigned size,
                            uint64_t arrive, bool timed);
void etsoc1_sync_plain_written(Etsoc1MachineState *m, Etsoc1LineClock *lc,
                               hwaddr pa, uint64_t t);
bool etsoc1_sync_enabled(Etsoc1MinionCPU *cpu);
void etsoc1_sync_written(Etsoc1MachineState *m, Etsoc1LineClock *lc,
                         hwaddr pa);
void etsoc1_sync_halting(Etsoc1MinionCPU *cpu);
void etsoc1_sync_done(Etsoc1MinionCPU *cpu);
uint8_t etsoc1_sync_leave(Etsoc1MinionCPU *cpu);
bool etsoc1_sync_has_work(Etsoc1MinionCPU *cpu);
void etsoc1_sync_resume(Etsoc1MinionCPU *cpu);
void etsoc1_sync_park(Etsoc1MinionCPU *cpu);
void etsoc1_sync_unpark(Etsoc1MinionCPU *cpu);
void etsoc1_sync_lower(Etsoc1MinionCPU *cpu, bool always);
void etsoc1_sync_start(Etsoc1MachineState *s);
uint64_t etsoc1_sync_horizon(bool *idle);
bool etsoc1_sync_at_rest(uint64_t before);

/*
 * Host inputs at a stamped time (etsoc1-sync.c, "Host inputs";
 * docs/timing.md "The host link").  @fn(@opaque, T) runs, with the BQL,
 * at T: a time after everything the card has done, once no hart can act
 * before T (perhaps before etsoc1_input_post returns).  False: inputs are
 * not stamped on this machine (stamp-host=off, poll-halt=off), the
 * caller applies it at once.
 */
typedef void Etsoc1InputFn(void *opaque, uint64_t t);
bool etsoc1_input_post(Etsoc1MachineState *m, const char *what,
                       uint64_t addr, uint64_t len, Etsoc1InputFn *fn,
                       void *opaque);
bool etsoc1_input_post_at(Etsoc1MachineState *m, uint64_t t,
                          const char *what, uint64_t addr, uint64_t len,
                          Etsoc1InputFn *fn, void *opaque);
void etsoc1_input_hold(Etsoc1MachineState *m, bool hold);
void etsoc1_input_apply_due(Etsoc1MachineState *m);
void etsoc1_input_declare(Etsoc1MachineState *m, uint64_t t);
bool etsoc1_host_observe(Etsoc1MinionCPU *cpu, uint64_t last_t);

/*
 * The eDMA on the chip's time (etsoc1-sync.c, "The eDMA's steps";
 * docs/timing.md "DMA"): @t is the emulated time of its next step
 * (UINT64_MAX: none), until which an access through the gate at or after
 * @t waits and no timer passes @t; @host_wait: that step waits for its
 * host's answer; @kick is put due when a hart may have let it go.  True
 * if the step may be taken now: no hart and no host input can still act
 * at or before @t (then later inputs are stamped after it).
 */
bool etsoc1_link_turn(Etsoc1MachineState *m, uint64_t t, bool host_wait,
                      QEMUTimer *kick);
bool etsoc1_host_wait_over(Etsoc1MinionCPU *cpu);
void etsoc1_host_hold(Etsoc1MinionCPU *cpu);

#endif
