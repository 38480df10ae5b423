/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The DRAM protection of a neighbourhood's mprot ESR (isa.md section 2,
 * docs/robustness.md): for each mprot value below, hart 0 reads, writes
 * and fetches at one address of every DRAM region from M-, S- and U-mode
 * and compares what faults with the card's rules, written out here as
 * the spec states them.  Needs -m 9G (a region above 8 GiB).  Every
 * change of mprot must reach the hart's TLB: each value follows another
 * that gave other rights on the same pages.  Prints TAP.
 */
#include "etsoc1.h"
#include "tap.h"

#define MPROT_ESR       ESR_NEIGH(PP_M, LOCAL_SHIRE, 0, MPROT)
#define ECALL           0x00000073u

/* The regions: one address to read and write, and at +0x40 an ecall */
static const struct {
    const char *name;
    uint64_t addr;
} regions[] = {
    { "M-code", DRAM_BASE + 0x1f0000 },
    { "M-data", DRAM_BASE + 0x700000 },
    { "S-code", DRAM_BASE + 0xf00000 },
    { "S-data", DRAM_BASE + 0x3000000 },
    { "OS box", DRAM_BASE + 0x8000000 },
    { "DRAM above 4 GiB", DRAM_BASE + 0x100010000ULL },
    { "DRAM above 8 GiB", DRAM_BASE + 0x200001000ULL },
};
#define NREGIONS (sizeof(regions) / sizeof(regions[0]))

/*
 * What M, S and U may do (read, write, fetch) in each region, per mprot
 * value: "rwx" per privilege, M first.
 */
static const struct {
    uint64_t mprot;
    const char *what;
    const char *want[NREGIONS];
} cases[] = {
    { 0x13, "reset value (16 GiB, not secure)",
      { "rwx/---/---", "rwx/---/---", "rwx/rwx/rwx", "rwx/rwx/rwx",
        "rwx/rwx/rwx", "rwx/rwx/rwx", "rwx/rwx/rwx" } },
    { 0x53, "secure memory",
      { "r-x/---/---", "rw-/---/---", "rw-/r-x/---", "rw-/rw-/---",
        "rw-/rw-/rwx", "rw-/rw-/rwx", "rw-/rw-/rwx" } },
    { 0x5b, "secure memory, OS box off",
      { "r-x/---/---", "rw-/---/---", "rw-/r-x/---", "rw-/rw-/---",
        "---/---/---", "rw-/rw-/rwx", "rw-/rw-/rwx" } },
    { 0x43, "secure memory, 8 GiB of DRAM",
      { "r-x/---/---", "rw-/---/---", "rw-/r-x/---", "rw-/rw-/---",
        "rw-/rw-/rwx", "rw-/rw-/rwx", "---/---/---" } },
    { 0x1b, "not secure, OS box off",
      { "rwx/---/---", "rwx/---/---", "---/---/---", "---/---/---",
        "---/---/---", "rwx/rwx/rwx", "rwx/rwx/rwx" } },
};

/*
 * The probes: an access at a0, then ecall.  M-mode runs them here (in
 * M-code); copies for S and U go where those may fetch.
 */
extern char probes[], probes_end[];
__asm__(".pushsection .text\n.balign 8\n"
        "probes:\n"
        ".option push\n.option norvc\n"
        "  ld t1, 0(a0)\n  ecall\n"         /* +0: read */
        "  sd zero, 0(a0)\n  ecall\n"       /* +8: write */
        "  jr a0\n  nop\n"                  /* +16: fetch: the ecall at a0 */
        ".option pop\n"
        "probes_end:\n.popsection\n");
#define PROBE_SIZE 8
/* S-code (secure) and DRAM above 4 GiB (open to all but M's fetch then) */
#define S_PROBES_SECURE (DRAM_BASE + 0xe00000)
#define UNIVERSAL_PROBES (DRAM_BASE + 0x100000000ULL)

static volatile uint64_t resume;        /* where a trap returns, in M */
static volatile uint64_t got_cause, got_tval;

void trap_handler(struct trap_frame *f)
{
    got_cause = f->mcause;
    got_tval = f->mtval;
    f->mepc = resume;
    csr_set(mstatus, 3ULL << 11);       /* back in M-mode */
}

/* Run probe @kind (0 read, 1 write, 2 fetch) at @base at @priv on @addr */
static int allowed(uint64_t base, unsigned kind, unsigned priv, uint64_t addr)
{
    register uint64_t a0 __asm__("a0") = addr;

    got_cause = got_tval = ~0ULL;
    csr_clear(mstatus, 3ULL << 11);
    csr_set(mstatus, (uint64_t)priv << 11);
    csr_write(mepc, base + kind * PROBE_SIZE);
    __asm__ volatile("la t0, 1f\n"
                     "sd t0, 0(%1)\n"
                     "mret\n"
                     "1:\n"
                     : "+r"(a0) : "r"(&resume) : "t0", "t1", "memory");
    if (got_cause == (priv == 3 ? 11 : 8 + priv)) {   /* ecall from here */
        return 1;
    }
    if (got_cause != (kind == 0 ? 5 : kind == 1 ? 7 : 1) || got_tval != addr) {
        print("# %s at 0x%lx in mode %u: cause %lu, tval 0x%lx\n",
              kind == 0 ? "read" : kind == 1 ? "write" : "fetch", addr, priv,
              got_cause, got_tval);
    }
    return 0;
}

static int same(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++, b++;
    }
    return *a == *b;
}

int main(uint64_t hartid, const void *fdt)
{
    static const unsigned privs[3] = { 3, 1, 0 };
    unsigned c, r, p, k;

    if (hartid != 0) {
        return 0;
    }
    /* at reset M may write everywhere: place the probes and the ecalls */
    for (k = 0; k < (unsigned)(probes_end - probes); k += 4) {
        uint32_t w = *(uint32_t *)(probes + k);

        *(volatile uint32_t *)(S_PROBES_SECURE + k) = w;
        *(volatile uint32_t *)(UNIVERSAL_PROBES + k) = w;
    }
    for (r = 0; r < NREGIONS; r++) {
        *(volatile uint32_t *)(regions[r].addr + 0x40) = ECALL;
    }
    __asm__ volatile("fence.i" ::: "memory");

    for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        int secure = cases[c].mprot & 0x40;

        esr_write(MPROT_ESR, cases[c].mprot);
        CHECK_EQ(esr_read(MPROT_ESR), cases[c].mprot, "mprot reads back");
        for (r = 0; r < NREGIONS; r++) {
            char got[12];

            for (p = 0; p < 3; p++) {
                uint64_t base = privs[p] == 3 ? (uint64_t)probes :
                                privs[p] == 1 && secure ? S_PROBES_SECURE :
                                UNIVERSAL_PROBES;

                for (k = 0; k < 3; k++) {
                    uint64_t a = regions[r].addr + (k == 2 ? 0x40 : 0);

                    got[4 * p + k] = allowed(base, k, privs[p], a) ?
                                     "rwx"[k] : '-';
                }
                got[4 * p + 3] = p < 2 ? '/' : '\0';
            }
            CHECK(same(got, cases[c].want[r]), "mprot 0x%lx (%s): %s: "
                  "M/S/U may %s (want %s)", cases[c].mprot, cases[c].what,
                  regions[r].name, got, cases[c].want[r]);
        }
    }
    esr_write(MPROT_ESR, 0x13);
    return tap_done();
}
