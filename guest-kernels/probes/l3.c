/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * L3 latency probe (docs/timing.md, "L3 and memory").
 *
 * Hart 0 of every shire times global atomic loads (amoorg.d with x0) to a
 * line of every home slice (PA[10:6]) with its own cycle counter.  Each
 * figure is the median over PROBE_RUNS runs of N accesses, minus the same
 * loop with the local form (amoorl.d, which stays in the shire's L2), per
 * access: what the L3 adds to the instruction.
 *
 *   probe l3-hit shire=S home=H hops=N cycles=C       line in the L3
 *   probe l3-miss shire=S home=H mem=M hops=N memhops=K cycles=C
 *                                                     fresh lines: DRAM
 *   probe l3-sbg shire=S home=H hops=N cycles=C       coherent store (sbg)
 *   probe l3-famo shire=S lanes=8 cycles=C            famoorg.pi, lane e to
 *                                                     home e, all hits
 *   probe l3-install shire=S home=H first=C second=C  a fresh line twice
 *   probe l3-lru shire=S home=H ways=W fill=F cycles=C
 *        F fresh lines of one set, then the first again: still there
 *        while F <= W, evicted (least recently used) at F = W + 1
 *   probe l3-cacheop shire=0 op=O dest=D lines=16 issue=C wait=C
 *        a cache op by VA (O: prefetch, evict, flush; D its level) on 16
 *        lines of homes 0..15: the cycles its CSR write took, and those
 *        until tensor_wait (6, or 4 for the prefetch) returned
 *
 * The slice geometry comes from the device tree.  hops and memhops label
 * the output from timing.md's map; they are not used to compute anything.
 */
#include "etsoc1.h"
#include "et-vpu.h"
#include "probe.h"

#define N 16                            /* accesses per timed run */
#define HOMES 32
#define LINE 64
#define ROW 2048                        /* PA[10:6] cycles every 2 KiB */
#define AREA(s) (DRAM_BASE + (256ULL << 20) + (uint64_t)(s) * (16ULL << 20))
#define HIT_AREA(s)   AREA(s)                       /* a line per home */
#define FRESH_AREA(s) (AREA(s) + (1ULL << 20))      /* never touched */
#define LOCAL_AREA(s) (AREA(s) + (8ULL << 20))      /* local atomics only */
#define LRU_AREA      (DRAM_BASE + (64ULL << 20))
#define LRU_SPAN      (160ULL << 20)
#define MAX_SHIRES 34

/*
 * mcycle across @n executions of @insn, starting at %3 = @p and moving by
 * @stride each time.  The timed and the overhead loop differ only in the
 * instruction, so their difference is what the memory system adds.
 */
#define TIMED_LOOP(name, insn)                                              \
    static uint64_t name(uint64_t p, uint64_t stride, uint64_t n)           \
    {                                                                       \
        uint64_t a, b, t;                                                   \
        __asm__ volatile("csrr %0, mcycle\n"                                \
                         "1:\t" insn "\n\t"                                 \
                         "add %3, %3, %5\n\t"                               \
                         "addi %4, %4, -1\n\t"                              \
                         "bnez %4, 1b\n\t"                                  \
                         "csrr %1, mcycle"                                  \
                         : "=&r"(a), "=&r"(b), "=&r"(t), "+r"(p), "+r"(n)   \
                         : "r"(stride) : "memory");                         \
        (void)t;                                                            \
        return b - a;                                                       \
    }

TIMED_LOOP(amoorg, "amoorg.d %2, x0, (%3)")
TIMED_LOOP(amoorl, "amoorl.d %2, x0, (%3)")
TIMED_LOOP(sbg, "sbg x0, (%3)")
TIMED_LOOP(sbl, "sbl x0, (%3)")
/* famoor{g,l}.pi: lane e at %3 + f1[e], data and old value in f4 */
TIMED_LOOP(famoorg, "famoorg.pi f4, f1(%3)")
TIMED_LOOP(famoorl, "famoorl.pi f4, f1(%3)")

typedef uint64_t (*loop_fn)(uint64_t p, uint64_t stride, uint64_t n);

/* Median extra cycles per access of @timed at @p over @overhead at @q. */
static uint64_t probe(loop_fn timed, uint64_t p, loop_fn overhead,
                      uint64_t q, uint64_t stride, uint64_t n,
                      uint64_t run_step)
{
    uint64_t v[PROBE_RUNS];
    unsigned r;

    for (r = 0; r < PROBE_RUNS; r++) {
        uint64_t o = overhead(q + r * run_step, stride, n);

        v[r] = per_access(timed(p + r * run_step, stride, n), o, n);
    }
    return median(v, PROBE_RUNS);
}

static uint64_t hit[MAX_SHIRES][HOMES], miss[MAX_SHIRES][HOMES];
static uint64_t store[MAX_SHIRES][HOMES], famo[MAX_SHIRES];
static uint32_t lane_idx[8] __attribute__((aligned(32)));
static uint32_t zeros[8] __attribute__((aligned(32)));

static void measure(unsigned shire)
{
    unsigned h, e;

    for (h = 0; h < HOMES; h++) {
        uint64_t line = HIT_AREA(shire) + h * LINE;

        amoorg(line, 0, 1);                 /* the miss installs it */
        hit[shire][h] = probe(amoorg, line, amoorl, LOCAL_AREA(shire), 0,
                              N, 0);
        store[shire][h] = probe(sbg, line, sbl, LOCAL_AREA(shire), 0, N, 0);
        /* run r, access i: row r * N + i of the fresh area */
        miss[shire][h] = probe(amoorg, FRESH_AREA(shire) + h * LINE, amoorl,
                               LOCAL_AREA(shire), ROW, N, N * ROW);
    }

    /* eight lanes to homes 0..7, their lines installed above */
    for (e = 0; e < 8; e++) {
        lane_idx[e] = e * LINE;
    }
    set_m0(0xff);
    FLW_PS(f1, lane_idx);
    FLW_PS(f4, zeros);
    famo[shire] = probe(famoorg, HIT_AREA(shire), famoorl, LOCAL_AREA(shire),
                        0, N, 0);
}

/* One access to a fresh line, then another to it. */
static void install_probe(void)
{
    const unsigned home = 5;
    uint64_t first[PROBE_RUNS], second[PROBE_RUNS];
    unsigned r;

    for (r = 0; r < PROBE_RUNS; r++) {
        /* rows above those of the miss probe */
        uint64_t line = FRESH_AREA(0) + (PROBE_RUNS * N + r) * ROW +
                        home * LINE;
        uint64_t o = amoorl(LOCAL_AREA(0), 0, 1);

        first[r] = per_access(amoorg(line, 0, 1), o, 1);
        second[r] = per_access(amoorg(line, 0, 1), o, 1);
    }
    print("probe l3-install shire=0 home=%u first=%lu second=%lu\n", home,
          median(first, PROBE_RUNS), median(second, PROBE_RUNS));
}

/* @fill fresh lines of one set of slice @home, then the first one again. */
static void lru_probe(unsigned home, unsigned ways, uint64_t set_stride,
                      unsigned fill)
{
    uint64_t v[PROBE_RUNS];
    unsigned r, k;

    for (r = 0; r < PROBE_RUNS; r++) {
        /* a different set for each run and each fill */
        uint64_t first = LRU_AREA + (fill * PROBE_RUNS + r) * ROW +
                         home * LINE;
        uint64_t o = amoorl(LOCAL_AREA(0), 0, 1);

        for (k = 0; k < fill; k++) {
            amoorg(first + k * set_stride, 0, 1);
        }
        v[r] = per_access(amoorg(first, 0, 1), o, 1);
    }
    print("probe l3-lru shire=0 home=%u ways=%u fill=%u cycles=%lu\n", home,
          ways, fill, median(v, PROBE_RUNS));
}

/*
 * mcycle across "csrw @csr, val; csrw tensor_wait, ev" with x31 = one line
 * (the stride, prefetch id 0); *issue is the part up to the first csrw's
 * end.
 */
#define CACHEOP_TIMED(name, csr)                                            \
    static uint64_t name(uint64_t val, uint64_t ev, uint64_t *issue)        \
    {                                                                       \
        register uint64_t x31 __asm__("x31") = LINE;                        \
        uint64_t a, b, c;                                                   \
        __asm__ volatile("csrr %0, mcycle\n\t"                              \
                         "csrw " #csr ", %4\n\t"                            \
                         "csrr %1, mcycle\n\t"                              \
                         "csrw 0x830, %5\n\t"                               \
                         "csrr %2, mcycle"                                  \
                         : "=&r"(a), "=&r"(b), "=&r"(c)                     \
                         : "r"(x31), "r"(val), "r"(ev) : "memory");         \
        *issue = b - a;                                                     \
        return c - a;                                                       \
    }

CACHEOP_TIMED(prefetch_va, 0x81f)
CACHEOP_TIMED(evict_va, 0x89f)
CACHEOP_TIMED(flush_va, 0x8bf)

typedef uint64_t (*cacheop_fn)(uint64_t val, uint64_t ev, uint64_t *issue);

/* One cache op on the 16 lines at @base, less an op that does nothing. */
static void cacheop_probe(const char *name, cacheop_fn op, uint64_t ev,
                          unsigned dest, uint64_t base)
{
    uint64_t issue, idle, o, t;

    o = evict_va(base | 15, 6, &idle);      /* to the L1: nothing to do */
    t = op((uint64_t)dest << 58 | base | 15, ev, &issue);
    print("probe l3-cacheop shire=0 op=%s dest=%u lines=16 issue=%lu "
          "wait=%lu\n", name, dest, issue > idle ? issue - idle : 0,
          t > o ? t - o : 0);
}

/*
 * Fresh lines, homes 0..15: prefetched into the L3 (misses), again
 * (hits), evicted to memory, prefetched (misses again), flushed to the
 * L3, evicted to the L2.
 */
static void cacheops(void)
{
    uint64_t base = FRESH_AREA(0) + 200 * ROW;  /* above the other rows */

    cacheop_probe("prefetch", prefetch_va, 4, 2, base);
    cacheop_probe("prefetch", prefetch_va, 4, 2, base);
    cacheop_probe("evict", evict_va, 6, 3, base);
    cacheop_probe("prefetch", prefetch_va, 4, 2, base);
    cacheop_probe("flush", flush_va, 6, 2, base);
    cacheop_probe("evict", evict_va, 6, 1, base);
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned slice = fdt_root_u32(fdt, "esperanto,l3-slice-size", 0);
    unsigned ways = fdt_root_u32(fdt, "esperanto,l3-ways", 0);
    unsigned s, h;

    if (hartid % HARTS_PER_SHIRE != 0 || hart_shire(hartid) >= 32) {
        return 0;                           /* one requester per shire */
    }
    measure(hart_shire(hartid));
    if (hartid != 0) {
        fcc_send(0, 0, 0, 1u << 0);         /* done: tell hart 0 */
        return 0;
    }
    for (s = 1; s < shires && s < 32; s++) {
        fcc_wait(0);
    }

    for (s = 0; s < shires && s < 32; s++) {
        for (h = 0; h < HOMES; h++) {
            print("probe l3-hit shire=%u home=%u hops=%u cycles=%lu\n", s, h,
                  probe_hops(s, h), hit[s][h]);
        }
        for (h = 0; h < HOMES; h++) {
            print("probe l3-miss shire=%u home=%u mem=%u hops=%u memhops=%u "
                  "cycles=%lu\n", s, h, h % 8, probe_hops(s, h),
                  probe_memhops(h, h % 8), miss[s][h]);
        }
        for (h = 0; h < HOMES; h++) {
            print("probe l3-sbg shire=%u home=%u hops=%u cycles=%lu\n", s, h,
                  probe_hops(s, h), store[s][h]);
        }
        print("probe l3-famo shire=%u lanes=8 cycles=%lu\n", s, famo[s]);
    }

    install_probe();
    cacheops();
    if (ways && slice) {
        uint64_t set_stride = (uint64_t)slice / LINE / ways * ROW;

        if ((ways + 1) * set_stride + 2 * (ways + 1) * PROBE_RUNS * ROW <=
            LRU_SPAN) {
            lru_probe(7, ways, set_stride, ways);
            lru_probe(7, ways, set_stride, ways + 1);
        }
    }
    print("probe l3 done\n");
    return 0;
}
