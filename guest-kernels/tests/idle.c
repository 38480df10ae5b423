/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Waiting harts must halt, not spin: every hart but 0 waits for a credit
 * while hart 0 runs a long loop, then releases them all.  The harness
 * times the run under single-threaded TCG, where a hart that spun would
 * cost a 100 ms time slice per turn.
 */
#include "etsoc1.h"
#include "tap.h"

#define LOOP 200000000UL

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    uint64_t i;

    if (hartid != 0) {
#ifndef NO_WAITERS      /* bench/fabric's baseline: nobody waits */
        fcc_wait(1);
#endif
        return 0;
    }
    for (i = 0; i < LOOP; i++) {
        __asm__ volatile("" ::: "memory");
    }
#ifndef NO_WAITERS
    for (unsigned s = 0; s < shires; s++) {
        fcc_send(s, 0, 1, s ? 0xffffffff : 0xfffffffe);
        fcc_send(s, 1, 1, 0xffffffff);
    }
#endif
    CHECK(1, "hart 0 looped %lu times and released %u harts", LOOP,
          shires * HARTS_PER_SHIRE - 1);
    return tap_done();
}
