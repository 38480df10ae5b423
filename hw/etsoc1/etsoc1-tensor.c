/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-Minion tensor compute: the L1 scratchpad, TensorLoad,
 * TensorFMA (fp32, fp16 and int8), TensorStore and TensorQuant, and the
 * tensor CSRs (etsoc1-csr.h).
 *
 * From isa.md section 10 and docs/research/vpu-tensor-facts.md.  Each
 * operation is a CSR write on thread 0; its data moves at issue, and its
 * time is the unit's (tensor_timing, docs/timing.md): tensor_wait and a
 * read of its f registers wait for it.  The in-order queue is kept by
 * making the issuing hart wait first for a pending tensor_reduce (which
 * shares the queue).  A cooperative TensorLoad waits for its partners.
 *
 * Per minion: 48 L1 scratchpad lines of 64 bytes (available when
 * mcache_control = 3), and TenC, the 32 x 8 x int32 accumulators of int8
 * TensorFMA.  C of a TensorFMA lives in f0-f31: C[i][j] is lane j % 8 of
 * f(2i + j / 8).
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qemu/log.h"
#include "exec/exec-all.h"
#include "exec/cpu_ldst.h"
#include "fpu/softfloat.h"
#include "hw/registerfields.h"
#include "hw/etsoc1/etsoc1-timing.h"
#include "hw/etsoc1/etsoc1.h"
#include "hw/etsoc1/etsoc1-shire.h"
#include "hw/etsoc1/etsoc1-csr.h"
#include "hw/etsoc1/etsoc1-trace.h"
#include "trace.h"

#define SCP_LINES   ETSOC1_L1SCP_LINES
#define LINE        64

FIELD(TLOAD, ROWS, 0, 4)            /* rows - 1 */
FIELD(TLOAD, BOFF, 4, 2)
FIELD(TLOAD, ADDR, 6, 42)           /* 64-byte aligned */
FIELD(TLOAD, TENB, 52, 1)
FIELD(TLOAD, START, 53, 6)
FIELD(TLOAD, CMD, 59, 3)
FIELD(TLOAD, COOP, 62, 1)
FIELD(TLOAD, MASK, 63, 1)

FIELD(TFMA, FIRST, 0, 1)
FIELD(TFMA, TYPE, 1, 3)
FIELD(TFMA, ASTART, 4, 6)
FIELD(TFMA, BSTART, 12, 6)
FIELD(TFMA, TENB, 20, 1)
FIELD(TFMA, UA, 21, 1)
FIELD(TFMA, UB, 22, 1)
FIELD(TFMA, TENC2RF, 23, 1)
FIELD(TFMA, AOFF, 43, 4)
FIELD(TFMA, ACOLS, 47, 4)           /* passes - 1 */
FIELD(TFMA, AROWS, 51, 4)           /* rows - 1 */
FIELD(TFMA, BCOLS, 55, 2)           /* (n + 1) * 4 columns */
FIELD(TFMA, MASK, 63, 1)

FIELD(TSTORE, ADDR, 4, 44)          /* 16-byte aligned */
FIELD(TSTORE, SCP, 48, 1)
FIELD(TSTORE, COOP, 49, 2)
FIELD(TSTORE, ROWS, 51, 4)
FIELD(TSTORE, COLS, 55, 2)          /* 16-byte blocks per row - 1 */
FIELD(TSTORE, FREG, 57, 5)
FIELD(TSTORE, SCPLINE, 56, 6)
FIELD(TSTORE, SRCINC, 62, 2)

FIELD(TCOOP, GROUP, 0, 5)
FIELD(TCOOP, MINIONS, 8, 8)         /* minions of each named neighbourhood */
FIELD(TCOOP, NEIGHS, 16, 4)

FIELD(TQUANT, FREG, 57, 5)
FIELD(TQUANT, COLS, 55, 2)
FIELD(TQUANT, ROWS, 51, 4)
FIELD(TQUANT, LINE, 45, 6)

enum { TFMA_FP32 = 0, TFMA_FP16 = 1, TFMA_INT8 = 3 };

static unsigned minion_of(Etsoc1MinionCPU *cpu)
{
    return (cpu->parent_obj.env.mhartid % ETSOC1_HARTS_PER_SHIRE) /
           ETSOC1_THREADS;
}

static uint8_t *scp_line(Etsoc1MinionCPU *cpu, unsigned line)
{
    return etsoc1_minion_state(cpu)->l1scp[line % SCP_LINES];
}

static bool scp_enabled(Etsoc1MinionCPU *cpu)
{
    return etsoc1_minion_state(cpu)->cache_ctl == 3;
}

static void tensor_error(Etsoc1MinionCPU *cpu, uint32_t bit, const char *what)
{
    qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": %s\n",
                  (uint64_t)cpu->parent_obj.env.mhartid, what);
    cpu->et->tensor.error |= bit;
}

/* Rows an operation touches: tensor_mask when its mask bit is set. */
static uint16_t tensor_rows(Etsoc1MinionCPU *cpu, bool use_mask)
{
    return use_mask ? cpu->et->tensor.mask : 0xffff;
}

/* 64-bit guest VA fields are 48-bit, sign-extended */
static target_ulong va48(uint64_t v)
{
    return sextract64(v, 0, 48);
}

/*
 * Move @len bytes (inside one page) between guest memory and @buf.  A
 * translation fault, an address outside the memory tensor operations may
 * touch (DRAM through its cacheable window, the L2 scratchpads: not
 * registers, I/O, PCIe, the service processor's SRAM or the uncacheable
 * DRAM alias, isa.md sections 2 and 10), or a bus error is not delivered:
 * it sets tensor_error[7] and the operation stops, leaving @buf as it was.
 */
static bool tensor_access(Etsoc1MinionCPU *cpu, target_ulong va, void *buf,
                          unsigned len, bool write)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    uint8_t tmp[LINE];
    hwaddr pa;
    MemTxResult r = MEMTX_ERROR;

    assert(len <= sizeof(tmp));
    if (etsoc1_minion_va_to_pa(cpu, va, write ? MMU_DATA_STORE
                                               : MMU_DATA_LOAD, &pa) &&
        (etsoc1_in(ETSOC1_DRAM, pa) || etsoc1_in(ETSOC1_SCP, pa) ||
         etsoc1_in(ETSOC1_SCP_LINEAR, pa))) {
        /* not a load instruction: no poll, and mem_io_pc is not ours */
        cpu->et->poll.helper_access = true;
        r = write ? address_space_write(CPU(cpu)->as, pa,
                                        MEMTXATTRS_UNSPECIFIED, buf, len)
                  : address_space_read(CPU(cpu)->as, pa,
                                       MEMTXATTRS_UNSPECIFIED, tmp, len);
        cpu->et->poll.helper_access = false;
    }
    if (r == MEMTX_OK && !write) {
        memcpy(buf, tmp, len);
    }
    if (r != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": tensor "
                      "access at 0x" TARGET_FMT_lx " faults; aborted\n",
                      (uint64_t)env->mhartid, va);
        cpu->et->tensor.error |= ETSOC1_TENSOR_ERROR_FAULT;
        return false;
    }
    return true;
}

/* ---- TensorLoad (CSR 0x83f) ---------------------------------------------- */

