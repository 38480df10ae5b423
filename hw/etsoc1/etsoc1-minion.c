/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1 minion CPU: the RISC-V CPU subclass, its ET CSRs and
 * the mechanism that halts a hart until a device wakes it.
 *
 * Modelled from the chip facts in isa.md (sections 1, 3 and 6).  A minion is
 * rv64imfc: no A, no D, no H, no bit-manipulation, no PMP, no Sstc.
 *
 * How a hart waits (no target/riscv patch): a CSR callback that finds its
 * resource missing records the reason in Etsoc1HartEt.wait and returns
 * ETSOC1_EXCP_WAIT (etsoc1_halt_cause).  The stock CSR helper raises it with
 * its own return address, so env->pc points at the CSR instruction.  The
 * cause is above EXCP_INTERRUPT: cpu_exec() leaves at once, without the
 * BQL, and our cpu_exec_exit hook halts the hart.  has_work re-tests the
 * resource itself (never a one-shot flag), so a credit that arrives between
 * the callback's test and the halt is not lost.  When the hart is woken it
 * re-executes the CSR instruction, which now succeeds.
 */

#include "qemu/osdep.h"
#include <math.h>
#include "hw/qdev-properties.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qapi/error.h"
#include "exec/exec-all.h"
#include "hw/core/tcg-cpu-ops.h"
#include "sysemu/cpus.h"
#include "sysemu/tcg.h"
#include "exec/gdbstub.h"
#include "hw/etsoc1/etsoc1-timing.h"
#include "hw/etsoc1/etsoc1.h"
#include "hw/etsoc1/etsoc1-csr.h"
#include "hw/etsoc1/etsoc1-trace.h"
#include "trace.h"

/* A cause reserved for custom use by the privileged spec; no guest sees it. */
/* the minion's "emulate in machine-mode code" exception (qemu-patches/0004) */
#define ETSOC1_EXCP_MCODE 30

/* The minion's own ET CSRs (isa.md section 3; the units': etsoc1-csr.h) */
enum {
    CSR_ET_MENABLE_SHADOWS = 0x7d2,
    CSR_ET_MBUSADDR = 0x7d5,
    CSR_ET_TEX_SEND = 0x807,
    CSR_ET_GSC_PROGRESS = 0x840,
    CSR_ET_VALIDATION0 = 0x8d0,
    CSR_ET_VALIDATION1 = 0x8d1,
    CSR_ET_VALIDATION2 = 0x8d2,
    CSR_ET_VALIDATION3 = 0x8d3,
    CSR_ET_HARTID = 0xcd0,
};

/* validation0/1 values understood by Esperanto's simulator (DV hooks). */
#define ETSOC1_VALIDATION_PASS  0x1feed000
#define ETSOC1_VALIDATION_FAIL  0x50bad000
#define ETSOC1_VALIDATION1_CMD_PUTCHAR 1
#define ETSOC1_EOT 0x04

static Etsoc1MinionCPU *env_minion(CPURISCVState *env)
{
    return ETSOC1_MINION_CPU(env_archcpu(env));
}

/*
 * The minion behind @cs, or NULL.  Called for every hart of every scan
 * (etsoc1-sync.c, the hang detector): a class compare, where
 * object_dynamic_cast would look the type name up in a hash table.
 */
Etsoc1MinionCPU *etsoc1_minion_of(CPUState *cs)
{
    static ObjectClass *minion;     /* the type's class, which never moves */

    if (!minion) {
        minion = object_class_by_name(TYPE_ETSOC1_MINION_CPU);
    }
    return object_get_class(OBJECT(cs)) == minion ? (Etsoc1MinionCPU *)cs
                                                  : NULL;
}

Etsoc1MinionCPU *etsoc1_current_minion(void)
{
    return current_cpu ? etsoc1_minion_of(current_cpu) : NULL;
}

/* The hart making the current access, for event sources. */
uint32_t etsoc1_current_hartid(void)
{
    Etsoc1MinionCPU *cpu = etsoc1_current_minion();

    return cpu ? cpu->parent_obj.env.mhartid : ETSOC1_EV_NO_HART;
}

/* Halted right after a stall CSR write, in U-mode (the IPI-redirect target). */
bool etsoc1_minion_stalled_in_u(Etsoc1MinionCPU *cpu)
{
    CPURISCVState *env = &cpu->parent_obj.env;

    return CPU(cpu)->halted && env->priv == PRV_U &&
           env->pc == cpu->et->stall_pc;
}

static void etsoc1_minion_do_redirect(CPUState *cs, run_on_cpu_data data)
{
    Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(cs);

    cpu->parent_obj.env.pc = data.target_ptr;
    etsoc1_advance_to(cpu, cpu->et->ipi_at);    /* when the IPI arrived */
    etsoc1_trace_wake(etsoc1_hart(cpu), etsoc1_now(cpu));
    etsoc1_sync_unpark(cpu);
    cs->halted = 0;
    etsoc1_sync_lower(cpu, false);  /* it acts, from the IPI's arrival */
}

/* Send a stalled hart to @pc (ipi_redirect_trigger), on its own thread. */
void etsoc1_minion_redirect(Etsoc1MinionCPU *cpu, uint64_t pc)
{
    async_run_on_cpu(CPU(cpu), etsoc1_minion_do_redirect,
                     RUN_ON_CPU_TARGET_PTR(pc));
}

/*
 * Wake @cpu after publishing the resource it waits for.  Under MTTCG a
 * kick wakes that hart's thread alone, without the BQL
 * (qemu-patches/0011).  Under single-threaded TCG it ends the running
 * vCPU's turn and marks @cpu as one the round looks at: the round passes
 * over vCPUs no kick or interrupt marked (qemu-patches/0010).
 */
