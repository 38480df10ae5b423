/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the minion hart, a RISC-V CPU subclass
 * (etsoc1-minion.c), and its ET state; the only etsoc1 header that includes
 * target/riscv headers.
 *
 * QEMU interface of a minion ("etsoc1-minion-riscv-cpu", 64 per shire,
 * children "hart[N]" of their shire):
 *  + its ET state is its et_state (Etsoc1HartEt), reset and migrated by
 *    its shire
 *  + it halts in the ET waits (Etsoc1Wait) and is woken by the event
 *    (docs/architecture.md, "How a hart waits")
 *  + its clock, etsoc1_now(), is its own emulated cycle count
 */

#ifndef HW_ETSOC1_MINION_H
#define HW_ETSOC1_MINION_H

#include "target/riscv/cpu.h"
#include "target/riscv/etsoc1/etsoc1-insn-class.h"
#include "fpu/softfloat.h"
#include "qemu/main-loop.h"
#include "qemu/processor.h"
#include "hw/etsoc1/etsoc1-map.h"
#include "hw/etsoc1/etsoc1-timing.h"
#include "hw/etsoc1/etsoc1-sync.h"
#include "hw/etsoc1/etsoc1-trace.h"
#include "hw/etsoc1/etsoc1-l1.h"

typedef struct Etsoc1ShireState Etsoc1ShireState;

/*
 * The cause with which a helper or CSR halts its hart (etsoc1_halt_cause):
 * at or above EXCP_INTERRUPT, so cpu_exec() leaves with it at once,
 * without do_interrupt() and the BQL.
 */
#define ETSOC1_EXCP_WAIT EXCP_HLT

#define ETSOC1_FLANES 8     /* 32-bit lanes of a 256-bit f register */
/*
 * Credit arrival times kept per counter in the hart's own slots: enough
 * for a credit from every shire of the chip at once (a chip barrier)
 * without an allocation.  More distinct times than that go to a list
 * that grows (Etsoc1HartCredits.more).
 */
#define ETSOC1_FCC_SLOTS 40
/*
 * At most this many more (both counters): a chip-wide fan-in is 2,175
 * senders; past it (a guest that floods a hart that takes nothing) new
 * arrivals merge into the latest, so that memory stays bounded.
 */
#define ETSOC1_FCC_MORE_MAX 4096

/* Tensor instructions the performance counters count */
enum {
    ETSOC1_TI_LOAD, ETSOC1_TI_STORE, ETSOC1_TI_FMA, ETSOC1_TI_REDUCE,
    ETSOC1_TI_QUANT, ETSOC1_TI_COUNT
};
/* minion_feature ESR bits: each takes a feature away (isa.md section 3) */
#define MINION_FEATURE_GFX_OFF          (1u << 0)
#define MINION_FEATURE_ML_OFF           (1u << 1)
#define MINION_FEATURE_U_CACHEOPS_OFF   (1u << 2)
#define MINION_FEATURE_U_SCP_OFF        (1u << 3)
#define MINION_FEATURE_LOCK_VA_OFF      (1u << 5)

/* When the hart's tensor unit finishes or frees each part (timing model) */
typedef enum Etsoc1TensorT {
    ETSOC1_TT_LOAD0,        /* TensorLoad id 0 done (tensor_wait 0) */
    ETSOC1_TT_LOAD1,        /* id 1 (tensor_wait 1) */
    ETSOC1_TT_LOADB,        /* the TenB load */
    ETSOC1_TT_LOAD_L2,      /* TensorLoadL2 (tensor_wait 2, 3) */
    ETSOC1_TT_LOAD_FREE,    /* the load path takes the next load */
    ETSOC1_TT_FMA,          /* the last TensorFMA done (tensor_wait 7) */
    ETSOC1_TT_FMA_FREE,     /* the FMA pipeline takes the next one */
    ETSOC1_TT_STORE,        /* tensor_wait 8 */
    ETSOC1_TT_QUANT,        /* tensor_wait 10 */
    ETSOC1_TT_FREG,         /* the f registers are written by then */
    ETSOC1_TT_PREFETCH0,    /* prefetch_va id 0 done (tensor_wait 4) */
    ETSOC1_TT_PREFETCH1,    /* id 1 (tensor_wait 5) */
    ETSOC1_TT_CACHEOP,      /* evict_va/flush_va done (tensor_wait 6) */
    ETSOC1_TT_COUNT
} Etsoc1TensorT;

