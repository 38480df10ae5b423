# SPDX-License-Identifier: GPL-2.0-or-later
"""The ET-Minion instruction table (et-insns.tsv) as Python.

One module for everything that reads the table: the assembler front end
(et-as) encodes with it, et-objdump and the tests decode and print with it,
and "python3 etisa.py gen-c" writes the C data QEMU's disassembler includes
(disas/riscv-etsoc1.c.inc).  docs/assembler.md describes the table.
"""

import ast
import os
import re
import sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     'et-insns.tsv')

# Fixed fields of the "fields" column: name -> (lsb, width)
FIXED = {'op': (0, 7), 'f3': (12, 3), 'f7': (25, 7), 'f2': (25, 2),
         'rs2': (20, 5)}

# Register operands: kind -> (register class, lsb, width)
REGS = {'xd': ('x', 7, 5), 'xs1': ('x', 15, 5), 'xs2': ('x', 20, 5),
        'fd': ('f', 7, 5), 'fs1': ('f', 15, 5), 'fs2': ('f', 20, 5),
        'fs3': ('f', 27, 5), 'fst': ('f', 7, 5),
        'md': ('m', 7, 3), 'ms1': ('m', 15, 3), 'ms2': ('m', 20, 3)}

# Immediate operands: kind -> (pieces [(word lsb, width, imm lsb)], lo, hi)
IMMS = {'simm12': ([(20, 12, 0)], -2048, 2047),
        'simm12s': ([(7, 5, 0), (25, 7, 5)], -2048, 2047),
        'imm20': ([(12, 20, 0)], -0x80000, 0xfffff),
        'simm10': ([(20, 5, 0), (27, 5, 5)], -512, 511),
        'uimm5': ([(20, 5, 0)], 0, 31),
        'uimm3': ([(20, 3, 0)], 0, 7),
        'uimm8': ([(12, 3, 0), (20, 5, 3)], 0, 255),
        'uimm4': ([(18, 2, 0), (23, 2, 2)], 0, 15)}
HEX_IMMS = ('imm20', 'uimm8')           # printed in hex

RM = {'rne': 0, 'rtz': 1, 'rdn': 2, 'rup': 3, 'rmm': 4, 'dyn': 7}
RM_NAME = {v: k for k, v in RM.items()}
# optional rounding-mode operands and the mode an omitted one means
RM_DEFAULT = {'rm': 'dyn', 'rm0': 'rne'}

XNAMES = ['zero', 'ra', 'sp', 'gp', 'tp', 't0', 't1', 't2', 's0', 's1',
          'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 's2', 's3', 's4',
          's5', 's6', 's7', 's8', 's9', 's10', 's11', 't3', 't4', 't5', 't6']
FABI = (['ft%d' % i for i in range(8)] + ['fs0', 'fs1'] +
        ['fa%d' % i for i in range(8)] + ['fs%d' % i for i in range(2, 12)] +
        ['ft%d' % i for i in range(8, 12)])

REGNUM = {'x': {}, 'f': {}, 'm': {}}
for _i in range(32):
    REGNUM['x']['x%d' % _i] = _i
    REGNUM['x'][XNAMES[_i]] = _i
    REGNUM['f']['f%d' % _i] = _i
    REGNUM['f'][FABI[_i]] = _i
REGNUM['x']['fp'] = 8
for _i in range(8):
    REGNUM['m']['m%d' % _i] = _i
CLASS_NAME = {'x': 'an integer register', 'f': 'an f register',
              'm': 'a mask register (m0-m7)'}

# Mnemonics that look like ET ones: an unknown one is an error, never
# passed on to the standard assembler (which would say "unrecognized
# opcode" without saying why).
ET_LOOKING = re.compile(r'^(?:[a-z0-9_.]+\.p[si]|amo[a-z0-9]+\.[wd]|'
                        r'mask[a-z.]*|mova?\.[a-z]+\.[a-z]+|'
                        r'f(?:g|sc)[a-z0-9]*\.ps|s[bh][lg]|'
                        r'[a-z0-9_.]*\.rast|[a-z0-9_.]+\.p[a-z]?|'
                        r'flq\d*|fsq\d*)$')

# the standard AMOs (A, Zacas), which an ET-looking name may still be
STD_AMO = re.compile(r'^amo(?:swap|add|xor|and|or|min|max|minu|maxu|cas)'
                     r'\.[wdq](?:\.aq|\.rl|\.aqrl)?$')

CSR_INSNS = {'csrr': 1, 'csrw': 0, 'csrs': 0, 'csrc': 0, 'csrwi': 0,
             'csrsi': 0, 'csrci': 0, 'csrrw': 1, 'csrrs': 1, 'csrrc': 1,
             'csrrwi': 1, 'csrrsi': 1, 'csrrci': 1}


