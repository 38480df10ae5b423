# SPDX-License-Identifier: GPL-2.0-or-later
"""A reference for RISC-V single-precision arithmetic, written for the
tests: exact rational arithmetic, then rounding to binary32 in each RISC-V
rounding mode, with the RISC-V exception flags and NaN rules (any NaN
result is the canonical 0x7fc00000; tininess is detected after rounding).
Independent of QEMU's softfloat.

The operations in OPS model the minion FPU, which flushes subnormals
(docs/isa.md): a subnormal operand reads as a zero of its sign (daz) and
raises the minion's denormal flag (DN), a
result that is tiny after rounding becomes a zero of its sign with UF and NX
(ftz); sign injection and fclass read them as they are.  F() and
round_f32() are plain IEEE unless asked.  The conversions to integers
follow RISC-V's rules (f32_to_int()).

The approximate transcendentals (fexp, flog, frcp) accept any result
within 1 ulp of the exact value: their expected result is a frozenset of
the acceptable bit patterns (see accepts()).  Their special cases and all
flags are exact.

Flags: NV 0x10, DZ 0x08, OF 0x04, UF 0x02, NX 0x01.
Rounding modes: 0 RNE, 1 RTZ, 2 RDN, 3 RUP, 4 RMM.
"""
from decimal import Decimal, localcontext
from fractions import Fraction
from math import isqrt

NV, DZ, OF, UF, NX = 0x10, 0x08, 0x04, 0x02, 0x01
QNAN = 0x7fc00000
MIN_NORMAL = Fraction(1, 2 ** 126)
MAX_FINITE = Fraction(2 ** 24 - 1) * 2 ** 104


class F:
    """A decoded binary32: kind 'nan' (snan flag), 'inf' or 'num'."""

    def __init__(self, bits, daz=False):
        if daz and not (bits >> 23) & 0xff:
            bits &= 0x80000000
        self.bits = bits
        self.neg = bool(bits >> 31)
        exp, man = (bits >> 23) & 0xff, bits & 0x7fffff
        if exp == 0xff:
            self.kind = 'nan' if man else 'inf'
            self.snan = bool(man) and not (man >> 22)
        else:
            self.kind = 'num'
            self.snan = False
            mag = Fraction(man, 2 ** 149) if exp == 0 else \
                Fraction(man | 1 << 23, 2 ** 150) * 2 ** exp
            self.val = -mag if self.neg else mag

    def is_zero(self):
        return self.kind == 'num' and self.val == 0


def _round_int(q, rm, neg):
    """Round the non-negative Fraction q to an integer (magnitude)."""
    fl = q.numerator // q.denominator
    rem = q - fl
    if rem == 0:
        return fl
    if rm == 0:
        return fl + 1 if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2) else fl
    if rm == 1:
        return fl
    if rm == 2:
        return fl + 1 if neg else fl
    if rm == 3:
        return fl if neg else fl + 1
    return fl + 1 if rem >= Fraction(1, 2) else fl


