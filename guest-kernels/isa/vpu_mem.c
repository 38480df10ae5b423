/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Packed memory instructions (isa.md section 9), hart 0, TAP.
 *
 * Every gather, scatter and coherent 256-bit load/store moves data
 * between f4 and a patterned buffer with lanes 1, 3 and 6 off in m0.
 * These are plain data movement, so the expected lanes and buffer are
 * worked out here in C from the buffer itself; the whole buffer is
 * compared, so masked lanes and the bytes beside each element must stay
 * as they were.  Faults and gsc_progress: a representative per family.
 *
 * Packed atomics: each of the 22 runs over four vectors (distinct
 * addresses, again, a masked run, repeated addresses) and prints
 *   "<name> <v>: <16 words before> | <8 offsets> | <8 operands> | <m0> |
 *    <8 lanes after> | <16 words after> | <gsc_progress> <fflags>"
 * (one line) for tests/run.py to check against its own reference.
 */
#include <stdbool.h>
#include <stddef.h>
#include "etsoc1.h"
#include "et-vpu.h"
#include "tap.h"

#define GSC_PROGRESS 0x840
#define MASK 0xb5                       /* lanes 1, 3 and 6 off */

enum {
    STORE = 1,          /* scatter or store: f4 is the data */
    ALIGNED = 2,        /* coherent: a misaligned element faults */
    WINDOW = 4,         /* x[rs1] packs the indices: 32-byte window */
    WHOLE = 8,          /* flwl/flwg/fswl/fswg: 32 bytes at x[rs1] */
    AMO = 16,
};

/* operands after fd = f4: %0 = x2, %1 = x1 */
#define FS1 "f1(%0)"            /* fs1 = byte offsets, x[rs2] = base */
#define XS1 "%1(%0)"            /* x[rs1] = packed indices, x[rs2] = base */
#define ADDR "(%1)"             /* x[rs1] = address */

/* name, element size, kind, operands */
#define MEM_OPS(X)                                              \
    X("fgb.ps", 1, 0, FS1)                             \
    X("fgh.ps", 2, 0, FS1)                             \
    X("fgw.ps", 4, 0, FS1)                             \
    X("fscb.ps", 1, STORE, FS1)                        \
    X("fsch.ps", 2, STORE, FS1)                        \
    X("fscw.ps", 4, STORE, FS1)                        \
    X("fg32b.ps", 1, WINDOW, XS1)                      \
    X("fg32h.ps", 2, WINDOW, XS1)                      \
    X("fg32w.ps", 4, WINDOW, XS1)                      \
    X("fsc32b.ps", 1, WINDOW | STORE, XS1)             \
    X("fsc32h.ps", 2, WINDOW | STORE, XS1)             \
    X("fsc32w.ps", 4, WINDOW | STORE, XS1)             \
    X("fgbl.ps", 1, ALIGNED, FS1)                      \
    X("fgbg.ps", 1, ALIGNED, FS1)                      \
    X("fghl.ps", 2, ALIGNED, FS1)                      \
    X("fghg.ps", 2, ALIGNED, FS1)                      \
    X("fgwl.ps", 4, ALIGNED, FS1)                      \
    X("fgwg.ps", 4, ALIGNED, FS1)                      \
    X("fscbl.ps", 1, ALIGNED | STORE, FS1)             \
    X("fscbg.ps", 1, ALIGNED | STORE, FS1)             \
    X("fschl.ps", 2, ALIGNED | STORE, FS1)             \
    X("fschg.ps", 2, ALIGNED | STORE, FS1)             \
    X("fscwl.ps", 4, ALIGNED | STORE, FS1)             \
    X("fscwg.ps", 4, ALIGNED | STORE, FS1)             \
    X("flwl.ps", 4, WHOLE, ADDR)                       \
    X("flwg.ps", 4, WHOLE, ADDR)                       \
    X("fswl.ps", 4, WHOLE | STORE, ADDR)               \
    X("fswg.ps", 4, WHOLE | STORE, ADDR)               \
    X("famoaddl.pi", 4, AMO, FS1)                      \
    X("famoswapl.pi", 4, AMO, FS1)                     \
    X("famoandl.pi", 4, AMO, FS1)                      \
    X("famoorl.pi", 4, AMO, FS1)                       \
    X("famoxorl.pi", 4, AMO, FS1)                      \
    X("famomaxl.ps", 4, AMO, FS1)                      \
    X("famominl.pi", 4, AMO, FS1)                      \
    X("famominl.ps", 4, AMO, FS1)                      \
    X("famomaxl.pi", 4, AMO, FS1)                      \
    X("famominul.pi", 4, AMO, FS1)                     \
    X("famomaxul.pi", 4, AMO, FS1)                     \
    X("famoaddg.pi", 4, AMO, FS1)                      \
    X("famoswapg.pi", 4, AMO, FS1)                     \
    X("famoandg.pi", 4, AMO, FS1)                      \
    X("famoorg.pi", 4, AMO, FS1)                       \
    X("famoxorg.pi", 4, AMO, FS1)                      \
    X("famomaxg.ps", 4, AMO, FS1)                      \
    X("famoming.pi", 4, AMO, FS1)                      \
    X("famoming.ps", 4, AMO, FS1)                      \
    X("famomaxg.pi", 4, AMO, FS1)                      \
    X("famominug.pi", 4, AMO, FS1)                     \
    X("famomaxug.pi", 4, AMO, FS1)

