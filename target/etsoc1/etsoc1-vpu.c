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
 * The helpers decode the operation from the instruction word, so the
 * encoding is written down once, in the decode file and in the switch
 * below.  The approximate transcendentals fexp, flog and frcp are in
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

#define OPC_CUSTOM0  0x0b
#define OPC_CUSTOM2  0x5b
#define OPC_FBCI_PI  0x5f
#define OPC_LOAD_FP  0x07
#define OPC_STORE_FP 0x27
#define OPC_FCMOVM   0x77
#define OPC_FBCI_PS  0x1f
#define OPC_IMM64    0x3f       /* faddi.pi, fandi.pi, fcmov.ps */
#define OPC_CUSTOM3  0x7b

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

/* Set the instruction's rounding mode; returns the one to restore. */
static FloatRoundMode vpu_set_rm(CPURISCVState *env, uint32_t insn,
                                 uintptr_t ra)
{
    FloatRoundMode saved = get_float_rounding_mode(&env->fp_status);
    unsigned rm = FIELD_EX32(insn, VINSN, F3);

    /* fcvt.f16.ps has funct3 0 and always rounds by frm */
    if (rm == 7 || FIELD_EX32(insn, VINSN, F7) == 0x6c) {
        rm = env->frm;
    }
    if (!ETSOC1_RM_VALID(rm)) {
        vpu_illegal(env, insn, "reserved rounding mode", ra);
    }
    set_float_rounding_mode(etsoc1_rm(rm), &env->fp_status);
    return saved;
}

/*
 * Subnormals.  The minion FPU reads a subnormal operand of any arithmetic,
 * compare, min/max or conversion as a zero of the same sign and raises
 * its sticky denormal flag: the CPU model sets flush_inputs_to_zero in
 * fp_status.  It returns a zero of the result's sign, raising underflow
 * and inexact, for a result tiny after rounding (Esperanto's simulator
 * builds its softfloat denormals-to-zero): which results can be tiny is
 * this table.  Sign injection, fclass and moves keep subnormals.
 */
enum { FTZ32 = 1, FTZ16 = 2 };

