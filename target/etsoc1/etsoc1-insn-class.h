/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ET-Minion's instruction classes: the rows of the cost table
 * (cfg.et_insn_cost, hw/etsoc1/etsoc1-timing.c) by which the translator
 * counts each hart's cycles (qemu-patches/0006-target-riscv-etsoc1-counters),
 * and the classifier it asks (etsoc1-insn-class.c).
 */

#ifndef TARGET_ETSOC1_INSN_CLASS_H
#define TARGET_ETSOC1_INSN_CLASS_H

typedef enum EtInsnClass {
    ET_INSN_ALU,
    ET_INSN_BRANCH,     /* branches and jumps */
    ET_INSN_LOAD,
    ET_INSN_STORE,
    ET_INSN_MUL,
    ET_INSN_DIV,
    ET_INSN_FP,         /* scalar F, not fdiv/fsqrt */
    ET_INSN_FDIV,       /* fdiv.s, fsqrt.s */
    ET_INSN_ATOMIC,     /* ET scalar atomics and coherent stores */
    ET_INSN_PACKED,     /* packed single and its loads and stores */
    ET_INSN_SYSTEM,     /* CSR accesses, fences, ecall, wfi... */
    ET_INSN_CLASSES
} EtInsnClass;

/* The class of the instruction @insn (16 or 32 bits, as fetched) */
EtInsnClass etsoc1_insn_class(uint32_t insn);

#endif
