/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest kernel of tests/fuzz/insn_fuzz.py, compiled by the fuzzer with a
 * generated "stream.h" (the seed's instruction words and register values):
 *
 *   NCHUNK, CHUNK                       chunks of CHUNK instruction words
 *   static const uint32_t words[NCHUNK][CHUNK];
 *   static const uint64_t xregs[NCHUNK][32];    x0..x31 (x0 ignored)
 *   static const uint32_t fregs[NCHUNK][32];    f0..f31 (low lane)
 *
 * Hart 0 copies each chunk into a code buffer, ending in an ecall, loads
 * every integer register (sp, ra, gp, tp included) and f register with the
 * chunk's values, and mrets into it.  Its own trap vector (fuzz_trap) runs
 * on a stack of its own through mscratch, so no guest register matters to
 * it: a trap inside the buffer is counted by cause and skipped by the
 * instruction's length; the ecall or a trap outside the buffer ends the
 * chunk, and chunk_done restores the C state.  Meanwhile hart 2 (minion 1)
 * counts a heartbeat, which must still advance after the stream: one
 * hart's garbage does not stop another.  Hart 0 prints
 *
 *   insn_fuzz: <n> executed, traps <cause>=<count> ..., <n> elsewhere, beat <n>
 */
#include "etsoc1.h"
#include "stream.h"

/* code buffer: CHUNK words, then the ecall that ends the chunk */
static uint32_t code[CHUNK + 1] __attribute__((aligned(64)));
static uint64_t trap_stack[64] __attribute__((aligned(16)));
uint64_t fuzz_save[16];                 /* chunk_done restores these */
uint64_t fuzz_regs[64];                 /* the chunk's x then f values */
uint64_t fuzz_code, fuzz_code_end;
volatile uint64_t fuzz_traps[32], fuzz_elsewhere, fuzz_interrupts;
static volatile uint64_t beat;
static volatile int done;

void fuzz_trap(void);
void fuzz_run(void);

__asm__(
    "    .text\n"
    "    .align 4\n"
    "    .globl fuzz_trap\n"
    "fuzz_trap:\n"
    "    csrrw sp, mscratch, sp\n"
    "    sd    t0, 0(sp)\n"
    "    sd    t1, 8(sp)\n"
    "    sd    t2, 16(sp)\n"
    "    csrr  t0, mcause\n"
    "    bltz  t0, 5f\n"                 /* an interrupt: count, resume */
    "    csrr  t1, mepc\n"
    "    la    t2, fuzz_code_end\n"
    "    ld    t2, 0(t2)\n"
    "    beq   t1, t2, 4f\n"             /* the closing ecall */
    "    bgtu  t1, t2, 3f\n"
    "    la    t2, fuzz_code\n"
    "    ld    t2, 0(t2)\n"
    "    bltu  t1, t2, 3f\n"
    "    andi  t0, t0, 31\n"             /* in the buffer: count the cause */
    "    slli  t0, t0, 3\n"
    "    la    t2, fuzz_traps\n"
    "    add   t2, t2, t0\n"
    "    ld    t0, 0(t2)\n"
    "    addi  t0, t0, 1\n"
    "    sd    t0, 0(t2)\n"
    "    lhu   t0, 0(t1)\n"              /* skip by the instruction's length */
    "    andi  t0, t0, 3\n"
    "    addi  t1, t1, 2\n"
    "    li    t2, 3\n"
    "    bne   t0, t2, 1f\n"
    "    addi  t1, t1, 2\n"
    "1:  csrw  mepc, t1\n"
    "2:  ld    t0, 0(sp)\n"
    "    ld    t1, 8(sp)\n"
    "    ld    t2, 16(sp)\n"
    "    csrrw sp, mscratch, sp\n"
    "    mret\n"
    "3:  la    t2, fuzz_elsewhere\n"     /* outside the buffer */
    "    ld    t0, 0(t2)\n"
    "    addi  t0, t0, 1\n"
    "    sd    t0, 0(t2)\n"
    "4:  la    t1, chunk_done\n"
    "    csrw  mepc, t1\n"
    "    j     2b\n"
    "5:  la    t2, fuzz_interrupts\n"
    "    ld    t0, 0(t2)\n"
    "    addi  t0, t0, 1\n"
    "    sd    t0, 0(t2)\n"
    "    j     2b\n"
    /* fuzz_run: save the C state, load fuzz_regs, mret into the buffer */
    "    .globl fuzz_run\n"
    "fuzz_run:\n"
    "    la    t0, fuzz_save\n"
    "    sd    ra, 0(t0)\n"
    "    sd    sp, 8(t0)\n"
    "    sd    gp, 16(t0)\n"
    "    sd    tp, 24(t0)\n"
    "    sd    s0, 32(t0)\n"
    "    sd    s1, 40(t0)\n"
    "    sd    s2, 48(t0)\n"
    "    sd    s3, 56(t0)\n"
    "    sd    s4, 64(t0)\n"
    "    sd    s5, 72(t0)\n"
    "    sd    s6, 80(t0)\n"
    "    sd    s7, 88(t0)\n"
    "    sd    s8, 96(t0)\n"
    "    sd    s9, 104(t0)\n"
    "    sd    s10, 112(t0)\n"
    "    sd    s11, 120(t0)\n"
    "    la    t0, fuzz_code\n"
    "    ld    t0, 0(t0)\n"
    "    csrw  mepc, t0\n"
    "    li    t0, 0x1800\n"             /* MPP = M */
    "    csrs  mstatus, t0\n"
    "    li    t0, 0x80\n"               /* MPIE = 0: interrupts stay off */
    "    csrc  mstatus, t0\n"
    "    la    a0, fuzz_regs\n"
    "    .irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,"
    "23,24,25,26,27,28,29,30,31\n"
    "    flw   f\\r, (256 + 8 * \\r)(a0)\n"
    "    .endr\n"
    "    .irp r,1,2,3,4,5,6,7,8,9,11,12,13,14,15,16,17,18,19,20,21,22,23,"
    "24,25,26,27,28,29,30,31\n"
    "    ld    x\\r, (8 * \\r)(a0)\n"
    "    .endr\n"
    "    ld    a0, 80(a0)\n"
    "    mret\n"
    "chunk_done:\n"
    "    la    t0, fuzz_save\n"
    "    ld    ra, 0(t0)\n"
    "    ld    sp, 8(t0)\n"
    "    ld    gp, 16(t0)\n"
    "    ld    tp, 24(t0)\n"
    "    ld    s0, 32(t0)\n"
    "    ld    s1, 40(t0)\n"
    "    ld    s2, 48(t0)\n"
    "    ld    s3, 56(t0)\n"
    "    ld    s4, 64(t0)\n"
    "    ld    s5, 72(t0)\n"
    "    ld    s6, 80(t0)\n"
    "    ld    s7, 88(t0)\n"
    "    ld    s8, 96(t0)\n"
    "    ld    s9, 104(t0)\n"
    "    ld    s10, 112(t0)\n"
    "    ld    s11, 120(t0)\n"
    "    ret\n");

int main(uint64_t hartid, const void *fdt)
{
    uint64_t beat0, mtvec, spin;
    unsigned k, i, c;

    if (hartid == 2) {
        while (!done) {
            beat++;
        }
        return 0;
    }
    if (hartid != 0) {
        return 0;
    }
    fuzz_code = (uint64_t)code;
    fuzz_code_end = (uint64_t)&code[CHUNK];
    code[CHUNK] = 0x00000073;               /* ecall */
    mtvec = csr_read(mtvec);
    csr_write(mscratch, (uint64_t)&trap_stack[64]);
    csr_write(mtvec, (uint64_t)fuzz_trap);
    while (!beat) {
        /* hart 2 is running */
    }
    for (k = 0; k < NCHUNK; k++) {
        for (i = 0; i < CHUNK; i++) {
            code[i] = words[k][i];
        }
        for (i = 0; i < 32; i++) {
            fuzz_regs[i] = xregs[k][i];
            fuzz_regs[32 + i] = fregs[k][i];
        }
        __asm__ volatile("fence.i" ::: "memory");
        fuzz_run();
    }
    csr_write(mtvec, mtvec);
    /* after the stream, the heartbeat still moves (bounded wait) */
    beat0 = beat;
    for (spin = 0; beat == beat0 && spin < 100000000; spin++) {
        __asm__ volatile("" ::: "memory");
    }
    print("insn_fuzz: %u executed, traps", NCHUNK * CHUNK);
    for (c = 0; c < 32; c++) {
        if (fuzz_traps[c]) {
            print(" %u=%lu", c, (unsigned long)fuzz_traps[c]);
        }
    }
    print(", %lu elsewhere, %lu interrupts, beat %s\n",
          (unsigned long)fuzz_elsewhere, (unsigned long)fuzz_interrupts,
          beat != beat0 ? "advanced" : "stopped");
    done = 1;
    return 0;
}
