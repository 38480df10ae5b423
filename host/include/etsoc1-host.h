/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libetsoc1-host: the host side of the ET-SoC-1 card emulated by QEMU.
 *
 * One Etsoc1Host per card.  It starts QEMU (or connects to a running
 * one), speaks the host link (docs/host-link.md) over a Unix socket and
 * serves the card's DMA accesses to host memory.  All functions are
 * thread-safe; each instance has one I/O thread that does every socket
 * read and write, so a caller blocked on a request never stops the card
 * from reaching host memory.  See docs/host-library.md.
 */
#ifndef ETSOC1_HOST_H
#define ETSOC1_HOST_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Errors; functions return them negated. */
enum {
    ETSOC1_HOST_EDECODE = 1,    /* link status 1: no iATU region maps it */
    ETSOC1_HOST_EACCESS = 2,    /* link status 2: the card refused */
    ETSOC1_HOST_ELENGTH = 3,    /* link status 3: length 0 or too long */
    ETSOC1_HOST_ELINK = 4,      /* connection lost, FATAL, or stopped */
    ETSOC1_HOST_ETIMEOUT = 5,
    ETSOC1_HOST_ESPAWN = 6,     /* QEMU did not start or connect */
    ETSOC1_HOST_EINVAL = 7,     /* bad argument (not from the card) */
};

/* Doorbell targets: BAR2 + 0x2000 (SP) and BAR2 + 0x2004 (MM). */
enum {
    ETSOC1_HOST_SP = 0,
    ETSOC1_HOST_MM = 1,
};

/* MSI vectors, as bits of etsoc1_host_wait_msi()'s mask and result. */
#define ETSOC1_HOST_MSI_SP_SQ   (1u << 0)
#define ETSOC1_HOST_MSI_SP_CQ   (1u << 1)
#define ETSOC1_HOST_MSI_MM_SQ   (1u << 2)
#define ETSOC1_HOST_MSI_MM_CQ   (1u << 3)

typedef struct Etsoc1Host Etsoc1Host;

/*
 * Host memory as the card's eDMA sees it: read or write @len bytes at
 * host address @addr.  Return 0, or < 0 to refuse (the eDMA channel
 * aborts).  Called from the instance's I/O thread.
 */
typedef int (*Etsoc1HostMemFn)(void *opaque, uint64_t addr, void *buf,
                               uint32_t len);

typedef struct Etsoc1HostOptions {
    /* NULL: $ETSOC1_QEMU, else <build>/qemu-build/qemu-system-riscv64 */
    const char *qemu;
    /* NULL: $ETSOC1_GUEST_DIR, else <build>/guest */
    const char *guest_dir;
    /* logs and the socket; NULL: a new mkdtemp directory (kept) */
    const char *run_dir;
    /* appended to QEMU's argv, NULL-terminated */
    const char *const *extra_args;
    /* 0: 60000; also bounds the connection to the new QEMU */
    unsigned ready_timeout_ms;
    /*
     * Card DRAM in MiB, 1024..32768 in steps of 256 (the SP firmware
     * finds the end every 256 MiB).  0: $ETSOC1_DRAM_MIB, else 32768,
     * what an ET-SoC-1 card has.  Host memory is only used as the card
     * touches it.
     */
    unsigned dram_mib;
} Etsoc1HostOptions;

#define ETSOC1_HOST_DRAM_MIB_DEFAULT    32768
#define ETSOC1_HOST_DRAM_MIB_MIN        1024
#define ETSOC1_HOST_DRAM_MIB_MAX        32768
#define ETSOC1_HOST_DRAM_MIB_STEP       256

/* Spawn QEMU with the card's command line, connect, HELLO(HOSTMEM). */
int etsoc1_host_start(const Etsoc1HostOptions *o, Etsoc1Host **out);
/* The same with a QEMU started by someone else (-M ...,hostlink=). */
int etsoc1_host_connect(const char *socket_path, Etsoc1Host **out);
/* Wait for READY (timeout 0: the instance's ready timeout); BARs out. */
int etsoc1_host_wait_ready(Etsoc1Host *h, unsigned timeout_ms,
                           uint64_t *bar0, uint64_t *bar2);
/* Host bus address in BAR0/BAR2; any length, split at 1 MiB. */
int etsoc1_host_mmio_read(Etsoc1Host *h, uint64_t bus, void *buf,
                          uint32_t len);
int etsoc1_host_mmio_write(Etsoc1Host *h, uint64_t bus, const void *buf,
                           uint32_t len);
/* Write 1 to the target's doorbell register (needs READY). */
int etsoc1_host_doorbell(Etsoc1Host *h, int target);
/*
 * Wait until an MSI in @mask is pending; return and clear pending & mask.
 * 0 on timeout, stop or a lost link; @timeout_ms -1 waits for ever.
 */
uint32_t etsoc1_host_wait_msi(Etsoc1Host *h, uint32_t mask, int timeout_ms);
/* NULL functions restore the default: @addr is a pointer here. */
void etsoc1_host_set_memory(Etsoc1Host *h, Etsoc1HostMemFn read,
                            Etsoc1HostMemFn write, void *opaque);
/* Called once, from the I/O thread, when the link dies unasked. */
void etsoc1_host_on_fatal(Etsoc1Host *h,
                          void (*fn)(void *opaque, const char *why),
                          void *opaque);
/*
 * A DMA buffer of @size bytes (rounded up to pages), zeroed.  With a card
 * on this machine it is shared memory the card maps (a sealed memfd), so
 * the eDMA reaches it at memory speed and without the memory callbacks;
 * otherwise it is plain memory served over the link like any other.
 * NULL on error.  The card touches shared memory only inside buffers
 * alive here: an eDMA access that leaves one fails (the channel aborts).
 */
void *etsoc1_host_dma_alloc(Etsoc1Host *h, size_t size);
/* Free a buffer of dma_alloc; the card stops seeing it first. */
int etsoc1_host_dma_free(Etsoc1Host *h, void *ptr);
/* Is @ptr inside a dma_alloc buffer the card maps? */
bool etsoc1_host_dma_shared(Etsoc1Host *h, const void *ptr);
/*
 * Let the card reach host [@base, @base + @size) of this process directly
 * (QEMU reads and writes it through this process's /proc/self/mem), for
 * DMA buffers that are ordinary memory; the memory callbacks then serve
 * only addresses outside it.  An unmapped address there fails the eDMA
 * access cleanly.  Once per connection.
 */
int etsoc1_host_share_memory(Etsoc1Host *h, uint64_t base, uint64_t size);
int etsoc1_host_pause(Etsoc1Host *h);
int etsoc1_host_resume(Etsoc1Host *h);
/* STOP; wakes wait_msi; reaps the QEMU this instance started. */
int etsoc1_host_stop(Etsoc1Host *h);
/* Stop a QEMU this instance started (if still running), free. */
void etsoc1_host_close(Etsoc1Host *h);
const char *etsoc1_host_strerror(int err);

/* Extras: where the logs are (NULL after connect), why the link died. */
const char *etsoc1_host_run_dir(Etsoc1Host *h);
const char *etsoc1_host_fatal_reason(Etsoc1Host *h);

#ifdef __cplusplus
}
#endif

#endif
