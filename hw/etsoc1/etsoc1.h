/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: machine, shire and minion CPU types
 *
 * QEMU interface of the machine ("etsoc1"):
 *  + property "shires": number of minion shires (1..34); 0 derives it from
 *    -smp, which must then be a multiple of 64 harts
 *  + property "reset-pc": reset value of every neighbourhood's minion_boot
 *  + -m: DRAM size at 0x80_0000_0000 (allocated lazily by the host)
 *  + serial_hd(0), serial_hd(1): PU UART0 and UART1
 *
 * QEMU interface of a shire ("etsoc1-shire", one per minion shire):
 *  + property "shire-id"
 *  + 64 child harts "hart[N]" of type etsoc1-minion-riscv-cpu
 *  + MMIO: esr[pp] for pp = 0..3, 4 MiB each (the shire's ESR space at
 *    privilege pp), and scp, its L2 scratchpad RAM
 */

#ifndef HW_ETSOC1_ETSOC1_H
#define HW_ETSOC1_ETSOC1_H

#include "qemu/units.h"
#include "hw/boards.h"
#include "hw/sysbus.h"
#include "hw/cpu/cluster.h"
#include "target/riscv/cpu.h"
#include "qom/object.h"
#include "fpu/softfloat.h"
#include "exec/memopidx.h"

/* Topology (isa.md section 1). */
#define ETSOC1_MAX_SHIRES        34     /* compute 0-31, master 32, spare 33 */
#define ETSOC1_NEIGHS_PER_SHIRE  4
#define ETSOC1_MINIONS_PER_NEIGH 8
#define ETSOC1_MINIONS_PER_SHIRE 32
#define ETSOC1_THREADS           2
#define ETSOC1_HARTS_PER_SHIRE   64
#define ETSOC1_HARTS_PER_NEIGH   16
#define ETSOC1_MAX_HARTS         (ETSOC1_MAX_SHIRES * ETSOC1_HARTS_PER_SHIRE)
#define ETSOC1_LOCAL_SHIRE       0xff   /* ESR shire field: "my shire" */
#define ETSOC1_SCP_LOCAL_SHIRE   0x7f   /* L2 SCP format-0 shire field */

/* minion_boot at reset (sysemu esrs.cpp, RESET_PC). */
#define ETSOC1_DEFAULT_RESET_PC  0x8000001000ULL

/* Physical memory map (isa.md section 2); etsoc1_memmap[] in etsoc1.c. */
enum {
    ETSOC1_MAXION,
    ETSOC1_PU_IO,
    ETSOC1_PU_UART0,
    ETSOC1_PU_UART1,
    ETSOC1_PU_MBOX,
    ETSOC1_SP,
    ETSOC1_SCP,         /* format 0: one 8 MiB window per shire */
    ETSOC1_SCP_LINEAR,  /* format 1: 64-byte lines interleaved over shires */
    ETSOC1_ESR,
    ETSOC1_PCIE,
    ETSOC1_DRAM,
    ETSOC1_DRAM_UC,     /* uncacheable alias of DRAM */
    ETSOC1_PU_PLIC,     /* interrupts of the master shire */
    ETSOC1_SP_SRAM,     /* the service processor's code and data */
    ETSOC1_SP_PLIC,
    ETSOC1_SP_UART0,
    ETSOC1_PU_TIMER_REGS,
};
extern const MemMapEntry etsoc1_memmap[];

/* Is physical address @pa in region @region of etsoc1_memmap? */
static inline bool etsoc1_in(int region, hwaddr pa)
{
    return pa - etsoc1_memmap[region].base < etsoc1_memmap[region].size;
}

#define ETSOC1_SCP_WINDOW        (8 * MiB)  /* address space per shire */
#define ETSOC1_SCP_SIZE          (4 * MiB)  /* SRAM behind each window */

/* The shire whose format-0 scratchpad window holds @pa (in ETSOC1_SCP) */
static inline unsigned etsoc1_scp_shire(hwaddr pa)
{
    return (pa - etsoc1_memmap[ETSOC1_SCP].base) / ETSOC1_SCP_WINDOW;
}
#define ETSOC1_ESR_PP_SHIFT      30
#define ETSOC1_ESR_SHIRE_SHIFT   22
#define ETSOC1_ESR_WINDOW        (4 * MiB)  /* one shire at one PP */
#define ETSOC1_MEMSHIRE_FIRST    232
#define ETSOC1_MEMSHIRES         8
#define ETSOC1_IO_SHIRE          254

/* ESR address of register @off of @shire at privilege @pp. */
#define ETSOC1_ESR_ADDR(pp, shire, off) \
    (0x100000000ULL | ((uint64_t)(pp) << ETSOC1_ESR_PP_SHIFT) | \
     ((uint64_t)(shire) << ETSOC1_ESR_SHIRE_SHIFT) | (off))

/* Privilege levels as encoded in ESR address bits [31:30]. */
enum {
    ETSOC1_PP_U = 0,
    ETSOC1_PP_S = 1,
    ETSOC1_PP_DEBUG = 2,    /* reachable by the service processor only */
    ETSOC1_PP_M = 3,
};

