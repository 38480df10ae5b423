/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Odd harts abort themselves as Esperanto's et_abort() does (ecall
 * SYSCALL_RETURN_FROM_KERNEL with return type 1, KERNEL_RETURN_SELF_ABORT)
 * while even harts work on and then mark out[h].  Their worker takes a
 * self abort as the shire's error, not an exception: the launch answers
 * 1 (error), the aborting harts leave self-abort contexts, and nobody
 * stops the others, so every even hart marks its word.
 */
#include <stdint.h>
#include "etsoc1.h"

struct selfabort_args {
    uint64_t *out;      /* one u64 per hart id */
    uint64_t spin;      /* the even harts' work before they mark */
};

int64_t entry_point(const struct selfabort_args *a);

int64_t entry_point(const struct selfabort_args *a)
{
    uint64_t h = csr_read(hartid);

    if (h & 1) {
        register uint64_t a0 __asm__("a0") = 8;    /* return from kernel */
        register uint64_t a1 __asm__("a1") = 0;
        register uint64_t a2 __asm__("a2") = 1;    /* self abort */

        __asm__ volatile("ecall" : : "r"(a0), "r"(a1), "r"(a2) : "memory");
        for (;;) {
        }
    }
    for (volatile uint64_t i = 0; i < a->spin; i++) {
    }
    a->out[h] = 1;
    return 0;
}
