/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1 L3 slices, and the latency of memory outside a shire
 *
 * The L3 is spread over the compute shires: slice i sits in shire i's
 * SRAM and is the home of every physical line with PA[10:6] = i; behind
 * it, the line's memory shire is PA[8:6] (timing.md section 4, isa.md
 * section 11).  A slice here is a tag store only: QEMU's RAM holds the
 * data, so a slice decides hit or miss and nothing else.  Replacement is
 * LRU.  The sources give neither the size of a slice nor its ways: the
 * defaults are our choice (docs/timing.md, "L3 and memory").
 *
 * What reaches a slice:
 *  - the global atomics and coherent stores of the harts (etsoc1-isa.c):
 *    they execute at the home slice, and the hart waits for the round
 *    trip, L3 hit or DRAM miss; a miss installs the line;
 *  - host and DMA writes, which land in the L3 (etsoc1_l3_install);
 *  - evict, flush and prefetch by VA (etsoc1_l3_cacheop_va).
 *  - plain loads and stores that miss the hart's L1 and its shire's L2
 *    (etsoc1-l1.c, etsoc1_l3_plain_miss): in the model's order through
 *    the gate, a miss installs the line; without the gate they only look.
 *
 * Also here: the latency of a load or store to another shire's L2
 * scratchpad, which the shire's bus view (etsoc1-shire.c) charges.
 *
 * Every latency is charged to the requesting hart from its own vCPU
 * thread (etsoc1_stall), in minion cycles from the timing table.
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qemu/lockable.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "exec/exec-all.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "hw/etsoc1/etsoc1-timing.h"
#include "hw/etsoc1/etsoc1.h"
#include "hw/etsoc1/etsoc1-trace.h"
#include "trace.h"


struct Etsoc1L3SliceState {
    SysBusDevice parent_obj;

    /* the harts of every shire look tags up at once */
    QemuMutex lock;
    uint32_t sets;
    uint32_t lines;         /* sets * ways: entries of tag[] and used[] */
    uint64_t *tag;          /* line address | L3_VALID, way-major per set */
    uint64_t *used;         /* clock at the last use (LRU); 0 = never */
    uint64_t clock;         /* ticks at every lookup */
    Etsoc1LineClock written;    /* global writes to the lines homed here */
    /*
     * When each sub-bank lets its last global write go (l3.bank.service
     * after it took effect): the next write there takes effect no
     * earlier (bank_serve).  Under written.lock.
     */
    uint64_t *bank_until;

    /* properties */
    uint32_t slice;
    uint64_t size;
    uint32_t ways;
    uint32_t banks;
};

#define L3_VALID        BIT_ULL(63)
#define L3_DEFAULT_SIZE (1 * MiB)
#define L3_DEFAULT_WAYS 4
#define L3_MAX_WAYS     64
#define L3_DEFAULT_BANKS 16
/* lines a DMA install looks up per hold of a slice's lock (harts wait) */
#define L3_INSTALL_BATCH 256

static bool etsoc1_l3_cacheable(hwaddr pa)
{
    return etsoc1_in(ETSOC1_DRAM, pa);
}

/* PA[10:6] chose the slice; the line address above them picks the set. */
static unsigned l3_set(Etsoc1L3SliceState *s, hwaddr pa)
{
    return (pa >> 11) % s->sets;
}

/*
 * The sub-bank of line @pa: the low bits of its set, so that a slice's
 * consecutive lines (2 KiB apart) spread over every sub-bank.  Our
 * choice: the sources say a slice has 16 sub-banks, not how lines map
 * to them (docs/timing.md, "L3 and memory").
 */
static unsigned l3_bank(Etsoc1L3SliceState *s, hwaddr pa)
{
    return l3_set(s, pa) % s->banks;
}

/*
 * Look line @pa up in its set (etsoc1_lru_lookup), filling it on a miss
 * if @fill.  Called with the slice's lock held.
 */
static inline bool l3_lookup_in(Etsoc1L3SliceState *s, unsigned set,
                                hwaddr pa, bool fill)
{
    return etsoc1_lru_lookup(s->tag + set * s->ways, s->used + set * s->ways,
                             s->ways, pa / ETSOC1_LINE | L3_VALID,
                             ++s->clock, fill);
}

static bool l3_lookup(Etsoc1L3SliceState *s, hwaddr pa, bool fill)
{
    return l3_lookup_in(s, l3_set(s, pa), pa, fill);
}

static void l3_invalidate(Etsoc1L3SliceState *s, hwaddr pa)
{
    unsigned base = l3_set(s, pa) * s->ways, w;
    uint64_t want = pa / ETSOC1_LINE | L3_VALID;

    for (w = base; w < base + s->ways; w++) {
        if (s->tag[w] == want) {
            s->tag[w] = 0;
            s->used[w] = 0;
        }
    }
}

/* A latency in minion cycles, rounded once, as the hart's clock counts. */
static uint64_t etsoc1_cycles(double t)
{
    return llround(t);
}

/*
 * The round trip from shire @shire to the home slice of line @pa, and on
 * to the line's memory shire and back if @to_mem, in minion cycles of
 * table @tm.
 */
double etsoc1_l3_path(const Etsoc1Timing *tm, unsigned shire, hwaddr pa,
                      bool to_mem)
{
    unsigned home = etsoc1_l3_home(pa);
    double hop = etsoc1_t(tm, ETSOC1_T_MESH_HOP_RTT);
    double t = etsoc1_t(tm, ETSOC1_T_L3_HIT) + etsoc1_hops(shire, home) * hop;

    if (to_mem) {
        t += etsoc1_t(tm, ETSOC1_T_DRAM_LEG) +
             etsoc1_hops_to_memshire(home, etsoc1_memshire_of(pa)) * hop;
    }
    return t;
}

static double l3_path(Etsoc1MinionCPU *cpu, hwaddr pa, bool to_mem)
{
    return etsoc1_l3_path(cpu->timing, cpu->shire->shire_id, pa, to_mem);
}

/* Do the memory shires take turns?  Not without dram.line or a gate. */
static bool etsoc1_dram_timed(Etsoc1MinionCPU *cpu)
{
    return etsoc1_t(cpu->timing, ETSOC1_T_DRAM_LINE) > 0 &&
           etsoc1_sync_enabled(cpu);
}

