/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ET-Minion packed-single instructions (isa.md section 9) through .insn.
 * Register operands are written as the assembler's names (f0..f31, x
 * registers through %N operands); FP arithmetic here uses rm = 7 (frm).
 */
#ifndef ET_VPU_H
#define ET_VPU_H
#include <stdint.h>

/* custom-0: 256-bit load/store and broadcast (lanes predicated by m0) */
#define FLW_PS(fd, ptr) \
    __asm__ volatile(".insn i 0x0b, 2, " #fd ", 0(%0)" :: "r"(ptr) : "memory")
#define FSW_PS(fs, ptr) \
    __asm__ volatile(".insn s 0x0b, 6, " #fs ", 0(%0)" :: "r"(ptr) : "memory")
#define FBC_PS(fd, ptr) \
    __asm__ volatile(".insn i 0x0b, 0, " #fd ", 0(%0)" :: "r"(ptr) : "memory")
#define FBCX_PS(fd, x) \
    __asm__ volatile(".insn i 0x0b, 3, " #fd ", %0, 0" :: "r"(x))

/* custom-3 R-type: funct7, funct3 (rounding mode or sub-op) */
#define VOP(f7, f3, fd, fs1, fs2) \
    __asm__ volatile(".insn r 0x7b, " #f3 ", " #f7 ", " #fd ", " #fs1 ", " #fs2)
/* custom-2 fused multiply-add: fmt 0 fmadd, 1 fmsub, 2 fnmsub, 3 fnmadd */
#define VFMA(fmt, fd, fs1, fs2, fs3) \
    __asm__ volatile(".insn r4 0x5b, 7, " #fmt ", " #fd ", " #fs1 ", " #fs2 \
                     ", " #fs3)

/*
 * Opcodes 0x1f, 0x3f and 0x5f are plain 32-bit instructions on the minion,
 * but the assembler reads their low bits as the RISC-V 48-/64-bit length
 * prefix and pads .insn to 6 or 8 bytes, so they are emitted as .word.
 * Register operands are numbers here.
 */
#define ET_WORD(w) __asm__ volatile(".word %0" :: "i"((uint32_t)(w)))
/* fbci.ps / fbci.pi: broadcast a 20-bit immediate ([31:12]) */
#define FBCI_PS(fd, imm20) ET_WORD((imm20) << 12 | (fd) << 7 | 0x1f)
#define FBCI_PI(fd, imm20) ET_WORD((imm20) << 12 | (fd) << 7 | 0x5f)
/* opcode 0x3f, fmt 2: imm10 split [31:27]:[24:20], or fs3 in [31:27] */
#define ET_OP3F(f3, fd, fs1, hi5, lo5) \
    ET_WORD((hi5) << 27 | 2 << 25 | (lo5) << 20 | (fs1) << 15 | (f3) << 12 | \
            (fd) << 7 | 0x3f)
#define FADDI_PI(fd, fs1, imm10) \
    ET_OP3F(0, fd, fs1, (imm10) >> 5 & 0x1f, (imm10) & 0x1f)
#define FANDI_PI(fd, fs1, imm10) \
    ET_OP3F(1, fd, fs1, (imm10) >> 5 & 0x1f, (imm10) & 0x1f)
#define FCMOV_PS(fd, fs1, fs2, fs3) ET_OP3F(2, fd, fs1, fs3, fs2)

/* m0..m7 from/to one x register, a byte each */
static inline void mova_m_x(uint64_t v)
{
    __asm__ volatile(".insn r 0x7b, 1, 0x6b, x0, %0, x0" :: "r"(v));
}

static inline uint64_t mova_x_m(void)
{
    uint64_t v;
    __asm__ volatile(".insn r 0x7b, 0, 0x6b, %0, x0, x0" : "=r"(v));
    return v;
}

static inline void set_m0(uint8_t m)
{
    mova_m_x((mova_x_m() & ~0xffULL) | m);
}
#endif