struct mem_op {
    const char *name;
    uint8_t size, kind;
};

#define OP_ROW(name, size, kind, operands) \
    { name, size, kind },
static const struct mem_op ops[] = { MEM_OPS(OP_ROW) };
#define NOPS (sizeof(ops) / sizeof(ops[0]))

static int same(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++, b++;
    }
    return *a == *b;
}

#define OP_CASE(mnem, size, kind, operands)                             \
    if (same(op->name, mnem)) {                                         \
        __asm__ volatile(mnem " f4, " operands                          \
                         :: "r"(x2), "r"(x1) : "memory");               \
        return;                                                         \
    }

/* Run @op with fd = f4, f1 as fs1 and the x operands @x1, @x2. */
static void run(const struct mem_op *op, uint64_t x1, uint64_t x2)
{
    MEM_OPS(OP_CASE)
}

static const struct mem_op *find(const char *name)
{
    const struct mem_op *op;

    for (op = ops; op < ops + NOPS; op++) {
        if (same(op->name, name)) {
            return op;
        }
    }
    return NULL;
}

static uint8_t buf[128] __attribute__((aligned(64)));
static uint8_t want[128];
static uint32_t offs[8] __attribute__((aligned(32)));  /* f1 */
static uint32_t lanes[8] __attribute__((aligned(32))); /* f4 before */
static uint32_t out[8] __attribute__((aligned(32)));   /* f4 after */
static uint32_t want_out[8];
static volatile uint64_t progress_at_trap;
static volatile bool keep_progress;

void trap_handler(struct trap_frame *f)
{
    progress_at_trap = csr_read(GSC_PROGRESS);
    if (!keep_progress) {
        csr_write(GSC_PROGRESS, 0);
    }
    trap_record(f);
}

static void load_regs(void)
{
    set_m0(0xff);
    FLW_PS(f1, offs);
    FLW_PS(f4, lanes);
}

static void store_f4(void)
{
    set_m0(0xff);
    FSW_PS(f4, out);
}

/* little-endian element at @p, sign-extended as the gathers do */
static uint32_t element(const uint8_t *p, unsigned size)
{
    uint32_t v = 0;
    unsigned i, shift = 32 - 8 * size;

    for (i = 0; i < size; i++) {
        v |= (uint32_t)p[i] << 8 * i;
    }
    return (uint32_t)((int32_t)(v << shift) >> shift);
}

static void put_element(uint8_t *p, unsigned size, uint32_t v)
{
    unsigned i;

    for (i = 0; i < size; i++) {
        p[i] = v >> 8 * i;
    }
}

/*
 * Fill buf with bytes of both signs and f4's lanes with distinct values,
 * then work out what @op does to them with lane e at @at[e].
 */
static void prepare(const struct mem_op *op, uint8_t *const at[8],
                    uint8_t m0)
{
    unsigned i, e;

    for (i = 0; i < sizeof(buf); i++) {
        buf[i] = want[i] = i * 0x4b + 0x1d;
    }
    for (e = 0; e < 8; e++) {
        lanes[e] = 0xf1e2d3c4u ^ (e * 0x01110111u);
        want_out[e] = lanes[e];
        if (!(m0 & (1u << e))) {
            continue;
        }
        if (op->kind & STORE) {
            put_element(want + (at[e] - buf), op->size, lanes[e]);
        } else {
            want_out[e] = element(at[e], op->size);
        }
    }
    load_regs();
    trap_seen.count = 0;
    set_m0(m0);
}

