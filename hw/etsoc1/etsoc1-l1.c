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
 *  - a store marks its line dirty (write-back: the L2 sees the data only
 *    when the line is written back, by a flush, an evict or as a victim);
 *  - a miss installs the line (write-allocate: a store miss allocates like
 *    a load) in place of a way that is not locked, writing the victim
 *    back first if it is dirty (l1.writeback of l2.hit), and goes on: an
 *    own-scratchpad line costs
 *    l2.hit; a DRAM line asks the shire's L2 (l2.hit), then its home L3
 *    slice (etsoc1_l3_plain_miss: the L3 hit path, or the DRAM path, of
 *    etsoc1_l3_path, and its turn at the memory shire); a line that came
 *    from beyond the L2 is installed there.  The hart waits for the
 *    line: the level's load-to-use latency less what the instruction
 *    already costs, plus l1.miss.hart1 on thread 1; a store waits
 *    l1.store.wait of that.
 * Another shire's scratchpad is timed as I/O (etsoc1-l3.c) and ESR, I/O
 * and uncacheable accesses are not cached: none of them reach the tags.
 *
 * The translator looks each scalar access's line up in the hart's memo
 * (env->et_l1_memo, qemu-patches/0014) and calls etsoc1_l1_access only
 * when it is not there.  The memo holds only lines that are the most
 * recently used of their set (l1_memo), for stores only dirty ones, so
 * an access it skips changes nothing in the tags.
 *
 * The cache-maintenance CSRs act on the same tags (docs/timing.md, "The
 * cache model"): flushes write dirty lines back and keep them, evicts
 * write back and drop, locks keep lines out of the replacement.  Which
 * way lock_sw has locked to which line is also architectural state (a
 * second lock of the way fails with tensor_error[5]), so the locks are
 * kept in the tags with cache-model=off too, where nothing else is.
 *
 * Determinism (docs/timing.md): plain accesses inside a shire are not
 * ordered between harts (a gate pass per L1 or L2 miss would cost a host
 * hand-off each), so what one hart's access finds must not depend on how
 * far the host has run the others:
 *  - the L1 tags are the hart's own (in mode 0 too, where the chip's two
 *    threads share the sets: each thread keeps its own copy);
 *  - each hart keeps its own copy of its shire's L2 tags, of the L2's
 *    full size: a line another hart brought is not a hit for it, and
 *    other harts' lines take none of its room.  So a table that the 64
 *    harts of a shire all read costs each of them its own miss, and 64
 *    harts each see the whole 0.5 MiB (docs/timing.md, the limits);
 *  - the L3 slices are shared by the chip: a plain miss beyond the L2
 *    passes the read gate (etsoc1_l3_plain_miss), so that they look the
 *    slices up and fill them in the model's order, as global operations
 *    and cache ops by VA do; without the gate (poll-halt=off) they only
 *    look.
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qemu/cutils.h"
#include "qemu/lockable.h"
#include "qemu/log.h"
#include "hw/registerfields.h"
#include "hw/etsoc1/etsoc1.h"
#include "hw/etsoc1/etsoc1-cache.h"
#include "hw/etsoc1/etsoc1-l1.h"
#include "hw/etsoc1/etsoc1-tensor.h"
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
    etsoc1_l2_configure(l2, size);
}

/*
 * The L2 has @size bytes of the shire's SRAM from now on (0: none, every
 * access goes past it).  Each hart's copy of the tags takes the new size
 * at its next access, empty (etsoc1_l2_copy).
 */
void etsoc1_l2_configure(Etsoc1ShireL2 *l2, uint64_t size)
{
    qatomic_set(&l2->sets, size / ETSOC1_LINE / l2->ways);
}

/* @cpu's copy of the L2 tags goes (a reset, a migration's load) */
void etsoc1_l2_forget(Etsoc1MinionCPU *cpu)
{
    g_free(cpu->l2_tag);
    g_free(cpu->l2_used);
    cpu->l2_tag = cpu->l2_used = NULL;
    cpu->l2_n = 0;
    cpu->l2_lazy = false;
}

/*
 * @cpu's copy of its shire's L2 tags, of the L2's size now, NULL if the
 * L2 has no sets.  Made at the hart's first access, and again, empty,
 * when the size changed (sc_l2_cache_ctl): on the hart's own thread, the
 * only one that touches it.  The host gives its pages as the hart misses.
 */
