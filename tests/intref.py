# SPDX-License-Identifier: GPL-2.0-or-later
"""Integer references for the ISA tests, written for them from
/work/shared/spec/isa.md sections 8 and 9 and docs/isa.md, in plain
Python integers (nothing here calls into the emulator):

  * amo(): the ET scalar atomics (guest-kernels/isa/atomics.c);
  * PI: the packed integer lane operations (guest-kernels/isa/vpu_int.c).

Where the spec is silent on a corner, the rule is Esperanto's simulator's
(sw-sysemu/insns/packed_arith.cpp), which the spec summarises: register
shift amounts of 32 or more give 0 (fsll, fsrl) or 31 (fsra), and
fsat8.pi leaves the saturated byte zero-extended in the lane.
"""

M32 = 0xffffffff
M64 = (1 << 64) - 1


def signed(x, bits):
    """@x (bits wide, unsigned) as a signed integer."""
    return x - (1 << bits) if x >> (bits - 1) & 1 else x


# ---- scalar atomics ----------------------------------------------------------

AMO_OPS = ('add', 'swap', 'xor', 'or', 'and', 'min', 'max', 'minu', 'maxu',
           'cmpswap')

def amo_new(op, m, v, x31, bits):
    """The value amo<op> leaves in memory: @m old, @v rs2, @bits wide."""
    mask = (1 << bits) - 1
    m, v, x31 = m & mask, v & mask, x31 & mask
    sm, sv = signed(m, bits), signed(v, bits)
    return {
        'add': (m + v) & mask,
        'swap': v,
        'xor': m ^ v,
        'or': m | v,
        'and': m & v,
        'min': m if sm < sv else v,
        'max': m if sm > sv else v,
        'minu': min(m, v),
        'maxu': max(m, v),
        'cmpswap': v if m == x31 else m,    # x31: the expected value
    }[op]


def amo(op, d, mem, v, x31=0):
    """(rd, memory after) of amo<op>.d (@d) or .w on the doubleword @mem:
    rd is the old value, sign-extended from 32 bits for .w; .w changes only
    the low half of the doubleword."""
    if d:
        return mem, amo_new(op, mem, v, x31, 64)
    old = mem & M32
    return (signed(old, 32) & M64,
            (mem & ~M32 & M64) | amo_new(op, old, v, x31, 32))


# ---- packed integer lanes ----------------------------------------------------

def _div(a, b):
    """RISC-V signed division: x/0 = -1, INT_MIN/-1 = INT_MIN."""
    sa, sb = signed(a, 32), signed(b, 32)
    if sb == 0:
        return M32
    q = abs(sa) // abs(sb)
    return (-q if (sa < 0) != (sb < 0) else q) & M32


def _rem(a, b):
    """RISC-V signed remainder: x%0 = x, INT_MIN%-1 = 0; sign of a."""
    sa, sb = signed(a, 32), signed(b, 32)
    if sb == 0:
        return a
    r = abs(sa) % abs(sb)
    return (-r if sa < 0 else r) & M32


def _clamp(x, lo, hi):
    return min(max(x, lo), hi)


def _mask(cond):
    return M32 if cond else 0


# name -> f(a, b, imm): lane result; a = fs1 lane, b = fs2 lane, imm the
# immediate (shift amount or imm10) of the forms that have one
PI = {
    'fadd.pi': lambda a, b, i: (a + b) & M32,
    'fsub.pi': lambda a, b, i: (a - b) & M32,
    'fmul.pi': lambda a, b, i: (a * b) & M32,
    'fmulh.pi': lambda a, b, i:
        (signed(a, 32) * signed(b, 32) >> 32) & M32,
    'fmulhu.pi': lambda a, b, i: (a * b) >> 32,
    'fdiv.pi': lambda a, b, i: _div(a, b),
    'fdivu.pi': lambda a, b, i: a // b if b else M32,
    'frem.pi': lambda a, b, i: _rem(a, b),
    'fremu.pi': lambda a, b, i: a % b if b else a,
    'fand.pi': lambda a, b, i: a & b,
    'for.pi': lambda a, b, i: a | b,
    'fxor.pi': lambda a, b, i: a ^ b,
    'fnot.pi': lambda a, b, i: ~a & M32,
    'fsll.pi': lambda a, b, i: (a << b) & M32 if b < 32 else 0,
    'fsrl.pi': lambda a, b, i: a >> b if b < 32 else 0,
    'fsra.pi': lambda a, b, i: (signed(a, 32) >> min(b, 31)) & M32,
    'fslli.pi': lambda a, b, i: (a << i) & M32,
    'fsrli.pi': lambda a, b, i: a >> i,
    'fsrai.pi': lambda a, b, i: (signed(a, 32) >> i) & M32,
    'fsat8.pi': lambda a, b, i: _clamp(signed(a, 32), -128, 127) & 0xff,
    'fsatu8.pi': lambda a, b, i: _clamp(signed(a, 32), 0, 255),
    'fmin.pi': lambda a, b, i: min(signed(a, 32), signed(b, 32)) & M32,
    'fmax.pi': lambda a, b, i: max(signed(a, 32), signed(b, 32)) & M32,
    'fminu.pi': lambda a, b, i: min(a, b),
    'fmaxu.pi': lambda a, b, i: max(a, b),
    'fle.pi': lambda a, b, i: _mask(signed(a, 32) <= signed(b, 32)),
    'flt.pi': lambda a, b, i: _mask(signed(a, 32) < signed(b, 32)),
    'feq.pi': lambda a, b, i: _mask(a == b),
    'fltu.pi': lambda a, b, i: _mask(a < b),
    'faddi.pi': lambda a, b, i: (a + i) & M32,
    'fandi.pi': lambda a, b, i: a & i & M32,
}

# the operations of PI with one source (fs1) and those with an immediate
UNARY = {'fnot.pi', 'fsat8.pi', 'fsatu8.pi', 'fslli.pi', 'fsrli.pi',
         'fsrai.pi', 'faddi.pi', 'fandi.pi'}
