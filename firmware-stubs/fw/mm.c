/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Master minion (shire 32): the MM DIR and queues, the dispatcher on the
 * host doorbell, one worker per submission queue, the kernel worker, and
 * the eDMA (docs/firmware.md).  Every waiting hart halts: the dispatcher
 * in WFI on the PU PLIC, workers on FCC credits.
 */
#include "fw.h"
#include "bootinfo.h"

/* ---- device-api message ids (spec section 4) ---- */
enum {
    MSG_API_COMPAT = 513, MSG_FW_VERSION = 515, MSG_ECHO = 517,
    MSG_ABORT = 519, MSG_KERNEL_LAUNCH = 521, MSG_KERNEL_ABORT = 523,
    MSG_DMA_READLIST = 525, MSG_DMA_WRITELIST = 527,
    MSG_DEVICE_FW_ERROR = 535,
};

/* The device-api version we answer API_COMPATIBILITY with: that of the
 * reference device-api tree (deviceApi 2.6.0). */
#define API_MAJOR 2
#define API_MINOR 6
#define API_PATCH 0
/* Our firmware's own version (FW_VERSION, every fw_type). */
#define FW_MAJOR 0
#define FW_MINOR 1
#define FW_PATCH 0

/* kernel launch status */
enum {
    KL_COMPLETED = 0, KL_ERROR = 1, KL_EXCEPTION = 2, KL_HOST_ABORTED = 4,
    KL_INVALID_ADDRESS = 5, KL_TIMEOUT = 6, KL_BAD_SHIRE_MASK = 12,
    KL_BAD_STACK_CFG = 14,
};
/* kernel abort / abort status */
enum { KA_SUCCESS = 0, KA_INVALID_TAG = 2 };
/* DMA status */
enum {
    DMA_COMPLETE = 0, DMA_ERROR_ABORTED = 4, DMA_INVALID_ADDRESS = 6,
    DMA_INVALID_SIZE = 7,
};

#define DMA_MAX_NODES       4               /* the API's maximum */
#define DMA_MAX_ELEMENT     (128ULL << 20)  /* DMAW_MAX_ELEMENT_SIZE */
#define DMA_NODE_LEN        32
#define CMD_MAX             256

/* ---- queues in PU_MBOX_PC_MM (BAR2 + 0) ---- */
#define MM_VQ   (PU_MBOX_PC_MM + MM_VQ_BAR_OFFSET)
#define MM_CQ   (MM_VQ + MM_CQ_OFFSET)

static uint64_t worker_queue(unsigned w)
{
    return w < MM_SQ_COUNT ? MM_VQ + MM_SQ_OFFSET + w * MM_SQ_SIZE
                           : MM_VQ + MM_HP_OFFSET + (w - MM_SQ_COUNT) *
                             MM_HP_SIZE;
}

static unsigned worker_hart(unsigned w)
{
    return w < MM_SQ_COUNT ? HART_SQ0 + 2 * w
                           : HART_HP0 + 2 * (w - MM_SQ_COUNT);
}

static uint64_t dram_end;
static uint32_t cm_shires;

/* ---- MM DIR (spec 3.5) ---- */
/* access_attr of the host-managed region: IO, ops node, 64-bit DMA
 * alignment, 4 elements, 4 x 32 MiB per element */
#define HOST_MANAGED_ATTR \
    (1u | 2u << 1 | 3u << 3 | (uint32_t)DMA_MAX_NODES << 5 | 4u << 9)
#define VQ_ATTR (1u | 2u << 1)

static void mm_dir_publish(void)
{
    uint8_t d[MM_DIR_SIZE] = { 0 };
    uint8_t *vq = d + MM_DIR_GEN_SIZE, *r = d + 48;

    put16(d + 0, MM_DIR_GEN_SIZE);
    put16(d + 2, 1);                    /* version */
    put16(d + 4, MM_DIR_SIZE);
    put16(d + 6, 2);                    /* num_mem_regions */
    put16(vq + 0, 32);
    vq[2] = 4;                          /* int_trg_size */
    vq[3] = 1;                          /* int_id */
    put32(vq + 4, 4);                   /* int_trg_offset: MMM_INT_INC */
    put32(vq + 8, MM_SQ_OFFSET);
    put16(vq + 12, MM_SQ_COUNT);
    put16(vq + 14, MM_SQ_SIZE);
    put32(vq + 16, MM_CQ_OFFSET);
    put16(vq + 20, MM_CQ_COUNT);
    put16(vq + 22, MM_CQ_SIZE);
    put32(vq + 24, MM_HP_OFFSET);
    put16(vq + 28, MM_HP_COUNT);
    put16(vq + 30, MM_HP_SIZE);
    dir_region(r, 0, 2, VQ_ATTR, MM_VQ_BAR_OFFSET, MM_VQ_SIZE, MM_VQ);
    dir_region(r + 32, 1, 0, HOST_MANAGED_ATTR,
               HOST_MANAGED_START - DRAM_MEMMAP_BEGIN,
               dram_end - HOST_MANAGED_START, HOST_MANAGED_START);
    dir_publish(PU_MBOX_PC_MM, d, MM_DIR_SIZE, MM_DIR_GEN_SIZE, MM_DIR_CRC);
}

