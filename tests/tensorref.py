# SPDX-License-Identifier: GPL-2.0-or-later
"""Host references for guest-kernels/isa/tensor.c, written for the tests
from isa.md section 10 and docs/research/vpu-tensor-facts.md, independent
of the model (hw/etsoc1/etsoc1-tensor.c).

A matrix is 16 rows of 16 32-bit words, as the guest prints them: an L1
scratchpad line per row, or C of a TensorFMA (C[i][j] is lane j % 8 of
f(2i + j / 8)).  Scratchpad lines are lists of 64 bytes or 16 words.
"""
from fractions import Fraction
import f32ref

M32 = 0xffffffff


def s32(v):
    return v - (1 << 32) if v >> 31 else v


def s8(v):
    return v - 256 if v & 0x80 else v


def words(line):
    """The 16 little-endian words of 64 bytes."""
    return [int.from_bytes(bytes(line[4 * w:4 * w + 4]), 'little')
            for w in range(16)]


# ---- the guest's inputs (tensor.c main) -------------------------------------

def _a32(n):
    return ((n * 7 & 1) << 31 | (124 + n % 7) << 23 |
            ((n * 2654435761) & 0x7fffff))


def _b32(n):
    return ((n * 5 & 2) << 30 | (125 + n % 5) << 23 |
            ((n * 2246822519) & 0x7fffff))


A32 = [[_a32(16 * i + k) for k in range(16)] for i in range(16)]
B32 = [[_b32(16 * k + j) for j in range(16)] for k in range(16)]
A8 = [[((i * 64 + k) * 29 % 251 - 125) & 0xff for k in range(64)]
      for i in range(16)]
B8 = [[((k * 16 + j) * 31 % 253 - 126) & 0xff if j < 16 else
       ((k * 64 + j) * 2654435761 & M32) >> 13 & 0xff for j in range(64)]
      for k in range(64)]
A16 = [[(n * 3 & 1) << 15 | (12 + n % 7) << 10 | ((n * 40503) & 0x3ff)
        for n in range(32 * i, 32 * i + 32)] for i in range(16)]
B16 = [[(n * 5 & 2) << 14 | (13 + n % 5) << 10 |
        ((n * 2654435761 >> 7) & 0x3ff)
        for n in range(32 * k, 32 * k + 16)] for k in range(32)]
VEC = [0x3a800000 + c * 0x00080000 for c in range(16)]
QV = {40: [(i * 7919 - 60000) & M32 for i in range(16)],
      41: [(80000 - i * i * 613) & M32 for i in range(16)],
      42: [0x3b000000 + i * 0x51237 for i in range(16)]}


# ---- TensorLoad -------------------------------------------------------------

