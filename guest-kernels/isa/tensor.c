/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tensor compute on minion 0: fp32, fp16 and int8 matmuls through
 * TensorLoad + TensorFMA + TensorStore; TensorLoad forms (tensor_mask rows,
 * byte offsets, interleaves, transposes); TensorFMA forms (tensor_mask
 * rows, accumulation across TensorFMAs, A column offset, unsigned int8,
 * special fp32 operands in each rounding mode); TensorQuant transforms
 * 1-10; TensorLoadL2; the illegal and faulting forms.  Matrices are
 * printed as hex ("TAG row: words") for tests/run.py, which checks them
 * against tests/tensorref.py; the rest are TAP checks here.
 */
#include "etsoc1.h"
#include "et-vpu.h"
#include "tap.h"

#define TLOAD 0x83f
#define TFMA 0x801
#define TSTORE 0x87f
#define TQUANT 0x806
#define TMASK 0x805
#define TLOADL2 0x85f

static uint32_t a32[16][16] __attribute__((aligned(64)));
static uint32_t b32[16][16] __attribute__((aligned(64)));
static uint32_t c32[16][16] __attribute__((aligned(64)));
static uint16_t a16[16][32] __attribute__((aligned(64)));
static uint16_t b16[32][32] __attribute__((aligned(64)));  /* 16 used */
static int8_t a8[16][64] __attribute__((aligned(64)));
static int8_t b8[64][64] __attribute__((aligned(64)));
static uint32_t vec[16] __attribute__((aligned(64)));
static int32_t qv[3][16] __attribute__((aligned(64)));  /* TensorQuant */
static uint32_t tr[16][16] __attribute__((aligned(64)));
static uint32_t out[16][16] __attribute__((aligned(64)));
static volatile unsigned t1_illegal;    /* thread 1's ops that trapped */

/* Run @stmt: did it take exactly one illegal-instruction trap? */
#define ILLEGAL(stmt) ({ trap_seen.count = 0; trap_seen.cause = 0; stmt; \
                         trap_seen.count == 1 && trap_seen.cause == 2; })

/*
 * fp32 TensorFMA operands: A row i is fs_a[i][0-3], B line k fs_b[k]; by
 * row / column: 1; -0 then +0s (skipped); +0 then -0s; subnormals; +-inf;
 * NaNs; overflow; tiny products; 1 -1 2^-24 -2^-24; inexact ones.
 */
static uint32_t fs_a[16][16] __attribute__((aligned(64))) = {
    { 0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000 },
    { 0x80000000, 0x00000000, 0x00000000, 0x00000000 },
    { 0x00000000, 0x80000000, 0x80000000, 0x80000000 },
    { 0x00000001, 0x00000001, 0x807fffff, 0x00000001 },
    { 0x7f800000, 0x3f800000, 0x3f800000, 0x3f800000 },
    { 0xff800000, 0xbf800000, 0x00000000, 0x3f800000 },
    { 0x7fc12345, 0x3f800000, 0x3f800000, 0x3f800000 },
    { 0x7f812345, 0x3f800000, 0x3f800000, 0x3f800000 },
    { 0x7f7fffff, 0x7f7fffff, 0x3f800000, 0xff7fffff },
    { 0x00800000, 0x00800000, 0x00800000, 0x00800000 },
    { 0x3f800000, 0xbf800000, 0x33800000, 0xb3800000 },
    { 0x3eaaaaab, 0x40490fdb, 0xc0400000, 0x3f800001 },
    { 0x3f800001, 0xbf7fffff, 0x33800001, 0x4b7fffff },
    { 0xbf800000, 0x00800001, 0x00000000, 0x33800000 },
    { 0x7f000000, 0x40000000, 0x80000000, 0x3f800000 },
    { 0xc0490fdb, 0x3dcccccd, 0x3eaaaaab, 0xbf800001 },
};
static uint32_t fs_b[16][16] __attribute__((aligned(64))) = {
    { 0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x00000001, 0x7f800000,
      0x3f800000, 0x3f800000, 0x7f7fffff, 0x00800000, 0x3f800000, 0x3eaaaaab,
      0x3f800001, 0xff7fffff, 0x00c00000, 0x4b000001 },
    { 0x00000000, 0x80000000, 0x3f800000, 0x3f800000, 0x80000001, 0x00000000,
      0x7f800000, 0x3f800000, 0x40000000, 0x3f000000, 0x33800000, 0x40490fdb,
      0x3f7fffff, 0xbf800000, 0x3f000000, 0xcb000000 },
    { 0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f800000, 0x3f800000,
      0x3f800000, 0x7fc00001, 0x3f800000, 0x3f000000, 0x33800000, 0xbeaaaaab,
      0xbf800001, 0x00000000, 0x40000000, 0x3f000000 },
    { 0x00000000, 0x80000000, 0x3f800000, 0x3f800000, 0x00000001, 0x3f800000,
      0x3f800000, 0x3f800000, 0x3f800000, 0x3f000000, 0x3f800000, 0x40400000,
      0x3f800000, 0x80000000, 0x3f000000, 0x3e800000 },
};

