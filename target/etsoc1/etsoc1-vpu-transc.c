/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ET-Minion's approximate transcendentals fexp.ps (2^x), flog.ps
 * (log2 x) and frcp.ps (1/x), one lane each (docs/isa.md).
 *
 * The chip computes them with ROM tables and a short polynomial: within
 * 1 ulp of the exact value (flog up to 2 ulp, toward zero).  Those tables
 * are Esperanto's and not ours to copy, so the value here is the exact
 * function correctly rounded to nearest even: the last bit can differ
 * from silicon.  The special cases and flags are the chip's exactly.
 *
 * The value is computed in binary128 with softfloat, never the host's
 * libm, so that every host gives the same bits.  Before its one rounding
 * to binary32 it is within 2^-100 of the exact value, relative (113-bit
 * arithmetic, series cut below 2^-120): far closer than any binary32
 * result of these functions comes to a rounding boundary, so that
 * rounding is correct.  The arithmetic runs in a scratch float_status:
 * these instructions never raise inexact, underflow or overflow, and
 * ignore frm.
 */

#include "qemu/osdep.h"
#include "fpu/softfloat.h"
#include "target/riscv/etsoc1/etsoc1-isa.h"

#define F32_SIGN    0x80000000u
#define F32_ONE     0x3f800000u
#define F32_INF     0x7f800000u

/* ln 2 rounded to binary128 */
#define F128_LN2    make_float128(0x3ffe62e42fefa39eULL, 0xf35793c7673007e6ULL)
#define F128_ONE    make_float128(0x3fff000000000000ULL, 0)

/*
 * Terms of the series, so that the first one left out is below 2^-120 of
 * the sum: e^t's t^25/25! for |t| <= ln2/2, and atanh z's z^49/49 for
 * |z| <= 3 - 2 sqrt(2).
 */
#define EXP_TERMS   24
#define LOG_TERMS   23

static float_status transc_status(void)
{
    float_status s = { .float_rounding_mode = float_round_nearest_even };

    return s;
}

/*
 * The series' coefficients, 1/k! and 1/(2k + 1), and 1/ln2: computed once
 * so that a lane costs multiply-adds, not a division per term.
 */
static float128 exp_coef[EXP_TERMS + 1], log_coef[LOG_TERMS + 1], inv_ln2;

static void transc_init(void)
{
    static gsize done;
    float_status s = transc_status();
    int k;

    if (!g_once_init_enter(&done)) {
        return;
    }
    exp_coef[0] = F128_ONE;
    for (k = 1; k <= EXP_TERMS; k++) {
        exp_coef[k] = float128_div(exp_coef[k - 1],
                                   int32_to_float128(k, &s), &s);
    }
    for (k = 0; k <= LOG_TERMS; k++) {
        log_coef[k] = float128_div(F128_ONE,
                                   int32_to_float128(2 * k + 1, &s), &s);
    }
    inv_ln2 = float128_div(F128_ONE, F128_LN2, &s);
    g_once_init_leave(&done, 1);
}

/*
 * The common front of the three: NaNs give the default NaN (invalid for a
 * signalling one); a subnormal reads as a zero of its sign and raises the
 * denormal flag, as every minion FP operand does.  Returns true when
 * *@r is the NaN result, else *@a is the operand to use.
 */
static bool transc_operand(uint32_t *a, uint32_t *r, float_status *st)
{
    if (float32_is_any_nan(*a)) {
        if (float32_is_signaling_nan(*a, st)) {
            float_raise(float_flag_invalid, st);
        }
        *r = float32_default_nan(st);
        return true;
    }
    if (float32_is_zero_or_denormal(*a) && !float32_is_zero(*a)) {
        float_raise(float_flag_input_denormal, st);
        *a &= F32_SIGN;
    }
    return false;
}

/* fexp.ps: 2^a */
uint32_t etsoc1_fexp(uint32_t a, float_status *st)
{
    float_status s = transc_status();
    float128 x, n, t, p;
    uint32_t r;
    int k;

    if (transc_operand(&a, &r, st)) {
        return r;
    }
    if (a > 0xc2fc0000u) {          /* below -126, -inf too: no UF, NX */
        return 0;
    }
    if (a >= 0x43000000u && a <= F32_INF) {   /* 128 and up: no OF, NX */
        return F32_INF;
    }
    /* 2^a = 2^n * e^t, n = round(a), t = (a - n) ln2, |t| <= ln2/2 */
    x = float32_to_float128(a, &s);
    n = float128_round_to_int(x, &s);
    t = float128_mul(float128_sub(x, n, &s), F128_LN2, &s);
    transc_init();
    p = exp_coef[EXP_TERMS];
    for (k = EXP_TERMS - 1; k >= 0; k--) {
        p = float128_muladd(p, t, exp_coef[k], 0, &s);
    }
    p = float128_scalbn(p, float128_to_int32(n, &s), &s);
    /* in [2^-126, 2^128): always normal */
    return float128_to_float32(p, &s);
}

/* flog.ps: log2 a */
uint32_t etsoc1_flog(uint32_t a, float_status *st)
{
    float_status s = transc_status();
    float128 m, z, z2, q;
    uint32_t r, frac;
    int e, k;

    if (transc_operand(&a, &r, st)) {
        return r;
    }
    if (float32_is_zero(a)) {
        return F32_SIGN | F32_INF;          /* -inf without divide by zero */
    }
    if (a & F32_SIGN) {
        float_raise(float_flag_invalid, st);
        return float32_default_nan(st);
    }
    if (a == F32_INF) {
        return F32_INF;
    }
    /*
     * a = 2^e m with m in [sqrt(2)/2, sqrt(2)], so that log2 m is at most
     * 1/2 and e + log2 m never cancels; 0x3504f3 is sqrt(2)'s fraction
     * truncated, and no binary32 lies between it and sqrt(2).
     */
    e = extract32(a, 23, 8) - 127;
    frac = extract32(a, 0, 23);
    if (frac > 0x3504f3) {
        m = float32_to_float128(0x3f000000u | frac, &s);
        e++;
    } else {
        m = float32_to_float128(F32_ONE | frac, &s);
    }
    /* ln m = 2 atanh z = 2 (z + z^3/3 + z^5/5 + ...), z = (m-1)/(m+1) */
    z = float128_div(float128_sub(m, F128_ONE, &s),
                     float128_add(m, F128_ONE, &s), &s);
    z2 = float128_mul(z, z, &s);
    transc_init();
    q = log_coef[LOG_TERMS];
    for (k = LOG_TERMS - 1; k >= 0; k--) {
        q = float128_muladd(q, z2, log_coef[k], 0, &s);
    }
    q = float128_mul(float128_mul(float128_scalbn(z, 1, &s), q, &s),
                     inv_ln2, &s);
    /* log2 1 = +0: +0 + +0 */
    return float128_to_float32(float128_add(int32_to_float128(e, &s), q, &s),
                               &s);
}

/* frcp.ps: 1/a */
uint32_t etsoc1_frcp(uint32_t a, float_status *st)
{
    float_status s = transc_status();
    uint32_t r, sign = a & F32_SIGN;

    if (transc_operand(&a, &r, st)) {
        return r;
    }
    if (float32_is_zero(a)) {
        float_raise(float_flag_divbyzero, st);
        return sign | F32_INF;
    }
    /* infinities and |a| > 2^126: a zero of a's sign, no UF or NX */
    if ((a & ~F32_SIGN) > 0x7e800000u) {
        return sign;
    }
    /* one rounding: correctly rounded, and normal (at least 2^-126) */
    return float32_div(F32_ONE, a, &s);
}
