/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QTest for the ET-SoC-1 PU timers (DesignWare APB timers at 0x12005000,
 * hw/etsoc1/etsoc1-pu-timer.c) and their PU PLIC sources 6-13.  The block
 * runs at 100 MHz by default: one tick is 10 ns of virtual time.
 */

#include "qemu/osdep.h"
#include "libqtest.h"

#define TIMERS          0x12005000ULL
#define T(n, r)         (TIMERS + (n) * 0x14 + (r))
#define LOADCOUNT       0x00
#define CURRENTVAL      0x04
#define CONTROL         0x08
#define EOI             0x0c
#define INTSTAT         0x10
#define INTSTATUS       (TIMERS + 0xa0)
#define ALL_EOI         (TIMERS + 0xa4)
#define RAWINTSTATUS    (TIMERS + 0xa8)
#define ENABLE          1
#define USER_MODE       2
#define INT_MASKED      4
#define TICK_NS         10

#define PU_PLIC         0x10000000ULL
#define PLIC_PEND(src)  (PU_PLIC + 0x1000 + 4 * ((src) / 32))
#define TIMER_SRC(n)    (6 + (n))

static bool plic_pending(QTestState *qts, unsigned src)
{
    return qtest_readl(qts, PLIC_PEND(src)) >> (src % 32) & 1;
}

/*
 * The PLIC's gateway latches a source until it is claimed: claim it on
 * context 0 (hart 2048) and complete, as the firmware's handler does.
 */
static void plic_claim(QTestState *qts, unsigned src)
{
    qtest_writel(qts, PU_PLIC + 4 * src, 1);
    qtest_writel(qts, PU_PLIC + 0x2000 + 4 * (src / 32), 1u << (src % 32));
    g_assert_cmpuint(qtest_readl(qts, PU_PLIC + 0x200004), ==, src);
    qtest_writel(qts, PU_PLIC + 0x200004, src);
}

/* A user-defined timer interrupts every LoadCount ticks; EOI clears. */
static void test_periodic(const void *data)
{
    unsigned n = GPOINTER_TO_UINT(data);
    QTestState *qts = qtest_init("-M etsoc1,shires=33 -smp 2112");

    qtest_writel(qts, T(n, LOADCOUNT), 1000);
    g_assert_cmpuint(qtest_readl(qts, T(n, CURRENTVAL)), ==, 0);
    qtest_writel(qts, T(n, CONTROL), ENABLE | USER_MODE);
    g_assert_cmpuint(qtest_readl(qts, T(n, CURRENTVAL)), ==, 1000);
    qtest_clock_step(qts, 400 * TICK_NS);
    g_assert_cmpuint(qtest_readl(qts, T(n, CURRENTVAL)), ==, 600);
    g_assert(!plic_pending(qts, TIMER_SRC(n)));

    qtest_clock_step(qts, 600 * TICK_NS);
    g_assert_cmphex(qtest_readl(qts, INTSTATUS), ==, 1u << n);
    g_assert_cmpuint(qtest_readl(qts, T(n, INTSTAT)), ==, 1);
    g_assert(plic_pending(qts, TIMER_SRC(n)));
    /* reloaded from LoadCount */
    g_assert_cmpuint(qtest_readl(qts, T(n, CURRENTVAL)), ==, 1000);

    g_assert_cmpuint(qtest_readl(qts, T(n, EOI)), ==, 0);
    g_assert_cmphex(qtest_readl(qts, RAWINTSTATUS), ==, 0);
    plic_claim(qts, TIMER_SRC(n));
    g_assert(!plic_pending(qts, TIMER_SRC(n)));
    qtest_clock_step(qts, 1000 * TICK_NS);
    g_assert(plic_pending(qts, TIMER_SRC(n)));
    qtest_readl(qts, ALL_EOI);
    g_assert_cmphex(qtest_readl(qts, INTSTATUS), ==, 0);

    /* disabling stops it and reads 0 */
    qtest_writel(qts, T(n, CONTROL), 0);
    g_assert_cmpuint(qtest_readl(qts, T(n, CURRENTVAL)), ==, 0);
    qtest_clock_step(qts, 5000 * TICK_NS);
    g_assert_cmphex(qtest_readl(qts, RAWINTSTATUS), ==, 0);
    qtest_quit(qts);
}

