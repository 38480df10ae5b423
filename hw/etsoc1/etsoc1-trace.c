/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1: the emulated-time timeline (machine property
 * trace-json, docs/trace.md).
 *
 * A Chrome trace-event file ({"traceEvents": [...]}) that Perfetto and
 * chrome://tracing open: one process per shire and one for the PCIe
 * side, one thread per hart and per eDMA channel; complete slices ("X")
 * for waits and transfers, flows ("s"/"f") from each delivery's sender to
 * its receiver, counters ("C") of credits.  Times are the model's: minion
 * cycles at clock-mhz, written in microseconds.
 *
 * Many vCPU threads write, some without the BQL (CSRs), so every write
 * is under one mutex; with no file every entry point returns before
 * taking it.  The file is one per QEMU process, like the stdio it is, so
 * its state is file-scope here rather than a machine field.  After
 * trace-json-max-events events the trace stops (a bounded file for long
 * runs) and the end of the file says how many were dropped; the file is
 * completed by an atexit handler, so it is valid JSON also when a guest
 * ends the run with exit().
 */

#include "qemu/osdep.h"
#include "qemu/thread.h"
#include "qapi/error.h"
#include "sysemu/runstate.h"
#include "hw/etsoc1/etsoc1-map.h"
#include "hw/etsoc1/etsoc1-trace.h"

/* the PCIe/eDMA side's process: after every shire id */
#define TRACE_PID_PCIE ETSOC1_MAX_SHIRES
#define TRACE_DMA_CHANNELS 4        /* per direction (etsoc1-pcie.h) */
/* a WFI: no Etsoc1Wait of its own (the stock helper halts the hart) */
#define TRACE_WAIT_WFI (ETSOC1_WAIT_HOST + 1)

typedef struct Etsoc1TraceWait {
    uint8_t why;                    /* Etsoc1Wait; NONE: not waiting */
    uint64_t start;
    int64_t arg;                    /* what the wait is on, by kind */
} Etsoc1TraceWait;

static struct {
    QemuMutex lock;
    FILE *f;
    uint32_t mhz;
    uint64_t max_events;            /* 0: no limit */
    uint64_t events, dropped, flows;
    uint64_t last;                  /* the latest time written (cycles) */
    bool first;
    bool pid_named[TRACE_PID_PCIE + 1];
    bool hart_named[ETSOC1_MAX_HARTS];
    bool dma_named[2][TRACE_DMA_CHANNELS];
    bool host_named;
    uint64_t dma_start[2][TRACE_DMA_CHANNELS];
    Etsoc1TraceWait wait[ETSOC1_MAX_HARTS];
} tr;

static const char *const ev_kind[] = {
    [ETSOC1_EV_CREDIT] = "credit", [ETSOC1_EV_READY] = "ready",
    [ETSOC1_EV_MESSAGE] = "message", [ETSOC1_EV_IPI] = "ipi",
};

/* What each wait is called on its slice, and what its arg means */
static const struct {
    const char *name, *arg;
} wait_kind[] = {
    [ETSOC1_WAIT_FCC0] = { "credit (fcc 0)", "counter" },
    [ETSOC1_WAIT_FCC1] = { "credit (fcc 1)", "counter" },
    [ETSOC1_WAIT_STALL] = { "stall (WFI)", NULL },
    [ETSOC1_WAIT_REDUCE] = { "tensor op (transfer, f registers)", NULL },
    [ETSOC1_WAIT_COOP] = { "cooperative TensorLoad", NULL },
    [ETSOC1_WAIT_POLL] = { "poll", "pa" },
    [ETSOC1_WAIT_GATE] = { "read gate", "at" },
    [ETSOC1_WAIT_HOST] = { "host input", "at" },
    [TRACE_WAIT_WFI] = { "WFI (until an interrupt)", NULL },
};

static double us(uint64_t cycles)
{
    return (double)cycles / tr.mhz;
}

static void G_GNUC_PRINTF(1, 2) put(const char *fmt, ...)
{
    va_list ap;

    if (!tr.f) {
        return;             /* closed: QEMU is exiting */
    }
    fputs(tr.first ? "\n" : ",\n", tr.f);
    tr.first = false;
    va_start(ap, fmt);
    vfprintf(tr.f, fmt, ap);
    va_end(ap);
}

