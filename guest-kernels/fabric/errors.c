/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bad input to the fabric, from minion 0 (hart 0); thread 1 of minion 0
 * checks the thread-0-only rule.  Prints TAP.
 */
#include "etsoc1.h"
#include "tap.h"

static volatile int t1_done, t1_trapped;

static uint64_t take_error(void)
{
    uint64_t e = csr_read(CSR_TENSOR_ERROR);

    csr_write(CSR_TENSOR_ERROR, 0);
    return e;
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned i;

    trap_recording = 1;     /* runtime trap_record() */
    if (hartid == 1) {
        trap_seen.count = 0;
        tensor_send(2, 0, 1);
        t1_trapped = trap_seen.count == 1 && trap_seen.cause == 2;
        t1_done = 1;
        return 0;
    }
    if (hartid != 0) {
        return 0;
    }
    while (!t1_done) {
    }
    CHECK(t1_trapped, "thread 1 issuing tensor_reduce: illegal instruction");

    take_error();
    tensor_send(0, 0, 1);
    CHECK_EQ(take_error(), 1 << 9, "self as partner sets tensor_error[9]");
    tensor_recv(1, 0, 1, 5);            /* isub: reserved */
    CHECK_EQ(take_error(), 1 << 9, "reserved receive function sets [9]");
    tensor_recv(1, 0, 1, 1);            /* fsub: reserved */
    CHECK_EQ(take_error(), 1 << 9, "fsub (reserved) sets [9]");
    tensor_send(1, 0, 0);
    CHECK_EQ(take_error(), 0, "zero registers: a no-op, no error");
    tensor_send(shires * MINIONS_PER_SHIRE, 0, 1);
    CHECK_EQ(take_error(), 1 << 9, "partner beyond the last shire sets [9]");
    tensor_recv(8191, 0, 1, TR_FADD);
    CHECK_EQ(take_error(), 1 << 9, "partner id 8191 sets [9]");

    trap_seen.count = 0;
    esr_write(ESR_OTHER(PP_U, 40, FCC_CREDINC(0, 0)), 1);
    CHECK(trap_seen.count == 1 && trap_seen.cause == 7,
          "credits to a shire that does not exist: store access fault");

    /* 65,536 credits on fcc1 of ourselves wrap the 16-bit counter */
    for (i = 0; i < 65535; i++) {
        fcc_send(0, 0, 1, 1u << 0);
    }
    CHECK_EQ(csr_read(CSR_FCCNB) >> 16, 65535, "fcc1 holds 65535 credits");
    CHECK_EQ(take_error(), 0, "no overflow yet");
    fcc_send(0, 0, 1, 1u << 0);
    CHECK_EQ(take_error(), 1 << 3, "the 65536th credit sets tensor_error[3]");
    CHECK_EQ(csr_read(CSR_FCCNB) >> 16, 0, "and the counter wrapped to 0");
    return tap_done();
}
