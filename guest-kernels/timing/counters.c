/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-hart counters (qemu-patches/0006): minstret and mcycle count this
 * hart's own retired instructions exactly, also across traps taken in the
 * middle of a translation block, and every hart of a shire counts its own
 * loop at the same time.  A counter read returns the figures before the
 * reading instruction.  With no stalls, mcycle moves as minstret does,
 * except that a load costs the L1 hit.  The ET performance counters
 * count what their event selects.
 */
#include "etsoc1.h"
#include "tap.h"

#define HARTS 8
#define L1_HIT 5            /* timing.md 4, the insn.load cost */

static volatile uint64_t got[HARTS];

/* mepc += 4; mret: 4 instructions, all retired */
extern char skip_handler[];
__asm__(".align 4\n"
        "skip_handler:\n"
        "  csrr t6, mepc\n"
        "  addi t6, t6, 4\n"
        "  csrw mepc, t6\n"
        "  mret\n");

/* minstret (or mcycle) retired from the first csrr to the second */
#define SPAN(csr, body) ({                                              \
        uint64_t a_, b_;                                                \
        __asm__ volatile("csrr %0, " #csr "\n\t" body "\n\t"            \
                         "csrr %1, " #csr                               \
                         : "=&r"(a_), "=&r"(b_) :: "t0", "memory");     \
        b_ - a_; })

static uint64_t loop(uint64_t n)
{
    uint64_t a, b;

    __asm__ volatile("csrr %0, minstret\n\t"
                     "mv t0, %2\n"
                     "1:\taddi t0, t0, -1\n\t"
                     "bnez t0, 1b\n\t"
                     "csrr %1, minstret"
                     : "=&r"(a), "=&r"(b) : "r"(n) : "t0", "memory");
    return b - a;
}

int main(uint64_t hartid, const void *fdt)
{
    uint64_t mtvec, c0, i0, dc, di;
    unsigned h;

    if (hart_thread(hartid) == 0 && hartid < 2 * HARTS && hartid != 0) {
        got[hartid / 2] = loop(1000 * (hartid / 2 + 1));
        fcc_send(0, 0, 0, 1u << 0);         /* done: tell hart 0 */
        return 0;
    }
    if (hartid != 0) {
        return 0;
    }

    CHECK_EQ(SPAN(minstret, "nop\n\tnop"), 3,
             "minstret: csrr + 2 nops between two reads");
    CHECK_EQ(SPAN(mcycle, "nop\n\tnop"), 3,
             "mcycle: the same, at 1 cycle per instruction");
    CHECK(SPAN(instret, "nop\n\tnop") == 3 && SPAN(cycle, "nop\n\tnop") == 3,
          "instret and cycle (the user-level names) count the same");
    CHECK_EQ(loop(1000), 2 + 2 * 1000, "a 1000-iteration loop: exact");

    mtvec = csr_read(mtvec);
    csr_write(mtvec, (uint64_t)skip_handler);
    CHECK_EQ(SPAN(minstret, "nop\n\t.word 0\n\tnop"), 1 + 1 + 4 + 1,
             "illegal instruction mid-TB: not retired, handler counted");
    {
        /* past shire 0's 4 MiB of scratchpad: a load access fault */
        uint64_t bad = SCP_BASE + 5 * (1ULL << 20);
        uint64_t a, b;

        __asm__ volatile("csrr %0, minstret\n\tnop\n\tld t0, 0(%2)\n\t"
                         "nop\n\tnop\n\tcsrr %1, minstret"
                         : "=&r"(a), "=&r"(b) : "r"(bad) : "t0", "memory");
        CHECK_EQ(b - a, 1 + 1 + 4 + 2, "load access fault mid-TB: the rest "
                 "of the TB is not counted twice");
        __asm__ volatile("csrr %0, mcycle\n\tnop\n\tld t0, 0(%2)\n\t"
                         "nop\n\tnop\n\tcsrr %1, mcycle"
                         : "=&r"(a), "=&r"(b) : "r"(bad) : "t0", "memory");
        CHECK_EQ(b - a, 1 + 1 + 4 + 2, "mcycle: the faulting load's cost is "
                 "taken back with it");
    }
    CHECK_EQ(SPAN(mcycle, "nop\n\tld t0, 0(sp)\n\tnop"), 1 + 1 + L1_HIT + 1,
             "mcycle: a load costs the L1 hit, other instructions 1 cycle");
    CHECK_EQ(SPAN(minstret, "nop\n\tecall\n\tnop"), 1 + 1 + 4 + 1,
             "ecall: not retired, handler counted");
    csr_write(mtvec, mtvec);

    i0 = csr_read(minstret);
    c0 = csr_read(mcycle);
    __asm__ volatile("csrw minstret, %2\n\tcsrw mcycle, %3\n\t"
                     "csrr %0, minstret\n\tcsrr %1, mcycle"
                     : "=&r"(di), "=&r"(dc) : "r"(1000000), "r"(5000000));
    CHECK(di == 1000000 + 1 && dc == 5000000 + 1,
          "writes set what the next reads return (got %lu, %lu)", di, dc);
    CHECK(di > i0 && dc > c0, "counters stay monotonic after writes");

    /* ET performance counters: cycles, thread 0 instructions, TensorFMAs */
    csr_write(mhpmevent3, 1);
    csr_write(mhpmevent4, 2);
    csr_write(mhpmevent5, 26);
    csr_write(mhpmevent6, 4);           /* branches: no model */
    CHECK(SPAN(hpmcounter3, "nop\n\tnop") == 3 &&
          SPAN(hpmcounter4, "nop\n\tnop") == 3,
          "hpmcounter3/4 (events cycles, retired thread 0) count like "
          "mcycle/minstret");
    c0 = csr_read(hpmcounter5);
    csr_write(0x7e0, 1);
    csr_write(0x7e0, 3);                /* L1 scratchpad on */
    for (h = 0; h < 3; h++) {
        __asm__ volatile("csrw 0x801, %0" :: "r"(3ULL << 55 | 15ULL << 51 |
                         15ULL << 47 | 16ULL << 12 | 1) : "memory");
    }
    CHECK_EQ(csr_read(hpmcounter5) - c0, 3,
             "hpmcounter5 (event TensorFMA instructions) counts 3 TensorFMAs");
    CHECK_EQ(csr_read(hpmcounter6), 0, "an event with no model counts 0");
    __asm__ volatile("csrw mhpmcounter3, %1\n\tcsrr %0, hpmcounter3"
                     : "=r"(dc) : "r"(1000));
    CHECK_EQ(dc, 1001, "writing mhpmcounter3 sets what the next read returns");

    got[0] = loop(1000);
    for (h = 1; h < HARTS; h++) {
        fcc_wait(0);
    }
    for (h = 0; h < HARTS; h++) {
        if (got[h] != 2 + 2 * 1000 * (h ? h + 1 : 1)) {
            break;
        }
    }
    CHECK(h == HARTS, "%u harts count their own loops at the same time%s",
          HARTS, h == HARTS ? "" : " (one is wrong)");
    return tap_done();
}
