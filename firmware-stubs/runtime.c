/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Minimal bare-metal runtime for guest programs: PU UART0 console, a small
 * print(), a device-tree property reader, and the default trap handler.
 */
#include <stdarg.h>
#include <stddef.h>
#include "etsoc1.h"

/* DesignWare APB UART: 16550 registers, 4 bytes apart. */
#define UART_THR 0x00
#define UART_LSR 0x14
#define LSR_THRE 0x20

__attribute__((weak)) const int etsoc1_park_thread1 = 0;

void putc_uart(char c)
{
    volatile uint32_t *uart = (volatile uint32_t *)PU_UART0;

    while (!(uart[UART_LSR / 4] & LSR_THRE)) {
    }
    uart[UART_THR / 4] = (uint8_t)c;
}

void puts_uart(const char *s)
{
    while (*s) {
        putc_uart(*s++);
    }
}

static void put_unsigned(uint64_t v, unsigned base, int width)
{
    char buf[24];
    int n = 0;

    do {
        buf[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    while (n < width) {
        buf[n++] = '0';
    }
    while (n) {
        putc_uart(buf[--n]);
    }
}

/* %d %u %x %s %c, with an optional 'l' and a zero-padded width. */
void print(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    for (; *fmt; fmt++) {
        int width = 0, is_long = 0;

        if (*fmt != '%') {
            putc_uart(*fmt);
            continue;
        }
        fmt++;
        while (*fmt >= '0' && *fmt <= '9') {
            width = width * 10 + (*fmt++ - '0');
        }
        if (*fmt == 'l') {
            is_long = 1;
            fmt++;
        }
        switch (*fmt) {
        case 'd': {
            int64_t v = is_long ? va_arg(ap, int64_t) : va_arg(ap, int);
            if (v < 0) {
                putc_uart('-');
                v = -v;
            }
            put_unsigned(v, 10, width);
            break;
        }
        case 'u':
            put_unsigned(is_long ? va_arg(ap, uint64_t) : va_arg(ap, unsigned),
                         10, width);
            break;
        case 'x':
            put_unsigned(is_long ? va_arg(ap, uint64_t) : va_arg(ap, unsigned),
                         16, width);
            break;
        case 's':
            puts_uart(va_arg(ap, const char *));
            break;
        case 'c':
            putc_uart(va_arg(ap, int));
            break;
        default:
            putc_uart(*fmt);
        }
    }
    va_end(ap);
}

static uint32_t be32(const void *p)
{
    const uint8_t *b = p;

    return (uint32_t)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];
}

static int streq(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++, b++;
    }
    return *a == *b;
}

/* A u32 property of the root node, straight from the flattened tree. */
uint32_t fdt_root_u32(const void *fdt, const char *prop, uint32_t dflt)
{
    const uint8_t *base = fdt;
    const uint8_t *p, *strings;
    int depth = 0;

    if (!fdt || be32(base) != 0xd00dfeed) {
        return dflt;
    }
    p = base + be32(base + 8);
    strings = base + be32(base + 12);
    for (;;) {
        uint32_t tag = be32(p);

        p += 4;
        switch (tag) {
        case 1: /* BEGIN_NODE */
            depth++;
            while (*p++) {
            }
            p = (const uint8_t *)(((uintptr_t)p + 3) & ~3ULL);
            break;
        case 2: /* END_NODE */
            if (--depth == 0) {
                return dflt;
            }
            break;
        case 3: { /* PROP */
            uint32_t len = be32(p), name = be32(p + 4);

            if (depth == 1 && len == 4 &&
                streq((const char *)strings + name, prop)) {
                return be32(p + 8);
            }
            p += 8 + ((len + 3) & ~3U);
            break;
        }
        case 4: /* NOP */
            break;
        default:
            return dflt;
        }
    }
}

void fail(const char *why)
{
    print("FAIL: hart %lu: %s\n", csr_read(mhartid), why);
    for (;;) {
        csr_write(CSR_VALIDATION0, VALIDATION_FAIL);
    }
}

volatile struct trap_seen trap_seen;
volatile int trap_recording;

void trap_skip(struct trap_frame *f)
{
    f->mepc += (*(volatile uint16_t *)f->mepc & 3) == 3 ? 4 : 2;
}

void trap_record(struct trap_frame *f)
{
    if (f->mcause == 8) {                   /* ecall from U: back to M */
        csr_set(mstatus, 3ULL << 11);
        trap_skip(f);
        return;
    }
    trap_seen.cause = f->mcause;
    trap_seen.tval = f->mtval;
    trap_seen.count++;
    if (!(f->mcause >> 63)) {
        trap_skip(f);
    }
}

__attribute__((weak)) void trap_handler(struct trap_frame *f)
{
    if (trap_recording) {
        trap_record(f);
        return;
    }
    print("unexpected trap on hart %lu: mcause 0x%lx mepc 0x%lx mtval 0x%lx\n",
          csr_read(mhartid), f->mcause, f->mepc, f->mtval);
    fail("unexpected trap");
}