static void mm_status(int16_t st)
{
    dir_set_status(PU_MBOX_PC_MM + MM_DIR_STATUS, st);
}

/* ---- responses ---- */
static uint64_t cq_lock;

static void pause_briefly(void)
{
    for (volatile int i = 0; i < 200; i++) {
    }
}

/* Push a response (header size = payload after the header), MSI 3. */
static void cq_send(uint8_t *rsp, uint32_t len, uint16_t tag, uint16_t msg)
{
    put16(rsp + HDR_SIZE, len - HDR_LEN);
    put16(rsp + HDR_TAG, tag);
    put16(rsp + HDR_MSG, msg);
    put16(rsp + HDR_FLAGS, 0);
    for (;;) {
        int ok;

        while (et_amoswapg_d(&cq_lock, 1)) {
            pause_briefly();
        }
        ok = vq_push(MM_CQ, rsp, len);
        et_amoswapg_d(&cq_lock, 0);
        if (ok) {
            break;
        }
        pause_briefly();        /* CQ full: the host is draining it */
    }
    msi_send(MSI_MM_CQ);
}

/* A response with only a u32 status after the header. */
static void rsp_status(const uint8_t *cmd, uint16_t msg, uint32_t st)
{
    uint8_t rsp[16] = { 0 };

    put32(rsp + 8, st);
    cq_send(rsp, sizeof(rsp), get16(cmd + HDR_TAG), msg);
}

/* one busy mask per direction: [0] read channels, [1] write channels */
static uint64_t dma_busy[2];

static unsigned dma_reserve(int wr)
{
    for (;;) {
        for (unsigned ch = 0; ch < EDMA_CHANNELS; ch++) {
            if (!(et_amoorg_d(&dma_busy[wr], 1ULL << ch) & 1ULL << ch)) {
                return ch;
            }
        }
        pause_briefly();
    }
}

static int dev_range_ok(uint64_t a, uint64_t n)
{
    if (a >= HOST_MANAGED_START && a + n <= dram_end && a + n > a) {
        return 1;
    }
    return a >= SCP_WIN_START && a + n - 1 <= SCP_WIN_END && a + n > a;
}

/* Validate the nodes of a DMA list; 0 or a DMA status. */
static uint32_t dma_check(const uint8_t *cmd, unsigned len, unsigned *nodes)
{
    unsigned n = (len - HDR_LEN) / DMA_NODE_LEN;

    if ((len - HDR_LEN) % DMA_NODE_LEN || n == 0 || n > DMA_MAX_NODES) {
        return DMA_INVALID_SIZE;
    }
    for (unsigned i = 0; i < n; i++) {
        const uint8_t *nd = cmd + HDR_LEN + i * DMA_NODE_LEN;
        uint32_t size = get32(nd + 24);

        if (size == 0 || size > DMA_MAX_ELEMENT) {
            return DMA_INVALID_SIZE;
        }
        if (!dev_range_ok(get64(nd + 16), size)) {
            return DMA_INVALID_ADDRESS;
        }
    }
    *nodes = n;
    return 0;
}

/*
 * Wait for the channel by halting, not by polling as Esperanto's DMA
 * worker does: the channel's DONE/ABORT line is PU PLIC source 16 + line
 * (write channels 0-3, read channels 0-3), enabled on this hart's context
 * while the channel is ours; WFI wakes on it (mstatus.MIE stays 0: no
 * trap).  A halted hart's clock stands still, and reading INT_STATUS
 * moves it to the channel's end, so execute_dur is the transfer's
 * emulated time, whatever the host link's speed.
 */
static uint32_t dma_wait(int wr, unsigned ch)
{
    unsigned ctx = csr_read(mhartid) - MM_HART0;
    unsigned src = PLIC_SRC_DMA_DONE0 + (wr ? 0 : EDMA_CHANNELS) + ch;
    uint64_t st_reg = EDMA_BASE + (wr ? EDMA_WR_INT_STATUS
                                      : EDMA_RD_INT_STATUS);
    uint32_t mask = 1u << ch | 1u << (16 + ch), st, claim;

    /*
     * WFI, then look (not look, then WFI): a WFI with the line already
     * pending does not halt, so the hart runs the same instructions
     * whether DONE came before its first look or after.  The eDMA's pace
     * is host time (design 2.5 of docs/research/record-replay-design.md):
     * with "look first" a DONE that beat the look saved a turn, and the
     * worker's clock (its MSI, the next command's start) followed the
     * host; a replay of a DMA session then differed by that turn.
     */
    do {
        __asm__ volatile("wfi");
    } while (!((st = rd32(st_reg)) & mask));
    claim = rd32(PLIC_CLAIM(PU_PLIC, ctx));
    if (claim) {
        wr32(PLIC_CLAIM(PU_PLIC, ctx), claim);
    }
    wr32(PLIC_ENABLE(PU_PLIC, ctx, src), 0);
    csr_clear(mie, 1u << 11);
    return st & mask;
}