static void tensor_load(Etsoc1MinionCPU *cpu, uint64_t ctl, uint64_t x31,
                        uint16_t mask)
{
    target_ulong addr = va48(FIELD_EX64(ctl, TLOAD, ADDR) << 6);
    target_ulong stride = FIELD_EX64(x31, TLOAD, ADDR) << 6;
    unsigned rows = FIELD_EX64(ctl, TLOAD, ROWS) + 1;
    unsigned start = FIELD_EX64(ctl, TLOAD, START);
    unsigned boff = FIELD_EX64(ctl, TLOAD, BOFF);
    unsigned cmd = FIELD_EX64(ctl, TLOAD, CMD);
    uint8_t src[64][LINE], row[LINE];
    unsigned i, j, r, n;

    trace_etsoc1_tensor_load(cpu->parent_obj.env.mhartid, cmd, start, rows);
    if (FIELD_EX64(ctl, TLOAD, TENB)) {
        /* B operand buffer of the next TensorFMA: plain rows, no mask */
        uint8_t (*tenb)[64] = etsoc1_minion_state(cpu)->tenb;

        etsoc1_minion_state(cpu)->tenb_rows = 0;
        for (i = 0; i < rows; i++) {
            if (!tensor_access(cpu, addr + i * stride, tenb[i], LINE, false)) {
                return;
            }
        }
        etsoc1_minion_state(cpu)->tenb_rows = rows;
        return;
    }
    switch (cmd) {
    case 0:         /* load: row i = the line at addr + i * stride */
        for (i = 0; i < rows; i++) {
            if ((mask >> i & 1) &&
                !tensor_access(cpu, addr + i * stride, scp_line(cpu, start + i),
                               LINE, false)) {
                return;
            }
        }
        return;
    case 1:         /* interleave8: word c of row i = byte c of 4 rows */
    case 2:         /* interleave16: word c = halfword c of 2 rows */
        n = cmd == 1 ? 4 : 2;
        for (i = 0; i < rows; i++) {
            if (!(mask >> i & 1)) {
                continue;
            }
            for (r = 0; r < n; r++) {
                target_ulong va = addr + (n * i + r) * stride +
                                  (cmd == 1 ? 16 * boff : 32 * (boff >> 1));

                if (!tensor_access(cpu, va, src[r], LINE / n, false)) {
                    return;
                }
            }
            for (j = 0; j < LINE; j++) {
                row[j] = cmd == 1 ? src[j % 4][j / 4]
                                  : src[(j / 2) % 2][(j / 4) * 2 + j % 2];
            }
            memcpy(scp_line(cpu, start + i), row, LINE);
        }
        return;
    case 5:         /* transpose8/16/32: element j of row i = element i of */
    case 6:         /* memory line j; 64/32/16 lines are always read */
    case 7:
        n = cmd == 5 ? 64 : cmd == 6 ? 32 : 16;
        for (j = 0; j < n; j++) {
            if (!tensor_access(cpu, addr + j * stride, src[j], LINE, false)) {
                return;
            }
        }
        for (i = 0; i < rows; i++) {
            if (!(mask >> i & 1)) {
                continue;
            }
            for (j = 0; j < n; j++) {
                unsigned esz = LINE / n;        /* 1, 2 or 4 bytes */
                unsigned col = cmd == 5 ? 16 * boff + i
                             : cmd == 6 ? i + 16 * (boff >> 1) : i;

                memcpy(row + j * esz, src[j] + col * esz, esz);
            }
            memcpy(scp_line(cpu, start + i), row, LINE);
        }
        return;
    default:
        tensor_error(cpu, ETSOC1_TENSOR_ERROR_TRANSFORM,
                     "TensorLoad: reserved transform");
    }
}

/* ---- cooperative TensorLoad ---------------------------------------------- */

/*
 * A cooperative TensorLoad (bit 62, shire_coop_mode set) starts only when
 * every minion that tensor_coop names has issued one to the same load FSM
 * with the same group id; each then loads its own rows (on the chip the
 * group shares the fetches).  The issuing hart captures its load and goes
 * on; the last partner to arrive releases the group.  A released load is
 * run by its own hart, whose translation it needs, before its next tensor
 * operation or a tensor_wait for it; those wait while it is held.
 */

/* Load FSM of a TensorLoad: id 0, id 1 (x31[0]) or TenB. */
static unsigned tload_fsm(uint64_t ctl, uint64_t x31)
{
    return FIELD_EX64(ctl, TLOAD, TENB) ? 2 : x31 & 1;
}

/* The minions of this shire that @tcoop names, one bit per minion. */
static uint32_t coop_minions(uint32_t tcoop)
{
    uint32_t all = 0;
    unsigned n;

    for (n = 0; n < ETSOC1_NEIGHS_PER_SHIRE; n++) {
        if (FIELD_EX32(tcoop, TCOOP, NEIGHS) >> n & 1) {
            all |= FIELD_EX32(tcoop, TCOOP, MINIONS) <<
                   (n * ETSOC1_MINIONS_PER_NEIGH);
        }
    }
    return all;
}

/* The minions of the neighbourhoods @tcoop names, whether named or not. */
static uint32_t coop_span(uint32_t tcoop)
{
    uint32_t span = 0;
    unsigned n;

    for (n = 0; n < ETSOC1_NEIGHS_PER_SHIRE; n++) {
        if (FIELD_EX32(tcoop, TCOOP, NEIGHS) >> n & 1) {
            span |= MAKE_64BIT_MASK(n * ETSOC1_MINIONS_PER_NEIGH,
                                    ETSOC1_MINIONS_PER_NEIGH);
        }
    }
    return span;
}

/*
 * Called with the BQL held, which guards the shire's group table.  A
 * group id is a neighbourhood's, as in Esperanto's simulator (a table per
 * neighbourhood): groups of one id in disjoint neighbourhoods are
 * separate groups, and share coop_all/coop_arrived[fsm][group], each in
 * the bytes of its own neighbourhoods.
 */
static void coop_arrive(Etsoc1MinionCPU *cpu, uint64_t ctl, uint64_t x31)
{
    Etsoc1ShireState *s = cpu->shire;
    Etsoc1HartEt *et = cpu->et;
    unsigned fsm = tload_fsm(ctl, x31);
    unsigned group = FIELD_EX32(et->tensor.coop, TCOOP, GROUP);
    uint32_t all = coop_minions(et->tensor.coop);
    uint32_t *g_all = &s->coop_all[fsm][group];
    uint32_t *g_arrived = &s->coop_arrived[fsm][group];
    uint32_t held = *g_all & coop_span(et->tensor.coop);
    unsigned m;

    et->coop.ctl[fsm] = ctl;
    et->coop.x31[fsm] = x31;
    et->coop.tcoop[fsm] = et->tensor.coop;
    et->coop.mask[fsm] = tensor_rows(cpu, FIELD_EX64(ctl, TLOAD, MASK));
    trace_etsoc1_tensor_coop_arrive(cpu->parent_obj.env.mhartid, fsm, group,
                                    all, *g_arrived | 1u << minion_of(cpu));
    if (!(all >> minion_of(cpu) & 1) || (held && held != all)) {
        /* sysemu stops here; we run the load alone and go on */
        qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": tensor_coop "
                      "0x%x names minions 0x%08x: %s; loading alone\n",
                      (uint64_t)cpu->parent_obj.env.mhartid, et->tensor.coop,
                      all, held ? "group in use with another set"
                                : "not this minion");
        qatomic_set(&et->coop.state[fsm], ETSOC1_COOP_RELEASED);
        return;
    }
    qatomic_set(&et->coop.state[fsm], ETSOC1_COOP_WAITING);
    *g_all |= all;
    *g_arrived |= 1u << minion_of(cpu);
    if ((*g_arrived & all) != all) {
        return;
    }
    *g_all &= ~all;
    *g_arrived &= ~all;
    for (m = 0; m < ETSOC1_MINIONS_PER_SHIRE; m++) {
        Etsoc1MinionCPU *h = &s->hart[m * ETSOC1_THREADS];

        if (all >> m & 1) {
            qatomic_store_release(&h->et->coop.state[fsm],
                                  ETSOC1_COOP_RELEASED);
            if (h != cpu) {
                etsoc1_minion_wake(h);
            }
        }
    }
}