/* f4 and buf as prepare() said, no trap, gsc_progress back at 0 */
static bool as_prepared(void)
{
    unsigned i, bad = 0;

    store_f4();
    for (i = 0; i < 8; i++) {
        bad += out[i] != want_out[i];
    }
    for (i = 0; i < sizeof(buf); i++) {
        bad += buf[i] != want[i];
    }
    return bad == 0 && trap_seen.count == 0 && csr_read(GSC_PROGRESS) == 0;
}

/*
 * Byte offsets from the middle of buf (lane 0's word crosses the 64-byte
 * line there); the coherent forms round them down to the element size.
 */
static const int32_t general_offs[8] = { -2, -61, -37, 5, 18, -20, 33, 55 };

static bool general(const struct mem_op *op)
{
    uint8_t *base = buf + 64, *at[8];
    unsigned e;

    for (e = 0; e < 8; e++) {
        offs[e] = general_offs[e];
        if (op->kind & ALIGNED) {
            offs[e] &= ~(op->size - 1u);
        }
        at[e] = base + (int32_t)offs[e];
    }
    prepare(op, at, MASK);
    run(op, 0, (uintptr_t)base);
    return as_prepared();
}

/*
 * 32-byte window at buf + 32, base @off bytes into it; x[rs1] holds
 * 5/4/3-bit indices per lane, its unused high bits set.  Lane e's offset
 * in the window is (off + index * size) & (32 - size), as in Esperanto's
 * simulator (isa.md writes & 31, the same whenever off is a multiple of
 * the size).
 */
static bool window(const struct mem_op *op, unsigned off)
{
    unsigned bits = op->size == 1 ? 5 : op->size == 2 ? 4 : 3;
    uint64_t packed = ~0ULL << 8 * bits;
    uint8_t *at[8];
    unsigned e;

    for (e = 0; e < 8; e++) {
        unsigned i = (7 + 11 * e) & ((1u << bits) - 1);

        packed |= (uint64_t)i << bits * e;
        at[e] = buf + 32 + ((off + i * op->size) & (32 - op->size));
    }
    prepare(op, at, MASK);
    run(op, packed, (uintptr_t)buf + 32 + off);
    return as_prepared();
}

/*
 * flwl/flwg/fswl/fswg: the eight words at buf + 32.  The stores keep to
 * m0 as Esperanto's simulator does after the A0 stepping (on A0 they
 * store every lane and a partial m0 is undefined).
 */
static bool whole(const struct mem_op *op)
{
    uint8_t *at[8];
    unsigned e;

    for (e = 0; e < 8; e++) {
        at[e] = buf + 32 + 4 * e;
    }
    prepare(op, at, MASK);
    run(op, (uintptr_t)buf + 32, 0);
    return as_prepared();
}

static const char *what(const struct mem_op *op)
{
    if (op->kind & WINDOW) {
        return op->kind & STORE ?
            "stores the m0 lanes' low bytes inside the 32-byte window" :
            "gathers inside the 32-byte window, sign-extended, m0 lanes";
    }
    if (op->kind & WHOLE) {
        return op->kind & STORE ? "stores the m0 lanes at x[rs1]" :
            "loads the m0 lanes from x[rs1]";
    }
    return op->kind & STORE ?
        "stores the m0 lanes' low bytes at x[rs2] + byte offset" :
        "gathers from x[rs2] + byte offset, sign-extended, m0 lanes";
}

/* ---- packed atomics: printed for tests/run.py ---------------------------- */

static uint32_t amo_mem[16] __attribute__((aligned(64)));
static uint32_t before[16];

/*
 * Vector v, lane e: the word amo_mem[8 + word[v][e]], which holds
 * amo_old[8v + e] unless a later lane shares it, and the operand
 * amo_arg[8v + e].
 */