static void dma_wait_arm(int wr, unsigned ch)
{
    unsigned ctx = csr_read(mhartid) - MM_HART0;
    unsigned src = PLIC_SRC_DMA_DONE0 + (wr ? 0 : EDMA_CHANNELS) + ch;

    wr32(PLIC_PRIO(PU_PLIC, src), 1);
    wr32(PLIC_THRESH(PU_PLIC, ctx), 0);
    wr32(PLIC_ENABLE(PU_PLIC, ctx, src), 1u << (src % 32));
    csr_set(mie, 1u << 11);     /* MEIE */
}

/* Run one list on a channel and wait for it. */
static uint32_t dma_run(const uint8_t *cmd, unsigned n, int wr)
{
    unsigned ch = dma_reserve(wr);
    uint64_t ll = DMA_LL_BASE + 0x100 * (wr * EDMA_CHANNELS + ch);
    uint64_t chr = EDMA_CH(wr, ch);
    uint32_t abort = 1u << (16 + ch), st;

    for (unsigned i = 0; i < n; i++) {
        const uint8_t *nd = cmd + HDR_LEN + i * DMA_NODE_LEN;
        uint64_t el = ll + i * EL_SIZE, host = get64(nd + 8);
        uint64_t dev = get64(nd + 16);

        wr32(el + 0, EL_CB | (i == n - 1 ? EL_LIE : 0));
        wr32(el + 4, get32(nd + 24));
        wr64(el + 8, wr ? dev : host);      /* SAR */
        wr64(el + 16, wr ? host : dev);     /* DAR */
    }
    /* the link back to the list base toggles CCS: the list ends there */
    wr32(ll + n * EL_SIZE + 0, EL_CB | EL_TCB | EL_LLP);
    wr32(ll + n * EL_SIZE + 4, 0);
    wr64(ll + n * EL_SIZE + 8, ll);
    wr64(ll + n * EL_SIZE + 16, 0);
    __asm__ volatile("fence" ::: "memory");
    wr32(chr + CH_CONTROL1, CTL_CCS | CTL_LLE);
    wr32(chr + CH_LLP_LO, ll);
    wr32(chr + CH_LLP_HI, ll >> 32);
    dma_wait_arm(wr, ch);
    wr32(EDMA_BASE + (wr ? EDMA_WR_DOORBELL : EDMA_RD_DOORBELL), ch);
    st = dma_wait(wr, ch);
    wr32(EDMA_BASE + (wr ? EDMA_WR_INT_CLEAR : EDMA_RD_INT_CLEAR), st);
    et_amoandg_d(&dma_busy[wr], ~(1ULL << ch));
    return st & abort ? DMA_ERROR_ABORTED : DMA_COMPLETE;
}

static void do_dma(const uint8_t *cmd, unsigned len, uint64_t t0)
{
    int wr = get16(cmd + HDR_MSG) == MSG_DMA_READLIST; /* card -> host */
    uint8_t rsp[40] = { 0 };
    unsigned n = 0;
    uint32_t st = dma_check(cmd, len, &n);

    if (!st) {
        st = dma_run(cmd, n, wr);
    }
    put64(rsp + 8, t0);
    put64(rsp + 16, cycles() - t0);
    put64(rsp + 24, 0);
    put32(rsp + 32, st);
    cq_send(rsp, sizeof(rsp), get16(cmd + HDR_TAG), get16(cmd + HDR_MSG) + 1);
}

/* ---- kernels: the kernel worker owns the launch block ---- */
struct kw_job {
    uint64_t busy;          /* taken by the SQ worker that posts */
    uint64_t posted;        /* set with the job, taken by the KW */
    uint64_t waiters;       /* SQ worker harts waiting for busy == 0 */
    uint64_t running;       /* a kernel is out on the compute shires */
    uint64_t active;        /* tag is valid: posted until answered */
    uint16_t tag;
    uint64_t t0, code, args, mask, stack_base, stack_size, exc_buf;
    uint64_t host_abort;
};
static struct kw_job kw;

/* IPI every hart a launch of @mask runs on (to start or to stop it). */
static void ipi_launch_harts(uint64_t mask)
{
    for (unsigned s = 0; s < 32; s++) {
        if (mask >> s & 1) {
            esr_write(ESR_OTHER(PP_M, s, IPI_TRIGGER), ~0ULL);
        }
    }
    if (mask >> MASTER_SHIRE & 1) {
        esr_write(ESR_OTHER(PP_M, MASTER_SHIRE, IPI_TRIGGER), SYNC_HART_MASK);
    }
}

