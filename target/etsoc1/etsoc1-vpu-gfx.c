/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ET-Minion's packed "graphics" instructions (docs/isa.md, "Graphics
 * instructions"): the conversions between fp32 and the small formats a
 * rasteriser and texture unit use (f10/f11, unorm/snorm of 2 to 24 bits,
 * 17.14 and 15.16 fixed point), frcp.fix.rast, the cube-map helpers and
 * maskpopc.rast.
 *
 * They belong to the graphics feature: while minion_feature bit 0 is set
 * (its reset value: ML parts ship that way) each is an illegal
 * instruction.  The semantics are those of Esperanto's simulator; none of
 * them raises an FP flag (its conversions compute with softfloat and then
 * discard the flags), and none reads a subnormal as anything but its bits
 * say unless noted.  Lanes off in m0 are not computed.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/host-utils.h"
#include "hw/registerfields.h"
#include "exec/exec-all.h"
#include "fpu/softfloat.h"
#include "internals.h"
#include "target/riscv/etsoc1/etsoc1-isa.h"
#include "hw/etsoc1/etsoc1-shire.h"

#define NL ETSOC1_FLANES

#define F32_SIGN    0x80000000u
#define F32_ONE     0x3f800000u

static G_NORETURN void gfx_illegal(CPURISCVState *env, uint32_t insn,
                                   const char *why, uintptr_t ra)
{
    qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": graphics insn "
                  "0x%08x: %s\n", (uint64_t)env->mhartid, insn, why);
    riscv_raise_exception(env, RISCV_EXCP_ILLEGAL_INST, ra);
}

static void gfx_require(CPURISCVState *env, uint32_t insn, uintptr_t ra)
{
    Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(env_archcpu(env));

    if (cpu->shire->minion_feature & MINION_FEATURE_GFX_OFF) {
        gfx_illegal(env, insn, "graphics feature off (minion_feature[0])",
                    ra);
    }
}

/*
 * The scratch status the conversions round in: frm's mode, or nearest
 * even when @check is false and frm holds no mode (the snorm expansions
 * do not check frm, see fcvt.ps.sn16 below).  Flags stay in it.
 */
static float_status gfx_status(CPURISCVState *env, uint32_t insn, bool check,
                               uintptr_t ra)
{
    float_status s = { .float_rounding_mode = float_round_nearest_even };

    if (ETSOC1_RM_VALID(env->frm)) {
        s.float_rounding_mode = etsoc1_rm(env->frm);
    } else if (check) {
        gfx_illegal(env, insn, "frm holds a reserved rounding mode", ra);
    }
    return s;
}

/* ---- fp32 <-> packed float (f10: e5m5, f11: e5m6, no sign) ------------ */

/*
 * fp32 to an unsigned float with 5 exponent bits (bias 15) and @m mantissa
 * bits: truncated, whatever the rounding mode.  Negative numbers (-0 and
 * negative NaNs too), zeros and fp32 subnormals give 0; a positive NaN
 * the quiet NaN, +inf infinity; 2^16 and above the largest finite value.
 */
static uint32_t f32_to_small(uint32_t a, unsigned m)
{
    int e = extract32(a, 23, 8), se = e - 127 + 15;
    uint32_t frac = extract32(a, 0, 23);

    if ((a & F32_SIGN) || e == 0) {
        return 0;
    }
    if (e == 0xff) {
        return frac ? 0x1fu << m | 1u << (m - 1) : 0x1fu << m;
    }
    if (e > 127 + 15) {
        return 0x1eu << m | ((1u << m) - 1);
    }
    if (se > 0) {
        return (uint32_t)se << m | frac >> (23 - m);
    }
    /* subnormal result: 1.frac shifted right, dropped bits lost */
    return 1 - se + (23 - m) >= 32 ? 0 : (frac | 1u << 23) >> (1 - se + 23 - m);
}

/*
 * The other way: exact.  The small format's subnormals read as zero
 * (the simulator flushes them), its NaNs give the default NaN; bits
 * above the format are ignored.
 */
