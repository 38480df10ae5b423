/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cooperative tensor loads and stores (isa.md section 10).  Minions 0-3 of
 * shire 0 form a coop group (tensor_coop: neighbourhood 0, minions 0-3,
 * group 5).  Minions 0-2 issue first; minion 3 checks that none of them
 * got past its wait, then rewrites the source and issues last, so every
 * minion must have loaded the rewritten data: a coop load runs when the
 * whole group has issued.  Minion 1 follows its load with a TensorStore,
 * which must wait for the load too (the tensor queue is in order).  Hart 0
 * also checks the traps and error bits and prints TAP.
 *
 * Then two groups with the same id in different neighbourhoods (minions
 * 8-9 and 16-17, group 9) issue interleaved, 8, 16, 9, 17, chained by
 * credits: as in Esperanto's simulator, which keeps a group table per
 * neighbourhood, they are two groups, and both complete (Esperanto's
 * coop_tl_tfma kernels draw such groups; a table per shire took 16 for
 * a conflict, ran it alone and left 17 waiting for ever).
 *
 * Last, a group abandoned half-issued, as a kernel aborted in it leaves
 * one: minion 24 issues a load of group 11 (minions 24-25) that minion 25
 * does not join, and turns its scratchpad off and on, which drops the
 * held load.  A plain TensorLoad of the same FSM must then run (the
 * dropped one held it for ever), and when the group is issued again,
 * 25 first, 25 must wait for 24's new load (the dropped arrival used to
 * complete the group at once, and 24's new one then waited for ever).
 */
#include "etsoc1.h"
#include "tap.h"

#define MEMBERS 4
#define ROWS 2
#define TCOOP (1u << 16 | 0x0fu << 8 | 5u)

static uint32_t src[ROWS][16] __attribute__((aligned(64)));
static uint32_t out[MEMBERS][ROWS][16] __attribute__((aligned(64)));
static uint32_t solo[ROWS][16] __attribute__((aligned(64)));

/* the two same-id groups, in issue order: minion, tensor_coop */
static const struct {
    unsigned minion;
    uint32_t tcoop;
} pairs[] = {
    { 8, 1u << 17 | 0x03u << 8 | 9u },      /* neighbourhood 1, minions 0-1 */
    { 16, 1u << 18 | 0x03u << 8 | 9u },     /* neighbourhood 2, minions 0-1 */
    { 9, 1u << 17 | 0x03u << 8 | 9u },
    { 17, 1u << 18 | 0x03u << 8 | 9u },
};
#define NPAIRS (sizeof(pairs) / sizeof(pairs[0]))
static uint32_t out2[NPAIRS][ROWS][16] __attribute__((aligned(64)));
static volatile uint32_t issued[MEMBERS], done[MEMBERS];
static volatile uint32_t early;

/* the abandoned group: minions 24-25, neighbourhood 3, group 11 */
#define ABANDON_TCOOP (1u << 19 | 0x03u << 8 | 11u)
static uint32_t src3[ROWS][16] __attribute__((aligned(64)));
static uint32_t out3[3][ROWS][16] __attribute__((aligned(64)));
static volatile uint32_t issued3, done3, early3;

/* TensorLoad of @rows lines at @p into L1 SCP line 0, cooperative if @coop */
static uint64_t tload(int coop, const void *p, unsigned rows)
{
    return (uint64_t)coop << 62 | ((uint64_t)p & 0xffffffffffc0ULL) |
           (rows - 1);
}

/* SCP-form TensorStore of @rows lines from SCP line 0 to @p */
static uint64_t tstore_scp(const void *p, unsigned rows)
{
    return 1ULL << 48 | (uint64_t)(rows - 1) << 51 |
           ((uint64_t)p & 0xffffffffffc0ULL);
}

/* register-form TensorStore: @coop minions, @cols 16-byte blocks, 1 row */
static uint64_t tstore_regs(const void *p, unsigned coop, unsigned cols)
{
    return (uint64_t)(cols - 1) << 55 | (uint64_t)(coop - 1) << 49 |
           ((uint64_t)p & 0xfffffffffff0ULL);
}

static void member(unsigned m)
{
    unsigned i, j;

    csr_write(0x7e0, 1);
    csr_write(0x7e0, 3);                    /* L1 scratchpad on */
    csr_write(0x804, TCOOP);
    if (m == MEMBERS - 1) {
        for (i = 0; i < MEMBERS - 1; i++) {
            while (!issued[i]) {
            }
        }
        for (i = 0; i < 200000; i++) {      /* time to run ahead, if wrong */
            __asm__ volatile("");
        }
        for (i = 0; i < MEMBERS - 1; i++) {
            early += done[i];
        }
        for (i = 0; i < ROWS; i++) {
            for (j = 0; j < 16; j++) {
                src[i][j] = 0xc0de0000 + i * 16 + j;
            }
        }
    }
    issued[m] = 1;
    csr_write_x31(0x83f, tload(1, src, ROWS), 64);
    if (m != 1) {
        csr_write(0x830, 0);                /* tensor_wait: load id 0 */
    }
    csr_write_x31(0x87f, tstore_scp(out[m], ROWS), 64);
    done[m] = 1;
    fcc_send(0, 0, 1, 1u << 0);             /* tell minion 0 */
}

