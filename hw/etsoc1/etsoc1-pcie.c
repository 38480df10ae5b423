/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the PCIe0 endpoint, card side (host-interface.md 2,
 * 3.3, 5.1; docs/host-interface.md).
 *
 * What the firmware and the host see of the link:
 *  - DBI: the type-0 config header (command, BARs, MSI/MSI-X capability
 *    words), the DesignWare inbound iATU, and the eDMA (etsoc1-edma.c);
 *  - host accesses to BAR0/BAR2 by bus address, translated by the iATU the
 *    firmware programs (etsoc1_pcie_host_read/write: the host link's API);
 *  - the PU mailbox trigger registers: host doorbells to the SP
 *    (IPI_TRIGGER) and the master minion (MMM_INT_INC), raised as GPIO
 *    lines wired to the SP and PU PLICs, and their acknowledgements;
 *  - MSI to the host: NOPCIESR.MSI_TX_VEC and the MSI-X address match,
 *    delivered to a handler the host link installs;
 *  - the PC_MM and PC_SP mailbox SRAMs that BAR2 exposes.
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "hw/irq.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "hw/etsoc1/etsoc1-map.h"
#include "hw/etsoc1/etsoc1-pcie.h"
#include "trace.h"

/* DBI: type-0 config header and port logic */
REG32(COMMAND, 0x04)
    FIELD(COMMAND, MEM_SPACE_EN, 1, 1)
    FIELD(COMMAND, BUS_MASTER_EN, 2, 1)
REG32(BAR0, 0x10)
REG32(BAR5, 0x24)
REG32(MSI_CAP, 0x50)
    FIELD(MSI_CAP, ENABLE, 16, 1)
REG32(MSIX_CAP, 0xb0)
    FIELD(MSIX_CAP, ENABLE, 31, 1)
REG32(MSIX_MATCH_LOW, 0x940)
    FIELD(MSIX_MATCH_LOW, EN, 0, 1)
REG32(MSIX_MATCH_HIGH, 0x944)

/* Inbound iATU region i: ETSOC1_IATU_DBI_OFFSET + 0x100 + i * 0x200 */
#define IATU_INBOUND    0x100
#define IATU_STRIDE     0x200
REG32(IATU_CTRL1, 0x00)
    FIELD(IATU_CTRL1, TYPE, 0, 5)
    FIELD(IATU_CTRL1, INCREASE_REGION_SIZE, 13, 1)
REG32(IATU_CTRL2, 0x04)
    FIELD(IATU_CTRL2, BAR_NUM, 8, 3)
    FIELD(IATU_CTRL2, MATCH_MODE, 30, 1)
    FIELD(IATU_CTRL2, REGION_EN, 31, 1)
REG32(IATU_LWR_BASE, 0x08)
REG32(IATU_UPPER_BASE, 0x0c)
REG32(IATU_LIMIT, 0x10)
REG32(IATU_LWR_TARGET, 0x14)
REG32(IATU_UPPER_TARGET, 0x18)
REG32(IATU_CTRL3, 0x1c)
REG32(IATU_UPPR_LIMIT, 0x20)
#define IATU_GRANULE    0x1000  /* base/target low bits read as zero */

/* NOPCIESR */
REG32(MSI_TX_VEC, 0x18)

/* PU_TRG_PCIE (host side), PU_TRG_PCIE_SP and PU_TRG_MMIN */
REG32(TRG_IPI_TRIGGER, 0x00)    /* host -> SP; IPI_CLEAR in the _SP page */
REG32(TRG_MMM_INT_INC, 0x04)    /* host -> MM */
REG32(TRG_PCI_INT_DEC, 0x08)    /* MM acknowledges (PU_TRG_MMIN) */
REG32(TRG_PCI_MMM_CNT, 0x0c)

#define BAR_MEM64_PREF  0xc     /* 64-bit prefetchable memory BAR */

/* ---- interrupts to the card -------------------------------------------- */

static void pcie_update_irq(Etsoc1PcieState *s)
{
    qemu_set_irq(s->irq[ETSOC1_PCIE_IRQ_SP], s->host_to_sp != 0);
    qemu_set_irq(s->irq[ETSOC1_PCIE_IRQ_MM], s->mm_count != 0);
}

/*
 * Host state and its inputs (etsoc1-sync.c, "Host inputs").  A host
 * input that changes the PC_MM mailbox or the MM doorbell leaves its
 * stamped time in *@last_t; a minion that looks at either learns of it
 * (its clock moves there) and, if a host input is still to come at or
 * before its own time, leaves the access and halts until it is in.  The
 * service processor has no clock: it only reads.
 */
static void pcie_host_state(Etsoc1PcieState *s, uint64_t *last_t)
{
    if (s->in_host_access) {
        *last_t = MAX(*last_t, etsoc1_dma_chip_input_time(s->edma.chip));
    } else {
        etsoc1_dma_chip_host_observe(s->edma.chip, *last_t);
    }
}

/* ---- MSI to the host ---------------------------------------------------- */

static void pcie_send_msi(Etsoc1PcieState *s, uint32_t vectors)
{
    uint32_t ok = vectors & MAKE_64BIT_MASK(0, s->num_msi);

    if (vectors != ok) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-pcie: MSI vectors 0x%x beyond "
                      "the %u the host allocated: dropped\n", vectors & ~ok,
                      s->num_msi);
    }
    if (!FIELD_EX32(s->msi_cap, MSI_CAP, ENABLE) &&
        !FIELD_EX32(s->msix_cap, MSIX_CAP, ENABLE)) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-pcie: MSI 0x%x with MSI and "
                      "MSI-X disabled: dropped\n", ok);
        ok = 0;
    }
    trace_etsoc1_pcie_msi(vectors, ok, s->msi_fn != NULL);
    if (!ok) {
        return;
    }
    s->msi_sent |= ok;
    if (s->msi_fn) {
        s->msi_fn(s->msi_opaque, ok);
    }
}

