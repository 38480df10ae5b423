/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Encoders for ET-only instructions.  Debian's binutils does not know the
 * ET-Minion extensions, so they are emitted with .insn.  ET CSRs need no
 * encoder: the standard csr* instructions take their numbers.
 *
 * ET_INSN_R(opcode, funct3, funct7, rd, rs1, rs2): an R-type instruction on
 * register operands, e.g. the opcode-0x3b atomics of isa.md section 8.
 */
#ifndef ET_INSN_H
#define ET_INSN_H

#define ET_INSN_R(opcode, f3, f7, rd, rs1, rs2) \
    ".insn r " #opcode ", " #f3 ", " #f7 ", " rd ", " rs1 ", " rs2 "\n"

#endif
