/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the PU's DesignWare APB timers (etsoc1-pu-timer.c).
 *
 * QEMU interface ("etsoc1-pu-timer"):
 *  + sysbus MMIO 0: the eight timers' registers
 *  + sysbus IRQ 0..7: one per timer
 */

#ifndef HW_ETSOC1_PU_TIMER_H
#define HW_ETSOC1_PU_TIMER_H

#include "hw/sysbus.h"

#define TYPE_ETSOC1_PU_TIMER "etsoc1-pu-timer"
OBJECT_DECLARE_SIMPLE_TYPE(Etsoc1PuTimerState, ETSOC1_PU_TIMER)

#define ETSOC1_PU_TIMERS    8
#define ETSOC1_PU_TIMER_HZ  100000000   /* our choice: docs/host-interface.md */
/* warp-idle-ms: chosen by the machine (ETSOC1_WARP_IDLE_HOSTLINK_MS) */
#define ETSOC1_PU_TIMER_WARP_AUTO UINT32_MAX
/*
 * With a host link, the host may still send: a warp waits until the chip
 * has been idle this long in host time (docs/timing.md, "The host link").
 */
#define ETSOC1_WARP_IDLE_HOSTLINK_MS 3000

/*
 * A timer armed by a minion hart runs on emulated time (docs/timing.md,
 * "Timers"): its expiries are times in minion cycles, counted from the
 * arming hart's clock, not QEMU's virtual clock.  One armed from anywhere
 * else (the service processor, a qtest) runs on its ptimer as before.
 */
typedef struct Etsoc1PuTimer {
    Etsoc1PuTimerState *block;
    struct ptimer_state *ptimer;
    bool emu;               /* on emulated time (armed by a minion) */
    uint64_t deadline;      /* its next expiry, in minion cycles */
    uint64_t fired_at;      /* its latest expiry: a reader moves there */
} Etsoc1PuTimer;

struct Etsoc1PuTimerState {
    SysBusDevice parent_obj;
    MemoryRegion mmio;
    qemu_irq irq[ETSOC1_PU_TIMERS];
    Etsoc1PuTimer timer[ETSOC1_PU_TIMERS];
    uint32_t loadcount[ETSOC1_PU_TIMERS];
    uint32_t control[ETSOC1_PU_TIMERS];
    uint32_t raw;           /* TimersRawIntStatus */
    uint32_t freq_hz;
    uint32_t clock_mhz;     /* the minions' clock, from the arming hart */
    uint32_t scan_ms;       /* host pace of the look at the chip's time */
    uint32_t warp_idle_ms;  /* host time the chip idles before a warp */
    int64_t idle_since_ms;  /* host time of the first idle look, or -1 */
    struct QEMUTimer *scan; /* that look, while a timer is on emulated time */
    /* the machine, for the host inputs' stamps (etsoc1-sync.c) */
    struct Etsoc1MachineState *chip;
};

/* Raise every expiry on emulated time up to @now (a host input at @now) */
void etsoc1_pu_timer_advance(Etsoc1PuTimerState *s, uint64_t now);

#endif
