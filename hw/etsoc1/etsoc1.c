/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1 machine ("-M etsoc1")
 *
 * The minion side of the chip: up to 34 shires of 64 harts (compute shires
 * 0-31, master shire 32, spare shire 33), their L2 scratchpads and ESRs,
 * DRAM, and the PU UARTs.  Memory map from isa.md section 2; every block we
 * do not model yet is an unimplemented-device region (-d unimp).
 *
 * Shires are numbered 0..shires-1, so mhartid = shire * 64 + neigh * 16 +
 * minion * 2 + thread holds for every configuration.  The 32 L3 slices
 * exist whatever the number of shires: the L3 interleaves over all of
 * them (PA[10:6]), so a machine with fewer shires keeps the chip's L3.
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/error-report.h"
#include "qemu/memalign.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/boards.h"
#include "hw/irq.h"
#include "hw/loader.h"
#include "hw/qdev-properties.h"
#include "hw/char/serial.h"
#include "hw/intc/sifive_plic.h"
#include "hw/misc/unimp.h"
#include "sysemu/device_tree.h"
#include "sysemu/sysemu.h"
#include "sysemu/reset.h"
#include "sysemu/tcg.h"
#include "sysemu/qtest.h"
#include "elf.h"
#include <libfdt.h>
#include "hw/etsoc1/etsoc1-timing.h"
#include "hw/etsoc1/etsoc1.h"
#include "hw/etsoc1/etsoc1-csr.h"
#include "hw/etsoc1/etsoc1-pu-timer.h"
#include "hw/etsoc1/etsoc1-sync.h"
#include "hw/etsoc1/etsoc1-pcie.h"
#include "hw/etsoc1/etsoc1-hostlink.h"
#include "hw/etsoc1/etsoc1-trace.h"
#include "chardev/char.h"
#include "trace.h"

/* The physical memory map, isa.md section 2. */
const MemMapEntry etsoc1_memmap[] = {
    [ETSOC1_MAXION] =     {          0x0,  256 * MiB },
    [ETSOC1_PU_IO] =      {   0x10000000,  256 * MiB },
    [ETSOC1_PU_UART0] =   {   0x12002000,    4 * KiB },
    [ETSOC1_PU_UART1] =   {   0x12007000,    4 * KiB },
    [ETSOC1_PU_MBOX] =    {   0x20000000,  512 * MiB },
    [ETSOC1_SP] =         {   0x40000000,    1 * GiB },
    [ETSOC1_SCP] =        {   0x80000000,    1 * GiB },
    [ETSOC1_SCP_LINEAR] = {   0xc0000000,    1 * GiB },
    [ETSOC1_ESR] =        {  0x100000000,    4 * GiB },
    [ETSOC1_PCIE] =       { 0x4000000000,  256 * GiB },
    [ETSOC1_DRAM] =       { 0x8000000000,   32 * GiB },
    [ETSOC1_DRAM_UC] =    { 0xc000000000,   32 * GiB },
    [ETSOC1_PU_PLIC] =    {   0x10000000,   32 * MiB },
    [ETSOC1_SP_SRAM] =    {   0x40400000,    1 * MiB },
    [ETSOC1_SP_PLIC] =    {   0x50000000,   32 * MiB },
    [ETSOC1_SP_UART0] =   {   0x52022000,    4 * KiB },
    [ETSOC1_PU_TIMER_REGS] = {   0x12005000,    4 * KiB },
};

/*
 * Both PLICs have the SiFive register layout (QEMU's sifive_plic; the
 * chip's own offsets are in headers Esperanto did not publish): source
 * priorities at 4 x source, pending 0x1000, enables 0x2000 + 0x80 x context,
 * threshold and claim 0x200000 + 0x1000 x context; one M-mode context per
 * hart.  The two sources the host interface uses (docs/firmware.md):
 */
#define ETSOC1_PLIC_SOURCES          128
#define ETSOC1_PLIC_PRIORITIES       7
#define ETSOC1_PU_PLIC_TIMER0        6      /* PU timers 0-7: 6-13 */
#define ETSOC1_PU_PLIC_DMA_DONE0     16     /* eDMA lines 0-7: 16-23 */
#define ETSOC1_PU_PLIC_PCIE_MESSAGE  33     /* host -> master minion */
#define ETSOC1_SP_PLIC_MBOX_HOST     115    /* host -> service processor */

/* Blocks that exist on the chip but are not modelled: they log, not fault. */
static const struct {
    const char *name;
    int region;
} etsoc1_unimplemented[] = {
    { "etsoc1.pu-io", ETSOC1_PU_IO },
    { "etsoc1.pu-mailbox", ETSOC1_PU_MBOX },
    { "etsoc1.sp", ETSOC1_SP },
    { "etsoc1.scp-linear", ETSOC1_SCP_LINEAR },
    { "etsoc1.pcie-outbound", ETSOC1_PCIE },
};

#define ETSOC1_UART_CLOCK 24000000    /* only matters for the divisor */

/*
 * Parts of the SCP and ESR regions with nothing behind them: the rest of
 * each shire's 8 MiB SCP window, absent shires, and local-shire aliases
 * used by a requester that has no shire.  The chip answers with an error.
 */
static MemTxResult etsoc1_hole_read(void *opaque, hwaddr addr, uint64_t *data,
                                    unsigned size, MemTxAttrs attrs)
{
    MemoryRegion *mr = opaque;

    qemu_log_mask(LOG_GUEST_ERROR, "%s: read of %u bytes at 0x%" HWADDR_PRIx
                  ": nothing mapped\n", memory_region_name(mr), size,
                  mr->addr + addr);
    *data = 0;
    return MEMTX_DECODE_ERROR;
}

static MemTxResult etsoc1_hole_write(void *opaque, hwaddr addr, uint64_t data,
                                     unsigned size, MemTxAttrs attrs)
{
    MemoryRegion *mr = opaque;

    qemu_log_mask(LOG_GUEST_ERROR, "%s: write of %u bytes at 0x%" HWADDR_PRIx
                  ": nothing mapped\n", memory_region_name(mr), size,
                  mr->addr + addr);
    return MEMTX_DECODE_ERROR;
}

static const MemoryRegionOps etsoc1_hole_ops = {
    .read_with_attrs = etsoc1_hole_read,
    .write_with_attrs = etsoc1_hole_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
};

/*
 * The Maxion cores' region is not modelled.  As in Esperanto's simulator,
 * only the service processor reaches it (reads 0, writes ignored, logged
 * as unimplemented); any other requester, a minion's null pointer say,
 * gets a bus error: a load or store access fault.
 */
static bool etsoc1_sp_requester(void)
{
    return current_cpu && !etsoc1_minion_of(current_cpu);
}

static MemTxResult etsoc1_maxion_read(void *opaque, hwaddr addr,
                                      uint64_t *data, unsigned size,
                                      MemTxAttrs attrs)
{
    if (!etsoc1_sp_requester()) {
        return etsoc1_hole_read(opaque, addr, data, size, attrs);
    }
    qemu_log_mask(LOG_UNIMP, "etsoc1.maxion: SP read at 0x%" HWADDR_PRIx
                  "\n", addr);
    *data = 0;
    return MEMTX_OK;
}

static MemTxResult etsoc1_maxion_write(void *opaque, hwaddr addr,
                                       uint64_t data, unsigned size,
                                       MemTxAttrs attrs)
{
    if (!etsoc1_sp_requester()) {
        return etsoc1_hole_write(opaque, addr, data, size, attrs);
    }
    qemu_log_mask(LOG_UNIMP, "etsoc1.maxion: SP write at 0x%" HWADDR_PRIx
                  "\n", addr);
    return MEMTX_OK;
}

static const MemoryRegionOps etsoc1_maxion_ops = {
    .read_with_attrs = etsoc1_maxion_read,
    .write_with_attrs = etsoc1_maxion_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },
};

static void etsoc1_map_hole(Etsoc1MachineState *s, MemoryRegion *mr,
                            const char *name, int region)
{
    memory_region_init_io(mr, OBJECT(s),
                          region == ETSOC1_MAXION ? &etsoc1_maxion_ops
                                                  : &etsoc1_hole_ops,
                          mr, name, etsoc1_memmap[region].size);
    memory_region_add_subregion_overlap(get_system_memory(),
                                        etsoc1_memmap[region].base, mr, -2000);
}

