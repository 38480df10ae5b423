/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the caches behind plain loads and stores
 * (docs/timing.md, "The cache model"; facts in
 * docs/research/cache-facts.md).  Tags and times only: QEMU's RAM holds
 * the data, so nothing here changes what a guest reads.
 *
 * A plain load or store (scalar, F, packed, gather and scatter lanes)
 * of cacheable DRAM or of the hart's own shire's L2 scratchpad asks its
 * minion's L1 D-cache:
 *  - a hit costs nothing beyond the instruction (insn.load is the L1
 *    hit, 5 cycles);
 *  - a miss installs the line (write-back, write-allocate: a store miss
 *    allocates like a load) and goes on: an own-scratchpad line costs
 *    l2.hit; a DRAM line asks the shire's L2 (l2.hit), then its home L3
 *    slice (etsoc1_l3_holds: the L3 hit path, or the DRAM path, of
 *    etsoc1_l3_path); a line that came from beyond the L2 is installed
 *    there.  The hart waits for the line: the level's load-to-use
 *    latency less what the instruction already costs, plus
 *    l1.miss.hart1 on thread 1; a store waits l1.store.wait of that.
 * Another shire's scratchpad is timed as I/O (etsoc1-l3.c) and ESR, I/O
 * and uncacheable accesses are not cached: none of them reach the tags.
 *
 * The translator looks each scalar access's line up in the hart's memo
 * (env->et_l1_memo, qemu-patches/0014) and calls etsoc1_l1_access only
 * when it is not there.  The memo holds only lines that are the most
 * recently used of their set (l1_memo), so an access it skips changes
 * nothing in the tags.
 *
 * Determinism (docs/timing.md): plain accesses are not ordered between
 * harts (a gate pass per miss would cost a host hand-off each), so what
 * one hart's access finds must not depend on how far the host has run
 * the others:
 *  - the L1 tags are the hart's own (in mode 0 too, where the chip's two
 *    threads share the sets: each thread keeps its own copy);
 *  - each hart keeps its own copy of its shire's L2 tags, of the L2's
 *    full size: a line another hart brought is not a hit for it, and
 *    other harts' lines take none of its room.  So a table that the 64
 *    harts of a shire all read costs each of them its own miss, and 64
 *    harts each see the whole 0.5 MiB (docs/timing.md, the limits);
 *  - the L3 slices are looked up, never filled, by plain misses
 *    (etsoc1_l3_holds): what the L3 holds comes from host and DMA writes,
 *    global operations (ordered by the read gate) and cache ops by VA.
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qemu/lockable.h"
#include "hw/registerfields.h"
#include "hw/etsoc1/etsoc1.h"
#include "hw/etsoc1/etsoc1-cache.h"
#include "hw/etsoc1/etsoc1-l1.h"
#include "trace.h"

/* misses between two samples of a hart's miss counters in trace-json */
#define L1_TRACE_EVERY 64

/* ---- the shire's L2 ----------------------------------------------------- */

void etsoc1_l2_init(Etsoc1ShireL2 *l2, uint64_t size, const Etsoc1Timing *tm,
                    unsigned shire)
{
    unsigned h;

    for (h = 0; h < ETSOC1_L3_SLICES; h++) {
        l2->path[0][h] = etsoc1_l3_path(tm, shire, h * ETSOC1_LINE, false);
        l2->path[1][h] = etsoc1_l3_path(tm, shire, h * ETSOC1_LINE, true);
    }
    l2->ways = ETSOC1_L2_WAYS;
    l2->sets = MAX(size / ETSOC1_LINE / l2->ways, 1);
    /* the host gives pages as they are first written: harts that miss */
    l2->tag = g_new0(uint64_t, (size_t)ETSOC1_HARTS_PER_SHIRE * l2->sets *
                               l2->ways);
    l2->used = g_new0(uint64_t, (size_t)ETSOC1_HARTS_PER_SHIRE * l2->sets *
                                l2->ways);
}

void etsoc1_l2_reset(Etsoc1ShireL2 *l2)
{
    size_t n = (size_t)l2->sets * l2->ways;
    unsigned h;

    for (h = 0; h < ETSOC1_HARTS_PER_SHIRE; h++) {
        if (l2->touched[h]) {
            memset(l2->tag + h * n, 0, n * sizeof(*l2->tag));
            memset(l2->used + h * n, 0, n * sizeof(*l2->used));
            l2->touched[h] = false;
        }
    }
}