/*
 * Run this hart's released cooperative loads among @fsms (a bit per FSM).
 * False while one of them still waits for partners.
 */
static bool coop_settle(Etsoc1MinionCPU *cpu, unsigned fsms)
{
    Etsoc1HartEt *et = cpu->et;
    bool ready = true;
    unsigned f;

    for (f = 0; f < ETSOC1_TLOAD_FSMS; f++) {
        if (!(fsms >> f & 1)) {
            continue;
        }
        switch (qatomic_load_acquire(&et->coop.state[f])) {
        case ETSOC1_COOP_WAITING:
            ready = false;
            break;
        case ETSOC1_COOP_RELEASED:
            et->coop.state[f] = ETSOC1_COOP_IDLE;
            tensor_load(cpu, et->coop.ctl[f], et->coop.x31[f],
                        et->coop.mask[f]);
            break;
        }
    }
    if (!ready) {
        et->coop.wait = fsms;
    }
    return ready;
}

/*
 * The minion's L1 scratchpad goes off (mcache_control without SCPEnable):
 * its load FSMs go idle, as in Esperanto's simulator, which stops with an
 * internal error when one of them is a cooperative load still held for its
 * partners (isa.md section 3: "an error").  We log that, drop the held
 * loads and take the minion's arrival back from its group, so that a group
 * abandoned half-issued (a kernel aborted while its minions waited in it;
 * our firmware turns the scratchpad off after such a kernel) neither holds
 * the minion's next load nor completes a later group of the same id.
 */
void etsoc1_coop_drop(Etsoc1MinionCPU *cpu)
{
    Etsoc1ShireState *s = cpu->shire;
    unsigned m = minion_of(cpu);
    Etsoc1MinionCPU *t0 = &s->hart[m * ETSOC1_THREADS];  /* tensor unit's */
    Etsoc1HartEt *et = t0->et;
    bool taken;
    bool dropped = false;
    unsigned f;

    taken = etsoc1_bql_lock();
    for (f = 0; f < ETSOC1_TLOAD_FSMS; f++) {
        uint32_t tcoop = et->coop.tcoop[f];
        unsigned group = FIELD_EX32(tcoop, TCOOP, GROUP);
        uint32_t all = coop_minions(tcoop);
        uint32_t *g_arrived = &s->coop_arrived[f][group];

        if (qatomic_read(&et->coop.state[f]) == ETSOC1_COOP_WAITING) {
            *g_arrived &= ~(1u << m);
            qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: hart %" PRIu64 ": L1 "
                          "scratchpad turned off while its cooperative "
                          "TensorLoad (FSM %u, tensor_coop 0x%x) waits for "
                          "minions 0x%08x; dropped\n",
                          (uint64_t)t0->parent_obj.env.mhartid, f, tcoop,
                          all & ~*g_arrived & ~(1u << m));
            trace_etsoc1_tensor_coop_drop(t0->parent_obj.env.mhartid, f,
                                          group, all, *g_arrived);
            if (!(*g_arrived & all)) {
                s->coop_all[f][group] &= ~all;  /* nobody left in it */
            }
            dropped = true;
        }
        qatomic_set(&et->coop.state[f], ETSOC1_COOP_IDLE);
    }
    if (dropped && t0 != cpu) {
        etsoc1_minion_wake(t0);     /* thread 1 did it: thread 0 may go */
    }
    etsoc1_bql_unlock(taken);
}

/* For has_work: does the blocked hart still wait for partners? */
bool etsoc1_coop_waiting(Etsoc1MinionCPU *cpu)
{
    unsigned f;

    for (f = 0; f < ETSOC1_TLOAD_FSMS; f++) {
        if ((cpu->et->coop.wait >> f & 1) &&
            qatomic_read(&cpu->et->coop.state[f]) == ETSOC1_COOP_WAITING) {
            return true;
        }
    }
    return false;
}

static RISCVException tensor_load_issue(Etsoc1MinionCPU *cpu, uint64_t ctl,
                                        uint64_t x31)
{
    unsigned fsm = tload_fsm(ctl, x31);
    bool taken;

    if (!FIELD_EX64(ctl, TLOAD, COOP)) {
        tensor_load(cpu, ctl, x31,
                    tensor_rows(cpu, FIELD_EX64(ctl, TLOAD, MASK)));
        return RISCV_EXCP_NONE;
    }
    taken = etsoc1_bql_lock();
    coop_arrive(cpu, ctl, x31);
    etsoc1_bql_unlock(taken);
    coop_settle(cpu, 1u << fsm);        /* runs it if we were the last */
    return RISCV_EXCP_NONE;
}

/* ---- timing (docs/timing.md; timing.md section 5) ------------------------ */

/*
 * Operations run when issued; the timing model books when each part of
 * the minion's tensor unit finishes, and the hart's clock catches up when
 * it waits (tensor_wait) or reads f registers a TensorFMA/Quant writes.
 */

/* Does a tensor access at @va read DRAM (else a scratchpad)? */
static bool tensor_in_dram(Etsoc1MinionCPU *cpu, target_ulong va)
{
    hwaddr pa;

    return etsoc1_minion_va_to_pa(cpu, va, MMU_DATA_LOAD, &pa) &&
           (etsoc1_in(ETSOC1_DRAM, pa) || etsoc1_in(ETSOC1_DRAM_UC, pa));
}

/*
 * A TensorLoad of @rows rows: from a scratchpad 10 cycles a row with a
 * floor; from DRAM the measured figures, linear between them.
 */
static double tload_cycles(const Etsoc1Timing *tm, unsigned rows,
                           bool dram)
{
    static const unsigned at[] = { 1, 4, 8, 16 };  /* ETSOC1_T_TLOAD_DRAM_* */
    unsigned i;

    if (!dram) {
        return MAX(etsoc1_t(tm, ETSOC1_T_TLOAD_L2_FLOOR),
                   etsoc1_t(tm, ETSOC1_T_TLOAD_L2_ROW) * rows);
    }
    for (i = 0; i + 2 < ARRAY_SIZE(at) && rows > at[i + 1]; i++) {
    }
    return etsoc1_t(tm, ETSOC1_T_TLOAD_DRAM_1 + i) +
           (etsoc1_t(tm, ETSOC1_T_TLOAD_DRAM_1 + i + 1) -
            etsoc1_t(tm, ETSOC1_T_TLOAD_DRAM_1 + i)) *
           ((double)rows - at[i]) / (at[i + 1] - at[i]);
}