/* ---- device tree --------------------------------------------------------- */

/* Our buffer is sized for the tree; a libfdt error here is a QEMU bug. */
#define FDT(x) do {                                                          \
        int fdt_ret_ = (x);                                                  \
        if (fdt_ret_ < 0) {                                                  \
            error_report("etsoc1: building the device tree: %s: %s", #x,     \
                         fdt_strerror(fdt_ret_));                            \
            abort();                                                         \
        }                                                                    \
    } while (0)

static void fdt_reg64(void *fdt, const char *prop, uint64_t a, uint64_t b)
{
    uint64_t cells[2] = { cpu_to_be64(a), cpu_to_be64(b) };

    FDT(fdt_property(fdt, prop, cells, sizeof(cells)));
}

static uint32_t etsoc1_cpu_phandle(unsigned hartid)
{
    return 1 + hartid;
}

static void etsoc1_fdt_cpus(Etsoc1MachineState *s, void *fdt)
{
    static const char compat[] = "esperanto,et-minion\0riscv";
    static const char intc_compat[] = "riscv,cpu-intc";
    unsigned nharts = s->num_shires * ETSOC1_HARTS_PER_SHIRE;
    unsigned h, shire, neigh, minion, t;
    char name[32];

    FDT(fdt_begin_node(fdt, "cpus"));
    FDT(fdt_property_u32(fdt, "#address-cells", 1));
    FDT(fdt_property_u32(fdt, "#size-cells", 0));
    for (h = 0; h < nharts; h++) {
        snprintf(name, sizeof(name), "cpu@%u", h);
        FDT(fdt_begin_node(fdt, name));
        FDT(fdt_property_string(fdt, "device_type", "cpu"));
        FDT(fdt_property_u32(fdt, "reg", h));
        FDT(fdt_property(fdt, "compatible", compat, sizeof(compat)));
        FDT(fdt_property_string(fdt, "riscv,isa", "rv64imfc_zicsr_zifencei"));
        FDT(fdt_property_string(fdt, "mmu-type", "riscv,sv39"));
        FDT(fdt_property_string(fdt, "status", "okay"));
        FDT(fdt_property_u32(fdt, "phandle", etsoc1_cpu_phandle(h)));
        FDT(fdt_begin_node(fdt, "interrupt-controller"));
        FDT(fdt_property_u32(fdt, "#interrupt-cells", 1));
        FDT(fdt_property(fdt, "interrupt-controller", NULL, 0));
        FDT(fdt_property(fdt, "compatible", intc_compat, sizeof(intc_compat)));
        FDT(fdt_end_node(fdt));
        FDT(fdt_end_node(fdt));
    }

    /* Topology: shire > neighbourhood > minion > thread. */
    FDT(fdt_begin_node(fdt, "cpu-map"));
    for (shire = 0, h = 0; shire < s->num_shires; shire++) {
        snprintf(name, sizeof(name), "cluster%u", shire);
        FDT(fdt_begin_node(fdt, name));
        for (neigh = 0; neigh < ETSOC1_NEIGHS_PER_SHIRE; neigh++) {
            snprintf(name, sizeof(name), "cluster%u", neigh);
            FDT(fdt_begin_node(fdt, name));
            for (minion = 0; minion < ETSOC1_MINIONS_PER_NEIGH; minion++) {
                snprintf(name, sizeof(name), "core%u", minion);
                FDT(fdt_begin_node(fdt, name));
                for (t = 0; t < ETSOC1_THREADS; t++, h++) {
                    snprintf(name, sizeof(name), "thread%u", t);
                    FDT(fdt_begin_node(fdt, name));
                    FDT(fdt_property_u32(fdt, "cpu", etsoc1_cpu_phandle(h)));
                    FDT(fdt_end_node(fdt));
                }
                FDT(fdt_end_node(fdt));
            }
            FDT(fdt_end_node(fdt));
        }
        FDT(fdt_end_node(fdt));
    }
    FDT(fdt_end_node(fdt));
    FDT(fdt_end_node(fdt));
}

static void etsoc1_fdt_uart(void *fdt, int region)
{
    static const char compat[] = "snps,dw-apb-uart\0ns16550a";
    char name[32];

    snprintf(name, sizeof(name), "serial@%" PRIx64, etsoc1_memmap[region].base);
    FDT(fdt_begin_node(fdt, name));
    FDT(fdt_property(fdt, "compatible", compat, sizeof(compat)));
    fdt_reg64(fdt, "reg", etsoc1_memmap[region].base,
              etsoc1_memmap[region].size);
    FDT(fdt_property_u32(fdt, "reg-shift", 2));
    FDT(fdt_property_u32(fdt, "reg-io-width", 4));
    FDT(fdt_property_u32(fdt, "clock-frequency", ETSOC1_UART_CLOCK));
    FDT(fdt_end_node(fdt));
}

/*
 * Built in one pass with libfdt's sequential-write API: no node is ever
 * looked up by path, which is what makes a 2,176-CPU tree cheap.
 */
static void *etsoc1_build_fdt(Etsoc1MachineState *s, MachineState *ms,
                              int *size)
{
    static const char compat[] = "esperanto,etsoc1";
    unsigned nharts = s->num_shires * ETSOC1_HARTS_PER_SHIRE;
    int bufsize = 64 * KiB + nharts * 512;
    void *fdt = g_malloc0(bufsize);
    Object *l3 = object_resolve_path_component(OBJECT(s), "l3[0]");
    char name[48];
    unsigned i;

    FDT(fdt_create(fdt, bufsize));
    FDT(fdt_finish_reservemap(fdt));
    FDT(fdt_begin_node(fdt, ""));
    FDT(fdt_property_u32(fdt, "#address-cells", 2));
    FDT(fdt_property_u32(fdt, "#size-cells", 2));
    FDT(fdt_property(fdt, "compatible", compat, sizeof(compat)));
    FDT(fdt_property_string(fdt, "model", "Esperanto ET-SoC-1 (QEMU)"));
    FDT(fdt_property_u32(fdt, "esperanto,shires", s->num_shires));
    FDT(fdt_property_u32(fdt, "esperanto,minion-clock-mhz", s->clock_mhz));
    /* L3 geometry, for software that probes it: bytes and ways per slice */
    FDT(fdt_property_u32(fdt, "esperanto,l3-slice-size",
                         object_property_get_uint(l3, "size", &error_abort)));
    FDT(fdt_property_u32(fdt, "esperanto,l3-ways",
                         object_property_get_uint(l3, "ways", &error_abort)));

    FDT(fdt_begin_node(fdt, "chosen"));
    snprintf(name, sizeof(name), "/soc/serial@%" PRIx64,
             etsoc1_memmap[ETSOC1_PU_UART0].base);
    FDT(fdt_property_string(fdt, "stdout-path", name));
    FDT(fdt_end_node(fdt));

    snprintf(name, sizeof(name), "memory@%" PRIx64,
             etsoc1_memmap[ETSOC1_DRAM].base);
    FDT(fdt_begin_node(fdt, name));
    FDT(fdt_property_string(fdt, "device_type", "memory"));
    fdt_reg64(fdt, "reg", etsoc1_memmap[ETSOC1_DRAM].base, ms->ram_size);
    FDT(fdt_end_node(fdt));

    etsoc1_fdt_cpus(s, fdt);

    FDT(fdt_begin_node(fdt, "soc"));
    FDT(fdt_property_u32(fdt, "#address-cells", 2));
    FDT(fdt_property_u32(fdt, "#size-cells", 2));
    FDT(fdt_property_string(fdt, "compatible", "simple-bus"));
    FDT(fdt_property(fdt, "ranges", NULL, 0));
    etsoc1_fdt_uart(fdt, ETSOC1_PU_UART0);
    etsoc1_fdt_uart(fdt, ETSOC1_PU_UART1);

    snprintf(name, sizeof(name), "esr@%" PRIx64,
             etsoc1_memmap[ETSOC1_ESR].base);
    FDT(fdt_begin_node(fdt, name));
    FDT(fdt_property_string(fdt, "compatible", "esperanto,etsoc1-esr"));
    fdt_reg64(fdt, "reg", etsoc1_memmap[ETSOC1_ESR].base,
              etsoc1_memmap[ETSOC1_ESR].size);
    FDT(fdt_end_node(fdt));

    for (i = 0; i < s->num_shires; i++) {
        hwaddr base = etsoc1_memmap[ETSOC1_SCP].base + i * ETSOC1_SCP_WINDOW;

        snprintf(name, sizeof(name), "scratchpad@%" PRIx64, base);
        FDT(fdt_begin_node(fdt, name));
        FDT(fdt_property_string(fdt, "compatible", "esperanto,etsoc1-l2scp"));
        fdt_reg64(fdt, "reg", base, ETSOC1_SCP_SIZE);
        FDT(fdt_property_u32(fdt, "esperanto,shire", i));
        FDT(fdt_end_node(fdt));
    }
    FDT(fdt_end_node(fdt));

    FDT(fdt_end_node(fdt));
    FDT(fdt_finish(fdt));
    *size = fdt_totalsize(fdt);
    return fdt;
}