/* Room for @n more events (a flow is 4, written whole or not at all)? */
static bool room(unsigned n)
{
    if (!tr.f) {
        return false;
    }
    if (tr.max_events && tr.events + n > tr.max_events) {
        tr.dropped += n;
        return false;
    }
    tr.events += n;
    return true;
}

static void seen(uint64_t t)
{
    tr.last = MAX(tr.last, t);
}

static void name_pid(unsigned pid)
{
    if (tr.pid_named[pid]) {
        return;
    }
    tr.pid_named[pid] = true;
    if (pid == TRACE_PID_PCIE) {
        put("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"tid\":0,"
            "\"args\":{\"name\":\"PCIe / eDMA\"}}", pid);
    } else {
        put("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"tid\":0,"
            "\"args\":{\"name\":\"%s %u\"}}", pid,
            pid == ETSOC1_MASTER_SHIRE ? "master shire" :
            pid == ETSOC1_SPARE_SHIRE ? "spare shire" : "shire", pid);
    }
    put("{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%u,\"tid\":0,"
        "\"args\":{\"sort_index\":%u}}", pid, pid);
}

/* The track of hart @h, named on first use; false if there is none. */
static bool hart_track(uint32_t h)
{
    if (h >= ETSOC1_MAX_HARTS) {
        return false;
    }
    name_pid(h / ETSOC1_HARTS_PER_SHIRE);
    if (!tr.hart_named[h]) {
        tr.hart_named[h] = true;
        put("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,"
            "\"args\":{\"name\":\"hart %u (minion %u.%u)\"}}",
            h / ETSOC1_HARTS_PER_SHIRE, h, h,
            h % ETSOC1_HARTS_PER_SHIRE / 2, h % 2);
        put("{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%u,"
            "\"tid\":%u,\"args\":{\"sort_index\":%u}}",
            h / ETSOC1_HARTS_PER_SHIRE, h, h % ETSOC1_HARTS_PER_SHIRE);
    }
    return true;
}

/*
 * Complete the file: at a shutdown request (the vCPUs may still run and
 * find it closed), at exit(), or before a card powers off with _exit().
 */