static const int8_t word[4][8] = {
    { -8, 3, -1, 6, -5, 0, 7, -3 },
    { 2, -7, 5, -2, 1, -6, 4, -4 },
    { 7, -6, 1, -3, 4, -8, 0, 5 },
    { 3, -1, 6, -5, 2, 3, -1, 3 },          /* lanes 5-7 repeat 0 and 1 */
};
static const uint8_t amo_m0[4] = { 0xff, 0xff, 0x5a, 0xff };
static const uint32_t amo_old[32] = {
    0x00000005, 0x7fffffff, 0x80000000, 0xffffffff,
    0x0f0f00ff, 0x12345678, 0xfffffffe, 0x00000000,
    0x7f812345, 0x3f800000, 0x7fc00000, 0xbf800000,     /* sNaN, qNaN */
    0x7fc00001, 0xffc00001, 0x00000000, 0x80000000,
    0xbf800000, 0xc0000000, 0x3f800000, 0x00000001,     /* denormals */
    0x807fffff, 0xff800000, 0x7f800000, 0x00800000,
    0x40400000, 0xffc00000, 0x80000001, 0xc1200000,
    0x7fffffff, 0x00000000, 0x00000000, 0x00000000,
};
static const uint32_t amo_arg[32] = {
    0x00000003, 0x00000001, 0xffffffff, 0x00000000,
    0x00ff0ff0, 0x87654321, 0x80000001, 0x7fffffff,
    0x3f800000, 0x7f812345, 0x3f800000, 0x7fc12345,
    0xffc00000, 0xff800001, 0x80000000, 0x00000000,
    0xc0000000, 0xbf800000, 0x40000000, 0x00000000,
    0x80000000, 0x7f800000, 0x7f7fffff, 0x007fffff,
    0x40a00000, 0xff800000, 0x00000001, 0x41200000,
    0x00000002, 0x3fc00000, 0xbf000000, 0x00000003,
};

static void print_words(const uint32_t *w, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        print(" %08x", w[i]);
    }
}

static void amo_vector(const struct mem_op *op, unsigned v)
{
    uint64_t progress, flags;
    unsigned e;

    for (e = 0; e < 16; e++) {
        amo_mem[e] = 0x5eed0000 + e;
    }
    for (e = 0; e < 8; e++) {
        amo_mem[8 + word[v][e]] = amo_old[8 * v + e];
        offs[e] = 4 * word[v][e];
        lanes[e] = amo_arg[8 * v + e];
    }
    for (e = 0; e < 16; e++) {
        before[e] = amo_mem[e];
    }
    load_regs();
    csr_write(fflags, 0);
    set_m0(amo_m0[v]);
    run(op, 0, (uintptr_t)&amo_mem[8]);
    progress = csr_read(GSC_PROGRESS);
    flags = csr_read(fflags);
    store_f4();
    print("%s %u:", op->name, v);
    print_words(before, 16);
    print(" |");
    print_words(offs, 8);
    print(" |");
    print_words(lanes, 8);
    print(" | %02x |", amo_m0[v]);
    print_words(out, 8);
    print(" |");
    print_words(amo_mem, 16);
    print(" | %lu %lx\n", progress, flags);
}

/* ---- faults and gsc_progress --------------------------------------------- */

/* shire 0's L2 scratchpad: 4 MiB of SRAM behind an 8 MiB window */
#define SCP_DATA (SCP_BASE + 0x1000)
#define SCP_HOLE 0x500000               /* past the 4 MiB, from SCP_DATA */

/* lane e at byte e * @step, its data 0xa0a0a0a0 + e */
static void set_offs(uint32_t step)
{
    unsigned e;

    for (e = 0; e < 8; e++) {
        offs[e] = e * step;
        lanes[e] = 0xa0a0a0a0u + e;
    }
}

static void expect_trap(unsigned cause, uint64_t progress, const char *what)
{
    CHECK(trap_seen.count == 1 && trap_seen.cause == cause &&
          progress_at_trap == progress && csr_read(GSC_PROGRESS) == 0,
          "%s: cause %u, gsc_progress %lu at the trap", what, cause,
          progress);
    trap_seen.count = 0;
}

