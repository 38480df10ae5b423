/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Service-processor stub (docs/firmware.md): what the BL2 does for the host
 * interface and nothing else.  It probes the shires and DRAM, publishes the
 * SP DIR through its boot stages to DEV_READY, maps BAR0/BAR2 with the
 * inbound iATU, wakes the master minion, and then answers every
 * management command on the SP SQ with an error: no management service
 * is implemented.
 */
#include <stdarg.h>
#include "../fw/card.h"
#include "../fw/bootinfo.h"

#define UART_THR 0x00
#define UART_LSR 0x14
#define LSR_THRE 0x20

/* ESR of a minion shire: [32] 1 | [31:30] PP | [29:22] shire | offset */
#define SHIRE_ESR_M(shire, off) \
    (0x100000000ULL | 3ULL << 30 | (uint64_t)(shire) << 22 | (off))
#define SHIRE_OTHER     0x340000
#define ESR_SHIRE_CONFIG (SHIRE_OTHER + 0x008)
#define ESR_IPI_TRIGGER (SHIRE_OTHER + 0x090)
#define MASTER_SHIRE    32
/* mprot of every neighbourhood of a shire (the broadcast neighbourhood) */
#define ESR_MPROT_ALL   (0x100000 | 0xf << 16 | 0x20)
#define MPROT_IO_MODE   0x3         /* [1:0] as at reset */
#define MPROT_SECURE    0x40

/* Management status for every command: there is no service behind it. */
#define SP_MGMT_UNSUPPORTED (-1)

/* The SP DIR stages we pass through (et-driver numbering, spec 2.4). */
static const int16_t sp_stages[] = { 1, 2, 3, 4, 5, 6, 7 };
#define SP_STAGE_ATU        8
#define SP_STAGE_PM         9
#define SP_STAGE_WATCHDOG   10
#define SP_STAGE_EVENTS     11

static void sp_putc(char c)
{
    while (!(rd32(SP_UART0 + UART_LSR) & LSR_THRE)) {
    }
    wr32(SP_UART0 + UART_THR, (uint8_t)c);
}

static void sp_puts(const char *s)
{
    while (*s) {
        sp_putc(*s++);
    }
}

static void sp_hex(uint64_t v)
{
    sp_puts("0x");
    for (int i = 60; i >= 0; i -= 4) {
        sp_putc("0123456789abcdef"[(v >> i) & 0xf]);
    }
}

/* ---- probing with a trap: a load that faults reads as "absent" ---- */

void sp_trap(uint64_t cause, uint64_t epc, uint64_t tval);

/* Called from start.S: any trap outside a probe is a bug; report it. */
void sp_trap(uint64_t cause, uint64_t epc, uint64_t tval)
{
    sp_puts("SP: unexpected trap, mcause ");
    sp_hex(cause);
    sp_puts(" mepc ");
    sp_hex(epc);
    sp_puts(" mtval ");
    sp_hex(tval);
    sp_puts("\n");
}

/*
 * The probe has its own trap vector: on a fault it skips the
 * (uncompressed, 4-byte) load and sets t0, which probe64 clears first.
 */
__asm__(
    "    .align 4\n"
    "probe_vector:\n"
    "    csrr  t0, mepc\n"
    "    addi  t0, t0, 4\n"
    "    csrw  mepc, t0\n"
    "    li    t0, 1\n"
    "    mret\n");

static int probe64(uint64_t addr, uint64_t *val)
{
    extern char probe_vector[];
    uint64_t old, v = 0, faulted;

    __asm__ volatile("csrrw %0, mtvec, %1" : "=r"(old) : "r"(probe_vector));
    __asm__ volatile(".option push\n.option norvc\n"
                     "li t0, 0\n"
                     "ld %0, 0(%2)\n"
                     "mv %1, t0\n"
                     ".option pop\n"
                     : "+&r"(v), "=&r"(faulted) : "r"(addr) : "t0", "memory");
    __asm__ volatile("csrw mtvec, %0" :: "r"(old));
    *val = v;
    return !faulted;
}

/* Compute shires (0-31) whose ESRs answer. */
static uint32_t probe_shires(void)
{
    uint32_t mask = 0;
    uint64_t v;

    for (unsigned i = 0; i < 32; i++) {
        if (probe64(SHIRE_ESR_M(i, ESR_SHIRE_CONFIG), &v)) {
            mask |= 1u << i;
        }
    }
    return mask;
}

