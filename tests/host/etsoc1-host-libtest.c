/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libetsoc1-host against QEMU as it is, without firmware: QEMU runs
 * under qtest with the host link, and this program plays the firmware's
 * part over the qtest socket (iATU, eDMA registers, MSI_TX_VEC) as
 * tests/run.py's hostlink_tests do; the library plays the host.  A fake
 * card (a socket server in a thread) covers FATAL and malformed frames.
 * Prints TAP.  QEMU: $ETSOC1_QEMU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "etsoc1-host.h"
#include "tap.h"

#define DBI             0x7e80000000ull
#define IATU            (DBI + 0x300000 + 0x100)
#define EDMA            (DBI + 0x380000)
#define MSI_TX_VEC      0x7f80001018ull
#define TRG_PCIE        0x30008000ull
#define TRG_PCIE_SP     0x3000a000ull
#define PCI_INT_DEC     0x20000008ull
#define DRAM_BAR0       0x8004001000ull   /* DRAM_MEMMAP_BEGIN */
#define BAR0            0x1000000000ull
#define BAR2            0x2000000000ull
#define BAR0_SIZE       (64ull << 20)
#define MIB             (1u << 20)

static char tmp[64];

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

    nanosleep(&ts, NULL);
}

static int listen_unix(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    unlink(path);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        listen(fd, 1) < 0) {
        perror(path);
        exit(2);
    }
    return fd;
}

