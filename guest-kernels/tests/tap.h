/* SPDX-License-Identifier: GPL-2.0-or-later */
/* TAP output from a guest test; the harness reads the UART. */
#ifndef GUEST_TAP_H
#define GUEST_TAP_H
#include "etsoc1.h"

static unsigned tap_n, tap_failed;

#define CHECK(cond, ...) do {                                   \
        int ok_ = (cond);                                       \
        print("%s %u - ", ok_ ? "ok" : "not ok", ++tap_n);      \
        print(__VA_ARGS__);                                     \
        print("\n");                                            \
        tap_failed += !ok_;                                     \
    } while (0)

#define CHECK_EQ(got, want, what) do {                                  \
        uint64_t g_ = (got), w_ = (want);                               \
        CHECK(g_ == w_, "%s (got 0x%lx, want 0x%lx)", what, g_, w_);    \
    } while (0)

static inline int tap_done(void)
{
    print("1..%u\n", tap_n);
    return tap_failed != 0;
}
#endif