/*
 * When a request from @cpu for the line at @pa, issued at @t, reaches the
 * line's memory shire: half the L3 round trip (to the home slice), then
 * the hops from the home to the memory shire (our choice: docs/timing.md,
 * "TensorLoads from DRAM").
 */
static uint64_t l3_dram_arrival(Etsoc1MinionCPU *cpu, hwaddr pa, uint64_t t)
{
    return t + etsoc1_cycles(l3_path(cpu, pa, false) / 2 +
                             etsoc1_memshire_way(cpu->timing,
                                                 etsoc1_l3_home(pa),
                                                 etsoc1_memshire_of(pa)));
}

/* ---- causality through memory ------------------------------------------ */

void etsoc1_line_clock_reset(Etsoc1LineClock *c)
{
    memset(c->line, 0, sizeof(c->line));
    memset(c->at, 0, sizeof(c->at));
    memset(c->ver_pa, 0, sizeof(c->ver_pa));
    memset(c->ver_old, 0, sizeof(c->ver_old));
    memset(c->ver_size, 0, sizeof(c->ver_size));
    memset(c->plain_at, 0, sizeof(c->plain_at));
    memset(c->plain_line, 0, sizeof(c->plain_line));
    /* gen[] only grows: a poll halted across the reset wakes */
}

/* The slot of line @pa in a line clock. */
unsigned etsoc1_line_slot(hwaddr pa)
{
    return etsoc1_line_tag(pa) % ETSOC1_LINE_CLOCKS;
}

/*
 * The value of word @w (which memory holds as @w->old now) as a read
 * that takes effect at @t sees it: the value before the line's last
 * global write if that write changed exactly this word and takes effect
 * after @t.  One write is remembered per line; a second one in the
 * read's future is seen (docs/timing.md, "Polls").  With @c's lock held.
 */
uint64_t etsoc1_line_value_at(Etsoc1LineClock *c, const Etsoc1LineWord *w,
                              uint64_t t)
{
    unsigned i = etsoc1_line_slot(w->pa);

    if (c->line[i] == etsoc1_line_tag(w->pa) && c->at[i] > t &&
        c->ver_pa[i] == w->pa && c->ver_size[i] == w->size) {
        return c->ver_old[i];
    }
    return w->old;
}

/*
 * The line clock that orders a global access by @cpu to @pa: the home
 * slice's for DRAM, the target shire's for another shire's scratchpad;
 * NULL for anything else.  The caller holds its lock across the memory
 * access and its timing, so that a request that read the old value can
 * not take the time of a write that came after it, nor one that read the
 * new value miss it.
 */
Etsoc1LineClock *etsoc1_line_clock_of(Etsoc1MinionCPU *cpu, hwaddr pa)
{
    Etsoc1MachineState *m;
    unsigned target;

    if (etsoc1_l3_cacheable(pa)) {
        Etsoc1L3SliceState *s = cpu->shire->chip->l3[etsoc1_l3_home(pa)];

        return s ? &s->written : NULL;
    }
    if (!etsoc1_in(ETSOC1_SCP, pa)) {
        return NULL;
    }
    m = cpu->shire->chip;
    target = etsoc1_scp_shire(pa);
    return target < m->num_shires && target != cpu->shire->shire_id ?
           &m->shire[target].scp_written : NULL;
}

/*
 * A request for line @pa arriving at @arrive where the line is kept: it
 * takes effect at the latest of that and the line's last global write,
 * and becomes the line's last write if @write.  Returns when it took
 * effect.  Called with @c's lock held.
 */
static uint64_t line_clock(Etsoc1LineClock *c, hwaddr pa, uint64_t arrive,
                           bool write)
{
    uint64_t line = etsoc1_line_tag(pa);
    unsigned i = etsoc1_line_slot(pa);
    uint64_t t = arrive;

    if (c->line[i] == line) {
        t = MAX(t, c->at[i]);
    }
    if (write) {
        c->line[i] = line;
        c->at[i] = t;
    }
    return t;
}

/*
 * A read of word @w arriving at @arrive: when it takes effect, and the
 * value it returns in @w->ret.  A write to the word that takes effect
 * later is not seen (etsoc1_line_value_at), unless the hart polls: it
 * saw the old value last time, so it goes on reading until the write and
 * sees it then, whether the host made the write before this read or
 * after the hart halted on its poll (etsoc1-sync.c).  Any other write
 * later than @arrive to the line delays the read to it, as before
 * (causality).
 */
static uint64_t line_read(Etsoc1MinionCPU *cpu, Etsoc1LineClock *c,
                          Etsoc1LineWord *w, uint64_t arrive)
{
    uint64_t then = etsoc1_line_value_at(c, w, arrive);
    Etsoc1HartEt *et = cpu->et;

    w->ret = w->old;
    if (then == w->old) {
        return line_clock(c, w->pa, arrive, false);
    }
    if (et->poll.valid && et->poll.pa == w->pa && et->poll.val == then) {
        return c->at[etsoc1_line_slot(w->pa)];
    }
    w->ret = then;
    return arrive;
}

/* A global write of word @w took effect: remember what it replaced. */
static void line_written(Etsoc1LineClock *c, const Etsoc1LineWord *w)
{
    unsigned i = etsoc1_line_slot(w->pa);

    c->ver_pa[i] = w->pa;
    c->ver_old[i] = w->old;
    c->ver_size[i] = w->size;
}

/*
 * A global write (an operation that changes the line) to line @pa reaches
 * its home slice @s at @arrive: it is served once the line's sub-bank has
 * let the last write there go (l3.bank.service after that one took
 * effect), whichever line of the sub-bank that one wrote.  Global
 * operations on a sub-bank pass the read gate one at a time in the
 * model's order (etsoc1_l3_bank_of, etsoc1_gate_conflict), so its queue
 * is the same in every run; with poll-halt=off it is the host's.  Reads
 * take no turn: the polls a write wakes read it at its own time whatever
 * order the host runs them in (etsoc1-sync.c: a halted poll does not
 * hold the gate), so a turn for each would put the host's order into
 * their times.  Returns when it is served.  With s->written's lock held.
 */
