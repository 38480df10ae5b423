/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cache-control and cache-maintenance CSRs (isa.md section 3), hart 0,
 * TAP: the mcache_control transition rules, ucache_control's view of them,
 * the minion_feature bits that take cache ops away from U-mode, that the
 * maintenance operations and tensor_wait on idle engines complete, the
 * lines a cache op may not name (tensor_error[7]), the locks (lock_sw's
 * tensor_error[5], unlock_sw, a mode change freeing them, lock_va and
 * unlock_va on lines they may not name), evict_sw over the L1
 * scratchpad's ways, cache_invalidate's reserved bits,
 * tensor_conv_size/ctrl and tex_send.  The same results with
 * cache-model=off (the isa group runs both).
 */
#include "etsoc1.h"
#include "tap.h"

#define MCACHE 0x7e0
#define UCACHE 0x810
#define TMASK 0x805
#define TERROR 0x808

/* csrw in U-mode (CSR number patched in by the caller's asm), then back. */
#define USER_CSRW(csr, v) do {                                              \
        register uint64_t a0_ __asm__("a0") = (v);                          \
        csr_clear(mstatus, 3ULL << 11);                                     \
        __asm__ volatile(USER_ASM("csrw " #csr ", a0")                      \
                         :: "r"(a0_) : "t0", "memory");                     \
    } while (0)

static void mcache(uint64_t v)
{
    csr_write(MCACHE, v);
}

