/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * 2D arrays.  The 32 minions of each shire form a 4 x 8 grid (row =
 * neighbourhood, column = minion in it).
 *
 * Safe layout (default): a torus run in alternating phases: every cell
 * passes its value east, shire barrier (FLB + credits), then south,
 * barrier, ROUNDS times.  In each phase a minion has one partner each way.
 *
 * Naive layout (guest-kernels/fabric/naive2d.c defines NAIVE): in one
 * phase every cell sends east and south, then receives from west and
 * north, adding both into its own value.  Correct when partners are
 * matched by name; under the one-ready-flag rule a cell whose east and
 * south neighbours both announce ready before it sends loses one ready.
 * With SPIN_FINISH (naive2d-spin) a cell that is done does not wait in
 * the chip barrier but spins on the other cells' flags in memory, so
 * that harts keep running beside the hung ones (the hang report must
 * still name them).  Which ready is lost follows from the model's times
 * (the ready bit sees its readies in time order, docs/fabric.md), so the
 * same cell loses the same ready in every run.
 */
#include "fabric.h"

#define ROWS 4
#define COLS 8
#define ROUNDS 4

static unsigned cell(unsigned shire, unsigned r, unsigned c)
{
    return shire * MINIONS_PER_SHIRE + (r % ROWS) * COLS + c % COLS;
}

#ifndef NAIVE
int main(uint64_t hartid, const void *fdt)
{
    unsigned gid = hart_gid(hartid), s = gid / MINIONS_PER_SHIRE;
    unsigned r = gid % MINIONS_PER_SHIRE / COLS, c = gid % COLS, i;
    uint32_t want;

    FREG_SET(1, input_int(gid));
    for (i = 0; i < ROUNDS; i++) {
        pass_step(c, cell(s, r, c + 1), cell(s, r, c + COLS - 1));
        shire_barrier(s);
        pass_step(r, cell(s, r + 1, c), cell(s, r + ROWS - 1, c));
        shire_barrier(s);
    }
    /* after ROUNDS x (east, south) we hold the value from that far away */
    want = input_int(cell(s, r + ROWS * COLS - ROUNDS, c + COLS - ROUNDS));
    if (FREG_GET(1) != want) {
        print("grid: minion %u holds 0x%x, want 0x%x\n", gid, FREG_GET(1), want);
        return 1;
    }
    if (gid == 0) {
        print("grid: %u rounds of east/south phases done\n", ROUNDS);
    }
    return 0;
}
#else
int main(uint64_t hartid, const void *fdt)
{
    unsigned gid = hart_gid(hartid), s = gid / MINIONS_PER_SHIRE;
    unsigned r = gid % MINIONS_PER_SHIRE / COLS, c = gid % COLS;
    uint32_t want = input_int(gid);

    FREG_SET(1, input_int(gid));
    if (c + 1 < COLS) {
        tensor_send(cell(s, r, c + 1), 1, 1);
    }
    if (r + 1 < ROWS) {
        tensor_send(cell(s, r + 1, c), 1, 1);
    }
    if (c > 0) {
        tensor_recv(cell(s, r, c - 1), 1, 1, TR_IADD);
        want += input_int(cell(s, r, c - 1));
    }
    if (r > 0) {
        tensor_recv(cell(s, r - 1, c), 1, 1, TR_IADD);
        want += input_int(cell(s, r - 1, c));
    }
    if (FREG_GET(1) != want) {
        print("naive2d: minion %u holds 0x%x, want 0x%x\n", gid, FREG_GET(1),
              want);
        return 1;
    }
#ifdef SPIN_FINISH
    {
        static volatile uint8_t done[34 * MINIONS_PER_SHIRE];
        unsigned n = fdt_root_u32(fdt, "esperanto,shires", 1) *
                     MINIONS_PER_SHIRE, i;

        done[gid] = 1;
        for (i = 0; i < n; i++) {
            while (!done[i]) {
            }
        }
    }
#else
    chip_barrier(gid, fdt_root_u32(fdt, "esperanto,shires", 1));
#endif
    if (gid == 0) {
        print("naive2d: every shire complete\n");
    }
    return 0;
}
#endif
