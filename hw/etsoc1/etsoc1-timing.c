/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1 annotated-latency timing: the one table of measured
 * constants (../shared/spec/timing.md, each row citing its source), the
 * 6x6 shire map, and the conversions from constants to minion cycles.
 *
 * A constant is kept in the unit it was measured in.  Latencies inside a
 * shire are fixed in minion cycles; mesh, L3 and DRAM legs are fixed in
 * ns and scale with the minion clock (machine property clock-mhz).  Rows
 * that timing.md gives in cycles at 600 MHz but that are mesh, L3 or
 * DRAM legs are kept as such (CYC600) and converted to ns.  The table can
 * be overridden row by row from a file (machine property timing-file):
 * "key = value" lines, '#' comments.
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qemu/cutils.h"
#include "qapi/error.h"
#include "hw/etsoc1/etsoc1-timing.h"
#include "hw/etsoc1/etsoc1-map.h"
#include "target/riscv/etsoc1/etsoc1-insn-class.h"

typedef enum {
    CYC,        /* minion cycles, whatever the clock */
    NS,         /* nanoseconds */
    CYC600,     /* measured in cycles at 600 MHz, fixed in ns */
    RAW,        /* a rate (GB/s) or a factor: used as it is */
} Etsoc1Unit;

typedef struct Etsoc1TimingRow {
    const char *key;
    double value;
    Etsoc1Unit unit;
    const char *source;     /* timing.md section and row */
} Etsoc1TimingRow;

#define ROW(id, k, v, u, src) [id] = { .key = k, .value = v, .unit = u, \
                                       .source = src }

