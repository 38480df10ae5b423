/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the host link, a framed binary protocol on a chardev
 * (docs/host-link.md) between the card and a host-side proxy of
 * Esperanto's simulator library.
 *
 * QEMU interface of "etsoc1-hostlink" (created by the machine for
 * -M etsoc1,hostlink=<chardev id>; not user-creatable):
 *  + property "chardev": the socket (server=on,wait=off)
 *  + property "out-limit": bytes of frames queued for a host that does
 *    not read before the link stops reading requests and defers the
 *    eDMA's host accesses (back-pressure)
 *  + property "host-timeout-ms": host time a host may leave frames
 *    unread, or a HOSTMEM request unanswered, before it is dropped
 *  + properties "exit-on-close", "host-pid": QEMU exits when the link's
 *    connection closes, or when that host process is gone (a card the
 *    host library started: no orphans)
 *  + link "pcie": the endpoint whose BARs, MSIs and iATU it serves
 *  + link "recorder" (record=): told every input it applies, with its
 *    stamped time, and what the card showed (docs/record-replay.md)
 *  + implements interface etsoc1-host-mem (asynchronous): the eDMA's host
 *    side becomes HOSTMEM_READ/WRITE requests
 *  + a migration blocker while it exists
 */

#ifndef HW_ETSOC1_ETSOC1_HOSTLINK_H
#define HW_ETSOC1_ETSOC1_HOSTLINK_H

#include "chardev/char-fe.h"
#include "hw/qdev-core.h"
#include "qemu/notify.h"
#include "qemu/timer.h"
#include "hw/etsoc1/etsoc1-pcie.h"
#include "hw/etsoc1/etsoc1-hostlink-wire.h"
#include "hw/etsoc1/etsoc1-rr.h"

#define TYPE_ETSOC1_HOSTLINK "etsoc1-hostlink"
OBJECT_DECLARE_SIMPLE_TYPE(Etsoc1HostLinkState, ETSOC1_HOSTLINK)

/*
 * One eDMA host access.  It is deferred (not sent) while the output queue
 * is full, then sent in the order it was started; once sent it waits for
 * the host's reply, at most host-timeout-ms of host time.
 */
/* A host buffer the host shared (SHM_MAP): host [addr, addr + size). */
typedef struct Etsoc1HostLinkShm {
    uint64_t addr;
    uint64_t size;          /* 0: a free slot */
    uint8_t *ptr;           /* our mapping of its memfd */
} Etsoc1HostLinkShm;

typedef struct Etsoc1HostLinkReq {
    bool used;
    bool write;
    bool sent;
    uint32_t seq;           /* once sent */
    uint64_t order;         /* start order, for sending deferred ones */
    int64_t sent_ms;        /* QEMU_CLOCK_REALTIME */
    uint64_t addr;
    void *buf;
    uint64_t len;
    Etsoc1HostMemDone *done;
    void *opaque;
    uint64_t tag;
    Etsoc1HostMemCtx ctx;   /* the eDMA channel asking, for a record */
    uint8_t *rec;           /* record=: a write's data, as it was sent */
} Etsoc1HostLinkReq;

struct Etsoc1HostLinkState {
    DeviceState parent_obj;

    CharBackend chr;
    Etsoc1PcieState *pcie;
    Etsoc1Rr *rr;           /* link "recorder": record= (etsoc1-rr.c) */
    Notifier iatu_notifier;
    Error *migration_blocker;
    QEMUTimer *watchdog;    /* host-timeout-ms, QEMU_CLOCK_REALTIME */
    QEMUTimer *stop_wait;   /* a STOP under record= waits for idle */
    QEMUBH *flush_bh;       /* writes the output queue */
    QEMUBH *rx_bh;          /* parses again once a host input is in */

    /* properties */
    uint32_t out_limit;     /* bytes queued before back-pressure */
    uint32_t host_timeout_ms;   /* 0: wait for the host for ever */
    bool exit_on_close;     /* a card started for one host process */
    uint32_t host_pid;      /* exit when this process is gone (0: no) */
    int host_pidfd;
    uint32_t stop_idle_ms;  /* under record=: STOP waits for idle so long */

    /*
     * A host input (MMIO_WRITE) waits for its stamped time: no frame
     * after it is parsed until it is in (etsoc1-sync.c, "Host inputs"),
     * so that a read or the next write comes after it.  Its reply goes
     * only to the connection it came from (conn_gen).
     */
    bool input_pending;
    uint32_t conn_gen;
    uint32_t stop_seq;      /* the STOP that waits for idle (stop_wait) */
    int64_t stop_asked_ms;

    /* one connection */
    bool connected;
    bool hello;             /* HELLO seen */
    bool ready_sent;
    bool closing;           /* dropping the connection: parse no more */
    uint32_t options;
    uint32_t seq;           /* card's next sequence id */
    uint8_t *rx;            /* HL_HDR_SIZE + HL_MAX_PAYLOAD */
    uint32_t rx_len;
    /* frames not yet taken by the chardev: out->data[out_head..len) */
    GByteArray *out;
    uint32_t out_head;
    guint out_watch;        /* G_IO_OUT watch while @out is not empty */
    int64_t out_progress_ms;    /* last progress writing @out */
    uint32_t msi_deferred;  /* MSI vectors not sent while @out was full */
    uint64_t req_order;
    Etsoc1HostLinkReq req[HL_MAX_PENDING];
    Etsoc1HostLinkShm shm[HL_MAX_SHM];
    /* MEM_FD: host [mem_base, mem_base + mem_size) through mem_fd */
    int mem_fd;
    uint64_t mem_base, mem_size;
    bool mem_vm;            /* mem_fd is host-pid's: process_vm_*v too */
};

#endif