def _exp2_floor(a):
    """e with 2**e <= a < 2**(e+1), for a Fraction a > 0."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    elif Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def round_float(x, rm, m=23, emax=127, zero_neg=False, ftz=False):
    """(bits, flags) of the exact value x rounded to the IEEE binary format
    with m fraction bits and maximum exponent emax (binary32: 23, 127;
    binary16: 10, 15)."""
    emin = 1 - emax
    sign = 1 << (m + emax.bit_length() + 1)
    inf = (2 * emax + 1) << m
    min_normal = Fraction(2) ** emin
    max_finite = Fraction(2 ** (m + 1) - 1) * Fraction(2) ** (emax - m)
    if x == 0:
        return (sign if zero_neg else 0), 0
    neg = x < 0
    a = -x if neg else x
    e = _exp2_floor(a)
    # unbounded exponent, m+1-bit significand: tininess after rounding
    q = _round_int(a / Fraction(2) ** (e - m), rm, neg)
    tiny = q * Fraction(2) ** (e - m) < min_normal
    if ftz and tiny:
        return (sign if neg else 0), UF | NX
    # the real format: subnormal resolution 2**(emin - m)
    step = max(e - m, emin - m)
    q = _round_int(a / Fraction(2) ** step, rm, neg)
    r = q * Fraction(2) ** step
    flags = NX if r != a else 0
    if r > max_finite:
        flags |= OF | NX
        to_inf = rm in (0, 4) or (rm == 2 and neg) or (rm == 3 and not neg)
        bits = inf if to_inf else inf - 1
        return bits | (sign if neg else 0), flags
    if tiny and flags & NX:
        flags |= UF
    if r == 0:
        return (sign if neg else 0), flags
    e = _exp2_floor(r)
    if e < emin:
        bits = int(r / Fraction(2) ** (emin - m))
    else:
        bits = (e + emax) << m | (int(r / Fraction(2) ** (e - m)) - (1 << m))
    return bits | (sign if neg else 0), flags


def round_f32(x, rm, zero_neg=False, ftz=False):
    """(bits, flags) of the exact value x rounded to binary32."""
    return round_float(x, rm, 23, 127, zero_neg, ftz)


def _nan_in(*ops):
    """The NaN result and flags if any operand is a NaN, else None."""
    if any(o.kind == 'nan' for o in ops):
        return QNAN, NV if any(o.snan for o in ops) else 0
    return None


def add(a, b, rm, negate_b=False):
    a, b = F(a, daz=True), F(b, daz=True)
    r = _nan_in(a, b)
    if r:
        return r
    bneg = b.neg != negate_b
    if a.kind == 'inf' or b.kind == 'inf':
        if a.kind == 'inf' and b.kind == 'inf' and a.neg != bneg:
            return QNAN, NV
        neg = a.neg if a.kind == 'inf' else bneg
        return 0x7f800000 | neg << 31, 0
    bv = -b.val if negate_b else b.val
    s = a.val + bv
    if s == 0:
        # exact zero: -0 only for (-0) + (-0), or any zero sum under RDN
        both_neg = a.is_zero() and b.is_zero() and a.neg and bneg
        return round_f32(s, rm, ftz=True, zero_neg=both_neg or
                         (rm == 2 and not (a.is_zero() and b.is_zero() and
                                           not a.neg and not bneg)))
    return round_f32(s, rm, ftz=True)


def mul(a, b, rm):
    a, b = F(a, daz=True), F(b, daz=True)
    r = _nan_in(a, b)
    if r:
        return r
    neg = a.neg != b.neg
    if a.kind == 'inf' or b.kind == 'inf':
        if a.is_zero() or b.is_zero():
            return QNAN, NV
        return 0x7f800000 | neg << 31, 0
    return round_f32(a.val * b.val, rm, zero_neg=neg, ftz=True)


def div(a, b, rm):
    a, b = F(a, daz=True), F(b, daz=True)
    r = _nan_in(a, b)
    if r:
        return r
    neg = a.neg != b.neg
    if a.kind == 'inf':
        return (QNAN, NV) if b.kind == 'inf' else (0x7f800000 | neg << 31, 0)
    if b.kind == 'inf':
        return neg << 31, 0
    if b.is_zero():
        return (QNAN, NV) if a.is_zero() else (0x7f800000 | neg << 31, DZ)
    return round_f32(a.val / b.val, rm, zero_neg=neg, ftz=True)


def sqrt(a, rm):
    a = F(a, daz=True)
    r = _nan_in(a)
    if r:
        return r
    if a.is_zero():
        return a.bits, 0
    if a.neg:
        return QNAN, NV
    if a.kind == 'inf':
        return 0x7f800000, 0
    k = 200     # sqrt(a) to 200 fractional bits; exact, or strictly between
    n = a.val * 4 ** k
    root = isqrt(n.numerator // n.denominator)
    if Fraction(root) ** 2 == n:
        return round_f32(Fraction(root, 2 ** k), rm, ftz=True)
    return round_f32(Fraction(2 * root + 1, 2 ** (k + 1)), rm, ftz=True)


def fma(a, b, c, rm, negate_product=False, negate_c=False):
    a, b, c = F(a, daz=True), F(b, daz=True), F(c, daz=True)
    if (a.kind == 'inf' and b.is_zero()) or (b.kind == 'inf' and a.is_zero()):
        return QNAN, NV
    r = _nan_in(a, b, c)
    if r:
        return r
    pneg = (a.neg != b.neg) != negate_product
    cneg = c.neg != negate_c
    if a.kind == 'inf' or b.kind == 'inf':
        if c.kind == 'inf' and cneg != pneg:
            return QNAN, NV
        return 0x7f800000 | pneg << 31, 0
    if c.kind == 'inf':
        return 0x7f800000 | cneg << 31, 0
    p = a.val * b.val * (-1 if negate_product else 1)
    cv = -c.val if negate_c else c.val
    s = p + cv
    if s == 0:
        pzero_neg = pneg if p == 0 else None
        czero = c.is_zero()
        both_neg = p == 0 and czero and pneg and cneg
        all_pos_zero = p == 0 and czero and not pneg and not cneg
        return round_f32(s, rm, ftz=True,
                         zero_neg=both_neg or (rm == 2 and not all_pos_zero))
    return round_f32(s, rm, ftz=True)


def round_to_int(a, rm):
    """fround.ps: to an integral value in rm; NX when not already one."""
    f = F(a, daz=True)
    if f.kind == 'nan':
        return QNAN, NV if f.snan else 0
    if f.kind == 'inf':
        return a, 0
    mag = abs(f.val)
    q = _round_int(mag, rm, f.neg)
    return round_f32(-q if f.neg else Fraction(q), rm, zero_neg=f.neg)[0], \
        (NX if q != mag else 0)


def frac(a):
    """ffrc.ps: a - trunc(a), sign of a; infinities give a signed zero."""
    f = F(a, daz=True)
    if f.kind == 'nan':
        return QNAN, NV if f.snan else 0
    if f.kind == 'inf':
        return a & 0x80000000, 0
    mag = abs(f.val)
    r = mag - mag.numerator // mag.denominator
    return round_f32(-r if f.neg else r, 0, zero_neg=f.neg)


def f32_to_f16(a, rm):
    """fcvt.f16.ps: binary32 to binary16 (canonical NaN 0x7e00)."""
    f = F(a, daz=True)
    if f.kind == 'nan':
        return 0x7e00, NV if f.snan else 0
    if f.kind == 'inf':
        return 0x7c00 | f.neg << 15, 0
    return round_float(f.val, rm, 10, 15, zero_neg=f.neg, ftz=True)


def f16_to_f32(h):
    """fcvt.ps.f16: the low 16 bits as binary16, exactly to binary32."""
    neg, exp, man = h >> 15 & 1, h >> 10 & 0x1f, h & 0x3ff
    if exp == 0:
        man = 0                                 # daz
    if exp == 0x1f:
        if man:
            return QNAN, 0 if man >> 9 else NV
        return 0x7f800000 | neg << 31, 0
    mag = Fraction(man, 2 ** 24) if exp == 0 else \
        Fraction(man | 1 << 10, 2 ** 25) * 2 ** exp
    return round_f32(-mag if neg else mag, 0, zero_neg=bool(neg))


def minmax(a, b, is_max):
    """IEEE 754-2019 minimumNumber / maximumNumber (RISC-V fmin/fmax) of
    the operands with subnormals read as zero."""
    fa, fb = F(a, daz=True), F(b, daz=True)
    a, b = fa.bits, fb.bits
    flags = NV if fa.snan or fb.snan else 0
    if fa.kind == 'nan' and fb.kind == 'nan':
        return QNAN, flags
    if fa.kind == 'nan':
        return b, flags
    if fb.kind == 'nan':
        return a, flags

    def key(f):
        return (_ordered(f), 0 if f.neg else 1)     # -0 below +0
    pick_a = key(fa) >= key(fb) if is_max else key(fa) <= key(fb)
    return (a if pick_a else b), flags


def _ordered(f):
    """The value of the non-NaN F f, infinities beyond every finite one."""
    if f.kind == 'inf':
        return -2 * MAX_FINITE if f.neg else 2 * MAX_FINITE
    return f.val


def sgnj(a, b, kind):
    """fsgnj/fsgnjn/fsgnjx.ps (kind 0/1/2): a with the sign of b, of not b
    or of a xor b; the bits as they are (subnormals and NaNs kept), no
    flags."""
    sign = (b, ~b, a ^ b)[kind] & 0x80000000
    return (a & 0x7fffffff) | sign, 0


def compare(a, b, kind):
    """fle/flt/feq.ps (kind 'le', 'lt', 'eq'): (True or False, flags) of
    the operands with subnormals read as zero; a NaN compares false and
    raises NV for le and lt, for eq only if it is signalling."""
    fa, fb = F(a, daz=True), F(b, daz=True)
    if fa.kind == 'nan' or fb.kind == 'nan':
        nv = kind != 'eq' or fa.snan or fb.snan
        return False, NV if nv else 0
    x, y = _ordered(fa), _ordered(fb)
    return {'le': x <= y, 'lt': x < y, 'eq': x == y}[kind], 0


def fclass(a):
    """fclass.ps: the RISC-V class bit, subnormals as they are, no flags:
    0 -inf, 1 -normal, 2 -subnormal, 3 -0, 4 +0, 5 +subnormal, 6 +normal,
    7 +inf, 8 signalling NaN, 9 quiet NaN."""
    f = F(a)
    if f.kind == 'nan':
        return 1 << (8 if f.snan else 9), 0
    if f.kind == 'inf':
        bit = 0
    elif f.val == 0:
        bit = 3
    elif not (a >> 23) & 0xff:
        bit = 2
    else:
        bit = 1
    return 1 << (bit if f.neg else 7 - bit), 0


def f32_to_int(a, rm, signed):
    """fcvt.pw.ps / fcvt.pwu.ps: binary32 to int32 / uint32 (the lane's
    bits) rounded by rm, by RISC-V's rules: NX if inexact; NV alone for a
    NaN (the largest integer), an infinity or a rounded value out of
    range (the bound on its side); a subnormal reads as zero."""
    lo, hi = (-2 ** 31, 2 ** 31 - 1) if signed else (0, 2 ** 32 - 1)
    f = F(a, daz=True)
    if f.kind == 'nan':
        return hi, NV
    bound = (lo if f.neg else hi) & 0xffffffff
    if f.kind == 'inf':
        return bound, NV
    mag = abs(f.val)
    q = _round_int(mag, rm, f.neg)
    r = -q if f.neg else q
    if not lo <= r <= hi:
        return bound, NV
    return r & 0xffffffff, NX if q != mag else 0


def int_to_f32(x, rm, signed):
    """fcvt.ps.pw / fcvt.ps.pwu: the lane as int32 / uint32, rounded to
    binary32 by rm (NX if inexact; +0 for 0)."""
    v = x - (1 << 32) if signed and x >> 31 else x
    return round_f32(Fraction(v), rm)


def _within_ulp(x):
    """The binary32 results within 1 ulp of the non-zero real x, which
    must be exact or within 10**-50 of exact: the values on either side
    of x, or x alone if it is one."""
    return frozenset((round_f32(x, 2)[0], round_f32(x, 3)[0]))


def _decimal(x):
    """The Fraction x as a Decimal to the context's precision."""
    return Decimal(x.numerator) / Decimal(x.denominator)


