/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Compute runtime (shires 0-31) and the role dispatch of every minion hart.
 * A compute hart sleeps in WFI with only MSIP enabled.  The master
 * minion's kernel worker fills the launch block and IPIs the shires; each
 * hart then enters the kernel in U-mode.  The kernel's return (ecall
 * SYSCALL_RETURN_FROM_KERNEL), any U-mode exception, or an abort IPI
 * brings the hart back to M-mode, where it reports into the launch block
 * and goes back to sleep.
 */
#include "fw.h"

#define MIP_MSIP        (1u << 3)
#define MIP_BUS_ERROR   (1u << IRQ_BUS_ERROR)
#define CAUSE_IRQ       (1ULL << 63)
#define IRQ_M_SOFT      3
#define IRQ_M_EXT       11
#define CAUSE_ECALL_U   8
#define MSTATUS_MPP     (3ULL << 11)

/* U-mode syscalls other than the return: cache maintenance, PMCs */
#define SYSCALL_UMODE_LIMIT 127

struct launch_block launch;

/* one line at a time on the console (up to 32 shires report at once) */
static uint64_t print_lock;

/* last launch generation each hart has run */
static uint64_t seen_gen[MM_HART0 + HARTS_PER_SHIRE];

uint64_t watchdog_cycles;

/*
 * What the trap entry and exit cost in cycles, measured by each hart at
 * start-up with the same instructions between two mcycle reads (a read
 * returns the clock before it, so b - a is the first read's cost plus
 * what lies between): the instruction costs are the model's table,
 * which a timing file may change.
 */
struct trap_cost {
    uint32_t entry;     /* csrrw, addi, sd before the entry's mcycle read */
    uint32_t tail;      /* 31 loads and mret after the exit's write */
};
static struct trap_cost trap_cost[MM_HART0 + HARTS_PER_SHIRE];

static void trap_cost_measure(unsigned h)
{
    uint64_t a, b, x = 0, sys, alu, st, ld;

    __asm__ volatile("csrr %0, mcycle\n csrr %1, mcycle"
                     : "=&r"(a), "=r"(b));
    sys = b - a;
    __asm__ volatile("csrr %0, mcycle\n addi %2, %2, 1\n csrr %1, mcycle"
                     : "=&r"(a), "=r"(b), "+r"(x));
    alu = b - a - sys;
    __asm__ volatile("csrr %0, mcycle\n sd %2, 0(%3)\n csrr %1, mcycle"
                     : "=&r"(a), "=&r"(b) : "r"(x), "r"(&x) : "memory");
    st = b - a - sys;
    __asm__ volatile("csrr %0, mcycle\n ld %2, 0(%3)\n csrr %1, mcycle"
                     : "=&r"(a), "=&r"(b), "=&r"(x) : "r"(&x) : "memory");
    ld = b - a - sys;
    trap_cost[h].entry = sys + alu + st;
    trap_cost[h].tail = FW_TAIL_LOADS * ld + sys;
}

/*
 * Resume the kernel as if this trap had not been taken: its cycle and
 * instruction counts (and the PMU events made of them) go on from where
 * they were at the interrupt.
 */
static void trap_hide(unsigned h, struct fw_frame *ff)
{
    ff->hide = 1;
    ff->ins_out = ff->ins_in - FW_ENTRY_INSNS - FW_TAIL_INSNS;
    ff->cyc_out = ff->cyc_in - trap_cost[h].entry - trap_cost[h].tail;
}

static unsigned my_hart(void)
{
    return csr_read(mhartid);
}

static void msip_clear(unsigned h)
{
    esr_write(ESR_OTHER(PP_M, hart_shire(h), IPI_TRIGGER_CLEAR),
              1ULL << (h % HARTS_PER_SHIRE));
}

/* Leave the trapped context in the launch's exception buffer, if any. */
static void save_context(unsigned h, uint64_t type, int64_t user_error,
                         const struct trap_frame *f)
{
    uint64_t c = launch.exception_buffer + (uint64_t)CTX_INDEX(h) * CTX_SIZE;

    if (!launch.exception_buffer) {
        return;
    }
    wr64(c + CTX_TYPE, type);
    wr64(c + CTX_CYCLES, cycles());
    wr64(c + CTX_HART, h);
    wr64(c + CTX_EPC, f->mepc);
    wr64(c + CTX_STATUS, csr_read(mstatus));
    wr64(c + CTX_TVAL, f->mtval);
    wr64(c + CTX_CAUSE, f->mcause);
    wr64(c + CTX_USER_ERROR, user_error);
    for (unsigned r = 1; r < 32; r++) {
        wr64(c + CTX_GPR + 8 * (r - 1), f->regs[r]);
    }
    __asm__ volatile("fence" ::: "memory");
}

