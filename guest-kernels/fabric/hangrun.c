/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hangs among running harts, for the hang report (docs/fabric.md): the
 * hung harts must be named while other harts keep running or waiting.
 * One shire, thread 0 of each minion:
 *
 *  lost ready   minions 1 and 2 both receive from minion 0 and say so
 *               with a global atomic; minion 0 polls those flags with
 *               global atomics (a poll that halts: docs/timing.md) until
 *               both have, so both readies reach its one bit and one is
 *               lost; its send to 1 spends the other, its send to 2 never
 *               finds one (rtl);
 *  cycle        minions 4 -> 5 -> 6 -> 4 all send first;
 *  stopped      minion 8 receives from minion 9, which stops at once;
 *  running      minion 3 loops forever, minion 10 polls a flag that no
 *               one sets, minion 11 waits for a credit that no one sends
 *               (it could come from the runners: not part of the hang).
 *
 * The others stop (validation0 PASS); the run never ends by itself.
 * With -DFROZEN (hangrun-frozen) minions 3 and 10 stop too: then nothing
 * can run, and the credit waiter is part of the deadlock.
 */
#include "fabric.h"
#include "et-atomic.h"

/* volatile: flags other harts write, polled in loops */
static volatile uint32_t announced[2];
static volatile uint32_t never;
volatile uint64_t spins;        /* volatile: the runner's loop stays */

int main(uint64_t hartid, const void *fdt)
{
    unsigned gid = hart_gid(hartid);

    FREG_SET(1, gid);
    switch (gid) {
    case 0:
        while (!et_amoorg_w(&announced[0], 0) ||
               !et_amoorg_w(&announced[1], 0)) {
        }
        tensor_send(1, 1, 1);
        tensor_send(2, 1, 1);
        break;
    case 1:
    case 2:
        tensor_recv(0, 2, 1, TR_MOVE);
        et_amoswapg_w(&announced[gid - 1], 1);
        break;
    case 4:
    case 5:
    case 6:
        tensor_send(gid == 6 ? 4 : gid + 1, 1, 1);
        break;
    case 8:
        tensor_recv(9, 2, 1, TR_MOVE);
        break;
#ifndef FROZEN
    case 3:
        for (;;) {
            spins++;
        }
    case 10:
        while (!never) {
        }
        break;
#endif
    case 11:
        fcc_wait(0);
        break;
    default:
        return 0;
    }
    /* an F instruction waits for the transfer */
    __asm__ volatile("fmv.s f3, f2");
    print("hangrun: minion %u went on\n", gid);
    return gid == 1 ? 0 : 1;
}
