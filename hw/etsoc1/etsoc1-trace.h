/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the emulated-time timeline (machine property
 * trace-json, docs/trace.md), a Chrome/Perfetto trace of what the harts
 * wait for, what they send each other and what the eDMA moves.
 *
 * Every function returns at once without a trace file.  Times are minion
 * cycles; the writer converts them to microseconds at clock-mhz.
 */
#ifndef HW_ETSOC1_TRACE_H
#define HW_ETSOC1_TRACE_H

/*
 * No target header: the eDMA and the host link trace too, and the writer
 * takes plain values (a hart number, its clock), so it builds once.  The
 * two kinds of thing the timeline shows are declared here: what a halted
 * hart waits for and a delivery between harts.
 */

/* What a halted hart waits for (docs/architecture.md, "How a hart waits"). */
typedef enum Etsoc1Wait {
    ETSOC1_WAIT_NONE = 0,
    ETSOC1_WAIT_FCC0,       /* fcc CSR: a credit on counter 0 */
    ETSOC1_WAIT_FCC1,       /* fcc CSR: a credit on counter 1 */
    ETSOC1_WAIT_STOPPED,    /* validation0 PASS: never runs again */
    ETSOC1_WAIT_STALL,      /* stall CSR: like WFI, resumes after the CSR */
    ETSOC1_WAIT_REDUCE,     /* the minion's tensor transfer to complete */
    ETSOC1_WAIT_COOP,       /* the partners of a cooperative TensorLoad */
    ETSOC1_WAIT_POLL,       /* a poll: a write to the line it re-reads */
    ETSOC1_WAIT_GATE,       /* a global read: every other hart to reach it */
    ETSOC1_WAIT_HOST,       /* host state: the host's inputs up to its time */
} Etsoc1Wait;

/*
 * A fabric event: a credit, a ready, a tensor message or an IPI.  Every
 * delivery goes through one of these, so that the timing model can stamp
 * it (sender's time plus path latency) and the receiver can take
 * max(own time, arrival).  Until then time is 0.
 */
typedef enum Etsoc1EventKind {
    ETSOC1_EV_CREDIT,
    ETSOC1_EV_READY,
    ETSOC1_EV_MESSAGE,
    ETSOC1_EV_IPI,
} Etsoc1EventKind;

#define ETSOC1_EV_NO_HART UINT32_MAX    /* sent by qtest, gdb or the host */

typedef struct Etsoc1Event {
    Etsoc1EventKind kind;
    uint32_t src;       /* sending hart, or ETSOC1_EV_NO_HART */
    uint32_t dst;       /* receiving hart */
    uint64_t sent;      /* sender's clock when it left (minion cycles) */
    uint64_t time;      /* arrival; both 0 without a sending hart */
} Etsoc1Event;

/* trace-json-max-events: the default bound of a trace file */
#define ETSOC1_TRACE_MAX_EVENTS 1000000

/* Called once by the machine before any hart runs. */
bool etsoc1_trace_open(const char *path, uint64_t max_events,
                       uint32_t clock_mhz, Error **errp);

/* Complete the file now (a card that powers off with _exit()) */
void etsoc1_trace_close(void);

/* A delivery (credit, ready, message, IPI): a flow from sender to receiver */
void etsoc1_trace_json(const Etsoc1Event *ev);

/*
 * Hart @hart halts at its clock @now waiting for @why, on @arg (the fcc
 * counter, a poll's pa, the gate's time; else 0).  The retry of the same
 * wait keeps the start; the slice ends at the first etsoc1_trace_wait_end()
 * once the hart has its wake time @now.
 */
void etsoc1_trace_wait_begin(uint32_t hart, uint64_t now, unsigned why,
                             int64_t arg);
void etsoc1_trace_wait_end(uint32_t hart, uint64_t now);
/*
 * @hart's wait for @why ends at @to (its clock moves there from @now
 * next), whether or not the host halted it: a slice from @now to @to, so
 * that the timeline does not depend on the host's order.  @arg as above.
 */
void etsoc1_trace_wait_until(uint32_t hart, uint64_t now, unsigned why,
                             uint64_t to, int64_t arg);
/* The same where the hart takes an interrupt: this also ends a WFI */
void etsoc1_trace_wake(uint32_t hart, uint64_t now);

/*
 * @hart is halted in WFI (seen from has_work, on its own thread) and in no
 * other wait (@waiting false); @over: it resumes without taking an
 * interrupt, so its WFI cost no time.
 */
void etsoc1_trace_wfi(uint32_t hart, uint64_t now, bool over, bool waiting);

/*
 * A wait that does not halt @hart but moves its clock from @from to @to
 * (an FLB answer, TensorWait): a slice @name if @to is later.
 */
void etsoc1_trace_span(uint32_t hart, const char *name,
                       uint64_t from, uint64_t to, int64_t arg);

/* Credits on counter @counter of hart @hart after a delivery or a take */
void etsoc1_trace_credits(uint32_t hart, unsigned counter, uint64_t t,
                          unsigned value);

/*
 * The L1 misses of @hart so far at @t, by the level that served them
 * (etsoc1-l1.c): its L2, own scratchpad, L3 and DRAM
 */
void etsoc1_trace_misses(uint32_t hart, uint64_t t, uint64_t l2,
                         uint64_t scp, uint64_t l3, uint64_t dram);

/* An eDMA channel (@write: card to host) starts / ends a transfer at @t */
void etsoc1_trace_dma_start(bool write, unsigned ch, uint64_t t);
void etsoc1_trace_dma_end(bool write, unsigned ch, uint64_t t,
                          uint64_t elements, bool ok);

/*
 * A host input (@what, @len bytes at @addr) took effect at its stamped
 * time @t (etsoc1-sync.c, "Host inputs"), on the "host" track
 */
void etsoc1_trace_host_input(const char *what, uint64_t addr, uint64_t len,
                             uint64_t t);

#endif
