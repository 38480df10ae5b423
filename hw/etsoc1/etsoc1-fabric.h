/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the on-chip fabric (etsoc1-fabric.c, docs/fabric.md):
 * fabric events (credits, readies, tensor messages, IPIs), each minion's
 * tensor_reduce state machine, the fast local barrier and the hang
 * detector.
 */

#ifndef HW_ETSOC1_FABRIC_H
#define HW_ETSOC1_FABRIC_H

#include "hw/etsoc1/etsoc1-minion.h"

typedef struct Etsoc1MachineState Etsoc1MachineState;

enum { ETSOC1_REDUCE_IDLE, ETSOC1_REDUCE_PENDING };

/* A minion's tensor_reduce state machine (one per minion, thread 0). */
typedef struct Etsoc1Reduce {
    uint8_t state;
    uint8_t op;             /* send or recv, after tree pairing */
    uint8_t count, start, func, frm;
    bool tree;              /* auto-pair (tree) mode: a ready per level */
    uint32_t partner;       /* global minion id */
    /* handshake=rtl: the one incoming ready bit */
    bool ready;
    uint32_t ready_from;    /* diagnosis only: the hardware has no source */
    bool lost;              /* a ready was lost here: who, for the report */
    uint32_t lost_first, lost_from;
    uint64_t t_issue;       /* minion clock when the operation was issued */
    uint64_t t_done;        /* ... and when it completes (timing model) */
    uint64_t t_send_free;   /* when the minion's send path takes another */
    /*
     * A received message from another shire, through the mesh ports
     * (docs/timing.md, "Contention"): where its wait stands
     * (ETSOC1_PORT_*), the sender's shire, when it reaches the out-port
     * and (once the out-port and the links have served it) the in-port,
     * and the wait so far; between the two ports, the links of its route
     * it has passed and when it reaches the next.  Written under the
     * machine's port_lock.
     */
    uint8_t port;
    uint8_t port_from;
    uint8_t port_hop;
    uint64_t port_out;
    uint64_t port_in;
    uint64_t port_wait;
    uint64_t port_at;
} Etsoc1Reduce;

enum {
    ETSOC1_PORT_NONE,       /* no message through the ports */
    ETSOC1_PORT_BOOKED,     /* delivered, in its out-port's queue */
    ETSOC1_PORT_OUT_DONE,   /* out-port served it: port_in is known */
    ETSOC1_PORT_SETTLED,    /* both served: port_wait is in t_done */
    ETSOC1_PORT_LINKS,      /* out-port served it, on its route's links */
};

typedef enum {
    ETSOC1_HANDSHAKE_RTL,       /* one ready bit per minion, as silicon */
    ETSOC1_HANDSHAKE_SYSEMU,    /* partners matched by name, as sysemu */
} Etsoc1Handshake;

typedef enum {
    ETSOC1_ON_DEADLOCK_REPORT,  /* print the report, stay up for gdb/QMP */
    ETSOC1_ON_DEADLOCK_EXIT,    /* print it and exit with status 3 */
    ETSOC1_ON_DEADLOCK_HANG,    /* no detection: hang as the card does */
} Etsoc1OnDeadlock;

typedef enum {
    ETSOC1_ON_IDLE_REPORT,      /* print one line, stay up */
    ETSOC1_ON_IDLE_EXIT,        /* print it and exit with status 0 */
    ETSOC1_ON_IDLE_IGNORE,      /* say nothing */
} Etsoc1OnIdle;

#define ETSOC1_DEADLOCK_EXIT_STATUS 3
#define ETSOC1_IDLE_EXIT_STATUS     0
#define ETSOC1_DEADLOCK_POLL_MS     250
/* etsoc1-fabric.c */
bool etsoc1_reduce_done(Etsoc1MinionCPU *cpu);
void etsoc1_reduce_observe(Etsoc1MinionCPU *cpu);
bool etsoc1_reduce_settle(Etsoc1MinionCPU *cpu);
bool etsoc1_tload_port(Etsoc1MinionCPU *cpu, unsigned src, unsigned lines,
                       uint64_t start, uint64_t *wait);
bool etsoc1_tload_dram(Etsoc1MinionCPU *cpu, const hwaddr *pa, unsigned n,
                       uint64_t start, uint64_t *wait);
uint64_t etsoc1_reduce_done_at(Etsoc1MinionCPU *cpu);
void etsoc1_deadlock_start(Etsoc1MachineState *s);
void etsoc1_hang_at_rest(Etsoc1MachineState *s, uint64_t t);
void etsoc1_get_deadlock(Object *obj, Visitor *v, const char *name,
                         void *opaque, Error **errp);
/* Trace a delivery (a credit, an IPI, a fabric event) */
void etsoc1_event_trace(const Etsoc1Event *ev);
/*
 * A hart's credit slots (Etsoc1HartCredits): a credit on @counter arrives
 * at @t; when the earliest pending one arrived (0: none), and taking it.
 */
void etsoc1_fcc_arrive(Etsoc1HartEt *et, unsigned counter, uint64_t t);
void etsoc1_fcc_reset(Etsoc1HartEt *et);
uint64_t etsoc1_fcc_earliest(Etsoc1HartEt *et, unsigned counter);
uint64_t etsoc1_fcc_arrival(Etsoc1HartEt *et, unsigned counter);

#endif