static uint32_t small_to_f32(uint32_t a, unsigned m)
{
    unsigned e = extract32(a, m, 5);
    uint32_t frac = extract32(a, 0, m);

    if (e == 0) {
        return 0;
    }
    if (e == 0x1f) {
        return frac ? 0x7fc00000u : 0x7f800000u;
    }
    return (e - 15 + 127) << 23 | frac << (23 - m);
}

/* ---- unorm / snorm -------------------------------------------------- */

/*
 * fp32 to an unsigned normalised integer of @n bits: round(a * (2^n - 1)),
 * halves away from zero, whatever frm.  1.0 and above, +inf and every NaN
 * (either sign) give 2^n - 1; negatives, zeros and subnormals 0.  The
 * product is exact in 64 bits: 24-bit significand times an n-bit factor.
 */
static uint32_t f32_to_unorm(uint32_t a, unsigned n)
{
    int e = extract32(a, 23, 8);
    uint32_t frac = extract32(a, 0, 23), max = (1u << n) - 1;
    uint64_t p;
    int sh;

    if (e >= 127) {
        return (a & F32_SIGN) && !(e == 0xff && frac) ? 0 : max;
    }
    if ((a & F32_SIGN) || e == 0) {
        return 0;
    }
    /* a = (frac | 2^23) 2^(e - 150); shift right by 150 - e (> 23) */
    p = (uint64_t)(frac | 1u << 23) * max;
    sh = 150 - e;
    if (sh >= 64) {
        return 0;
    }
    return (p + (1ull << (sh - 1))) >> sh;
}

/*
 * fp32 to a signed normalised integer of @n bits, zero-extended in the
 * lane: round(a * (2^(n-1) - 1)), halves away from zero.  Magnitudes of
 * 1.0 and above saturate to +-(2^(n-1) - 1) (so -1, never the most
 * negative code); +inf and NaNs of either sign give the positive limit,
 * -inf the negative one; zeros and subnormals 0.
 */
static uint32_t f32_to_snorm(uint32_t a, unsigned n)
{
    int e = extract32(a, 23, 8);
    uint32_t frac = extract32(a, 0, 23), max = (1u << (n - 1)) - 1;
    bool neg = a & F32_SIGN;
    uint64_t p;
    uint32_t r;
    int sh;

    if (e == 0) {
        return 0;
    }
    if (e >= 127) {
        r = neg && !(e == 0xff && frac) ? -max : max;
        return extract32(r, 0, n);
    }
    p = (uint64_t)(frac | 1u << 23) * max;
    sh = 150 - e;
    r = sh >= 64 ? 0 : (p + (1ull << (sh - 1))) >> sh;
    return extract32(neg ? -r : r, 0, n);
}

/*
 * unorm to fp32: v / (2^n - 1) rounded once by @s.  Both operands of the
 * division are exact in fp32 (n <= 24) and the quotient is never dyadic
 * (for 0 < v < 2^n - 1), so this is the correctly rounded value, as the
 * simulator's repeated-bits expansion is.
 */
static uint32_t unorm_to_f32(uint32_t v, unsigned n, float_status *s)
{
    uint32_t max = (1u << n) - 1;

    v &= max;
    if (v == max) {
        return F32_ONE;
    }
    return float32_div(uint32_to_float32(v, s), uint32_to_float32(max, s), s);
}

/* snorm to fp32: v / (2^(n-1) - 1), the most negative code giving -1. */
static uint32_t snorm_to_f32(uint32_t v, unsigned n, float_status *s)
{
    int32_t x = sextract32(v, 0, n), max = (1 << (n - 1)) - 1;

    x = MAX(x, -max);
    if (x == max || x == -max) {
        return x < 0 ? F32_SIGN | F32_ONE : F32_ONE;
    }
    return float32_div(int32_to_float32(x, s), int32_to_float32(max, s), s);
}

/* ---- rasteriser fixed point ----------------------------------------- */

/*
 * fcvt.rast.ps: fp32 to 17.14 fixed point as the hardware does it,
 * a * 2^14 + 0.5 rounded to fp32 by frm, then to an integer by frm,
 * saturating.  NaNs, zeros, subnormals and magnitudes of 2^114 and above
 * (infinities too) give 0.
 */
