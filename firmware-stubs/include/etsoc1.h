/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bare-metal interface of the ET-SoC-1 as the QEMU model presents it:
 * topology, memory map, ESR addresses and ET CSRs (isa.md sections 1-3).
 * Guest programs include this and link against firmware-stubs.
 */
#ifndef ETSOC1_GUEST_H
#define ETSOC1_GUEST_H

#include <stdint.h>

#define HARTS_PER_SHIRE     64
#define MINIONS_PER_SHIRE   32
#define LOCAL_SHIRE         0xff

#define DRAM_BASE           0x8000000000ULL
#define DRAM_UC             0xc000000000ULL     /* uncacheable alias */
#define SCP_BASE            0x80000000ULL
#define SCP_WINDOW          (8ULL << 20)
#define SCP_LOCAL           (SCP_BASE + 0x7fULL * SCP_WINDOW)
#define PU_UART0            0x12002000ULL

/*
 * Code and data a program runs or touches in U-mode go to the OS box
 * (firmware-stubs/etsoc1.ld): the first 8 MiB of DRAM, where programs
 * start, are machine mode's (the mprot PMA, isa.md section 2).
 */
#define USER_TEXT __attribute__((section(".utext"), noinline))
#define USER_DATA __attribute__((section(".udata")))
/*
 * Inline asm that runs @body in U-mode (MPP set to U before), then ecall
 * back: trap_record() returns to M-mode after the ecall, which jumps back
 * to the code after the asm.  Clobbers t0.
 */
#define USER_ASM(body) \
    "la t0, 91f\n csrw mepc, t0\n mret\n" \
    ".pushsection .utext, \"ax\"\n91:\n" body "\necall\n" \
    "la t0, 92f\n jr t0\n.popsection\n92:\n"

/* ESR addresses: [32] 1 | [31:30] PP | [29:22] shire | [21:0] register */
#define PP_U 0
#define PP_S 1
#define PP_DEBUG 2
#define PP_M 3
#define ESR(pp, shire, off) \
    (0x100000000ULL | ((uint64_t)(pp) << 30) | ((uint64_t)(shire) << 22) | (off))
#define ESR_OTHER(pp, shire, reg)  ESR(pp, shire, 0x340000ULL | (reg))
#define ESR_NEIGH(pp, shire, n, reg) ESR(pp, shire, 0x100000ULL | ((uint64_t)(n) << 16) | (reg))
/* shire cache registers: bank [16:13], 0xf = all four (writes only) */
#define ESR_SC(pp, shire, bank, reg) ESR(pp, shire, 0x300000ULL | ((uint64_t)(bank) << 13) | (reg))
#define SC_BANKS_ALL            0xf
#define SC_L2_CACHE_CTL         0x018   /* [44:32] sets of 4 KiB: the L2's size */

/* shire_other registers */
#define MINION_FEATURE          0x000
#define SHIRE_CONFIG            0x008
#define SHIRE_CACHE_BUILD_CONFIG 0x018
#define IPI_TRIGGER             0x090
#define IPI_TRIGGER_CLEAR       0x098
#define FCC_CREDINC(thread, counter) (0x0c0 + 8 * ((thread) * 2 + (counter)))
#define FLB(n)                  (0x100 + 8 * (n))
#define FLB_COUNT               32
#define SHIRE_COOP_MODE         0x290   /* PP_S */
/* neighbourhood registers */
#define MINION_BOOT             0x18
#define MPROT                   0x20

/* ET CSRs: names the ET assembler front end knows (tools/et-insns.tsv) */
#define CSR_MBUSADDR        mbusaddr
#define CSR_MENABLE_SHADOWS menable_shadows
#define CSR_TENSOR_ERROR    tensor_error
#define CSR_FCC             fcc
#define CSR_STALL           stall
#define CSR_VALIDATION0     validation0
#define CSR_VALIDATION1     validation1
#define CSR_FCCNB           fccnb
#define CSR_HARTID          hartid

#define VALIDATION_PASS     0x1feed000
#define VALIDATION_FAIL     0x50bad000

#define IRQ_BUS_ERROR       23

/* @csr: a CSR name (standard or ET, tools/et-insns.tsv) or a number */
#define STR_(x) #x
#define STR(x) STR_(x)
#define csr_read(csr) ({ uint64_t v_; \
    __asm__ volatile("csrr %0, " STR(csr) : "=r"(v_) :: "memory"); v_; })
#define csr_write(csr, v) \
    __asm__ volatile("csrw " STR(csr) ", %0" :: "r"((uint64_t)(v)) : "memory")
#define csr_set(csr, v) \
    __asm__ volatile("csrs " STR(csr) ", %0" :: "r"((uint64_t)(v)) : "memory")
#define csr_clear(csr, v) \
    __asm__ volatile("csrc " STR(csr) ", %0" :: "r"((uint64_t)(v)) : "memory")

/* Write @v to @csr with x31 = @x31v: the tensor CSRs take a second operand there */
#define csr_write_x31(csr, v, x31v) do {                                \
        uint64_t v_ = (v);                                              \
        register uint64_t x31_ __asm__("x31") = (x31v);                 \
        __asm__ volatile("csrw " STR(csr) ", %0" :: "r"(v_), "r"(x31_)  \
                         : "memory");                                   \
    } while (0)

static inline void esr_write(uint64_t addr, uint64_t v)
{
    __asm__ volatile("fence rw, o; sd %1, 0(%0)" :: "r"(addr), "r"(v) : "memory");
}