/* Local interrupts beyond the standard ones (isa.md section 3). */
#define ETSOC1_IRQ_BAD_IPI_REDIRECT 16
#define ETSOC1_IRQ_ICACHE_ECC       19
#define ETSOC1_IRQ_BUS_ERROR        23
#define ETSOC1_LOCAL_IRQS ((1ULL << ETSOC1_IRQ_BAD_IPI_REDIRECT) | \
                           (1ULL << ETSOC1_IRQ_ICACHE_ECC) | \
                           (1ULL << ETSOC1_IRQ_BUS_ERROR))

/* The private cause with which a helper or CSR halts its hart */
#define ETSOC1_EXCP_WAIT 24

/* What a halted hart waits for (docs/architecture.md, "How a hart waits"). */
typedef enum Etsoc1Wait {
    ETSOC1_WAIT_NONE = 0,
    ETSOC1_WAIT_FCC0,       /* fcc CSR: a credit on counter 0 */
    ETSOC1_WAIT_FCC1,       /* fcc CSR: a credit on counter 1 */
    ETSOC1_WAIT_STOPPED,    /* validation0 PASS: never runs again */
    ETSOC1_WAIT_STALL,      /* stall CSR: like WFI, resumes after the CSR */
    ETSOC1_WAIT_REDUCE,     /* the minion's tensor transfer to complete */
    ETSOC1_WAIT_COOP,       /* the partners of a cooperative TensorLoad */
    ETSOC1_WAIT_POLL,       /* a poll: a write to the line it re-reads */
    ETSOC1_WAIT_GATE,       /* a global read: every other hart to reach it */
} Etsoc1Wait;

#define ETSOC1_FLANES 8     /* 32-bit lanes of a 256-bit f register */
/*
 * Credit arrival times kept per counter: enough for a credit from every
 * shire of the chip at once (a chip barrier), so that which arrivals
 * merge never depends on the host's order.
 */
#define ETSOC1_FCC_SLOTS 40

/* Tensor instructions the performance counters count */
enum {
    ETSOC1_TI_LOAD, ETSOC1_TI_STORE, ETSOC1_TI_FMA, ETSOC1_TI_REDUCE,
    ETSOC1_TI_QUANT, ETSOC1_TI_COUNT
};

/* tensor_error (CSR 0x808) bits, sticky (isa.md section 3) */
#define ETSOC1_TENSOR_ERROR_TRANSFORM   (1u << 1)   /* bad TensorLoad op */
#define ETSOC1_TENSOR_ERROR_FCC_WRAP    (1u << 3)   /* credit overflow */
#define ETSOC1_TENSOR_ERROR_SCP_OFF     (1u << 4)   /* L1 SCP disabled */
#define ETSOC1_TENSOR_ERROR_TENB        (1u << 6)   /* TenB/TFMA pairing */
#define ETSOC1_TENSOR_ERROR_FAULT       (1u << 7)   /* memory fault */
#define ETSOC1_TENSOR_ERROR_STORE       (1u << 8)   /* bad coop store */
#define ETSOC1_TENSOR_ERROR_SEND_RECV   (1u << 9)   /* bad tensor send/recv */

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
#define ETSOC1_L1SCP_LINES 48   /* 64-byte L1 scratchpad lines per minion */

/* Tensor CSRs (isa.md section 3) */
#define ETSOC1_TLOAD_FSMS  3    /* TensorLoad id 0, id 1 and TenB */
#define ETSOC1_COOP_GROUPS 32

typedef enum Etsoc1CoopState {
    ETSOC1_COOP_IDLE,
    ETSOC1_COOP_WAITING,    /* issued; partners have not all issued */
    ETSOC1_COOP_RELEASED,   /* every partner issued: the load may run */
} Etsoc1CoopState;

#define ETSOC1_CSR_TENSOR_FMA   0x801
#define ETSOC1_CSR_TENSOR_QUANT 0x806
#define ETSOC1_CSR_TENSOR_LOAD  0x83f
#define ETSOC1_CSR_TENSOR_LOAD_L2 0x85f
#define ETSOC1_CSR_TENSOR_STORE 0x87f

/*
 * A global access waiting at the gate (etsoc1-sync.c): two on one line
 * clock slot go one at a time.  Credit waits have none (slot NULL): only
 * their own counter sees them.
 */
typedef struct Etsoc1GateAccess {
    const void *slot;       /* &lc->gen[slot] */
} Etsoc1GateAccess;

