/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Hart 0 reports failure: the run must end with exit status 1. */
#include "etsoc1.h"

int main(uint64_t hartid, const void *fdt)
{
    if (hartid == 0) {
        print("fail: hart 0 returns 1\n");
        return 1;
    }
    return 0;
}