/*
 * A TensorFMA: the measured 16-pass figure of its type, alone (latency)
 * or pipelined (issue interval); our choice, with one measured shape per
 * type, is to scale it with the number of passes.
 */
static double tfma_cycles(const Etsoc1Timing *tm, unsigned type,
                          unsigned passes, bool pipelined)
{
    Etsoc1TimingId id = type == TFMA_INT8 ? ETSOC1_T_TFMA_INT8 :
                        type == TFMA_FP16 ? ETSOC1_T_TFMA_FP16 :
                        ETSOC1_T_TFMA_FP32;

    return etsoc1_t(tm, id + pipelined) * passes / 16;
}

/*
 * The shire whose scratchpad a TensorLoad at @va reads, if it is another
 * one of the chip's (its data then crosses the mesh ports), else -1.
 */
static int tload_remote_shire(Etsoc1MinionCPU *cpu, target_ulong va)
{
    hwaddr pa;
    unsigned s;

    if (!etsoc1_minion_va_to_pa(cpu, va, MMU_DATA_LOAD, &pa) ||
        !etsoc1_in(ETSOC1_SCP, pa)) {
        return -1;
    }
    s = etsoc1_scp_shire(pa);
    return s != cpu->shire->shire_id && s < cpu->shire->chip->num_shires
           ? (int)s : -1;
}

/*
 * The DRAM lines a TensorLoad reads, in @pa (one per row: our choice, as
 * for the mesh ports, also for the transforms); how many.  0 when it does
 * not read DRAM.
 */
static unsigned tload_dram_lines(Etsoc1MinionCPU *cpu, uint64_t ctl,
                                 uint64_t x31, hwaddr pa[16])
{
    target_ulong va = va48(FIELD_EX64(ctl, TLOAD, ADDR) << 6);
    target_ulong stride = va48(FIELD_EX64(x31, TLOAD, ADDR) << 6);
    unsigned i, n = 0;

    for (i = 0; i <= FIELD_EX64(ctl, TLOAD, ROWS); i++) {
        if (etsoc1_minion_va_to_pa(cpu, va + i * stride, MMU_DATA_LOAD,
                                   &pa[n]) &&
            (etsoc1_in(ETSOC1_DRAM, pa[n]) ||
             etsoc1_in(ETSOC1_DRAM_UC, pa[n]))) {
            n++;
        }
    }
    return n;
}

/* When a TensorLoad issued now starts in the minion's load unit */
static uint64_t tload_start(Etsoc1MinionCPU *cpu)
{
    return MAX(etsoc1_arrival(cpu, 0), cpu->et->tensor.t[ETSOC1_TT_LOAD_FREE]);
}

/*
 * Book a tensor operation issued by the CSR write that is running; a
 * TensorLoad ends @port_wait later for the mesh ports (etsoc1_tload_port).
 */
static void tensor_timing(Etsoc1MinionCPU *cpu, int csrno, uint64_t ctl,
                          uint64_t x31, uint64_t port_wait)
{
    const Etsoc1Timing *tm = cpu->timing;
    uint64_t *t = cpu->et->tensor.t;
    /* in the unit's queue behind a tensor_reduce of the same minion */
    uint64_t issue = MAX(etsoc1_arrival(cpu, 0),
                         csrno == ETSOC1_CSR_TENSOR_LOAD ||
                         csrno == ETSOC1_CSR_TENSOR_LOAD_L2 ? 0 :
                         etsoc1_reduce_done_at(cpu)), start;
    bool fregs = false;
    unsigned type;

    switch (csrno) {
    case ETSOC1_CSR_TENSOR_LOAD:
    case ETSOC1_CSR_TENSOR_LOAD_L2:
        start = MAX(issue, t[ETSOC1_TT_LOAD_FREE]);
        t[ETSOC1_TT_LOAD_FREE] = start + llround(tload_cycles(tm,
            FIELD_EX64(ctl, TLOAD, ROWS) + 1,
            tensor_in_dram(cpu, va48(FIELD_EX64(ctl, TLOAD, ADDR) << 6)))) +
            port_wait;
        t[csrno == ETSOC1_CSR_TENSOR_LOAD_L2 ? ETSOC1_TT_LOAD_L2 :
          ETSOC1_TT_LOAD0 + tload_fsm(ctl, x31)] = t[ETSOC1_TT_LOAD_FREE];
        break;
    case ETSOC1_CSR_TENSOR_FMA:
        /* in order after the loads that feed it */
        start = MAX(MAX(issue, t[ETSOC1_TT_FMA_FREE]),
                    MAX(MAX(t[ETSOC1_TT_LOAD0], t[ETSOC1_TT_LOAD1]),
                        t[ETSOC1_TT_LOADB]));
        type = FIELD_EX64(ctl, TFMA, TYPE);
        t[ETSOC1_TT_FMA] = start + llround(tfma_cycles(tm, type,
            FIELD_EX64(ctl, TFMA, ACOLS) + 1, false));
        t[ETSOC1_TT_FMA_FREE] = start + llround(tfma_cycles(tm, type,
            FIELD_EX64(ctl, TFMA, ACOLS) + 1, true));
        fregs = type != TFMA_INT8 || FIELD_EX64(ctl, TFMA, TENC2RF);
        if (fregs) {
            t[ETSOC1_TT_FREG] = MAX(t[ETSOC1_TT_FREG], t[ETSOC1_TT_FMA]);
        }
        break;
    case ETSOC1_CSR_TENSOR_STORE:
        /* no measurement: in order after what writes its source */
        t[ETSOC1_TT_STORE] = MAX(MAX(issue, t[ETSOC1_TT_FMA]),
                                 MAX(t[ETSOC1_TT_QUANT],
                                     t[ETSOC1_TT_LOAD_FREE]));
        break;
    default:                /* TensorQuant: no measurement, in order */
        t[ETSOC1_TT_QUANT] = MAX(issue, t[ETSOC1_TT_FMA]);
        t[ETSOC1_TT_FREG] = MAX(t[ETSOC1_TT_FREG], t[ETSOC1_TT_QUANT]);
        fregs = true;
        break;
    }
    if (fregs) {
        /* F instructions catch up first (etsoc1_reduce_observe) */
        qatomic_set(&cpu->parent_obj.env.et_tensor_busy, 1);
    }
}

/* ---- TensorLoadL2 (CSR 0x85f) -------------------------------------------- */

FIELD(TLOADL2, LINE_LO, 4, 2)
FIELD(TLOADL2, LINE_HI, 48, 15)

/*
 * Rows of 64 bytes into the hart's own shire's L2 scratchpad, line
 * 4 * [62:48] + [5:4] onwards; either thread, no transforms, tensor_mask
 * with [63].  Lines are addressed through the local-shire window, so a line
 * past the shire's scratchpad RAM is a bus error: tensor_error[7], stop.
 */
