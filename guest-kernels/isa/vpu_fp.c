/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Packed-single FP known answers: every FP operation, every rounding mode
 * (through frm), every pair of 16 inputs (normal, signed zero, subnormal,
 * extremes, infinities, quiet and signalling NaNs with payloads).  Each
 * result lane is computed alone (m0 = one lane) so that its fflags can be
 * read; the lines printed here are checked by tests/run.py against its own
 * exact-arithmetic reference (tests/f32ref.py).
 *
 *   "<op> <rm> <i>: <16 results> | <16 fflags>"   lane j uses a = IN[i]
 *   (broadcast), b = IN[j], c = IN[(i + j) % 16] for the fused ops; the
 *   fp16 conversions take b from their own tables, and so do the
 *   transcendentals in line 0 (their special cases), which in lines 1-15
 *   take pseudo-random normals from random_in() instead; the int32
 *   conversions likewise, with special cases in lines 0 and 1.
 *   The compares into a mask (feqm, fltm, flem; md = m1) print bit j of
 *   m1 as lane j's result, then the mask of a run with every lane on:
 *   "<op> mask <rm> <i>: <m1, lanes 0-7> <8-15> | <fflags> <fflags>"
 *
 *   "masked in: <8 a> | <8 b> | <8 c>", then "<op> masked: <8 f4> | <fflags>"
 *   for a few operations run once with m0 = 0xa5 over f4 = SENTINEL.
 *   "<op>.rm <rm> <i>: ..." as above for fadd, fmul and fcvt.pw.ps with
 *   the rounding mode in funct3 and frm = rm + 2 (mod 5).
 * TAP: reserved rounding modes are illegal instructions.
 *
 * The scalar F instructions with the same operands print the same lines
 * ("fadd.s ..."): they flush subnormals as the packed ones do.
 */
#include <stdbool.h>
#include "etsoc1.h"
#include "et-vpu.h"
#include "tap.h"

static const uint32_t in[16] __attribute__((aligned(32))) = {
    0x00000000, 0x80000000, 0x3f800000, 0xbfc00000, 0x7f7fffff, 0x00800000,
    0x00000001, 0x807fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fc12345,
    0x7f812345, 0x3eaaaaab, 0x3f7fffff, 0xcb7fffff,
};

/* fcvt.f16.ps: f16 boundaries (max, overflow, subnormals, ties) */
static const uint32_t in_cvt16[16] __attribute__((aligned(32))) = {
    0x477fe000, 0x477ff000, 0xc77fefff, 0x38800000, 0x33800000, 0x33000000,
    0x33000001, 0xb3c00000, 0x387fc000, 0x3eaaaaab, 0x40490fdb, 0x7f812345,
    0xffc00001, 0xff800000, 0x80000000, 0x3f801000,
};

/* fcvt.ps.f16 reads the low half of each lane; the high half is noise */
static const uint32_t in_f16[16] __attribute__((aligned(32))) = {
    0xdead0000, 0x00008000, 0x12343c00, 0xffffbe00, 0x00007bff, 0x55550400,
    0x00000001, 0x000083ff, 0x7fff7c00, 0x0000fc00, 0x00007e00, 0x00007e5a,
    0x00007c01, 0x0000fd00, 0x00003555, 0xaaaac248,
};

/* fexp.ps: the special cases around -126 and 128, integers are exact */
static const uint32_t in_exp[16] __attribute__((aligned(32))) = {
    0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x7fa00000, 0xffc00001,
    0xc2fc0000, 0xc2fc0001, 0xff800000, 0x43000000, 0x42ffffff, 0x7f800000,
    0xc2fbffff, 0x3f000000, 0xbfc00000, 0x40490fdb,
};