static void gsc_faults(void)
{
    volatile uint32_t *scp = (volatile uint32_t *)SCP_DATA;
    unsigned e, bad;

    /* general gather: lanes before the faulting one stay written */
    for (e = 0; e < 8; e++) {
        scp[e] = 0x3000 + e;
    }
    set_offs(4);
    offs[3] = SCP_HOLE;
    load_regs();
    trap_seen.count = 0;
    run(find("fgw.ps"), 0, SCP_DATA);
    store_f4();
    CHECK(out[0] == 0x3000 && out[2] == 0x3002 && out[3] == lanes[3] &&
          out[7] == lanes[7] && trap_seen.tval == SCP_DATA + SCP_HOLE,
          "fgw.ps faulting on lane 3: lanes 0-2 gathered, 3-7 not");
    expect_trap(5, 3, "fgw.ps past the scratchpad");

    /* general scatter: lanes before the faulting one stay stored */
    for (e = 0; e < 8; e++) {
        scp[e] = 0;
    }
    set_offs(1);
    offs[4] = SCP_HOLE;
    load_regs();
    run(find("fscb.ps"), 0, SCP_DATA);
    for (e = 0, bad = 0; e < 8; e++) {
        bad += ((volatile uint8_t *)scp)[e] != (e < 4 ? 0xa0 + e : 0);
    }
    CHECK(bad == 0, "fscb.ps faulting on lane 4: lanes 0-3 stored, 5-7 not");
    expect_trap(7, 4, "fscb.ps past the scratchpad");

    /* a preset gsc_progress: the instruction resumes at that lane */
    for (e = 0; e < 8; e++) {
        scp[e] = 0x3000 + e;
    }
    set_offs(4);
    load_regs();
    csr_write(GSC_PROGRESS, 3);
    run(find("fgw.ps"), 0, SCP_DATA);
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        bad += out[e] != (e < 3 ? lanes[e] : 0x3000 + e);
    }
    CHECK(bad == 0 && trap_seen.count == 0 && csr_read(GSC_PROGRESS) == 0,
          "fgw.ps with gsc_progress 3: lanes 0-2 skipped, then reset to 0");

    /* coherent gather and scatter: a misaligned element faults */
    set_offs(4);
    offs[2] = 6;
    load_regs();
    run(find("fgwg.ps"), 0, SCP_DATA);
    store_f4();
    CHECK(out[1] == 0x3001 && out[2] == lanes[2] &&
          trap_seen.tval == SCP_DATA + 6,
          "fgwg.ps misaligned lane 2: lanes 0-1 gathered, 2-7 not");
    expect_trap(5, 2, "fgwg.ps misaligned");
    for (e = 0; e < 8; e++) {
        scp[e] = 0xffffffff;
    }
    set_offs(2);
    offs[5] = 11;
    load_regs();
    run(find("fschl.ps"), 0, SCP_DATA);
    for (e = 0, bad = 0; e < 8; e++) {
        bad += ((volatile uint16_t *)scp)[e] != (e < 5 ? 0xa0a0 + e : 0xffff);
    }
    CHECK(bad == 0 && trap_seen.tval == SCP_DATA + 11,
          "fschl.ps misaligned lane 5: lanes 0-4 stored, 5-7 not");
    expect_trap(7, 5, "fschl.ps misaligned");

    /* window forms: no gsc_progress */
    set_m0(0xff);
    run(find("fsc32w.ps"), 0, SCP_DATA + SCP_HOLE);
    expect_trap(7, 0, "fsc32w.ps past the scratchpad");
}

static void whole_faults(void)
{
    unsigned e, bad;

    set_m0(0xff);
    trap_seen.count = 0;
    run(find("flwl.ps"), (uintptr_t)buf + 4, 0);
    CHECK(trap_seen.tval == (uintptr_t)buf + 4,
          "flwl.ps: mtval is the address");
    expect_trap(5, 0, "flwl.ps 4 bytes off 32-byte alignment");
    for (e = 0; e < sizeof(buf); e++) {
        buf[e] = want[e] = e;
    }
    run(find("fswg.ps"), (uintptr_t)buf + 16, 0);
    for (e = 0, bad = 0; e < sizeof(buf); e++) {
        bad += buf[e] != want[e];
    }
    CHECK(bad == 0 && trap_seen.tval == (uintptr_t)buf + 16,
          "fswg.ps 16 bytes off alignment: nothing stored, mtval the address");
    expect_trap(7, 0, "fswg.ps misaligned");
}