static uint64_t bank_serve(Etsoc1MinionCPU *cpu, Etsoc1L3SliceState *s,
                           hwaddr pa, uint64_t arrive)
{
    unsigned b = l3_bank(s, pa);

    if (s->bank_until[b] <= arrive) {
        return arrive;
    }
    trace_etsoc1_l3_bank_wait(cpu->parent_obj.env.mhartid, s->slice, b, pa,
                              arrive, s->bank_until[b]);
    return s->bank_until[b];
}

/* ... and the write to line @pa took effect at @effect */
static void bank_served(Etsoc1MinionCPU *cpu, Etsoc1L3SliceState *s,
                        hwaddr pa, uint64_t effect)
{
    s->bank_until[l3_bank(s, pa)] = effect + etsoc1_cycles(
        etsoc1_t(cpu->timing, ETSOC1_T_L3_BANK_SERVICE));
}

/*
 * A round trip of @t cycles from @cpu to where line @pa is kept (@c):
 * the request gets there half way (@queued later if it waited for its
 * memory shire on the way), is served when its sub-bank is free if
 * @bank is its home slice (bank_serve: a global write there), takes
 * effect no earlier than the line's last global write (line_clock), and
 * the answer comes back.  The
 * hart waits for it; returns the cycles it waited.  @w, if not NULL, is
 * the word read or written (line_read, line_written); a write counts in
 * the line's gen[] for the polls halted on it.  Called with @c's lock
 * held.
 */
static uint64_t round_trip_word(Etsoc1MinionCPU *cpu, Etsoc1LineClock *c,
                                hwaddr pa, double t, bool write,
                                Etsoc1LineWord *w, Etsoc1L3SliceState *bank,
                                uint64_t queued)
{
    uint64_t start = etsoc1_now(cpu), go = etsoc1_cycles(t / 2);
    uint64_t arrive = start + go + queued, effect, done;

    bank = write ? bank : NULL;
    if (bank) {
        arrive = bank_serve(cpu, bank, pa, arrive);
    }
    if (!write && w) {
        effect = line_read(cpu, c, w, arrive);
    } else {
        effect = line_clock(c, pa, arrive, write);
    }
    if (bank) {
        bank_served(cpu, bank, pa, effect);
    }
    if (write) {
        unsigned i = etsoc1_line_slot(pa);

        c->ver_size[i] = 0;         /* the word is unknown ... */
        if (w) {
            line_written(c, w);     /* ... unless we are told */
        }
        qatomic_inc(&c->gen[i]);
    }
    done = effect + etsoc1_cycles(t) - go;     /* the way back */
    trace_etsoc1_line_access(cpu->parent_obj.env.mhartid, pa, start, effect,
                             write, w ? w->ret : 0);
    etsoc1_advance_to(cpu, done);
    /* a poll or gate ends with its read */
    etsoc1_trace_wait_end(etsoc1_hart(cpu), etsoc1_now(cpu));
    return done - start;
}

/* round_trip_word without a known word */
static uint64_t round_trip(Etsoc1MinionCPU *cpu, Etsoc1LineClock *c,
                           hwaddr pa, double t, bool write)
{
    return round_trip_word(cpu, c, pa, t, write, NULL, NULL, 0);
}

/*
 * A global atomic or coherent store by @cpu to line @pa: it executes at
 * the line's home slice, after the line's last global write, and is one
 * if @write (it changed memory).  Called with the line clock's lock held
 * (etsoc1_line_clock_of).  The hart waits for the round trip to the home
 * (L3 hit), plus, on a miss, the leg from the home to the line's memory
 * shire and back and its turn there (the operation passed the gate as
 * one that may reach DRAM if the slice did not hold the line then:
 * etsoc1_l3_may_miss); the miss installs the line.
 */
static void l3_access(Etsoc1MinionCPU *cpu, hwaddr pa, bool write,
                      Etsoc1LineWord *w)
{
    unsigned home = etsoc1_l3_home(pa);
    Etsoc1L3SliceState *s = cpu->shire->chip->l3[home];
    uint64_t cycles, queued = 0;
    bool hit;

    if (!s || !etsoc1_l3_cacheable(pa)) {
        return;
    }
    WITH_QEMU_LOCK_GUARD(&s->lock) {
        hit = l3_lookup(s, pa, true);
    }
    if (!hit) {
        queued = etsoc1_dram_take(cpu, etsoc1_memshire_of(pa),
                                  l3_dram_arrival(cpu, pa, etsoc1_now(cpu)),
                                  1);
    }
    cycles = round_trip_word(cpu, &s->written, pa,
                             l3_path(cpu, pa, !hit), write, w, s, queued);
    trace_etsoc1_l3_access(cpu->parent_obj.env.mhartid, home, pa, hit,
                           cycles);
}

void etsoc1_l3_access(Etsoc1MinionCPU *cpu, hwaddr pa, bool write)
{
    l3_access(cpu, pa, write, NULL);
}

/*
 * Would line @pa hit in its home slice?  A look that changes nothing,
 * for a request that may still halt before it is made, or a plain miss
 * that only looks (etsoc1_l3_plain_miss).  Without the slice's lock:
 * what it finds follows the host's order either way.
 */
static bool l3_peek(Etsoc1MachineState *m, hwaddr pa)
{
    Etsoc1L3SliceState *s = m->l3[etsoc1_l3_home(pa)];

    return !s || etsoc1_lru_holds(s->tag + l3_set(s, pa) * s->ways, s->ways,
                                  pa / ETSOC1_LINE | L3_VALID);
}

/*
 * Would a global operation by @cpu on line @pa, made now, miss its home
 * slice and so take a turn at the line's memory shire?  Asked before the
 * gate, so that such operations pass it as requests to DRAM do
 * (etsoc1_dram_gate): one at a time, in the model's order.  What the
 * slice holds by then may differ (another hart's miss installed the line,
 * or evicted it: "Which of two harts ... first takes its miss", in
 * docs/timing.md, Determinism).
 */