void etsoc1_pcie_set_msi_handler(Etsoc1PcieState *s, Etsoc1MsiFn *fn,
                                 void *opaque)
{
    s->msi_fn = fn;
    s->msi_opaque = opaque;
}

/* ---- inbound iATU -------------------------------------------------------- */

static uint64_t iatu_base(const uint32_t *r)
{
    return ((uint64_t)r[R_IATU_UPPER_BASE] << 32 | r[R_IATU_LWR_BASE]) &
           ~(uint64_t)(IATU_GRANULE - 1);
}

static uint64_t iatu_limit(const uint32_t *r)
{
    uint32_t hi = FIELD_EX32(r[R_IATU_CTRL1], IATU_CTRL1,
                             INCREASE_REGION_SIZE) ? r[R_IATU_UPPR_LIMIT]
                                                   : r[R_IATU_UPPER_BASE];

    return (uint64_t)hi << 32 | r[R_IATU_LIMIT] | (IATU_GRANULE - 1);
}

static uint64_t iatu_target(const uint32_t *r)
{
    return ((uint64_t)r[R_IATU_UPPER_TARGET] << 32 | r[R_IATU_LWR_TARGET]) &
           ~(uint64_t)(IATU_GRANULE - 1);
}

/*
 * What a register reads as: the low bits below the 4 KiB granule are
 * read-only, zero in base and target, ones in the limit (DesignWare's
 * minimum region size).
 */
static uint32_t iatu_read_view(unsigned idx, uint32_t val)
{
    switch (idx) {
    case R_IATU_LWR_BASE:
    case R_IATU_LWR_TARGET:
        return val & ~(IATU_GRANULE - 1);
    case R_IATU_LIMIT:
        return val | (IATU_GRANULE - 1);
    default:
        return val;
    }
}

bool etsoc1_pcie_iatu_enabled(Etsoc1PcieState *s, unsigned region)
{
    return region < ETSOC1_IATU_INBOUND &&
           FIELD_EX32(s->iatu[region][R_IATU_CTRL2], IATU_CTRL2, REGION_EN);
}

/*
 * Address match mode, memory TLPs: the lowest enabled region whose
 * [base, limit] holds @bus_addr wins.  *room is how many bytes from
 * @bus_addr stay inside that region.
 */