static uint64_t *l2_copy(Etsoc1MinionCPU *cpu)
{
    Etsoc1ShireL2 *l2 = &cpu->shire->l2;
    uint32_t n = qatomic_read(&l2->sets) * l2->ways;

    if (cpu->l2_n != n) {
        etsoc1_l2_forget(cpu);
        if (n) {
            cpu->l2_tag = g_new0(uint64_t, n);
            cpu->l2_used = g_new0(uint64_t, n);
            cpu->l2_n = n;
            cpu->l2_lazy = true;
            bitmap_zero(cpu->l2_written, 2 * ETSOC1_L2_COPY_BLOCKS);
        }
    }
    return cpu->l2_tag;
}

/*
 * The first entry of @line's set in @cpu's copy of its shire's L2 tags,
 * or -1 if the L2 has no sets.  The set is the line address modulo the
 * sets (our choice: the sources do not give the L2's index function):
 * lines in a row take sets in a row, so a buffer of up to the L2's size
 * never evicts itself.
 */
static int l2_base(Etsoc1MinionCPU *cpu, uint64_t line)
{
    uint32_t ways = cpu->shire->l2.ways;

    if (!l2_copy(cpu)) {
        return -1;
    }
    return line % (cpu->l2_n / ways) * ways;
}

/*
 * The 4 KiB blocks of @cpu's L2 copy that hold the set at @base: [*@first,
 * *@last] of array @arr (0: the tags, 1: the LRU stamps), numbered from
 * the array's first block, plus ETSOC1_L2_COPY_BLOCKS for the stamps
 */
static void l2_blocks(Etsoc1MinionCPU *cpu, int base, unsigned arr,
                      unsigned *first, unsigned *last)
{
    const uint64_t *a = arr ? cpu->l2_used : cpu->l2_tag;
    uintptr_t start = (uintptr_t)a / (4 * KiB);

    *first = (uintptr_t)&a[base] / (4 * KiB) - start +
             arr * ETSOC1_L2_COPY_BLOCKS;
    *last = (uintptr_t)&a[base + cpu->shire->l2.ways - 1] / (4 * KiB) -
            start + arr * ETSOC1_L2_COPY_BLOCKS;
}

/*
 * Was the set at @base of @cpu's L2 copy ever written (l2_touch)?  If
 * not, it is empty, and a look must not read it: see l2_touch.
 */
static bool l2_set_written(Etsoc1MinionCPU *cpu, int base)
{
    unsigned arr, b, last;

    if (!cpu->l2_lazy) {
        return true;
    }
    for (arr = 0; arr < 2; arr++) {
        for (l2_blocks(cpu, base, arr, &b, &last); b <= last; b++) {
            if (!test_bit(b, cpu->l2_written)) {
                return false;
            }
        }
    }
    return true;
}

/*
 * The set at @base of @cpu's L2 copy is about to be read and written:
 * write its entries (zero: the copy is new) in each block not written
 * yet, before anything reads that block.  The host gives a hart's copy
 * page by page as it misses; a page first read maps the host's shared
 * zero page, and the write after it replaces that page and flushes the
 * TLB of every host CPU running the process, an IPI each (costly in a
 * VM): a full-chip C program's start spent about a quarter of its host
 * time so.  A page first written is just allocated.
 */
static void l2_touch(Etsoc1MinionCPU *cpu, int base)
{
    uint64_t *a;
    unsigned arr, b, last, w;

    if (!cpu->l2_lazy) {
        return;
    }
    for (arr = 0; arr < 2; arr++) {
        a = arr ? cpu->l2_used : cpu->l2_tag;
        for (l2_blocks(cpu, base, arr, &b, &last); b <= last; b++) {
            if (!test_bit(b, cpu->l2_written)) {
                for (w = 0; w < cpu->shire->l2.ways; w++) {
                    a[base + w] = 0;
                }
                set_bit(b, cpu->l2_written);
            }
        }
    }
}

/*
 * @line, asked for by @cpu: a hit makes it the most recently used of its
 * set; a miss puts it in place of the least recently used.  True on a
 * hit.  The hart's own copy of the tags: no other thread touches it.
 */
static bool l2_lookup(Etsoc1MinionCPU *cpu, uint64_t line)
{
    int base = l2_base(cpu, line);

    if (base < 0) {
        return false;
    }
    l2_touch(cpu, base);
    return etsoc1_lru_lookup(cpu->l2_tag + base, cpu->l2_used + base,
                             cpu->shire->l2.ways, line + 1,
                             ++cpu->et->l1.l2_clock, true);
}

/* Does @cpu's copy of its shire's L2 hold @line?  A look, no change. */
static bool l2_holds(Etsoc1MinionCPU *cpu, uint64_t line)
{
    int base = l2_base(cpu, line);

    return base >= 0 && l2_set_written(cpu, base) &&
           etsoc1_lru_holds(cpu->l2_tag + base, cpu->shire->l2.ways,
                            line + 1);
}

