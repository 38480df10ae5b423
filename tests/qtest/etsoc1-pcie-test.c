/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QTest for the ET-SoC-1 PCIe endpoint and eDMA (docs/host-interface.md),
 * without guest code.  The "host" is reached through the qtest hooks: the
 * host view (card PA = bus address, 0x10_0000_0000..0x30_0000_0000) and
 * the loopback host memory at card PA 0x30_0000_0000 + host address.
 * Addresses are the chip's (host-interface.md 2.3, 5.1), written out here
 * independently of the model's headers.
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qemu/units.h"
#include "libqtest.h"
#include "qapi/qmp/qdict.h"
#include "qemu/bswap.h"
#include "etsoc1-fixture.h"

#define DRAM            0x8000000000ULL
#define LL_BASE         0x8004000000ULL     /* DMA_LL_BASE */
#define DBI             0x7e80000000ULL
#define EDMA            (DBI + 0x380000)
#define IATU_IN(i, r)   (DBI + 0x300000 + 0x100 + (i) * 0x200 + (r))
#define NOPCIESR        0x7f80001000ULL
#define TRG_PCIE        0x30008000ULL
#define TRG_PCIE_SP     0x3000a000ULL
#define TRG_MMIN        0x20000000ULL
#define MBOX_PC_MM      0x20007000ULL
#define MBOX_PC_SP      0x30003000ULL
#define BAR0            0x1000000000ULL
#define BAR2            0x2000000000ULL
#define HOST            0x3000000000ULL     /* loopback host memory */
#define HOST_SIZE       (64 * MiB)

/* eDMA registers */
#define CTRL            0x08
#define ENGINE_EN(rd)   ((rd) ? 0x2c : 0x0c)
#define DOORBELL(rd)    ((rd) ? 0x30 : 0x10)
#define INT_STATUS(rd)  ((rd) ? 0xa0 : 0x4c)
#define INT_MASK(rd)    ((rd) ? 0xa8 : 0x54)
#define INT_CLEAR(rd)   ((rd) ? 0xac : 0x58)
#define ERR_LOW(rd)     ((rd) ? 0xb4 : 0x5c)
#define RD_ERR_HIGH     0xb8
#define CH(rd, n, r)    (0x200 + (n) * 0x200 + ((rd) ? 0x100 : 0) + (r))
#define CONTROL1        0x00
#define XFER_SIZE       0x08
#define LLP_LO          0x1c
#define LLP_HI          0x20
#define CB   (1u << 0)
#define TCB  (1u << 1)
#define LLP  (1u << 2)
#define LIE  (1u << 3)
#define CCS  (1u << 8)
#define LLE  (1u << 9)
#define CS(v)  (((v) >> 5) & 3)
#define CS_RUNNING 1
#define CS_HALTED  2
#define CS_STOPPED 3
#define RD 1
#define WR 0

/* One shire; the log as etsoc1-fixture.h keeps it. */
static void start(Fixture *f)
{
    fixture_start(f, "-M etsoc1,host-loopback=on -m 256M");
}

static uint32_t er(Fixture *f, uint64_t r)
{
    return qtest_readl(f->qts, EDMA + r);
}

static void ew(Fixture *f, uint64_t r, uint32_t v)
{
    qtest_writel(f->qts, EDMA + r, v);
}

/* One 24-byte element at @at. */
static void elem(Fixture *f, uint64_t at, uint32_t ctrl, uint32_t size,
                 uint64_t sar, uint64_t dar)
{
    qtest_writel(f->qts, at, ctrl);
    qtest_writel(f->qts, at + 4, size);
    qtest_writeq(f->qts, at + 8, sar);
    qtest_writeq(f->qts, at + 16, dar);
}

/* The list of channel @n as the firmware lays it out: read ch 0-3 first. */
static uint64_t ll(bool rd, unsigned n)
{
    return LL_BASE + (rd ? 0 : 4 * 0x100) + n * 0x100;
}

/* One data element and the circular link; then start the channel. */
static void start_one(Fixture *f, bool rd, unsigned n, uint32_t size,
                      uint64_t sar, uint64_t dar)
{
    uint64_t base = ll(rd, n);

    elem(f, base, CB | LIE, size, sar, dar);
    elem(f, base + 24, CB | TCB | LLP, 0, base, 0);
    ew(f, ENGINE_EN(rd), 1);
    ew(f, CH(rd, n, LLP_LO), (uint32_t)base);
    ew(f, CH(rd, n, LLP_HI), base >> 32);
    ew(f, CH(rd, n, CONTROL1), CCS | LLE);
    ew(f, DOORBELL(rd), n);
}

static void fill(Fixture *f, uint64_t at, size_t len, uint8_t seed)
{
    g_autofree uint8_t *buf = g_malloc(len);
    size_t i;

    for (i = 0; i < len; i++) {
        buf[i] = seed + i * 7 + (i >> 8);
    }
    qtest_memwrite(f->qts, at, buf, len);
}

