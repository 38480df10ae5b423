/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Packed memory operations, hart 0, TAP: general and 32-byte-window
 * gathers/scatters, packed atomics, coherent vector loads/stores,
 * flq2/fsq2, and gsc_progress across a faulting lane.  Expected values in
 * plain C.
 */
#include "etsoc1.h"
#include "et-vpu.h"
#include "tap.h"

static uint32_t table[64] __attribute__((aligned(64)));
static uint32_t out[16] __attribute__((aligned(32)));
static uint32_t idx[8] __attribute__((aligned(32)));
static uint32_t data[8] __attribute__((aligned(32)));
static volatile uint64_t trap_cause, trap_tval, traps, progress_at_trap;

void trap_handler(struct trap_frame *f)
{
    trap_cause = f->mcause;
    trap_tval = f->mtval;
    traps++;
    progress_at_trap = csr_read(0x840);
    csr_write(0x840, 0);
    f->mepc += 4;
}

static void store_f4(void)
{
    set_m0(0xff);
    FSW_PS(f4, out);
}

static void load_idx_data(void)
{
    set_m0(0xff);
    FLW_PS(f1, idx);
    FLW_PS(f4, data);
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned e, bad;
    uint8_t *bytes = (uint8_t *)table;
    uint64_t packed;

    if (hartid != 0) {
        return 0;
    }
    for (e = 0; e < 64; e++) {
        table[e] = 0x01010101u * e ^ (e & 1 ? 0x80008080u : 0);
    }
    for (e = 0; e < 8; e++) {
        idx[e] = (7 - e) * 12 + (e == 5 ? 2 : 0);      /* lane 5: misaligned */
        data[e] = 0xa0000000u + e;
    }

    /* general gathers: byte offsets, sign extension, m0 */
    load_idx_data();
    set_m0(0xdf);                                       /* lane 5 off */
    __asm__ volatile(".insn r 0x0b, 1, 0x30, f4, f1, %0" :: "r"(table));
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        uint32_t w;

        __builtin_memcpy(&w, bytes + idx[e], 4);
        bad += out[e] != (e == 5 ? data[5] : w);
    }
    CHECK(bad == 0, "fgw.ps gathers words at byte offsets, m0-masked");
    load_idx_data();
    __asm__ volatile(".insn r 0x0b, 1, 0x30, f4, f1, %0" :: "r"(table));
    store_f4();
    {
        uint32_t w;

        __builtin_memcpy(&w, bytes + idx[5], 4);
        CHECK(traps == 0 && out[5] == w, "fgw.ps: a misaligned lane is allowed");
    }
    load_idx_data();
    __asm__ volatile(".insn r 0x0b, 1, 0x28, f4, f1, %0" :: "r"(table));
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        int16_t h;

        __builtin_memcpy(&h, bytes + idx[e], 2);
        bad += out[e] != (uint32_t)(int32_t)h;
    }
    CHECK(bad == 0, "fgh.ps sign-extends halfwords");
    load_idx_data();
    __asm__ volatile(".insn r 0x0b, 1, 0x24, f4, f1, %0" :: "r"(table));
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        bad += out[e] != (uint32_t)(int32_t)(int8_t)bytes[idx[e]];
    }
    CHECK(bad == 0, "fgb.ps sign-extends bytes");

    /* general scatter */
    for (e = 0; e < 64; e++) {
        table[e] = 0;
    }
    load_idx_data();
    set_m0(0x7f);
    __asm__ volatile(".insn r 0x0b, 1, 0x70, f4, f1, %0" :: "r"(table)
                     : "memory");
    for (e = 0, bad = 0; e < 8; e++) {
        uint32_t w;

        __builtin_memcpy(&w, bytes + idx[e], 4);
        bad += w != (e == 7 ? 0 : data[e]);
    }
    CHECK(bad == 0, "fscw.ps scatters the m0 lanes");

    /* 32-byte window: word indices packed 3 bits a lane, base mid-window */
    for (e = 0; e < 64; e++) {
        table[e] = 100 + e;
    }
    for (e = 0, packed = 0; e < 8; e++) {
        packed |= (uint64_t)((e * 3) & 7) << (3 * e);
    }
    set_m0(0xff);
    __asm__ volatile(".insn r 0x0b, 1, 0x10, f4, %0, %1"
                     :: "r"(packed), "r"(&table[8 + 5]));
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        bad += out[e] != 100 + 8 + ((5 + (e * 3 & 7)) & 7);
    }
    CHECK(bad == 0, "fg32w.ps wraps inside the 32-byte window");

    /* packed atomics: fetch-and-add into eight words, old values back */
    for (e = 0; e < 64; e++) {
        table[e] = 1000 * e;
    }
    for (e = 0; e < 8; e++) {
        idx[e] = 4 * (e * 5 % 8);
        data[e] = e + 1;
    }
    load_idx_data();
    __asm__ volatile(".insn r 0x0b, 4, 0x43, f4, f1, %0" :: "r"(table)
                     : "memory");
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        unsigned w = e * 5 % 8;

        bad += out[e] != 1000 * w || table[w] != 1000 * w + e + 1;
    }
    CHECK(bad == 0, "famoaddg.pi: memory += lane, lane = old value");
    table[0] = 0xbf800000;                  /* -1.0 */
    table[1] = 0x7f812345;                  /* sNaN */
    table[2] = 0x80000000;                  /* -0.0 */
    for (e = 0; e < 8; e++) {
        idx[e] = 4 * (e % 3);
        data[e] = e == 0 ? 0x40000000 : e == 2 ? 0x00000000 : 0x3f800000;
    }
    set_m0(0xff);
    FLW_PS(f1, idx);
    FLW_PS(f4, data);
    set_m0(0x07);
    __asm__ volatile(".insn r 0x0b, 4, 0x14, f4, f1, %0" :: "r"(table)
                     : "memory");
    CHECK(table[0] == 0x40000000 && table[1] == 0x7fc00000 &&
          table[2] == 0x00000000,
          "famomaxl.ps: 2.0 > -1.0, sNaN gives the default NaN, +0 > -0");
    traps = 0;
    set_m0(0x01);
    idx[0] = 2;
    FLW_PS(f1, idx);
    __asm__ volatile(".insn r 0x0b, 4, 0x03, f4, f1, %0" :: "r"(table));
    CHECK(traps == 1 && trap_cause == 7, "misaligned packed atomic: cause 7");
    traps = 0;
    idx[0] = 0;
    FLW_PS(f1, idx);
    __asm__ volatile(".insn r 0x0b, 4, 0x03, f4, f1, %0" :: "r"(SCP_BASE));
    CHECK(traps == 1 && trap_cause == 7, "local packed atomic to the SCP faults");

    /* coherent vector load/store (32-byte aligned), flq2/fsq2 (unmasked) */
    for (e = 0; e < 16; e++) {
        table[e] = 0x5000 + e;
    }
    set_m0(0xff);
    __asm__ volatile(".insn r 0x0b, 7, 0x09, f4, %0, x0" :: "r"(&table[8]));
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        bad += out[e] != 0x5008 + e;
    }
    CHECK(bad == 0, "flwg.ps loads 32 aligned bytes");
    traps = 0;
    __asm__ volatile(".insn r 0x0b, 7, 0x09, f4, %0, x0" :: "r"(&table[9]));
    CHECK(traps == 1 && trap_cause == 5 && trap_tval == (uint64_t)&table[9],
          "flwg.ps misaligned: load access fault");
    for (e = 0; e < 8; e++) {
        table[16 + e] = 0xeeee;
    }
    set_m0(0x0f);
    traps = 0;
    __asm__ volatile(".insn r 0x0b, 7, 0x28, f4, %0, x0" :: "r"(&table[16])
                     : "memory");
    for (e = 0, bad = 0; e < 8; e++) {
        bad += table[16 + e] != (e < 4 ? 0x5008 + e : 0xeeee);
    }
    CHECK(bad == 0 && traps == 0,
          "fswl.ps stores the fd-field register's m0 lanes");
    set_m0(0x01);
    __asm__ volatile(".insn i 0x07, 5, f4, 0(%0)" :: "r"(&table[0]));
    __asm__ volatile(".insn s 0x27, 5, f4, 0(%0)" :: "r"(&table[32])
                     : "memory");
    for (e = 0, bad = 0; e < 8; e++) {
        bad += table[32 + e] != 0x5000 + e;
    }
    CHECK(bad == 0, "flq2 / fsq2 move all 8 lanes whatever m0 says");

    /* coherent gathers/scatters: aligned lanes only */
    for (e = 0; e < 8; e++) {
        idx[e] = 4 * (7 - e);
        table[e] = 0x7000 + e;
    }
    set_m0(0xff);
    FLW_PS(f1, idx);
    traps = 0;
    __asm__ volatile(".insn r 0x0b, 7, 0x49, f4, f1, %0" :: "r"(table));
    store_f4();
    for (e = 0, bad = 0; e < 8; e++) {
        bad += out[e] != 0x7000 + 7 - e;
    }
    CHECK(bad == 0 && traps == 0, "fgwg.ps gathers aligned words");
    FBC_PS(f4, &data[1]);
    __asm__ volatile(".insn r 0x0b, 7, 0x68, f4, f1, %0" :: "r"(&table[8])
                     : "memory");
    for (e = 0, bad = 0; e < 8; e++) {
        bad += table[8 + e] != data[1];
    }
    CHECK(bad == 0 && traps == 0, "fscwl.ps scatters aligned words");
    idx[2] = 6;
    FLW_PS(f1, idx);
    __asm__ volatile(".insn r 0x0b, 7, 0x49, f4, f1, %0" :: "r"(table));
    CHECK(traps == 1 && trap_cause == 5 && progress_at_trap == 2,
          "fgwg.ps misaligned lane 2: load access fault, gsc_progress 2");

    /* a faulting lane is recorded in gsc_progress */
    for (e = 0; e < 8; e++) {
        idx[e] = 4 * e;
    }
    idx[3] = 0x7fffffff;                    /* far beyond DRAM */
    set_m0(0xff);
    FLW_PS(f1, idx);
    FBC_PS(f4, &data[0]);
    traps = 0;
    __asm__ volatile(".insn r 0x0b, 1, 0x30, f4, f1, %0" :: "r"(SCP_BASE + 0x1000));
    store_f4();
    CHECK(traps == 1 && progress_at_trap == 3 && out[0] == 0 && out[4] == data[0],
          "a gather faulting on lane 3: gsc_progress = 3, lanes before it done");
    return tap_done();
}
