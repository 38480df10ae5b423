/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the minion's cache CSRs (etsoc1-cache.h).  QEMU's
 * memory is always coherent and its translations follow stores to code,
 * so maintenance moves no data: the ops act on the hart's L1 tags
 * (etsoc1-l1.c) and on time.  Those by set/way and the locks complete at
 * once; evict_va, flush_va and prefetch_va run in the background and are
 * timed at the L3.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hw/etsoc1/etsoc1-cache.h"
#include "hw/etsoc1/etsoc1-shire.h"
#include "hw/etsoc1/etsoc1-tensor.h"
#include "hw/etsoc1/etsoc1-trace.h"
#include "trace.h"

#define UCACHE_MASK     0x7df   /* ucache_control's writable bits */

enum {
    CSR_CACHE_INVALIDATE = 0x7d0,
    CSR_MCACHE_CONTROL = 0x7e0,
    CSR_EVICT_SW = 0x7f9,
    CSR_FLUSH_SW = 0x7fb,
    CSR_LOCK_SW = 0x7fd,
    CSR_UNLOCK_SW = 0x7ff,
    CSR_UCACHE_CONTROL = 0x810,
    CSR_PREFETCH_VA = 0x81f,
    CSR_EVICT_VA = 0x89f,
    CSR_FLUSH_VA = 0x8bf,
    CSR_LOCK_VA = 0x8df,
    CSR_UNLOCK_VA = 0x8ff,
};

/* Cache-op CSRs: U-mode ones can be switched off by minion_feature. */
static RISCVException pred_cacheop(CPURISCVState *env, int csrno)
{
    Etsoc1MinionCPU *cpu = etsoc1_minion_of(env_cpu(env));
    uint64_t off;

    if (!cpu) {
        return RISCV_EXCP_ILLEGAL_INST;
    }
    switch (csrno) {
    case CSR_UCACHE_CONTROL:
        off = MINION_FEATURE_U_SCP_OFF;
        break;
    case CSR_LOCK_VA:
    case CSR_UNLOCK_VA:
        off = MINION_FEATURE_LOCK_VA_OFF | MINION_FEATURE_U_CACHEOPS_OFF;
        break;
    default:
        off = MINION_FEATURE_U_CACHEOPS_OFF;
        break;
    }
    if (env->priv == PRV_U && !env->debugger &&
        (cpu->shire->minion_feature & off)) {
        return RISCV_EXCP_ILLEGAL_INST;
    }
    return RISCV_EXCP_NONE;
}

static uint64_t read_cache_control(Etsoc1MinionCPU *cpu, int csrno)
{
    Etsoc1MinionState *ms = etsoc1_minion_state(cpu);

    etsoc1_l1_sync(cpu);        /* the L1 takes the mode it reads */
    return csrno == CSR_UCACHE_CONTROL ? ms->ucache_ctl | ms->cache_ctl
                                       : ms->cache_ctl;
}

/*
 * mcache_control: legal values 0, 1 (D1Split) and 3 (D1Split + L1
 * scratchpad); from 0 the only move is to 1, from 1 or 3 any legal value;
 * anything else is ignored.  ucache_control shows the same [1:0]; thread 0
 * may change only SCPEnable through it, and only while D1Split is set.
 * Its other fields ([4:2] CacheOp rep rate, [10:6] CacheOp max) are its own.
 * Turning the scratchpad off drops the minion's held cooperative loads.
 */
static RISCVException write_cache_control(Etsoc1MinionCPU *cpu, int csrno,
                                          uint64_t val)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    Etsoc1MinionState *ms = etsoc1_minion_state(cpu);
    uint8_t *ctl = &ms->cache_ctl;
    unsigned want = val & (ETSOC1_CACHE_D1SPLIT | ETSOC1_CACHE_SCPENABLE);

    etsoc1_l1_sync(cpu);
    if (csrno == CSR_UCACHE_CONTROL) {
        ms->ucache_ctl = val & UCACHE_MASK &
                         ~(ETSOC1_CACHE_D1SPLIT | ETSOC1_CACHE_SCPENABLE);
        if ((env->mhartid & 1) || !(*ctl & ETSOC1_CACHE_D1SPLIT)) {
            return RISCV_EXCP_NONE;
        }
        want = (*ctl & ETSOC1_CACHE_D1SPLIT) |
               (want & ETSOC1_CACHE_SCPENABLE);
    }
    if (want == ETSOC1_CACHE_SCPENABLE ||
        (*ctl == 0 && want != ETSOC1_CACHE_D1SPLIT)) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": cache "
                      "control 0x%x -> 0x%x is not allowed; ignored\n",
                      (uint64_t)env->mhartid, *ctl, want);
        return RISCV_EXCP_NONE;
    }
    if ((*ctl & ETSOC1_CACHE_SCPENABLE) && !(want & ETSOC1_CACHE_SCPENABLE)) {
        etsoc1_coop_drop(cpu);
    }
    if (*ctl != want) {
        qatomic_set(ctl, want);
        etsoc1_l1_mode_changed(cpu);
    }
    return RISCV_EXCP_NONE;
}

/* cache_invalidate [1:0]; the other bits are reserved */
#define CACHE_INVALIDATE_ICACHE (1u << 0)
#define CACHE_INVALIDATE_TLB    (1u << 1)

/*
 * Maintenance of the L1 by set/way, the locks and cache_invalidate: done
 * at once (see the top), on the hart's L1 tags (etsoc1-l1.c).
 * cache_invalidate names the I-cache ([0], not modelled: QEMU's
 * translations follow stores to code) and the TLBs ([1]): the D-cache has
 * no invalidate, so its tags stay; a TLB invalidate empties the hart's
 * memo of lines, which goes by virtual address.
 */
