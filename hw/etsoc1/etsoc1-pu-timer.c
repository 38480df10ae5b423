/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ET-SoC-1 PU timers: a Synopsys DesignWare APB timer block, 8 timers of
 * 32 bits at R_PU_TIMER (0x12005000), each interrupting the PU PLIC
 * (sources 6-13).  The master minion firmware's watchdogs (kernel launch
 * timeouts) run on it.  Register map: the standard DW_apb_timers layout.
 *
 * A timer counts down from LoadCount at the block's clock (property
 * "freq-hz"; the chip's peripheral clock is not in Esperanto's sources,
 * docs/host-interface.md).  Reaching zero sets its interrupt (unless
 * masked) and reloads LoadCount in user-defined mode, 0xffffffff in
 * free-running mode.  Reading EOI clears the interrupt.
 *
 * A timer that a minion hart enables runs on emulated time (docs/timing.md,
 * "Timers and the warp"): its expiries are times in minion cycles, from
 * the arming hart's clock, and it expires when the chip's time, the
 * earliest time from which any hart may still act (etsoc1_sync_horizon),
 * has reached the expiry, or, when no hart can act at all, at once: the
 * model moves on to the earliest expiry (the warp), as QEMU's icount moves
 * its virtual clock to the next timer when every CPU is idle.  A minion
 * that reads a register showing the expiry moves its clock to the expiry,
 * as for any event it learns of.  How often the chip's time is looked at
 * is host time (property "scan-ms"); what the guest sees is not.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qapi/error.h"
#include "hw/irq.h"
#include "hw/ptimer.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "hw/sysbus.h"
#include "migration/vmstate.h"
#include "qemu/units.h"
#include "qemu/timer.h"
#include "qemu/host-utils.h"
#include "sysemu/runstate.h"
#include "hw/etsoc1/etsoc1.h"
#include "hw/etsoc1/etsoc1-minion.h"
#include "hw/etsoc1/etsoc1-pu-timer.h"
#include "hw/etsoc1/etsoc1-fabric.h"
#include "hw/etsoc1/etsoc1-sync.h"
#include "trace.h"

/* timer n's registers are at n * 0x14 */
#define TIMER_STRIDE 0x14
REG32(LOADCOUNT, 0x00)
REG32(CURRENTVAL, 0x04)
REG32(CONTROL, 0x08)
    FIELD(CONTROL, ENABLE, 0, 1)
    FIELD(CONTROL, MODE, 1, 1)          /* 1: user-defined (periodic) */
    FIELD(CONTROL, INT_MASK, 2, 1)
REG32(EOI, 0x0c)
REG32(INTSTAT, 0x10)
/* block registers */
REG32(TIMERS_INTSTATUS, 0xa0)
REG32(TIMERS_EOI, 0xa4)
REG32(TIMERS_RAWINTSTATUS, 0xa8)
REG32(TIMERS_COMP_VERSION, 0xac)
REG32(LOADCOUNT2_FIRST, 0xb0)           /* PWM mode: not modelled */
REG32(LOADCOUNT2_LAST, 0xcc)

#define CONTROL_MASK (R_CONTROL_ENABLE_MASK | R_CONTROL_MODE_MASK | \
                      R_CONTROL_INT_MASK_MASK)
#define COMP_VERSION 0x3230392a         /* "209*", version 2.09 */

/*
 * QEMU's ptimer stretches a periodic timer's period to at least 10 us, but
 * not under qtest: there LoadCount 1 at 100 MHz in user-defined mode would
 * expire every 10 ns and a qtest clock_step of a second would run 10^8
 * callbacks.  The model applies the same bound itself to user-defined
 * mode, in every accelerator, by slowing the tick as the ptimer does
 * (docs/robustness.md).  Free-running mode expires once after LoadCount,
 * then every 2^32 ticks: its first period is left exact.
 */
#define PU_TIMER_MIN_PERIOD_NS 10000

/*
 * Set timer @n's reload value to @limit (reloading the counter if
 * @reload), with its tick period bounded in user-defined mode so that a
 * period is at least PU_TIMER_MIN_PERIOD_NS.  Inside a ptimer transaction.
 */