/* Tensor CSRs (isa.md section 3) */
#define ETSOC1_TLOAD_FSMS  3    /* TensorLoad id 0, id 1 and TenB */
#define ETSOC1_COOP_GROUPS 32

typedef enum Etsoc1CoopState {
    ETSOC1_COOP_IDLE,
    ETSOC1_COOP_WAITING,    /* issued; partners have not all issued */
    ETSOC1_COOP_RELEASED,   /* every partner issued: the load may run */
} Etsoc1CoopState;
/*
 * A hart's credits (the fcc CSRs): the two counters, and the arrival
 * times of its pending credits as (time, credits) pairs: a wait takes the
 * earliest.  No arrival is ever merged into another of a different time:
 * which ones would merge depends on the order in which the host delivers
 * them, and a hart that collects credits from thousands of senders
 * (allsum's hart 0) would end at a different cycle from run to run.
 * Pairs that find the slots full go to @more, which grows as needed (at
 * most one pair per pending credit, bounded by the 16-bit counters).
 */
typedef struct Etsoc1CreditMore {
    uint64_t at;
    uint16_t n;
    uint8_t counter;
} Etsoc1CreditMore;

typedef struct Etsoc1HartCredits {
    uint16_t fcc[2];        /* fast credit counters */
    QemuSpin lock;
    uint64_t slot_at[2][ETSOC1_FCC_SLOTS];
    uint16_t slot_n[2][ETSOC1_FCC_SLOTS];
    Etsoc1CreditMore *more;
    int32_t nmore;
    uint32_t more_cap;
} Etsoc1HartCredits;

/* The tensor unit as one hart sees it (etsoc1-tensor.c) */
typedef struct Etsoc1HartTensor {
    uint64_t error;         /* tensor_error: sticky error bits (CSR 0x808) */
    uint64_t mask;          /* tensor_mask (CSR 0x805) */
    uint64_t conv_size;     /* CSR 0x802, which recomputes mask */
    uint64_t conv_ctrl;     /* CSR 0x803, likewise */
    uint32_t coop;          /* tensor_coop (CSR 0x804) */
    uint64_t t[ETSOC1_TT_COUNT];        /* the unit's times (Etsoc1TensorT) */
    uint64_t insns[ETSOC1_TI_COUNT];    /* instructions issued, for the PMU */
} Etsoc1HartTensor;

/* Cooperative TensorLoads, one per load FSM (id 0, id 1, TenB) */
typedef struct Etsoc1HartCoop {
    uint8_t state[ETSOC1_TLOAD_FSMS];   /* Etsoc1CoopState */
    uint8_t wait;                       /* FSMs the blocked hart waits for */
    uint16_t mask[ETSOC1_TLOAD_FSMS];   /* rows, captured at issue */
    uint64_t ctl[ETSOC1_TLOAD_FSMS];
    uint64_t x31[ETSOC1_TLOAD_FSMS];
    uint32_t tcoop[ETSOC1_TLOAD_FSMS];  /* its group, tensor_coop */
} Etsoc1HartCoop;

/* The ET performance counters hpm 3-8: their events and bases */
typedef struct Etsoc1HartPmu {
    uint8_t event[6];
    uint64_t base[6];
} Etsoc1HartPmu;

/*
 * Polls (etsoc1-sync.c, docs/timing.md "Polls"): the last value the hart
 * read or wrote with a global operation, and at which address; what a
 * halted poll waits for.
 */
typedef struct Etsoc1HartPoll {
    bool valid;
    uint64_t pa;
    uint64_t val;
    uint32_t gen;           /* the line's write count when it halted */
    uint32_t count;         /* reads in a row that saw val */
    /* not migrated: rebuilt when a loaded poll runs again */
    struct Etsoc1LineClock *lc;
    uint32_t slot;
    uint8_t naps;           /* naps in a row with no write: backs off */
    bool plain;             /* a halted poll is a plain one (below) */
    /*
     * A halted plain poll: when its next read would reach the word (its
     * read's arrival plus the spacing of its last two reads); the scan
     * lets it go once every hart that may write is past that.
     */
    uint64_t next;
    /* the time the scan chose for a write no line clock saw (a let-go) */
    uint64_t bound;
    /*
     * Plain polls (etsoc1_sync_plain_read): the last word the hart read
     * through a path the gate does not order, and its value (not
     * migrated: the first read after a load is never a poll).
     */
    bool plain_valid;
    uint64_t plain_pa;
    uint64_t plain_arrive;  /* when that read reached the word */
    uint8_t plain_val[32];  /* a word, or a coherent vector load's 8 lanes */
    uint8_t plain_size;
    /*
     * a read the hart's own helper makes (a tensor load, the lanes of a
     * coherent vector load, which polls as a whole): not a poll
     */
    bool helper_access;
} Etsoc1HartPoll;