static bool same(Fixture *f, uint64_t a, uint64_t b, size_t len)
{
    g_autofree uint8_t *x = g_malloc(len);
    g_autofree uint8_t *y = g_malloc(len);

    qtest_memread(f->qts, a, x, len);
    qtest_memread(f->qts, b, y, len);
    return !memcmp(x, y, len);
}

/* ---- reset values -------------------------------------------------------- */

static void test_reset_values(void)
{
    Fixture f;
    unsigned n;

    start(&f);
    g_assert_cmphex(er(&f, CTRL), ==, 0x00040004);
    for (n = 0; n <= 1; n++) {
        g_assert_cmphex(er(&f, ENGINE_EN(n)), ==, 0);
        g_assert_cmphex(er(&f, INT_STATUS(n)), ==, 0);
        g_assert_cmphex(er(&f, INT_MASK(n)), ==, 0);
        g_assert_cmphex(er(&f, ERR_LOW(n)), ==, 0);
    }
    g_assert_cmphex(er(&f, RD_ERR_HIGH), ==, 0);
    for (n = 0; n < 4; n++) {
        g_assert_cmphex(er(&f, CH(RD, n, CONTROL1)), ==, 0);
        g_assert_cmphex(er(&f, CH(WR, n, CONTROL1)), ==, 0);
        g_assert_cmphex(er(&f, CH(RD, n, LLP_LO)), ==, 0);
        g_assert_cmphex(er(&f, CH(WR, n, LLP_HI)), ==, 0);
    }
    /* the config header as the host's enumeration leaves it */
    g_assert_cmphex(qtest_readl(f.qts, DBI + 0x04) & 2, ==, 2);
    g_assert_cmphex(qtest_readl(f.qts, DBI + 0x10), ==, 0xc);
    g_assert_cmphex(qtest_readl(f.qts, DBI + 0x14), ==, 0x10);
    g_assert_cmphex(qtest_readl(f.qts, DBI + 0x18), ==, 0xc);
    g_assert_cmphex(qtest_readl(f.qts, DBI + 0x1c), ==, 0x20);
    g_assert_cmphex(qtest_readl(f.qts, IATU_IN(0, 4)), ==, 0);
    /* registers keep what is written; the status is read-only */
    ew(&f, CH(WR, 2, LLP_LO), 0x1234);
    g_assert_cmphex(er(&f, CH(WR, 2, LLP_LO)), ==, 0x1234);
    ew(&f, INT_STATUS(RD), 0xffffffff);
    g_assert_cmphex(er(&f, INT_STATUS(RD)), ==, 0);
    g_assert(log_has(&f, "write to read-only register"));
    fixture_stop(&f);
}

/* ---- iATU ---------------------------------------------------------------- */

static void iatu(Fixture *f, unsigned i, uint64_t base, uint64_t target,
                 uint64_t size)
{
    uint64_t limit = base + size - 1;

    qtest_writel(f->qts, IATU_IN(i, 0x00), 1u << 13);  /* UPPR_LIMIT on */
    qtest_writel(f->qts, IATU_IN(i, 0x08), (uint32_t)base);
    qtest_writel(f->qts, IATU_IN(i, 0x0c), base >> 32);
    qtest_writel(f->qts, IATU_IN(i, 0x10), (uint32_t)limit);
    qtest_writel(f->qts, IATU_IN(i, 0x20), limit >> 32);
    qtest_writel(f->qts, IATU_IN(i, 0x14), (uint32_t)target);
    qtest_writel(f->qts, IATU_IN(i, 0x18), target >> 32);
    qtest_writel(f->qts, IATU_IN(i, 0x04), 1u << 31);  /* enable, addr */
}

/* What the SP firmware programs (host-interface.md 2.3). */
static void program_iatus(Fixture *f)
{
    iatu(f, 0, BAR0, DRAM + 0x4001000, 128 * MiB);
    iatu(f, 1, BAR2, MBOX_PC_MM, 0x1000);
    iatu(f, 2, BAR2 + 0x1000, MBOX_PC_SP, 0x1000);
    iatu(f, 3, BAR2 + 0x2000, TRG_PCIE, 0x2000);
}