/*
 * What Esperanto's worker minion sets up on every hart before each kernel
 * (pre_kernel_setup, and its machine-minion syscall of the same name),
 * so that no kernel sees what the one before it left behind:
 *  - thread 0: the L1 in D1Split mode with the L1 scratchpad on
 *    (mcache_control 3: tensor loads need it), tensor_mask, tensor_error
 *    and tensor_coop 0; thread 1: tensor_error 0;
 *  - mask m0 = 0xff (8 lanes), m1-m7 0; fcsr 0 (round to nearest even);
 *  - its U-mode trace control block disabled (trace_cb_disable);
 *  - its FCC credit counters emptied (init_fcc), so that no credit a
 *    kernel sent to a hart that had already returned passes a barrier of
 *    the next; launch_barrier then keeps this launch's own credits from
 *    being emptied.
 * The shire-wide part (shire_coop_mode, the FLB counters) is the KW's
 * (mm.c), before the launch's IPIs.
 */
static void trace_cb_disable(unsigned h);

static void fcc_drain(void)
{
    uint64_t n = csr_read(fccnb);

    for (uint64_t i = n & 0xffff; i; i--) {
        fcc_wait(0);
    }
    for (uint64_t i = n >> 16 & 0xffff; i; i--) {
        fcc_wait(1);
    }
}

static void kernel_setup(unsigned h)
{
    uint64_t scratch = 0xff;

    if (hart_thread(h) == 0) {
        /* from shared (0) only to split (1), then the scratchpad (3) */
        if (!(csr_read(mcache_control) & 3)) {
            csr_write(mcache_control, 1);
        }
        if ((csr_read(mcache_control) & 3) != 3) {
            csr_write(mcache_control, 3);
        }
        csr_write(tensor_mask, 0);
        csr_write(tensor_coop, 0);
    }
    csr_write(tensor_error, 0);
    __asm__ volatile("mova.m.x %0" :: "r"(scratch));
    csr_write(fcsr, 0);
    trace_cb_disable(h);
    fcc_drain();
    /* a bus error from the kernel ends it on this hart (fw_trap) */
    csr_clear(mip, MIP_BUS_ERROR);
    csr_set(mie, MIP_BUS_ERROR);
}

/*
 * After the kernel on this hart: no more bus-error interrupts (the idle
 * loop's WFI would wake on one).
 */
static void kernel_cleanup(void)
{
    csr_clear(mie, MIP_BUS_ERROR);
    csr_clear(mip, MIP_BUS_ERROR);
}

/* Report this hart's end of the kernel; the last one wakes the KW. */
static void __attribute__((noreturn)) cm_report(unsigned h, int how,
                                                struct trap_frame *f)
{
    uint64_t bit = 1ULL << hart_shire(h), seen = 0;

    kernel_cleanup();
    if ((how == CM_DONE_ABORTED || how == CM_DONE_EXCEPTION) &&
        hart_thread(h) == 0) {
        /*
         * Stopped, perhaps in a cooperative TensorLoad whose partners never
         * issue: turning the scratchpad off drops it (docs/isa.md), so it
         * neither holds nor joins the next kernel's loads; kernel_setup
         * turns it on again.  A kernel that ends normally keeps its loads.
         */
        csr_write(mcache_control, 1);
    }
    if (how == CM_DONE_ERROR) {
        et_amoorg_d(&launch.error_shires, bit);
    }
    if (how == CM_DONE_EXCEPTION) {
        seen = et_amoorg_d(&launch.exception_shires, bit);
        if (!seen) {
            mm_notify(HART_KW, FCC_WORK);   /* the first: stop the others */
        }
    }
    /* the first exception of a shire is logged, the others only counted */
    if (how == CM_DONE_EXCEPTION && !(seen & bit) && f) {
        while (et_amoswapg_d(&print_lock, 1)) {
        }
        print("fw: hart %u: kernel exception: mcause 0x%lx mepc 0x%lx "
              "mtval 0x%lx\n", h, f->mcause, f->mepc, f->mtval);
        et_amoswapg_d(&print_lock, 0);
    }
    /*
     * The kernel ends when its latest hart does, whichever hart reports
     * last in host time: a max keeps execute_dur deterministic.
     */
    et_amomaxug_d(&launch.end, cycles());
    if (et_amoaddg_d(&launch.done, 1) + 1 == launch.expected) {
        mm_notify(HART_KW, FCC_WORK);
    }
    fw_restart(cm_idle);
}