bool etsoc1_l3_may_miss(Etsoc1MinionCPU *cpu, hwaddr pa)
{
    return etsoc1_dram_timed(cpu) && etsoc1_l3_cacheable(pa) &&
           !l3_peek(cpu->shire->chip, pa);
}

/*
 * What a global operation by @cpu on line @pa takes a turn at, for the
 * read gate (Etsoc1GateAccess.bank): its home slice's sub-bank
 * (bank_serve), NULL for a line no slice homes.  Operations on one
 * sub-bank pass the gate one at a time, whichever lines they touch.
 */
const void *etsoc1_l3_bank_of(Etsoc1MinionCPU *cpu, hwaddr pa)
{
    Etsoc1L3SliceState *s;

    if (!etsoc1_l3_cacheable(pa)) {
        return NULL;
    }
    s = cpu->shire->chip->l3[etsoc1_l3_home(pa)];
    return s ? &s->bank_until[l3_bank(s, pa)] : NULL;
}

/*
 * A plain load or store by @cpu whose line @pa missed its L1 and its
 * copy of the shire's L2 (etsoc1-l1.c), before it changes any tag: does
 * the home slice hold the line (*@dram false), and if not, how long does
 * the line wait at its memory shire (*@queued)?  False: the hart halts at
 * the gate and the access runs again when let go.
 *
 * A hit only looks: it moves nobody's turn and not the slice's LRU order
 * (without the slice's lock: a tag is one aligned word), so it needs no
 * order.  A miss, with the gate (etsoc1_dram_timed), passes it as a
 * request to DRAM (etsoc1_dram_gate), for the time it reaches the slice
 * (half an L3 hit and its hops after it leaves), and looks again: if an
 * earlier miss brought the line meanwhile, it is a hit; if not, it takes
 * its turn at the memory shire and installs the line, so that the next
 * miss of another hart, or of this one after its L2 let the line go,
 * finds it there as on the chip.  Fills therefore come in the model's
 * order.  Only with the machine's plain-dram-turns, since a gate pass
 * per miss costs a host hand-off each; without it, or without the gate,
 * which is what orders them, plain misses only look (docs/timing.md,
 * "The cache model").  The latency is the caller's (etsoc1_l3_path).
 */
bool etsoc1_l3_plain_miss(Etsoc1MinionCPU *cpu, hwaddr pa, bool *dram,
                          uint64_t *queued)
{
    Etsoc1L3SliceState *s = cpu->shire->chip->l3[etsoc1_l3_home(pa)];
    Etsoc1GateAccess a = { .dram = BIT(etsoc1_memshire_of(pa)) };
    bool hit = l3_peek(cpu->shire->chip, pa);

    *queued = 0;
    *dram = !hit;
    if (!cpu->shire->chip->plain_dram_turns || !etsoc1_dram_timed(cpu)) {
        return true;
    }
    if (hit) {
        /* let go from the gate, and an earlier miss brought it: done */
        if (etsoc1_sync_leave(cpu)) {
            etsoc1_sync_done(cpu);
        }
        return true;
    }
    if (!etsoc1_sync_gate(cpu, etsoc1_now(cpu) +
                          etsoc1_cycles(l3_path(cpu, pa, false) / 2), &a)) {
        return false;
    }
    WITH_QEMU_LOCK_GUARD(&s->lock) {
        hit = l3_lookup(s, pa, true);
    }
    if (!hit) {
        *queued = etsoc1_dram_take(cpu, etsoc1_memshire_of(pa),
                                   l3_dram_arrival(cpu, pa, etsoc1_now(cpu)),
                                   1);
    }
    *dram = !hit;
    etsoc1_sync_done(cpu);
    return true;
}

/* The round trip from @cpu to another shire's scratchpad at @pa. */
static double scp_path(Etsoc1MinionCPU *cpu, hwaddr pa)
{
    const Etsoc1Timing *tm = cpu->timing;

    return etsoc1_t(tm, ETSOC1_T_SCP_REMOTE_CYC) +
           etsoc1_t(tm, ETSOC1_T_SCP_REMOTE_NS) +
           etsoc1_hops(cpu->shire->shire_id, etsoc1_scp_shire(pa)) *
           etsoc1_t(tm, ETSOC1_T_MESH_HOP_RTT);
}

/*
 * When a global request by @cpu for @pa (DRAM, or another shire's
 * scratchpad) would reach the line if it left now.
 */
uint64_t etsoc1_global_arrival(Etsoc1MinionCPU *cpu, hwaddr pa)
{
    double t = etsoc1_l3_cacheable(pa)
               ? l3_path(cpu, pa, !l3_peek(cpu->shire->chip, pa))
               : scp_path(cpu, pa);

    return etsoc1_now(cpu) + etsoc1_cycles(t / 2);
}

/*
 * A scalar global atomic by @cpu on word @w, a @write if it changed
 * memory (@known: a write, or a read whose value may be the one as of its
 * effect time; otherwise the word is not told to the line clock): timed at the home slice or the scratchpad's shire as
 * etsoc1_amo_timing times it, and remembered word by word for the reads
 * in its past (line_written) or future (line_read).  With the line
 * clock's lock held.
 */
void etsoc1_global_access(Etsoc1MinionCPU *cpu, Etsoc1LineWord *w,
                          bool write, bool known)
{
    Etsoc1LineWord *word = known ? w : NULL;
    Etsoc1MachineState *m;
    unsigned target;
    uint64_t cycles;

    w->ret = w->old;
    if (etsoc1_l3_cacheable(w->pa)) {
        l3_access(cpu, w->pa, write, word);
        return;
    }
    m = cpu->shire->chip;
    target = etsoc1_scp_shire(w->pa);
    if (target == cpu->shire->shire_id || target >= m->num_shires) {
        return;
    }
    cycles = round_trip_word(cpu, &m->shire[target].scp_written, w->pa,
                             scp_path(cpu, w->pa), write, word, NULL, 0);
    trace_etsoc1_scp_remote(cpu->parent_obj.env.mhartid, target,
                            etsoc1_hops(cpu->shire->shire_id, target),
                            cycles);
}

/*
 * Host and DMA writes of [@pa, @end) are writes the line clocks do not
 * time; they still wake the polls halted on those lines (all of them
 * for a long write): each written line's slot counts in its home slice's
 * gen[], and etsoc1_sync_written() follows.  Here for a long write, or a
 * write whose lines are not all looked up; otherwise l3_install_run()
 * counts them next to the tags.
 */