class AsmError(Exception):
    pass


class NotConstant(AsmError):
    """An operand that only GNU as can evaluate (a symbol, %lo(...))."""


class Insn:
    def __init__(self, name, ops, fields, ext, m0):
        self.name = name
        self.ops = [o.strip() for o in ops.split(',')] if ops != '-' else []
        self.ext = ext
        self.m0 = m0 == 'm0'
        self.fields = fields
        self.match = 0
        opbits = 0
        for k in self.kinds():
            opbits |= kind_bits(k)
        fixbits = 0
        for f in fields.split():
            key, val = f.split('=')
            lsb, width = FIXED[key]
            v = int(val, 0)
            assert v < 1 << width, (name, f)
            bits = ((1 << width) - 1) << lsb
            assert not bits & opbits, (name, f, 'overlaps an operand')
            fixbits |= bits
            self.match |= v << lsb
        self.mask = 0xffffffff & ~opbits

    def rm(self):
        """The rounding-mode operand kind, or None."""
        return next((o for o in self.ops if o in RM_DEFAULT), None)

    def kinds(self):
        """Every operand kind, memory operands split in two."""
        out = []
        for o in self.ops:
            m = re.match(r'^(\w*)\((\w+)\)$', o)
            if m:
                if m.group(1):
                    out.append(m.group(1))
                out.append(m.group(2))
            else:
                out.append(o)
        return out


def kind_bits(k):
    if k in REGS:
        _, lsb, width = REGS[k]
        return ((1 << width) - 1) << lsb
    if k in IMMS:
        b = 0
        for lsb, width, _ in IMMS[k][0]:
            b |= ((1 << width) - 1) << lsb
        return b
    if k in ('rm', 'rm0'):
        return 7 << 12
    raise ValueError('unknown operand kind ' + k)


class Table:
    def __init__(self, path=TABLE):
        self.insns = []
        self.by_name = {}
        self.aliases = {}
        self.csrs = {}
        self.csr_names = {}
        with open(path) as f:
            for line in f:
                if not line.strip() or line.startswith('#'):
                    continue
                cols = line.rstrip('\n').split('\t')
                if cols[0] == 'insn':
                    i = Insn(*cols[1:6])
                    assert i.name not in self.by_name, i.name
                    self.insns.append(i)
                    self.by_name[i.name] = i
                elif cols[0] == 'alias':
                    self.aliases[cols[1]] = cols[2]
                elif cols[0] == 'csr':
                    self.csrs[cols[1]] = int(cols[2], 0)
                    self.csr_names[int(cols[2], 0)] = cols[1]
                else:
                    raise ValueError('bad table row: ' + line)
        # no word may match two entries: decoding takes the first match
        for n, a in enumerate(self.insns):
            for b in self.insns[n + 1:]:
                both = a.mask & b.mask
                assert a.match & both != b.match & both, (a.name, b.name)

    def lookup(self, mnemonic):
        m = mnemonic.lower()
        return self.by_name.get(self.aliases.get(m, m))

    # --- decoding ------------------------------------------------------------

    def decode(self, word):
        """The table entry that encodes @word, or None."""
        for i in self.insns:
            if word & i.mask == i.match:
                if i.rm() and (word >> 12 & 7) not in RM_NAME:
                    return None         # reserved rounding mode
                return i
        return None

    def disasm(self, word):
        """(mnemonic, operand text) for @word, or None if it is not ET."""
        i = self.decode(word)
        if i is None:
            return None
        out = []
        for o in i.ops:
            m = re.match(r'^(\w*)\((\w+)\)$', o)
            if m:
                off = fmt_operand(m.group(1), word) if m.group(1) else ''
                out.append('%s(%s)' % (off, fmt_operand(m.group(2), word)))
            elif o in RM_DEFAULT:
                rm = RM_NAME[word >> 12 & 7]
                if rm != RM_DEFAULT[o]:
                    out.append(rm)
            else:
                out.append(fmt_operand(o, word))
        return i.name, ','.join(out)

    # --- encoding ------------------------------------------------------------

    def encode(self, mnemonic, args, symbols=None):
        """The instruction word for @mnemonic with operand texts @args."""
        i = self.lookup(mnemonic)
        if i is None:
            raise AsmError('unrecognized ET instruction `%s\'' % mnemonic)
        args = list(args)
        nops = len(i.ops)
        if i.m0 and len(args) > nops - bool(i.rm()):
            last = args[-1].strip().lower()
            if last in REGNUM['m']:
                if last != 'm0':
                    raise AsmError('%s is predicated by m0, not `%s\''
                                   % (i.name, args[-1].strip()))
                args.pop()
        if i.rm() and len(args) == nops - 1:
            args.insert(i.ops.index(i.rm()), RM_DEFAULT[i.rm()])
        if len(args) != nops:
            raise AsmError('%s takes %d operand%s (%s), got %d'
                           % (i.name, nops, '' if nops == 1 else 's',
                              ', '.join(i.ops), len(args)))
        word = i.match
        for kind, text in zip(i.ops, args):
            text = text.strip()
            m = re.match(r'^(\w*)\((\w+)\)$', kind)
            if m:
                mm = re.match(r'^(.*)\(\s*([^()]*?)\s*\)$', text)
                if not mm:
                    raise AsmError('illegal operand `%s\': expected %s'
                                   % (text, kind))
                off, base = mm.group(1).strip(), mm.group(2)
                if m.group(1):
                    word |= put(m.group(1), off or '0', symbols)
                elif off and const_eval(off, symbols) != 0:
                    raise AsmError('illegal operand `%s\': %s takes no '
                                   'offset' % (text, i.name))
                word |= put(m.group(2), base, symbols)
            else:
                word |= put(kind, text, symbols)
        return word