static const Etsoc1TimingRow etsoc1_timing[ETSOC1_T_COUNT] = {
    ROW(ETSOC1_T_MSG_RTT_TREE, "msg.rtt.tree", 68, CYC,
        "3: TensorSend round trip, 32 B, tree edge"),
    ROW(ETSOC1_T_MSG_RTT_XBAR, "msg.rtt.xbar", 114, CYC,
        "3: TensorSend round trip, 32 B, other pair in the shire"),
    ROW(ETSOC1_T_MSG_RTT_MESH, "msg.rtt.mesh", 150, CYC,
        "3: TensorSend round trip, 32 B, between shires (fixed part)"),
    ROW(ETSOC1_T_MESH_HOP_RTT, "mesh.hop.rtt", 20, NS,
        "1: mesh hop, 20 ns per hop round trip"),
    ROW(ETSOC1_T_STREAM_FIXED_TREE, "stream.fixed.tree", 40, CYC,
        "3: streamed message, fixed, path 1 (tree edge)"),
    ROW(ETSOC1_T_STREAM_FIXED_XBAR, "stream.fixed.xbar", 86, CYC,
        "3: streamed message, fixed, path 2 (crossbar)"),
    ROW(ETSOC1_T_STREAM_FIXED_NEAR, "stream.fixed.near", 135, CYC,
        "3: streamed message, fixed, path 3 (near cross-shire)"),
    ROW(ETSOC1_T_STREAM_FIXED_FAR, "stream.fixed.far", 224, CYC,
        "3: streamed message, fixed, path 4 (far cross-shire)"),
    ROW(ETSOC1_T_STREAM_REG_TREE, "stream.reg.tree", 2.3, CYC,
        "3: streamed message, per 32 B register, path 1"),
    ROW(ETSOC1_T_STREAM_REG_XBAR, "stream.reg.xbar", 4.0, CYC,
        "3: streamed message, per 32 B register, path 2"),
    ROW(ETSOC1_T_STREAM_REG_NEAR, "stream.reg.near", 3.0, CYC,
        "3: streamed message, per 32 B register, path 3"),
    ROW(ETSOC1_T_STREAM_REG_FAR, "stream.reg.far", 4.6, CYC,
        "3: streamed message, per 32 B register, path 4"),
    ROW(ETSOC1_T_STREAM_NEAR_HOPS, "stream.near.max-hops", 6, CYC,
        "our choice: 'near' is at most 6 hops, where the far stream cost "
        "(224) meets the round trip (150 + 12 x 6)"),
    ROW(ETSOC1_T_CREDIT_RTT_SHIRE, "credit.rtt.shire", 120, CYC,
        "3: credit round trip inside a shire"),
    ROW(ETSOC1_T_CREDIT_RTT_MESH, "credit.rtt.mesh", 234, NS,
        "3: credit round trip across shires (fixed part)"),
    ROW(ETSOC1_T_CREDIT_HOP_RTT, "credit.hop.rtt", 24, NS,
        "3: credit round trip across shires, per hop"),
    ROW(ETSOC1_T_FLB_RTT, "flb.rtt", 60, CYC,
        "our choice, from 3: an FLB access goes to the shire's barrier "
        "unit and back; the credit round trip inside a shire (120) is two "
        "such trips through the shire (credit there, credit back), so one "
        "access is 120 / 2, half of it each way"),
    ROW(ETSOC1_T_FLB_SERVICE, "flb.service", 4.0, CYC,
        "our choice, from 3 (no FLB throughput is given): the shire's "
        "barrier unit takes one access at a time, one per slot of the "
        "in-shire crossbar it sits behind, the pace at which that crossbar "
        "hands one receiver a 32 B register (4.0 cycles per register, "
        "path 2); not fitted to any composite figure"),
    ROW(ETSOC1_T_MESH_PORT_REG, "mesh.port.reg", 8.5, NS,
        "fitted (issue 28): a shire's mesh port, out or in, passes one 32 B "
        "register of a tensor message in this time; fitted to the card's "
        "0.09-0.16 TB/s of 1 KiB rings between shires with all 1,024 "
        "minions sending (probes/ring-bw, shire s -> s + 1: 0.12 TB/s, the "
        "band's geometric centre); no other figure was used"),
    ROW(ETSOC1_T_MESH_PORT_TLOAD, "mesh.port.tload", 2.13, NS,
        "fitted (issue 28): a shire's mesh port, out or in, passes one "
        "64 B line of a TensorLoad from another shire's scratchpad in this "
        "time; fitted to the card's 0.96 TB/s of all 1,024 minions "
        "streaming TensorLoads from the scratchpad of the shire 16 IDs "
        "away (probes/tload-bw, src=remote); no other figure was used"),
    ROW(ETSOC1_T_MESH_LINK_TLOAD, "mesh.link.tload", 1.065, NS,
        "our choice (issue 28; the sources give no link figure): a mesh "
        "link passes one 64 B line of a TensorLoad between shires in this "
        "time, half mesh.port.tload: the least the card allows, since it "
        "moves the stream from 16 IDs away (2 routes on the busiest link) "
        "at the ports' rate; 0: links take no turns"),
    ROW(ETSOC1_T_MESH_LINK_REG, "mesh.link.reg", 2.83, NS,
        "our choice (issue 28; the sources give no link figure): a mesh "
        "link passes one 32 B register of a tensor message between shires "
        "in this time, a third of mesh.port.reg: the least the card allows, "
        "since it moves the 1 KiB rings shire s -> s + 1 (3 routes on the "
        "busiest link) at the ports' rate; 0: messages take no turns there"),
    ROW(ETSOC1_T_DRAM_LINE, "dram.line", 3.75, NS,
        "our choice from public figures, not fitted (issue 28): a memory "
        "shire's DRAM passes one 64 B line in this time; the chip's DRAM "
        "is four 64-bit LPDDR4x-4267 interfaces, 136.5 GB/s (Hot Chips 33: "
        "a card of six chips has 822 GB/s), shared by the 8 memory shires: "
        "17.07 GB/s each"),
    ROW(ETSOC1_T_L2_HIT, "l2.hit", 47, CYC,
        "4: L2 hit / own L2 scratchpad"),
    ROW(ETSOC1_T_L2_RBUF, "l2.rbuf", 36, CYC,
        "4: L2 read buffer; what it holds (the last lines the L2 and the "
        "scratchpad gave the hart's loads) and its size (shire property "
        "l2-rbuf-lines) are our choice: docs/timing.md"),
    ROW(ETSOC1_T_L1_MISS_HART1, "l1.miss.hart1", 3, CYC,
        "4: hart 1 pays +3 on every L1 miss"),
    ROW(ETSOC1_T_L1_STORE_WAIT, "l1.store.wait", 1, RAW,
        "our choice (the sources are silent): the share of a store "
        "miss's line fill the hart waits for; 1: a store miss fetches "
        "its line (write-allocate) and the in-order hart waits as a load "
        "would, 0: stores are posted and the fill is hidden"),
    ROW(ETSOC1_T_L1_WRITEBACK, "l1.writeback", 0.5, RAW,
        "our choice (the sources give no write-back figure): a dirty L1 "
        "line's write-back to the L2 costs this share of l2.hit; 0.5: of "
        "an L2 hit's round trip (the request's way there, the line's way "
        "back) a write-back is one way, the line's, with nothing to wait "
        "for in return"),
    ROW(ETSOC1_T_L3_HIT, "l3.hit", 110, CYC600,
        "4: L3 hit, fixed part (hops at mesh.hop.rtt)"),
    ROW(ETSOC1_T_L3_BANK_SERVICE, "l3.bank.service", 2, CYC,
        "our choice (issue 28; no L3 throughput is given): each of the "
        "home slice's sub-banks (property banks, 16) does one global write "
        "at a time, each holding it this long (a read and a write of a line "
        "in the slice's SRAM); not fitted to any composite figure"),
    ROW(ETSOC1_T_DRAM_LEG, "dram.leg", 91, CYC600,
        "4: DRAM, the leg past L3, fixed part (hops at mesh.hop.rtt)"),
    ROW(ETSOC1_T_SCP_REMOTE_CYC, "scp.remote.cycles", 66, CYC,
        "4: another shire's L2 scratchpad, cycle part"),
    ROW(ETSOC1_T_SCP_REMOTE_NS, "scp.remote.ns", 56, NS,
        "4: another shire's L2 scratchpad, ns part (hops at mesh.hop.rtt)"),
    ROW(ETSOC1_T_CACHEOP_LINE, "cacheop.line", 1, CYC,
        "our choice: a cache op by VA sends one line per cycle"),
    ROW(ETSOC1_T_TFMA_FP32, "tfma.fp32", 546, CYC,
        "5: TensorFMA fp32 16x16x16 alone"),
    ROW(ETSOC1_T_TFMA_FP32_PIPE, "tfma.fp32.pipelined", 529, CYC,
        "5: TensorFMA fp32 16x16x16 pipelined"),
    ROW(ETSOC1_T_TFMA_FP16, "tfma.fp16", 546, CYC,
        "5: TensorFMA fp16->fp32 (K=32) alone"),
    ROW(ETSOC1_T_TFMA_FP16_PIPE, "tfma.fp16.pipelined", 529, CYC,
        "5: TensorFMA fp16->fp32 (K=32) pipelined"),
    ROW(ETSOC1_T_TFMA_INT8, "tfma.int8", 318, CYC,
        "5: TensorFMA int8->int32 (K=64) alone"),
    ROW(ETSOC1_T_TFMA_INT8_PIPE, "tfma.int8.pipelined", 280, CYC,
        "5: TensorFMA int8->int32 (K=64) pipelined"),
    ROW(ETSOC1_T_TLOAD_L2_ROW, "tload.l2.row", 10, CYC,
        "5: TensorLoad from L2/SCP, 160/81/45 cycles for 16/8/4 rows"),
    ROW(ETSOC1_T_TLOAD_L2_FLOOR, "tload.l2.floor", 45, CYC,
        "5: TensorLoad from L2/SCP, 45-cycle floor"),
    ROW(ETSOC1_T_TLOAD_DRAM_1, "tload.dram.1", 73, CYC600,
        "5: TensorLoad from DRAM, one minion, 1 row (DRAM legs are fixed "
        "in ns, section 1)"),
    ROW(ETSOC1_T_TLOAD_DRAM_4, "tload.dram.4", 144, CYC600,
        "5: TensorLoad from DRAM, one minion, 4 rows"),
    ROW(ETSOC1_T_TLOAD_DRAM_8, "tload.dram.8", 320, CYC600,
        "5: TensorLoad from DRAM, one minion, 8 rows"),
    ROW(ETSOC1_T_TLOAD_DRAM_16, "tload.dram.16", 730, CYC600,
        "5: TensorLoad from DRAM, one minion, 16 rows"),
    ROW(ETSOC1_T_INSN_ALU, "insn.alu", 1, CYC,
        "issue 5: per-class instruction cost, 1 cycle by default"),
    ROW(ETSOC1_T_INSN_BRANCH, "insn.branch", 1, CYC, "as insn.alu"),
    ROW(ETSOC1_T_INSN_LOAD, "insn.load", 5, CYC,
        "4: L1 D-cache hit, 5 cycles: every load; a miss adds the "
        "rest of its level's latency (etsoc1-l1.c)"),
    ROW(ETSOC1_T_INSN_STORE, "insn.store", 1, CYC, "as insn.alu"),
    ROW(ETSOC1_T_INSN_MUL, "insn.mul", 1, CYC, "as insn.alu"),
    ROW(ETSOC1_T_INSN_DIV, "insn.div", 1, CYC, "as insn.alu"),
    ROW(ETSOC1_T_INSN_FP, "insn.fp", 1, CYC, "as insn.alu"),
    ROW(ETSOC1_T_INSN_FDIV, "insn.fdiv", 1, CYC, "as insn.alu"),
    ROW(ETSOC1_T_INSN_ATOMIC, "insn.atomic", 1, CYC, "as insn.alu"),
    ROW(ETSOC1_T_INSN_PACKED, "insn.packed", 1, CYC, "as insn.alu"),
    ROW(ETSOC1_T_INSN_SYSTEM, "insn.system", 1, CYC, "as insn.alu"),
    /* PCIe eDMA: rates in GB/s (bytes per ns) and factors, not cycles */
    ROW(ETSOC1_T_DMA_H2D, "dma.h2d.gbps", 12.5, RAW,
        "6: host->card, DMA only, 256 MiB"),
    ROW(ETSOC1_T_DMA_D2H, "dma.d2h.gbps", 10.5, RAW,
        "6: card->host, DMA only, 256 MiB"),
    ROW(ETSOC1_T_DMA_PAIR, "dma.pair", 1.01, RAW,
        "6: one host->card command in each of two streams"),
    ROW(ETSOC1_T_DMA_SAME_STREAM, "dma.same-stream", 0.49, RAW,
        "6: two host->card commands in flight in one stream"),
    ROW(ETSOC1_T_DMA_DUPLEX, "dma.duplex", 1.075, RAW,
        "6: host->card and card->host at once, 1.07-1.08 of the faster"),
};