void etsoc1_minion_wake(Etsoc1MinionCPU *cpu)
{
    CPUState *cs = CPU(cpu);

    trace_etsoc1_minion_wake(cpu->parent_obj.env.mhartid, cpu->et->wait);
    /* the scans see it from now on: a parked wait ended (etsoc1_parks) */
    etsoc1_sync_unpark(cpu);
    qemu_cpu_kick(cs);
}

/*
 * Translate @va as the hart would for @access, without raising a fault
 * (tensor and cache operations report faults their own way).
 */
bool etsoc1_minion_va_to_pa(Etsoc1MinionCPU *cpu, target_ulong va,
                            MMUAccessType access, hwaddr *pa)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    CPUTLBEntryFull *full;
    void *host;

    if (probe_access_full(env, va, access, cpu_mmu_index(env, false), true,
                          &host, &full, 0) & TLB_INVALID_MASK) {
        return false;
    }
    *pa = (full->phys_addr & TARGET_PAGE_MASK) | (va & ~TARGET_PAGE_MASK);
    return true;
}

/* Raise the asynchronous bus-error interrupt, as the chip does on ESRs. */
void etsoc1_minion_bus_error(Etsoc1MinionCPU *cpu, hwaddr addr)
{
    cpu->et->mbusaddr = addr;
    riscv_cpu_update_mip(&cpu->parent_obj, 1ULL << ETSOC1_IRQ_BUS_ERROR,
                         BOOL_TO_MASK(1));
}

/* Would an interrupt be taken if the hart ran now?  (blocking-harts.md 4.3) */
static bool etsoc1_irq_will_be_taken(CPURISCVState *env)
{
    if (riscv_cpu_mirq_pending(env) != RISCV_EXCP_NONE &&
        (env->priv < PRV_M || (env->mstatus & MSTATUS_MIE))) {
        return true;
    }
    return riscv_cpu_sirq_pending(env) != RISCV_EXCP_NONE &&
           (env->priv < PRV_S ||
            (env->priv == PRV_S && (env->mstatus & MSTATUS_SIE)));
}

/*
 * May @cpu, halted in the ET wait @why, go on?  False for a wait that is
 * not an ET one (none or a WFI, a stall, stopped).  The gate's scan asks this of
 * other harts from its own thread while the hart may leave its wait, so
 * the caller reads the wait once and passes it.
 */
bool etsoc1_minion_wait_over(Etsoc1MinionCPU *cpu, uint32_t why)
{
    bool over;

    switch (why) {
    case ETSOC1_WAIT_FCC0:
    case ETSOC1_WAIT_FCC1:
        over = qatomic_read(&cpu->et->credit.fcc[why - ETSOC1_WAIT_FCC0]);
        break;
    case ETSOC1_WAIT_REDUCE:
        over = etsoc1_reduce_done(cpu);
        break;
    case ETSOC1_WAIT_COOP:
        over = !etsoc1_coop_waiting(cpu);
        break;
    case ETSOC1_WAIT_POLL:
    case ETSOC1_WAIT_GATE:
        over = etsoc1_sync_has_work(cpu);
        break;
    case ETSOC1_WAIT_HOST:
        over = etsoc1_host_wait_over(cpu);
        break;
    default:
        return false;
    }
    return over || etsoc1_irq_will_be_taken(&cpu->parent_obj.env);
}

/* Unchecked casts: the gate calls this for every hart on every scan */
static bool etsoc1_minion_has_work(CPUState *cs)
{
    Etsoc1MinionCPU *cpu = container_of(cs, Etsoc1MinionCPU,
                                        parent_obj.parent_obj);
    Etsoc1MinionCPUClass *mcc = container_of(cs->cc, Etsoc1MinionCPUClass,
                                             parent_class.parent_class);
    uint32_t why = qatomic_read(&cpu->et->wait);
    bool work;

    switch (why) {
    case ETSOC1_WAIT_NONE:
    case ETSOC1_WAIT_STALL:
        if (!cs->halted) {
            return mcc->parent_has_work(cs);
        }
        /*
         * A WFI: the timeline's slice ends where the interrupt is taken.
         * One that ends without a trap (its interrupt pending while
         * mstatus.MIE is 0) is dropped only by the hart's own thread,
         * which leaves the halt on what it sees: a scan's look from
         * another thread could catch a line that is lowered again before
         * the hart runs, and drop a WFI that goes on (a record's trace
         * once lost the dispatcher's WFI open at its STOP); nor does such
         * a look open one for a hart with work, which may be running on.
         */
        work = mcc->parent_has_work(cs);
        etsoc1_trace_wfi(etsoc1_hart(cpu), etsoc1_now(cpu),
                         work && cs == current_cpu &&
                         !etsoc1_irq_will_be_taken(&cpu->parent_obj.env),
                         (work && cs != current_cpu) ||
                         qatomic_read(&cpu->et->wait) != ETSOC1_WAIT_NONE);
        break;
    default:
        work = etsoc1_minion_wait_over(cpu, why);
    }
    if (work) {
        etsoc1_sync_unpark(cpu);    /* before the hart leaves its halt */
    }
    return work;
}