bool etsoc1_pcie_translate(Etsoc1PcieState *s, uint64_t bus_addr,
                           uint64_t *card_addr, uint64_t *room)
{
    unsigned i;

    for (i = 0; i < ETSOC1_IATU_INBOUND; i++) {
        const uint32_t *r = s->iatu[i];
        uint64_t base = iatu_base(r), limit = iatu_limit(r);

        if (!etsoc1_pcie_iatu_enabled(s, i) ||
            FIELD_EX32(r[R_IATU_CTRL2], IATU_CTRL2, MATCH_MODE) ||
            FIELD_EX32(r[R_IATU_CTRL1], IATU_CTRL1, TYPE) ||
            bus_addr < base || bus_addr > limit) {
            continue;
        }
        *card_addr = iatu_target(r) + (bus_addr - base);
        *room = limit - bus_addr + 1;   /* 0 means 2^64: never here */
        trace_etsoc1_pcie_translate(bus_addr, i, *card_addr);
        return true;
    }
    trace_etsoc1_pcie_translate_miss(bus_addr);
    return false;
}

static MemTxResult pcie_host_access(Etsoc1PcieState *s, uint64_t bus_addr,
                                    void *buf, uint64_t len, bool is_write)
{
    MemTxResult res = MEMTX_OK;
    uint64_t start = bus_addr, total = len;

    if (s->in_host_access) {
        /* an iATU aimed at the qtest host view: no recursion */
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-pcie: inbound access at bus "
                      "0x%" PRIx64 " loops back into the host\n", bus_addr);
        return MEMTX_DECODE_ERROR;
    }
    if (!FIELD_EX32(s->command, COMMAND, MEM_SPACE_EN)) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-pcie: host access with "
                      "memory space disabled\n");
        trace_etsoc1_pcie_host_access(start, total, is_write,
                                      MEMTX_DECODE_ERROR);
        return MEMTX_DECODE_ERROR;
    }
    s->in_host_access = true;
    while (len && res == MEMTX_OK) {
        uint64_t card, room, n;

        if (!etsoc1_pcie_translate(s, bus_addr, &card, &room)) {
            qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-pcie: host access at bus "
                          "0x%" PRIx64 ": no inbound iATU region\n", bus_addr);
            res = MEMTX_DECODE_ERROR;
            break;
        }
        n = room ? MIN(len, room) : len;
        res = address_space_rw(&s->edma.dma_as, card,
                               MEMTXATTRS_UNSPECIFIED, buf, n, is_write);
        if (is_write && res == MEMTX_OK) {
            /* host writes land in their lines' home L3 slices, as DMA */
            etsoc1_dma_chip_written(s->edma.chip, card, n, 0);
        }
        bus_addr += n;
        buf = (uint8_t *)buf + n;
        len -= n;
    }
    s->in_host_access = false;
    trace_etsoc1_pcie_host_access(start, total, is_write, res);
    return res;
}

MemTxResult etsoc1_pcie_host_read(Etsoc1PcieState *s, uint64_t bus_addr,
                                  void *buf, uint64_t len)
{
    return pcie_host_access(s, bus_addr, buf, len, false);
}

MemTxResult etsoc1_pcie_host_write(Etsoc1PcieState *s, uint64_t bus_addr,
                                   const void *buf, uint64_t len)
{
    return pcie_host_access(s, bus_addr, (void *)buf, len, true);
}

void etsoc1_pcie_add_iatu_notifier(Etsoc1PcieState *s, Notifier *n)
{
    notifier_list_add(&s->iatu_notifiers, n);
}

/* ---- DBI ----------------------------------------------------------------- */

static uint32_t *pcie_iatu_reg(Etsoc1PcieState *s, hwaddr addr,
                               unsigned *region)
{
    hwaddr rel;

    if (addr < ETSOC1_IATU_DBI_OFFSET ||
        addr >= ETSOC1_IATU_DBI_OFFSET +
                ETSOC1_IATU_INBOUND * IATU_STRIDE) {
        return NULL;
    }
    rel = addr - ETSOC1_IATU_DBI_OFFSET;
    if ((rel % IATU_STRIDE) < IATU_INBOUND ||
        (rel % IATU_STRIDE) - IATU_INBOUND > A_IATU_UPPR_LIMIT) {
        return NULL;    /* outbound regions, and beyond UPPR_LIMIT */
    }
    *region = rel / IATU_STRIDE;
    return &s->iatu[*region][((rel % IATU_STRIDE) - IATU_INBOUND) / 4];
}