static void test_iatu(void)
{
    Fixture f;

    start(&f);
    /* nothing mapped yet: an Unsupported Request, reads as 0 */
    g_assert_cmphex(qtest_readl(f.qts, BAR0), ==, 0);
    g_assert(log_has(&f, "no inbound iATU region"));

    program_iatus(&f);
    g_assert_cmphex(qtest_readl(f.qts, IATU_IN(3, 0x04)), ==, 1u << 31);
    g_assert_cmphex(qtest_readl(f.qts, IATU_IN(0, 0x14)), ==, 0x04001000);

    /* BAR0 -> DRAM_MEMMAP_BEGIN */
    qtest_writeq(f.qts, BAR0 + 0x100, 0x1122334455667788ULL);
    g_assert_cmphex(qtest_readq(f.qts, DRAM + 0x4001100), ==,
                    0x1122334455667788ULL);
    qtest_writel(f.qts, DRAM + 0x4001000 + 64 * MiB, 0xcafe);
    g_assert_cmphex(qtest_readl(f.qts, BAR0 + 64 * MiB), ==, 0xcafe);
    /* BAR2: the MM and SP DIRs */
    qtest_writel(f.qts, BAR2 + 0x8, 0xa5a5);
    g_assert_cmphex(qtest_readl(f.qts, MBOX_PC_MM + 0x8), ==, 0xa5a5);
    qtest_writel(f.qts, MBOX_PC_SP + 0x2c, 12);
    g_assert_cmphex(qtest_readl(f.qts, BAR2 + 0x1000 + 0x2c), ==, 12);
    /* an access across two regions goes on in the next */
    qtest_writeq(f.qts, BAR2 + 0xffc, 0x0102030405060708ULL);
    g_assert_cmphex(qtest_readl(f.qts, MBOX_PC_MM + 0xffc), ==, 0x05060708);
    g_assert_cmphex(qtest_readl(f.qts, MBOX_PC_SP), ==, 0x01020304);
    /* past the last region, and a disabled region */
    g_assert_cmphex(qtest_readl(f.qts, BAR0 + 128 * MiB), ==, 0);
    qtest_writel(f.qts, IATU_IN(1, 0x04), 0);
    g_assert_cmphex(qtest_readl(f.qts, BAR2 + 0x8), ==, 0);

    /* below the 4 KiB granule: base and target read 0, the limit ones */
    iatu(&f, 4, BAR0 + 512 * MiB + 0x123, DRAM + 0x100abc, 0x1000);
    g_assert_cmphex(qtest_readl(f.qts, IATU_IN(4, 0x08)), ==, 0x20000000);
    g_assert_cmphex(qtest_readl(f.qts, IATU_IN(4, 0x14)), ==, 0x00100000);
    g_assert_cmphex(qtest_readl(f.qts, IATU_IN(4, 0x10)), ==, 0x20001fff);
    qtest_writel(f.qts, DRAM + 0x100010, 0x5a5a);
    g_assert_cmphex(qtest_readl(f.qts, BAR0 + 512 * MiB + 0x10), ==, 0x5a5a);
    /* only memory TLPs in address match mode translate */
    qtest_writel(f.qts, IATU_IN(4, 0x00), (1u << 13) | 2);     /* TYPE IO */
    g_assert_cmphex(qtest_readl(f.qts, BAR0 + 512 * MiB + 0x10), ==, 0);
    qtest_writel(f.qts, IATU_IN(4, 0x00), 1u << 13);
    qtest_writel(f.qts, IATU_IN(4, 0x04), (1u << 31) | (1u << 30));
    g_assert(log_has(&f, "BAR match mode is not modelled"));
    g_assert_cmphex(qtest_readl(f.qts, BAR0 + 512 * MiB + 0x10), ==, 0);
    fixture_stop(&f);
}

/* ---- doorbells and MSI --------------------------------------------------- */

/* An integer property of a QOM object. */
static int64_t qom_get_int(Fixture *f, const char *path, const char *prop)
{
    QDict *rsp = qtest_qmp(f->qts, "{ 'execute': 'qom-get', 'arguments': "
                           "{ 'path': %s, 'property': %s } }", path, prop);
    int64_t v = qdict_get_int(rsp, "return");

    qobject_unref(rsp);
    return v;
}

static uint32_t msi_sent(Fixture *f)
{
    return qom_get_int(f, "/machine/pcie", "msi-sent");
}

static void test_doorbells(void)
{
    Fixture f;

    start(&f);
    qtest_irq_intercept_out(f.qts, "/machine/pcie");
    program_iatus(&f);
    g_assert(!qtest_get_irq(f.qts, 0) && !qtest_get_irq(f.qts, 1));

    /* host -> SP: IPI_TRIGGER through BAR2 + 0x2000; the SP clears it */
    qtest_writel(f.qts, BAR2 + 0x2000, 1);
    g_assert(qtest_get_irq(f.qts, 0));
    g_assert_cmphex(qtest_readl(f.qts, TRG_PCIE_SP), ==, 1);
    qtest_writel(f.qts, TRG_PCIE_SP, 1);
    g_assert(!qtest_get_irq(f.qts, 0));

    /* host -> MM: MMM_INT_INC counts; the MM decrements through MMIN */
    qtest_writel(f.qts, BAR2 + 0x2004, 1);
    qtest_writel(f.qts, TRG_PCIE + 4, 1);
    g_assert(qtest_get_irq(f.qts, 1));
    g_assert_cmphex(qtest_readl(f.qts, TRG_MMIN + 0xc), ==, 2);
    qtest_writel(f.qts, TRG_MMIN + 8, 1);
    g_assert(qtest_get_irq(f.qts, 1));
    qtest_writel(f.qts, TRG_MMIN + 8, 1);
    g_assert(!qtest_get_irq(f.qts, 1));
    qtest_writel(f.qts, TRG_MMIN + 8, 1);
    g_assert(log_has(&f, "PCI_INT_DEC with no doorbell pending"));
    g_assert_cmphex(qtest_readl(f.qts, TRG_PCIE + 0xc), ==, 0);

    /* MSI: 1 << vector then 0 to MSI_TX_VEC; vectors 0-3 only */
    g_assert_cmphex(msi_sent(&f), ==, 0);
    qtest_writel(f.qts, NOPCIESR + 0x18, 1u << 3);
    qtest_writel(f.qts, NOPCIESR + 0x18, 0);
    g_assert_cmphex(msi_sent(&f), ==, 8);
    qtest_writel(f.qts, NOPCIESR + 0x18, 1u << 5);
    g_assert(log_has(&f, "beyond the 4 the host allocated"));
    g_assert_cmphex(msi_sent(&f), ==, 8);
    /* MSI-X address match: the vector number written to the address */
    qtest_writel(f.qts, DBI + 0x944, 0x40);
    qtest_writel(f.qts, DBI + 0x940, 0x1000 | 1);
    qtest_writel(f.qts, 0x4000001000ULL, 1);
    g_assert_cmphex(msi_sent(&f), ==, 0xa);
    fixture_stop(&f);
}