/* TensorLoad, transform @cmd, of @rows lines at @p into SCP line @line */
static uint64_t tload(unsigned cmd, unsigned line, const void *p, unsigned rows)
{
    return (uint64_t)cmd << 59 | (uint64_t)line << 53 |
           ((uint64_t)p & 0xffffffffffc0ULL) | (rows - 1);
}

/* register-form TensorStore of rows x 64 bytes from f0.. to @p */
static uint64_t tstore_regs(const void *p, unsigned rows)
{
    return 0ULL << 62 | 0ULL << 57 | 3ULL << 55 | (uint64_t)(rows - 1) << 51 |
           ((uint64_t)p & 0xfffffffffff0ULL);
}

/* SCP-form TensorStore of @rows lines from SCP line @line to @p */
static uint64_t tstore_scp(unsigned line, const void *p, unsigned rows)
{
    return (uint64_t)line << 56 | (uint64_t)(rows - 1) << 51 | 1ULL << 48 |
           ((uint64_t)p & 0xffffffffffc0ULL);
}

/* TensorFMA of @type, 16 columns: @rows A rows from SCP line @a, @passes
 * passes with B from line @b; @first clears C */
static uint64_t tfma(unsigned type, unsigned rows, unsigned passes,
                     unsigned a, unsigned b, unsigned first)
{
    return 3ULL << 55 | (uint64_t)(rows - 1) << 51 |
           (uint64_t)(passes - 1) << 47 | (uint64_t)b << 12 | a << 4 |
           type << 1 | first;
}

#define T_MASK          (1ULL << 63)    /* TensorLoad/FMA: tensor_mask rows */
#define TLOAD_BOFF(n)   ((uint64_t)(n) << 4)
#define TFMA_AOFF(n)    ((uint64_t)(n) << 43)
#define TFMA_TENB       (1ULL << 20)
#define TFMA_UA         (1ULL << 21)
#define TFMA_UB         (1ULL << 22)
#define TFMA_TENC2RF    (1ULL << 23)

/* TensorQuant of @rows x @cols from f@freg, vectors from SCP line @line,
 * transform codes @codes (first in the low nibble) */
static uint64_t tquant(unsigned freg, unsigned rows, unsigned cols,
                       unsigned line, uint64_t codes)
{
    return (uint64_t)freg << 57 | (uint64_t)(cols / 4 - 1) << 55 |
           (uint64_t)(rows - 1) << 51 | (uint64_t)line << 45 | codes;
}

/* How many words of @rows rows differ between @x and @y */
static unsigned diff_rows(uint32_t x[][16], uint32_t y[][16], unsigned rows)
{
    unsigned i, j, n = 0;

    for (i = 0; i < rows; i++) {
        for (j = 0; j < 16; j++) {
            n += x[i][j] != y[i][j];
        }
    }
    return n;
}

static void print_matrix(const char *tag, uint32_t m[16][16])
{
    unsigned i, j;

    for (i = 0; i < 16; i++) {
        print("%s %u:", tag, i);
        for (j = 0; j < 16; j++) {
            print(" %08x", m[i][j]);
        }
        print("\n");
    }
}