static uint32_t f32_to_rast(uint32_t a, float_status *s)
{
    uint32_t mag = a & ~F32_SIGN;

    if (mag > 0x7f800000u || extract32(a, 23, 8) == 0 ||
        mag >= 0x78800000u) {
        return 0;
    }
    /* exponent + 14: exact, and at most 254 here */
    return float32_to_int32(float32_add(a + (14u << 23), 0x3f000000u, s), s);
}

/* fcvt.ps.rast: 15.16 fixed point to fp32, rounded by frm */
static uint32_t rast_to_f32(uint32_t a, float_status *s)
{
    uint32_t r = int32_to_float32(a, s);

    /* any non-zero result is at least 1.0: exponent - 16 stays normal */
    return r ? r - (16u << 23) : 0;
}

/*
 * @m rounded to 53 significant bits, nearest even: what holding it in a
 * binary64 keeps.
 */
static uint64_t round53(uint64_t m)
{
    int sh = 64 - clz64(m) - 53;
    uint64_t keep, rem, half;

    if (m == 0 || sh <= 0) {
        return m;
    }
    keep = m >> sh;
    rem = m & ((1ull << sh) - 1);
    half = 1ull << (sh - 1);
    if (rem > half || (rem == half && (keep & 1))) {
        keep++;
    }
    return keep << sh;
}

/* the same for a signed value; -2^63 comes back as itself */
static int64_t sround53(int64_t v)
{
    return v < 0 ? (int64_t)-round53(-(uint64_t)v) : (int64_t)round53(v);
}

/*
 * frcp.fix.rast: one Newton-Raphson step for a reciprocal, a in 15.16,
 * the estimate b in 17.14: b (2 - a b) in 17.14.  The simulator computes
 * it in binary64, which the integer form here repeats exactly:
 *
 *   p = 2ab rounded to 53 bits, kept modulo 2^32 (the unsigned 32-bit
 *       conversion of an x86-64 host: the low half of a 64-bit one);
 *   r = b (2^32 - p) rounded to 53 bits, / 2^31 truncated toward zero;
 *       a result outside int32 is 0x80000000 (x86-64's invalid integer).
 *
 * Without those roundings (|ab| and |b (2^32 - p)| below 2^53) this is
 * trunc(b (2^32 - 2ab) / 2^31).  frm is checked but not used.
 */
static uint32_t frcp_fix_rast(uint32_t a, uint32_t b)
{
    int64_t ab = (int64_t)(int32_t)a * (int32_t)b;
    uint32_t p = (uint32_t)((uint64_t)sround53(ab) << 1);
    int64_t q = (1ll << 32) - p;
    int64_t r = sround53((int64_t)(int32_t)b * q) / (1ll << 31);

    return r > INT32_MAX || r < INT32_MIN ? 0x80000000u : (uint32_t)r;
}

/* ---- cube maps ------------------------------------------------------ */

/*
 * cubeface.ps: the major axis from two "is it" bits, fd's own lane
 * choosing between the answers: fd[0] ? (b[0] ? 0 : 1) : (a[0] ? 0 : 2).
 * cubefaceidx.ps: face 2 a[1:0] + sign(b) as an fp32 number, a[1:0] = 3
 * the default NaN.  cubesgnsc/cubesgntc.ps: b with its sign forced by the
 * face a[2:0] (sc: negative on faces 0 and 5; tc: positive on face 2
 * only), any b (NaN, subnormal) kept bit for bit.
 */
static uint32_t gfx_cube(Etsoc1Op op, uint32_t d, uint32_t a, uint32_t b,
                         float_status *s)
{
    unsigned face;

    switch (op) {
    case ET_OP_CUBEFACE_PS:
        return (d & 1) ? !(b & 1) : (a & 1) ? 0 : 2;
    case ET_OP_CUBEFACEIDX_PS:
        face = a & 3;
        return face == 3 ? 0x7fc00000u
                         : uint32_to_float32(2 * face + (b >> 31), s);
    case ET_OP_CUBESGNSC_PS:
        face = a & 7;
        return face == 0 || face == 5 ? b | F32_SIGN : b & ~F32_SIGN;
    default:                                    /* cubesgntc.ps */
        return (a & 7) == 2 ? b & ~F32_SIGN : b | F32_SIGN;
    }
}

