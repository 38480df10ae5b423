/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ET scalar atomics, known answers and faults (hart 0).  Every AMO in
 * .w/.d, local/global form runs over all pairs of a set of edge values
 * and prints one line a case, which tests/run.py checks against its own
 * reference (tests/intref.py):
 *
 *   "amo<op><l|g>.<w|d> <memory> <rs2> [<x31>] = <rd> <memory after>"
 *
 * all doublewords in hex; the .w forms work on the low half of a
 * doubleword whose high half is a canary.  amocmpswap runs each pair
 * with three x31 values: equal to memory, different only in the high
 * half, different in bit 0.  Then the fault rules, coherent stores and
 * packb (TAP).
 */
#include "etsoc1.h"
#include "et-atomic.h"
#include "tap.h"

static const uint64_t values[] = {
    0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x123456789abcdef0,
    0x8000000000000000, 0x7fffffffffffffff, 0xffffffffffffffff,
};
#define NV (sizeof(values) / sizeof(values[0]))
#define CANARY 0xa5a5a5a500000000ULL

static uint64_t cell[2] __attribute__((aligned(16)));

static void expect_fault(uint64_t cause, uint64_t addr, const char *what)
{
    CHECK(trap_seen.count == 1 && trap_seen.cause == cause &&
          trap_seen.tval == addr,
          "%s: cause %lu (want %lu), tval 0x%lx", what, trap_seen.cause, cause,
          trap_seen.tval);
    trap_seen.count = 0;
}

/* One known-answer case; @k picks amocmpswap's x31 (see the top). */
static void run_case(unsigned op, int d, int g, uint64_t m, uint64_t v,
                     unsigned k)
{
    static const uint64_t x31_flip[3] = { 0, 0xffffffff00000000ULL, 1 };
    uint64_t init = d ? m : CANARY | (uint32_t)m, x31 = init ^ x31_flip[k];
    uint64_t old;

    cell[0] = init;
    old = et_amo(op, d, g, &cell[0], v, x31);
    print("amo%s%c.%c %016lx %016lx", et_amo_names[op], g ? 'g' : 'l',
          d ? 'd' : 'w', init, v);
    if (op == ET_AMOCMPSWAP) {
        print(" %016lx", x31);
    }
    print(" = %016lx %016lx\n", old, cell[0]);
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned op, d, g, i, j, k;
    volatile uint64_t *scp = (volatile uint64_t *)(SCP_BASE + 0x1000);
    volatile uint64_t *dram_uc =
        (volatile uint64_t *)(0xc000000000ULL + ((uint64_t)cell - DRAM_BASE));

    trap_recording = 1;     /* runtime trap_record() */
    if (hartid != 0) {
        return 0;
    }
    for (op = 0; op < ET_NAMO; op++) {
        for (d = 0; d < 2; d++) {
            for (g = 0; g < 2; g++) {
                for (i = 0; i < NV; i++) {
                    for (j = 0; j < NV; j++) {
                        for (k = 0; k < (op == ET_AMOCMPSWAP ? 3 : 1); k++) {
                            run_case(op, d, g, values[i], values[j], k);
                        }
                    }
                }
            }
        }
    }

    /* faults: store/AMO access fault (cause 7), tval = address */
    trap_seen.count = 0;
    et_amoaddg_w((char *)&cell[0] + 2, 1);
    expect_fault(7, (uint64_t)&cell[0] + 2, "misaligned amoaddg.w");
    et_amoaddl_d((char *)&cell[0] + 4, 1);
    expect_fault(7, (uint64_t)&cell[0] + 4, "misaligned amoaddl.d");
    et_amoaddl_d(scp, 1);
    expect_fault(7, (uint64_t)scp, "local atomic to the L2 scratchpad");
    *scp = 40;
    et_amoaddg_d(scp, 2);
    CHECK(trap_seen.count == 0 && *scp == 42,
          "global atomic to the L2 scratchpad works");
    et_amoorg_d((void *)ESR_OTHER(PP_U, 0, FLB(0)), 1);
    expect_fault(7, ESR_OTHER(PP_U, 0, FLB(0)), "atomic to ESR space");
    et_amoorg_w((void *)PU_UART0, 1);
    expect_fault(7, PU_UART0, "atomic to the PU UART");
    et_amoaddg_d(dram_uc, 1);
    expect_fault(7, (uint64_t)dram_uc, "atomic to the uncacheable DRAM alias");

    /* no A, no D: their encodings are illegal instructions (cause 2) */
    __asm__ volatile(".insn r 0x2f, 2, 0, x0, %0, x0" :: "r"(&cell[0])
                     : "memory");
    CHECK(trap_seen.count == 1 && trap_seen.cause == 2,
          "standard amoadd.w (no A): illegal instruction");
    trap_seen.count = 0;
    __asm__ volatile(".insn i 0x07, 3, f0, 0(%0)" :: "r"(&cell[0]));
    CHECK(trap_seen.count == 1 && trap_seen.cause == 2,
          "fld (no D): illegal instruction");
    trap_seen.count = 0;
    {
        /*
         * A 2-byte illegal instruction (0x0000) and c.li a0, 1: the
         * runtime's trap_record() resumes 2 bytes on, at the c.li.
         */
        register uint64_t a0 __asm__("a0") = 0;

        __asm__ volatile(".hword 0x0000\n\t.hword 0x4505" : "+r"(a0));
        CHECK(trap_seen.count == 1 && trap_seen.cause == 2 && a0 == 1,
              "a compressed illegal instruction is skipped by its 2 bytes");
        trap_seen.count = 0;
    }

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