/* ---- eDMA transfers ------------------------------------------------------ */

static void test_h2d(void)
{
    Fixture f;
    uint64_t base = ll(RD, 1);

    start(&f);
    fill(&f, HOST + 0x1000, 0x5000, 1);
    /* two data elements, LIE on the last, and the circular link */
    elem(&f, base, CB, 0x3000, 0x1000, DRAM + 0x100000);
    elem(&f, base + 24, CB | LIE, 0x2000, 0x4000, DRAM + 0x200000);
    elem(&f, base + 48, CB | TCB | LLP, 0, base, 0);
    ew(&f, ENGINE_EN(RD), 1);
    ew(&f, CH(RD, 1, LLP_LO), (uint32_t)base);
    ew(&f, CH(RD, 1, LLP_HI), base >> 32);
    ew(&f, CH(RD, 1, CONTROL1), CCS | LLE);
    ew(&f, DOORBELL(RD), 1);
    /* the walk runs from the timer: DONE waits for the bytes' time */
    g_assert_cmpuint(CS(er(&f, CH(RD, 1, CONTROL1))), ==, CS_RUNNING);
    /* 0x5000 bytes at 12.5 GB/s: 1640 ns */
    qtest_clock_step(f.qts, 1500);
    g_assert_cmphex(er(&f, INT_STATUS(RD)), ==, 0);
    qtest_clock_step(f.qts, 200);
    g_assert_cmphex(er(&f, INT_STATUS(RD)), ==, 1u << 1);
    g_assert(same(&f, HOST + 0x1000, DRAM + 0x100000, 0x3000));
    g_assert(same(&f, HOST + 0x4000, DRAM + 0x200000, 0x2000));
    /* stopped at the list base with the cycle bit toggled */
    g_assert_cmphex(er(&f, CH(RD, 1, CONTROL1)), ==,
                    LLE | (CS_STOPPED << 5));
    g_assert_cmphex(er(&f, CH(RD, 1, LLP_LO)), ==, (uint32_t)base);
    ew(&f, INT_CLEAR(RD), 1u << 1);
    g_assert_cmphex(er(&f, INT_STATUS(RD)), ==, 0);
    fixture_stop(&f);
}

static void test_d2h(void)
{
    Fixture f;

    start(&f);
    fill(&f, DRAM + 0x300000, 0x8000, 9);
    /* 32 KiB at 10.5 GB/s: 3121 ns */
    start_one(&f, WR, 3, 0x8000, DRAM + 0x300000, 0x20000);
    qtest_clock_step(f.qts, 3000);
    g_assert_cmphex(er(&f, INT_STATUS(WR)), ==, 0);
    qtest_clock_step(f.qts, 200);
    g_assert_cmphex(er(&f, INT_STATUS(WR)), ==, 1u << 3);
    g_assert(same(&f, DRAM + 0x300000, HOST + 0x20000, 0x8000));
    g_assert_cmpuint(CS(er(&f, CH(WR, 3, CONTROL1))), ==, CS_STOPPED);
    fixture_stop(&f);
}

/*
 * The rate rules of docs/host-interface.md, "Timing" (timing.md 6): the
 * table's rows in bytes per ns, and the factors for sharing the link.
 */
#define H2D_RATE    12.5
#define D2H_RATE    10.5
#define PAIR        1.01
#define SAME_STREAM 0.49
#define DUPLEX      1.075

static uint64_t step_bytes(Fixture *f)
{
    return qom_get_int(f, "/machine/pcie/edma", "step-bytes");
}

/*
 * The model prices each step of step-bytes when it starts and rounds its
 * time up to a whole ns, so a channel that starts or ends reaches the
 * others up to one step late (host-interface.md, "Timing").  A transfer
 * of @bytes expected after @ns ns of the rules' continuous sharing thus
 * ends in [ns - early, ns + late + one ns per step]; @early and @late are
 * what one step gains or loses on the rate that applied to it.
 */
typedef struct {
    double lo, hi;
} Window;

static uint64_t steps(Fixture *f, uint64_t bytes)
{
    return DIV_ROUND_UP(bytes, step_bytes(f));
}

