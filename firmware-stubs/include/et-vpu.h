/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for ET-Minion packed-single code (isa.md section 9) that need a
 * C pointer or value as an operand.  Everything else is written as ET
 * mnemonics in inline assembly, which the ET assembler front end
 * (tools/et-as, docs/assembler.md) encodes; @fd/@fs are f register names.
 */
#ifndef ET_VPU_H
#define ET_VPU_H
#include <stdint.h>

/* 256-bit load/store and broadcast (lanes predicated by m0) */
#define FLW_PS(fd, ptr) \
    __asm__ volatile("flw.ps " #fd ", 0(%0)" :: "r"(ptr) : "memory")
#define FSW_PS(fs, ptr) \
    __asm__ volatile("fsw.ps " #fs ", 0(%0)" :: "r"(ptr) : "memory")
#define FBC_PS(fd, ptr) \
    __asm__ volatile("fbc.ps " #fd ", 0(%0)" :: "r"(ptr) : "memory")
#define FBCX_PS(fd, x) \
    __asm__ volatile("fbcx.ps " #fd ", %0" :: "r"(x))

/* m0..m7 from/to one x register, a byte each */
static inline void mova_m_x(uint64_t v)
{
    __asm__ volatile("mova.m.x %0" :: "r"(v));
}

static inline uint64_t mova_x_m(void)
{
    uint64_t v;
    __asm__ volatile("mova.x.m %0" : "=r"(v));
    return v;
}

static inline void set_m0(uint8_t m)
{
    mova_m_x((mova_x_m() & ~0xffULL) | m);
}
#endif