QEMU_BUILD_BUG_ON(ETSOC1_INSN_CLASSES != ET_INSN_CLASSES);

/* @ns of a device working in ns (the eDMA) in minion cycles, rounded up. */
uint64_t etsoc1_ns_to_cycles(const Etsoc1Timing *tm, double ns)
{
    return (uint64_t)ceil(ns * tm->clock_mhz / 1000.0);
}

/* A row in minion cycles at the chip's clock. */
double etsoc1_t(const Etsoc1Timing *tm, Etsoc1TimingId id)
{
    switch (etsoc1_timing[id].unit) {
    case NS:
        return tm->value[id] * tm->clock_mhz / 1000.0;
    case CYC600:
        return tm->value[id] * tm->clock_mhz / 600.0;
    default:
        return tm->value[id];
    }
}

uint8_t etsoc1_insn_cost(const Etsoc1Timing *tm, unsigned cls)
{
    return tm->cost[cls];
}

/* The cost table for cfg.et_insn_cost: NULL while every class costs 1. */
const uint8_t *etsoc1_insn_cost_table(const Etsoc1Timing *tm)
{
    unsigned c;

    for (c = 0; c < ETSOC1_INSN_CLASSES; c++) {
        if (tm->cost[c] != 1) {
            return tm->cost;
        }
    }
    return NULL;
}

