/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The packed graphics instructions (docs/isa.md, "Graphics instructions").
 *
 * TAP part: with minion_feature[0] set (its reset value) every one of
 * them is an illegal instruction; with it clear none is, and those that
 * set a rounding mode trap when frm holds a reserved one.
 *
 * Data part, checked by tests/run.py against its own reference
 * (tests/gfxref.py):
 *   "in <op> <v>: <8 a> | <8 b> | <8 d>"   inputs of vector v (fs1, fs2, fd)
 *   "<op> <rm> <v>: <8 results> | <fflags>"  all lanes on, frm = rm
 *   "<op> mask: <8 results>"                vector 0, m0 = 0xa5, fd lanes
 *                                           preset to 0x5e5e5e5e
 *   "maskpopc.rast <sel> <m1> <m2>: <x>"
 * fflags prints bit 31 (denormal operand) as bit 5.
 */
#include <stdbool.h>
#include "etsoc1.h"
#include "et-vpu.h"
#include "tap.h"

#define NV 8                    /* vectors of 8 lanes per operation */
#define SENTINEL 0x5e5e5e5eu

enum {
    F10_PS, F11_PS, UN24_PS, UN16_PS, UN10_PS, UN8_PS, UN2_PS, SN16_PS,
    SN8_PS, RAST_PS, PS_F10, PS_F11, PS_UN24, PS_UN16, PS_UN10, PS_UN8,
    PS_UN2, PS_SN16, PS_SN8, PS_RAST, FRCP_FIX, CUBEFACE, CUBEFACEIDX,
    CUBESGNSC, CUBESGNTC, NOPS
};
static const char *const names[NOPS] = {
    "fcvt.f10.ps", "fcvt.f11.ps", "fcvt.un24.ps", "fcvt.un16.ps",
    "fcvt.un10.ps", "fcvt.un8.ps", "fcvt.un2.ps", "fcvt.sn16.ps",
    "fcvt.sn8.ps", "fcvt.rast.ps", "fcvt.ps.f10", "fcvt.ps.f11",
    "fcvt.ps.un24", "fcvt.ps.un16", "fcvt.ps.un10", "fcvt.ps.un8",
    "fcvt.ps.un2", "fcvt.ps.sn16", "fcvt.ps.sn8", "fcvt.ps.rast",
    "frcp.fix.rast", "cubeface.ps", "cubefaceidx.ps", "cubesgnsc.ps",
    "cubesgntc.ps",
};

/* f1 = a, f2 = b, f4 = d in and result out; rs2 names the format */
static void run(unsigned op)
{
    switch (op) {
    case F10_PS: __asm__ volatile("fcvt.f10.ps f4, f1"); break;
    case F11_PS: __asm__ volatile("fcvt.f11.ps f4, f1"); break;
    case UN24_PS: __asm__ volatile("fcvt.un24.ps f4, f1"); break;
    case UN16_PS: __asm__ volatile("fcvt.un16.ps f4, f1"); break;
    case UN10_PS: __asm__ volatile("fcvt.un10.ps f4, f1"); break;
    case UN8_PS: __asm__ volatile("fcvt.un8.ps f4, f1"); break;
    case UN2_PS: __asm__ volatile("fcvt.un2.ps f4, f1"); break;
    case SN16_PS: __asm__ volatile("fcvt.sn16.ps f4, f1"); break;
    case SN8_PS: __asm__ volatile("fcvt.sn8.ps f4, f1"); break;
    case RAST_PS: __asm__ volatile("fcvt.rast.ps f4, f1"); break;
    case PS_F10: __asm__ volatile("fcvt.ps.f10 f4, f1"); break;
    case PS_F11: __asm__ volatile("fcvt.ps.f11 f4, f1"); break;
    case PS_UN24: __asm__ volatile("fcvt.ps.un24 f4, f1"); break;
    case PS_UN16: __asm__ volatile("fcvt.ps.un16 f4, f1"); break;
    case PS_UN10: __asm__ volatile("fcvt.ps.un10 f4, f1"); break;
    case PS_UN8: __asm__ volatile("fcvt.ps.un8 f4, f1"); break;
    case PS_UN2: __asm__ volatile("fcvt.ps.un2 f4, f1"); break;
    case PS_SN16: __asm__ volatile("fcvt.ps.sn16 f4, f1"); break;
    case PS_SN8: __asm__ volatile("fcvt.ps.sn8 f4, f1"); break;
    case PS_RAST: __asm__ volatile(".insn 4, 0xd020b27b"); break;  /* funct3 not used */
    case FRCP_FIX: __asm__ volatile(".insn 4, 0x3020d27b"); break; /* funct3 not used */
    case CUBEFACE: __asm__ volatile("cubeface.ps f4, f1, f2"); break;
    case CUBEFACEIDX: __asm__ volatile("cubefaceidx.ps f4, f1, f2"); break;
    case CUBESGNSC: __asm__ volatile("cubesgnsc.ps f4, f1, f2"); break;
    default: __asm__ volatile("cubesgntc.ps f4, f1, f2"); break;
    }
}

