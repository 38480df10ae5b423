/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-Minion packed-single ("VPU") instructions: the helpers
 * behind the patterns of XEtsoc1.decode (beside this file).
 *
 * From isa.md section 9.  An f register is 8 x 32-bit lanes: lane 0 is
 * env->fpr[r] (NaN-boxed), lanes 1-7 env->et_fhi[r].  Every packed write of
 * an f register is predicated by mask register m0: lanes whose m0 bit is
 * clear keep their value, are not computed and raise no FP flags.  Compares
 * into a mask set the bits of active lanes and clear the others.  FP
 * arithmetic is RISC-V softfloat on the hart's fp_status (canonical NaN,
 * flags accrued in fflags), with the rounding mode of funct3 (7 = frm).
 *
 * The translator passes the op of the instruction's decode pattern
 * (Etsoc1Op, generated from XEtsoc1.decode) beside the instruction word:
 * the helpers tell instructions apart by the op, and take only operands
 * from the word (registers, funct3's rounding mode, immediates), so the
 * encoding is written down once, in the decode file.  What differs from
 * op to op besides its lane function is a row of a table below (vpu_ops,
 * vpu_gsc_ops).  The approximate transcendentals fexp, flog and frcp are in
 * etsoc1-vpu-transc.c; fsin and frsq are left to machine-mode code
 * (exception 30).  The graphics instructions (conversions, cube maps,
 * frcp.fix.rast, maskpopc.rast) are in etsoc1-vpu-gfx.c.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "exec/exec-all.h"
#include "exec/cpu_ldst.h"
#include "exec/helper-proto.h"
#include "fpu/softfloat.h"
#include "internals.h"
#include "target/riscv/etsoc1/etsoc1-isa.h"
#include "hw/etsoc1/etsoc1-tensor.h"

#define NL ETSOC1_FLANES

static Etsoc1HartEt *hart_et(CPURISCVState *env)
{
    return ETSOC1_MINION_CPU(env_archcpu(env))->et;
}

static void get_lanes(CPURISCVState *env, unsigned r, uint32_t *v)
{
    unsigned e;

    for (e = 0; e < NL; e++) {
        v[e] = etsoc1_flane(env, r, e);
    }
}

/* Write the lanes of @v whose bit is set in @active. */
static void set_lanes(CPURISCVState *env, unsigned r, const uint32_t *v,
                      uint8_t active)
{
    unsigned e;

    for (e = 0; e < NL; e++) {
        if (active & (1u << e)) {
            etsoc1_set_flane(env, r, e, v[e]);
        }
    }
}

static G_NORETURN void vpu_illegal(CPURISCVState *env, uint32_t insn,
                                   const char *why, uintptr_t ra)
{
    qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": packed insn "
                  "0x%08x: %s\n", (uint64_t)env->mhartid, insn, why);
    riscv_raise_exception(env, RISCV_EXCP_ILLEGAL_INST, ra);
}

/* A mask-register operand: the field's upper two bits must be zero. */
static unsigned mreg(CPURISCVState *env, uint32_t insn, unsigned field,
                     uintptr_t ra)
{
    if (field > 7) {
        vpu_illegal(env, insn, "mask register field above m7", ra);
    }
    return field;
}

/*
 * What etsoc1_vop needs to know of an op besides its lane function
 * (vpu_lane_ieee): one row per op that is not a lane operation into an f
 * register, or that rounds, or whose results can be flushed.  Ops without
 * a row (the integer ones) are VOP_LANE, RM_NONE, no flush; the graphics
 * ops are VOP_LANE here and taken by etsoc1_vpu_gfx, which knows them.
 */
typedef enum {
    VOP_LANE,           /* fd lane = the op's lane function */
    VOP_MASK,           /* md bit = bit 0 of lane function .lane */
    VOP_MASK_LOGIC,     /* md from ms1, ms2: all eight bits, unpredicated */
    VOP_MOVE,           /* vpu_move: other lanes, or an immediate */
    VOP_SELECT,         /* fcmovm.ps: m0 selects, every lane written */
} VpuOpKind;

/* The rounding mode: none, funct3's (7 = frm), or always frm */
typedef enum { RM_NONE, RM_INSN, RM_FRM } VpuRm;

/*
 * Subnormals.  The minion FPU reads a subnormal operand of any arithmetic,
 * compare, min/max or conversion as a zero of the same sign and raises
 * its sticky denormal flag: the CPU model sets flush_inputs_to_zero in
 * fp_status.  It returns a zero of the result's sign, raising underflow
 * and inexact, for a result tiny after rounding (Esperanto's simulator
 * builds its softfloat denormals-to-zero): which results can be tiny is
 * the .ftz column.  Sign injection, fclass and moves keep subnormals.
 */
typedef enum { FTZ_NONE, FTZ32, FTZ16 } VpuFtz;

typedef struct {
    uint8_t kind;       /* VpuOpKind */
    uint8_t rm;         /* VpuRm */
    uint8_t ftz;        /* VpuFtz */
    uint8_t lane;       /* VOP_MASK: the Etsoc1Op computing the bit */
} VpuOp;

QEMU_BUILD_BUG_ON(ET_OP__COUNT > UINT8_MAX);

/*
 * The FP ops that round by funct3 and flush fp32 results; ffrc, flog,
 * fexp, frcp have funct3 0 (nearest even) in their patterns.
 */