/* A wait at the gate or on a poll (etsoc1-sync.c) */
typedef struct Etsoc1HartGate {
    uint64_t t;             /* the read's clock when it halted */
    uint8_t released;       /* how the gate or poll bound let it go */
    int64_t halted_ms;      /* host time of the halt (idle release) */
    Etsoc1GateAccess access;    /* at the gate: what it waits to do */
    /* the hart at the gate it lets go when its access is done */
    struct Etsoc1MinionCPU *next;
    uint32_t next_seq;      /* ... in that hart's gate wait number ... */
    uint32_t wait_seq;      /* gate and poll waits so far (gate_lock) */
    /* the hart that last kept this one at the gate: asked first (a hint) */
    struct Etsoc1MinionCPU *hint;
} Etsoc1HartGate;

/* Per-hart ET state that is not part of RISCVCPU (the minion CPU's et_state) */
typedef struct Etsoc1HartEt {
    uint32_t wait;          /* Etsoc1Wait */
    /* a CSR or helper raised ETSOC1_EXCP_WAIT: halt when cpu_exec() ends */
    bool halting;
    /* beside wait: the gate's scans read both, and stall, of every hart */
    Etsoc1HartGate gate;
    uint64_t stall;         /* cycles the timing model charged this hart */
    uint64_t mbusaddr;      /* address of the last bus error (CSR 0x7d5) */
    uint64_t stall_pc;      /* pc after the last stall CSR write */
    uint8_t m[8];           /* packed mask registers m0-m7 */
    uint8_t gsc_progress;   /* CSR 0x840: restart lane of a gather/scatter */
    uint64_t validation[4]; /* DV hook CSRs 0x8d0-0x8d3 */
    Etsoc1HartL1 l1;        /* its L1 tags (etsoc1-l1.c) */
    uint64_t ipi_at;        /* arrival of the latest IPI */
    Etsoc1HartCredits credit;
    Etsoc1HartTensor tensor;
    Etsoc1HartCoop coop;
    Etsoc1HartPmu pmu;
    Etsoc1HartPoll poll;
    /*
     * A TensorLoad from another shire's scratchpad that has taken its
     * source shire's out-port (etsoc1_tload_port) and waits at the gate
     * for its own shire's in-port: when it reached the out-port and when
     * the port took it (0: none).  The CSR write runs again when the gate
     * lets the hart go and must not take the out-port twice.
     */
    struct {
        uint64_t out;
        uint64_t go;
    } tload_port;
    /*
     * What the hart was last charged for a remote scratchpad access
     * (etsoc1-l3.c): the instruction (a host return address) and its
     * clock right after; the other lanes and rows of that instruction
     * cost nothing more.  Not migrated: only a repeat could skip.
     */
    struct {
        uintptr_t insn;
        uint64_t now;
    } scp_last;
    /*
     * Host state (etsoc1-sync.c, "Host inputs"): the time of this hart's
     * latest look at it or pass of the gate, for the stamping of a host
     * input to come after, and the time at which it waits in
     * ETSOC1_WAIT_HOST.  Not migrated: a hart in that wait looks again.
     */
    struct {
        uint64_t obs_t;
        uint64_t t;
    } host;
} Etsoc1HartEt;

#define TYPE_ETSOC1_MINION_CPU RISCV_CPU_TYPE_NAME("etsoc1-minion")
/*
 * 4 KiB blocks that one array of a hart's copy of the L2 tags spans at
 * most: an entry of 8 bytes a line of the largest L2 (the shire's SRAM),
 * one more for an array that does not start on a block
 */
#define ETSOC1_L2_COPY_BLOCKS \
    (ETSOC1_SCP_SIZE / ETSOC1_LINE * sizeof(uint64_t) / (4 * KiB) + 1)

