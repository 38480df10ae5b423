/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QTest for the ET-SoC-1 machine: memory map, ESR decoding, error logging
 * and reset values, without guest code.
 *
 * Addresses come from the chip facts (isa.md section 2), written out here
 * independently of the model's tables.  qtest accesses have no hart behind
 * them, so they hold every privilege; QEMU's qtest makes them through the
 * first CPU's address space, so the local-shire aliases resolve to shire 0.
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "libqtest.h"
#include "qapi/qmp/qdict.h"
#include "qapi/qmp/qlist.h"
#include "qapi/qmp/qnum.h"
#include "etsoc1-fixture.h"

#define DRAM_BASE       0x8000000000ULL
#define SCP_BASE        0x80000000ULL
#define SCP_WINDOW      (8ULL << 20)
#define SCP_SIZE        (4ULL << 20)

#define ESR(pp, shire, off) \
    (0x100000000ULL | ((uint64_t)(pp) << 30) | ((uint64_t)(shire) << 22) | (off))
#define OTHER(pp, shire, reg)     ESR(pp, shire, 0x340000ULL | (reg))
#define NEIGH(pp, shire, n, reg)  ESR(pp, shire, 0x100000ULL | ((n) << 16) | (reg))

/* Two shires, guest errors and unimplemented accesses logged to a file. */
#define MACHINE "-M etsoc1,shires=2 -smp 128 -m 256M"

static void test_memory_map(void)
{
    Fixture f;
    g_autofree char *mtree = NULL;

    fixture_start(&f, MACHINE);
    mtree = qtest_hmp(f.qts, "info mtree");

    /* DRAM: -m sized, at 0x80_0000_0000, plus the uncacheable alias */
    g_assert(strstr(mtree, "0000008000000000-000000800fffffff (prio 0, ram): "
                    "etsoc1.dram"));
    g_assert(strstr(mtree, "000000c000000000-000000c00fffffff (prio 0, ram): "
                    "alias etsoc1.dram-uc"));
    /* L2 scratchpad: 4 MiB of SRAM at the start of each shire's 8 MiB */
    g_assert(strstr(mtree, "0000000080000000-00000000803fffff (prio 0, ram): "
                    "etsoc1.scp[0]"));
    g_assert(strstr(mtree, "0000000080800000-0000000080bfffff (prio 0, ram): "
                    "etsoc1.scp[1]"));
    /* ESR windows: shire 1 at PP=M */
    g_assert(strstr(mtree, "00000001c0400000-00000001c07fffff (prio 0, i/o): "
                    "etsoc1.esr"));
    /* PU UART0, unimplemented blocks */
    g_assert(strstr(mtree, "0000000012002000-000000001200201f (prio 0, i/o): "
                    "serial"));
    g_assert(strstr(mtree, "0000000010000000-000000001fffffff (prio -1000, "
                    "i/o): etsoc1.pu-io"));
    g_assert(strstr(mtree, "000000013a000000-000000013bffffff (prio -1000, "
                    "i/o): etsoc1.esr-memshire"));
    /* every hart's view carries the local-shire aliases of its own shire */
    g_assert(strstr(mtree, "00000000bf800000-00000000bfbfffff (prio 1, ram): "
                    "alias etsoc1.scp-local @etsoc1.scp[1]"));
    g_assert(strstr(mtree, "00000001ffc00000-00000001ffffffff (prio 1, i/o): "
                    "alias etsoc1.esr-local @etsoc1.esr"));

    qtest_writeq(f.qts, DRAM_BASE + 0x100, 0x0123456789abcdefULL);
    g_assert_cmphex(qtest_readq(f.qts, DRAM_BASE + 0x100), ==,
                    0x0123456789abcdefULL);
    qtest_writeq(f.qts, DRAM_BASE + 256 * MiB - 8, 0x55);
    g_assert_cmphex(qtest_readq(f.qts, DRAM_BASE + 256 * MiB - 8), ==, 0x55);
    g_assert_cmphex(qtest_readq(f.qts, 0xc000000000ULL + 0x100), ==,
                    0x0123456789abcdefULL);
    qtest_writeq(f.qts, SCP_BASE + SCP_WINDOW + SCP_SIZE - 8, 0x77);
    g_assert_cmphex(qtest_readq(f.qts, SCP_BASE + SCP_WINDOW + SCP_SIZE - 8),
                    ==, 0x77);
    fixture_stop(&f);
}

