/* SPDX-License-Identifier: GPL-2.0-or-later */
/* TAP output for the host test programs: one "ok N - ..." line a check. */
#ifndef ETSOC1_HOST_TAP_H
#define ETSOC1_HOST_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int test_no, failures;

static bool __attribute__((format(printf, 2, 3), unused))
report(bool ok, const char *fmt, ...)
{
    va_list ap;

    printf("%s %d - ", ok ? "ok" : "not ok", ++test_no);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    failures += !ok;
    return ok;
}

#endif
