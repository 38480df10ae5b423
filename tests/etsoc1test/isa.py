# SPDX-License-Identifier: GPL-2.0-or-later
"""Group isa: known-answer tests of the vendor instructions, against the
Python references.

Run alone: tests/run.py BUILD_ROOT isa, or from tests/,
python3 -m etsoc1test.isa BUILD_ROOT (docs/testing.md)."""

import os
import re
import sys

from etsoc1test import harness
from etsoc1test.fabric import f32, s32
from etsoc1test.harness import report, relay_tap, run, qemu_cmd, guest
import intref  # noqa: E402


def c_tables(path):
    """{name: [words]}: the `static const uint32_t` arrays of a guest
    source.  The guest's test inputs are written once, there; its
    reference here reads them."""
    text = re.sub(r'/\*.*?\*/', '', open(path).read(), flags=re.S)
    return {name: [int(x, 16) for x in re.findall(r'0x[0-9a-fA-F]+', body)]
            for name, body in re.findall(
                r'static const uint32_t (\w+)\[\d*\][^=]*=\s*\{(.*?)\};',
                text, re.S)}


VPU_FP_TABLES = c_tables(os.path.join(harness.TESTS, '..', 'guest-kernels',
                                      'isa', 'vpu_fp.c'))


VPU_IN = VPU_FP_TABLES['in']


# (0x00800000 x 0x3f7fffff: tiny after rounding, though it rounds to 2^-126)
# the fp16 conversions' own b inputs
VPU_IN_OF = {'fcvt.f16.ps': VPU_FP_TABLES['in_cvt16'],
             'fcvt.ps.f16': VPU_FP_TABLES['in_f16']}


def random_in(op, n):
    """guest-kernels/isa/vpu_fp.c random_in(): input n = 16 i + j of a
    transcendental in lines i >= 1, a pseudo-random normal, or of an int32
    conversion in lines i >= 2."""
    m = 0xffffffff
    h = (n + 1) * 0x9e3779b9 & m
    h ^= h >> 15
    h = h * 0x2c1b3c6d & m
    h ^= h >> 12
    e = h >> 23 & 0xff
    if op in ('fcvt.ps.pw', 'fcvt.ps.pwu'):
        return -(h >> e % 32) & m if h & 1 else h >> e % 32
    if op in ('fcvt.pw.ps', 'fcvt.pwu.ps'):
        e = 0x7c + e % 36
    elif op == 'fexp':
        e = 0x66 + e % 32
    elif op == 'flog':
        e = 0x7e + e % 2 if h >> 31 else 1 + e % 254
        h &= 0x7fffffff
    else:
        e = 1 + e % 254
    return (h & 0x807fffff) | e << 23


# the transcendentals' special cases (line 0), then 240 normals: 256 inputs
for _op, _special in (('fexp', 'in_exp'), ('flog', 'in_log'),
                      ('frcp', 'in_rcp')):
    VPU_IN_OF[_op] = (VPU_FP_TABLES[_special] +
                      [random_in(_op, n) for n in range(16, 256)])


# the int32 conversions' special cases (lines 0 and 1), then 224 more
VPU_TO_INT = VPU_FP_TABLES['in_to_int']


VPU_FROM_INT = VPU_FP_TABLES['in_from_int']


for _op, _special in (('fcvt.pw.ps', VPU_TO_INT), ('fcvt.pwu.ps', VPU_TO_INT),
                      ('fcvt.ps.pw', VPU_FROM_INT),
                      ('fcvt.ps.pwu', VPU_FROM_INT)):
    VPU_IN_OF[_op] = _special + [random_in(_op, n) for n in range(32, 256)]


