/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ET-Minion scalar atomics and coherent stores (isa.md section 8), emitted
 * through .insn: opcode 0x3b, funct3 2 (.w) or 3 (.d), funct7 = operation
 * | 1 for the global (L3, chip-coherent) form.
 *
 *   et_amoaddg_d(p, v)      64-bit global add, returns the old value
 *   et_amocmpswapl_w(p, expected, new)
 */
#ifndef ET_ATOMIC_H
#define ET_ATOMIC_H
#include <stdint.h>

#define ET_OP32 0x3b

#define ET_AMO(name, f7, f3)                                                  \
    static inline uint64_t et_##name(volatile void *p, uint64_t v)            \
    {                                                                         \
        uint64_t old;                                                         \
        __asm__ volatile(".insn r 0x3b, " #f3 ", " #f7 ", %0, %1, %2"         \
                         : "=r"(old) : "r"(p), "r"(v) : "memory");           \
        return old;                                                           \
    }

#define ET_AMO_ALL(op, f7)                                                    \
    ET_AMO(op##l_w, f7, 2) ET_AMO(op##g_w, f7 + 1, 2)                         \
    ET_AMO(op##l_d, f7, 3) ET_AMO(op##g_d, f7 + 1, 3)

ET_AMO_ALL(amoadd, 0x00)
ET_AMO_ALL(amoswap, 0x04)
ET_AMO_ALL(amoxor, 0x10)
ET_AMO_ALL(amoor, 0x20)
ET_AMO_ALL(amoand, 0x30)
ET_AMO_ALL(amomin, 0x40)
ET_AMO_ALL(amomax, 0x50)
ET_AMO_ALL(amominu, 0x60)
ET_AMO_ALL(amomaxu, 0x70)

/* compare-and-swap: the expected value travels in x31 */
#define ET_CAS(name, f7, f3)                                                  \
    static inline uint64_t et_##name(volatile void *p, uint64_t expected,     \
                                     uint64_t v)                              \
    {                                                                         \
        register uint64_t x31 __asm__("x31") = expected;                      \
        uint64_t old;                                                         \
        __asm__ volatile(".insn r 0x3b, " #f3 ", " #f7 ", %0, %1, %2"         \
                         : "=r"(old) : "r"(p), "r"(v), "r"(x31) : "memory");  \
        return old;                                                           \
    }
ET_CAS(amocmpswapl_w, 0x78, 2)
ET_CAS(amocmpswapg_w, 0x79, 2)
ET_CAS(amocmpswapl_d, 0x78, 3)
ET_CAS(amocmpswapg_d, 0x79, 3)

/* coherent stores: rs2's low byte / halfword to [rs1] */
#define ET_STORE(name, f7)                                                    \
    static inline void et_##name(volatile void *p, uint64_t v)                \
    {                                                                         \
        __asm__ volatile(".insn r 0x3b, 3, " #f7 ", x0, %0, %1"               \
                         :: "r"(p), "r"(v) : "memory");                       \
    }
ET_STORE(sbl, 0x08)
ET_STORE(sbg, 0x09)
ET_STORE(shl, 0x0c)
ET_STORE(shg, 0x0d)

/* packb: rs1[7:0] | rs2[7:0] << 8 */
static inline uint64_t et_packb(uint64_t a, uint64_t b)
{
    uint64_t r;
    __asm__(".insn r 0x3b, 6, 0x40, %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
#endif