/* Per-hart ET state that is not part of RISCVCPU; migrated by the shire. */
typedef struct Etsoc1HartEt {
    uint32_t wait;          /* Etsoc1Wait */
    uint16_t fcc[2];        /* fast credit counters */
    uint64_t tensor_error;  /* sticky error bits (CSR 0x808) */
    uint64_t mbusaddr;      /* address of the last bus error (CSR 0x7d5) */
    uint64_t stall_pc;      /* pc after the last stall CSR write */
    uint64_t tensor_mask;   /* CSR 0x805 */
    uint64_t tensor_conv_size;  /* CSR 0x802, which recomputes tensor_mask */
    uint64_t tensor_conv_ctrl;  /* CSR 0x803, likewise */
    uint8_t m[8];           /* packed mask registers m0-m7 */
    uint8_t gsc_progress;   /* CSR 0x840: restart lane of a gather/scatter */
    uint64_t validation[4]; /* DV hook CSRs 0x8d0-0x8d3 */
    uint64_t stall;         /* cycles the timing model charged this hart */
    /*
     * Arrival times of this hart's pending credits, per counter, in a few
     * slots of (time, credits): a wait takes the earliest.  Full slots
     * merge into the latest one, which can only delay a wait.
     */
    QemuSpin fcc_lock;
    uint64_t fcc_at[2][ETSOC1_FCC_SLOTS];
    uint16_t fcc_n[2][ETSOC1_FCC_SLOTS];
    uint64_t ipi_at;        /* arrival of the latest IPI */
    uint64_t t_tensor[ETSOC1_TT_COUNT]; /* tensor unit times (Etsoc1TensorT) */
    /* ET performance counters: tensor instructions issued, hpm 3-8 */
    uint64_t tensor_insns[ETSOC1_TI_COUNT];
    uint8_t pmu_event[6];
    uint64_t pmu_base[6];
    /* cooperative TensorLoads, one per load FSM (id 0, id 1, TenB) */
    uint32_t tensor_coop;   /* CSR 0x804 */
    uint8_t coop_state[ETSOC1_TLOAD_FSMS];  /* Etsoc1CoopState */
    uint8_t coop_wait;      /* FSMs the blocked hart waits for */
    uint16_t coop_mask[ETSOC1_TLOAD_FSMS];  /* rows, captured at issue */
    uint64_t coop_ctl[ETSOC1_TLOAD_FSMS];
    uint64_t coop_x31[ETSOC1_TLOAD_FSMS];
    /*
     * Polls (etsoc1-sync.c, docs/timing.md "Polls"): the last value the
     * hart read or wrote with a global operation, and at which address;
     * what a halted poll or gated read waits for.
     */
    bool poll_valid;
    uint64_t poll_pa;
    uint64_t poll_val;
    uint64_t sync_t;        /* the read's clock when it halted */
    uint8_t sync_released;  /* the wait the gate or poll bound let go */
    uint32_t poll_gen;      /* the line's write count when it halted */
    uint32_t poll_count;    /* reads in a row that saw poll_val */
    /* not migrated: rebuilt when a loaded poll runs again */
    struct Etsoc1LineClock *poll_lc;
    uint32_t poll_slot;
    int64_t sync_halted_ms; /* host time of the halt (idle release) */
    uint8_t poll_naps;      /* naps in a row with no write: backs off */
    Etsoc1GateAccess sync_at;   /* at the gate: what it waits to do */
    /* the hart at the gate it lets go when its access is done */
    struct Etsoc1MinionCPU *sync_next;
    uint32_t sync_next_seq; /* ... in that hart's gate wait number ... */
    uint32_t gate_seq;      /* gate waits so far (under gate_lock) */
    /*
     * Plain polls (etsoc1_sync_plain_read): the last word the hart read
     * through a path the gate does not order, and its value (not
     * migrated: the first read after a load is never a poll); a halted
     * one is such a poll (else an atomic's); the time the scan let it go
     * at, to which its next read's arrival moves.
     */
    bool plain_valid;
    uint64_t plain_pa;
    uint8_t plain_val[32];  /* a word, or a coherent vector load's 8 lanes */
    uint8_t plain_size;
    bool poll_plain;
    uint64_t poll_bound;
    /*
     * a read the hart's own helper makes (a tensor load, the lanes of a
     * coherent vector load, which polls as a whole): not a poll
     */
    bool helper_access;
} Etsoc1HartEt;

enum { ETSOC1_REDUCE_IDLE, ETSOC1_REDUCE_PENDING };

/* A minion's tensor_reduce state machine (one per minion, thread 0). */
typedef struct Etsoc1Reduce {
    uint8_t state;
    uint8_t op;             /* send or recv, after tree pairing */
    uint8_t count, start, func, frm;
    bool tree;              /* auto-pair (tree) mode: a ready per level */
    uint32_t partner;       /* global minion id */
    /* handshake=rtl: the one incoming ready bit */
    bool ready;
    uint32_t ready_from;    /* diagnosis only: the hardware has no source */
    bool lost;              /* a ready was lost here: who, for the report */
    uint32_t lost_first, lost_from;
    uint64_t t_issue;       /* minion clock when the operation was issued */
    uint64_t t_done;        /* ... and when it completes (timing model) */
    uint64_t t_send_free;   /* when the minion's send path takes another */
} Etsoc1Reduce;

/*
 * A fabric event: a credit, a ready, a tensor message or an IPI.  Every
 * delivery goes through one of these, so that the timing model can stamp
 * it (sender's time plus path latency) and the receiver can take
 * max(own time, arrival).  Until then time is 0.
 */
