/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cache probe (docs/timing.md, "The cache model"): a pointer chase
 * through plain loads, as issue 27 tried it, for a machine of at least
 * 10 shires.
 *
 * A chain is one random cycle through all the lines of a buffer (one
 * pointer per 64-byte line, Sattolo's shuffle), so that a pass touches
 * every line once and never a line it touched less than a pass ago.
 * Thread 0 of minion 0 of shire 0 times one pass (ld, addi, bnez per
 * step) with its own mcycle, in mode 0 (the reset mode):
 *
 *   probe cache-chase level=L hart=H lines=N base=0xB cycles=C
 *
 * C is mcycle across the pass, the reading csrr included; L is where
 * the chain lives:
 *   l1      32 lines of DRAM after a warm pass: every step hits the L1
 *   evict-sw the same after evict_sw of all 64 set/ways to the L2: every
 *           step misses the L1 and hits the L2
 *   l2      4,096 lines of DRAM (256 KiB) after a pass: L1 misses that
 *           hit the shire's L2
 *   scp     4,096 lines of the own shire's L2 scratchpad
 *   l3      the l2 buffer after evict_va to the L3: misses to its lines'
 *           home L3 slices (PA[10:6])
 *   dram    the l2 buffer after evict_va to memory: on to DRAM, memory
 *           shire PA[8:6]
 *   l2-small the l2 buffer with sc_l2_cache_ctl at 0x20 sets (128 KiB),
 *           after a warm pass: every step misses the L2, and finds its
 *           line in the L3, which the warm pass filled
 *   l2-again the same with the reset size back, after a warm pass: L2 hits
 *   l3-home, dram-home (with home=S hops=N): 128 lines 2 KiB apart, so
 *           of one home slice S (and memory shire S % 8), after evict_va
 *           to the L3 or to memory, one pass: the L3 and DRAM by hops,
 *           for homes 0, 4, 9 and 10 hops away
 *   remote  256 lines of shire 9's scratchpad (2 hops)
 *   prefetch 16 lines of DRAM evicted to memory, then prefetch_va to the
 *           L1 and tensor_wait 4: every step hits
 *   rbuf    6 lines of DRAM in one L1 set (1 KiB apart), after a pass: too
 *           many for the set's 4 ways, so every step misses the L1, but
 *           few enough for the L2's read buffer (8 lines): l2.rbuf
 *   rbuf-full 12 such lines: past the read buffer too, L2 hits
 *   unlocked 2 lines of DRAM read once, then a stream of 32 other lines
 *           through their L1 set: both were put out, they hit the L2
 *   locked  2 lines of another set soft-locked with lock_va (and then
 *           written: lock_va allocates without reading memory), then the
 *           same stream: the locks keep them, they hit the L1
 * and thread 1 of the same minion chases its own 4,096 scratchpad lines
 * at the same time (hart=1, level=scp): its L1 misses pay +3.
 *
 *   probe cache-flush lines=1 clean=F cycles=D
 *        mcycle across a flush_va of one line to the L2 and its
 *        tensor_wait 6, the line dirty (D: a store made it so) and then
 *        clean (F: the first flush wrote it back and kept it); D - F is
 *        the write-back
 *
 *   probe cache-l2ctl reset=0xR small=0xS
 *        sc_l2_cache_ctl of bank 0 at reset, and of bank 2 after the
 *        write to all banks
 *
 *   probe cache-pmu level=dram misses=M l2req=R
 *        the ET performance counters across the dram pass: event 8
 *        (thread 0's D-cache misses) and 10 (the minion's L2 miss
 *        requests), 4,096 each
 */
#include "etsoc1.h"
#include "probe.h"

#define LINE 64
#define BIG 4096
#define SCP(s) (SCP_BASE + (uint64_t)(s) * SCP_WINDOW)
#define L1_AREA (DRAM_BASE + (512ULL << 20))
#define L2_AREA (DRAM_BASE + (520ULL << 20))
#define PF_AREA (DRAM_BASE + (536ULL << 20))
#define LOCK_AREA (DRAM_BASE + (544ULL << 20))
#define FLUSH_AREA (DRAM_BASE + (552ULL << 20))
#define RBUF_AREA (DRAM_BASE + (560ULL << 20))
#define HOME_AREA (DRAM_BASE + (568ULL << 20))
#define HOME_LINES 128
#define HOME_STRIDE (32 * LINE)     /* PA[10:6], the home slice, fixed */
#define SET_STRIDE (16 * LINE)      /* lines of one L1 set in mode 0 */
#define SCP_AREA(t) (SCP(0) + (1ULL << 20) + (t) * (512ULL << 10))
#define REMOTE_SHIRE 9
#define REMOTE_AREA (SCP(REMOTE_SHIRE) + (2ULL << 20))

/* home slices at 0, 4, 9 and 10 hops from shire 0 (timing.md 1) */
static const unsigned homes[] = { 0, 13, 7, 31 };
static uint16_t order[2][BIG];
static uint64_t seed[2] = { 0x2545f4914f6cdd1dULL, 0x9e3779b97f4a7c15ULL };
/* written by hart 1, read by hart 0 after its credit: not in a register */
static volatile uint64_t hart1_cycles;

static uint64_t rnd(unsigned t)
{
    seed[t] = seed[t] * 6364136223846793005ULL + 1442695040888963407ULL;
    return seed[t] >> 33;
}

/*
 * Link the @n lines at @base into one random cycle; returns its first
 * line.  Thread @t's own shuffle state.
 */
static uint64_t chain(unsigned t, uint64_t base, unsigned n)
{
    uint16_t *o = order[t];
    unsigned i;

    for (i = 0; i < n; i++) {
        o[i] = i;
    }
    for (i = n - 1; i > 0; i--) {       /* Sattolo: one cycle */
        unsigned j = rnd(t) % i;
        uint16_t v = o[i];

        o[i] = o[j];
        o[j] = v;
    }
    for (i = 0; i < n; i++) {
        /* a store the compiler must make: the chain is read only in asm */
        *(volatile uint64_t *)(base + (uint64_t)o[i] * LINE) =
            base + (uint64_t)o[(i + 1) % n] * LINE;
    }
    return base + (uint64_t)o[0] * LINE;
}

/* A cache op by VA (@csr) on the @n lines at @base, 16 at a time, waited */
#define CACHEOP(name, csr, wait)                                            \
    static void name(uint64_t base, unsigned n, unsigned dest)              \
    {                                                                       \
        unsigned i;                                                         \
                                                                            \
        for (i = 0; i < n; i += 16) {                                       \
            csr_write_x31(csr, (uint64_t)dest << 58 | (base + i * LINE) |   \
                          15, LINE);                                        \
        }                                                                   \
        csr_write(0x830, wait);     /* tensor_wait */                       \
    }

CACHEOP(evict_va, 0x89f, 6)
CACHEOP(prefetch_va, 0x81f, 4)

/*
 * One pass over HOME_LINES lines of one home slice @home (so of one
 * memory shire, PA[8:6]) after evict_va of them to @dest (2: the L3, 3:
 * memory): every load misses the L1 and L2 and is served there.
 */
static void home_row(unsigned home, unsigned dest)
{
    uint64_t base = HOME_AREA + home * LINE, p;
    unsigned i;

    p = probe_chain(base, HOME_LINES, HOME_STRIDE);
    for (i = 0; i < HOME_LINES; i += 16) {
        csr_write_x31(0x89f, (uint64_t)dest << 58 |
                      (base + i * HOME_STRIDE) | 15, HOME_STRIDE);
    }
    csr_write(0x830, 6);        /* tensor_wait */
    print("probe cache-chase level=%s hart=0 lines=%u base=0x%lx home=%u "
          "hops=%u cycles=%lu\n", dest == 2 ? "l3-home" : "dram-home",
          HOME_LINES, base, home, probe_hops(0, home),
          probe_chase(p, HOME_LINES));
}

/* Loads of @n lines that share the L1 set of @base, past it */
static void stream(uint64_t base, unsigned n)
{
    unsigned i;

    for (i = 1; i <= n; i++) {
        /* a load the compiler must make, though its value is not used */
        (void)*(volatile uint64_t *)(base + i * 4 * SET_STRIDE);
    }
}

/* mcycle across a flush_va of the line at @pa to the L2 and its wait */
static uint64_t flush_round(uint64_t pa)
{
    uint64_t a, b;

    __asm__ volatile("csrr %0, mcycle\n\t"
                     "csrw 0x8bf, %2\n\t"
                     "csrw 0x830, %3\n\t"
                     "csrr %1, mcycle"
                     : "=&r"(a), "=&r"(b)
                     : "r"(1ULL << 58 | pa), "r"(6ULL) : "memory");
    return b - a;
}

static void row(const char *level, unsigned hart, unsigned lines,
                uint64_t base, uint64_t cycles)
{
    print("probe cache-chase level=%s hart=%u lines=%u base=0x%lx "
          "cycles=%lu\n", level, hart, lines, base, cycles);
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    uint64_t p, big, c, m0, r0;

    if (hartid == 1) {
        p = chain(1, SCP_AREA(1), BIG);
        probe_chase(p, BIG);
        hart1_cycles = probe_chase(p, BIG);
        fcc_send(0, 0, 0, 1u << 0);         /* done: tell hart 0 */
        return 0;
    }
    if (hartid != 0) {
        return 0;
    }

    p = chain(0, L1_AREA, 32);
    probe_chase(p, 32);
    row("l1", 0, 32, L1_AREA, probe_chase(p, BIG));
    for (c = 0; c < 4; c++) {   /* 16 lines from set 0 of way c, to L2 */
        csr_write(0x7f9, 1ULL << 58 | c << 6 | 15);
    }
    row("evict-sw", 0, 32, L1_AREA, probe_chase(p, 32));

    big = chain(0, L2_AREA, BIG);
    probe_chase(big, BIG);
    row("l2", 0, BIG, L2_AREA, probe_chase(big, BIG));

    p = chain(0, SCP_AREA(0), BIG);
    probe_chase(p, BIG);
    row("scp", 0, BIG, SCP_AREA(0), probe_chase(p, BIG));

    evict_va(L2_AREA, BIG, 2);
    row("l3", 0, BIG, L2_AREA, probe_chase(big, BIG));
    evict_va(L2_AREA, BIG, 3);
    csr_write(0x323, 8);        /* mhpmevent3: D-cache misses, thread 0 */
    csr_write(0x324, 10);       /* mhpmevent4: L2 miss requests */
    m0 = csr_read(0xb03);
    r0 = csr_read(0xb04);
    c = probe_chase(big, BIG);
    m0 = csr_read(0xb03) - m0;
    r0 = csr_read(0xb04) - r0;
    row("dram", 0, BIG, L2_AREA, c);
    print("probe cache-pmu level=dram misses=%lu l2req=%lu\n", m0, r0);

    /*
     * The L2's size is sc_l2_cache_ctl's: 0x20 sets (128 KiB, 2,048
     * lines) cannot hold the 4,096-line chain, which goes round each set
     * in the same order every pass: every step misses the L2 even after a
     * warm pass, and the L3 serves it (the warm pass's misses filled it;
     * with plain-dram-turns=off they do not, and it is DRAM).  The reset
     * size back (0x80 sets): L2 hits after a warm pass.
     */
    m0 = esr_read(ESR_SC(PP_M, 0, 0, SC_L2_CACHE_CTL));
    esr_write(ESR_SC(PP_M, 0, SC_BANKS_ALL, SC_L2_CACHE_CTL),
              (m0 & ~(0x1fffULL << 32)) | 0x20ULL << 32);
    r0 = esr_read(ESR_SC(PP_M, 0, 2, SC_L2_CACHE_CTL));
    probe_chase(big, BIG);
    row("l2-small", 0, BIG, L2_AREA, probe_chase(big, BIG));
    esr_write(ESR_SC(PP_M, 0, SC_BANKS_ALL, SC_L2_CACHE_CTL), m0);
    probe_chase(big, BIG);
    row("l2-again", 0, BIG, L2_AREA, probe_chase(big, BIG));
    print("probe cache-l2ctl reset=0x%lx small=0x%lx\n", m0, r0);

    for (c = 0; c < sizeof(homes) / sizeof(homes[0]); c++) {
        home_row(homes[c], 2);
        home_row(homes[c], 3);
    }

    p = chain(0, PF_AREA, 16);
    evict_va(PF_AREA, 16, 3);
    prefetch_va(PF_AREA, 16, 0);
    row("prefetch", 0, 16, PF_AREA, probe_chase(p, 16));

    p = probe_chain(RBUF_AREA, 6, SET_STRIDE);
    probe_chase(p, 6);
    row("rbuf", 0, 6, RBUF_AREA, probe_chase(p, BIG));
    p = probe_chain(RBUF_AREA, 12, SET_STRIDE);
    probe_chase(p, 12);
    row("rbuf-full", 0, 12, RBUF_AREA, probe_chase(p, BIG));

    /*
     * A stream through one set puts out what is not locked.  The stream
     * starts 4 set strides on, clear of the pair and of the locked pair
     * (one line further: the next set)
     */
    p = probe_chain(LOCK_AREA, 2, SET_STRIDE);
    probe_chase(p, 2);
    stream(LOCK_AREA, 32);
    row("unlocked", 0, 2, LOCK_AREA, probe_chase(p, 2));
    csr_write_x31(0x8df, (LOCK_AREA + LINE) | 1, SET_STRIDE);  /* lock_va */
    p = probe_chain(LOCK_AREA + LINE, 2, SET_STRIDE);
    stream(LOCK_AREA + LINE, 32);
    row("locked", 0, 2, LOCK_AREA + LINE, probe_chase(p, 2));
    csr_write_x31(0x8ff, (LOCK_AREA + LINE) | 1, SET_STRIDE);  /* unlock */

    *(volatile uint64_t *)FLUSH_AREA = 1;       /* dirty in the L1 */
    c = flush_round(FLUSH_AREA);
    print("probe cache-flush lines=1 clean=%lu cycles=%lu\n",
          flush_round(FLUSH_AREA), c);

    if (shires > REMOTE_SHIRE) {
        p = chain(0, REMOTE_AREA, 256);
        c = probe_chase(p, 256);
        print("probe cache-chase level=remote hart=0 lines=256 shire=%u "
              "hops=%u cycles=%lu\n", REMOTE_SHIRE,
              probe_hops(0, REMOTE_SHIRE), c);
    }

    fcc_wait(0);
    row("scp", 1, BIG, SCP_AREA(1), hart1_cycles);
    print("probe cache done\n");
    return 0;
}
