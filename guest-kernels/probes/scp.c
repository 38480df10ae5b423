/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Remote scratchpad probe (docs/timing.md, "Remote scratchpad"), for a
 * machine of 8 shires.
 *
 * Hart 0 of shires 0, 2 and 3 times 64-bit loads from other shires' L2
 * scratchpads, over pairs 1 to 9 hops apart, with its own cycle counter:
 * the median over PROBE_RUNS runs of N loads, minus the same loop reading
 * DRAM (an L1 hit), per load.
 *
 *   probe scp-load shire=A target=B hops=N cycles=C
 *   probe scp-local shire=0 window=own|alias cycles=C   own scratchpad
 *   probe scp-store shire=0 target=B hops=N cycles=C    sd
 *   probe scp-amo shire=0 target=B hops=N cycles=C      amoorg.d
 *   probe scp-flw shire=0 target=B hops=N cycles=C      flw.ps, 8 lanes
 *
 * Then TAP: what goes through another shire's window is that shire's
 * scratchpad, for loads, stores, global atomics (scalar and packed),
 * gathers and TensorLoadL2; local atomics and the part of a window with
 * no SRAM fault.
 */
#include "etsoc1.h"
#include "et-atomic.h"
#include "et-vpu.h"
#include "probe.h"
#include "tap.h"

#define N 16
#define SHIRES 8
#define SCP(s) (SCP_BASE + (uint64_t)(s) * SCP_WINDOW)
#define PAT_OFF 0x10000             /* shire 7 fills 64 words here */
#define HART0_OFF 0x11000           /* hart 0 writes here, shire 7 checks */
#define AMO_OFF 0x12000
#define TL2_LINE 512                /* own scratchpad line for TensorLoadL2 */

static const struct {
    unsigned from, to;
} pairs[] = {
    { 3, 4 }, { 0, 3 }, { 0, 1 }, { 0, 2 }, { 3, 5 }, { 2, 3 }, { 0, 5 },
    { 0, 6 }, { 0, 7 },
};
#define NPAIRS (sizeof(pairs) / sizeof(pairs[0]))

#define TIMED_LOOP(name, insn)                                              \
    static uint64_t name(uint64_t p, uint64_t n)                            \
    {                                                                       \
        uint64_t a, b, t;                                                   \
        __asm__ volatile("csrr %0, mcycle\n"                                \
                         "1:\t" insn "\n\t"                                 \
                         "addi %4, %4, -1\n\t"                              \
                         "bnez %4, 1b\n\t"                                  \
                         "csrr %1, mcycle"                                  \
                         : "=&r"(a), "=&r"(b), "=&r"(t), "+r"(p), "+r"(n)   \
                         :: "memory");                                      \
        (void)t;                                                            \
        return b - a;                                                       \
    }

TIMED_LOOP(ld_loop, "ld %2, 0(%3)")
TIMED_LOOP(sd_loop, "sd x0, 0(%3)")
TIMED_LOOP(amoorg_loop, "amoorg.d %2, x0, (%3)")
TIMED_LOOP(amoorl_loop, "amoorl.d %2, x0, (%3)")
TIMED_LOOP(flw_loop, "flw.ps f4, 0(%3)")

typedef uint64_t (*loop_fn)(uint64_t p, uint64_t n);

static uint64_t dram_buf[8] __attribute__((aligned(64)));

static uint64_t probe(loop_fn timed, uint64_t p, loop_fn overhead,
                      uint64_t q)
{
    uint64_t v[PROBE_RUNS];
    unsigned r;

    for (r = 0; r < PROBE_RUNS; r++) {
        uint64_t o = overhead(q, N);

        v[r] = per_access(timed(p, N), o, N);
    }
    return median(v, PROBE_RUNS);
}

static uint64_t load_cycles[NPAIRS];
static uint64_t shire7_bad = ~0ULL;

static void measure(unsigned shire)
{
    unsigned i;

    for (i = 0; i < NPAIRS; i++) {
        if (pairs[i].from == shire) {
            load_cycles[i] = probe(ld_loop, SCP(pairs[i].to) + 0x1000,
                                   ld_loop, (uint64_t)dram_buf);
        }
    }
}