/*
 * The L2's read buffer (timing.md 4, "L2 read buffer", 36-37 cycles):
 * **our choice**, the sources give only its enable bits (sc_pipe_ctl
 * l2_rbuf_enable, scp_rbuf_enable, set at reset) and its latency.  It
 * holds the last l2-rbuf-lines lines the L2 or the own scratchpad gave
 * the hart's loads (LRU), in the hart's own copy (as its L2 tags: what a
 * hart finds never depends on the others); a load whose line is there
 * costs l2.rbuf instead of the L2's or the scratchpad's l2.hit.  Stores
 * neither use nor fill it.  True if @line was there; it is now the most
 * recent.
 */
static bool l2_rbuf_read(Etsoc1MinionCPU *cpu, Etsoc1HartL1 *l1,
                         uint64_t line)
{
    unsigned n = cpu->shire->l2.rbuf_lines;

    return n && etsoc1_lru_lookup(l1->rbuf, l1->rbuf_used, n, line + 1,
                                  ++l1->l2_clock, true);
}

/* @cpu's evict takes @line out of its copy of the L2 */
static void l2_drop(Etsoc1MinionCPU *cpu, uint64_t line)
{
    Etsoc1ShireL2 *l2 = &cpu->shire->l2;
    Etsoc1HartL1 *l1 = &cpu->et->l1;
    int base = l2_base(cpu, line);
    unsigned w;

    if (base >= 0 && !l2_set_written(cpu, base)) {
        base = -1;      /* never written: empty (l2_touch) */
    }
    for (w = 0; base >= 0 && w < l2->ways; w++) {
        if (cpu->l2_tag[base + w] == line + 1) {
            cpu->l2_tag[base + w] = 0;
            cpu->l2_used[base + w] = 0;
        }
    }
    for (w = 0; w < l2->rbuf_lines; w++) {     /* nor its read buffer */
        if (l1->rbuf[w] == line + 1) {
            l1->rbuf[w] = 0;
            l1->rbuf_used[w] = 0;
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
 * whatever shared its slot; for stores only if @dirty, so that the first
 * store to it still comes here.
 */
static void l1_memo(Etsoc1MinionCPU *cpu, Etsoc1HartL1 *l1, unsigned set,
                    uint64_t vline, bool dirty)
{
    target_ulong *memo = cpu->parent_obj.env.et_l1_memo;
    target_ulong *smemo = memo + ETSOC1_L1_MEMO_STORE;
    unsigned slot = vline % ETSOC1_L1_MEMO;
    uint64_t old = l1->mru[set];

    if (old) {
        unsigned o = (old - 1) % ETSOC1_L1_MEMO;

        if (memo[o] == old - 1) {
            memo[o] = -1;
        }
        if (smemo[o] == old - 1) {
            smemo[o] = -1;
        }
    }
    memo[slot] = vline;
    smemo[slot] = dirty ? vline : -1;
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
        unsigned set, way, locked = 0;

        /* the chip clears the sets and their locks: say so if it had any */
        for (set = 0; set < ETSOC1_L1_SETS; set++) {
            for (way = 0; way < ETSOC1_L1_WAYS; way++) {
                locked += l1->tag[set][way] &&
                          (l1->state[set][way] & ETSOC1_L1_LOCKED);
            }
        }
        if (locked) {
            qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": "
                          "mcache_control changed with %u locked L1 lines: "
                          "their locks are gone\n",
                          (uint64_t)cpu->parent_obj.env.mhartid, locked);
        }
        memset(l1->tag, 0, sizeof(l1->tag));
        memset(l1->used, 0, sizeof(l1->used));
        memset(l1->state, 0, sizeof(l1->state));
        l1->gen = gen;
        l1->ctl = qatomic_read(&ms->cache_ctl);
        etsoc1_l1_forget(cpu);
    }
}

/* The way of @set that holds @line, or -1 */
static int l1_way(Etsoc1HartL1 *l1, unsigned set, uint64_t line)
{
    unsigned w;

    for (w = 0; w < ETSOC1_L1_WAYS; w++) {
        if (l1->tag[set][w] == line + 1) {
            return w;
        }
    }
    return -1;
}

/*
 * Look @line up in @set; true on a hit.  A miss puts it in place of the
 * least recently used way that is not locked (our choice: LRU; the
 * sources name no policy); a soft-locked way (lock_va) only when every
 * way is locked, as lock_va is a hint (cache-facts.md 1); a hard-locked
 * one (lock_sw) never, and lock_sw leaves one way of a set unlocked.
 * Never-used ways have used = 0 and go first.  *@way is the line's way
 * (ETSOC1_L1_WAYS: not installed); *@victim the state of the line it
 * replaced (0: none, or clean and unlocked).
 */
static bool l1_lookup(Etsoc1HartL1 *l1, unsigned set, uint64_t line,
                      unsigned *way, uint8_t *victim)
{
    unsigned w, v = ETSOC1_L1_WAYS;
    int hit = l1_way(l1, set, line);

    *victim = 0;
    if (hit >= 0) {
        l1->used[set][hit] = ++l1->clock;
        *way = hit;
        return true;
    }
    for (w = 0; w < ETSOC1_L1_WAYS; w++) {
        uint8_t st = l1->tag[set][w] ? l1->state[set][w] : 0;

        if (st & ETSOC1_L1_HARD_LOCK) {
            continue;
        }
        if (v == ETSOC1_L1_WAYS ||
            (st & ETSOC1_L1_SOFT_LOCK) < (l1->state[set][v] &
                                          ETSOC1_L1_SOFT_LOCK) ||
            ((st & ETSOC1_L1_SOFT_LOCK) == (l1->state[set][v] &
                                            ETSOC1_L1_SOFT_LOCK) &&
             l1->used[set][w] < l1->used[set][v])) {
            v = w;
        }
    }
    *way = v;
    if (v == ETSOC1_L1_WAYS) {
        return false;   /* not reached: lock_sw keeps a way of each set */
    }
    if (l1->tag[set][v]) {
        *victim = l1->state[set][v];
    }
    l1->tag[set][v] = line + 1;
    l1->used[set][v] = ++l1->clock;
    l1->state[set][v] = 0;
    return false;
}

/* The cycles a dirty line's write-back to the L2 costs (l1.writeback) */
static double l1_writeback(const Etsoc1Timing *tm)
{
    return etsoc1_t(tm, ETSOC1_T_L1_WRITEBACK) * etsoc1_t(tm, ETSOC1_T_L2_HIT);
}

/* Empty @way of @set */
static void l1_clear(Etsoc1HartL1 *l1, unsigned set, unsigned way)
{
    l1->tag[set][way] = 0;
    l1->used[set][way] = 0;
    l1->state[set][way] = 0;
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
 * Remembers the line as the hart's last (the translator's check).  False
 * if the hart halts at the gate (a miss beyond the L2, before any tag
 * changed: etsoc1_l3_plain_miss); the access then runs again.
 */
static bool l1_access(Etsoc1MinionCPU *cpu, uint64_t va, hwaddr pa,
                      bool store, double paid)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    const Etsoc1Timing *tm = cpu->timing;
    uint64_t line = pa / ETSOC1_LINE, stall;
    unsigned first, n, set, way, thread = etsoc1_hart(cpu) & 1;
    Etsoc1MemLevel lvl = ETSOC1_LVL_L2;
    Etsoc1HartL1 *l1;
    double lat, wait;
    uint64_t queued = 0;
    uint8_t victim;
    bool scp, hit, dram;

    if (!l1_cacheable(cpu, pa, &scp)) {
        /* never cached: the memo may skip it for good, loads and stores */
        env->et_l1_memo[va / ETSOC1_LINE % ETSOC1_L1_MEMO] = va / ETSOC1_LINE;
        env->et_l1_memo[ETSOC1_L1_MEMO_STORE + va / ETSOC1_LINE %
                        ETSOC1_L1_MEMO] = va / ETSOC1_LINE;
        return true;
    }
    l1 = l1_of(cpu, &first, &n);
    set = first + line % n;
    if (scp) {
        lvl = ETSOC1_LVL_SCP;
    } else if (l1_way(l1, set, line) < 0 && !l2_holds(cpu, line) &&
               (store || !etsoc1_lru_holds(l1->rbuf, cpu->shire->l2.rbuf_lines,
                                           line + 1))) {
        /* beyond the L2: the home slice, and DRAM behind it */
        if (!etsoc1_l3_plain_miss(cpu, pa, &dram, &queued)) {
            return false;
        }
        lvl = dram ? ETSOC1_LVL_DRAM : ETSOC1_LVL_L3;
    }
    hit = l1_lookup(l1, set, line, &way, &victim);
    if (way < ETSOC1_L1_WAYS) {
        if (store) {
            l1->state[set][way] |= ETSOC1_L1_DIRTY;
        }
        l1_memo(cpu, l1, set, va / ETSOC1_LINE,
                l1->state[set][way] & ETSOC1_L1_DIRTY);
    }
    if (hit) {
        l1->served[ETSOC1_LVL_L1]++;
        return true;
    }
    lat = etsoc1_t(tm, ETSOC1_T_L2_HIT);
    if (!scp) {
        /* the L2 brings the line in, or makes it its set's most recent */
        l2_lookup(cpu, line);
    }
    if (!store && l2_rbuf_read(cpu, l1, line)) {
        lat = etsoc1_t(tm, ETSOC1_T_L2_RBUF);
    } else if (lvl >= ETSOC1_LVL_L3) {
        lat = cpu->shire->l2.path[lvl == ETSOC1_LVL_DRAM]
                                 [etsoc1_l3_home(pa)];
    }
    l1->served[lvl]++;
    /*
     * A dirty victim goes to the L2 before the line comes (our choice:
     * the sources give the L1 no write-back buffer)
     */
    wait = MAX(lat - paid, 0) + queued +
           (thread ? etsoc1_t(tm, ETSOC1_T_L1_MISS_HART1) : 0) +
           (victim & ETSOC1_L1_DIRTY ? l1_writeback(tm) : 0);
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
    return true;
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
 * False: the hart halts at the gate (l1_access), the caller restarts the
 * instruction.
 */
bool etsoc1_l1_access(Etsoc1MinionCPU *cpu, uint64_t va, bool store)
{
    hwaddr pa;

    return !l1_translate(cpu, va, store, &pa) ||
           l1_access(cpu, va, pa, store,
                     etsoc1_insn_cost(cpu->timing, store ? ET_INSN_STORE
                                                         : ET_INSN_LOAD));
}

/*
 * The line at @va of a packed load or store, or of a gather's or
 * scatter's lane: from the packed helpers (etsoc1-vpu.c), when it is not
 * the hart's last line.  The instruction costs insn.packed; a miss adds
 * the rest of the level's latency.  False: as etsoc1_l1_access.
 */
bool etsoc1_l1_access_packed(Etsoc1MinionCPU *cpu, uint64_t va, bool store)
{
    hwaddr pa;

    return !l1_translate(cpu, va, store, &pa) ||
           l1_access(cpu, va, pa, store,
                     etsoc1_insn_cost(cpu->timing, ET_INSN_PACKED));
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
 * A cache op by VA (etsoc1_l3_cacheop_va) on the line at @pa; returns
 * the cycles it adds to the line's time (tensor_wait waits for it): a
 * dirty line's write-back to the L2 (l1.writeback), or that of the dirty
 * line a prefetch to the L1 puts out.  An evict to the L2 or beyond
 * writes the line back and drops it from the hart's L1 (a soft lock goes
 * with it; a hard-locked line is only written back: lock_sw pins its way
 * until unlock_sw), to the L3 or memory from its copy of the L2 too (the
 * L3 side is etsoc1-l3.c's); a flush writes it back and keeps it; a
 * prefetch to the L1 installs it there and in the L2, to the L2 in the
 * L2, at once (the tags keep no time).  Only the L1's write-back is
 * added: what the levels beyond cost is etsoc1-l3.c's, dirty or not.
 * @dest is an Etsoc1CacheLevel, @op an Etsoc1CacheOp.
 */
uint64_t etsoc1_l1_cacheop(Etsoc1MinionCPU *cpu, uint64_t pa, unsigned dest,
                           unsigned op)
{
    uint64_t line = pa / ETSOC1_LINE;
    unsigned first, n, set, way;
    Etsoc1HartL1 *l1;
    uint8_t victim = 0;
    bool scp, dirty = false;
    int w;

    if (!cpu->parent_obj.cfg.et_l1 || !l1_cacheable(cpu, pa, &scp)) {
        return 0;
    }
    etsoc1_l1_forget(cpu);
    l1 = l1_of(cpu, &first, &n);
    set = first + line % n;
    w = l1_way(l1, set, line);
    switch (op) {
    case ETSOC1_CACHEOP_EVICT:
    case ETSOC1_CACHEOP_FLUSH:
        if (dest < ETSOC1_CACHE_L2) {
            break;
        }
        if (w >= 0) {
            dirty = l1->state[set][w] & ETSOC1_L1_DIRTY;
            l1->state[set][w] &= ~ETSOC1_L1_DIRTY;
            if (op == ETSOC1_CACHEOP_EVICT &&
                !(l1->state[set][w] & ETSOC1_L1_HARD_LOCK)) {
                l1_clear(l1, set, w);
            }
        }
        if (op == ETSOC1_CACHEOP_EVICT && dest >= ETSOC1_CACHE_L3 && !scp) {
            l2_drop(cpu, line);
        }
        break;
    case ETSOC1_CACHEOP_PREFETCH:
        if (dest == ETSOC1_CACHE_L1) {
            l1_lookup(l1, set, line, &way, &victim);
            dirty = victim & ETSOC1_L1_DIRTY;
        }
        if (dest <= ETSOC1_CACHE_L2 && !scp) {
            l2_lookup(cpu, line);
        }
        break;
    default:
        break;
    }
    return dirty ? llround(l1_writeback(cpu->timing)) : 0;
}

/* evict_sw, flush_sw: the CSR value (isa.md section 3) */
FIELD(CACHEOP_SW, COUNT, 0, 4)          /* lines - 1 */
FIELD(CACHEOP_SW, WAY, 6, 2)
FIELD(CACHEOP_SW, SET, 14, 4)
FIELD(CACHEOP_SW, DEST, 58, 2)          /* Etsoc1CacheLevel */
FIELD(CACHEOP_SW, TMASK, 63, 1)         /* only lines set in tensor_mask */

/* lock_sw, unlock_sw */
FIELD(LOCK_SW, ADDR, 6, 34)             /* PA [39:6] */
FIELD(UNLOCK_SW, SET, 6, 4)
FIELD(LOCK_SW, WAY, 55, 2)

/* lock_va, unlock_va and x31, as the other cache ops by VA */
FIELD(LOCK_VA, LINES, 0, 4)             /* lines - 1 */
FIELD(LOCK_VA, ADDR, 6, 42)             /* VA [47:6] */
FIELD(LOCK_VA, TMASK, 63, 1)
FIELD(LOCK_VA_X31, STRIDE, 6, 42)

/*
 * @cpu waits for @dirty lines' write-backs, which leave one per
 * cacheop.line (as the lines of a cache op by VA)
 */
static void l1_writebacks(Etsoc1MinionCPU *cpu, unsigned dirty)
{
    const Etsoc1Timing *tm = cpu->timing;

    if (dirty) {
        etsoc1_stall(cpu, llround((dirty - 1) *
                                  etsoc1_t(tm, ETSOC1_T_CACHEOP_LINE) +
                                  l1_writeback(tm)));
    }
}

/*
 * evict_sw (@evict) or flush_sw by @cpu, CSR value @val: count lines from
 * a set and way, the set first, wrapping to the next way (as Esperanto's
 * simulator walks them), to the L2 or beyond (to the L1: nothing).  Both
 * write a dirty line back; an evict then empties the way in the hart's
 * own tags (its sibling's copy keeps its own lines: the tags are per
 * thread), to the L3 or memory takes its line out of the shire's L2 too,
 * and skips hard-locked lines (lock_sw; their lock stays); a flush keeps
 * every line.  The op completes at once (docs/isa.md): the hart waits
 * for its write-backs, one leaving per cacheop.line.  Ways of the L1
 * scratchpad (sets 0-11 in mode 3) hold no cache line: they are skipped
 * and the guest's error logged.
 */
void etsoc1_l1_cacheop_sw(Etsoc1MinionCPU *cpu, bool evict, uint64_t val)
{
    unsigned set = FIELD_EX64(val, CACHEOP_SW, SET);
    unsigned way = FIELD_EX64(val, CACHEOP_SW, WAY);
    unsigned dest = FIELD_EX64(val, CACHEOP_SW, DEST), i, first, n;
    unsigned dirty = 0, scp_ways = 0;
    bool tags = cpu->parent_obj.cfg.et_l1;
    Etsoc1HartL1 *l1;

    if (dest == ETSOC1_CACHE_L1) {
        return;
    }
    l1 = l1_of(cpu, &first, &n);
    if (tags) {
        etsoc1_l1_forget(cpu);
    }
    for (i = 0; i <= FIELD_EX64(val, CACHEOP_SW, COUNT); i++) {
        uint64_t tag = l1->tag[set][way];

        if ((l1->ctl & ETSOC1_CACHE_SCPENABLE) &&
            set < ETSOC1_L1SCP_LINES / ETSOC1_L1_WAYS) {
            scp_ways++;
        } else if (tags && (!FIELD_EX64(val, CACHEOP_SW, TMASK) ||
                            (cpu->et->tensor.mask >> i & 1)) && tag) {
            dirty += !!(l1->state[set][way] & ETSOC1_L1_DIRTY);
            l1->state[set][way] &= ~ETSOC1_L1_DIRTY;
            if (evict && !(l1->state[set][way] & ETSOC1_L1_HARD_LOCK)) {
                if (dest >= ETSOC1_CACHE_L3) {
                    l2_drop(cpu, tag - 1);
                }
                l1_clear(l1, set, way);
            }
        }
        if (++set == ETSOC1_L1_SETS) {
            set = 0;
            way = (way + 1) % ETSOC1_L1_WAYS;
        }
    }
    if (scp_ways) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": %s_sw "
                      "0x%" PRIx64 " names %u ways of the L1 scratchpad "
                      "(sets 0-11 in mode 3): skipped\n",
                      (uint64_t)cpu->parent_obj.env.mhartid,
                      evict ? "evict" : "flush", val, scp_ways);
    }
    l1_writebacks(cpu, dirty);
}

