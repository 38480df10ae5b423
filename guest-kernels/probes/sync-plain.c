/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Polls through reads the gate does not order (docs/timing.md, "Plain
 * polls"), for a machine of 8 shires; all at once, each on its own harts:
 *
 *   probe scp-pingpong a=A b=B flag=C rounds=R cycles=X
 *        hart 0 of shire A (pinger) stores F = 2i+1 with sd, then polls
 *        F with ld until it reads 2i+2; hart 0 of shire B polls until
 *        2i+1 and answers 2i+2.  F is a word of shire C's scratchpad,
 *        reached by both through C's window.  X: A's cycles for R round
 *        trips.
 *   probe esr-pingpong a=A b=B esr=C rounds=R cycles=X
 *        the same on hart 2 of A and B through shire C's broadcast_data
 *        ESR (a plain register that nothing else uses here).
 *   probe flwg-pingpong a=A b=B rounds=R cycles=X
 *        the same on hart 6 of A and B through a DRAM block: each polls
 *        it with flwg.ps (all eight lanes) and answers in its first word
 *        with amoswapg.d.
 *   probe local-pingpong shire=S rounds=R cycles=X
 *        the same on harts 8 and 10 of shire S through a DRAM block,
 *        shire-local: the pinger answers with amoswapl.d and polls with
 *        flwl.ps (the coherent local load), the ponger polls with
 *        amoorl.d (a local atomic that changes nothing).
 *   probe esr-handoff write=T seen=S, probe local-handoff write=T seen=S
 *        a writer far ahead in time: hart 12 of shire 4 works WORK
 *        cycles, then writes a word at its cycle T; hart 12 of shire 5
 *        polls it from the start and sees it at its cycle S, which must
 *        not be before T: through an ESR (shire 3's broadcast_data,
 *        stored and polled as an ESR), then through a DRAM word
 *        (amoswapl.d, polled with amoorl.d).
 *   probe scp-local-handoff owner=A poller=B work=W seen=S
 *        hart 4 of shire A works W cycles, then writes a word of its own
 *        scratchpad as local memory, which hart 4 of shire B polls
 *        through A's window; S = 1 if B saw the value.
 *   probe idle-poll shire=S harts=N reads=R done=D
 *        harts 16.. of shire S each read fast local barrier 9's ESR
 *        (0: nothing uses it) R times, so that they halt on polls that
 *        nothing writes and are let go together, while hart 16 of shire
 *        7 runs ahead of them through the gate (a global atomic in a
 *        loop) until they are done; D of the N finished.
 *
 * The ping-pongs' figures must be the same on every run and under both
 * TCG modes: every write goes through the fabric.  The local hand-off's
 * time is not (the fabric does not see a local write): it must end.
 */
#include "etsoc1.h"
#include "et-atomic.h"
#include "et-vpu.h"
#include "probe.h"

#define SHIRES  8
#define ROUNDS  100
#define WORK    200000
#define SCP(s)  (SCP_BASE + (uint64_t)(s) * SCP_WINDOW)
#define BCAST_DATA 0x1fff0

static const struct {
    unsigned a, b, c;
} pairs[] = { { 0, 1, 2 }, { 3, 7, 5 }, { 4, 6, 0 } };
#define NPAIRS (sizeof(pairs) / sizeof(pairs[0]))
static const unsigned esr_pair[3] = { 2, 5, 6 };
static const unsigned local_pair[2] = { 3, 1 };
static const unsigned flwg_pair[2] = { 2, 7 };
static volatile uint64_t flwg_block[4] __attribute__((aligned(64)));
#define POLL_SHIRE 1
#define IDLE_SHIRE 6
#define IDLE_HART0 16
#define IDLE_HARTS 8
#define IDLE_READS 3
#define IDLE_RUNNER 7
static volatile uint64_t local_block[4] __attribute__((aligned(64)));

/* the figures, printed by hart 0 of shire 0 at the end */
static volatile uint64_t scp_cycles[NPAIRS], esr_cycles, flwg_cycles;
static volatile uint64_t local_cycles;
static volatile uint64_t handoff_word __attribute__((aligned(64)));
static volatile uint64_t handoff_at[2][2];  /* [esr, local][written, seen] */
static volatile uint64_t local_seen;
static volatile uint64_t done_count, idle_done;

static volatile uint64_t *scp_word(unsigned shire, unsigned off)
{
    return (volatile uint64_t *)(SCP(shire) + 0x20000 + off);
}

static void pingpong(volatile uint64_t *f, int pinger, volatile uint64_t *out)
{
    uint64_t i, t0 = cycles();

    for (i = 0; i < ROUNDS; i++) {
        if (pinger) {
            *f = 2 * i + 1;
            while (*f != 2 * i + 2) {
            }
        } else {
            while (*f != 2 * i + 1) {
            }
            *f = 2 * i + 2;
        }
    }
    if (out) {
        *out = cycles() - t0;
    }
}

static void esr_pingpong(uint64_t esr, int pinger)
{
    uint64_t i, t0 = cycles();

    for (i = 0; i < ROUNDS; i++) {
        if (pinger) {
            esr_write(esr, 2 * i + 1);
            while (esr_read(esr) != 2 * i + 2) {
            }
        } else {
            while (esr_read(esr) != 2 * i + 1) {
            }
            esr_write(esr, 2 * i + 2);
        }
    }
    if (pinger) {
        esr_cycles = cycles() - t0;
    }
}

/*
 * The first word of @block, as flwg.ps or flwl.ps (@local) sees it
 * (m0 = all lanes)
 */
static uint64_t coherent_first(volatile uint64_t *block, int local)
{
    uint32_t w[8];

    if (local) {
        __asm__ volatile("flwl.ps f1, (%0)\n\tfsw.ps f1, 0(%1)"
                         :: "r"(block), "r"(w) : "memory");
    } else {
        __asm__ volatile("flwg.ps f1, (%0)\n\tfsw.ps f1, 0(%1)"
                         :: "r"(block), "r"(w) : "memory");
    }
    return w[0];
}

/* Write @v to the first word of @block with amoswapg.d or amoswapl.d */
static void coherent_answer(volatile uint64_t *block, int local, uint64_t v)
{
    if (local) {
        et_amoswapl_d(&block[0], v);
    } else {
        et_amoswapg_d(&block[0], v);
    }
}

/*
 * probe flwg-pingpong (@local 0) and local-pingpong (@local 1): both
 * sides answer with coherent_answer; the pinger polls with flwg.ps or
 * flwl.ps, the ponger with flwg.ps or amoorl.d.
 */
static void coherent_pingpong(volatile uint64_t *block, int local,
                              int pinger, volatile uint64_t *out)
{
    uint64_t i, t0 = cycles();

    set_m0(0xff);
    for (i = 0; i < ROUNDS; i++) {
        if (pinger) {
            coherent_answer(block, local, 2 * i + 1);
            while (coherent_first(block, local) != 2 * i + 2) {
            }
        } else {
            while ((local ? et_amoorl_d(&block[0], 0)
                          : coherent_first(block, 0)) != 2 * i + 1) {
            }
            coherent_answer(block, local, 2 * i + 2);
        }
    }
    if (out) {
        *out = cycles() - t0;
    }
}

/* probe esr-handoff (@via 0) and local-handoff (@via 1) */
static void handoff(int writer, int via)
{
    uint64_t esr = ESR_OTHER(PP_U, 3, BCAST_DATA), t0;

    /*
     * the line of handoff_at in the L1 first: the store of the write's
     * time would otherwise wait for its line (docs/timing.md, "The
     * cache model") between that time and the write
     */
    handoff_at[via][writer ? 0 : 1] = 0;
    t0 = cycles();
    if (writer) {
        while (cycles() - t0 < WORK) {
        }
        handoff_at[via][0] = cycles();
        if (via) {
            et_amoswapl_d(&handoff_word, 0x5eed);
        } else {
            esr_write(esr, 0x5eed);
        }
    } else {
        while ((via ? et_amoorl_d(&handoff_word, 0) : esr_read(esr)) !=
               0x5eed) {
        }
        handoff_at[via][1] = cycles();
    }
}

static void finished(void)
{
    et_amoaddg_d(&done_count, 1);
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned shire = hartid / HARTS_PER_SHIRE, h = hartid % HARTS_PER_SHIRE;
    unsigned p, jobs = 2 * NPAIRS + 2 + 2 + 2 + 2 + 2 + IDLE_HARTS + 1;

    (void)fdt;
    if (h == 0) {
        for (p = 0; p < NPAIRS; p++) {
            if (shire == pairs[p].a || shire == pairs[p].b) {
                pingpong(scp_word(pairs[p].c, 64 * p), shire == pairs[p].a,
                         shire == pairs[p].a ? &scp_cycles[p] : 0);
                finished();
            }
        }
    } else if (h == 2 && (shire == esr_pair[0] || shire == esr_pair[1])) {
        esr_pingpong(ESR_OTHER(PP_U, esr_pair[2], BCAST_DATA),
                     shire == esr_pair[0]);
        finished();
    } else if (h == 6 && (shire == flwg_pair[0] || shire == flwg_pair[1])) {
        coherent_pingpong(flwg_block, 0, shire == flwg_pair[0],
                          shire == flwg_pair[0] ? &flwg_cycles : 0);
        finished();
    } else if ((h == 8 || h == 10) && shire == POLL_SHIRE) {
        coherent_pingpong(local_block, 1, h == 8, h == 8 ? &local_cycles : 0);
        finished();
    } else if (h == 12 && (shire == 4 || shire == 5)) {
        handoff(shire == 4, 0);
        handoff(shire == 4, 1);
        finished();
    } else if (h == 4 && shire == local_pair[0]) {
        volatile uint64_t *own = (volatile uint64_t *)
            (SCP_LOCAL + 0x28000);
        uint64_t t0 = cycles();

        while (cycles() - t0 < WORK) {
        }
        *own = 0x5eed;
        finished();
    } else if (shire == IDLE_SHIRE && h >= IDLE_HART0 &&
               h < IDLE_HART0 + IDLE_HARTS) {
        uint64_t v = 0;

        for (p = 0; p < IDLE_READS; p++) {
            v |= esr_read(ESR_OTHER(PP_U, IDLE_SHIRE, FLB(9)));
        }
        if (!v) {
            et_amoaddg_d(&idle_done, 1);
        }
        finished();
    } else if (shire == IDLE_RUNNER && h == IDLE_HART0) {
        static uint64_t runner_count;

        /* a plain load of idle_done: no poll, the loop keeps running */
        while (*(volatile uint64_t *)&idle_done != IDLE_HARTS) {
            et_amoaddg_d(&runner_count, 1);
        }
        finished();
    } else if (h == 4 && shire == local_pair[1]) {
        while (*scp_word(local_pair[0], 0x8000) != 0x5eed) {
        }
        local_seen = 1;
        finished();
    }
    if (hartid != 0) {
        return 0;
    }
    while (et_amoorg_d(&done_count, 0) != jobs) {
    }
    for (p = 0; p < NPAIRS; p++) {
        print("probe scp-pingpong a=%u b=%u flag=%u rounds=%u cycles=%lu\n",
              pairs[p].a, pairs[p].b, pairs[p].c, ROUNDS, scp_cycles[p]);
    }
    print("probe esr-pingpong a=%u b=%u esr=%u rounds=%u cycles=%lu\n",
          esr_pair[0], esr_pair[1], esr_pair[2], ROUNDS, esr_cycles);
    print("probe flwg-pingpong a=%u b=%u rounds=%u cycles=%lu\n",
          flwg_pair[0], flwg_pair[1], ROUNDS, flwg_cycles);
    print("probe local-pingpong shire=%u rounds=%u cycles=%lu\n",
          POLL_SHIRE, ROUNDS, local_cycles);
    for (p = 0; p < 2; p++) {
        print("probe %s-handoff write=%lu seen=%lu\n",
              p ? "local" : "esr", handoff_at[p][0], handoff_at[p][1]);
    }
    print("probe scp-local-handoff owner=%u poller=%u work=%u seen=%lu\n",
          local_pair[0], local_pair[1], WORK, local_seen);
    print("probe idle-poll shire=%u harts=%u reads=%u done=%lu\n",
          IDLE_SHIRE, IDLE_HARTS, IDLE_READS, idle_done);
    return 0;
}