void etsoc1_l2_free(Etsoc1ShireL2 *l2)
{
    g_free(l2->tag);
    g_free(l2->used);
}

/*
 * The first entry of @line's set in @cpu's copy of its shire's L2 tags.
 * The set is the line address modulo the sets (our choice: the sources do
 * not give the L2's index function): lines in a row take sets in a row,
 * so a buffer of up to the L2's size never evicts itself.
 */
static unsigned l2_base(Etsoc1MinionCPU *cpu, uint64_t line)
{
    Etsoc1ShireL2 *l2 = &cpu->shire->l2;
    unsigned h = etsoc1_hart(cpu) % ETSOC1_HARTS_PER_SHIRE;

    l2->touched[h] = true;
    return (h * l2->sets + line % l2->sets) * l2->ways;
}

/*
 * @line, asked for by @cpu: a hit makes it the most recently used of its
 * set; a miss puts it in place of the least recently used.  True on a
 * hit.  The hart's own copy of the tags: no other thread touches it.
 */
static bool l2_lookup(Etsoc1MinionCPU *cpu, uint64_t line)
{
    Etsoc1ShireL2 *l2 = &cpu->shire->l2;
    unsigned base = l2_base(cpu, line);

    return etsoc1_lru_lookup(l2->tag + base, l2->used + base, l2->ways,
                             line + 1, ++cpu->et->l1.l2_clock, true);
}

/*
 * @cpu asks its shire's L2 for the line at @pa: a hit, or a miss that
 * asks the line's home L3 slice and brings the line into the L2.
 * Returns the level that served it.
 */
static Etsoc1MemLevel l2_access(Etsoc1MinionCPU *cpu, hwaddr pa)
{
    if (l2_lookup(cpu, pa / ETSOC1_LINE)) {
        return ETSOC1_LVL_L2;
    }
    return etsoc1_l3_holds(cpu, pa) ? ETSOC1_LVL_L3 : ETSOC1_LVL_DRAM;
}

/* @cpu's evict takes @line out of its copy of the L2 */
static void l2_drop(Etsoc1MinionCPU *cpu, uint64_t line)
{
    Etsoc1ShireL2 *l2 = &cpu->shire->l2;
    unsigned base = l2_base(cpu, line), w;

    for (w = 0; w < l2->ways; w++) {
        if (l2->tag[base + w] == line + 1) {
            l2->tag[base + w] = 0;
            l2->used[base + w] = 0;
        }
    }
}

/* ---- the minion's L1 ---------------------------------------------------- */

/*
 * The sets thread @thread may use in mode @ctl (mcache_control [1:0]),
 * from Esperanto's simulator's index functions (cache-facts.md 1):
 * mode 0 all 16 (PA[9:6]); D1Split, thread 0 sets 0-7 (PA[8:6]), thread
 * 1 sets 14-15 (PA[6]); with the L1 scratchpad too, thread 0 sets 12-13.
 */
static void l1_sets(unsigned ctl, unsigned thread, unsigned *first,
                    unsigned *n)
{
    if (!(ctl & ETSOC1_CACHE_D1SPLIT)) {
        *first = 0;
        *n = ETSOC1_L1_SETS;
    } else if (thread) {
        *first = 14;
        *n = 2;
    } else if (ctl & ETSOC1_CACHE_SCPENABLE) {
        *first = 12;
        *n = 2;
    } else {
        *first = 0;
        *n = 8;
    }
}

/* Empty the hart's memo of lines (the tags changed under it) */
void etsoc1_l1_forget(Etsoc1MinionCPU *cpu)
{
    CPURISCVState *env = &cpu->parent_obj.env;

    memset(env->et_l1_memo, 0xff, sizeof(env->et_l1_memo));
    memset(cpu->et->l1.mru, 0, sizeof(cpu->et->l1.mru));
}

/*
 * VA line @vline is now the most recently used of @set: in the memo, in
 * place of the set's previous one (no longer the most recent) and of
 * whatever shared its slot.
 */
