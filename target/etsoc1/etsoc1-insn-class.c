/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The class of an ET-Minion instruction for its cost (etsoc1-insn-class.h),
 * from its major opcode and a few fields: compressed forms as their
 * 32-bit equivalents, the ET atomics and coherent stores (OP-32 funct3 2,
 * 3, 6 and 7) as atomics, the custom opcodes as packed single.
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "target/riscv/etsoc1/etsoc1-insn-class.h"

EtInsnClass etsoc1_insn_class(uint32_t insn)
{
    unsigned f3 = extract32(insn, 13, 3);

    switch (insn & 3) {             /* compressed */
    case 0:
        return f3 == 0 ? ET_INSN_ALU : f3 < 4 ? ET_INSN_LOAD :
               f3 > 4 ? ET_INSN_STORE : ET_INSN_ALU;
    case 1:
        return f3 >= 5 ? ET_INSN_BRANCH : ET_INSN_ALU;
    case 2:
        if (f3 == 4 && !extract32(insn, 2, 5) && extract32(insn, 7, 5)) {
            return ET_INSN_BRANCH;                      /* c.jr, c.jalr */
        }
        return (f3 >= 1 && f3 <= 3) ? ET_INSN_LOAD :
               f3 > 4 ? ET_INSN_STORE : ET_INSN_ALU;
    }
    switch (extract32(insn, 0, 7)) {
    case 0x03:
    case 0x07:
        return ET_INSN_LOAD;
    case 0x23:
    case 0x27:
        return ET_INSN_STORE;
    case 0x63:
    case 0x67:
    case 0x6f:
        return ET_INSN_BRANCH;
    case 0x33:
        return extract32(insn, 25, 7) != 1 ? ET_INSN_ALU :
               extract32(insn, 12, 3) < 4 ? ET_INSN_MUL : ET_INSN_DIV;
    case 0x3b:                      /* OP-32, and the ET atomics */
        if (extract32(insn, 12, 2) >= 2) {
            return ET_INSN_ATOMIC;
        }
        return extract32(insn, 25, 7) != 1 ? ET_INSN_ALU :
               extract32(insn, 12, 3) < 4 ? ET_INSN_MUL : ET_INSN_DIV;
    case 0x53:
        return (extract32(insn, 25, 7) == 0x0c ||
                extract32(insn, 25, 7) == 0x2c) ? ET_INSN_FDIV : ET_INSN_FP;
    case 0x43:
    case 0x47:
    case 0x4b:
    case 0x4f:
        return ET_INSN_FP;
    case 0x0f:
    case 0x73:
        return ET_INSN_SYSTEM;
    case 0x0b:
    case 0x1f:
    case 0x2b:
    case 0x3f:
    case 0x5b:
    case 0x5f:
    case 0x77:
    case 0x7b:
        return ET_INSN_PACKED;
    default:
        return ET_INSN_ALU;
    }
}
