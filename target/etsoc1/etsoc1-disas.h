/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ET-Minion instructions and CSRs by name, for QEMU's RISC-V
 * disassembler (disas/riscv.c calls these through
 * qemu-patches/0008-disas-riscv-etsoc1.patch; etsoc1-disas.c).  No target
 * header: the disassembler is built once for every target.
 */

#ifndef TARGET_ETSOC1_DISAS_H
#define TARGET_ETSOC1_DISAS_H

/* The name of ET CSR @csrno, or NULL */
const char *etsoc1_disas_csr_name(int csrno);

/*
 * The ET instruction @inst as text in @buf (name padded to column @tab,
 * x registers named by @xreg[], disas/riscv.c's ABI names), or false if
 * it is none.
 */
bool etsoc1_disas_insn(char *buf, size_t buflen, size_t tab, uint32_t inst,
                       const char xreg[32][5]);

#endif