def interleave(mem, n, boff=0):
    """SCP lines (bytes) of an interleave8 (@n = 4) or interleave16 (@n = 2)
    TensorLoad of the byte rows @mem, byte offset field @boff: element c of
    row n i + r, counted from byte 16 boff (interleave16: 32 boff[5]), is
    element n c + r of line i."""
    esz = 4 // n
    off = 16 * boff if n == 4 else 32 * (boff >> 1)
    return [[mem[n * i + b // esz % n][off + b // 4 * esz + b % esz]
             for b in range(64)] for i in range(16)]


def transpose(mem, esz, boff=0):
    """SCP lines (bytes) of a transpose8/16/32 TensorLoad (@esz-byte
    elements) of the byte rows @mem: element j of line i is element i of
    row j, counted from element 16 boff (transpose16: 16 boff[5];
    transpose32 ignores the field)."""
    off = {1: 16 * boff, 2: 16 * (boff >> 1), 4: 0}[esz]
    return [[mem[b // esz][(i + off) * esz + b % esz] for b in range(64)]
            for i in range(16)]


def masked(new, old, mask):
    """Rows of @new where @mask has a bit, of @old elsewhere."""
    return [new[i] if mask >> i & 1 else old[i] for i in range(16)]


# ---- TensorFMA --------------------------------------------------------------

ZERO = [[0] * 16 for _ in range(16)]


def tfma32(a, b, c=ZERO, passes=16, first=True, mask=0xffff, aoff=0, rm=0):
    """fp32 TensorFMA of A lines @a by B lines @b (words, one a pass) onto
    C @c, in rounding mode @rm: A[i][k] is word aoff + k (mod 16) of line
    i; a product on the first pass (@first), then one rounding per step
    (fused), subnormals flushed.  Rows outside @mask are skipped (cleared
    by a first pass); after it a +0.0 in A skips its row's pass, a +0.0 in
    B its lane.  Returns C and the fflags (DN = the denormal flag)."""
    c = [row[:] for row in c]
    flags = 0
    for k in range(passes):
        mul = first and k == 0
        for i in range(16):
            av = a[i][(aoff + k) % 16]
            if not mask >> i & 1:
                c[i] = [0] * 16 if mul else c[i]
                continue
            if av == 0 and not mul:
                continue
            for j in range(16):
                bv = b[k][j]
                if mul:
                    r = f32ref.OPS['fmul'](av, bv, 0, rm)
                elif bv == 0:
                    continue
                else:
                    r = f32ref.OPS['fmadd'](av, bv, c[i][j], rm)
                c[i][j], flags = r[0], flags | r[1]
    return c, flags


def _f16(h):
    sign = -1 if h >> 15 else 1
    return sign * Fraction((h & 0x3ff) | 0x400, 1 << 10) * \
        Fraction(2) ** (((h >> 10) & 0x1f) - 15)


def tfma16(a, b):
    """fp16 TensorFMA of A rows @a (32 halves) by B rows @b (16 halves, as
    interleave16 lays them out): per pass two exact products and C, one
    rounding toward zero.  The inputs are normal numbers."""
    c = [[None] * 16 for _ in range(16)]
    for i in range(16):
        for j in range(16):
            for p in range(16):
                x = sum(_f16(a[i][2 * p + r]) * _f16(b[2 * p + r][j])
                        for r in range(2))
                if c[i][j] is not None:
                    x += f32ref.F(c[i][j]).val
                c[i][j] = f32ref.round_f32(x, 1)[0]
    return c


def tfma8(a, b, tenc=ZERO, passes=16, first=True, to_f=True, mask=0xffff,
          aoff=0, ua=False, ub=False):
    """int8 TensorFMA of A lines @a by B lines @b (bytes, one a pass) onto
    TenC @tenc: each pass adds a1 b1 + ... + a4 b4 (A from byte 4 aoff on,
    wrapping; bytes signed unless @ua/@ub), wrapping int32; the first pass
    (@first) starts from 0.  Rows outside @mask keep their value.  Returns
    TenC and C: with @to_f the last pass goes to C (f registers) and TenC
    keeps the one before, else C is None."""
    tenc = [row[:] for row in tenc]
    c = None
    for k in range(passes):
        dst = tenc
        if to_f and k == passes - 1:
            c = dst = [row[:] for row in tenc]
        for i in range(16):
            for j in range(16):
                acc = 0 if first and k == 0 else s32(tenc[i][j])
                for x in range(4 if mask >> i & 1 else 0):
                    av = a[i][(4 * aoff + 4 * k + x) % 64]
                    bv = b[k][4 * j + x]
                    acc += (av if ua else s8(av)) * (bv if ub else s8(bv))
                dst[i][j] = acc & M32
    return tenc, c


# ---- TensorQuant ------------------------------------------------------------

def _cell(reg, lane):
    """Where lane @lane of f@reg is in C."""
    return reg // 2, reg % 2 * 8 + lane


def tquant(c, codes, scp, line, rm=0, freg=0, rows=16, cols=16):
    """TensorQuant of @rows x @cols from f@freg on (row r, column j in lane
    j % 8 of f(freg + 2r + j / 8), mod 32) of the C @c: the transforms
    @codes in order, in rounding mode @rm; those that take a vector (4-7)
    read SCP line @line (words in @scp[line]), each advancing it by one."""
    c = [row[:] for row in c]
    for code in codes:
        vec = scp.get(line)
        for r in range(rows):
            packed = []
            for col in range(cols):
                i, j = _cell((freg + 2 * r + col // 8) % 32, col % 8)
                v = c[i][j]
                if code == 1:
                    v = f32ref.int_to_f32(v, rm, True)[0]
                elif code == 2:
                    v = f32ref.f32_to_int(v, rm, True)[0]
                elif code == 3:
                    v = max(s32(v), 0)
                elif code in (4, 5):        # add per column / per row
                    v = (v + vec[col if code == 4 else r]) & M32
                elif code in (6, 7):        # multiply per column / per row
                    v = f32ref.mul(v, vec[col if code == 6 else r], rm)[0]
                elif code == 8:
                    v = min(max(s32(v), -128), 127) & 0xff
                elif code == 9:
                    v = min(max(s32(v), 0), 255)
                elif code == 10:            # pack 128: low bytes, in order
                    packed.append(v & 0xff)
                    continue
                c[i][j] = v
            for w in range(len(packed) // 4):   # into f(freg + 2r)
                i, j = _cell((freg + 2 * r) % 32, w)
                c[i][j] = words(packed[4 * w:4 * w + 4] + [0] * 60)[0]
        if 4 <= code <= 7:
            line += 1
    return c


# ---- what tensor.c prints ---------------------------------------------------

def checks(got):
    """(tag, expected rows, what they check) for each matrix tensor.c
    prints; @got holds the rows it printed, by tag and row."""
    b8 = interleave(B8, 4)
    c8 = tfma8(A8, b8)[1]
    lm = masked(B32, A32, 0xa5c3)
    t8 = [words(x) for x in transpose(B8, 1, 2)]
    # T8 went to lines 40-47 and 0-7: the rows T16 skips keep it
    t16 = masked([words(x) for x in transpose(B8, 2, 3)], t8[8:] + lm[8:],
                 0xff0f)
    fm1 = tfma32(A32, B32, mask=0x5a3c)[0]
    tenc = tfma8(A8, b8[:8], passes=8, to_f=False, ua=True)[0]
    c8v = tfma8(A8, b8, aoff=12, ub=True)[1]
    qa = tquant(c8v, [4, 5], QV, 40)
    yield 'C32', tfma32(A32, B32)[0], 'fp32 16x16x16 matmul, fused steps'
    yield 'C16', tfma16(A16, B16), \
        'fp16 16x32x16 matmul (interleave16 B), exact products, RTZ'
    yield 'C8', c8, 'int8 16x64x16 matmul (interleave8 B)'
    yield 'Q', tquant(c8, [1, 6, 2, 3, 8], {40: VEC}, 40), \
        'TensorQuant: to fp32, x column vector, to int32, relu, saturate int8'
    yield 'LM', lm, \
        'TensorLoad of the tensor_mask rows (others kept), [5:4] ignored'
    yield 'T8', t8, \
        'transpose8 TensorLoad, byte offset 2, SCP lines 40-47, 0-7'
    yield 'T16', t16, 'transpose16 TensorLoad, byte offset 3 (only [5] ' \
        'counts), tensor_mask rows'
    yield 'I8', [words(x) for x in interleave(B8, 4, 3)], \
        'interleave8 TensorLoad, byte offset 3'
    yield 'I16', [words(x) for x in interleave(B8, 2, 3)], \
        'interleave16 TensorLoad, byte offset 3 (only [5] counts)'
    yield 'FM1', fm1, \
        'fp32 TensorFMA over the tensor_mask rows, the others cleared'
    yield 'FM2', tfma32(A32, B32, fm1, first=False, mask=0x0ff0, aoff=5)[0], \
        'fp32 TensorFMA adding to FM1 (no first pass) over other ' \
        'tensor_mask rows, A column offset 5'
    yield 'C8U', tfma8(A8, b8[8:], tenc, passes=8, first=False, mask=0xf0f0,
                       aoff=8, ua=True)[1], \
        'int8 TensorFMA, unsigned A ([21]), two TensorFMAs accumulating ' \
        'in TenC, masked rows take TenC, A offset, B start'
    yield 'C8V', c8v, \
        'int8 TensorFMA, unsigned B ([22]), A offset wrapping in the line'
    yield 'QA', qa, 'TensorQuant on C8V: add a vector per column, then ' \
        'one per row (the SCP line advancing)'
    yield 'QB', tquant(qa, [1, 7, 2, 9, 10], QV, 42, rm=2, freg=2, rows=13,
                       cols=12), \
        'TensorQuant on QA, 13 rows x 12 columns from f2: to fp32, x ' \
        'vector per row, to int32 (frm RDN), saturate uint8, pack 128'
    fsa, fsb = ([got.get(m, {}).get(i, [0] * 16) for i in range(16)]
                for m in ('FSA', 'FSB'))
    flags = []
    for rm in range(5):
        c, f = tfma32(fsa, fsb, passes=4, rm=rm)
        flags.append([(f & 0x1f) | (f & f32ref.DN) << 26])  # DN: bit 31
        yield f'FS{rm}', c, f'fp32 TensorFMA on special operands (FSA, ' \
            f'FSB: signed zeros and their skips, subnormals, infinities, ' \
            f'NaNs, overflow, tiny results), frm {rm}'
    yield 'FSF', flags, 'fflags of those five fp32 TensorFMAs'
