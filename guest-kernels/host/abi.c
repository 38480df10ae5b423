/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-launch set-up of the compute runtime (docs/firmware.md, kernel
 * ABI), as Esperanto's worker minion does it before every kernel.  The
 * host launches it three times on the same shires:
 *  ABI_DIRTY: every hart leaves behind what a careless kernel would: FCC
 *    credits to itself (2 on counter 0, 1 on counter 1), fast local
 *    barrier 3 half joined (by hart 0 of the shire), fcsr 0x21, mask m0
 *    0, its U-mode trace control block "enabled" (0);
 *  ABI_CHECK: every hart checks that none of that is left (out[h], one
 *    bit per thing, bit 63: ran), that the L1 scratchpad is on and
 *    cooperative TensorLoads are allowed (hart 0 of each shire loads one
 *    line with a coop group of its own minion: an illegal instruction,
 *    and so status 2, without shire_coop_mode);
 *  ABI_BUS_ERROR: hart 5 of each shire reads a missing ESR (as
 *    Esperanto's bus_error kernel does) and then waits for the
 *    interrupt: the firmware must end its kernel there (no out[5]).
 *  ABI_COOP_HOLD (before ABI_CHECK): hart 0 of each shire issues a
 *    cooperative TensorLoad with minion 1, which never joins, and waits
 *    in it until the host aborts the kernel: ABI_CHECK's coop load on the
 *    same FSM must not wait behind the abandoned one.
 *  ABI_LATE_CREDIT (before ABI_CHECK): hart 0 of each shire returns at
 *    once; hart 2 (minion 1) waits until hart 0 has said so, lets it get
 *    well into the firmware (on the host too) and then sends it a credit
 *    on each counter: one that arrives after hart 0's kernel ended, which
 *    ABI_CHECK must not see.
 *  ABI_ENTRY_CREDIT: every hart credits the hart in its place in the other
 *    shire (counter 0) as soon as it starts, then waits for that hart's
 *    credit: none may be lost to the other's set-up, however far apart
 *    the host starts them.
 */
#include <stdint.h>
#include "etsoc1.h"
#include "et-atomic.h"

enum { ABI_DIRTY, ABI_CHECK, ABI_BUS_ERROR, ABI_COOP_HOLD, ABI_LATE_CREDIT,
       ABI_ENTRY_CREDIT };

enum {
    ABI_BAD_FCC = 1 << 0,       /* fccnb not 0 */
    ABI_BAD_FLB = 1 << 1,       /* fast_local_barrier3 not 0 */
    ABI_BAD_FCSR = 1 << 2,      /* fcsr not 0 */
    ABI_BAD_MASK = 1 << 3,      /* m0-m7 not 0xff */
    ABI_BAD_TRACE = 1 << 4,     /* trace control block not disabled */
    ABI_BAD_TLOAD = 1 << 5,     /* coop TensorLoad set tensor_error */
};
#define ABI_RAN (1ULL << 63)

#define TRACE_CB_ENABLE(h)  (0x8004F23000ULL + (h) * 64 + 57)
#define TLOAD_COOP          (1ULL << 62)
#define BUS_ERROR_HART      5
#define LATE_SENDER         2
#define LATE_SPIN           200000  /* hart 0 reports long before this */

struct abi_args {
    uint64_t mode;
    uint64_t *out;      /* one u64 per hart id */
};

int64_t entry_point(const struct abi_args *a);

static uint8_t line[64] __attribute__((aligned(64)));

static void dirty(uint64_t h)
{
    unsigned s = hart_shire(h);

    fcc_send(s, hart_thread(h), 0, 1u << hart_minion(h));
    fcc_send(s, hart_thread(h), 0, 1u << hart_minion(h));
    fcc_send(s, hart_thread(h), 1, 1u << hart_minion(h));
    if (h % HARTS_PER_SHIRE == 0) {
        flb_arrive(3, 2);
    }
    csr_write(fcsr, 0x21);
    __asm__ volatile("mova.m.x zero");
    *(volatile uint8_t *)TRACE_CB_ENABLE(h) = 0;
}

static uint64_t check(uint64_t h)
{
    uint64_t bad = 0, m;

    if (csr_read(fccnb)) {
        bad |= ABI_BAD_FCC;
    }
    if (esr_read(ESR_OTHER(PP_U, hart_shire(h), FLB(3)))) {
        bad |= ABI_BAD_FLB;
    }
    if (csr_read(fcsr)) {
        bad |= ABI_BAD_FCSR;
    }
    __asm__ volatile("mova.x.m %0" : "=r"(m));
    if (m != 0xff) {
        bad |= ABI_BAD_MASK;
    }
    if (*(volatile uint8_t *)TRACE_CB_ENABLE(h) != 1) {
        bad |= ABI_BAD_TRACE;
    }
    if (h % HARTS_PER_SHIRE == 0) {
        /* a coop group of this minion alone (neighbourhood 0, minion 0) */
        csr_write(tensor_coop, 1u << 16 | 1u << 8 | 1u);
        csr_write_x31(tensor_load, TLOAD_COOP | (uint64_t)line, 64);
        csr_write(tensor_wait, 0);
        if (csr_read(tensor_error)) {
            bad |= ABI_BAD_TLOAD;
        }
    }
    return bad;
}

int64_t entry_point(const struct abi_args *a)
{
    uint64_t h = csr_read(hartid), v = 0;

    switch (a->mode) {
    case ABI_DIRTY:
        dirty(h);
        break;
    case ABI_CHECK:
        v = check(h);
        break;
    case ABI_BUS_ERROR:
        if (h % HARTS_PER_SHIRE == BUS_ERROR_HART) {
            esr_read(ESR_NEIGH(PP_U, LOCAL_SHIRE, 0, MPROT));
            for (unsigned i = 0; i < 100000; i++) {
                __asm__ volatile("");
            }
        }
        break;
    case ABI_COOP_HOLD:
        if (h % HARTS_PER_SHIRE == 0) {
            /* neighbourhood 0, minions 0-1, group 2: minion 1 returns */
            csr_write(tensor_coop, 1u << 16 | 3u << 8 | 2u);
            csr_write_x31(tensor_load, TLOAD_COOP | (uint64_t)line, 64);
            csr_write(tensor_wait, 0);      /* until the abort */
        }
        break;
    case ABI_LATE_CREDIT:
        if (h % HARTS_PER_SHIRE == 0) {
            et_amoorg_d(&a->out[h], ABI_RAN);
        } else if (h % HARTS_PER_SHIRE == LATE_SENDER) {
            while (!et_amoorg_d(&a->out[h - LATE_SENDER], 0)) {
                /* halted until hart 0 writes */
            }
            for (unsigned i = 0; i < LATE_SPIN; i++) {
                __asm__ volatile("");
            }
            fcc_send(hart_shire(h), 0, 0, 1u << 0);
            fcc_send(hart_shire(h), 0, 1, 1u << 0);
        }
        break;
    case ABI_ENTRY_CREDIT:
        fcc_send(hart_shire(h) ^ 1, hart_thread(h), 0, 1u << hart_minion(h));
        fcc_wait(0);
        break;
    }
    a->out[h] = v | ABI_RAN;
    return 0;
}
