/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IPI redirect in shire 0: harts 1-63 drop to U-mode and sleep in the
 * stall CSR.  Hart 0 points every neighbourhood's ipi_redirect_pc at
 * user_entry and triggers ipi_redirect_trigger, first with hart 63 masked
 * out by ipi_redirect_filter, then for hart 63.  A redirected hart records
 * itself, credits hart 0 and ends with an ecall.  A redirect aimed at a
 * hart that is not stalled (hart 0 itself) raises interrupt 16.  TAP.
 */
#include "etsoc1.h"
#include "tap.h"

#define IPI_REDIRECT_TRIGGER 0x080
#define IPI_REDIRECT_FILTER  0x088
#define IPI_REDIRECT_PC      0x40
#define IRQ_BAD_REDIRECT     16

static volatile uint32_t redirected[HARTS_PER_SHIRE] USER_DATA;

/* Runs in U-mode, in place of the stall; tp holds the hart id. */
static USER_TEXT void user_entry(void)
{
    uint64_t h;

    __asm__ volatile("mv %0, tp" : "=r"(h));
    redirected[h]++;
    fcc_send(0, 0, 0, 1u << 0);
    __asm__ volatile("ecall");
}

void trap_handler(struct trap_frame *f)
{
    if (f->mcause == 8) {       /* ecall from U: this hart is done */
        for (;;) {
            csr_write(CSR_VALIDATION0, VALIDATION_PASS);
        }
    }
    print("redirect: hart %lu: unexpected mcause 0x%lx\n", csr_read(mhartid),
          f->mcause);
    fail("unexpected trap");
}

static USER_TEXT void user_sleep(void)
{
    fcc_send(0, 0, 0, 1u << 0);         /* here, about to stall */
    for (;;) {
        csr_write(CSR_STALL, 0);
    }
}

/* Trigger until every hart in @mask has been redirected (one may not be
 * stalled yet when the first trigger comes). */
static void redirect_until_done(uint64_t mask)
{
    unsigned h, tries;

    for (tries = 0; tries < 1000; tries++) {
        uint64_t left = 0;

        for (h = 1; h < HARTS_PER_SHIRE; h++) {
            if ((mask >> h & 1) && !redirected[h]) {
                left |= 1ULL << h;
            }
        }
        if (!left) {
            return;
        }
        esr_write(ESR_OTHER(PP_U, 0, IPI_REDIRECT_TRIGGER), left);
        for (h = 0; h < 2000; h++) {
            __asm__ volatile("nop");
        }
    }
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned h, n;

    if (hart_shire(hartid) != 0) {
        return 0;
    }
    if (hartid != 0) {
        __asm__ volatile("mv tp, %0" :: "r"(hartid));
        csr_clear(mstatus, 3ULL << 11);         /* MPP = U */
        csr_write(mepc, (uint64_t)user_sleep);
        __asm__ volatile("mret");
        __builtin_unreachable();
    }
    esr_write(ESR_NEIGH(PP_U, 0, 0xf, IPI_REDIRECT_PC), (uint64_t)user_entry);
    esr_write(ESR_OTHER(PP_M, 0, IPI_REDIRECT_FILTER), ~(1ULL << 63));
    for (h = 1; h < HARTS_PER_SHIRE; h++) {
        fcc_wait(0);                            /* all 63 announced */
    }
    redirect_until_done(~1ULL & ~(1ULL << 63));
    for (h = 1; h < HARTS_PER_SHIRE - 1; h++) {
        fcc_wait(0);
    }
    for (h = 1, n = 0; h < HARTS_PER_SHIRE - 1; h++) {
        n += redirected[h] == 1;
    }
    CHECK(n == 62, "%u of harts 1-62 redirected to ipi_redirect_pc", n);
    esr_write(ESR_OTHER(PP_U, 0, IPI_REDIRECT_TRIGGER), 1ULL << 63);
    CHECK(redirected[63] == 0, "hart 63, filtered out, stays stalled");

    esr_write(ESR_OTHER(PP_M, 0, IPI_REDIRECT_FILTER), ~0ULL);
    redirect_until_done(1ULL << 63);
    fcc_wait(0);
    CHECK(redirected[63] == 1, "with the filter open, hart 63 is redirected");

    esr_write(ESR_OTHER(PP_U, 0, IPI_REDIRECT_TRIGGER), 1ULL << 0);
    CHECK((csr_read(mip) >> IRQ_BAD_REDIRECT) & 1,
          "redirect to a hart that is not stalled raises interrupt 16");
    csr_clear(mip, 1ULL << IRQ_BAD_REDIRECT);
    CHECK(!((csr_read(mip) >> IRQ_BAD_REDIRECT) & 1),
          "clearing mip bit 16 acknowledges it");
    return tap_done();
}