/* ---- dispatch -------------------------------------------------------- */

typedef enum {
    GFX_TO_F32 = 1,     /* fcvt.ps.<fmt>: the low part of a lane to fp32 */
    GFX_FROM_F32,       /* fcvt.<fmt>.ps */
    GFX_RAST_TO_F32,    /* fcvt.ps.rast */
    GFX_F32_TO_RAST,    /* fcvt.rast.ps */
    GFX_RCP_FIX,        /* frcp.fix.rast */
    GFX_CUBE,           /* cubeface, cubefaceidx, cubesgnsc, cubesgntc.ps */
} GfxKind;

/* The formats of GFX_TO_F32 and GFX_FROM_F32 */
typedef enum { FMT_SMALL = 1, FMT_UNORM, FMT_SNORM } GfxFmt;

/*
 * One row per graphics op with an f register result.  .frm: frm must hold
 * a mode, for the instructions the simulator sets one for, even where
 * (f10/f11, frcp.fix.rast) nothing rounds by it.
 */
typedef struct {
    uint8_t kind;       /* GfxKind */
    uint8_t fmt;        /* GfxFmt */
    uint8_t bits;       /* the format's width; FMT_SMALL: mantissa bits */
    bool frm;
} GfxOp;

#define GFX_TO(fmt, bits, frm)      { GFX_TO_F32, fmt, bits, frm }
#define GFX_FROM(fmt, bits, frm)    { GFX_FROM_F32, fmt, bits, frm }

static const GfxOp gfx_ops[ET_OP__COUNT] = {
    [ET_OP_FCVT_RAST_PS] = { GFX_F32_TO_RAST, .frm = true },
    [ET_OP_FCVT_PS_RAST] = { GFX_RAST_TO_F32, .frm = true },
    [ET_OP_FCVT_PS_F10] = GFX_TO(FMT_SMALL, 5, false),
    [ET_OP_FCVT_PS_F11] = GFX_TO(FMT_SMALL, 6, false),
    [ET_OP_FCVT_PS_UN24] = GFX_TO(FMT_UNORM, 24, true),
    [ET_OP_FCVT_PS_UN16] = GFX_TO(FMT_UNORM, 16, true),
    [ET_OP_FCVT_PS_UN10] = GFX_TO(FMT_UNORM, 10, true),
    [ET_OP_FCVT_PS_UN8] = GFX_TO(FMT_UNORM, 8, true),
    [ET_OP_FCVT_PS_UN2] = GFX_TO(FMT_UNORM, 2, true),
    [ET_OP_FCVT_PS_SN16] = GFX_TO(FMT_SNORM, 16, false),
    [ET_OP_FCVT_PS_SN8] = GFX_TO(FMT_SNORM, 8, false),
    [ET_OP_FCVT_F11_PS] = GFX_FROM(FMT_SMALL, 6, true),
    [ET_OP_FCVT_F10_PS] = GFX_FROM(FMT_SMALL, 5, true),
    [ET_OP_FCVT_UN24_PS] = GFX_FROM(FMT_UNORM, 24, false),
    [ET_OP_FCVT_UN16_PS] = GFX_FROM(FMT_UNORM, 16, false),
    [ET_OP_FCVT_UN10_PS] = GFX_FROM(FMT_UNORM, 10, false),
    [ET_OP_FCVT_UN8_PS] = GFX_FROM(FMT_UNORM, 8, false),
    [ET_OP_FCVT_UN2_PS] = GFX_FROM(FMT_UNORM, 2, false),
    [ET_OP_FCVT_SN16_PS] = GFX_FROM(FMT_SNORM, 16, false),
    [ET_OP_FCVT_SN8_PS] = GFX_FROM(FMT_SNORM, 8, false),
    [ET_OP_FRCP_FIX_RAST] = { GFX_RCP_FIX, .frm = true },
    [ET_OP_CUBEFACE_PS] = { GFX_CUBE },
    [ET_OP_CUBEFACEIDX_PS] = { GFX_CUBE },
    [ET_OP_CUBESGNSC_PS] = { GFX_CUBE },
    [ET_OP_CUBESGNTC_PS] = { GFX_CUBE },
};