#define VPU_FP32        { .rm = RM_INSN, .ftz = FTZ32 }
#define VPU_MASK(op)    { .kind = VOP_MASK, .lane = (op) }

static const VpuOp vpu_ops[ET_OP__COUNT] = {
    [ET_OP_FMADD_PS] = VPU_FP32,
    [ET_OP_FMSUB_PS] = VPU_FP32,
    [ET_OP_FNMSUB_PS] = VPU_FP32,
    [ET_OP_FNMADD_PS] = VPU_FP32,
    [ET_OP_FADD_PS] = VPU_FP32,
    [ET_OP_FSUB_PS] = VPU_FP32,
    [ET_OP_FMUL_PS] = VPU_FP32,
    [ET_OP_FDIV_PS] = VPU_FP32,
    [ET_OP_FSQRT_PS] = VPU_FP32,
    [ET_OP_FROUND_PS] = VPU_FP32,
    [ET_OP_FFRC_PS] = VPU_FP32,
    [ET_OP_FLOG_PS] = VPU_FP32,
    [ET_OP_FEXP_PS] = VPU_FP32,
    [ET_OP_FRCP_PS] = VPU_FP32,
    [ET_OP_FCVT_PW_PS] = { .rm = RM_INSN },
    [ET_OP_FCVT_PWU_PS] = { .rm = RM_INSN },
    [ET_OP_FCVT_PS_PW] = { .rm = RM_INSN },
    [ET_OP_FCVT_PS_PWU] = { .rm = RM_INSN },
    [ET_OP_FCVT_PS_F16] = { .rm = RM_INSN },        /* funct3 0, exact */
    [ET_OP_FCVT_F16_PS] = { .rm = RM_FRM, .ftz = FTZ16 },
    [ET_OP_FLEM_PS] = VPU_MASK(ET_OP_FLE_PS),
    [ET_OP_FLTM_PS] = VPU_MASK(ET_OP_FLT_PS),
    [ET_OP_FEQM_PS] = VPU_MASK(ET_OP_FEQ_PS),
    [ET_OP_FLTM_PI] = VPU_MASK(ET_OP_FLT_PI),
    [ET_OP_FSETM_PI] = VPU_MASK(ET_OP_FSETM_PI),
    [ET_OP_MASKNOT] = { .kind = VOP_MASK_LOGIC },
    [ET_OP_MASKXOR] = { .kind = VOP_MASK_LOGIC },
    [ET_OP_MASKOR] = { .kind = VOP_MASK_LOGIC },
    [ET_OP_MASKAND] = { .kind = VOP_MASK_LOGIC },
    [ET_OP_FBCI_PI] = { .kind = VOP_MOVE },
    [ET_OP_FBCI_PS] = { .kind = VOP_MOVE },
    [ET_OP_FADDI_PI] = { .kind = VOP_MOVE },
    [ET_OP_FANDI_PI] = { .kind = VOP_MOVE },
    [ET_OP_FCMOV_PS] = { .kind = VOP_MOVE },
    [ET_OP_FSWIZZ_PS] = { .kind = VOP_MOVE },
    [ET_OP_FPACKREPB_PI] = { .kind = VOP_MOVE },
    [ET_OP_FPACKREPH_PI] = { .kind = VOP_MOVE },
    [ET_OP_FCMOVM_PS] = { .kind = VOP_SELECT },
};

/* Set the instruction's rounding mode; returns the one to restore. */
static FloatRoundMode vpu_set_rm(CPURISCVState *env, Etsoc1Op op,
                                 uint32_t insn, uintptr_t ra)
{
    FloatRoundMode saved = get_float_rounding_mode(&env->fp_status);
    unsigned rm = FIELD_EX32(insn, VINSN, F3);

    /* fcvt.f16.ps (RM_FRM) has funct3 0 and always rounds by frm */
    if (rm == 7 || vpu_ops[op].rm == RM_FRM) {
        rm = env->frm;
    }
    if (!ETSOC1_RM_VALID(rm)) {
        vpu_illegal(env, insn, "reserved rounding mode", ra);
    }
    set_float_rounding_mode(etsoc1_rm(rm), &env->fp_status);
    return saved;
}

/*
 * ffrc.ps: a - trunc(a) with the sign of a (so -3.0 gives -0.0), infinities
 * give a signed zero; exact, so no flags but invalid for a signalling NaN
 * and denormal for a subnormal (read as zero).
 */
static uint32_t vpu_frac(uint32_t a, float_status *st)
{
    float_status exact = *st;

    if (float32_is_zero_or_denormal(a)) {       /* subnormals read as 0 */
        if (!float32_is_zero(a)) {
            float_raise(float_flag_input_denormal, st);
        }
        return a & 0x80000000u;
    }
    if (float32_is_any_nan(a)) {
        if (float32_is_signaling_nan(a, st)) {
            float_raise(float_flag_invalid, st);
        }
        return float32_default_nan(st);
    }
    if (float32_is_infinity(a)) {
        return a & 0x80000000u;
    }
    set_float_rounding_mode(float_round_to_zero, &exact);
    return (float32_sub(a, float32_round_to_int(a, &exact), &exact) &
            INT32_MAX) | (a & 0x80000000u);
}