static RISCVException write_cacheop(Etsoc1MinionCPU *cpu, int csrno,
                                    uint64_t val)
{
    trace_etsoc1_minion_cacheop(cpu->parent_obj.env.mhartid, csrno, val);
    switch (csrno) {
    case CSR_CACHE_INVALIDATE:
        if (val & ~(uint64_t)(CACHE_INVALIDATE_ICACHE |
                              CACHE_INVALIDATE_TLB)) {
            qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": "
                          "cache_invalidate 0x%" PRIx64 ": reserved bits "
                          "ignored\n",
                          (uint64_t)cpu->parent_obj.env.mhartid, val);
        }
        if (val & CACHE_INVALIDATE_TLB) {
            etsoc1_l1_forget(cpu);
        }
        break;
    case CSR_EVICT_SW:
    case CSR_FLUSH_SW:
        etsoc1_l1_cacheop_sw(cpu, csrno == CSR_EVICT_SW, val);
        break;
    case CSR_LOCK_SW:
        etsoc1_l1_lock_sw(cpu, val);
        break;
    case CSR_UNLOCK_SW:
        etsoc1_l1_unlock_sw(cpu, val);
        break;
    case CSR_LOCK_VA:
    case CSR_UNLOCK_VA:
        etsoc1_l1_lock_va(cpu, csrno == CSR_LOCK_VA, val);
        break;
    }
    return RISCV_EXCP_NONE;
}

/*
 * evict_va, flush_va, prefetch_va: they run in the background; tensor_wait
 * 6 (evict, flush) or 4/5 (prefetch, id x31[0]) waits for the last one
 * issued.  A line that may not be named ends the op with tensor_error[7].
 */
static RISCVException write_cacheop_va(Etsoc1MinionCPU *cpu, int csrno,
                                       uint64_t val)
{
    Etsoc1HartEt *et = cpu->et;
    Etsoc1CacheOp op = csrno == CSR_EVICT_VA ? ETSOC1_CACHEOP_EVICT :
                       csrno == CSR_FLUSH_VA ? ETSOC1_CACHEOP_FLUSH :
                       ETSOC1_CACHEOP_PREFETCH;
    unsigned t = op != ETSOC1_CACHEOP_PREFETCH ? ETSOC1_TT_CACHEOP :
                 ETSOC1_TT_PREFETCH0 + (cpu->parent_obj.env.gpr[31] & 1);
    Etsoc1CacheopLines lines;
    uint64_t done;
    unsigned i;

    if (!etsoc1_l3_cacheop_gate(cpu, op, val)) {
        return (RISCVException)etsoc1_halt_cause(cpu);
    }
    etsoc1_trace_wait_end(etsoc1_hart(cpu), etsoc1_now(cpu));
    trace_etsoc1_minion_cacheop(cpu->parent_obj.env.mhartid, csrno, val);
    if (!etsoc1_l3_cacheop_va(cpu, op, val, &done, &lines)) {
        et->tensor.error |= ETSOC1_TENSOR_ERROR_FAULT;
    }
    etsoc1_sync_done(cpu);      /* the next request to DRAM */
    for (i = 0; i < lines.n; i++) {     /* the L1 and L2 tags */
        done = MAX(done, lines.back[i] +
                         etsoc1_l1_cacheop(cpu, lines.pa[i], lines.dest, op));
    }
    et->tensor.t[t] = MAX(et->tensor.t[t], done);
    return RISCV_EXCP_NONE;
}

static const Etsoc1CsrReg cache_csrs[] = {
    ETSOC1_CSR(CSR_CACHE_INVALIDATE, "cache_invalidate", etsoc1_pred_minion,
               NULL, write_cacheop),
    ETSOC1_CSR(CSR_MCACHE_CONTROL, "mcache_control", etsoc1_pred_minion,
               read_cache_control, write_cache_control),
    ETSOC1_CSR(CSR_EVICT_SW, "evict_sw", etsoc1_pred_minion, NULL,
               write_cacheop),
    ETSOC1_CSR(CSR_FLUSH_SW, "flush_sw", etsoc1_pred_minion, NULL,
               write_cacheop),
    ETSOC1_CSR(CSR_LOCK_SW, "lock_sw", etsoc1_pred_minion, NULL,
               write_cacheop),
    ETSOC1_CSR(CSR_UNLOCK_SW, "unlock_sw", etsoc1_pred_minion, NULL,
               write_cacheop),
    ETSOC1_CSR(CSR_UCACHE_CONTROL, "ucache_control", pred_cacheop,
               read_cache_control, write_cache_control),
    ETSOC1_CSR(CSR_PREFETCH_VA, "prefetch_va", pred_cacheop, NULL,
               write_cacheop_va),
    ETSOC1_CSR(CSR_EVICT_VA, "evict_va", pred_cacheop, NULL,
               write_cacheop_va),
    ETSOC1_CSR(CSR_FLUSH_VA, "flush_va", pred_cacheop, NULL,
               write_cacheop_va),
    ETSOC1_CSR(CSR_LOCK_VA, "lock_va", pred_cacheop, NULL, write_cacheop),
    ETSOC1_CSR(CSR_UNLOCK_VA, "unlock_va", pred_cacheop, NULL,
               write_cacheop),
};

void etsoc1_cache_register_csrs(void)
{
    etsoc1_csr_register(cache_csrs, ARRAY_SIZE(cache_csrs));
}