/* ---- machine ------------------------------------------------------------- */

/*
 * The PCIe0 endpoint and its eDMA (docs/host-interface.md).  With
 * host-loopback=on a loopback host memory backs the eDMA, and it and the
 * host's view of the BARs are mapped in the reserved hole for tests to
 * reach.  With hostlink=<chardev> the host link (docs/host-link.md) is the
 * eDMA's host memory instead.
 */
static DeviceState *etsoc1_pcie_create(Etsoc1MachineState *s,
                                       MachineState *ms)
{
    static const hwaddr map[] = {
        ETSOC1_PCIE0_DBI_BASE, ETSOC1_PCIE_NOPCIESR, ETSOC1_PU_TRG_PCIE,
        ETSOC1_PU_TRG_PCIE_SP, ETSOC1_PU_TRG_MMIN, ETSOC1_PU_MBOX_PC_MM,
        ETSOC1_PU_MBOX_PC_SP, ETSOC1_PCIE0_SLV_BASE,
    };
    DeviceState *dev = qdev_new(TYPE_ETSOC1_PCIE_EP);
    SysBusDevice *sbd = SYS_BUS_DEVICE(dev);
    DeviceState *hl = NULL;
    unsigned i;

    object_property_add_child(OBJECT(s), "pcie", OBJECT(dev));
    qdev_prop_set_uint64(dev, "dram-size", ms->ram_size);
    qdev_prop_set_uint32(dev, "scp-shires", s->num_shires);
    object_property_set_link(OBJECT(dev), "timing", OBJECT(s->timing),
                             &error_abort);
    object_property_set_link(OBJECT(dev), "chip", OBJECT(s), &error_abort);
    object_property_set_link(OBJECT(dev), "dma", OBJECT(get_system_memory()),
                             &error_abort);
    if (s->hostlink_id) {
        /*
         * docs/host-link.md: the host link serves the eDMA's host side.
         * etsoc1_check_chardevs() made sure the chardev is free; the
         * property is set from hostlink= only.
         */
        hl = qdev_new(TYPE_ETSOC1_HOSTLINK);
        if (qemu_chr_fe_backend_connected(&ETSOC1_HOSTLINK(hl)->chr)) {
            error_report("etsoc1: the host link's chardev is hostlink=%s; "
                         "-global etsoc1-hostlink.chardev cannot set it",
                         s->hostlink_id);
            exit(1);
        }
        object_property_add_child(OBJECT(s), "host-link", OBJECT(hl));
        object_property_set_str(OBJECT(hl), "chardev", s->hostlink_id,
                                &error_fatal);
        object_property_set_link(OBJECT(dev), "host-mem", OBJECT(hl),
                                 &error_abort);
        if (s->rr) {
            /* record=: the host link reports what the host sent */
            object_property_set_link(OBJECT(hl), "recorder", OBJECT(s->rr),
                                     &error_abort);
        }
    } else if (s->rr) {
        /* replay=: the record plays the host (etsoc1-rr.c) */
        object_property_set_link(OBJECT(dev), "host-mem", OBJECT(s->rr),
                                 &error_abort);
    } else if (s->host_loopback) {
        Etsoc1HostLoopback *lb =
            ETSOC1_HOST_LOOPBACK(object_new(TYPE_ETSOC1_HOST_LOOPBACK));

        object_property_add_child(OBJECT(s), "loopback", OBJECT(lb));
        object_unref(OBJECT(lb));
        etsoc1_host_loopback_init_ram(lb, &error_fatal);
        memory_region_add_subregion(get_system_memory(), ETSOC1_LOOPBACK_BASE,
                                    &lb->mr);
        object_property_set_link(OBJECT(dev), "host-mem", OBJECT(lb),
                                 &error_abort);
    }
    sysbus_realize_and_unref(sbd, &error_fatal);
    for (i = 0; i < ARRAY_SIZE(map); i++) {
        sysbus_mmio_map(sbd, i, map[i]);
    }
    if (hl) {
        object_property_set_link(OBJECT(hl), "pcie", OBJECT(dev),
                                 &error_abort);
        qdev_realize_and_unref(hl, NULL, &error_fatal);
    }
    etsoc1_rr_attach(s->rr, ETSOC1_PCIE_EP(dev));
    if (s->host_loopback) {
        sysbus_mmio_map(sbd, i, ETSOC1_HOSTVIEW_BASE);
    }
    return dev;
}

/*
 * A PU PLIC interrupt on its way to master-shire hart @opaque: the hart
 * is unparked before its MEIP is raised, so that the gate's scans see it
 * about to act from then on, not only once its own thread has run
 * (etsoc1_sync_unpark; under thread=single the round may first run every
 * other vCPU).
 */
static void etsoc1_pu_plic_irq(void *opaque, int n, int level)
{
    Etsoc1MinionCPU *cpu = opaque;

    if (level) {
        etsoc1_sync_unpark(cpu);
    }
    qemu_set_irq(qdev_get_gpio_in(DEVICE(cpu), IRQ_M_EXT), level);
    if (level) {
        etsoc1_sync_lower(cpu, false);  /* raised: the gate's bounds see it */
    }
}

/* Before a host input at @t: the PU timers' expiries up to it */
static void etsoc1_timers_catch_up(void *opaque, uint64_t t)
{
    etsoc1_pu_timer_advance(ETSOC1_PU_TIMER(opaque), t);
}

/* A PLIC at @region with one M-mode context per CPU from @cpu_base. */
static DeviceState *etsoc1_plic_create(int region, unsigned cpu_base,
                                       unsigned ncpus)
{
    g_autoptr(GString) config = g_string_new("M");
    unsigned i;

    for (i = 1; i < ncpus; i++) {
        g_string_append(config, ",M");
    }
    return sifive_plic_create(etsoc1_memmap[region].base, config->str, ncpus,
                              cpu_base, ETSOC1_PLIC_SOURCES,
                              ETSOC1_PLIC_PRIORITIES, 0x4, 0x1000, 0x2000,
                              0x80, 0x200000, 0x1000,
                              etsoc1_memmap[region].size);
}

static void etsoc1_sp_reset(void *opaque)
{
    cpu_reset(CPU(opaque));
}

/*
 * The service processor: one plain RV64 hart (QEMU's generic rv64, M-mode)
 * in its own CPU cluster, so its translated code is never shared with the
 * minions', with its SRAM, its UART0 (the third -serial) and its PLIC.  It
 * starts at the entry of the sp-firmware ELF (docs/firmware.md).
 */
/* The SP's image, as a ROM in its SRAM; its entry is the SP's reset vector */
static uint64_t etsoc1_load_sp_firmware(Etsoc1MachineState *s)
{
    uint64_t entry;

    if (load_elf(s->sp_firmware, NULL, NULL, NULL, &entry, NULL, NULL, NULL,
                 0, EM_RISCV, 1, 0) < 0) {
        error_report("etsoc1: sp-firmware=%s: not a RISC-V ELF image",
                     s->sp_firmware);
        exit(1);
    }
    return entry;
}