/* The IEEE operation, subnormals as they are. */
static uint32_t vpu_lane_ieee(CPURISCVState *env, Etsoc1Op op, uint32_t insn,
                              uint32_t a, uint32_t b, uint32_t c,
                              uintptr_t ra)
{
    float_status *st = &env->fp_status;
    unsigned rs2 = FIELD_EX32(insn, VINSN, RS2);

    switch (op) {
    case ET_OP_FMADD_PS:
        return float32_muladd(a, b, c, 0, st);
    case ET_OP_FMSUB_PS:
        return float32_muladd(a, b, c, float_muladd_negate_c, st);
    case ET_OP_FNMSUB_PS:
        return float32_muladd(a, b, c, float_muladd_negate_product, st);
    case ET_OP_FNMADD_PS:
        return float32_muladd(a, b, c, float_muladd_negate_c |
                              float_muladd_negate_product, st);
    case ET_OP_FADD_PS:
        return float32_add(a, b, st);
    case ET_OP_FSUB_PS:
        return float32_sub(a, b, st);
    case ET_OP_FMUL_PS:
        return float32_mul(a, b, st);
    case ET_OP_FDIV_PS:
        return float32_div(a, b, st);
    case ET_OP_FSQRT_PS:
        return float32_sqrt(a, st);
    case ET_OP_FROUND_PS:
        return float32_round_to_int(a, st);
    case ET_OP_FFRC_PS:
        return vpu_frac(a, st);
    case ET_OP_FLOG_PS:
        return etsoc1_flog(a, st);
    case ET_OP_FEXP_PS:
        return etsoc1_fexp(a, st);
    case ET_OP_FRCP_PS:
        return etsoc1_frcp(a, st);
    case ET_OP_FCVT_PW_PS:
        return (uint32_t)float32_to_int32(a, st);
    case ET_OP_FCVT_PWU_PS:
        return float32_to_uint32(a, st);
    case ET_OP_FCVT_PS_PW:
        return int32_to_float32(a, st);
    case ET_OP_FCVT_PS_PWU:
        return uint32_to_float32(a, st);
    case ET_OP_FCVT_PS_F16:     /* the low half of the lane */
        return float16_to_float32(a, true, st);
    case ET_OP_FCVT_F16_PS:     /* zero-extended into the lane */
        return float32_to_float16(a, true, st);
    case ET_OP_FSGNJ_PS:
        return (a & INT32_MAX) | (b & 0x80000000u);
    case ET_OP_FSGNJN_PS:
        return (a & INT32_MAX) | (~b & 0x80000000u);
    case ET_OP_FSGNJX_PS:
        return (a & INT32_MAX) | ((a ^ b) & 0x80000000u);
    case ET_OP_FMIN_PS:
        return float32_minimum_number(a, b, st);
    case ET_OP_FMAX_PS:
        return float32_maximum_number(a, b, st);
    case ET_OP_FLE_PS:
        return -(uint32_t)float32_le(a, b, st);
    case ET_OP_FLT_PS:
        return -(uint32_t)float32_lt(a, b, st);
    case ET_OP_FEQ_PS:
        return -(uint32_t)float32_eq_quiet(a, b, st);
    case ET_OP_FCLASS_PS:
        return fclass_s(a);
    case ET_OP_FADD_PI:
        return a + b;
    case ET_OP_FSLL_PI:
        return b < 32 ? a << b : 0;     /* as Esperanto's sim */
    case ET_OP_FNOT_PI:
        return ~a;
    case ET_OP_FSAT8_PI:        /* the byte */
        return (uint8_t)MIN(MAX((int32_t)a, -128), 127);
    case ET_OP_FSATU8_PI:
        return (uint32_t)MIN(MAX((int32_t)a, 0), 255);
    case ET_OP_FXOR_PI:
        return a ^ b;
    case ET_OP_FSRL_PI:
        return b < 32 ? a >> b : 0;
    case ET_OP_FOR_PI:
        return a | b;
    case ET_OP_FAND_PI:
        return a & b;
    case ET_OP_FSUB_PI:
        return a - b;
    case ET_OP_FSRA_PI:
        return (uint32_t)((int32_t)a >> MIN(b, 31));
    case ET_OP_FMUL_PI:
        return a * b;
    case ET_OP_FMULH_PI:
        return (uint32_t)(((int64_t)(int32_t)a * (int32_t)b) >> 32);
    case ET_OP_FMULHU_PI:
        return (uint32_t)(((uint64_t)a * b) >> 32);
    /* RISC-V division rules: no trap, fixed results */
    case ET_OP_FDIV_PI:
        return b == 0 ? UINT32_MAX :
               (a == 0x80000000u && b == UINT32_MAX) ? a :
               (uint32_t)((int32_t)a / (int32_t)b);
    case ET_OP_FDIVU_PI:
        return b == 0 ? UINT32_MAX : a / b;
    case ET_OP_FREM_PI:
        return b == 0 ? a : (a == 0x80000000u && b == UINT32_MAX) ? 0 :
               (uint32_t)((int32_t)a % (int32_t)b);
    case ET_OP_FREMU_PI:
        return b == 0 ? a : a % b;
    /* fslli/fsrli/fsrai.pi: shamt in the rs2 field */
    case ET_OP_FSLLI_PI:
        return a << rs2;
    case ET_OP_FSRLI_PI:
        return a >> rs2;
    case ET_OP_FSRAI_PI:
        return (uint32_t)((int32_t)a >> rs2);
    case ET_OP_FMIN_PI:
        return MIN((int32_t)a, (int32_t)b);
    case ET_OP_FMAX_PI:
        return MAX((int32_t)a, (int32_t)b);
    case ET_OP_FMINU_PI:
        return MIN(a, b);
    case ET_OP_FMAXU_PI:
        return MAX(a, b);
    case ET_OP_FLE_PI:
        return -(uint32_t)((int32_t)a <= (int32_t)b);
    case ET_OP_FLT_PI:          /* fltm.pi too (vpu_ops) */
        return -(uint32_t)((int32_t)a < (int32_t)b);
    case ET_OP_FEQ_PI:
        return -(uint32_t)(a == b);
    case ET_OP_FLTU_PI:
        return -(uint32_t)(a < b);
    case ET_OP_FSETM_PI:        /* into a mask only */
        return -(uint32_t)(a != 0);
    default:
        vpu_illegal(env, insn, "not modelled", ra);
    }
}