/* DRAM end: the first 256 MiB step that does not answer (max 32 GiB). */
static uint64_t probe_dram_end(void)
{
    const uint64_t step = 256ULL << 20;
    uint64_t end = DRAM_START, v;

    while (end < DRAM_START + (32ULL << 30) &&
           probe64(end + step - 8, &v)) {
        end += step;
    }
    return end;
}

/* ---- SP DIR (spec 3.5) ---- */
static uint8_t dir[SP_DIR_SIZE];

/* One row per memory region (type = index): bar, offset, size, address. */
struct region {
    uint8_t bar;
    uint64_t off, size, dev;
};

#define BAR0_DEV(off) (DRAM_MEMMAP_BEGIN + (off))
static const struct region sp_regions[8] = {
    { 2, SP_VQ_BAR_OFFSET, SP_VQ_SIZE, PU_MBOX_PC_SP + 0x200 }, /* VQ */
    { 2, 0x2000, 0x2000, PU_TRG_PCIE },          /* VQ_INT_TRIGGER */
    { 0, 0x000000, 0x400000, BAR0_DEV(0x000000) },  /* MNGT_SCRATCH */
    { 0, 0x400000, 0x100000, BAR0_DEV(0x400000) },  /* SPFW_TRACE */
    { 0, 0x500000, 0x100000, BAR0_DEV(0x500000) },  /* MMFW_TRACE */
    { 0, 0x600000, 0x400000, BAR0_DEV(0x600000) },  /* CMFW_TRACE */
    { 0, 0xa00000, 0x10000, BAR0_DEV(0xa00000) },   /* SP_STATS */
    { 0, 0xa10000, 0x10000, BAR0_DEV(0xa10000) },   /* MM_STATS */
};

/* access_attr: IO access, node = management (spec 3.5) */
#define SP_REGION_ATTR (1u | 1u << 1)

static void dir_build(uint32_t shires)
{
    uint8_t *g = dir, *vq = dir + SP_DIR_GEN_SIZE, *r = dir + 96;

    put16(g + 0, SP_DIR_GEN_SIZE);
    put16(g + 2, 2);                    /* version */
    put16(g + 4, SP_DIR_SIZE);
    put16(g + 6, 8);                    /* num_mem_regions */
    put32(g + 20, 0);                   /* ddr_bandwidth: unknown */
    put32(g + 24, shires);              /* cm_shires_mask */
    put32(g + 28, 1000);                /* minion_boot_freq, MHz */
    put32(g + 32, 4096);                /* scp_size, KiB per shire */
    put32(g + 36, 4096);                /* l2_size, KiB per shire */
    put32(g + 40, 32768);               /* l3_size, KiB */
    put16(g + 44, 0);                   /* status: NOT_READY */
    g[46] = 4;                          /* l2_shire_banks */
    g[47] = 0;                          /* sync_min_shire_id */
    g[48] = 1;                          /* arch_rev */
    g[49] = 1;                          /* form_factor: PCIe card */
    g[50] = 25;                         /* device_tdp, W */
    g[51] = 64;                         /* cache_line_size */
    put64(g + 56, 0x800000000ULL);      /* bar0_size, as the BL2 */
    put64(g + 64, 0x4000);              /* bar2_size */

    put16(vq + 0, 24);                  /* vq attributes_size */
    vq[2] = 4;                          /* int_trg_size */
    vq[3] = 1;                          /* int_id */
    put32(vq + 4, 0);                   /* int_trg_offset: IPI_TRIGGER */
    put32(vq + 8, SP_SQ_OFFSET);
    put16(vq + 12, 1);
    put16(vq + 14, SP_SQ_SIZE);
    put32(vq + 16, SP_CQ_OFFSET);
    put16(vq + 20, 1);
    put16(vq + 22, SP_CQ_SIZE);

    for (unsigned i = 0; i < 8; i++, r += 32) {
        dir_region(r, i, sp_regions[i].bar, SP_REGION_ATTR,
                   sp_regions[i].off, sp_regions[i].size, sp_regions[i].dev);
    }
    dir_publish(PU_MBOX_PC_SP, dir, SP_DIR_SIZE, SP_DIR_GEN_SIZE, SP_DIR_CRC);
}