def tensor_test():
    """guest-kernels/isa/tensor.c: its TAP checks (illegal and faulting
    forms, error bits), then every matrix it prints (matmuls, TensorLoad,
    TensorFMA and TensorQuant forms, fp32 special operands in each rounding
    mode) bit-exact against tests/tensorref.py."""
    import tensorref

    def words(row):
        return ' '.join(f'{x:08x}' for x in row)
    rc, out, _ = run(qemu_cmd('tensor', 1), 60)
    relay_tap('isa tensor', out)
    got = {}
    for tag, i, row in re.findall(r'^([A-Z][A-Z0-9]*) (\d+):'
                                  r'((?: [0-9a-f]{8})+)$', out, re.M):
        got.setdefault(tag, {})[int(i)] = [int(x, 16) for x in row.split()]
    for tag, want, what in tensorref.checks(got):
        rows = got.get(tag, {})
        bad = [f'{tag} {i}: {words(rows.get(i, []))}\n   want {words(want[i])}'
               for i in range(len(want)) if rows.get(i) != want[i]]
        report(rc == 0 and not bad, f'isa tensor {what}: bit-exact against '
               'the reference', '\n'.join(bad[:4]) + '\n' + out[-2000:])


def vpu_fp_test():
    """Packed FP lanes and flags against tests/f32ref.py, per operation."""
    import f32ref
    rc, out, _ = run(qemu_cmd('vpu_fp', 1), 120)
    if relay_tap('isa vpu_fp', out) != 11:
        report(False, 'isa vpu_fp: 11 TAP checks (reserved rounding modes, '
               'fmadd.ps with fs3 = f27)',
               out[-2000:])
    lines = re.findall(r'^([\w.]+) (\d) (\d+): ((?:[0-9a-f]{8} ){16})\|'
                       r'((?: [0-9a-f]{2}){16})$', out, re.M)
    checks = [(op, op, op if '.' in op else op + '.ps') for op in f32ref.OPS]
    checks += [(op + '.rm', op, ('fadd.ps', 'fmul.ps', 'fcvt.pw.ps')[k] +
                 ' with rm in funct3, frm = rm + 2 mod 5')
               for k, op in enumerate(('fadd', 'fmul', 'fcvt.pw.ps'))]
    checks += [(op + '.s', op, op + '.s') for op in SCALAR_F]
    for name_want, op, label in checks:
        checked, bad = 0, []
        ins = VPU_IN_OF.get(op, VPU_IN)
        for name, rm, i, res, flags in lines:
            if name != name_want:
                continue
            rm, i = int(rm), int(i)
            for j, (r, f) in enumerate(zip(res.split(), flags.split())):
                b = ins[16 * i + j] if len(ins) == 256 else ins[j]
                want = f32ref.OPS[op](VPU_IN[i], b, VPU_IN[(i + j) % 16], rm)
                checked += 1
                if not f32ref.accepts(want, int(r, 16), int(f, 16)):
                    bad.append(f'rm {rm} a {VPU_IN[i]:08x} b {b:08x}: '
                               f'{r} flags {f}, want {f32ref.show(want)}')
        if op in f32ref.APPROX:
            what = (f'256 inputs x 5 frm values ({checked} lanes), results '
                    'within 1 ulp, special cases and fflags bit-exact')
        else:
            modes = 'frm values (not used)' if op in VPU_NO_RM else \
                'rounding modes'
            what = (f'256 operand pairs x 5 {modes} '
                    f'({checked} lanes), results and fflags bit-exact')
        report(rc == 0 and checked == 5 * 256 and not bad,
               f'isa {label}: {what} against the reference',
               '\n'.join(bad[:20]))
    vpu_fp_mask_test(rc, out)
    vpu_fp_masked_test(rc, out)