static void l3_install_written(Etsoc1MachineState *m, hwaddr pa, hwaddr end)
{
    hwaddr line;

    /*
     * A poll on a line waits on its slot in its home slice's gen[].  Line
     * L and line L + ETSOC1_LINE_CLOCKS have the same slot and (32
     * dividing ETSOC1_LINE_CLOCKS) the same home, so ETSOC1_LINE_CLOCKS
     * lines in a row reach every (home, slot) pair a poll can wait on,
     * each once: a longer write counts those, one increment each.
     */
    QEMU_BUILD_BUG_ON(ETSOC1_LINE_CLOCKS % ETSOC1_L3_SLICES);
    pa = QEMU_ALIGN_DOWN(pa, ETSOC1_LINE);
    end = MIN(end, pa + ETSOC1_LINE_CLOCKS * ETSOC1_LINE);
    for (line = pa; line < end; line += ETSOC1_LINE) {
        Etsoc1L3SliceState *s = m->l3[etsoc1_l3_home(line)];

        if (s) {
            qatomic_inc(&s->written.gen[etsoc1_line_slot(line)]);
        }
    }
}

/*
 * Install the lines of [@line, @end) homed in slice @s, @line the first,
 * in address order, and count them in gen[] too if @written.  Their sets
 * follow each other (PA[10:6] chose the slice, the bits above the set),
 * so they are counted rather than divided out, and fetched ahead: a DMA
 * walks tag arrays the host's caches do not hold.
 */
static void l3_install_run(Etsoc1L3SliceState *s, hwaddr line, hwaddr end,
                           bool written)
{
    const hwaddr stride = ETSOC1_L3_SLICES * ETSOC1_LINE;
    unsigned set = l3_set(s, line), ahead, k, n;
    hwaddr at;

    QEMU_BUILD_BUG_ON(ETSOC1_L3_SLICES * ETSOC1_LINE != 1 << 11);
    while (line < end) {
        n = MIN((end - line + stride - 1) / stride, L3_INSTALL_BATCH);
        for (k = 0, ahead = set, at = line; k < n; k++, at += stride) {
            __builtin_prefetch(&s->tag[ahead * s->ways], 1);
            __builtin_prefetch(&s->used[ahead * s->ways], 1);
            if (written) {
                __builtin_prefetch(&s->written.gen[etsoc1_line_slot(at)], 1);
            }
            if (++ahead == s->sets) {
                ahead = 0;
            }
        }
        for (k = 0, at = line; written && k < n; k++, at += stride) {
            qatomic_inc(&s->written.gen[etsoc1_line_slot(at)]);
        }
        QEMU_LOCK_GUARD(&s->lock);
        for (k = 0; k < n; k++) {
            l3_lookup_in(s, set, line, true);
            line += stride;
            if (++set == s->sets) {
                set = 0;
            }
        }
    }
}

/*
 * Host and DMA writes of [@pa, @pa + @len) land in the L3: each line is
 * installed in its home slice (timing.md section 4).  Lines outside DRAM
 * are not cached in the L3.  @more bytes are certain to follow the write
 * at @pa + @len (the rest of a DMA element the caller moves in pieces).
 * Return where the lines looked up begin: those below were only counted.
 */
hwaddr etsoc1_l3_install_ahead(Etsoc1MachineState *m, hwaddr pa, uint64_t len,
                               uint64_t more)
{
    const MemMapEntry *dram = &etsoc1_memmap[ETSOC1_DRAM];
    hwaddr end = pa + len, last, from, line, span = 0;
    bool in_runs;
    unsigned i;

    pa = MAX(pa, dram->base);
    end = MIN(end, dram->base + dram->size);
    if (!len || pa >= end) {
        return pa;
    }
    last = MIN(end + more, dram->base + dram->size);
    trace_etsoc1_l3_install(pa, end - pa);
    /*
     * Consecutive lines fill every set of every slice in turn, so of a
     * long write only the last slices x size bytes can still be cached:
     * installing just those leaves the same tags, in the same LRU order
     * (and, with the clocks ticked for the lines skipped, the same LRU
     * clocks).  The same holds for the lines of this part that the bytes
     * still to follow replace.
     */
    for (i = 0; i < ETSOC1_L3_SLICES; i++) {
        if (m->l3[i]) {
            span = MAX(span, m->l3[i]->size);
        }
    }
    span *= ETSOC1_L3_SLICES;
    from = QEMU_ALIGN_DOWN(last - pa > span ? MIN(last - span, end) : pa,
                           ETSOC1_LINE);
    in_runs = from <= pa &&
              (end - pa) / ETSOC1_LINE < ETSOC1_LINE_CLOCKS;
    if (!in_runs) {
        l3_install_written(m, pa, end);
    }
    /*
     * Slice by slice: each slice sees its lines in address order, as a
     * line-by-line walk would give them to it, and slices share no state,
     * so the tags and LRU clocks come out the same; the lock is taken once
     * per L3_INSTALL_BATCH lines instead of once a line.
     */
    for (i = 0; i < ETSOC1_L3_SLICES; i++) {
        line = from + ((i - etsoc1_l3_home(from)) % ETSOC1_L3_SLICES) *
                      ETSOC1_LINE;
        if (m->l3[i] && from > pa) {
            /*
             * The lines skipped would each have ticked the slice's clock:
             * count them, so that the lines installed get the LRU clocks
             * a walk of every line gives them.
             */
            hwaddr first = QEMU_ALIGN_DOWN(pa, ETSOC1_LINE);
            uint64_t n = (from - first) / ETSOC1_LINE;
            unsigned at = (i - etsoc1_l3_home(first)) % ETSOC1_L3_SLICES;

            WITH_QEMU_LOCK_GUARD(&m->l3[i]->lock) {
                m->l3[i]->clock += n / ETSOC1_L3_SLICES +
                                             (at < n % ETSOC1_L3_SLICES);
            }
        }
        if (m->l3[i] && line < end) {
            l3_install_run(m->l3[i], line, end, in_runs);
        }
    }
    etsoc1_sync_written(m, NULL, 0);
    return MAX(from, pa);
}