static void pu_timer_set_limit(Etsoc1PuTimerState *s, unsigned n,
                               uint32_t limit, bool reload)
{
    ptimer_state *pt = s->timer[n].ptimer;

    /* limit / freq_hz < MIN_PERIOD_NS / 10^9, without rounding */
    if (FIELD_EX32(s->control[n], CONTROL, MODE) &&
        (uint64_t)limit * NANOSECONDS_PER_SECOND <
        (uint64_t)PU_TIMER_MIN_PERIOD_NS * s->freq_hz) {
        ptimer_set_period(pt, DIV_ROUND_UP(PU_TIMER_MIN_PERIOD_NS, limit));
    } else {
        ptimer_set_freq(pt, s->freq_hz);
    }
    ptimer_set_limit(pt, limit, reload);
}

static void pu_timer_update_irq(Etsoc1PuTimerState *s, unsigned n)
{
    bool level = (s->raw >> n & 1) &&
                 !FIELD_EX32(s->control[n], CONTROL, INT_MASK);

    qemu_set_irq(s->irq[n], level);
}

/* ---- emulated time ------------------------------------------------------ */

/* The minion harts's clock, if @cpu is a minion that keeps one */
static bool pu_timer_minion_now(Etsoc1MinionCPU *cpu, uint64_t *now)
{
    if (!cpu || !cpu->parent_obj.cfg.et_counters) {
        return false;
    }
    *now = etsoc1_now(cpu);
    return true;
}

/* @ticks of the block's clock in minion cycles (at least one) */
static uint64_t pu_timer_cycles(Etsoc1PuTimerState *s, uint64_t ticks)
{
    return MAX(muldiv64(ticks, s->clock_mhz * 1000000u, s->freq_hz), 1);
}

/* Ticks from one expiry of timer @n to the next; 0 in LoadCount is 2^32 */
static uint64_t pu_timer_reload_ticks(Etsoc1PuTimerState *s, unsigned n)
{
    return FIELD_EX32(s->control[n], CONTROL, MODE) && s->loadcount[n]
           ? s->loadcount[n] : 1ULL << 32;
}

static bool pu_timer_emu_on(Etsoc1PuTimerState *s, unsigned n)
{
    return s->timer[n].emu && FIELD_EX32(s->control[n], CONTROL, ENABLE);
}

/*
 * Expire every timer on emulated time whose expiry is at or before @now:
 * the interrupt is a level, so expiries missed in between are one.
 */
static void pu_timer_catch_up(Etsoc1PuTimerState *s, uint64_t now)
{
    uint64_t first = UINT64_MAX;
    unsigned n;

    for (n = 0; n < ETSOC1_PU_TIMERS; n++) {
        if (pu_timer_emu_on(s, n) && s->timer[n].deadline <= now) {
            first = MIN(first, s->timer[n].deadline);
        }
    }
    /*
     * Before the chip learns of an expiry that finds it at rest (the
     * launch watchdog of a kernel whose harts wait for ever), what hangs
     * is reported as of that rest: the model's state, not a host tick's.
     */
    if (first != UINT64_MAX && s->chip && etsoc1_sync_at_rest(first)) {
        etsoc1_hang_at_rest(s->chip, first);
    }
    for (n = 0; n < ETSOC1_PU_TIMERS; n++) {
        Etsoc1PuTimer *t = &s->timer[n];
        uint64_t p, k;

        if (!pu_timer_emu_on(s, n) || t->deadline > now) {
            continue;
        }
        p = pu_timer_cycles(s, pu_timer_reload_ticks(s, n));
        k = (now - t->deadline) / p;    /* expiries after the first */
        t->fired_at = t->deadline + k * p;
        t->deadline = t->fired_at + p;
        trace_etsoc1_pu_timer_emu_expired(n, t->fired_at, k + 1);
        /* published: a host input is stamped after it */
        etsoc1_input_declare(s->chip, t->fired_at);
        s->raw |= 1u << n;
        pu_timer_update_irq(s, n);
    }
}

void etsoc1_pu_timer_advance(Etsoc1PuTimerState *s, uint64_t now)
{
    pu_timer_catch_up(s, now);
}