def vpu_fp_mask_test(rc, out):
    """vpu_fp's compares into a mask with all lanes on: m1 and the fflags
    of each half against the lanes of tests/f32ref.py."""
    import f32ref
    lines = re.findall(r'^(f\w+m) mask (\d) (\d+): ([0-9a-f]{2}) ([0-9a-f]{2})'
                       r' \| ([0-9a-f]{2}) ([0-9a-f]{2})$', out, re.M)
    for op in ('feqm', 'fltm', 'flem'):
        checked, bad = 0, []
        for name, rm, i, m_lo, m_hi, f_lo, f_hi in lines:
            if name != op:
                continue
            a = VPU_IN[int(i)]
            for half, m, f in ((0, m_lo, f_lo), (1, m_hi, f_hi)):
                want = [f32ref.OPS[op](a, b, 0, int(rm))
                        for b in VPU_IN[8 * half:8 * half + 8]]
                want_m = sum(w[0] << e for e, w in enumerate(want))
                want_f = 0
                for w in want:
                    want_f |= w[1]
                checked += 1
                if (int(m, 16), int(f, 16)) != (want_m, want_f):
                    bad.append(f'rm {rm} a {a:08x} half {half}: m1 {m} '
                               f'flags {f}, want {want_m:02x} {want_f:02x}')
        report(rc == 0 and checked == 5 * 32 and not bad,
               f'isa {op}.ps: m1 with all 8 lanes on ({checked} masks) and '
               'the fflags of each, bit-exact against the reference',
               '\n'.join(bad[:20]))


def atomics_test(accel=''):
    """Scalar atomics: the faults (TAP), then every AMO over the edge
    value pairs against tests/intref.py (guest-kernels/isa/atomics.c)."""
    rc, out, wall = run(qemu_cmd('atomics', 1, accel), 120)
    label = f'isa atomics ({harness.accel_label(accel)})'
    relay_tap(label, out)
    report(rc == 0 and bool(re.search(r'^1\.\.13$', out, re.M)),
           f'{label}: faults, coherent stores, packb: exit status {rc}, '
           f'{wall:.2f} s', out[-2000:])
    h16 = '([0-9a-f]{16})'
    lines = re.findall(rf'^amo(\w+?)([lg])\.([wd]) {h16} {h16}(?: {h16})? = '
                       rf'{h16} {h16}$', out, re.M)
    for op in intref.AMO_OPS:
        for d in 'wd':
            for g in 'lg':
                checked, bad = 0, []
                for name, g1, d1, mem, v, x31, old, after in lines:
                    if (name, g1, d1) != (op, g, d):
                        continue
                    want = intref.amo(op, d == 'd', int(mem, 16), int(v, 16),
                                      int(x31 or '0', 16))
                    checked += 1
                    if (int(old, 16), int(after, 16)) != want:
                        bad.append(f'memory {mem} rs2 {v} x31 {x31 or "-"}: '
                                   f'{old} {after}, want {want[0]:016x} '
                                   f'{want[1]:016x}')
                n = 81 * (3 if op == 'cmpswap' else 1)
                report(checked == n and not bad,
                       f'{label}: amo{op}{g}.{d}: {checked} cases (9 x 9 '
                       f'edge values{", 3 x31 each" if n > 81 else ""}), '
                       'rd and memory against the reference',
                       '\n'.join(bad[:20]))


# guest-kernels/isa/vpu_int.c: the immediates of the immediate forms
PI_IMMS = {'fslli.pi': (0, 1, 17, 31), 'fsrli.pi': (0, 1, 17, 31),
           'fsrai.pi': (0, 1, 17, 31), 'faddi.pi': (-512, -1, 1, 511),
           'fandi.pi': (-512, -1, 0x1f0, 0x155)}