/*
 * Per-launch shire set-up, as Esperanto's worker minion does in every
 * launched shire before its kernel (pre_kernel_setup): cooperative
 * TensorLoads and TensorStores allowed (shire_coop_mode 1) and every fast
 * local barrier counter back to 0, so a kernel that left a barrier half
 * joined does not break the next.  Done here, before the launch's IPIs,
 * where no hart of the launch can be past its first barrier yet (theirs:
 * one hart of the shire, while the others set themselves up).
 */
static void shires_setup(uint64_t mask)
{
    for (unsigned s = 0; s <= MASTER_SHIRE; s++) {
        if (!(mask >> s & 1)) {
            continue;
        }
        esr_write(ESR_OTHER(PP_S, s, SHIRE_COOP_MODE), 1);
        for (unsigned b = 0; b < FLB_COUNT; b++) {
            esr_write(ESR_OTHER(PP_U, s, FLB(b)), 0);
        }
    }
}

static void kernels_stop(void)
{
    launch.abort_gen = launch.gen;
    __asm__ volatile("fence" ::: "memory");
    ipi_launch_harts(launch.shire_mask);
}

/*
 * The host stops the posted or running kernel.  If the KW has not
 * launched it yet, it sees host_abort after launching and stops it then.
 */
static void host_abort(void)
{
    et_amoswapg_d(&kw.host_abort, 1);
    if (et_amoorg_d(&kw.running, 0)) {
        kernels_stop();
    }
}

/* Copy embedded kernel arguments (header flag bit 5) to pointer_to_args. */
#define FLAG_TRACE_CFG      (1u << 1)
#define FLAG_ARGS_EMBEDDED  (1u << 5)
#define FLAG_STACK_CFG      (1u << 6)

static uint32_t copy_embedded_args(const uint8_t *cmd, unsigned len)
{
    uint16_t flags = get16(cmd + HDR_FLAGS);
    unsigned off = 40;
    uint64_t dst = get64(cmd + 16);

    if (!(flags & FLAG_ARGS_EMBEDDED) || !dst) {
        return 0;
    }
    off += flags & FLAG_TRACE_CFG ? 40 : 0;
    off += flags & FLAG_STACK_CFG ? 8 : 0;
    if (off > len || !dev_range_ok(dst, len - off + 1)) {
        return KL_INVALID_ADDRESS;
    }
    for (unsigned i = off; i < len; i++) {
        wr8(dst + i - off, cmd[i]);
    }
    return 0;
}

/*
 * User stack configuration (header flag bit 6, {u32 base_offset, u32 size}
 * in 4 KiB units from HOST_MANAGED_START), checked as Esperanto's kernel
 * worker does: at least 4 KiB per hart, a per-hart size that is a whole
 * number of cache lines, inside host-managed DRAM.  Stacks grow down from
 * the end; each launched hart takes one slot by its rank in the launch.
 */
static uint32_t stack_config(const uint8_t *cmd, unsigned len,
                             uint64_t *base, uint64_t *size)
{
    uint16_t flags = get16(cmd + HDR_FLAGS);
    unsigned off = 40 + (flags & FLAG_TRACE_CFG ? 40 : 0);
    uint64_t harts = LAUNCH_HARTS(get64(cmd + 32));
    uint64_t start, end, per;

    *base = 0;      /* the default stacks */
    *size = 0;
    if (!(flags & FLAG_STACK_CFG)) {
        return 0;
    }
    if (off + 8 > len || get32(cmd + off + 4) < harts) {
        return KL_BAD_STACK_CFG;
    }
    per = (uint64_t)get32(cmd + off + 4) * 4096 / harts;
    start = HOST_MANAGED_START + (uint64_t)get32(cmd + off) * 4096;
    end = start + (uint64_t)get32(cmd + off + 4) * 4096;
    if (per % 64 || end > dram_end) {
        return KL_BAD_STACK_CFG;
    }
    *base = end;
    *size = per;
    return 0;
}

/*
 * The launch response; one that is not "completed" carries, as Esperanto's
 * does, kernel_rsp_error_ptr_t: the exception buffer, the trace buffer
 * (none) and the shires in error (@err_shires).
 */
static void kernel_rsp(uint16_t tag, uint64_t t0, uint64_t end, uint32_t st,
                       uint64_t exc_buf, uint64_t err_shires)
{
    uint8_t rsp[64] = { 0 };

    put64(rsp + 8, t0);
    put64(rsp + 16, end > t0 ? end - t0 : 0);
    put64(rsp + 24, 0);
    put32(rsp + 32, st);
    put64(rsp + 40, exc_buf);
    put64(rsp + 48, 0);
    put64(rsp + 56, err_shires);
    cq_send(rsp, st == KL_COMPLETED ? 40 : 64, tag, MSG_KERNEL_LAUNCH + 1);
}