/*
 * No hart of the launch enters the kernel before every hart of it has
 * emptied its credits (kernel_setup), as Esperanto's worker synchronises
 * the launch's shires (pre_launch_synchronize_shires): else a fast
 * hart's first credit to a slow one would be emptied.  Theirs counts
 * with local atomics and spins on them; here the shire's harts meet at a
 * fast local barrier, whose last arrival counts the shire in with a
 * global atomic and polls until every shire has, then credits its
 * shire's harts: the FLB, the global-atomic poll and the credits are
 * timed by the model, so the launch's timing does not depend on the
 * order the host runs the harts in.  The last arrival only hands the
 * shire on, with a credit, to its captain (its first hart of the launch),
 * which counts it in: which hart the host makes the FLB's last is the
 * host's choice (docs/timing.md, "Fast local barrier"), and the lines a
 * count-in leaves in that hart's L1 moved a later launch's execute_dur
 * by 15-42 cycles in one card in ten; the last arrival's answer and the
 * credit's way inside the shire are the same whichever hart it is.
 * Every hart of the launch goes through it, one aborted before it started
 * too, so that it always completes (no kernel runs yet).
 */
static void __attribute__((noinline)) launch_barrier(unsigned h)
{
    unsigned s = hart_shire(h);
    uint64_t shires = popcount64(launch.shire_mask);
    int master = s == MASTER_SHIRE;
    /* the sync minions are minions 16-31 */
    unsigned first = master ? MINIONS_PER_SHIRE - SYNC_HARTS / 2 : 0;
    uint32_t minions = ~0u << first;

    if (flb_arrive(LAUNCH_FLB, master ? SYNC_HARTS : HARTS_PER_SHIRE)) {
        fcc_send(s, 0, LAUNCH_CAPTAIN_FCC, 1u << first);
    }
    if (h == s * HARTS_PER_SHIRE + 2 * first) {
        fcc_wait(LAUNCH_CAPTAIN_FCC);
        if (et_amoaddg_d(&launch.arrived, 1) + 1 < shires) {
            while (et_amoorg_d(&launch.arrived, 0) < shires) {
                /* halted until the word changes */
            }
        }
        fcc_send(s, 0, LAUNCH_FCC, minions);
        fcc_send(s, 1, LAUNCH_FCC, minions);
    }
    fcc_wait(LAUNCH_FCC);
}

/* Esperanto's default: slot = hart id; a configured area: slot = rank */
static uint64_t user_stack(unsigned h)
{
    uint64_t below, rank = h % HARTS_PER_SHIRE;

    if (!launch.stack_size) {
        return UMODE_STACK_BASE - h * UMODE_STACK_SIZE;
    }
    if (IS_SYNC_HART(h)) {
        rank -= SYNC_HARTS;     /* minions 16-31 of shire 32 */
    }
    below = launch.shire_mask & ((1ULL << hart_shire(h)) - 1);
    for (; below; below &= below - 1) {
        rank += HARTS_PER_SHIRE;
    }
    return launch.stack_base - rank * launch.stack_size;
}

/* Esperanto's Trace_Init_UMode(NULL): U-mode trace off for this hart. */
static void trace_cb_disable(unsigned h)
{
    wr8(UMODE_TRACE_CB_BASE + (uint64_t)CTX_INDEX(h) * UMODE_TRACE_CB_SIZE +
        UMODE_TRACE_CB_ENABLE, UMODE_TRACE_DISABLE);
}

void cm_idle(void)
{
    unsigned h = my_hart();

    for (;;) {
        uint64_t gen;

        /*
         * Clear first, then look: an IPI after the look wakes the WFI.
         * The IPI that woke this hart carries the launch's time; a global
         * atomic here would also make 2,048 harts pass the gate one after
         * the other on this one line at every launch and at boot.
         */
        msip_clear(h);
        __asm__ volatile("fence" ::: "memory");
        gen = read_now(&launch.gen);
        if (gen != seen_gen[h]) {
            seen_gen[h] = gen;
            if (!(launch.shire_mask >> hart_shire(h) & 1)) {
                /* not ours */
            } else {
                kernel_setup(h);
                launch_barrier(h);
                if (launch.abort_gen == gen) {
                    cm_report(h, CM_DONE_ABORTED, 0);   /* before start */
                }
                enter_umode(launch.code, launch.args,
                            KERNEL_ENV_ADDR, user_stack(h));
            }
        }
        __asm__ volatile("wfi");
    }
}

void cm_main(uint64_t hartid)
{
    /*
     * As Esperanto's machine-minion firmware: kernels may read
     * hpmcounter3-8 (not cycle, time or instret), and hpmcounter3 counts
     * cycles (PMU event 1).
     */
    csr_write(mcounteren, 0x1f8);
    csr_write(scounteren, 0x1f8);
    csr_write(mhpmevent3, 1);
    trap_cost_measure(hartid);
    csr_set(mie, MIP_MSIP);     /* WFI wakes on MSIP; mstatus.MIE stays 0 */
    cm_idle();
}