static void dir_status(int16_t st)
{
    dir_set_status(PU_MBOX_PC_SP + SP_DIR_STATUS, st);
}

/* ---- inbound iATU (docs/host-interface.md) ---- */
#define IATU_REGION(i)  (IATU_BASE + 0x100 + (i) * 0x200)
#define IATU_CTRL1      0x00
#define IATU_CTRL2      0x04
#define IATU_LWR_BASE   0x08
#define IATU_UPPER_BASE 0x0c
#define IATU_LIMIT      0x10
#define IATU_LWR_TARGET 0x14
#define IATU_UPPER_TARGET 0x18
#define IATU_UPPR_LIMIT 0x20
#define IATU_INCREASE_SIZE (1u << 13)
#define IATU_REGION_EN  (1u << 31)

static void iatu_map(unsigned i, uint64_t bus, uint64_t size, uint64_t card)
{
    uint64_t r = IATU_REGION(i), limit = bus + size - 1;
    uint32_t ctrl1 = 0;         /* TYPE 0: memory */

    if (limit >> 32 != bus >> 32) {
        ctrl1 |= IATU_INCREASE_SIZE;
    }
    wr32(r + IATU_CTRL1, ctrl1);
    wr32(r + IATU_LWR_BASE, bus);
    wr32(r + IATU_UPPER_BASE, bus >> 32);
    wr32(r + IATU_LIMIT, limit);
    wr32(r + IATU_UPPR_LIMIT, limit >> 32);
    wr32(r + IATU_LWR_TARGET, card);
    wr32(r + IATU_UPPER_TARGET, card >> 32);
    /* enable last: the host link reports READY on region 3 */
    wr32(r + IATU_CTRL2, IATU_REGION_EN);
}

static uint64_t dbi_bar(unsigned lo)
{
    return ((uint64_t)rd32(PCIE_DBI + lo + 4) << 32 |
            rd32(PCIE_DBI + lo)) & ~0xfULL;
}

static void iatu_setup(uint64_t dram_end)
{
    uint64_t bar0 = dbi_bar(0x10), bar2 = dbi_bar(0x18);

    iatu_map(0, bar0, dram_end - DRAM_MEMMAP_BEGIN, DRAM_MEMMAP_BEGIN);
    iatu_map(1, bar2 + 0x0000, 0x1000, PU_MBOX_PC_MM);
    iatu_map(2, bar2 + 0x1000, 0x1000, PU_MBOX_PC_SP);
    iatu_map(3, bar2 + 0x2000, 0x2000, PU_TRG_PCIE);
    sp_puts("SP: iATU: BAR0 ");
    sp_hex(bar0);
    sp_puts(" BAR2 ");
    sp_hex(bar2);
    sp_puts("\n");
}

/* ---- the management queue ---- */
#define SP_SQ (PU_MBOX_PC_SP + 0x200 + SP_SQ_OFFSET)
#define SP_CQ (PU_MBOX_PC_SP + 0x200 + SP_CQ_OFFSET)
#define SP_CMD_MAX 256

/* dev_mgmt_rsp_header_t: common header + {u64 latency, i32 status, pad} */
#define MGMT_RSP_LEN 24

static void sp_answer(const uint8_t *cmd)
{
    uint8_t rsp[MGMT_RSP_LEN] = { 0 };

    put16(rsp + HDR_SIZE, MGMT_RSP_LEN - HDR_LEN);
    put16(rsp + HDR_TAG, get16(cmd + HDR_TAG));
    put16(rsp + HDR_MSG, get16(cmd + HDR_MSG));
    put64(rsp + 8, 0);                  /* device_latency_usec */
    put32(rsp + 16, (uint32_t)SP_MGMT_UNSUPPORTED);
    while (!vq_push(SP_CQ, rsp, sizeof(rsp))) {
        /* the host drains the CQ; nothing else to do meanwhile */
    }
    msi_send(MSI_SP_CQ);
}

