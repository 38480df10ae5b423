/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Packed-single integer, mask, move and memory instructions, hart 0.
 *
 * The integer lane operations print their results, which tests/run.py
 * checks against its own reference (tests/intref.py):
 *
 *   "in: <16 inputs>"
 *   "<op>[ <imm>] <i>: <16 results>"   lane j from a = in[j] (fs1) and
 *                                      b = in[i] (fs2, broadcast)
 *
 * (the one-source and immediate forms print line 0 only).  Masks, moves,
 * selects, swizzles, packs, memory operations and traps keep their
 * expected values here, in plain C, and print TAP.
 */
#include "etsoc1.h"
#include "et-vpu.h"
#include "tap.h"

static uint32_t A[8] __attribute__((aligned(32))) = {
    0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 12345, 0xdeadbeef, 0x00ff00ff,
};
static uint32_t B[8] __attribute__((aligned(32))) = {
    0, 0xffffffff, 1, 0xffffffff, 31, 0xfffffff0, 7, 0x12345678,
};
static uint32_t C[8] __attribute__((aligned(32))) = {
    0x11111111, 0x22222222, 0x33333333, 0x44444444,
    0x55555555, 0x66666666, 0x77777777, 0x88888888,
};
static uint32_t buf[8] __attribute__((aligned(32)));

static void store_f4(void)
{
    set_m0(0xff);
    FSW_PS(f4, buf);
}

/* edge values: 0, +-1, INT_MIN/MAX, shift amounts >= 32, the sat8 limits */
static const uint32_t in[16] __attribute__((aligned(32))) = {
    0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 7, 31, 32,
    127, 128, 0xffffff80, 0xffffff7f, 255, 256, 0x12345678, 0xdeadbeef,
};

enum {
    ADD, SUB, MUL, MULH, MULHU, DIV, DIVU, REM, REMU, AND, OR, XOR, SLL,
    SRL, SRA, MIN, MAX, MINU, MAXU, LE, LT, EQ, LTU,
    NBIN,                                   /* the one-source forms: */
    NOT = NBIN, SAT8, SATU8, SLLI0, SLLI1, SLLI17, SLLI31, SRLI0, SRLI1,
    SRLI17, SRLI31, SRAI0, SRAI1, SRAI17, SRAI31, ADDI_N512, ADDI_N1,
    ADDI_1, ADDI_511, ANDI_N512, ANDI_N1, ANDI_1F0, ANDI_155, NOPS
};
#define NO_IMM 0x7fffffff
static const struct {
    const char *name;
    int imm;
} ops[NOPS] = {
    { "fadd.pi", NO_IMM }, { "fsub.pi", NO_IMM }, { "fmul.pi", NO_IMM },
    { "fmulh.pi", NO_IMM }, { "fmulhu.pi", NO_IMM }, { "fdiv.pi", NO_IMM },
    { "fdivu.pi", NO_IMM }, { "frem.pi", NO_IMM }, { "fremu.pi", NO_IMM },
    { "fand.pi", NO_IMM }, { "for.pi", NO_IMM }, { "fxor.pi", NO_IMM },
    { "fsll.pi", NO_IMM }, { "fsrl.pi", NO_IMM }, { "fsra.pi", NO_IMM },
    { "fmin.pi", NO_IMM }, { "fmax.pi", NO_IMM }, { "fminu.pi", NO_IMM },
    { "fmaxu.pi", NO_IMM }, { "fle.pi", NO_IMM }, { "flt.pi", NO_IMM },
    { "feq.pi", NO_IMM }, { "fltu.pi", NO_IMM },
    { "fnot.pi", NO_IMM }, { "fsat8.pi", NO_IMM }, { "fsatu8.pi", NO_IMM },
    { "fslli.pi", 0 }, { "fslli.pi", 1 }, { "fslli.pi", 17 },
    { "fslli.pi", 31 }, { "fsrli.pi", 0 }, { "fsrli.pi", 1 },
    { "fsrli.pi", 17 }, { "fsrli.pi", 31 }, { "fsrai.pi", 0 },
    { "fsrai.pi", 1 }, { "fsrai.pi", 17 }, { "fsrai.pi", 31 },
    { "faddi.pi", -512 }, { "faddi.pi", -1 }, { "faddi.pi", 1 },
    { "faddi.pi", 511 }, { "fandi.pi", -512 }, { "fandi.pi", -1 },
    { "fandi.pi", 0x1f0 }, { "fandi.pi", 0x155 },
};