/* Issue pair member @k's coop load after the one before it, then store. */
static void pair_member(unsigned k)
{
    csr_write(0x7e0, 1);
    csr_write(0x7e0, 3);
    csr_write(0x804, pairs[k].tcoop);
    if (k) {
        fcc_wait(0);                        /* the one before has issued */
    }
    csr_write_x31(0x83f, tload(1, src, ROWS), 64);
    if (k + 1 < NPAIRS) {
        fcc_send(0, 0, 0, 1u << pairs[k + 1].minion);
    }
    csr_write(0x830, 0);                    /* held until its partner issues */
    csr_write_x31(0x87f, tstore_scp(out2[k], ROWS), 64);
    fcc_send(0, 0, 1, 1u << 0);             /* tell minion 0 */
}

/* Minion 24: issue, drop, load alone; then issue again after 25 has. */
static void abandon_24(void)
{
    unsigned i, j;

    csr_write(0x7e0, 1);
    csr_write(0x7e0, 3);
    csr_write(0x804, ABANDON_TCOOP);
    csr_write_x31(0x83f, tload(1, src, ROWS), 64);  /* 25 never joins */
    csr_write(0x7e0, 1);                    /* scratchpad off: dropped */
    csr_write(0x7e0, 3);
    csr_write_x31(0x83f, tload(0, src, ROWS), 64);  /* same FSM, alone */
    csr_write(0x830, 0);
    csr_write_x31(0x87f, tstore_scp(out3[0], ROWS), 64);

    fcc_send(0, 0, 0, 1u << 25);            /* 25: issue the group */
    while (!issued3) {
    }
    for (i = 0; i < 200000; i++) {          /* time to run ahead, if wrong */
        __asm__ volatile("");
    }
    early3 = done3;
    for (i = 0; i < ROWS; i++) {
        for (j = 0; j < 16; j++) {
            src3[i][j] = 0x5ca70000 + i * 16 + j;
        }
    }
    csr_write_x31(0x83f, tload(1, src3, ROWS), 64);
    csr_write(0x830, 0);
    csr_write_x31(0x87f, tstore_scp(out3[1], ROWS), 64);
    fcc_send(0, 0, 1, 1u << 0);             /* tell minion 0 */
}

