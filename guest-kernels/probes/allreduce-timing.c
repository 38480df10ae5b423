/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tree allreduce timing (issue 28).  The first n minions (n = 32, then all
 * minions up to 1,024 when there are more than one shire's) leave a chip
 * barrier together and run two back-to-back allreduces of f0 over the
 * hardware trees: TensorReduce with auto-pair up every level (fadd),
 * TensorBroadcast down every level, then tensor_wait 9, as
 * fabric/allreduce does.  Each minion times the SECOND allreduce with its
 * own clock (from after the first one's tensor_wait to after the second
 * one's); the figure is the maximum over the n minions:
 *
 *   probe allreduce n=N cycles=C
 *
 * Then, after another chip barrier, the same pair once more with the
 * clock also read after each tensor_reduce write (a write waits for the
 * minion's previous operation, so the reading after step j+1's write is
 * no earlier than the end of step j for a minion that took part in it).
 * For each step, the maximum over the minions of that reading less the
 * minion's start; the per-level lines give what each step adds to the
 * previous one (reduce at level h: up, broadcast at level h: down), and
 * C the total of that instrumented run (equal to the figure above when
 * the readings do not move anything):
 *
 *   probe allreduce-level n=N level=H d=D path=P up=U down=W
 *   probe allreduce-steps n=N cycles=C
 *
 * P: the path of the level's pairs (minion m and m + D): tree, xbar, or
 * mesh (other shires).  Every participant keeps its final f0; minion 0
 * checks they agree.  Thread 0 of the minions runs the probe.
 */
#include "../fabric/fabric.h"
#include "probe.h"

#define MAX_MINIONS 1024
#define MAX_LEVELS 10
#define MAX_STEPS (2 * MAX_LEVELS)

static volatile uint64_t took[MAX_MINIONS];
static volatile uint64_t step_end[MAX_MINIONS][MAX_STEPS];
static volatile uint32_t result[MAX_MINIONS];

/*
 * The same, reading the clock after each write: @at[j] (j = 0 .. 2k - 1)
 * is the clock after the write of step j + 1, or after the final wait.
 */
static inline void allreduce_steps(unsigned k, uint64_t *at)
{
    unsigned h, j = 0;

    for (h = 0; h < k; h++) {
        tensor_reduce(tr_cmd(TR_REDUCE, h, 1, TR_FADD, 0));
        if (j) {
            at[j - 1] = cycles();
        }
        j++;
    }
    for (h = k; h-- > 0;) {
        tensor_reduce(tr_cmd(TR_BROADCAST, h, 1, TR_MOVE, 0));
        at[j - 1] = cycles();
        j++;
    }
    twait_reduce();
    at[j - 1] = cycles();
}

static const char *level_path(unsigned h)
{
    return h < 3 ? "tree" : h < 5 ? "xbar" : "mesh";
}

/* Minions 0 .. 2^k - 1 time the pair; the others only pass the barriers. */
static void probe_n(unsigned gid, unsigned shires, unsigned k)
{
    unsigned n = 1u << k, m, j, h, bad;
    uint64_t at[MAX_STEPS], cum[MAX_STEPS], t0, t1, c;

    chip_barrier(gid, shires);
    if (gid < n) {
        FREG_SET(0, input_float(gid));
        tree_allreduce(k, TR_FADD);
        t0 = cycles();
        tree_allreduce(k, TR_FADD);
        t1 = cycles();
        took[gid] = t1 - t0;
        result[gid] = FREG_GET(0);
    }
    chip_barrier(gid, shires);
    if (gid < n) {
        FREG_SET(0, input_float(gid));
        tree_allreduce(k, TR_FADD);
        t0 = cycles();
        allreduce_steps(k, at);
        for (j = 0; j < 2 * k; j++) {
            step_end[gid][j] = at[j] - t0;
        }
    }
    chip_barrier(gid, shires);
    if (gid != 0) {
        return;
    }
    for (m = 0, c = 0, bad = 0; m < n; m++) {
        c = took[m] > c ? took[m] : c;
        bad += result[m] != result[0];
    }
    print("probe allreduce n=%u cycles=%lu\n", n, c);
    if (bad) {
        print("allreduce-timing n=%u: %u minions INCONSISTENT\n", n, bad);
    }
    for (j = 0; j < 2 * k; j++) {
        for (m = 0, cum[j] = 0; m < n; m++) {
            cum[j] = step_end[m][j] > cum[j] ? step_end[m][j] : cum[j];
        }
    }
    /* reduce at level h is step h, broadcast at level h step 2k - 1 - h */
    for (h = 0; h < k; h++) {
        unsigned up = h, down = 2 * k - 1 - h;

        print("probe allreduce-level n=%u level=%u d=%u path=%s up=%lu "
              "down=%lu\n", n, h, 1u << h, level_path(h),
              cum[up] - (up ? cum[up - 1] : 0), cum[down] - cum[down - 1]);
    }
    print("probe allreduce-steps n=%u cycles=%lu\n", n, cum[2 * k - 1]);
}

/*
 * Every shire at once, each reducing over its own 32 minions (levels 0-4
 * stay inside a shire): the card's trees are per shire, so this takes no
 * longer than one shire alone (issue 28).
 *
 *   probe allreduce-shires shires=S n=32 cycles=C
 */
static void probe_shires(unsigned gid, unsigned shires)
{
    unsigned n = shires * MINIONS_PER_SHIRE, m, bad;
    uint64_t t0, t1, c;

    if (n > MAX_MINIONS) {
        n = MAX_MINIONS;
    }
    chip_barrier(gid, shires);
    if (gid < n) {
        FREG_SET(0, input_float(gid));
        tree_allreduce(5, TR_FADD);
        t0 = cycles();
        tree_allreduce(5, TR_FADD);
        t1 = cycles();
        took[gid] = t1 - t0;
        result[gid] = FREG_GET(0);
    }
    chip_barrier(gid, shires);
    if (gid != 0) {
        return;
    }
    for (m = 0, c = 0, bad = 0; m < n; m++) {
        c = took[m] > c ? took[m] : c;
        bad += result[m] != result[m - m % MINIONS_PER_SHIRE];
    }
    print("probe allreduce-shires shires=%u n=%u cycles=%lu\n",
          n / MINIONS_PER_SHIRE, MINIONS_PER_SHIRE, c);
    if (bad) {
        print("allreduce-timing shires: %u minions INCONSISTENT\n", bad);
    }
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned minions = shires * MINIONS_PER_SHIRE, gid = hart_gid(hartid);
    unsigned k_all;

    if (hart_thread(hartid)) {
        return 0;
    }
    probe_n(gid, shires, 5);
    for (k_all = 5; (2u << k_all) <= minions && (2u << k_all) <= MAX_MINIONS;
         k_all++) {
    }
    if (k_all > 5) {
        probe_n(gid, shires, k_all);
        probe_shires(gid, shires);
    }
    if (gid == 0) {
        print("probe allreduce done, tensor_error 0x%lx\n",
              csr_read(CSR_TENSOR_ERROR));
    }
    return csr_read(CSR_TENSOR_ERROR) != 0;
}