void etsoc1_l3_install(Etsoc1MachineState *m, hwaddr pa, uint64_t len)
{
    etsoc1_l3_install_ahead(m, pa, len, 0);
}

/*
 * A cache op by @cpu on line @pa, as far as the L3 sees it
 * (isa.md sections 3 and 11), and its time in minion cycles.  Evicting
 * or flushing to the L3 writes the line back into its home slice: it is
 * there afterwards.  Evicting to memory takes it out of the L3 too;
 * flushing to memory writes it back and keeps it.  A prefetch brings the
 * line through its home slice (our choice: the sources do not say whether
 * the L3 is inclusive), from memory if it was not there.  An op that
 * stops at the L2, or names a scratchpad line, costs an L2 access and
 * leaves the L3 alone.
 */
static double l3_cacheop(Etsoc1MinionCPU *cpu, hwaddr pa,
                         Etsoc1CacheLevel dest, Etsoc1CacheOp op, bool *dram)
{
    Etsoc1L3SliceState *s = cpu->shire->chip->l3[etsoc1_l3_home(pa)];
    bool hit = true;

    trace_etsoc1_l3_cacheop(pa, dest, op);
    *dram = false;
    if (!etsoc1_l3_cacheable(pa) ||
        (op != ETSOC1_CACHEOP_PREFETCH && dest == ETSOC1_CACHE_L2)) {
        /* a scratchpad line too */
        return etsoc1_t(cpu->timing, ETSOC1_T_L2_HIT);
    }
    if (s) {
        QEMU_LOCK_GUARD(&s->lock);
        if (op == ETSOC1_CACHEOP_PREFETCH || dest == ETSOC1_CACHE_L3) {
            hit = l3_lookup(s, pa, true);
        } else if (op == ETSOC1_CACHEOP_EVICT) {
            l3_invalidate(s, pa);
        }
    }
    *dram = op == ETSOC1_CACHEOP_PREFETCH ? !hit : dest == ETSOC1_CACHE_MEM;
    return l3_path(cpu, pa, *dram);
}

/* ---- the memory shires' DRAM ------------------------------------------ */

/*
 * Before @cpu makes requests that may reach DRAM, asked at @t (when they
 * leave for the mesh: past the gate's lookahead after the hart's clock,
 * so a hart that runs holds the gate for them): their turn at the memory
 * shires.  Requests that may reach DRAM (these, and global operations
 * that miss the L3: etsoc1_l3_may_miss) pass the gate one at a time at
 * each memory shire they may reach (@memshires, a bit each), so they
 * take their turns there in the (request time, hart) order, whatever the
 * host ran first (docs/timing.md, "TensorLoads from DRAM").  The caller
 * books its lines (etsoc1_dram_take), then calls etsoc1_sync_done.
 * False: the hart halts at the gate and the CSR write runs again when
 * let go.
 */
bool etsoc1_dram_gate(Etsoc1MinionCPU *cpu, uint64_t t, uint8_t memshires)
{
    Etsoc1GateAccess a = { .dram = memshires };

    return !etsoc1_dram_timed(cpu) || etsoc1_sync_gate(cpu, t, &a);
}

/*
 * @n lines at memory shire @j, reaching it at @at, after etsoc1_dram_gate
 * let @cpu go: how long they wait there.
 */
uint64_t etsoc1_dram_take(Etsoc1MinionCPU *cpu, unsigned j, uint64_t at,
                          unsigned n)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    uint64_t w;

    if (!etsoc1_dram_timed(cpu)) {
        return 0;
    }
    qemu_mutex_lock(&m->port_lock);
    w = etsoc1_memshire_take(m->memshire[j], at, n,
                             etsoc1_t(m->timing, ETSOC1_T_DRAM_LINE));
    qemu_mutex_unlock(&m->port_lock);
    return w;
}

/*
 * What a cache op by VA may name (as Esperanto's simulator checks it):
 * cacheable DRAM at every level; a scratchpad line only while the op
 * stops at the L2 (evict, flush) or the L1 (prefetch).
 */
static bool cacheop_target_ok(hwaddr pa, Etsoc1CacheLevel dest,
                              Etsoc1CacheOp op)
{
    if (etsoc1_l3_cacheable(pa)) {
        return true;
    }
    if (etsoc1_in(ETSOC1_SCP, pa) || etsoc1_in(ETSOC1_SCP_LINEAR, pa)) {
        return dest == (op == ETSOC1_CACHEOP_PREFETCH ? ETSOC1_CACHE_L1
                                                      : ETSOC1_CACHE_L2);
    }
    return false;
}

/* evict_va, flush_va, prefetch_va: the CSR value and x31 (isa.md 3) */
FIELD(CACHEOP_VA, LINES, 0, 4)          /* lines - 1 */
FIELD(CACHEOP_VA, ADDR, 6, 42)          /* VA [47:6] */
FIELD(CACHEOP_VA, DEST, 58, 2)          /* Etsoc1CacheLevel */
FIELD(CACHEOP_VA, TMASK, 63, 1)         /* only lines set in tensor_mask */
FIELD(CACHEOP_X31, STRIDE, 6, 42)       /* bytes between lines, [47:6] */

/*
 * Before a cache op by VA (CSR value @val) that may reach DRAM (a
 * prefetch that misses the L3, an evict or flush to memory): its turn at
 * the memory shires (etsoc1_dram_gate).  False: the hart halts at the
 * gate and the CSR write runs again.
 */
bool etsoc1_l3_cacheop_gate(Etsoc1MinionCPU *cpu, Etsoc1CacheOp op,
                            uint64_t val)
{
    Etsoc1CacheLevel dest = FIELD_EX64(val, CACHEOP_VA, DEST);

    if (op == ETSOC1_CACHEOP_PREFETCH ? dest == ETSOC1_CACHE_MEM
                                      : dest != ETSOC1_CACHE_MEM) {
        return true;
    }
    /* asked when the first line can reach its home slice, the nearest */
    return etsoc1_dram_gate(cpu, etsoc1_now(cpu) +
                            etsoc1_cycles(etsoc1_t(cpu->timing,
                                                   ETSOC1_T_L3_HIT) / 2),
                            ETSOC1_DRAM_ANY);
}