static void test_holes_log(void)
{
    Fixture f;

    fixture_start(&f, MACHINE);
    /* past the 4 MiB of a shire's scratchpad */
    g_assert_cmphex(qtest_readq(f.qts, SCP_BASE + SCP_SIZE), ==, 0);
    g_assert(log_has(&f, "etsoc1.scp-unmapped: read of 8 bytes at "
                     "0x80400000"));
    /* a shire that is not there (shire 5 of a 2-shire machine) */
    qtest_writeq(f.qts, OTHER(3, 5, 0x8), 1);
    g_assert(log_has(&f, "etsoc1.esr-unmapped: write of 8 bytes at "
                     "0x1c1740008"));
    fixture_stop(&f);
}

static void test_unimplemented_log(void)
{
    Fixture f;

    fixture_start(&f, MACHINE);
    g_assert_cmphex(qtest_readl(f.qts, 0x10000004), ==, 0);   /* PU PLIC */
    g_assert(log_has(&f, "etsoc1.pu-io: unimplemented device read"));
    qtest_writeq(f.qts, ESR(3, 232, 0x0), 1);                 /* memshire 0 */
    g_assert(log_has(&f, "etsoc1.esr-memshire: unimplemented device write"));
    qtest_readq(f.qts, ESR(0, 1, 0x800));                     /* hart port */
    g_assert(log_has(&f, "message-port and debug registers are not "
                     "modelled"));
    qtest_readq(f.qts, OTHER(3, 0, 0x218));                   /* power/PLL */
    g_assert(log_has(&f, "ESR shire_power_pll_dll (0x1c0340218) is not "
                     "modelled"));
    fixture_stop(&f);
}

static void test_esr_decode(void)
{
    Fixture f;

    fixture_start(&f, MACHINE);
    /* each register answers at its own PP, in its own shire */
    g_assert_cmphex(qtest_readq(f.qts, OTHER(3, 0, 0x8)), ==, 0x0392a000);
    g_assert_cmphex(qtest_readq(f.qts, OTHER(3, 1, 0x8)), ==, 0x0392a001);
    /* local-shire alias 0xff, seen from hart 0 (see the header comment) */
    g_assert_cmphex(qtest_readq(f.qts, OTHER(3, 0xff, 0x8)), ==, 0x0392a000);
    qtest_writeq(f.qts, SCP_BASE + 0x7f * SCP_WINDOW + 0x40, 0x1234);
    g_assert_cmphex(qtest_readq(f.qts, SCP_BASE + 0x40), ==, 0x1234);
    qtest_writeq(f.qts, OTHER(0, 1, 0x100 + 8 * 7), 0x5a);    /* FLB 7 */
    g_assert_cmphex(qtest_readq(f.qts, OTHER(0, 1, 0x100 + 8 * 7)), ==, 0x5a);
    g_assert_cmphex(qtest_readq(f.qts, OTHER(0, 0, 0x100 + 8 * 7)), ==, 0);
    /* neighbourhood field 0xf broadcasts writes to all four */
    qtest_writeq(f.qts, NEIGH(3, 1, 0xf, 0x18), 0x8000004000ULL);
    for (int n = 0; n < 4; n++) {
        g_assert_cmphex(qtest_readq(f.qts, NEIGH(3, 1, n, 0x18)), ==,
                        0x8000004000ULL);
    }
    g_assert_cmphex(qtest_readq(f.qts, NEIGH(3, 0, 0, 0x18)), ==,
                    0x8000001000ULL);
    /* ... but a broadcast read is a bus error */
    qtest_readq(f.qts, NEIGH(3, 1, 0xf, 0x18));
    g_assert(log_has(&f, "ESR 0x1c05f0018: read (bad neighbourhood): bus "
                     "error"));
    /* ipi_trigger sets MSIP of the masked harts, ipi_trigger_clear clears */
    qtest_writeq(f.qts, OTHER(3, 1, 0x90), 0x8000000000000005ULL);
    g_assert_cmphex(qtest_readq(f.qts, OTHER(3, 1, 0x90)), ==,
                    0x8000000000000005ULL);
    qtest_writeq(f.qts, OTHER(3, 1, 0x98), 0x1);
    g_assert_cmphex(qtest_readq(f.qts, OTHER(3, 1, 0x90)), ==,
                    0x8000000000000004ULL);
    g_assert_cmphex(qtest_readq(f.qts, OTHER(3, 1, 0x98)), ==, 0);
    fixture_stop(&f);
}

/* broadcast command: [39:0] shire mask, [53:40] reg, [58:54] subregion */
static uint64_t bcast_cmd(uint64_t shire_mask, uint32_t other_reg)
{
    uint64_t off = 0x340000 | other_reg;

    return shire_mask | (off >> 3 & 0x3fff) << 40 | (off >> 17) << 54;
}