/* f4 = op(f1, f2); the shift immediates are the rs2 field's number */
static void run(unsigned op)
{
    switch (op) {
    case ADD: __asm__ volatile("fadd.pi f4, f1, f2"); break;
    case SUB: __asm__ volatile("fsub.pi f4, f1, f2"); break;
    case MUL: __asm__ volatile("fmul.pi f4, f1, f2"); break;
    case MULH: __asm__ volatile("fmulh.pi f4, f1, f2"); break;
    case MULHU: __asm__ volatile("fmulhu.pi f4, f1, f2"); break;
    case DIV: __asm__ volatile("fdiv.pi f4, f1, f2"); break;
    case DIVU: __asm__ volatile("fdivu.pi f4, f1, f2"); break;
    case REM: __asm__ volatile("frem.pi f4, f1, f2"); break;
    case REMU: __asm__ volatile("fremu.pi f4, f1, f2"); break;
    case AND: __asm__ volatile("fand.pi f4, f1, f2"); break;
    case OR: __asm__ volatile("for.pi f4, f1, f2"); break;
    case XOR: __asm__ volatile("fxor.pi f4, f1, f2"); break;
    case SLL: __asm__ volatile("fsll.pi f4, f1, f2"); break;
    case SRL: __asm__ volatile("fsrl.pi f4, f1, f2"); break;
    case SRA: __asm__ volatile("fsra.pi f4, f1, f2"); break;
    case MIN: __asm__ volatile("fmin.pi f4, f1, f2"); break;
    case MAX: __asm__ volatile("fmax.pi f4, f1, f2"); break;
    case MINU: __asm__ volatile("fminu.pi f4, f1, f2"); break;
    case MAXU: __asm__ volatile("fmaxu.pi f4, f1, f2"); break;
    case LE: __asm__ volatile("fle.pi f4, f1, f2"); break;
    case LT: __asm__ volatile("flt.pi f4, f1, f2"); break;
    case EQ: __asm__ volatile("feq.pi f4, f1, f2"); break;
    case LTU: __asm__ volatile("fltu.pi f4, f1, f2"); break;
    case NOT: __asm__ volatile("fnot.pi f4, f1"); break;
    case SAT8: __asm__ volatile("fsat8.pi f4, f1"); break;
    case SATU8: __asm__ volatile("fsatu8.pi f4, f1"); break;        /* rs2 1 */
    case SLLI0: __asm__ volatile("fslli.pi f4, f1, 0"); break;
    case SLLI1: __asm__ volatile("fslli.pi f4, f1, 1"); break;
    case SLLI17: __asm__ volatile("fslli.pi f4, f1, 17"); break;
    case SLLI31: __asm__ volatile("fslli.pi f4, f1, 31"); break;
    case SRLI0: __asm__ volatile("fsrli.pi f4, f1, 0"); break;
    case SRLI1: __asm__ volatile("fsrli.pi f4, f1, 1"); break;
    case SRLI17: __asm__ volatile("fsrli.pi f4, f1, 17"); break;
    case SRLI31: __asm__ volatile("fsrli.pi f4, f1, 31"); break;
    case SRAI0: __asm__ volatile("fsrai.pi f4, f1, 0"); break;
    case SRAI1: __asm__ volatile("fsrai.pi f4, f1, 1"); break;
    case SRAI17: __asm__ volatile("fsrai.pi f4, f1, 17"); break;
    case SRAI31: __asm__ volatile("fsrai.pi f4, f1, 31"); break;
    case ADDI_N512: __asm__ volatile("faddi.pi f4, f1, -512"); break;
    case ADDI_N1: __asm__ volatile("faddi.pi f4, f1, -1"); break;
    case ADDI_1: __asm__ volatile("faddi.pi f4, f1, 1"); break;
    case ADDI_511: __asm__ volatile("faddi.pi f4, f1, 511"); break;
    case ANDI_N512: __asm__ volatile("fandi.pi f4, f1, -512"); break;
    case ANDI_N1: __asm__ volatile("fandi.pi f4, f1, -1"); break;
    case ANDI_1F0: __asm__ volatile("fandi.pi f4, f1, 496"); break;
    default: __asm__ volatile("fandi.pi f4, f1, 341"); break;
    }
}