static bool etsoc1_timing_override(Etsoc1Timing *tm, const char *path,
                                   Error **errp)
{
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;
    GError *gerr = NULL;
    unsigned n, id, at[ETSOC1_T_COUNT] = { 0 };

    if (!g_file_get_contents(path, &text, NULL, &gerr)) {
        error_setg(errp, "timing-file: %s", gerr->message);
        g_error_free(gerr);
        return false;
    }
    lines = g_strsplit(text, "\n", -1);
    for (n = 0; lines[n]; n++) {
        char *line = lines[n], *eq;
        const char *end;
        double v;

        if (strchr(line, '#')) {
            *strchr(line, '#') = 0;
        }
        g_strstrip(line);
        eq = strchr(line, '=');

        if (!*line) {
            continue;
        }
        if (!eq) {
            error_setg(errp, "%s:%u: expected 'key = value'", path, n + 1);
            return false;
        }
        *eq = 0;
        g_strstrip(line);
        for (id = 0; id < ETSOC1_T_COUNT; id++) {
            if (!strcmp(etsoc1_timing[id].key, line)) {
                break;
            }
        }
        if (id == ETSOC1_T_COUNT) {
            error_setg(errp, "%s:%u: unknown timing constant '%s'", path,
                       n + 1, line);
            return false;
        }
        if (qemu_strtod_finite(g_strstrip(eq + 1), &end, &v) || *end ||
            v < 0 || v > 1e6) {
            error_setg(errp, "%s:%u: '%s' wants a number from 0 to 1e6",
                       path, n + 1, line);
            return false;
        }
        if (id == ETSOC1_T_L1_STORE_WAIT && v > 1) {
            error_setg(errp, "%s:%u: '%s' is a share of the fill: 0 to 1",
                       path, n + 1, line);
            return false;
        }
        if (id == ETSOC1_T_L1_WRITEBACK && v > 1) {
            error_setg(errp, "%s:%u: '%s' is a share of l2.hit: 0 to 1",
                       path, n + 1, line);
            return false;
        }
        tm->value[id] = v;
        at[id] = n + 1;
    }
    /*
     * Every load pays insn.load, the L1 hit, and a miss the rest of its
     * level's latency: an L2 hit faster than an L1 hit would be a miss
     * that costs less than a hit (etsoc1-l1.c clamps it to nothing)
     */
    if (tm->value[ETSOC1_T_L2_HIT] < tm->value[ETSOC1_T_INSN_LOAD]) {
        id = at[ETSOC1_T_L2_HIT] ? ETSOC1_T_L2_HIT : ETSOC1_T_INSN_LOAD;
        error_setg(errp, "%s:%u: l2.hit = %g is less than insn.load = %g: "
                   "an L2 hit cannot beat the L1 hit", path, at[id],
                   tm->value[ETSOC1_T_L2_HIT], tm->value[ETSOC1_T_INSN_LOAD]);
        return false;
    }
    /* the read buffer is in front of the L2: no slower, no faster than L1 */
    if (tm->value[ETSOC1_T_L2_RBUF] < tm->value[ETSOC1_T_INSN_LOAD] ||
        tm->value[ETSOC1_T_L2_RBUF] > tm->value[ETSOC1_T_L2_HIT]) {
        id = at[ETSOC1_T_L2_RBUF] ? ETSOC1_T_L2_RBUF :
             at[ETSOC1_T_L2_HIT] ? ETSOC1_T_L2_HIT : ETSOC1_T_INSN_LOAD;
        error_setg(errp, "%s:%u: l2.rbuf = %g must lie between insn.load = "
                   "%g and l2.hit = %g: the L2's read buffer is in front "
                   "of the L2", path, at[id], tm->value[ETSOC1_T_L2_RBUF],
                   tm->value[ETSOC1_T_INSN_LOAD],
                   tm->value[ETSOC1_T_L2_HIT]);
        return false;
    }
    return true;
}

