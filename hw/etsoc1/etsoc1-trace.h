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
 * No target header: the eDMA and the host link trace too.  @why below is an
 * Etsoc1Wait (etsoc1-minion.h).
 */
typedef struct Etsoc1MinionCPU Etsoc1MinionCPU;
typedef struct Etsoc1Event Etsoc1Event;

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
 * @cpu halts waiting for @why (its clock stops at etsoc1_now).  The retry
 * of the same wait keeps the start; the slice ends at the first
 * etsoc1_trace_wait_end() once the hart has its wake time.
 */
void etsoc1_trace_wait_begin(Etsoc1MinionCPU *cpu, unsigned why);
void etsoc1_trace_wait_end(Etsoc1MinionCPU *cpu);
/*
 * @cpu's wait for @why ends at @to (its clock moves there next), whether
 * or not the host halted it: a slice from its clock now to @to, so that
 * the timeline does not depend on the host's order.  @arg as for @why.
 */
void etsoc1_trace_wait_until(Etsoc1MinionCPU *cpu, unsigned why,
                             uint64_t to, int64_t arg);
/* The same where the hart takes an interrupt: this also ends a WFI */
void etsoc1_trace_wake(Etsoc1MinionCPU *cpu);

/*
 * @cpu is halted in WFI (seen from has_work, on its own thread); @over:
 * it resumes without taking an interrupt, so its WFI cost no time.
 */
void etsoc1_trace_wfi(Etsoc1MinionCPU *cpu, bool over);

/*
 * A wait that does not halt the hart but moves its clock from @from to
 * @to (an FLB answer, TensorWait): a slice @name if @to is later.
 */
void etsoc1_trace_span(Etsoc1MinionCPU *cpu, const char *name,
                       uint64_t from, uint64_t to, int64_t arg);

/* Credits on counter @counter of hart @hart after a delivery or a take */
void etsoc1_trace_credits(uint32_t hart, unsigned counter, uint64_t t,
                          unsigned value);

/* An eDMA channel (@write: card to host) starts / ends a transfer at @t */
void etsoc1_trace_dma_start(bool write, unsigned ch, uint64_t t);
void etsoc1_trace_dma_end(bool write, unsigned ch, uint64_t t,
                          uint64_t elements, bool ok);

#endif