/* Called from cpu_handle_exception() with the BQL held. */
static void etsoc1_minion_do_interrupt(CPUState *cs)
{
    Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(cs);
    CPURISCVState *env = &cpu->parent_obj.env;
    bool mcode = cs->exception_index == ETSOC1_EXCP_MCODE;

    cpu->et->poll.helper_access = false;     /* a lane of flwg.ps faulted */
    /*
     * A trap (a kernel's return, a syscall, a fault) ends any poll: a
     * read after it is a new read, not the next of a loop.  Else a
     * kernel that reads a word the hart's previous kernel read, with
     * the same value, would halt as a poll (etsoc1-sync.c).
     * Interrupts (the watchdog's looks) leave a poll alone.
     */
    cpu->et->poll.valid = false;
    cpu->et->poll.plain_valid = false;
    /* a hart that waited for a host input looks again after the trap */
    if (qatomic_read(&cpu->et->wait) == ETSOC1_WAIT_HOST) {
        qatomic_set(&cpu->et->wait, ETSOC1_WAIT_NONE);
    }
    ETSOC1_MINION_CPU_GET_CLASS(cs)->parent_do_interrupt(cs);
    if (mcode) {
        /* the emulating handler gets the instruction in xtval */
        if (env->priv == PRV_M) {
            env->mtval = env->bins;
        } else {
            env->stval = env->bins;
        }
    }
}

/*
 * cpu_exec() starts, on the hart's thread: a hart that waited for a host
 * input (held past it, or at a look at host state) no longer waits.
 */
static void etsoc1_minion_exec_enter(CPUState *cs)
{
    Etsoc1MinionCPU *cpu = container_of(cs, Etsoc1MinionCPU,
                                        parent_obj.parent_obj);

    if (unlikely(qatomic_read(&cpu->et->wait) == ETSOC1_WAIT_HOST)) {
        qatomic_set(&cpu->et->wait, ETSOC1_WAIT_NONE);
        etsoc1_trace_wait_end(etsoc1_hart(cpu), etsoc1_now(cpu));
    }
}

/*
 * cpu_exec() ends, on the hart's thread, without the BQL.  After a CSR or
 * helper raised ETSOC1_EXCP_WAIT (its instruction unwound, to run again
 * when the hart is woken), the hart halts here: a halt takes no lock that
 * every hart shares (the gate's scan, which may follow, takes the BQL).
 */
static void etsoc1_minion_exec_exit(CPUState *cs)
{
    Etsoc1MinionCPU *cpu = container_of(cs, Etsoc1MinionCPU,
                                        parent_obj.parent_obj);

    if (likely(!cpu->et->halting)) {
        if (qatomic_read(&cs->halted)) {
            etsoc1_sync_park(cpu);      /* a WFI */
        } else {
            etsoc1_host_hold(cpu);      /* past a host input: give way */
        }
        return;
    }
    cpu->et->halting = false;
    trace_etsoc1_minion_halt(cpu->parent_obj.env.mhartid, cpu->et->wait);
    if (cpu->et->wait == ETSOC1_WAIT_STALL) {
        /* stall completes, then sleeps like WFI: resume after the CSR insn */
        cpu->parent_obj.env.pc += 4;
        cpu->et->stall_pc = cpu->parent_obj.env.pc;
        qatomic_set(&cpu->et->wait, ETSOC1_WAIT_NONE);
    }
    etsoc1_sync_halting(cpu);   /* may let others, or itself, go */
    qatomic_set(&cs->halted, 1);
    etsoc1_sync_park(cpu);      /* stopped, or a stall's sleep */
}

/* An interrupt taken while blocked abandons the wait; mret re-executes it. */
static bool etsoc1_minion_exec_interrupt(CPUState *cs, int interrupt_request)
{
    Etsoc1MinionCPU *cpu = ETSOC1_MINION_CPU(cs);

    if (!ETSOC1_MINION_CPU_GET_CLASS(cs)->parent_exec_interrupt(
            cs, interrupt_request)) {
        return false;
    }
    etsoc1_sync_done(cpu);     /* a wait at the gate is left */
    etsoc1_sync_leave(cpu);     /* ... and any release of it taken */
    if (qatomic_read(&cpu->et->wait) != ETSOC1_WAIT_STOPPED) {
        qatomic_set(&cpu->et->wait, ETSOC1_WAIT_NONE);
    }
    if (cpu->parent_obj.env.mcause == (1ULL << 63 | IRQ_M_SOFT)) {
        /* the handler starts when the IPI has arrived */
        etsoc1_advance_to(cpu, cpu->et->ipi_at);
    }
    etsoc1_trace_wake(etsoc1_hart(cpu), etsoc1_now(cpu));
    return true;
}

/*
 * When an event that @sender starts now arrives after @latency cycles:
 * the sender's clock less its issuing instruction (counted when its TB
 * started), plus the path.  0 (no constraint) without a sending hart.
 */
uint64_t etsoc1_arrival(Etsoc1MinionCPU *sender, double latency)
{
    if (!sender || !sender->parent_obj.cfg.et_counters) {
        return 0;
    }
    return etsoc1_now(sender) -
           etsoc1_insn_cost(sender->timing, ET_INSN_SYSTEM) + llround(latency);
}

/*
 * The cause with which a CSR or helper of @cpu halts it, what it waits for
 * recorded: the hart halts when cpu_exec() ends (etsoc1_minion_exec_exit).
 * Only on the hart's own thread: a debugger's CSR access does not halt it.
 */
int etsoc1_halt_cause(Etsoc1MinionCPU *cpu)
{
    if (CPU(cpu) == current_cpu) {
        cpu->et->halting = true;
    }
    return ETSOC1_EXCP_WAIT;
}