def vpu_int_test():
    """Packed integer ops: the lane operations against tests/intref.py,
    masks, moves and memory ops in the guest (TAP)."""
    rc, out, wall = run(qemu_cmd('vpu_int', 1), 120)
    relay_tap('isa vpu_int', out)
    report(rc == 0 and bool(re.search(r'^1\.\.29$', out, re.M)),
           'isa packed mask, move, select, swizzle, pack and memory ops: '
           f'exit status {rc}, {wall:.2f} s', out[-2000:])
    m = re.search(r'^in:((?: [0-9a-f]{8}){16})$', out, re.M)
    ins = [int(x, 16) for x in m.group(1).split()] if m else [0] * 16
    edges = {0, 1, intref.M32, 0x7fffffff, 0x80000000, 32}
    report(edges <= set(ins), 'isa vpu_int inputs include 0, 1, -1, '
           'INT_MIN, INT_MAX and a shift amount >= 32', out[-2000:])
    got = {}
    for name, imm, i, lanes in re.findall(
            r'^(f\w+\.pi)(?: (-?\d+))? (\d+):((?: [0-9a-f]{8}){16})$',
            out, re.M):
        got[(name, int(imm) if imm else None, int(i))] = \
            [int(x, 16) for x in lanes.split()]
    for name, ref in intref.PI.items():
        lines = 1 if name in intref.UNARY else 16
        for imm in PI_IMMS.get(name, (None,)):
            checked, bad = 0, []
            for i in range(lines):
                for j, r in enumerate(got.get((name, imm, i), [])):
                    a, b = ins[j], ins[i]
                    want = ref(a, b, imm)
                    checked += 1
                    if r != want:
                        bad.append(f'a {a:08x} b {b:08x}: {r:08x}, want '
                                   f'{want:08x}')
            label = f'isa {name}{"" if imm is None else f" {imm}"}'
            cases = 'inputs' if lines == 1 else 'operand pairs'
            report(checked == 16 * lines and not bad,
                   f'{label}: {checked} {cases} against the reference',
                   '\n'.join(bad[:20]))


def vpu_gfx_test():
    """Packed graphics instructions: the minion_feature[0] traps (TAP), then
    every lane, masked lanes and fflags against tests/gfxref.py."""
    import gfxref
    rc, out, _ = run(qemu_cmd('vpu_gfx', 1), 120)
    relay_tap('isa vpu_gfx', out)
    tap_ok = (rc == 0 and re.search(r'^1\.\.8$', out, re.M) and
              not re.search(r'^not ok', out, re.M))
    report(tap_ok, 'isa packed graphics ops: illegal while minion_feature[0] '
           'is set, run once it is clear, frm checked where sysemu does',
           out[-2000:])
    hexs = r'((?: [0-9a-f]{8}){8})'
    ins = {(m[0], int(m[1])): [[int(x, 16) for x in g.split()]
                               for g in m[2:]]
           for m in re.findall(rf'^in ([\w.]+) (\d+):{hexs} \|{hexs} \|{hexs}$',
                               out, re.M)}
    res = re.findall(rf'^([\w.]+) (\d) (\d+):{hexs} \| ([0-9a-f]{{2}})$',
                     out, re.M)
    masked = dict(re.findall(rf'^([\w.]+) mask:{hexs}$', out, re.M))
    for op, ref in gfxref.OPS.items():
        checked, bad = 0, []
        for name, rm, v, lanes, flags in res:
            if name != op or (op, int(v)) not in ins:
                continue
            a, b, d = ins[(op, int(v))]
            rm = int(rm)
            for e, r in enumerate(lanes.split()):
                want = ref(a[e], b[e], d[e], rm)
                checked += 1
                if int(r, 16) != want:
                    bad.append(f'rm {rm} a {a[e]:08x} b {b[e]:08x} '
                               f'd {d[e]:08x}: {r}, want {want:08x}')
            if flags != '00':
                bad.append(f'rm {rm} vector {v}: fflags {flags}, want 00')
        a, b, _ = ins.get((op, 0), [[0] * 8] * 3)
        got = masked.get(op, '').split()
        want = [ref(a[e], b[e], 0x5e5e5e5e, 0) if 0xa5 >> e & 1
                else 0x5e5e5e5e for e in range(8)]
        if [int(x, 16) for x in got] != want:
            bad.append(f'm0 0xa5: {got}, want {[f"{w:08x}" for w in want]}')
        report(rc == 0 and checked == 5 * 64 and not bad,
               f'isa {op}: 64 inputs x 5 frm values ({checked} lanes), '
               'fflags and m0-masked lanes bit-exact against the reference',
               '\n'.join(bad[:20]))
    pops = re.findall(r'^maskpopc\.rast (\d+) ([0-9a-f]{2}) ([0-9a-f]{2}): '
                      r'([0-9a-f]+)$', out, re.M)
    bad = [f'sel {s} m1 {m1} m7 {m2}: {x}' for s, m1, m2, x in pops
           if int(x, 16) != gfxref.maskpopc_rast(int(s), int(m1, 16),
                                                 int(m2, 16))]
    report(rc == 0 and len(pops) == 48 and not bad,
           f'isa maskpopc.rast: 16 quad selects x 3 mask pairs ({len(pops)}) '
           'against the reference', '\n'.join(bad[:20]))


