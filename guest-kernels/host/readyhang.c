/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The naive 2D array of guest-kernels/fabric/grid.c as a kernel the host
 * launches through the firmware: thread 0 of each minion of a launched
 * shire is a cell of the shire's 4 x 8 grid, sends its f1 east and south
 * in one phase, then receives from west and north.  Under the one-ready-
 * flag rule (handshake=rtl) a cell whose east and south neighbours both
 * announced before it sent loses one ready, and the cells waiting on it
 * never finish: the launch is answered only by the watchdog (status 6),
 * and the hang report names the lost ready (docs/fabric.md).  Under
 * handshake=sysemu it completes and returns 0.  Thread 1 returns at once.
 */
#include <stdint.h>
#include "etsoc1.h"

#define ROWS 4
#define COLS 8

int64_t entry_point(void);

static unsigned cell(unsigned shire, unsigned r, unsigned c)
{
    return shire * MINIONS_PER_SHIRE + r * COLS + c;
}

int64_t entry_point(void)
{
    uint64_t h = csr_read(hartid);
    unsigned gid = hart_gid(h), s = gid / MINIONS_PER_SHIRE;
    unsigned r = gid % MINIONS_PER_SHIRE / COLS, c = gid % COLS;

    if (hart_thread(h)) {
        return 0;
    }
    FREG_SET(1, gid);
    if (c + 1 < COLS) {
        tensor_send(cell(s, r, c + 1), 1, 1);
    }
    if (r + 1 < ROWS) {
        tensor_send(cell(s, r + 1, c), 1, 1);
    }
    if (c > 0) {
        tensor_recv(cell(s, r, c - 1), 1, 1, TR_IADD);
    }
    if (r > 0) {
        tensor_recv(cell(s, r - 1, c), 1, 1, TR_IADD);
    }
    return 0;
}