/* One lane of an operation whose result is an f register lane. */
static uint32_t vpu_lane(CPURISCVState *env, Etsoc1Op op, uint32_t insn,
                         uint32_t a, uint32_t b, uint32_t c, uintptr_t ra)
{
    switch (vpu_ops[op].ftz) {
    case FTZ32:
        return ETSOC1_FTZ(vpu_lane_ieee(env, op, insn, a, b, c, ra), 23, 8,
                          &env->fp_status);
    case FTZ16:
        return ETSOC1_FTZ(vpu_lane_ieee(env, op, insn, a, b, c, ra), 10, 5,
                          &env->fp_status);
    default:
        return vpu_lane_ieee(env, op, insn, a, b, c, ra);
    }
}

/*
 * fbci.ps immediate: bits [31:12] of the instruction are the top of the
 * float; the low 12 bits repeat bits [15:12] so that the value is centred
 * in the interval the truncated immediate stands for.
 */
static uint32_t vpu_f32imm(uint32_t insn)
{
    uint32_t hi = insn & 0xfffff000, low4 = extract32(insn, 12, 4);

    return hi | low4 << 8 | low4 << 4 | (low4 < 8 ? low4 : low4 + 1);
}

/*
 * Moves and immediates (VOP_MOVE): results that take other lanes of the
 * source, or no FP source at all.  Integer moves, no FP flags.  Fills
 * every lane of @r (the caller writes those m0 enables).
 */
static void vpu_move(CPURISCVState *env, Etsoc1Op op, uint32_t insn,
                     uint32_t *r)
{
    /* faddi/fandi: sign-extended 10 bits, [31:27]:[24:20] */
    int32_t vimm = sextract32((insn >> 22 & 0x3e0) | (insn >> 20 & 0x1f),
                              0, 10);
    /* fswizz: 8 bits, rs2:funct3 */
    unsigned imm8 = FIELD_EX32(insn, VINSN, RS2) << 3 |
                    FIELD_EX32(insn, VINSN, F3);
    /* fpackrepb/h.pi: bits of a part */
    unsigned w = op == ET_OP_FPACKREPH_PI ? 16 : 8;
    uint32_t a[NL], b[NL], c[NL];
    unsigned e, k;

    get_lanes(env, FIELD_EX32(insn, VINSN, RS1), a);
    get_lanes(env, FIELD_EX32(insn, VINSN, RS2), b);
    get_lanes(env, FIELD_EX32(insn, VINSN, RS3), c);
    for (e = 0; e < NL; e++) {
        switch (op) {
        case ET_OP_FBCI_PI:
            r[e] = (int32_t)insn >> 12;
            break;
        case ET_OP_FBCI_PS:
            r[e] = vpu_f32imm(insn);
            break;
        case ET_OP_FADDI_PI:
            r[e] = a[e] + vimm;
            break;
        case ET_OP_FANDI_PI:
            r[e] = a[e] & vimm;
            break;
        case ET_OP_FCMOV_PS:
            r[e] = a[e] ? b[e] : c[e];
            break;
        case ET_OP_FSWIZZ_PS:
            /* lane e of each group of 4 picks by 2 imm bits */
            r[e] = a[(e & ~3) | (imm8 >> (2 * (e % 4)) & 3)];
            break;
        case ET_OP_FPACKREPB_PI:
        case ET_OP_FPACKREPH_PI:
            /*
             * part k of lane e is the low byte (half) of lane
             * (n * e + k) % 8, n = 4 (2) parts per lane; the packed
             * result thus repeats across the register.
             */
            r[e] = 0;
            for (k = 0; k < 32 / w; k++) {
                r[e] |= extract32(a[(32 / w * e + k) % NL], 0, w) << (w * k);
            }
            break;
        default:
            g_assert_not_reached();
        }
    }
}