def vpu_fp_masked_test(rc, out):
    """vpu_fp's runs with m0 = 0xa5 over f4 = 0x5e5e5e5e: active lanes as
    tests/f32ref.py says, the others kept, fflags those of the active
    lanes only (the inputs make the inactive ones raise other flags)."""
    import f32ref
    hexs = r'((?: [0-9a-f]{8}){8})'
    m = re.search(rf'^masked in:{hexs} \|{hexs} \|{hexs}$', out, re.M)
    a, b, c = ([int(x, 16) for x in g.split()] for g in
               (m.groups() if m else ('',) * 3))
    for op in ('fadd', 'fmadd', 'fcvt.pw.ps', 'feq'):
        got = re.search(rf'^{re.escape(op)} masked:{hexs} \| ([0-9a-f]{{2}})$',
                        out, re.M)
        want = [f32ref.OPS[op](*abc, 0) for abc in zip(a, b, c)]
        flags = {True: 0, False: 0}
        for e, w in enumerate(want):
            flags[bool(0xa5 >> e & 1)] |= w[1]
        lanes = [w[0] if 0xa5 >> e & 1 else 0x5e5e5e5e
                 for e, w in enumerate(want)]
        ok = (rc == 0 and got is not None and len(want) == 8 and
              [int(x, 16) for x in got.group(1).split()] == lanes and
              int(got.group(2), 16) == flags[True] and
              flags[False] & ~flags[True] != 0)
        report(ok, f'isa {op if "." in op else op + ".ps"} with m0 = 0xa5: '
               'inactive lanes keep fd and raise no flags, active lanes '
               'bit-exact against the reference',
               f'got {got and got.group(0)}\nwant '
               f'{" ".join(f"{x:08x}" for x in lanes)} | {flags[True]:02x}'
               f', inactive lanes\' flags {flags[False]:02x}')


# vpu_fp's operations whose lanes do not depend on the rounding mode
VPU_NO_RM = ('fsgnj', 'fsgnjn', 'fsgnjx', 'feq', 'flt', 'fle', 'feqm', 'fltm',
             'flem', 'fclass')


# the scalar F instructions vpu_fp also runs (subnormals flushed as packed)
SCALAR_F = ['fadd', 'fsub', 'fmul', 'fdiv', 'fsqrt', 'fmin', 'fmax', 'fmadd',
            'fmsub', 'fnmsub', 'fnmadd']


# guest-kernels/isa/mcode.c: (instruction, result computed, sentinel kept)
MCODE = [('fdiv.s', '40000000', 'bf800000'), ('fsqrt.s', '40000000', 'bf800000'),
         ('fcvt.l.s', '2', 'ffffffffffffffff'), ('fcvt.s.l', '40400000', 'bf800000'),
         ('fence.i', '0', '0'), ('sfence.vma', '0', '0'),
         ('fdiv.ps', '40000000', '5e5e5e5e'), ('fsqrt.ps', '40800000', '5e5e5e5e'),
         ('fdiv.pi', '3', '5e5e5e5e'), ('fremu.pi', '1', '5e5e5e5e')]


# exception 30 on the chip whatever mcode-traps says, even with FS = Off
NO_HW = ['fsin.ps', 'frsq.ps', 'fsin.ps/FS=Off']