/* fp32 inputs of the conversions from fp32: the special cases */
static const uint32_t f32_special[32] = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000, 0xbf000000,
    0x3eaaaaab, 0x3f2aaaab, 0x3f7fffff, 0x3f800001, 0x40000000, 0xbe99999a,
    0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0x7f800000, 0xff800000,
    0x7fc00000, 0x7f812345, 0xffc00001, 0x477fe000, 0x47800000, 0x37800000,
    0x35800000, 0x38ffffff, 0x39000000, 0x78800000, 0x787fffff, 0xf87fffff,
    0x38c00000, 0x4b000001,
};

/* packed-format inputs of the conversions to fp32 (high bits are noise) */
static const uint32_t int_special[32] = {
    0x00000000, 0x00000001, 0x00000002, 0x00000003, 0x0000007f, 0x00000080,
    0x00000081, 0x000000ff, 0x000001ff, 0x00000200, 0x000003ff, 0x00007fff,
    0x00008000, 0x00008001, 0x0000ffff, 0x007fffff, 0x00800000, 0x00ffffff,
    0x7fffffff, 0x80000000, 0xffffffff, 0x000003e0, 0x000003f0, 0x000003df,
    0x0000001f, 0x00000020, 0x000007c0, 0x000007e0, 0x000007bf, 0x0000003f,
    0xdead3c00, 0x01000001,
};

/*
 * frcp.fix.rast (a, b): 15.16 and 17.14.  Lanes 13 and 14 are cases where
 * binary64 rounds, of 2ab and of b (2 - ab) respectively.
 */
static const uint32_t rcp_a[16] = {
    0x00030000, 0x00010000, 0x00000000, 0xfffd0000, 0x7fffffff, 0x80000000,
    0x80000000, 0x00008000, 0x12345678, 0x00000001, 0xffffffff, 0x40000000,
    0x00100000, 0x7ffff001, 0x188f5c29, 0x00000000,
};
static const uint32_t rcp_b[16] = {
    0x00001555, 0x00004000, 0x00004000, 0x00001555, 0x7fffffff, 0x80000000,
    0x7fffffff, 0x00008000, 0x00000038, 0x7fffffff, 0x80000000, 0x00000001,
    0x00000400, 0x004001ff, 0x01000005, 0x00000000,
};

/* cube maps: b operands (signs, zeros, NaNs, subnormals) */
static const uint32_t cube_b[16] = {
    0x3f800000, 0xbf800000, 0x00000000, 0x80000000, 0x7fc00000, 0xffc00000,
    0x00000001, 0x80000001, 0x7f800000, 0xff800000, 0x40490fdb, 0xc0490fdb,
    0x7f812345, 0xff812345, 0x00000003, 0xfffffffe,
};

static uint32_t hash(uint32_t n)
{
    uint32_t h = (n + 1) * 0x9e3779b9u;

    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    h *= 0x297a2d39u;
    h ^= h >> 15;
    return h;
}