static void test_esr_broadcast(void)
{
    Fixture f;

    fixture_start(&f, MACHINE);
    /* ubroadcast: a U register (FLB 3) in both shires */
    qtest_writeq(f.qts, OTHER(0, 1, 0x1fff0), 0x77);
    g_assert_cmphex(qtest_readq(f.qts, OTHER(0, 1, 0x1fff0)), ==, 0x77);
    qtest_writeq(f.qts, OTHER(0, 1, 0x1fff8), bcast_cmd(0x3, 0x118));
    g_assert_cmphex(qtest_readq(f.qts, OTHER(0, 0, 0x118)), ==, 0x77);
    g_assert_cmphex(qtest_readq(f.qts, OTHER(0, 1, 0x118)), ==, 0x77);
    /* mbroadcast: an M register (minion_feature) in shire 1 only */
    qtest_writeq(f.qts, OTHER(0, 0, 0x1fff0), 0x3);
    qtest_writeq(f.qts, OTHER(3, 0, 0x1fff8), bcast_cmd(0x2, 0x0));
    g_assert_cmphex(qtest_readq(f.qts, OTHER(3, 0, 0x0)), ==, 0x1);
    g_assert_cmphex(qtest_readq(f.qts, OTHER(3, 1, 0x0)), ==, 0x3);
    /* the privilege comes from the broadcast register: FLB has no PP=M alias */
    qtest_writeq(f.qts, OTHER(3, 0, 0x1fff8), bcast_cmd(0x1, 0x118));
    g_assert(log_has(&f, "ESR 0x1c0340118: write (no register): bus error"));
    /* shires the machine does not have, and broadcasts of broadcasts */
    qtest_writeq(f.qts, OTHER(0, 0, 0x1fff8), bcast_cmd(0xc, 0x118));
    g_assert(log_has(&f, "ESR broadcast to shire mask 0xc: this chip has 2 "
                     "minion shires"));
    qtest_writeq(f.qts, OTHER(0, 0, 0x1fff8), bcast_cmd(0x3, 0x1fff8));
    g_assert(log_has(&f, "cannot target the broadcast registers"));
    fixture_stop(&f);
}

static void test_esr_errors(void)
{
    Fixture f;

    fixture_start(&f, MACHINE);
    /* an M register seen through its PP=U alias decodes as nothing */
    g_assert_cmphex(qtest_readq(f.qts, NEIGH(0, 0, 0, 0x18)), ==, 0);
    g_assert(log_has(&f, "ESR 0x100100018: read (no register): bus error"));
    /* read-only register */
    qtest_writeq(f.qts, OTHER(3, 0, 0x18), 0);
    g_assert(log_has(&f, "ESR 0x1c0340018: write (read-only register): bus "
                     "error"));
    g_assert_cmphex(qtest_readq(f.qts, OTHER(3, 0, 0x18)), ==,
                    0x2040040404040400ULL);
    /* ESRs take aligned 8-byte accesses only */
    qtest_writel(f.qts, OTHER(0, 0, 0x100), 1);
    g_assert(log_has(&f, "ESR 0x100340100: 4-byte write; ESRs take aligned "
                     "8-byte accesses only"));
    qtest_readb(f.qts, OTHER(0, 0, 0x103));
    g_assert(log_has(&f, "ESR 0x100340103: 1-byte read"));
    g_assert_cmphex(qtest_readq(f.qts, OTHER(0, 0, 0x100)), ==, 0);
    fixture_stop(&f);
}

/* fcc counter @n of hart @hart in shire @shire, through qom-get. */
static int64_t fcc_of(Fixture *f, unsigned shire, unsigned hart, unsigned n)
{
    g_autofree char *path = g_strdup_printf("/machine/shire[%u]", shire);
    QDict *rsp = qtest_qmp(f->qts, "{'execute': 'qom-get', 'arguments': "
                           "{'path': %s, 'property': 'fcc'}}", path);
    const QListEntry *e;
    int64_t value = -1;
    unsigned i = 0;

    QLIST_FOREACH_ENTRY(qdict_get_qlist(rsp, "return"), e) {
        if (i++ == hart) {
            const QListEntry *c =
                qlist_first(qobject_to(QList, qlist_entry_obj(e)));

            if (n) {
                c = qlist_next(c);
            }
            value = qnum_get_int(qobject_to(QNum, qlist_entry_obj(c)));
        }
    }
    qobject_unref(rsp);
    return value;
}

