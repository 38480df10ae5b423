/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: L3 slices, line clocks, global memory operations and
 * remote scratchpads (etsoc1-l3.c, docs/timing.md "L3 and memory",
 * "Causality through memory" and "Remote scratchpad").
 */

#ifndef HW_ETSOC1_L3_H
#define HW_ETSOC1_L3_H

#include "qemu/thread.h"
#include "hw/sysbus.h"
#include "migration/vmstate.h"
#include "hw/etsoc1/etsoc1-map.h"
#include "hw/etsoc1/etsoc1-timing.h"

typedef struct Etsoc1MinionCPU Etsoc1MinionCPU;
typedef struct Etsoc1MachineState Etsoc1MachineState;

/*
 * Causality through memory (docs/timing.md): when the last global write
 * to a line took effect where the line is kept (its home L3 slice, or the
 * shire of its scratchpad), direct-mapped by line address, so that a hart
 * that reads the line there later takes at least that time.  An entry
 * that another line displaced is forgotten: its next reader waits for
 * nothing.  etsoc1-l3.c.
 */
#define ETSOC1_LINE_CLOCKS 4096
typedef struct Etsoc1LineClock {
    QemuMutex lock;     /* a mutex: 2,176 vCPU threads share few host CPUs */
    uint64_t line[ETSOC1_LINE_CLOCKS];  /* line address + 1; 0: empty */
    uint64_t at[ETSOC1_LINE_CLOCKS];
    /*
     * The last global write of each line: the word it changed (address,
     * size in bytes, 0 if unknown) and what that word held before, so
     * that a read which takes effect before the write sees the old value.
     */
    uint64_t ver_pa[ETSOC1_LINE_CLOCKS];
    uint64_t ver_old[ETSOC1_LINE_CLOCKS];
    uint8_t ver_size[ETSOC1_LINE_CLOCKS];
    /* writes per slot, for halted polls (not migrated) */
    uint32_t gen[ETSOC1_LINE_CLOCKS];
    /*
     * When the last write that no line clock times (an ESR, a local
     * atomic, a coherent store: etsoc1_sync_plain_written) took effect
     * there: a poll it wakes sees it no earlier (not migrated).
     */
    uint64_t plain_at[ETSOC1_LINE_CLOCKS];
    uint64_t plain_line[ETSOC1_LINE_CLOCKS];    /* its line address + 1 */
    uint8_t polled[ETSOC1_LINE_CLOCKS];  /* a poll may be halted there */
    hwaddr locked_pa;   /* the line the lock's holder works on */
} Etsoc1LineClock;

void etsoc1_line_clock_reset(Etsoc1LineClock *c);
extern const VMStateDescription vmstate_etsoc1_line_clock;
extern const VMStateDescription vmstate_etsoc1_line_versions;
/*
 * ---- L3 slices, global memory operations and remote scratchpads ----
 * (etsoc1-l3.c, docs/timing.md "L3 and memory" and "Remote scratchpad")
 *
 * QEMU interface of an L3 slice ("etsoc1-l3-slice", 32 created by the
 * machine as /machine/l3[i]): a tag store with no MMIO.
 *  + property "slice": its index; it lives in shire @slice and is the home
 *    of every line with PA[10:6] = @slice
 *  + properties "size" (bytes) and "ways": its geometry
 *  + property "banks": its sub-banks, each taking one global write at a
 *    time (l3.bank.service); a line's is its set modulo banks
 */
#define TYPE_ETSOC1_L3_SLICE "etsoc1-l3-slice"
OBJECT_DECLARE_SIMPLE_TYPE(Etsoc1L3SliceState, ETSOC1_L3_SLICE)


/* Destination level of a cache op, field [59:58] (isa.md section 3). */
typedef enum Etsoc1CacheLevel {
    ETSOC1_CACHE_L1,
    ETSOC1_CACHE_L2,
    ETSOC1_CACHE_L3,
    ETSOC1_CACHE_MEM,
} Etsoc1CacheLevel;

typedef enum Etsoc1CacheOp {
    ETSOC1_CACHEOP_EVICT,       /* evict_va (0x89f): write back, drop */
    ETSOC1_CACHEOP_FLUSH,       /* flush_va (0x8bf): write back, keep */
    ETSOC1_CACHEOP_PREFETCH,    /* prefetch_va (0x81f) */
} Etsoc1CacheOp;

Etsoc1LineClock *etsoc1_line_clock_of(Etsoc1MinionCPU *cpu, hwaddr pa);
void etsoc1_l3_access(Etsoc1MinionCPU *cpu, hwaddr pa, bool write);
bool etsoc1_l3_plain_miss(Etsoc1MinionCPU *cpu, hwaddr pa, bool *dram,
                          uint64_t *queued);