static Window window(Fixture *f, uint64_t bytes, double ns, double early,
                     double late)
{
    Window w = { ns - early, ns + late + steps(f, bytes) };

    return w;
}

/* One step of @step bytes at @slow instead of @fast: the time it adds. */
static double step_lag(Fixture *f, double slow, double fast)
{
    double step = step_bytes(f);

    return step / slow - step / fast;
}

/* At @t0 + w.lo none of @bits is set in INT_STATUS; at @t0 + w.hi all. */
static void expect_done(Fixture *f, bool rd, uint32_t bits, int64_t t0,
                        Window w)
{
    int64_t lo = t0 + (int64_t)floor(w.lo) - 1;
    int64_t hi = t0 + (int64_t)ceil(w.hi) + 1;

    g_assert_cmpint(qtest_clock_step(f->qts, 0), <=, lo);
    qtest_clock_set(f->qts, lo);
    g_assert_cmphex(er(f, INT_STATUS(rd)) & bits, ==, 0);
    qtest_clock_set(f->qts, hi);
    g_assert_cmphex(er(f, INT_STATUS(rd)) & bits, ==, bits);
    ew(f, INT_CLEAR(rd), bits);
}

/*
 * Channels 0 and 2 of one direction, @size bytes each, started together:
 * each moves at @factor x @rate / 2.  The first one's first step went
 * alone, at @rate.
 */
static void expect_pair(Fixture *f, bool rd, uint64_t size, double rate,
                        double factor)
{
    double each = rate * factor / 2;
    int64_t t0 = qtest_clock_step(f->qts, 0);

    if (rd) {
        start_one(f, RD, 0, size, 0, DRAM + 0x400000);
        start_one(f, RD, 2, size, size, DRAM + 0x400000 + size);
    } else {
        start_one(f, WR, 0, size, DRAM + 0x400000, 2 * size);
        start_one(f, WR, 2, size, DRAM + 0x400000 + size, 3 * size);
    }
    expect_done(f, rd, 5, t0,
                window(f, size, size / each, step_lag(f, each, rate), 0));
}

/*
 * Two host->card channels share the link (timing.md 6: 1.01 of one), and
 * both directions share 1.075 of the faster one in proportion to their
 * rates.  Each doorbell's first step runs before the next doorbell is
 * written (the timer is due at once), so that step goes at the rate of
 * the channels already running: the windows allow one step of lag.
 */
static void test_rates(void)
{
    const uint64_t size = 1 * MiB;
    double share = MIN(1.0, DUPLEX * MAX(H2D_RATE, D2H_RATE) /
                            (H2D_RATE + D2H_RATE));
    double h_dup = H2D_RATE * share, d_dup = D2H_RATE * share;
    double t_rd, early_rd;
    Fixture f;
    int64_t t0;

    start(&f);
    fill(&f, HOST, 2 * size, 5);
    /* alone: at the table's rate */
    t0 = qtest_clock_step(f.qts, 0);
    start_one(&f, RD, 0, size, 0, DRAM + 0x400000);
    expect_done(&f, RD, 1, t0, window(&f, size, size / H2D_RATE, 0, 0));

    /* two at once, each direction */
    expect_pair(&f, RD, size, H2D_RATE, PAIR);
    expect_pair(&f, WR, size, D2H_RATE, PAIR);

    /*
     * Both directions.  Card->host moves at d_dup while host->card runs,
     * then alone: it ends at size / D2H_RATE + t_rd * (1 - share).  If
     * host->card ends early, card->host ends earlier by less than that;
     * if late by its rounding, card->host ends later by less than that.
     */
    t0 = qtest_clock_step(f.qts, 0);
    start_one(&f, RD, 0, size, 0, DRAM + 0x400000);
    start_one(&f, WR, 0, size, DRAM + 0x400000, 2 * size);
    t_rd = size / h_dup;
    early_rd = step_lag(&f, h_dup, H2D_RATE);
    expect_done(&f, RD, 1, t0, window(&f, size, t_rd, early_rd, 0));
    expect_done(&f, WR, 1, t0,
                window(&f, size, size / D2H_RATE + t_rd * (1 - share),
                       early_rd,
                       step_lag(&f, d_dup, D2H_RATE) + steps(&f, size)));
    /* the card copy of host [0, size) went back to host [size * 2, ..) */
    g_assert(same(&f, HOST, HOST + 2 * size, size));
    fixture_stop(&f);
}

/*
 * With same-stream=on, two host->card commands in flight move 0.49 of
 * one command's rate together (timing.md 6, "in one stream").
 */
static void test_same_stream(void)
{
    const uint64_t size = 1 * MiB;
    Fixture f;

    fixture_start(&f, "-M etsoc1,host-loopback=on -m 256M "
                  "-global etsoc1-edma.same-stream=on");
    fill(&f, HOST, 2 * size, 9);
    expect_pair(&f, RD, size, H2D_RATE, SAME_STREAM);
    g_assert(same(&f, HOST, DRAM + 0x400000, 2 * size));
    fixture_stop(&f);
}

