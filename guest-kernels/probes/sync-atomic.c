/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synchronization through global atomics and credits, written the way
 * kernels hand work between minions (docs/timing.md, "Polls and the read
 * gate").  On every shire of the machine (the device tree says how many),
 * minion 0 of each; the pairs of the table whose shires both exist:
 *
 *   probe pingpong a=A b=B hops=H home=S rounds=R cycles=C
 *        A (pinger) amoswapg F, 2i+1 then polls amoorg F, x0 until it reads
 *        2i+2; B polls until 2i+1 and answers amoswapg F, 2i+2.  F is a
 *        DRAM word whose home L3 slice is S.  C: A's cycles for R round
 *        trips, from its first swap to its last sight of the answer.
 *   probe handoff-poll a=A b=B hops=H home=S cycles=C
 *        after the ping-pong, A sets its clock far ahead (T), writes G once;
 *        B polls G from far behind.  C: B's clock when it saw G, less T.
 *   probe atomic-barrier shires=N rounds=R cycles=C
 *        a chip barrier: each arrival amoaddg's one counter; the last of
 *        a round writes the release flag, the others poll it.  C: hart
 *        0's cycles for R barriers (after one untimed).
 *   probe credit-barrier shires=N rounds=R cycles=C
 *        a chip barrier of credits (chip_barrier_of): each shire's FLB
 *        credits hart 0, which credits every shire back.  C as above.
 *
 * Every figure must be the same on every run and under both TCG modes.
 */
#include "etsoc1.h"
#include "et-atomic.h"
#include "pingpong.h"
#include "probe.h"

#define ROUNDS  200
#define BARRIERS 20
#define T       1000000ULL

/* the figures, printed by hart 0 at the end (the UART's wait would count) */
static volatile uint64_t pp_cycles[PP_PAIRS], ho_cycles[PP_PAIRS];

static void pinger(unsigned p)
{
    unsigned home = pp_home(p);
    volatile uint64_t *f = pp_word(home, 0), *g = pp_word(home, 1);
    uint64_t t0, t1, i;

    /*
     * Both lines in their slice first: which of two harts that touch a
     * line first takes its miss is the host's order (docs/timing.md).
     */
    et_amoorg_d(f, 0);
    et_amoorg_d(g, 0);
    t0 = cycles();
    for (i = 0; i < ROUNDS; i++) {
        et_amoswapg_d(f, 2 * i + 1);
        while (et_amoorg_d(f, 0) != 2 * i + 2) {
        }
    }
    t1 = cycles();
    pp_cycles[p] = t1 - t0;
    csr_write(mcycle, cycles() + T);
    et_amoswapg_d(g, 1);
}

static void ponger(unsigned p)
{
    unsigned home = pp_home(p);
    volatile uint64_t *f = pp_word(home, 0), *g = pp_word(home, 1);
    uint64_t i, t;

    for (i = 0; i < ROUNDS; i++) {
        while (et_amoorg_d(f, 0) != 2 * i + 1) {
        }
        et_amoswapg_d(f, 2 * i + 2);
    }
    t = cycles();
    while (et_amoorg_d(g, 0) == 0) {
    }
    /* the pinger's clock was about ours when it jumped by T */
    ho_cycles[p] = cycles() - t > T ? cycles() - t - T : 0;
}

static volatile uint64_t *const counter = (volatile uint64_t *)
    (DRAM_BASE + (81ULL << 20) + 3 * 64);
static volatile uint64_t *const release = (volatile uint64_t *)
    (DRAM_BASE + (81ULL << 20) + 0x10000 + 20 * 64);

static void barrier(unsigned shires, uint64_t r)
{
    if (et_amoaddg_d(counter, 1) == shires * (r + 1) - 1) {
        et_amoswapg_d(release, r + 1);
    } else {
        while (et_amoorg_d(release, 0) != r + 1) {
        }
    }
}

int main(uint64_t hartid, const void *fdt)
{
    unsigned shire = hartid / HARTS_PER_SHIRE, p;
    unsigned shires = fdt_root_u32(fdt, "esperanto,shires", 1);
    uint64_t t0, bar, cred, r;

    if (hartid % HARTS_PER_SHIRE) {
        return 0;
    }
    for (p = 0; p < PP_PAIRS; p++) {
        if (pp_pairs[p].a >= shires || pp_pairs[p].b >= shires) {
            continue;
        }
        if (shire == pp_pairs[p].a) {
            pinger(p);
        } else if (shire == pp_pairs[p].b) {
            ponger(p);
        }
    }
    barrier(shires, 0);
    t0 = cycles();
    for (r = 1; r <= BARRIERS; r++) {
        barrier(shires, r);
    }
    bar = cycles() - t0;
    chip_barrier_of(hartid == 0, shires, 1, 1);
    t0 = cycles();
    for (r = 1; r <= BARRIERS; r++) {
        chip_barrier_of(hartid == 0, shires, 1, 1);
    }
    cred = cycles() - t0;
    if (hartid == 0) {
        for (p = 0; p < PP_PAIRS; p++) {
            unsigned home = pp_home(p);

            if (pp_pairs[p].a >= shires || pp_pairs[p].b >= shires) {
                continue;
            }

            print("probe pingpong a=%u b=%u hops=%u home=%u rounds=%u "
                  "cycles=%lu\n", pp_pairs[p].a, pp_pairs[p].b,
                  probe_hops(pp_pairs[p].a, pp_pairs[p].b), home, ROUNDS,
                  pp_cycles[p]);
            print("probe handoff-poll a=%u b=%u hops=%u home=%u cycles=%lu\n",
                  pp_pairs[p].a, pp_pairs[p].b,
                  probe_hops(pp_pairs[p].a, pp_pairs[p].b), home,
                  ho_cycles[p]);
        }
        print("probe atomic-barrier shires=%u rounds=%u cycles=%lu\n", shires,
              BARRIERS, bar);
        print("probe credit-barrier shires=%u rounds=%u cycles=%lu\n", shires,
              BARRIERS, cred);
    }
    return 0;
}
