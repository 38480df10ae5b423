/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Register ranges and the receiver's FP environment (TAP):
 *  - 4 registers from f30 wrap to f0/f1, received into f29..f0;
 *  - 127 registers (the most) from f5, received with iadd at f9: each
 *    receiver register takes part ~4 times, in order;
 *  - fadd uses the receiver's rounding mode and raises its flags;
 *  - the instruction is asynchronous: integer code runs on after a send is
 *    issued, and tensor_wait event 9 waits for the transfer.
 * Minion 0 sends, minion 1 receives; they meet through credits.
 */
#include "fabric.h"
#include "tap.h"

/* lane 0 of f0..f31 */
static void get_all(uint32_t *v)
{
#define GET(n) v[n] = FREG_GET(n);
    GET(0) GET(1) GET(2) GET(3) GET(4) GET(5) GET(6) GET(7)
    GET(8) GET(9) GET(10) GET(11) GET(12) GET(13) GET(14) GET(15)
    GET(16) GET(17) GET(18) GET(19) GET(20) GET(21) GET(22) GET(23)
    GET(24) GET(25) GET(26) GET(27) GET(28) GET(29) GET(30) GET(31)
#undef GET
}

static void set_all(uint32_t base)
{
#define SET(n) FREG_SET(n, base + n * 0x01010101u);
    SET(0) SET(1) SET(2) SET(3) SET(4) SET(5) SET(6) SET(7)
    SET(8) SET(9) SET(10) SET(11) SET(12) SET(13) SET(14) SET(15)
    SET(16) SET(17) SET(18) SET(19) SET(20) SET(21) SET(22) SET(23)
    SET(24) SET(25) SET(26) SET(27) SET(28) SET(29) SET(30) SET(31)
#undef SET
}

#define SND_BASE 0x10000000u
#define RCV_BASE 0x00000007u

static volatile uint32_t went_on, marker, marker_seen;

static void sync_with(unsigned partner_hart_minion)
{
    fcc_send(0, 0, 0, 1u << partner_hart_minion);
    fcc_wait(0);
}

int main(uint64_t hartid, const void *fdt)
{
    uint32_t got[32], want[32];
    unsigned k, fails;

    if (hartid == 0) {
        set_all(SND_BASE);
        sync_with(1);
        tensor_send(1, 30, 4);
        tensor_send(1, 5, 127);
        FREG_SET(3, 0x33c00000);            /* 1.5 * 2^-24 */
        tensor_send(1, 3, 1);
        FREG_SET(3, 0x33c00000);
        tensor_send(1, 3, 1);
        /* issue a send nobody receives yet, carry on, then wait for it */
        tensor_send(1, 20, 1);
        went_on = 1;
        fcc_send(0, 0, 0, 1u << 1);
        csr_write(0x830, 9);                /* tensor_wait: reduce */
        marker_seen = marker;
        fcc_send(0, 0, 0, 1u << 1);
        return 0;
    }
    if (hartid != 2) {
        return 0;
    }
    set_all(RCV_BASE);
    sync_with(0);

    tensor_recv(0, 29, 4, TR_MOVE);
    get_all(got);
    for (k = 0, fails = 0; k < 4; k++) {
        fails += got[(29 + k) % 32] != SND_BASE + ((30 + k) % 32) * 0x01010101u;
    }
    fails += got[1] != RCV_BASE + 1 * 0x01010101u;      /* untouched */
    CHECK(fails == 0, "4 registers from f30 land in f29, f30, f31, f0");

    set_all(RCV_BASE);
    tensor_recv(0, 9, 127, TR_IADD);
    get_all(got);
    for (k = 0; k < 32; k++) {
        want[k] = RCV_BASE + k * 0x01010101u;
    }
    for (k = 0; k < 127; k++) {
        want[(9 + k) % 32] += SND_BASE + ((5 + k) % 32) * 0x01010101u;
    }
    for (k = 0, fails = 0; k < 32; k++) {
        fails += got[k] != want[k];
    }
    CHECK(fails == 0, "127 registers from f5 added into f9.. in order, "
          "wrapping (%u mismatches)", fails);

    /* 1.0 + 1.5 * 2^-24: nearest-even rounds up, towards zero does not */
    csr_write(fflags, 0);
    csr_write(frm, 1);                      /* RTZ */
    FREG_SET(3, 0x3f800000);
    tensor_recv(0, 3, 1, TR_FADD);
    CHECK_EQ(FREG_GET(3), 0x3f800000, "fadd rounds with the receiver's frm (RTZ)");
    CHECK_EQ(csr_read(fflags), 0x1, "and raises NX in the receiver's fflags");
    csr_write(frm, 0);                      /* RNE */
    FREG_SET(3, 0x3f800000);
    tensor_recv(0, 3, 1, TR_FADD);
    CHECK_EQ(FREG_GET(3), 0x3f800001, "fadd with frm = RNE rounds up");

    fcc_wait(0);
    CHECK(went_on, "the sender runs on after issuing a send with no receiver");
    marker = 42;
    tensor_recv(0, 20, 1, TR_MOVE);
    fcc_wait(0);
    CHECK(marker_seen == 42, "tensor_wait 9 held the sender until the transfer");
    CHECK_EQ(FREG_GET(20), SND_BASE + 20 * 0x01010101u,
             "and the register arrived");
    return tap_done();
}