/* flog.ps: zeros, negatives, 1, powers of two, both sides of 1 */
static const uint32_t in_log[16] __attribute__((aligned(32))) = {
    0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x7fa00000, 0x7fc00000,
    0xbf800000, 0xff800000, 0x7f800000, 0x3f800000, 0x00800000, 0x7f7fffff,
    0x3f7fffff, 0x3f800001, 0x3fb504f4, 0x40490fdb,
};

/* frcp.ps: zeros, infinities, the limit 2^126 */
static const uint32_t in_rcp[16] __attribute__((aligned(32))) = {
    0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x7fa00000, 0xffc12345,
    0x7f800000, 0xff800000, 0x7e800000, 0xfe800000, 0x7e800001, 0x7e7fffff,
    0x7f7fffff, 0x00800000, 0x40400000, 0xbdcccccd,
};

/* fcvt.pw[u].ps: ties, the int32 and uint32 bounds, flushes, NaNs */
static const uint32_t in_to_int[32] __attribute__((aligned(32))) = {
    0x00000000, 0x80000000, 0x3f000000, 0xbf000000, 0x3fc00000, 0xbfc00000,
    0x40200000, 0xbf400000, 0x3f7fffff, 0x3f800000, 0x4b7fffff, 0x4effffff,
    0x4f000000, 0xcf000000, 0xcf000001, 0xceffffff, 0x4f7fffff, 0x4f800000,
    0x00000001, 0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff,
    0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f812345, 0xff812345,
    0x4b000001, 0xcb400001,
};

/* fcvt.ps.pw[u]: 0, +-1, the int32 bounds, 2^24 +- 1, ties at 2^24..2^31 */
static const uint32_t in_from_int[32] __attribute__((aligned(32))) = {
    0x00000000, 0x00000001, 0xffffffff, 0x80000000, 0x7fffffff, 0x80000001,
    0x00ffffff, 0x01000000, 0x01000001, 0x01000003, 0xfeffffff, 0xff000001,
    0x7fffffc0, 0x7fffffbf, 0x7fffff80, 0xffffff80, 0x00000003, 0x12345678,
    0x89abcdef, 0xfffffffe, 0x01000002, 0x02000006, 0x00800001, 0x40000040,
    0x400000c0, 0xc0000040, 0x7ffffff0, 0x0000ffff, 0x00010000, 0xfffe0000,
    0x55555555, 0xaaaaaaaa,
};

/*
 * Masked runs, m0 = 0xa5 (lanes 0, 2, 5 and 7 on), fd preset to SENTINEL:
 * the active lanes raise at most NX in fadd, fmadd, fcvt.pw.ps and feq;
 * the others would raise NV, DN, OF or UF.
 */
#define SENTINEL 0x5e5e5e5eu
static const uint32_t masked_a[8] __attribute__((aligned(32))) = {
    0x3f800000, 0x7f812345, 0xbfc00000, 0x7f7fffff, 0xff800000, 0x80000000,
    0x00800000, 0x40490fdb,
};
static const uint32_t masked_b[8] __attribute__((aligned(32))) = {
    0x40000000, 0x00000001, 0xbfc00000, 0x7f7fffff, 0x7f800000, 0x80000000,
    0x3f000000, 0xcb7fffff,
};
static const uint32_t masked_c[8] __attribute__((aligned(32))) = {
    0x40400000, 0x7f7fffff, 0x3e800000, 0x7f7fffff, 0x00000000, 0x80000000,
    0x80800000, 0x3f800000,
};
static const uint32_t sentinel[8] __attribute__((aligned(32))) = {
    SENTINEL, SENTINEL, SENTINEL, SENTINEL,
    SENTINEL, SENTINEL, SENTINEL, SENTINEL,
};

static uint32_t cvec[32] __attribute__((aligned(32)));
static uint32_t out[8] __attribute__((aligned(32)));