static uint32_t in_a[NV * 8] __attribute__((aligned(32)));
static uint32_t in_b[NV * 8] __attribute__((aligned(32)));
static uint32_t in_d[NV * 8] __attribute__((aligned(32)));
static uint32_t out[8] __attribute__((aligned(32)));
static uint32_t sentinel[8] __attribute__((aligned(32)));

/* The inputs of @op: special cases first, then pseudo-random ones */
static void make_inputs(unsigned op)
{
    unsigned k;
    uint32_t h, g;

    for (k = 0; k < NV * 8; k++) {
        h = hash(op * 1000 + k);
        g = hash(op * 1000 + k + 500);
        in_b[k] = 0;
        in_d[k] = 0;
        if (op <= RAST_PS) {
            /* exponents 2^-24 .. 2^19: unorm/snorm, rast and f10 ranges */
            in_a[k] = k < 32 ? f32_special[k]
                             : (h & 0x807fffff) | (0x67 + h % 44) << 23;
        } else if (op <= PS_RAST) {
            in_a[k] = k < 32 ? int_special[k] : h;
        } else if (op == FRCP_FIX) {
            in_a[k] = k < 16 ? rcp_a[k] : k < 40 ? h : h >> (h % 24);
            in_b[k] = k < 16 ? rcp_b[k] : k < 40 ? g : g >> (g % 24);
        } else {
            /* faces 0-7 with noise above, b signs, fd's own bit 0 */
            in_a[k] = (h & ~7u) | (k & 7);
            in_b[k] = k < 16 ? cube_b[k] : g;
            in_d[k] = (k >> 3) & 1 ? h >> 8 : (k >> 4) & 1;
        }
    }
}

static void load(const uint32_t *a, const uint32_t *b, const uint32_t *d)
{
    set_m0(0xff);
    FLW_PS(f1, a);
    FLW_PS(f2, b);
    FLW_PS(f4, d);
}

static uint32_t read_flags(void)
{
    uint64_t f = csr_read(fflags);

    return (f & 0x1f) | (f >> 31) << 5;
}

static void print8(const uint32_t *v)
{
    unsigned e;

    for (e = 0; e < 8; e++) {
        print(" %08x", v[e]);
    }
}

/* maskpopc.rast a0, m[ms1], m[ms2] with quad select @sel */
#define MPR(sel, ms1, ms2) ({                                           \
        register uint64_t r_ __asm__("a0") = SENTINEL;                  \
        __asm__ volatile("maskpopc.rast a0, m" #ms1 ", m" #ms2 ", " #sel \
                         : "+r"(r_));                                   \
        r_; })

/* Run @op once over vector 0 and tell whether it trapped (cause 2) */
static int traps_once(unsigned op)
{
    make_inputs(op);
    load(in_a, in_b, in_d);
    trap_seen.count = 0;
    trap_seen.cause = 0;
    run(op);
    return trap_seen.count == 1 && trap_seen.cause == 2;
}

static void maskpopc_lines(void)
{
    static const uint8_t pats[3][2] = {
        { 0xff, 0xff }, { 0xa5, 0x3c }, { 0x0f, 0xf1 },
    };
    uint64_t r[16];
    unsigned p, s;

    for (p = 0; p < 3; p++) {
        /* m1 = pats[p][0], m7 = pats[p][1], m0 stays all ones */
        mova_m_x(0xffULL | (uint64_t)pats[p][0] << 8 |
                 (uint64_t)pats[p][1] << 56);
        r[0] = MPR(0, 1, 7); r[1] = MPR(1, 1, 7);
        r[2] = MPR(2, 1, 7); r[3] = MPR(3, 1, 7);
        r[4] = MPR(4, 1, 7); r[5] = MPR(5, 1, 7);
        r[6] = MPR(6, 1, 7); r[7] = MPR(7, 1, 7);
        r[8] = MPR(8, 1, 7); r[9] = MPR(9, 1, 7);
        r[10] = MPR(10, 1, 7); r[11] = MPR(11, 1, 7);
        r[12] = MPR(12, 1, 7); r[13] = MPR(13, 1, 7);
        r[14] = MPR(14, 1, 7); r[15] = MPR(15, 1, 7);
        for (s = 0; s < 16; s++) {
            print("maskpopc.rast %u %02x %02x: %lx\n", s, pats[p][0],
                  pats[p][1], (unsigned long)r[s]);
        }
    }
    mova_m_x(0xff);
}

