/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libetsoc1-host: the host link (docs/host-link.md).
 *
 * QEMU reads ours on its main loop and back-pressures a host that does
 * not read its frames (docs/host-link.md).  So the host must keep
 * reading while it sends, or both sides can stall on full sockets (a
 * long MMIO write against a card->host DMA).  One I/O thread does all socket
 * I/O, non-blocking, with poll(): callers queue a frame and sleep on the
 * condition variable until its reply; the thread serves HOSTMEM requests
 * itself and queues their replies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "host-internal.h"

static uint32_t ld32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t ld64(const uint8_t *p)
{
    return ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

static void st16(uint8_t *p, uint16_t v)
{
    p[0] = v;
    p[1] = v >> 8;
}

static void st32(uint8_t *p, uint32_t v)
{
    st16(p, v);
    st16(p + 2, v >> 16);
}

uint64_t host_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait on the condition until woken or @end (host_now_ms()); lock held. */
static void wait_until(Etsoc1Host *h, uint64_t end)
{
    uint64_t now = host_now_ms(), ms = end > now ? end - now : 0;
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += ms % 1000 * 1000000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&h->cond, &h->lock, &ts);
}

static void frame_init(HostFrame *f, uint8_t type, uint16_t status,
                       uint32_t seq, const void *fixed, uint32_t fixed_len,
                       const void *data, uint32_t data_len)
{
    memset(f, 0, sizeof(*f));
    f->fd = -1;
    st32(f->head, HL_MAGIC);
    f->head[4] = HL_VERSION;
    f->head[5] = type;
    st16(f->head + 6, status);
    st32(f->head + 8, fixed_len + data_len);
    st32(f->head + 12, seq);
    if (fixed_len) {
        memcpy(f->head + HL_HDR_SIZE, fixed, fixed_len);
    }
    f->head_len = HL_HDR_SIZE + fixed_len;
    f->data = data;
    f->data_len = data_len;
}

/* With the lock held. */
static void queue_frame(Etsoc1Host *h, HostFrame *f)
{
    char c = 0;

    f->next = NULL;
    if (h->out_tail) {
        h->out_tail->next = f;
    } else {
        h->out_head = f;
    }
    h->out_tail = f;
    /* A full pipe already means "wake up". */
    if (write(h->wake[1], &c, 1) < 0) {
        /* nothing to do */
    }
}

static void free_frame(HostFrame *f)
{
    if (f->heap) {
        free(f->owned);
        free(f);
    }
}

/*
 * The link is dead.  New requests fail at once.  The owner hears why
 * (unless it asked for the end) before the waiting requests fail, so a
 * layer that rethrows the reason on its next call has it by then.
 * Queued frames are dropped before their waiters wake: the waiters'
 * frames live on their stacks.
 */
static void host_die(Etsoc1Host *h, const char *fmt, ...)
{
    void (*fn)(void *, const char *);
    HostWaiter *w;
    HostFrame *f;
    va_list ap;

    pthread_mutex_lock(&h->lock);
    if (h->dead) {
        pthread_mutex_unlock(&h->lock);
        return;
    }
    h->dead = true;
    va_start(ap, fmt);
    vsnprintf(h->why, sizeof(h->why), fmt, ap);
    va_end(ap);
    fn = h->stopping ? NULL : h->fatal_fn;
    pthread_mutex_unlock(&h->lock);
    shutdown(h->fd, SHUT_RDWR);
    if (fn) {
        fn(h->fatal_opaque, h->why);
    }

    pthread_mutex_lock(&h->lock);
    while ((f = h->out_head)) {
        h->out_head = f->next;
        free_frame(f);
    }
    h->out_tail = NULL;
    for (w = h->waiters; w; w = w->next) {
        w->done = true;
        w->result = -ETSOC1_HOST_ELINK;
    }
    h->waiters = NULL;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
}

static int status_error(uint16_t status)
{
    switch (status) {
    case 0:
        return 0;
    case 1:
        return -ETSOC1_HOST_EDECODE;
    case 2:
        return -ETSOC1_HOST_EACCESS;
    case 3:
        return -ETSOC1_HOST_ELENGTH;
    default:
        return -ETSOC1_HOST_EACCESS;
    }
}

