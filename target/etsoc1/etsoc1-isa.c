/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-Minion vendor instructions: scalar atomics, coherent
 * stores, and the wait of an FP instruction behind a tensor operation.
 * The decoder (XEtsoc1.decode, trans_xetsoc1.c.inc) and the helpers'
 * declarations (helper.h) are beside this file.
 *
 * From isa.md section 8.  Local atomics (funct7 bit 0 clear) execute in the
 * shire's L2, global ones at the L3; here both act on the same memory, with
 * host atomics, so they are atomic under multi-threaded TCG.  Fault rules:
 * a misaligned address, a local atomic to the L2 scratchpad, and any atomic
 * to ESR, IO or service-processor space or to the uncacheable DRAM alias
 * raise a store/AMO access fault.
 *
 * Timing (docs/timing.md): a global atomic or coherent store to DRAM waits
 * for its home L3 slice (etsoc1-l3.c), one to another shire's scratchpad
 * for the mesh round trip; local ones, and global ones to our own
 * scratchpad, stay in the shire's L2 and cost nothing more.
 *
 * Another shire's scratchpad is I/O in the hart's view, so that each
 * access is timed (etsoc1-shire.c).  QEMU's atomic helpers cannot work on
 * I/O (they would stop the world and retry forever), so atomics there act
 * on the scratchpad's RAM directly, with host atomics.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "exec/exec-all.h"
#include "exec/cpu_ldst.h"
#include "exec/helper-proto.h"
#include "exec/ram_addr.h"
#include "target/riscv/etsoc1/etsoc1-isa.h"
#include "hw/etsoc1/etsoc1.h"
#include "hw/etsoc1/etsoc1-trace.h"
#include "hw/etsoc1/trace.h"

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

/*
 * The RAM behind @pa if it is another shire's L2 scratchpad, which the
 * hart's view maps as I/O: the region, with the offset in *@off and the
 * shire in *@shire.  NULL for anything else, including the part of a
 * shire's window that has no SRAM behind it.
 */
static MemoryRegion *etsoc1_scp_ram(CPURISCVState *env, hwaddr pa,
                                    unsigned size, hwaddr *off,
                                    unsigned *shire)
{
    Etsoc1MachineState *m = ETSOC1_MINION_CPU(env_archcpu(env))->shire->chip;
    hwaddr rel = pa - etsoc1_memmap[ETSOC1_SCP].base;

    if (!etsoc1_in(ETSOC1_SCP, pa) || etsoc1_scp_shire(pa) >= m->num_shires
        || rel % ETSOC1_SCP_WINDOW + size > ETSOC1_SCP_SIZE) {
        return NULL;
    }
    *shire = etsoc1_scp_shire(pa);
    *off = rel % ETSOC1_SCP_WINDOW;
    return &m->shire[*shire].scp;
}

/*
 * Translate and check @addr; page faults come from the MMU as usual.
 * Returns the physical address.
 */
