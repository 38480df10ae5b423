/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The firmware's trap frame beyond trap-frame.h's: the counters read at
 * the trap entry and what a hidden trap writes back (struct fw_frame in
 * fw.h; fw/start.S).  For C and assembler.
 */
#ifndef ETSOC1_FW_FRAME_H
#define ETSOC1_FW_FRAME_H

#define FW_CYC_IN       288     /* mcycle read at the entry */
#define FW_INS_IN       296     /* minstret read at the entry */
#define FW_HIDE         304     /* set by fw_trap: write them back */
#define FW_CYC_OUT      312
#define FW_INS_OUT      320
#define FW_FRAME_SIZE   336     /* 16-byte aligned */

/*
 * The entry runs csrrw, addi, sd before the mcycle read and those plus
 * csrr, sd before the minstret read; the exit runs 34 instructions after
 * its minstret write and 31 loads and an mret after its mcycle write.
 */
#define FW_ENTRY_INSNS          5
#define FW_TAIL_INSNS           34
#define FW_TAIL_LOADS           31

#endif
