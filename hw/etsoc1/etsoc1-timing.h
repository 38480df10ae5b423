/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the annotated-latency timing table (etsoc1-timing.c,
 * docs/timing.md): one row per constant of the spec, the mesh's hops and
 * the path classes of the fabric.  Minion clocks themselves are the minion
 * CPU's (etsoc1-minion.h).
 */

#ifndef HW_ETSOC1_TIMING_H
#define HW_ETSOC1_TIMING_H

#include "qom/object.h"

#define ETSOC1_DEFAULT_CLOCK_MHZ 600

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
    ETSOC1_T_FLB_SERVICE,
    ETSOC1_T_MESH_PORT_REG,
    ETSOC1_T_MESH_PORT_TLOAD,
    ETSOC1_T_MESH_LINK_TLOAD,
    ETSOC1_T_MESH_LINK_REG,
    ETSOC1_T_DRAM_LINE,
    ETSOC1_T_L2_HIT,
    ETSOC1_T_L2_RBUF,
    ETSOC1_T_L1_MISS_HART1,
    ETSOC1_T_L1_STORE_WAIT,
    ETSOC1_T_L1_WRITEBACK,
    ETSOC1_T_L3_HIT,
    ETSOC1_T_L3_BANK_SERVICE,
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

/* Instruction classes (EtInsnClass, qemu-patches/0006) with a cost row */
#define ETSOC1_INSN_CLASSES (ETSOC1_T_INSN_SYSTEM - ETSOC1_T_INSN_ALU + 1)

/*
 * The timing table of one chip ("etsoc1-timing", the machine's child
 * "timing"): the rows of etsoc1-timing.c at the chip's minion clock,
 * after its timing file.  Shires, harts and the eDMA reach it through
 * their "timing" links; nothing here is global.
 */
#define TYPE_ETSOC1_TIMING "etsoc1-timing"
OBJECT_DECLARE_SIMPLE_TYPE(Etsoc1Timing, ETSOC1_TIMING)

struct Etsoc1Timing {
    Object parent_obj;
    uint32_t clock_mhz;
    double value[ETSOC1_T_COUNT];       /* in each row's own unit */
    uint8_t cost[ETSOC1_INSN_CLASSES];  /* cycles per instruction class */
};

/* Load the table at @clock_mhz, with the rows of the file @path if any. */
bool etsoc1_timing_init(Etsoc1Timing *tm, uint32_t clock_mhz,
                        const char *path, Error **errp);
double etsoc1_t(const Etsoc1Timing *tm, Etsoc1TimingId id);
uint64_t etsoc1_ns_to_cycles(const Etsoc1Timing *tm, double ns);
/* cycles of one instruction of class @cls (an EtInsnClass) */
uint8_t etsoc1_insn_cost(const Etsoc1Timing *tm, unsigned cls);
const uint8_t *etsoc1_insn_cost_table(const Etsoc1Timing *tm);
unsigned etsoc1_hops(unsigned a, unsigned b);
/*
 * A route between two shires: the mesh links it takes in order (of
 * ETSOC1_MESH_LINKS, four out of each cell: east, west, south, north),
 * etsoc1_hops of them, at most ETSOC1_ROUTE_MAX.
 */
#define ETSOC1_ROUTE_MAX    10
unsigned etsoc1_route(unsigned a, unsigned b,
                      uint8_t links[ETSOC1_ROUTE_MAX]);
unsigned etsoc1_hops_to_memshire(unsigned shire, unsigned m);
double etsoc1_memshire_way(const Etsoc1Timing *tm, unsigned shire,
                           unsigned m);

/* Path classes of timing.md 3, in the order of the stream rows */
typedef enum Etsoc1Path {
    ETSOC1_PATH_TREE,   /* a tree edge inside a neighbourhood */
    ETSOC1_PATH_XBAR,   /* any other pair in the shire */
    ETSOC1_PATH_NEAR,   /* another shire, at most stream.near.max-hops */
    ETSOC1_PATH_FAR,    /* another shire, further */
} Etsoc1Path;

Etsoc1Path etsoc1_path(const Etsoc1Timing *tm, unsigned a, unsigned b);
double etsoc1_msg_latency(const Etsoc1Timing *tm, unsigned a, unsigned b);
double etsoc1_stream_fixed(const Etsoc1Timing *tm, unsigned a, unsigned b);
double etsoc1_stream_reg(const Etsoc1Timing *tm, unsigned a, unsigned b);
double etsoc1_credit_latency(const Etsoc1Timing *tm, unsigned src_hart,
                             unsigned dst_hart);

#endif
