/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ESR decoding, privilege checks and error reporting as a minion sees them.
 * Runs on minion 0 of the last shire (so the local-shire alias must not be
 * shire 0); every other hart passes at once.  Prints TAP.
 */
#include "etsoc1.h"
#include "tap.h"

#define MCAUSE_IRQ (1ULL << 63)

static volatile uint64_t busaddr_seen;
static volatile uint64_t trap_mpp;      /* mstatus.MPP of the last trap */
/* a trap other than the ecall back, as U-mode code can read it */
static volatile uint32_t user_trap_seen USER_DATA;

void trap_handler(struct trap_frame *f)
{
    if (f->mcause != 8) {                   /* not the ecall back to M */
        trap_mpp = csr_read(mstatus) >> 11 & 3;
        user_trap_seen = 1;
    }
    if (f->mcause == (MCAUSE_IRQ | IRQ_BUS_ERROR)) {
        busaddr_seen = csr_read(CSR_MBUSADDR);
        csr_clear(mip, 1ULL << IRQ_BUS_ERROR);
    }
    trap_record(f);     /* an interrupt resumes where it struck */
}

static void clear_trap(void)
{
    trap_seen.cause = trap_seen.tval = trap_seen.count = 0;
    busaddr_seen = trap_mpp = user_trap_seen = 0;
}

static uint64_t load64(uint64_t addr)
{
    uint64_t v = 0xdead;
    __asm__ volatile("ld %0, 0(%1)" : "+r"(v) : "r"(addr) : "memory");
    return v;
}

static void store32(uint64_t addr, uint32_t v)
{
    __asm__ volatile("sw %1, 0(%0)" :: "r"(addr), "r"(v) : "memory");
}

/* ld in U-mode, then ecall back to M-mode.  Faults are recorded. */
static uint64_t user_load64(uint64_t addr)
{
    register uint64_t a0 __asm__("a0") = addr;
    register uint64_t a1 __asm__("a1") = 0xdead;

    csr_clear(mstatus, 3ULL << 11);         /* MPP = U */
    __asm__ volatile(
        USER_ASM("ld a1, 0(a0)")
        : "+r"(a1) : "r"(a0) : "t0", "memory");
    return a1;
}

/*
 * ld in U-mode, then up to 1000 nops (a loop, as settle()) for an
 * asynchronous interrupt to come, then ecall back; the nops left.
 */
static uint64_t user_load64_settle(uint64_t addr)
{
    register uint64_t a0 __asm__("a0") = addr;
    register uint64_t a1 __asm__("a1") = 1000;

    csr_clear(mstatus, 3ULL << 11);         /* MPP = U */
    __asm__ volatile(
        USER_ASM("ld zero, 0(a0)\n"
                 "2: lw t0, 0(%2)\n"
                 "bnez t0, 3f\n"
                 "addi a1, a1, -1\n"
                 "bnez a1, 2b\n"
                 "3:")
        : "+r"(a1) : "r"(a0), "r"(&user_trap_seen) : "t0", "memory");
    return a1;
}

/* csrr of @csr in U-mode, then ecall back. */
static uint64_t user_read_hartid(void)
{
    register uint64_t a1 __asm__("a1") = 0xdead;

    csr_clear(mstatus, 3ULL << 11);
    __asm__ volatile(
        USER_ASM("csrr a1, 0xcd0")
        : "+r"(a1) :: "t0", "memory");
    return a1;
}