/*
 * The input of a conversion to fp32: the low byte, half or 24 bits of the
 * lane, whichever holds the format (a small float has 5 exponent bits).
 */
static uint32_t gfx_in_bits(const GfxOp *g)
{
    unsigned w = g->fmt == FMT_SMALL ? 5 + g->bits : g->bits;

    return MAKE_64BIT_MASK(0, ROUND_UP(w, 8));
}

bool etsoc1_vpu_gfx(CPURISCVState *env, Etsoc1Op op, uint32_t insn,
                    uintptr_t ra)
{
    Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(env_archcpu(env));
    const GfxOp *g = &gfx_ops[op];
    unsigned rs2 = FIELD_EX32(insn, VINSN, RS2);
    unsigned rd = FIELD_EX32(insn, VINSN, RD);
    unsigned rs1 = FIELD_EX32(insn, VINSN, RS1);
    uint8_t active = cpu->et->m[0];
    float_status s;
    uint32_t a, b, d, r;
    unsigned e;

    if (!g->kind) {
        return false;
    }
    gfx_require(env, insn, ra);
    s = gfx_status(env, insn, g->frm, ra);
    for (e = 0; e < NL; e++) {
        if (!(active & (1u << e))) {
            continue;
        }
        a = etsoc1_flane(env, rs1, e);
        b = etsoc1_flane(env, rs2, e);
        d = etsoc1_flane(env, rd, e);
        switch (g->kind) {
        case GFX_RCP_FIX:
            r = frcp_fix_rast(a, b);
            break;
        case GFX_CUBE:
            r = gfx_cube(op, d, a, b, &s);
            break;
        case GFX_F32_TO_RAST:
            r = f32_to_rast(a, &s);
            break;
        case GFX_RAST_TO_F32:
            r = rast_to_f32(a, &s);
            break;
        case GFX_FROM_F32:
            r = g->fmt == FMT_SMALL ? f32_to_small(a, g->bits) :
                g->fmt == FMT_UNORM ? f32_to_unorm(a, g->bits) :
                f32_to_snorm(a, g->bits);
            break;
        default:
            a &= gfx_in_bits(g);
            r = g->fmt == FMT_SMALL ? small_to_f32(a, g->bits) :
                g->fmt == FMT_UNORM ? unorm_to_f32(a, g->bits, &s) :
                snorm_to_f32(a, g->bits, &s);
            break;
        }
        /* a lane reads only its own lanes: writing it now is safe */
        etsoc1_set_flane(env, rd, e, r);
    }
    return true;
}

/*
 * maskpopc.rast: x[rd] = popcount(m[ms1] & k) + popcount(m[ms2] & k), ms1
 * in [17:15], ms2 in [22:20]; k by [24:23]:[19:18]: 0 -> 0x0f, 1 -> 0x3c,
 * 2 -> 0xf0, anything else 0xff (the lanes of a 2x2 quad pair).
 */
uint64_t etsoc1_maskpopc_rast(CPURISCVState *env, uint32_t insn,
                              uintptr_t ra)
{
    Etsoc1HartEt *et = ETSOC1_MINION_CPU(env_archcpu(env))->et;
    unsigned sel = extract32(insn, 18, 2) | extract32(insn, 23, 2) << 2;
    uint8_t k = sel == 0 ? 0x0f : sel == 1 ? 0x3c : sel == 2 ? 0xf0 : 0xff;

    gfx_require(env, insn, ra);
    return ctpop8(et->m[extract32(insn, 15, 3)] & k) +
           ctpop8(et->m[extract32(insn, 20, 3)] & k);
}