/* A reply to one of our requests; false if it is malformed. */
static bool on_reply(Etsoc1Host *h, uint8_t type, uint16_t status,
                     uint32_t seq, const uint8_t *p, uint32_t len)
{
    HostWaiter **pw, *w;

    pthread_mutex_lock(&h->lock);
    for (pw = &h->waiters; (w = *pw); pw = &w->next) {
        if (w->seq == seq) {
            break;
        }
    }
    if (!w || type != (w->type | HL_REPLY) ||
        len != (status ? 0 : w->rlen)) {
        pthread_mutex_unlock(&h->lock);
        return false;
    }
    *pw = w->next;
    if (len) {
        memcpy(w->rbuf, p, len);
    }
    w->result = status_error(status);
    w->done = true;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
    return true;
}

/* HOSTMEM_READ/WRITE: serve them now, in order, and queue the reply. */
static bool on_hostmem(Etsoc1Host *h, uint8_t type, uint32_t seq,
                       const uint8_t *p, uint32_t len)
{
    HostFrame *f;
    uint64_t addr;
    uint32_t n;
    uint16_t status = 0;
    uint8_t *buf = NULL;
    Etsoc1HostMemFn fn;
    void *opaque;

    if (len < 12) {
        return false;
    }
    addr = ld64(p);
    n = ld32(p + 8);
    if (type == HL_HOSTMEM_READ ? len != 12 : len - 12 != n) {
        return false;
    }
    pthread_mutex_lock(&h->lock);
    fn = type == HL_HOSTMEM_READ ? h->mem_read : h->mem_write;
    opaque = h->mem_opaque;
    pthread_mutex_unlock(&h->lock);

    if (!n || n > HL_MAX_DATA) {
        status = 3;
    } else if (type == HL_HOSTMEM_READ) {
        buf = malloc(n);
        if (!buf || fn(opaque, addr, buf, n) < 0) {
            status = 2;
        }
    } else if (fn(opaque, addr, (void *)(p + 12), n) < 0) {
        status = 2;
    }
    f = malloc(sizeof(*f));
    if (!f) {
        free(buf);
        return false;
    }
    frame_init(f, type | HL_REPLY, status, seq, NULL, 0,
               status ? NULL : buf, status || type != HL_HOSTMEM_READ ? 0 : n);
    f->heap = true;
    f->owned = buf;
    pthread_mutex_lock(&h->lock);
    if (h->dead) {
        pthread_mutex_unlock(&h->lock);
        free_frame(f);
        return true;
    }
    queue_frame(h, f);
    pthread_mutex_unlock(&h->lock);
    return true;
}

/* One whole frame from the card. */
static void on_frame(Etsoc1Host *h)
{
    uint8_t type = h->rx[5];
    uint16_t status = h->rx[6] | h->rx[7] << 8;
    uint32_t len = ld32(h->rx + 8), seq = ld32(h->rx + 12);
    const uint8_t *p = h->rx + HL_HDR_SIZE;

    if (type & HL_REPLY) {
        if (!on_reply(h, type, status, seq, p, len)) {
            host_die(h, "malformed reply: type 0x%x, status %u, sequence "
                     "id %u, %u bytes", type, status, seq, len);
        }
        return;
    }
    switch (type) {
    case HL_READY:
        if (len != 16) {
            break;
        }
        pthread_mutex_lock(&h->lock);
        h->ready = true;
        h->bar0 = ld64(p);
        h->bar2 = ld64(p + 8);
        pthread_cond_broadcast(&h->cond);
        pthread_mutex_unlock(&h->lock);
        return;
    case HL_MSI:
        if (len != 4) {
            break;
        }
        pthread_mutex_lock(&h->lock);
        h->msi |= ld32(p);
        pthread_cond_broadcast(&h->cond);
        pthread_mutex_unlock(&h->lock);
        return;
    case HL_HOSTMEM_READ:
    case HL_HOSTMEM_WRITE:
        if (on_hostmem(h, type, seq, p, len)) {
            return;
        }
        break;
    case HL_FATAL:
        host_die(h, "FATAL from the card: %.*s", (int)(len < 200 ? len : 200),
                 (const char *)p);
        return;
    }
    host_die(h, "malformed frame from the card: type 0x%x, %u bytes",
             type, len);
}