static void sp_serve(void)
{
    static uint8_t cmd[SP_CMD_MAX];
    uint64_t claim = PLIC_CLAIM(SP_PLIC, 0);

    wr32(PLIC_PRIO(SP_PLIC, PLIC_SRC_MBOX_HOST), 1);
    wr32(PLIC_ENABLE(SP_PLIC, 0, PLIC_SRC_MBOX_HOST),
         1u << (PLIC_SRC_MBOX_HOST % 32));
    wr32(PLIC_THRESH(SP_PLIC, 0), 0);
    /* mie.MEIE with mstatus.MIE off: WFI wakes, no trap is taken */
    __asm__ volatile("csrs mie, %0" :: "r"(1ULL << 11));

    for (;;) {
        uint32_t src;
        int n, popped = 0;

        __asm__ volatile("wfi");
        src = rd32(claim);
        if (!src) {
            continue;
        }
        if (src == PLIC_SRC_MBOX_HOST) {
            wr32(PU_TRG_PCIE_SP, rd32(PU_TRG_PCIE));    /* IPI_CLEAR */
        }
        wr32(claim, src);
        while ((n = vq_pop(SP_SQ, cmd, sizeof(cmd))) != 0) {
            popped = 1;
            if (n > 0) {
                sp_answer(cmd);
            } else {
                sp_puts("SP: malformed command, SQ dropped\n");
            }
        }
        if (popped) {
            msi_send(MSI_SP_SQ);
        }
    }
}

void sp_main(void);

/*
 * As Esperanto's second-stage bootloader: every neighbourhood of every
 * minion shire gets secure memory (the firmware's DRAM out of U-mode's
 * reach), the OS box open and the DRAM size, in 8 GiB steps [5:4].
 */
static void secure_memory(uint32_t shires, uint64_t dram_end)
{
    uint64_t size = (dram_end - DRAM_START - 1) >> 33;
    uint64_t mprot = MPROT_SECURE | (size > 3 ? 3 : size) << 4 | MPROT_IO_MODE;
    uint64_t v;

    for (unsigned i = 0; i < 32; i++) {
        if (shires >> i & 1) {
            wr64(SHIRE_ESR_M(i, ESR_MPROT_ALL), mprot);
        }
    }
    if (probe64(SHIRE_ESR_M(MASTER_SHIRE, ESR_SHIRE_CONFIG), &v)) {
        wr64(SHIRE_ESR_M(MASTER_SHIRE, ESR_MPROT_ALL), mprot);
    }
}

void sp_main(void)
{
    uint32_t shires;
    uint64_t dram_end, v;

    sp_puts("SP: ET-SoC-1 service-processor stub\n");
    shires = probe_shires();
    dram_end = probe_dram_end();
    sp_puts("SP: compute shires ");
    sp_hex(shires);
    sp_puts(" DRAM end ");
    sp_hex(dram_end);
    sp_puts("\n");

    secure_memory(shires, dram_end);
    bootinfo_publish(dram_end, shires);
    dir_build(shires);
    for (unsigned i = 0; i < sizeof(sp_stages) / sizeof(sp_stages[0]); i++) {
        dir_status(sp_stages[i]);
    }
    vq_init(SP_SQ, SP_SQ_SIZE);
    vq_init(SP_CQ, SP_CQ_SIZE);
    iatu_setup(dram_end);
    dir_status(SP_STAGE_ATU);
    dir_status(SP_STAGE_PM);
    dir_status(SP_STAGE_WATCHDOG);
    dir_status(SP_STAGE_EVENTS);

    /*
     * Wake the master shire's 32 MM harts: they wait in WFI for this IPI.
     * Not its 32 sync harts (compute harts, in cm_idle from reset): this
     * IPI has no emulated time (the SP has no clock), and one landing in
     * their first turn or after it made them go round once more, so their
     * boot clocks followed the host (docs/record-replay.md).
     */
    if (probe64(SHIRE_ESR_M(MASTER_SHIRE, ESR_SHIRE_CONFIG), &v)) {
        wr64(SHIRE_ESR_M(MASTER_SHIRE, ESR_IPI_TRIGGER), 0xFFFFFFFFULL);
    } else {
        sp_puts("SP: no master shire (shires < 33): no MM\n");
    }
    dir_status(SP_STATUS_READY);
    sp_puts("SP: DEV_READY\n");
    sp_serve();
}
