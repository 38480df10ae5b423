/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libetsoc1-host: state shared by link.c (the wire) and start.c (QEMU). */
#ifndef ETSOC1_HOST_INTERNAL_H
#define ETSOC1_HOST_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "etsoc1-host.h"

/* docs/host-link.md: the wire, as the card defines it */
#include "etsoc1-hostlink-wire.h"

#define HOST_STOP_WAIT_MS   10000   /* STOP's reply, then QEMU's exit */

/* One outgoing frame: header and fixed fields, then caller's data. */
typedef struct HostFrame {
    struct HostFrame *next;
    uint8_t head[HL_HDR_SIZE + 16];
    uint32_t head_len;
    const uint8_t *data;
    uint32_t data_len;
    uint32_t sent;
    uint8_t *owned;             /* freed with a heap frame */
    bool heap;
    int fd;                     /* > 0: passed with the first bytes */
} HostFrame;

/* A DMA buffer from etsoc1_host_dma_alloc(). */
typedef struct HostDmaBuf {
    struct HostDmaBuf *next;
    void *ptr;
    size_t size;
    bool shared;                /* the card maps it (SHM_MAP answered OK) */
} HostDmaBuf;

/* A request waiting for its reply; lives on the caller's stack. */
typedef struct HostWaiter {
    struct HostWaiter *next;
    HostFrame frame;
    uint32_t seq;
    uint8_t type;
    void *rbuf;                 /* reply payload goes here */
    uint32_t rlen;              /* exact length of an OK reply's payload */
    bool done;
    int result;
} HostWaiter;

struct Etsoc1Host {
    int fd;
    int wake[2];                /* self-pipe: new frames, quit */
    pthread_t io;
    bool io_started;

    pthread_mutex_t lock;       /* everything below */
    pthread_cond_t cond;
    HostFrame *out_head, *out_tail;
    HostWaiter *waiters;
    uint32_t next_seq;
    bool ready;
    uint64_t bar0, bar2;
    uint32_t msi;
    bool dead, stopping, quit;
    char why[256];

    uint32_t options;           /* accepted in HELLO_ACK */
    pthread_mutex_t dma_lock;   /* dma_bufs; one SHM_MAP in flight */
    HostDmaBuf *dma_bufs;

    Etsoc1HostMemFn mem_read, mem_write;
    void *mem_opaque;
    void (*fatal_fn)(void *opaque, const char *why);
    void *fatal_opaque;

    /* I/O thread only */
    uint8_t *rx;
    uint32_t rx_got;

    /* start.c */
    pid_t pid;                  /* 0: not ours, or reaped */
    int wstatus;                /* waitpid() status once reaped */
    bool reaped;
    char *run_dir;
    unsigned ready_timeout_ms;
};

/* link.c */
int host_link_open(Etsoc1Host *h, int fd);
void host_link_shutdown(Etsoc1Host *h);
int host_request(Etsoc1Host *h, uint8_t type, const void *fixed,
                 uint32_t fixed_len, const void *data, uint32_t data_len,
                 void *rbuf, uint32_t rlen);
int host_request_fd(Etsoc1Host *h, uint8_t type, const void *fixed,
                    uint32_t fixed_len, int fd);
Etsoc1Host *host_alloc(void);
void host_free(Etsoc1Host *h);
uint64_t host_now_ms(void);

#endif
