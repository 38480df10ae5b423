/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ET-Minion scalar atomics and coherent stores (isa.md section 8) as C
 * functions, written with the ET mnemonics (amo<op>{l,g}.{w,d}, sbl/sbg,
 * shl/shg, packb) that the ET assembler front end encodes
 * (tools/et-insns.tsv, docs/assembler.md).
 *
 *   et_amoaddg_d(p, v)      64-bit global add, returns the old value
 *   et_amocmpswapl_w(p, expected, new)
 */
#ifndef ET_ATOMIC_H
#define ET_ATOMIC_H
#include <stdint.h>

#define ET_AMO(op, scope, type)                                               \
    static inline uint64_t et_##op##scope##_##type(volatile void *p,          \
                                                   uint64_t v)                \
    {                                                                         \
        uint64_t old;                                                         \
        __asm__ volatile(#op #scope "." #type " %0, %2, (%1)"                 \
                         : "=r"(old) : "r"(p), "r"(v) : "memory");           \
        return old;                                                           \
    }

#define ET_AMO_ALL(op)                                                        \
    ET_AMO(op, l, w) ET_AMO(op, g, w) ET_AMO(op, l, d) ET_AMO(op, g, d)

ET_AMO_ALL(amoadd)
ET_AMO_ALL(amoswap)
ET_AMO_ALL(amoxor)
ET_AMO_ALL(amoor)
ET_AMO_ALL(amoand)
ET_AMO_ALL(amomin)
ET_AMO_ALL(amomax)
ET_AMO_ALL(amominu)
ET_AMO_ALL(amomaxu)

/* compare-and-swap: the expected value travels in x31 */
#define ET_CAS(scope, type)                                                   \
    static inline uint64_t et_amocmpswap##scope##_##type(volatile void *p,    \
                                                         uint64_t expected,   \
                                                         uint64_t v)          \
    {                                                                         \
        register uint64_t x31 __asm__("x31") = expected;                      \
        uint64_t old;                                                         \
        __asm__ volatile("amocmpswap" #scope "." #type " %0, %2, (%1)"        \
                         : "=r"(old) : "r"(p), "r"(v), "r"(x31) : "memory");  \
        return old;                                                           \
    }
ET_CAS(l, w)
ET_CAS(g, w)
ET_CAS(l, d)
ET_CAS(g, d)

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
#define ET_STORE(name)                                                        \
    static inline void et_##name(volatile void *p, uint64_t v)                \
    {                                                                         \
        __asm__ volatile(#name " %1, (%0)" :: "r"(p), "r"(v) : "memory");     \
    }
ET_STORE(sbl)
ET_STORE(sbg)
ET_STORE(shl)
ET_STORE(shg)

/* packb: rs1[7:0] | rs2[7:0] << 8 */
static inline uint64_t et_packb(uint64_t a, uint64_t b)
{
    uint64_t r;
    __asm__("packb %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
#endif