def fmt_operand(kind, word):
    if kind in REGS:
        cls, lsb, width = REGS[kind]
        n = word >> lsb & ((1 << width) - 1)
        return XNAMES[n] if cls == 'x' else '%s%d' % (cls, n)
    pieces, lo, hi = IMMS[kind]
    v = 0
    for lsb, width, ilsb in pieces:
        v |= (word >> lsb & ((1 << width) - 1)) << ilsb
    nbits = sum(w for _, w, _ in pieces)
    if kind in HEX_IMMS:
        return '0x%x' % v
    if lo < 0 and v >> (nbits - 1):
        v -= 1 << nbits
    return '%d' % v


def reg_error(text, cls):
    t = text.lower()
    for other in ('x', 'f', 'm'):
        if other != cls and t in REGNUM[other]:
            raise AsmError('illegal operand `%s\': %s is needed, not %s'
                           % (text, CLASS_NAME[cls], CLASS_NAME[other]))
    m = re.match(r'^([xfm])(\d+)$', t)
    if m and m.group(1) == cls:
        raise AsmError('register out of range `%s\'' % text)
    raise AsmError('illegal operand `%s\': %s is needed'
                   % (text, CLASS_NAME[cls]))


def put(kind, text, symbols):
    if kind in REGS:
        cls, lsb, width = REGS[kind]
        n = REGNUM[cls].get(text.lower())
        if n is None:
            reg_error(text, cls)
        return n << lsb
    if kind in RM_DEFAULT:
        rm = RM.get(text.lower())
        if rm is None:
            raise AsmError('illegal rounding mode `%s\'' % text)
        return rm << 12
    pieces, lo, hi = IMMS[kind]
    t = text.lower()
    for cls in ('x', 'f', 'm'):
        if t in REGNUM[cls]:
            raise AsmError('illegal operand `%s\': an immediate is needed, '
                           'not %s' % (text, CLASS_NAME[cls]))
    v = const_eval(text, symbols)
    if not lo <= v <= hi:
        raise AsmError('immediate out of range `%s\' (%s: %d..%d)'
                       % (text, kind, lo, hi))
    nbits = sum(w for _, w, _ in pieces)
    v &= (1 << nbits) - 1
    word = 0
    for lsb, width, ilsb in pieces:
        word |= (v >> ilsb & ((1 << width) - 1)) << lsb
    return word


_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.LShift: lambda a, b: a << b,
           ast.RShift: lambda a, b: a >> b, ast.BitOr: lambda a, b: a | b,
           ast.BitAnd: lambda a, b: a & b, ast.BitXor: lambda a, b: a ^ b,
           ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b}


def const_eval(text, symbols=None):
    """An integer constant expression as GNU as reads one (C literals,
    + - * / % << >> | & ^ ~, parentheses, symbols set by .equ/.set)."""
    src = text.strip()
    src = re.sub(r'\b0[bB]([01]+)\b', r'0b\1', src)
    src = re.sub(r'\b0([0-7]+)\b', r'0o\1', src)       # C octal
    src = src.replace('/', '//')

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.UnaryOp):
            v = ev(n.operand)
            if isinstance(n.op, ast.USub):
                return -v
            if isinstance(n.op, ast.UAdd):
                return v
            if isinstance(n.op, ast.Invert):
                return ~v
        if isinstance(n, ast.BinOp) and type(n.op) in _BINOPS:
            return _BINOPS[type(n.op)](ev(n.left), ev(n.right))
        if isinstance(n, ast.Name) and symbols and n.id in symbols:
            return symbols[n.id]
        raise ValueError
    try:
        return ev(ast.parse(src, mode='eval'))
    except (ValueError, SyntaxError, ZeroDivisionError, TypeError):
        raise NotConstant('illegal operand `%s\': the ET front end needs a '
                          'constant expression here' % text)