static void etsoc1_sp_create(Etsoc1MachineState *s, DeviceState *pcie,
                             uint64_t entry)
{
    MemoryRegion *sysmem = get_system_memory();
    const MemMapEntry *sram = &etsoc1_memmap[ETSOC1_SP_SRAM];
    DeviceState *plic;

    /* no owner: the machine is not a device, and RAM migrates by name */
    memory_region_init_ram(&s->sp_sram, NULL, "etsoc1.sp-sram",
                           sram->size, &error_fatal);
    memory_region_add_subregion(sysmem, sram->base, &s->sp_sram);
    serial_mm_init(sysmem, etsoc1_memmap[ETSOC1_SP_UART0].base, 2, NULL,
                   ETSOC1_UART_CLOCK / 16, serial_hd(2), DEVICE_LITTLE_ENDIAN);
    object_initialize_child(OBJECT(s), "sp-cluster", &s->sp_cluster,
                            TYPE_CPU_CLUSTER);
    qdev_prop_set_uint32(DEVICE(&s->sp_cluster), "cluster-id", 1);
    s->sp = RISCV_CPU(object_new(TYPE_RISCV_CPU_BASE64));
    object_property_add_child(OBJECT(&s->sp_cluster), "sp", OBJECT(s->sp));
    object_unref(OBJECT(s->sp));
    qdev_prop_set_uint64(DEVICE(s->sp), "resetvec", entry);
    qdev_realize(DEVICE(s->sp), NULL, &error_fatal);
    qdev_realize(DEVICE(&s->sp_cluster), NULL, &error_fatal);
    qemu_register_reset(etsoc1_sp_reset, s->sp);

    plic = etsoc1_plic_create(ETSOC1_SP_PLIC, CPU(s->sp)->cpu_index, 1);
    qdev_connect_gpio_out(pcie, ETSOC1_PCIE_IRQ_SP,
                          qdev_get_gpio_in(plic, ETSOC1_SP_PLIC_MBOX_HOST));
}

/* Load @file; return its entry point and set *@end past its last byte. */
static uint64_t etsoc1_load(const char *file, uint64_t reset_pc,
                            uint64_t *end)
{
    uint64_t entry, low, high;
    ssize_t size;

    if (load_elf(file, NULL, NULL, NULL, &entry, &low, &high, NULL, 0,
                 EM_RISCV, 1, 0) > 0) {
        *end = high;
        return entry;
    }
    size = load_image_targphys(file, reset_pc,
                               etsoc1_memmap[ETSOC1_DRAM].size);
    if (size > 0) {
        *end = reset_pc + size;
        return reset_pc;
    }
    error_report("etsoc1: could not load '%s'", file);
    exit(1);
}

static bool etsoc1_in_dram_window(uint64_t addr)
{
    return addr >= etsoc1_memmap[ETSOC1_DRAM].base &&
           addr < etsoc1_memmap[ETSOC1_DRAM].base +
                  etsoc1_memmap[ETSOC1_DRAM].size;
}

/*
 * Refuse a DRAM too small for what the machine places in it
 * (docs/memory-map.md): the images loaded into DRAM and the reset PC's
 * instruction from the bottom, then the device tree at the top, 64 KiB
 * aligned.  @used_end is past the highest of the former; @what names it.
 */
static void etsoc1_check_dram(MachineState *ms, uint64_t used_end,
                              const char *what, size_t fdt_size)
{
    hwaddr dram = etsoc1_memmap[ETSOC1_DRAM].base;
    uint64_t need = QEMU_ALIGN_UP(used_end - dram, 64 * KiB) + fdt_size;

    if (ms->ram_size < need) {
        error_report("etsoc1: -m %" PRIu64 "K is too small: the device tree "
                     "(%zu bytes, at the top of DRAM, 64 KiB aligned) would "
                     "overlap %s (up to 0x%" PRIx64 "); need -m %" PRIu64
                     "K or more", ms->ram_size / KiB, fdt_size, what,
                     used_end, DIV_ROUND_UP(need, 8 * KiB) * 8);
        exit(1);
    }
}

/*
 * -bios and -kernel (ELF, or raw at the reset PC; the first one counts),
 * then the device tree at the top of DRAM: loaded as ROMs, which are
 * written at reset, so before the chip is built, and a file that cannot
 * be loaded or a DRAM too small is refused before 2,176 harts exist.
 */
static void etsoc1_load_images(Etsoc1MachineState *s, MachineState *ms)
{
    hwaddr dram = etsoc1_memmap[ETSOC1_DRAM].base;
    const char *images[2];
    g_autofree char *used_what = NULL;
    uint64_t used_end;
    bool entry_checked;
    void *fdt;
    unsigned i;

    images[0] = ms->firmware && strcmp(ms->firmware, "none") ? ms->firmware
                                                              : NULL;
    images[1] = ms->kernel_filename;
    /* the lowest address the device tree may take, and what is below it */
    used_end = dram;
    used_what = g_strdup("the bottom of DRAM");
    if (etsoc1_in_dram_window(s->reset_pc)) {
        used_end = s->reset_pc + 4;
        g_free(used_what);
        used_what = g_strdup_printf("the reset PC 0x%" PRIx64, s->reset_pc);
    }
    for (i = 0, entry_checked = false; i < ARRAY_SIZE(images); i++) {
        uint64_t entry, end;

        if (!images[i]) {
            continue;
        }
        entry = etsoc1_load(images[i], s->reset_pc, &end);
        if (etsoc1_in_dram_window(end - 1)) {
            if (end > dram + ms->ram_size) {
                error_report("etsoc1: '%s' (up to 0x%" PRIx64 ") does not fit "
                             "in DRAM (-m %" PRIu64 "K)", images[i], end,
                             ms->ram_size / KiB);
                exit(1);
            }
            if (end > used_end) {
                used_end = end;
                g_free(used_what);
                used_what = g_strdup_printf("'%s'", images[i]);
            }
        }
        if (!entry_checked && entry != s->reset_pc) {
            warn_report("etsoc1: entry point of '%s' is not the reset PC "
                        "0x%" PRIx64 "; harts start at the reset PC",
                        images[i], s->reset_pc);
        }
        entry_checked = true;
    }

    /* The device tree goes at the top of DRAM; every hart gets it in a1. */
    fdt = etsoc1_build_fdt(s, ms, &s->fdt_size);
    ms->fdt = fdt;
    etsoc1_check_dram(ms, used_end, used_what, s->fdt_size);
    qemu_fdt_dumpdtb(fdt, s->fdt_size);
    s->fdt_addr = QEMU_ALIGN_DOWN(dram + ms->ram_size - s->fdt_size, 64 * KiB);
    rom_add_blob_fixed("etsoc1.fdt", fdt, s->fdt_size, s->fdt_addr);
}

/*
 * A chardev takes one frontend, and serial_mm_init() and
 * qdev_prop_set_chr() abort when it already has one.  So every chardev
 * the machine will attach (the PU UARTs, -serial 0 and 1; the SP UART,
 * -serial 2; the host link) is checked here first, and one that is in use
 * (by -mon, by another -serial of this machine, by the host link) or
 * multiplexed under the host link is refused with a message.
 */
static bool etsoc1_chr_is_mux(Chardev *chr)
{
    return object_dynamic_cast(OBJECT(chr), TYPE_CHARDEV_MUX);
}

static void etsoc1_check_chardevs(Etsoc1MachineState *s)
{
    static const char *const uart[] = {
        "PU UART0 (-serial #1)", "PU UART1 (-serial #2)",
        "SP UART0 (-serial #3)",
    };
    Chardev *hl = NULL, *chr;
    unsigned i, j, n = s->sp_firmware ? 3 : 2;

    if (s->hostlink_id) {
        hl = qemu_chr_find(s->hostlink_id);
        if (!hl) {
            error_report("etsoc1: hostlink=%s: no such chardev",
                         s->hostlink_id);
            exit(1);
        }
        if (etsoc1_chr_is_mux(hl)) {
            /* the link's frames cannot share a stream */
            error_report("etsoc1: hostlink=%s: a multiplexed chardev "
                         "(mux=on) cannot carry the host link",
                         s->hostlink_id);
            exit(1);
        }
        if (hl->be) {
            error_report("etsoc1: hostlink=%s: chardev '%s' is already in "
                         "use (by -mon or another frontend)",
                         s->hostlink_id, hl->label);
            exit(1);
        }
    }
    for (i = 0; i < n; i++) {
        chr = serial_hd(i);
        if (!chr) {
            continue;
        }
        if (chr == hl) {
            error_report("etsoc1: hostlink=%s: chardev '%s' is also the "
                         "%s", s->hostlink_id, chr->label, uart[i]);
            exit(1);
        }
        if (etsoc1_chr_is_mux(chr)) {
            continue;       /* a mux takes several frontends */
        }
        if (chr->be) {
            error_report("etsoc1: the %s: chardev '%s' is already in use "
                         "(by -mon or another frontend)", uart[i],
                         chr->label);
            exit(1);
        }
        for (j = 0; j < i; j++) {
            if (serial_hd(j) == chr) {
                error_report("etsoc1: the %s: chardev '%s' is also the %s",
                             uart[i], chr->label, uart[j]);
                exit(1);
            }
        }
    }
}