/* ---- abort, errors, interrupts ------------------------------------------- */

static void test_abort(void)
{
    Fixture f;

    start(&f);
    fill(&f, HOST + 4 * MiB - 0x1000, 0x1000, 3);
    start_one(&f, RD, 2, 4 * MiB, 0, DRAM + 0x400000);
    qtest_clock_step(f.qts, 10000);
    g_assert_cmpuint(CS(er(&f, CH(RD, 2, CONTROL1))), ==, CS_RUNNING);
    ew(&f, DOORBELL(RD), (1u << 31) | 2);
    g_assert_cmphex(er(&f, INT_STATUS(RD)), ==, 1u << (16 + 2));
    g_assert_cmpuint(CS(er(&f, CH(RD, 2, CONTROL1))), ==, CS_STOPPED);
    qtest_clock_step(f.qts, 1000000);
    g_assert_cmphex(er(&f, INT_STATUS(RD)), ==, 1u << (16 + 2));
    /* not all of it moved */
    g_assert_cmphex(qtest_readl(f.qts, DRAM + 0x400000 + 4 * MiB - 4), ==, 0);
    ew(&f, INT_CLEAR(RD), 1u << (16 + 2));
    g_assert_cmphex(er(&f, INT_STATUS(RD)), ==, 0);
    /* the channel takes a new command */
    start_one(&f, RD, 2, 64, 0, DRAM + 0x400000);
    qtest_clock_step(f.qts, 100);
    g_assert_cmphex(er(&f, INT_STATUS(RD)), ==, 1u << 2);
    ew(&f, INT_CLEAR(RD), 1u << 2);

    /* disabling the engine stops its running channels, without interrupt */
    start_one(&f, RD, 1, 4 * MiB, 0, DRAM + 0x800000);
    qtest_clock_step(f.qts, 10000);
    g_assert_cmpuint(CS(er(&f, CH(RD, 1, CONTROL1))), ==, CS_RUNNING);
    ew(&f, ENGINE_EN(RD), 0);
    g_assert_cmpuint(CS(er(&f, CH(RD, 1, CONTROL1))), ==, CS_STOPPED);
    qtest_clock_step(f.qts, 1000000);
    g_assert_cmphex(er(&f, INT_STATUS(RD)), ==, 0);
    g_assert_cmphex(qtest_readl(f.qts, DRAM + 0x800000 + 4 * MiB - 4), ==, 0);
    fixture_stop(&f);
}

/* Start @rd channel 0, let it run, check abort and the error bit. */
static void expect_error(Fixture *f, bool rd, uint64_t err_reg,
                         uint32_t err_bit)
{
    ew(f, DOORBELL(rd), 0);
    qtest_clock_step(f->qts, 100000);
    g_assert_cmphex(er(f, INT_STATUS(rd)), ==, 1u << 16);
    g_assert_cmphex(er(f, err_reg), ==, err_bit);
    g_assert_cmpuint(CS(er(f, CH(rd, 0, CONTROL1))), ==, CS_HALTED);
    /* clearing the abort clears the error it explains */
    ew(f, INT_CLEAR(rd), 1u << 16);
    g_assert_cmphex(er(f, INT_STATUS(rd)), ==, 0);
    g_assert_cmphex(er(f, err_reg), ==, 0);
    ew(f, CH(rd, 0, CONTROL1), CCS | LLE);
    ew(f, CH(rd, 0, LLP_LO), (uint32_t)ll(rd, 0));
    ew(f, CH(rd, 0, LLP_HI), ll(rd, 0) >> 32);
}

