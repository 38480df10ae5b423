/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An eDMA transfer stopped while it runs, by a hart: the STOP doorbell,
 * then the engine disabled.  Hart 0 moves 8 MiB host -> card (read
 * channel 0, one block, host-loopback=on) and stops it D cycles after
 * its doorbell.  What moved before the stop must follow from the
 * model's times (the doorbell's, the link's rate), not from how far the
 * host had taken the channel's steps when the stop came: the harness
 * runs this under both TCG modes and compares the lines
 *
 *   edmastop: stop moved N bytes
 *   edmastop: disable moved N bytes
 *
 * Every other hart stops at once.
 */
#include "etsoc1.h"
#include "tap.h"
#include "../../firmware-stubs/fw/card.h"

#define RD_CH0        EDMA_CH(0, 0)         /* read channel 0 */
#define LOOPBACK      0x3000000000ULL       /* host memory, as the card sees */
#define LEN           (8u << 20)
#define PAGE          4096u
#define PIECE         (64u << 10)           /* etsoc1-edma step-bytes */
#define D             100000u               /* cycles from doorbell to stop */

/* Start the 8 MiB into @dst, D cycles later @stop it; bytes moved. */
static uint32_t run(uint64_t dst, void (*stop)(void), const char *how)
{
    uint64_t t0, n;
    uint32_t moved = 0, bad = 0, p;

    wr32(EDMA_BASE + EDMA_RD_ENGINE_EN, 1);
    wr32(RD_CH0 + CH_CONTROL1, CTL_LIE);
    wr32(RD_CH0 + CH_TRANSFER_SIZE, LEN);
    wr32(RD_CH0 + CH_SAR_LO, 0);
    wr32(RD_CH0 + CH_SAR_HI, 0);
    wr32(RD_CH0 + CH_DAR_LO, (uint32_t)dst);
    wr32(RD_CH0 + CH_DAR_HI, dst >> 32);
    wr32(EDMA_BASE + EDMA_RD_DOORBELL, 0);
    t0 = csr_read(mcycle);
    while (csr_read(mcycle) - t0 < D) {
    }
    stop();
    /* the stop takes effect at the channel's next step: poll for it */
    for (n = 0; CTL_CS(rd32(RD_CH0 + CH_CONTROL1)) == 1 && n < 100000000;
         n++) {
    }
    CHECK(CTL_CS(rd32(RD_CH0 + CH_CONTROL1)) == 3, "%s: the channel stopped",
          how);
    for (p = 0; p < LEN / PAGE; p++) {
        uint32_t got = *(volatile uint32_t *)(dst + (uint64_t)p * PAGE);

        if (got == p + 1 && moved == p * PAGE) {
            moved += PAGE;
        } else if (got != 0) {
            bad++;
        }
    }
    CHECK(bad == 0 && moved % PIECE == 0 && moved > 0 && moved < LEN,
          "%s: a prefix of whole pieces moved (%u bytes, %u pages out of "
          "place)", how, moved, bad);
    print("edmastop: %s moved %u bytes\n", how, moved);
    return moved;
}

static void stop_doorbell(void)
{
    wr32(EDMA_BASE + EDMA_RD_DOORBELL, EDMA_DOORBELL_STOP | 0);
}

static void stop_engine(void)
{
    wr32(EDMA_BASE + EDMA_RD_ENGINE_EN, 0);
}

int main(uint64_t hartid, const void *fdt)
{
    uint32_t p;

    if (hartid != 0) {
        return 0;
    }
    for (p = 0; p < LEN / PAGE; p++) {
        *(volatile uint32_t *)(LOOPBACK + (uint64_t)p * PAGE) = p + 1;
    }
    run(DRAM_BASE + (256u << 20), stop_doorbell, "stop");
    CHECK(rd32(EDMA_BASE + EDMA_RD_INT_STATUS) & EDMA_INT_ABORT(0),
          "stop: ABORT raised");
    wr32(EDMA_BASE + EDMA_RD_INT_CLEAR, EDMA_INT_ABORT(0));
    run(DRAM_BASE + (272u << 20), stop_engine, "disable");
    CHECK(!(rd32(EDMA_BASE + EDMA_RD_INT_STATUS) & EDMA_INT_ABORT(0)),
          "disable: no ABORT");
    return tap_done();
}
