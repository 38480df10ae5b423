/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * 1D rings: the 32 minions of every shire, and minion 0 of every shire
 * around the chip.  Each step every ring member passes the value it holds
 * to its successor (even positions send first, odd ones receive first) and
 * adds what it receives into a running sum.  After a full turn each member
 * holds its own value again and the sum of the whole ring.
 */
#include "fabric.h"

/* One full turn of the ring of @len members gid = base + p * stride. */
static unsigned ring_turn(unsigned pos, unsigned len, unsigned base,
                          unsigned stride, unsigned gid)
{
    unsigned next = base + (pos + 1) % len * stride;
    unsigned prev = base + (pos + len - 1) % len * stride;
    uint32_t expect = 0;
    unsigned step, p;

    FREG_SET(1, input_int(gid));    /* travelling value */
    FREG_SET(3, input_int(gid));    /* running sum */
    for (step = 0; step < len; step++) {
        pass_step(pos, next, prev);
        if (step + 1 < len) {       /* the last step brings our own home */
            FREG_SET(3, FREG_GET(3) + FREG_GET(1));
        }
    }
    for (p = 0; p < len; p++) {
        expect += input_int(base + p * stride);
    }
    return (FREG_GET(1) != input_int(gid)) + (FREG_GET(3) != expect);
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned gid = hart_gid(hartid), shire = gid / MINIONS_PER_SHIRE;
    unsigned m = gid % MINIONS_PER_SHIRE, bad = 0;

    /* ring over the 32 minions of this shire */
    bad += ring_turn(m, MINIONS_PER_SHIRE, shire * MINIONS_PER_SHIRE, 1, gid);
    chip_barrier(gid, shires);
    /* ring over minion 0 of every shire (an even number of shires) */
    if (m == 0 && shires % 2 == 0) {
        bad += ring_turn(shire, shires, 0, MINIONS_PER_SHIRE, gid);
    }
    if (bad) {
        print("ring: minion %u got a wrong value\n", gid);
    }
    chip_barrier(gid, shires);
    if (gid == 0) {
        print("ring: %u shire rings of 32 and a chip ring of %u done\n",
              shires, shires);
    }
    return bad != 0;
}
