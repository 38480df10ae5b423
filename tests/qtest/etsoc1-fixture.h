/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * For the ET-SoC-1 qtests: a QEMU under qtest whose guest-error and
 * unimplemented-access log goes to a file the test can search.
 */
#ifndef ETSOC1_FIXTURE_H
#define ETSOC1_FIXTURE_H

typedef struct {
    QTestState *qts;
    char *log;
} Fixture;

/* Start QEMU with the arguments @fmt, logging to a temporary file. */
static void G_GNUC_PRINTF(2, 3) fixture_start(Fixture *f, const char *fmt,
                                              ...)
{
    int fd = g_file_open_tmp("etsoc1-qtest-XXXXXX.log", &f->log, NULL);
    g_autofree char *args = NULL;
    va_list ap;

    g_assert(fd >= 0);
    close(fd);
    va_start(ap, fmt);
    args = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    f->qts = qtest_initf("%s -d guest_errors,unimp -D %s", args, f->log);
}

static void fixture_stop(Fixture *f)
{
    qtest_quit(f->qts);
    unlink(f->log);
    g_free(f->log);
}

/* Has the log gained a line containing @needle? */
static bool log_has(Fixture *f, const char *needle)
{
    g_autofree char *text = NULL;

    g_assert(g_file_get_contents(f->log, &text, NULL, NULL));
    if (!strstr(text, needle)) {
        g_test_message("log has no \"%s\"; it says:\n%s", needle, text);
        return false;
    }
    return true;
}

#endif
