/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libetsoc1-host: starting and stopping the QEMU that emulates the card
 * (the command line of contract section 1, docs/host-library.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "host-internal.h"

/* The meson/CMake build may say where build/ is; else relative. */
#ifndef ETSOC1_HOST_BUILD_ROOT
#define ETSOC1_HOST_BUILD_ROOT "build"
#endif

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

    nanosleep(&ts, NULL);
}

static char *dup_printf(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + (b ? strlen(b) : 0) + 1;
    char *s = malloc(n);

    if (s) {
        snprintf(s, n, fmt, a, b);
    }
    return s;
}

/*
 * QEMU's environment: ours, with glibc's heap on transparent huge pages
 * (docs/architecture.md, "Thousands of vCPUs": the card's 2,113 harts
 * start in about two thirds of the time).  The dynamic loader reads the
 * tunable before QEMU runs, so it is set here; a GLIBC_TUNABLES of the
 * caller's is kept, the tunable added unless it names it.  NULL-terminated,
 * the array and its last string malloc'd (*@tun, for the caller to free).
 */
#define HOST_HUGE_HEAP "glibc.malloc.hugetlb=1"

static char **qemu_environ(char **tun)
{
    extern char **environ;
    const char *old = getenv("GLIBC_TUNABLES");
    size_t n = 0, i, j = 0;
    char **env;

    while (environ[n]) {
        n++;
    }
    env = calloc(n + 2, sizeof(*env));
    *tun = !old ? strdup("GLIBC_TUNABLES=" HOST_HUGE_HEAP) :
           strstr(old, "glibc.malloc.hugetlb") ?
           dup_printf("GLIBC_TUNABLES=%s%s", old, "") :
           dup_printf("GLIBC_TUNABLES=%s:%s", old, HOST_HUGE_HEAP);
    if (!env || !*tun) {
        free(env);
        free(*tun);
        *tun = NULL;
        return NULL;
    }
    for (i = 0; i < n; i++) {
        if (strncmp(environ[i], "GLIBC_TUNABLES=", 15)) {
            env[j++] = environ[i];
        }
    }
    env[j++] = *tun;
    env[j] = NULL;
    return env;
}