# I- and S-type memory instructions whose offset GNU as may compute (a
# symbol, a relocation such as %lo(sym)): fd/fs2 and offset(base) only
INSN_IS = {('fd', 'simm12(xs1)'): 'i', ('fs2', 'simm12s(xs1)'): 's'}


def line_for(table, mnemonic, args, symbols=None):
    """The assembly line for an ET instruction: the encoded word, or, for
    an I/S-type load or store whose offset is not a constant, GNU as's
    `.insn i/s' form of the same fields, so that as resolves the offset."""
    try:
        return directive(table.encode(mnemonic, args, symbols))
    except NotConstant:
        i = table.lookup(mnemonic)
        fmt = INSN_IS.get(tuple(i.ops))
        if fmt is None or len(args) not in (2, 3) or \
                len(args) == 3 and (not i.m0 or args[2].strip() != 'm0'):
            raise
        mm = re.match(r'^(.*)\(\s*([^()]*?)\s*\)$', args[1].strip())
        if not mm or not mm.group(1).strip():
            raise
        # every field but the offset, checked by the encoder
        table.encode(mnemonic, [args[0], '(%s)' % mm.group(2)], symbols)
        reg = 'f%d' % REGNUM['f'][args[0].strip().lower()]
        base = XNAMES[REGNUM['x'][mm.group(2).lower()]]
        return '.insn %s 0x%02x, %d, %s, %s(%s)' % (
            fmt, i.match & 0x7f, i.match >> 12 & 7, reg, mm.group(1).strip(),
            base)


def directive(word):
    """The line of assembly that emits @word as one instruction."""
    if word & 0x1f == 0x1f:
        # GNU as reads these low bits as the RISC-V 48/64-bit length
        # prefix and refuses `.insn 4'; the minion has no long
        # instructions, so the word is data to as (objdump shows .word)
        return '.word 0x%08x' % word
    return '.insn 4, 0x%08x' % word


# --- C data for QEMU's disassembler ------------------------------------------

def gen_c(table):
    out = ['/* SPDX-License-Identifier: GPL-2.0-or-later */',
           '/*',
           ' * Generated by tools/etisa.py gen-c from tools/et-insns.tsv:',
           ' * do not edit.  The ET-Minion instructions and CSRs for',
           ' * target/etsoc1/etsoc1-disas.c',
           ' * (qemu-patches/0008-disas-riscv-etsoc1.patch).',
           ' */',
           '',
           'static const Etsoc1DisInsn etsoc1_dis_insns[] = {']
    for i in table.insns:
        out.append('    { 0x%08x, 0x%08x, "%s", "%s" },'
                   % (i.match, i.mask, i.name, ','.join(i.ops)))
    out.append('};')
    out.append('')
    out.append('static const Etsoc1DisKind etsoc1_dis_kinds[] = {')
    for k, (cls, lsb, width) in REGS.items():
        out.append('    { "%s", \'%s\', false, false, 1, { { %d, %d, 0 } } },'
                   % (k, cls, lsb, width))
    for k, (pieces, lo, hi) in IMMS.items():
        p = ', '.join('{ %d, %d, %d }' % q for q in pieces)
        out.append('    { "%s", \'i\', %s, %s, %d, { %s } },'
                   % (k, 'true' if lo < 0 else 'false',
                      'true' if k in HEX_IMMS else 'false', len(pieces), p))
    out.append('    { "rm", \'r\', false, false, 1, { { 12, 3, 0 } } },')
    out.append('    { "rm0", \'r\', false, false, 1, { { 12, 3, 0 } } },')
    out.append('};')
    out.append('')
    out.append('static const Etsoc1DisCsr etsoc1_dis_csrs[] = {')
    for n, num in sorted(table.csrs.items(), key=lambda kv: kv[1]):
        out.append('    { 0x%03x, "%s" },' % (num, n))
    out.append('};')
    return '\n'.join(out) + '\n'


if __name__ == '__main__':
    t = Table()
    if sys.argv[1:2] == ['gen-c']:
        sys.stdout.write(gen_c(t))
    elif sys.argv[1:2] == ['list']:
        for i in t.insns:
            print('%08x %08x %s %s' % (i.match, i.mask, i.name, i.ops))
    else:
        sys.exit('usage: etisa.py gen-c|list')