/*
 * Whether a lock may name the line at @pa: memory the L1 may cache, DRAM
 * or a scratchpad (another shire's too, which the chip caches; the model
 * times it as I/O, so it only keeps the lock)
 */
static bool l1_lockable(hwaddr pa)
{
    return etsoc1_in(ETSOC1_DRAM, pa) || etsoc1_in(ETSOC1_SCP, pa) ||
           etsoc1_in(ETSOC1_SCP_LINEAR, pa);
}

/*
 * lock_sw by @cpu, CSR value @val: lock the physical line in the given
 * way of its set (the set the hart's mode gives it), for good: never
 * replaced, not evicted by evict_sw or evict_va, until unlock_sw or a
 * mode change.  As Esperanto's simulator, it fails with tensor_error[5]
 * if the way is locked already, if the line is locked in another way or
 * if three ways of the set are (one must stay for the cache), and with
 * tensor_error[7] (also) if the line may not be cached; false then, and
 * the guest's error logged.  The chip zeroes the line in the L1 without
 * reading memory: here the data stay QEMU's (a tag model: the line is
 * only marked dirty, as the zeros are owed to memory).  A line the way
 * held is written back if dirty (the hart waits: the op completes at
 * once); the same line in another, unlocked way moves into this one.
 * Kept with cache-model=off too, for the architectural result.
 */