static void report(void)
{
    uint64_t q = (uint64_t)dram_buf;
    unsigned i;

    for (i = 0; i < NPAIRS; i++) {
        print("probe scp-load shire=%u target=%u hops=%u cycles=%lu\n",
              pairs[i].from, pairs[i].to,
              probe_hops(pairs[i].from, pairs[i].to), load_cycles[i]);
    }
    print("probe scp-local shire=0 window=own cycles=%lu\n",
          probe(ld_loop, SCP(0) + 0x1000, ld_loop, q));
    print("probe scp-local shire=0 window=alias cycles=%lu\n",
          probe(ld_loop, SCP_LOCAL + 0x1000, ld_loop, q));
    for (i = 1; i < SHIRES; i += 6) {
        print("probe scp-store shire=0 target=%u hops=%u cycles=%lu\n", i,
              probe_hops(0, i), probe(sd_loop, SCP(i) + 0x1000, sd_loop, q));
        print("probe scp-amo shire=0 target=%u hops=%u cycles=%lu\n", i,
              probe_hops(0, i),
              probe(amoorg_loop, SCP(i) + 0x1000, amoorl_loop, q));
        set_m0(0xff);
        print("probe scp-flw shire=0 target=%u hops=%u cycles=%lu\n", i,
              probe_hops(0, i),
              probe(flw_loop, SCP(i) + 0x1000, flw_loop, q));
    }
}

/* 64-bit load with a 4-byte encoding, so that the handler can skip it */
static uint64_t ld32(uint64_t p)
{
    uint64_t v;

    __asm__ volatile(".option push; .option norvc; ld %0, 0(%1); "
                     ".option pop" : "=r"(v) : "r"(p) : "memory");
    return v;
}

static uint64_t pattern(unsigned i)
{
    return 0x5c7000000000000ULL + i * 0x10001ULL;
}

