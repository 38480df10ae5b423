/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Facts shared by the service-processor stub, the minion firmware and the
 * guest tests that drive the card's units themselves (tests/edmastop.c):
 * card addresses, the host-interface layouts (shared/spec/host-interface.md
 * sections 2.3-5.1) and small helpers.  Layouts are byte offsets, written
 * through the accessors below, so no packed structs are needed.
 */
#ifndef ETSOC1_CARD_H
#define ETSOC1_CARD_H

#include <stdint.h>
#include <stddef.h>

/* ---- card addresses ---- */
#define PU_PLIC             0x10000000ULL
#define SP_PLIC             0x50000000ULL
#define PU_TRG_MMIN         0x20000000ULL
#define PCI_INT_DEC         (PU_TRG_MMIN + 0x8)
#define PU_MBOX_PC_MM       0x20007000ULL   /* BAR2 + 0 */
#define PU_MBOX_PC_SP       0x30003000ULL   /* BAR2 + 0x1000 */
#define PU_TRG_PCIE         0x30008000ULL   /* BAR2 + 0x2000 */
#define PU_TRG_PCIE_SP      0x3000a000ULL   /* IPI_CLEAR at +0 */
#define SP_UART0            0x52022000ULL
#define PCIE_DBI            0x7e80000000ULL
#define IATU_BASE           (PCIE_DBI + 0x300000)
#define EDMA_BASE           (PCIE_DBI + 0x380000)
#define MSI_TX_VEC          0x7f80001018ULL
#define PU_TIMER            0x12005000ULL

/*
 * ---- eDMA registers (docs/host-interface.md, spec 5.1), offsets from
 * EDMA_BASE; channel registers from EDMA_CH(write side, n) ----
 */
#define EDMA_WR_ENGINE_EN   0x0c
#define EDMA_WR_DOORBELL    0x10
#define EDMA_WR_INT_STATUS  0x4c
#define EDMA_WR_INT_CLEAR   0x58
#define EDMA_RD_ENGINE_EN   0x2c
#define EDMA_RD_DOORBELL    0x30
#define EDMA_RD_INT_STATUS  0xa0
#define EDMA_RD_INT_CLEAR   0xac
#define EDMA_DOORBELL_STOP  (1u << 31)
#define EDMA_INT_ABORT(n)   (1u << (16 + (n)))
#define EDMA_CH(wr, n)      (EDMA_BASE + ((wr) ? 0x200 : 0x300) + (n) * 0x200)
#define CH_CONTROL1         0x00
#define CH_TRANSFER_SIZE    0x08
#define CH_SAR_LO           0x0c
#define CH_SAR_HI           0x10
#define CH_DAR_LO           0x14
#define CH_DAR_HI           0x18
#define CH_LLP_LO           0x1c
#define CH_LLP_HI           0x20
#define CTL_LIE             (1u << 3)
#define CTL_CS(ctl)         (((ctl) >> 5) & 3)  /* 1 running, 3 stopped */
#define CTL_CCS             (1u << 8)
#define CTL_LLE             (1u << 9)
/* a linked-list element: control word, size, SAR, DAR */
#define EL_CB               (1u << 0)
#define EL_TCB              (1u << 1)
#define EL_LLP              (1u << 2)
#define EL_LIE              (1u << 3)
#define EL_SIZE             24
#define EDMA_CHANNELS       4

/* PU timers (DesignWare APB timers): timer n's registers at n * 0x14 */
#define PU_TIMER_HZ         100000000ULL    /* the model's timer clock */
#define TIMER_REG(n, r)     (PU_TIMER + 0x14 * (n) + (r))
#define TIMER_LOADCOUNT     0x00
#define TIMER_CONTROL       0x08
#define TIMER_EOI           0x0c            /* a read clears the interrupt */
#define TIMER_INTSTAT       0x10
#define TIMER_ENABLE        (1u << 0)
#define TIMER_USER_MODE     (1u << 1)       /* reload LoadCount at 0 */

#define DRAM_START          0x8000000000ULL
#define DMA_LL_BASE         0x8004000000ULL
#define DRAM_MEMMAP_BEGIN   0x8004001000ULL /* BAR0 + 0 */
#define HOST_MANAGED_START  0x8005801000ULL /* BAR0 + 0x1800000 */
#define SCP_WIN_START       0x80000000ULL   /* SCP window, inclusive */
#define SCP_WIN_END         0x883fffffULL

/* PLIC (SiFive layout) */
#define PLIC_PRIO(b, src)   ((b) + 4 * (src))
#define PLIC_ENABLE(b, ctx, src) \
    ((b) + 0x2000 + 0x80 * (ctx) + 4 * ((src) / 32))