/* f register or mask register result */
void HELPER(etsoc1_vop)(CPURISCVState *env, uint32_t op, uint32_t insn)
{
    uintptr_t ra = GETPC();
    Etsoc1HartEt *et = hart_et(env);
    const VpuOp *vo = &vpu_ops[op];
    unsigned rd = FIELD_EX32(insn, VINSN, RD);
    unsigned rs1 = FIELD_EX32(insn, VINSN, RS1);
    unsigned rs2 = FIELD_EX32(insn, VINSN, RS2);
    uint32_t a[NL], b[NL], c[NL], r[NL];
    uint8_t active = et->m[0], md = 0, m1, m2;
    FloatRoundMode saved = 0;
    unsigned e;

    switch (vo->kind) {
    case VOP_SELECT:
        /* fcmovm.ps: m0 selects, lane by lane; itself not predicated */
        get_lanes(env, rs1, a);
        get_lanes(env, rs2, b);
        for (e = 0; e < NL; e++) {
            r[e] = (active >> e & 1) ? a[e] : b[e];
        }
        set_lanes(env, rd, r, 0xff);
        return;
    case VOP_MOVE:
        vpu_move(env, op, insn, r);
        set_lanes(env, rd, r, active);
        return;
    case VOP_MASK_LOGIC:
        /* all eight bits, not predicated */
        m1 = et->m[mreg(env, insn, rs1, ra)];
        m2 = op == ET_OP_MASKNOT ? 0 : et->m[mreg(env, insn, rs2, ra)];
        et->m[mreg(env, insn, rd, ra)] = op == ET_OP_MASKNOT ? ~m1 :
                                         op == ET_OP_MASKXOR ? m1 ^ m2 :
                                         op == ET_OP_MASKOR ? m1 | m2 :
                                         m1 & m2;
        return;
    case VOP_MASK:
        mreg(env, insn, rd, ra);
        break;
    default:
        if (etsoc1_vpu_gfx(env, op, insn, ra)) {
            return;
        }
        break;
    }
    get_lanes(env, rs1, a);
    get_lanes(env, rs2, b);
    get_lanes(env, FIELD_EX32(insn, VINSN, RS3), c);
    if (vo->rm != RM_NONE) {
        saved = vpu_set_rm(env, op, insn, ra);
    }
    for (e = 0; e < NL; e++) {
        if (!(active & (1u << e))) {
            continue;
        }
        if (vo->kind == VOP_MASK) {
            md |= (vpu_lane(env, vo->lane, insn, a[e], b[e], 0, ra) & 1) << e;
        } else {
            r[e] = vpu_lane(env, op, insn, a[e], b[e], c[e], ra);
        }
    }
    if (vo->rm != RM_NONE) {
        set_float_rounding_mode(saved, &env->fp_status);
    }
    if (vo->kind == VOP_MASK) {
        et->m[rd] = md;
    } else {
        set_lanes(env, rd, r, active);
    }
}

/* x register result */
target_ulong HELPER(etsoc1_vop_x)(CPURISCVState *env, uint32_t op,
                                  uint32_t insn)
{
    uintptr_t ra = GETPC();
    Etsoc1HartEt *et = hart_et(env);
    unsigned rs1 = FIELD_EX32(insn, VINSN, RS1);
    uint32_t lanes[NL];
    target_ulong packed = 0;
    unsigned i;

    switch (op) {
    case ET_OP_FMVZ_X_PS:       /* lane rs2[2:0] of f[rs1] */
    case ET_OP_FMVS_X_PS:
        get_lanes(env, rs1, lanes);
        i = FIELD_EX32(insn, VINSN, RS2) & 7;
        return op == ET_OP_FMVS_X_PS ? (target_long)(int32_t)lanes[i]
                                     : lanes[i];
    case ET_OP_MASKPOPC:
        return ctpop8(et->m[mreg(env, insn, rs1, ra)]);
    case ET_OP_MASKPOPCZ:
        return 8 - ctpop8(et->m[mreg(env, insn, rs1, ra)]);
    case ET_OP_MASKPOPC_RAST:
        return etsoc1_maskpopc_rast(env, insn, ra);
    case ET_OP_MOVA_X_M:        /* m7..m0, a byte each */
        for (i = 0; i < 8; i++) {
            packed |= (target_ulong)et->m[i] << (8 * i);
        }
        return packed;
    default:
        g_assert_not_reached();
    }
}

/* x register source: mova.m.x, mov.m.x, fbcx.ps */
void HELPER(etsoc1_vop_from_x)(CPURISCVState *env, target_ulong x,
                               uint32_t op, uint32_t insn)
{
    Etsoc1HartEt *et = hart_et(env);
    uint32_t v[NL];
    unsigned i;

    switch (op) {
    case ET_OP_FBCX_PS:
        for (i = 0; i < NL; i++) {
            v[i] = x;
        }
        set_lanes(env, FIELD_EX32(insn, VINSN, RD), v, et->m[0]);
        return;
    case ET_OP_MOV_M_X:         /* | imm8 */
        et->m[mreg(env, insn, FIELD_EX32(insn, VINSN, RD), GETPC())] =
            x | FIELD_EX32(insn, VINSN, RS2) << 3 | FIELD_EX32(insn, VINSN, F3);
        return;
    case ET_OP_MOVA_M_X:
        for (i = 0; i < 8; i++) {
            et->m[i] = x >> (8 * i);
        }
        return;
    default:
        g_assert_not_reached();
    }
}

/*
 * fbc.ps, flw.ps, fsw.ps: active lanes only touch memory; flq2, fsq2: all
 * eight lanes, m0 ignored.
 */
/*
 * The L1 for the line at @addr of a packed load or store, a gather's or a
 * scatter's lane (etsoc1-l1.c); a line in the hart's memo hits, a clean
 * one only for a load (etsoc1-l1-gen.c.inc).
 */
static void vpu_l1(CPURISCVState *env, target_ulong addr, bool store,
                   uintptr_t ra)
{
    uint64_t line = addr / ETSOC1_LINE;
    uint64_t memo = env->et_l1_memo[(store ? ETSOC1_L1_MEMO_STORE : 0) +
                                    line % ETSOC1_L1_MEMO];
    Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(env_archcpu(env));

    /* halted at the gate: runs again (a gather from its lane) */
    if (env_archcpu(env)->cfg.et_l1 && memo != line &&
        !etsoc1_l1_access_packed(cpu, addr, store)) {
        riscv_raise_exception(env, etsoc1_halt_cause(cpu), ra);
    }
}