def exp2(a):
    """fexp.ps: 2**a; below -126 +0, from 128 up +inf, no NX/UF/OF."""
    f = F(a, daz=True)
    if f.kind == 'nan':
        return QNAN, NV if f.snan else 0
    if f.bits > 0xc2fc0000:
        return 0, 0
    if f.kind == 'inf' or f.val >= 128:
        return 0x7f800000, 0
    if f.val.denominator == 1:
        return _within_ulp(Fraction(2) ** int(f.val)), 0
    with localcontext() as ctx:
        ctx.prec = 60
        v = (_decimal(f.val) * Decimal(2).ln()).exp()
    return _within_ulp(Fraction(v)), 0


def log2(a):
    """flog.ps: log2(a); log2(+-0) = -inf without DZ."""
    f = F(a, daz=True)
    if f.kind == 'nan':
        return QNAN, NV if f.snan else 0
    if f.is_zero():
        return 0xff800000, 0
    if f.neg:
        return QNAN, NV
    if f.kind == 'inf':
        return 0x7f800000, 0
    x = f.val
    if x.numerator & (x.numerator - 1) == 0 and \
            x.denominator & (x.denominator - 1) == 0:
        k = x.numerator.bit_length() - x.denominator.bit_length()
        return round_f32(Fraction(k), 0)[0], 0         # log2(1) = +0
    with localcontext() as ctx:
        ctx.prec = 60
        v = _decimal(x).ln() / Decimal(2).ln()
    return _within_ulp(Fraction(v)), 0