/*
 * Unit @i of a chip-wide array (the L3 slices, the memory shires): a
 * device of @type, the machine's child "@name[@i]", its property @prop
 * set to @i, realized.
 */
static DeviceState *etsoc1_unit(Etsoc1MachineState *s, const char *type,
                                const char *name, const char *prop,
                                unsigned i)
{
    DeviceState *dev = qdev_new(type);
    g_autofree char *child = g_strdup_printf("%s[%u]", name, i);

    object_property_add_child(OBJECT(s), child, OBJECT(dev));
    qdev_prop_set_uint32(dev, prop, i);
    sysbus_realize_and_unref(SYS_BUS_DEVICE(dev), &error_fatal);
    return dev;
}

static void etsoc1_machine_init(MachineState *ms)
{
    Etsoc1MachineState *s = ETSOC1_MACHINE(ms);
    MemoryRegion *sysmem = get_system_memory();
    DeviceState *pcie, *timer, *edma;
    hwaddr dram = etsoc1_memmap[ETSOC1_DRAM].base;
    uint64_t sp_entry = 0;
    unsigned i, pp, mprot_reset;
    Error *err = NULL;
    bool sp;

    /* -smp counts every CPU: 64 harts per shire, plus the SP if there is one */
    sp = !!s->sp_firmware;
    s->num_shires = s->shires_prop ? s->shires_prop
                                   : ms->smp.cpus / ETSOC1_HARTS_PER_SHIRE;
    if (ms->smp.cpus != s->num_shires * ETSOC1_HARTS_PER_SHIRE + sp ||
        ms->smp.max_cpus != ms->smp.cpus) {
        error_report("etsoc1: %u shire(s)%s need -smp %u (64 harts per "
                     "shire%s); got -smp %u%s", MAX(s->num_shires, 1),
                     sp ? " and the SP" : "",
                     MAX(s->num_shires, 1) * ETSOC1_HARTS_PER_SHIRE + sp,
                     sp ? ", 1 service processor" : "", ms->smp.cpus,
                     ms->smp.max_cpus != ms->smp.cpus ? " with maxcpus" : "");
        exit(1);
    }
    s->timing = ETSOC1_TIMING(object_new(TYPE_ETSOC1_TIMING));
    object_property_add_child(OBJECT(s), "timing", OBJECT(s->timing));
    object_unref(OBJECT(s->timing));
    if (!etsoc1_timing_init(s->timing, s->clock_mhz, s->timing_file, &err) ||
        !etsoc1_trace_open(s->trace_json, s->trace_json_max_events,
                           s->clock_mhz, &err)) {
        error_reportf_err(err, "etsoc1: ");
        exit(1);
    }
    if (ms->ram_size > etsoc1_memmap[ETSOC1_DRAM].size) {
        error_report("etsoc1: at most %" PRIu64 " GiB of DRAM (-m)",
                     etsoc1_memmap[ETSOC1_DRAM].size / GiB);
        exit(1);
    }
    etsoc1_check_chardevs(s);
    if (s->hostlink_id && s->host_loopback) {
        error_report("etsoc1: hostlink= and host-loopback=on both give the "
                     "eDMA a host memory: choose one");
        exit(1);
    }
    /* record= or replay=: refusals, and the whole record read and checked */
    s->rr = etsoc1_rr_create(s, ms, qtest_enabled());
    if (sp) {
        sp_entry = etsoc1_load_sp_firmware(s);
    }

    /* One L3 slice per compute shire's place on the chip, tags only. */
    for (i = 0; i < ETSOC1_L3_SLICES; i++) {
        s->l3[i] = ETSOC1_L3_SLICE(etsoc1_unit(s, TYPE_ETSOC1_L3_SLICE, "l3",
                                               "slice", i));
    }
    /* The memory shires' DRAM, timing only (the chip's 8, as the L3's) */
    for (i = 0; i < ETSOC1_MEMSHIRES; i++) {
        s->memshire[i] = ETSOC1_MEMSHIRE(etsoc1_unit(s, TYPE_ETSOC1_MEMSHIRE,
                                                     "memshire", "index", i));
    }
    /* The mesh's links, timing only */
    s->mesh = ETSOC1_MESH(qdev_new(TYPE_ETSOC1_MESH));
    object_property_add_child(OBJECT(s), "mesh", OBJECT(s->mesh));
    sysbus_realize_and_unref(SYS_BUS_DEVICE(s->mesh), &error_fatal);
    /* the device tree gives the L3 slices' geometry */
    etsoc1_load_images(s, ms);

    /* Before any hart is realized: realize asks every CSR predicate. */
    etsoc1_minion_register_csrs();
    etsoc1_tensor_register_csrs();
    etsoc1_fabric_register_csrs();
    etsoc1_cache_register_csrs();

    /*
     * Build the whole map in one memory transaction: otherwise every
     * subregion added re-renders the view of every hart created so far.
     */
    memory_region_transaction_begin();

    memory_region_add_subregion(sysmem, dram, ms->ram);
    memory_region_init_alias(&s->dram_uc, OBJECT(s), "etsoc1.dram-uc", ms->ram,
                             0, ms->ram_size);
    memory_region_add_subregion(sysmem, etsoc1_memmap[ETSOC1_DRAM_UC].base,
                                &s->dram_uc);

    for (i = 0; i < ARRAY_SIZE(etsoc1_unimplemented); i++) {
        const MemMapEntry *e = &etsoc1_memmap[etsoc1_unimplemented[i].region];

        create_unimplemented_device(etsoc1_unimplemented[i].name, e->base,
                                    e->size);
    }
    /* ESR blocks of the memory shires and the IO shire, at every PP. */
    for (pp = 0; pp < 4; pp++) {
        create_unimplemented_device("etsoc1.esr-memshire",
            ETSOC1_ESR_ADDR(pp, ETSOC1_MEMSHIRE_FIRST, 0),
            ETSOC1_MEMSHIRES * ETSOC1_ESR_WINDOW);
        create_unimplemented_device("etsoc1.esr-ioshire",
            ETSOC1_ESR_ADDR(pp, ETSOC1_IO_SHIRE, 0), ETSOC1_ESR_WINDOW);
    }
    etsoc1_map_hole(s, &s->maxion, "etsoc1.maxion", ETSOC1_MAXION);
    etsoc1_map_hole(s, &s->scp_hole, "etsoc1.scp-unmapped", ETSOC1_SCP);
    etsoc1_map_hole(s, &s->esr_hole, "etsoc1.esr-unmapped", ETSOC1_ESR);

    serial_mm_init(sysmem, etsoc1_memmap[ETSOC1_PU_UART0].base, 2, NULL,
                   ETSOC1_UART_CLOCK / 16, serial_hd(0), DEVICE_LITTLE_ENDIAN);
    serial_mm_init(sysmem, etsoc1_memmap[ETSOC1_PU_UART1].base, 2, NULL,
                   ETSOC1_UART_CLOCK / 16, serial_hd(1), DEVICE_LITTLE_ENDIAN);

    /*
     * mprot at reset: Esperanto's simulator's 0x13 (16 GiB of DRAM), its
     * size field [5:4] raised to cover -m.  On the card the service
     * processor sets mprot before the minions leave reset; here they run
     * at once and read the device tree at the top of DRAM.
     */
    mprot_reset = deposit32(ETSOC1_MPROT_RESET, 4, 2,
                            MAX(extract32(ETSOC1_MPROT_RESET, 4, 2),
                                (ms->ram_size - 1) / (8 * GiB)));

    /* One buffer for every shire, aligned as the CPU state inside wants. */
    s->shire = qemu_memalign(__alignof__(Etsoc1ShireState),
                             s->num_shires * sizeof(Etsoc1ShireState));
    memset(s->shire, 0, s->num_shires * sizeof(Etsoc1ShireState));
    for (i = 0; i < s->num_shires; i++) {
        Etsoc1ShireState *sh = &s->shire[i];
        g_autofree char *name = g_strdup_printf("shire[%u]", i);

        object_initialize_child(OBJECT(s), name, sh, TYPE_ETSOC1_SHIRE);
        qdev_prop_set_uint32(DEVICE(sh), "shire-id", i);
        qdev_prop_set_uint64(DEVICE(sh), "reset-pc", s->reset_pc);
        qdev_prop_set_uint8(DEVICE(sh), "mprot-reset", mprot_reset);
        object_property_set_link(OBJECT(sh), "sysmem", OBJECT(sysmem),
                                 &error_abort);
        object_property_set_link(OBJECT(sh), "chip", OBJECT(s), &error_abort);
        object_property_set_link(OBJECT(sh), "timing", OBJECT(s->timing),
                                 &error_abort);
        sysbus_realize(SYS_BUS_DEVICE(sh), &error_fatal);
        memory_region_add_subregion(sysmem, etsoc1_memmap[ETSOC1_SCP].base +
                                    i * ETSOC1_SCP_WINDOW, &sh->scp);
        for (pp = 0; pp < 4; pp++) {
            memory_region_add_subregion(sysmem, ETSOC1_ESR_ADDR(pp, i, 0),
                                        &sh->esr[pp].mr);
        }
    }
    pcie = etsoc1_pcie_create(s, ms);
    timer = qdev_new(TYPE_ETSOC1_PU_TIMER);
    object_property_add_child(OBJECT(s), "pu-timer", OBJECT(timer));
    /* the host may still send: a warp waits for it (docs/timing.md) */
    if (object_property_get_uint(OBJECT(timer), "warp-idle-ms",
                                 &error_abort) == ETSOC1_PU_TIMER_WARP_AUTO) {
        qdev_prop_set_uint32(timer, "warp-idle-ms",
                             s->hostlink_id ? ETSOC1_WARP_IDLE_HOSTLINK_MS
                                            : 0);
    }
    object_property_set_link(OBJECT(timer), "chip", OBJECT(s), &error_abort);
    sysbus_realize_and_unref(SYS_BUS_DEVICE(timer), &error_fatal);
    s->input_catch_up = etsoc1_timers_catch_up;
    s->input_catch_up_opaque = timer;
    sysbus_mmio_map(SYS_BUS_DEVICE(timer), 0,
                    etsoc1_memmap[ETSOC1_PU_TIMER_REGS].base);
    edma = DEVICE(object_resolve_path_component(OBJECT(pcie), "edma"));
    if (s->num_shires > ETSOC1_MASTER_SHIRE) {
        /* minion cpu_index = mhartid: harts are created in hart order */
        DeviceState *plic = etsoc1_plic_create(ETSOC1_PU_PLIC,
            ETSOC1_MASTER_SHIRE * ETSOC1_HARTS_PER_SHIRE,
            ETSOC1_HARTS_PER_SHIRE);

        /* its M-mode outputs follow the S-mode ones (sifive_plic) */
        for (i = 0; i < ETSOC1_HARTS_PER_SHIRE; i++) {
            qdev_connect_gpio_out(plic, ETSOC1_HARTS_PER_SHIRE + i,
                qemu_allocate_irq(etsoc1_pu_plic_irq,
                                  &s->shire[ETSOC1_MASTER_SHIRE].hart[i], 0));
        }
        qdev_connect_gpio_out(pcie, ETSOC1_PCIE_IRQ_MM,
            qdev_get_gpio_in(plic, ETSOC1_PU_PLIC_PCIE_MESSAGE));
        for (i = 0; i < ETSOC1_PU_TIMERS; i++) {
            qdev_connect_gpio_out(timer, i,
                qdev_get_gpio_in(plic, ETSOC1_PU_PLIC_TIMER0 + i));
        }
        /* write channels 0-3, then read channels 0-3 */
        for (i = 0; i < 2 * ETSOC1_EDMA_CHANNELS; i++) {
            qdev_connect_gpio_out(edma, i,
                qdev_get_gpio_in(plic, ETSOC1_PU_PLIC_DMA_DONE0 + i));
        }
    }
    if (s->sp_firmware) {
        etsoc1_sp_create(s, pcie, sp_entry);
    }

    memory_region_transaction_commit();

    etsoc1_sync_start(s);
    etsoc1_rr_start(s->rr);     /* a replay's inputs, into the queue */
    /* only harts that run can hang: none do under -accel qtest */
    if (tcg_enabled()) {
        etsoc1_deadlock_start(s);
    }

    for (i = 0; i < s->num_shires; i++) {
        s->shire[i].fdt_addr = s->fdt_addr;
    }
}