/* Print C (f0-f31) as tag */
static void print_c(const char *tag)
{
    csr_write_x31(TSTORE, tstore_regs(out, 16), 64);
    print_matrix(tag, out);
}

/* Print SCP lines @line.. (16 of them, wrapping at 48) as @tag */
static void print_scp(const char *tag, unsigned line)
{
    csr_write_x31(TSTORE, tstore_scp(line, out, 16), 64);
    print_matrix(tag, out);
}

/*
 * TensorLoad forms, each printed from the SCP: b32 over a32 in the rows of
 * tensor_mask (a plain load ignores [5:4]); b8 as 64 lines of 64 bytes
 * through transpose8 into lines 40-47 and 0-7, a masked transpose16 and
 * both interleaves, all with byte offsets.
 */
static void load_tests(void)
{
    csr_write_x31(TLOAD, tload(0, 0, a32, 16), 64);
    csr_write(TMASK, 0xa5c3);
    csr_write_x31(TLOAD, T_MASK | tload(0, 0, b32, 16) | TLOAD_BOFF(3), 64);
    print_scp("LM", 0);
    csr_write_x31(TLOAD, tload(5, 40, b8, 16) | TLOAD_BOFF(2), 64);
    print_scp("T8", 40);
    csr_write(TMASK, 0xff0f);
    csr_write_x31(TLOAD, T_MASK | tload(6, 0, b8, 16) | TLOAD_BOFF(3), 64);
    print_scp("T16", 0);
    csr_write_x31(TLOAD, tload(1, 0, b8, 16) | TLOAD_BOFF(3), 64);
    print_scp("I8", 0);
    csr_write_x31(TLOAD, tload(2, 0, b8, 16) | TLOAD_BOFF(3), 64);
    print_scp("I16", 0);
}

/*
 * TensorFMA forms, each printed from f0-f31.  fp32: a32 x b32 over the rows
 * of tensor_mask (the others cleared), then again with A from column 5 on
 * (wrapping) added to it over other rows.  int8: unsigned A x signed B in
 * two halves (the first into TenC, the second adding to it, its masked
 * rows copying TenC); signed A from byte 48 on x unsigned B.
 */
static void fma_tests(void)
{
    csr_write_x31(TLOAD, tload(0, 0, a32, 16), 64);
    csr_write_x31(TLOAD, tload(0, 16, b32, 16), 64);
    csr_write(TMASK, 0x5a3c);
    csr_write_x31(TFMA, T_MASK | tfma(0, 16, 16, 0, 16, 1), 0);
    print_c("FM1");
    csr_write(TMASK, 0x0ff0);
    csr_write_x31(TFMA, T_MASK | TFMA_AOFF(5) | tfma(0, 16, 16, 0, 16, 0), 0);
    print_c("FM2");

    csr_write_x31(TLOAD, tload(0, 0, a8, 16), 64);
    csr_write_x31(TLOAD, tload(1, 16, b8, 16), 64);
    csr_write_x31(TFMA, TFMA_UA | tfma(3, 16, 8, 0, 16, 1), 0);
    csr_write(TMASK, 0xf0f0);
    csr_write_x31(TFMA, T_MASK | TFMA_UA | TFMA_AOFF(8) | TFMA_TENC2RF |
                  tfma(3, 16, 8, 0, 24, 0), 0);
    print_c("C8U");
    csr_write_x31(TFMA, TFMA_UB | TFMA_AOFF(12) | TFMA_TENC2RF |
                  tfma(3, 16, 16, 0, 16, 1), 0);
    print_c("C8V");
}

/*
 * TensorQuant on C8V: add a vector per column (SCP line 40), then one per
 * row (line 41); then on rows 1-13, columns 0-11 (from f2): to fp32,
 * times a vector per row (line 42), to int32 rounding down (frm),
 * saturate to uint8, pack 128.
 */
static void quant_tests(void)
{
    csr_write_x31(TLOAD, tload(0, 40, qv, 3), 64);
    csr_write_x31(TQUANT, tquant(0, 16, 16, 40, 0x54), 0);
    print_c("QA");
    csr_write(frm, 2);
    csr_write_x31(TQUANT, tquant(2, 13, 12, 42, 0xa9271), 0);
    csr_write(frm, 0);
    print_c("QB");
}