/* Record what the hart waits for; the stock helper then raises the cause. */
RISCVException etsoc1_block(Etsoc1MinionCPU *cpu, Etsoc1Wait why)
{
    qatomic_set(&cpu->et->wait, why);
    etsoc1_trace_wait_begin(etsoc1_hart(cpu), etsoc1_now(cpu), why,
                            why == ETSOC1_WAIT_FCC0 || why == ETSOC1_WAIT_FCC1 ?
                            why - ETSOC1_WAIT_FCC0 : 0);
    return (RISCVException)etsoc1_halt_cause(cpu);
}

/* ---- CSRs ---------------------------------------------------------------- */

static RISCVException etsoc1_pred_hartid(CPURISCVState *env, int csrno)
{
    Etsoc1MinionCPU *cpu;

    if (etsoc1_pred_minion(env, csrno) != RISCV_EXCP_NONE) {
        return RISCV_EXCP_ILLEGAL_INST;
    }
    cpu = env_minion(env);
    if (env->priv < PRV_M && !env->debugger &&
        !(etsoc1_minion_state(cpu)->menable_shadows & 1)) {
        return RISCV_EXCP_ILLEGAL_INST;
    }
    return RISCV_EXCP_NONE;
}

static uint64_t etsoc1_read_csr(Etsoc1MinionCPU *cpu, int csrno)
{
    switch (csrno) {
    case CSR_ET_MENABLE_SHADOWS:
        return etsoc1_minion_state(cpu)->menable_shadows;
    case CSR_ET_MBUSADDR:
        return cpu->et->mbusaddr;
    case CSR_ET_GSC_PROGRESS:
        return cpu->et->gsc_progress;
    case CSR_ET_HARTID:
        return cpu->parent_obj.env.mhartid;
    default:    /* validation0-3: the rows say which */
        return cpu->et->validation[csrno - CSR_ET_VALIDATION0];
    }
}

static void G_NORETURN etsoc1_end_run(int status, uint64_t hartid)
{
    trace_etsoc1_minion_end_run(hartid, status);
    if (!qemu_mutex_iothread_locked()) {
        qemu_mutex_lock_iothread();
    }
    /* Like hw/misc/sifive_test.c: the exit status is the guest's verdict. */
    exit(status);
}

static RISCVException etsoc1_write_validation(Etsoc1MinionCPU *cpu, int csrno,
                                              target_ulong val)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    Etsoc1MachineState *m = cpu->shire->chip;

    cpu->et->validation[csrno - CSR_ET_VALIDATION0] = val;
    if (csrno == CSR_ET_VALIDATION0) {
        if ((uint32_t)val == ETSOC1_VALIDATION_FAIL) {
            etsoc1_end_run(EXIT_FAILURE, env->mhartid);
        }
        if ((uint32_t)val == ETSOC1_VALIDATION_PASS) {
            /* This hart is done; the run ends when every hart is. */
            unsigned i, passed = 0;

            qatomic_inc(&cpu->shire->harts_passed);
            for (i = 0; i < m->num_shires; i++) {
                passed += qatomic_read(&m->shire[i].harts_passed);
            }
            if (passed == m->num_shires * ETSOC1_HARTS_PER_SHIRE) {
                etsoc1_end_run(EXIT_SUCCESS, env->mhartid);
            }
            return etsoc1_block(cpu, ETSOC1_WAIT_STOPPED);
        }
    } else if (csrno == CSR_ET_VALIDATION1 &&
               extract64(val, 56, 8) == ETSOC1_VALIDATION1_CMD_PUTCHAR &&
               (val & 0xff) == ETSOC1_EOT) {
        etsoc1_end_run(EXIT_SUCCESS, env->mhartid);
    }
    return RISCV_EXCP_NONE;
}

static RISCVException etsoc1_write_csr(Etsoc1MinionCPU *cpu, int csrno,
                                       uint64_t val)
{
    switch (csrno) {
    case CSR_ET_MENABLE_SHADOWS:
        etsoc1_minion_state(cpu)->menable_shadows = val & 1;
        break;
    case CSR_ET_MBUSADDR:
        cpu->et->mbusaddr = val & MAKE_64BIT_MASK(0, 40);
        break;
    case CSR_ET_GSC_PROGRESS:
        cpu->et->gsc_progress = val & 7;
        break;
    case CSR_ET_TEX_SEND:
        /* a texture sample request: no texture unit, nothing to do */
        break;
    default:    /* validation0-3: the rows say which */
        return etsoc1_write_validation(cpu, csrno, val);
    }
    return RISCV_EXCP_NONE;
}

/*
 * mie/mip: the stock handlers mask writes to the standard interrupts;
 * wrap them so the minion's local interrupts 16, 19 and 23 can be enabled
 * (mie) and acknowledged (cleared in mip).
 */
static riscv_csr_operations etsoc1_std_mie, etsoc1_std_mip;

static RISCVException etsoc1_rmw_mie(CPURISCVState *env, int csrno,
                                     target_ulong *ret, target_ulong new_val,
                                     target_ulong mask)
{
    RISCVException r = etsoc1_std_mie.op(env, csrno, ret, new_val, mask);

    if (r == RISCV_EXCP_NONE &&
        etsoc1_pred_minion(env, csrno) == RISCV_EXCP_NONE) {
        mask &= ETSOC1_LOCAL_IRQS;
        env->mie = (env->mie & ~mask) | (new_val & mask);
    }
    return r;
}

static RISCVException etsoc1_rmw_mip(CPURISCVState *env, int csrno,
                                     target_ulong *ret, target_ulong new_val,
                                     target_ulong mask)
{
    RISCVException r = etsoc1_std_mip.op(env, csrno, ret, new_val, mask);
    target_ulong clear = mask & ~new_val & ETSOC1_LOCAL_IRQS;

    if (r == RISCV_EXCP_NONE && ret) {
        *ret |= env->mip & ETSOC1_LOCAL_IRQS;
    }
    if (r == RISCV_EXCP_NONE && clear && !env->debugger &&
        etsoc1_pred_minion(env, csrno) == RISCV_EXCP_NONE) {
        riscv_cpu_update_mip(env_archcpu(env), clear, 0);
    }
    return r;
}