enum {
    ADD, SUB, MUL, DIV, SQRT, MIN, MAX, FMADD, FMSUB, FNMSUB, FNMADD,
    FROUND, FFRC, CVT_F16, CVT_PS_F16, FEXP, FLOG, FRCP, FSGNJ, FSGNJN,
    FSGNJX, FEQ, FLT, FLE, FEQM, FLTM, FLEM, FCLASS, CVT_PW, CVT_PWU,
    CVT_PS_PW, CVT_PS_PWU, NOPS
};
static const char *const names[NOPS] = {
    "fadd", "fsub", "fmul", "fdiv", "fsqrt", "fmin", "fmax",
    "fmadd", "fmsub", "fnmsub", "fnmadd", "fround", "ffrc",
    "fcvt.f16.ps", "fcvt.ps.f16", "fexp", "flog", "frcp", "fsgnj",
    "fsgnjn", "fsgnjx", "feq", "flt", "fle", "feqm", "fltm", "flem",
    "fclass", "fcvt.pw.ps", "fcvt.pwu.ps", "fcvt.ps.pw", "fcvt.ps.pwu",
};

/* f1 = a (broadcast), f2 = b lanes, f3 = c lanes -> f4 (or m1) */
static void run(unsigned op)
{
    switch (op) {
    case ADD: __asm__ volatile("fadd.ps f4, f1, f2"); break;
    case SUB: __asm__ volatile("fsub.ps f4, f1, f2"); break;
    case MUL: __asm__ volatile("fmul.ps f4, f1, f2"); break;
    case DIV: __asm__ volatile("fdiv.ps f4, f1, f2"); break;
    case SQRT: __asm__ volatile("fsqrt.ps f4, f2, dyn"); break;
    case MIN: __asm__ volatile("fmin.ps f4, f1, f2"); break;
    case MAX: __asm__ volatile("fmax.ps f4, f1, f2"); break;
    case FMADD: __asm__ volatile("fmadd.ps f4, f1, f2, f3"); break;
    case FMSUB: __asm__ volatile("fmsub.ps f4, f1, f2, f3"); break;
    case FNMSUB: __asm__ volatile("fnmsub.ps f4, f1, f2, f3"); break;
    case FNMADD: __asm__ volatile("fnmadd.ps f4, f1, f2, f3"); break;
    case FROUND: __asm__ volatile("fround.ps f4, f2"); break;      /* rs2 1 */
    case FFRC: __asm__ volatile("ffrc.ps f4, f2"); break;         /* rs2 2 */
    case CVT_F16: __asm__ volatile("fcvt.f16.ps f4, f2"); break;     /* rs2 9, rm = frm */
    case CVT_PS_F16: __asm__ volatile("fcvt.ps.f16 f4, f2"); break; /* rs2 10 */
    case FEXP: __asm__ volatile("fexp.ps f4, f2"); break;         /* rs2 4 */
    case FLOG: __asm__ volatile("flog.ps f4, f2"); break;         /* rs2 3 */
    case FRCP: __asm__ volatile("frcp.ps f4, f2"); break;         /* rs2 7 */
    case FSGNJ: __asm__ volatile("fsgnj.ps f4, f1, f2"); break;
    case FSGNJN: __asm__ volatile("fsgnjn.ps f4, f1, f2"); break;
    case FSGNJX: __asm__ volatile("fsgnjx.ps f4, f1, f2"); break;
    case FLE: __asm__ volatile("fle.ps f4, f1, f2"); break;
    case FLT: __asm__ volatile("flt.ps f4, f1, f2"); break;
    case FEQ: __asm__ volatile("feq.ps f4, f1, f2"); break;
    case FLEM: __asm__ volatile("flem.ps m1, f1, f2"); break;         /* md = m1 */
    case FLTM: __asm__ volatile("fltm.ps m1, f1, f2"); break;
    case FEQM: __asm__ volatile("feqm.ps m1, f1, f2"); break;
    case FCLASS: __asm__ volatile("fclass.ps f4, f2"); break;
    case CVT_PW: __asm__ volatile("fcvt.pw.ps f4, f2"); break;       /* rs2 0 */
    case CVT_PWU: __asm__ volatile("fcvt.pwu.ps f4, f2"); break;      /* rs2 1 */
    case CVT_PS_PW: __asm__ volatile("fcvt.ps.pw f4, f2"); break;
    default: __asm__ volatile("fcvt.ps.pwu f4, f2"); break;           /* fcvt.ps.pwu */
    }
}