/* Called once by the machine before any hart exists. */
bool etsoc1_timing_init(Etsoc1Timing *tm, uint32_t clock_mhz,
                        const char *path, Error **errp)
{
    unsigned c;

    tm->clock_mhz = clock_mhz;
    for (c = 0; c < ETSOC1_T_COUNT; c++) {
        tm->value[c] = etsoc1_timing[c].value;
    }
    if (path && !etsoc1_timing_override(tm, path, errp)) {
        return false;
    }
    for (c = 0; c < ETSOC1_INSN_CLASSES; c++) {
        double v = tm->value[ETSOC1_T_INSN_ALU + c];

        if (v < 1 || v > 255 || v != (unsigned)v) {
            error_setg(errp, "timing constant %s must be a whole number of "
                       "cycles from 1 to 255",
                       etsoc1_timing[ETSOC1_T_INSN_ALU + c].key);
            return false;
        }
        tm->cost[c] = v;
    }
    return true;
}

static const TypeInfo etsoc1_timing_info = {
    .name = TYPE_ETSOC1_TIMING,
    .parent = TYPE_OBJECT,
    .instance_size = sizeof(Etsoc1Timing),
};

static void etsoc1_timing_register_types(void)
{
    type_register_static(&etsoc1_timing_info);
}

type_init(etsoc1_timing_register_types)

