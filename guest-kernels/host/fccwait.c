/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every hart waits on its FCC counter 0 for a credit that no one sends:
 * a launch in which no hart can ever act again.  Only the launch
 * watchdog ends it, once the model has moved its emulated time on to the
 * watchdog's expiry (docs/firmware.md, "Launch watchdog").
 */
#include <stdint.h>
#include "etsoc1.h"

int64_t entry_point(void);

int64_t entry_point(void)
{
    for (;;) {
        fcc_wait(0);
    }
    return 0;
}
