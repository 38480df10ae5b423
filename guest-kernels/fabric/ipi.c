/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IPI wake-up: in every shire, harts 1-63 enable the machine software
 * interrupt and sleep (odd harts in WFI, even ones in the stall CSR).
 * Hart 0 of the shire raises ipi_trigger for all of them; each wakes, takes
 * the interrupt, clears its own MSIP through ipi_trigger_clear and credits
 * hart 0, which waits for all 63.
 */
#include "etsoc1.h"

static volatile uint32_t woken[34 * HARTS_PER_SHIRE];

void trap_handler(struct trap_frame *f)
{
    uint64_t h = csr_read(mhartid);

    if (f->mcause != ((1ULL << 63) | 3)) {
        print("ipi: hart %lu: unexpected mcause 0x%lx\n", h, f->mcause);
        fail("unexpected trap");
    }
    esr_write(ESR_OTHER(PP_M, LOCAL_SHIRE, IPI_TRIGGER_CLEAR),
              1ULL << (h % HARTS_PER_SHIRE));
    woken[h]++;
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned s = hart_shire(hartid), i, h = hartid % HARTS_PER_SHIRE;

    if (h != 0) {
        /*
         * Sleep with interrupts globally off: WFI and stall still wake on
         * a pending enabled interrupt, which is then taken in the window
         * below, so an IPI that comes early is not missed.
         */
        csr_set(mie, 1 << 3);
        fcc_send(s, 0, 0, 1u << 0);     /* tell hart 0 we are here */
        while (!woken[hartid]) {
            if (hartid & 1) {
                __asm__ volatile("wfi");
            } else {
                csr_write(CSR_STALL, 0);
            }
            csr_set(mstatus, 1 << 3);
            csr_clear(mstatus, 1 << 3);
        }
        fcc_send(s, 0, 0, 1u << 0);
        return 0;
    }
    for (i = 1; i < HARTS_PER_SHIRE; i++) {
        fcc_wait(0);
    }
    esr_write(ESR_OTHER(PP_M, s, IPI_TRIGGER), ~1ULL);
    for (i = 1; i < HARTS_PER_SHIRE; i++) {
        fcc_wait(0);
    }
    /* one console line: shire 0 reports once every shire is done */
    if (s != 0) {
        fcc_send(0, 0, 1, 1u << 0);
        return 0;
    }
    for (i = 1; i < shires; i++) {
        fcc_wait(1);
    }
    print("ipi: %u shire(s) x 63 harts woken by ipi_trigger\n", shires);
    return 0;
}
