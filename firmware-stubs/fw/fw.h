/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The minion firmware (etsoc1-fw.elf): roles by hart, the state the master
 * minion and the compute runtime share, and the kernel ABI constants
 * (docs/firmware.md).
 */
#ifndef ETSOC1_FW_H
#define ETSOC1_FW_H

#include <stdint.h>
#include "etsoc1.h"
#include "et-atomic.h"
#include "card.h"
#include "fw-frame.h"

#define MASTER_SHIRE    32
#define MM_HART0        (MASTER_SHIRE * HARTS_PER_SHIRE)    /* 2048 */
/*
 * The "sync minions": the upper 32 harts of the master shire (minions
 * 16-31) run kernels too when a launch mask has bit 32, as on Esperanto's
 * firmware; their exception contexts and stack ranks follow hart 2047.
 */
#define SYNC_HARTS      32
#define SYNC_HART0      (MM_HART0 + HARTS_PER_SHIRE - SYNC_HARTS)   /* 2080 */
#define SYNC_HART_MASK  0xFFFFFFFF00000000ULL   /* of shire 32's IPI_TRIGGER */
#define COMPUTE_MASK    0xFFFFFFFFULL           /* shires 0-31 */
#define IS_SYNC_HART(h) ((h) >= SYNC_HART0 && (h) < MM_HART0 + HARTS_PER_SHIRE)
#define CTX_INDEX(h)    ((h) < MM_HART0 ? (h) : (h) - SYNC_HARTS)
#define LAUNCH_HARTS(mask) \
    (popcount64((mask) & COMPUTE_MASK) * HARTS_PER_SHIRE + \
     ((mask) >> MASTER_SHIRE & 1) * SYNC_HARTS)

/* Roles of the master-shire harts: one row per role. */
#define HART_DISPATCHER (MM_HART0 + 0)  /* PU PLIC source 33 */
#define HART_SQ0        (MM_HART0 + 2)  /* SQ i: 2050 + 2i, thread 0 */
#define HART_HP0        (MM_HART0 + 3)  /* HP SQ i: 2051 + 2i, thread 1 */
#define HART_KW         (MM_HART0 + 6)  /* kernel worker, PLIC ctx 6 */
#define NUM_WORKERS     (MM_SQ_COUNT + MM_HP_COUNT)

/* Credits: counter 0 = "work for you", counter 1 = "kernel worker free". */
#define FCC_WORK        0
#define FCC_KW_FREE     1

/*
 * The launch barrier (cm.c): the fast local barrier and the credit
 * counters it uses (the release, and the shire captain's "all here").
 * Any will do: every FLB is 0 when the barrier starts (the KW's
 * shires_setup) and again when it ends, and each hart takes exactly the
 * credits it is sent.
 */
#define LAUNCH_FLB      31
#define LAUNCH_FCC      0
#define LAUNCH_CAPTAIN_FCC  1

/* Kernel ABI (Esperanto's WorkerMinion + test-compute-kernels crt.S) */
#define KERNEL_ENTRY_MIN        HOST_MANAGED_START
#define UMODE_STACK_BASE        0x8005800000ULL   /* hart h: base - h*size */
#define UMODE_STACK_SIZE        (4096 + 64)
#define SYSCALL_RETURN_FROM_KERNEL  8
#define KERNEL_RETURN_SUCCESS   0
#define KERNEL_RETURN_SELF_ABORT 1

/*
 * Launch timeout: the kernel worker's watchdog (PU timer 1, as Esperanto's
 * master minion uses it) ends a kernel still running after this long with
 * status 6.  -DLAUNCH_TIMEOUT_MS=... overrides it; the 32-bit timer at
 * 100 MHz holds at most 42949 ms.
 */
#ifndef LAUNCH_TIMEOUT_MS
#define LAUNCH_TIMEOUT_MS       30000
#endif
/*
 * The timeout is emulated time, never host time: PU timer 1, which the KW
 * arms at the launch, runs on the model's emulated time (docs/timing.md,
 * "Timers and the warp"), from the KW's clock: it expires once every hart
 * that may still act is past that clock plus WATCHDOG_LOOK_MS, or at once
 * if no hart can act.  The KW, its clock moved to the expiry as it reads
 * the timer, compares it with its clock at the launch.  The limit in one
 * expiry when the 32-bit timer holds it, else expiries 40 s apart.
 */
#define WATCHDOG_TIMER          1
#define WATCHDOG_LOOK_MS \
    (LAUNCH_TIMEOUT_MS <= 40000 ? LAUNCH_TIMEOUT_MS : 40000)
#define WATCHDOG_TICKS  ((uint64_t)WATCHDOG_LOOK_MS * (PU_TIMER_HZ / 1000))
_Static_assert(LAUNCH_TIMEOUT_MS > 0 && WATCHDOG_TICKS <= 0xffffffffULL,
               "LAUNCH_TIMEOUT_MS");
#define DEFAULT_CLOCK_MHZ       600     /* without the device tree's */

extern uint64_t watchdog_cycles;    /* LAUNCH_TIMEOUT_MS in minion cycles */

/* kernel_environment_t of Esperanto's ABI: one 64-byte line (a1) */
struct kernel_env {
    uint16_t major, minor, patch, reserved;
    uint64_t shire_mask;
    uint32_t frequency_mhz;
    uint8_t pad[44];
} __attribute__((aligned(64)));