typedef enum Etsoc1EventKind {
    ETSOC1_EV_CREDIT,
    ETSOC1_EV_READY,
    ETSOC1_EV_MESSAGE,
    ETSOC1_EV_IPI,
} Etsoc1EventKind;

#define ETSOC1_EV_NO_HART UINT32_MAX    /* sent by qtest, gdb or the host */

typedef struct Etsoc1Event {
    Etsoc1EventKind kind;
    uint32_t src;       /* sending hart, or ETSOC1_EV_NO_HART */
    uint32_t dst;       /* receiving hart */
    uint64_t sent;      /* sender's clock when it left (minion cycles) */
    uint64_t time;      /* arrival; both 0 without a sending hart */
} Etsoc1Event;

typedef struct Etsoc1ShireState Etsoc1ShireState;

/*
 * Causality through memory (docs/timing.md): when the last global write
 * to a line took effect where the line is kept (its home L3 slice, or the
 * shire of its scratchpad), direct-mapped by line address, so that a hart
 * that reads the line there later takes at least that time.  An entry
 * that another line displaced is forgotten: its next reader waits for
 * nothing.  etsoc1-l3.c.
 */
#define ETSOC1_LINE_CLOCKS 4096
typedef struct Etsoc1LineClock {
    QemuMutex lock;     /* a mutex: 2,176 vCPU threads share few host CPUs */
    uint64_t line[ETSOC1_LINE_CLOCKS];  /* line address + 1; 0: empty */
    uint64_t at[ETSOC1_LINE_CLOCKS];
    /*
     * The last global write of each line: the word it changed (address,
     * size in bytes, 0 if unknown) and what that word held before, so
     * that a read which takes effect before the write sees the old value.
     */
    uint64_t ver_pa[ETSOC1_LINE_CLOCKS];
    uint64_t ver_old[ETSOC1_LINE_CLOCKS];
    uint8_t ver_size[ETSOC1_LINE_CLOCKS];
    /* writes per slot, for halted polls (not migrated) */
    uint32_t gen[ETSOC1_LINE_CLOCKS];
    uint8_t polled[ETSOC1_LINE_CLOCKS];  /* a poll may be halted there */
    hwaddr locked_pa;   /* the line the lock's holder works on */
} Etsoc1LineClock;

void etsoc1_line_clock_reset(Etsoc1LineClock *c);
extern const VMStateDescription vmstate_etsoc1_line_clock;
extern const VMStateDescription vmstate_etsoc1_line_versions;

#define TYPE_ETSOC1_MINION_CPU RISCV_CPU_TYPE_NAME("etsoc1-minion")
OBJECT_DECLARE_TYPE(Etsoc1MinionCPU, Etsoc1MinionCPUClass, ETSOC1_MINION_CPU)

struct Etsoc1MinionCPU {
    RISCVCPU parent_obj;
    Etsoc1ShireState *shire;
    Etsoc1HartEt *et;       /* this hart's slot in shire->et[] */
};

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

/* The ESR space of one shire seen at one privilege level. */
typedef struct Etsoc1EsrWindow {
    MemoryRegion mr;
    Etsoc1ShireState *shire;
    uint8_t pp;
} Etsoc1EsrWindow;

#define TYPE_ETSOC1_SHIRE "etsoc1-shire"
OBJECT_DECLARE_SIMPLE_TYPE(Etsoc1ShireState, ETSOC1_SHIRE)

struct Etsoc1ShireState {
    SysBusDevice parent_obj;

    Etsoc1MinionCPU hart[ETSOC1_HARTS_PER_SHIRE];
    Etsoc1EsrWindow esr[4];
    MemoryRegion scp;
    /* This shire's view of the bus: local-shire aliases resolve to us. */
    MemoryRegion view;
    MemoryRegion view_sys;
    MemoryRegion view_scp;
    MemoryRegion view_esr[4];
    /* other shires' scratchpads, timed (etsoc1-l3.c); our own, as RAM */
    MemoryRegion view_scp_remote;
    MemoryRegion view_scp_own;