/* The exception buffer must hold a context for every launched hart. */
static int exception_buffer_ok(uint64_t buf, uint64_t mask)
{
    uint64_t slots = 0;

    /* slots up to the highest compute shire; all of them for sync harts */
    for (uint64_t m = mask & COMPUTE_MASK; m; m >>= 1) {
        slots += HARTS_PER_SHIRE;
    }
    if (mask >> MASTER_SHIRE & 1) {
        slots = CTX_INDEX(MM_HART0 + HARTS_PER_SHIRE);
    }
    return !buf || dev_range_ok(buf, slots * CTX_SIZE);
}

/*
 * Wait, halted, until the kernel worker is free; with @claim, take it
 * (a launch), else only wait (a barrier, header flag bit 0).  The waiter
 * registers before it looks again, so the KW's "free" credit is not lost.
 */
static uint64_t kw_busy(int claim)
{
    return claim ? et_amoswapg_d(&kw.busy, 1) : et_amoorg_d(&kw.busy, 0);
}

static void kw_wait_free(unsigned me, int claim)
{
    while (kw_busy(claim)) {
        et_amoorg_d(&kw.waiters, 1ULL << (me - MM_HART0));
        if (!kw_busy(claim)) {
            break;
        }
        fcc_wait(FCC_KW_FREE);
    }
}

static void do_kernel_launch(const uint8_t *cmd, unsigned len, uint64_t t0,
                             unsigned me)
{
    uint64_t mask = get64(cmd + 32), code = get64(cmd + 8);
    uint64_t stack_base, stack_size;
    uint32_t st = 0;

    if (len < 40) {
        st = KL_INVALID_ADDRESS;
    } else if (!mask ||
               (mask & ~((uint64_t)cm_shires | 1ULL << MASTER_SHIRE))) {
        st = KL_BAD_SHIRE_MASK;
    } else if (code < KERNEL_ENTRY_MIN || code >= dram_end ||
               !exception_buffer_ok(get64(cmd + 24), mask)) {
        st = KL_INVALID_ADDRESS;
    } else {
        st = copy_embedded_args(cmd, len);
    }
    if (!st) {
        st = stack_config(cmd, len, &stack_base, &stack_size);
    }
    if (st) {
        kernel_rsp(get16(cmd + HDR_TAG), t0, cycles(), st, 0, 0);
        return;
    }
    kw_wait_free(me, 1);       /* one kernel at a time */
    kw.tag = get16(cmd + HDR_TAG);
    kw.t0 = t0;
    kw.code = code;
    kw.args = get64(cmd + 16);
    kw.mask = mask;
    kw.stack_base = stack_base;
    kw.stack_size = stack_size;
    kw.exc_buf = get64(cmd + 24);
    kw.host_abort = 0;
    __asm__ volatile("fence" ::: "memory");
    et_amoswapg_d(&kw.active, 1);
    et_amoswapg_d(&kw.posted, 1);
    mm_notify(HART_KW, FCC_WORK);
}

static void do_kernel_abort(const uint8_t *cmd)
{
    uint32_t st = KA_INVALID_TAG;

    if (et_amoorg_d(&kw.active, 0) && kw.tag == get16(cmd + 8)) {
        host_abort();
        st = KA_SUCCESS;
    }
    rsp_status(cmd, MSG_KERNEL_ABORT + 1, st);
}

/* ABORT: the runtime sends it at start-up; it also stops a kernel. */
static void do_abort(const uint8_t *cmd)
{
    if (et_amoorg_d(&kw.active, 0)) {
        host_abort();
    }
    rsp_status(cmd, MSG_ABORT + 1, KA_SUCCESS);
}

/*
 * The launch watchdog (docs/firmware.md): PU timer 1, on emulated time,
 * expires when the chip has passed the KW's clock at the launch plus the
 * limit (or at once when no hart can act), on PU PLIC source 7, context 6
 * (the KW).  The KW takes the interrupt only while it halts for reports
 * (kw_wait), so the trap always lands on that one fcc instruction or
 * just after it; reading the timer moves its clock to the expiry.  Its
 * trap runs on a stack of its own: mscratch is the top of the stack the
 * KW is using.
 */
#define KW_PLIC_CTX     (HART_KW - MM_HART0)
#define WATCHDOG_SRC    (PLIC_SRC_PU_TIMER0 + WATCHDOG_TIMER)
#define KW_CLAIM        PLIC_CLAIM(PU_PLIC, KW_PLIC_CTX)
#define MIP_MEIP        (1u << 11)
#define MSTATUS_MIE     (1u << 3)

static uint64_t kw_trap_stack[256] __attribute__((aligned(16)));
static uint64_t launch_clock;   /* the KW's clock at the launch's IPIs */
static volatile int look_due;  /* an expiry: compare the clocks */
extern const char kw_fcc_insn[];

