/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: record and replay of a host session (etsoc1-rr.c,
 * docs/record-replay.md; design: docs/research/record-replay-design.md).
 *
 * QEMU interface of "etsoc1-rr" (created by the machine for
 * -M etsoc1,record=FILE or replay=FILE, its child "rr"; not
 * user-creatable):
 *  + record: the host link reports what the card receives and shows
 *    (etsoc1_rr_note_*); the file is completed at STOP or at exit
 *  + replay: implements interface etsoc1-host-mem, serving each eDMA
 *    channel's recorded HOSTMEM byte stream (data read from the file,
 *    data written checked against the record's crc, failures
 *    reproduced); the endpoint's MSI handler and an iATU notifier (the
 *    READY check); the record's inputs go through the host-input queue
 *    at their T, each once the card has produced the MSIs and host
 *    accesses the record had before it
 *  + a migration blocker while it exists
 *
 * Exit status: 1 for a file refused at start, ETSOC1_RR_DIVERGED for a
 * replay that diverged.
 */

#ifndef HW_ETSOC1_RR_H
#define HW_ETSOC1_RR_H

#include "qom/object.h"

typedef struct Etsoc1MachineState Etsoc1MachineState;
typedef struct Etsoc1PcieState Etsoc1PcieState;
typedef struct Etsoc1HostMemCtx Etsoc1HostMemCtx;

#define TYPE_ETSOC1_RR "etsoc1-rr"
OBJECT_DECLARE_SIMPLE_TYPE(Etsoc1Rr, ETSOC1_RR)

#define ETSOC1_RR_DIVERGED      5       /* QEMU's exit status */

/* Event kinds of the record file (docs/record-replay.md, "The file") */
typedef enum Etsoc1RrKind {
    ETSOC1_RR_CONNECT = 1,      /* input: a host said HELLO */
    ETSOC1_RR_DISCONNECT,       /* input: its connection closed */
    ETSOC1_RR_MMIO_WRITE,       /* input: a host MMIO write, applied at T */
    ETSOC1_RR_STOP,             /* input: the host's STOP, at T */
    ETSOC1_RR_MSI,              /* check: MSI vectors from a hart at T */
    ETSOC1_RR_READY,            /* check: the card's READY (bar0, bar2) */
    ETSOC1_RR_HOSTMEM,          /* stream per eDMA channel: host data */
    ETSOC1_RR_END,              /* trailer: per-hart table, RAM digest */
    ETSOC1_RR_DMA_END,          /* stream per eDMA channel: DONE/ABORT at T */
    ETSOC1_RR_HANG,             /* check: the hang report at rest, at T */
    ETSOC1_RR_PAUSE,            /* input: the host's PAUSE, at T */
    ETSOC1_RR_KINDS
} Etsoc1RrKind;

/*
 * How the input queue (its trace points, trace-json's host track) names
 * the host's inputs: the live link's and their replay's are the same.
 */
#define ETSOC1_INPUT_MMIO_WRITE "mmio-write"
#define ETSOC1_INPUT_STOP       "stop"
#define ETSOC1_INPUT_PAUSE      "pause"

/* Input flags (MMIO_WRITE, STOP, PAUSE) */
#define ETSOC1_RR_F_PAUSED      0x01    /* applied while the VM was stopped */
#define ETSOC1_RR_F_SP_IDLE     0x02    /* ... while the SP was halted */
#define ETSOC1_RR_F_AT_PAUSE    0x04    /* ... by a PAUSE, at its T: exact */

/*
 * Record: what the host link saw, with the BQL held.  @rr may be NULL
 * (no record=): each does nothing then.
 */
void etsoc1_rr_note_connect(Etsoc1Rr *rr, uint32_t options);
void etsoc1_rr_note_disconnect(Etsoc1Rr *rr);
void etsoc1_rr_note_mmio_write(Etsoc1Rr *rr, uint64_t t, uint64_t addr,
                               const void *data, uint32_t len,
                               uint16_t status);
void etsoc1_rr_note_msi(Etsoc1Rr *rr, uint32_t vectors);
void etsoc1_rr_note_ready(Etsoc1Rr *rr, uint64_t bar0, uint64_t bar2);
void etsoc1_rr_note_pause(Etsoc1Rr *rr, uint64_t t);
/*
 * An eDMA access to host memory is over: @len bytes at host @addr asked
 * by the channel of @ctx, of which @done moved (@ok: all of them; else
 * the access failed after @done bytes).  @data holds the @done bytes
 * read from the host, or written to it.
 */
void etsoc1_rr_note_hostmem(Etsoc1Rr *rr, const Etsoc1HostMemCtx *ctx,
                            bool write, uint64_t addr, uint64_t len,
                            const void *data, uint64_t done, bool ok);
void etsoc1_rr_note_stop(Etsoc1Rr *rr, uint64_t t);
void etsoc1_rr_note_hang(Etsoc1Rr *rr, uint64_t t, const char *report);
/* An eDMA channel raised DONE (or ABORT, @abort) at @ctx->at */
void etsoc1_rr_note_dma_end(Etsoc1Rr *rr, const Etsoc1HostMemCtx *ctx,
                            bool abort);
/* Complete the file now (a card that powers off with _exit) */
void etsoc1_rr_close(Etsoc1Rr *rr);

/*
 * The machine's side (etsoc1.c): create checks the command line and the
 * file, before any CPU is built, and exits with status 1 on a refusal
 * (NULL: neither record= nor replay=); attach wires it to the endpoint
 * once that is realized; start, once every device is realized and the
 * sync unit's queue exists, writes a record's header (the devices'
 * properties are keys) or checks a replay's device keys and queues its
 * inputs.
 */
Etsoc1Rr *etsoc1_rr_create(Etsoc1MachineState *m, MachineState *ms,
                           bool qtest);
void etsoc1_rr_attach(Etsoc1Rr *rr, Etsoc1PcieState *pcie);
void etsoc1_rr_start(Etsoc1Rr *rr);

#endif