    /* ESR state */
    Etsoc1HartEt et[ETSOC1_HARTS_PER_SHIRE];
    uint64_t minion_boot[ETSOC1_NEIGHS_PER_SHIRE];
    uint64_t mprot[ETSOC1_NEIGHS_PER_SHIRE];
    uint64_t ipi_redirect_pc[ETSOC1_NEIGHS_PER_SHIRE];
    uint64_t neigh_chicken[ETSOC1_NEIGHS_PER_SHIRE];
    uint64_t minion_feature;    /* MINION_FEATURE_* */
    uint64_t shire_config;
    uint64_t thread0_disable;
    uint64_t thread1_disable;
    uint64_t ipi_redirect_filter;
    uint64_t broadcast_data;
    /*
     * Fast local barrier unit: the 32 counters and, per counter, the
     * latest arrival (minion cycles) of the round under way (0: none yet).
     * flb_lock makes a counter step and its time one update: the flb CSR
     * runs on the vCPU threads without the BQL.
     */
    QemuMutex flb_lock;
    uint8_t flb[32];
    uint64_t flb_at[32];
    Etsoc1Reduce reduce[ETSOC1_MINIONS_PER_SHIRE];
    Etsoc1LineClock scp_written;    /* global writes to our scratchpad */
    uint8_t menable_shadows[ETSOC1_MINIONS_PER_SHIRE];
    uint8_t cache_ctl[ETSOC1_MINIONS_PER_SHIRE];    /* mcache_control */
    /* per minion: L1 scratchpad and the int8 TensorFMA accumulators */
    uint8_t l1scp[ETSOC1_MINIONS_PER_SHIRE][ETSOC1_L1SCP_LINES][64];
    uint32_t tenc[ETSOC1_MINIONS_PER_SHIRE][32 * ETSOC1_FLANES];
    /* TenB: B operand lines of one TensorFMA, and how many are loaded */
    uint8_t tenb[ETSOC1_MINIONS_PER_SHIRE][16][64];
    uint8_t tenb_rows[ETSOC1_MINIONS_PER_SHIRE];
    uint16_t ucache_ctl[ETSOC1_MINIONS_PER_SHIRE];  /* its own fields */
    /* cooperative TensorLoad groups, per load FSM (guarded by the BQL) */
    uint64_t coop_mode;     /* shire_coop_mode ESR */
    uint32_t coop_all[ETSOC1_TLOAD_FSMS][ETSOC1_COOP_GROUPS];
    uint32_t coop_arrived[ETSOC1_TLOAD_FSMS][ETSOC1_COOP_GROUPS];
    uint32_t harts_passed;  /* harts that wrote PASS to validation0 */

    /* properties */
    uint32_t shire_id;
    uint64_t reset_pc;
    uint64_t fdt_addr;
    MemoryRegion *sysmem;
};

typedef enum {
    ETSOC1_HANDSHAKE_RTL,       /* one ready bit per minion, as silicon */
    ETSOC1_HANDSHAKE_SYSEMU,    /* partners matched by name, as sysemu */
} Etsoc1Handshake;

typedef enum {
    ETSOC1_ON_DEADLOCK_REPORT,  /* print the report, stay up for gdb/QMP */
    ETSOC1_ON_DEADLOCK_EXIT,    /* print it and exit with status 3 */
    ETSOC1_ON_DEADLOCK_HANG,    /* no detection: hang as the card does */
} Etsoc1OnDeadlock;

typedef enum {
    ETSOC1_ON_IDLE_REPORT,      /* print one line, stay up */
    ETSOC1_ON_IDLE_EXIT,        /* print it and exit with status 0 */
    ETSOC1_ON_IDLE_IGNORE,      /* say nothing */
} Etsoc1OnIdle;

#define ETSOC1_DEADLOCK_EXIT_STATUS 3
#define ETSOC1_IDLE_EXIT_STATUS     0
#define ETSOC1_DEADLOCK_POLL_MS     250

/* etsoc1-pu-timer.c: the PU's DesignWare APB timers */
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

#define TYPE_ETSOC1_MACHINE MACHINE_TYPE_NAME("etsoc1")
OBJECT_DECLARE_SIMPLE_TYPE(Etsoc1MachineState, ETSOC1_MACHINE)

struct Etsoc1MachineState {
    MachineState parent_obj;

    Etsoc1ShireState *shire;
    uint32_t num_shires;
    MemoryRegion maxion;
    MemoryRegion scp_hole;
    MemoryRegion esr_hole;
    MemoryRegion dram_uc;
    hwaddr fdt_addr;
    int fdt_size;

    CPUClusterState sp_cluster;
    RISCVCPU *sp;
    MemoryRegion sp_sram;

    QEMUTimer *deadlock_timer;
    bool deadlocked;        /* reported */
    unsigned hang_ticks;    /* ticks that saw a hang in a row */
    bool *hang_seen;        /* hung harts reported, by cpu_index */
    uint8_t *hang_seen_minion;  /* stuck transfers, lost readies reported */
    bool idle_reported;
    bool quiet;             /* the last tick saw every hart asleep ... */
    uint64_t quiet_insns;   /* ... with this many instructions retired */

    /* polls and gated global reads (etsoc1-sync.c) */
    QEMUTimer *sync_timer;
    bool sync_waiting;      /* a hart may be halted on a poll or the gate */
    bool gate_waiting;      /* ... at the gate */
    bool poll_halt;         /* property: polls halt, reads are gated */
    int64_t sync_scan_ns;   /* host time of the last scan from a halt */
    int64_t sync_scan_gap_ns;   /* ... and the least time to the next */
    uint64_t sync_lookahead;    /* cycles: see etsoc1_sync_start */
    struct Etsoc1GateEntry *gate_entries;   /* the scan's, by hart */
    unsigned gate_entries_len;
    GHashTable *gate_slots;     /* the scan's: slot -> last entry on it */
    QemuMutex gate_lock;        /* harts into and out of the gate */