/*
 * Where the kernel worker leaves a launch's kernel_env for the kernels
 * (a1): Esperanto's CM_KERNEL_ENVS (slot 0), in the master shire's
 * scratchpad, which U-mode may read.  The firmware's own data is in the
 * DRAM that mprot keeps from U-mode (docs/firmware.md).
 */
#define KERNEL_ENV_ADDR (SCP_BASE + MASTER_SHIRE * SCP_WINDOW + 0x7740)
#define KERNEL_ENV      ((volatile struct kernel_env *)KERNEL_ENV_ADDR)

/*
 * The launch block: written by the kernel worker, read by compute harts.
 * gen changes last; a hart runs a launch when gen differs from the last
 * one it saw and its shire is in shire_mask.  Counters are ET global
 * atomics (the compute harts are in other shires).
 */
struct launch_block {
    uint64_t gen;
    uint64_t code, args, shire_mask;
    uint64_t stack_base, stack_size;    /* 0: the default stacks */
    uint64_t exception_buffer;          /* 0: none */
    uint64_t abort_gen;         /* == gen: stop now */
    uint64_t expected;          /* harts that will report */
    uint64_t done;              /* harts that reported */
    uint64_t end;               /* the latest report's time (mcycle) */
    uint64_t exception_shires;  /* shires where a hart trapped */
    uint64_t error_shires;      /* shires where a kernel returned < 0 */
    uint64_t timed_out;         /* unused since the KW's own verdict */
    /* shires through the launch barrier (cm.c); its own line: polled */
    uint64_t arrived __attribute__((aligned(64)));
} __attribute__((aligned(64)));

extern struct launch_block launch;

/*
 * Esperanto's execution_context_t: what a hart leaves in the launch's
 * exception buffer (slot = hart id) when its kernel does not return well.
 */
#define CTX_SIZE        320     /* 39 u64, padded to 64-byte lines */
#define CTX_TYPE        0
#define CTX_CYCLES      8
#define CTX_HART        16
#define CTX_EPC         24
#define CTX_STATUS      32
#define CTX_TVAL        40
#define CTX_CAUSE       48
#define CTX_USER_ERROR  56
#define CTX_GPR         64      /* x1..x31 */
enum {
    CTX_HANG, CTX_UMODE_EXCEPTION, CTX_SYSTEM_ABORT, CTX_SELF_ABORT,
    CTX_USER_KERNEL_ERROR, CTX_TENSOR_ERROR, CTX_BUS_ERROR,
};

/*
 * U-mode trace control blocks (Esperanto's CM_UMODE_TRACE_CB: et-trace's
 * trace_control_block_t, one 64-byte line per hart, slot = CTX_INDEX),
 * which their cm-umode library reads on every et_printf/trace call.  Its
 * byte 57 is `enable`, where 0 means enabled: the firmware must write
 * TRACE_DISABLE (1) before each kernel, as their worker does.
 */
#define UMODE_TRACE_CB_BASE     0x8004F23000ULL
#define UMODE_TRACE_CB_SIZE     64
#define UMODE_TRACE_CB_ENABLE   57
#define UMODE_TRACE_DISABLE     1

/* per-hart result reported into the launch block */
enum { CM_DONE_OK, CM_DONE_EXCEPTION, CM_DONE_ABORTED, CM_DONE_ERROR };

/* What fw/start.S keeps beyond the trap frame (fw-frame.h offsets). */
struct fw_frame {
    struct trap_frame f;
    uint64_t pad;
    uint64_t cyc_in, ins_in;    /* mcycle, minstret read at the entry */
    uint64_t hide;              /* fw_trap: write back cyc_out, ins_out */
    uint64_t cyc_out, ins_out;
};
_Static_assert(__builtin_offsetof(struct fw_frame, cyc_in) == FW_CYC_IN &&
               __builtin_offsetof(struct fw_frame, ins_out) == FW_INS_OUT &&
               sizeof(struct fw_frame) <= FW_FRAME_SIZE, "fw-frame.h");

/* fw start.S */
void enter_umode(uint64_t entry, uint64_t a0, uint64_t a1, uint64_t sp);
void __attribute__((noreturn)) fw_restart(void (*fn)(void));

/* roles */
void __attribute__((noreturn)) mm_main(uint64_t hartid);
void __attribute__((noreturn)) cm_main(uint64_t hartid);
void __attribute__((noreturn)) cm_idle(void);
void __attribute__((noreturn)) idle_forever(void);
void kw_interrupt(struct trap_frame *f);

/* Send "work" credit to a master-shire hart. */
static inline void mm_notify(unsigned hart, unsigned counter)
{
    fcc_send(MASTER_SHIRE, hart & 1, counter,
             1u << hart_minion(hart));
}

/* bits set; no libgcc here (__builtin_popcountll would call it) */
static inline int64_t popcount64(uint64_t x)
{
    int64_t n = 0;

    for (; x; x &= x - 1) {
        n++;
    }
    return n;
}

/*
 * A shared word as memory holds it now: a plain load.  For the compute
 * harts' look at the launch after its IPI, which the IPI orders and the
 * gate need not.  (The MM workers once used it for what a host command
 * depends on, when commands carried no card time; they take effect at a
 * stamped time now, after every clock, and the workers read through the
 * gate: docs/timing.md, "The host link".)
 */
static inline uint64_t read_now(const uint64_t *p)
{
    return *(const volatile uint64_t *)p;
}

static inline uint64_t cycles(void)
{
    return csr_read(mcycle);
}

#endif