static void etsoc1_tensor_load_l2(Etsoc1MinionCPU *cpu, uint64_t ctl)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    target_ulong addr = va48(FIELD_EX64(ctl, TLOAD, ADDR) << 6);
    target_ulong stride = FIELD_EX64(env->gpr[31], TLOAD, ADDR) << 6;
    unsigned rows = FIELD_EX64(ctl, TLOAD, ROWS) + 1;
    unsigned line = FIELD_EX64(ctl, TLOADL2, LINE_HI) * 4 +
                    FIELD_EX64(ctl, TLOADL2, LINE_LO);
    uint16_t mask = tensor_rows(cpu, FIELD_EX64(ctl, TLOAD, MASK));
    uint8_t row[LINE];
    unsigned i;

    trace_etsoc1_tensor_load_l2(env->mhartid, line, rows);
    tensor_timing(cpu, ETSOC1_CSR_TENSOR_LOAD_L2, ctl, env->gpr[31], 0);
    for (i = 0; i < rows; i++) {
        hwaddr pa = etsoc1_memmap[ETSOC1_SCP].base +
                    ETSOC1_SCP_LOCAL_SHIRE * ETSOC1_SCP_WINDOW +
                    (hwaddr)(line + i) * LINE;

        if (!(mask >> i & 1)) {
            continue;
        }
        if (!tensor_access(cpu, addr + i * stride, row, LINE, false)) {
            return;
        }
        if (address_space_write(CPU(cpu)->as, pa, MEMTXATTRS_UNSPECIFIED,
                                row, LINE) != MEMTX_OK) {
            tensor_error(cpu, ETSOC1_TENSOR_ERROR_FAULT, "TensorLoadL2: line "
                         "beyond the L2 scratchpad; aborted");
            return;
        }
    }
}

/* ---- TensorFMA (CSR 0x801) ----------------------------------------------- */

static uint32_t c_get(CPURISCVState *env, unsigned i, unsigned j)
{
    return etsoc1_flane(env, 2 * i + j / 8, j % 8);
}

static void c_set(CPURISCVState *env, unsigned i, unsigned j, uint32_t v)
{
    etsoc1_set_flane(env, 2 * i + j / 8, j % 8, v);
}

/* The flags a TensorFMA accrues in fflags */
#define TFMA_FLAGS (float_flag_invalid | float_flag_divbyzero | \
                    float_flag_overflow | float_flag_underflow | \
                    float_flag_inexact | float_flag_input_denormal)

/* An fp16 value, exactly, as float128; subnormals read as zero (@st). */
static float128 f16_exact(uint16_t h, float_status *st)
{
    return float32_to_float128(float16_to_float32(h, true, st), st);
}

/* A TensorFMA's operand shape, decoded once from its control word. */
typedef struct TfmaShape {
    unsigned rows, passes, cols;    /* A rows, passes, B and C columns */
    unsigned astart, bstart, aoff;  /* SCP lines of A and B, A offset */
    bool first;                     /* pass 0 starts from C = 0 */
    uint16_t mask;                  /* the rows that take part */
} TfmaShape;

/*
 * fp16 TensorFMA: each pass adds two exact fp16 products (and C) with one
 * rounding toward zero.  The two products sum exactly in float128 (their
 * span is far below 113 bits); adding C rounds to odd, which a narrower
 * rounding afterwards turns into the correctly rounded result.
 */
static void tensor_fma16(Etsoc1MinionCPU *cpu, const TfmaShape *t,
                         bool tenb)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    Etsoc1ShireState *s = cpu->shire;
    unsigned m = minion_of(cpu);
    float_status st = env->fp_status;
    unsigned i, j, p;

    set_float_exception_flags(0, &st);
    for (p = 0; p < t->passes; p++) {
        const uint8_t *b = tenb ? s->minion[m].tenb[p]
                                : scp_line(cpu, t->bstart + p);

        for (i = 0; i < t->rows; i++) {
            const uint8_t *a = scp_line(cpu, t->astart + i);
            unsigned ai = (2 * t->aoff + 2 * p) % 32;
            uint16_t a0 = lduw_le_p(a + 2 * ai), a1 = lduw_le_p(a + 2 * ai + 2);

            if (!(t->mask >> i & 1)) {
                if (t->first && p == 0) {
                    for (j = 0; j < t->cols; j++) {
                        c_set(env, i, j, 0);
                    }
                }
                continue;
            }
            if (!(a0 | a1) && !(t->first && p == 0)) {
                continue;           /* both A halves +0: skipped */
            }
            for (j = 0; j < t->cols; j++) {
                uint16_t b0 = lduw_le_p(b + 4 * j);
                uint16_t b1 = lduw_le_p(b + 4 * j + 2);
                float128 sum;
                uint32_t c = c_get(env, i, j);

                if (!(b0 | b1) && !(t->first && p == 0)) {
                    continue;
                }
                set_float_rounding_mode(float_round_nearest_even, &st);
                sum = float128_add(float128_mul(f16_exact(a0, &st),
                                                f16_exact(b0, &st), &st),
                                   float128_mul(f16_exact(a1, &st),
                                                f16_exact(b1, &st), &st),
                                   &st);
                if (!(t->first && p == 0)) {
                    if (!(c & 0x7f800000)) {
                        c &= 0x80000000;        /* subnormal C flushed */
                    }
                    set_float_rounding_mode(float_round_to_odd, &st);
                    sum = float128_add(sum, float32_to_float128(c, &st), &st);
                }
                set_float_rounding_mode(float_round_to_zero, &st);
                c = float128_to_float32(sum, &st);
                if (!(c & 0x7f800000)) {
                    c &= 0x80000000;            /* tiny results flushed */
                }
                c_set(env, i, j, c);
            }
        }
    }
    float_raise(get_float_exception_flags(&st) & TFMA_FLAGS, &env->fp_status);
}