/* ---- the 6x6 shire map (timing.md section 2) ----------------------------- */

#define NO_SHIRE -1

/*
 * The cell of each compute shire; the four cells marked X in timing.md
 * hold the master, spare, PCIe and I/O shires in an order the sources do
 * not pin down: our choice, the master first (docs/timing.md).
 */
static const int8_t etsoc1_map[6][6] = {
    {  0, 24,  9, 25,  2, 11 },
    {  8, 16,  1, 17, 10, 19 },
    {  3,  4, 13, 14, 18, 27 },
    { ETSOC1_MASTER_SHIRE, 12, 21, 22, 26, ETSOC1_IO_CELL },
    { ETSOC1_SPARE_SHIRE, 20, 29, 30, 15, 23 },
    { ETSOC1_PCIE_CELL, 28,  5,  6,  7, 31 },
};

/* (x, y) of a shire 0-33 or a cell id; false if the map has none */
static bool etsoc1_cell(int shire, int *x, int *y)
{
    for (*y = 0; *y < 6; (*y)++) {
        for (*x = 0; *x < 6; (*x)++) {
            if (etsoc1_map[*y][*x] == shire) {
                return true;
            }
        }
    }
    return false;
}

/* Mesh hops between two shires (Manhattan distance on the map). */
unsigned etsoc1_hops(unsigned a, unsigned b)
{
    int ax, ay, bx, by;

    if (!etsoc1_cell(a, &ax, &ay) || !etsoc1_cell(b, &bx, &by)) {
        return 0;
    }
    return abs(ax - bx) + abs(ay - by);
}

/*
 * The route from shire @a to shire @b: X first, then Y (dimension-order
 * routing, a shortest Manhattan path; the sources do not say which, and
 * Y first puts as many routes on the busiest link for every stride the
 * probes use: docs/timing.md, "Mesh links").  Fills @links with the
 * directed links in order, (cell y * 6 + x) * 4 + direction (0 east,
 * 1 west, 2 south, 3 north); returns how many.
 */
unsigned etsoc1_route(unsigned a, unsigned b, uint8_t links[ETSOC1_ROUTE_MAX])
{
    int x, y, bx, by;
    unsigned n = 0;

    if (!etsoc1_cell(a, &x, &y) || !etsoc1_cell(b, &bx, &by)) {
        return 0;
    }
    while (x != bx) {
        links[n++] = (y * 6 + x) * 4 + (bx > x ? 0 : 1);
        x += bx > x ? 1 : -1;
    }
    while (y != by) {
        links[n++] = (y * 6 + x) * 4 + (by > y ? 2 : 3);
        y += by > y ? 1 : -1;
    }
    return n;
}

/*
 * Hops from a shire to memory shire @m: memory shires 0-3 sit one step
 * off the top edge (y = -1), 4-7 off the bottom edge (y = 6), x = 1..4.
 */
unsigned etsoc1_hops_to_memshire(unsigned shire, unsigned m)
{
    int x, y;

    if (!etsoc1_cell(shire, &x, &y)) {
        return 0;
    }
    return abs(x - (int)(1 + m % 4)) + abs(y - (m < 4 ? -1 : 6));
}

