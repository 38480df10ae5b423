/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the caches behind plain loads and stores (etsoc1-l1.c,
 * docs/timing.md "The cache model"): each minion hart's view of its
 * minion's L1 D-cache and the shire's L2, as tags and times only.  Misses
 * go on to the L3 slices and DRAM of etsoc1-l3.c.
 *
 * Included by etsoc1-minion.h and etsoc1-shire.h for the state; the
 * functions take the minion CPU (etsoc1-minion.h).
 */

#ifndef HW_ETSOC1_L1_H
#define HW_ETSOC1_L1_H

#include "qemu/units.h"
#include "qemu/thread.h"
#include "hw/etsoc1/etsoc1-map.h"
#include "hw/etsoc1/etsoc1-timing.h"

/* The L1 D-cache of a minion: 16 sets x 4 ways x 64 B (cache-facts.md 1) */
#define ETSOC1_L1_SETS 16
#define ETSOC1_L1_WAYS 4

/* What a hart's L1 tags keep of each line besides its address */
#define ETSOC1_L1_DIRTY         (1u << 0)   /* stored to: a write-back owed */
#define ETSOC1_L1_SOFT_LOCK     (1u << 1)   /* lock_va: kept while it can be */
#define ETSOC1_L1_HARD_LOCK     (1u << 2)   /* lock_sw: never replaced */
#define ETSOC1_L1_LOCKED        (ETSOC1_L1_SOFT_LOCK | ETSOC1_L1_HARD_LOCK)

/*
 * The hart's memo (env->et_l1_memo) has two halves of ETSOC1_L1_MEMO
 * slots: loads look in the first, where each set's most recently used
 * line is; stores in the second, where it is only while it is dirty, as
 * the first store to a clean line makes it dirty and must reach the tags
 * (target/etsoc1/etsoc1-l1-gen.c.inc).  Two halves, not a clean bit a
 * load would mask off: that mask was two more host instructions in
 * every load.
 */
#define ETSOC1_L1_MEMO_STORE    ETSOC1_L1_MEMO

/*
 * The L2's read buffer: up to this many lines (shire property
 * l2-rbuf-lines, default ETSOC1_L2_RBUF_LINES; our choice, the sources
 * give no size)
 */
#define ETSOC1_L2_RBUF_MAX 16
#define ETSOC1_L2_RBUF_LINES 8

/* The level that served a load or store (the hart's miss counters) */
typedef enum Etsoc1MemLevel {
    ETSOC1_LVL_L1,
    ETSOC1_LVL_L2,      /* the shire's L2 cache */
    ETSOC1_LVL_SCP,     /* the own shire's L2 scratchpad */
    ETSOC1_LVL_L3,
    ETSOC1_LVL_DRAM,
    ETSOC1_LVL_COUNT
} Etsoc1MemLevel;

/*
 * One hart's L1 tags.  The sets it may use follow its minion's
 * mcache_control mode (etsoc1_l1_sets); each hart keeps its own copy of
 * the tags, also in mode 0 where the two threads share the sets on the
 * chip (our choice: deterministic; docs/timing.md).  Zeroed at reset.
 */
typedef struct Etsoc1HartL1 {
    uint64_t tag[ETSOC1_L1_SETS][ETSOC1_L1_WAYS];  /* PA line + 1; 0 empty */
    uint64_t used[ETSOC1_L1_SETS][ETSOC1_L1_WAYS]; /* LRU stamps */
    uint8_t state[ETSOC1_L1_SETS][ETSOC1_L1_WAYS]; /* ETSOC1_L1_DIRTY... */
    uint64_t clock;         /* ticks at each lookup */
    uint32_t gen;           /* the minion's l1_gen these tags belong to */
    uint8_t ctl;            /* the mode (mcache_control) taken with it */
    /* the VA line + 1 of each set's most recently used line, in the memo */
    uint64_t mru[ETSOC1_L1_SETS];
    uint64_t served[ETSOC1_LVL_COUNT];  /* accesses per serving level */
    uint64_t l2_clock;      /* ticks at each lookup in its L2 copy */
    /* its copy of the L2's read buffer: PA line + 1, LRU stamps (l2_clock) */
    uint64_t rbuf[ETSOC1_L2_RBUF_MAX];
    uint64_t rbuf_used[ETSOC1_L2_RBUF_MAX];
    /* migration only: its minion's mode changed since it took it */
    bool behind;
} Etsoc1HartL1;

/*
 * A shire's L2 cache: its size and what a miss beyond it costs.  Its tags
 * are a copy per hart (Etsoc1MinionCPU l2_tag, each of the L2's full
 * size), LRU (etsoc1-l1.c, "Determinism"; docs/timing.md).
 */
typedef struct Etsoc1ShireL2 {
    uint32_t sets;          /* sc_l2_cache_ctl's size (etsoc1_l2_configure) */
    uint32_t ways;
    uint32_t rbuf_lines;    /* the read buffer's size (l2-rbuf-lines) */
    /*
     * Load-to-use of a line that misses the L2, by its home slice
     * (PA[10:6], whose low bits are its memory shire's): the L3 hit path
     * [0] and the DRAM path [1] from this shire (etsoc1_l3_path), made
     * once, as the mesh's hops are the map's
     */
    double path[2][ETSOC1_L3_SLICES];
} Etsoc1ShireL2;

#define ETSOC1_L2_DEFAULT_SIZE (512 * KiB)
#define ETSOC1_L2_WAYS 4

typedef struct Etsoc1MinionCPU Etsoc1MinionCPU;

void etsoc1_l2_init(Etsoc1ShireL2 *l2, uint64_t size, const Etsoc1Timing *tm,
                    unsigned shire);
void etsoc1_l2_configure(Etsoc1ShireL2 *l2, uint64_t size);
void etsoc1_l2_forget(Etsoc1MinionCPU *cpu);
bool etsoc1_l1_access(Etsoc1MinionCPU *cpu, uint64_t va, bool store);
bool etsoc1_l1_access_packed(Etsoc1MinionCPU *cpu, uint64_t va, bool store);
void etsoc1_l1_mode_changed(Etsoc1MinionCPU *cpu);
void etsoc1_l1_sync(Etsoc1MinionCPU *cpu);
void etsoc1_l1_forget(Etsoc1MinionCPU *cpu);
void etsoc1_l1_cacheop_sw(Etsoc1MinionCPU *cpu, bool evict, uint64_t val);
uint64_t etsoc1_l1_cacheop(Etsoc1MinionCPU *cpu, uint64_t pa, unsigned dest,
                           unsigned op);
bool etsoc1_l1_lock_sw(Etsoc1MinionCPU *cpu, uint64_t val);
void etsoc1_l1_unlock_sw(Etsoc1MinionCPU *cpu, uint64_t val);
bool etsoc1_l1_lock_va(Etsoc1MinionCPU *cpu, bool lock, uint64_t val);
bool etsoc1_l1_vmstate_needed(Etsoc1MinionCPU *cpu);

#endif