/* Look at the chip's time again in scan_ms while a timer is on it. */
static void pu_timer_schedule(Etsoc1PuTimerState *s)
{
    unsigned n;

    for (n = 0; n < ETSOC1_PU_TIMERS; n++) {
        if (pu_timer_emu_on(s, n)) {
            timer_mod(s->scan, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                               s->scan_ms);
            return;
        }
    }
    timer_del(s->scan);
}

/*
 * The main loop's look at the chip's time (BQL held): expire what the
 * chip has passed; with no hart that can act (every one halted in a wait
 * that only an interrupt can end, the service processor too), warp to
 * the earliest expiry, which is then the only thing that can happen.
 */
static void pu_timer_scan(void *opaque)
{
    Etsoc1PuTimerState *s = opaque;
    uint64_t next = UINT64_MAX;
    bool idle;
    uint64_t horizon = etsoc1_sync_horizon(&idle);
    unsigned n;

    int64_t now_ms = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);

    if (!runstate_is_running()) {
        /*
         * Stopped (PAUSE, STOP, QMP stop): the chip's time stands, and
         * halted harts do not make it idle; nothing expires or warps
         * until it runs (a warp after a STOP could wake a hart past its
         * T before QEMU shuts down).
         */
        s->idle_since_ms = -1;
        pu_timer_schedule(s);
        return;
    }
    if (!idle) {
        s->idle_since_ms = -1;
    } else if (s->idle_since_ms < 0) {
        s->idle_since_ms = now_ms;
    }
    if (horizon != UINT64_MAX) {
        pu_timer_catch_up(s, horizon);
    } else if (idle && now_ms - s->idle_since_ms >= s->warp_idle_ms) {
        /* a host that may still send has had warp_idle_ms to do so */
        s->idle_since_ms = -1;
        for (n = 0; n < ETSOC1_PU_TIMERS; n++) {
            if (pu_timer_emu_on(s, n)) {
                next = MIN(next, s->timer[n].deadline);
            }
        }
        if (next != UINT64_MAX) {
            trace_etsoc1_pu_timer_warp(next);
            pu_timer_catch_up(s, next);
        }
    }
    pu_timer_schedule(s);
}

/*
 * A minion reads a register that shows the timers @bits expired: it has
 * learnt of the expiries, so its clock is at least at them.
 */
static void pu_timer_seen(Etsoc1PuTimerState *s, Etsoc1MinionCPU *cpu,
                          uint32_t bits)
{
    unsigned n;

    for (n = 0; cpu && n < ETSOC1_PU_TIMERS; n++) {
        if ((bits >> n & 1) && s->timer[n].emu) {
            etsoc1_advance_to(cpu, s->timer[n].fired_at);
        }
    }
}

static void pu_timer_expired(void *opaque)
{
    Etsoc1PuTimer *t = opaque;
    Etsoc1PuTimerState *s = t->block;
    unsigned n = t - s->timer;

    trace_etsoc1_pu_timer_expired(n);
    if (!FIELD_EX32(s->control[n], CONTROL, MODE)) {
        /* free-running: then from the top (ptimer_tick's transaction) */
        pu_timer_set_limit(s, n, UINT32_MAX, true);
    }
    s->raw |= 1u << n;
    pu_timer_update_irq(s, n);
}

static void pu_timer_eoi(Etsoc1PuTimerState *s, uint32_t timers)
{
    unsigned n;

    s->raw &= ~timers;
    for (n = 0; n < ETSOC1_PU_TIMERS; n++) {
        pu_timer_update_irq(s, n);
    }
}

static uint32_t pu_timer_intstatus(Etsoc1PuTimerState *s)
{
    uint32_t st = 0;
    unsigned n;

    for (n = 0; n < ETSOC1_PU_TIMERS; n++) {
        if (!FIELD_EX32(s->control[n], CONTROL, INT_MASK)) {
            st |= s->raw & (1u << n);
        }
    }
    return st;
}

