# SPDX-License-Identifier: GPL-2.0-or-later
"""Reference for the packed graphics instructions (docs/isa.md, "Graphics
instructions"), written for the tests from the documented semantics with
exact rationals (tests/f32ref.py rounds them), not from the C model.
Each function takes lane bits a (fs1), b (fs2), d (fd) and the RISC-V
rounding mode rm (frm), and returns the 32-bit result lane."""

from fractions import Fraction

import f32ref

NAN = 0x7fc00000


def _half_away(q):
    """Round the Fraction q >= 0 to an integer, halves up."""
    return int(q + Fraction(1, 2))


def _small_float(m):
    """fp32 -> unsigned float e5m<m> (f10: m 5, f11: m 6), truncating."""
    def conv(a, b, d, rm):
        f = f32ref.F(a)
        if f.neg or (a >> 23) & 0xff == 0:
            return 0
        if f.kind == 'nan':
            return 31 << m | 1 << (m - 1)
        if f.kind == 'inf':
            return 31 << m
        x = f.val
        if x >= 2 ** 16:
            return 30 << m | (1 << m) - 1
        if x < Fraction(1, 2 ** 14):
            return int(x * 2 ** (14 + m))          # subnormal, truncated
        e = f32ref._exp2_floor(x)
        return (e + 15) << m | int(x / Fraction(2) ** (e - m)) - (1 << m)
    return conv


def _from_small_float(m):
    def conv(a, b, d, rm):
        code = a & (1 << (5 + m)) - 1
        e, frac = code >> m, code & (1 << m) - 1
        if e == 0:
            return 0                                # subnormals flushed
        if e == 31:
            return NAN if frac else 0x7f800000
        return f32ref.round_f32(Fraction((1 << m) + frac, 1 << m) *
                                Fraction(2) ** (e - 15), 0)[0]
    return conv


def _unorm(n):
    top = 2 ** n - 1

    def conv(a, b, d, rm):
        f = f32ref.F(a)
        if f.kind == 'nan':
            return top
        if f.kind == 'inf':
            return 0 if f.neg else top
        if f.val <= 0 or (a >> 23) & 0xff == 0:
            return 0
        return top if f.val >= 1 else _half_away(f.val * top)
    return conv


def _snorm(n):
    top = 2 ** (n - 1) - 1

    def conv(a, b, d, rm):
        f = f32ref.F(a)
        if (a >> 23) & 0xff == 0:
            return 0
        if f.kind == 'nan':
            v = top
        elif f.kind == 'inf':
            v = -top if f.neg else top
        else:
            mag = abs(f.val)
            v = top if mag >= 1 else _half_away(mag * top)
            v = -v if f.neg else v
        return v & (2 ** n - 1)
    return conv


def _from_unorm(n):
    top = 2 ** n - 1

    def conv(a, b, d, rm):
        return f32ref.round_f32(Fraction(a & top, top), rm)[0]
    return conv


def _from_snorm(n):
    top = 2 ** (n - 1) - 1

    def conv(a, b, d, rm):
        v = a & (2 ** n - 1)
        v = v - 2 ** n if v >> (n - 1) else v
        return f32ref.round_f32(Fraction(max(v, -top), top), rm)[0]
    return conv


def rast_ps(a, b, d, rm):
    """fp32 -> 17.14: (a 2^14 + 1/2) rounded to fp32, then to an integer,
    both by rm, saturating; NaN, zero, subnormal, |a| >= 2^114: 0."""
    f = f32ref.F(a)
    if f.kind == 'nan' or (a >> 23) & 0xff == 0 or \
            (a & 0x7fffffff) >= 0x78800000:
        return 0
    s = f32ref.F(f32ref.round_f32(f.val * 2 ** 14 + Fraction(1, 2), rm)[0])
    if s.kind == 'inf':                     # the sum overflowed (rm up/down)
        return 0x80000000 if s.neg else 0x7fffffff
    s = s.val
    neg = s < 0
    q = f32ref._round_int(abs(s), rm, neg)
    q = -q if neg else q
    return max(-2 ** 31, min(2 ** 31 - 1, q)) & 0xffffffff


def ps_rast(a, b, d, rm):
    v = a - 2 ** 32 if a >> 31 else a
    return f32ref.round_f32(Fraction(v, 2 ** 16), rm)[0]


def frcp_fix_rast(a, b, d, rm):
    """Esperanto's simulator computes this in binary64 (Python floats are
    binary64 too); the out-of-range integer conversions are those of an
    x86-64 host: to uint32 through int64 (low 32 bits), to int32 the
    'integer indefinite' 0x80000000."""
    sa = a - 2 ** 32 if a >> 31 else a
    sb = b - 2 ** 32 if b >> 31 else b
    tmp = float(sa) / 65536.0
    yn = float(sb) / 16384.0
    fa = yn * tmp
    partial = int(fa * 2.0 ** 31) & 0xffffffff
    result = yn * (2.0 - partial / 2.0 ** 31)
    r = int(result * 16384.0)
    return r & 0xffffffff if -2 ** 31 <= r < 2 ** 31 else 0x80000000


def cubeface(a, b, d, rm):
    if d & 1:
        return 0 if b & 1 else 1
    return 0 if a & 1 else 2


def cubefaceidx(a, b, d, rm):
    face = a & 3
    if face == 3:
        return NAN
    return f32ref.round_f32(Fraction(2 * face + (b >> 31)), 0)[0]


def cubesgnsc(a, b, d, rm):
    neg = (a & 7) in (0, 5)
    return b | 0x80000000 if neg else b & 0x7fffffff


def cubesgntc(a, b, d, rm):
    return b & 0x7fffffff if (a & 7) == 2 else b | 0x80000000


def maskpopc_rast(sel, m1, m2):
    k = {0: 0x0f, 1: 0x3c, 2: 0xf0}.get(sel, 0xff)
    return bin(m1 & k).count('1') + bin(m2 & k).count('1')


OPS = {
    'fcvt.f10.ps': _small_float(5), 'fcvt.f11.ps': _small_float(6),
    'fcvt.un24.ps': _unorm(24), 'fcvt.un16.ps': _unorm(16),
    'fcvt.un10.ps': _unorm(10), 'fcvt.un8.ps': _unorm(8),
    'fcvt.un2.ps': _unorm(2), 'fcvt.sn16.ps': _snorm(16),
    'fcvt.sn8.ps': _snorm(8), 'fcvt.rast.ps': rast_ps,
    'fcvt.ps.f10': _from_small_float(5), 'fcvt.ps.f11': _from_small_float(6),
    'fcvt.ps.un24': _from_unorm(24), 'fcvt.ps.un16': _from_unorm(16),
    'fcvt.ps.un10': _from_unorm(10), 'fcvt.ps.un8': _from_unorm(8),
    'fcvt.ps.un2': _from_unorm(2), 'fcvt.ps.sn16': _from_snorm(16),
    'fcvt.ps.sn8': _from_snorm(8), 'fcvt.ps.rast': ps_rast,
    'frcp.fix.rast': frcp_fix_rast, 'cubeface.ps': cubeface,
    'cubefaceidx.ps': cubefaceidx, 'cubesgnsc.ps': cubesgnsc,
    'cubesgntc.ps': cubesgntc,
}