void etsoc1_trace_close(void)
{
    uint32_t h;

    if (!qatomic_read(&tr.f)) {
        return;     /* no trace-json (tr.lock is not even initialised) */
    }
    qemu_mutex_lock(&tr.lock);
    if (!tr.f) {
        qemu_mutex_unlock(&tr.lock);
        return;
    }
    /* waits still open when the run ended: up to the last time seen */
    for (h = 0; h < ETSOC1_MAX_HARTS; h++) {
        Etsoc1TraceWait *w = &tr.wait[h];

        if (w->why && hart_track(h)) {
            put("{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"wait\",\"pid\":%u,"
                "\"tid\":%u,\"ts\":%.6f,\"dur\":%.6f,\"args\":{\"start\":%"
                PRIu64 ",\"unfinished\":true}}", wait_kind[w->why].name,
                h / ETSOC1_HARTS_PER_SHIRE, h, us(w->start),
                us(MAX(tr.last, w->start) - w->start), w->start);
        }
    }
    if (tr.dropped) {
        put("{\"ph\":\"i\",\"s\":\"g\",\"name\":\"trace cut after %" PRIu64
            " events: %" PRIu64 " dropped\",\"cat\":\"trace\",\"pid\":0,"
            "\"tid\":0,\"ts\":%.6f,\"args\":{\"max_events\":%" PRIu64
            ",\"dropped\":%" PRIu64 "}}", tr.events, tr.dropped,
            us(tr.last), tr.max_events, tr.dropped);
    }
    fprintf(tr.f, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{"
            "\"clock_mhz\":%u,\"events\":%" PRIu64 ",\"max_events\":%" PRIu64
            ",\"dropped\":%" PRIu64 ",\"cut\":%s}}\n", tr.mhz, tr.events,
            tr.max_events, tr.dropped, tr.dropped ? "true" : "false");
    fclose(tr.f);
    tr.f = NULL;
    qemu_mutex_unlock(&tr.lock);
}

static void tr_shutdown_notify(Notifier *n, void *data)
{
    etsoc1_trace_close();
}

static Notifier tr_shutdown = { .notify = tr_shutdown_notify };

bool etsoc1_trace_open(const char *path, uint64_t max_events,
                       uint32_t clock_mhz, Error **errp)
{
    if (!path) {
        return true;
    }
    qemu_mutex_init(&tr.lock);
    tr.f = fopen(path, "w");
    if (!tr.f) {
        error_setg_errno(errp, errno, "trace-json: cannot write '%s'", path);
        return false;
    }
    tr.mhz = clock_mhz;
    tr.max_events = max_events;
    tr.first = true;
    fputs("{\"traceEvents\":[", tr.f);
    atexit(etsoc1_trace_close);
    qemu_register_shutdown_notifier(&tr_shutdown);
    return true;
}

/*
 * A delivery: a marker slice on the sender's track when it left, one on
 * the receiver's when it arrived, and a flow between them.  Callers hold
 * the BQL, but the hart threads write too, so the lock.
 */
void etsoc1_trace_json(const Etsoc1Event *ev)
{
    const char *k = ev_kind[ev->kind];
    unsigned sp, dp;
    uint64_t id;

    if (!qatomic_read(&tr.f) || ev->src == ETSOC1_EV_NO_HART) {
        return;
    }
    sp = ev->src / ETSOC1_HARTS_PER_SHIRE;
    dp = ev->dst / ETSOC1_HARTS_PER_SHIRE;
    qemu_mutex_lock(&tr.lock);
    if (hart_track(ev->src) && hart_track(ev->dst) && room(4)) {
        id = ++tr.flows;
        seen(ev->time);
        put("{\"ph\":\"X\",\"name\":\"send %s to hart %u\",\"cat\":\"%s\","
            "\"pid\":%u,\"tid\":%u,\"ts\":%.6f,\"dur\":0,\"args\":{\"dst\":%u,"
            "\"sent\":%" PRIu64 "}}", k, ev->dst, k, sp, ev->src,
            us(ev->sent), ev->dst, ev->sent);
        put("{\"ph\":\"s\",\"name\":\"%s\",\"cat\":\"%s\",\"id\":%" PRIu64
            ",\"pid\":%u,\"tid\":%u,\"ts\":%.6f}", k, k, id, sp, ev->src,
            us(ev->sent));
        put("{\"ph\":\"X\",\"name\":\"%s from hart %u\",\"cat\":\"%s\","
            "\"pid\":%u,\"tid\":%u,\"ts\":%.6f,\"dur\":0,\"args\":{\"src\":%u,"
            "\"sent\":%" PRIu64 ",\"arrival\":%" PRIu64 ",\"latency\":%"
            PRId64 "}}", k, ev->src, k, dp, ev->dst, us(ev->time), ev->src,
            ev->sent, ev->time, (int64_t)(ev->time - ev->sent));
        put("{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"%s\",\"cat\":\"%s\","
            "\"id\":%" PRIu64 ",\"pid\":%u,\"tid\":%u,\"ts\":%.6f}", k, k, id,
            dp, ev->dst, us(ev->time));
    }
    qemu_mutex_unlock(&tr.lock);
}

/*
 * Write the slice of @h's wait @w, ending at @end; the wait is over.  A
 * wait that cost no emulated time (its wake had already arrived) is
 * not shown.
 */
static void wait_slice(uint32_t h, Etsoc1TraceWait *w, uint64_t end)
{
    char arg[48] = "";

    if (end > w->start && room(1)) {
        seen(end);
        if (wait_kind[w->why].arg) {
            snprintf(arg, sizeof(arg), ",\"%s\":%" PRId64,
                     wait_kind[w->why].arg, w->arg);
        }
        put("{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"wait\",\"pid\":%u,"
            "\"tid\":%u,\"ts\":%.6f,\"dur\":%.6f,\"args\":{\"start\":%" PRIu64
            ",\"end\":%" PRIu64 ",\"cycles\":%" PRIu64 "%s}}",
            wait_kind[w->why].name, h / ETSOC1_HARTS_PER_SHIRE, h,
            us(w->start), us(end - w->start), w->start, end, end - w->start,
            arg);
    }
    qatomic_set(&w->why, ETSOC1_WAIT_NONE);
}

void etsoc1_trace_wait_begin(uint32_t h, uint64_t now, unsigned why,
                             int64_t arg)
{
    Etsoc1TraceWait *w;

    if (!qatomic_read(&tr.f) || h >= ETSOC1_MAX_HARTS ||
        why >= ARRAY_SIZE(wait_kind) || !wait_kind[why].name) {
        return;
    }
    qemu_mutex_lock(&tr.lock);
    w = &tr.wait[h];
    if (w->why != why && hart_track(h)) {
        if (w->why) {
            /* a wait that turned into another (a credit, then the gate) */
            wait_slice(h, w, now);
        }
        qatomic_set(&w->why, why);
        w->start = now;
        w->arg = arg;
    }
    qemu_mutex_unlock(&tr.lock);
}

/*
 * @wake: the hart takes an interrupt, which ends a WFI too.  Elsewhere a
 * hart that runs while a WFI is open left it some other way (a reset
 * release, a WFI that took no interrupt): that WFI is dropped, since its
 * clock stood still and no arrival ended it.
 */
static void wait_end(uint32_t h, uint64_t now, bool wake)
{

    /* only the hart's own thread sets its wait: no lock to find none */
    if (!qatomic_read(&tr.f) || h >= ETSOC1_MAX_HARTS ||
        !qatomic_read(&tr.wait[h].why)) {
        return;
    }
    qemu_mutex_lock(&tr.lock);
    if (tr.wait[h].why == TRACE_WAIT_WFI && !wake) {
        qatomic_set(&tr.wait[h].why, ETSOC1_WAIT_NONE);
    } else if (tr.wait[h].why) {
        wait_slice(h, &tr.wait[h], now);
    }
    qemu_mutex_unlock(&tr.lock);
}

void etsoc1_trace_wait_end(uint32_t hart, uint64_t now)
{
    wait_end(hart, now, false);
}

void etsoc1_trace_wake(uint32_t hart, uint64_t now)
{
    wait_end(hart, now, true);
}

void etsoc1_trace_wait_until(uint32_t h, uint64_t now, unsigned why,
                             uint64_t to, int64_t arg)
{
    Etsoc1TraceWait w = {
        .why = why, .start = now, .arg = arg,
    };

    if (!qatomic_read(&tr.f) || h >= ETSOC1_MAX_HARTS) {
        return;
    }
    qemu_mutex_lock(&tr.lock);
    if (tr.wait[h].why && tr.wait[h].why != why) {
        /* the gate before a credit: its own slice (the clock stood still) */
        wait_slice(h, &tr.wait[h], w.start);
    }
    qatomic_set(&tr.wait[h].why, ETSOC1_WAIT_NONE);
    if (to > w.start && hart_track(h)) {
        wait_slice(h, &w, to);
    }
    qemu_mutex_unlock(&tr.lock);
}

void etsoc1_trace_wfi(uint32_t h, uint64_t now, bool over, bool waiting)
{
    uint8_t open;

    if (!qatomic_read(&tr.f) || h >= ETSOC1_MAX_HARTS) {
        return;
    }
    open = qatomic_read(&tr.wait[h].why);
    if (over && open == TRACE_WAIT_WFI) {
        qemu_mutex_lock(&tr.lock);
        qatomic_set(&tr.wait[h].why, ETSOC1_WAIT_NONE);     /* no time */
        qemu_mutex_unlock(&tr.lock);
    } else if (!over && !open && !waiting) {
        etsoc1_trace_wait_begin(h, now, TRACE_WAIT_WFI, 0);
    }
}

void etsoc1_trace_span(uint32_t h, const char *name,
                       uint64_t from, uint64_t to, int64_t arg)
{
    if (!qatomic_read(&tr.f) || to <= from) {
        return;
    }
    qemu_mutex_lock(&tr.lock);
    if (hart_track(h) && room(1)) {
        seen(to);
        put("{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"wait\",\"pid\":%u,"
            "\"tid\":%u,\"ts\":%.6f,\"dur\":%.6f,\"args\":{\"start\":%" PRIu64
            ",\"end\":%" PRIu64 ",\"cycles\":%" PRIu64 ",\"arg\":%" PRId64
            "}}", name, h / ETSOC1_HARTS_PER_SHIRE, h, us(from),
            us(to - from), from, to, to - from, arg);
    }
    qemu_mutex_unlock(&tr.lock);
}

void etsoc1_trace_credits(uint32_t hart, unsigned counter, uint64_t t,
                          unsigned value)
{
    if (!qatomic_read(&tr.f)) {
        return;
    }
    qemu_mutex_lock(&tr.lock);
    if (hart_track(hart) && room(1)) {
        seen(t);
        put("{\"ph\":\"C\",\"name\":\"hart %u fcc %u credits\",\"cat\":"
            "\"credit\",\"pid\":%u,\"tid\":%u,\"ts\":%.6f,\"args\":"
            "{\"credits\":%u}}", hart, counter, hart / ETSOC1_HARTS_PER_SHIRE,
            hart, us(t), value);
    }
    qemu_mutex_unlock(&tr.lock);
}

void etsoc1_trace_misses(uint32_t hart, uint64_t t, uint64_t l2,
                         uint64_t scp, uint64_t l3, uint64_t dram)
{
    if (!qatomic_read(&tr.f)) {
        return;
    }
    qemu_mutex_lock(&tr.lock);
    if (hart_track(hart) && room(1)) {
        seen(t);
        put("{\"ph\":\"C\",\"name\":\"hart %u L1 misses\",\"cat\":"
            "\"cache\",\"pid\":%u,\"tid\":%u,\"ts\":%.6f,\"args\":"
            "{\"L2\":%" PRIu64 ",\"scratchpad\":%" PRIu64 ",\"L3\":%"
            PRIu64 ",\"DRAM\":%" PRIu64 "}}", hart,
            hart / ETSOC1_HARTS_PER_SHIRE, hart, us(t), l2, scp, l3, dram);
    }
    qemu_mutex_unlock(&tr.lock);
}

/* eDMA channel tracks: tid = channel for reads, 4 + channel for writes */
static void dma_track(bool write, unsigned ch)
{
    name_pid(TRACE_PID_PCIE);
    if (!tr.dma_named[write][ch]) {
        tr.dma_named[write][ch] = true;
        put("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,"
            "\"args\":{\"name\":\"eDMA %s channel %u (%s)\"}}",
            TRACE_PID_PCIE, write * TRACE_DMA_CHANNELS + ch,
            write ? "write" : "read", ch,
            write ? "card to host" : "host to card");
    }
}

void etsoc1_trace_dma_start(bool write, unsigned ch, uint64_t t)
{
    if (!qatomic_read(&tr.f) || ch >= TRACE_DMA_CHANNELS) {
        return;
    }
    qemu_mutex_lock(&tr.lock);
    tr.dma_start[write][ch] = t;
    qemu_mutex_unlock(&tr.lock);
}

void etsoc1_trace_dma_end(bool write, unsigned ch, uint64_t t,
                          uint64_t elements, bool ok)
{
    uint64_t start;

    if (!qatomic_read(&tr.f) || ch >= TRACE_DMA_CHANNELS) {
        return;
    }
    qemu_mutex_lock(&tr.lock);
    start = MIN(tr.dma_start[write][ch], t);
    dma_track(write, ch);
    if (room(1)) {
        seen(t);
        put("{\"ph\":\"X\",\"name\":\"%s %s\",\"cat\":\"dma\",\"pid\":%u,"
            "\"tid\":%u,\"ts\":%.6f,\"dur\":%.6f,\"args\":{\"start\":%" PRIu64
            ",\"end\":%" PRIu64 ",\"elements\":%" PRIu64 "}}",
            write ? "card to host" : "host to card", ok ? "done" : "aborted",
            TRACE_PID_PCIE, write * TRACE_DMA_CHANNELS + ch, us(start),
            us(t - start), start, t, elements);
    }
    qemu_mutex_unlock(&tr.lock);
}

/* The host's inputs: tid 2 * TRACE_DMA_CHANNELS of the PCIe process */
void etsoc1_trace_host_input(const char *what, uint64_t addr, uint64_t len,
                             uint64_t t)
{
    const unsigned tid = 2 * TRACE_DMA_CHANNELS;

    if (!qatomic_read(&tr.f)) {
        return;
    }
    qemu_mutex_lock(&tr.lock);
    name_pid(TRACE_PID_PCIE);
    if (!tr.host_named) {
        tr.host_named = true;
        put("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,"
            "\"args\":{\"name\":\"host\"}}", TRACE_PID_PCIE, tid);
    }
    if (room(1)) {
        seen(t);
        put("{\"ph\":\"i\",\"s\":\"t\",\"name\":\"%s\",\"cat\":\"host\","
            "\"pid\":%u,\"tid\":%u,\"ts\":%.6f,\"args\":{\"at\":%" PRIu64
            ",\"addr\":%" PRIu64 ",\"len\":%" PRIu64 "}}", what,
            TRACE_PID_PCIE, tid, us(t), t, addr, len);
    }
    qemu_mutex_unlock(&tr.lock);
}