static void test_errors(void)
{
    Fixture f;
    uint64_t base = ll(RD, 0), wbase = ll(WR, 0);

    start(&f);
    ew(&f, ENGINE_EN(RD), 1);
    ew(&f, ENGINE_EN(WR), 1);
    ew(&f, CH(RD, 0, LLP_LO), (uint32_t)base);
    ew(&f, CH(RD, 0, LLP_HI), base >> 32);
    ew(&f, CH(RD, 0, CONTROL1), CCS | LLE);
    ew(&f, CH(WR, 0, LLP_LO), (uint32_t)wbase);
    ew(&f, CH(WR, 0, LLP_HI), wbase >> 32);
    ew(&f, CH(WR, 0, CONTROL1), CCS | LLE);
    elem(&f, base + 24, CB | TCB | LLP, 0, base, 0);
    elem(&f, wbase + 24, CB | TCB | LLP, 0, wbase, 0);

    /* destination past the end of DRAM (-m 256M): local write error */
    elem(&f, base, CB | LIE, 0x100, 0, DRAM + 256 * MiB - 0x80);
    expect_error(&f, RD, ERR_LOW(RD), 1u << 0);
    g_assert_cmphex(qtest_readl(f.qts, DRAM + 256 * MiB - 0x80), ==, 0);
    /* destination in the PCIe registers: not card memory */
    elem(&f, base, CB | LIE, 0x100, 0, DBI + 0x380000);
    expect_error(&f, RD, ERR_LOW(RD), 1u << 0);
    g_assert_cmphex(er(&f, CTRL), ==, 0x00040004);
    /* an element over 128 MiB: element error */
    elem(&f, base, CB | LIE, 128 * MiB + 1, 0, DRAM);
    expect_error(&f, RD, ERR_LOW(RD), 1u << 16);
    g_assert(log_has(&f, "ll-fetch"));
    /* a list that never ends: a link to itself without TCB */
    elem(&f, base, CB | LLP, 0, base, 0);
    expect_error(&f, RD, ERR_LOW(RD), 1u << 16);
    /* a list pointer outside card memory */
    elem(&f, base, CB | LLP | TCB, 0, 0x3000000000ULL, 0);
    expect_error(&f, RD, ERR_LOW(RD), 1u << 16);
    /* the host read fails (past the loopback): completer abort */
    fill(&f, HOST + HOST_SIZE - 0x800, 0x800, 1);
    elem(&f, base, CB | LIE, 0x1000, HOST_SIZE - 0x800, DRAM + 0x100000);
    expect_error(&f, RD, RD_ERR_HIGH, 1u << 8);
    g_assert(log_has(&f, "host-access"));
    g_assert_cmphex(qtest_readq(f.qts, DRAM + 0x100000), ==, 0);
    /* card -> host: source outside card memory: local read error */
    elem(&f, wbase, CB | LIE, 0x100, 0x3000000000ULL, 0);
    expect_error(&f, WR, ERR_LOW(WR), 1u << 0);
    /* card -> host: the host write fails: abort, no error bit */
    elem(&f, wbase, CB | LIE, 0x1000, DRAM, HOST_SIZE - 0x10);
    expect_error(&f, WR, ERR_LOW(WR), 0);

    /* bad doorbells are ignored and logged */
    ew(&f, DOORBELL(RD), 5);
    g_assert(log_has(&f, "doorbell for channel 5"));
    ew(&f, ENGINE_EN(RD), 0);
    ew(&f, DOORBELL(RD), 0);
    g_assert(log_has(&f, "with the engine disabled"));
    g_assert_cmpuint(CS(er(&f, CH(RD, 0, CONTROL1))), ==, CS_HALTED);
    ew(&f, ENGINE_EN(RD), 1);
    elem(&f, base, CB | LIE, 1 * MiB, 0, DRAM + 0x100000);
    ew(&f, DOORBELL(RD), 0);
    ew(&f, DOORBELL(RD), 0);
    g_assert(log_has(&f, "while the channel runs"));
    qtest_clock_step(f.qts, 100000);
    g_assert_cmphex(er(&f, INT_STATUS(RD)), ==, 1);
    fixture_stop(&f);
}

static void test_interrupts(void)
{
    Fixture f;

    start(&f);
    qtest_irq_intercept_out(f.qts, "/machine/pcie/edma");
    start_one(&f, RD, 1, 256, 0, DRAM + 0x100000);
    qtest_clock_step(f.qts, 100);
    g_assert_cmphex(er(&f, INT_STATUS(RD)), ==, 2);
    g_assert(qtest_get_irq(f.qts, 4 + 1));      /* lines: wr 0-3, rd 4-7 */
    g_assert(!qtest_get_irq(f.qts, 1));
    ew(&f, INT_MASK(RD), 2);
    g_assert(!qtest_get_irq(f.qts, 4 + 1));
    g_assert_cmphex(er(&f, INT_STATUS(RD)), ==, 2);   /* still pending */
    ew(&f, INT_MASK(RD), 0);
    g_assert(qtest_get_irq(f.qts, 4 + 1));
    ew(&f, INT_CLEAR(RD), 2);
    g_assert(!qtest_get_irq(f.qts, 4 + 1));
    /* an abort interrupts too */
    start_one(&f, WR, 2, 256, 0x3000000000ULL, 0);
    qtest_clock_step(f.qts, 100);
    g_assert_cmphex(er(&f, INT_STATUS(WR)), ==, 1u << 18);
    g_assert(qtest_get_irq(f.qts, 2));
    ew(&f, INT_CLEAR(WR), 1u << 18);
    g_assert(!qtest_get_irq(f.qts, 2));
    fixture_stop(&f);
}

/* ---- the PLICs and the service processor -------------------------------- */

#define PU_PLIC         0x10000000ULL
#define SP_PLIC         0x50000000ULL
#define SP_SRAM         0x40400000ULL
#define PLIC_PRIO(src)  (4 * (src))
#define PLIC_PEND(src)  (0x1000 + 4 * ((src) / 32))
#define PLIC_EN(ctx, src) (0x2000 + 0x80 * (ctx) + 4 * ((src) / 32))
#define PLIC_CLAIM(ctx) (0x200004 + 0x1000 * (ctx))
#define PCIE_MESSAGE    33
#define MBOX_HOST       115

static bool plic_pending(Fixture *f, uint64_t plic, unsigned src)
{
    return qtest_readl(f->qts, plic + PLIC_PEND(src)) >> (src % 32) & 1;
}

