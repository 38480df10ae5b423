# SPDX-License-Identifier: GPL-2.0-or-later
"""Integer references for the ISA tests, written for them from
/work/shared/spec/isa.md sections 8 and 9 and docs/isa.md, in plain
Python integers (nothing here calls into the emulator):

  * amo(): the ET scalar atomics (guest-kernels/isa/atomics.c).
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