static void l1_memo(Etsoc1MinionCPU *cpu, Etsoc1HartL1 *l1, unsigned set,
                    uint64_t vline)
{
    target_ulong *memo = cpu->parent_obj.env.et_l1_memo;
    uint64_t old = l1->mru[set];

    if (old && memo[(old - 1) % ETSOC1_L1_MEMO] == old - 1) {
        memo[(old - 1) % ETSOC1_L1_MEMO] = -1;
    }
    memo[vline % ETSOC1_L1_MEMO] = vline;
    l1->mru[set] = vline + 1;
}

/* The hart's L1 and the sets it uses in the mode it has taken */
static Etsoc1HartL1 *l1_of(Etsoc1MinionCPU *cpu, unsigned *set_first,
                           unsigned *set_n)
{
    Etsoc1HartL1 *l1 = &cpu->et->l1;

    l1_sets(l1->ctl, etsoc1_hart(cpu) & 1, set_first, set_n);
    return l1;
}

/*
 * @cpu takes its minion's mcache_control mode changes: if the mode
 * changed since it last took it, it drops its tags and uses the new
 * mode's sets.  The thread that writes the mode takes it at once; its
 * sibling at its own next cache-control access or credit taken (fcc),
 * which is in its program order and, after a barrier, after the write:
 * taking it at its next lookup instead would follow the host's order of
 * the two threads (docs/timing.md, "The cache model").
 */
void etsoc1_l1_sync(Etsoc1MinionCPU *cpu)
{
    Etsoc1MinionState *ms = etsoc1_minion_state(cpu);
    Etsoc1HartL1 *l1 = &cpu->et->l1;
    uint32_t gen = qatomic_read(&ms->l1_gen);

    if (l1->gen != gen) {
        memset(l1->tag, 0, sizeof(l1->tag));
        memset(l1->used, 0, sizeof(l1->used));
        l1->gen = gen;
        l1->ctl = qatomic_read(&ms->cache_ctl);
        etsoc1_l1_forget(cpu);
    }
}

/*
 * Look @line up in @set; a miss replaces the least recently used way
 * (our choice: LRU; the sources name no policy).  Never-used ways have
 * used = 0 and go first.
 */
static bool l1_lookup(Etsoc1HartL1 *l1, unsigned set, uint64_t line)
{
    return etsoc1_lru_lookup(l1->tag[set], l1->used[set], ETSOC1_L1_WAYS,
                             line + 1, ++l1->clock, true);
}

static void l1_drop(Etsoc1HartL1 *l1, unsigned set, uint64_t line)
{
    unsigned w;

    for (w = 0; w < ETSOC1_L1_WAYS; w++) {
        if (l1->tag[set][w] == line + 1) {
            l1->tag[set][w] = 0;
            l1->used[set][w] = 0;
        }
    }
}

/*
 * Where a line at @pa is cached from: DRAM (through the L2) or the own
 * scratchpad (ETSOC1_LVL_SCP); false if the L1 does not see it.
 */
static bool l1_cacheable(Etsoc1MinionCPU *cpu, hwaddr pa, bool *scp)
{
    unsigned shire;

    *scp = false;
    if (etsoc1_in(ETSOC1_DRAM, pa)) {
        return true;
    }
    if (!etsoc1_in(ETSOC1_SCP, pa)) {
        return false;
    }
    shire = etsoc1_scp_shire(pa);
    *scp = shire == cpu->shire->shire_id || shire == ETSOC1_SCP_LOCAL_SHIRE;
    return *scp;
}

/*
 * A load or store (@store) by @cpu of the line at physical @pa, which
 * the hart named as @va; the instruction's own cost is @paid cycles.
 * Remembers the line as the hart's last (the translator's check).
 */