static void amo_faults(void)
{
    volatile uint32_t *scp = (volatile uint32_t *)SCP_DATA;
    uint64_t uc = DRAM_UC + ((uintptr_t)amo_mem - DRAM_BASE);
    unsigned e, bad;

    set_offs(4);
    offs[0] = 2;
    load_regs();
    set_m0(0x01);
    run(find("famoaddl.pi"), 0, (uintptr_t)amo_mem);
    expect_trap(7, 0, "famoaddl.pi misaligned");
    offs[0] = 0;
    load_regs();
    set_m0(0x01);
    run(find("famoaddl.pi"), 0, SCP_DATA);
    expect_trap(7, 0, "famoaddl.pi (local) to the L2 scratchpad");
    run(find("famoaddg.pi"), 0, uc);
    expect_trap(7, 0, "famoaddg.pi to the uncacheable DRAM alias");
    scp[0] = 40;
    run(find("famoaddg.pi"), 0, SCP_DATA);
    store_f4();
    CHECK(trap_seen.count == 0 && scp[0] == 40 + lanes[0] && out[0] == 40,
          "famoaddg.pi (global) to the L2 scratchpad is allowed");

    /*
     * Lane 5 faults: lanes 0-4 are done and gsc_progress says 5.  Kept
     * (as an OS would), the instruction run again once the offset is
     * right does lanes 5-7 only: every word is added to exactly once.
     */
    for (e = 0; e < 8; e++) {
        amo_mem[e] = 100 * e;
    }
    set_offs(4);
    offs[5] = 21;
    load_regs();
    keep_progress = true;
    run(find("famoaddl.pi"), 0, (uintptr_t)amo_mem);
    keep_progress = false;
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        bad += amo_mem[e] != 100 * e + (e < 5 ? lanes[e] : 0);
        bad += out[e] != (e < 5 ? 100 * e : lanes[e]);
    }
    CHECK(bad == 0 && trap_seen.count == 1 && trap_seen.cause == 7 &&
          csr_read(GSC_PROGRESS) == 5,
          "famoaddl.pi misaligned lane 5: lanes 0-4 done, gsc_progress 5");
    trap_seen.count = 0;
    offs[5] = 20;
    set_m0(0xff);
    FLW_PS(f1, offs);
    run(find("famoaddl.pi"), 0, (uintptr_t)amo_mem);
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        bad += amo_mem[e] != 100 * e + lanes[e] || out[e] != 100 * e;
    }
    CHECK(bad == 0 && trap_seen.count == 0 && csr_read(GSC_PROGRESS) == 0,
          "famoaddl.pi run again: lanes 5-7 only, gsc_progress back to 0");
}

int main(uint64_t hartid, const void *fdt)
{
    const struct mem_op *op;
    unsigned e, v, bad;

    if (hartid != 0) {
        return 0;
    }
    for (op = ops; op < ops + NOPS; op++) {
        if (op->kind & AMO) {
            for (v = 0; v < 4; v++) {
                amo_vector(op, v);
            }
            continue;
        }
        CHECK(op->kind & WINDOW ? window(op, 20) :
              op->kind & WHOLE ? whole(op) : general(op),
              "%s %s", op->name, what(op));
    }
    CHECK(window(find("fg32w.ps"), 22) && window(find("fsc32h.ps"), 21),
          "fg32w.ps / fsc32h.ps with a base off the element size: elements"
          " stay aligned");
    csr_write(GSC_PROGRESS, 3);
    window(find("fsc32b.ps"), 20);          /* checks gsc_progress == 0 */
    CHECK(csr_read(GSC_PROGRESS) == 3,
          "fsc32b.ps neither uses nor resets gsc_progress");
    csr_write(GSC_PROGRESS, 0);
    gsc_faults();
    whole_faults();
    amo_faults();

    /* flq2 / fsq2: all 8 lanes whatever m0 says */
    for (e = 0; e < 8; e++) {
        offs[e] = 0x5000 + e;
        out[e] = 0;
    }
    set_m0(0x01);
    __asm__ volatile("flq2 f4, 0(%0)" :: "r"(offs));
    __asm__ volatile("fsq2 f4, 0(%0)" :: "r"(out) : "memory");
    for (e = 0, bad = 0; e < 8; e++) {
        bad += out[e] != 0x5000 + e;
    }
    CHECK(bad == 0, "flq2 / fsq2 move all 8 lanes whatever m0 says");
    return tap_done();
}
