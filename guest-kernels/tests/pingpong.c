/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Credit ping-pong between hart 0 and thread 1 of minion 31 in the last
 * shire: each side halts in the fcc CSR until the other's credit arrives.
 * A lost wake-up hangs the run; a duplicated one leaves a credit behind.
 */
#include "etsoc1.h"
#include "tap.h"

#define ROUNDS 20000

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    uint64_t partner = (uint64_t)shires * HARTS_PER_SHIRE - 1;
    unsigned i;

    if (hartid == partner) {
        for (i = 0; i < ROUNDS; i++) {
            fcc_wait(0);
            fcc_send(0, 0, 0, 1u << 0);
        }
        return csr_read(CSR_FCCNB) != 0;
    }
    if (hartid != 0) {
        return 0;
    }
    for (i = 0; i < ROUNDS; i++) {
        fcc_send(shires - 1, 1, 0, 1u << 31);
        fcc_wait(0);
    }
    CHECK(1, "%u credit round trips between hart 0 and hart %lu", ROUNDS,
          partner);
    CHECK_EQ(csr_read(CSR_FCCNB), 0, "no credit left over on hart 0");
    return tap_done();
}