#define PLIC_THRESH(b, ctx) ((b) + 0x200000 + 0x1000 * (ctx))
#define PLIC_CLAIM(b, ctx)  (PLIC_THRESH(b, ctx) + 4)
#define PLIC_SRC_DMA_DONE0  16      /* PU PLIC: eDMA wr 0-3, rd 0-3 */
#define PLIC_SRC_PCIE_MSG   33      /* PU PLIC: host -> MM doorbell */
#define PLIC_SRC_PU_TIMER0  6       /* PU PLIC: PU timer n -> 6 + n */
#define PLIC_SRC_MBOX_HOST  115     /* SP PLIC: host -> SP doorbell */

/* MSI vectors (MSI_TX_VEC bits) */
#define MSI_SP_SQ 0
#define MSI_SP_CQ 1
#define MSI_MM_SQ 2
#define MSI_MM_CQ 3

/* ---- directories (DIRs) ---- */
#define MM_DIR_SIZE         112
#define MM_DIR_GEN_SIZE     16
#define MM_DIR_STATUS       8
#define MM_DIR_CRC          10
#define MM_STATUS_READY     8
#define SP_DIR_SIZE         352
#define SP_DIR_GEN_SIZE     72
#define SP_DIR_CRC          16
#define SP_DIR_STATUS       44
#define SP_STATUS_READY     12

/* ---- virtual queues: CircBuffCb then the ring ---- */
#define CB_HEAD     0       /* producer writes */
#define CB_TAIL     8       /* consumer writes */
#define CB_LEN      16      /* ring bytes */
#define CB_SIZE     32

/* MM queues: offsets inside the VQ region, which is BAR2 + 0x100 */
#define MM_VQ_BAR_OFFSET    0x100
#define MM_VQ_SIZE          0xf00
#define MM_SQ_OFFSET        0x000
#define MM_SQ_COUNT         2
#define MM_SQ_SIZE          0x440
#define MM_HP_OFFSET        0x880
#define MM_HP_COUNT         2
#define MM_HP_SIZE          0x40
#define MM_CQ_OFFSET        0x900
#define MM_CQ_COUNT         1
#define MM_CQ_SIZE          0x600

/* SP queues: offsets inside the VQ region, which is BAR2 + 0x1200 */
#define SP_VQ_BAR_OFFSET    0x1200
#define SP_VQ_SIZE          0xe00
#define SP_SQ_OFFSET        0x000
#define SP_SQ_SIZE          0x700
#define SP_CQ_OFFSET        0x700
#define SP_CQ_SIZE          0x700

/* ---- device-api: the 8-byte common header ---- */
#define HDR_SIZE    0       /* u16: commands total, responses payload */
#define HDR_TAG     2
#define HDR_MSG     4
#define HDR_FLAGS   6
#define HDR_LEN     8

/* ---- small memory helpers ---- */
static inline void wr8(uint64_t a, uint8_t v)   { *(volatile uint8_t *)a = v; }
static inline void wr16(uint64_t a, uint16_t v) { *(volatile uint16_t *)a = v; }
static inline void wr32(uint64_t a, uint32_t v) { *(volatile uint32_t *)a = v; }
static inline void wr64(uint64_t a, uint64_t v) { *(volatile uint64_t *)a = v; }
static inline uint8_t rd8(uint64_t a)   { return *(volatile uint8_t *)a; }
static inline uint16_t rd16(uint64_t a) { return *(volatile uint16_t *)a; }
static inline uint32_t rd32(uint64_t a) { return *(volatile uint32_t *)a; }
static inline uint64_t rd64(uint64_t a) { return *(volatile uint64_t *)a; }

/* little-endian stores into a byte buffer */
static inline void put16(uint8_t *p, uint16_t v)
{
    p[0] = v;
    p[1] = v >> 8;
}

static inline void put32(uint8_t *p, uint32_t v)
{
    put16(p, v);
    put16(p + 2, v >> 16);
}

static inline void put64(uint8_t *p, uint64_t v)
{
    put32(p, v);
    put32(p + 4, v >> 32);
}

static inline uint16_t get16(const uint8_t *p)
{
    return p[0] | (uint16_t)p[1] << 8;
}

static inline uint32_t get32(const uint8_t *p)
{
    return get16(p) | (uint32_t)get16(p + 2) << 16;
}