double etsoc1_l3_path(const Etsoc1Timing *tm, unsigned shire, hwaddr pa,
                      bool to_mem);

/*
 * One word of a global operation, as the line clock keeps it: @size
 * bytes at @pa, which held @old before it (and hold @old still after a
 * read).  A read's value comes back in @ret.
 */
typedef struct Etsoc1LineWord {
    hwaddr pa;
    unsigned size;
    uint64_t old;
    uint64_t ret;
} Etsoc1LineWord;

/* How a line clock names line @pa (line[], plain_line[]): 0 is none. */
static inline uint64_t etsoc1_line_tag(hwaddr pa)
{
    return pa / ETSOC1_LINE + 1;
}

/*
 * One set of a tag store with LRU replacement (the L1, L2 and L3 models):
 * look up @want in the @ways ways of @tag (each stamped in @used with its
 * last use), making it used at @now; on a miss, put it in place of the
 * least recently used way if @fill.  Never-used ways have used = 0 and
 * go first.  True on a hit.
 */
static inline bool etsoc1_lru_lookup(uint64_t *tag, uint64_t *used,
                                     unsigned ways, uint64_t want,
                                     uint64_t now, bool fill)
{
    unsigned w, victim = 0;

    for (w = 0; w < ways; w++) {
        if (tag[w] == want) {
            used[w] = now;
            return true;
        }
        if (used[w] < used[victim]) {
            victim = w;
        }
    }
    if (fill) {
        tag[victim] = want;
        used[victim] = now;
    }
    return false;
}

/*
 * Does a set of @ways ways of @tag hold @want?  A look that changes
 * nothing (no LRU stamp), as etsoc1_lru_lookup would find it; each tag
 * is read as one aligned word, so a shared set may be looked at without
 * its lock.
 */
static inline bool etsoc1_lru_holds(const uint64_t *tag, unsigned ways,
                                    uint64_t want)
{
    unsigned w;

    for (w = 0; w < ways; w++) {
        if (qatomic_read(&tag[w]) == want) {
            return true;
        }
    }
    return false;
}

unsigned etsoc1_line_slot(hwaddr pa);
uint64_t etsoc1_line_value_at(Etsoc1LineClock *c, const Etsoc1LineWord *w,
                              uint64_t t);
uint64_t etsoc1_global_arrival(Etsoc1MinionCPU *cpu, hwaddr pa);
void etsoc1_global_access(Etsoc1MinionCPU *cpu, Etsoc1LineWord *w,
                          bool write, bool known);
/*
 * Host and DMA writes of card memory [@pa, @pa + @len) land in their
 * lines' home slices of chip @m; with @more bytes of the same element to
 * come (which will replace most of them), up to the returned address
 * they are only counted, not looked up.
 */
void etsoc1_l3_install(Etsoc1MachineState *m, hwaddr pa, uint64_t len);
hwaddr etsoc1_l3_install_ahead(Etsoc1MachineState *m, hwaddr pa, uint64_t len,
                               uint64_t more);
/* The lines a cache op by VA acted on, and when each was back */
#define ETSOC1_CACHEOP_MAX_LINES 16
typedef struct Etsoc1CacheopLines {
    Etsoc1CacheLevel dest;
    unsigned n;
    hwaddr pa[ETSOC1_CACHEOP_MAX_LINES];
    uint64_t back[ETSOC1_CACHEOP_MAX_LINES];
} Etsoc1CacheopLines;

bool etsoc1_dram_gate(Etsoc1MinionCPU *cpu, uint64_t t, uint8_t memshires);
bool etsoc1_l3_may_miss(Etsoc1MinionCPU *cpu, hwaddr pa);
const void *etsoc1_l3_bank_of(Etsoc1MinionCPU *cpu, hwaddr pa);
uint64_t etsoc1_dram_take(Etsoc1MinionCPU *cpu, unsigned j, uint64_t at,
                          unsigned n);
bool etsoc1_l3_cacheop_gate(Etsoc1MinionCPU *cpu, Etsoc1CacheOp op,
                            uint64_t val);
bool etsoc1_l3_cacheop_va(Etsoc1MinionCPU *cpu, Etsoc1CacheOp op,
                          uint64_t val, uint64_t *done,
                          Etsoc1CacheopLines *lines);
void etsoc1_scp_remote_access(Etsoc1MinionCPU *cpu, hwaddr pa, bool write,
                              uintptr_t insn);
void etsoc1_scp_remote_amo(Etsoc1MinionCPU *cpu, hwaddr pa, bool write,
                           uintptr_t insn);

#endif
