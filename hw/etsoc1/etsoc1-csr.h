/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the ET CSRs (docs/isa.md section 3) as rows, the way
 * the ESRs are (etsoc1-shire.c).  Each unit declares the CSRs it
 * implements in one table beside the code they drive and registers it
 * once, before any minion is realized: the tensor unit (etsoc1-tensor.c),
 * the fabric (etsoc1-fabric.c: reductions, FLB, credits, stall), the
 * caches (etsoc1-cache.c) and the minion the rest (etsoc1-minion.c).  One
 * trampoline (etsoc1-csr.c) calls the row's function.  The numbers and
 * names match tools/et-insns.tsv (tests/asm_tests.py ties them).
 */

#ifndef HW_ETSOC1_CSR_H
#define HW_ETSOC1_CSR_H

#include "hw/etsoc1/etsoc1-minion.h"

typedef struct Etsoc1CsrReg {
    int csrno;
    const char *name;
    /* who may reach it: an illegal instruction otherwise */
    riscv_csr_predicate_fn predicate;
    /* NULL: reads as zero (a command CSR) */
    uint64_t (*read)(Etsoc1MinionCPU *cpu, int csrno);
    /* NULL: read-only.  May halt the hart (etsoc1_block) */
    RISCVException (*write)(Etsoc1MinionCPU *cpu, int csrno, uint64_t val);
    /*
     * Instead of both: a write whose result (*@old) csrrw returns (flb).
     * May halt the hart, as a write may (*@old is not set then).
     */
    RISCVException (*swap)(Etsoc1MinionCPU *cpu, uint64_t val,
                           uint64_t *old);
} Etsoc1CsrReg;

/* A row: number, name, predicate, read and write functions */
#define ETSOC1_CSR(num, nm, pred, rd, wr) { \
    .csrno = (num), .name = (nm), .predicate = (pred), .read = (rd), \
    .write = (wr) }

void etsoc1_csr_register(const Etsoc1CsrReg *rows, size_t n);

/* Predicates: any minion; ML features on; graphics on; ML on thread 0 */
RISCVException etsoc1_pred_minion(CPURISCVState *env, int csrno);
RISCVException etsoc1_pred_ml(CPURISCVState *env, int csrno);
RISCVException etsoc1_pred_gfx(CPURISCVState *env, int csrno);
RISCVException etsoc1_pred_ml_t0(CPURISCVState *env, int csrno);

/* Each unit's rows: registered by the machine's class (etsoc1.c) */
void etsoc1_minion_register_csrs(void);
void etsoc1_tensor_register_csrs(void);
void etsoc1_fabric_register_csrs(void);
void etsoc1_cache_register_csrs(void);

#endif