def mcode_tests():
    """Exception 30 for the instructions the chip emulates in M-mode code."""
    line = r'^{}: traps={} cause={} tval={} result={}$'
    guest('isa mcode-traps=off: QEMU runs them, fsin/frsq.ps still trap (30)',
          'mcode', 1,
          expect=[line.format(re.escape(n), 0, 0, '-', r) for n, r, _ in MCODE] +
          [line.format('fadd\\.pi', 0, 0, '-', '9')] +
          [line.format(re.escape(n), 1, 30, 'ok', '5e5e5e5e') for n in NO_HW])
    guest('isa mcode-traps=on: exception 30, mtval = the instruction, no result',
          'mcode', 1, extra=['-global', 'etsoc1-minion-riscv-cpu.mcode-traps=on'],
          expect=[line.format(re.escape(n), 1, 30, 'ok', k) for n, _, k in MCODE] +
          [line.format('fadd\\.pi', 0, 0, '-', '9')] +
          [line.format(re.escape(n), 1, 30, 'ok', '5e5e5e5e') for n in NO_HW])


def famo_fminmax(a, b, is_max):
    """famomax/min.ps (docs/isa.md): an sNaN gives the default NaN, one
    qNaN gives the other operand, two give the default NaN; otherwise
    the larger/smaller value, -0 below +0, subnormals kept."""
    def nan(x):
        return x & 0x7fffffff > 0x7f800000

    if any(nan(x) and not x & 0x400000 for x in (a, b)) or nan(a) and nan(b):
        return 0x7fc00000
    if nan(a) or nan(b):
        return b if nan(a) else a
    key_a, key_b = (f32(a), not a >> 31), (f32(b), not b >> 31)
    return a if (key_a > key_b) == is_max else b


FAMO = {
    'add': lambda m, v: (m + v) & 0xffffffff, 'swap': lambda m, v: v,
    'and': lambda m, v: m & v, 'or': lambda m, v: m | v,
    'xor': lambda m, v: m ^ v,
    'min': lambda m, v: min(m, v, key=s32),
    'max': lambda m, v: max(m, v, key=s32),
    'minu': min, 'maxu': max,
    'min.ps': lambda m, v: famo_fminmax(m, v, False),
    'max.ps': lambda m, v: famo_fminmax(m, v, True),
}


def hex8(words):
    return ' '.join(f'{w:08x}' for w in words)


def famo_ref(op, mem, offs, data, m0):
    """Lanes in order, each on the word at base (mem[8]) + its byte offset:
    memory = op(old, operand), lane = old; lanes off in m0 keep theirs."""
    mem, lanes = list(mem), list(data)
    for e in range(8):
        if m0 >> e & 1:
            w = 8 + s32(offs[e]) // 4
            lanes[e], mem[w] = mem[w], FAMO[op](mem[w], data[e])
    return lanes, mem


def vpu_mem_test():
    """guest-kernels/isa/vpu_mem.c: its TAP, then every packed atomic's
    printed vectors against famo_ref."""
    out = guest('isa packed gathers, scatters, atomics, coherent and '
                'unmasked memory ops', 'vpu_mem', 1, expect=[r'^1\.\.51$'])
    words = r'((?: [0-9a-f]{8})+)'
    seen, bad = {}, {}
    for m in re.finditer(rf'^famo(\w+?)([lg])\.(p[is]) (\d):{words} \|{words}'
                         rf' \|{words} \| ([0-9a-f]{{2}}) \|{words} \|{words}'
                         r' \| (\d+) ([0-9a-f]+)$', out, re.M):
        op, lg, kind = m.group(1), m.group(2), m.group(3)
        name = f'famo{op}{lg}.{kind}'
        mem, offs, data, lanes, after = [
            [int(x, 16) for x in m.group(i).split()] for i in (5, 6, 7, 9, 10)]
        want = famo_ref(op + ('.ps' if kind == 'ps' else ''), mem, offs,
                        data, int(m.group(8), 16))
        seen[name] = seen.get(name, 0) + 1
        if want != (lanes, after) or m.group(11) != '0' or m.group(12) != '0':
            bad.setdefault(name, []).append(
                f'vector {m.group(4)}: lanes{m.group(9)}, want {hex8(want[0])}'
                f'; memory{m.group(10)}, want {hex8(want[1])}; gsc_progress '
                f'{m.group(11)}, fflags {m.group(12)}')
    for name in sorted(seen):
        report(seen[name] == 4 and name not in bad,
               f'isa {name}: 4 vectors (distinct words, a masked run, '
               'repeated words): old values, memory, gsc_progress 0, no '
               'fflags, against the reference', '\n'.join(bad.get(name, [])))
    report(len(seen) == 22, f'isa packed atomics: {len(seen)} of 22 printed')