static void watchdog_init(void)
{
    csr_write(mscratch, (uint64_t)(kw_trap_stack + 256));
    wr32(PLIC_PRIO(PU_PLIC, WATCHDOG_SRC), 1);
    wr32(PLIC_ENABLE(PU_PLIC, KW_PLIC_CTX, WATCHDOG_SRC),
         1u << (WATCHDOG_SRC % 32));
    wr32(PLIC_THRESH(PU_PLIC, KW_PLIC_CTX), 0);
    csr_set(mie, MIP_MEIP);     /* mstatus.MIE: only in kw_wait */
}

/* PU timer 1: periodic, WATCHDOG_LOOK_MS of emulated time apart. */
static void watchdog_arm(void)
{
    look_due = 0;
    wr32(TIMER_REG(WATCHDOG_TIMER, TIMER_CONTROL), 0);
    wr32(TIMER_REG(WATCHDOG_TIMER, TIMER_LOADCOUNT), WATCHDOG_TICKS);
    /* user-defined mode, interrupt unmasked (bit 2 clear) */
    wr32(TIMER_REG(WATCHDOG_TIMER, TIMER_CONTROL),
         TIMER_ENABLE | TIMER_USER_MODE);
}

/*
 * Stop the timer and forget an expiry that raced with the end of the
 * kernel: the PLIC keeps the source pending until it is claimed, and
 * that would time out the next launch at once.
 */
static void watchdog_disarm(void)
{
    uint32_t src;

    wr32(TIMER_REG(WATCHDOG_TIMER, TIMER_CONTROL), 0);
    (void)rd32(TIMER_REG(WATCHDOG_TIMER, TIMER_EOI));
    while ((src = rd32(KW_CLAIM)) != 0) {
        wr32(KW_CLAIM, src);
    }
}

/* The KW's machine external interrupt (from fw_trap). */
void kw_interrupt(struct trap_frame *f)
{
    uint32_t src = rd32(KW_CLAIM);

    if (src == WATCHDOG_SRC) {
        /*
         * a claim left from a disarmed timer shows no IntStatus; the read
         * moves the KW's clock to the expiry
         */
        if (rd32(TIMER_REG(WATCHDOG_TIMER, TIMER_INTSTAT)) & 1) {
            look_due = 1;
        }
        (void)rd32(TIMER_REG(WATCHDOG_TIMER, TIMER_EOI));
    }
    if (src) {
        wr32(KW_CLAIM, src);
    }
    /* mret would re-execute the fcc and halt again: step over it */
    if (f->mepc == (uint64_t)kw_fcc_insn) {
        f->mepc += 4;
    }
}

/* Halt for one credit on counter 0, or until the watchdog interrupts. */
static void __attribute__((noinline)) kw_wait(void)
{
    __asm__ volatile("csrsi mstatus, %0\n"
                     ".globl kw_fcc_insn\n"
                     "kw_fcc_insn:\n"
                     "csrwi 0x821, 0\n"
                     "csrci mstatus, %0"
                     :: "i"(MSTATUS_MIE) : "memory");
}

static void __attribute__((noreturn)) kernel_worker(void)
{
    watchdog_init();
    for (;;) {
        uint64_t timed_out = 0, stopped = 0, waiters;
        uint32_t st;

        fcc_wait(FCC_WORK);
        if (!et_amoswapg_d(&kw.posted, 0)) {
            continue;       /* a stale completion credit */
        }
        launch.code = kw.code;
        launch.args = kw.args;
        launch.shire_mask = kw.mask;
        launch.stack_base = kw.stack_base;
        launch.stack_size = kw.stack_size;
        launch.exception_buffer = kw.exc_buf;
        KERNEL_ENV->major = 0;
        KERNEL_ENV->minor = 1;
        KERNEL_ENV->shire_mask = kw.mask;
        KERNEL_ENV->frequency_mhz = 1000;
        launch.expected = LAUNCH_HARTS(kw.mask);
        launch.done = 0;
        launch.end = 0;
        launch.exception_shires = 0;
        launch.error_shires = 0;
        launch.timed_out = 0;
        launch.arrived = 0;
        shires_setup(kw.mask);
        __asm__ volatile("fence" ::: "memory");
        et_amoaddg_d(&launch.gen, 1);
        et_amoswapg_d(&kw.running, 1);
        launch_clock = cycles();
        watchdog_arm();         /* after: it expires past the limit */
        ipi_launch_harts(kw.mask);
        if (et_amoorg_d(&kw.host_abort, 0)) {  /* the host's (host_abort) */
            kernels_stop();     /* aborted before it started */
        }
        while (et_amoorg_d(&launch.done, 0) < launch.expected) {
            kw_wait();
            if (stopped) {
                continue;
            }
            /* a hart that faulted ends the kernel on every hart */
            if (et_amoorg_d(&launch.exception_shires, 0)) {
                stopped = 1;
                kernels_stop();
            } else if (look_due) {
                look_due = 0;
                /* the chip is past the expiry, and the KW's clock at it */
                if (cycles() - launch_clock >= watchdog_cycles) {
                    timed_out = stopped = 1;
                    kernels_stop();
                }
            }
        }
        watchdog_disarm();
        et_amoswapg_d(&kw.running, 0);
        et_amoswapg_d(&kw.active, 0);
        st = kw.host_abort ? KL_HOST_ABORTED :
             timed_out ? KL_TIMEOUT :
             launch.exception_shires ? KL_EXCEPTION :
             launch.error_shires ? KL_ERROR : KL_COMPLETED;
        /* a kernel that ran ends at its latest hart's report */
        kernel_rsp(kw.tag, kw.t0,
                   st == KL_COMPLETED || st == KL_ERROR ? launch.end
                                                        : cycles(),
                   st, kw.exc_buf,
                   st == KL_EXCEPTION ? launch.exception_shires :
                   st == KL_ERROR ? launch.error_shires : kw.mask);
        et_amoswapg_d(&kw.busy, 0);
        waiters = et_amoswapg_d(&kw.waiters, 0);
        for (unsigned i = 0; i < HARTS_PER_SHIRE; i++) {
            if (waiters >> i & 1) {
                mm_notify(MM_HART0 + i, FCC_KW_FREE);
            }
        }
    }
}

