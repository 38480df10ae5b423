/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Esperanto ET-SoC-1 host link: the wire (docs/host-link.md, "Frames" and
 * "Messages").  One definition for both ends: the card
 * (etsoc1-hostlink.c) and the host library (host/src) include it, and a
 * test checks the Python client's constants (tests/hostlink.py) against
 * it.  Plain C, no QEMU header.
 *
 * A frame is a 16-byte little-endian header (magic u32, version u8, type
 * u8, status u16, payload length u32, sequence u32) and its payload.
 */

#ifndef HW_ETSOC1_HOSTLINK_WIRE_H
#define HW_ETSOC1_HOSTLINK_WIRE_H

#define HL_MAGIC        0x4c485445u     /* "ETHL" */
#define HL_VERSION      1
#define HL_HDR_SIZE     16
#define HL_MAX_DATA     0x100000        /* data bytes in one frame: 1 MiB */
#define HL_MAX_PAYLOAD  (HL_MAX_DATA + 16)
#define HL_MAX_PENDING  16              /* host-mem requests out at once */
#define HL_MAX_SHM      64              /* shared host buffers mapped */

/* Frame types; a reply is its request's type | HL_REPLY */
enum {
    HL_HELLO = 0x01,
    HL_MMIO_READ = 0x02,
    HL_MMIO_WRITE = 0x03,
    HL_PAUSE = 0x04,
    HL_RESUME = 0x05,
    HL_STOP = 0x06,
    HL_SHM_MAP = 0x07,
    HL_SHM_UNMAP = 0x08,
    HL_MEM_FD = 0x09,
    HL_READY = 0x10,
    HL_MSI = 0x11,
    HL_HOSTMEM_READ = 0x12,
    HL_HOSTMEM_WRITE = 0x13,
    HL_FATAL = 0x14,
    HL_REPLY = 0x80,
};

/* Reply status */
enum {
    HL_OK = 0,
    HL_E_DECODE = 1,    /* no iATU region, or memory space off */
    HL_E_ACCESS = 2,    /* the card refused the access */
    HL_E_LENGTH = 3,    /* length 0 or over the bound */
};

/* HELLO options */
#define HL_OPT_HOSTMEM  1u      /* the host serves host memory */
#define HL_OPT_SHM      2u      /* the host may share buffers (SHM_MAP) */

#endif
