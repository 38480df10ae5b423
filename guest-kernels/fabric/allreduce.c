/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tree allreduce over the hardware trees: for every receive function and
 * every size n = 2, 4, ... up to all minions (at most 1024), minions
 * 0..n-1 reduce f0 up the tree (levels 0..k-1) and broadcast the result
 * back down (levels k-1..0).  Every participant stores what it ends with;
 * minion 0 checks they all agree and prints the value for the harness,
 * which compares it with its own reference.
 */
#include "fabric.h"

#define MAX_MINIONS 1088

static volatile uint32_t result[MAX_MINIONS];

static const struct {
    const char *name;
    unsigned func;
    int is_float;
} funcs[] = {
    { "fadd", TR_FADD, 1 }, { "fmax", TR_FMAX, 1 }, { "fmin", TR_FMIN, 1 },
    { "iadd", TR_IADD, 0 }, { "imax", TR_IMAX, 0 }, { "imin", TR_IMIN, 0 },
    { "move", TR_MOVE, 0 },
};

int main(uint64_t hartid, const void *fdt)
{
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    unsigned minions = shires * MINIONS_PER_SHIRE, gid = hart_gid(hartid);
    unsigned f, n, k, h, m, bad;

    for (f = 0; f < sizeof(funcs) / sizeof(funcs[0]); f++) {
        for (n = 2, k = 1; n <= minions && n <= 1024; n *= 2, k++) {
            if (gid < n) {
                FREG_SET(0, funcs[f].is_float ? input_float(gid)
                                              : input_int(gid));
                for (h = 0; h < k; h++) {
                    tensor_reduce(tr_cmd(TR_REDUCE, h, 1, funcs[f].func, 0));
                }
                for (h = k; h-- > 0;) {
                    tensor_reduce(tr_cmd(TR_BROADCAST, h, 1, TR_MOVE, 0));
                }
                result[gid] = FREG_GET(0);
            }
            chip_barrier(gid, shires);
            if (gid == 0) {
                for (m = 0, bad = 0; m < n; m++) {
                    bad += result[m] != result[0];
                }
                print("allreduce %s n=%u 0x%08x %s\n", funcs[f].name, n,
                      result[0], bad ? "INCONSISTENT" : "consistent");
            }
            chip_barrier(gid, shires);
        }
    }
    if (gid == 0) {
        print("allreduce: done, fflags 0x%lx, tensor_error 0x%lx\n",
              csr_read(fflags), csr_read(CSR_TENSOR_ERROR));
    }
    return csr_read(CSR_TENSOR_ERROR) != 0;
}