/* ---- the queue workers ---- */
static void handle(const uint8_t *cmd, unsigned len, uint64_t t0,
                   unsigned me)
{
    uint16_t msg = get16(cmd + HDR_MSG), tag = get16(cmd + HDR_TAG);
    uint8_t rsp[24] = { 0 };

    switch (msg) {
    case MSG_API_COMPAT:
        put32(rsp + 8, 0);
        put16(rsp + 12, API_MAJOR);
        put16(rsp + 14, API_MINOR);
        put16(rsp + 16, API_PATCH);
        cq_send(rsp, 24, tag, msg + 1);
        break;
    case MSG_FW_VERSION:
        put32(rsp + 8, 0);
        put16(rsp + 12, FW_MAJOR);
        put16(rsp + 14, FW_MINOR);
        put16(rsp + 16, FW_PATCH);
        rsp[18] = len > 8 ? cmd[8] : 0;     /* the type asked for */
        cq_send(rsp, 24, tag, msg + 1);
        break;
    case MSG_ECHO:
        put64(rsp + 8, t0);
        put32(rsp + 16, 0);
        cq_send(rsp, 24, tag, msg + 1);
        break;
    case MSG_ABORT:
        do_abort(cmd);
        break;
    case MSG_KERNEL_LAUNCH:
        do_kernel_launch(cmd, len, t0, me);
        break;
    case MSG_KERNEL_ABORT:
        do_kernel_abort(cmd);
        break;
    case MSG_DMA_READLIST:
    case MSG_DMA_WRITELIST:
        do_dma(cmd, len, t0);
        break;
    default:
        /* DEVICE_FW_ERROR, error_type 0: unsupported; payload = msg id */
        put64(rsp + 8, msg);
        put32(rsp + 16, 0);
        cq_send(rsp, 24, tag, MSG_DEVICE_FW_ERROR);
        break;
    }
}

#define FLAG_BARRIER        (1u << 0)

static void __attribute__((noreturn)) sq_worker(unsigned w, unsigned me)
{
    uint64_t q = worker_queue(w);
    uint8_t cmd[CMD_MAX];

    /*
     * Look first, then wait: every command the dispatcher announces comes
     * with a credit, and credits are counted, so a credit that arrives
     * while the queue is being emptied only makes the next look find it
     * empty, and none can be lost between a look and the wait.
     */
    for (;; fcc_wait(FCC_WORK)) {
        int n;

        while ((n = vq_pop(q, cmd, sizeof(cmd))) != 0) {
            uint64_t t0 = cycles();

            if (n < 0) {
                print("MM: SQ%u: malformed command, queue dropped\n", w);
                msi_send(MSI_MM_SQ);
                break;
            }
            msi_send(MSI_MM_SQ);    /* room in the SQ */
            if (get16(cmd + HDR_FLAGS) & FLAG_BARRIER) {
                kw_wait_free(me, 0);
            }
            handle(cmd, n, t0, me);
        }
    }
}

