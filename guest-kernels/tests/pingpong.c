/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Credit ping-pong across shires (hart 0 and thread 1 of minion 31 in the
 * last shire) and, at the same time, inside shire 0 (harts 2 and 9): each
 * side halts in the fcc CSR until the other's credit arrives.  Every hart
 * that took part checks that no credit is left over.
 * A lost wake-up hangs the run; a duplicated one leaves a credit behind.
 */
#include "etsoc1.h"
#include "tap.h"

#ifndef ROUNDS
#define ROUNDS 20000
#endif

/* Bounce ROUNDS credits between @me and @peer on @counter. */
static void bounce(int first, unsigned peer_shire, unsigned peer_thread,
                   unsigned peer_minion, unsigned counter)
{
    unsigned i;

    for (i = 0; i < ROUNDS; i++) {
        if (!first) {
            fcc_wait(counter);
        }
        fcc_send(peer_shire, peer_thread, counter, 1u << peer_minion);
        if (first) {
            fcc_wait(counter);
        }
    }
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    uint64_t far = (uint64_t)shires * HARTS_PER_SHIRE - 1;

    /* across shires: hart 0 and thread 1 of minion 31 of the last shire */
    if (hartid == far) {
        bounce(0, 0, 0, 0, 0);
        return csr_read(CSR_FCCNB) != 0;
    }
    /* inside shire 0: hart 2 (minion 1) and hart 9 (minion 4, thread 1) */
    if (hartid == 9) {
        bounce(0, 0, 0, 1, 1);
        return csr_read(CSR_FCCNB) != 0;
    }
    if (hartid == 2) {
        bounce(1, 0, 1, 4, 1);
        return csr_read(CSR_FCCNB) != 0;
    }
    if (hartid != 0) {
        return 0;
    }
    bounce(1, shires - 1, 1, 31, 0);
    CHECK(1, "%u credit round trips between hart 0 and hart %lu", ROUNDS,
          far);
    CHECK_EQ(csr_read(CSR_FCCNB), 0, "no credit left over on hart 0");
    return tap_done();
}