    /* properties */
    uint32_t shires_prop;
    uint64_t reset_pc;
    int handshake;          /* Etsoc1Handshake */
    int on_deadlock;        /* Etsoc1OnDeadlock */
    int on_idle;            /* Etsoc1OnIdle */
    uint32_t clock_mhz;
    char *timing_file;
    char *trace_json;
    uint64_t trace_json_max_events;  /* 0: no limit */
    char *hostlink_id;
    char *sp_firmware;
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

/* etsoc1-minion.c */
/* ---- timing (etsoc1-timing.c, docs/timing.md) ---- */

#define ETSOC1_DEFAULT_CLOCK_MHZ 600
#define ETSOC1_TRACE_MAX_EVENTS  1000000  /* trace-json-max-events */

/* The rows of the timing table; each cites its source in timing.md. */
typedef enum Etsoc1TimingId {
    ETSOC1_T_MSG_RTT_TREE,
    ETSOC1_T_MSG_RTT_XBAR,
    ETSOC1_T_MSG_RTT_MESH,
    ETSOC1_T_MESH_HOP_RTT,
    ETSOC1_T_STREAM_FIXED_TREE,
    ETSOC1_T_STREAM_FIXED_XBAR,
    ETSOC1_T_STREAM_FIXED_NEAR,
    ETSOC1_T_STREAM_FIXED_FAR,
    ETSOC1_T_STREAM_REG_TREE,
    ETSOC1_T_STREAM_REG_XBAR,
    ETSOC1_T_STREAM_REG_NEAR,
    ETSOC1_T_STREAM_REG_FAR,
    ETSOC1_T_STREAM_NEAR_HOPS,
    ETSOC1_T_CREDIT_RTT_SHIRE,
    ETSOC1_T_CREDIT_RTT_MESH,
    ETSOC1_T_CREDIT_HOP_RTT,
    ETSOC1_T_FLB_RTT,
    ETSOC1_T_L2_HIT,
    ETSOC1_T_L3_HIT,
    ETSOC1_T_DRAM_LEG,
    ETSOC1_T_SCP_REMOTE_CYC,
    ETSOC1_T_SCP_REMOTE_NS,
    ETSOC1_T_CACHEOP_LINE,
    ETSOC1_T_TFMA_FP32,
    ETSOC1_T_TFMA_FP32_PIPE,
    ETSOC1_T_TFMA_FP16,
    ETSOC1_T_TFMA_FP16_PIPE,
    ETSOC1_T_TFMA_INT8,
    ETSOC1_T_TFMA_INT8_PIPE,
    ETSOC1_T_TLOAD_L2_ROW,
    ETSOC1_T_TLOAD_L2_FLOOR,
    ETSOC1_T_TLOAD_DRAM_1,
    ETSOC1_T_TLOAD_DRAM_4,
    ETSOC1_T_TLOAD_DRAM_8,
    ETSOC1_T_TLOAD_DRAM_16,
    ETSOC1_T_INSN_ALU,      /* then one per EtInsnClass, in its order */
    ETSOC1_T_INSN_BRANCH,
    ETSOC1_T_INSN_LOAD,
    ETSOC1_T_INSN_STORE,
    ETSOC1_T_INSN_MUL,
    ETSOC1_T_INSN_DIV,
    ETSOC1_T_INSN_FP,
    ETSOC1_T_INSN_FDIV,
    ETSOC1_T_INSN_ATOMIC,
    ETSOC1_T_INSN_PACKED,
    ETSOC1_T_INSN_SYSTEM,
    ETSOC1_T_DMA_H2D,       /* PCIe eDMA (etsoc1-edma.c): GB/s = bytes/ns */
    ETSOC1_T_DMA_D2H,
    ETSOC1_T_DMA_PAIR,      /* factors on those rates */
    ETSOC1_T_DMA_SAME_STREAM,
    ETSOC1_T_DMA_DUPLEX,
    ETSOC1_T_COUNT
} Etsoc1TimingId;

/* map cells of the non-compute shires (beside shire ids 32 and 33) */
#define ETSOC1_MASTER_SHIRE 32
#define ETSOC1_SPARE_SHIRE  33
#define ETSOC1_PCIE_CELL    34
#define ETSOC1_IO_CELL      35

bool etsoc1_timing_init(uint32_t clock_mhz, const char *path, Error **errp);
double etsoc1_t(Etsoc1TimingId id);
uint64_t etsoc1_ns_to_cycles(double ns);
uint8_t etsoc1_insn_cost(EtInsnClass c);
const uint8_t *etsoc1_insn_cost_table(void);
unsigned etsoc1_hops(unsigned a, unsigned b);
unsigned etsoc1_hops_to_memshire(unsigned shire, unsigned m);

/* Path classes of timing.md 3, in the order of the stream rows */
typedef enum Etsoc1Path {
    ETSOC1_PATH_TREE,   /* a tree edge inside a neighbourhood */
    ETSOC1_PATH_XBAR,   /* any other pair in the shire */
    ETSOC1_PATH_NEAR,   /* another shire, at most stream.near.max-hops */
    ETSOC1_PATH_FAR,    /* another shire, further */
} Etsoc1Path;

Etsoc1Path etsoc1_path(unsigned a, unsigned b);
double etsoc1_msg_latency(unsigned a, unsigned b);
double etsoc1_stream_fixed(unsigned a, unsigned b);
double etsoc1_stream_reg(unsigned a, unsigned b);
double etsoc1_credit_latency(unsigned src_hart, unsigned dst_hart);

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

void etsoc1_minion_register_csrs(void);
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

/* etsoc1-fabric.c */
RISCVException etsoc1_tensor_reduce(Etsoc1MinionCPU *cpu, uint64_t val);
bool etsoc1_reduce_done(Etsoc1MinionCPU *cpu);
void etsoc1_reduce_observe(Etsoc1MinionCPU *cpu);
uint64_t etsoc1_reduce_done_at(Etsoc1MinionCPU *cpu);
uint64_t etsoc1_flb(Etsoc1MinionCPU *cpu, uint64_t val);
void etsoc1_deadlock_start(Etsoc1MachineState *s);
void etsoc1_get_deadlock(Object *obj, Visitor *v, const char *name,
                         void *opaque, Error **errp);

/* etsoc1-sync.c: polls and the global-read gate (docs/timing.md) */
#define ETSOC1_SYNC_TICK_MS         1
#define ETSOC1_SYNC_SCAN_NS         20000
/*
 * A lone poller's pace in host time: ETSOC1_POLL_BURST equal reads, then a
 * nap of ETSOC1_POLL_IDLE_MS; each further nap with no write halves the
 * burst and doubles the nap, ETSOC1_POLL_BACKOFF times at most.
 */
#define ETSOC1_POLL_BURST           4096
#define ETSOC1_POLL_IDLE_MS         10
#define ETSOC1_POLL_BACKOFF         5

/* What a global read (an operation that left memory unchanged) does */
typedef enum Etsoc1ReadStep {
    ETSOC1_READ_DONE,       /* take effect now */
    ETSOC1_READ_HALT,       /* halt (the caller restarts the instruction) */
} Etsoc1ReadStep;

bool etsoc1_sync_gate(Etsoc1MinionCPU *cpu, uint64_t t,
                      const Etsoc1GateAccess *a);
Etsoc1ReadStep etsoc1_sync_read(Etsoc1MinionCPU *cpu, Etsoc1LineClock *lc,
                                hwaddr pa, unsigned size, uint64_t cur);
void etsoc1_sync_note(Etsoc1MinionCPU *cpu, hwaddr pa, uint64_t val);
bool etsoc1_sync_plain_read(Etsoc1MinionCPU *cpu, Etsoc1LineClock *lc,
                            hwaddr pa, const void *val, unsigned size,
                            uint64_t arrive);
void etsoc1_sync_plain_written(Etsoc1LineClock *lc, hwaddr pa);
bool etsoc1_sync_enabled(void);
void etsoc1_sync_written(Etsoc1LineClock *lc, hwaddr pa);
void etsoc1_sync_halting(Etsoc1MinionCPU *cpu);
void etsoc1_sync_done(Etsoc1MinionCPU *cpu);
bool etsoc1_sync_has_work(Etsoc1MinionCPU *cpu);
void etsoc1_sync_resume(Etsoc1MinionCPU *cpu);
void etsoc1_sync_start(Etsoc1MachineState *s);

/* etsoc1-tensor.c */
RISCVException etsoc1_tensor_op(Etsoc1MinionCPU *cpu, int csrno, uint64_t ctl);
void etsoc1_tensor_load_l2(Etsoc1MinionCPU *cpu, uint64_t ctl);
RISCVException etsoc1_tensor_wait(Etsoc1MinionCPU *cpu, unsigned event);
bool etsoc1_coop_waiting(Etsoc1MinionCPU *cpu);

/* etsoc1-isa.c; operation numbers shared with insn_trans/trans_xetsoc1.c.inc */
typedef enum {
    ETSOC1_AMO_ADD, ETSOC1_AMO_SWAP, ETSOC1_AMO_XOR, ETSOC1_AMO_OR,
    ETSOC1_AMO_AND, ETSOC1_AMO_MIN, ETSOC1_AMO_MAX, ETSOC1_AMO_MINU,
    ETSOC1_AMO_MAXU, ETSOC1_AMO_CMPSWAP,
} Etsoc1AmoOp;

uint32_t etsoc1_amo32(CPURISCVState *env, unsigned op, target_ulong addr,
                      uint32_t val, MemOpIdx oi, uintptr_t ra);
uint64_t etsoc1_amo64(CPURISCVState *env, unsigned op, target_ulong addr,
                      uint64_t val, MemOpIdx oi, uintptr_t ra);
hwaddr etsoc1_amo_check(CPURISCVState *env, target_ulong addr,
                        unsigned size, bool global, bool is_amo, uintptr_t ra);
void etsoc1_amo_timing(CPURISCVState *env, hwaddr pa, unsigned size,
                       bool global, bool is_amo, bool wrote, uintptr_t ra);
Etsoc1LineClock *etsoc1_amo_lock(CPURISCVState *env, target_ulong addr,
                                 unsigned size, hwaddr pa, bool global,
                                 bool is_amo, uintptr_t ra);
void etsoc1_amo_unlock(Etsoc1LineClock *lc);
uint64_t etsoc1_amo_result(unsigned op, uint64_t old, uint64_t val,
                           uint64_t cmp, unsigned bits);

/* etsoc1-vpu-transc.c: one lane of fexp.ps, flog.ps, frcp.ps */
uint32_t etsoc1_fexp(uint32_t a, float_status *st);
uint32_t etsoc1_flog(uint32_t a, float_status *st);
uint32_t etsoc1_frcp(uint32_t a, float_status *st);

/*
 * etsoc1-vpu-gfx.c: the graphics instructions (illegal while
 * minion_feature[0] is set).  etsoc1_vpu_gfx() runs @insn and returns
 * true if it is one of those with an f register result.
 */
bool etsoc1_vpu_gfx(CPURISCVState *env, uint32_t insn, uintptr_t ra);
uint64_t etsoc1_maskpopc_rast(CPURISCVState *env, uint32_t insn,
                              uintptr_t ra);

/* etsoc1-shire.c */
uint64_t etsoc1_fcc_arrival(Etsoc1HartEt *et, unsigned counter);
uint64_t etsoc1_fcc_earliest(Etsoc1HartEt *et, unsigned counter);
bool etsoc1_shire_credit(Etsoc1ShireState *s, unsigned counter,
                         const Etsoc1Event *ev);
void etsoc1_event_trace(const Etsoc1Event *ev);

/*
 * ---- L3 slices, global memory operations and remote scratchpads ----
 * (etsoc1-l3.c, docs/timing.md "L3 and memory" and "Remote scratchpad")
 *
 * QEMU interface of an L3 slice ("etsoc1-l3-slice", 32 created by the
 * machine as /machine/l3[i]): a tag store with no MMIO.
 *  + property "slice": its index; it lives in shire @slice and is the home
 *    of every line with PA[10:6] = @slice
 *  + properties "size" (bytes) and "ways": its geometry
 */
#define TYPE_ETSOC1_L3_SLICE "etsoc1-l3-slice"
#define ETSOC1_L3_SLICES 32
#define ETSOC1_LINE      64     /* bytes in a cache line */

/* Destination level of a cache op, field [59:58] (isa.md section 3). */
typedef enum Etsoc1CacheLevel {
    ETSOC1_CACHE_L1,
    ETSOC1_CACHE_L2,
    ETSOC1_CACHE_L3,
    ETSOC1_CACHE_MEM,
} Etsoc1CacheLevel;

typedef enum Etsoc1CacheOp {
    ETSOC1_CACHEOP_EVICT,       /* evict_va (0x89f): write back, drop */
    ETSOC1_CACHEOP_FLUSH,       /* flush_va (0x8bf): write back, keep */
    ETSOC1_CACHEOP_PREFETCH,    /* prefetch_va (0x81f) */
} Etsoc1CacheOp;

/* Home slice of a physical line, and the memory shire behind it. */
static inline unsigned etsoc1_l3_home(hwaddr pa)
{
    return extract64(pa, 6, 5);
}

static inline unsigned etsoc1_memshire_of(hwaddr pa)
{
    return extract64(pa, 6, 3);
}

Etsoc1LineClock *etsoc1_line_clock_of(Etsoc1MinionCPU *cpu, hwaddr pa);
void etsoc1_l3_access(Etsoc1MinionCPU *cpu, hwaddr pa, bool write);

/*
 * One word of a global operation, as the line clock keeps it: @size
 * bytes at @pa, which held @old before it (and hold @old still after a
 * read).  A read's value comes back in @ret.
 */
typedef struct Etsoc1LineWord {
    hwaddr pa;
    unsigned size;
    uint64_t old;
    uint64_t ret;
} Etsoc1LineWord;

unsigned etsoc1_line_slot(hwaddr pa);
uint64_t etsoc1_line_value_at(Etsoc1LineClock *c, const Etsoc1LineWord *w,
                              uint64_t t);
uint64_t etsoc1_global_arrival(Etsoc1MinionCPU *cpu, hwaddr pa);
void etsoc1_global_access(Etsoc1MinionCPU *cpu, Etsoc1LineWord *w,
                          bool write, bool known);
void etsoc1_l3_install(hwaddr pa, uint64_t len);
hwaddr etsoc1_l3_install_ahead(hwaddr pa, uint64_t len, uint64_t more);
bool etsoc1_l3_cacheop_va(Etsoc1MinionCPU *cpu, Etsoc1CacheOp op,
                          uint64_t val, uint64_t *done);
void etsoc1_scp_remote_access(Etsoc1MinionCPU *cpu, hwaddr pa, bool write,
                              uintptr_t insn);
void etsoc1_scp_remote_amo(Etsoc1MinionCPU *cpu, hwaddr pa, bool write,
                           uintptr_t insn);

/* etsoc1-isa.c: a 32-bit compare-and-swap that also reaches remote SCPs */
uint32_t etsoc1_cmpxchg32(CPURISCVState *env, target_ulong addr,
                          uint32_t cmp, uint32_t val, MemOpIdx oi,
                          uintptr_t ra);

#endif