/* Free-running: the first period is LoadCount, then 2^32 - 1 ticks. */
static void test_free_running_masked(void)
{
    QTestState *qts = qtest_init("-M etsoc1,shires=33 -smp 2112");

    qtest_writel(qts, T(2, LOADCOUNT), 50);
    qtest_writel(qts, T(2, CONTROL), ENABLE | INT_MASKED);
    qtest_clock_step(qts, 50 * TICK_NS);
    /* masked: raw status only, no PLIC source */
    g_assert_cmphex(qtest_readl(qts, RAWINTSTATUS), ==, 1u << 2);
    g_assert_cmphex(qtest_readl(qts, INTSTATUS), ==, 0);
    g_assert(!plic_pending(qts, TIMER_SRC(2)));
    g_assert_cmpuint(qtest_readl(qts, T(2, CURRENTVAL)), ==, UINT32_MAX);
    /* unmasking a raw interrupt raises the line */
    qtest_writel(qts, T(2, CONTROL), ENABLE);
    g_assert(plic_pending(qts, TIMER_SRC(2)));
    qtest_quit(qts);
}

/*
 * LoadCount 1 in user-defined mode would interrupt every 10 ns: the model
 * bounds a period at 10 us (QEMU's ptimer minimum outside qtest), so a
 * second of virtual time is 10^5 expiries, not 10^8, and clock_step stays
 * fast.  The bound is visible: no interrupt 5 us after an EOI, one at 10 us.
 */
static void test_min_period(void)
{
    QTestState *qts = qtest_init("-M etsoc1,shires=33 -smp 2112");
    gint64 t0;
    double wall;

    qtest_writel(qts, T(3, LOADCOUNT), 1);
    qtest_writel(qts, T(3, CONTROL), ENABLE | USER_MODE);
    t0 = g_get_monotonic_time();
    qtest_clock_step(qts, 1000000000);
    wall = (g_get_monotonic_time() - t0) / 1e6;
    g_test_message("1 s of virtual time took %.3f s", wall);
    g_assert_cmpfloat(wall, <, 10.0);
    g_assert_cmphex(qtest_readl(qts, RAWINTSTATUS), ==, 1u << 3);

    qtest_readl(qts, T(3, EOI));
    qtest_clock_step(qts, 5000);
    g_assert_cmphex(qtest_readl(qts, RAWINTSTATUS), ==, 0);
    qtest_clock_step(qts, 5000);
    g_assert_cmphex(qtest_readl(qts, RAWINTSTATUS), ==, 1u << 3);
    qtest_quit(qts);
}

/* Bad accesses are logged and change nothing. */
static void test_bad_access(void)
{
    QTestState *qts = qtest_init("-M etsoc1 -d guest_errors");

    qtest_writel(qts, T(0, CURRENTVAL), 5);
    qtest_writel(qts, TIMERS + 0xa0, 5);
    g_assert_cmpuint(qtest_readl(qts, T(0, CURRENTVAL)), ==, 0);
    g_assert_cmphex(qtest_readl(qts, TIMERS + 0xac), ==, 0x3230392a);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    unsigned n;

    g_test_init(&argc, &argv, NULL);
    for (n = 0; n < 8; n += 7) {
        g_autofree char *name = g_strdup_printf("etsoc1-timer/periodic/%u", n);

        qtest_add_data_func(name, GUINT_TO_POINTER(n), test_periodic);
    }
    qtest_add_func("etsoc1-timer/free-running-masked",
                   test_free_running_masked);
    qtest_add_func("etsoc1-timer/min-period", test_min_period);
    qtest_add_func("etsoc1-timer/bad-access", test_bad_access);
    return g_test_run();
}