def rcp(a):
    """frcp.ps: 1/a; |a| > 2**126 gives a signed zero without UF/NX."""
    f = F(a, daz=True)
    if f.kind == 'nan':
        return QNAN, NV if f.snan else 0
    if f.is_zero():
        return 0x7f800000 | f.neg << 31, DZ
    if f.kind == 'inf' or abs(f.val) > 2 ** 126:
        return f.neg << 31, 0
    return _within_ulp(1 / f.val), 0


# the operations whose results may be any within 1 ulp
APPROX = ('fexp', 'flog', 'frcp')


def accepts(want, bits, flags):
    """Whether (bits, flags) is the (result, flags) an OPS entry returned;
    a frozenset result lists every acceptable one."""
    ok = want[0] if isinstance(want[0], frozenset) else (want[0],)
    return bits in ok and flags == want[1]


def show(want):
    """The expected result of an OPS entry, for a message."""
    if isinstance(want[0], frozenset):
        res = ' or '.join(f'{r:08x}' for r in sorted(want[0]))
    else:
        res = f'{want[0]:08x}'
    return f'{res} flags {want[1]:02x}'


DN = 0x20   # fflags bit 31, "a subnormal operand was read as zero",
            # as guest-kernels/isa/vpu_fp prints it


def _dn(result, *ops, f16=False):
    """@result with DN added if any of the operands read is subnormal."""
    m, e = (10, 5) if f16 else (23, 8)
    sub = any(not (x >> m) & ((1 << e) - 1) and x & ((1 << m) - 1)
              for x in ops)
    return result[0], result[1] | (DN if sub else 0)


