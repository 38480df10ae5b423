/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Flag hand-offs through memory (docs/timing.md, "Causality through
 * memory").  Hart 0 (shire 0) sets its clock far ahead (mcycle = T) and
 * writes a flag; hart 64 (shire 1), whose clock is far behind, polls it.
 * The poller cannot see the flag before the write took effect where the
 * line is kept: it sees it at T + the writer's way there + its own way
 * back, whatever its own clock said.
 *
 *   probe handoff kind=l3 home=H seen=C
 *        a DRAM flag, written with amoswapg.d, polled with amoorg.d
 *   probe handoff kind=scp target=2 seen=C
 *        a flag in shire 2's scratchpad, written with sd, polled with ld
 *   probe handoff kind=ipi shire=1 seen=C
 *        an IPI (ipi_trigger) to a hart waiting in WFI, which clears it
 *   probe handoff kind=scp-late slow=2 seen=C
 *        kind=scp again, its writer first running a loop that takes the
 *        host a while: the poller, halted, is let go by the scan while
 *        the writer's clock nears its store (docs/timing.md, "Plain
 *        polls"), and must still see the flag when kind=scp does
 *
 * C: the receiver's mcycle when it saw the flag or IPI, less the
 * sender's T.
 */
#include "etsoc1.h"
#include "et-atomic.h"

#define T       1000000000ULL
#define HOME    9
#define TARGET  2

int main(uint64_t hartid, const void *fdt)
{
    volatile uint64_t *dflag = (volatile uint64_t *)(DRAM_BASE +
                                                     (64ULL << 20) +
                                                     HOME * 64);
    volatile uint64_t *sflag = (volatile uint64_t *)(SCP_BASE +
                                                     TARGET * SCP_WINDOW +
                                                     0x1000);
    uint64_t seen;
    volatile long k;

    if (hartid == 0) {
        et_amoorg_d(dflag, 0);              /* the line is in its slice */
        csr_write(mcycle, T);
        et_amoswapg_d(dflag, 1);
        csr_write(mcycle, 2 * T);
        *sflag = 1;
        csr_write(mcycle, 3 * T);
        esr_write(ESR_OTHER(PP_M, 1, IPI_TRIGGER), 1);
        for (k = 0; k < 200000; k++) {
        }
        csr_write(mcycle, 4 * T);
        sflag[8] = 1;
    } else if (hartid == HARTS_PER_SHIRE) {
        while (et_amoorg_d(dflag, 0) == 0) {
        }
        seen = csr_read(mcycle);
        print("probe handoff kind=l3 home=%u seen=%lu\n", HOME, seen - T);
        while (*sflag == 0) {
        }
        seen = csr_read(mcycle);
        print("probe handoff kind=scp target=%u seen=%lu\n", TARGET,
              seen - 2 * T);
        csr_set(mie, 1 << 3);               /* WFI wakes on MSIP */
        while (!(csr_read(mip) & (1 << 3))) {
            __asm__ volatile("wfi");
        }
        esr_write(ESR_OTHER(PP_M, LOCAL_SHIRE, IPI_TRIGGER_CLEAR), 1);
        seen = csr_read(mcycle);
        print("probe handoff kind=ipi shire=1 seen=%lu\n", seen - 3 * T);
        while (sflag[8] == 0) {
        }
        seen = csr_read(mcycle);
        print("probe handoff kind=scp-late slow=%u seen=%lu\n", TARGET,
              seen - 4 * T);
    }
    return 0;
}