static uint64_t pcie_dbi_read(void *opaque, hwaddr addr, unsigned size)
{
    Etsoc1PcieState *s = opaque;
    uint32_t *reg;
    unsigned region;
    uint64_t val = 0;

    switch (addr) {
    case A_COMMAND:
        val = s->command;
        break;
    case A_BAR0 ... A_BAR5:
        val = s->bar[(addr - A_BAR0) / 4];
        break;
    case A_MSI_CAP:
        val = s->msi_cap;
        break;
    case A_MSIX_CAP:
        val = s->msix_cap;
        break;
    case A_MSIX_MATCH_LOW:
    case A_MSIX_MATCH_HIGH:
        val = s->msix_match[(addr - A_MSIX_MATCH_LOW) / 4];
        break;
    default:
        reg = pcie_iatu_reg(s, addr, &region);
        if (reg) {
            val = iatu_read_view(reg - s->iatu[region], *reg);
        } else {
            qemu_log_mask(LOG_UNIMP, "etsoc1-pcie: DBI read at 0x%"
                          HWADDR_PRIx "\n", addr);
        }
    }
    trace_etsoc1_pcie_dbi_read(addr, val);
    return val;
}

static void pcie_dbi_write(void *opaque, hwaddr addr, uint64_t val,
                           unsigned size)
{
    Etsoc1PcieState *s = opaque;
    uint32_t *reg;
    unsigned region;

    trace_etsoc1_pcie_dbi_write(addr, val);
    switch (addr) {
    case A_COMMAND:
        s->command = val & 0xffff;
        break;
    case A_BAR0 ... A_BAR5:
        /* DBI writes set what the host would: keep the type bits */
        s->bar[(addr - A_BAR0) / 4] = val;
        break;
    case A_MSI_CAP:
        s->msi_cap = val;
        break;
    case A_MSIX_CAP:
        s->msix_cap = val;
        break;
    case A_MSIX_MATCH_LOW:
    case A_MSIX_MATCH_HIGH:
        s->msix_match[(addr - A_MSIX_MATCH_LOW) / 4] = val;
        break;
    default:
        reg = pcie_iatu_reg(s, addr, &region);
        if (!reg) {
            qemu_log_mask(LOG_UNIMP, "etsoc1-pcie: DBI write at 0x%"
                          HWADDR_PRIx "\n", addr);
            break;
        }
        *reg = val;
        if (reg == &s->iatu[region][R_IATU_CTRL2]) {
            const uint32_t *r = s->iatu[region];

            trace_etsoc1_pcie_iatu(region, r[R_IATU_CTRL2], iatu_base(r),
                                   iatu_limit(r), iatu_target(r));
            if (FIELD_EX32(val, IATU_CTRL2, MATCH_MODE)) {
                qemu_log_mask(LOG_UNIMP, "etsoc1-pcie: iATU %u: BAR match "
                              "mode is not modelled; region ignored\n",
                              region);
            }
            notifier_list_notify(&s->iatu_notifiers,
                                 (void *)(uintptr_t)region);
        }
    }
}

static const MemoryRegionOps pcie_dbi_ops = {
    .read = pcie_dbi_read,
    .write = pcie_dbi_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 4, .max_access_size = 4 },
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

/* ---- NOPCIESR: MSI_TX_VEC ------------------------------------------------ */

static uint64_t pcie_nopciesr_read(void *opaque, hwaddr addr, unsigned size)
{
    Etsoc1PcieState *s = opaque;
    uint64_t val = addr < sizeof(s->nopciesr_reg) ?
                   s->nopciesr_reg[addr / 4] : 0;

    trace_etsoc1_pcie_nopciesr_read(addr, val);
    return val;
}

static void pcie_nopciesr_write(void *opaque, hwaddr addr, uint64_t val,
                                unsigned size)
{
    Etsoc1PcieState *s = opaque;

    trace_etsoc1_pcie_nopciesr_write(addr, val);
    if (addr >= sizeof(s->nopciesr_reg)) {
        qemu_log_mask(LOG_UNIMP, "etsoc1-pcie: NOPCIESR write at 0x%"
                      HWADDR_PRIx "\n", addr);
        return;
    }
    s->nopciesr_reg[addr / 4] = val;
    if (addr == A_MSI_TX_VEC && val) {
        /* firmware writes 1 << vector, then 0 (et-common-libs pcie_int) */
        pcie_send_msi(s, val);
    }
}

static const MemoryRegionOps pcie_nopciesr_ops = {
    .read = pcie_nopciesr_read,
    .write = pcie_nopciesr_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 4, .max_access_size = 4 },
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

/* ---- outbound slave window: only the MSI-X address match ----------------- */

