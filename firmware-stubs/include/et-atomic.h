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

/*
 * Any AMO by number, for tests that loop over them: @op in funct7 order,
 * @d for .d, @global for the g form; @x31 is the expected value of
 * amocmpswap and unused by the others.
 */
enum {
    ET_AMOADD, ET_AMOSWAP, ET_AMOXOR, ET_AMOOR, ET_AMOAND, ET_AMOMIN,
    ET_AMOMAX, ET_AMOMINU, ET_AMOMAXU, ET_AMOCMPSWAP, ET_NAMO
};
static const char *const et_amo_names[ET_NAMO] __attribute__((unused)) = {
    "add", "swap", "xor", "or", "and", "min", "max", "minu", "maxu",
    "cmpswap",
};

typedef uint64_t (*et_amo_fn)(volatile void *, uint64_t);
/* [op][d][global] */
static const et_amo_fn et_amo_fns[ET_AMOCMPSWAP][2][2]
__attribute__((unused)) = {
#define ET_ROW(op) { { et_##op##l_w, et_##op##g_w }, \
                     { et_##op##l_d, et_##op##g_d } }
    ET_ROW(amoadd), ET_ROW(amoswap), ET_ROW(amoxor), ET_ROW(amoor),
    ET_ROW(amoand), ET_ROW(amomin), ET_ROW(amomax), ET_ROW(amominu),
    ET_ROW(amomaxu),
#undef ET_ROW
};

static inline uint64_t et_amo(unsigned op, int d, int global,
                              volatile void *p, uint64_t v, uint64_t x31)
{
    if (op != ET_AMOCMPSWAP) {
        return et_amo_fns[op][d][global](p, v);
    }
    if (d) {
        return global ? et_amocmpswapg_d(p, x31, v)
                      : et_amocmpswapl_d(p, x31, v);
    }
    return global ? et_amocmpswapg_w(p, x31, v) : et_amocmpswapl_w(p, x31, v);
}

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
