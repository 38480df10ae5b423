/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the minion's tensor unit (etsoc1-tensor.c,
 * docs/isa.md "Tensor"): TensorLoad, TensorFMA, TensorStore, TensorQuant and
 * their waits.  Its per-hart times and cooperative-load state are in the
 * hart's ET state (etsoc1-minion.h).
 */

#ifndef HW_ETSOC1_TENSOR_H
#define HW_ETSOC1_TENSOR_H

#include "hw/etsoc1/etsoc1-minion.h"

/* tensor_error (CSR 0x808) bits, sticky (isa.md section 3) */
#define ETSOC1_TENSOR_ERROR_TRANSFORM   (1u << 1)   /* bad TensorLoad op */
#define ETSOC1_TENSOR_ERROR_FCC_WRAP    (1u << 3)   /* credit overflow */
#define ETSOC1_TENSOR_ERROR_SCP_OFF     (1u << 4)   /* L1 SCP disabled */
#define ETSOC1_TENSOR_ERROR_LOCK        (1u << 5)   /* lock_sw refused */
#define ETSOC1_TENSOR_ERROR_TENB        (1u << 6)   /* TenB/TFMA pairing */
#define ETSOC1_TENSOR_ERROR_FAULT       (1u << 7)   /* memory fault */
#define ETSOC1_TENSOR_ERROR_STORE       (1u << 8)   /* bad coop store */
#define ETSOC1_TENSOR_ERROR_SEND_RECV   (1u << 9)   /* bad tensor send/recv */
#define ETSOC1_L1SCP_LINES 48   /* 64-byte L1 scratchpad lines per minion */

#define ETSOC1_CSR_TENSOR_FMA   0x801
#define ETSOC1_CSR_TENSOR_QUANT 0x806
#define ETSOC1_CSR_TENSOR_LOAD  0x83f
#define ETSOC1_CSR_TENSOR_LOAD_L2 0x85f
#define ETSOC1_CSR_TENSOR_STORE 0x87f
/* etsoc1-tensor.c; its CSRs: etsoc1_tensor_register_csrs (etsoc1-csr.h) */
bool etsoc1_coop_waiting(Etsoc1MinionCPU *cpu);
void etsoc1_coop_drop(Etsoc1MinionCPU *cpu);

#endif