static void checks(void)
{
    volatile uint64_t *pat = (volatile uint64_t *)(SCP(7) + PAT_OFF);
    volatile uint64_t *mine = (volatile uint64_t *)(SCP(7) + HART0_OFF);
    volatile uint64_t *amo = (volatile uint64_t *)(SCP(7) + AMO_OFF);
    volatile uint32_t *amo32 = (volatile uint32_t *)(SCP(7) + AMO_OFF + 64);
    static uint32_t idx[8] __attribute__((aligned(32)));
    static uint32_t got[8] __attribute__((aligned(32)));
    volatile uint64_t *own;
    uint64_t old, sum;
    unsigned i, bad;

    for (i = 0, bad = 0; i < 64; i++) {
        bad += pat[i] != pattern(i);
    }
    CHECK(bad == 0, "loads through shire 7's window read its scratchpad");

    for (i = 0; i < 64; i++) {
        mine[i] = ~pattern(i);
    }
    fcc_send(7, 0, 0, 1u << 0);             /* shire 7: check them */
    fcc_wait(0);
    CHECK(shire7_bad == 0, "stores through the window land in shire 7's "
          "scratchpad (read there through the local alias)");

    *amo = 0;
    for (i = 0, sum = 0; i < 10; i++) {
        sum += et_amoaddg_d(amo, i + 1);
    }
    CHECK(*amo == 55 && sum == 165, "amoaddg.d on a remote scratchpad: old "
          "values and result");
    old = et_amocmpswapg_d(amo, 55, 77);
    CHECK(old == 55 && *amo == 77, "amocmpswapg.d on a remote scratchpad");
    *amo32 = 0xfffffff0u;
    old = et_amomaxg_w(amo32, 3);
    CHECK(old == (uint64_t)-16 && *amo32 == 3,
          "amomaxg.w on a remote scratchpad: signed, sign-extended");

    trap_seen.count = 0;
    et_amoaddl_d(amo, 1);
    CHECK(trap_seen.count == 1 && trap_seen.cause == 7 && *amo == 77,
          "amoaddl.d on a remote scratchpad: store access fault");
    trap_seen.count = 0;
    ld32(SCP(7) + (5ULL << 20));
    CHECK(trap_seen.count == 1 && trap_seen.cause == 5,
          "a load past a remote shire's 4 MiB: load access fault");

    /* packed global add, lane e at word e of the AMO line */
    for (i = 0; i < 8; i++) {
        amo32[i] = 100 * i;
        idx[i] = 4 * i;
        got[i] = i + 1;
    }
    set_m0(0xff);
    FLW_PS(f1, idx);
    FLW_PS(f4, got);
    __asm__ volatile("famoaddg.pi f4, f1(%0)"
                     :: "r"(amo32) : "memory");     /* famoaddg.pi */
    FSW_PS(f4, got);
    for (i = 0, bad = 0; i < 8; i++) {
        bad += got[i] != 100 * i || amo32[i] != 100 * i + i + 1;
    }
    CHECK(bad == 0, "famoaddg.pi on a remote scratchpad");

    /* gather words 7, 6, ..., 0 of the pattern (their low halves) */
    for (i = 0; i < 8; i++) {
        idx[i] = 8 * (7 - i);
    }
    FLW_PS(f1, idx);
    __asm__ volatile("fgw.ps f4, f1(%0)"
                     :: "r"(pat) : "memory");       /* fgw.ps */
    FSW_PS(f4, got);
    for (i = 0, bad = 0; i < 8; i++) {
        bad += got[i] != (uint32_t)pattern(7 - i);
    }
    CHECK(bad == 0, "fgw.ps gathers from a remote scratchpad");

    /* TensorLoadL2: 4 lines of the pattern into our own scratchpad */
    csr_write_x31(0x85f, (uint64_t)(TL2_LINE >> 2) << 48 |
                  (uint64_t)(TL2_LINE & 3) << 4 | ((uint64_t)pat & ~63ULL) |
                  3, 64);
    csr_write(0x830, 2);                    /* tensor_wait: TensorLoadL2 0 */
    own = (volatile uint64_t *)(SCP_LOCAL + TL2_LINE * 64);
    for (i = 0, bad = 0; i < 32; i++) {
        bad += own[i] != pattern(i);
    }
    CHECK(bad == 0 && csr_read(0x808) == 0,
          "TensorLoadL2 from a remote scratchpad");
}

/* Shire 7's hart 0: the pattern, then a check of hart 0's stores. */
static void shire7(void)
{
    volatile uint64_t *pat = (volatile uint64_t *)(SCP_LOCAL + PAT_OFF);
    volatile uint64_t *mine = (volatile uint64_t *)(SCP_LOCAL + HART0_OFF);
    uint64_t bad = 0;
    unsigned i;

    for (i = 0; i < 64; i++) {
        pat[i] = pattern(i);
    }
    fcc_send(0, 0, 0, 1u << 0);
    fcc_wait(0);
    for (i = 0; i < 64; i++) {
        bad += mine[i] != ~pattern(i);
    }
    shire7_bad = bad;
    fcc_send(0, 0, 0, 1u << 0);
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned shire = hart_shire(hartid);

    trap_recording = 1;     /* runtime trap_record() */
    if (hartid % HARTS_PER_SHIRE != 0) {
        return 0;
    }
    if (shires != SHIRES) {
        if (hartid == 0) {
            print("scp: needs %u shires, got %u\n", SHIRES, shires);
            return 1;
        }
        return 0;
    }
    if (shire == 7) {
        shire7();
        return 0;
    }
    if (shire != 0 && shire != 2 && shire != 3) {
        return 0;
    }
    measure(shire);
    if (shire != 0) {
        fcc_send(0, 0, 0, 1u << 0);
        return 0;
    }
    fcc_wait(0);                            /* shire 2 */
    fcc_wait(0);                            /* shire 3 */
    fcc_wait(0);                            /* shire 7's pattern */
    report();
    checks();
    return tap_done();
}
