/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ET scalar atomics, known answers and faults (hart 0; TAP).  Every AMO in
 * .w/.d, local/global form runs over all pairs of a set of edge values;
 * the expected memory and result come from plain C below, not from the
 * emulator.  Then the fault rules, coherent stores and packb.
 */
#include "etsoc1.h"
#include "et-atomic.h"
#include "tap.h"

enum { ADD, SWAP, XOR, OR, AND, MIN, MAX, MINU, MAXU, NOPS };
static const char *const names[NOPS] = {
    "add", "swap", "xor", "or", "and", "min", "max", "minu", "maxu",
};
typedef uint64_t (*amo_fn)(volatile void *, uint64_t);

/* [op][d][global] */
static const amo_fn fns[NOPS][2][2] = {
#define ROW(op) { { et_##op##l_w, et_##op##g_w }, { et_##op##l_d, et_##op##g_d } }
    ROW(amoadd), ROW(amoswap), ROW(amoxor), ROW(amoor), ROW(amoand),
    ROW(amomin), ROW(amomax), ROW(amominu), ROW(amomaxu),
#undef ROW
};

static const uint64_t values[] = {
    0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x123456789abcdef0,
    0x8000000000000000, 0x7fffffffffffffff, 0xffffffffffffffff,
};
#define NV (sizeof(values) / sizeof(values[0]))

/* The new memory value, at the operation's width. */
static uint64_t ref(unsigned op, uint64_t m, uint64_t v, int d)
{
    uint64_t mask = d ? ~0ULL : 0xffffffffULL;
    int64_t sm = d ? (int64_t)m : (int32_t)m, sv = d ? (int64_t)v : (int32_t)v;

    m &= mask;
    v &= mask;
    switch (op) {
    case ADD: return (m + v) & mask;
    case SWAP: return v;
    case XOR: return m ^ v;
    case OR: return m | v;
    case AND: return m & v;
    case MIN: return sm < sv ? m : v;
    case MAX: return sm > sv ? m : v;
    case MINU: return m < v ? m : v;
    default: return m > v ? m : v;
    }
}

static uint64_t cell[2] __attribute__((aligned(16)));
static volatile uint64_t trap_cause, trap_tval, traps;

void trap_handler(struct trap_frame *f)
{
    trap_cause = f->mcause;
    trap_tval = f->mtval;
    traps++;
    f->mepc += (*(volatile uint16_t *)f->mepc & 3) == 3 ? 4 : 2;
}

static void expect_fault(uint64_t cause, uint64_t addr, const char *what)
{
    CHECK(traps == 1 && trap_cause == cause && trap_tval == addr,
          "%s: cause %lu (want %lu), tval 0x%lx", what, trap_cause, cause,
          trap_tval);
    traps = 0;
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned op, d, g, i, j, bad;
    volatile uint64_t *scp = (volatile uint64_t *)(SCP_BASE + 0x1000);
    volatile uint64_t *dram_uc = (volatile uint64_t *)(0xc000000000ULL +
                                                       ((uint64_t)cell - DRAM_BASE));

    if (hartid != 0) {
        return 0;
    }
    for (op = 0; op < NOPS; op++) {
        for (d = 0; d < 2; d++) {
            for (g = 0; g < 2; g++) {
                for (i = 0, bad = 0; i < NV; i++) {
                    for (j = 0; j < NV; j++) {
                        uint64_t m = values[i], v = values[j], old, want_old;

                        /* .w: the upper half of the doubleword must survive */
                        cell[0] = d ? m : (0xa5a5a5a500000000ULL | (uint32_t)m);
                        old = fns[op][d][g](&cell[0], v);
                        want_old = d ? m : (uint64_t)(int64_t)(int32_t)m;
                        bad += old != want_old;
                        bad += d ? cell[0] != ref(op, m, v, 1)
                                 : cell[0] != (0xa5a5a5a500000000ULL |
                                               ref(op, m, v, 0));
                    }
                }
                CHECK(bad == 0, "amo%s%s.%s: %u x %u operand pairs (%u wrong)",
                      names[op], g ? "g" : "l", d ? "d" : "w", (unsigned)NV,
                      (unsigned)NV, bad);
            }
        }
    }

    /* compare-and-swap: x31 holds the expected value */
    cell[0] = 5;
    CHECK(et_amocmpswapg_d(&cell[0], 5, 9) == 5 && cell[0] == 9,
          "amocmpswapg.d swaps when memory equals x31");
    CHECK(et_amocmpswapl_d(&cell[0], 5, 7) == 9 && cell[0] == 9,
          "amocmpswapl.d leaves memory alone otherwise");
    cell[0] = 0xffffffff80000000ULL;
    CHECK(et_amocmpswapg_w(&cell[0], 0xffffffff80000000ULL, 1) ==
          0xffffffff80000000ULL && cell[0] == 0xffffffff00000001ULL,
          "amocmpswapg.w compares 32 bits, returns them sign-extended");

    /* faults: store/AMO access fault (cause 7), tval = address */
    traps = 0;
    et_amoaddg_w((char *)&cell[0] + 2, 1);
    expect_fault(7, (uint64_t)&cell[0] + 2, "misaligned amoaddg.w");
    et_amoaddl_d((char *)&cell[0] + 4, 1);
    expect_fault(7, (uint64_t)&cell[0] + 4, "misaligned amoaddl.d");
    et_amoaddl_d(scp, 1);
    expect_fault(7, (uint64_t)scp, "local atomic to the L2 scratchpad");
    *scp = 40;
    et_amoaddg_d(scp, 2);
    CHECK(traps == 0 && *scp == 42, "global atomic to the L2 scratchpad works");
    et_amoorg_d((void *)ESR_OTHER(PP_U, 0, FLB(0)), 1);
    expect_fault(7, ESR_OTHER(PP_U, 0, FLB(0)), "atomic to ESR space");
    et_amoorg_w((void *)PU_UART0, 1);
    expect_fault(7, PU_UART0, "atomic to the PU UART");
    et_amoaddg_d(dram_uc, 1);
    expect_fault(7, (uint64_t)dram_uc, "atomic to the uncacheable DRAM alias");

    /* no A, no D: their encodings are illegal instructions (cause 2) */
    __asm__ volatile(".insn r 0x2f, 2, 0, x0, %0, x0" :: "r"(&cell[0])
                     : "memory");
    CHECK(traps == 1 && trap_cause == 2,
          "standard amoadd.w (no A): illegal instruction");
    traps = 0;
    __asm__ volatile(".insn i 0x07, 3, f0, 0(%0)" :: "r"(&cell[0]));
    CHECK(traps == 1 && trap_cause == 2, "fld (no D): illegal instruction");
    traps = 0;

    /* coherent stores and packb */
    cell[0] = 0;
    et_sbl(&cell[0], 0x1ab);
    et_sbg((char *)&cell[0] + 1, 0xcd);
    et_shl((char *)&cell[0] + 2, 0x12345);
    et_shg((char *)&cell[0] + 4, 0xbeef);
    CHECK_EQ(cell[0], 0x0000beef2345cdabULL,
             "sbl, sbg, shl, shg store the low byte / halfword");
    et_shl((char *)&cell[0] + 1, 1);
    expect_fault(7, (uint64_t)&cell[0] + 1, "misaligned shl");
    CHECK_EQ(et_packb(0x1234, 0xabcd), 0xcd34, "packb");
    return tap_done();
}
