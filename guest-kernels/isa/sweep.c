/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Encoding sweep (issue: "every illegal form ... raises the trap or error
 * bit the spec gives, never a QEMU crash").  Hart 0 runs, from a code
 * buffer it rewrites, every funct7 x funct3 of each opcode the ET decoder
 * owns, twice with pseudo-random other fields.  Register fields name only
 * t3-t6 (integer) so the instruction cannot clobber what the C code
 * keeps; t3 and t4 point into the middle of a scratch buffer, t5 into a
 * hole, t6 into the buffer through the uncacheable alias, and the f
 * registers are zero, so memory forms touch the scratch buffer or fault.  Each instruction runs
 * or traps; the handler counts the cause and skips it.
 *
 *   sweep: <n> executed, <n> ran, traps <cause>=<count> ...
 *
 * tests/run.py checks that the kernel ends (QEMU neither crashed nor hung)
 * and that every trap has a cause an instruction may raise.
 */
#include "etsoc1.h"

#define ROUNDS 2

static const uint8_t opcodes[] = {
    0x0b,       /* custom-0: packed memory, atomics, broadcast */
    0x1f,       /* fbci.ps */
    0x3b,       /* ET atomics, coherent stores, packb */
    0x3f,       /* faddi.pi, fandi.pi, fcmov.ps */
    0x5b,       /* custom-2: packed fused multiply-adds */
    0x5f,       /* fbci.pi */
    0x77,       /* fcmovm.ps */
    0x7b,       /* custom-3: packed ALU, compares, conversions, masks */
};

static uint32_t code[16] __attribute__((aligned(64)));
/* 12-bit offsets reach 2 KiB either side of the registers' addresses */
static uint8_t scratch[16384] __attribute__((aligned(64)));
static volatile uint64_t traps[32], other_traps;

void trap_handler(struct trap_frame *f)
{
    if (f->mepc != (uint64_t)code) {
        other_traps++;          /* not the instruction under test */
    } else if (f->mcause < 32) {
        traps[f->mcause]++;
    }
    f->mepc = (uint64_t)&code[1];
}

static uint32_t next_random(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* Register field @v limited to t3-t6 (x28-x31). */
static uint32_t treg(uint32_t v)
{
    return 28 + (v & 3);
}

static void zero_fregs(void)
{
    __asm__ volatile(".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,"
                     "16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
                     "fmv.w.x f\\r, x0\n"
                     ".endr");
}

/* Run code[0] with t3-t6 in the scratch buffer. */
static void run_code(void)
{
    register uint64_t t3 __asm__("t3") = (uint64_t)scratch + 8192;
    register uint64_t t4 __asm__("t4") = (uint64_t)scratch + 8192 + 64;
    /* a hole past shire 0's scratchpad SRAM: memory forms fault */
    register uint64_t t5 __asm__("t5") = SCP_BASE + (4ULL << 20) + 8192;
    /* the scratch buffer through the uncacheable alias: atomics fault */
    register uint64_t t6 __asm__("t6") = (uint64_t)scratch + 8192 -
                                         DRAM_BASE + DRAM_UC;

    __asm__ volatile("fence.i\n\t"
                     "jalr ra, 0(%4)"
                     : "+r"(t3), "+r"(t4), "+r"(t5), "+r"(t6)
                     : "r"(code)
                     : "ra", "memory");
}

int main(uint64_t hartid, const void *fdt)
{
    uint32_t seed = 0x2545f491, ran = 0, executed = 0;
    unsigned o, f, r, c;

    if (hartid != 0) {
        return 0;
    }
    csr_set(mstatus, 1ULL << 13);           /* FS = Initial */
    code[1] = 0x00008067;                   /* ret */
    for (o = 0; o < sizeof(opcodes); o++) {
        for (f = 0; f < 1024; f++) {        /* funct7 [31:25], funct3 */
            for (r = 0; r < ROUNDS; r++) {
                uint32_t x = next_random(&seed);
                uint64_t before = other_traps, n = 0;

                code[0] = opcodes[o] | treg(x) << 7 | (f & 7) << 12 |
                          treg(x >> 2) << 15 | treg(x >> 4) << 20 |
                          (f >> 3) << 25;
                zero_fregs();
                for (c = 0; c < 32; c++) {
                    n += traps[c];
                }
                run_code();
                for (c = 0; c < 32; c++) {
                    n -= traps[c];
                }
                executed++;
                ran += n == 0 && other_traps == before;
            }
        }
    }
    print("sweep: %u executed, %u ran, traps", executed, ran);
    for (c = 0; c < 32; c++) {
        if (traps[c]) {
            print(" %u=%lu", c, (unsigned long)traps[c]);
        }
    }
    print(", %lu elsewhere\n", (unsigned long)other_traps);
    return 0;
}