OBJECT_DECLARE_TYPE(Etsoc1MinionCPU, Etsoc1MinionCPUClass, ETSOC1_MINION_CPU)

struct Etsoc1MinionCPU {
    RISCVCPU parent_obj;
    Etsoc1ShireState *shire;
    Etsoc1HartEt *et;       /* &et_state */
    /* the hart's ET state, reset and migrated by its shire */
    Etsoc1HartEt et_state;
    const Etsoc1Timing *timing;     /* the chip's, from the shire */
    /*
     * Its copy of its shire's L2 tags (etsoc1-l1.c, made at its first
     * access, of the L2's size then): l2_n entries of tags and of LRU
     * stamps; only the hart's own thread touches them
     */
    uint64_t *l2_tag;
    uint64_t *l2_used;
    uint32_t l2_n;
    /*
     * Made by its first access (not by a migration's load, which writes
     * them all): which 4 KiB blocks of each array it has written yet
     * (etsoc1-l1.c, l2_touch)
     */
    bool l2_lazy;
    unsigned long l2_written[BITS_TO_LONGS(2 * ETSOC1_L2_COPY_BLOCKS)];
};

/*
 * Take the BQL unless this thread holds it (a vCPU thread runs without
 * it, a device callback with it); true if taken here, for
 * etsoc1_bql_unlock().
 */
static inline bool etsoc1_bql_lock(void)
{
    if (qemu_mutex_iothread_locked()) {
        return false;
    }
    qemu_mutex_lock_iothread();
    return true;
}

static inline void etsoc1_bql_unlock(bool taken)
{
    if (taken) {
        qemu_mutex_unlock_iothread();
    }
}

/*
 * Take @lock, one of the model's own that TCG threads hold for a few
 * microseconds (gate_lock, scan_lock, fabric_lock, port_lock, flb_lock).
 * Spin a while first, as glibc's adaptive mutexes do: a futex sleep and
 * the wake at its unlock cost more host time than the wait (on a 2-core
 * Firecracker host they were a seventh of probes/ring-bw's host CPU on
 * fabric_lock alone).  Bounded, so a holder that the host descheduled (a
 * thread per hart) costs at most the spin.
 */
#define ETSOC1_LOCK_SPINS 200

static inline void etsoc1_mutex_lock(QemuMutex *lock)
{
    int i;

    for (i = 0; i < ETSOC1_LOCK_SPINS; i++) {
        if (!qemu_mutex_trylock(lock)) {
            return;
        }
        cpu_relax();
    }
    qemu_mutex_lock(lock);
}

/*
 * The CPU of a minion hart, without QOM's checked cast: for the loops
 * over every hart that the gate and the hang detector run (the checked
 * cast is a type look-up).
 */
static inline CPUState *etsoc1_minion_cs(Etsoc1MinionCPU *cpu)
{
    return &cpu->parent_obj.parent_obj;
}

struct Etsoc1MinionCPUClass {
    RISCVCPUClass parent_class;
    bool (*parent_has_work)(CPUState *cs);
    void (*parent_do_interrupt)(CPUState *cs);
    bool (*parent_exec_interrupt)(CPUState *cs, int interrupt_request);
    DeviceRealize parent_realize;
    DeviceReset parent_reset;
    const char *(*parent_gdb_get_dynamic_xml)(CPUState *cs, const char *name);
};
/*
 * Lane @lane of f register @r: lane 0 is fpr[r], which QEMU keeps NaN-boxed
 * (a guest without D cannot see the box); lanes 1-7 are env->et_fhi.
 */
static inline uint32_t etsoc1_flane(CPURISCVState *env, unsigned r,
                                    unsigned lane)
{
    return lane ? env->et_fhi[r][lane - 1] : (uint32_t)env->fpr[r];
}

static inline void etsoc1_set_flane(CPURISCVState *env, unsigned r,
                                    unsigned lane, uint32_t v)
{
    if (lane) {
        env->et_fhi[r][lane - 1] = v;
    } else {
        env->fpr[r] = MAKE_64BIT_MASK(32, 32) | v;
    }
}