static uint64_t pcie_slv_read(void *opaque, hwaddr addr, unsigned size)
{
    qemu_log_mask(LOG_UNIMP, "etsoc1-pcie: outbound read at 0x%" PRIx64
                  " (outbound iATU not modelled)\n",
                  ETSOC1_PCIE0_SLV_BASE + addr);
    return 0;
}

static void pcie_slv_write(void *opaque, hwaddr addr, uint64_t val,
                           unsigned size)
{
    Etsoc1PcieState *s = opaque;
    uint64_t match = (uint64_t)s->msix_match[1] << 32 |
                     (s->msix_match[0] & ~3u);

    if (FIELD_EX32(s->msix_match[0], MSIX_MATCH_LOW, EN) &&
        ETSOC1_PCIE0_SLV_BASE + addr == match) {
        if (size < 4 || val >= 32) {
            qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-pcie: MSI-X match write "
                          "of %u bytes, vector %" PRIu64 ": dropped\n", size,
                          val);
            return;
        }
        pcie_send_msi(s, 1u << val);
        return;
    }
    qemu_log_mask(LOG_UNIMP, "etsoc1-pcie: outbound write at 0x%" PRIx64
                  " (outbound iATU not modelled)\n",
                  ETSOC1_PCIE0_SLV_BASE + addr);
}

static const MemoryRegionOps pcie_slv_ops = {
    .read = pcie_slv_read,
    .write = pcie_slv_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

/* ---- mailbox trigger registers ------------------------------------------- */

static uint64_t pcie_trg_read(void *opaque, hwaddr addr, unsigned size)
{
    Etsoc1PcieState *s = opaque;
    uint64_t val = 0;

    switch (addr) {
    case A_TRG_IPI_TRIGGER:
        val = s->host_to_sp;
        break;
    case A_TRG_PCI_MMM_CNT:
        val = s->mm_count;
        break;
    }
    trace_etsoc1_pcie_trg("pcie", "read", addr, val);
    return val;
}

static void pcie_trg_write(void *opaque, hwaddr addr, uint64_t val,
                           unsigned size)
{
    Etsoc1PcieState *s = opaque;

    trace_etsoc1_pcie_trg("pcie", "write", addr, val);
    switch (addr) {
    case A_TRG_IPI_TRIGGER:
        s->host_to_sp |= val;
        break;
    case A_TRG_MMM_INT_INC:
        if (val & 1) {
            /* the doorbell's time: before the level the dispatcher sees */
            s->trg_t = MAX(s->trg_t,
                           etsoc1_dma_chip_input_time(s->edma.chip));
            s->mm_count++;
        }
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-pcie: PU_TRG_PCIE write at "
                      "0x%" HWADDR_PRIx ": no register\n", addr);
    }
    pcie_update_irq(s);
}

static uint64_t pcie_trg_sp_read(void *opaque, hwaddr addr, unsigned size)
{
    Etsoc1PcieState *s = opaque;
    uint64_t val = addr == A_TRG_IPI_TRIGGER ? s->host_to_sp : 0;

    trace_etsoc1_pcie_trg("pcie-sp", "read", addr, val);
    return val;
}

static void pcie_trg_sp_write(void *opaque, hwaddr addr, uint64_t val,
                              unsigned size)
{
    Etsoc1PcieState *s = opaque;

    trace_etsoc1_pcie_trg("pcie-sp", "write", addr, val);
    if (addr == A_TRG_IPI_TRIGGER) {    /* IPI_CLEAR */
        s->host_to_sp &= ~val;
        pcie_update_irq(s);
        return;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-pcie: PU_TRG_PCIE_SP write at "
                  "0x%" HWADDR_PRIx ": no register\n", addr);
}

static uint64_t pcie_trg_mmin_read(void *opaque, hwaddr addr, unsigned size)
{
    Etsoc1PcieState *s = opaque;
    uint64_t val = 0;

    pcie_host_state(s, &s->trg_t);

    if (addr == A_TRG_PCI_MMM_CNT) {
        val = s->mm_count;
    } else if (addr == A_TRG_IPI_TRIGGER) {
        qemu_log_mask(LOG_UNIMP, "etsoc1-pcie: MM -> SP IPI not modelled\n");
    }
    trace_etsoc1_pcie_trg("mmin", "read", addr, val);
    return val;
}