void HELPER(etsoc1_vmem)(CPURISCVState *env, target_ulong addr, uint32_t op,
                         uint32_t insn)
{
    uintptr_t ra = GETPC();
    bool unmasked = op == ET_OP_FLQ2 || op == ET_OP_FSQ2;
    uint8_t active = unmasked ? 0xff : hart_et(env)->m[0];
    unsigned e;
    uint32_t v[NL];

    vpu_l1(env, addr, op == ET_OP_FSW_PS || op == ET_OP_FSQ2, ra);
    if (op != ET_OP_FBC_PS) {
        vpu_l1(env, addr + 4 * NL - 1, op == ET_OP_FSW_PS || op == ET_OP_FSQ2,
               ra);
    }
    if (op == ET_OP_FSW_PS || op == ET_OP_FSQ2) {
        get_lanes(env, FIELD_EX32(insn, VINSN, RS2), v);
        for (e = 0; e < NL; e++) {
            if (active & (1u << e)) {
                cpu_stl_le_data_ra(env, addr + 4 * e, v[e], ra);
            }
        }
        return;
    }
    for (e = 0; e < NL; e++) {      /* fbc.ps: the one word in every lane */
        if (active & (1u << e)) {
            v[e] = cpu_ldl_le_data_ra(env, op == ET_OP_FBC_PS ? addr
                                                              : addr + 4 * e,
                                      ra);
        }
    }
    set_lanes(env, FIELD_EX32(insn, VINSN, RD), v, active);
}

/* ---- gathers, scatters, packed atomics, coherent vector memory ---------- */

static G_NORETURN void vpu_access_fault(CPURISCVState *env, target_ulong addr,
                                        bool store, uintptr_t ra)
{
    qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": packed access "
                  "at 0x" TARGET_FMT_lx " must be aligned\n",
                  (uint64_t)env->mhartid, addr);
    env->badaddr = addr;
    riscv_raise_exception(env, store ? RISCV_EXCP_STORE_AMO_ACCESS_FAULT
                                     : RISCV_EXCP_LOAD_ACCESS_FAULT, ra);
}

/* Element load, sign-extended to 32 bits, or element store. */
static uint32_t vpu_load(CPURISCVState *env, target_ulong addr, unsigned size,
                         uintptr_t ra)
{
    return size == 1 ? (uint32_t)(int8_t)cpu_ldub_data_ra(env, addr, ra) :
           size == 2 ? (uint32_t)(int16_t)cpu_lduw_le_data_ra(env, addr, ra) :
           cpu_ldl_le_data_ra(env, addr, ra);
}

static void vpu_store(CPURISCVState *env, target_ulong addr, unsigned size,
                      uint32_t v, uintptr_t ra)
{
    if (size == 1) {
        cpu_stb_data_ra(env, addr, v, ra);
    } else if (size == 2) {
        cpu_stw_le_data_ra(env, addr, v, ra);
    } else {
        cpu_stl_le_data_ra(env, addr, v, ra);
    }
}

/* famomax/min.ps order raw fp32 bits: sNaN -> default NaN, -0 < +0. */
static uint32_t vpu_fminmax_bits(uint32_t a, uint32_t b, bool is_max)
{
    bool a_nan = (a & 0x7fffffff) > 0x7f800000;
    bool b_nan = (b & 0x7fffffff) > 0x7f800000;
    bool snan = (a_nan && !(a & 0x400000)) || (b_nan && !(b & 0x400000));
    int64_t ka, kb;

    if (snan || (a_nan && b_nan)) {
        return 0x7fc00000;
    }
    if (a_nan || b_nan) {
        return a_nan ? b : a;
    }
    /* a total order on non-NaN bit patterns */
    ka = (a >> 31) ? -(int64_t)(a & 0x7fffffff) - 1 : a;
    kb = (b >> 31) ? -(int64_t)(b & 0x7fffffff) - 1 : b;
    return (ka > kb) == is_max ? a : b;
}

/*
 * The ops of etsoc1_vgsc: how the lanes find their addresses, the element
 * size, load or store, and for the atomics the operation.
 */
typedef enum {
    GSC_GENERAL = 1,    /* x[rs2] + fs1 lane, from gsc_progress */
    GSC_WINDOW,         /* index packed in x[rs1], in x[rs2]'s 32 bytes */
    GSC_COHERENT,       /* as GSC_GENERAL, each lane aligned */
    GSC_LINE,           /* flwl/flwg, fswl/fswg: 32 aligned bytes at x[rs1] */
    GSC_AMO_PI,         /* packed atomics: the scalar atomics' operation */
    GSC_AMO_PS,         /* famomin/famomax.ps: raw fp32 bit order */
} VpuGscKind;

typedef struct {
    uint8_t kind;       /* VpuGscKind */
    uint8_t size;       /* bytes of an element */
    bool store;         /* scatter, fswl/fswg */
    uint8_t amo;        /* Etsoc1AmoOp; GSC_AMO_PS: ETSOC1_AMO_MIN or MAX */
} VpuGsc;

#define GSC(k, sz, st)      { .kind = (k), .size = (sz), .store = (st) }
#define GSC_AMO(k, op)      { .kind = (k), .size = 4, .amo = (op) }

