/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-Minion vendor instructions: scalar atomics, coherent
 * stores.  The decoder is qemu-patches/0002 (target/riscv/XEtsoc1.decode);
 * these are its out-of-line helpers.
 *
 * From isa.md section 8.  Local atomics (funct7 bit 0 clear) execute in the
 * shire's L2, global ones at the L3; here both act on the same memory, with
 * host atomics, so they are atomic under multi-threaded TCG.  Fault rules:
 * a misaligned address, a local atomic to the L2 scratchpad, and any atomic
 * to ESR, IO or service-processor space or to the uncacheable DRAM alias
 * raise a store/AMO access fault.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "exec/exec-all.h"
#include "exec/cpu_ldst.h"
#include "exec/helper-proto.h"
#include "hw/etsoc1/etsoc1.h"
#include "trace.h"

FIELD(AMO_DESC, OP, 0, 8)
FIELD(AMO_DESC, D, 8, 1)        /* 64-bit; for stores: size in OP */
FIELD(AMO_DESC, GLOBAL, 9, 1)

static G_NORETURN void etsoc1_amo_fault(CPURISCVState *env, target_ulong addr,
                                        const char *why, uintptr_t ra)
{
    qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": atomic or "
                  "coherent store at 0x" TARGET_FMT_lx ": %s\n",
                  (uint64_t)env->mhartid, addr, why);
    env->badaddr = addr;
    riscv_raise_exception(env, RISCV_EXCP_STORE_AMO_ACCESS_FAULT, ra);
}

static bool etsoc1_in(int region, hwaddr pa)
{
    return pa - etsoc1_memmap[region].base < etsoc1_memmap[region].size;
}

/*
 * Translate and check @addr; page faults come from the MMU as usual.
 * Returns the physical address, where the timing model will charge a
 * global atomic at its home L3 slice (PA[10:6]).
 */
hwaddr etsoc1_amo_check(CPURISCVState *env, target_ulong addr,
                        unsigned size, bool global, bool is_amo, uintptr_t ra)
{
    CPUTLBEntryFull *full;
    void *host;
    hwaddr pa;
    int flags;

    if (addr & (size - 1)) {
        etsoc1_amo_fault(env, addr, "misaligned", ra);
    }
    flags = probe_access_full(env, addr, MMU_DATA_STORE,
                              cpu_mmu_index(env, false), false, &host, &full,
                              ra);
    pa = (full->phys_addr & TARGET_PAGE_MASK) | (addr & ~TARGET_PAGE_MASK);
    if (is_amo && (flags & TLB_MMIO)) {
        etsoc1_amo_fault(env, addr, "not memory (ESR, IO or SP space)", ra);
    }
    if (is_amo && etsoc1_in(ETSOC1_DRAM_UC, pa)) {
        etsoc1_amo_fault(env, addr, "uncacheable DRAM alias", ra);
    }
    if (is_amo && !global && (etsoc1_in(ETSOC1_SCP, pa) ||
                              etsoc1_in(ETSOC1_SCP_LINEAR, pa))) {
        etsoc1_amo_fault(env, addr, "local atomic to the L2 scratchpad", ra);
    }
    return pa;
}

/* One dispatcher per width, over QEMU's host-atomic helpers. */
#define ETSOC1_AMO_FN(name, type, SZ)                                         \
type name(CPURISCVState *env, unsigned op, target_ulong addr,          \
                 type val, MemOpIdx oi, uintptr_t ra)                         \
{                                                                             \
    switch (op) {                                                             \
    case ETSOC1_AMO_ADD:                                                      \
        return cpu_atomic_fetch_add##SZ##_le_mmu(env, addr, val, oi, ra);     \
    case ETSOC1_AMO_SWAP:                                                     \
        return cpu_atomic_xchg##SZ##_le_mmu(env, addr, val, oi, ra);          \
    case ETSOC1_AMO_XOR:                                                      \
        return cpu_atomic_fetch_xor##SZ##_le_mmu(env, addr, val, oi, ra);     \
    case ETSOC1_AMO_OR:                                                       \
        return cpu_atomic_fetch_or##SZ##_le_mmu(env, addr, val, oi, ra);      \
    case ETSOC1_AMO_AND:                                                      \
        return cpu_atomic_fetch_and##SZ##_le_mmu(env, addr, val, oi, ra);     \
    case ETSOC1_AMO_MIN:                                                      \
        return cpu_atomic_fetch_smin##SZ##_le_mmu(env, addr, val, oi, ra);    \
    case ETSOC1_AMO_MAX:                                                      \
        return cpu_atomic_fetch_smax##SZ##_le_mmu(env, addr, val, oi, ra);    \
    case ETSOC1_AMO_MINU:                                                     \
        return cpu_atomic_fetch_umin##SZ##_le_mmu(env, addr, val, oi, ra);    \
    case ETSOC1_AMO_MAXU:                                                     \
        return cpu_atomic_fetch_umax##SZ##_le_mmu(env, addr, val, oi, ra);    \
    case ETSOC1_AMO_CMPSWAP:    /* the expected value is implicitly x31 */    \
        return cpu_atomic_cmpxchg##SZ##_le_mmu(env, addr, env->gpr[31], val,  \
                                               oi, ra);                       \
    default:                                                                  \
        g_assert_not_reached();                                               \
    }                                                                         \
}

ETSOC1_AMO_FN(etsoc1_amo32, uint32_t, l)
ETSOC1_AMO_FN(etsoc1_amo64, uint64_t, q)

/* rd <- old value; .w results are sign-extended, as for standard AMOs. */
target_ulong HELPER(etsoc1_amo)(CPURISCVState *env, target_ulong addr,
                                target_ulong val, uint32_t desc)
{
    uintptr_t ra = GETPC();
    unsigned op = FIELD_EX32(desc, AMO_DESC, OP);
    bool d = FIELD_EX32(desc, AMO_DESC, D);
    bool global = FIELD_EX32(desc, AMO_DESC, GLOBAL);
    int mmu_idx = cpu_mmu_index(env, false);
    hwaddr pa = etsoc1_amo_check(env, addr, d ? 8 : 4, global, true, ra);

    trace_etsoc1_amo(env->mhartid, op, d ? 8 : 4, global, pa);
    if (d) {
        return etsoc1_amo64(env, op, addr, val,
                            make_memop_idx(MO_LEUQ | MO_ALIGN, mmu_idx), ra);
    }
    return (int32_t)etsoc1_amo32(env, op, addr, val,
                                 make_memop_idx(MO_LEUL | MO_ALIGN, mmu_idx),
                                 ra);
}

/* sbl/sbg, shl/shg: coherent byte and (aligned) halfword stores. */
void HELPER(etsoc1_store)(CPURISCVState *env, target_ulong addr,
                          target_ulong val, uint32_t desc)
{
    uintptr_t ra = GETPC();
    unsigned size = FIELD_EX32(desc, AMO_DESC, OP);
    bool global = FIELD_EX32(desc, AMO_DESC, GLOBAL);
    int mmu_idx = cpu_mmu_index(env, false);
    hwaddr pa = etsoc1_amo_check(env, addr, size, global, false, ra);

    trace_etsoc1_coherent_store(env->mhartid, size, global, pa);
    if (size == 1) {
        cpu_stb_mmu(env, addr, val, make_memop_idx(MO_UB, mmu_idx), ra);
    } else {
        cpu_stw_le_mmu(env, addr, val, make_memop_idx(MO_LEUW, mmu_idx), ra);
    }
}