static void pcie_trg_mmin_write(void *opaque, hwaddr addr, uint64_t val,
                                unsigned size)
{
    Etsoc1PcieState *s = opaque;

    pcie_host_state(s, &s->trg_t);     /* PCI_INT_DEC: after the doorbells */

    trace_etsoc1_pcie_trg("mmin", "write", addr, val);
    switch (addr) {
    case A_TRG_PCI_INT_DEC:
        if ((val & 1) && s->mm_count) {
            s->mm_count--;
        } else if (val & 1) {
            qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-pcie: PCI_INT_DEC with "
                          "no doorbell pending\n");
        }
        pcie_update_irq(s);
        break;
    case A_TRG_IPI_TRIGGER:
        qemu_log_mask(LOG_UNIMP, "etsoc1-pcie: MM -> SP IPI not modelled\n");
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1-pcie: PU_TRG_MMIN write at "
                      "0x%" HWADDR_PRIx ": no register\n", addr);
    }
}

#define TRG_OPS(name, rd, wr)                                               \
    static const MemoryRegionOps name = {                                   \
        .read = rd,                                                         \
        .write = wr,                                                        \
        .endianness = DEVICE_LITTLE_ENDIAN,                                 \
        .valid = { .min_access_size = 4, .max_access_size = 4 },            \
        .impl = { .min_access_size = 4, .max_access_size = 4 },             \
    }

TRG_OPS(pcie_trg_ops, pcie_trg_read, pcie_trg_write);
TRG_OPS(pcie_trg_sp_ops, pcie_trg_sp_read, pcie_trg_sp_write);
TRG_OPS(pcie_trg_mmin_ops, pcie_trg_mmin_read, pcie_trg_mmin_write);

/*
 * The PC_MM mailbox SRAM: an I/O region over its bytes, so that each
 * minion access can look at the host's inputs (pcie_host_state) where the
 * host writes the SQs and reads the CQ.  The host's own accesses come
 * through pcie_host_access.
 */
static uint64_t pcie_mbox_mm_read(void *opaque, hwaddr addr, unsigned size)
{
    Etsoc1PcieState *s = opaque;

    pcie_host_state(s, &s->mbox_mm_t);
    return ldn_le_p(s->mbox_mm_buf + addr, size);
}

static void pcie_mbox_mm_write(void *opaque, hwaddr addr, uint64_t val,
                               unsigned size)
{
    Etsoc1PcieState *s = opaque;

    pcie_host_state(s, &s->mbox_mm_t);
    stn_le_p(s->mbox_mm_buf + addr, size, val);
}