/* Read what the socket has; false when the link is gone. */
static bool do_read(Etsoc1Host *h)
{
    for (;;) {
        uint32_t want = HL_HDR_SIZE;
        ssize_t r;

        if (h->rx_got >= HL_HDR_SIZE) {
            want += ld32(h->rx + 8);
        }
        r = recv(h->fd, h->rx + h->rx_got, want - h->rx_got, 0);
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return true;
        }
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            host_die(h, r ? "connection error: %s" : "connection closed%s",
                     r ? strerror(errno) : "");
            return false;
        }
        h->rx_got += r;
        if (h->rx_got == HL_HDR_SIZE) {
            /* Check the header before trusting its length. */
            if (ld32(h->rx) != HL_MAGIC || h->rx[4] != HL_VERSION ||
                ld32(h->rx + 8) > HL_MAX_PAYLOAD) {
                host_die(h, "bad frame header from the card (magic 0x%x, "
                         "version %u, length %u)", ld32(h->rx), h->rx[4],
                         ld32(h->rx + 8));
                return false;
            }
        }
        if (h->rx_got >= HL_HDR_SIZE && h->rx_got == HL_HDR_SIZE + ld32(h->rx + 8)) {
            h->rx_got = 0;
            on_frame(h);
            pthread_mutex_lock(&h->lock);
            if (h->dead) {
                pthread_mutex_unlock(&h->lock);
                return false;
            }
            pthread_mutex_unlock(&h->lock);
        }
    }
}

/* Send queued frames until the socket is full; false on error. */
static bool do_write(Etsoc1Host *h)
{
    pthread_mutex_lock(&h->lock);
    while (h->out_head) {
        HostFrame *f = h->out_head;
        uint32_t total = f->head_len + f->data_len;
        struct iovec iov[2];
        struct msghdr msg = { .msg_iov = iov };
        ssize_t r;

        if (f->sent < f->head_len) {
            iov[0].iov_base = f->head + f->sent;
            iov[0].iov_len = f->head_len - f->sent;
            iov[1].iov_base = (void *)f->data;
            iov[1].iov_len = f->data_len;
            msg.msg_iovlen = f->data_len ? 2 : 1;
        } else {
            iov[0].iov_base = (void *)(f->data + f->sent - f->head_len);
            iov[0].iov_len = total - f->sent;
            msg.msg_iovlen = 1;
        }
        union {
            struct cmsghdr align;
            char buf[CMSG_SPACE(sizeof(int))];
        } cmsg;
        if (f->fd >= 0 && f->sent == 0) {
            struct cmsghdr *c;

            /* SHM_MAP: the memfd travels with the frame's first bytes */
            msg.msg_control = cmsg.buf;
            msg.msg_controllen = sizeof(cmsg.buf);
            c = CMSG_FIRSTHDR(&msg);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(c), &f->fd, sizeof(int));
        }
        r = sendmsg(h->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;
        }
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            pthread_mutex_unlock(&h->lock);
            host_die(h, "connection error: %s", strerror(errno));
            return false;
        }
        f->sent += r;
        if (f->sent == total) {
            h->out_head = f->next;
            if (!h->out_head) {
                h->out_tail = NULL;
            }
            free_frame(f);
        }
    }
    pthread_mutex_unlock(&h->lock);
    return true;
}

static void *io_thread(void *opaque)
{
    Etsoc1Host *h = opaque;

    for (;;) {
        struct pollfd pfd[2] = {
            { .fd = h->fd, .events = POLLIN },
            { .fd = h->wake[0], .events = POLLIN },
        };
        char junk[64];

        pthread_mutex_lock(&h->lock);
        if (h->dead || h->quit) {
            pthread_mutex_unlock(&h->lock);
            break;
        }
        if (h->out_head) {
            pfd[0].events |= POLLOUT;
        }
        pthread_mutex_unlock(&h->lock);
        if (poll(pfd, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            host_die(h, "poll: %s", strerror(errno));
            break;
        }
        if (pfd[1].revents & POLLIN) {
            while (read(h->wake[0], junk, sizeof(junk)) == sizeof(junk)) {
                /* drain */
            }
        }
        if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            if (!do_read(h)) {
                break;
            }
        }
        if (pfd[0].revents & POLLOUT) {
            if (!do_write(h)) {
                break;
            }
        }
    }
    return NULL;
}