static unsigned vpu_flush_kind(uint32_t insn)
{
    if (FIELD_EX32(insn, VINSN, OPCODE) == OPC_CUSTOM2) {
        return FTZ32;                           /* fused multiply-add */
    }
    switch (FIELD_EX32(insn, VINSN, F7)) {
    case 0x00: case 0x04: case 0x08: case 0x0c: case 0x2c:
        return FTZ32;
    case 0x6c:                                  /* fcvt.f16.ps */
        return FTZ16;
    default:
        return 0;
    }
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
static uint32_t vpu_lane_ieee(CPURISCVState *env, uint32_t insn, uint32_t a,
                              uint32_t b, uint32_t c, uintptr_t ra)
{
    float_status *st = &env->fp_status;
    unsigned f3 = FIELD_EX32(insn, VINSN, F3);
    unsigned rs2 = FIELD_EX32(insn, VINSN, RS2);
    static const int fma_flags[] = {
        0, float_muladd_negate_c, float_muladd_negate_product,
        float_muladd_negate_c | float_muladd_negate_product,
    };

    if (FIELD_EX32(insn, VINSN, OPCODE) == OPC_CUSTOM2) {
        return float32_muladd(a, b, c, fma_flags[FIELD_EX32(insn, VINSN, FMT)],
                              st);
    }
    switch (FIELD_EX32(insn, VINSN, F7)) {
    case 0x00:
        return float32_add(a, b, st);
    case 0x04:
        return float32_sub(a, b, st);
    case 0x08:
        return float32_mul(a, b, st);
    case 0x0c:
        return float32_div(a, b, st);
    case 0x2c:      /* rs2 selects; fsin/frsq trap (qemu-patches/0004) */
        switch (rs2) {
        case 0: return float32_sqrt(a, st);
        case 1: return float32_round_to_int(a, st);
        case 2: return vpu_frac(a, st);
        case 3: return etsoc1_flog(a, st);
        case 4: return etsoc1_fexp(a, st);
        case 7: return etsoc1_frcp(a, st);
        }
        vpu_illegal(env, insn, "not modelled", ra);
    case 0x60:
        return rs2 ? float32_to_uint32(a, st)
                   : (uint32_t)float32_to_int32(a, st);
    case 0x68:      /* fcvt.ps.pw / .pwu / .f16 (low half of the lane) */
        return rs2 == 0xa ? float16_to_float32(a, true, st) :
               rs2 ? uint32_to_float32(a, st) : int32_to_float32(a, st);
    case 0x6c:      /* fcvt.f16.ps: zero-extended into the lane */
        return float32_to_float16(a, true, st);
    case 0x10:      /* sign injection */
        return (a & INT32_MAX) |
               ((f3 == 0 ? b : f3 == 1 ? ~b : a ^ b) & 0x80000000u);
    case 0x14:
        return f3 ? float32_maximum_number(a, b, st)
                  : float32_minimum_number(a, b, st);
    case 0x50:
        return -(uint32_t)(f3 == 0 ? float32_le(a, b, st) :
                           f3 == 1 ? float32_lt(a, b, st) :
                           float32_eq_quiet(a, b, st));
    case 0x70:
        return fclass_s(a);
    case 0x03:
        switch (f3) {
        case 0: return a + b;
        case 1: return b < 32 ? a << b : 0;     /* as Esperanto's sim */
        case 2: return ~a;
        case 3:     /* fsat8.pi (rs2 0) / fsatu8.pi (rs2 1): the byte */
            return rs2 ? (uint32_t)MIN(MAX((int32_t)a, 0), 255)
                       : (uint8_t)MIN(MAX((int32_t)a, -128), 127);
        case 4: return a ^ b;
        case 5: return b < 32 ? a >> b : 0;
        case 6: return a | b;
        default: return a & b;
        }
    case 0x07:
        return f3 ? (uint32_t)((int32_t)a >> MIN(b, 31)) : a - b;
    case 0x0b:
        return f3 == 0 ? a * b :
               f3 == 1 ? (uint32_t)(((int64_t)(int32_t)a * (int32_t)b) >> 32) :
               (uint32_t)(((uint64_t)a * b) >> 32);
    case 0x0f:      /* RISC-V division rules: no trap, fixed results */
        switch (f3) {
        case 0:
            return b == 0 ? UINT32_MAX :
                   (a == 0x80000000u && b == UINT32_MAX) ? a :
                   (uint32_t)((int32_t)a / (int32_t)b);
        case 1:
            return b == 0 ? UINT32_MAX : a / b;
        case 2:
            return b == 0 ? a : (a == 0x80000000u && b == UINT32_MAX) ? 0 :
                   (uint32_t)((int32_t)a % (int32_t)b);
        default:
            return b == 0 ? a : a % b;
        }
    case 0x27:      /* fslli/fsrli/fsrai.pi: shamt in the rs2 field */
        return f3 == 1 ? a << rs2 : f3 == 5 ? a >> rs2
                                            : (uint32_t)((int32_t)a >> rs2);
    case 0x1f:      /* fltm.pi */
        return -(uint32_t)((int32_t)a < (int32_t)b);
    case 0x17:
        switch (f3) {
        case 0: return MIN((int32_t)a, (int32_t)b);
        case 1: return MAX((int32_t)a, (int32_t)b);
        case 2: return MIN(a, b);
        default: return MAX(a, b);
        }
    case 0x53:
        return -(uint32_t)(f3 == 0 ? (int32_t)a <= (int32_t)b :
                           f3 == 1 ? (int32_t)a < (int32_t)b :
                           f3 == 2 ? a == b : a < b);
    default:
        vpu_illegal(env, insn, "not modelled", ra);
    }
}

/* One lane of an operation whose result is an f register lane. */
static uint32_t vpu_lane(CPURISCVState *env, uint32_t insn, uint32_t a,
                         uint32_t b, uint32_t c, uintptr_t ra)
{
    switch (vpu_flush_kind(insn)) {
    case FTZ32:
        return ETSOC1_FTZ(vpu_lane_ieee(env, insn, a, b, c, ra), 23, 8,
                          &env->fp_status);
    case FTZ16:
        return ETSOC1_FTZ(vpu_lane_ieee(env, insn, a, b, c, ra), 10, 5,
                          &env->fp_status);
    default:
        return vpu_lane_ieee(env, insn, a, b, c, ra);
    }
}

static bool vpu_writes_mask(uint32_t insn)
{
    unsigned f7 = FIELD_EX32(insn, VINSN, F7), f3 = FIELD_EX32(insn, VINSN, F3);

    return FIELD_EX32(insn, VINSN, OPCODE) == 0x7b &&
           (f7 == 0x33 || f7 == 0x1f ||
            ((f7 == 0x50 || f7 == 0x53) && f3 >= 4));
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
 * Moves and immediates: results that take other lanes of the source, or
 * no FP source at all.  Integer moves, no FP flags.  Fills every lane of
 * @r (the caller writes those m0 enables); false if @insn is not one.
 */
static bool vpu_move(CPURISCVState *env, uint32_t insn, uint32_t *r)
{
    unsigned opc = FIELD_EX32(insn, VINSN, OPCODE);
    unsigned f3 = FIELD_EX32(insn, VINSN, F3), f7 = FIELD_EX32(insn, VINSN, F7);
    /* faddi/fandi: sign-extended 10 bits, [31:27]:[24:20] */
    int32_t vimm = sextract32((insn >> 22 & 0x3e0) | (insn >> 20 & 0x1f),
                              0, 10);
    /* fswizz: 8 bits, rs2:funct3 */
    unsigned imm8 = FIELD_EX32(insn, VINSN, RS2) << 3 | f3;
    uint32_t a[NL], b[NL], c[NL];
    unsigned e, k, w;

    if (opc != OPC_FBCI_PI && opc != OPC_FBCI_PS && opc != OPC_IMM64 &&
        !(opc == OPC_CUSTOM3 && (f7 == 0x73 || f7 == 0x13))) {
        return false;
    }
    get_lanes(env, FIELD_EX32(insn, VINSN, RS1), a);
    get_lanes(env, FIELD_EX32(insn, VINSN, RS2), b);
    get_lanes(env, FIELD_EX32(insn, VINSN, RS3), c);
    for (e = 0; e < NL; e++) {
        if (opc == OPC_FBCI_PI) {
            r[e] = (int32_t)insn >> 12;
        } else if (opc == OPC_FBCI_PS) {
            r[e] = vpu_f32imm(insn);
        } else if (opc == OPC_IMM64) {
            r[e] = f3 == 0 ? a[e] + vimm : f3 == 1 ? a[e] & vimm :
                   a[e] ? b[e] : c[e];
        } else if (f7 == 0x73) {
            /* fswizz.ps: lane e of each group of 4 picks by 2 imm bits */
            r[e] = a[(e & ~3) | (imm8 >> (2 * (e % 4)) & 3)];
        } else {
            /*
             * fpackrepb/h.pi: part k of lane e is the low byte (half) of
             * lane (n * e + k) % 8, n = 4 (2) parts per lane; the packed
             * result thus repeats across the register.
             */
            w = f3 ? 16 : 8;
            r[e] = 0;
            for (k = 0; k < 32 / w; k++) {
                r[e] |= extract32(a[(32 / w * e + k) % NL], 0, w) << (w * k);
            }
        }
    }
    return true;
}

/* f register or mask register result */
void HELPER(etsoc1_vop)(CPURISCVState *env, uint32_t insn)
{
    uintptr_t ra = GETPC();
    Etsoc1HartEt *et = hart_et(env);
    unsigned rd = FIELD_EX32(insn, VINSN, RD);
    unsigned rs1 = FIELD_EX32(insn, VINSN, RS1);
    unsigned rs2 = FIELD_EX32(insn, VINSN, RS2);
    unsigned f7 = FIELD_EX32(insn, VINSN, F7), f3 = FIELD_EX32(insn, VINSN, F3);
    uint32_t a[NL], b[NL], c[NL], r[NL];
    uint8_t active = et->m[0], md = 0;
    bool fp = FIELD_EX32(insn, VINSN, OPCODE) == OPC_CUSTOM2 ||
              f7 == 0x00 || f7 == 0x04 || f7 == 0x08 || f7 == 0x0c ||
              f7 == 0x2c || f7 == 0x60 || f7 == 0x68 || f7 == 0x6c;
    FloatRoundMode saved = 0;
    unsigned e;

    if (FIELD_EX32(insn, VINSN, OPCODE) == OPC_FCMOVM) {
        /* fcmovm.ps: m0 selects, lane by lane; itself not predicated */
        get_lanes(env, rs1, a);
        get_lanes(env, rs2, b);
        for (e = 0; e < NL; e++) {
            r[e] = (active >> e & 1) ? a[e] : b[e];
        }
        set_lanes(env, rd, r, 0xff);
        return;
    }
    if (vpu_move(env, insn, r)) {
        set_lanes(env, rd, r, active);
        return;
    }
    if (FIELD_EX32(insn, VINSN, OPCODE) == OPC_CUSTOM3 &&
        etsoc1_vpu_gfx(env, insn, ra)) {
        return;
    }
    if (f7 == 0x33 && FIELD_EX32(insn, VINSN, OPCODE) != OPC_CUSTOM2) {
        /* mask logic: all eight bits, not predicated */
        uint8_t m1 = et->m[mreg(env, insn, rs1, ra)];
        uint8_t m2 = f3 == 2 ? 0 : et->m[mreg(env, insn, rs2, ra)];

        et->m[mreg(env, insn, rd, ra)] = f3 == 2 ? ~m1 : f3 == 4 ? m1 ^ m2 :
                                         f3 == 6 ? m1 | m2 : m1 & m2;
        return;
    }
    if (vpu_writes_mask(insn)) {
        mreg(env, insn, rd, ra);
    }
    get_lanes(env, rs1, a);
    get_lanes(env, rs2, b);
    get_lanes(env, FIELD_EX32(insn, VINSN, RS3), c);
    if (fp) {
        saved = vpu_set_rm(env, insn, ra);
    }
    for (e = 0; e < NL; e++) {
        if (!(active & (1u << e))) {
            continue;
        }
        if (f7 == 0x53 && f3 == 4) {                    /* fsetm.pi */
            md |= (a[e] != 0) << e;
        } else if (f7 == 0x1f) {                        /* fltm.pi */
            md |= (vpu_lane(env, insn, a[e], b[e], 0, ra) & 1) << e;
        } else if (vpu_writes_mask(insn)) {             /* flem/fltm/feqm */
            md |= (vpu_lane(env, (insn & ~(0x7 << 12)) | ((f3 - 4) << 12),
                            a[e], b[e], 0, ra) & 1) << e;
        } else {
            r[e] = vpu_lane(env, insn, a[e], b[e], c[e], ra);
        }
    }
    if (fp) {
        set_float_rounding_mode(saved, &env->fp_status);
    }
    if (vpu_writes_mask(insn)) {
        et->m[rd] = md;
    } else {
        set_lanes(env, rd, r, active);
    }
}

/* x register result */
target_ulong HELPER(etsoc1_vop_x)(CPURISCVState *env, uint32_t insn)
{
    uintptr_t ra = GETPC();
    Etsoc1HartEt *et = hart_et(env);
    unsigned rs1 = FIELD_EX32(insn, VINSN, RS1);
    uint32_t lanes[NL];
    target_ulong packed = 0;
    unsigned i;

    switch (FIELD_EX32(insn, VINSN, F7)) {
    case 0x70:      /* fmvz.x.ps / fmvs.x.ps: lane rs2[2:0] of f[rs1] */
        get_lanes(env, rs1, lanes);
        i = FIELD_EX32(insn, VINSN, RS2) & 7;
        return FIELD_EX32(insn, VINSN, F3) ? (target_long)(int32_t)lanes[i]
                                           : lanes[i];
    case 0x29:      /* maskpopc */
        return ctpop8(et->m[mreg(env, insn, rs1, ra)]);
    case 0x2a:      /* maskpopcz */
        return 8 - ctpop8(et->m[mreg(env, insn, rs1, ra)]);
    case 0x2f:
        return etsoc1_maskpopc_rast(env, insn, ra);
    default:        /* mova.x.m: m7..m0, a byte each */
        for (i = 0; i < 8; i++) {
            packed |= (target_ulong)et->m[i] << (8 * i);
        }
        return packed;
    }
}

/* x register source: mova.m.x, fbcx.ps */
void HELPER(etsoc1_vop_from_x)(CPURISCVState *env, target_ulong x,
                               uint32_t insn)
{
    Etsoc1HartEt *et = hart_et(env);
    uint32_t v[NL];
    unsigned i;

    if (FIELD_EX32(insn, VINSN, OPCODE) == OPC_CUSTOM0) {      /* fbcx.ps */
        for (i = 0; i < NL; i++) {
            v[i] = x;
        }
        set_lanes(env, FIELD_EX32(insn, VINSN, RD), v, et->m[0]);
        return;
    }
    if (FIELD_EX32(insn, VINSN, F7) == 0x2b) {      /* mov.m.x: | imm8 */
        et->m[mreg(env, insn, FIELD_EX32(insn, VINSN, RD), GETPC())] =
            x | FIELD_EX32(insn, VINSN, RS2) << 3 | FIELD_EX32(insn, VINSN, F3);
        return;
    }
    for (i = 0; i < 8; i++) {                                   /* mova.m.x */
        et->m[i] = x >> (8 * i);
    }
}

/* fbc.ps, flw.ps, fsw.ps: active lanes only touch memory */
void HELPER(etsoc1_vmem)(CPURISCVState *env, target_ulong addr, uint32_t insn)
{
    uintptr_t ra = GETPC();
    uint8_t active = hart_et(env)->m[0];
    unsigned f3 = FIELD_EX32(insn, VINSN, F3), e;
    uint32_t v[NL];

    if (FIELD_EX32(insn, VINSN, OPCODE) != OPC_CUSTOM0) {
        active = 0xff;                          /* flq2 / fsq2: unmasked */
        f3 = FIELD_EX32(insn, VINSN, OPCODE) == OPC_STORE_FP ? 6 : 2;
    }
    if (f3 == 6) {                                              /* fsw.ps */
        get_lanes(env, FIELD_EX32(insn, VINSN, RS2), v);
        for (e = 0; e < NL; e++) {
            if (active & (1u << e)) {
                cpu_stl_le_data_ra(env, addr + 4 * e, v[e], ra);
            }
        }
        return;
    }
    for (e = 0; e < NL; e++) {
        if (active & (1u << e)) {
            v[e] = cpu_ldl_le_data_ra(env, f3 == 2 ? addr + 4 * e : addr, ra);
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
 * One lane of a packed atomic: the old value; *@wrote if it changed
 * memory.  Integer lanes (funct7 [1:0] = 3) go through the scalar
 * atomics' dispatcher, indexed by funct7 [5:2].
 */
static uint32_t vpu_famo(CPURISCVState *env, unsigned op, target_ulong addr,
                         uint32_t v, uintptr_t ra, bool *wrote)
{
    static const Etsoc1AmoOp kind[] = {
        ETSOC1_AMO_ADD, ETSOC1_AMO_SWAP, ETSOC1_AMO_AND, ETSOC1_AMO_OR,
        ETSOC1_AMO_XOR, ETSOC1_AMO_MIN, ETSOC1_AMO_MAX, ETSOC1_AMO_MINU,
        ETSOC1_AMO_MAXU,
    };
    MemOpIdx oi = make_memop_idx(MO_LEUL | MO_ALIGN, cpu_mmu_index(env, false));
    uint32_t old, seen, val;

    if ((op & 3) == 3 && op >> 2 < ARRAY_SIZE(kind)) {
        old = etsoc1_amo32(env, kind[op >> 2], addr, v, oi, ra);
        *wrote = etsoc1_amo_result(kind[op >> 2], old, v, 0, 32) != old;
        return old;
    }
    /*
     * 0x14 max.ps, 0x18 min.ps: compare-and-swap loop, from a first read
     * that is itself one (a plain load of another shire's scratchpad
     * would go through its view, which takes the line clock we hold)
     */
    old = etsoc1_cmpxchg32(env, addr, 0, 0, oi, ra);
    for (;;) {
        val = vpu_fminmax_bits(old, v, op == 0x14);
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
 * resumes with it, and completion resets it to 0.
 */
void HELPER(etsoc1_vgsc)(CPURISCVState *env, target_ulong x1, target_ulong x2,
                         uint32_t insn)
{
    uintptr_t ra = GETPC();
    Etsoc1HartEt *et = hart_et(env);
    unsigned f3 = FIELD_EX32(insn, VINSN, F3), f7 = FIELD_EX32(insn, VINSN, F7);
    unsigned rd = FIELD_EX32(insn, VINSN, RD);
    uint8_t active = et->m[0];
    bool store, window = false, aligned = false;
    unsigned size = 4, e;
    uint32_t idx[NL], data[NL];
    target_ulong addr;

    get_lanes(env, FIELD_EX32(insn, VINSN, RS1), idx);
    get_lanes(env, rd, data);

    if (f3 == 7 && (f7 >> 1) == 0x04) {                 /* flwl/flwg.ps */
        if (x1 & 31) {
            vpu_access_fault(env, x1, false, ra);
        }
        et->poll.helper_access = true;       /* the load polls as a whole */
        for (e = 0; e < NL; e++) {
            if (active & (1u << e)) {
                data[e] = cpu_ldl_le_data_ra(env, x1 + 4 * e, ra);
            }
        }
        et->poll.helper_access = false;
        vpu_poll(env, x1, f7 & 1, data, ra);            /* may halt */
        set_lanes(env, rd, data, active);
        return;
    }
    if (f3 == 7 && (f7 >> 1) == 0x14) {                 /* fswl/fswg.ps */
        if (x1 & 31) {
            vpu_access_fault(env, x1, true, ra);
        }
        for (e = 0; e < NL; e++) {
            if (active & (1u << e)) {
                cpu_stl_le_data_ra(env, x1 + 4 * e, data[e], ra);
            }
        }
        vpu_written(env, x1);
        return;
    }

    if (f3 == 4) {                                      /* packed atomics */
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
            pa = etsoc1_amo_check(env, addr, 4, f7 & 0x40, true, ra);
            lc = etsoc1_amo_lock(env, addr, 4, pa, f7 & 0x40, true, ra);
            old = vpu_famo(env, f7 & 0x3f, addr, data[e], ra, &wrote);
            etsoc1_amo_timing(env, pa, 4, f7 & 0x40, true, wrote, ra);
            etsoc1_amo_unlock(lc);
            etsoc1_set_flane(env, rd, e, old);
        }
        et->gsc_progress = 0;
        return;
    }

    /* gathers and scatters: f7 [6] scatter, [5] general, [4:2] size b/h/w */
    store = f7 & 0x40;
    size = (f7 & 0x1c) == 0x04 ? 1 : (f7 & 0x1c) == 0x08 ? 2 : 4;
    if (f3 == 7) {          /* coherent forms: f7 [5] scatter, [3:2] size */
        store = f7 & 0x20;
        size = 1u << ((f7 >> 2) & 3);
        aligned = true;
    } else {
        window = !(f7 & 0x20);
    }
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
        if (aligned && (addr & (size - 1))) {
            vpu_access_fault(env, addr, store, ra);
        }
        if (store) {
            vpu_store(env, addr, size, data[e], ra);
        } else {
            etsoc1_set_flane(env, rd, e, vpu_load(env, addr, size, ra));
        }
    }
    if (!window) {
        et->gsc_progress = 0;   /* the window forms never touch it */
    }
}