static void l1_access(Etsoc1MinionCPU *cpu, uint64_t va, hwaddr pa,
                      bool store, double paid)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    const Etsoc1Timing *tm = cpu->timing;
    uint64_t line = pa / ETSOC1_LINE, stall;
    unsigned first, n, set, thread = etsoc1_hart(cpu) & 1;
    Etsoc1MemLevel lvl;
    Etsoc1HartL1 *l1;
    double lat, wait;
    bool scp;

    if (!l1_cacheable(cpu, pa, &scp)) {
        /* never cached: the memo may skip it for good */
        env->et_l1_memo[va / ETSOC1_LINE % ETSOC1_L1_MEMO] = va / ETSOC1_LINE;
        return;
    }
    l1 = l1_of(cpu, &first, &n);
    set = first + line % n;
    l1_memo(cpu, l1, set, va / ETSOC1_LINE);
    if (l1_lookup(l1, set, line)) {
        l1->served[ETSOC1_LVL_L1]++;
        return;
    }
    lat = etsoc1_t(tm, ETSOC1_T_L2_HIT);
    lvl = scp ? ETSOC1_LVL_SCP : l2_access(cpu, pa);
    if (lvl >= ETSOC1_LVL_L3) {
        lat = cpu->shire->l2.path[lvl == ETSOC1_LVL_DRAM]
                                 [etsoc1_l3_home(pa)];
    }
    l1->served[lvl]++;
    wait = MAX(lat - paid, 0) +
           (thread ? etsoc1_t(tm, ETSOC1_T_L1_MISS_HART1) : 0);
    if (store) {
        wait *= etsoc1_t(tm, ETSOC1_T_L1_STORE_WAIT);
    }
    stall = llround(wait);
    etsoc1_stall(cpu, stall);
    trace_etsoc1_l1_miss(etsoc1_hart(cpu), pa, store, lvl, stall);
    /* trace-json: the hart's counters at its first miss, then every 64th */
    if (!((l1->served[ETSOC1_LVL_L2] + l1->served[ETSOC1_LVL_SCP] +
           l1->served[ETSOC1_LVL_L3] + l1->served[ETSOC1_LVL_DRAM] - 1) %
          L1_TRACE_EVERY)) {
        etsoc1_trace_misses(etsoc1_hart(cpu), etsoc1_now(cpu),
                            l1->served[ETSOC1_LVL_L2],
                            l1->served[ETSOC1_LVL_SCP],
                            l1->served[ETSOC1_LVL_L3],
                            l1->served[ETSOC1_LVL_DRAM]);
    }
}

/* The address a data access at @va of @cpu reaches, if it translates */
static bool l1_translate(Etsoc1MinionCPU *cpu, uint64_t va, bool store,
                         hwaddr *pa)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    target_ulong mode = env->priv;

    if (mode == PRV_M && get_field(env->mstatus, MSTATUS_MPRV)) {
        mode = get_field(env->mstatus, MSTATUS_MPP);
    }
    if (mode == PRV_M || get_field(env->satp, SATP64_MODE) == VM_1_10_MBARE) {
        *pa = va;
        return true;
    }
    return etsoc1_minion_va_to_pa(cpu, va, store ? MMU_DATA_STORE
                                                 : MMU_DATA_LOAD, pa);
}

/*
 * A scalar load or store (qemu-patches/0014's hook, through
 * helper_etsoc1_l1) whose line differs from the hart's last one.  An
 * address that does not translate is left to the access, which faults.
 */
void etsoc1_l1_access(Etsoc1MinionCPU *cpu, uint64_t va, bool store)
{
    hwaddr pa;

    if (l1_translate(cpu, va, store, &pa)) {
        l1_access(cpu, va, pa, store,
                  etsoc1_insn_cost(cpu->timing, store ? ET_INSN_STORE
                                                      : ET_INSN_LOAD));
    }
}

/*
 * The line at @va of a packed load or store, or of a gather's or
 * scatter's lane: from the packed helpers (etsoc1-vpu.c), when it is not
 * the hart's last line.  The instruction costs insn.packed; a miss adds
 * the rest of the level's latency.
 */
void etsoc1_l1_access_packed(Etsoc1MinionCPU *cpu, uint64_t va, bool store)
{
    hwaddr pa;

    if (l1_translate(cpu, va, store, &pa)) {
        l1_access(cpu, va, pa, store,
                  etsoc1_insn_cost(cpu->timing, ET_INSN_PACKED));
    }
}

/*
 * @cpu changed its minion's mcache_control mode: the chip empties the
 * sets (a D1Split change clears all 16, an SCPEnable change sets 0-13);
 * here each thread drops all its tags when it takes the change
 * (etsoc1_l1_sync): this one now.
 */
void etsoc1_l1_mode_changed(Etsoc1MinionCPU *cpu)
{
    qatomic_inc(&etsoc1_minion_state(cpu)->l1_gen);
    etsoc1_l1_sync(cpu);
}

