# SPDX-License-Identifier: GPL-2.0-or-later
"""The ET assembler front end, the disassemblers and the table (group asm).

docs/assembler.md.  Every entry of tools/et-insns.tsv, in every operand
form (rounding mode left out and given, the implicit m0 written out, the
zero offset of a base-only address written, the other spellings), is
assembled by build/tools/bin/as through riscv64-unknown-elf-gcc -B, then:

* each word must be the one the table's encoder gives and must match the
  decodetree pattern of qemu-patches/0004 that has the instruction's name
  (the decoder's encoding: a table row that disagrees with the decoder
  fails here);
* et-objdump and QEMU's disassembler (monitor x/i on the loaded kernel)
  must print every word back as the canonical text;
* running isa/atomics with -d in_asm must show its ET instructions and
  CSRs by name and no ET word as illegal.

Bad operands must be refused GNU-as style with the line, and nothing
assembled; standard code must assemble exactly as Debian's as does it.
"""

import os
import re
import select
import subprocess
import sys
import tempfile

PROJ = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(PROJ, 'tools'))
import etisa  # noqa: E402

GCC = 'riscv64-unknown-elf-gcc'
ARCH = ['-march=rv64imfc_zicsr_zifencei', '-mabi=lp64f']
# decoder names that differ from "et_" + the mnemonic with . as _
DECODER_NAME = {'fsin.ps': 'et_mcode_only', 'frsq.ps': 'et_mcode_only',
                'sbl': 'et_sb', 'sbg': 'et_sb', 'shl': 'et_sh',
                'shg': 'et_sh', 'flwl.ps': 'et_flwlg_ps',
                'flwg.ps': 'et_flwlg_ps', 'fswl.ps': 'et_fswlg_ps',
                'fswg.ps': 'et_fswlg_ps'}
# in the table but not in the decoder (docs/isa.md: not modelled)
NOT_DECODED = {'bitmixb'}


def decoder_name(name):
    if name in DECODER_NAME:
        return DECODER_NAME[name]
    m = re.match(r'^(amo[a-z]+)[lg]\.[wd]$', name)
    if m:
        return 'et_' + m.group(1)
    m = re.match(r'^(famo[a-z]+)[lg]\.(p[si])$', name)
    if m:
        return 'et_%s_%s' % (m.group(1), m.group(2))
    return 'et_' + name.replace('.', '_')


def model_csr_rows():
    """[(number, name, file)]: the ET CSR rows the units register
    (hw/etsoc1/etsoc1-csr.h), their numbers resolved through the enum
    constants and #defines of hw/etsoc1."""
    hw = os.path.join(PROJ, 'hw', 'etsoc1')
    consts, rows = {}, []
    for f in sorted(os.listdir(hw)):
        if not f.endswith(('.c', '.h')):
            continue
        text = open(os.path.join(hw, f)).read()
        for m in re.finditer(r'^\s*(?:#define\s+)?(\w+)\s*=?\s*(0x[0-9a-fA-F]+)'
                             r'\s*,?\s*$', text, re.M):
            consts[m.group(1)] = int(m.group(2), 16)
        for m in re.finditer(r'ETSOC1_CSR\(\s*(\w+),\s*"(\w+)"|'
                             r'\.csrno = (\w+), \.name = "(\w+)"', text):
            num, name = (m.group(1), m.group(2)) if m.group(1) else \
                (m.group(3), m.group(4))
            rows.append((num, name, f))
    return [(consts.get(n, int(n, 0) if n.startswith('0x') else None),
             name, f) for n, name, f in rows]


def decoder_patterns():
    """{name: [(mask, match)]} from the decoder, target/etsoc1/XEtsoc1.decode."""
    pats = {}
    path = os.path.join(PROJ, 'target', 'etsoc1', 'XEtsoc1.decode')
    for line in open(path):
        m = re.match(r'^(et_\w+)\s+((?:[01.\-]+\s+)+)[@&]', line)
        if not m:
            continue
        bits = ''.join(m.group(2).split())
        if len(bits) != 32:
            continue
        mask = int(''.join('1' if c in '01' else '0' for c in bits), 2)
        match = int(''.join(c if c in '01' else '0' for c in bits), 2)
        pats.setdefault(m.group(1), []).append((mask, match))
    return pats