static const Etsoc1CsrReg minion_csrs[] = {
    ETSOC1_CSR(CSR_ET_MENABLE_SHADOWS, "menable_shadows", etsoc1_pred_minion,
               etsoc1_read_csr, etsoc1_write_csr),
    ETSOC1_CSR(CSR_ET_MBUSADDR, "mbusaddr", etsoc1_pred_minion,
               etsoc1_read_csr, etsoc1_write_csr),
    ETSOC1_CSR(CSR_ET_TEX_SEND, "tex_send", etsoc1_pred_gfx, NULL,
               etsoc1_write_csr),
    ETSOC1_CSR(CSR_ET_GSC_PROGRESS, "gsc_progress", etsoc1_pred_minion,
               etsoc1_read_csr, etsoc1_write_csr),
    ETSOC1_CSR(CSR_ET_VALIDATION0, "validation0", etsoc1_pred_minion,
               etsoc1_read_csr, etsoc1_write_csr),
    ETSOC1_CSR(CSR_ET_VALIDATION1, "validation1", etsoc1_pred_minion,
               etsoc1_read_csr, etsoc1_write_csr),
    ETSOC1_CSR(CSR_ET_VALIDATION2, "validation2", etsoc1_pred_minion,
               etsoc1_read_csr, etsoc1_write_csr),
    ETSOC1_CSR(CSR_ET_VALIDATION3, "validation3", etsoc1_pred_minion,
               etsoc1_read_csr, etsoc1_write_csr),
    ETSOC1_CSR(CSR_ET_HARTID, "hartid", etsoc1_pred_hartid, etsoc1_read_csr,
               NULL),
};

/*
 * fflags/fcsr bit 31: the minion's sticky "denormal" flag, set when a
 * subnormal operand was read as zero (softfloat's input_denormal flag).
 */
#define ETSOC1_FFLAGS_DENORMAL (1ULL << 31)

static riscv_csr_operations etsoc1_std_fflags, etsoc1_std_fcsr;

static RISCVException etsoc1_rmw_fflags(CPURISCVState *env, int csrno,
                                        target_ulong *ret,
                                        target_ulong new_val,
                                        target_ulong mask)
{
    riscv_csr_operations *std = csrno == CSR_FFLAGS ? &etsoc1_std_fflags
                                                    : &etsoc1_std_fcsr;
    target_ulong old;
    RISCVException r = std->read(env, csrno, &old);

    if (r != RISCV_EXCP_NONE) {
        return r;
    }
    if (get_float_exception_flags(&env->fp_status) &
        float_flag_input_denormal) {
        old |= ETSOC1_FFLAGS_DENORMAL;
    }
    if (ret) {
        *ret = old;
    }
    if (mask) {
        target_ulong val = (old & ~mask) | (new_val & mask);

        r = std->write(env, csrno, val & ~ETSOC1_FFLAGS_DENORMAL);
        if (r == RISCV_EXCP_NONE && (val & ETSOC1_FFLAGS_DENORMAL) &&
            etsoc1_pred_minion(env, csrno) == RISCV_EXCP_NONE) {
            float_raise(float_flag_input_denormal, &env->fp_status);
        }
    }
    return r;
}

/*
 * cycle/mcycle and instret/minstret: the hart's own clock and retired
 * instructions (qemu-patches/0006).  The reading instruction is already
 * counted (a CSR access ends its TB), so it is taken off: a read returns
 * the figures before it.  A write sets what the next read returns.
 *
 * The ET performance counters hpmcounter3-8 count what mhpmevent3-8
 * select (isa.md 3: 28 events).  The model counts cycles, the retired
 * instructions of either thread of the minion and the tensor
 * instructions; the cache events count nothing (no cache model).
 */
enum {
    PMU_CYCLES = 1, PMU_RETIRED0 = 2, PMU_RETIRED1 = 3,
    PMU_DCACHE_MISSES0 = 8, PMU_DCACHE_MISSES1 = 9, PMU_L2_MISS_REQ = 10,
    PMU_TL_INST = 14, PMU_TS_INST = 16, PMU_TFMA_INST = 26,
    PMU_TREDUCE_INST = 27, PMU_TQUANT_INST = 28,
};

static const int etsoc1_counter_csrs[] = {
    CSR_CYCLE, CSR_INSTRET, CSR_MCYCLE, CSR_MINSTRET,
    CSR_HPMCOUNTER3, CSR_HPMCOUNTER3 + 1, CSR_HPMCOUNTER3 + 2,
    CSR_HPMCOUNTER3 + 3, CSR_HPMCOUNTER3 + 4, CSR_HPMCOUNTER3 + 5,
    CSR_MHPMCOUNTER3, CSR_MHPMCOUNTER3 + 1, CSR_MHPMCOUNTER3 + 2,
    CSR_MHPMCOUNTER3 + 3, CSR_MHPMCOUNTER3 + 4, CSR_MHPMCOUNTER3 + 5,
    CSR_MHPMEVENT3, CSR_MHPMEVENT3 + 1, CSR_MHPMEVENT3 + 2,
    CSR_MHPMEVENT3 + 3, CSR_MHPMEVENT3 + 4, CSR_MHPMEVENT3 + 5,
};
static riscv_csr_operations etsoc1_std_counter[
    ARRAY_SIZE(etsoc1_counter_csrs)];

