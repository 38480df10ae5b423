/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A poll that nobody on the chip answers (run with poll-halt=on): hart 0
 * polls FLAG with amoorg.d until it reads non-zero, which only a
 * debugger or the host can write; every other hart returns at once.  The
 * harness looks at the halted poller through gdb, QMP, a reset and a
 * migration, writes the flag, and expects "pollhalt: seen 1".  With
 * -DPOLL_FAULT the poll names DRAM beyond the machine's memory and must
 * fault as any access there does.
 */
#include "etsoc1.h"
#include "et-atomic.h"

#ifdef POLL_FAULT
#define FLAG ((volatile uint64_t *)(DRAM_BASE + (4ULL << 30)))
#else
#define FLAG ((volatile uint64_t *)(DRAM_BASE + (82ULL << 20)))
#endif

void trap_handler(struct trap_frame *f)
{
    print("pollhalt: trap mcause %lu mtval 0x%lx\n", f->mcause, f->mtval);
    fail("the poll faulted");
}

int main(uint64_t hartid, const void *fdt)
{
    uint64_t v;

    if (hartid) {
        return 0;
    }
    print("pollhalt: polling 0x%lx\n", (uint64_t)FLAG);
    while (!(v = et_amoorg_d(FLAG, 0))) {
    }
    print("pollhalt: seen %lu\n", v);
    return 0;
}