/* The known-answer lines of every lane operation (see the top). */
static void print_lanes(void)
{
    static uint32_t res[16] __attribute__((aligned(32)));
    unsigned op, i, k;

    print("in:");
    for (k = 0; k < 16; k++) {
        print(" %08x", in[k]);
    }
    print("\n");
    for (op = 0; op < NOPS; op++) {
        for (i = 0; i < (op < NBIN ? 16 : 1); i++) {
            set_m0(0xff);
            FBCX_PS(f2, in[i]);
            for (k = 0; k < 2; k++) {
                FLW_PS(f1, &in[8 * k]);
                run(op);
                FSW_PS(f4, &res[8 * k]);
            }
            print("%s", ops[op].name);
            if (ops[op].imm != NO_IMM) {
                print(" %d", ops[op].imm);
            }
            print(" %u:", i);
            for (k = 0; k < 16; k++) {
                print(" %08x", res[k]);
            }
            print("\n");
        }
    }
}

static uint64_t fmv_lane(unsigned lane, int sign)
{
    uint64_t r;

    switch (lane + 8 * sign) {
#define L(n) case n: __asm__ volatile("fmvz.x.ps %0, f4, " #n : "=r"(r)); \
    break;
    L(0) L(1) L(2) L(3) L(4) L(5) L(6) L(7)
#undef L
    case 11: __asm__ volatile("fmvs.x.ps %0, f4, 3" : "=r"(r));
        break;
    default: r = 0;
    }
    return r;
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned e, bad;
    uint64_t m;

    trap_recording = 1;     /* runtime trap_record() */
    if (hartid != 0) {
        return 0;
    }
    CHECK_EQ(mova_x_m() & 0xff, 0xff, "m0 is all ones at reset");
    print_lanes();
    set_m0(0xff);
    FLW_PS(f1, A);
    FLW_PS(f2, B);
    set_m0(0x0f);
    __asm__ volatile("fcmovm.ps f4, f1, f2");
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        bad += buf[e] != (e < 4 ? A[e] : B[e]);
    }
    CHECK(bad == 0, "fcmovm.ps selects by m0, writing every lane");
    set_m0(0x3c);
    __asm__ volatile("fbci.pi f4, 0x80000");
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        bad += buf[e] != ((0x3c >> e & 1) ? 0xfff80000u
                                          : (e < 4 ? A[e] : B[e]));
    }
    CHECK(bad == 0,
          "fbci.pi broadcasts the sign-extended immediate (m0 lanes)");
    set_m0(0xff);
    __asm__ volatile("fltm.pi m1, f1, f2");               /* fltm.pi m1 */
    m = mova_x_m() >> 8 & 0xff;
    for (e = 0, bad = 0; e < 8; e++) {
        bad += (m >> e & 1) != ((int32_t)A[e] < (int32_t)B[e]);
    }
    CHECK(bad == 0, "fltm.pi sets m1");

    /* m0 predicates every packed write */
    set_m0(0xff);
    __asm__ volatile("fadd.pi f4, f1, f2");                   /* f4 = A + B */
    set_m0(0x5a);
    __asm__ volatile("fand.pi f4, f1, f2");                   /* lanes 1,3,4,6 = A & B */
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        bad += buf[e] != ((0x5a >> e & 1) ? (A[e] & B[e]) : A[e] + B[e]);
    }
    CHECK(bad == 0, "lanes with m0 clear keep their value");
    set_m0(0);
    __asm__ volatile("fxor.pi f4, f1, f2");
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        bad += buf[e] != ((0x5a >> e & 1) ? (A[e] & B[e]) : A[e] + B[e]);
    }
    CHECK(bad == 0, "m0 = 0 writes nothing");

    /* compares into masks, mask logic, popcount, mova */
    set_m0(0xff);
    __asm__ volatile("fsetm.pi m1, f1");                   /* fsetm.pi m1 = A != 0 */
    __asm__ volatile("flem.ps m2, f1, f2");                   /* flem.ps m2 (floats) */
    m = mova_x_m();
    for (e = 0, bad = 0; e < 8; e++) {
        bad += ((m >> 8) >> e & 1) != (A[e] != 0);
    }
    CHECK(bad == 0, "fsetm.pi sets m1 from non-zero lanes");
    mova_m_x(0x0102040810204080ULL | 0xff);
    CHECK_EQ(mova_x_m(), 0x01020408102040ffULL, "mova.m.x / mova.x.m");
    mova_m_x(0x00000000000f37ffULL);            /* m1 = 0x37, m2 = 0x0f */
    __asm__ volatile("maskand m3, m1, m2");                   /* maskand m3 = m1 & m2 */
    __asm__ volatile("maskor m4, m1, m2");                   /* maskor m4 */
    __asm__ volatile("maskxor m5, m1, m2");                   /* maskxor m5 */
    __asm__ volatile("masknot m6, m1");                   /* masknot m6 = ~m1 */
    m = mova_x_m();
    CHECK_EQ((m >> 24) & 0xffffffff, 0xc8383f07ULL,
             "maskand, maskor, maskxor, masknot");
    {
        uint64_t pc, pz;

        __asm__ volatile("maskpopc %0, m1" : "=r"(pc));
        __asm__ volatile("maskpopcz %0, m1" : "=r"(pz));
        CHECK(pc == 5 && pz == 3, "maskpopc / maskpopcz of m1 = 0x37");
    }
    trap_seen.count = 0;
    __asm__ volatile(".insn 4, 0x6620f47b");   /* maskand with md = 8 */
    CHECK(trap_seen.count == 1 && trap_seen.cause == 2,
          "mask register field above m7 traps");

    /* memory: masked stores, broadcasts */
    for (e = 0; e < 8; e++) {
        buf[e] = 0x55555555;
    }
    set_m0(0x81);
    FSW_PS(f1, buf);
    for (e = 0, bad = 0; e < 8; e++) {
        bad += buf[e] != ((e == 0 || e == 7) ? A[e] : 0x55555555);
    }
    CHECK(bad == 0, "fsw.ps stores only the m0 lanes");
    set_m0(0xff);
    FBC_PS(f4, &B[5]);
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        bad += buf[e] != B[5];
    }
    CHECK(bad == 0, "fbc.ps broadcasts a word");
    FBCX_PS(f4, 0x123456789abcdef0ULL);
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        bad += buf[e] != 0x9abcdef0;
    }
    CHECK(bad == 0, "fbcx.ps broadcasts x[31:0]");
    set_m0(0xff);
    FLW_PS(f4, A);
    CHECK(fmv_lane(6, 0) == 0xdeadbeef &&
          fmv_lane(3, 1) == 0xffffffff80000000ULL,
          "fmvz.x.ps / fmvs.x.ps read one lane");

    /* immediates, select, swizzle, pack (opcodes 0x1f, 0x3f, custom-3) */
    set_m0(0xff);
    FLW_PS(f1, A);
    FLW_PS(f2, B);
    FLW_PS(f3, C);
    set_m0(0xf0);
    __asm__ volatile("fbci.ps f4, 0x3fc0a");        /* low nibble >= 8 */
    store_f4();
    bad = 0;
    for (e = 4; e < 8; e++) {
        bad += buf[e] != 0x3fc0aaabu;
    }
    set_m0(0x0f);
    __asm__ volatile("fbci.ps f4, 0x40493");        /* low nibble < 8 */
    store_f4();
    for (e = 0; e < 4; e++) {
        bad += buf[e] != 0x40493333u;
    }
    CHECK(bad == 0, "fbci.ps fills the low 12 bits from the low nibble");
    set_m0(0xff);
    __asm__ volatile("fcmov.ps f4, f1, f2, f3");
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        bad += buf[e] != (A[e] ? B[e] : C[e]);
    }
    CHECK(bad == 0, "fcmov.ps selects fs2 where fs1 != 0, else fs3");
    trap_seen.count = 0;
    /* fcmov.ps with fmt 1 */
    __asm__ volatile(".word 0x1a20a23f");   /* no mnemonic: illegal */
    CHECK(trap_seen.count == 1 && trap_seen.cause == 2,
          "0x3f with fmt != 2 is illegal");
    {
        static const uint8_t rev[8] = { 3, 2, 1, 0, 7, 6, 5, 4 };
        static const uint8_t pairs[8] = { 2, 3, 0, 1, 6, 7, 4, 5 };

        __asm__ volatile("fswizz.ps f4, f1, 0x1b");
        store_f4();
        for (e = 0, bad = 0; e < 8; e++) {
            bad += buf[e] != A[rev[e]];
        }
        set_m0(0x0f);
        __asm__ volatile("fswizz.ps f4, f1, 0x4e");
        store_f4();
        for (e = 0; e < 8; e++) {
            bad += buf[e] != (e < 4 ? A[pairs[e]] : A[rev[e]]);
        }
        CHECK(bad == 0, "fswizz.ps permutes within 4-lane groups (m0 lanes)");
    }
    set_m0(0xff);
    __asm__ volatile("fpackrepb.pi f4, f1");
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        const uint32_t *q = &A[e & 1 ? 4 : 0];

        bad += buf[e] != ((q[0] & 0xff) | (q[1] & 0xff) << 8 |
                          (q[2] & 0xff) << 16 | (q[3] & 0xff) << 24);
    }
    CHECK(bad == 0, "fpackrepb.pi packs low bytes of 4 lanes, replicated");
    __asm__ volatile("fpackreph.pi f4, f1");
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        const uint32_t *q = &A[2 * (e % 4)];

        bad += buf[e] != ((q[0] & 0xffff) | q[1] << 16);
    }
    CHECK(bad == 0, "fpackreph.pi packs low halves of 2 lanes, replicated");
    mova_m_x(0);
    __asm__ volatile("mov.m.x m3, %0, 5" :: "r"(0x1a0));
    CHECK_EQ(mova_x_m(), 0xa5ULL << 24, "mov.m.x m3 = x[rs1][7:0] | imm8");
    trap_seen.count = 0;
    /* md = 9: no mask register has that name, so the raw word (rs1 = a0) */
    __asm__ volatile("mv a0, %0; .insn 4, 0x560504fb" :: "r"(1) : "a0");
    CHECK(trap_seen.count == 1 && trap_seen.cause == 2,
          "mov.m.x to a mask above m7 traps");

    /* scalar F writes clear lanes 1-7 */
    __asm__ volatile("fmv.w.x f4, %0" :: "r"(0x3f800000));
    store_f4();
    for (e = 1, bad = 0; e < 8; e++) {
        bad += buf[e] != 0;
    }
    CHECK(buf[0] == 0x3f800000 && bad == 0,
          "a scalar F write zeroes lanes 1-7");

    /* FS = Off: packed instructions are illegal */
    trap_seen.count = 0;
    csr_clear(mstatus, 3 << 13);
    __asm__ volatile("fadd.pi f4, f1, f2");
    csr_set(mstatus, 1 << 13);
    CHECK(trap_seen.count == 1 && trap_seen.cause == 2,
          "packed instruction with FS=Off traps");
    /*
     * fexp.ps (rs2 4), flog.ps (3), frcp.ps (7) exist only with funct3 0:
     * illegal encodings have no mnemonic, so these are raw words
     */
    trap_seen.count = 0;
    __asm__ volatile(".insn 4, 0x5840927b");
    __asm__ volatile(".insn 4, 0x5830f27b");
    __asm__ volatile(".insn 4, 0x5870c27b");
    CHECK(trap_seen.count == 3 && trap_seen.cause == 2,
          "fexp/flog/frcp.ps with funct3 != 0 are illegal");
    /* fflags/fcsr bit 31: the sticky denormal-operand flag */
    {
        uint32_t sub = 0x00000001, one = 0x3f800000, r;

        csr_write(fcsr, 0);
        __asm__ volatile("fmv.w.x f1, %1\n\tfmv.w.x f2, %2\n\t"
                         "fadd.s f3, f1, f2\n\tfmv.x.w %0, f3"
                         : "=r"(r) : "r"(sub), "r"(one) : "f1", "f2", "f3");
        CHECK(r == one && csr_read(fflags) == 0x80000000u &&
              csr_read(fcsr) == 0x80000000u,
              "fadd.s of a subnormal: read as zero, fflags/fcsr bit 31");
        csr_write(fflags, 0);
        CHECK_EQ(csr_read(fcsr), 0, "writing fflags clears bit 31");
        csr_write(fcsr, 0x80000021u);
        CHECK_EQ(csr_read(fflags), 0x80000001u,
                 "fcsr bit 31 written reads back in fflags");
        csr_write(fcsr, 0);
    }
    return tap_done();
}