static const MemoryRegionOps pcie_mbox_mm_ops = {
    .read = pcie_mbox_mm_read,
    .write = pcie_mbox_mm_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

/* ---- qtest hook: the host's view, offset = bus address ------------------- */

static MemTxResult pcie_hostview_read(void *opaque, hwaddr addr,
                                      uint64_t *data, unsigned size,
                                      MemTxAttrs attrs)
{
    uint8_t buf[8] = { 0 };
    MemTxResult r = etsoc1_pcie_host_read(opaque,
                                          ETSOC1_HOSTVIEW_BASE + addr, buf,
                                          size);

    *data = ldn_le_p(buf, size);
    return r;
}

static MemTxResult pcie_hostview_write(void *opaque, hwaddr addr,
                                       uint64_t data, unsigned size,
                                       MemTxAttrs attrs)
{
    uint8_t buf[8];

    stn_le_p(buf, size, data);
    return etsoc1_pcie_host_write(opaque, ETSOC1_HOSTVIEW_BASE + addr, buf,
                                  size);
}

static const MemoryRegionOps pcie_hostview_ops = {
    .read_with_attrs = pcie_hostview_read,
    .write_with_attrs = pcie_hostview_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
};

/* ---- device -------------------------------------------------------------- */

static void pcie_reset(DeviceState *dev)
{
    Etsoc1PcieState *s = ETSOC1_PCIE_EP(dev);

    memset(s->bar, 0, sizeof(s->bar));
    memset(s->iatu, 0, sizeof(s->iatu));
    memset(s->nopciesr_reg, 0, sizeof(s->nopciesr_reg));
    memset(s->msix_match, 0, sizeof(s->msix_match));
    s->command = 0;
    /* as Esperanto's simulator: MSI on with one message, MSI-X on */
    s->msi_cap = R_MSI_CAP_ENABLE_MASK;
    s->msix_cap = R_MSIX_CAP_ENABLE_MASK;
    s->host_to_sp = 0;
    s->mm_count = 0;
    s->msi_sent = 0;
    s->mbox_mm_t = 0;
    s->trg_t = 0;
    if (s->enumerated) {
        /* what the host's enumeration leaves: BARs set, memory space on */
        s->command = R_COMMAND_MEM_SPACE_EN_MASK |
                     R_COMMAND_BUS_MASTER_EN_MASK;
        s->bar[0] = (uint32_t)s->bar0_addr | BAR_MEM64_PREF;
        s->bar[1] = s->bar0_addr >> 32;
        s->bar[2] = (uint32_t)s->bar2_addr | BAR_MEM64_PREF;
        s->bar[3] = s->bar2_addr >> 32;
    }
    pcie_update_irq(s);
}

static void pcie_init(Object *obj)
{
    Etsoc1PcieState *s = ETSOC1_PCIE_EP(obj);

    object_initialize_child(obj, "edma", &s->edma, TYPE_ETSOC1_EDMA);
    /* the machine configures the engine through these */
    object_property_add_alias(obj, "host-mem", OBJECT(&s->edma), "host-mem");
    object_property_add_alias(obj, "timing", OBJECT(&s->edma), "timing");
    object_property_add_alias(obj, "chip", OBJECT(&s->edma), "chip");
    object_property_add_alias(obj, "dma", OBJECT(&s->edma), "dma");
    object_property_add_alias(obj, "dram-size", OBJECT(&s->edma),
                              "dram-size");
    object_property_add_alias(obj, "scp-shires", OBJECT(&s->edma),
                              "scp-shires");
    object_property_add_alias(obj, "same-stream", OBJECT(&s->edma),
                              "same-stream");
    notifier_list_init(&s->iatu_notifiers);
    /* test hook: the MSI vectors sent since reset */
    object_property_add_uint32_ptr(obj, "msi-sent", &s->msi_sent,
                                   OBJ_PROP_FLAG_READ);
}

static void pcie_realize(DeviceState *dev, Error **errp)
{
    Etsoc1PcieState *s = ETSOC1_PCIE_EP(dev);
    SysBusDevice *sbd = SYS_BUS_DEVICE(dev);
    Object *obj = OBJECT(dev);

    if (s->num_msi < 1 || s->num_msi > 32) {
        error_setg(errp, "num-msi=%u: must be 1 to 32", s->num_msi);
        return;
    }
    if (!sysbus_realize(SYS_BUS_DEVICE(&s->edma), errp)) {
        return;
    }
    memory_region_init(&s->dbi, obj, "etsoc1.pcie0-dbi",
                       ETSOC1_PCIE0_DBI_SIZE);
    memory_region_init_io(&s->dbi_regs, obj, &pcie_dbi_ops, s,
                          "etsoc1.pcie0-dbi-regs", ETSOC1_PCIE0_DBI_SIZE);
    memory_region_add_subregion_overlap(&s->dbi, 0, &s->dbi_regs, 0);
    memory_region_add_subregion_overlap(&s->dbi, ETSOC1_EDMA_DBI_OFFSET,
        sysbus_mmio_get_region(SYS_BUS_DEVICE(&s->edma), 0), 1);
    sysbus_init_mmio(sbd, &s->dbi);

    memory_region_init_io(&s->nopciesr, obj, &pcie_nopciesr_ops, s,
                          "etsoc1.pcie-nopciesr", 4 * KiB);
    sysbus_init_mmio(sbd, &s->nopciesr);
    memory_region_init_io(&s->trg_pcie, obj, &pcie_trg_ops, s,
                          "etsoc1.pu-trg-pcie", 8 * KiB);
    sysbus_init_mmio(sbd, &s->trg_pcie);
    memory_region_init_io(&s->trg_pcie_sp, obj, &pcie_trg_sp_ops, s,
                          "etsoc1.pu-trg-pcie-sp", 8 * KiB);
    sysbus_init_mmio(sbd, &s->trg_pcie_sp);
    memory_region_init_io(&s->trg_mmin, obj, &pcie_trg_mmin_ops, s,
                          "etsoc1.pu-trg-mmin", 8 * KiB);
    sysbus_init_mmio(sbd, &s->trg_mmin);
    memory_region_init_io(&s->mbox_mm, obj, &pcie_mbox_mm_ops, s,
                          "etsoc1.pu-mbox-pc-mm", sizeof(s->mbox_mm_buf));
    /*
     * A minion that must wait for a host input leaves these two by
     * longjmp (pcie_host_state), as the shire's windows do: no guard
     * (neither re-enters the device).
     */
    s->trg_mmin.disable_reentrancy_guard = true;
    s->mbox_mm.disable_reentrancy_guard = true;
    memory_region_init_ram(&s->mbox_sp, obj, "etsoc1.pu-mbox-pc-sp",
                           4 * KiB, &error_fatal);
    sysbus_init_mmio(sbd, &s->mbox_mm);
    sysbus_init_mmio(sbd, &s->mbox_sp);
    memory_region_init_io(&s->slv, obj, &pcie_slv_ops, s,
                          "etsoc1.pcie0-slv", ETSOC1_PCIE0_SLV_SIZE);
    sysbus_init_mmio(sbd, &s->slv);
    memory_region_init_io(&s->hostview, obj, &pcie_hostview_ops, s,
                          "etsoc1.pcie-hostview", ETSOC1_HOSTVIEW_SIZE);
    /*
     * The host view reaches this device's own registers through the iATU
     * on purpose; in_host_access stops a loop instead of the guard.
     */
    s->hostview.disable_reentrancy_guard = true;
    sysbus_init_mmio(sbd, &s->hostview);
    qdev_init_gpio_out(dev, s->irq, ETSOC1_PCIE_IRQS);
}

static const VMStateDescription vmstate_pcie = {
    .name = TYPE_ETSOC1_PCIE_EP,
    .version_id = 2,        /* 2: the PC_MM mailbox, its inputs' times */
    .minimum_version_id = 2,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32(command, Etsoc1PcieState),
        VMSTATE_UINT32_ARRAY(bar, Etsoc1PcieState, 6),
        VMSTATE_UINT32(msi_cap, Etsoc1PcieState),
        VMSTATE_UINT32(msix_cap, Etsoc1PcieState),
        VMSTATE_UINT32_ARRAY(msix_match, Etsoc1PcieState, 2),
        VMSTATE_UINT32_2DARRAY(iatu, Etsoc1PcieState, ETSOC1_IATU_INBOUND,
                               ETSOC1_IATU_WORDS),
        VMSTATE_UINT32_ARRAY(nopciesr_reg, Etsoc1PcieState, 8),
        VMSTATE_UINT32(host_to_sp, Etsoc1PcieState),
        VMSTATE_UINT32(mm_count, Etsoc1PcieState),
        VMSTATE_UINT32(msi_sent, Etsoc1PcieState),
        VMSTATE_UINT8_ARRAY(mbox_mm_buf, Etsoc1PcieState, 4096),
        VMSTATE_UINT64(mbox_mm_t, Etsoc1PcieState),
        VMSTATE_UINT64(trg_t, Etsoc1PcieState),
        VMSTATE_END_OF_LIST()
    }
};

