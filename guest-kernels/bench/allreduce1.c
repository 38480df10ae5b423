/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench/fabric: one fadd allreduce over 1,024 minions (reduce + broadcast). */
#include "../fabric/fabric.h"

int main(uint64_t hartid, const void *fdt)
{
    unsigned gid = hart_gid(hartid), h;

    if (gid >= 1024) {
        return 0;
    }
    FREG_SET(0, input_float(gid));
    for (h = 0; h < 10; h++) {
        tensor_reduce(tr_cmd(TR_REDUCE, h, 1, TR_FADD, 0));
    }
    for (h = 10; h-- > 0;) {
        tensor_reduce(tr_cmd(TR_BROADCAST, h, 1, TR_MOVE, 0));
    }
    return 0;
}