static void etsoc1_get_shires(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    visit_type_uint32(v, name, &ETSOC1_MACHINE(obj)->shires_prop, errp);
}

/*
 * The machine's properties are read when the chip is built: a qom-set
 * afterwards would change nothing, or change the model under running
 * harts (and a record= session would not hold it).  Only the host-pacing
 * ones (on-deadlock, on-idle) may change at run time.  True, with an
 * error, once the machine is built.
 */
static bool etsoc1_set_late(const char *name, Error **errp)
{
    if (!phase_check(PHASE_MACHINE_INITIALIZED)) {
        return false;
    }
    error_setg(errp, "etsoc1: %s is set on the command line only (the "
               "chip is built)", name);
    return true;
}

static void etsoc1_set_shires(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    uint32_t value;

    if (etsoc1_set_late(name, errp)) {
        return;
    }
    if (!visit_type_uint32(v, name, &value, errp)) {
        return;
    }
    if (value > ETSOC1_MAX_SHIRES) {
        error_setg(errp, "shires=%u: the chip has at most %u minion shires",
                   value, ETSOC1_MAX_SHIRES);
        return;
    }
    ETSOC1_MACHINE(obj)->shires_prop = value;
}

static void etsoc1_get_reset_pc(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    visit_type_uint64(v, name, &ETSOC1_MACHINE(obj)->reset_pc, errp);
}

static void etsoc1_set_reset_pc(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    uint64_t value;

    if (etsoc1_set_late(name, errp)) {
        return;
    }
    if (!visit_type_uint64(v, name, &value, errp)) {
        return;
    }
    if (value & 1 || value >> 40) {
        error_setg(errp, "reset-pc=0x%" PRIx64 ": not a 40-bit even address",
                   value);
        return;
    }
    ETSOC1_MACHINE(obj)->reset_pc = value;
}

static const QEnumLookup etsoc1_handshake_lookup = {
    .array = (const char *const[]) {
        [ETSOC1_HANDSHAKE_RTL] = "rtl",
        [ETSOC1_HANDSHAKE_SYSEMU] = "sysemu",
    },
    .size = 2,
};

static const QEnumLookup etsoc1_on_deadlock_lookup = {
    .array = (const char *const[]) {
        [ETSOC1_ON_DEADLOCK_REPORT] = "report",
        [ETSOC1_ON_DEADLOCK_EXIT] = "exit",
        [ETSOC1_ON_DEADLOCK_HANG] = "hang",
    },
    .size = 3,
};

static const QEnumLookup etsoc1_on_idle_lookup = {
    .array = (const char *const[]) {
        [ETSOC1_ON_IDLE_REPORT] = "report",
        [ETSOC1_ON_IDLE_EXIT] = "exit",
        [ETSOC1_ON_IDLE_IGNORE] = "ignore",
    },
    .size = 3,
};

static int etsoc1_get_handshake(Object *obj, Error **errp)
{
    return ETSOC1_MACHINE(obj)->handshake;
}

static void etsoc1_set_handshake(Object *obj, int value, Error **errp)
{
    if (etsoc1_set_late("handshake", errp)) {
        return;
    }
    ETSOC1_MACHINE(obj)->handshake = value;
}

static int etsoc1_get_on_deadlock(Object *obj, Error **errp)
{
    return ETSOC1_MACHINE(obj)->on_deadlock;
}

static void etsoc1_set_on_deadlock(Object *obj, int value, Error **errp)
{
    ETSOC1_MACHINE(obj)->on_deadlock = value;
}

static int etsoc1_get_on_idle(Object *obj, Error **errp)
{
    return ETSOC1_MACHINE(obj)->on_idle;
}

static void etsoc1_set_on_idle(Object *obj, int value, Error **errp)
{
    ETSOC1_MACHINE(obj)->on_idle = value;
}

static void etsoc1_get_clock(Object *obj, Visitor *v, const char *name,
                             void *opaque, Error **errp)
{
    visit_type_uint32(v, name, &ETSOC1_MACHINE(obj)->clock_mhz, errp);
}