/*
 * fp32 TensorFMA of fs_a by fs_b, 4 passes, in each rounding mode (frm
 * 0-4): C as FS<frm>, fflags (cleared before) as FSF <frm>.
 */
static void special_tests(void)
{
    char tag[] = "FS0";
    unsigned rm;

    print_matrix("FSA", fs_a);
    print_matrix("FSB", fs_b);
    csr_write_x31(TLOAD, tload(0, 0, fs_a, 16), 64);
    csr_write_x31(TLOAD, tload(0, 16, fs_b, 4), 64);
    for (rm = 0; rm < 5; rm++) {
        csr_write(frm, rm);
        csr_write(fflags, 0);
        csr_write_x31(TFMA, tfma(0, 16, 4, 0, 16, 1), 0);
        print("FSF %u: %08lx\n", rm, csr_read(fflags));
        tag[2] = '0' + rm;
        print_c(tag);
    }
    csr_write(frm, 0);
}

/*
 * frm 5 and 7 make fp32 TensorFMA and TensorQuant (even one with no
 * transform) illegal; minion_feature[1] (ML off) takes the tensor CSRs
 * away, but for tensor_error and tensor_wait.
 */
static void illegal_tests(void)
{
    uint64_t feat = ESR_OTHER(PP_M, 0, MINION_FEATURE), f0 = esr_read(feat);
    unsigned bits;

    csr_write(frm, 5);
    bits = ILLEGAL(csr_write_x31(TFMA, tfma(0, 16, 16, 0, 16, 1), 0));
    bits |= ILLEGAL(csr_write_x31(TQUANT, tquant(0, 16, 16, 40, 0), 0)) << 1;
    csr_write(frm, 7);
    bits |= ILLEGAL(csr_write_x31(TFMA, tfma(0, 16, 16, 0, 16, 1), 0)) << 2;
    bits |= ILLEGAL(csr_write_x31(TQUANT, tquant(0, 16, 16, 40, 3), 0)) << 3;
    csr_write(frm, 0);
    CHECK_EQ(bits, 0xf, "frm 5 (bits 0-1), 7 (2-3): fp32 TensorFMA, "
             "TensorQuant illegal");

    esr_write(feat, f0 | 2);
    bits = ILLEGAL(csr_write_x31(TLOAD, tload(0, 0, a32, 1), 64));
    bits |= ILLEGAL(csr_write_x31(TFMA, tfma(0, 16, 16, 0, 16, 1), 0)) << 1;
    bits |= ILLEGAL(csr_write_x31(TSTORE, tstore_scp(0, out, 1), 64)) << 2;
    bits |= ILLEGAL(csr_write_x31(TQUANT, tquant(0, 16, 16, 40, 3), 0)) << 3;
    bits |= ILLEGAL(csr_write(TMASK, 1)) << 4;
    bits |= ILLEGAL(csr_read(TMASK)) << 5;
    bits |= ILLEGAL(csr_write_x31(TLOADL2, tload(0, 0, tr, 1), 64)) << 6;
    bits |= ILLEGAL(csr_write(0x804, 0)) << 7;          /* tensor_coop */
    bits |= ILLEGAL(csr_read(0x800)) << 8;              /* tensor_reduce */
    trap_seen.count = 0;
    csr_write(CSR_TENSOR_ERROR, 0);
    csr_write(0x830, 8);                                /* tensor_wait */
    esr_write(feat, f0);
    CHECK_EQ(bits, 0x1ff, "minion_feature[1]: TensorLoad, FMA, Store, Quant, "
             "tensor_mask (w, r), TensorLoadL2, tensor_coop, tensor_reduce "
             "(bits 0-8) illegal");
    CHECK(trap_seen.count == 0 && csr_read(CSR_TENSOR_ERROR) == 0,
          "minion_feature[1]: tensor_error and tensor_wait still work");
}

/* tensor_error is 1 << 7 (cleared), with no trap and no bus error */
static int faulted(void)
{
    int ok = csr_read(CSR_TENSOR_ERROR) == 1 << 7 && trap_seen.count == 0 &&
             !(csr_read(mip) >> IRQ_BUS_ERROR & 1);

    csr_write(CSR_TENSOR_ERROR, 0);
    trap_seen.count = 0;
    return ok;
}