/* Cycles from shire @shire's mesh stop to memory shire @m's: one way */
double etsoc1_memshire_way(const Etsoc1Timing *tm, unsigned shire,
                           unsigned m)
{
    return etsoc1_hops_to_memshire(shire, m) *
           etsoc1_t(tm, ETSOC1_T_MESH_HOP_RTT) / 2;
}

/* ---- paths between minions (timing.md section 3) ------------------------- */

/*
 * The tree edges of an 8-minion neighbourhood: 0-1, 0-2, 0-4, 2-3, 4-5,
 * 4-6, 6-7, as the neighbours of each minion.
 */
static const uint8_t etsoc1_tree_adj[ETSOC1_MINIONS_PER_NEIGH] = {
    0x16, 0x01, 0x09, 0x04, 0x61, 0x10, 0x90, 0x40,
};

/* Path class between two minions (global minion ids, 32 per shire). */
Etsoc1Path etsoc1_path(const Etsoc1Timing *tm, unsigned a, unsigned b)
{
    unsigned sa = a / ETSOC1_MINIONS_PER_SHIRE;
    unsigned sb = b / ETSOC1_MINIONS_PER_SHIRE;

    if (sa != sb) {
        return etsoc1_hops(sa, sb) <= etsoc1_t(tm, ETSOC1_T_STREAM_NEAR_HOPS)
               ? ETSOC1_PATH_NEAR : ETSOC1_PATH_FAR;
    }
    if (a / ETSOC1_MINIONS_PER_NEIGH == b / ETSOC1_MINIONS_PER_NEIGH &&
        etsoc1_tree_adj[a % ETSOC1_MINIONS_PER_NEIGH] >>
        (b % ETSOC1_MINIONS_PER_NEIGH) & 1) {
        return ETSOC1_PATH_TREE;
    }
    return ETSOC1_PATH_XBAR;
}

/* One way of a 32-byte TensorSend: half the measured round trip. */
double etsoc1_msg_latency(const Etsoc1Timing *tm, unsigned a, unsigned b)
{
    unsigned sa = a / ETSOC1_MINIONS_PER_SHIRE;
    unsigned sb = b / ETSOC1_MINIONS_PER_SHIRE;

    switch (etsoc1_path(tm, a, b)) {
    case ETSOC1_PATH_TREE:
        return etsoc1_t(tm, ETSOC1_T_MSG_RTT_TREE) / 2;
    case ETSOC1_PATH_XBAR:
        return etsoc1_t(tm, ETSOC1_T_MSG_RTT_XBAR) / 2;
    default:
        return (etsoc1_t(tm, ETSOC1_T_MSG_RTT_MESH) +
                etsoc1_hops(sa, sb) * etsoc1_t(tm, ETSOC1_T_MESH_HOP_RTT)) / 2;
    }
}

/* Streamed messages on the path: fixed cost per message, per register. */
double etsoc1_stream_fixed(const Etsoc1Timing *tm, unsigned a, unsigned b)
{
    return etsoc1_t(tm, ETSOC1_T_STREAM_FIXED_TREE + etsoc1_path(tm, a, b));
}

double etsoc1_stream_reg(const Etsoc1Timing *tm, unsigned a, unsigned b)
{
    return etsoc1_t(tm, ETSOC1_T_STREAM_REG_TREE + etsoc1_path(tm, a, b));
}

/* One way of a credit (fcc_credinc) between harts: half the round trip. */
double etsoc1_credit_latency(const Etsoc1Timing *tm, unsigned src_hart,
                             unsigned dst_hart)
{
    unsigned s = src_hart / ETSOC1_HARTS_PER_SHIRE;
    unsigned d = dst_hart / ETSOC1_HARTS_PER_SHIRE;

    if (s == d) {
        return etsoc1_t(tm, ETSOC1_T_CREDIT_RTT_SHIRE) / 2;
    }
    return (etsoc1_t(tm, ETSOC1_T_CREDIT_RTT_MESH) +
            etsoc1_hops(s, d) * etsoc1_t(tm, ETSOC1_T_CREDIT_HOP_RTT)) / 2;
}