static uint64_t pu_timer_read(void *opaque, hwaddr addr, unsigned size)
{
    Etsoc1PuTimerState *s = opaque;
    Etsoc1MinionCPU *cpu = etsoc1_current_minion();
    unsigned n = addr / TIMER_STRIDE;
    uint64_t r = 0, now = 0;
    bool timed = pu_timer_minion_now(cpu, &now);
    uint32_t raw;

    if (timed) {
        pu_timer_catch_up(s, now);      /* what expired before the read */
    } else {
        cpu = NULL;
    }
    raw = s->raw;
    if (n < ETSOC1_PU_TIMERS) {
        switch (addr % TIMER_STRIDE) {
        case A_LOADCOUNT:
            r = s->loadcount[n];
            break;
        case A_CURRENTVAL:
            /* reads 0 while disabled */
            if (!FIELD_EX32(s->control[n], CONTROL, ENABLE)) {
                r = 0;
            } else if (!s->timer[n].emu) {
                r = ptimer_get_count(s->timer[n].ptimer);
            } else if (timed) {
                /* the ticks left at the reader's clock */
                r = muldiv64(s->timer[n].deadline - now, s->freq_hz,
                             s->clock_mhz * 1000000u);
            } else {
                r = s->loadcount[n];    /* a debugger: no clock to read at */
            }
            break;
        case A_CONTROL:
            r = s->control[n];
            break;
        case A_EOI:
            pu_timer_seen(s, cpu, raw & 1u << n);
            pu_timer_eoi(s, 1u << n);
            break;
        case A_INTSTAT:
            r = pu_timer_intstatus(s) >> n & 1;
            pu_timer_seen(s, cpu, r << n);
            break;
        }
    } else {
        switch (addr) {
        case A_TIMERS_INTSTATUS:
            r = pu_timer_intstatus(s);
            pu_timer_seen(s, cpu, r);
            break;
        case A_TIMERS_EOI:
            pu_timer_seen(s, cpu, raw);
            pu_timer_eoi(s, UINT32_MAX);
            break;
        case A_TIMERS_RAWINTSTATUS:
            r = s->raw;
            pu_timer_seen(s, cpu, r);
            break;
        case A_TIMERS_COMP_VERSION:
            r = COMP_VERSION;
            break;
        case A_LOADCOUNT2_FIRST ... A_LOADCOUNT2_LAST:
            qemu_log_mask(LOG_UNIMP, "%s: LoadCount2 (PWM mode)\n", __func__);
            break;
        default:
            qemu_log_mask(LOG_GUEST_ERROR, "%s: no register at 0x%" HWADDR_PRIx
                          "\n", __func__, addr);
            break;
        }
    }
    trace_etsoc1_pu_timer_read(addr, r);
    return r;
}

static void pu_timer_write_control(Etsoc1PuTimerState *s, unsigned n,
                                   uint32_t val)
{
    Etsoc1PuTimer *t = &s->timer[n];
    bool was_on = FIELD_EX32(s->control[n], CONTROL, ENABLE);
    bool on = FIELD_EX32(val, CONTROL, ENABLE);
    Etsoc1MinionCPU *cpu = etsoc1_current_minion();
    uint64_t now;

    s->control[n] = val & CONTROL_MASK;
    if (on && !was_on && pu_timer_minion_now(cpu, &now)) {
        /* armed by a minion: on emulated time, from its clock */
        t->emu = true;
        s->clock_mhz = cpu->timing->clock_mhz;
        t->deadline = now + pu_timer_cycles(s, s->loadcount[n]
                                               ? s->loadcount[n]
                                               : 1ULL << 32);
        trace_etsoc1_pu_timer_emu_armed(n, now, t->deadline);
        pu_timer_schedule(s);
        pu_timer_update_irq(s, n);
        return;
    }
    if (t->emu) {
        /* on emulated time: a mode change acts at the next expiry */
        t->emu = on;
        pu_timer_schedule(s);
        pu_timer_update_irq(s, n);
        return;
    }
    ptimer_transaction_begin(t->ptimer);
    if (on && !was_on) {
        /* enabling loads LoadCount (0 counts as a full period: 2^32) */
        pu_timer_set_limit(s, n, s->loadcount[n] ? s->loadcount[n]
                                                 : UINT32_MAX, true);
        ptimer_run(t->ptimer, 0);
    } else if (!on && was_on) {
        ptimer_stop(t->ptimer);
    } else if (on) {
        /* a change of mode changes the bound on the current period */
        pu_timer_set_limit(s, n, ptimer_get_limit(t->ptimer), false);
    }
    ptimer_transaction_commit(t->ptimer);
    pu_timer_update_irq(s, n);
}