int main(uint64_t hartid, const void *fdt)
{
    uint64_t feat = ESR_OTHER(PP_M, 0, MINION_FEATURE), base, lk;
    unsigned e;

    trap_recording = 1;     /* runtime trap_record() */
    if (hartid != 0) {
        return 0;
    }
    CHECK_EQ(csr_read(MCACHE), 0, "mcache_control resets to 0 (shared L1D)");
    mcache(3);
    CHECK_EQ(csr_read(MCACHE), 0, "0 -> 3 is not a legal move: ignored");
    mcache(2);
    CHECK_EQ(csr_read(MCACHE), 0, "2 is never legal");
    mcache(1);
    CHECK_EQ(csr_read(MCACHE), 1, "0 -> 1 (D1Split)");
    mcache(3);
    CHECK_EQ(csr_read(MCACHE), 3, "1 -> 3 (D1Split + L1 scratchpad)");
    mcache(2);
    CHECK_EQ(csr_read(MCACHE), 3, "3 -> 2 ignored");
    mcache(1);
    CHECK_EQ(csr_read(MCACHE), 1, "3 -> 1");

    csr_write(UCACHE, 0x7de);               /* SCPEnable + all its fields */
    CHECK_EQ(csr_read(MCACHE), 3, "ucache_control sets SCPEnable under D1Split");
    CHECK_EQ(csr_read(UCACHE), 0x7df, "ucache_control: [1:0] mirror, fields kept");
    csr_write(UCACHE, 0x001);               /* D1Split cannot change here */
    CHECK_EQ(csr_read(MCACHE), 1, "ucache_control clears SCPEnable only");
    mcache(0);
    csr_write(UCACHE, 0x002);
    CHECK_EQ(csr_read(MCACHE), 0, "without D1Split ucache cannot touch [1:0]");

    csr_write(TMASK, 0x12345);
    CHECK_EQ(csr_read(TMASK), 0x2345, "tensor_mask keeps 16 bits");

    /* maintenance operations complete; tensor_wait on idle engines too */
    trap_seen.count = 0;
    csr_write(0x7d0, 3);                    /* cache_invalidate */
    csr_write(0x7f9, (1ULL << 58) | 3);     /* evict_sw */
    csr_write(0x7fb, (2ULL << 58) | 3);     /* flush_sw */
    csr_write(0x7fd, 0x80000040ULL);        /* lock_sw */
    csr_write(0x7ff, 0x40);                 /* unlock_sw */
    base = DRAM_BASE + 0x100000;
    csr_write(0x81f, (3ULL << 58) | base | 7);      /* prefetch_va */
    csr_write(0x89f, (1ULL << 58) | base | 7);      /* evict_va */
    csr_write(0x8bf, (2ULL << 58) | base | 7);      /* flush_va */
    csr_write(0x8df, base | 1);                     /* lock_va */
    csr_write(0x8ff, base | 1);                     /* unlock_va */
    for (e = 0; e < 16; e++) {
        csr_write(0x830, e);
    }
    CHECK(trap_seen.count == 0,
          "cache ops and tensor_wait on idle engines complete");

    /*
     * Lines a cache op may not name end it with tensor_error[7], no trap:
     * the uncacheable DRAM alias, registers, a scratchpad line beyond the
     * L2 (evict, flush) or the L1 (prefetch).  Scratchpad lines stop
     * there legally.
     */
    csr_write(TERROR, 0);
    csr_write(0x89f, (3ULL << 58) | (DRAM_UC + 0x100000));
    CHECK_EQ(csr_read(TERROR), 1 << 7, "evict_va on uncacheable DRAM: "
             "tensor_error[7]");
    csr_write(TERROR, 0);
    csr_write(0x8bf, (2ULL << 58) | ESR_OTHER(PP_U, 0, 0));
    CHECK_EQ(csr_read(TERROR), 1 << 7, "flush_va on registers: "
             "tensor_error[7]");
    csr_write(TERROR, 0);
    csr_write(0x89f, (2ULL << 58) | SCP_LOCAL);
    csr_write(0x81f, (1ULL << 58) | SCP_LOCAL);
    CHECK_EQ(csr_read(TERROR), 1 << 7, "evict_va to the L3, prefetch_va "
             "to the L2 of a scratchpad line: tensor_error[7]");
    csr_write(TERROR, 0);
    csr_write(0x89f, (1ULL << 58) | SCP_LOCAL | 3);
    csr_write(0x81f, (0ULL << 58) | SCP_LOCAL | 3);
    csr_write(0x81f, (3ULL << 58) | (DRAM_UC + 0x100000));
    CHECK(trap_seen.count == 0 && csr_read(TERROR) == 0,
          "scratchpad lines to the L2 "
          "(evict) and L1 (prefetch), a prefetch to memory: no error");
    csr_write(TERROR, 0);

    /*
     * lock_sw locks a line into a way of its set (lk: set 0 in modes 0
     * and 1) until unlock_sw or a mode change.  It fails with
     * tensor_error[7] on a line the L1 may not cache, and with
     * tensor_error[5] on a locked way, on a line locked in another way
     * and on a set with three locked ways (one stays for the cache).
     */
    lk = DRAM_BASE + 0x200000;
    csr_write(TERROR, 0);
    csr_write(0x7fd, 2ULL << 55 | ESR_OTHER(PP_M, 0, 0));
    CHECK_EQ(csr_read(TERROR), 1 << 7, "lock_sw of registers: "
             "tensor_error[7]");
    csr_write(TERROR, 0);
    csr_write(0x7fd, 0ULL << 55 | lk);
    CHECK_EQ(csr_read(TERROR), 0, "lock_sw of a DRAM line to way 0");
    csr_write(0x7fd, 0ULL << 55 | (lk + 0x400));
    CHECK_EQ(csr_read(TERROR), 1 << 5, "lock_sw to a locked way: "
             "tensor_error[5]");
    csr_write(TERROR, 0);
    csr_write(0x7fd, 1ULL << 55 | lk);
    CHECK_EQ(csr_read(TERROR), 1 << 5, "lock_sw of a line locked in "
             "another way: tensor_error[5]");
    csr_write(TERROR, 0);
    csr_write(0x7fd, 1ULL << 55 | (lk + 0x400));
    csr_write(0x7fd, 2ULL << 55 | (lk + 0x800));
    CHECK_EQ(csr_read(TERROR), 0, "three ways of a set locked");
    csr_write(0x7fd, 3ULL << 55 | (lk + 0xc00));
    CHECK_EQ(csr_read(TERROR), 1 << 5, "a fourth: tensor_error[5]");
    csr_write(TERROR, 0);
    csr_write(0x7ff, 2ULL << 55 | 0 << 6);      /* unlock_sw set 0 way 2 */
    csr_write(0x7fd, 3ULL << 55 | (lk + 0xc00));
    CHECK_EQ(csr_read(TERROR), 0, "unlock_sw frees its way: a line locks "
             "in another");
    mcache(1);                                  /* locks gone, logged */
    csr_write(0x7fd, 0ULL << 55 | lk);
    CHECK_EQ(csr_read(TERROR), 0, "a mode change frees every lock");
    mcache(0);

    /* lock_va, unlock_va: up to 16 lines by VA, tensor_error[7] as above */
    csr_write_x31(0x8df, ESR_OTHER(PP_U, 0, 0), 0);
    CHECK_EQ(csr_read(TERROR), 1 << 7, "lock_va of registers: "
             "tensor_error[7]");
    csr_write(TERROR, 0);
    csr_write_x31(0x8ff, DRAM_UC + 0x100000, 0);
    CHECK_EQ(csr_read(TERROR), 1 << 7, "unlock_va of the uncacheable "
             "alias: tensor_error[7]");
    csr_write(TERROR, 0);
    csr_write_x31(0x8df, (DRAM_BASE + 0x300000) | 3, 64);
    csr_write_x31(0x8ff, (DRAM_BASE + 0x300000) | 3, 64);
    CHECK_EQ(csr_read(TERROR), 0, "lock_va, unlock_va of 4 DRAM lines");

    /*
     * In mode 3 sets 0-11 are the L1 scratchpad: evict_sw and flush_sw
     * skip them (logged), and go on; cache_invalidate's bits other than
     * [1:0] are reserved (ignored, logged)
     */
    mcache(1);
    mcache(3);
    trap_seen.count = 0;
    csr_write(0x7f9, 1ULL << 58 | 0 << 14 | 15);    /* way 0, sets 0-15 */
    csr_write(0x7fb, 2ULL << 58 | 8 << 14 | 7);     /* way 0, sets 8-15 */
    CHECK(trap_seen.count == 0 && csr_read(TERROR) == 0,
          "evict_sw, flush_sw over the L1 scratchpad's sets: no trap, "
          "no error");
    mcache(0);
    csr_write(0x7d0, 0xf1);
    CHECK(trap_seen.count == 0, "cache_invalidate with reserved bits: "
          "no trap");

    /*
     * tensor_conv_size/ctrl make tensor_mask the rows i of a window whose
     * (row + i * srow, col + i * scol) lie inside nrow x ncol; they read
     * as zero.  Rows 2..6 are inside [0, 5) from -2 by 1; columns from -3
     * by 2 are inside [0, 3) only at i = 2 (1); by 0 from 1 always.
     */
    csr_write(0x802, 1ULL << 56 | 5ULL << 32 | 0ULL << 24 | 3);
    csr_write(0x803, 0xfffeULL << 32 | 1);          /* row -2, col 1 */
    CHECK_EQ(csr_read(TMASK), 0x7c, "tensor_conv: rows 2..6 of the window");
    csr_write(0x802, 1ULL << 56 | 5ULL << 32 | 2ULL << 24 | 3);
    csr_write(0x803, 0xfffeULL << 32 | 0xfffd);     /* row -2, col -3 */
    CHECK_EQ(csr_read(TMASK), 0x04, "tensor_conv: signed starts and steps");
    CHECK(csr_read(0x802) == 0 && csr_read(0x803) == 0,
          "tensor_conv_size/ctrl read as zero");

    /* tex_send is a graphics CSR: it traps while graphics is off */
    trap_seen.count = 0;
    csr_write(0x807, 1);
    CHECK(trap_seen.count == 1 && trap_seen.cause == 2,
          "tex_send traps with graphics off");
    esr_write(feat, 0);
    trap_seen.count = 0;
    csr_write(0x807, 1);
    CHECK(trap_seen.count == 0, "tex_send is a no-op with graphics on");
    esr_write(feat, 0x1);

    /* minion_feature takes cache ops away from U-mode */
    trap_seen.count = 0;
    USER_CSRW(0x810, 0);
    USER_CSRW(0x89f, base);
    USER_CSRW(0x8df, base);
    CHECK(trap_seen.count == 0,
          "U-mode may use ucache_control, evict_va, lock_va");
    esr_write(feat, 0x1 | (1 << 3));
    USER_CSRW(0x810, 0);
    CHECK(trap_seen.count == 1 && trap_seen.cause == 2,
          "minion_feature[3]: ucache_control traps in U-mode");
    esr_write(feat, 0x1 | (1 << 2));
    trap_seen.count = 0;
    USER_CSRW(0x89f, base);
    CHECK(trap_seen.count == 1 && trap_seen.cause == 2,
          "minion_feature[2]: evict_va traps in U-mode");
    esr_write(feat, 0x1 | (1 << 5));
    trap_seen.count = 0;
    USER_CSRW(0x8df, base);
    USER_CSRW(0x89f, base);
    CHECK(trap_seen.count == 1 && trap_seen.cause == 2,
          "minion_feature[5]: lock_va traps in U-mode, evict_va does not");
    trap_seen.count = 0;
    csr_write(0x89f, base);
    CHECK(trap_seen.count == 0, "M-mode is not affected");
    esr_write(feat, 0x1);
    trap_seen.count = 0;
    USER_CSRW(0x7f9, 0);
    CHECK(trap_seen.count == 1 && trap_seen.cause == 2, "evict_sw is M-only");
    return tap_done();
}
