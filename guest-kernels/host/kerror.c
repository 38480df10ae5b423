/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Returns -10, as Esperanto's error kernel does: a kernel that returns a
 * negative value has failed, and the launch answers status 1 (error).
 */
#include <stdint.h>

int64_t entry_point(void);

int64_t entry_point(void)
{
    return -10;
}