static void pu_timer_write(void *opaque, hwaddr addr, uint64_t val,
                           unsigned size)
{
    Etsoc1PuTimerState *s = opaque;
    unsigned n = addr / TIMER_STRIDE;
    uint64_t now;

    trace_etsoc1_pu_timer_write(addr, val);
    if (pu_timer_minion_now(etsoc1_current_minion(), &now)) {
        pu_timer_catch_up(s, now);      /* what expired before the write */
    }
    if (n >= ETSOC1_PU_TIMERS) {
        if (addr >= A_LOADCOUNT2_FIRST && addr <= A_LOADCOUNT2_LAST) {
            qemu_log_mask(LOG_UNIMP, "%s: LoadCount2 (PWM mode)\n", __func__);
        } else {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: write of 0x%" PRIx64
                          " to read-only or absent 0x%" HWADDR_PRIx "\n",
                          __func__, val, addr);
        }
        return;
    }
    switch (addr % TIMER_STRIDE) {
    case A_LOADCOUNT:
        /* takes effect at the next enable or reload, as on the DW block */
        s->loadcount[n] = val;
        if (FIELD_EX32(s->control[n], CONTROL, MODE) && val &&
            !s->timer[n].emu) {
            ptimer_transaction_begin(s->timer[n].ptimer);
            pu_timer_set_limit(s, n, val, false);
            ptimer_transaction_commit(s->timer[n].ptimer);
        }
        break;
    case A_CONTROL:
        pu_timer_write_control(s, n, val);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: timer %u: write of 0x%" PRIx64
                      " to read-only 0x%" HWADDR_PRIx "\n", __func__, n, val,
                      addr % TIMER_STRIDE);
        break;
    }
}

static const MemoryRegionOps pu_timer_ops = {
    .read = pu_timer_read,
    .write = pu_timer_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid.min_access_size = 4,
    .valid.max_access_size = 4,
};

static void pu_timer_init(Object *obj)
{
    Etsoc1PuTimerState *s = ETSOC1_PU_TIMER(obj);
    SysBusDevice *sbd = SYS_BUS_DEVICE(obj);

    memory_region_init_io(&s->mmio, obj, &pu_timer_ops, s,
                          TYPE_ETSOC1_PU_TIMER, 4 * KiB);
    sysbus_init_mmio(sbd, &s->mmio);
    qdev_init_gpio_out(DEVICE(obj), s->irq, ETSOC1_PU_TIMERS);
}

static void pu_timer_realize(DeviceState *dev, Error **errp)
{
    Etsoc1PuTimerState *s = ETSOC1_PU_TIMER(dev);
    unsigned n;

    if (!s->freq_hz) {
        error_setg(errp, "freq-hz must not be 0");
        return;
    }
    if (!s->scan_ms) {
        error_setg(errp, "scan-ms must not be 0");
        return;
    }
    if (s->warp_idle_ms == ETSOC1_PU_TIMER_WARP_AUTO) {
        s->warp_idle_ms = 0;    /* a machine with a host link sets it */
    }
    s->idle_since_ms = -1;
    s->clock_mhz = ETSOC1_DEFAULT_CLOCK_MHZ;    /* the arming hart sets it */
    s->scan = timer_new_ms(QEMU_CLOCK_REALTIME, pu_timer_scan, s);
    for (n = 0; n < ETSOC1_PU_TIMERS; n++) {
        Etsoc1PuTimer *t = &s->timer[n];

        t->block = s;
        /* LoadCount is never 0 in the ptimer: these policies are moot */
        t->ptimer = ptimer_init(pu_timer_expired, t,
                                PTIMER_POLICY_NO_IMMEDIATE_TRIGGER |
                                PTIMER_POLICY_NO_IMMEDIATE_RELOAD);
        ptimer_transaction_begin(t->ptimer);
        ptimer_set_freq(t->ptimer, s->freq_hz);
        ptimer_transaction_commit(t->ptimer);
    }
}

static void pu_timer_reset_enter(Object *obj, ResetType type)
{
    Etsoc1PuTimerState *s = ETSOC1_PU_TIMER(obj);
    unsigned n;

    for (n = 0; n < ETSOC1_PU_TIMERS; n++) {
        ptimer_transaction_begin(s->timer[n].ptimer);
        ptimer_stop(s->timer[n].ptimer);
        ptimer_transaction_commit(s->timer[n].ptimer);
        s->loadcount[n] = 0;
        s->control[n] = 0;
        s->timer[n].emu = false;
        s->timer[n].deadline = 0;
        s->timer[n].fired_at = 0;
    }
    s->raw = 0;
    timer_del(s->scan);
}

