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

typedef struct Etsoc1PuTimer {
    Etsoc1PuTimerState *block;
    struct ptimer_state *ptimer;
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
};

#endif
