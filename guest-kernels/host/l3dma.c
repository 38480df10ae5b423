/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where host writes land: hart 0 times a global atomic (amoorg.d, which
 * executes at the line's home L3 slice) on line k of a buffer the host
 * just copied to the card by DMA, of one nobody wrote, and of one the
 * host wrote through BAR0, k = 0..31 (home slice k when the buffers are
 * 2 KiB aligned), less the same access as a local atomic (which stays in
 * the shire).  The clock is hpmcounter3, which the compute runtime sets
 * to count cycles, as Esperanto's firmware does.  out[3k], out[3k + 1],
 * out[3k + 2]: copied, fresh, written.
 */
#include <stdint.h>

struct l3dma_args {
    uint64_t copied, fresh, written;
    uint64_t *out;
};

int64_t entry_point(const struct l3dma_args *a);

#define TIMED(name, insn)                                                   \
    static uint64_t name(uint64_t p)                                        \
    {                                                                       \
        uint64_t t0, t1;                                                    \
        __asm__ volatile("csrr %0, hpmcounter3\n\t"                         \
                         insn "\n\t"                                        \
                         "csrr %1, hpmcounter3"                             \
                         : "=&r"(t0), "=&r"(t1) : "r"(p) : "memory");       \
        return t1 - t0;                                                     \
    }

TIMED(amoorg, "amoorg.d x0, x0, (%2)")
TIMED(amoorl, "amoorl.d x0, x0, (%2)")

static uint64_t l3_cost(uint64_t line)
{
    uint64_t local = amoorl(line);

    return amoorg(line) - local;
}

int64_t entry_point(const struct l3dma_args *a)
{
    uint64_t hart;

    __asm__ volatile("csrr %0, 0xcd0" : "=r"(hart));   /* hartid */
    if (hart != 0) {
        return 0;
    }
    for (unsigned k = 0; k < 32; k++) {
        a->out[3 * k] = l3_cost(a->copied + 64 * k);
        a->out[3 * k + 1] = l3_cost(a->fresh + 64 * k);
        a->out[3 * k + 2] = l3_cost(a->written + 64 * k);
    }
    return 0;
}