static void test_credits(void)
{
    Fixture f;
    unsigned i;

    fixture_start(&f, MACHINE);
    /* fcc_credinc_N: N = thread * 2 + counter, value = minion mask */
    qtest_writeq(f.qts, OTHER(0, 1, 0xc0), 0x80000001);   /* t0 fcc0 */
    qtest_writeq(f.qts, OTHER(0, 1, 0xd8), 0x4);          /* t1 fcc1 */
    qtest_writeq(f.qts, OTHER(0, 1, 0xd8), 0x4);
    g_assert_cmpint(fcc_of(&f, 1, 0, 0), ==, 1);          /* minion 0 t0 */
    g_assert_cmpint(fcc_of(&f, 1, 62, 0), ==, 1);         /* minion 31 t0 */
    g_assert_cmpint(fcc_of(&f, 1, 5, 1), ==, 2);          /* minion 2 t1 */
    g_assert_cmpint(fcc_of(&f, 1, 5, 0), ==, 0);
    g_assert_cmpint(fcc_of(&f, 0, 0, 0), ==, 0);          /* other shire */
    /* mask bits above minion 31 name nobody: ignored, with a log */
    qtest_writeq(f.qts, OTHER(0, 1, 0xc0), 0x100000002ULL);
    g_assert_cmpint(fcc_of(&f, 1, 2, 0), ==, 1);          /* minion 1 t0 */
    g_assert(log_has(&f, "etsoc1: shire 1: fcc_credinc0: minion mask "
                     "0x100000002 has bits above minion 31, ignored"));
    /* credit ESRs read as zero */
    g_assert_cmphex(qtest_readq(f.qts, OTHER(0, 1, 0xc0)), ==, 0);
    /* 16-bit counters wrap, with a log */
    for (i = 0; i < 65536; i++) {
        qtest_writeq(f.qts, OTHER(0, 0, 0xc8), 0x2);       /* t0 fcc1 */
    }
    g_assert_cmpint(fcc_of(&f, 0, 2, 1), ==, 0);
    g_assert(log_has(&f, "etsoc1: shire 0 hart 2 fcc1 overflow"));
    fixture_stop(&f);
}

static void test_reset_values(void)
{
    Fixture f;
    QDict *rsp;

    fixture_start(&f, MACHINE);
    g_assert_cmphex(qtest_readq(f.qts, NEIGH(3, 1, 2, 0x18)), ==,
                    0x8000001000ULL);                       /* minion_boot */
    g_assert_cmphex(qtest_readq(f.qts, NEIGH(3, 1, 2, 0x20)), ==, 0x13);
    g_assert_cmphex(qtest_readq(f.qts, OTHER(3, 1, 0x0)), ==, 0x1);
    g_assert_cmphex(qtest_readq(f.qts, OTHER(3, 1, 0x88)), ==, UINT64_MAX);
    g_assert_cmphex(qtest_readq(f.qts, OTHER(3, 1, 0x240)), ==, 0);
    g_assert_cmphex(qtest_readq(f.qts, OTHER(3, 1, 0x20)), ==,
                    0x0000000900000001ULL);

    qtest_writeq(f.qts, OTHER(3, 1, 0x0), 0x3);
    qtest_writeq(f.qts, NEIGH(3, 1, 2, 0x20), 0x7f);
    qtest_writeq(f.qts, OTHER(0, 1, 0x100), 9);
    g_assert_cmphex(qtest_readq(f.qts, OTHER(3, 1, 0x0)), ==, 0x3);
    rsp = qtest_qmp(f.qts, "{'execute': 'system_reset'}");
    qobject_unref(rsp);
    qtest_qmp_eventwait(f.qts, "RESET");
    g_assert_cmphex(qtest_readq(f.qts, OTHER(3, 1, 0x0)), ==, 0x1);
    g_assert_cmphex(qtest_readq(f.qts, NEIGH(3, 1, 2, 0x20)), ==, 0x13);
    g_assert_cmphex(qtest_readq(f.qts, OTHER(0, 1, 0x100)), ==, 0);
    fixture_stop(&f);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("etsoc1/memory-map", test_memory_map);
    qtest_add_func("etsoc1/holes-log", test_holes_log);
    qtest_add_func("etsoc1/unimplemented-log", test_unimplemented_log);
    qtest_add_func("etsoc1/esr-decode", test_esr_decode);
    qtest_add_func("etsoc1/esr-errors", test_esr_errors);
    qtest_add_func("etsoc1/esr-broadcast", test_esr_broadcast);
    qtest_add_func("etsoc1/credits", test_credits);
    qtest_add_func("etsoc1/reset-values", test_reset_values);
    return g_test_run();
}
