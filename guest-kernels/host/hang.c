/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Never returns: for kernel abort and timeout tests. */
#include <stdint.h>

int64_t entry_point(void);

int64_t entry_point(void)
{
    for (;;) {
        __asm__ volatile("");
    }
    return 0;
}