static int unix_connect(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        int e = errno;

        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int etsoc1_host_connect(const char *socket_path, Etsoc1Host **out)
{
    Etsoc1Host *h;
    int fd, r;

    if (!socket_path || !out) {
        return -ETSOC1_HOST_EINVAL;
    }
    *out = NULL;
    fd = unix_connect(socket_path);
    if (fd < 0) {
        return -ETSOC1_HOST_ESPAWN;
    }
    h = host_alloc();
    if (!h) {
        close(fd);
        return -ETSOC1_HOST_ESPAWN;
    }
    r = host_link_open(h, fd);
    if (r < 0) {
        host_free(h);
        return r;
    }
    *out = h;
    return 0;
}

/* Has the child exited?  Reaps it and keeps its wait status. */
static bool child_gone(Etsoc1Host *h)
{
    if (h->pid > 0 && waitpid(h->pid, &h->wstatus, WNOHANG) == h->pid) {
        h->pid = 0;
        h->reaped = true;
        return true;
    }
    return false;
}

/*
 * QEMU is gone (reaped): say how at the end of its log, at a failed start
 * or a stop (a crash is silent otherwise).
 */
static void note_exit(Etsoc1Host *h)
{
    char *log = dup_printf("%s/qemu.log%s", h->run_dir, "");
    FILE *f;

    if (!log || !h->reaped || !(f = fopen(log, "a"))) {
        free(log);
        return;
    }
    if (WIFSIGNALED(h->wstatus)) {
        fprintf(f, "libetsoc1-host: QEMU was killed by signal %d\n",
                WTERMSIG(h->wstatus));
    } else {
        fprintf(f, "libetsoc1-host: QEMU exited with status %d\n",
                WEXITSTATUS(h->wstatus));
    }
    fclose(f);
    free(log);
}

static void kill_child(Etsoc1Host *h, unsigned wait_ms)
{
    uint64_t end = host_now_ms() + wait_ms;

    while (h->pid > 0 && !child_gone(h)) {
        if (host_now_ms() >= end) {
            kill(h->pid, SIGKILL);
            waitpid(h->pid, NULL, 0);
            h->pid = 0;
            break;
        }
        sleep_ms(10);
    }
}

/*
 * The card's DRAM in MiB: @mib, else $ETSOC1_DRAM_MIB, else the card's
 * 32 GiB; 0 if out of range (the caller's EINVAL).
 */
static unsigned dram_mib(unsigned mib)
{
    const char *env = getenv("ETSOC1_DRAM_MIB");

    if (!mib && env && *env) {
        char *end;
        unsigned long v = strtoul(env, &end, 10);

        mib = *end || v > ETSOC1_HOST_DRAM_MIB_MAX ? 1 : (unsigned)v;
    }
    if (!mib) {
        mib = ETSOC1_HOST_DRAM_MIB_DEFAULT;
    }
    if (mib < ETSOC1_HOST_DRAM_MIB_MIN || mib > ETSOC1_HOST_DRAM_MIB_MAX ||
        mib % ETSOC1_HOST_DRAM_MIB_STEP) {
        return 0;
    }
    return mib;
}

int etsoc1_host_start(const Etsoc1HostOptions *o, Etsoc1Host **out)
{
    Etsoc1HostOptions none = { 0 };
    const char *qemu, *gdir, *env;
    char *qemu_def = NULL, *gdir_def = NULL, *args[64], *own[16], pid[48];
    char *tun = NULL, **envp = NULL;
    char mem[32], backend[96];
    unsigned mib;
    int nargs = 0, nown = 0, fd = -1, r = -ETSOC1_HOST_ESPAWN, logfd, i;
    Etsoc1Host *h;
    uint64_t end;

    if (!out) {
        return -ETSOC1_HOST_EINVAL;
    }
    *out = NULL;
    o = o ? o : &none;
    mib = dram_mib(o->dram_mib);
    if (!mib) {
        return -ETSOC1_HOST_EINVAL;
    }
    h = host_alloc();
    if (!h) {
        return -ETSOC1_HOST_ESPAWN;
    }
    if (o->ready_timeout_ms) {
        h->ready_timeout_ms = o->ready_timeout_ms;
    }
    env = getenv("ETSOC1_QEMU");
    qemu = o->qemu ? o->qemu : env && *env ? env : NULL;
    if (!qemu) {
        qemu = qemu_def = dup_printf("%s/qemu-build/qemu-system-riscv64",
                                     ETSOC1_HOST_BUILD_ROOT, NULL);
    }
    env = getenv("ETSOC1_GUEST_DIR");
    gdir = o->guest_dir ? o->guest_dir : env && *env ? env : NULL;
    if (!gdir) {
        gdir = gdir_def = dup_printf("%s/guest", ETSOC1_HOST_BUILD_ROOT,
                                     NULL);
    }
    if (o->run_dir) {
        h->run_dir = strdup(o->run_dir);
        mkdir(h->run_dir, 0700);
    } else {
        const char *tmp = getenv("TMPDIR");

        h->run_dir = dup_printf("%s/etsoc1-host-XXXXXX",
                                tmp && *tmp ? tmp : "/tmp", NULL);
        if (h->run_dir && !mkdtemp(h->run_dir)) {
            free(h->run_dir);
            h->run_dir = NULL;
        }
    }
    if (!qemu || !gdir || !h->run_dir || access(qemu, X_OK) < 0) {
        goto out;
    }

    /* The card's command line (contract section 1). */
#define OWN(s) (own[nown++] = (s))
    args[nargs++] = (char *)qemu;
    args[nargs++] = "-M";
    args[nargs++] = OWN(dup_printf("etsoc1,shires=33,sp-firmware=%s/"
                                   "etsoc1-sp.elf%s", gdir,
                                   ",hostlink=hl,memory-backend=etsoc1-dram"));
    args[nargs++] = "-smp";
    args[nargs++] = "2113";     /* 64 x 33 minions + the SP */
    /*
     * The card's DRAM, not reserved: -m alone would make QEMU reserve all
     * of it (32 GiB) from the host at start-up, which a smaller host
     * refuses; pages are only used as the card touches them.
     */
    snprintf(mem, sizeof(mem), "%uM", mib);
    snprintf(backend, sizeof(backend), "memory-backend-ram,id=etsoc1-dram,"
             "size=%uM,reserve=off", mib);
    args[nargs++] = "-m";
    args[nargs++] = mem;
    args[nargs++] = "-object";
    args[nargs++] = backend;
    args[nargs++] = "-bios";
    args[nargs++] = OWN(dup_printf("%s/etsoc1-fw.elf%s", gdir, ""));
    args[nargs++] = "-display";
    args[nargs++] = "none";
    args[nargs++] = "-chardev";
    args[nargs++] = OWN(dup_printf("socket,id=hl,path=%s/hl.sock%s",
                                   h->run_dir, ",server=on,wait=off"));
    args[nargs++] = "-serial";
    args[nargs++] = OWN(dup_printf("file:%s/pu0.log%s", h->run_dir, ""));
    args[nargs++] = "-serial";
    args[nargs++] = OWN(dup_printf("file:%s/pu1.log%s", h->run_dir, ""));
    args[nargs++] = "-serial";
    args[nargs++] = OWN(dup_printf("file:%s/sp0.log%s", h->run_dir, ""));
    /*
     * No orphan card (docs/host-library.md): QEMU exits when the link
     * closes or when this process is gone, however it ends.
     */
    snprintf(pid, sizeof(pid), "etsoc1-hostlink.host-pid=%ld",
             (long)getpid());
    args[nargs++] = "-global";
    args[nargs++] = "etsoc1-hostlink.exit-on-close=on";
    args[nargs++] = "-global";
    args[nargs++] = pid;
#undef OWN
    for (i = 0; o->extra_args && o->extra_args[i]; i++) {
        if (nargs >= (int)(sizeof(args) / sizeof(args[0])) - 1) {
            goto out;
        }
        args[nargs++] = (char *)o->extra_args[i];
    }
    args[nargs] = NULL;
    for (i = 0; i < nown; i++) {
        if (!own[i]) {
            goto out;
        }
    }

    {
        char *log = dup_printf("%s/qemu.log%s", h->run_dir, "");
        char *sock = dup_printf("%s/hl.sock%s", h->run_dir, "");

        envp = qemu_environ(&tun);
        if (!log || !sock || !envp) {
            free(log);
            free(sock);
            goto out;
        }
        unlink(sock);
        logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        free(log);
        if (logfd < 0) {
            free(sock);
            goto out;
        }
        /* Only async-signal-safe calls between fork and exec. */
        h->pid = fork();
        if (h->pid == 0) {
            int nul = open("/dev/null", O_RDONLY);

            dup2(nul, 0);
            dup2(logfd, 1);
            dup2(logfd, 2);
            execve(qemu, args, envp);
            _exit(127);
        }
        close(logfd);
        if (h->pid < 0) {
            h->pid = 0;
            free(sock);
            goto out;
        }

        /* QEMU creates the socket once it is up. */
        end = host_now_ms() + h->ready_timeout_ms;
        while ((fd = unix_connect(sock)) < 0) {
            if (child_gone(h) || host_now_ms() >= end) {
                break;
            }
            sleep_ms(20);
        }
        free(sock);
    }
    if (fd < 0) {
        kill_child(h, 0);
        goto out;
    }
    r = host_link_open(h, fd);
    if (r == 0) {
        *out = h;
    } else if (r == -ETSOC1_HOST_ELINK) {
        r = -ETSOC1_HOST_ESPAWN;    /* QEMU went away at once: see the log */
        kill_child(h, 1000);
    }
out:
    for (i = 0; i < nown; i++) {
        free(own[i]);
    }
    free(qemu_def);
    free(gdir_def);
    free(envp);
    free(tun);
    if (r < 0) {
        child_gone(h);
        kill_child(h, 0);
        if (h->run_dir) {
            note_exit(h);
        }
        host_free(h);
    }
    return r;
}

int etsoc1_host_stop(Etsoc1Host *h)
{
    bool dead, ours;
    int r = 0;

    if (!h) {
        return -ETSOC1_HOST_EINVAL;
    }
    pthread_mutex_lock(&h->lock);
    /* From here on the link's end is expected, not fatal. */
    h->stopping = true;
    pthread_cond_broadcast(&h->cond);
    dead = h->dead;
    pthread_mutex_unlock(&h->lock);
    if (!dead) {
        r = host_request(h, HL_STOP, NULL, 0, NULL, 0, NULL, 0);
    }
    /* QEMU exits after its reply; give it a bounded time. */
    ours = h->pid > 0;
    kill_child(h, r == 0 ? HOST_STOP_WAIT_MS : 0);
    if (ours && h->run_dir) {
        note_exit(h);
    }
    host_link_shutdown(h);
    return r;
}

void etsoc1_host_close(Etsoc1Host *h)
{
    if (!h) {
        return;
    }
    if (h->pid > 0) {
        etsoc1_host_stop(h);
    }
    pthread_mutex_lock(&h->lock);
    h->stopping = true;
    pthread_mutex_unlock(&h->lock);
    host_free(h);
}

const char *etsoc1_host_run_dir(Etsoc1Host *h)
{
    return h ? h->run_dir : NULL;
}