/* the operations also run with a static rounding mode */
static const unsigned rm_ops[3] = { ADD, MUL, CVT_PW };

/*
 * fadd, fmul or fcvt.pw.ps with rounding mode @rm in funct3 (0-6); the
 * reserved modes 5 and 6 have no name, so those are the raw words
 */
#define RM_CASE(n, rm)                                                  \
    case n:                                                             \
        if (op == ADD) {                                                \
            __asm__ volatile("fadd.ps f4, f1, f2, " #rm);               \
        } else if (op == MUL) {                                         \
            __asm__ volatile("fmul.ps f4, f1, f2, " #rm);               \
        } else {                                                        \
            __asm__ volatile("fcvt.pw.ps f4, f2, " #rm);                \
        }                                                               \
        break
#define RM_RAW(n, add, mul, cvt)                                        \
    case n:                                                             \
        if (op == ADD) {                                                \
            __asm__ volatile(".insn 4, " #add);                         \
        } else if (op == MUL) {                                         \
            __asm__ volatile(".insn 4, " #mul);                         \
        } else {                                                        \
            __asm__ volatile(".insn 4, " #cvt);                         \
        }                                                               \
        break
static void run_static(unsigned op, unsigned rm)
{
    switch (rm) {
    RM_CASE(0, rne); RM_CASE(1, rtz); RM_CASE(2, rdn); RM_CASE(3, rup);
    RM_CASE(4, rmm);
    RM_RAW(5, 0x0020d27b, 0x1020d27b, 0xc001527b);
    RM_RAW(6, 0x0020e27b, 0x1020e27b, 0xc001627b);
    }
}
#undef RM_RAW
#undef RM_CASE

/*
 * Input @n = 16 i + j of a transcendental (i >= 1) or an int32 conversion
 * (i >= 2): a pseudo-random normal in the function's domain (from fp32:
 * 2^-3 <= |x| < 2^33, past both bounds), or an int32 of any magnitude,
 * so that the reference sees more than the special cases.  tests/run.py
 * repeats this computation.
 */
static uint32_t random_in(unsigned op, unsigned n)
{
    uint32_t h = (n + 1) * 0x9e3779b9u, e;

    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    e = h >> 23 & 0xff;
    if (op == CVT_PS_PW || op == CVT_PS_PWU) {
        return h & 1 ? -(h >> e % 32) : h >> e % 32;
    }
    if (op == CVT_PW || op == CVT_PWU) {
        e = 0x7c + e % 36;
    } else if (op == FEXP) {
        e = 0x66 + e % 32;                  /* 2^-25 <= |x| < 128 */
    } else if (op == FLOG) {
        /* positive; half of them in [0.5, 2), where log2 is near zero */
        e = h >> 31 ? 0x7e + e % 2 : 1 + e % 254;
        h &= 0x7fffffff;
    } else {
        e = 1 + e % 254;
    }
    return (h & 0x807fffff) | e << 23;
}

/* The 16 b inputs of line @i of @op */
static const uint32_t *inputs(unsigned op, unsigned i)
{
    static uint32_t gen[16] __attribute__((aligned(32)));
    unsigned k;

    switch (op) {
    case CVT_F16: return in_cvt16;
    case CVT_PS_F16: return in_f16;
    case FEXP: case FLOG: case FRCP: break;
    case CVT_PW: case CVT_PWU: case CVT_PS_PW: case CVT_PS_PWU: break;
    default: return in;
    }
    if (i == 0 && op >= FEXP && op <= FRCP) {
        return op == FEXP ? in_exp : op == FLOG ? in_log : in_rcp;
    }
    if (i < 2 && op >= CVT_PW) {
        return (op <= CVT_PWU ? in_to_int : in_from_int) + 16 * i;
    }
    for (k = 0; k < 16; k++) {
        gen[k] = random_in(op, 16 * i + k);
    }
    return gen;
}

/* The scalar F instruction of @op on (a, b, c), rounding mode frm */
static uint32_t run_scalar(unsigned op, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r;

#define SCALAR(insn)                                                    \
    __asm__ volatile("fmv.w.x f1, %1\n\tfmv.w.x f2, %2\n\t"             \
                     "fmv.w.x f3, %3\n\t" insn "\n\tfmv.x.w %0, f4"      \
                     : "=r"(r) : "r"(a), "r"(b), "r"(c)                 \
                     : "f1", "f2", "f3", "f4")
    switch (op) {
    case ADD: SCALAR("fadd.s f4, f1, f2"); break;
    case SUB: SCALAR("fsub.s f4, f1, f2"); break;
    case MUL: SCALAR("fmul.s f4, f1, f2"); break;
    case DIV: SCALAR("fdiv.s f4, f1, f2"); break;
    case SQRT: SCALAR("fsqrt.s f4, f2"); break;
    case MIN: SCALAR("fmin.s f4, f1, f2"); break;
    case MAX: SCALAR("fmax.s f4, f1, f2"); break;
    case FMADD: SCALAR("fmadd.s f4, f1, f2, f3"); break;
    case FMSUB: SCALAR("fmsub.s f4, f1, f2, f3"); break;
    case FNMSUB: SCALAR("fnmsub.s f4, f1, f2, f3"); break;
    default: SCALAR("fnmadd.s f4, f1, f2, f3"); break;
    }
#undef SCALAR
    return r;
}

/* fflags with bit 31 (denormal operand) moved to bit 5, for 2 hex digits */
static uint32_t read_flags(void)
{
    uint64_t f = csr_read(fflags);

    return (f & 0x1f) | (f >> 31) << 5;
}

static void print_hex(const uint32_t *v, unsigned n)
{
    unsigned k;

    for (k = 0; k < n; k++) {
        print(" %08x", v[k]);
    }
}

static void print_line(const char *name, const char *suffix, unsigned rm,
                       unsigned i, const uint32_t *res, const uint32_t *flags)
{
    unsigned k;

    print("%s%s %u %u:", name, suffix, rm, i);
    print_hex(res, 16);
    print(" |");
    for (k = 0; k < 16; k++) {
        print(" %02x", flags[k]);
    }
    print("\n");
}

static bool writes_mask(unsigned op)
{
    return op == FEQM || op == FLTM || op == FLEM;
}

/*
 * Line @i of @op: lane j of f4 (bit j of m1 for a compare into a mask)
 * and its fflags, each lane computed alone (m0 = that lane).  @srm < 0:
 * as run() has it, else run_static() with rounding mode @srm.
 */
static void run_line(unsigned op, int srm, unsigned i, uint32_t *res,
                     uint32_t *flags)
{
    unsigned half, e;

    set_m0(0xff);
    FBC_PS(f1, &in[i]);
    for (half = 0; half < 2; half++) {
        set_m0(0xff);
        FLW_PS(f2, &inputs(op, i)[half * 8]);
        FLW_PS(f3, &cvec[i + half * 8]);
        for (e = 0; e < 8; e++) {
            set_m0(1u << e);
            csr_write(fflags, 0);
            if (srm < 0) {
                run(op);
            } else {
                run_static(op, srm);
            }
            flags[half * 8 + e] = read_flags();
            if (writes_mask(op)) {
                res[half * 8 + e] = mova_x_m() >> (8 + e) & 1;
            }
        }
        if (!writes_mask(op)) {
            set_m0(0xff);
            FSW_PS(f4, out);
            for (e = 0; e < 8; e++) {
                res[half * 8 + e] = out[e];
            }
        }
    }
}

/* A compare into m1 with all eight lanes on, after run_line() */
static void print_mask_line(unsigned op, unsigned rm, unsigned i)
{
    uint32_t m[2], flags[2];
    unsigned half;

    set_m0(0xff);
    for (half = 0; half < 2; half++) {
        FLW_PS(f2, &inputs(op, i)[half * 8]);
        csr_write(fflags, 0);
        run(op);
        flags[half] = read_flags();
        m[half] = mova_x_m() >> 8 & 0xff;
    }
    print("%s mask %u %u: %02x %02x | %02x %02x\n", names[op], rm, i,
          m[0], m[1], flags[0], flags[1]);
}

/* fadd, fmadd, fcvt.pw.ps and feq with m0 = 0xa5, frm = RNE */
static void print_masked_lines(void)
{
    static const unsigned ops[] = { ADD, FMADD, CVT_PW, FEQ };
    unsigned k, flags;

    print("masked in:");
    print_hex(masked_a, 8);
    print(" |");
    print_hex(masked_b, 8);
    print(" |");
    print_hex(masked_c, 8);
    print("\n");
    csr_write(frm, 0);
    for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        set_m0(0xff);
        FLW_PS(f1, masked_a);
        FLW_PS(f2, masked_b);
        FLW_PS(f3, masked_c);
        FLW_PS(f4, sentinel);
        set_m0(0xa5);
        csr_write(fflags, 0);
        run(ops[k]);
        flags = read_flags();
        set_m0(0xff);
        FSW_PS(f4, out);
        print("%s masked:", names[ops[k]]);
        print_hex(out, 8);
        print(" | %02x\n", flags);
    }
}

static volatile bool catching;

/* Skips the instruction while trapped() runs one; any other trap fails */
void trap_handler(struct trap_frame *f)
{
    if (!catching) {
        print("unexpected trap: mcause 0x%lx mepc 0x%lx\n", f->mcause,
              f->mepc);
        fail("unexpected trap");
    }
    trap_record(f);
}

/*
 * Run @op with funct3 @rm (run_static(); 7: run()) and frm = @dyn over
 * f4 = SENTINEL: 1 if it was an illegal instruction that left f4 and
 * fflags alone, 0 if it ran without a trap, -1 otherwise.
 */
static int trapped(unsigned op, unsigned rm, unsigned dyn)
{
    unsigned e, kept = 1;

    set_m0(0xff);
    FLW_PS(f4, sentinel);
    csr_write(frm, dyn);
    csr_write(fflags, 0);
    trap_seen.count = 0;
    trap_seen.cause = 0;
    catching = true;
    if (rm == 7) {
        run(op);
    } else {
        run_static(op, rm);
    }
    catching = false;
    FSW_PS(f4, out);
    for (e = 0; e < 8; e++) {
        kept &= out[e] == SENTINEL;
    }
    if (trap_seen.count == 0) {
        return 0;
    }
    return trap_seen.count == 1 && trap_seen.cause == 2 && kept &&
           csr_read(fflags) == 0
           ? 1 : -1;
}

/* Reserved rounding modes (isa.md section 9, RISC-V F): TAP */
static void check_reserved_rm(void)
{
    static const unsigned no_rm[] = { FSGNJ, FEQ, FEQM, FCLASS };
    unsigned k, op, rm, dyn, n;

    for (k = 0; k < 3; k++) {
        op = rm_ops[k];
        CHECK(trapped(op, 5, 0) == 1 && trapped(op, 6, 0) == 1,
              "%s: rm 5 and 6 in funct3 are illegal instructions, fd and "
              "fflags kept", names[op]);
        CHECK(trapped(op, 7, 5) == 1 && trapped(op, 7, 6) == 1 &&
              trapped(op, 7, 7) == 1, "%s: funct3 7 with frm 5, 6 or 7 is "
              "an illegal instruction, fd and fflags kept", names[op]);
        for (rm = n = 0; rm < 5; rm++) {
            for (dyn = 5; dyn < 8; dyn++) {
                n += trapped(op, rm, dyn) == 0;
            }
        }
        CHECK(n == 15, "%s: rm 0-4 in funct3 run with frm 5, 6 and 7 "
              "(%u of 15)", names[op], n);
    }
    for (k = n = 0; k < sizeof(no_rm) / sizeof(no_rm[0]); k++) {
        n += trapped(no_rm[k], 7, 7) == 0;
    }
    CHECK_EQ(n, 4, "fsgnj, feq, feqm and fclass.ps (no rounding) run with "
             "frm = 7");
    csr_write(frm, 0);
}

/*
 * fmadd.ps with fs3 = f27 rounds by its funct3: its [31:25] (rs3 27, fmt
 * 0) is 0x6c, fcvt.f16.ps's funct7, which once made the helper round it
 * by frm.  1 x 1 + 1.5 x 2^-24 is 1 + 2^-23 to nearest, 1 towards zero.
 */
static void check_fmadd_f27(void)
{
    static const uint32_t one[8] __attribute__((aligned(32))) = {
        0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000,
        0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000,
    };
    static const uint32_t tiny[8] __attribute__((aligned(32))) = {
        0x33c00000, 0x33c00000, 0x33c00000, 0x33c00000,
        0x33c00000, 0x33c00000, 0x33c00000, 0x33c00000,
    };

    set_m0(0xff);
    FLW_PS(f1, one);
    FLW_PS(f2, one);
    FLW_PS(f27, tiny);
    csr_write(frm, 0);                                  /* rne */
    __asm__ volatile("fmadd.ps f4, f1, f2, f27, rtz");
    FSW_PS(f4, out);
    CHECK(out[0] == 0x3f800000 && out[7] == 0x3f800000,
          "fmadd.ps f4, f1, f2, f27, rtz with frm rne rounds towards zero "
          "(0x%x, want 0x3f800000)", out[0]);
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned op, rm, i, k;
    uint32_t res[16], flags[16];

    if (hartid != 0) {
        return 0;
    }
    for (k = 0; k < 32; k++) {
        cvec[k] = in[k % 16];
    }
    for (op = 0; op < NOPS; op++) {
        for (rm = 0; rm < 5; rm++) {
            csr_write(frm, rm);
            for (i = 0; i < 16; i++) {
                run_line(op, -1, i, res, flags);
                print_line(names[op], "", rm, i, res, flags);
                if (writes_mask(op)) {
                    print_mask_line(op, rm, i);
                }
            }
        }
    }
    print_masked_lines();
    for (k = 0; k < 3; k++) {
        for (rm = 0; rm < 5; rm++) {
            csr_write(frm, (rm + 2) % 5);
            for (i = 0; i < 16; i++) {
                run_line(rm_ops[k], rm, i, res, flags);
                print_line(names[rm_ops[k]], ".rm", rm, i, res, flags);
            }
        }
    }
    check_reserved_rm();
    check_fmadd_f27();
    for (op = 0; op <= FNMADD; op++) {
        for (rm = 0; rm < 5; rm++) {
            csr_write(frm, rm);
            for (i = 0; i < 16; i++) {
                for (k = 0; k < 16; k++) {
                    csr_write(fflags, 0);
                    res[k] = run_scalar(op, in[i], in[k], in[(i + k) % 16]);
                    flags[k] = read_flags();
                }
                print_line(names[op], ".s", rm, i, res, flags);
            }
        }
    }
    print("vpu_fp: done\n");
    tap_done();     /* tests/run.py reads the TAP lines */
    return 0;
}