def operand_text(kind, k, i):
    """An operand of @kind for form @k of entry @i, spreading the values."""
    if kind in etisa.REGS:
        cls, _, width = etisa.REGS[kind]
        n = (i * 7 + k * 13 + len(kind) * 5) % (1 << width)
        return etisa.XNAMES[n] if cls == 'x' else '%s%d' % (cls, n)
    if kind in etisa.RM_DEFAULT:
        return ['rne', 'rtz', 'rdn', 'rup', 'rmm', 'dyn'][(i + k) % 6]
    pieces, lo, hi = etisa.IMMS[kind]
    v = [lo, hi, (lo + hi) // 3 + 1][k % 3]
    return ('0x%x' % v) if kind in etisa.HEX_IMMS and v >= 0 else str(v)


def forms(table):
    """[(source text, expected word)]: every entry in every operand form."""
    out = []
    for i, e in enumerate(table.insns):
        names = [e.name] + [a for a, n in table.aliases.items()
                            if n == e.name]
        for k in range(3):
            ops = []
            for o in e.ops:
                mm = re.match(r'^(\w*)\((\w+)\)$', o)
                if mm:
                    off = operand_text(mm.group(1), k, i) if mm.group(1) \
                        else ('0' if k == 1 else '')
                    ops.append('%s(%s)' % (off, operand_text(mm.group(2),
                                                             k, i)))
                else:
                    ops.append(operand_text(o, k, i))
            variants = [ops]
            rm = e.rm()
            if rm:      # the rounding mode left out
                variants.append([x for o, x in zip(e.ops, ops) if o != rm])
            if e.m0:    # Esperanto's explicit-mask form
                variants.append(ops + ['m0'])
            for n in names:
                for v in variants:
                    src = n + (' ' + ', '.join(v) if v else '')
                    word = table.encode(n, v)
                    out.append((src, word))
    return out


def assemble(tmp, name, text, link=False):
    src = os.path.join(tmp, name + '.s')
    with open(src, 'w') as f:
        f.write(text)
    out = os.path.join(tmp, name + ('.elf' if link else '.o'))
    cmd = [GCC, '-B' + os.path.join(ROOT, 'tools', 'bin') + '/'] + ARCH
    if link:
        cmd += ['-nostdlib', '-static', '-Wl,--no-relax',
                '-T' + os.path.join(PROJ, 'firmware-stubs', 'etsoc1.ld')]
    else:
        cmd += ['-c']
    p = subprocess.run(cmd + [src, '-o', out], capture_output=True,
                       text=True)
    return p.returncode, p.stderr, out


def text_words(path, objdump='riscv64-unknown-elf-objdump'):
    """[(address, word, text)] of the instructions in .text."""
    p = subprocess.run([objdump, '-d', '-j', '.text', path],
                       capture_output=True, text=True)
    out = []
    for line in p.stdout.splitlines():
        m = re.match(r'^\s*([0-9a-f]+):\t([0-9a-f]{8})\s+\t(.*)$', line)
        if m:
            out.append((int(m.group(1), 16), int(m.group(2), 16),
                        norm(m.group(3))))
    return out


def norm(text):
    """mnemonic and operands, whitespace normalized."""
    parts = text.split(None, 1)
    return ' '.join(parts[:1] + [p.replace(' ', '') for p in parts[1:]])


def canonical(table, word):
    name, ops = table.disasm(word)
    return (name + ' ' + ops) if ops else name


def qemu_xi(rt, elf, addr, n, chunk=64):
    """QEMU's disassembly of @n words at @addr (monitor x/i, CPU paused).

    One x/i of @chunk instructions at a time, each answer read to the next
    prompt: the monitor drops output still queued for a full pipe when it
    quits."""
    cmd = [rt.QEMU, '-M', 'etsoc1,shires=1', '-smp', '64', '-display',
           'none', '-serial', 'none', '-monitor', 'stdio', '-S',
           '-kernel', elf]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    data = b''

    def until_prompt():
        nonlocal data
        while not data.endswith(b'(qemu) '):
            if not select.select([p.stdout], [], [], 60)[0]:
                p.kill()            # no prompt within a minute
                return False
            b = os.read(p.stdout.fileno(), 65536)
            if not b:
                return False
            data += b
        return True
    out = {}
    ok = until_prompt()
    for a in range(addr, addr + 4 * n, 4 * chunk):
        if not ok:
            break
        data = b''
        p.stdin.write(b'x/%di 0x%x\n' % (min(chunk, (addr + 4 * n - a) // 4),
                                         a))
        p.stdin.flush()
        ok = until_prompt()
        for line in data.decode(errors='replace').splitlines():
            m = re.match(r'^0x([0-9a-f]+):\s+([0-9a-f]{8})\s+(.*)$', line)
            if m:
                out[int(m.group(1), 16)] = norm(m.group(3))
    p.stdin.write(b'quit\n')
    p.stdin.close()
    rest = p.stdout.read()
    p.wait(timeout=60)
    return out, (data + rest).decode(errors='replace')


BAD = [
    # (source line, message regex)
    ('fadd.px f0, f1, f2', r'unrecognized ET instruction `fadd\.px'),
    ('amoaddq.w a0, a1, (a2)', r'unrecognized ET instruction `amoaddq\.w'),
    ('fadd.ps f0, f32, f2', r'register out of range `f32\''),
    ('amoaddg.d a0, x32, (a2)', r'register out of range `x32\''),
    ('maskand m8, m1, m2', r'register out of range `m8\''),
    ('fadd.ps f0, m1, f2', r'`m1\': an f register is needed, not a mask'),
    ('maskor m1, f2, m3', r'`f2\': a mask register \(m0-m7\) is needed, '
                          r'not an f register'),
    ('fbcx.ps f1, f2', r'`f2\': an integer register is needed'),
    ('fslli.pi f0, f1, 32',
     r'immediate out of range `32\' \(uimm5: 0\.\.31\)'),
    ('flw.ps f0, 2048(a0)', r'immediate out of range `2048\''),
    ('mov.m.x m0, zero, 256', r'immediate out of range `256\''),
    ('faddi.pi f0, f1, -513', r'immediate out of range `-513\''),
    ('fadd.ps f0, f1, f2, m3', r'predicated by m0, not `m3\''),
    ('fadd.ps f0, f1, f2, rxx', r'illegal rounding mode `rxx\''),
    ('amoaddl.w a0, a1, 4(a2)', r'takes no offset'),
    ('fmadd.ps f0, f1, f2', r'fmadd\.ps takes 5 operands'),
    ('fslli.pi f0, f1, sym', r'needs a constant expression'),
]


def asm_tests(rt=None):
    """The asm group.  @rt: the harness (ROOT, report), by default
    tests/etsoc1test/harness.py."""
    global ROOT
    if rt is None:
        from etsoc1test import harness as rt
    ROOT = rt.ROOT
    table = etisa.Table()
    report = rt.report
    with tempfile.TemporaryDirectory() as tmp:
        # --- every entry, every form ------------------------------------
        cases = forms(table)
        body = ''.join('\t%s\n' % src for src, _ in cases)
        rc, err, elf = assemble(tmp, 'all', '\t.text\n\t.globl _start\n'
                                '_start:\n' + body, link=True)
        report(rc == 0, 'asm: %d forms of %d table entries assemble'
               % (len(cases), len(table.insns)), err)
        if rc != 0:
            return
        words = text_words(elf)
        got = [w for _, w, _ in words]
        want = [w for _, w in cases]
        bad = ['%s: 0x%08x, want 0x%08x' % (s, g, w)
               for (s, w), g in zip(cases, got) if g != w]
        report(len(got) == len(want) and not bad,
               'asm: every word is the table\'s encoding',
               '\n'.join(bad[:20]) + '\n%d words, %d cases'
               % (len(got), len(want)))
        # --- the decoder's encodings ------------------------------------
        pats = decoder_patterns()
        bad = []
        for src, w in cases:
            name = table.decode(w).name
            if name in NOT_DECODED:
                if any(w & m == v for p in pats.values() for m, v in p):
                    bad.append('%s: decoded, but the table says it is not'
                               % src)
                continue
            dn = decoder_name(name)
            if not any(w & m == v for m, v in pats.get(dn, [])):
                bad.append('%s (0x%08x) does not match decoder pattern %s'
                           % (src, w, dn))
        report(not bad and len(pats) > 150,
               'asm: every encoding matches its pattern in the decoder '
               '(%d patterns)' % len(pats), '\n'.join(bad[:30]))
        # --- the CSR rows against the table ------------------------------
        rows = model_csr_rows()
        bad = ['%s: %s is 0x%x in the model, %s in tools/et-insns.tsv'
               % (f, name, num or 0, hex(table.csrs[name])
                  if name in table.csrs else 'absent')
               for num, name, f in rows if table.csrs.get(name) != num]
        nums = [num for num, _, _ in rows]
        bad += ['0x%x has two rows' % n for n in set(nums)
                if nums.count(n) > 1]
        report(len(rows) >= 37 and not bad,
               'asm: the %d ET CSR rows of hw/etsoc1 have the numbers and '
               'names of tools/et-insns.tsv' % len(rows), '\n'.join(bad))
        # --- et-objdump -------------------------------------------------
        dump = text_words(elf, os.path.join(ROOT, 'tools', 'bin',
                                            'et-objdump'))
        bad = ['0x%08x: %r, want %r' % (w, t, canonical(table, w))
               for _, w, t in dump if t != canonical(table, w)]
        report(len(dump) == len(cases) and not bad,
               'asm: et-objdump prints every form back as its text',
               '\n'.join(bad[:20]))
        # without mapping symbols objdump reads 0x1f/0x3f/0x5f as the start
        # of long instructions; et-objdump must still see every word
        stripped = elf + '.stripped'
        subprocess.run(['riscv64-unknown-elf-strip', '-o', stripped, elf])
        sdump = text_words(stripped, os.path.join(ROOT, 'tools', 'bin',
                                                  'et-objdump'))
        report(sdump == dump, 'asm: et-objdump of the stripped kernel too',
               '\n'.join('%s / %s' % p for p in zip(sdump, dump)
                         if p[0] != p[1]))
        # the canonical text assembles to the same word again
        body = ''.join('\t%s\n' % t for _, _, t in dump)
        rc, err, elf2 = assemble(tmp, 'again', '\t.text\n\t.globl _start\n'
                                 '_start:\n' + body, link=True)
        again = [w for _, w, _ in text_words(elf2)] if rc == 0 else []
        report(again == got, 'asm: the disassembled text reassembles to the '
               'same words', err)
        # --- QEMU's disassembler ----------------------------------------
        xi, log = qemu_xi(rt, elf, words[0][0], len(words))
        bad = ['0x%x 0x%08x: QEMU %r, want %r'
               % (a, w, xi.get(a), canonical(table, w))
               for a, w, _ in words if xi.get(a) != canonical(table, w)]
        report(not bad, 'asm: QEMU (monitor x/i) shows every form by name',
               log[-1500:] + '\n' + '\n'.join(bad[:20]))
        # --- CSR names ----------------------------------------------------
        csrs = sorted(table.csrs.items())
        body = ''.join('\tcsrr a0, %s\n\tcsrw %s, a1\n\tcsrrwi a2, %s, 5\n'
                       % (n, n, n) for n, _ in csrs)
        rc, err, celf = assemble(tmp, 'csr', '\t.text\n\t.globl _start\n'
                                 '_start:\n' + body, link=True)
        cw = text_words(celf) if rc == 0 else []
        want = []
        for n, num in csrs:
            want += [num << 20 | 2 << 12 | 10 << 7 | 0x73,
                     num << 20 | 11 << 15 | 1 << 12 | 0x73,
                     num << 20 | 5 << 15 | 5 << 12 | 12 << 7 | 0x73]
        report([w for _, w, _ in cw] == want,
               'asm: %d ET CSR names assemble to their numbers' % len(csrs),
               err)
        # et-objdump: what objdump prints, the ET CSR number named
        plain = [t for _, _, t in text_words(celf)] if rc == 0 else []
        texts = []
        for t, (n, num) in zip(plain, [c for c in csrs for _ in range(3)]):
            texts.append(t.replace('0x%x' % num, n))
        od = [t for _, _, t in text_words(celf, os.path.join(
            ROOT, 'tools', 'bin', 'et-objdump'))] if rc == 0 else []
        report(od == texts and len(od) == 3 * len(csrs),
               'asm: et-objdump names the ET CSRs',
               '\n'.join('%s / %s' % p for p in zip(od, texts)
                         if p[0] != p[1]))
        texts = []
        for n, _ in csrs:
            texts += ['csrrs a0,%s,zero' % n, 'csrrw zero,%s,a1' % n,
                      'csrrwi a2,%s,5' % n]
        xi, log = qemu_xi(rt, celf, cw[0][0], len(cw)) if cw else ({}, '')
        qt = [xi.get(a) for a, _, _ in cw]
        report(qt == texts, 'asm: QEMU (monitor x/i) names the ET CSRs',
               '\n'.join('%s / %s' % p for p in zip(qt, texts)
                         if p[0] != p[1]) + log[-1000:])
        # --- -d in_asm on a running kernel --------------------------------
        inasm = os.path.join(tmp, 'in_asm.log')
        rc, out, _ = rt.run(rt.qemu_cmd('atomics', extra=[
            '-d', 'in_asm', '-D', inasm]), 120)
        log = open(inasm).read() if os.path.exists(inasm) else ''
        shown = set()
        illegal = []
        for line in log.splitlines():
            m = re.match(r'^0x[0-9a-f]+:\s+([0-9a-f]{8})\s+(\S+)', line)
            if not m:
                continue
            w = int(m.group(1), 16)
            if table.decode(w) is not None:
                if m.group(2) == table.decode(w).name:
                    shown.add(m.group(2))
                else:
                    illegal.append(line)
        need = {'amoaddl.w', 'amocmpswapg.d', 'amoswapg.w', 'sbg', 'shl'}
        report(rc == 0 and need <= shown and not illegal,
               'asm: -d in_asm shows isa/atomics\' ET instructions by name '
               '(%d kinds)' % len(shown),
               'missing %s\n%s' % (sorted(need - shown), '\n'.join(
                   illegal[:10])))
        # --- bad operands -------------------------------------------------
        for n, (line, pattern) in enumerate(BAD):
            text = '\t.text\n\tadd a0, a0, a1\n\t%s\n\tadd a0, a0, a1\n' % line
            rc, err, obj = assemble(tmp, 'bad%d' % n, text)
            ok = (rc != 0 and not os.path.exists(obj) and
                  re.search(r'bad%d\.s:3: Error: .*%s' % (n, pattern), err))
            report(bool(ok), 'asm: refused with the line: %s' % line, err)
        # a standard error after ET lines keeps its line number
        text = ('\t.text\n\tfadd.ps f0, f1, f2; fadd.ps f0, f1, f2\n'
                '/* a comment\n over lines */ flw.ps f0, 0(a0)\n'
                '\tadd a0, a0\n')
        rc, err, _ = assemble(tmp, 'lines', text)
        report(rc != 0 and re.search(r'lines\.s:5: Error: illegal operands',
                                     err),
               'asm: GNU as errors keep their line after ET lines', err)
        # --- offsets GNU as computes: %lo() relocations -------------------
        lo = [('flw.ps f3, %lo(buf)(a0)', 'flw.ps', ['f3', '{}(a0)']),
              ('fsw.ps f4, %lo(buf+32)(a1), m0', 'fsw.ps',
               ['f4', '{}(a1)'], 32),
              ('flq2 f5, %lo(buf)(a2)', 'flq2', ['f5', '{}(a2)']),
              ('fsq2 f6, %lo(buf)(a3)', 'fsq2', ['f6', '{}(a3)']),
              ('fbc.ps f7, %lo(buf)(a4)', 'fbc.ps', ['f7', '{}(a4)'])]
        text = ('\t.text\n\t.globl _start\n_start:\n' +
                ''.join('\t%s\n' % c[0] for c in lo) +
                '\t.data\n\t.skip 100\nbuf:\t.word 0\n')
        rc, err, lelf = assemble(tmp, 'lo', text, link=True)
        got = [w for _, w, _ in text_words(lelf)] if rc == 0 else []
        nm = subprocess.run(['riscv64-unknown-elf-nm', lelf],
                            capture_output=True, text=True).stdout
        m = re.search(r'^([0-9a-f]+) \w buf$', nm, re.M)
        buf = int(m.group(1), 16) if m else 0
        want = []
        for c in lo:
            off = (buf + (c[3] if len(c) > 3 else 0)) & 0xfff
            off = off - 0x1000 if off >= 0x800 else off
            want.append(table.encode(c[1], [c[2][0], c[2][1].format(off)]))
        report(rc == 0 and got == want,
               'asm: %lo() offsets of ET loads and stores are left to as',
               err + ' '.join('%08x' % w for w in got))
        # --- standard code passes unchanged -------------------------------
        std = ('\t.text\n1:\tadd a0, a1, a2\n\tcsrr a0, mhartid\n'
               '\tfadd.s fa0, fa1, fa2, rtz\n\tflw f1, 8(sp)\n\tbnez a0, 1b\n'
               '\t.word 0x12345678\n\tfence\n\tli t0, 0x123456789\n')
        rc1, err1, o1 = assemble(tmp, 'std', std)
        src = os.path.join(tmp, 'std.s')
        o2 = os.path.join(tmp, 'std-real.o')
        p = subprocess.run(['riscv64-unknown-elf-as'] + ARCH + [src, '-o',
                                                                o2],
                           capture_output=True, text=True)
        same = rc1 == 0 and p.returncode == 0 and \
            subprocess.run(['riscv64-unknown-elf-objcopy', '-O', 'binary',
                            '-j', '.text', o1, o1 + '.bin']).returncode == 0 \
            and subprocess.run(['riscv64-unknown-elf-objcopy', '-O',
                                'binary', '-j', '.text', o2,
                                o2 + '.bin']).returncode == 0 and \
            open(o1 + '.bin', 'rb').read() == open(o2 + '.bin', 'rb').read()
        report(same, 'asm: standard code assembles as Debian\'s as does it',
               err1 + p.stderr)