/*
 * Three rows with stride 0x7f00000000: the second (DRAM + that, at
 * 0xff_xxxx_xxxx) has nothing behind it.  The operation stops there with
 * tensor_error[7], not a trap, and the first row is done.  C is in out.
 */
static void fault_tests(void)
{
    const uint64_t hole = 0x7f00000000ULL;
    unsigned i, j;

    for (i = 0; i < 16; i++) {
        for (j = 0; j < 16; j++) {
            tr[i][j] = 0x5e5e5e5e;
        }
    }
    trap_seen.count = 0;
    csr_write_x31(TSTORE, tstore_regs(tr, 3), hole);
    CHECK(faulted() && diff_rows(tr, out, 1) == 0 &&
          diff_rows(tr + 1, out + 1, 2) == 32,
          "register-form TensorStore, 2nd row faulting: tensor_error[7], "
          "no trap, the 1st row stored");
    csr_write_x31(TLOAD, tload(0, 0, a32, 3), 64);
    csr_write_x31(TLOAD, tload(0, 0, b32, 3), hole);
    CHECK(faulted(), "TensorLoad, 2nd row faulting: tensor_error[7], no trap");
    csr_write_x31(TSTORE, tstore_scp(0, tr, 3), hole);
    CHECK(faulted() && diff_rows(tr, b32, 1) == 0 &&
          diff_rows(tr + 1, out + 1, 2) == 32,
          "SCP-form TensorStore, 2nd row faulting: tensor_error[7], no "
          "trap, the 1st row (loaded) stored");
    csr_write_x31(TSTORE, tstore_scp(2, out, 1), 64);
    CHECK(diff_rows(out, a32 + 2, 1) == 0,
          "the faulting TensorLoad stopped: SCP line 2 kept");

    /* the uncacheable DRAM alias is no memory for tensor operations */
    csr_write_x31(TLOAD, tload(0, 0, a32, 3), 64);
    csr_write_x31(TLOAD, tload(0, 0, b32, 3), DRAM_UC - DRAM_BASE);
    CHECK(faulted(), "TensorLoad, 2nd row in the uncacheable DRAM alias: "
          "tensor_error[7], no trap");
    csr_write_x31(TSTORE, tstore_scp(1, out, 1), 64);
    CHECK(diff_rows(out, a32 + 1, 1) == 0,
          "the faulting row's SCP line keeps what it held");
    csr_write_x31(TSTORE, tstore_regs(tr, 2), DRAM_UC - DRAM_BASE);
    CHECK(faulted(), "register-form TensorStore, 2nd row in the uncacheable "
          "DRAM alias: tensor_error[7], no trap");
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned i, j, bad;

    trap_recording = 1;     /* runtime trap_record() */
    if (hartid == 1) {                      /* thread 1 may not issue */
        bad = ILLEGAL(csr_write(TLOAD, 0));
        bad |= ILLEGAL(csr_write(TFMA, 0)) << 1;
        bad |= ILLEGAL(csr_write(TSTORE, 0)) << 2;
        bad |= ILLEGAL(csr_write(TQUANT, 0)) << 3;
        t1_illegal = bad;
        fcc_send(0, 0, 0, 1u << 0);         /* then tell hart 0 */
        return 0;
    }
    if (hartid != 0) {
        return 0;
    }
    fcc_wait(0);
    CHECK_EQ(t1_illegal, 0xf, "TensorLoad, FMA, Store, Quant (bits 0-3) "
             "from thread 1: illegal");
    for (i = 0; i < 16; i++) {
        for (j = 0; j < 16; j++) {
            /* full 24-bit significands, so that fusing shows */
            a32[i][j] = ((i * 16 + j) * 7 & 1) << 31 |
                        (124 + (i * 16 + j) % 7) << 23 |
                        (((i * 16 + j) * 2654435761u) & 0x7fffff);
            b32[i][j] = ((i * 16 + j) * 5 & 2) << 30 |
                        (125 + (i * 16 + j) % 5) << 23 |
                        (((i * 16 + j) * 2246822519u) & 0x7fffff);
        }
        for (j = 0; j < 64; j++) {
            a8[i][j] = (int8_t)((i * 64 + j) * 29 % 251 - 125);
        }
        vec[i] = 0x3a800000 + i * 0x00080000;            /* ~2^-10 */
        qv[0][i] = (int32_t)(i * 7919) - 60000;
        qv[1][i] = 80000 - (int32_t)(i * i * 613);
        qv[2][i] = 0x3b000000 + i * 0x51237;             /* ~2^-9 */
    }
    for (i = 0; i < 64; i++) {
        for (j = 0; j < 64; j++) {      /* the matmul uses bytes 0-15 */
            b8[i][j] = j < 16 ? (int8_t)((i * 16 + j) * 31 % 253 - 126)
                              : (int8_t)((i * 64 + j) * 2654435761u >> 13);
        }
    }
    for (i = 0; i < 32; i++) {
        for (j = 0; j < 32; j++) {
            unsigned n = i * 32 + j;

            if (i < 16) {
                a16[i][j] = (n * 3 & 1) << 15 | (12 + n % 7) << 10 |
                            ((n * 40503u) & 0x3ff);
            }
            b16[i][j] = (n * 5 & 2) << 14 | (13 + n % 5) << 10 |
                        ((n * 2654435761u >> 7) & 0x3ff);
        }
    }
    for (i = 0; i < 16; i++) {
        for (j = 0; j < 16; j++) {
            tr[i][j] = i * 100 + j;
        }
    }

    /* the L1 scratchpad must be on: tensor ops before fail with bit 4 */
    csr_write(CSR_TENSOR_ERROR, 0);
    csr_write_x31(TLOAD, tload(0, 0, a32, 16), 64);
    CHECK_EQ(csr_read(CSR_TENSOR_ERROR), 1 << 4,
             "TensorLoad with the L1 scratchpad off: tensor_error[4]");
    csr_write(CSR_TENSOR_ERROR, 0);
    csr_write(0x7e0, 1);
    csr_write(0x7e0, 3);
    for (i = 3; i <= 4; i++) {
        csr_write_x31(TLOAD, tload(i, 0, a32, 1), 64);
        CHECK(csr_read(CSR_TENSOR_ERROR) == 1 << 1,
              "reserved TensorLoad transform %u: tensor_error[1]", i);
        csr_write(CSR_TENSOR_ERROR, 0);
    }
    CHECK(ILLEGAL(csr_write_x31(TFMA, tfma(2, 16, 16, 0, 16, 1), 0)),
          "TensorFMA type 2: illegal");

    /* fp32: A rows -> lines 0-15, B rows -> lines 16-31, C in f0-f31 */
    csr_write_x31(TLOAD, tload(0, 0, a32, 16), 64);
    csr_write_x31(TLOAD, tload(0, 16, b32, 16), 64);
    csr_write_x31(TFMA, tfma(0, 16, 16, 0, 16, 1), 0);
    csr_write_x31(TSTORE, tstore_regs(c32, 16), 64);
    print_matrix("C32", c32);

    /* the same product with B through TenB */
    csr_write_x31(TLOAD, 1ULL << 52 | tload(0, 0, b32, 16), 64);
    csr_write_x31(TFMA, tfma(0, 16, 16, 0, 0, 1) | TFMA_TENB, 0);
    csr_write_x31(TSTORE, tstore_regs(out, 16), 64);
    CHECK(diff_rows(out, c32, 16) == 0 && csr_read(CSR_TENSOR_ERROR) == 0,
          "TensorFMA with B from TenB gives the same product");
    csr_write_x31(TFMA, tfma(0, 16, 16, 0, 0, 1) | TFMA_TENB, 0);
    CHECK_EQ(csr_read(CSR_TENSOR_ERROR), 1 << 6,
             "TenB TensorFMA with no TenB load: tensor_error[6]");
    csr_write(CSR_TENSOR_ERROR, 0);
    csr_write_x31(TLOAD, 1ULL << 52 | tload(0, 0, b32, 8), 64);
    csr_write_x31(TFMA, tfma(0, 16, 16, 0, 0, 1) | TFMA_TENB, 0);
    CHECK_EQ(csr_read(CSR_TENSOR_ERROR), 1 << 6,
             "TenB load of 8 rows for 16 passes: tensor_error[6]");
    csr_write(CSR_TENSOR_ERROR, 0);
    csr_write_x31(TLOAD, 1ULL << 52 | tload(0, 0, b32, 16), 64);
    csr_write_x31(TFMA, tfma(0, 16, 16, 0, 16, 1), 0);
    CHECK_EQ(csr_read(CSR_TENSOR_ERROR), 1 << 6,
             "a pending TenB load and a TensorFMA without TenB: [6]");
    csr_write(CSR_TENSOR_ERROR, 0);

    /* fp16: A 16 x 32 halves, B interleave16 into lines 16-31 */
    csr_write_x31(TLOAD, tload(0, 0, a16, 16), 64);
    csr_write_x31(TLOAD, tload(2, 16, b16, 16), 64);
    csr_write_x31(TFMA, tfma(1, 16, 16, 0, 16, 1), 0);
    print_c("C16");

    /* int8: A 16 x 64 bytes, B interleave8 into lines 16-31, sums in f */
    csr_write_x31(TLOAD, tload(0, 0, a8, 16), 64);
    csr_write_x31(TLOAD, tload(1, 16, b8, 16), 64);
    csr_write_x31(TFMA, tfma(3, 16, 16, 0, 16, 1) | TFMA_TENC2RF, 0);
    print_c("C8");

    /* TensorQuant on those int32: to fp32, times vec (per column), to
     * int32 (RNE), relu, saturate to int8 */
    csr_write_x31(TLOAD, tload(0, 40, vec, 1), 64);
    csr_write_x31(TQUANT, tquant(0, 16, 16, 40, 0x83261), 0);
    print_c("Q");

    /* transpose32 into the SCP, then the SCP-form store back out */
    csr_write_x31(TLOAD, tload(7, 8, tr, 16), 64);
    csr_write_x31(TSTORE, tstore_scp(8, out, 16), 64);
    for (i = 0, bad = 0; i < 16; i++) {
        for (j = 0; j < 16; j++) {
            bad += out[i][j] != tr[j][i];
        }
    }
    CHECK(bad == 0, "transpose32 TensorLoad + SCP-form TensorStore");
    CHECK_EQ(csr_read(CSR_TENSOR_ERROR), 0, "no tensor errors on the way");

    /* TensorLoadL2: 64-byte rows into this shire's L2 scratchpad */
    {
        volatile uint8_t *l2 = (volatile uint8_t *)0xbf800000ULL;  /* local */
        const uint8_t *src = (const uint8_t *)tr;
        unsigned line = 4 * 3 + 2, k;       /* [62:48] = 3, [5:4] = 2 */

        for (k = 0; k < 4 * 64; k++) {
            l2[line * 64 + k] = 0xa5;
        }
        csr_write(TMASK, 0xb);              /* tensor_mask: rows 0, 1, 3 */
        csr_write_x31(TLOADL2, 1ULL << 63 | 3ULL << 48 |
                    ((uint64_t)tr & 0xffffffffffc0ULL) | 2 << 4 | (4 - 1), 128);
        for (i = 0, bad = 0; i < 4; i++) {
            for (k = 0; k < 64; k++) {
                bad += l2[(line + i) * 64 + k] !=
                       (i == 2 ? 0xa5 : src[128 * i + k]);
            }
        }
        CHECK(bad == 0 && csr_read(CSR_TENSOR_ERROR) == 0,
              "TensorLoadL2: masked rows at line 4*[62:48]+[5:4], stride x31");
        csr_write_x31(TLOADL2, 16384ULL << 48 |
                      ((uint64_t)tr & 0xffffffffffc0ULL), 64);
        CHECK_EQ(csr_read(CSR_TENSOR_ERROR), 1 << 7,
                 "TensorLoadL2 past the 4 MiB scratchpad: tensor_error[7]");
        csr_write(CSR_TENSOR_ERROR, 0);
    }
    load_tests();
    fma_tests();
    quant_tests();
    special_tests();
    illegal_tests();
    fault_tests();
    return tap_done();
}