/*
 * A cache op by VA (etsoc1_l3_cacheop_va) on the line at @pa, which is
 * back at @at: an evict to the L2 or beyond drops the line from the
 * hart's L1, to the L3 or memory from its copy of the L2 too (the L3
 * side is etsoc1-l3.c's); a prefetch to the L1 installs it there and in
 * the L2, to the L2 in the L2, at once (the tags keep no time: @at is
 * not used; tensor_wait waits for it).  A flush keeps every copy
 * (dirty state is not modelled: write-backs cost nothing).  @dest is an
 * Etsoc1CacheLevel, @op an Etsoc1CacheOp.
 */
void etsoc1_l1_cacheop(Etsoc1MinionCPU *cpu, uint64_t pa, unsigned dest,
                       unsigned op, uint64_t at)
{
    uint64_t line = pa / ETSOC1_LINE;
    unsigned first, n;
    Etsoc1HartL1 *l1;
    bool scp;

    if (!cpu->parent_obj.cfg.et_l1 || !l1_cacheable(cpu, pa, &scp)) {
        return;
    }
    etsoc1_l1_forget(cpu);
    l1 = l1_of(cpu, &first, &n);
    switch (op) {
    case ETSOC1_CACHEOP_EVICT:
        if (dest >= ETSOC1_CACHE_L2) {
            l1_drop(l1, first + line % n, line);
        }
        if (dest >= ETSOC1_CACHE_L3 && !scp) {
            l2_drop(cpu, line);
        }
        break;
    case ETSOC1_CACHEOP_PREFETCH:
        if (dest == ETSOC1_CACHE_L1) {
            l1_lookup(l1, first + line % n, line);
        }
        if (dest <= ETSOC1_CACHE_L2 && !scp) {
            l2_lookup(cpu, line);
        }
        break;
    default:
        break;
    }
}

/* evict_sw, flush_sw: the CSR value (isa.md section 3) */
FIELD(CACHEOP_SW, COUNT, 0, 4)          /* lines - 1 */
FIELD(CACHEOP_SW, WAY, 6, 2)
FIELD(CACHEOP_SW, SET, 14, 4)
FIELD(CACHEOP_SW, DEST, 58, 2)          /* Etsoc1CacheLevel */
FIELD(CACHEOP_SW, TMASK, 63, 1)         /* only lines set in tensor_mask */

/*
 * evict_sw (@evict) or flush_sw by @cpu, CSR value @val: count lines from
 * a set and way, the set first, wrapping to the next way (as Esperanto's
 * simulator walks them).  An evict to the L2 or beyond empties the way in
 * the hart's own tags (its sibling's copy keeps its own lines: the tags
 * are per thread), to the L3 or memory takes its line out of the shire's
 * L2 too; a flush keeps every copy (dirty state is not modelled).  No
 * time is charged, as before the cache model.
 */
void etsoc1_l1_cacheop_sw(Etsoc1MinionCPU *cpu, bool evict, uint64_t val)
{
    unsigned set = FIELD_EX64(val, CACHEOP_SW, SET);
    unsigned way = FIELD_EX64(val, CACHEOP_SW, WAY);
    unsigned dest = FIELD_EX64(val, CACHEOP_SW, DEST), i, first, n;
    Etsoc1HartL1 *l1;

    if (!cpu->parent_obj.cfg.et_l1 || !evict || dest == ETSOC1_CACHE_L1) {
        return;
    }
    l1 = l1_of(cpu, &first, &n);
    etsoc1_l1_forget(cpu);
    for (i = 0; i <= FIELD_EX64(val, CACHEOP_SW, COUNT); i++) {
        uint64_t tag = l1->tag[set][way];

        if ((!FIELD_EX64(val, CACHEOP_SW, TMASK) ||
             (cpu->et->tensor.mask >> i & 1)) && tag) {
            if (dest >= ETSOC1_CACHE_L3) {
                l2_drop(cpu, tag - 1);
            }
            l1->tag[set][way] = 0;
            l1->used[set][way] = 0;
        }
        if (++set == ETSOC1_L1_SETS) {
            set = 0;
            way = (way + 1) % ETSOC1_L1_WAYS;
        }
    }
}