static int mem_read_default(void *opaque, uint64_t addr, void *buf,
                            uint32_t len)
{
    (void)opaque;
    memcpy(buf, (const void *)(uintptr_t)addr, len);
    return 0;
}

static int mem_write_default(void *opaque, uint64_t addr, void *buf,
                             uint32_t len)
{
    (void)opaque;
    memcpy((void *)(uintptr_t)addr, buf, len);
    return 0;
}

Etsoc1Host *host_alloc(void)
{
    Etsoc1Host *h = calloc(1, sizeof(*h));

    if (!h) {
        return NULL;
    }
    h->rx = malloc(HL_HDR_SIZE + HL_MAX_PAYLOAD);
    if (!h->rx || pipe2(h->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
        free(h->rx);
        free(h);
        return NULL;
    }
    h->fd = -1;
    h->next_seq = 1;
    h->mem_read = mem_read_default;
    h->mem_write = mem_write_default;
    h->ready_timeout_ms = 60000;
    pthread_mutex_init(&h->lock, NULL);
    pthread_mutex_init(&h->dma_lock, NULL);
    pthread_cond_init(&h->cond, NULL);
    return h;
}

void host_free(Etsoc1Host *h)
{
    host_link_shutdown(h);
    if (h->fd >= 0) {
        close(h->fd);
    }
    close(h->wake[0]);
    close(h->wake[1]);
    while (h->dma_bufs) {
        HostDmaBuf *b = h->dma_bufs;

        h->dma_bufs = b->next;
        munmap(b->ptr, b->size);
        free(b);
    }
    pthread_mutex_destroy(&h->lock);
    pthread_mutex_destroy(&h->dma_lock);
    pthread_cond_destroy(&h->cond);
    free(h->rx);
    free(h->run_dir);
    free(h);
}

/* Take @fd (connected), start the I/O thread, say HELLO. */
int host_link_open(Etsoc1Host *h, int fd)
{
    uint8_t hello[8], ack[8];
    int r;

    h->fd = fd;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    if (pthread_create(&h->io, NULL, io_thread, h)) {
        return -ETSOC1_HOST_ESPAWN;
    }
    h->io_started = true;
    st32(hello, HL_VERSION);
    st32(hello + 4, HL_OPT_HOSTMEM | HL_OPT_SHM);
    r = host_request(h, HL_HELLO, hello, 8, NULL, 0, ack, 8);
    if (r < 0) {
        return r;
    }
    h->options = ld32(ack + 4);
    if (ld32(ack) != HL_VERSION || !(ld32(ack + 4) & HL_OPT_HOSTMEM)) {
        host_die(h, "HELLO_ACK: version %u, options 0x%x", ld32(ack),
                 ld32(ack + 4));
        return -ETSOC1_HOST_ELINK;
    }
    return 0;
}

/* Stop the I/O thread (the link may stay open until free). */
void host_link_shutdown(Etsoc1Host *h)
{
    char c = 0;

    if (!h->io_started) {
        return;
    }
    pthread_mutex_lock(&h->lock);
    h->quit = true;
    h->stopping = true;         /* our own doing: not fatal */
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
    if (write(h->wake[1], &c, 1) < 0) {
        /* the thread polls the pipe; it is not full if this fails */
    }
    pthread_join(h->io, NULL);
    h->io_started = false;
    /* Anyone still waiting (a racing caller) fails now. */
    host_die(h, "link closed by the host");
}

/*
 * Send a request and wait for its reply.  @fixed (at most 12 bytes) is
 * copied; @data is sent from the caller's memory, which stays valid
 * because the caller sleeps here until the frame is sent and answered,
 * or dropped by host_die().  Card accesses wait as long as the card
 * takes; HELLO and STOP are bounded, since a QEMU that already has a
 * client, or hangs on its way out, never answers them: then the link is
 * given up.
 */
static int request(Etsoc1Host *h, uint8_t type, const void *fixed,
                   uint32_t fixed_len, const void *data, uint32_t data_len,
                   void *rbuf, uint32_t rlen, int fd)
{
    HostWaiter w = { .type = type, .rbuf = rbuf, .rlen = rlen };
    unsigned ms = type == HL_HELLO ? h->ready_timeout_ms :
                  type == HL_STOP ? HOST_STOP_WAIT_MS : 0;
    uint64_t end = host_now_ms() + ms;

    pthread_mutex_lock(&h->lock);
    if (h->dead || h->quit) {
        pthread_mutex_unlock(&h->lock);
        return -ETSOC1_HOST_ELINK;
    }
    w.seq = h->next_seq++;
    frame_init(&w.frame, type, 0, w.seq, fixed, fixed_len, data, data_len);
    w.frame.fd = fd;
    w.next = h->waiters;
    h->waiters = &w;
    queue_frame(h, &w.frame);
    while (!w.done) {
        if (!ms) {
            pthread_cond_wait(&h->cond, &h->lock);
        } else if (host_now_ms() < end) {
            wait_until(h, end);
        } else {
            pthread_mutex_unlock(&h->lock);
            host_die(h, "no reply to %s in %u ms",
                     type == HL_HELLO ? "HELLO" : "STOP", ms);
            pthread_mutex_lock(&h->lock);
        }
    }
    pthread_mutex_unlock(&h->lock);
    return w.result;
}

int host_request(Etsoc1Host *h, uint8_t type, const void *fixed,
                 uint32_t fixed_len, const void *data, uint32_t data_len,
                 void *rbuf, uint32_t rlen)
{
    return request(h, type, fixed, fixed_len, data, data_len, rbuf, rlen,
                   -1);
}

/* A request with no data and no reply payload, passing @fd (> 0). */
int host_request_fd(Etsoc1Host *h, uint8_t type, const void *fixed,
                    uint32_t fixed_len, int fd)
{
    return request(h, type, fixed, fixed_len, NULL, 0, NULL, 0, fd);
}

/* ---- API ------------------------------------------------------------- */

static int mmio(Etsoc1Host *h, uint8_t type, uint64_t bus, void *buf,
                uint32_t len)
{
    uint8_t *p = buf;

    if (!h || (!buf && len)) {
        return -ETSOC1_HOST_EINVAL;
    }
    if (!len) {
        return -ETSOC1_HOST_ELENGTH;
    }
    while (len) {
        uint32_t n = len < HL_MAX_DATA ? len : HL_MAX_DATA;
        uint8_t fixed[12];
        int r;

        st32(fixed, (uint32_t)bus);
        st32(fixed + 4, bus >> 32);
        st32(fixed + 8, n);
        if (type == HL_MMIO_READ) {
            r = host_request(h, type, fixed, 12, NULL, 0, p, n);
        } else {
            r = host_request(h, type, fixed, 12, p, n, NULL, 0);
        }
        if (r < 0) {
            return r;
        }
        bus += n;
        p += n;
        len -= n;
    }
    return 0;
}

int etsoc1_host_mmio_read(Etsoc1Host *h, uint64_t bus, void *buf,
                          uint32_t len)
{
    return mmio(h, HL_MMIO_READ, bus, buf, len);
}

int etsoc1_host_mmio_write(Etsoc1Host *h, uint64_t bus, const void *buf,
                           uint32_t len)
{
    return mmio(h, HL_MMIO_WRITE, bus, (void *)buf, len);
}

int etsoc1_host_wait_ready(Etsoc1Host *h, unsigned timeout_ms,
                           uint64_t *bar0, uint64_t *bar2)
{
    uint64_t end;
    int r = 0;

    if (!h) {
        return -ETSOC1_HOST_EINVAL;
    }
    end = host_now_ms() + (timeout_ms ? timeout_ms : h->ready_timeout_ms);
    pthread_mutex_lock(&h->lock);
    while (!h->ready && !h->dead && !h->quit && host_now_ms() < end) {
        wait_until(h, end);
    }
    if (h->ready) {
        if (bar0) {
            *bar0 = h->bar0;
        }
        if (bar2) {
            *bar2 = h->bar2;
        }
    } else {
        r = h->dead || h->quit ? -ETSOC1_HOST_ELINK : -ETSOC1_HOST_ETIMEOUT;
    }
    pthread_mutex_unlock(&h->lock);
    return r;
}

int etsoc1_host_doorbell(Etsoc1Host *h, int target)
{
    uint8_t one[4] = { 1, 0, 0, 0 };
    uint64_t bar2;

    if (!h || (target != ETSOC1_HOST_SP && target != ETSOC1_HOST_MM)) {
        return -ETSOC1_HOST_EINVAL;
    }
    pthread_mutex_lock(&h->lock);
    bar2 = h->bar2;
    if (!h->ready) {
        pthread_mutex_unlock(&h->lock);
        return -ETSOC1_HOST_EDECODE;
    }
    pthread_mutex_unlock(&h->lock);
    return etsoc1_host_mmio_write(h, bar2 + 0x2000 + 4 * target, one, 4);
}

uint32_t etsoc1_host_wait_msi(Etsoc1Host *h, uint32_t mask, int timeout_ms)
{
    uint64_t end = host_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    uint32_t got;

    if (!h) {
        return 0;
    }
    pthread_mutex_lock(&h->lock);
    while (!(h->msi & mask) && !h->dead && !h->quit && !h->stopping) {
        if (timeout_ms < 0) {
            pthread_cond_wait(&h->cond, &h->lock);
        } else if (host_now_ms() < end) {
            wait_until(h, end);
        } else {
            break;
        }
    }
    got = h->msi & mask;
    h->msi &= ~mask;
    pthread_mutex_unlock(&h->lock);
    return got;
}

void etsoc1_host_set_memory(Etsoc1Host *h, Etsoc1HostMemFn read,
                            Etsoc1HostMemFn write, void *opaque)
{
    if (!h) {
        return;
    }
    pthread_mutex_lock(&h->lock);
    h->mem_read = read ? read : mem_read_default;
    h->mem_write = write ? write : mem_write_default;
    h->mem_opaque = opaque;
    pthread_mutex_unlock(&h->lock);
}

void etsoc1_host_on_fatal(Etsoc1Host *h,
                          void (*fn)(void *opaque, const char *why),
                          void *opaque)
{
    if (!h) {
        return;
    }
    pthread_mutex_lock(&h->lock);
    h->fatal_fn = fn;
    h->fatal_opaque = opaque;
    pthread_mutex_unlock(&h->lock);
}

int etsoc1_host_pause(Etsoc1Host *h)
{
    return h ? host_request(h, HL_PAUSE, NULL, 0, NULL, 0, NULL, 0)
             : -ETSOC1_HOST_EINVAL;
}

int etsoc1_host_resume(Etsoc1Host *h)
{
    return h ? host_request(h, HL_RESUME, NULL, 0, NULL, 0, NULL, 0)
             : -ETSOC1_HOST_EINVAL;
}

const char *etsoc1_host_fatal_reason(Etsoc1Host *h)
{
    return h && h->dead ? h->why : NULL;
}

const char *etsoc1_host_strerror(int err)
{
    switch (err < 0 ? -err : err) {
    case 0:
        return "success";
    case ETSOC1_HOST_EDECODE:
        return "no iATU region maps the address (DECODE)";
    case ETSOC1_HOST_EACCESS:
        return "the card refused the access (ACCESS)";
    case ETSOC1_HOST_ELENGTH:
        return "bad length (LENGTH)";
    case ETSOC1_HOST_ELINK:
        return "the link to the card is lost";
    case ETSOC1_HOST_ETIMEOUT:
        return "timed out";
    case ETSOC1_HOST_ESPAWN:
        return "QEMU did not start";
    case ETSOC1_HOST_EINVAL:
        return "invalid argument";
    default:
        return "unknown error";
    }
}

/* ---- DMA buffers shared with the card (docs/host-library.md) --------- */

void *etsoc1_host_dma_alloc(Etsoc1Host *h, size_t size)
{
    long page = sysconf(_SC_PAGESIZE);
    HostDmaBuf *b;
    uint8_t p[16];
    int fd = -1;

    if (!h || !size || size > SIZE_MAX - page) {
        return NULL;
    }
    size = (size + page - 1) / page * page;
    b = calloc(1, sizeof(*b));
    if (!b) {
        return NULL;
    }
    b->size = size;
    b->ptr = MAP_FAILED;
    if (h->options & HL_OPT_SHM) {
        /* sealed: the card may rely on the size it mapped */
        fd = memfd_create("etsoc1-dma", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd >= 0 && (ftruncate(fd, size) < 0 ||
                        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
                              F_SEAL_SEAL) < 0)) {
            close(fd);
            fd = -1;
        }
        if (fd >= 0) {
            b->ptr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
                          fd, 0);
        }
    }
    if (b->ptr == MAP_FAILED) {
        /* no shared memory: the same buffer, served over the socket */
        b->ptr = mmap(NULL, size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    } else {
        uint64_t addr = (uintptr_t)b->ptr;

        memcpy(p, &addr, 8);
        memcpy(p + 8, &(uint64_t){ size }, 8);
        /* one SHM_MAP in flight: its memfd is the one QEMU last got */
        pthread_mutex_lock(&h->dma_lock);
        b->shared = host_request_fd(h, HL_SHM_MAP, p, 16, fd) == 0;
        pthread_mutex_unlock(&h->dma_lock);
    }
    if (fd >= 0) {
        close(fd);
    }
    if (b->ptr == MAP_FAILED) {
        free(b);
        return NULL;
    }
    pthread_mutex_lock(&h->dma_lock);
    b->next = h->dma_bufs;
    h->dma_bufs = b;
    pthread_mutex_unlock(&h->dma_lock);
    return b->ptr;
}