static const VpuGsc vpu_gsc_ops[ET_OP__COUNT] = {
    [ET_OP_FGB_PS] = GSC(GSC_GENERAL, 1, false),
    [ET_OP_FGH_PS] = GSC(GSC_GENERAL, 2, false),
    [ET_OP_FGW_PS] = GSC(GSC_GENERAL, 4, false),
    [ET_OP_FSCB_PS] = GSC(GSC_GENERAL, 1, true),
    [ET_OP_FSCH_PS] = GSC(GSC_GENERAL, 2, true),
    [ET_OP_FSCW_PS] = GSC(GSC_GENERAL, 4, true),
    [ET_OP_FG32B_PS] = GSC(GSC_WINDOW, 1, false),
    [ET_OP_FG32H_PS] = GSC(GSC_WINDOW, 2, false),
    [ET_OP_FG32W_PS] = GSC(GSC_WINDOW, 4, false),
    [ET_OP_FSC32B_PS] = GSC(GSC_WINDOW, 1, true),
    [ET_OP_FSC32H_PS] = GSC(GSC_WINDOW, 2, true),
    [ET_OP_FSC32W_PS] = GSC(GSC_WINDOW, 4, true),
    [ET_OP_FAMOADD_PI] = GSC_AMO(GSC_AMO_PI, ETSOC1_AMO_ADD),
    [ET_OP_FAMOSWAP_PI] = GSC_AMO(GSC_AMO_PI, ETSOC1_AMO_SWAP),
    [ET_OP_FAMOAND_PI] = GSC_AMO(GSC_AMO_PI, ETSOC1_AMO_AND),
    [ET_OP_FAMOOR_PI] = GSC_AMO(GSC_AMO_PI, ETSOC1_AMO_OR),
    [ET_OP_FAMOXOR_PI] = GSC_AMO(GSC_AMO_PI, ETSOC1_AMO_XOR),
    [ET_OP_FAMOMAX_PS] = GSC_AMO(GSC_AMO_PS, ETSOC1_AMO_MAX),
    [ET_OP_FAMOMIN_PI] = GSC_AMO(GSC_AMO_PI, ETSOC1_AMO_MIN),
    [ET_OP_FAMOMIN_PS] = GSC_AMO(GSC_AMO_PS, ETSOC1_AMO_MIN),
    [ET_OP_FAMOMAX_PI] = GSC_AMO(GSC_AMO_PI, ETSOC1_AMO_MAX),
    [ET_OP_FAMOMINU_PI] = GSC_AMO(GSC_AMO_PI, ETSOC1_AMO_MINU),
    [ET_OP_FAMOMAXU_PI] = GSC_AMO(GSC_AMO_PI, ETSOC1_AMO_MAXU),
    [ET_OP_FLWLG_PS] = GSC(GSC_LINE, 4, false),
    [ET_OP_FSWLG_PS] = GSC(GSC_LINE, 4, true),
    [ET_OP_FGBL_PS] = GSC(GSC_COHERENT, 1, false),
    [ET_OP_FGBG_PS] = GSC(GSC_COHERENT, 1, false),
    [ET_OP_FGHL_PS] = GSC(GSC_COHERENT, 2, false),
    [ET_OP_FGHG_PS] = GSC(GSC_COHERENT, 2, false),
    [ET_OP_FGWL_PS] = GSC(GSC_COHERENT, 4, false),
    [ET_OP_FGWG_PS] = GSC(GSC_COHERENT, 4, false),
    [ET_OP_FSCBL_PS] = GSC(GSC_COHERENT, 1, true),
    [ET_OP_FSCBG_PS] = GSC(GSC_COHERENT, 1, true),
    [ET_OP_FSCHL_PS] = GSC(GSC_COHERENT, 2, true),
    [ET_OP_FSCHG_PS] = GSC(GSC_COHERENT, 2, true),
    [ET_OP_FSCWL_PS] = GSC(GSC_COHERENT, 4, true),
    [ET_OP_FSCWG_PS] = GSC(GSC_COHERENT, 4, true),
};

/*
 * One lane of a packed atomic @g: the old value; *@wrote if it changed
 * memory.  Integer lanes go through the scalar atomics' dispatcher.
 */
static uint32_t vpu_famo(CPURISCVState *env, const VpuGsc *g,
                         target_ulong addr, uint32_t v, uintptr_t ra,
                         bool *wrote)
{
    MemOpIdx oi = make_memop_idx(MO_LEUL | MO_ALIGN, cpu_mmu_index(env, false));
    uint32_t old, seen, val;

    if (g->kind == GSC_AMO_PI) {
        old = etsoc1_amo32(env, g->amo, addr, v, oi, ra);
        *wrote = etsoc1_amo_result(g->amo, old, v, 0, 32) != old;
        return old;
    }
    /*
     * famomax/min.ps: compare-and-swap loop, from a first read
     * that is itself one (a plain load of another shire's scratchpad
     * would go through its view, which takes the line clock we hold)
     */
    old = etsoc1_cmpxchg32(env, addr, 0, 0, oi, ra);
    for (;;) {
        val = vpu_fminmax_bits(old, v, g->amo == ETSOC1_AMO_MAX);
        seen = etsoc1_cmpxchg32(env, addr, old, val, oi, ra);
        if (seen == old) {
            *wrote = val != old;
            return old;
        }
        old = seen;
    }
}

/*
 * flwg.ps or flwl.ps (@global false: at the shire's L2) at @va found
 * @data: a coherent load, which may be a poll (etsoc1_sync_plain_read:
 * the 32 bytes the last one found there); then the hart halts and the
 * instruction runs again when it is woken.  Coherent stores and atomics
 * wake it (etsoc1_local_written, the L3's and windows' writes).
 */