void __attribute__((noreturn)) idle_forever(void)
{
    csr_clear(mie, ~0ULL);
    for (;;) {
        __asm__ volatile("wfi");
    }
}

void fw_trap(struct trap_frame *f);

void fw_trap(struct trap_frame *f)
{
    unsigned h = my_hart();
    int from_user = !(csr_read(mstatus) & MSTATUS_MPP);

    if (h == HART_KW && f->mcause == (CAUSE_IRQ | IRQ_M_EXT)) {
        kw_interrupt(f);    /* the launch watchdog */
        return;
    }
    if (!from_user || (h >= MM_HART0 && !IS_SYNC_HART(h))) {
        print("fw: hart %u: unexpected M-mode trap: mcause 0x%lx "
              "mepc 0x%lx mtval 0x%lx\n", h, f->mcause, f->mepc, f->mtval);
        idle_forever();
    }
    if (f->mcause == (CAUSE_IRQ | IRQ_M_SOFT)) {
        struct fw_frame *ff = (struct fw_frame *)f;

        msip_clear(h);
        if (launch.abort_gen == seen_gen[h]) {
            save_context(h, CTX_SYSTEM_ABORT, 0, f);
            cm_report(h, CM_DONE_ABORTED, f);
        }
        /* a late launch IPI: keep running, unseen */
        trap_hide(h, ff);
        return;
    }
    if (f->mcause == (CAUSE_IRQ | IRQ_BUS_ERROR)) {
        /*
         * A bus error (a missing ESR, a write to a read-only one) in the
         * kernel ends it on this hart, as Esperanto's worker does
         * (KERNEL_RETURN_BUS_ERROR): context type 6, the launch answers
         * 1 (error) with this shire in error.
         */
        f->mtval = csr_read(mbusaddr);  /* the context's tval: the address */
        save_context(h, CTX_BUS_ERROR, 0, f);
        cm_report(h, CM_DONE_ERROR, f);
    }
    if (f->mcause == CAUSE_ECALL_U) {
        uint64_t nr = f->regs[10];

        if (nr == SYSCALL_RETURN_FROM_KERNEL &&
            f->regs[12] == KERNEL_RETURN_SUCCESS) {
            /* Esperanto's worker: a negative value is the kernel's error */
            if ((int64_t)f->regs[11] < 0) {
                save_context(h, CTX_USER_KERNEL_ERROR, f->regs[11], f);
                cm_report(h, CM_DONE_ERROR, f);
            }
            cm_report(h, CM_DONE_OK, f);
        }
        if (nr == SYSCALL_RETURN_FROM_KERNEL) {
            /*
             * a1 = the kernel's value, a2 = 1 self abort (et_abort), else
             * an error.  Esperanto's worker takes any return type but
             * success as the shire's error, not an exception: the launch
             * answers 1 and the other harts run on (their abort kernel).
             */
            save_context(h, f->regs[12] == KERNEL_RETURN_SELF_ABORT ?
                         CTX_SELF_ABORT : CTX_USER_KERNEL_ERROR,
                         f->regs[11], f);
            cm_report(h, CM_DONE_ERROR, f);
        }
        /* cache and counter syscalls: nothing to do in the model */
        f->regs[10] = nr <= SYSCALL_UMODE_LIMIT ? 0 : (uint64_t)-1;
        f->mepc += 4;
        return;
    }
    save_context(h, CTX_UMODE_EXCEPTION, 0, f);
    cm_report(h, CM_DONE_EXCEPTION, f);
}

void fw_main(uint64_t hartid, const void *fdt);

void fw_main(uint64_t hartid, const void *fdt)
{
    /* every hart works it out (the same figure): nobody waits for it */
    watchdog_cycles = (uint64_t)LAUNCH_TIMEOUT_MS * 1000 *
        fdt_root_u32(fdt, "esperanto,minion-clock-mhz", DEFAULT_CLOCK_MHZ);
    if (hartid < MM_HART0 || IS_SYNC_HART(hartid)) {
        cm_main(hartid);
    }
    if (hart_shire(hartid) == MASTER_SHIRE) {
        mm_main(hartid);
    }
    idle_forever();
}

/* gcc emits calls to these for struct and array initialisers */
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);

void *memset(void *d, int c, size_t n)
{
    uint8_t *p = d;

    while (n--) {
        *p++ = c;
    }
    return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
    uint8_t *p = d;
    const uint8_t *q = s;

    while (n--) {
        *p++ = *q++;
    }
    return d;
}