static void abandon_25(void)
{
    csr_write(0x7e0, 1);
    csr_write(0x7e0, 3);
    csr_write(0x804, ABANDON_TCOOP);
    fcc_wait(0);                            /* 24 has dropped its load */
    issued3 = 1;
    csr_write_x31(0x83f, tload(1, src3, ROWS), 64);
    csr_write(0x830, 0);
    done3 = 1;
    csr_write_x31(0x87f, tstore_scp(out3[2], ROWS), 64);
    fcc_send(0, 0, 1, 1u << 0);
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned i, j, m, k, bad;

    trap_recording = 1;     /* runtime trap_record() */
    if (hart_thread(hartid)) {
        return 0;
    }
    for (k = 0; k < NPAIRS; k++) {
        if (hart_minion(hartid) == pairs[k].minion) {
            fcc_wait(0);                    /* phase 1 is over */
            pair_member(k);
            return 0;
        }
    }
    if (hart_minion(hartid) == 24 || hart_minion(hartid) == 25) {
        fcc_wait(0);                        /* phase 2 is over */
        hart_minion(hartid) == 24 ? abandon_24() : abandon_25();
        return 0;
    }
    if (hart_minion(hartid) >= MEMBERS) {
        return 0;
    }
    if (hartid != 0) {
        fcc_wait(0);                        /* coop mode is on */
        member(hart_minion(hartid));
        return 0;
    }

    for (i = 0; i < ROWS; i++) {
        for (j = 0; j < 16; j++) {
            src[i][j] = 0x01d00000 + i * 16 + j;
        }
    }
    csr_write(0x7e0, 1);
    csr_write(0x7e0, 3);
    csr_write(CSR_TENSOR_ERROR, 0);

    /* without shire_coop_mode: coop loads and stores are illegal */
    csr_write_x31(0x83f, tload(1, src, ROWS), 64);
    CHECK(trap_seen.count == 1 && trap_seen.cause == 2,
          "coop TensorLoad without shire_coop_mode: illegal instruction");
    trap_seen.count = 0;
    csr_write_x31(0x87f, tstore_regs(out, 2, 1), 0);
    CHECK(trap_seen.count == 1 && trap_seen.cause == 2,
          "coop TensorStore without shire_coop_mode: illegal instruction");
    trap_seen.count = 0;
    csr_write_x31(0x87f, tstore_regs(out, 2, 4), 0);
    CHECK(trap_seen.count == 0 && csr_read(CSR_TENSOR_ERROR) == 1 << 8,
          "coop TensorStore, 2 minions x 4 blocks: tensor_error[8], no trap");
    csr_write(CSR_TENSOR_ERROR, 0);
    csr_write_x31(0x87f, tstore_regs(out, 3, 1), 0);
    CHECK_EQ(csr_read(CSR_TENSOR_ERROR), 1 << 8,
             "coop TensorStore with 3 minions: tensor_error[8]");
    csr_write(CSR_TENSOR_ERROR, 0);
    CHECK_EQ(csr_read(0x804), 0, "tensor_coop reads as zero");

    esr_write(ESR_OTHER(PP_S, 0, SHIRE_COOP_MODE), 1);
    CHECK_EQ(esr_read(ESR_OTHER(PP_S, 0, SHIRE_COOP_MODE)), 1,
             "shire_coop_mode reads back");

    /* a legal coop register store with coop mode on stores its own data */
    csr_write_x31(0x87f, tstore_regs(out[0], 2, 2), 0);
    CHECK(trap_seen.count == 0 && csr_read(CSR_TENSOR_ERROR) == 0,
          "coop TensorStore, 2 minions x 2 blocks, coop mode on: accepted");

    /* a group that does not name the issuing minion: it loads alone */
    csr_write(0x804, 1u << 16 | 0x02u << 8 | 7u);
    csr_write_x31(0x83f, tload(1, src, ROWS), 64);
    csr_write(0x830, 0);
    csr_write_x31(0x87f, tstore_scp(solo, ROWS), 64);
    for (i = 0, bad = 0; i < ROWS; i++) {
        for (j = 0; j < 16; j++) {
            bad += solo[i][j] != src[i][j];
        }
    }
    CHECK(bad == 0, "tensor_coop without this minion: the load runs alone");

    fcc_send(0, 0, 0, ((1u << MEMBERS) - 1) & ~1u);
    member(0);
    for (m = 0; m < MEMBERS; m++) {
        fcc_wait(1);
    }
    CHECK_EQ(early, 0, "no member got past its coop load before the last "
             "issued");
    for (m = 0, bad = 0; m < MEMBERS; m++) {
        for (i = 0; i < ROWS; i++) {
            for (j = 0; j < 16; j++) {
                bad += out[m][i][j] != 0xc0de0000 + i * 16 + j;
            }
        }
    }
    CHECK(bad == 0, "every member loaded the data written just before the "
          "last one issued (%u words wrong)", bad);
    CHECK_EQ(csr_read(CSR_TENSOR_ERROR), 0, "no tensor errors on the way");

    for (k = 0, m = 0; k < NPAIRS; k++) {
        m |= 1u << pairs[k].minion;
    }
    fcc_send(0, 0, 0, m);
    for (k = 0; k < NPAIRS; k++) {
        fcc_wait(1);
    }
    CHECK(1, "two groups of id 9 in neighbourhoods 1 and 2, issued "
          "interleaved: all four members got past their loads");
    for (k = 0, bad = 0; k < NPAIRS; k++) {
        for (i = 0; i < ROWS; i++) {
            for (j = 0; j < 16; j++) {
                bad += out2[k][i][j] != 0xc0de0000 + i * 16 + j;
            }
        }
    }
    CHECK(bad == 0, "... and each loaded the data (%u words wrong)", bad);

    fcc_send(0, 0, 0, 1u << 24 | 1u << 25);
    fcc_wait(1);
    fcc_wait(1);
    for (i = 0, bad = 0; i < ROWS; i++) {
        for (j = 0; j < 16; j++) {
            bad += out3[0][i][j] != src[i][j];
        }
    }
    CHECK(bad == 0, "a coop load dropped by turning the scratchpad off: "
          "a plain TensorLoad of its FSM then runs (%u words wrong)", bad);
    CHECK_EQ(early3, 0, "the group issued again, 25 first: 25 waited for "
             "24's new load (the dropped arrival does not count)");
    for (m = 1, bad = 0; m < 3; m++) {
        for (i = 0; i < ROWS; i++) {
            for (j = 0; j < 16; j++) {
                bad += out3[m][i][j] != 0x5ca70000 + i * 16 + j;
            }
        }
    }
    CHECK(bad == 0, "... and both loaded the data written just before 24 "
          "issued (%u words wrong)", bad);
    return tap_done();
}