int etsoc1_host_dma_free(Etsoc1Host *h, void *ptr)
{
    HostDmaBuf **pp, *b = NULL;
    uint64_t addr = (uintptr_t)ptr;

    if (!h || !ptr) {
        return -ETSOC1_HOST_EINVAL;
    }
    pthread_mutex_lock(&h->dma_lock);
    for (pp = &h->dma_bufs; *pp; pp = &(*pp)->next) {
        if ((*pp)->ptr == ptr) {
            b = *pp;
            *pp = b->next;
            break;
        }
    }
    pthread_mutex_unlock(&h->dma_lock);
    if (!b) {
        return -ETSOC1_HOST_EINVAL;
    }
    if (b->shared) {
        /* after the reply the card no longer touches it; a dead link
         * has unmapped everything anyway */
        host_request(h, HL_SHM_UNMAP, &addr, 8, NULL, 0, NULL, 0);
    }
    munmap(b->ptr, b->size);
    free(b);
    return 0;
}

bool etsoc1_host_dma_shared(Etsoc1Host *h, const void *ptr)
{
    HostDmaBuf *b;
    bool shared = false;

    if (!h) {
        return false;
    }
    pthread_mutex_lock(&h->dma_lock);
    for (b = h->dma_bufs; b; b = b->next) {
        if ((const uint8_t *)ptr >= (const uint8_t *)b->ptr &&
            (const uint8_t *)ptr < (const uint8_t *)b->ptr + b->size) {
            shared = b->shared;
        }
    }
    pthread_mutex_unlock(&h->dma_lock);
    return shared;
}

int etsoc1_host_share_memory(Etsoc1Host *h, uint64_t base, uint64_t size)
{
    uint8_t p[16];
    int fd, r;

    if (!h || !size) {
        return -ETSOC1_HOST_EINVAL;
    }
    if (!(h->options & HL_OPT_SHM)) {
        return -ETSOC1_HOST_EACCESS;
    }
    /* opened here, so the kernel checks our own right to it */
    fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        return -ETSOC1_HOST_EACCESS;
    }
    memcpy(p, &base, 8);
    memcpy(p + 8, &size, 8);
    pthread_mutex_lock(&h->dma_lock);
    r = host_request_fd(h, HL_MEM_FD, p, 16, fd);
    pthread_mutex_unlock(&h->dma_lock);
    close(fd);
    return r;
}