static inline uint64_t get64(const uint8_t *p)
{
    return get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* The standard reflected CRC-32 (boost crc_32_type), bitwise: small. */
static inline uint32_t crc32(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffff;

    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++) {
            c = (c >> 1) ^ (0xedb88320 & -(c & 1));
        }
    }
    return c ^ 0xffffffff;
}

/* One 32-byte mem_region entry of a DIR (spec 3.5). */
static inline void dir_region(uint8_t *r, uint8_t type, uint8_t bar,
                              uint32_t attr, uint64_t bar_off,
                              uint64_t size, uint64_t dev)
{
    put16(r + 0, 32);
    r[2] = type;
    r[3] = bar;
    put32(r + 4, attr);
    put64(r + 8, bar_off);
    put64(r + 16, size);
    put64(r + 24, dev);
}

/*
 * Publish the DIR @d (@size bytes) at @at: CRC32 at @crc_off over all that
 * follows the generic attributes (@gen_size bytes), then copy it out.
 */
static inline void dir_publish(uint64_t at, uint8_t *d, unsigned size,
                               unsigned gen_size, unsigned crc_off)
{
    put32(d + crc_off, crc32(d + gen_size, size - gen_size));
    for (unsigned i = 0; i < size; i++) {
        wr8(at + i, d[i]);
    }
}

/* A boot status the host polls: ordered after everything before it. */
static inline void dir_set_status(uint64_t at, int16_t st)
{
    __asm__ volatile("fence" ::: "memory");
    wr16(at, st);
    __asm__ volatile("fence" ::: "memory");
}

/* Send one MSI vector to the host (written 1 << vec, then 0). */
static inline void msi_send(unsigned vec)
{
    __asm__ volatile("fence" ::: "memory");
    wr32(MSI_TX_VEC, 1u << vec);
    wr32(MSI_TX_VEC, 0);
}

/*
 * Virtual queue access.  A queue is a CircBuffCb at @q followed by its
 * ring of cb_len bytes; messages may wrap.  These copy with byte
 * accesses because mailbox RAM takes any size and it keeps wrap simple.
 */
static inline uint64_t vq_len(uint64_t q)
{
    return rd64(q + CB_LEN);
}

static inline uint64_t vq_used(uint64_t q)
{
    uint64_t len = vq_len(q);

    return (rd64(q + CB_HEAD) + len - rd64(q + CB_TAIL)) % len;
}

static inline void vq_copy_out(uint64_t q, uint64_t off, uint8_t *buf,
                               uint32_t n)
{
    uint64_t len = vq_len(q);

    for (uint32_t i = 0; i < n; i++) {
        buf[i] = rd8(q + CB_SIZE + (off + i) % len);
    }
}

static inline void vq_copy_in(uint64_t q, uint64_t off, const uint8_t *buf,
                              uint32_t n)
{
    uint64_t len = vq_len(q);

    for (uint32_t i = 0; i < n; i++) {
        wr8(q + CB_SIZE + (off + i) % len, buf[i]);
    }
}

/*
 * Pop one command (its first u16 is its total size) into @buf of @max
 * bytes.  Returns its size, 0 if the queue is empty, or -1 if the queue
 * holds a malformed command (then the queue is emptied: the host broke
 * the protocol and there is no way to find the next command).
 */
static inline int vq_pop(uint64_t q, uint8_t *buf, uint32_t max)
{
    uint64_t used = vq_used(q), tail = rd64(q + CB_TAIL);
    uint16_t size;

    if (used < HDR_LEN) {
        return 0;
    }
    vq_copy_out(q, tail, buf, 2);
    size = get16(buf);
    if (size < HDR_LEN || size > used || size > max) {
        wr64(q + CB_TAIL, rd64(q + CB_HEAD));
        return -1;
    }
    vq_copy_out(q, tail, buf, size);
    __asm__ volatile("fence" ::: "memory");
    wr64(q + CB_TAIL, (tail + size) % vq_len(q));
    return size;
}

/* Push @n bytes if there is room (len - 1 - used); 1 on success. */
static inline int vq_push(uint64_t q, const uint8_t *buf, uint32_t n)
{
    uint64_t head = rd64(q + CB_HEAD);

    if (vq_len(q) - 1 - vq_used(q) < n) {
        return 0;
    }
    vq_copy_in(q, head, buf, n);
    __asm__ volatile("fence" ::: "memory");
    wr64(q + CB_HEAD, (head + n) % vq_len(q));
    return 1;
}

static inline void vq_init(uint64_t q, uint64_t total)
{
    wr64(q + CB_HEAD, 0);
    wr64(q + CB_TAIL, 0);
    wr64(q + CB_LEN, total - CB_SIZE);
    wr64(q + 24, 0);
}

#endif