bool etsoc1_l1_lock_sw(Etsoc1MinionCPU *cpu, uint64_t val)
{
    hwaddr pa = FIELD_EX64(val, LOCK_SW, ADDR) << 6;
    unsigned way = FIELD_EX64(val, LOCK_SW, WAY), first, n, set, w, locked;
    uint64_t line = pa / ETSOC1_LINE;
    uint64_t hartid = cpu->parent_obj.env.mhartid;
    Etsoc1HartL1 *l1;
    bool ok = l1_lockable(pa);
    int old;

    etsoc1_l1_sync(cpu);
    l1 = l1_of(cpu, &first, &n);
    set = first + line % n;
    if (!ok) {
        cpu->et->tensor.error |= ETSOC1_TENSOR_ERROR_FAULT;
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": lock_sw "
                      "of PA 0x%" HWADDR_PRIx ": not a line the L1 caches\n",
                      hartid, pa);
    }
    for (w = locked = 0; w < ETSOC1_L1_WAYS; w++) {
        if (!(l1->state[set][w] & ETSOC1_L1_HARD_LOCK)) {
            continue;
        }
        locked++;
        if (w == way || l1->tag[set][w] == line + 1) {
            cpu->et->tensor.error |= ETSOC1_TENSOR_ERROR_LOCK;
            qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": "
                          "lock_sw of PA 0x%" HWADDR_PRIx " to way %u of set "
                          "%u: way %u is locked to PA 0x%" PRIx64 " already\n",
                          hartid, pa, way, set, w,
                          (l1->tag[set][w] - 1) * ETSOC1_LINE);
            return false;
        }
    }
    if (locked >= ETSOC1_L1_WAYS - 1) {
        cpu->et->tensor.error |= ETSOC1_TENSOR_ERROR_LOCK;
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": lock_sw "
                      "of PA 0x%" HWADDR_PRIx ": set %u has %u locked ways, "
                      "the most it may\n", hartid, pa, set, locked);
        return false;
    }
    if (!ok) {
        return false;
    }
    etsoc1_l1_forget(cpu);
    old = l1_way(l1, set, line);
    if (old >= 0 && old != way) {
        l1_clear(l1, set, old);
    }
    if (l1->tag[set][way] && l1->tag[set][way] != line + 1 &&
        (l1->state[set][way] & ETSOC1_L1_DIRTY) &&
        cpu->parent_obj.cfg.et_l1) {
        l1_writebacks(cpu, 1);
    }
    l1->tag[set][way] = line + 1;
    l1->used[set][way] = ++l1->clock;
    l1->state[set][way] = ETSOC1_L1_HARD_LOCK | ETSOC1_L1_DIRTY;
    return true;
}