def _compare_lane(a, b, kind, true):
    """A compare's lane: @true (all ones in f, 1 in a mask bit) or 0."""
    t, flags = compare(a, b, kind)
    return _dn((true if t else 0, flags), a, b)


OPS = {
    'fadd': lambda a, b, c, rm: _dn(add(a, b, rm), a, b),
    'fsub': lambda a, b, c, rm: _dn(add(a, b, rm, negate_b=True), a, b),
    'fmul': lambda a, b, c, rm: _dn(mul(a, b, rm), a, b),
    'fdiv': lambda a, b, c, rm: _dn(div(a, b, rm), a, b),
    'fsqrt': lambda a, b, c, rm: _dn(sqrt(b, rm), b),
    'fmin': lambda a, b, c, rm: _dn(minmax(a, b, False), a, b),
    'fmax': lambda a, b, c, rm: _dn(minmax(a, b, True), a, b),
    'fmadd': lambda a, b, c, rm: _dn(fma(a, b, c, rm), a, b, c),
    'fmsub': lambda a, b, c, rm: _dn(fma(a, b, c, rm, negate_c=True), a, b, c),
    'fnmsub': lambda a, b, c, rm: _dn(fma(a, b, c, rm, negate_product=True),
                                      a, b, c),
    'fnmadd': lambda a, b, c, rm: _dn(fma(a, b, c, rm, negate_product=True,
                                          negate_c=True), a, b, c),
    'fround': lambda a, b, c, rm: _dn(round_to_int(b, rm), b),
    'ffrc': lambda a, b, c, rm: _dn(frac(b), b),
    'fcvt.f16.ps': lambda a, b, c, rm: _dn(f32_to_f16(b, rm), b),
    'fcvt.ps.f16': lambda a, b, c, rm: _dn(f16_to_f32(b & 0xffff), b & 0xffff,
                                           f16=True),
    'fexp': lambda a, b, c, rm: _dn(exp2(b), b),
    'flog': lambda a, b, c, rm: _dn(log2(b), b),
    'frcp': lambda a, b, c, rm: _dn(rcp(b), b),
    'fsgnj': lambda a, b, c, rm: sgnj(a, b, 0),
    'fsgnjn': lambda a, b, c, rm: sgnj(a, b, 1),
    'fsgnjx': lambda a, b, c, rm: sgnj(a, b, 2),
    'fclass': lambda a, b, c, rm: fclass(b),
    'feq': lambda a, b, c, rm: _compare_lane(a, b, 'eq', 0xffffffff),
    'flt': lambda a, b, c, rm: _compare_lane(a, b, 'lt', 0xffffffff),
    'fle': lambda a, b, c, rm: _compare_lane(a, b, 'le', 0xffffffff),
    'feqm': lambda a, b, c, rm: _compare_lane(a, b, 'eq', 1),
    'fltm': lambda a, b, c, rm: _compare_lane(a, b, 'lt', 1),
    'flem': lambda a, b, c, rm: _compare_lane(a, b, 'le', 1),
    'fcvt.pw.ps': lambda a, b, c, rm: _dn(f32_to_int(b, rm, True), b),
    'fcvt.pwu.ps': lambda a, b, c, rm: _dn(f32_to_int(b, rm, False), b),
    'fcvt.ps.pw': lambda a, b, c, rm: int_to_f32(b, rm, True),
    'fcvt.ps.pwu': lambda a, b, c, rm: int_to_f32(b, rm, False),
}

