/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the ET instructions' helpers outside the tensor unit,
 * beside their decoder (target/riscv/etsoc1 in the QEMU tree)
 * (etsoc1-isa.c: scalar atomics and coherent stores; etsoc1-vpu*.c: packed
 * single, transcendentals, graphics; docs/isa.md).
 */

#ifndef TARGET_RISCV_ETSOC1_ISA_H
#define TARGET_RISCV_ETSOC1_ISA_H

#include "exec/memopidx.h"
#include "hw/registerfields.h"
#include "hw/etsoc1/etsoc1-minion.h"
#include "hw/etsoc1/etsoc1-l3.h"
#include "target/riscv/etsoc1/etsoc1-ops.h"     /* generated: Etsoc1Op */

/* etsoc1-isa.c; operation numbers shared with trans_xetsoc1.c.inc */
typedef enum {
    ETSOC1_AMO_ADD, ETSOC1_AMO_SWAP, ETSOC1_AMO_XOR, ETSOC1_AMO_OR,
    ETSOC1_AMO_AND, ETSOC1_AMO_MIN, ETSOC1_AMO_MAX, ETSOC1_AMO_MINU,
    ETSOC1_AMO_MAXU, ETSOC1_AMO_CMPSWAP,
} Etsoc1AmoOp;

uint32_t etsoc1_amo32(CPURISCVState *env, unsigned op, target_ulong addr,
                      uint32_t val, MemOpIdx oi, uintptr_t ra);
uint64_t etsoc1_amo64(CPURISCVState *env, unsigned op, target_ulong addr,
                      uint64_t val, MemOpIdx oi, uintptr_t ra);
hwaddr etsoc1_amo_check(CPURISCVState *env, target_ulong addr,
                        unsigned size, bool global, bool is_amo, uintptr_t ra);
void etsoc1_amo_timing(CPURISCVState *env, hwaddr pa, unsigned size,
                       bool global, bool is_amo, bool wrote, uintptr_t ra);
Etsoc1LineClock *etsoc1_amo_lock(CPURISCVState *env, target_ulong addr,
                                 unsigned size, hwaddr pa, bool global,
                                 bool is_amo, uintptr_t ra);
void etsoc1_amo_unlock(Etsoc1LineClock *lc);
void etsoc1_local_written(CPURISCVState *env, hwaddr pa);
uint64_t etsoc1_amo_result(unsigned op, uint64_t old, uint64_t val,
                           uint64_t cmp, unsigned bits);

/*
 * Operand fields of an instruction word, which the packed and graphics
 * helpers (etsoc1-vpu.c, etsoc1-vpu-gfx.c) read; which instruction it is
 * they take from its Etsoc1Op, not from the word.
 */
FIELD(VINSN, RD, 7, 5)
FIELD(VINSN, F3, 12, 3)
FIELD(VINSN, RS1, 15, 5)
FIELD(VINSN, RS2, 20, 5)
FIELD(VINSN, RS3, 27, 5)

/* etsoc1-vpu-transc.c: one lane of fexp.ps, flog.ps, frcp.ps */
uint32_t etsoc1_fexp(uint32_t a, float_status *st);
uint32_t etsoc1_flog(uint32_t a, float_status *st);
uint32_t etsoc1_frcp(uint32_t a, float_status *st);

/*
 * etsoc1-vpu-gfx.c: the graphics instructions (illegal while
 * minion_feature[0] is set).  etsoc1_vpu_gfx() runs @op (instruction word
 * @insn) and returns true if it is one of those with an f register result.
 */
bool etsoc1_vpu_gfx(CPURISCVState *env, Etsoc1Op op, uint32_t insn,
                    uintptr_t ra);
uint64_t etsoc1_maskpopc_rast(CPURISCVState *env, uint32_t insn,
                              uintptr_t ra);
/* etsoc1-isa.c: a 32-bit compare-and-swap that also reaches remote SCPs */
uint32_t etsoc1_cmpxchg32(CPURISCVState *env, target_ulong addr,
                          uint32_t cmp, uint32_t val, MemOpIdx oi,
                          uintptr_t ra);

#endif