/* Wait (bounded) for an asynchronous interrupt to be taken. */
static void settle(void)
{
    for (int i = 0; i < 1000 && !trap_seen.count; i++) {
        __asm__ volatile("nop");
    }
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned me = shires - 1;
    uint64_t addr, v;

    if (hartid != (uint64_t)me * HARTS_PER_SHIRE) {
        return 0;
    }
    print("# esr test on hart %lu (shire %u of %u)\n", hartid, me, shires);

    /* reset values */
    CHECK_EQ(esr_read(ESR_NEIGH(PP_M, me, 0, MINION_BOOT)), 0x8000001000ULL,
             "minion_boot reset value");
    CHECK_EQ(esr_read(ESR_NEIGH(PP_M, me, 3, MPROT)), 0x13, "mprot reset value");
    CHECK_EQ(esr_read(ESR_OTHER(PP_M, me, MINION_FEATURE)), 1,
             "minion_feature reset value");
    CHECK_EQ(esr_read(ESR_OTHER(PP_M, me, SHIRE_CONFIG)), 0x0392a000 | me,
             "shire_config reset value carries the shire id");

    /* local-shire alias */
    CHECK_EQ(esr_read(ESR_OTHER(PP_M, LOCAL_SHIRE, SHIRE_CONFIG)),
             0x0392a000 | me, "ESR local alias 0xff is this hart's shire");
    esr_write(ESR_OTHER(PP_U, LOCAL_SHIRE, FLB(5)), 0x42);
    CHECK_EQ(esr_read(ESR_OTHER(PP_U, me, FLB(5))), 0x42,
             "write through the local alias lands in this shire");
    *(volatile uint64_t *)(SCP_LOCAL + 0x100) = 0x1234567890abcdefULL;
    CHECK_EQ(*(volatile uint64_t *)(SCP_BASE + me * SCP_WINDOW + 0x100),
             0x1234567890abcdefULL, "SCP local alias 0x7f is this shire's SRAM");
    esr_write(ESR_NEIGH(PP_M, me, 0xf, MINION_BOOT), 0x8000002000ULL);
    CHECK_EQ(esr_read(ESR_NEIGH(PP_M, me, 2, MINION_BOOT)), 0x8000002000ULL,
             "neighbourhood broadcast write reaches neighbourhood 2");

    /* synchronous access faults */
    /*
     * Misaligned 8-byte stores reach the model byte by byte and fault.
     * (QEMU's softmmu splits a misaligned MMIO load into two aligned
     * loads before the model sees it: docs/choices.md, known limits.)
     */
    clear_trap();
    addr = ESR_OTHER(PP_U, me, FLB(1)) + 4;
    __asm__ volatile("sd zero, 0(%0)" :: "r"(addr) : "memory");
    CHECK(trap_seen.cause == 7 && trap_seen.tval == addr,
          "misaligned ESR store: store access fault (cause %lu)",
          trap_seen.cause);
    clear_trap();
    addr = ESR_OTHER(PP_U, me, FLB(1)) + 4;
    __asm__ volatile("lw zero, 0(%0)" :: "r"(addr) : "memory");
    CHECK(trap_seen.cause == 5 && trap_seen.tval == addr,
          "4-byte ESR load at offset 4: load access fault (cause %lu)",
          trap_seen.cause);
    clear_trap();
    addr = ESR_OTHER(PP_U, me, FLB(0));
    store32(addr, 1);
    CHECK(trap_seen.cause == 7 && trap_seen.tval == addr,
          "4-byte ESR store: store access fault (cause %lu)", trap_seen.cause);
    clear_trap();
    load64(ESR(PP_DEBUG, me, 0x780));
    CHECK(trap_seen.cause == 5,
          "PP=debug from M-mode: access fault (cause %lu)",
          trap_seen.cause);
    clear_trap();
    v = user_load64(ESR_OTHER(PP_M, me, MINION_FEATURE));
    CHECK(trap_seen.cause == 5 && v == 0xdead,
          "PP=M from U-mode: load access fault (cause %lu)", trap_seen.cause);
    clear_trap();
    v = user_load64(ESR_OTHER(PP_U, me, FLB(5)));
    CHECK(trap_seen.count == 0 && v == 0x42, "PP=U from U-mode is allowed");
    clear_trap();
    load64(SCP_BASE + me * SCP_WINDOW + 5 * (1ULL << 20));
    CHECK(trap_seen.cause == 5, "SCP beyond the shire's 4 MiB: access fault");
    clear_trap();
    load64(ESR_OTHER(PP_M, 100, SHIRE_CONFIG));
    CHECK(trap_seen.cause == 5,
          "ESR of a shire that does not exist: access fault");

    /* hartid shadow CSR */
    clear_trap();
    user_read_hartid();
    CHECK(trap_seen.cause == 2,
          "hartid CSR in U-mode without menable_shadows traps");
    csr_write(CSR_MENABLE_SHADOWS, 1);
    clear_trap();
    CHECK_EQ(user_read_hartid(), hartid, "hartid CSR in U-mode with shadows");
    csr_write(CSR_MENABLE_SHADOWS, 0);

    /* asynchronous bus errors */
    csr_set(mie, 1ULL << IRQ_BUS_ERROR);
    csr_set(mstatus, 1 << 3);
    clear_trap();
    addr = ESR_OTHER(PP_M, me, SHIRE_CACHE_BUILD_CONFIG);
    esr_write(addr, 0);
    settle();
    CHECK(trap_seen.cause == (MCAUSE_IRQ | IRQ_BUS_ERROR) &&
          busaddr_seen == addr,
          "write to a read-only ESR: bus-error interrupt, mbusaddr 0x%lx",
          busaddr_seen);
    clear_trap();
    addr = ESR_OTHER(PP_U, me, 0x1000);
    v = load64(addr);
    settle();
    CHECK(trap_seen.cause == (MCAUSE_IRQ | IRQ_BUS_ERROR) &&
          busaddr_seen == addr &&
          v == 0, "read of an unknown ESR: bus error, reads 0");
    clear_trap();
    addr = ESR_NEIGH(PP_U, me, 0, MINION_BOOT);
    load64(addr);
    settle();
    CHECK(trap_seen.cause == (MCAUSE_IRQ | IRQ_BUS_ERROR) &&
          busaddr_seen == addr,
          "an M register at its PP=U alias decodes as unknown");
    csr_clear(mstatus, 1 << 3);
    /*
     * The same from U-mode (a kernel's read of a missing ESR, as
     * Esperanto's bus_error kernel does): the interrupt is taken in U-mode
     * (machine interrupts are always enabled below M), before the kernel
     * goes on to its return, whatever mstatus.MIE says.
     */
    clear_trap();
    addr = ESR_NEIGH(PP_U, LOCAL_SHIRE, 0, MPROT);
    v = user_load64_settle(addr);
    CHECK(trap_seen.cause == (MCAUSE_IRQ | IRQ_BUS_ERROR) && trap_mpp == 0 &&
          busaddr_seen == ESR_NEIGH(PP_U, me, 0, MPROT) && v > 0,
          "read of a missing ESR from U-mode: bus-error interrupt taken in "
          "U-mode (cause 0x%lx, MPP %lu), mbusaddr 0x%lx", trap_seen.cause,
          trap_mpp, busaddr_seen);
    clear_trap();
    addr = ESR_OTHER(PP_U, me, 0x1000);
    v = user_load64_settle(addr);
    CHECK(trap_seen.cause == (MCAUSE_IRQ | IRQ_BUS_ERROR) && trap_mpp == 0 &&
          busaddr_seen == addr && v > 0,
          "read of an unknown shire ESR from U-mode: bus-error interrupt in "
          "U-mode, mbusaddr 0x%lx", busaddr_seen);
    csr_clear(mip, 1ULL << IRQ_BUS_ERROR);

    /*
     * The shire cache's op state machine (SC_IDX_COP_SM_CTL_USER, bank in
     * [16:13], 0xf = all four): a coalescing-buffer flush, as Esperanto's
     * drain_scb starts it, is done at once; every bank reads idle (state 4
     * in [31:24]), which their kernels poll for.
     */
    csr_set(mstatus, 1 << 3);
    clear_trap();
    esr_write(ESR(PP_U, me, 0x300000 | 0xf << 13 | 0x100), 0x0a01);
    for (v = 0, addr = 0; addr < 4; addr++) {
        v |= (esr_read(ESR(PP_U, me, 0x300000 | addr << 13 | 0x100)) >> 24 &
              0xff) != 4;
    }
    settle();
    CHECK(v == 0 && trap_seen.count == 0,
          "shire cache op state machine: a CB flush to all banks, each bank "
          "reads idle (state 4)");
    clear_trap();
    addr = ESR(PP_U, me, 0x300000 | 0xf << 13 | 0x100);
    load64(addr);
    settle();
    CHECK(trap_seen.cause == (MCAUSE_IRQ | IRQ_BUS_ERROR) &&
          busaddr_seen == addr,
          "shire cache: a read of the all-banks alias is a bus error");
    csr_clear(mstatus, 1 << 3);

    /* credits to ourselves, counters and IPIs */
    fcc_send(me, 0, 1, 1u << 0);
    fcc_send(LOCAL_SHIRE, 0, 1, 1u << 0);
    fcc_send(me, 0, 1, 1u << 0);
    CHECK_EQ(csr_read(CSR_FCCNB), 3ULL << 16, "fccnb counts three credits");
    fcc_wait(1);
    fcc_wait(1);
    fcc_wait(1);
    CHECK_EQ(csr_read(CSR_FCCNB), 0, "three fcc waits consume them");
    esr_write(ESR_OTHER(PP_M, me, IPI_TRIGGER), 1ULL << 0);
    CHECK((csr_read(mip) & (1 << 3)) != 0, "ipi_trigger raises MSIP");
    esr_write(ESR_OTHER(PP_M, me, IPI_TRIGGER_CLEAR), 1ULL << 0);
    CHECK((csr_read(mip) & (1 << 3)) == 0, "ipi_trigger_clear clears it");

    return tap_done();
}
