/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ET-Minion vendor extension's TCG helpers, included by
 * target/riscv/helper.h (qemu-patches/0002).  Defined beside this file:
 * etsoc1_fp_wait, etsoc1_amo, etsoc1_store and etsoc1_l1 in etsoc1-isa.c,
 * the packed ones in etsoc1-vpu.c.
 */

DEF_HELPER_1(etsoc1_fp_wait, void, env)
DEF_HELPER_4(etsoc1_amo, tl, env, tl, tl, i32)
DEF_HELPER_4(etsoc1_store, void, env, tl, tl, i32)
/* the L1 check of a scalar load or store (etsoc1-l1-gen.c.inc) */
/*
 * it writes no TCG global (env fields the translator keeps apart); it may
 * halt the hart, which restarts the instruction from env
 */
DEF_HELPER_FLAGS_3(etsoc1_l1, TCG_CALL_NO_WG, void, env, tl, i32)
/* The packed ones: ..., op (Etsoc1Op), instruction word */
DEF_HELPER_3(etsoc1_vop, void, env, i32, i32)
DEF_HELPER_3(etsoc1_vop_x, tl, env, i32, i32)
DEF_HELPER_4(etsoc1_vop_from_x, void, env, tl, i32, i32)
DEF_HELPER_4(etsoc1_vmem, void, env, tl, i32, i32)
DEF_HELPER_5(etsoc1_vgsc, void, env, tl, tl, i32, i32)