static void vpu_poll(CPURISCVState *env, target_ulong va, bool global,
                     const uint32_t *data, uintptr_t ra)
{
    Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(env_archcpu(env));
    hwaddr pa;

    if (etsoc1_sync_enabled(cpu) &&
        etsoc1_minion_va_to_pa(cpu, va, MMU_DATA_LOAD, &pa) &&
        etsoc1_sync_plain_read(cpu, etsoc1_line_clock_of(cpu, pa), pa, data,
                               NL * sizeof(*data),
                               global ? etsoc1_global_arrival(cpu, pa)
                                      : etsoc1_arrival(cpu, 0), false)) {
        riscv_raise_exception(env, etsoc1_halt_cause(cpu), ra);
    }
}

/* A coherent vector store to DRAM at @va wakes the polls of its line. */
static void vpu_written(CPURISCVState *env, target_ulong va)
{
    Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(env_archcpu(env));
    hwaddr pa;

    if (etsoc1_sync_enabled(cpu) &&
        etsoc1_minion_va_to_pa(cpu, va, MMU_DATA_STORE, &pa)) {
        etsoc1_local_written(env, pa);
    }
}

/*
 * Per-lane memory operations.  Lanes run from gsc_progress (general forms);
 * a faulting lane leaves its index there so that the restarted instruction
 * resumes with it, and completion resets it to 0.  The local or global
 * form of an atomic and of flwl/flwg, fswl/fswg is their g field (one
 * pattern each), like the scalar atomics'.
 */
void HELPER(etsoc1_vgsc)(CPURISCVState *env, target_ulong x1, target_ulong x2,
                         uint32_t op, uint32_t insn)
{
    uintptr_t ra = GETPC();
    Etsoc1HartEt *et = hart_et(env);
    const VpuGsc *g = &vpu_gsc_ops[op];
    unsigned rd = FIELD_EX32(insn, VINSN, RD);
    uint8_t active = et->m[0];
    bool window = g->kind == GSC_WINDOW;
    bool amo_global = extract32(insn, 31, 1);       /* famo*: g field */
    unsigned size = g->size, e;
    uint32_t idx[NL], data[NL];
    target_ulong addr;

    get_lanes(env, FIELD_EX32(insn, VINSN, RS1), idx);
    get_lanes(env, rd, data);

    switch (g->kind) {
    case GSC_LINE:
        if (x1 & 31) {
            vpu_access_fault(env, x1, g->store, ra);
        }
        if (g->store) {                                 /* fswl/fswg.ps */
            for (e = 0; e < NL; e++) {
                if (active & (1u << e)) {
                    cpu_stl_le_data_ra(env, x1 + 4 * e, data[e], ra);
                }
            }
            vpu_written(env, x1);
            return;
        }
        et->poll.helper_access = true;       /* the load polls as a whole */
        for (e = 0; e < NL; e++) {
            if (active & (1u << e)) {
                data[e] = cpu_ldl_le_data_ra(env, x1 + 4 * e, ra);
            }
        }
        et->poll.helper_access = false;
        /* the g field [25]: flwg.ps; may halt */
        vpu_poll(env, x1, extract32(insn, 25, 1), data, ra);
        set_lanes(env, rd, data, active);
        return;
    case GSC_AMO_PI:
    case GSC_AMO_PS:
        for (e = et->gsc_progress; e < NL; e++) {
            Etsoc1LineClock *lc;
            bool wrote;
            uint32_t old;
            hwaddr pa;

            if (!(active & (1u << e))) {
                continue;
            }
            et->gsc_progress = e;
            addr = x2 + (int32_t)idx[e];
            pa = etsoc1_amo_check(env, addr, 4, amo_global, true, ra);
            lc = etsoc1_amo_lock(env, addr, 4, pa, amo_global, true, ra);
            old = vpu_famo(env, g, addr, data[e], ra, &wrote);
            etsoc1_amo_timing(env, pa, 4, amo_global, true, wrote, ra);
            etsoc1_amo_unlock(lc);
            etsoc1_set_flane(env, rd, e, old);
        }
        et->gsc_progress = 0;
        return;
    default:
        break;
    }

    /* gathers and scatters */
    for (e = window ? 0 : et->gsc_progress; e < NL; e++) {
        if (!(active & (1u << e))) {
            continue;
        }
        if (window) {
            unsigned bits = size == 1 ? 5 : size == 2 ? 4 : 3;
            unsigned i = (x1 >> (bits * e)) & ((1u << bits) - 1);

            addr = (x2 & ~(target_ulong)31) |
                   ((x2 + i * size) & (32 - size));
        } else {
            et->gsc_progress = e;
            addr = x2 + (int32_t)idx[e];
        }
        if (g->kind == GSC_COHERENT && (addr & (size - 1))) {
            vpu_access_fault(env, addr, g->store, ra);
        }
        if (g->kind != GSC_COHERENT) {      /* those bypass the L1 */
            vpu_l1(env, addr, g->store, ra);
        }
        if (g->store) {
            vpu_store(env, addr, size, data[e], ra);
        } else {
            etsoc1_set_flane(env, rd, e, vpu_load(env, addr, size, ra));
        }
    }
    if (!window) {
        et->gsc_progress = 0;   /* the window forms never touch it */
    }
}