/*
 * L1 misses of thread @h (etsoc1-l1.c): those served by the levels in
 * [@from, ETSOC1_LVL_COUNT); its other thread updates them as it runs
 */
static uint64_t etsoc1_l1_misses(Etsoc1MinionCPU *h, unsigned from)
{
    uint64_t n = 0;
    unsigned l;

    for (l = from; l < ETSOC1_LVL_COUNT; l++) {
        n += qatomic_read(&h->et->l1.served[l]);
    }
    return n;
}

/* What PMU event @event counts on this hart so far */
static uint64_t etsoc1_pmu_value(Etsoc1MinionCPU *cpu, unsigned event)
{
    Etsoc1MinionCPU *t0 = &cpu->shire->hart[
        cpu->parent_obj.env.mhartid % ETSOC1_HARTS_PER_SHIRE & ~1];
    Etsoc1MinionCPU *h = event == PMU_RETIRED1 ? t0 + 1 : t0;

    switch (event) {
    case PMU_CYCLES:
        return etsoc1_now(cpu) -
               etsoc1_insn_cost(cpu->timing, ET_INSN_SYSTEM);
    case PMU_RETIRED0:
    case PMU_RETIRED1:
        /* the other thread's count may be a TB behind */
        return qatomic_read(&h->parent_obj.env.et_insns) - (h == cpu);
    case PMU_DCACHE_MISSES0:
    case PMU_DCACHE_MISSES1:
        return etsoc1_l1_misses(event == PMU_DCACHE_MISSES1 ? t0 + 1 : t0,
                                ETSOC1_LVL_L2);
    case PMU_L2_MISS_REQ:
        /* the minion's L1 misses of DRAM lines: its requests to the L2 */
        return etsoc1_l1_misses(t0, ETSOC1_LVL_L2) +
               etsoc1_l1_misses(t0 + 1, ETSOC1_LVL_L2) -
               qatomic_read(&t0->et->l1.served[ETSOC1_LVL_SCP]) -
               qatomic_read(&t0[1].et->l1.served[ETSOC1_LVL_SCP]);
    case PMU_TL_INST:
        return t0->et->tensor.insns[ETSOC1_TI_LOAD];
    case PMU_TS_INST:
        return t0->et->tensor.insns[ETSOC1_TI_STORE];
    case PMU_TFMA_INST:
        return t0->et->tensor.insns[ETSOC1_TI_FMA];
    case PMU_TREDUCE_INST:
        return t0->et->tensor.insns[ETSOC1_TI_REDUCE];
    case PMU_TQUANT_INST:
        return t0->et->tensor.insns[ETSOC1_TI_QUANT];
    default:
        return 0;
    }
}

static RISCVException etsoc1_rmw_counter(CPURISCVState *env, int csrno,
                                         target_ulong *ret,
                                         target_ulong new_val,
                                         target_ulong mask)
{
    unsigned k = 0, i = (csrno & 0x1f) - 3;     /* hpm counter 3-8 */
    bool cycles = csrno == CSR_CYCLE || csrno == CSR_MCYCLE;
    Etsoc1MinionCPU *cpu;
    uint64_t now, val;

    while (etsoc1_counter_csrs[k] != csrno) {
        k++;
    }
    if (etsoc1_pred_minion(env, csrno) != RISCV_EXCP_NONE ||
        !env_archcpu(env)->cfg.et_counters) {
        riscv_csr_operations *std = &etsoc1_std_counter[k];
        target_ulong old;
        RISCVException r = std->read(env, csrno, &old);

        if (r == RISCV_EXCP_NONE && ret) {
            *ret = old;
        }
        if (r == RISCV_EXCP_NONE && mask && std->write) {
            r = std->write(env, csrno, (old & ~mask) | (new_val & mask));
        }
        return r;
    }
    cpu = env_minion(env);
    if (csrno >= CSR_MHPMEVENT3 && csrno <= CSR_MHPMEVENT3 + 5) {
        /* a new event keeps the counter's value */
        now = cpu->et->pmu.event[i];
        val = (now & ~mask) | (new_val & mask);
        if (ret) {
            *ret = now;
        }
        if (mask) {
            uint64_t count = etsoc1_pmu_value(cpu, now) -
                             cpu->et->pmu.base[i];

            cpu->et->pmu.event[i] = val & 0xff;
            cpu->et->pmu.base[i] = etsoc1_pmu_value(cpu, val & 0xff) - count;
        }
        return RISCV_EXCP_NONE;
    }
    if (k >= 4) {
        now = etsoc1_pmu_value(cpu, cpu->et->pmu.event[i]) -
              cpu->et->pmu.base[i];
    } else {
        now = cycles ? etsoc1_now(cpu) -
                       etsoc1_insn_cost(cpu->timing, ET_INSN_SYSTEM)
                     : env->et_insns - 1;
    }
    if (ret) {
        *ret = now;
    }
    if (mask) {
        val = (now & ~mask) | (new_val & mask);
        if (k >= 4) {
            cpu->et->pmu.base[i] += now - val;
        } else if (cycles) {
            cpu->et->stall = val - env->et_insns - env->et_cycles;
        } else {
            env->et_insns = val;
        }
        if (k < 4) {
            etsoc1_sync_lower(cpu, true);   /* its clock may have gone back */
        }
    }
    return RISCV_EXCP_NONE;
}