/*
 * unlock_sw by @cpu, CSR value @val: the way of the set is no longer
 * locked; its line stays, a candidate for replacement again (with
 * cache-model=off, where the tags hold only locks, the way empties).
 * An unlocked way: nothing.
 */
void etsoc1_l1_unlock_sw(Etsoc1MinionCPU *cpu, uint64_t val)
{
    unsigned set = FIELD_EX64(val, UNLOCK_SW, SET);
    unsigned way = FIELD_EX64(val, LOCK_SW, WAY);
    Etsoc1HartL1 *l1 = &cpu->et->l1;

    if (!(l1->state[set][way] & ETSOC1_L1_HARD_LOCK)) {
        return;
    }
    l1->state[set][way] &= ~ETSOC1_L1_HARD_LOCK;
    if (!cpu->parent_obj.cfg.et_l1) {
        l1_clear(l1, set, way);
    }
}

/*
 * lock_va (@lock) or unlock_va by @cpu, CSR value @val and x31 (stride):
 * up to 16 lines, tensor_mask-gated with [63].  lock_va is a hint
 * (cache-facts.md 1): each line is allocated in the hart's L1 and
 * soft-locked, so that it is replaced only when every way of its set is
 * locked; the chip zeroes it without reading memory, so here it costs
 * no fill and is dirty (its data stay QEMU's, as for lock_sw); a dirty
 * line it puts out is written back, the hart waiting (the op completes
 * at once).  unlock_va takes the soft lock off a line the L1 holds.  A
 * line that does not translate or that the L1 may not cache (registers,
 * the uncacheable alias) ends the op with tensor_error[7], as Esperanto's
 * simulator: false.  The tags change only with cache-model=on.
 */