/*
 * A cache op by VA (CSR value @val, x31) issued by @cpu, after
 * etsoc1_l3_cacheop_gate.  It runs in the background, as on the chip: the
 * lines leave one per cacheop.line cycles, and *@done is when the last of
 * them is back, for tensor_wait to wait for; a line that goes to DRAM
 * takes its turn at its memory shire.  An evict or flush to the L1, or a
 * prefetch to memory, does nothing.  A line that does not translate or
 * may not be named (cacheop_target_ok) ends the op: the chip suppresses
 * the fault and reports it in tensor_error[7]; false here.  The lines
 * done and when each is back go to @lines, for the L1 and L2 tags
 * (etsoc1-l1.c).
 * Called from the hart's thread.
 */
bool etsoc1_l3_cacheop_va(Etsoc1MinionCPU *cpu, Etsoc1CacheOp op,
                          uint64_t val, uint64_t *done,
                          Etsoc1CacheopLines *lines)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    target_ulong va = sextract64(FIELD_EX64(val, CACHEOP_VA, ADDR) << 6,
                                 0, 48);
    target_ulong stride = FIELD_EX64(env->gpr[31], CACHEOP_X31, STRIDE) << 6;
    Etsoc1CacheLevel dest = FIELD_EX64(val, CACHEOP_VA, DEST);
    uint64_t issue = etsoc1_now(cpu);
    double line = etsoc1_t(cpu->timing, ETSOC1_T_CACHEOP_LINE);
    unsigned i;

    *done = issue;
    lines->n = 0;
    lines->dest = dest;
    if (op == ETSOC1_CACHEOP_PREFETCH ? dest == ETSOC1_CACHE_MEM
                                      : dest == ETSOC1_CACHE_L1) {
        return true;
    }
    for (i = 0; i <= FIELD_EX64(val, CACHEOP_VA, LINES); i++) {
        uint64_t back;
        hwaddr pa;
        bool dram;

        if (FIELD_EX64(val, CACHEOP_VA, TMASK) &&
            !(cpu->et->tensor.mask >> i & 1)) {
            continue;
        }
        if (!etsoc1_minion_va_to_pa(cpu, va + i * stride, MMU_DATA_LOAD,
                                    &pa) ||
            !cacheop_target_ok(pa, dest, op)) {
            qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": cache "
                          "op on VA 0x%" PRIx64 " (line %u): not a cacheable "
                          "line for level %u\n", (uint64_t)env->mhartid,
                          (uint64_t)(va + i * stride), i, dest);
            return false;
        }
        back = issue + etsoc1_cycles(i * line + l3_cacheop(cpu, pa, dest,
                                                           op, &dram));
        if (dram) {
            back += etsoc1_dram_take(cpu, etsoc1_memshire_of(pa),
                                     l3_dram_arrival(cpu, pa, issue +
                                                     etsoc1_cycles(i * line)),
                                     1);
        }
        lines->pa[lines->n] = pa;
        lines->back[lines->n++] = back;
        *done = MAX(*done, back);
    }
    return true;
}

/* ---- remote scratchpad ------------------------------------------------- */

static void etsoc1_scp_remote(Etsoc1MinionCPU *cpu, hwaddr pa, bool write,
                              uintptr_t insn, bool each)
{
    Etsoc1MachineState *m = cpu->shire->chip;
    uint64_t hartid = cpu->parent_obj.env.mhartid;
    unsigned shire = cpu->shire->shire_id, hops;
    unsigned target = etsoc1_scp_shire(pa);
    uint64_t cycles;

    if (target == shire || target >= m->num_shires) {
        return;     /* our own L2: no mesh */
    }
    if (!each && cpu->et->scp_last.insn == insn &&
        cpu->et->scp_last.now == etsoc1_now(cpu)) {
        return;     /* another lane or row of the same instruction */
    }
    hops = etsoc1_hops(shire, target);
    cycles = round_trip(cpu, &m->shire[target].scp_written, pa,
                        scp_path(cpu, pa), write);
    cpu->et->scp_last.insn = insn;
    cpu->et->scp_last.now = etsoc1_now(cpu);
    trace_etsoc1_scp_remote(hartid, target, hops, cycles);
}

/*
 * A load or store (@write) by @cpu to another shire's L2 scratchpad at
 * @pa, made by the instruction whose host return address is @insn, with
 * the line clock's lock held (etsoc1_line_clock_of).  The hart waits for
 * the round trip over the mesh; a load there sees the line's last global
 * write.  The accesses one instruction makes (the
 * lanes of a packed load, a misaligned access split in two) are one
 * request and are charged once: the first one's path.
 */
void etsoc1_scp_remote_access(Etsoc1MinionCPU *cpu, hwaddr pa, bool write,
                              uintptr_t insn)
{
    etsoc1_scp_remote(cpu, pa, write, insn, false);
}

/*
 * A global atomic by @cpu at another shire's scratchpad, @write if it
 * changed memory: each one (each lane of a packed atomic) is a round
 * trip of its own.  With the line clock's lock held.
 */
void etsoc1_scp_remote_amo(Etsoc1MinionCPU *cpu, hwaddr pa, bool write,
                           uintptr_t insn)
{
    etsoc1_scp_remote(cpu, pa, write, insn, true);
}

/* ---- the slice device -------------------------------------------------- */

static void etsoc1_l3_slice_reset_enter(Object *obj, ResetType type)
{
    Etsoc1L3SliceState *s = ETSOC1_L3_SLICE(obj);

    trace_etsoc1_l3_reset(s->slice);
    memset(s->tag, 0, s->lines * sizeof(*s->tag));
    memset(s->used, 0, s->lines * sizeof(*s->used));
    s->clock = 0;
    etsoc1_line_clock_reset(&s->written);
    memset(s->bank_until, 0, s->banks * sizeof(*s->bank_until));
}

