/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A normal finish that does not end the run: every hart takes part in a
 * credit hand-off and (thread 0) a tensor transfer ring, then parks in
 * wfi, with interrupts off; with -DPARK_HALF the odd harts stop through
 * validation0 instead.  The machine is idle, not deadlocked: the harness
 * checks the one-line idle message and that on-deadlock=exit leaves the
 * run alone.
 */
#include "etsoc1.h"

int main(uint64_t hartid, const void *fdt)
{
    unsigned m = hart_minion(hartid), s = hart_shire(hartid);

    /* thread t of minion m passes a credit to minion m + 1 */
    if (m == 0) {
        fcc_send(s, hart_thread(hartid), 0, 1u << 1);
    } else {
        fcc_wait(0);
        if (m + 1 < MINIONS_PER_SHIRE) {
            fcc_send(s, hart_thread(hartid), 0, 1u << (m + 1));
        }
    }
    if (hart_thread(hartid) == 0) {
        unsigned g = hart_gid(hartid), base = s * MINIONS_PER_SHIRE;
        unsigned next = base + (m + 1) % MINIONS_PER_SHIRE;
        unsigned prev = base + (m + MINIONS_PER_SHIRE - 1) % MINIONS_PER_SHIRE;

        FREG_SET(1, g);
        if (m % 2 == 0) {
            tensor_send(next, 1, 1);
            tensor_recv(prev, 2, 1, TR_MOVE);
        } else {
            tensor_recv(prev, 2, 1, TR_MOVE);
            tensor_send(next, 1, 1);
        }
        if (FREG_GET(2) != prev) {      /* waits for the receive */
            print("park: minion %u got %u, want %u\n", g, FREG_GET(2), prev);
            return 1;
        }
    }
    if (hartid == 0) {
        print("park: every hart parks\n");
    }
#ifdef PARK_HALF
    if (hartid & 1) {
        return 0;
    }
#endif
    for (;;) {
        __asm__ volatile("wfi");
    }
}