def sweep_test():
    """Every funct7 x funct3 of the ET opcodes, twice: each runs or traps
    with a cause an instruction may raise, and QEMU goes on."""
    out = guest('isa encoding sweep', 'sweep', 1, expect=[
        r'^sweep: 16384 executed, \d+ ran, traps( \d+=\d+)*, 0 elsewhere$'])
    m = re.search(r'^sweep: .* traps((?: \d+=\d+)*),', out, re.M)
    causes = {int(c) for c in re.findall(r' (\d+)=', m.group(1))} if m else set()
    report(bool(causes) and causes <= {2, 5, 7, 30},
           f'isa encoding sweep: trap causes {sorted(causes)} are illegal '
           f'instruction, load/store access fault or exception 30', out)


def isa_tests():
    mcode_tests()
    sweep_test()
    for accel in ('', 'thread=single'):
        atomics_test(accel)
    # the bad inputs are logged (-d guest_errors), never an assert; the
    # architectural results are those of cache-model=off too
    guest('isa cache control and maintenance CSRs', 'cacheops', 1,
          extra=('-d', 'guest_errors'),
          expect=[r'^1\.\.41$', r'lock_sw of PA \S+ to way 0 of set 0: '
                  r'way 0 is locked', r'lock_sw of PA \S+: set 0 has 3 '
                  r'locked ways', r'mcache_control changed with 3 locked L1 '
                  r'lines', r'lock_sw of PA \S+: not a line the L1 caches',
                  r'lock_va of VA \S+ \(line 0\): not a cacheable line',
                  r'evict_sw \S+ names 12 ways of the L1 scratchpad',
                  r'flush_sw \S+ names 4 ways of the L1 scratchpad',
                  r'cache_invalidate 0xf1: reserved bits ignored'])
    guest('isa cache control and maintenance CSRs, cache-model=off',
          'cacheops', 1, machine=',cache-model=off',
          extra=('-d', 'guest_errors'),
          expect=[r'^1\.\.41$', r'set 0 has 3 locked ways',
                  r'mcache_control changed with 3 locked L1 lines',
                  r'evict_sw \S+ names 12 ways of the L1 scratchpad'])
    vpu_int_test()
    vpu_mem_test()
    vpu_fp_test()
    vpu_gfx_test()
    tensor_test()
    for accel in ('', 'thread=single'):
        guest('isa cooperative tensor loads and stores', 'coop', 1, accel,
              expect=[r'^1\.\.16$'], timeout=60)
        guest('timing: per-hart minstret/mcycle exact, also across traps',
              'counters', 1, accel, expect=[r'^1\.\.16$'])
    # every hart hammers the same few lines: a racing program, run with
    # the gate off (docs/timing.md, "Cost": the gate hands the lines over
    # one access at a time through the host)
    guest('isa atomics under contention', 'contention', 2,
          expect=[r'^# 128 harts$', r'^1\.\.41$'], machine=',poll-halt=off')
    guest('isa atomics under contention, 2,048 harts', 'contention', 32,
          expect=[r'^# 2048 harts$', r'^1\.\.41$'], machine=',poll-halt=off')


if __name__ == '__main__':
    sys.exit(harness.main({'isa': isa_tests}))