static void etsoc1_l3_slice_realize(DeviceState *dev, Error **errp)
{
    Etsoc1L3SliceState *s = ETSOC1_L3_SLICE(dev);
    uint64_t set_bytes = (uint64_t)s->ways * ETSOC1_LINE;

    if (s->slice >= ETSOC1_L3_SLICES) {
        error_setg(errp, "slice %u out of range (0..%u)", s->slice,
                   ETSOC1_L3_SLICES - 1);
        return;
    }
    if (!s->ways || s->ways > L3_MAX_WAYS) {
        error_setg(errp, "ways=%u: must be 1 to %u", s->ways, L3_MAX_WAYS);
        return;
    }
    /* the slice is carved out of the shire's SRAM */
    if (!s->size || s->size % set_bytes || s->size > ETSOC1_SCP_SIZE) {
        error_setg(errp, "size=%" PRIu64 ": must be a multiple of ways x "
                   "%u bytes and at most the shire's %u KiB of SRAM",
                   s->size, ETSOC1_LINE, (unsigned)(ETSOC1_SCP_SIZE / KiB));
        return;
    }
    s->sets = s->size / set_bytes;
    if (!s->banks || s->banks > s->sets) {
        error_setg(errp, "banks=%u: must be 1 to the slice's %u sets",
                   s->banks, s->sets);
        return;
    }
    s->lines = s->sets * s->ways;
    s->tag = g_new0(uint64_t, s->lines);
    s->used = g_new0(uint64_t, s->lines);
    s->bank_until = g_new0(uint64_t, s->banks);
    qemu_mutex_init(&s->lock);
    qemu_mutex_init(&s->written.lock);
}

static void etsoc1_l3_slice_unrealize(DeviceState *dev)
{
    Etsoc1L3SliceState *s = ETSOC1_L3_SLICE(dev);

    qemu_mutex_destroy(&s->lock);
    qemu_mutex_destroy(&s->written.lock);
    g_free(s->tag);
    g_free(s->used);
    g_free(s->bank_until);
}

/*
 * A line clock's state, for the L3 slices and the shires' scratchpads
 * alike: each line's last write, and (in a subsection of its owner) the
 * word that write replaced.  The polls' gen[] and polled[] are not
 * migrated: a loaded poll reads again.
 */
const VMStateDescription vmstate_etsoc1_line_clock = {
    .name = "etsoc1-line-clock",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT64_ARRAY(line, Etsoc1LineClock, ETSOC1_LINE_CLOCKS),
        VMSTATE_UINT64_ARRAY(at, Etsoc1LineClock, ETSOC1_LINE_CLOCKS),
        VMSTATE_END_OF_LIST()
    }
};

const VMStateDescription vmstate_etsoc1_line_versions = {
    .name = "etsoc1-line-clock/versions",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT64_ARRAY(ver_pa, Etsoc1LineClock, ETSOC1_LINE_CLOCKS),
        VMSTATE_UINT64_ARRAY(ver_old, Etsoc1LineClock, ETSOC1_LINE_CLOCKS),
        VMSTATE_UINT8_ARRAY(ver_size, Etsoc1LineClock, ETSOC1_LINE_CLOCKS),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_etsoc1_l3_versions = {
    .name = TYPE_ETSOC1_L3_SLICE "/versions",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT(written, Etsoc1L3SliceState, 1,
                       vmstate_etsoc1_line_versions, Etsoc1LineClock),
        VMSTATE_END_OF_LIST()
    }
};

/* Each sub-bank's global writes in turn (bank_serve) */
static const VMStateDescription vmstate_etsoc1_l3_banks = {
    .name = TYPE_ETSOC1_L3_SLICE "/banks",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_VARRAY_UINT32(bank_until, Etsoc1L3SliceState, banks, 0,
                              vmstate_info_uint64, uint64_t),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_etsoc1_l3_slice = {
    .name = TYPE_ETSOC1_L3_SLICE,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT64(clock, Etsoc1L3SliceState),
        VMSTATE_VARRAY_UINT32(tag, Etsoc1L3SliceState, lines, 0,
                              vmstate_info_uint64, uint64_t),
        VMSTATE_VARRAY_UINT32(used, Etsoc1L3SliceState, lines, 0,
                              vmstate_info_uint64, uint64_t),
        VMSTATE_STRUCT(written, Etsoc1L3SliceState, 1,
                       vmstate_etsoc1_line_clock, Etsoc1LineClock),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * []) {
        &vmstate_etsoc1_l3_versions,
        &vmstate_etsoc1_l3_banks,
        NULL
    }
};

static Property etsoc1_l3_slice_props[] = {
    /* in shire @slice, home of the lines with PA[10:6] = @slice */
    DEFINE_PROP_UINT32("slice", Etsoc1L3SliceState, slice, 0),
    /* SRAM given to the L3 and its ways: our choice (docs/timing.md) */
    DEFINE_PROP_SIZE("size", Etsoc1L3SliceState, size, L3_DEFAULT_SIZE),
    DEFINE_PROP_UINT32("ways", Etsoc1L3SliceState, ways, L3_DEFAULT_WAYS),
    /* sub-banks that each take one global write at a time (l3_bank) */
    DEFINE_PROP_UINT32("banks", Etsoc1L3SliceState, banks, L3_DEFAULT_BANKS),
    DEFINE_PROP_END_OF_LIST(),
};

static void etsoc1_l3_slice_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    ResettableClass *rc = RESETTABLE_CLASS(oc);

    dc->desc = "ET-SoC-1 L3 slice (tags only)";
    dc->realize = etsoc1_l3_slice_realize;
    dc->unrealize = etsoc1_l3_slice_unrealize;
    dc->vmsd = &vmstate_etsoc1_l3_slice;
    dc->user_creatable = false;
    device_class_set_props(dc, etsoc1_l3_slice_props);
    rc->phases.enter = etsoc1_l3_slice_reset_enter;
}

static const TypeInfo etsoc1_l3_slice_info = {
    .name = TYPE_ETSOC1_L3_SLICE,
    .parent = TYPE_SYS_BUS_DEVICE,
    .instance_size = sizeof(Etsoc1L3SliceState),
    .class_init = etsoc1_l3_slice_class_init,
};

static void etsoc1_l3_register_types(void)
{
    type_register_static(&etsoc1_l3_slice_info);
}

type_init(etsoc1_l3_register_types)