static void etsoc1_set_clock(Object *obj, Visitor *v, const char *name,
                             void *opaque, Error **errp)
{
    uint32_t value;

    if (etsoc1_set_late(name, errp)) {
        return;
    }
    if (!visit_type_uint32(v, name, &value, errp)) {
        return;
    }
    if (value < 100 || value > 2000) {
        error_setg(errp, "clock-mhz=%u: the minion clock must be 100 to "
                   "2000 MHz", value);
        return;
    }
    ETSOC1_MACHINE(obj)->clock_mhz = value;
}

/* Bool machine properties, read when the chip is built (etsoc1_set_late) */
#define ETSOC1_BOOL_PROP(field, prop)                                       \
    static bool etsoc1_get_##field(Object *obj, Error **errp)               \
    {                                                                       \
        return ETSOC1_MACHINE(obj)->field;                                  \
    }                                                                       \
    static void etsoc1_set_##field(Object *obj, bool value, Error **errp)   \
    {                                                                       \
        if (etsoc1_set_late(prop, errp)) {                                  \
            return;                                                         \
        }                                                                   \
        ETSOC1_MACHINE(obj)->field = value;                                 \
    }

ETSOC1_BOOL_PROP(host_loopback, "host-loopback")
ETSOC1_BOOL_PROP(poll_halt, "poll-halt")
ETSOC1_BOOL_PROP(stamp_host, "stamp-host")
ETSOC1_BOOL_PROP(cache_model, "cache-model")
ETSOC1_BOOL_PROP(plain_dram_turns, "plain-dram-turns")
ETSOC1_BOOL_PROP(flb_order, "flb-order")

/*
 * Read-only "idle": nothing on the card can act on its own (every CPU
 * halted with nothing to wake it, no host input or eDMA step pending:
 * etsoc1_sync_horizon).  A host that STOPs a recorded session then gets
 * an END whose clocks and RAM a replay compares (docs/record-replay.md).
 * A look at that moment: a timer, or the host, may wake the card later.
 */
static bool etsoc1_get_idle(Object *obj, Error **errp)
{
    bool idle;

    etsoc1_sync_horizon(&idle);
    return idle;
}

/* String machine properties: a file name or a chardev id, kept as given. */
#define ETSOC1_STR_PROP(field, prop)                                        \
    static char *etsoc1_get_##field(Object *obj, Error **errp)              \
    {                                                                       \
        return g_strdup(ETSOC1_MACHINE(obj)->field);                        \
    }                                                                       \
    static void etsoc1_set_##field(Object *obj, const char *value,          \
                                   Error **errp)                            \
    {                                                                       \
        Etsoc1MachineState *s = ETSOC1_MACHINE(obj);                        \
                                                                            \
        if (etsoc1_set_late(prop, errp)) {                                  \
            return;                                                         \
        }                                                                   \
        g_free(s->field);                                                   \
        s->field = g_strdup(value);                                         \
    }

ETSOC1_STR_PROP(timing_file, "timing-file")
ETSOC1_STR_PROP(trace_json, "trace-json")
ETSOC1_STR_PROP(hostlink_id, "hostlink")
ETSOC1_STR_PROP(sp_firmware, "sp-firmware")
ETSOC1_STR_PROP(rr_record, "record")
ETSOC1_STR_PROP(rr_replay, "replay")

static void etsoc1_get_trace_max(Object *obj, Visitor *v, const char *name,
                                 void *opaque, Error **errp)
{
    visit_type_uint64(v, name, &ETSOC1_MACHINE(obj)->trace_json_max_events,
                      errp);
}

static void etsoc1_set_trace_max(Object *obj, Visitor *v, const char *name,
                                 void *opaque, Error **errp)
{
    if (etsoc1_set_late(name, errp)) {
        return;
    }
    visit_type_uint64(v, name, &ETSOC1_MACHINE(obj)->trace_json_max_events,
                      errp);
}

static void etsoc1_machine_instance_init(Object *obj)
{
    ETSOC1_MACHINE(obj)->reset_pc = ETSOC1_DEFAULT_RESET_PC;
    ETSOC1_MACHINE(obj)->clock_mhz = ETSOC1_DEFAULT_CLOCK_MHZ;
    ETSOC1_MACHINE(obj)->trace_json_max_events = ETSOC1_TRACE_MAX_EVENTS;
    ETSOC1_MACHINE(obj)->poll_halt = true;
    ETSOC1_MACHINE(obj)->stamp_host = true;
    ETSOC1_MACHINE(obj)->cache_model = true;
    ETSOC1_MACHINE(obj)->plain_dram_turns = true;
    ETSOC1_MACHINE(obj)->flb_order = true;
}

/* ---- the chip as the PCIe side sees it (etsoc1-dma-chip) ---- */

static uint64_t etsoc1_dma_lines_written(Etsoc1DmaChip *chip, uint64_t pa,
                                         uint64_t len, uint64_t more)
{
    return etsoc1_l3_install_ahead(ETSOC1_MACHINE(chip), pa, len, more);
}

static bool etsoc1_dma_requester_time(Etsoc1DmaChip *chip, uint64_t *t)
{
    Etsoc1MinionCPU *cpu = etsoc1_current_minion();

    *t = cpu ? etsoc1_now(cpu) : 0;
    return cpu;
}

static void etsoc1_dma_requester_sees(Etsoc1DmaChip *chip, uint64_t t)
{
    Etsoc1MinionCPU *cpu = etsoc1_current_minion();

    if (cpu) {
        etsoc1_advance_to(cpu, t);
    }
}

static bool etsoc1_dma_input_post(Etsoc1DmaChip *chip, const char *what,
                                  uint64_t addr, uint64_t len,
                                  void (*fn)(void *opaque, uint64_t t),
                                  void *opaque)
{
    return etsoc1_input_post(ETSOC1_MACHINE(chip), what, addr, len, fn,
                             opaque);
}

static uint64_t etsoc1_dma_input_time(Etsoc1DmaChip *chip)
{
    return ETSOC1_MACHINE(chip)->input_applying_t;
}

/*
 * A minion's look at host state: if it must wait for a host input, it
 * leaves the access (an MMIO callback of the endpoint) as a poll leaves
 * the shire's windows, and runs it again when the input is in.
 */
static void etsoc1_dma_host_observe(Etsoc1DmaChip *chip, uint64_t last_t)
{
    Etsoc1MinionCPU *cpu = etsoc1_current_minion();

    if (cpu && etsoc1_host_observe(cpu, last_t)) {
        riscv_raise_exception(&cpu->parent_obj.env, etsoc1_halt_cause(cpu),
                              CPU(cpu)->mem_io_pc);
    }
}

static bool etsoc1_dma_link_turn(Etsoc1DmaChip *chip, uint64_t t,
                                 bool host_wait, QEMUTimer *kick)
{
    return etsoc1_link_turn(ETSOC1_MACHINE(chip), t, host_wait, kick);
}

/*
 * Under MTTCG the harts run on a pool of as many threads as the host has
 * CPUs (qemu-patches/0020), not a thread each: a hart that halts and is
 * woken then costs no host context switch (docs/architecture.md, "A pool
 * of vCPU threads").  -accel tcg,vcpu-threads=0 gives a thread per hart.
 */
static GlobalProperty etsoc1_accel_defaults[] = {
    { "tcg-accel", "vcpu-threads", "auto" },
};

