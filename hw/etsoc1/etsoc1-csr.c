/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the ET CSR rows' registration and the one
 * trampoline through which target/riscv's CSR instructions reach them
 * (etsoc1-csr.h).  A riscv_csr_operations entry carries no opaque
 * pointer, so the trampoline finds the row by its number.
 */

#include "qemu/osdep.h"
#include "hw/etsoc1/etsoc1-csr.h"
#include "hw/etsoc1/etsoc1-shire.h"
#include "trace.h"

/* The registered rows by CSR number, as target/riscv's csr_ops[] */
static const Etsoc1CsrReg *etsoc1_csr_rows[CSR_TABLE_SIZE];

RISCVException etsoc1_pred_minion(CPURISCVState *env, int csrno)
{
    return etsoc1_minion_of(env_cpu(env)) ? RISCV_EXCP_NONE
                                           : RISCV_EXCP_ILLEGAL_INST;
}

/* A minion's CSR that traps while minion_feature has any bit of @off */
static RISCVException pred_feature(CPURISCVState *env, uint64_t off)
{
    Etsoc1MinionCPU *cpu = etsoc1_minion_of(env_cpu(env));

    if (!cpu || (cpu->shire->minion_feature & off)) {
        return RISCV_EXCP_ILLEGAL_INST;
    }
    return RISCV_EXCP_NONE;
}

/* "ML" CSRs trap when minion_feature disables the ML/tensor features. */
RISCVException etsoc1_pred_ml(CPURISCVState *env, int csrno)
{
    return pred_feature(env, MINION_FEATURE_ML_OFF);
}

/* Graphics CSRs trap while minion_feature disables graphics. */
RISCVException etsoc1_pred_gfx(CPURISCVState *env, int csrno)
{
    return pred_feature(env, MINION_FEATURE_GFX_OFF);
}

/* "T0" CSRs: thread 1 gets an illegal-instruction trap. */
RISCVException etsoc1_pred_ml_t0(CPURISCVState *env, int csrno)
{
    if (etsoc1_pred_ml(env, csrno) != RISCV_EXCP_NONE ||
        (env->mhartid & 1)) {
        return RISCV_EXCP_ILLEGAL_INST;
    }
    return RISCV_EXCP_NONE;
}

/*
 * The row of @csrno for the hart of @env, or NULL.  The predicate has
 * passed, so both exist; a NULL is still an illegal instruction, never
 * an assert.
 */
static const Etsoc1CsrReg *etsoc1_csr_row(CPURISCVState *env, int csrno,
                                          Etsoc1MinionCPU **cpu)
{
    *cpu = etsoc1_minion_of(env_cpu(env));
    return *cpu && csrno >= 0 && csrno < CSR_TABLE_SIZE ?
           etsoc1_csr_rows[csrno] : NULL;
}

static RISCVException etsoc1_csr_read(CPURISCVState *env, int csrno,
                                      target_ulong *val)
{
    Etsoc1MinionCPU *cpu;
    const Etsoc1CsrReg *r = etsoc1_csr_row(env, csrno, &cpu);

    if (!r) {
        return RISCV_EXCP_ILLEGAL_INST;
    }
    *val = r->read ? r->read(cpu, csrno) : 0;
    trace_etsoc1_minion_csr_read(env->mhartid, csrno, *val);
    return RISCV_EXCP_NONE;
}

static RISCVException etsoc1_csr_write(CPURISCVState *env, int csrno,
                                       target_ulong val)
{
    Etsoc1MinionCPU *cpu;
    const Etsoc1CsrReg *r = etsoc1_csr_row(env, csrno, &cpu);

    if (!r || !r->write) {
        return RISCV_EXCP_ILLEGAL_INST;
    }
    trace_etsoc1_minion_csr_write(env->mhartid, csrno, val);
    if (env->debugger) {
        /* gdb and the monitor never trigger commands or block */
        return RISCV_EXCP_NONE;
    }
    return r->write(cpu, csrno, val);
}

static RISCVException etsoc1_csr_swap(CPURISCVState *env, int csrno,
                                      target_ulong *ret, target_ulong new_val,
                                      target_ulong mask)
{
    Etsoc1MinionCPU *cpu;
    const Etsoc1CsrReg *r = etsoc1_csr_row(env, csrno, &cpu);
    uint64_t old = 0;

    if (!r || !r->swap) {
        return RISCV_EXCP_ILLEGAL_INST;
    }
    if (mask && !env->debugger) {
        RISCVException e;

        trace_etsoc1_minion_csr_write(env->mhartid, csrno, new_val);
        e = r->swap(cpu, new_val, &old);
        if (e != RISCV_EXCP_NONE) {
            return e;
        }
    }
    if (ret) {
        *ret = old;
    }
    return RISCV_EXCP_NONE;
}

/*
 * Register @n rows with target/riscv.  A row that is taken twice, has no
 * name or predicate, or both swaps and reads or writes is a table edit
 * that went wrong: it fails here, when the machine type registers, not
 * at a guest's access.
 */
void etsoc1_csr_register(const Etsoc1CsrReg *rows, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        const Etsoc1CsrReg *r = &rows[i];

        g_assert(r->csrno >= 0 && r->csrno < CSR_TABLE_SIZE);
        g_assert(r->name && r->predicate);
        g_assert(!r->swap || (!r->read && !r->write));
        if (etsoc1_csr_rows[r->csrno] == r) {
            continue;       /* a second machine class init */
        }
        g_assert(!etsoc1_csr_rows[r->csrno]);
        etsoc1_csr_rows[r->csrno] = r;
        riscv_set_csr_ops(r->csrno, &(riscv_csr_operations) {
            .name = r->name,
            .predicate = r->predicate,
            .read = r->swap ? NULL : etsoc1_csr_read,
            .write = r->write ? etsoc1_csr_write : NULL,
            .op = r->swap ? etsoc1_csr_swap : NULL,
        });
    }
}