static void tensor_fma(Etsoc1MinionCPU *cpu, uint64_t ctl)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    Etsoc1ShireState *s = cpu->shire;
    unsigned m = minion_of(cpu);
    unsigned type = FIELD_EX64(ctl, TFMA, TYPE);
    TfmaShape t = {
        .rows = FIELD_EX64(ctl, TFMA, AROWS) + 1,
        .passes = FIELD_EX64(ctl, TFMA, ACOLS) + 1,
        .cols = (FIELD_EX64(ctl, TFMA, BCOLS) + 1) * 4,
        .astart = FIELD_EX64(ctl, TFMA, ASTART),
        .bstart = FIELD_EX64(ctl, TFMA, BSTART),
        .aoff = FIELD_EX64(ctl, TFMA, AOFF),
        .first = FIELD_EX64(ctl, TFMA, FIRST),
        .mask = tensor_rows(cpu, FIELD_EX64(ctl, TFMA, MASK)),
    };
    float_status st;
    unsigned i, j, k, x, tenb_rows;

    trace_etsoc1_tensor_fma(env->mhartid, type, t.rows, t.cols, t.passes);
    /* a TenB load is for exactly the next TensorFMA, with one line a pass */
    tenb_rows = s->minion[m].tenb_rows;
    s->minion[m].tenb_rows = 0;
    if (FIELD_EX64(ctl, TFMA, TENB) ? tenb_rows != t.passes : tenb_rows != 0) {
        tensor_error(cpu, ETSOC1_TENSOR_ERROR_TENB,
                     "TensorFMA and TenB load do not pair");
        return;
    }
    if (type == TFMA_INT8) {
        bool ua = FIELD_EX64(ctl, TFMA, UA), ub = FIELD_EX64(ctl, TFMA, UB);
        bool to_rf = FIELD_EX64(ctl, TFMA, TENC2RF);

        for (k = 0; k < t.passes; k++) {
            const uint8_t *b = tenb_rows ? s->minion[m].tenb[k]
                                         : scp_line(cpu, t.bstart + k);

            for (i = 0; i < t.rows; i++) {
                const uint8_t *a = scp_line(cpu, t.astart + i);

                for (j = 0; j < t.cols; j++) {
                    int32_t acc = (t.first && k == 0) ? 0
                                  : (int32_t)s->minion[m].tenc[16 * i + j];
                    uint32_t sum = acc;

                    if (t.mask >> i & 1) {
                        for (x = 0; x < 4; x++) {
                            uint8_t av = a[(4 * t.aoff + 4 * k + x) % LINE];
                            uint8_t bv = b[4 * j + x];

                            sum += (ua ? av : (int8_t)av) *
                                   (ub ? bv : (int8_t)bv);
                        }
                    }
                    if (to_rf && k == t.passes - 1) {
                        c_set(env, i, j, sum);
                    } else {
                        s->minion[m].tenc[16 * i + j] = sum;
                    }
                }
            }
        }
        return;
    }
    if (type == TFMA_FP16) {
        tensor_fma16(cpu, &t, tenb_rows);
        return;
    }
    /* fp32: one rounding per step (frm), subnormals flushed to zero */
    st = env->fp_status;
    set_float_exception_flags(0, &st);
    set_float_rounding_mode(etsoc1_rm(env->frm), &st);
    set_flush_inputs_to_zero(true, &st);
    for (k = 0; k < t.passes; k++) {
        const uint8_t *b = tenb_rows ? s->minion[m].tenb[k]
                                     : scp_line(cpu, t.bstart + k);

        for (i = 0; i < t.rows; i++) {
            uint32_t av = ldl_le_p(scp_line(cpu, t.astart + i) +
                                   4 * ((t.aoff + k) % 16));

            if (!(t.mask >> i & 1)) {
                if (t.first && k == 0) {
                    for (j = 0; j < t.cols; j++) {
                        c_set(env, i, j, 0);
                    }
                }
                continue;
            }
            if (av == 0 && !(t.first && k == 0)) {
                continue;           /* +0.0 in A: the row's pass is skipped */
            }
            for (j = 0; j < t.cols; j++) {
                uint32_t bv = ldl_le_p(b + 4 * j);

                if (t.first && k == 0) {
                    c_set(env, i, j,
                          ETSOC1_FTZ(float32_mul(av, bv, &st), 23, 8, &st));
                } else if (bv != 0) {
                    c_set(env, i, j,
                          ETSOC1_FTZ(float32_muladd(av, bv, c_get(env, i, j),
                                                    0, &st), 23, 8, &st));
                }
            }
        }
    }
    float_raise(get_float_exception_flags(&st) & TFMA_FLAGS, &env->fp_status);
}

/* ---- TensorStore (CSR 0x87f) --------------------------------------------- */

/* Legal (minions - 1, 16-byte blocks per row - 1) of a cooperative store */
static const bool tstore_coop_ok[4][4] = {
    { true, true, false, true },
    { true, true, false, false },
    { false, false, false, false },
    { true, false, false, false },
};

static RISCVException tensor_store(Etsoc1MinionCPU *cpu, uint64_t ctl,
                                   uint64_t x31)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    unsigned rows = FIELD_EX64(ctl, TSTORE, ROWS) + 1;
    unsigned inc = FIELD_EX64(ctl, TSTORE, SRCINC) + 1;
    unsigned r, c, e;
    uint8_t block[16];

    if (FIELD_EX64(ctl, TSTORE, SCP)) {
        target_ulong addr = va48(FIELD_EX64(ctl, TLOAD, ADDR) << 6);
        target_ulong stride = va48(FIELD_EX64(x31, TLOAD, ADDR) << 6);
        unsigned line = FIELD_EX64(ctl, TSTORE, SCPLINE);

        if (!scp_enabled(cpu)) {
            tensor_error(cpu, ETSOC1_TENSOR_ERROR_SCP_OFF,
                         "TensorStore: L1 SCP disabled");
            return RISCV_EXCP_NONE;
        }
        for (r = 0; r < rows; r++, line += inc) {
            if (!tensor_access(cpu, addr + r * stride, scp_line(cpu, line),
                               LINE, true)) {
                break;
            }
        }
    } else {
        target_ulong addr = va48(FIELD_EX64(ctl, TSTORE, ADDR) << 4);
        target_ulong stride = va48(FIELD_EX64(x31, TSTORE, ADDR) << 4);
        unsigned cols = FIELD_EX64(ctl, TSTORE, COLS) + 1;
        unsigned coop = FIELD_EX64(ctl, TSTORE, COOP) + 1;
        unsigned freg = FIELD_EX64(ctl, TSTORE, FREG);

        if (!tstore_coop_ok[coop - 1][cols - 1]) {
            tensor_error(cpu, ETSOC1_TENSOR_ERROR_STORE, "TensorStore: illegal "
                         "combination of cooperating minions and blocks per "
                         "row");
            return RISCV_EXCP_NONE;
        }
        if (coop > 1 && !cpu->shire->coop_mode) {
            return RISCV_EXCP_ILLEGAL_INST;
        }
        /*
         * The cooperating minions each store their own registers; the
         * chip only checks that they agree, which is not modelled.
         */
        for (r = 0; r < rows; r++) {
            target_ulong base = (addr + r * stride) &
                                ~(target_ulong)(16 * cols - 1);

            for (c = 0; c < cols; c++) {
                for (e = 0; e < 4; e++) {
                    stl_le_p(block + 4 * e,
                             etsoc1_flane(env, freg, (c % 2) * 4 + e));
                }
                if (!tensor_access(cpu, base + 16 * c, block, 16, true)) {
                    return RISCV_EXCP_NONE;
                }
                if (cols == 1 || c % 2) {
                    freg = (freg + inc) % 32;
                }
            }
        }
    }
    return RISCV_EXCP_NONE;
}

/* ---- TensorQuant (CSR 0x806) --------------------------------------------- */

static void tensor_quant(Etsoc1MinionCPU *cpu, uint64_t ctl)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    unsigned rows = FIELD_EX64(ctl, TQUANT, ROWS) + 1;
    unsigned cols = (FIELD_EX64(ctl, TQUANT, COLS) + 1) * 4;
    unsigned freg = FIELD_EX64(ctl, TQUANT, FREG);
    unsigned line = FIELD_EX64(ctl, TQUANT, LINE);
    float_status *st = &env->fp_status;
    FloatRoundMode saved = get_float_rounding_mode(st);
    unsigned t, r, c, code;

    for (t = 0; t < 10; t++) {
        code = extract64(ctl, 4 * t, 4);
        if (code >= 4 && code <= 7 && !scp_enabled(cpu)) {
            tensor_error(cpu, ETSOC1_TENSOR_ERROR_SCP_OFF,
                         "TensorQuant: L1 SCP disabled");
            return;
        }
    }
    set_float_rounding_mode(etsoc1_rm(env->frm), st);
    for (t = 0; t < 10 && (code = extract64(ctl, 4 * t, 4)) != 0; t++) {
        const uint8_t *vec = scp_line(cpu, line);

        if (code > 10) {
            qemu_log_mask(LOG_GUEST_ERROR, "etsoc1: TensorQuant transform %u "
                          "is reserved; stopped\n", code);
            break;
        }
        for (r = 0; r < rows; r++) {
            unsigned dst = (freg + 2 * r) % 32;
            uint8_t packed[16];

            for (c = 0; c < cols; c++) {
                unsigned reg = (freg + 2 * r + c / 8) % 32;
                uint32_t v = etsoc1_flane(env, reg, c % 8);

                switch (code) {
                case 1: v = int32_to_float32(v, st); break;
                case 2: v = float32_to_int32(v, st); break;
                case 3: v = (int32_t)v < 0 ? 0 : v; break;
                case 4: v += ldl_le_p(vec + 4 * c); break;
                case 5: v += ldl_le_p(vec + 4 * r); break;
                case 6:
                case 7:
                    v = ETSOC1_FTZ(float32_mul(v, ldl_le_p(vec + 4 *
                                   (code == 6 ? c : r)), st), 23, 8, st);
                    break;
                case 8: v = (uint8_t)MIN(MAX((int32_t)v, -128), 127); break;
                case 9: v = MIN(MAX((int32_t)v, 0), 255); break;
                case 10: packed[c] = v; continue;
                }
                etsoc1_set_flane(env, reg, c % 8, v);
            }
            if (code == 10) {       /* pack 128: low bytes into one register */
                for (c = 0; c < MIN(cols, 16u); c += 4) {
                    etsoc1_set_flane(env, dst, c / 4, ldl_le_p(packed + c));
                }
            }
        }
        if (code >= 4 && code <= 7) {
            line++;
        }
    }
    set_float_rounding_mode(saved, st);
}