static void pu_timer_reset_hold(Object *obj)
{
    Etsoc1PuTimerState *s = ETSOC1_PU_TIMER(obj);
    unsigned n;

    for (n = 0; n < ETSOC1_PU_TIMERS; n++) {
        qemu_set_irq(s->irq[n], 0);
    }
}

static const VMStateDescription vmstate_pu_timer_one = {
    .name = TYPE_ETSOC1_PU_TIMER "/timer",
    .version_id = 2,
    .minimum_version_id = 2,
    .fields = (VMStateField[]) {
        VMSTATE_PTIMER(ptimer, Etsoc1PuTimer),
        VMSTATE_BOOL(emu, Etsoc1PuTimer),
        VMSTATE_UINT64(deadline, Etsoc1PuTimer),
        VMSTATE_UINT64(fired_at, Etsoc1PuTimer),
        VMSTATE_END_OF_LIST()
    },
};

/* the look at the chip's time is host pacing: start it again */
static int pu_timer_post_load(void *opaque, int version_id)
{
    pu_timer_schedule(opaque);
    return 0;
}

static const VMStateDescription vmstate_pu_timer = {
    .name = TYPE_ETSOC1_PU_TIMER,
    .version_id = 2,
    .minimum_version_id = 2,
    .post_load = pu_timer_post_load,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(timer, Etsoc1PuTimerState, ETSOC1_PU_TIMERS, 1,
                             vmstate_pu_timer_one, Etsoc1PuTimer),
        VMSTATE_UINT32_ARRAY(loadcount, Etsoc1PuTimerState, ETSOC1_PU_TIMERS),
        VMSTATE_UINT32_ARRAY(control, Etsoc1PuTimerState, ETSOC1_PU_TIMERS),
        VMSTATE_UINT32(raw, Etsoc1PuTimerState),
        VMSTATE_UINT32(clock_mhz, Etsoc1PuTimerState),
        VMSTATE_END_OF_LIST()
    },
};

static Property pu_timer_properties[] = {
    DEFINE_PROP_UINT32("freq-hz", Etsoc1PuTimerState, freq_hz,
                       ETSOC1_PU_TIMER_HZ),
    /* host ms between looks at the chip's time (emulated-time timers) */
    DEFINE_PROP_UINT32("scan-ms", Etsoc1PuTimerState, scan_ms, 1),
    /*
     * host ms the chip must have been idle before a warp; by default 0,
     * or ETSOC1_WARP_IDLE_HOSTLINK_MS on a machine with a host link
     */
    DEFINE_PROP_UINT32("warp-idle-ms", Etsoc1PuTimerState, warp_idle_ms,
                       ETSOC1_PU_TIMER_WARP_AUTO),
    /* the machine, for the host inputs' stamps (none: nothing declared) */
    DEFINE_PROP_LINK("chip", Etsoc1PuTimerState, chip, TYPE_ETSOC1_MACHINE,
                     struct Etsoc1MachineState *),
    DEFINE_PROP_END_OF_LIST(),
};

static void pu_timer_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    ResettableClass *rc = RESETTABLE_CLASS(oc);

    dc->desc = "ET-SoC-1 PU timers (DesignWare APB timers)";
    dc->realize = pu_timer_realize;
    dc->vmsd = &vmstate_pu_timer;
    rc->phases.enter = pu_timer_reset_enter;
    rc->phases.hold = pu_timer_reset_hold;
    device_class_set_props(dc, pu_timer_properties);
}

static const TypeInfo pu_timer_info = {
    .name = TYPE_ETSOC1_PU_TIMER,
    .parent = TYPE_SYS_BUS_DEVICE,
    .instance_size = sizeof(Etsoc1PuTimerState),
    .instance_init = pu_timer_init,
    .class_init = pu_timer_class_init,
};

static void pu_timer_register_types(void)
{
    type_register_static(&pu_timer_info);
}

type_init(pu_timer_register_types)