int main(uint64_t hartid, const void *fdt)
{
    uint64_t feat = ESR_OTHER(PP_M, 0, MINION_FEATURE);
    unsigned op, rm, v, n;
    uint64_t x;

    trap_recording = 1;     /* runtime trap_record() */
    if (hartid != 0) {
        return 0;
    }
    for (v = 0; v < 8; v++) {
        sentinel[v] = SENTINEL;
    }
    csr_write(frm, 0);

    /* the reset value: an ML part, graphics off */
    CHECK_EQ(esr_read(feat) & 1, 1, "minion_feature[0] is set at reset");
    for (op = n = 0; op < NOPS; op++) {
        n += traps_once(op);
    }
    CHECK_EQ(n, NOPS, "every packed graphics op traps (illegal) while "
             "minion_feature[0] is set");
    load(in_a, in_b, sentinel);
    run(UN8_PS);
    FSW_PS(f4, out);
    CHECK_EQ(out[0], SENTINEL, "a trapped op leaves fd alone");
    trap_seen.count = 0;
    x = MPR(0, 1, 7);
    CHECK(trap_seen.count == 1 && trap_seen.cause == 2 && x == SENTINEL,
          "maskpopc.rast traps while minion_feature[0] is set");

    esr_write(feat, 0);
    CHECK_EQ(esr_read(feat), 0, "minion_feature cleared (M-mode ESR write)");
    for (op = n = 0; op < NOPS; op++) {
        n += !traps_once(op) && trap_seen.count == 0;
    }
    CHECK_EQ(n, NOPS, "with minion_feature[0] clear none traps");
    mova_m_x(0xffULL | 0xffULL << 8 | 0xffULL << 56);
    trap_seen.count = 0;
    x = MPR(3, 1, 7);
    CHECK(trap_seen.count == 0 && x == 16,
          "maskpopc.rast runs once it is clear");

    /* frm = 5: the ops that set a rounding mode trap, the others run */
    csr_write(frm, 5);
    n = 0;
    for (op = 0; op < NOPS; op++) {
        bool sets_rm = op == F10_PS || op == F11_PS || op == RAST_PS ||
                       (op >= PS_UN24 && op <= PS_UN2) || op == PS_RAST ||
                       op == FRCP_FIX;

        n += traps_once(op) == sets_rm && trap_seen.count == sets_rm;
    }
    CHECK_EQ(n, NOPS, "frm 5: illegal exactly for the ops that set a "
             "rounding mode");
    csr_write(frm, 0);

    for (op = 0; op < NOPS; op++) {
        make_inputs(op);
        for (v = 0; v < NV; v++) {
            print("in %s %u:", names[op], v);
            print8(&in_a[8 * v]);
            print(" |");
            print8(&in_b[8 * v]);
            print(" |");
            print8(&in_d[8 * v]);
            print("\n");
        }
        for (rm = 0; rm < 5; rm++) {
            csr_write(frm, rm);
            for (v = 0; v < NV; v++) {
                load(&in_a[8 * v], &in_b[8 * v], &in_d[8 * v]);
                csr_write(fflags, 0);
                run(op);
                n = read_flags();
                FSW_PS(f4, out);
                print("%s %u %u:", names[op], rm, v);
                print8(out);
                print(" | %02x\n", n);
            }
        }
        csr_write(frm, 0);
        load(in_a, in_b, sentinel);
        set_m0(0xa5);
        run(op);
        set_m0(0xff);
        FSW_PS(f4, out);
        print("%s mask:", names[op]);
        print8(out);
        print("\n");
    }
    maskpopc_lines();
    return tap_done();
}