/* ---- dispatcher: PU PLIC source 33, context 0 = hart 2048 ---- */
static void __attribute__((noreturn)) dispatcher(void)
{
    uint64_t claim = PLIC_CLAIM(PU_PLIC, 0);

    wr32(PLIC_PRIO(PU_PLIC, PLIC_SRC_PCIE_MSG), 1);
    wr32(PLIC_ENABLE(PU_PLIC, 0, PLIC_SRC_PCIE_MSG),
         1u << (PLIC_SRC_PCIE_MSG % 32));
    wr32(PLIC_THRESH(PU_PLIC, 0), 0);
    csr_set(mie, 1u << 11);     /* MEIE; mstatus.MIE stays 0 */

    for (;;) {
        uint32_t src;

        __asm__ volatile("wfi");
        src = rd32(claim);
        if (!src) {
            continue;
        }
        if (src == PLIC_SRC_PCIE_MSG) {
            wr32(PCI_INT_DEC, 1);
        }
        wr32(claim, src);
        /*
         * Every queue worker gets a credit, whether its queue holds work
         * or not: the doorbell does not say which SQ was written, and
         * looking (the SQ's tail, which the worker moves with plain
         * stores while it takes a command) would make who is credited
         * follow the host's order of the two harts, not the model's: a
         * record replayed 15 cycles apart (docs/record-replay.md).  A
         * worker that finds its queue empty only waits again.
         */
        for (unsigned w = 0; w < NUM_WORKERS; w++) {
            mm_notify(worker_hart(w), FCC_WORK);
        }
    }
}

/*
 * A worker (queue workers and the KW) tells the dispatcher it is in
 * place: one credit on the dispatcher's counter 0.  The dispatcher takes
 * one per worker before it passes MM_WORKERS_INITIALIZED, so MM_READY
 * means that every worker waits on its queue.
 */
#define NUM_ROLE_WORKERS    (NUM_WORKERS + 1)   /* the queue workers, KW */

static void worker_arrived(void)
{
    mm_notify(HART_DISPATCHER, FCC_WORK);
}

void mm_main(uint64_t h)
{
    /*
     * Wait (halted) for the SP's IPI: it comes after the SP DIR and iATU.
     * WFI first, then look: the SP has no clock, and its IPI no time, so
     * "look, then WFI" ran one turn fewer when the IPI came before the
     * first look, and the hart's clock at boot followed the host (4
     * cycles; a replay then diverged, docs/record-replay.md).  A WFI with
     * the IPI already pending does not halt: the same instructions either
     * way.
     */
    csr_set(mie, 1u << 3);
    do {
        __asm__ volatile("wfi");
    } while (!(csr_read(mip) & (1u << 3)));
    esr_write(ESR_OTHER(PP_M, MASTER_SHIRE, IPI_TRIGGER_CLEAR),
              1ULL << (h % HARTS_PER_SHIRE));
    csr_clear(mie, 1u << 3);
    /*
     * No credits to drain: the counters are 0 from reset, and nothing
     * sends one before the IPI.  (This firmware drained them here once,
     * after the IPI: a worker that got here only after the dispatcher had
     * published MM_READY and credited it for the host's first command
     * took that credit and then waited for ever, with the command in its
     * queue: the lost start-up command of issue 13.)
     */

    if (h == HART_DISPATCHER) {
        if (rd64(BOOTINFO) == BOOTINFO_MAGIC) {
            dram_end = rd64(BOOTINFO + BOOTINFO_DRAM_END);
            cm_shires = rd64(BOOTINFO + BOOTINFO_SHIRES);
        } else {
            dram_end = DRAM_START + (2ULL << 30);
            cm_shires = 0;
        }
        mm_status(0);
        mm_dir_publish();
        mm_status(1);                   /* DEV_INTF_READY */
        for (unsigned w = 0; w < MM_SQ_COUNT; w++) {
            vq_init(worker_queue(w), MM_SQ_SIZE);
        }
        for (unsigned w = MM_SQ_COUNT; w < NUM_WORKERS; w++) {
            vq_init(worker_queue(w), MM_HP_SIZE);
        }
        vq_init(MM_CQ, MM_CQ_SIZE);
        wr32(EDMA_BASE + EDMA_WR_ENGINE_EN, 1);
        wr32(EDMA_BASE + EDMA_RD_ENGINE_EN, 1);
        for (int16_t st = 2; st <= 4; st++) {
            mm_status(st);
        }
        for (unsigned i = 0; i < NUM_ROLE_WORKERS; i++) {
            fcc_wait(FCC_WORK);         /* halted until each has arrived */
        }
        for (int16_t st = 5; st <= 7; st++) {     /* MM_WORKERS_INIT.. */
            mm_status(st);
        }
        mm_status(MM_STATUS_READY);
        print("MM: ready: shires 0x%x, DRAM end 0x%lx\n", cm_shires,
              dram_end);
        dispatcher();
    }
    /* the others need nothing of the set-up before their first credit */
    if (h == HART_KW) {
        worker_arrived();
        kernel_worker();
    }
    for (unsigned w = 0; w < NUM_WORKERS; w++) {
        if (h == worker_hart(w)) {
            worker_arrived();
            sq_worker(w, h);
        }
    }
    idle_forever();
}