/* Must run before any minion is realized: realize asks every predicate. */
void etsoc1_minion_register_csrs(void)
{
    size_t i;

    if (etsoc1_std_mie.op) {
        return;
    }
    etsoc1_csr_register(minion_csrs, ARRAY_SIZE(minion_csrs));

    for (i = 0; i < ARRAY_SIZE(etsoc1_std_counter); i++) {
        riscv_csr_operations *std = &etsoc1_std_counter[i];

        riscv_get_csr_ops(etsoc1_counter_csrs[i], std);
        riscv_set_csr_ops(etsoc1_counter_csrs[i], &(riscv_csr_operations) {
            .name = std->name, .predicate = std->predicate,
            .op = etsoc1_rmw_counter, .min_priv_ver = std->min_priv_ver,
        });
    }
    riscv_get_csr_ops(CSR_FFLAGS, &etsoc1_std_fflags);
    riscv_get_csr_ops(CSR_FCSR, &etsoc1_std_fcsr);
    riscv_set_csr_ops(CSR_FFLAGS, &(riscv_csr_operations) {
        .name = "fflags", .predicate = etsoc1_std_fflags.predicate,
        .op = etsoc1_rmw_fflags,
    });
    riscv_set_csr_ops(CSR_FCSR, &(riscv_csr_operations) {
        .name = "fcsr", .predicate = etsoc1_std_fcsr.predicate,
        .op = etsoc1_rmw_fflags,
    });
    riscv_get_csr_ops(CSR_MIE, &etsoc1_std_mie);
    riscv_get_csr_ops(CSR_MIP, &etsoc1_std_mip);
    riscv_set_csr_ops(CSR_MIE, &(riscv_csr_operations) {
        .name = "mie", .predicate = etsoc1_std_mie.predicate,
        .op = etsoc1_rmw_mie, .min_priv_ver = etsoc1_std_mie.min_priv_ver,
    });
    riscv_set_csr_ops(CSR_MIP, &(riscv_csr_operations) {
        .name = "mip", .predicate = etsoc1_std_mip.predicate,
        .op = etsoc1_rmw_mip, .min_priv_ver = etsoc1_std_mip.min_priv_ver,
    });
}

/* ---- gdb: the 256-bit f registers ---------------------------------------- */

#define ETSOC1_FVEC_XML "etsoc1-fvec.xml"

/* Same for every minion: built when the first one registers its registers. */
static char *etsoc1_fvec_xml;

static int etsoc1_gdb_get_fvec(CPURISCVState *env, GByteArray *buf, int n)
{
    int lane;

    if (n >= 32) {                              /* m0-m7 */
        return gdb_get_reg8(buf, env_minion(env)->et->m[n - 32]);
    }
    for (lane = 0; lane < ETSOC1_FLANES; lane++) {
        gdb_get_reg32(buf, etsoc1_flane(env, n, lane));
    }
    return 4 * ETSOC1_FLANES;
}

static int etsoc1_gdb_set_fvec(CPURISCVState *env, uint8_t *buf, int n)
{
    int lane;

    if (n >= 32) {
        env_minion(env)->et->m[n - 32] = buf[0];
        return 1;
    }
    for (lane = 0; lane < ETSOC1_FLANES; lane++) {
        etsoc1_set_flane(env, n, lane, ldl_le_p(buf + 4 * lane));
    }
    return 4 * ETSOC1_FLANES;
}

static const char *etsoc1_gdb_get_dynamic_xml(CPUState *cs, const char *name)
{
    if (!strcmp(name, ETSOC1_FVEC_XML)) {
        return etsoc1_fvec_xml;
    }
    return ETSOC1_MINION_CPU_GET_CLASS(cs)->parent_gdb_get_dynamic_xml(cs,
                                                                     name);
}

/*
 * fv0-fv31: all eight lanes of each f register (lane 0 is also the scalar
 * f register gdb shows in the FPU feature); m0-m7: the mask registers.
 * Register numbers are given explicitly so that tools can find them from
 * the XML alone.
 */
static void etsoc1_gdb_register_fvec(CPUState *cs)
{
    if (!etsoc1_fvec_xml) {
        GString *xml = g_string_new(
            "<?xml version=\"1.0\"?>"
            "<!DOCTYPE feature SYSTEM \"gdb-target.dtd\">"
            "<feature name=\"org.gnu.gdb.riscv.etsoc1.fvec\">"
            "<vector id=\"v8f\" type=\"ieee_single\" count=\"8\"/>"
            "<vector id=\"v8i\" type=\"int32\" count=\"8\"/>"
            "<union id=\"fvec\"><field name=\"f\" type=\"v8f\"/>"
            "<field name=\"i\" type=\"v8i\"/></union>");
        int r;

        for (r = 0; r < 32; r++) {
            g_string_append_printf(xml, "<reg name=\"fv%d\" bitsize=\"256\" "
                                   "type=\"fvec\" regnum=\"%d\"/>", r,
                                   cs->gdb_num_regs + r);
        }
        for (r = 0; r < 8; r++) {
            g_string_append_printf(xml, "<reg name=\"m%d\" bitsize=\"8\" "
                                   "type=\"uint8\" regnum=\"%d\"/>", r,
                                   cs->gdb_num_regs + 32 + r);
        }
        g_string_append(xml, "</feature>");
        etsoc1_fvec_xml = g_string_free(xml, false);
    }
    gdb_register_coprocessor(cs, etsoc1_gdb_get_fvec, etsoc1_gdb_set_fvec,
                             32 + 8, ETSOC1_FVEC_XML, 0);
}

/* ---- the CPU type -------------------------------------------------------- */