/* RISC-V rounding-mode field (0-4) as a softfloat mode; 5-7 are not modes. */
/*
 * The minion FPU returns a zero of the result's sign, raising underflow
 * and inexact, for a result that is tiny after rounding: one that,
 * rounded to the precision of its format (@mant mantissa, @exp exponent
 * bits) with an unbounded exponent, lies below the smallest normal.
 * That is a subnormal result, or the smallest normal reached only by
 * rounding, which softfloat (tininess after rounding) marks with the
 * underflow flag: ETSOC1_FTZ runs the operation with that flag clear to
 * see it.  Subnormal operands read as zero through flush_inputs_to_zero.
 */
static inline uint32_t etsoc1_ftz(uint32_t r, unsigned mant, unsigned exp,
                                  float_status *st)
{
    bool subnormal = !extract32(r, mant, exp) && extract32(r, 0, mant);
    bool rounded_up = extract32(r, mant, exp) == 1 &&
                      !extract32(r, 0, mant) &&
                      (get_float_exception_flags(st) & float_flag_underflow);

    if (subnormal || rounded_up) {
        float_raise(float_flag_underflow | float_flag_inexact, st);
        return r & (1u << (mant + exp));
    }
    return r;
}

/* @expr, a softfloat operation on @st, with the minion's flush to zero */
#define ETSOC1_FTZ(expr, mant, exp, st) ({                                  \
        float_status *st_ = (st);                                           \
        int uf_ = get_float_exception_flags(st_) & float_flag_underflow;    \
        uint32_t r_;                                                        \
                                                                            \
        set_float_exception_flags(get_float_exception_flags(st_) & ~uf_,    \
                                  st_);                                     \
        r_ = etsoc1_ftz((expr), mant, exp, st_);                            \
        float_raise(uf_, st_);                                              \
        r_;                                                                 \
    })

#define ETSOC1_RM_VALID(rm) ((rm) <= 4)
static inline FloatRoundMode etsoc1_rm(unsigned rm)
{
    static const FloatRoundMode modes[] = {
        float_round_nearest_even, float_round_to_zero, float_round_down,
        float_round_up, float_round_ties_away,
    };

    return modes[rm];
}
/*
 * A hart's own clock, in minion cycles: its instructions (counted per TB
 * by qemu-patches/0006, so inside a helper the rest of the TB is already
 * in) plus the stalls the timing model charged it.  Only the hart's own
 * thread moves it.
 */
static inline uint64_t etsoc1_now(Etsoc1MinionCPU *cpu)
{
    CPURISCVState *env = &cpu->parent_obj.env;

    return env->et_insns + env->et_cycles + cpu->et->stall;
}

/* The hart's number on the chip (mhartid) */
static inline uint32_t etsoc1_hart(Etsoc1MinionCPU *cpu)
{
    return cpu->parent_obj.env.mhartid;
}

static inline void etsoc1_stall(Etsoc1MinionCPU *cpu, uint64_t cycles)
{
    cpu->et->stall += cycles;
}

uint64_t etsoc1_arrival(Etsoc1MinionCPU *sender, double latency);

/* Causality: a hart that receives or wakes at @t is at least at @t. */
static inline void etsoc1_advance_to(Etsoc1MinionCPU *cpu, uint64_t t)
{
    uint64_t now = etsoc1_now(cpu);

    if (t > now) {
        cpu->et->stall += t - now;
    }
}

bool etsoc1_minion_va_to_pa(Etsoc1MinionCPU *cpu, target_ulong va,
                            MMUAccessType access, hwaddr *pa);
void etsoc1_minion_wake(Etsoc1MinionCPU *cpu);
bool etsoc1_minion_wait_over(Etsoc1MinionCPU *cpu, uint32_t why);
void etsoc1_minion_bus_error(Etsoc1MinionCPU *cpu, hwaddr addr);
Etsoc1MinionCPU *etsoc1_current_minion(void);
Etsoc1MinionCPU *etsoc1_minion_of(CPUState *cs);

/* Every minion hart: the service processor is a CPU, but not a minion. */
#define ETSOC1_MINION_FOREACH(cs, cpu) \
    CPU_FOREACH(cs) \
        if (!((cpu) = etsoc1_minion_of(cs))) { } else
uint32_t etsoc1_current_hartid(void);
bool etsoc1_minion_stalled_in_u(Etsoc1MinionCPU *cpu);
void etsoc1_minion_redirect(Etsoc1MinionCPU *cpu, uint64_t pc);

RISCVException etsoc1_block(Etsoc1MinionCPU *cpu, Etsoc1Wait why);
int etsoc1_halt_cause(Etsoc1MinionCPU *cpu);

#endif
