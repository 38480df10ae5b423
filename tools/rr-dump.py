#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Print a record file of -M etsoc1,record=FILE (docs/record-replay.md):
its header, then one line per event.

    tools/rr-dump.py FILE [--data]

--data also prints the first bytes of each MMIO write and of the data of
each HOSTMEM read.  The file's
checksums are checked as it goes; a bad one is printed and ends the
listing with exit status 1.  The reading functions are also a module for
the tests (tests/rr_tests.py): parse(), crc32c(), rechain().
"""

import struct
import sys

MAGIC = b'ETSOC1RR'
KINDS = {1: 'CONNECT', 2: 'DISCONNECT', 3: 'MMIO_WRITE', 4: 'STOP',
         5: 'MSI', 6: 'READY', 7: 'HOSTMEM', 8: 'END', 9: 'DMA_END',
         10: 'HANG', 11: 'PAUSE'}
EV = struct.Struct('<BBHIQQ')       # kind, flags, source, length, seq, T
NO_SOURCE = 0xffff
FORMAT = 4
# HOSTMEM: dir, ok, 0, len, host, done, crc32c of the done bytes; a
# read's data follows
HM = struct.Struct('<BBHIQII')

_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc32c(crc, data):
    """CRC-32C of what @crc covered followed by @data (etsoc1-rr.c's
    rr_crc; 0 is the empty crc)."""
    t = _TABLE
    crc ^= 0xffffffff
    for b in data:
        crc = t[(crc ^ b) & 0xff] ^ (crc >> 8)
    return crc ^ 0xffffffff


class BadFile(Exception):
    pass


def parse(data):
    """(header text, [event dicts]); BadFile on a bad checksum or a cut."""
    if len(data) < 16 or data[:8] != MAGIC:
        raise BadFile('not a record file (or truncated in its header)')
    fmt, tlen = struct.unpack_from('<II', data, 8)
    if len(data) < 16 + tlen + 4:
        raise BadFile('truncated in its header')
    crc = crc32c(0, data[:16 + tlen])
    if crc != struct.unpack_from('<I', data, 16 + tlen)[0]:
        raise BadFile('the header fails its checksum')
    text = data[16:16 + tlen].decode(errors='replace')
    off = 16 + tlen + 4
    events = []
    while off < len(data):
        if len(data) - off < EV.size + 4:
            raise BadFile(f'truncated after event {len(events) - 1}')
        kind, flags, src, n, seq, t = EV.unpack_from(data, off)
        if len(data) - off < EV.size + n + 4:
            raise BadFile(f'truncated after event {len(events) - 1}')
        crc = crc32c(crc, data[off:off + EV.size + n])
        if crc != struct.unpack_from('<I', data, off + EV.size + n)[0]:
            raise BadFile(f'event {len(events)} fails its checksum')
        events.append(dict(kind=KINDS.get(kind, f'?{kind}'), flags=flags,
                           source=src, seq=seq, t=t, off=off,
                           payload=data[off + EV.size:off + EV.size + n]))
        off += EV.size + n + 4
    return fmt, text, events


def rechain(data):
    """@data (a bytearray) with every checksum recomputed: what a test
    does after it edits a record, so that only the edit is wrong."""
    tlen = struct.unpack_from('<I', data, 12)[0]
    crc = crc32c(0, bytes(data[:16 + tlen]))
    struct.pack_into('<I', data, 16 + tlen, crc)
    off = 16 + tlen + 4
    while off + EV.size + 4 <= len(data):
        n = struct.unpack_from('<I', data, off + 4)[0]
        crc = crc32c(crc, bytes(data[off:off + EV.size + n]))
        struct.pack_into('<I', data, off + EV.size + n, crc)
        off += EV.size + n + 4
    return data


def end_info(p):
    """An END payload: (flags, [(hart, clock, instret)], digest hex)."""
    flags, harts = struct.unpack_from('<II', p)
    base = 16 + 8 * (max(KINDS) + 1)       # the counts per kind
    rows = [struct.unpack_from('<IQQ', p, base + 20 * i)
            for i in range(harts)]
    return flags, rows, p[base + 20 * harts:].hex()


def hostmem(ev):
    """A HOSTMEM event's fields: dict(write, ok, len, addr, done, crc,
    data, chan)."""
    w, ok, _, n, addr, done, crc = HM.unpack_from(ev['payload'])
    return dict(write=bool(w & 1), ok=bool(ok & 1), len=n, addr=addr,
                done=done, crc=crc, chan=ev['source'],
                data=b'' if w & 1 else ev['payload'][HM.size:])


def describe_hostmem(ev, data=False):
    h = hostmem(ev)
    s = (f'channel {h["chan"]} {"write to" if h["write"] else "read from"} '
         f'host {h["addr"]:#x} +{h["len"]}')
    if not h['ok']:
        s += f' FAILED after {h["done"]} bytes'
    s += f' crc32c {h["crc"]:#010x}'
    if data and h['data']:
        s += ' data ' + h['data'][:32].hex()
    return s


def describe(ev, data=False):
    p, k = ev['payload'], ev['kind']
    if k == 'MMIO_WRITE':
        addr, n, res = struct.unpack_from('<QIH', p)
        s = f'bus {addr:#x} +{n} result {res}'
        if ev['flags'] & 4:
            s += ' (paused at the PAUSE\'s T)'
        elif ev['flags'] & 1:
            s += ' (paused)'
        if data:
            s += ' data ' + p[16:16 + 32].hex()
        return s
    if k == 'CONNECT':
        return f'options {struct.unpack_from("<I", p)[0]:#x}'
    if k == 'MSI':
        src = 'SP' if ev['source'] == NO_SOURCE else f'hart {ev["source"]}'
        return f'{src} vectors {struct.unpack_from("<I", p)[0]:#x}'
    if k == 'READY':
        return 'bar0 {:#x} bar2 {:#x}'.format(*struct.unpack_from('<QQ', p))
    if k == 'HOSTMEM':
        return describe_hostmem(ev, data)
    if k == 'DMA_END':
        return f'channel {ev["source"]} ' + \
            ('ABORT' if ev['flags'] & 1 else 'DONE')
    if k == 'HANG':
        lines = p.decode(errors='replace').splitlines()
        return f'{len(lines)} lines: {lines[0] if lines else ""}'
    if k == 'END':
        flags, rows, digest = end_info(p)
        clocks = [r[1] for r in rows]
        return (f'{"stopped" if flags & 1 else "no STOP"}, '
                f'{"idle" if flags & 2 else "not idle"}, {len(rows)} harts, '
                f'clocks {min(clocks, default=0)}..{max(clocks, default=0)}, '
                f'instret {sum(r[2] for r in rows)}, '
                f'RAM digest {digest if flags & 2 else "(not taken)"}')
    return ''


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    data = open(argv[1], 'rb').read()
    try:
        fmt, text, events = parse(data)
    except BadFile as e:
        print(f'{argv[1]}: {e}', file=sys.stderr)
        return 1
    print(f'# {argv[1]}: format {fmt}, {len(data)} bytes, '
          f'{len(events)} events')
    for line in text.splitlines():
        print(f'# {line}')
    for i, ev in enumerate(events):
        print(f'{i:6d} T={ev["t"]:<14d} {ev["kind"]:<10s} '
              f'{describe(ev, "--data" in argv)}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