/* ---- issue --------------------------------------------------------------- */

/*
 * A tensor CSR written on thread 0.  Returns an exception to raise (the
 * ETSOC1 wait cause while a reduce ahead of it in the queue is pending).
 */
static RISCVException etsoc1_tensor_op(Etsoc1MinionCPU *cpu, int csrno,
                                       uint64_t ctl)
{
    CPURISCVState *env = &cpu->parent_obj.env;
    uint64_t port_wait = 0;

    /* the rounding mode is used: fp16 rounds toward zero, int8 never */
    if (((csrno == ETSOC1_CSR_TENSOR_FMA &&
          FIELD_EX64(ctl, TFMA, TYPE) == TFMA_FP32) ||
         csrno == ETSOC1_CSR_TENSOR_QUANT) && !ETSOC1_RM_VALID(env->frm)) {
        return RISCV_EXCP_ILLEGAL_INST;
    }
    if (csrno != ETSOC1_CSR_TENSOR_LOAD && !etsoc1_reduce_done(cpu)) {
        return etsoc1_block(cpu, ETSOC1_WAIT_REDUCE);
    }
    /* queued behind the reduce: its time must hold the mesh ports' wait */
    if (csrno != ETSOC1_CSR_TENSOR_LOAD && !etsoc1_reduce_settle(cpu)) {
        return (RISCVException)etsoc1_halt_cause(cpu);
    }
    /* a load waits for a held load of its FSM; the others for all of them */
    if (!coop_settle(cpu, csrno == ETSOC1_CSR_TENSOR_LOAD
                          ? 1u << tload_fsm(ctl, env->gpr[31])
                          : MAKE_64BIT_MASK(0, ETSOC1_TLOAD_FSMS))) {
        return etsoc1_block(cpu, ETSOC1_WAIT_COOP);
    }
    /*
     * Through the mesh ports before the wait is over: a hart the gate let
     * go finds its release in its wait (etsoc1_sync_gate)
     */
    if (csrno == ETSOC1_CSR_TENSOR_LOAD && scp_enabled(cpu)) {
        int src = tload_remote_shire(cpu,
                                     va48(FIELD_EX64(ctl, TLOAD, ADDR) << 6));

        hwaddr pa[16];
        unsigned n;

        /* our choice: a row is a line through the port, as in tload_cycles */
        if (src >= 0 &&
            !etsoc1_tload_port(cpu, src, FIELD_EX64(ctl, TLOAD, ROWS) + 1,
                               tload_start(cpu), &port_wait)) {
            return (RISCVException)etsoc1_halt_cause(cpu);
        }
        n = src < 0 ? tload_dram_lines(cpu, ctl, env->gpr[31], pa) : 0;
        if (n && !etsoc1_tload_dram(cpu, pa, n, tload_start(cpu),
                                    &port_wait)) {
            return (RISCVException)etsoc1_halt_cause(cpu);
        }
    }
    qatomic_set(&cpu->et->wait, ETSOC1_WAIT_NONE);
    etsoc1_trace_wait_end(etsoc1_hart(cpu), etsoc1_now(cpu));
    if (csrno == ETSOC1_CSR_TENSOR_LOAD && FIELD_EX64(ctl, TLOAD, COOP) &&
        !cpu->shire->coop_mode) {
        return RISCV_EXCP_ILLEGAL_INST;
    }
    if (!scp_enabled(cpu) && csrno != ETSOC1_CSR_TENSOR_STORE &&
        csrno != ETSOC1_CSR_TENSOR_QUANT) {
        tensor_error(cpu, ETSOC1_TENSOR_ERROR_SCP_OFF, "tensor operation with "
                     "the L1 SCP disabled (mcache_control != 3)");
        return RISCV_EXCP_NONE;
    }
    if (csrno == ETSOC1_CSR_TENSOR_FMA &&
        FIELD_EX64(ctl, TFMA, TYPE) != TFMA_FP32 &&
        FIELD_EX64(ctl, TFMA, TYPE) != TFMA_FP16 &&
        FIELD_EX64(ctl, TFMA, TYPE) != TFMA_INT8) {
        return RISCV_EXCP_ILLEGAL_INST;
    }
    tensor_timing(cpu, csrno, ctl, env->gpr[31], port_wait);
    cpu->et->tensor.insns[csrno == ETSOC1_CSR_TENSOR_LOAD ? ETSOC1_TI_LOAD :
                          csrno == ETSOC1_CSR_TENSOR_STORE ? ETSOC1_TI_STORE :
                          csrno == ETSOC1_CSR_TENSOR_FMA ? ETSOC1_TI_FMA :
                          ETSOC1_TI_QUANT]++;
    switch (csrno) {
    case ETSOC1_CSR_TENSOR_LOAD:
        return tensor_load_issue(cpu, ctl, env->gpr[31]);
    case ETSOC1_CSR_TENSOR_FMA:
        tensor_fma(cpu, ctl);
        break;
    case ETSOC1_CSR_TENSOR_STORE:
        return tensor_store(cpu, ctl, env->gpr[31]);
    default:
        tensor_quant(cpu, ctl);
        break;
    }
    return RISCV_EXCP_NONE;
}

/* tensor_wait (CSR 0x830) events with something to wait for */
enum {
    TWAIT_LOAD0 = 0, TWAIT_LOAD1 = 1, TWAIT_LOAD_L2_0 = 2,
    TWAIT_LOAD_L2_1 = 3, TWAIT_REDUCE = 9,
};

/* The tensor unit time each tensor_wait event waits for (-1: none) */
static const int8_t twait_time[16] = {
    [0] = ETSOC1_TT_LOAD0, [1] = ETSOC1_TT_LOAD1,
    [2] = ETSOC1_TT_LOAD_L2, [3] = ETSOC1_TT_LOAD_L2,
    [4] = ETSOC1_TT_PREFETCH0, [5] = ETSOC1_TT_PREFETCH1,
    [6] = ETSOC1_TT_CACHEOP, [7] = ETSOC1_TT_FMA, [8] = ETSOC1_TT_STORE,
    [9] = -1, [10] = ETSOC1_TT_QUANT, [11 ... 15] = -1,
};

