/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the annotated-latency timing table (etsoc1-timing.c,
 * docs/timing.md): one row per constant of the spec, the mesh's hops and
 * the path classes of the fabric.  Minion clocks themselves are the minion
 * CPU's (etsoc1-minion.h).
 */

#ifndef HW_ETSOC1_TIMING_H
#define HW_ETSOC1_TIMING_H

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

bool etsoc1_timing_init(uint32_t clock_mhz, const char *path, Error **errp);
double etsoc1_t(Etsoc1TimingId id);
uint64_t etsoc1_ns_to_cycles(double ns);
/* cycles of one instruction of class @cls (an EtInsnClass) */
uint8_t etsoc1_insn_cost(unsigned cls);
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

#endif