static Property pcie_properties[] = {
    DEFINE_PROP_UINT64("bar0", Etsoc1PcieState, bar0_addr,
                       ETSOC1_PCIE_BAR0_DEFAULT),
    DEFINE_PROP_UINT64("bar2", Etsoc1PcieState, bar2_addr,
                       ETSOC1_PCIE_BAR2_DEFAULT),
    DEFINE_PROP_BOOL("enumerated", Etsoc1PcieState, enumerated, true),
    DEFINE_PROP_UINT32("num-msi", Etsoc1PcieState, num_msi, 4),
    DEFINE_PROP_END_OF_LIST(),
};

static void pcie_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);

    dc->desc = "ET-SoC-1 PCIe0 endpoint (card side)";
    dc->realize = pcie_realize;
    dc->reset = pcie_reset;
    dc->vmsd = &vmstate_pcie;
    dc->user_creatable = false;
    device_class_set_props(dc, pcie_properties);
}

static const TypeInfo pcie_info = {
    .name = TYPE_ETSOC1_PCIE_EP,
    .parent = TYPE_SYS_BUS_DEVICE,
    .instance_size = sizeof(Etsoc1PcieState),
    .instance_init = pcie_init,
    .class_init = pcie_class_init,
};

static void pcie_register_types(void)
{
    type_register_static(&pcie_info);
}

type_init(pcie_register_types)
