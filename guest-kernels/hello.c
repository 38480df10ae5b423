/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Minion 0 (thread 0) of every shire reports in, in shire order: each one
 * waits for a credit from the previous shire (its hart halts meanwhile),
 * prints, and passes a credit on.  The last shire hands the turn back to
 * shire 0, which prints the summary.  Every other hart passes at once.
 */
#include "etsoc1.h"

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned shire = hart_shire(hartid);

    if (hartid % HARTS_PER_SHIRE) {
        return 0;
    }
    if (shire == 0) {
        print("hello: ET-SoC-1 with %u shire(s), %u harts\n", shires,
              shires * HARTS_PER_SHIRE);
    } else {
        fcc_wait(0);
    }
    print("hello from shire %u minion 0 (hart %lu)\n", shire, hartid);
    /* the next shire's minion 0, thread 0, counter 0 (shire 0 after the last) */
    fcc_send((shire + 1) % shires, 0, 0, 1u << 0);
    if (shire == 0) {
        fcc_wait(0);
        print("hello: %u of %u shires reported\n", shires, shires);
    }
    return 0;
}