static inline uint64_t esr_read(uint64_t addr)
{
    uint64_t v;
    __asm__ volatile("ld %0, 0(%1)" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

static inline unsigned hart_shire(uint64_t h)  { return h / HARTS_PER_SHIRE; }
static inline unsigned hart_minion(uint64_t h) { return (h % HARTS_PER_SHIRE) / 2; }
static inline unsigned hart_thread(uint64_t h) { return h & 1; }

/* Give one credit on @counter to thread @thread of the minions in @mask. */
static inline void fcc_send(unsigned shire, unsigned thread, unsigned counter,
                            uint32_t minion_mask)
{
    esr_write(ESR_OTHER(PP_U, shire, FCC_CREDINC(thread, counter)), minion_mask);
}

/* Take one credit from counter @n, halting the hart until there is one. */
static inline void fcc_wait(unsigned n)
{
    if (n) {
        __asm__ volatile("csrwi fcc, 1" ::: "memory");
    } else {
        __asm__ volatile("csrwi fcc, 0" ::: "memory");
    }
}

/* ---- tensor messages (CSR tensor_reduce 0x800, isa.md section 4) ---- */
enum { TR_SEND = 0, TR_RECV = 1, TR_BROADCAST = 2, TR_REDUCE = 3 };
enum {
    TR_FADD = 0, TR_FMAX = 2, TR_FMIN = 3, TR_IADD = 4, TR_IMAX = 6,
    TR_IMIN = 7, TR_MOVE = 8,
};

static inline uint64_t tr_cmd(unsigned op, unsigned partner_or_level,
                              unsigned nregs, unsigned func, unsigned start)
{
    return op | (uint64_t)partner_or_level << 3 | (uint64_t)nregs << 16 |
           (uint64_t)func << 24 | (uint64_t)start << 57;
}

static inline void tensor_reduce(uint64_t cmd)
{
    csr_write(tensor_reduce, cmd);
}

/* Send @n f registers from f@start to global minion @partner. */
static inline void tensor_send(unsigned partner, unsigned start, unsigned n)
{
    tensor_reduce(tr_cmd(TR_SEND, partner, n, 0, start));
}

/* Receive @n registers from @partner into f@start, combining with @func. */
static inline void tensor_recv(unsigned partner, unsigned start, unsigned n,
                               unsigned func)
{
    tensor_reduce(tr_cmd(TR_RECV, partner, n, func, start));
}

/* Global minion id of a hart. */
static inline unsigned hart_gid(uint64_t h) { return h >> 1; }

/* f register lane 0 as raw bits */
#define FREG_SET(n, bits) \
    __asm__ volatile("fmv.w.x f" #n ", %0" :: "r"((uint32_t)(bits)))
#define FREG_GET(n) ({ uint32_t v_; \
    __asm__ volatile("fmv.x.w %0, f" #n : "=r"(v_)); v_; })

/* Fast local barrier: returns 1 to the last of @n arrivals. */
static inline uint64_t flb_arrive(unsigned barrier, unsigned n)
{
    uint64_t last;
    __asm__ volatile("csrrw %0, flb, %1" : "=r"(last)
                     : "r"((uint64_t)barrier | (uint64_t)(n - 1) << 5)
                     : "memory");
    return last;
}

/*
 * Chip barrier: @n harts of every shire arrive at fast local barrier 0,
 * whose last arrival credits hart 0 on counter 1; hart 0 (@first) waits
 * for every shire, then releases the threads in @threads (bit t: thread
 * t) of every minion with a credit on counter 1.
 */
static inline void chip_barrier_of(int first, unsigned shires, unsigned n,
                                   unsigned threads)
{
    unsigned s, t;

    if (flb_arrive(0, n)) {
        fcc_send(0, 0, 1, 1u << 0);
    }
    if (first) {
        for (s = 0; s < shires; s++) {
            fcc_wait(1);
        }
        for (s = 0; s < shires; s++) {
            for (t = 0; t < 2; t++) {
                if (threads >> t & 1) {
                    fcc_send(s, t, 1, 0xffffffffu);
                }
            }
        }
    }
    fcc_wait(1);
}

/* runtime (firmware-stubs) */
void putc_uart(char c);
void puts_uart(const char *s);
void print(const char *fmt, ...);
uint32_t fdt_root_u32(const void *fdt, const char *prop, uint32_t dflt);
void __attribute__((noreturn)) fail(const char *why);

struct trap_frame {
    uint64_t regs[32];  /* x0..x31; x0 slot holds nothing */
    uint64_t mcause, mepc, mtval;
};
/*
 * Weak; a program may override it.  Return to resume at frame->mepc.  The
 * runtime's fails the program, unless trap_recording is set: then it
 * calls trap_record().
 */
void trap_handler(struct trap_frame *f);

/*
 * For tests that provoke traps: trap_record() notes a trap in trap_seen
 * and resumes after the trapping instruction (trap_skip: 2 or 4 bytes, by
 * its length); an ecall from U-mode is not noted but returns to M-mode
 * (mstatus.MPP = M), so that a test can drop to U-mode and come back.  An
 * interrupt is noted and resumed where it struck.
 */
struct trap_seen {
    uint64_t cause, tval, count;
};
extern volatile struct trap_seen trap_seen;
extern volatile int trap_recording;
void trap_skip(struct trap_frame *f);
void trap_record(struct trap_frame *f);

/* Programs define this; every hart calls it.  0 = PASS, else FAIL. */
int main(uint64_t hartid, const void *fdt);
/* Define as 1 to park thread 1 of every minion (it passes immediately). */
extern const int etsoc1_park_thread1;

#endif