static int accept_timeout(int lfd, int secs)
{
    struct timeval tv = { secs, 0 };
    int fd;

    setsockopt(lfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    fd = accept(lfd, NULL, NULL);
    if (fd >= 0) {
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    }
    return fd;
}

/* ---- qtest: the firmware's part ----------------------------------------- */

typedef struct QTest {
    int fd;
    char buf[4096];
    size_t len;
    char irqs[512];     /* "raise 1;lower 1;..." as they came */
} QTest;

static bool qt_line(QTest *q, char *line, size_t size)
{
    for (;;) {
        char *nl = memchr(q->buf, '\n', q->len);
        ssize_t r;

        if (nl) {
            size_t n = nl - q->buf;

            snprintf(line, size, "%.*s", (int)n, q->buf);
            memmove(q->buf, nl + 1, q->len - n - 1);
            q->len -= n + 1;
            return true;
        }
        r = recv(q->fd, q->buf + q->len, sizeof(q->buf) - q->len, 0);
        if (r <= 0) {
            return false;
        }
        q->len += r;
    }
}

/* Send a command; return the value after "OK" (0 if none). */
static uint64_t qt(QTest *q, const char *fmt, ...)
{
    char cmd[256], line[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(cmd, sizeof(cmd) - 1, fmt, ap);
    va_end(ap);
    cmd[n++] = '\n';
    if (send(q->fd, cmd, n, MSG_NOSIGNAL) != n) {
        fprintf(stderr, "qtest: send failed\n");
        exit(2);
    }
    while (qt_line(q, line, sizeof(line))) {
        if (!strncmp(line, "IRQ ", 4)) {
            size_t l = strlen(q->irqs);

            snprintf(q->irqs + l, sizeof(q->irqs) - l, "%s;", line + 4);
            continue;
        }
        if (strncmp(line, "OK", 2)) {
            fprintf(stderr, "qtest %.*s: %s\n", n - 1, cmd, line);
            exit(2);
        }
        return strtoull(line + 2, NULL, 16);
    }
    fprintf(stderr, "qtest: connection closed\n");
    exit(2);
}

static void iatu(QTest *q, int i, uint64_t base, uint64_t size,
                 uint64_t target)
{
    uint64_t r = IATU + i * 0x200;

    qt(q, "writel 0x%" PRIx64 " 0", r);
    qt(q, "writel 0x%" PRIx64 " 0x%" PRIx64, r + 0x08, base & 0xffffffff);
    qt(q, "writel 0x%" PRIx64 " 0x%" PRIx64, r + 0x0c, base >> 32);
    qt(q, "writel 0x%" PRIx64 " 0x%" PRIx64, r + 0x10,
       (base + size - 1) & 0xffffffff);
    qt(q, "writel 0x%" PRIx64 " 0x%" PRIx64, r + 0x14, target & 0xffffffff);
    qt(q, "writel 0x%" PRIx64 " 0x%" PRIx64, r + 0x18, target >> 32);
    qt(q, "writel 0x%" PRIx64 " 0x80000000", r + 0x04);
}

/* One single-block eDMA command on channel 0; its final status or 0. */
static uint32_t edma_run(QTest *q, bool write, uint32_t n, uint64_t sar,
                         uint64_t dar)
{
    uint64_t ch = EDMA + 0x200 + (write ? 0 : 0x100);
    uint64_t status = EDMA + (write ? 0x4c : 0xa0);
    int i;

    qt(q, "writel 0x%" PRIx64 " 0x8", ch);
    qt(q, "writel 0x%" PRIx64 " 0x%x", ch + 0x08, n);
    qt(q, "writeq 0x%" PRIx64 " 0x%" PRIx64, ch + 0x0c, sar);
    qt(q, "writeq 0x%" PRIx64 " 0x%" PRIx64, ch + 0x14, dar);
    qt(q, "writel 0x%" PRIx64 " 1", EDMA + (write ? 0x0c : 0x2c));
    qt(q, "writel 0x%" PRIx64 " 0", EDMA + (write ? 0x10 : 0x30));
    for (i = 0; i < 20000; i++) {
        uint32_t st = qt(q, "readl 0x%" PRIx64, status);

        if (st & 0x10001) {
            qt(q, "writel 0x%" PRIx64 " 0x10001",
               EDMA + (write ? 0x58 : 0xac));
            return st;
        }
        qt(q, "clock_step 100000");
    }
    return 0;
}

/* ---- QEMU under qtest ---------------------------------------------------- */

typedef struct Card {
    pid_t pid;
    QTest q;
    Etsoc1Host *h;
    char sock[96];
} Card;

static void card_start(Card *c, const char *qemu, int n)
{
    char qtp[96], qtarg[128], chardev[160], log[96];
    int lfd, i;

    snprintf(qtp, sizeof(qtp), "%s/qt%d", tmp, n);
    snprintf(c->sock, sizeof(c->sock), "%s/hl%d.sock", tmp, n);
    snprintf(qtarg, sizeof(qtarg), "unix:%s", qtp);
    snprintf(chardev, sizeof(chardev),
             "socket,id=hl,path=%s,server=on,wait=off", c->sock);
    snprintf(log, sizeof(log), "%s/qemu%d.log", tmp, n);
    lfd = listen_unix(qtp);
    c->pid = fork();
    if (c->pid == 0) {
        execl(qemu, qemu, "-machine", "etsoc1,hostlink=hl", "-m", "2G",
              "-accel", "qtest", "-display", "none", "-qtest", qtarg,
              "-qtest-log", "/dev/null", "-chardev", chardev,
              "-d", "guest_errors", "-D", log, (char *)NULL);
        _exit(127);
    }
    memset(&c->q, 0, sizeof(c->q));
    c->q.fd = accept_timeout(lfd, 30);
    close(lfd);
    if (c->q.fd < 0) {
        printf("Bail out! QEMU (%s) did not connect to qtest\n", qemu);
        exit(1);
    }
    for (i = 0; i < 500; i++) {
        if (etsoc1_host_connect(c->sock, &c->h) == 0) {
            return;
        }
        sleep_ms(20);
    }
    printf("Bail out! no host link at %s\n", c->sock);
    exit(1);
}

/* ---- tests --------------------------------------------------------------- */

static int fatal_calls;
static char fatal_why[256];
static pthread_mutex_t fatal_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_fatal(void *opaque, const char *why)
{
    (void)opaque;
    pthread_mutex_lock(&fatal_lock);
    fatal_calls++;
    snprintf(fatal_why, sizeof(fatal_why), "%s", why);
    pthread_mutex_unlock(&fatal_lock);
}

/* A copy of what on_fatal saw (it runs on the library's I/O thread). */
static int fatal_seen(char *why, size_t n)
{
    int calls;

    pthread_mutex_lock(&fatal_lock);
    calls = fatal_calls;
    if (why) {
        snprintf(why, n, "%s", fatal_why);
    }
    pthread_mutex_unlock(&fatal_lock);
    return calls;
}

static int refuse(void *opaque, uint64_t addr, void *buf, uint32_t len)
{
    (void)opaque, (void)addr, (void)buf, (void)len;
    return -1;
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    size_t i;

    for (i = 0; i < n; i++) {
        p[i] = (uint8_t)(i * 7 + seed + (i >> 12));
    }
}

/* What the SP firmware programs, the doorbell window (region 3) last. */
static void map_bars(Card *c, bool last)
{
    if (!last) {
        iatu(&c->q, 0, BAR0, BAR0_SIZE, DRAM_BAR0);
        iatu(&c->q, 1, BAR2, 0x1000, 0x20007000);
        iatu(&c->q, 2, BAR2 + 0x1000, 0x1000, 0x30003000);
    } else {
        iatu(&c->q, 3, BAR2 + 0x2000, 0x2000, TRG_PCIE);
    }
}

static void test_ready_mmio(Card *c)
{
    uint64_t bar0 = 0, bar2 = 0, v = 0x1122334455667788ull, card, w;
    uint8_t got[8];
    int r, i, early;
    bool ok = true;

    early = etsoc1_host_wait_ready(c->h, 200, NULL, NULL);
    map_bars(c, false);
    r = etsoc1_host_wait_ready(c->h, 100, NULL, NULL);
    map_bars(c, true);
    r = r == -ETSOC1_HOST_ETIMEOUT &&
        etsoc1_host_wait_ready(c->h, 5000, &bar0, &bar2) == 0;
    report(early == -ETSOC1_HOST_ETIMEOUT && r && bar0 == BAR0 &&
           bar2 == BAR2, "READY only after iATU 3 (BAR0 0x%" PRIx64
           ", BAR2 0x%" PRIx64 ")", bar0, bar2);

    r = etsoc1_host_mmio_write(c->h, BAR0 + 0x100, &v, 8);
    card = qt(&c->q, "readq 0x%" PRIx64, DRAM_BAR0 + 0x100);
    qt(&c->q, "writeq 0x%" PRIx64 " 0xa1b2c3d4e5f60718", DRAM_BAR0 + 0x200);
    w = 0xa1b2c3d4e5f60718ull;
    for (i = 1; i <= 8; i *= 2) {
        memset(got, 0, sizeof(got));
        ok &= etsoc1_host_mmio_read(c->h, BAR0 + 0x200, got, i) == 0 &&
              !memcmp(got, &w, i);
    }
    for (i = 1; i <= 4; i *= 2) {       /* sub-word writes land alone */
        uint64_t z = 0;

        ok &= etsoc1_host_mmio_write(c->h, BAR0 + 0x300 + 8 * i, &z, i) == 0;
    }
    report(r == 0 && card == v && ok, "MMIO 1/2/4/8 bytes through iATU 0 "
           "(card saw 0x%" PRIx64 ")", card);
}

static void test_bulk(Card *c)
{
    uint32_t n = 3 * MIB + 5;
    uint8_t *a = malloc(n), *b = malloc(n);
    uint64_t probe;
    int rw, rr;

    fill(a, n, 3);
    rw = etsoc1_host_mmio_write(c->h, BAR0 + 0x100003, a, n);
    probe = qt(&c->q, "readq 0x%" PRIx64, DRAM_BAR0 + 0x100003 + 2 * MIB);
    rr = etsoc1_host_mmio_read(c->h, BAR0 + 0x100003, b, n);
    report(rw == 0 && rr == 0 && !memcmp(a, b, n) &&
           !memcmp(&probe, a + 2 * MIB, 8),
           "bulk MMIO of %u bytes (> 1 MiB, split), data checked "
           "(write %d, read %d)", n, rw, rr);
    free(a);
    free(b);
}

static void test_errors(Card *c)
{
    uint32_t v;
    uint16_t s;
    int r1, r2, r3, r4;

    r1 = etsoc1_host_mmio_read(c->h, BAR0 + BAR0_SIZE, &v, 4);
    r2 = etsoc1_host_mmio_write(c->h, 0x3000000000ull, &v, 4);
    r3 = etsoc1_host_mmio_read(c->h, BAR2 + 0x200c, &s, 2);
    r4 = etsoc1_host_mmio_read(c->h, BAR0, &v, 0);
    report(r1 == -ETSOC1_HOST_EDECODE && r2 == -ETSOC1_HOST_EDECODE &&
           (r3 == -ETSOC1_HOST_EACCESS || r3 == -ETSOC1_HOST_EDECODE) &&
           r4 == -ETSOC1_HOST_ELENGTH,
           "errors: unmapped read %d / write %d (DECODE), 2-byte BAR2 "
           "register read %d (docs: ACCESS; QEMU 7.2's memory API says "
           "DECODE), length 0 %d (%s)", r1, r2, r3, r4,
           etsoc1_host_strerror(r1));
}

static void test_doorbells(Card *c)
{
    uint32_t cnt1, cnt2, sp;
    char irqs[512];
    int r1, r2, r3;

    qt(&c->q, "irq_intercept_out /machine/pcie");
    c->q.irqs[0] = 0;
    r1 = etsoc1_host_doorbell(c->h, ETSOC1_HOST_MM);
    r2 = etsoc1_host_doorbell(c->h, ETSOC1_HOST_MM);
    cnt1 = qt(&c->q, "readl 0x%" PRIx64, TRG_PCIE + 0xc);
    qt(&c->q, "writel 0x%" PRIx64 " 1", PCI_INT_DEC);
    cnt2 = qt(&c->q, "readl 0x%" PRIx64, TRG_PCIE + 0xc);
    snprintf(irqs, sizeof(irqs), "%s", c->q.irqs);
    qt(&c->q, "writel 0x%" PRIx64 " 1", PCI_INT_DEC);
    report(r1 == 0 && r2 == 0 && cnt1 == 2 && cnt2 == 1 &&
           !strcmp(irqs, "raise 1;") &&
           !strcmp(c->q.irqs, "raise 1;lower 1;"),
           "MM doorbell: level while the count is > 0 (count %u then %u, "
           "irqs '%s')", cnt1, cnt2, irqs);
    c->q.irqs[0] = 0;
    r3 = etsoc1_host_doorbell(c->h, ETSOC1_HOST_SP);
    sp = qt(&c->q, "readl 0x%" PRIx64, TRG_PCIE);
    qt(&c->q, "writel 0x%" PRIx64 " 1", TRG_PCIE_SP);
    qt(&c->q, "readl 0x%" PRIx64, TRG_PCIE);
    report(r3 == 0 && sp == 1 &&
           !strcmp(c->q.irqs, "raise 0;lower 0;"),
           "SP doorbell: IPI_TRIGGER %u, line 0 up until IPI_CLEAR "
           "(irqs '%s'); invalid target %d", sp, c->q.irqs,
           etsoc1_host_doorbell(c->h, 5));
}

/* The card's DMA hammers the link while another thread sends MMIO. */
typedef struct Bg {
    Etsoc1Host *h;
    int result;
    uint32_t n;
} Bg;

static void *bg_mmio(void *opaque)
{
    Bg *bg = opaque;
    uint8_t *p = malloc(bg->n), *q = malloc(bg->n);
    int i;

    fill(p, bg->n, 99);
    bg->result = 0;
    for (i = 0; i < 4 && !bg->result; i++) {
        bg->result = etsoc1_host_mmio_write(bg->h, BAR0 + 0x2000000, p, bg->n);
        if (!bg->result) {
            bg->result = etsoc1_host_mmio_read(bg->h, BAR0 + 0x2000000, q,
                                               bg->n);
        }
        if (!bg->result && memcmp(p, q, bg->n)) {
            bg->result = -100;
        }
    }
    free(p);
    free(q);
    return NULL;
}

static void test_edma(Card *c)
{
    uint32_t n = MIB + 4096 + 8, st, st2, msi, msi0;
    uint8_t *card = malloc(n), *host = calloc(1, n), *back = malloc(n);
    Bg bg = { .h = c->h, .n = 6 * MIB };
    pthread_t t;

    fill(card, n, 11);
    etsoc1_host_mmio_write(c->h, BAR0 + 0x400000, card, n);
    msi0 = etsoc1_host_wait_msi(c->h, 0xf, 0);
    pthread_create(&t, NULL, bg_mmio, &bg);
    st = edma_run(&c->q, true, n, DRAM_BAR0 + 0x400000,
                  (uintptr_t)host);
    qt(&c->q, "writel 0x%" PRIx64 " 0x8", MSI_TX_VEC);
    qt(&c->q, "writel 0x%" PRIx64 " 0", MSI_TX_VEC);
    msi = etsoc1_host_wait_msi(c->h, 0xf, 5000);
    /* At the MSI, the data it announces is in host memory. */
    report(st == 1 && msi0 == 0 && msi == 8 && !memcmp(card, host, n),
           "eDMA card->host %u bytes into this process, data checked when "
           "the MSI arrives (status 0x%x, MSI 0x%x)", n, st, msi);

    fill(host, n, 23);
    st = edma_run(&c->q, false, n, (uintptr_t)host, DRAM_BAR0 + 0x800000);
    etsoc1_host_mmio_read(c->h, BAR0 + 0x800000, back, n);
    pthread_join(t, NULL);
    report(st == 1 && !memcmp(host, back, n),
           "eDMA host->card %u bytes from this process, data checked "
           "(status 0x%x)", n, st);
    report(bg.result == 0, "4 x %u bytes of MMIO from another thread "
           "meanwhile, no deadlock, data checked (%d)", bg.n, bg.result);

    etsoc1_host_set_memory(c->h, refuse, refuse, NULL);
    st = edma_run(&c->q, false, 4096, (uintptr_t)host, DRAM_BAR0);
    st2 = edma_run(&c->q, true, 4096, DRAM_BAR0, (uintptr_t)host);
    etsoc1_host_set_memory(c->h, NULL, NULL, NULL);
    report((st & 0x10000) && (st2 & 0x10000),
           "a refusing memory callback aborts the channel (read 0x%x, "
           "write 0x%x)", st, st2);

    st = edma_run(&c->q, true, 8, DRAM_BAR0 + 0x400000, (uintptr_t)host);
    qt(&c->q, "writel 0x%" PRIx64 " 0x3", MSI_TX_VEC);
    qt(&c->q, "writel 0x%" PRIx64 " 0", MSI_TX_VEC);
    msi = etsoc1_host_wait_msi(c->h, 0x1, 5000);
    msi0 = etsoc1_host_wait_msi(c->h, 0x2, 0);
    report(st == 1 && msi == 1 && msi0 == 2 &&
           etsoc1_host_wait_msi(c->h, 0xf, 50) == 0,
           "MSI bits: wait_msi returns and clears only its mask");
    free(card);
    free(host);
    free(back);
}

/* Many threads, many small requests: replies find their requests. */
typedef struct Small {
    Etsoc1Host *h;
    int id, bad;
} Small;

static void *small_io(void *opaque)
{
    Small *sm = opaque;
    uint64_t at = BAR0 + 0x3000000 + sm->id * 0x10000, v, got;
    int i;

    for (i = 0; i < 400; i++) {
        v = (uint64_t)sm->id << 32 | i;
        got = 0;
        if (etsoc1_host_mmio_write(sm->h, at + 8 * (i % 64), &v, 8) ||
            etsoc1_host_mmio_read(sm->h, at + 8 * (i % 64), &got, 8) ||
            got != v) {
            sm->bad++;
        }
    }
    return NULL;
}

static void test_threads(Card *c)
{
    Small sm[6];
    pthread_t t[6];
    int i, bad = 0;

    for (i = 0; i < 6; i++) {
        sm[i] = (Small) { .h = c->h, .id = i };
        pthread_create(&t[i], NULL, small_io, &sm[i]);
    }
    for (i = 0; i < 6; i++) {
        pthread_join(t[i], NULL);
        bad += sm[i].bad;
    }
    report(bad == 0, "6 threads x 400 write+read pairs of 8 bytes at "
           "once: %d wrong", bad);
}

static void test_pause_stop(Card *c)
{
    int p = etsoc1_host_pause(c->h), r = etsoc1_host_resume(c->h);
    int s, st = -1, i;
    uint32_t v;

    report(p == 0 && r == 0, "PAUSE %d, RESUME %d", p, r);
    s = etsoc1_host_stop(c->h);
    for (i = 0; i < 500 && waitpid(c->pid, &st, WNOHANG) != c->pid; i++) {
        sleep_ms(20);
    }
    report(s == 0 && i < 500 && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
           etsoc1_host_mmio_read(c->h, BAR0, &v, 4) == -ETSOC1_HOST_ELINK &&
           etsoc1_host_wait_msi(c->h, 0xf, -1) == 0 &&
           fatal_seen(NULL, 0) == 0,
           "STOP: QEMU exits 0, later calls fail with ELINK, no fatal "
           "callback (stop %d)", s);
    etsoc1_host_close(c->h);
    close(c->q.fd);
}

/*
 * Two cards in one process (one instance each, as Esperanto's runtime
 * opens one device per card): MMIO and MSIs reach only their own card.
 */
static void test_two_cards(const char *qemu)
{
    uint64_t v[2] = { 0xa1a1a1a1a1a1a1a1ull, 0xb2b2b2b2b2b2b2b2ull }, seen[2];
    uint32_t msi[2], late;
    Card c[2];
    int i, ready = 0, st;

    for (i = 0; i < 2; i++) {
        card_start(&c[i], qemu, 3 + i);
        map_bars(&c[i], false);
        map_bars(&c[i], true);
        ready += etsoc1_host_wait_ready(c[i].h, 5000, NULL, NULL) == 0;
    }
    for (i = 0; i < 2; i++) {
        etsoc1_host_mmio_write(c[i].h, BAR0 + 0x100, &v[i], 8);
    }
    for (i = 0; i < 2; i++) {
        seen[i] = qt(&c[i].q, "readq 0x%" PRIx64, DRAM_BAR0 + 0x100);
    }
    qt(&c[1].q, "writel 0x%" PRIx64 " 0x4", MSI_TX_VEC);
    qt(&c[1].q, "writel 0x%" PRIx64 " 0", MSI_TX_VEC);
    msi[1] = etsoc1_host_wait_msi(c[1].h, 0xf, 5000);
    msi[0] = etsoc1_host_wait_msi(c[0].h, 0xf, 200);
    qt(&c[0].q, "writel 0x%" PRIx64 " 0x2", MSI_TX_VEC);
    qt(&c[0].q, "writel 0x%" PRIx64 " 0", MSI_TX_VEC);
    late = etsoc1_host_wait_msi(c[0].h, 0xf, 5000);
    report(ready == 2 && seen[0] == v[0] && seen[1] == v[1] &&
           msi[1] == 0x4 && msi[0] == 0 && late == 0x2,
           "two cards in one process: each READY, MMIO and MSIs reach only "
           "their own card (0x%" PRIx64 ", 0x%" PRIx64 "; MSI %#x, %#x, %#x)",
           seen[0], seen[1], msi[1], msi[0], late);
    for (i = 0; i < 2; i++) {
        etsoc1_host_stop(c[i].h);
        waitpid(c[i].pid, &st, 0);
        etsoc1_host_close(c[i].h);
        close(c[i].q.fd);
    }
}

static void *wait_forever(void *opaque)
{
    Etsoc1Host *h = opaque;

    return (void *)(uintptr_t)etsoc1_host_wait_msi(h, 0xf, -1);
}

static void test_lost(Card *c)
{
    void *res = (void *)1;
    pthread_t t;
    uint32_t v;
    char why[256];
    int r;

    etsoc1_host_on_fatal(c->h, on_fatal, NULL);
    pthread_create(&t, NULL, wait_forever, c->h);
    sleep_ms(100);
    kill(c->pid, SIGKILL);
    waitpid(c->pid, NULL, 0);
    pthread_join(t, &res);
    r = etsoc1_host_mmio_read(c->h, BAR0, &v, 4);
    report(res == NULL && r == -ETSOC1_HOST_ELINK &&
           fatal_seen(why, sizeof(why)) == 1,
           "QEMU killed: wait_msi wakes, requests fail with ELINK, fatal "
           "callback once ('%s')", why);
    etsoc1_host_close(c->h);
    close(c->q.fd);
}

/* ---- a fake card: what QEMU would not send ------------------------------- */

typedef struct Fake {
    int lfd;
    int mode;
    char log[256];
} Fake;

static void put_hdr(uint8_t *p, uint32_t magic, uint8_t type,
                    uint16_t status, uint32_t len, uint32_t seq)
{
    memcpy(p, &magic, 4);
    p[4] = 1;
    p[5] = type;
    memcpy(p + 6, &status, 2);
    memcpy(p + 8, &len, 4);
    memcpy(p + 12, &seq, 4);
}

static bool recv_all(int fd, void *buf, size_t n)
{
    size_t got = 0;

    while (got < n) {
        ssize_t r = recv(fd, (uint8_t *)buf + got, n - got, 0);

        if (r <= 0) {
            return false;
        }
        got += r;
    }
    return true;
}

static void *fake_card(void *opaque)
{
    Fake *f = opaque;
    uint8_t h[16], p[64], out[64];
    uint32_t seq, len;
    int fd = accept_timeout(f->lfd, 10);

    if (fd < 0 || !recv_all(fd, h, 16) || !recv_all(fd, p, 8)) {
        return NULL;
    }
    memcpy(&seq, h + 12, 4);
    put_hdr(out, 0x4c485445, 0x81, 0, 8, seq);
    memcpy(out + 16, p, 8);
    send(fd, out, 24, MSG_NOSIGNAL);
    /* the host's next request (an MMIO read) is left unanswered */
    if (!recv_all(fd, h, 16)) {
        return NULL;
    }
    memcpy(&len, h + 8, 4);
    recv_all(fd, p, len);
    if (f->mode == 2) {
        /* HOSTMEM_READ of 0 bytes: LENGTH status, link stays */
        uint64_t addr = 0x1000;
        uint32_t zero = 0;

        put_hdr(out, 0x4c485445, 0x12, 0, 12, 77);
        memcpy(out + 16, &addr, 8);
        memcpy(out + 24, &zero, 4);
        send(fd, out, 28, MSG_NOSIGNAL);
        if (recv_all(fd, h, 16)) {
            uint16_t st;

            memcpy(&st, h + 6, 2);
            memcpy(&seq, h + 12, 4);
            snprintf(f->log, sizeof(f->log), "reply 0x%x status %u seq %u",
                     h[5], st, seq);
        }
    }
    if (f->mode == 0) {
        put_hdr(out, 0x4c485445, 0x14, 0, 9, 5);
        memcpy(out + 16, "test says", 9);
        send(fd, out, 25, MSG_NOSIGNAL);
    } else if (f->mode == 1 || f->mode == 2) {
        put_hdr(out, 0x12345678, 0x11, 0, 4, 5);
        send(fd, out, 20, MSG_NOSIGNAL);
    } else if (f->mode == 3) {
        put_hdr(out, 0x4c485445, 0x82, 0, 4, 999);  /* no such request */
        send(fd, out, 20, MSG_NOSIGNAL);
    } else {
        put_hdr(out, 0x4c485445, 0x13, 0, 1 << 24, 5);  /* too long */
        send(fd, out, 16, MSG_NOSIGNAL);
    }
    sleep_ms(200);
    close(fd);
    return NULL;
}

static void test_fake(int mode, const char *what, const char *want)
{
    char path[96];
    Fake f = { .mode = mode };
    Etsoc1Host *h = NULL;
    pthread_t t;
    uint32_t v;
    char why[256];
    int r = -1, c, calls;

    snprintf(path, sizeof(path), "%s/fake%d.sock", tmp, mode);
    f.lfd = listen_unix(path);
    pthread_create(&t, NULL, fake_card, &f);
    c = etsoc1_host_connect(path, &h);
    pthread_mutex_lock(&fatal_lock);
    fatal_calls = 0;
    fatal_why[0] = 0;
    pthread_mutex_unlock(&fatal_lock);
    if (c == 0) {
        etsoc1_host_on_fatal(h, on_fatal, NULL);
        r = etsoc1_host_mmio_read(h, BAR0, &v, 4);
    }
    pthread_join(t, NULL);
    close(f.lfd);
    calls = fatal_seen(why, sizeof(why));
    report(c == 0 && r == -ETSOC1_HOST_ELINK && calls == 1 &&
           strstr(why, want) &&
           (mode != 2 || !strcmp(f.log, "reply 0x92 status 3 seq 77")),
           "fake card, %s: the waiting request fails with ELINK, fatal "
           "callback '%s' %s", what, why, f.log);
    etsoc1_host_close(h);
}

int main(void)
{
    const char *qemu = getenv("ETSOC1_QEMU");
    Etsoc1HostOptions o = { 0 };
    Etsoc1Host *h = NULL;
    Card c;
    int r;

    if (!qemu || access(qemu, X_OK)) {
        printf("Bail out! set ETSOC1_QEMU to qemu-system-riscv64\n");
        return 1;
    }
    snprintf(tmp, sizeof(tmp), "/tmp/etsoc1-libtest-XXXXXX");
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);

    card_start(&c, qemu, 1);
    report(true, "connect and HELLO(HOSTMEM) to QEMU under qtest");
    test_ready_mmio(&c);
    test_bulk(&c);
    test_errors(&c);
    test_doorbells(&c);
    test_edma(&c);
    test_threads(&c);
    test_pause_stop(&c);

    card_start(&c, qemu, 2);
    test_lost(&c);
    test_two_cards(qemu);

    test_fake(0, "FATAL", "FATAL from the card: test says");
    test_fake(1, "bad magic", "bad frame header");
    test_fake(2, "HOSTMEM_READ of 0 bytes answered LENGTH, then bad magic",
              "bad frame header");
    test_fake(3, "reply to no request", "malformed reply");
    test_fake(4, "oversize length", "bad frame header");

    o.qemu = qemu;
    o.guest_dir = "/nonexistent";
    o.run_dir = tmp;
    o.ready_timeout_ms = 20000;
    r = etsoc1_host_start(&o, &h);
    report(r == -ETSOC1_HOST_ESPAWN && !h,
           "start with missing firmware: %d (%s), no instance", r,
           etsoc1_host_strerror(r));
    o.qemu = "/nonexistent/qemu";
    r = etsoc1_host_start(&o, &h);
    report(r == -ETSOC1_HOST_ESPAWN, "start with a missing QEMU: %d", r);
    {
        /* DRAM sizes a card cannot have: refused before anything starts */
        static const unsigned bad[] = { 512, 1000, 32768 + 256 };

        o.qemu = qemu;
        o.guest_dir = "/nonexistent";
        for (unsigned k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
            o.dram_mib = bad[k];
            r = etsoc1_host_start(&o, &h);
            report(r == -ETSOC1_HOST_EINVAL && !h,
                   "start with dram_mib %u: %d (EINVAL), no instance",
                   bad[k], r);
        }
        o.dram_mib = 0;
        setenv("ETSOC1_DRAM_MIB", "32G", 1);
        r = etsoc1_host_start(&o, &h);
        report(r == -ETSOC1_HOST_EINVAL && !h,
               "start with ETSOC1_DRAM_MIB=32G (not a number of MiB): %d "
               "(EINVAL)", r);
        unsetenv("ETSOC1_DRAM_MIB");
    }

    printf("1..%d\n", test_no);
    return failures ? 1 : 0;
}