/*
 * Block until the named engine is idle.  The other engines' data moved at
 * issue: a wait for one of them takes the emulated time it finishes, and
 * an event id with no engine returns at once.  On thread 1 only the
 * TensorLoadL2 events do anything (isa.md section 10).
 */
static RISCVException etsoc1_tensor_wait(Etsoc1MinionCPU *cpu,
                                         unsigned event)
{
    bool thread1 = cpu->parent_obj.env.mhartid & 1;

    if (thread1 && event != TWAIT_LOAD_L2_0 && event != TWAIT_LOAD_L2_1) {
        return RISCV_EXCP_NONE;
    }
    if (event == TWAIT_REDUCE) {
        if (!etsoc1_reduce_done(cpu)) {
            return etsoc1_block(cpu, ETSOC1_WAIT_REDUCE);
        }
        if (!etsoc1_reduce_settle(cpu)) {
            return (RISCVException)etsoc1_halt_cause(cpu);
        }
        etsoc1_reduce_observe(cpu);
    }
    if ((event == TWAIT_LOAD0 || event == TWAIT_LOAD1) &&
        !coop_settle(cpu, 1u << event)) {
        return etsoc1_block(cpu, ETSOC1_WAIT_COOP);
    }
    qatomic_set(&cpu->et->wait, ETSOC1_WAIT_NONE);
    if (twait_time[event] >= 0) {
        etsoc1_trace_span(etsoc1_hart(cpu), "TensorWait", etsoc1_now(cpu),
                          cpu->et->tensor.t[twait_time[event]], event);
        etsoc1_advance_to(cpu, cpu->et->tensor.t[twait_time[event]]);
    }
    etsoc1_trace_wait_end(etsoc1_hart(cpu), etsoc1_now(cpu));
    return RISCV_EXCP_NONE;
}

/* ---- CSRs (etsoc1-csr.h) ------------------------------------------------- */

enum {
    CSR_TENSOR_CONV_SIZE = 0x802,
    CSR_TENSOR_CONV_CTRL = 0x803,
    CSR_TENSOR_COOP = 0x804,
    CSR_TENSOR_MASK = 0x805,
    CSR_TENSOR_ERROR = 0x808,
    CSR_TENSOR_WAIT = 0x830,
};

static uint64_t read_tensor(Etsoc1MinionCPU *cpu, int csrno)
{
    return csrno == CSR_TENSOR_MASK ? cpu->et->tensor.mask
                                    : cpu->et->tensor.error;
}

/*
 * tensor_conv_size/ctrl: tensor_mask becomes the rows of a convolution
 * window that fall inside the image.  Row i (0-15) is at (row start +
 * i * srow, col start + i * scol) and is set when both lie in [0, nrow)
 * and [0, ncol); the steps and starts are signed (isa.md section 3).
 */
static void tensor_conv_update(Etsoc1HartEt *et)
{
    int srow = (int8_t)extract64(et->tensor.conv_size, 56, 8);
    int nrow = extract64(et->tensor.conv_size, 32, 16);
    int scol = (int8_t)extract64(et->tensor.conv_size, 24, 8);
    int ncol = extract64(et->tensor.conv_size, 0, 16);
    int row = (int16_t)extract64(et->tensor.conv_ctrl, 32, 16);
    int col = (int16_t)extract64(et->tensor.conv_ctrl, 0, 16);
    uint64_t mask = 0;
    unsigned i;

    for (i = 0; i < 16; i++, row += srow, col += scol) {
        if (row >= 0 && row < nrow && col >= 0 && col < ncol) {
            mask |= 1u << i;
        }
    }
    et->tensor.mask = mask;
}

/* The tensor unit's registers that hold values */
static RISCVException write_tensor_reg(Etsoc1MinionCPU *cpu, int csrno,
                                       uint64_t val)
{
    Etsoc1HartEt *et = cpu->et;

    switch (csrno) {
    case CSR_TENSOR_MASK:
        et->tensor.mask = val & 0xffff;
        break;
    case CSR_TENSOR_ERROR:
        et->tensor.error = val & MAKE_64BIT_MASK(0, 10);
        break;
    case CSR_TENSOR_COOP:
        et->tensor.coop = val & 0xfff1f;   /* reads as zero */
        break;
    case CSR_TENSOR_CONV_SIZE:
        et->tensor.conv_size = val & 0xff00ffffff00ffffULL;
        tensor_conv_update(et);
        break;
    default:    /* CSR_TENSOR_CONV_CTRL: the rows say which */
        et->tensor.conv_ctrl = val & 0x0000ffff0000ffffULL;
        tensor_conv_update(et);
        break;
    }
    return RISCV_EXCP_NONE;
}

static RISCVException write_tensor_load_l2(Etsoc1MinionCPU *cpu, int csrno,
                                           uint64_t val)
{
    etsoc1_tensor_load_l2(cpu, val);
    return RISCV_EXCP_NONE;
}

static RISCVException write_tensor_wait(Etsoc1MinionCPU *cpu, int csrno,
                                        uint64_t val)
{
    return etsoc1_tensor_wait(cpu, val & 0xf);
}

static const Etsoc1CsrReg tensor_csrs[] = {
    ETSOC1_CSR(ETSOC1_CSR_TENSOR_FMA, "tensor_fma", etsoc1_pred_ml_t0, NULL,
               etsoc1_tensor_op),
    ETSOC1_CSR(CSR_TENSOR_CONV_SIZE, "tensor_conv_size", etsoc1_pred_ml,
               NULL, write_tensor_reg),
    ETSOC1_CSR(CSR_TENSOR_CONV_CTRL, "tensor_conv_ctrl", etsoc1_pred_ml,
               NULL, write_tensor_reg),
    ETSOC1_CSR(CSR_TENSOR_COOP, "tensor_coop", etsoc1_pred_ml_t0, NULL,
               write_tensor_reg),
    ETSOC1_CSR(CSR_TENSOR_MASK, "tensor_mask", etsoc1_pred_ml, read_tensor,
               write_tensor_reg),
    ETSOC1_CSR(ETSOC1_CSR_TENSOR_QUANT, "tensor_quant", etsoc1_pred_ml_t0,
               NULL, etsoc1_tensor_op),
    ETSOC1_CSR(CSR_TENSOR_ERROR, "tensor_error", etsoc1_pred_minion,
               read_tensor, write_tensor_reg),
    ETSOC1_CSR(CSR_TENSOR_WAIT, "tensor_wait", etsoc1_pred_minion, NULL,
               write_tensor_wait),
    ETSOC1_CSR(ETSOC1_CSR_TENSOR_LOAD, "tensor_load", etsoc1_pred_ml_t0,
               NULL, etsoc1_tensor_op),
    ETSOC1_CSR(ETSOC1_CSR_TENSOR_LOAD_L2, "tensor_load_l2", etsoc1_pred_ml,
               NULL, write_tensor_load_l2),
    ETSOC1_CSR(ETSOC1_CSR_TENSOR_STORE, "tensor_store", etsoc1_pred_ml_t0,
               NULL, etsoc1_tensor_op),
};

void etsoc1_tensor_register_csrs(void)
{
    etsoc1_csr_register(tensor_csrs, ARRAY_SIZE(tensor_csrs));
}