hwaddr etsoc1_amo_check(CPURISCVState *env, target_ulong addr,
                        unsigned size, bool global, bool is_amo, uintptr_t ra)
{
    CPUTLBEntryFull *full;
    MemoryRegion *remote = NULL;
    unsigned shire = 0;
    void *host;
    hwaddr pa, off;
    int flags;

    if (addr & (size - 1)) {
        etsoc1_amo_fault(env, addr, "misaligned", ra);
    }
    flags = probe_access_full(env, addr, MMU_DATA_STORE,
                              cpu_mmu_index(env, false), false, &host, &full,
                              ra);
    pa = (full->phys_addr & TARGET_PAGE_MASK) | (addr & ~TARGET_PAGE_MASK);
    if (flags & TLB_MMIO) {
        remote = etsoc1_scp_ram(env, pa, size, &off, &shire);
    }
    if (is_amo && (flags & TLB_MMIO) && !remote) {
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

/*
 * The line clock a global operation at @addr (@size bytes, physical @pa)
 * orders on, locked, or NULL: held from before its memory access until
 * etsoc1_amo_timing has run (etsoc1_line_clock_of).  A coherent store to
 * another shire's scratchpad is timed, and locked, by the shire's view
 * instead.  Not under a gdb watchpoint: a hit leaves the helper by
 * longjmp, which would keep the lock (the access then goes untimed).
 *
 * With poll-halt=on the operation first waits at the gate until no hart
 * can still make one that takes effect before it (etsoc1_sync_gate): the
 * global operations on memory then take effect in the order of the
 * model's times, not the host's (the instruction restarts, from lane
 * gsc_progress for a packed one).
 */
Etsoc1LineClock *etsoc1_amo_lock(CPURISCVState *env, target_ulong addr,
                                 unsigned size, hwaddr pa, bool global,
                                 bool is_amo, uintptr_t ra)
{
    Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(env_archcpu(env));
    Etsoc1LineClock *lc = NULL;

    if (global && (is_amo || etsoc1_in(ETSOC1_DRAM, pa)) &&
        !cpu_watchpoint_address_matches(env_cpu(env), addr, size)) {
        lc = etsoc1_line_clock_of(cpu, pa);
    }
    if (lc) {
        Etsoc1GateAccess a = {
            .slot = &lc->gen[etsoc1_line_slot(pa)],
            .bank = etsoc1_l3_bank_of(cpu, pa),
            .dram = etsoc1_l3_may_miss(cpu, pa) ?
                    BIT(etsoc1_memshire_of(pa)) : 0,
        };

        if (!etsoc1_sync_gate(cpu, etsoc1_global_arrival(cpu, pa), &a)) {
            riscv_raise_exception(env, etsoc1_halt_cause(cpu), ra);
        }
        qemu_mutex_lock(&lc->lock);
        lc->locked_pa = pa;
    }
    return lc;
}

void etsoc1_amo_unlock(Etsoc1LineClock *lc)
{
    if (lc) {
        Etsoc1MinionCPU *cpu = etsoc1_current_minion();
        hwaddr pa = lc->locked_pa;

        qemu_mutex_unlock(&lc->lock);
        /* cheap unless a poll is halted */
        etsoc1_sync_written(cpu->shire->chip, lc, pa);
        etsoc1_sync_done(cpu);
    }
}

/*
 * The latency of a global operation at @pa that passed etsoc1_amo_check,
 * once per atomic (per lane of a packed one), @wrote if it changed
 * memory: at its home L3 slice (PA[10:6]) for DRAM, the mesh round trip
 * for another shire's scratchpad; either way after the line's last
 * global write (docs/timing.md, causality).
 */
void etsoc1_amo_timing(CPURISCVState *env, hwaddr pa, unsigned size,
                       bool global, bool is_amo, bool wrote, uintptr_t ra)
{
    Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(env_archcpu(env));
    unsigned shire;
    hwaddr off;

    if (global && etsoc1_in(ETSOC1_DRAM, pa)) {
        etsoc1_l3_access(cpu, pa, wrote);
    } else if (global && is_amo &&
               etsoc1_scp_ram(env, pa, size, &off, &shire)) {
        /* a coherent store there is timed by the view, as any store */
        etsoc1_scp_remote_amo(cpu, pa, wrote, ra);
    }
}

/*
 * Host pointer for an atomic at @addr when it is another shire's
 * scratchpad (see the top of the file), else NULL; *@ram is its RAM
 * address, for etsoc1_amo_written().  The TLB entry is the one
 * etsoc1_amo_check just filled.
 */
static void *etsoc1_amo_host(CPURISCVState *env, target_ulong addr,
                             unsigned size, MemOpIdx oi, uintptr_t ra,
                             ram_addr_t *ram)
{
    CPUTLBEntryFull *full;
    MemoryRegion *mr;
    unsigned shire;
    void *host;
    hwaddr pa, off;

    if (!(probe_access_full(env, addr, MMU_DATA_STORE, get_mmuidx(oi), false,
                            &host, &full, ra) & TLB_MMIO)) {
        return NULL;
    }
    pa = (full->phys_addr & TARGET_PAGE_MASK) | (addr & ~TARGET_PAGE_MASK);
    mr = etsoc1_scp_ram(env, pa, size, &off, &shire);
    if (!mr) {
        return NULL;
    }
    *ram = memory_region_get_ram_addr(mr) + off;
    return memory_region_get_ram_ptr(mr) + off;
}

/*
 * After an atomic through etsoc1_amo_host: mark the word dirty for
 * migration.  Translated code is not invalidated: code in a scratchpad
 * that another shire changes with an atomic keeps its old translation (a
 * known limit, docs/timing.md).
 */
static void etsoc1_amo_written(ram_addr_t ram, unsigned size)
{
    cpu_physical_memory_set_dirty_range(ram, size, DIRTY_CLIENTS_NOCODE);
}

/* The value an atomic leaves in memory; @bits wide, like its operands. */
uint64_t etsoc1_amo_result(unsigned op, uint64_t old, uint64_t val,
                                  uint64_t cmp, unsigned bits)
{
    int64_t sold = sextract64(old, 0, bits), sval = sextract64(val, 0, bits);

    old = extract64(old, 0, bits);
    val = extract64(val, 0, bits);
    switch (op) {
    case ETSOC1_AMO_ADD:
        return old + val;
    case ETSOC1_AMO_SWAP:
        return val;
    case ETSOC1_AMO_XOR:
        return old ^ val;
    case ETSOC1_AMO_OR:
        return old | val;
    case ETSOC1_AMO_AND:
        return old & val;
    case ETSOC1_AMO_MIN:
        return sold < sval ? old : val;
    case ETSOC1_AMO_MAX:
        return sold > sval ? old : val;
    case ETSOC1_AMO_MINU:
        return MIN(old, val);
    case ETSOC1_AMO_MAXU:
        return MAX(old, val);
    case ETSOC1_AMO_CMPSWAP:
        return old == extract64(cmp, 0, bits) ? val : old;
    default:
        g_assert_not_reached();
    }
}

/* Atomics on little-endian words in host RAM: compare-and-swap loops. */
static uint32_t etsoc1_host_amo32(uint32_t *p, unsigned op, uint32_t val,
                                  uint64_t cmp)
{
    uint32_t cur = qatomic_read(p), seen, old;

    for (;; cur = seen) {
        old = le32_to_cpu(cur);
        seen = qatomic_cmpxchg(p, cur,
            cpu_to_le32(etsoc1_amo_result(op, old, val, cmp, 32)));
        if (seen == cur) {
            return old;
        }
    }
}

static uint64_t etsoc1_host_amo64(uint64_t *p, unsigned op, uint64_t val,
                                  uint64_t cmp)
{
    uint64_t cur = qatomic_read(p), seen, old;

    for (;; cur = seen) {
        old = le64_to_cpu(cur);
        seen = qatomic_cmpxchg(p, cur,
            cpu_to_le64(etsoc1_amo_result(op, old, val, cmp, 64)));
        if (seen == cur) {
            return old;
        }
    }
}

/*
 * A compare-and-swap of a 32-bit word, for helpers that build atomics
 * from it (famomax.ps, famomin.ps): QEMU's, or on another shire's
 * scratchpad ours.
 */
uint32_t etsoc1_cmpxchg32(CPURISCVState *env, target_ulong addr,
                          uint32_t cmp, uint32_t val, MemOpIdx oi,
                          uintptr_t ra)
{
    ram_addr_t ram;
    uint32_t *host = etsoc1_amo_host(env, addr, 4, oi, ra, &ram);
    uint32_t old;

    if (!host) {
        return cpu_atomic_cmpxchgl_le_mmu(env, addr, cmp, val, oi, ra);
    }
    old = le32_to_cpu(qatomic_cmpxchg(host, cpu_to_le32(cmp),
                                      cpu_to_le32(val)));
    etsoc1_amo_written(ram, 4);
    return old;
}

/*
 * One dispatcher per width, over QEMU's host-atomic helpers, or ours on
 * another shire's scratchpad.
 */
#define ETSOC1_AMO_FN(name, type, SZ, BITS)                                   \
type name(CPURISCVState *env, unsigned op, target_ulong addr,                 \
          type val, MemOpIdx oi, uintptr_t ra)                                \
{                                                                             \
    ram_addr_t ram;                                                           \
    type *host = etsoc1_amo_host(env, addr, sizeof(type), oi, ra, &ram);      \
                                                                              \
    if (host) {                                                               \
        type old = etsoc1_host_amo##BITS(host, op, val, env->gpr[31]);        \
                                                                              \
        etsoc1_amo_written(ram, sizeof(type));                                \
        return old;                                                           \
    }                                                                         \
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

ETSOC1_AMO_FN(etsoc1_amo32, uint32_t, l, 32)
ETSOC1_AMO_FN(etsoc1_amo64, uint64_t, q, 64)

/*
 * Does atomic @op with operand @val of @size bytes leave any value
 * unchanged?  Only such an operation may return the value as of its
 * effect time (a compare-and-swap that failed, or an amomax that lost,
 * did so on the value memory holds now).
 */
static bool etsoc1_amo_pure(unsigned op, uint64_t val, unsigned size)
{
    return ((op == ETSOC1_AMO_ADD || op == ETSOC1_AMO_OR ||
             op == ETSOC1_AMO_XOR) && !val) ||
           (op == ETSOC1_AMO_AND && val == MAKE_64BIT_MASK(0, size * 8));
}

/*
 * A scalar global atomic at @pa, ordered on line clock @lc (locked), that
 * found @old: timed, and, if it left memory unchanged, a global read that
 * may halt (etsoc1-sync.c), which restarts the instruction; swaps are
 * writes by intent, even of the same value.  Returns the value rd gets.
 */
static uint64_t etsoc1_amo_global(CPURISCVState *env, Etsoc1LineClock *lc,
                                  unsigned op, hwaddr pa, unsigned size,
                                  uint64_t old, uint64_t val, uintptr_t ra)
{
    Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(env_archcpu(env));
    uint64_t res = etsoc1_amo_result(op, old, val, env->gpr[31], size * 8);
    Etsoc1LineWord w = { .pa = pa, .size = size, .old = old };
    bool write = res != old || op == ETSOC1_AMO_SWAP;
    bool pure = etsoc1_sync_enabled(cpu) && etsoc1_amo_pure(op, val, size);

    if (!write &&
        etsoc1_sync_read(cpu, lc, pa, size, old) == ETSOC1_READ_HALT) {
        etsoc1_amo_unlock(lc);
        riscv_raise_exception(env, etsoc1_halt_cause(cpu), ra);
    }
    etsoc1_global_access(cpu, &w, write, write || pure);
    etsoc1_sync_note(cpu, pa, write ? res : w.ret);
    return write || !pure ? old : w.ret;
}

/*
 * A shire-local atomic (it runs at the shire's L2, isa.md section 8) or a
 * coherent store reaches no L3 line: a local atomic that left the word
 * as it was and finds what the hart's last such read found is a plain
 * poll (etsoc1_sync_plain_read: it halts until the word's line is
 * written by another local atomic or coherent store, or every hart that
 * may act is past it).  True: the hart halts and the instruction runs
 * again, having changed nothing.
 */
static bool etsoc1_local_poll(CPURISCVState *env, hwaddr pa, uint64_t old,
                              unsigned size)
{
    Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(env_archcpu(env));
    uint64_t le = cpu_to_le64(old);

    return etsoc1_sync_enabled(cpu) && etsoc1_in(ETSOC1_DRAM, pa) &&
           etsoc1_sync_plain_read(cpu, etsoc1_line_clock_of(cpu, pa), pa,
                                  &le, size, etsoc1_arrival(cpu, 0), false);
}

/* A local atomic or a coherent store wrote DRAM at @pa: wake its polls. */
void etsoc1_local_written(CPURISCVState *env, hwaddr pa)
{
    Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(env_archcpu(env));
    Etsoc1LineClock *lc;

    if (etsoc1_in(ETSOC1_DRAM, pa) && (lc = etsoc1_line_clock_of(cpu, pa))) {
        etsoc1_sync_plain_written(cpu->shire->chip, lc, pa, etsoc1_now(cpu));
    }
}

/* rd <- old value; .w results are sign-extended, as for standard AMOs. */
target_ulong HELPER(etsoc1_amo)(CPURISCVState *env, target_ulong addr,
                                target_ulong val, uint32_t desc)
{
    uintptr_t ra = GETPC();
    unsigned op = FIELD_EX32(desc, AMO_DESC, OP);
    bool d = FIELD_EX32(desc, AMO_DESC, D);
    bool global = FIELD_EX32(desc, AMO_DESC, GLOBAL);
    int mmu_idx = cpu_mmu_index(env, false);
    unsigned bits = d ? 64 : 32;
    hwaddr pa = etsoc1_amo_check(env, addr, bits / 8, global, true, ra);
    Etsoc1LineClock *lc = etsoc1_amo_lock(env, addr, bits / 8, pa, global,
                                          true, ra);
    uint64_t old;

    trace_etsoc1_amo(env->mhartid, op, bits / 8, global, pa);
    if (d) {
        old = etsoc1_amo64(env, op, addr, val,
                           make_memop_idx(MO_LEUQ | MO_ALIGN, mmu_idx), ra);
    } else {
        old = etsoc1_amo32(env, op, addr, val,
                           make_memop_idx(MO_LEUL | MO_ALIGN, mmu_idx), ra);
    }
    if (lc) {
        old = etsoc1_amo_global(env, lc, op, pa, bits / 8, old, val, ra);
    } else {
        bool changed = etsoc1_amo_result(op, old, val, env->gpr[31],
                                         bits) != old;

        /* swaps are writes by intent, even of the same value */
        if (!global && !changed && op != ETSOC1_AMO_SWAP &&
            etsoc1_local_poll(env, pa, old, bits / 8)) {
            Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(env_archcpu(env));

            riscv_raise_exception(env, etsoc1_halt_cause(cpu), ra);
        }
        etsoc1_amo_timing(env, pa, bits / 8, global, true, changed, ra);
        if (!global && (changed || op == ETSOC1_AMO_SWAP)) {
            etsoc1_local_written(env, pa);
        }
    }
    etsoc1_amo_unlock(lc);
    return d ? old : (int32_t)old;
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
    Etsoc1LineClock *lc = etsoc1_amo_lock(env, addr, size, pa, global,
                                          false, ra);

    trace_etsoc1_coherent_store(env->mhartid, size, global, pa);
    if (size == 1) {
        cpu_stb_mmu(env, addr, val, make_memop_idx(MO_UB, mmu_idx), ra);
    } else {
        cpu_stw_le_mmu(env, addr, val, make_memop_idx(MO_LEUW, mmu_idx), ra);
    }
    etsoc1_amo_timing(env, pa, size, global, false, true, ra);
    if (!lc) {
        etsoc1_local_written(env, pa);
    }
    etsoc1_amo_unlock(lc);
}

/* ---- the L1 check of scalar loads and stores (patch 0014) ------------ */

/*
 * A scalar or F load or store whose line is not the hart's last one
 * (etsoc1-l1-gen.c.inc): look it up in the L1 (hw/etsoc1/etsoc1-l1.c).
 * Only minions translate the call (cfg.et_l1).  A miss beyond the L2 may
 * halt the hart at the gate: the instruction runs again when let go.
 */
void HELPER(etsoc1_l1)(CPURISCVState *env, target_ulong addr, uint32_t store)
{
    Etsoc1MinionCPU *cpu = container_of(env_archcpu(env), Etsoc1MinionCPU,
                                        parent_obj);

    if (!etsoc1_l1_access(cpu, addr, store)) {
        riscv_raise_exception(env, etsoc1_halt_cause(cpu), GETPC());
    }
}

/* ---- FP instructions behind a tensor operation (patch 0002) ---------- */

/*
 * An F or packed instruction on a hart whose f registers a tensor operation
 * owns (env->et_tensor_busy, tested before it runs): halt until the
 * operation is done, then run the instruction again.  has_work re-tests
 * the state.
 */
void HELPER(etsoc1_fp_wait)(CPURISCVState *env)
{
    Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(env_archcpu(env));
    CPUState *cs = env_cpu(env);

    if (etsoc1_reduce_done(cpu)) {
        /* a wait that ended: leave no stale reason for a later wfi */
        if (qatomic_read(&cpu->et->wait) == ETSOC1_WAIT_REDUCE) {
            qatomic_set(&cpu->et->wait, ETSOC1_WAIT_NONE);
        }
        if (!etsoc1_reduce_settle(cpu)) {
            /* the mesh ports' waits: at the gate, then run it again */
            riscv_raise_exception(env, etsoc1_halt_cause(cpu), GETPC());
        }
        etsoc1_reduce_observe(cpu);
        return;
    }
    qatomic_set(&cpu->et->wait, ETSOC1_WAIT_REDUCE);
    trace_etsoc1_minion_halt(env->mhartid, ETSOC1_WAIT_REDUCE);
    etsoc1_trace_wait_begin(env->mhartid, etsoc1_now(cpu),
                            ETSOC1_WAIT_REDUCE, 0);
    cs->halted = 1;
    cs->exception_index = EXCP_HLT;
    cpu_loop_exit_restore(cs, GETPC());
}
