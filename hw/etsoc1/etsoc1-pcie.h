/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the card side of the PCIe host interface
 * (docs/host-interface.md).
 *
 * QEMU interface of "etsoc1-pcie" (the PCIe0 endpoint):
 *  + sysbus MMIO 0: DBI space, 2 GiB (config header, inbound iATU, and the
 *    eDMA child's registers at +0x380000)
 *  + sysbus MMIO 1: NOPCIESR, 4 KiB (MSI_TX_VEC: firmware -> host MSI)
 *  + sysbus MMIO 2: PU_TRG_PCIE, 8 KiB (host doorbells)
 *  + sysbus MMIO 3: PU_TRG_PCIE_SP, 8 KiB (SP clears the host IPI)
 *  + sysbus MMIO 4: PU_TRG_MMIN, 8 KiB (MM acknowledges the doorbell)
 *  + sysbus MMIO 5, 6: mailbox SRAMs PC_MM and PC_SP, 4 KiB RAM each
 *  + sysbus MMIO 7: PCIe0 outbound slave window, 128 GiB (MSI-X match)
 *  + sysbus MMIO 8: qtest hook "host view": offset = host bus address
 *  + GPIO out 0: host -> SP doorbell (SP PLIC MBOX_HOST, level)
 *    GPIO out 1: host -> MM doorbell (PU PLIC PCIE_MESSAGE, level)
 *  + child "edma" (etsoc1-edma): GPIO out 0-3 write channels, 4-7 read
 *    channels (SP PLIC PCIE0_EDMA0 + n), level, done|abort and not masked
 *  + properties "bar0", "bar2": bus addresses the "host" assigned;
 *    "enumerated": start as if the host had enabled memory space and
 *    written the BARs (as Esperanto's simulator does); "host-mem": link to
 *    the host memory backend used by the eDMA
 */

#ifndef HW_ETSOC1_ETSOC1_PCIE_H
#define HW_ETSOC1_ETSOC1_PCIE_H

#include "qemu/notify.h"
#include "exec/memattrs.h"
#include "hw/sysbus.h"
#include "qom/object.h"

/* Card addresses (Esperanto hal_device.h, host-interface.md 2.3). */
#define ETSOC1_PCIE0_SLV_BASE    ((uint64_t)0x4000000000)
#define ETSOC1_PCIE0_SLV_SIZE    (128ULL << 30)
#define ETSOC1_PCIE0_DBI_BASE    0x7e80000000ULL
#define ETSOC1_PCIE0_DBI_SIZE    (2ULL << 30)
#define ETSOC1_PCIE_NOPCIESR     0x7f80001000ULL
#define ETSOC1_PU_TRG_MMIN       0x0020000000ULL
#define ETSOC1_PU_MBOX_PC_MM     0x0020007000ULL
#define ETSOC1_PU_MBOX_PC_SP     0x0030003000ULL
#define ETSOC1_PU_TRG_PCIE       0x0030008000ULL
#define ETSOC1_PU_TRG_PCIE_SP    0x003000a000ULL
#define ETSOC1_EDMA_DBI_OFFSET   0x380000
#define ETSOC1_IATU_DBI_OFFSET   0x300000

/* Defaults of DeviceSysEmu (host-interface.md 2.3). */
#define ETSOC1_PCIE_BAR0_DEFAULT 0x1000000000ULL
#define ETSOC1_PCIE_BAR2_DEFAULT 0x2000000000ULL
#define ETSOC1_PCIE_BAR0_SIZE    (32ULL << 30)
#define ETSOC1_PCIE_BAR2_SIZE    0x4000

/* qtest-only windows (docs/host-interface.md, "Test hooks") */
#define ETSOC1_HOSTVIEW_BASE     0x1000000000ULL   /* card PA = bus addr */
#define ETSOC1_HOSTVIEW_SIZE     0x2000000000ULL
#define ETSOC1_LOOPBACK_BASE     0x3000000000ULL   /* + host address */
#define ETSOC1_LOOPBACK_DEFAULT  (64 * MiB)

#define ETSOC1_IATU_INBOUND      32
#define ETSOC1_IATU_WORDS        9      /* registers 0x00..0x20 */
#define ETSOC1_EDMA_CHANNELS     4      /* per direction */
#define ETSOC1_EDMA_ELEM_SIZE    24

/* ---- host memory backend (the host link implements it) ---------------- */

#define TYPE_ETSOC1_HOST_MEM "etsoc1-host-mem"
typedef struct Etsoc1HostMemClass Etsoc1HostMemClass;
DECLARE_CLASS_CHECKERS(Etsoc1HostMemClass, ETSOC1_HOST_MEM,
                       TYPE_ETSOC1_HOST_MEM)
#define ETSOC1_HOST_MEM(obj) \
    INTERFACE_CHECK(Etsoc1HostMem, (obj), TYPE_ETSOC1_HOST_MEM)
typedef struct Etsoc1HostMem Etsoc1HostMem;

/*
 * Host memory as the eDMA sees it: @addr is a host bus address (for
 * Esperanto's runtime, a host virtual address).  Return MEMTX_OK, or an
 * error: the engine then aborts the channel with the error bit a failed
 * completion sets.  Called with the BQL held, from the engine's timer.
 */
/*
 * Completion of an asynchronous access: @tag is the caller's, passed back
 * unchanged so that it can recognise (and drop) a completion that belongs
 * to a request it has since given up.
 */
typedef void Etsoc1HostMemDone(void *opaque, uint64_t tag, MemTxResult res);

/*
 * Who asks (every method gets it; NULL from a caller that is no eDMA
 * channel): the channel, 0-3 the write channels (card -> host) and 4-7
 * the read channels, as the engine's interrupt lines are numbered; and
 * the channel's emulated time at the request (its "at", minion cycles).
 * A record (etsoc1-rr.c) keeps one byte stream per channel, so the
 * backend that records or replays needs the channel; the host link
 * ignores it except to record.
 */
typedef struct Etsoc1HostMemCtx {
    uint8_t chan;
    bool write;
    uint64_t at;
} Etsoc1HostMemCtx;

#define ETSOC1_HOST_MEM_CHANS   (2 * ETSOC1_EDMA_CHANNELS)

/* What etsoc1_host_mem_start() returns when @done will run later. */
#define ETSOC1_HOST_MEM_PENDING ((MemTxResult)0x80000000u)

/*
 * A backend implements either the synchronous pair or the asynchronous
 * pair (a host across a socket answers later, on the same main loop, so
 * it cannot block).  start_read/start_write return ETSOC1_HOST_MEM_PENDING
 * and call @done(@opaque, @tag, result) later from the main loop, never
 * from inside the call; a read fills @buf before @done, a write copies
 * @buf before returning.  @buf must stay valid until @done.  They may
 * also finish at once and return the result (then @done is not called).
 */
struct Etsoc1HostMemClass {
    InterfaceClass parent_class;
    MemTxResult (*read)(Etsoc1HostMem *hm, uint64_t addr, void *buf,
                        uint64_t len, const Etsoc1HostMemCtx *ctx);
    MemTxResult (*write)(Etsoc1HostMem *hm, uint64_t addr, const void *buf,
                         uint64_t len, const Etsoc1HostMemCtx *ctx);
    MemTxResult (*start_read)(Etsoc1HostMem *hm, uint64_t addr, void *buf,
                              uint64_t len, Etsoc1HostMemDone *done,
                              void *opaque, uint64_t tag,
                              const Etsoc1HostMemCtx *ctx);
    MemTxResult (*start_write)(Etsoc1HostMem *hm, uint64_t addr,
                               const void *buf, uint64_t len,
                               Etsoc1HostMemDone *done, void *opaque,
                               uint64_t tag, const Etsoc1HostMemCtx *ctx);
    /*
     * Optional: the access done now if the backend reaches that host
     * memory without a round trip (memory the host shared with the card,
     * or a record being replayed), else ETSOC1_HOST_MEM_PENDING and
     * nothing done.  Nothing touches @buf after it returns.  An access
     * that fails part way (a host page the host unmapped) sets *@done to
     * the bytes from @addr on that did move, else *@done is @len.
     */
    MemTxResult (*direct)(Etsoc1HostMem *hm, bool write, uint64_t addr,
                          void *buf, uint64_t len, uint64_t *done,
                          const Etsoc1HostMemCtx *ctx);
    /*
     * Optional, with direct: how many bytes from @addr on, at most @len,
     * one call of direct should take (they lie in one piece of memory the
     * host shared, and one call costs less than one per piece); 0: one
     * piece at a time.  The eDMA moves the pieces of one timer run with
     * one call where this lets it.
     */
    uint64_t (*direct_span)(Etsoc1HostMem *hm, uint64_t addr, uint64_t len,
                            const Etsoc1HostMemCtx *ctx);
    /*
     * Optional: the channel of @ctx raises DONE (@abort false) or ABORT
     * at emulated time @ctx->at; return the time it takes.  A record
     * keeps it; a replay checks it and returns the record's, which
     * differs only where the channel's pace followed the host (a STOP
     * doorbell mid-list: docs/record-replay.md, Limits).
     */
    uint64_t (*end)(Etsoc1HostMem *hm, const Etsoc1HostMemCtx *ctx,
                    bool abort);
};

MemTxResult etsoc1_host_mem_read(Object *hm, uint64_t addr, void *buf,
                                 uint64_t len, const Etsoc1HostMemCtx *ctx);
MemTxResult etsoc1_host_mem_write(Object *hm, uint64_t addr, const void *buf,
                                  uint64_t len, const Etsoc1HostMemCtx *ctx);
/*
 * The eDMA's entry: synchronous backends answer at once; asynchronous
 * ones return ETSOC1_HOST_MEM_PENDING (see above).  @write: card -> host.
 */
MemTxResult etsoc1_host_mem_start(Object *hm, bool write, uint64_t addr,
                                  void *buf, uint64_t len,
                                  Etsoc1HostMemDone *done, void *opaque,
                                  uint64_t tag, const Etsoc1HostMemCtx *ctx);
/*
 * The access done now, or ETSOC1_HOST_MEM_PENDING if it would need a
 * round trip (then nothing was done: use etsoc1_host_mem_start).  Since
 * nothing writes @buf later, @buf may be card memory itself, mapped: the
 * eDMA copies once instead of through its bounce buffer.  A failed access
 * may have moved the first *@done bytes (a read: filled that much of @buf).
 */
MemTxResult etsoc1_host_mem_direct(Object *hm, bool write, uint64_t addr,
                                   void *buf, uint64_t len, uint64_t *done,
                                   const Etsoc1HostMemCtx *ctx);
/* The backend's end, or @ctx->at if it has none. */
uint64_t etsoc1_host_mem_end(Object *hm, const Etsoc1HostMemCtx *ctx,
                             bool abort);
/* The backend's direct_span, or 0 (one piece at a time) if it has none. */
uint64_t etsoc1_host_mem_direct_span(Object *hm, uint64_t addr,
                                     uint64_t len,
                                     const Etsoc1HostMemCtx *ctx);

/*
 * The loopback backend: host memory is a RAM buffer of "size" bytes at
 * host bus addresses [0, size).  Its RAM region is "mr", which the machine
 * maps at ETSOC1_LOOPBACK_BASE under qtest so that tests can fill and check
 * it.
 */
#define TYPE_ETSOC1_HOST_LOOPBACK "etsoc1-host-loopback"
OBJECT_DECLARE_SIMPLE_TYPE(Etsoc1HostLoopback, ETSOC1_HOST_LOOPBACK)

struct Etsoc1HostLoopback {
    Object parent_obj;
    MemoryRegion mr;
    uint64_t size;
};

void etsoc1_host_loopback_init_ram(Etsoc1HostLoopback *lb, Error **errp);

/* ---- the rest of the chip, as the PCIe side sees it --------------------- */

/*
 * What the endpoint and the eDMA need of the chip behind them, which the
 * machine implements: they include no minion or L3 header and reach the
 * harts and the L3 only through these.
 */
#define TYPE_ETSOC1_DMA_CHIP "etsoc1-dma-chip"
typedef struct Etsoc1DmaChipClass Etsoc1DmaChipClass;
DECLARE_CLASS_CHECKERS(Etsoc1DmaChipClass, ETSOC1_DMA_CHIP,
                       TYPE_ETSOC1_DMA_CHIP)
#define ETSOC1_DMA_CHIP(obj) \
    INTERFACE_CHECK(Etsoc1DmaChip, (obj), TYPE_ETSOC1_DMA_CHIP)
typedef struct Etsoc1DmaChip Etsoc1DmaChip;

struct Etsoc1DmaChipClass {
    InterfaceClass parent_class;
    /*
     * Card memory [@pa, @pa + @len) was written by the host or a DMA (the
     * L3 installs the lines, polls on them wake); @more bytes of the same
     * element follow.  Returns up to where the lines were only counted
     * (etsoc1_l3_install_ahead).
     */
    uint64_t (*lines_written)(Etsoc1DmaChip *chip, uint64_t pa, uint64_t len,
                              uint64_t more);
    /*
     * The clock of the hart making the current access into *@t; false
     * (and 0) if no hart makes it.
     */
    bool (*requester_time)(Etsoc1DmaChip *chip, uint64_t *t);
    /* The hart making the current access learns of an event at @t. */
    void (*requester_sees)(Etsoc1DmaChip *chip, uint64_t t);
    /*
     * Host inputs at a stamped time (etsoc1-sync.c, "Host inputs").
     * input_post: queue @fn(@opaque, T) to run (BQL held, perhaps before
     * it returns) at T, a time after everything the card has done; false
     * if inputs are not stamped (the caller applies it at once).
     * input_time: the T of the input being applied, 0 outside one.
     * host_observe: the minion making the current access looks at host
     * state that an input last changed at @last_t; it may not return (it
     * leaves the access and halts until the inputs before it are in).
     */
    bool (*input_post)(Etsoc1DmaChip *chip, const char *what, uint64_t addr,
                       uint64_t len, void (*fn)(void *opaque, uint64_t t),
                       void *opaque);
    uint64_t (*input_time)(Etsoc1DmaChip *chip);
    void (*host_observe)(Etsoc1DmaChip *chip, uint64_t last_t);
    /*
     * The eDMA on the chip's time (etsoc1-sync.c, "The eDMA's steps"):
     * its next step comes at @t (UINT64_MAX: none), @host_wait if it
     * waits for its host's answer, and @kick is put due when the harts
     * may have let it go.  True if it may be taken now.
     */
    bool (*link_turn)(Etsoc1DmaChip *chip, uint64_t t, bool host_wait,
                      QEMUTimer *kick);
};

uint64_t etsoc1_dma_chip_written(Object *chip, uint64_t pa, uint64_t len,
                                 uint64_t more);
bool etsoc1_dma_chip_requester_time(Object *chip, uint64_t *t);
void etsoc1_dma_chip_requester_sees(Object *chip, uint64_t t);
bool etsoc1_dma_chip_input_post(Object *chip, const char *what,
                                uint64_t addr, uint64_t len,
                                void (*fn)(void *opaque, uint64_t t),
                                void *opaque);
uint64_t etsoc1_dma_chip_input_time(Object *chip);
void etsoc1_dma_chip_host_observe(Object *chip, uint64_t last_t);
bool etsoc1_dma_chip_link_turn(Object *chip, uint64_t t, bool host_wait,
                               QEMUTimer *kick);

/* ---- eDMA ------------------------------------------------------------ */

#define TYPE_ETSOC1_EDMA "etsoc1-edma"
OBJECT_DECLARE_SIMPLE_TYPE(Etsoc1EdmaState, ETSOC1_EDMA)

typedef struct Etsoc1EdmaChan {
    struct Etsoc1EdmaState *engine;
    QEMUTimer *timer;
    uint8_t index;
    bool write;             /* write channel: card -> host */
    /* registers */
    uint32_t control1;      /* without CS, which is @state */
    uint32_t control2;
    uint32_t xfer_size;
    uint64_t sar, dar;
    uint64_t llp;           /* where the next element is fetched */
    /* walk state */
    uint8_t state;          /* CS: Etsoc1EdmaCs */
    bool pending;           /* a chunk is in flight until the timer */
    bool lie;               /* the element in progress has LIE */
    bool done_raised;       /* a LIE element raised DONE this command */
    bool waiting;           /* a host access is out (asynchronous host) */
    uint64_t req_tag;       /* tag of the newest host access */
    uint64_t req_len;       /* its length */
    uint8_t *bounce;        /* step-bytes: the piece in flight */
    uint32_t walked;        /* elements fetched for this command */
    uint64_t e_sar, e_dar, e_left;  /* element in progress */
    /*
     * Emulated time (minion cycles) at which the work so far ends: the
     * ringing hart's time plus the link time of every piece.  A hart that
     * sees DONE or ABORT in INT_STATUS takes at least this time.
     */
    uint64_t at;
    /*
     * On the chip's time (a hart rang the doorbell; docs/timing.md
     * "DMA"): the channel's pieces go in emulated-time order with the
     * other such channels' (the engine's link_timer), and it shares the
     * link with those whose emulated work [start, at) overlaps.  Else
     * (qtest) on QEMU_CLOCK_VIRTUAL, sharing with the channels that run
     * at that host instant.
     */
    bool on_chip;
    uint64_t start;         /* emulated time of the doorbell */
    /*
     * On the chip's time: the emulated time of a STOP doorbell, or of
     * the engine disabled, that came while the channel ran (UINT64_MAX:
     * none), the earliest if several.  It takes effect at the channel's
     * first step at or after that time (edma_link_run), so what moved
     * before it follows from the model's times, not from how far the
     * host had taken the steps when the write came.
     */
    uint64_t stop_at;
    bool stop_quiet;        /* the engine was disabled: no ABORT */
    /*
     * QEMU_CLOCK_VIRTUAL time at which the last piece has crossed the
     * link (the timer's deadline); not migrated: post_load takes it from
     * the timer.
     */
    int64_t due;
    /*
     * Card memory written by the pieces of this timer run and not yet
     * installed in the L3, [ins_lo, ins_hi): one install for them all.
     * Empty whenever the main loop runs (not migrated).
     */
    uint64_t ins_lo, ins_hi;
    /* of the element in progress: written, not looked up in the L3 */
    uint64_t skip_lo, skip_hi;
    /*
     * The pieces of this timer run that one host access has already moved,
     * run_len bytes of the element in progress from e_sar/e_dar on, still
     * to be priced one by one; the first run_ok of them moved, the piece
     * after those failed with run_res.  Empty whenever the main loop runs
     * (not migrated).
     */
    uint64_t run_len, run_ok;
    MemTxResult run_res;
} Etsoc1EdmaChan;

struct Etsoc1EdmaState {
    SysBusDevice parent_obj;
    MemoryRegion mmio;
    Etsoc1EdmaChan ch[2][ETSOC1_EDMA_CHANNELS];     /* [write][n] */
    qemu_irq irq[2 * ETSOC1_EDMA_CHANNELS];

    /* registers, [0] write side, [1] read side */
    uint32_t engine_en[2];
    uint32_t doorbell[2];
    uint32_t int_status[2];
    uint32_t int_mask[2];
    uint32_t err_low[2];    /* WR_ERR_STATUS, RD_ERR_STATUS_LOW */
    uint32_t rd_err_high;
    uint32_t arb[4];        /* arbitration weights: stored, no effect */
    /*
     * The channels on the chip's time: their steps run from this timer,
     * in (at, channel) order; link_t is the time of the last one taken.
     */
    QEMUTimer *link_timer;
    uint64_t link_t;

    /* properties */
    Object *host_mem;
    Object *chip;           /* link "chip": an etsoc1-dma-chip */
    MemoryRegion *dma_mr;   /* link "dma": card memory as the eDMA sees it */
    AddressSpace dma_as;
    struct Etsoc1Timing *timing;    /* link "timing": the DMA rates */
    uint64_t dram_base, dram_size;
    uint64_t scp_base;
    uint32_t scp_shires;
    uint64_t scp_window, scp_size;
    uint32_t max_walk;
    uint64_t max_elem;
    uint32_t step_bytes;
    bool same_stream;
};

/* ---- PCIe endpoint --------------------------------------------------- */

#define TYPE_ETSOC1_PCIE_EP "etsoc1-pcie"
/* ETSOC1_PCIE is the memory-map index: the cast is ETSOC1_PCIE_EP */
OBJECT_DECLARE_SIMPLE_TYPE(Etsoc1PcieState, ETSOC1_PCIE_EP)

/* Called when firmware sends MSI vectors to the host (bitmap of vectors). */
typedef void Etsoc1MsiFn(void *opaque, uint32_t vectors);

enum { ETSOC1_PCIE_IRQ_SP, ETSOC1_PCIE_IRQ_MM, ETSOC1_PCIE_IRQS };

struct Etsoc1PcieState {
    SysBusDevice parent_obj;

    MemoryRegion dbi;
    MemoryRegion dbi_regs;
    MemoryRegion nopciesr;
    MemoryRegion trg_pcie;
    MemoryRegion trg_pcie_sp;
    MemoryRegion trg_mmin;
    MemoryRegion mbox_mm;   /* I/O over mbox_mm_buf: minions observe it */
    MemoryRegion mbox_sp;
    MemoryRegion slv;
    MemoryRegion hostview;
    Etsoc1EdmaState edma;
    qemu_irq irq[ETSOC1_PCIE_IRQS];

    /* config header and port logic */
    uint32_t command;
    uint32_t bar[6];
    uint32_t msi_cap;
    uint32_t msix_cap;
    uint32_t msix_match[2];
    uint32_t iatu[ETSOC1_IATU_INBOUND][ETSOC1_IATU_WORDS];
    uint32_t nopciesr_reg[8];
    /* mailbox interrupt registers */
    uint32_t host_to_sp;    /* IPI_TRIGGER bits, cleared by the SP */
    uint32_t mm_count;      /* MMM_INT_INC - PCI_INT_DEC */
    uint32_t msi_sent;      /* vectors sent so far (diagnosis, qtest) */
    /*
     * The PC_MM mailbox SRAM, and the T of the last host input that wrote
     * it or rang the MM doorbell (etsoc1-sync.c, "Host inputs"): a minion
     * that looks at either learns of that input, so its clock moves there.
     */
    uint8_t mbox_mm_buf[4096];
    uint64_t mbox_mm_t;
    uint64_t trg_t;

    Etsoc1MsiFn *msi_fn;
    void *msi_opaque;
    NotifierList iatu_notifiers;    /* data: the region index, as int */
    bool in_host_access;

    /* properties */
    uint64_t bar0_addr, bar2_addr;
    bool enumerated;
    uint32_t num_msi;
};

/*
 * The host link's side.  A host access to @bus_addr goes through the
 * inbound iATU to card memory; an access that leaves a region goes on in
 * the next.  An address no enabled region matches answers
 * MEMTX_DECODE_ERROR (an Unsupported Request on the wire).
 */
MemTxResult etsoc1_pcie_host_read(Etsoc1PcieState *s, uint64_t bus_addr,
                                  void *buf, uint64_t len);
MemTxResult etsoc1_pcie_host_write(Etsoc1PcieState *s, uint64_t bus_addr,
                                   const void *buf, uint64_t len);
bool etsoc1_pcie_translate(Etsoc1PcieState *s, uint64_t bus_addr,
                           uint64_t *card_addr, uint64_t *room);
void etsoc1_pcie_set_msi_handler(Etsoc1PcieState *s, Etsoc1MsiFn *fn,
                                 void *opaque);
/* iATU CTRL2 writes (DeviceSysEmu waits for region 3 enabled). */
void etsoc1_pcie_add_iatu_notifier(Etsoc1PcieState *s, Notifier *n);
bool etsoc1_pcie_iatu_enabled(Etsoc1PcieState *s, unsigned region);

#endif