static void etsoc1_machine_class_init(ObjectClass *oc, void *data)
{
    MachineClass *mc = MACHINE_CLASS(oc);
    Etsoc1DmaChipClass *dc = ETSOC1_DMA_CHIP_CLASS(oc);

    mc->desc = "Esperanto ET-SoC-1 (minion shires)";
    mc->init = etsoc1_machine_init;
    dc->lines_written = etsoc1_dma_lines_written;
    dc->requester_time = etsoc1_dma_requester_time;
    dc->requester_sees = etsoc1_dma_requester_sees;
    dc->input_post = etsoc1_dma_input_post;
    dc->input_time = etsoc1_dma_input_time;
    dc->host_observe = etsoc1_dma_host_observe;
    dc->link_turn = etsoc1_dma_link_turn;
    mc->max_cpus = ETSOC1_MAX_HARTS + 1;     /* + the service processor */
    mc->min_cpus = ETSOC1_HARTS_PER_SHIRE;
    mc->default_cpus = ETSOC1_HARTS_PER_SHIRE;
    mc->default_cpu_type = TYPE_ETSOC1_MINION_CPU;
    mc->default_ram_id = "etsoc1.dram";
    mc->default_ram_size = 1 * GiB;
    compat_props_add(mc->compat_props, etsoc1_accel_defaults,
                     G_N_ELEMENTS(etsoc1_accel_defaults));

    object_class_property_add(oc, "shires", "uint32", etsoc1_get_shires,
                              etsoc1_set_shires, NULL, NULL);
    object_class_property_set_description(oc, "shires",
        "Number of minion shires, 1-34 (64 harts each; default: -smp / 64)");
    object_class_property_add(oc, "reset-pc", "uint64", etsoc1_get_reset_pc,
                              etsoc1_set_reset_pc, NULL, NULL);
    object_class_property_set_description(oc, "reset-pc",
        "Reset value of minion_boot, where every hart starts "
        "(default 0x8000001000)");
    object_class_property_add_enum(oc, "handshake", "Etsoc1Handshake",
                                   &etsoc1_handshake_lookup,
                                   etsoc1_get_handshake, etsoc1_set_handshake);
    object_class_property_set_description(oc, "handshake",
        "Tensor send/receive handshake: rtl (one ready bit per minion, as "
        "the silicon; default) or sysemu (partners matched by name)");
    object_class_property_add_enum(oc, "on-deadlock", "Etsoc1OnDeadlock",
                                   &etsoc1_on_deadlock_lookup,
                                   etsoc1_get_on_deadlock,
                                   etsoc1_set_on_deadlock);
    object_class_property_set_description(oc, "on-deadlock",
        "When waiting harts can never be woken: report (print the report, "
        "stay up; default), exit (print it, exit with status 3) or hang (no "
        "detection)");
    object_class_property_add_enum(oc, "on-idle", "Etsoc1OnIdle",
                                   &etsoc1_on_idle_lookup,
                                   etsoc1_get_on_idle, etsoc1_set_on_idle);
    object_class_property_set_description(oc, "on-idle",
        "When every hart waits for an interrupt or has stopped and no "
        "transfer is pending: report (one line, stay up; default), exit "
        "(exit with status 0) or ignore");
    object_class_property_add_bool(oc, "host-loopback",
                                   etsoc1_get_host_loopback,
                                   etsoc1_set_host_loopback);
    object_class_property_set_description(oc, "host-loopback",
        "Without a host link: the eDMA's host memory is 64 MiB of RAM mapped "
        "at 0x30_0000_0000, and the host's view of the card at "
        "0x10_0000_0000 (for qtests; docs/host-interface.md, Test hooks)");
    object_class_property_add_bool(oc, "poll-halt", etsoc1_get_poll_halt,
                                   etsoc1_set_poll_halt);
    object_class_property_set_description(oc, "poll-halt",
        "Polls through global atomics halt and global reads wait for the "
        "harts behind them, so that hand-offs are timed by the model "
        "(default on; docs/timing.md, Polls and the read gate)");
    object_class_property_add_bool(oc, "stamp-host", etsoc1_get_stamp_host,
                                   etsoc1_set_stamp_host);
    object_class_property_set_description(oc, "stamp-host",
        "Host inputs (host-link MMIO writes, doorbells) take effect at an "
        "emulated time chosen after everything the card has done, through "
        "the read gate (default on; needs poll-halt; docs/timing.md, "
        "The host link)");
    object_class_property_add_bool(oc, "cache-model", etsoc1_get_cache_model,
                                   etsoc1_set_cache_model);
    object_class_property_set_description(oc, "cache-model",
        "Plain loads and stores of the minions are timed through the L1, "
        "the shire's L2, the L3 and DRAM (default on; off: every one costs "
        "an L1 hit, for speed; docs/timing.md, The cache model)");
    object_class_property_add_bool(oc, "plain-dram-turns",
                                   etsoc1_get_plain_dram_turns,
                                   etsoc1_set_plain_dram_turns);
    object_class_property_set_description(oc, "plain-dram-turns",
        "Plain loads and stores that miss the L3 fill it and take their "
        "turn at the memory shires' DRAM, in the model's order: a pass "
        "through the read gate per such miss (default on; off: they only "
        "look, for speed; "
        "needs poll-halt and cache-model; docs/timing.md, The cache model)");
    object_class_property_add_bool(oc, "flb-order", etsoc1_get_flb_order,
                                   etsoc1_set_flb_order);
    object_class_property_set_description(oc, "flb-order",
        "The accesses to a shire's FLB counter pass the read gate in "
        "(arrival, hart) order, so that the latest arrival of a round reads "
        "1 in every run (default on; off: whichever the host ran last, for "
        "speed; always on under record= and replay=; needs poll-halt; "
        "docs/timing.md, Fast local barrier)");
    object_class_property_add(oc, "clock-mhz", "uint32", etsoc1_get_clock,
                              etsoc1_set_clock, NULL, NULL);
    object_class_property_set_description(oc, "clock-mhz",
        "Minion clock in MHz (default 600): cycle counts of the mesh, L3 "
        "and DRAM legs, fixed in ns, scale with it");
    object_class_property_add_str(oc, "timing-file", etsoc1_get_timing_file,
                                  etsoc1_set_timing_file);
    object_class_property_set_description(oc, "timing-file",
        "File of 'key = value' lines overriding rows of the timing table "
        "(docs/timing.md)");
    object_class_property_add_str(oc, "trace-json", etsoc1_get_trace_json,
                                  etsoc1_set_trace_json);
    object_class_property_set_description(oc, "trace-json",
        "Write a Chrome/Perfetto timeline in emulated time to this file: "
        "waits, deliveries as flows, credits, eDMA transfers (docs/trace.md)");
    object_class_property_add(oc, "trace-json-max-events", "uint64",
                              etsoc1_get_trace_max, etsoc1_set_trace_max,
                              NULL, NULL);
    object_class_property_set_description(oc, "trace-json-max-events",
        "Events after which the trace-json timeline stops and says how many "
        "it dropped (default 1000000; 0: no limit)");
    object_class_property_add_str(oc, "hostlink", etsoc1_get_hostlink_id,
                                  etsoc1_set_hostlink_id);
    object_class_property_set_description(oc, "hostlink",
        "Id of a -chardev socket (server=on,wait=off) for the host link "
        "(docs/host-link.md)");
    object_class_property_add_str(oc, "sp-firmware", etsoc1_get_sp_firmware,
                                  etsoc1_set_sp_firmware);
    object_class_property_set_description(oc, "sp-firmware",
        "ELF image for the service processor; without it there is no SP "
        "(docs/firmware.md)");
    object_class_property_add_str(oc, "record", etsoc1_get_rr_record,
                                  etsoc1_set_rr_record);
    object_class_property_set_description(oc, "record",
        "Record the host link's session into this file, for replay= "
        "(docs/record-replay.md)");
    object_class_property_add_str(oc, "replay", etsoc1_get_rr_replay,
                                  etsoc1_set_rr_replay);
    object_class_property_set_description(oc, "replay",
        "Replay the session of this record file, with no host "
        "(docs/record-replay.md)");
    object_class_property_add(oc, "deadlock", "Etsoc1Deadlock",
                              etsoc1_get_deadlock, NULL, NULL, NULL);
    object_class_property_set_description(oc, "deadlock",
        "Read-only: which harts wait on what, and lost readies (JSON)");
    object_class_property_add_bool(oc, "idle", etsoc1_get_idle, NULL);
    object_class_property_set_description(oc, "idle",
        "Read-only: no CPU can act and no host input or eDMA step is "
        "pending (a record STOPped then compares clocks and memory)");
}

static const TypeInfo etsoc1_machine_info = {
    .name = TYPE_ETSOC1_MACHINE,
    .parent = TYPE_MACHINE,
    .instance_size = sizeof(Etsoc1MachineState),
    .instance_init = etsoc1_machine_instance_init,
    .class_init = etsoc1_machine_class_init,
    .interfaces = (InterfaceInfo[]) {
        { TYPE_ETSOC1_DMA_CHIP },
        { }
    },
};

static void etsoc1_machine_register_types(void)
{
    type_register_static(&etsoc1_machine_info);
}

type_init(etsoc1_machine_register_types)