/* Claim on context @ctx, check it is @src, complete. */
static void plic_claim(Fixture *f, uint64_t plic, unsigned ctx, unsigned src)
{
    qtest_writel(f->qts, plic + PLIC_PRIO(src), 1);
    qtest_writel(f->qts, plic + PLIC_EN(ctx, src), 1u << (src % 32));
    g_assert_cmpuint(qtest_readl(f->qts, plic + PLIC_CLAIM(ctx)), ==, src);
    qtest_writel(f->qts, plic + PLIC_CLAIM(ctx), src);
}

/*
 * A minimal RISC-V ELF for sp-firmware: one PT_LOAD of @code at SP SRAM,
 * entry there.  Written out by hand so the test needs no toolchain.
 */
static char *write_sp_elf(const uint32_t *code, size_t n)
{
    uint8_t elf[64 + 56] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
    uint64_t entry = SP_SRAM, off = sizeof(elf), size = n * 4;
    GString *img;
    char *path;
    int fd = g_file_open_tmp("etsoc1-sp-XXXXXX.elf", &path, NULL);

    g_assert(fd >= 0);
    close(fd);
    stw_le_p(elf + 16, 2);              /* ET_EXEC */
    stw_le_p(elf + 18, 243);            /* EM_RISCV */
    stl_le_p(elf + 20, 1);
    stq_le_p(elf + 24, entry);
    stq_le_p(elf + 32, 64);             /* e_phoff */
    stw_le_p(elf + 52, 64);             /* e_ehsize */
    stw_le_p(elf + 54, 56);             /* e_phentsize */
    stw_le_p(elf + 56, 1);              /* e_phnum */
    stl_le_p(elf + 64, 1);              /* PT_LOAD */
    stl_le_p(elf + 68, 7);              /* RWX */
    stq_le_p(elf + 72, off);
    stq_le_p(elf + 80, entry);
    stq_le_p(elf + 88, entry);
    stq_le_p(elf + 96, size);
    stq_le_p(elf + 104, size);
    stq_le_p(elf + 112, 4);
    img = g_string_new_len((char *)elf, sizeof(elf));
    g_string_append_len(img, (const char *)code, size);
    g_assert(g_file_set_contents(path, img->str, img->len, NULL));
    g_string_free(img, true);
    return path;
}

static void test_plic(void)
{
    static const uint32_t code[] = { 0x10500073, 0xffdff06f }; /* 1: wfi; j 1b */
    g_autofree char *elf = write_sp_elf(code, ARRAY_SIZE(code));
    Fixture f;

    fixture_start(&f, "-M etsoc1,shires=33,sp-firmware=%s,host-loopback=on "
                  "-smp 2113 "
                  "-m 256M", elf);
    program_iatus(&f);

    /* the SP's image is in its SRAM */
    g_assert_cmphex(qtest_readl(f.qts, SP_SRAM), ==, code[0]);
    g_assert_cmphex(qtest_readl(f.qts, SP_SRAM + 4), ==, code[1]);

    /* host -> SP: SP PLIC source 115 while IPI_TRIGGER is set */
    g_assert(!plic_pending(&f, SP_PLIC, MBOX_HOST));
    qtest_writel(f.qts, BAR2 + 0x2000, 1);
    g_assert(plic_pending(&f, SP_PLIC, MBOX_HOST));
    qtest_writel(f.qts, TRG_PCIE_SP, 1);
    plic_claim(&f, SP_PLIC, 0, MBOX_HOST);
    g_assert(!plic_pending(&f, SP_PLIC, MBOX_HOST));

    /* host -> MM: PU PLIC source 33 while the MMM count is non-zero */
    g_assert(!plic_pending(&f, PU_PLIC, PCIE_MESSAGE));
    qtest_writel(f.qts, BAR2 + 0x2004, 1);
    g_assert(plic_pending(&f, PU_PLIC, PCIE_MESSAGE));
    qtest_writel(f.qts, TRG_MMIN + 8, 1);
    plic_claim(&f, PU_PLIC, 0, PCIE_MESSAGE);       /* context 0: hart 2048 */
    g_assert(!plic_pending(&f, PU_PLIC, PCIE_MESSAGE));
    fixture_stop(&f);
    unlink(elf);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("etsoc1-pcie/edma-reset-values", test_reset_values);
    qtest_add_func("etsoc1-pcie/iatu", test_iatu);
    qtest_add_func("etsoc1-pcie/doorbells-msi", test_doorbells);
    qtest_add_func("etsoc1-pcie/edma-h2d", test_h2d);
    qtest_add_func("etsoc1-pcie/edma-d2h", test_d2h);
    qtest_add_func("etsoc1-pcie/edma-rates", test_rates);
    qtest_add_func("etsoc1-pcie/edma-same-stream", test_same_stream);
    qtest_add_func("etsoc1-pcie/edma-abort", test_abort);
    qtest_add_func("etsoc1-pcie/edma-errors", test_errors);
    qtest_add_func("etsoc1-pcie/edma-interrupts", test_interrupts);
    qtest_add_func("etsoc1-pcie/plic-sp", test_plic);
    return g_test_run();
}
