/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Instructions the minion leaves to machine-mode code (exception 30 with
 * the CPU's mcode-traps property, docs/isa.md).  Hart 0 runs each one with
 * its destination preset to a sentinel and prints what happened:
 *   "<insn>: traps=<n> cause=<c> tval=<ok|bad> result=<hex>"
 * tests/run.py checks the lines with the property off (results computed)
 * and on (one trap each, cause 30, mtval = the instruction, no result).
 * fsin.ps and frsq.ps raise exception 30 in both settings, even with
 * FS = Off: the chip traps before it looks at the FPU state.
 */
#include "etsoc1.h"
#include "et-vpu.h"

static volatile uint64_t tval_ok;
static uint32_t lanes[8] __attribute__((aligned(32)));

void trap_handler(struct trap_frame *f)
{
    tval_ok = csr_read(mtval) == *(volatile uint32_t *)f->mepc;
    trap_record(f);
}

static void report(const char *name, uint64_t result)
{
    print("%s: traps=%lu cause=%lu tval=%s result=%lx\n", name,
          (unsigned long)trap_seen.count,
          (unsigned long)(trap_seen.count ? trap_seen.cause : 0),
          trap_seen.count ? (tval_ok ? "ok" : "bad") : "-",
          (unsigned long)result);
    trap_seen.count = 0;
}

static void packed(uint32_t x, uint32_t y)
{
    unsigned e;

    set_m0(0xff);
    for (e = 0; e < 8; e++) {
        lanes[e] = x;
    }
    FLW_PS(f1, lanes);
    for (e = 0; e < 8; e++) {
        lanes[e] = y;
    }
    FLW_PS(f2, lanes);
    for (e = 0; e < 8; e++) {
        lanes[e] = 0x5e5e5e5e;
    }
    FLW_PS(f4, lanes);
}

static uint32_t f2u(float f)
{
    union { float f; uint32_t u; } v = { .f = f };

    return v.u;
}

static uint32_t lane0(void)
{
    FSW_PS(f4, lanes);
    return lanes[0];
}

int main(uint64_t hartid, const void *fdt)
{
    float r;
    int64_t l;

    if (hartid != 0) {
        return 0;
    }
    r = -1.0f;
    __asm__ volatile("fdiv.s %0, %1, %2" : "+f"(r) : "f"(6.0f), "f"(3.0f));
    report("fdiv.s", f2u(r));
    r = -1.0f;
    __asm__ volatile("fsqrt.s %0, %1" : "+f"(r) : "f"(4.0f));
    report("fsqrt.s", f2u(r));
    l = -1;
    __asm__ volatile("fcvt.l.s %0, %1, rtz" : "+r"(l) : "f"(2.5f));
    report("fcvt.l.s", l);
    r = -1.0f;
    __asm__ volatile("fcvt.s.l %0, %1" : "+f"(r) : "r"(3L));
    report("fcvt.s.l", f2u(r));
    __asm__ volatile("fence.i");
    report("fence.i", 0);
    __asm__ volatile("sfence.vma");
    report("sfence.vma", 0);
    packed(0x40c00000, 0x40400000);             /* 6.0 / 3.0 */
    __asm__ volatile("fdiv.ps f4, f1, f2");
    report("fdiv.ps", lane0());
    packed(0x41800000, 0);                      /* sqrt(16.0) */
    __asm__ volatile("fsqrt.ps f4, f1, dyn");
    report("fsqrt.ps", lane0());
    packed(7, 2);
    __asm__ volatile("fdiv.pi f4, f1, f2");
    report("fdiv.pi", lane0());
    packed(7, 2);
    __asm__ volatile("fremu.pi f4, f1, f2");
    report("fremu.pi", lane0());
    packed(0x40800000, 0);
    __asm__ volatile("fsin.ps f4, f1");                   /* fsin.ps: rs2 6 */
    report("fsin.ps", lane0());
    packed(0x40800000, 0);
    __asm__ volatile("frsq.ps f4, f1");                   /* frsq.ps: rs2 8 */
    report("frsq.ps", lane0());
    packed(0x40800000, 0);
    csr_clear(mstatus, 3 << 13);                /* FS = Off */
    __asm__ volatile("fsin.ps f4, f1");
    csr_set(mstatus, 1 << 13);
    report("fsin.ps/FS=Off", lane0());
    packed(7, 2);
    __asm__ volatile("fadd.pi f4, f1, f2");                   /* fadd.pi: never traps */
    report("fadd.pi", lane0());
    print("mcode: done\n");
    return 0;
}