static void etsoc1_minion_cpu_realize(DeviceState *dev, Error **errp)
{
    Error *err = NULL;

    /* the machine has loaded the timing table (qemu-patches/0006) */
    RISCV_CPU(dev)->cfg.et_insn_cost =
        etsoc1_insn_cost_table(ETSOC1_MINION_CPU(dev)->timing);
    ETSOC1_MINION_CPU_GET_CLASS(dev)->parent_realize(dev, &err);
    if (err) {
        error_propagate(errp, err);
        return;
    }
    etsoc1_gdb_register_fvec(CPU(dev));
}

static void etsoc1_minion_cpu_reset(DeviceState *dev)
{
    Etsoc1MinionCPUClass *mcc = ETSOC1_MINION_CPU_GET_CLASS(dev);

    mcc->parent_reset(dev);
    /* subnormal operands read as zero (docs/isa.md, "Subnormals") */
    set_flush_inputs_to_zero(true, &RISCV_CPU(dev)->env.fp_status);
    RISCV_CPU(dev)->env.et_insns = 0;
    RISCV_CPU(dev)->env.et_cycles = 0;
    /* no line in the memo: ask the L1 (etsoc1-l1.c) */
    memset(RISCV_CPU(dev)->env.et_l1_memo, 0xff,
           sizeof(RISCV_CPU(dev)->env.et_l1_memo));
    etsoc1_sync_unpark(ETSOC1_MINION_CPU(dev));    /* as it comes out */
}

static void etsoc1_minion_cpu_init(Object *obj)
{
    RISCVCPU *cpu = RISCV_CPU(obj);

    ETSOC1_MINION_CPU(obj)->et = &ETSOC1_MINION_CPU(obj)->et_state;

    /* rv64imfc + Zicsr/Zifencei, Sv39; the base CPU's other defaults off */
    cpu->cfg.ext_a = false;
    cpu->cfg.ext_d = false;
    cpu->cfg.ext_h = false;
    cpu->cfg.ext_v = false;
    cpu->cfg.ext_zba = false;
    cpu->cfg.ext_zbb = false;
    cpu->cfg.ext_zbc = false;
    cpu->cfg.ext_zbs = false;
    cpu->cfg.ext_sstc = false;
    cpu->cfg.ext_zihintpause = false;
    cpu->cfg.pmp = false;
    cpu->cfg.mmu = true;
    cpu->cfg.ext_icsr = true;
    cpu->cfg.ext_ifencei = true;
    cpu->cfg.ext_XEtsoc1 = true;        /* qemu-patches/0004 */
    cpu->cfg.et_ftz = true;             /* qemu-patches/0005 */
    cpu->cfg.pmu_num = 6;               /* hpmcounter3..8 */
    cpu->cfg.mvendorid = (11 << 7) | 0x65;
    cpu->cfg.marchid = 0x8000000000000001ULL;
}

static Property etsoc1_minion_cpu_props[] = {
    /* qemu-patches/0004: trap (exception 30) where the chip does */
    DEFINE_PROP_BOOL("mcode-traps", Etsoc1MinionCPU,
                     parent_obj.cfg.et_mcode_trap, false),
    /* qemu-patches/0006: per-hart cycle and instruction counters */
    DEFINE_PROP_BOOL("counters", Etsoc1MinionCPU,
                     parent_obj.cfg.et_counters, true),
    DEFINE_PROP_END_OF_LIST(),
};

static void etsoc1_minion_cpu_class_init(ObjectClass *oc, void *data)
{
    static struct TCGCPUOps tcg_ops;
    CPUClass *cc = CPU_CLASS(oc);
    Etsoc1MinionCPUClass *mcc = ETSOC1_MINION_CPU_CLASS(oc);

    mcc->parent_has_work = cc->has_work;
    cc->has_work = etsoc1_minion_has_work;
    mcc->parent_gdb_get_dynamic_xml = cc->gdb_get_dynamic_xml;
    cc->gdb_get_dynamic_xml = etsoc1_gdb_get_dynamic_xml;
    device_class_set_props(DEVICE_CLASS(oc), etsoc1_minion_cpu_props);
    device_class_set_parent_realize(DEVICE_CLASS(oc), etsoc1_minion_cpu_realize,
                                    &mcc->parent_realize);
    device_class_set_parent_reset(DEVICE_CLASS(oc), etsoc1_minion_cpu_reset,
                                  &mcc->parent_reset);

    /* tcg_ops is const and shared with every RISC-V CPU: use our own copy */
    tcg_ops = *cc->tcg_ops;
    mcc->parent_do_interrupt = tcg_ops.do_interrupt;
    mcc->parent_exec_interrupt = tcg_ops.cpu_exec_interrupt;
    tcg_ops.do_interrupt = etsoc1_minion_do_interrupt;
    tcg_ops.cpu_exec_interrupt = etsoc1_minion_exec_interrupt;
    assert(!tcg_ops.cpu_exec_exit);     /* RISC-V has none to chain */
    assert(!tcg_ops.cpu_exec_enter);
    tcg_ops.cpu_exec_enter = etsoc1_minion_exec_enter;
    tcg_ops.cpu_exec_exit = etsoc1_minion_exec_exit;
    cc->tcg_ops = &tcg_ops;
}

static const TypeInfo etsoc1_minion_cpu_info = {
    .name = TYPE_ETSOC1_MINION_CPU,
    .parent = TYPE_RISCV_CPU_BASE64,
    .instance_size = sizeof(Etsoc1MinionCPU),
    .instance_init = etsoc1_minion_cpu_init,
    .class_size = sizeof(Etsoc1MinionCPUClass),
    .class_init = etsoc1_minion_cpu_class_init,
};

static void etsoc1_minion_register_types(void)
{
    type_register_static(&etsoc1_minion_cpu_info);
}

type_init(etsoc1_minion_register_types)