bool etsoc1_l1_lock_va(Etsoc1MinionCPU *cpu, bool lock, uint64_t val)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    target_ulong va = sextract64(FIELD_EX64(val, LOCK_VA, ADDR) << 6, 0, 48);
    target_ulong stride = FIELD_EX64(env->gpr[31], LOCK_VA_X31, STRIDE) << 6;
    bool tags = cpu->parent_obj.cfg.et_l1, scp;
    unsigned i, first, n, set, way, dirty = 0;
    Etsoc1HartL1 *l1;
    uint8_t victim;
    hwaddr pa;
    int w;

    etsoc1_l1_sync(cpu);
    etsoc1_l1_forget(cpu);
    l1 = l1_of(cpu, &first, &n);
    for (i = 0; i <= FIELD_EX64(val, LOCK_VA, LINES); i++) {
        if (FIELD_EX64(val, LOCK_VA, TMASK) &&
            !(cpu->et->tensor.mask >> i & 1)) {
            continue;
        }
        if (!etsoc1_minion_va_to_pa(cpu, va + i * stride, MMU_DATA_LOAD,
                                    &pa) ||
            !l1_lockable(pa)) {
            qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": %s_va "
                          "of VA 0x%" PRIx64 " (line %u): not a cacheable "
                          "line\n", (uint64_t)env->mhartid,
                          lock ? "lock" : "unlock",
                          (uint64_t)(va + i * stride), i);
            cpu->et->tensor.error |= ETSOC1_TENSOR_ERROR_FAULT;
            l1_writebacks(cpu, dirty);
            return false;
        }
        if (!tags || !l1_cacheable(cpu, pa, &scp)) {
            continue;
        }
        set = first + pa / ETSOC1_LINE % n;
        if (lock) {
            l1_lookup(l1, set, pa / ETSOC1_LINE, &way, &victim);
            dirty += !!(victim & ETSOC1_L1_DIRTY);
            if (way < ETSOC1_L1_WAYS &&
                !(l1->state[set][way] & ETSOC1_L1_HARD_LOCK)) {
                l1->state[set][way] |= ETSOC1_L1_SOFT_LOCK | ETSOC1_L1_DIRTY;
            }
        } else {
            w = l1_way(l1, set, pa / ETSOC1_LINE);
            if (w >= 0) {
                l1->state[set][w] &= ~ETSOC1_L1_SOFT_LOCK;
            }
        }
    }
    l1_writebacks(cpu, dirty);
    return true;
}

/*
 * Whether @cpu's L1 tags go into the migration stream (etsoc1-shire.c):
 * with cache-model=off only if they hold locks, so that such a machine
 * migrates as before the cache model; with it on if the hart has used
 * its L1 or taken a mode.
 */
bool etsoc1_l1_vmstate_needed(Etsoc1MinionCPU *cpu)
{
    Etsoc1HartL1 *l1 = &cpu->et->l1;

    if (!buffer_is_zero(l1->tag, sizeof(l1->tag))) {
        return true;
    }
    return cpu->parent_obj.cfg.et_l1 &&
           (l1->clock || l1->ctl ||
            l1->gen != qatomic_read(&etsoc1_minion_state(cpu)->l1_gen) ||
            !buffer_is_zero(l1->served, sizeof(l1->served)));
}
