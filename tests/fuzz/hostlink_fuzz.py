#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seeded host-link frame fuzzer against a booted card.

One card per seed: the contract's command line with the SP and MM
firmware (tests/fw_tests.py Card, 33 shires, 2,113 harts), booted to
MM_READY.  Then the seed alone decides every connection and frame
(docs/host-link.md): valid MMIO reads and writes of random lengths to
random BAR0/BAR2 offsets and unmapped bus addresses, PAUSE/RESUME,
SHM_MAP/MEM_FD without a descriptor, SHM_UNMAP of nothing, DMA commands
whose HOSTMEM requests get replies of the wrong size, id or direction (or
an error status), and the malformed frames (bad magic or version, an
oversized length, unknown and misdirected types, wrong payload lengths,
stray replies, requests before HELLO, a second HELLO, random bytes),
connections closed inside a frame, a second host waiting behind the first.
Checks: every request is answered with its id and a status the protocol
has; every malformed frame or reply is answered with FATAL and a close;
after every connection a health check (a new host: HELLO, READY, the MM
DIR at MM_READY, an echo through the MM queue, every fourth time a DMA
round trip with its data checked); at the end STOP with frames after it
in the same write, and QEMU must exit 0.  A failing seed is printed with
the command that replays it:

    tests/fuzz/hostlink_fuzz.py [--build BUILD] [--seed S] [--count N]
                                [--runs R]

(N connections per seed, R seeds from S; docs/robustness.md).
"""

import collections
import os
import random
import socket
import struct
import sys
import threading

import fuzz_seeds
from fuzz_seeds import each_seed

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import hostlink as hl  # noqa: E402
import fw_tests  # noqa: E402

REPLY_WAIT = 30          # s of host time for a reply or a close: a hang
STATUSES = {hl.OK, hl.E_DECODE, hl.E_ACCESS, hl.E_LENGTH}
# BAR0 offsets the fuzzer may write: host-managed DRAM above what the
# health check's DMA uses (the rest of BAR0 holds the firmware's trace
# regions; a host that overwrites those is not what this fuzzer asks about)
SCRATCH = fw_tests.DEV_FREE + (16 << 20) - fw_tests.BAR0_DRAM
SCRATCH_END = 0x80_8000_0000 - fw_tests.BAR0_DRAM
HEALTH_DMA = fw_tests.DEV_FREE


class FuzzError(Exception):
    pass


class FuzzLink(hl.HostLink):
    """A host whose answer to the card's next HOSTMEM request is @plan."""

    plan = None

    def _handle(self, ftype, status, seq, p):
        plan, self.plan = self.plan, None
        if plan is None or ftype not in (hl.HOSTMEM_READ, hl.HOSTMEM_WRITE):
            if plan is not None:
                self.plan = plan
            return super()._handle(ftype, status, seq, p)
        kind, extra = plan
        addr, n = struct.unpack_from('<QI', p)
        with self.cv:
            self.events.append(('hostmem_evil', kind, ftype, n))
        rtype = ftype | hl.REPLY
        data = bytes(n) if ftype == hl.HOSTMEM_READ else b''
        if kind == 'short':
            data = data[:max(0, n - extra)] if data else b'\0' * extra
        elif kind == 'long':
            data += b'\0' * extra
        elif kind == 'seq':
            seq = (seq + extra) & 0xffffffff
        elif kind == 'direction':
            rtype = (hl.HOSTMEM_WRITE if ftype == hl.HOSTMEM_READ
                     else hl.HOSTMEM_READ) | hl.REPLY
            data = bytes(n) if rtype == hl.HOSTMEM_READ | hl.REPLY else b''
        elif kind == 'status':
            self.send_raw(hl.frame(rtype, seq=seq, status=extra))
            return
        self.send_raw(hl.frame(rtype, data, seq=seq))


# kinds of DMA reply: (name, malformed: the card must close)
EVIL = [('short', True), ('long', True), ('seq', True), ('direction', True),
        ('status', False)]


class Fuzzer:
    def __init__(self, root, seed, log):
        self.r = random.Random(seed)
        self.root = root
        self.log = log
        self.frames = 0
        self.paused = False
        self.stats = collections.Counter()
        self.card = fw_tests.Card(root)
        self.sock = os.path.join(self.card.dir, 'hl.sock')
        self.bar0, self.bar2 = self.card.bar0, self.card.bar2
        # READY comes with the SP's iATU; the MM's queues are set up only
        # by MM_READY (a DMA pushed before it met a queue of length 0)
        st = self.card.wait_status(8, 8, timeout=120)
        if st != 8:
            self.card.close()
            raise hl.LinkError(f'MM status {st} after boot')
        self.card.link.close()
        self.card.link = None

    def link(self, hello=True, options=hl.OPT_HOSTMEM):
        ln = FuzzLink(self.sock, mem_base=fw_tests.HOST_MEM,
                      mem_size=fw_tests.HOST_MEM_SIZE, timeout=REPLY_WAIT)
        if hello:
            ln.hello(options)
        return ln

    # ---- inputs -----------------------------------------------------------
    def bus_addr(self, write):
        r = self.r
        k = r.randrange(6)
        if write and k < 3:
            return self.bar0 + SCRATCH + r.randrange(SCRATCH_END - SCRATCH
                                                     - (2 << 20))
        if write and k == 3:        # doorbells (request() writes 4 bytes)
            return self.bar2 + r.choice([0x2000, 0x2004])
        if k >= 4:
            # a random address, not in a BAR: a host that writes anywhere
            # in the BARs may overwrite the firmware's own state in them
            # (its queues, DIRs, trace regions), as on the card
            while True:
                a = r.getrandbits(64 if k == 4 else 40)
                if not write or not (self.bar0 <= a < self.bar0 + (32 << 30)
                                     or self.bar2 <= a < self.bar2 + (1 << 20)):
                    return a
        return [lambda: self.bar0 + r.randrange(32 << 30),
                lambda: self.bar0 + r.randrange(1 << 26),
                lambda: self.bar2 + r.randrange(0x4000),
                lambda: self.bar2 + 0x4000 + r.randrange(1 << 20),
                ][k]()

    def length(self):
        r = self.r
        return r.choice([1, 2, 4, 8, 4, 8, r.randrange(1, 4096),
                         r.randrange(1, 1 << 20), 1 << 20, 0,
                         (1 << 20) + r.randrange(1, 4096)])

    def request(self, ln):
        """One well-formed request: (frame type, payload, the status its
        reply must have, or None for any the protocol has)."""
        r = self.r
        k = r.randrange(11)
        if k < 4:
            n = self.length()
            return hl.MMIO_READ, struct.pack('<QI', self.bus_addr(False), n), \
                hl.E_LENGTH if not 0 < n <= 1 << 20 else None
        if k < 7:
            n = min(self.length(), 1 << 20)
            addr = self.bus_addr(True)
            if self.bar2 <= addr < self.bar2 + 0x4000 and n:
                n = 4               # a doorbell, not a bulk copy over BAR2
            data = r.randbytes(n) if r.random() < 0.5 else bytes(n)
            return hl.MMIO_WRITE, struct.pack('<QI', addr, n) + data, \
                hl.E_LENGTH if n == 0 else None
        if k == 7:      # its length and data disagree: LENGTH
            n = r.randrange(1, 4096)
            return hl.MMIO_WRITE, struct.pack(
                '<QI', self.bus_addr(True),
                r.choice([0, n - 1, n + 1, n + (1 << 20), 0xffffffff])) + \
                bytes(n), hl.E_LENGTH
        if k == 8:
            return r.choice([hl.PAUSE, hl.RESUME]), b'', hl.OK
        if k == 9:
            return hl.SHM_UNMAP, struct.pack('<Q', r.getrandbits(64)), \
                hl.E_DECODE
        # no descriptor with the frame: refused
        return r.choice([hl.SHM_MAP, hl.MEM_FD]), struct.pack(
            '<QQ', r.getrandbits(64), r.getrandbits(r.choice([12, 30, 64]))), \
            hl.E_ACCESS

    def malformed(self, ln, hello_done):
        """One malformed frame (the card must send FATAL and close)."""
        r = self.r
        k = r.randrange(11)
        pl = r.randbytes(r.randrange(32))
        if k == 0:
            return hl.frame(hl.HELLO, pl, magic=r.getrandbits(32) | 1)
        if k == 1:
            return hl.frame(hl.MMIO_READ, pl, version=r.choice([0, 2, 255]))
        if k == 2:
            return hl.frame(hl.MMIO_WRITE, pl,
                            length=(1 << 20) + 17 + r.getrandbits(31))
        if k == 3:      # unknown: neither a request nor a card frame
            t = r.choice([0, 0x0a, 0x0f, 0x15, 0x7f, 0x80, 0xff,
                          r.randrange(0x20, 0x80)])
            return hl.frame(t, pl, seq=r.getrandbits(32))
        if k == 4:      # misdirected: a card -> host type
            return hl.frame(r.choice([hl.READY, hl.MSI, hl.HOSTMEM_READ,
                                      hl.HOSTMEM_WRITE, hl.FATAL]), pl)
        if k == 5:      # a reply to nothing
            return hl.frame(r.choice([hl.HOSTMEM_READ, hl.HOSTMEM_WRITE,
                                      hl.MMIO_READ, hl.HELLO]) | hl.REPLY,
                            pl, seq=r.getrandbits(32))
        if k == 6:      # a payload length wrong for the type
            t, want = r.choice([(hl.MMIO_READ, 12), (hl.HELLO, 8),
                                (hl.PAUSE, 0), (hl.RESUME, 0), (hl.STOP, 0),
                                (hl.SHM_UNMAP, 8), (hl.MMIO_WRITE, 12)])
            n = r.choice([x for x in range(0, 20) if x != want
                          and not (t == hl.MMIO_WRITE and x > 12)])
            return hl.frame(t, r.randbytes(n))
        if k == 7:
            return hl.frame(hl.HELLO, struct.pack(
                '<II', r.choice([1, 1, 0, 2, r.getrandbits(32)]),
                r.getrandbits(32)))
        if k == 8:      # a frame cut short by a bigger one's header
            return hl.frame(hl.MMIO_READ, b'\0' * 12,
                            length=12 + r.randrange(1, 17)) + \
                hl.frame(hl.HELLO, pl)
        # random bytes, with or without a plausible header
        blob = r.randbytes(r.randrange(16, 256))
        if k == 9:
            return struct.pack('<IB', hl.MAGIC, hl.VERSION) + blob
        return blob

    # ---- checks -----------------------------------------------------------
    def expect_close(self, ln, what):
        try:
            ln.wait_closed(REPLY_WAIT)
        except hl.LinkError:
            raise FuzzError(f'{what}: the card neither closed nor answered '
                            f'in {REPLY_WAIT} s')
        if ln.fatal is None and not what.startswith('random bytes'):
            raise FuzzError(f'{what}: closed without FATAL')

    def answered(self, ln, ftype, payload, what, want=None):
        """Send one request; its reply must come with @want, or with a
        status the protocol has."""
        try:
            status, _ = ln.request(ftype, payload)
        except hl.LinkError as e:
            raise FuzzError(f'{what}: {e}')
        if status not in STATUSES or (want is not None and status != want):
            raise FuzzError(f'{what}: reply status {status}, want '
                            f'{want if want is not None else STATUSES}')
        return status

    def healthy(self, n):
        """A new host is served: READY, MM_READY, echo, and a DMA."""
        ln = self.link()
        try:
            ln.wait_ready(REPLY_WAIT)
            ln.request(hl.RESUME)       # a fuzzed host may have paused it
            self.paused = False
            self.card.link, self.card.stash = ln, {}
            st = self.card.wait_status(8, 8, timeout=REPLY_WAIT)
            if st != 8:
                raise FuzzError(f'health: MM status {st}')
            mid, _ = self.card.command(fw_tests.MSG['echo'], bytes(8),
                                       timeout=REPLY_WAIT)
            if mid != 518:
                raise FuzzError(f'health: echo answered with {mid}')
            if n % 4 == 0:
                data = self.r.randbytes(4096)
                sw = self.card.to_card(HEALTH_DMA, data)
                sr, back = self.card.from_card(HEALTH_DMA, 4096)
                if (sw, sr, back) != (0, 0, data):
                    raise FuzzError(f'health: DMA status {sw}/{sr}, data '
                                    f'{"ok" if back == data else "wrong"}')
        except hl.LinkError as e:
            raise FuzzError(f'health: {e}')
        finally:
            self.card.link = None
            ln.close()

    # ---- one connection -------------------------------------------------------
    def connection(self, n):
        r = self.r
        if r.random() < 0.08:           # a request before HELLO
            ln = self.link(hello=False)
            t, p, _ = self.request(ln)
            ln.send_raw(hl.frame(t, p, seq=1))
            self.frames += 1
            self.expect_close(ln, 'request before HELLO')
            ln.close()
            return
        # unknown option bits are ignored; SHM changes no answer here
        ln = self.link(options=hl.OPT_HOSTMEM | (
            r.getrandbits(32) if r.random() < 0.2 else 0))
        self.frames += 1
        second = None
        try:
            if r.random() < 0.08:       # a second host waits behind us
                second = FuzzLink(self.sock, timeout=REPLY_WAIT)
                second.send_raw(hl.frame(hl.HELLO, struct.pack(
                    '<II', hl.VERSION, hl.OPT_HOSTMEM), seq=7))
            for i in range(r.randrange(1, 40)):
                k = r.random()
                self.frames += 1
                if k < 0.86:
                    t, p, want = self.request(ln)
                    if t in (hl.PAUSE, hl.RESUME):
                        self.paused = t == hl.PAUSE
                    st = self.answered(ln, t, p, f'request 0x{t:x} #{i} '
                                       f'{p[:12].hex()}', want)
                    self.stats[f'request 0x{t:x} status {st}'] += 1
                elif k < 0.92:
                    if self.evil_dma(ln, i):
                        return
                elif k < 0.98:
                    raw = self.malformed(ln, True)
                    self.stats['malformed'] += 1
                    ln.send_raw(raw)
                    self.expect_close(ln, f'malformed frame #{i} '
                                      f'{raw[:24].hex()}')
                    return
                else:                   # close inside a frame
                    raw = hl.frame(hl.MMIO_READ, struct.pack(
                        '<QI', self.bar2, 8))
                    ln.send_raw(raw[:r.randrange(1, len(raw))])
                    return
            if second is not None:
                if second.replies:
                    raise FuzzError('a second host was answered while the '
                                    'first was connected')
        finally:
            ln.close()
            if second is not None:
                try:
                    second._wait(lambda: 7 in second.replies or
                                 second.closed, REPLY_WAIT)
                except hl.LinkError:
                    raise FuzzError('the waiting host got no HELLO reply '
                                    'after the first left')
                finally:
                    second.close()

    def evil_dma(self, ln, i):
        """A DMA whose HOSTMEM request gets a bad reply; True if the card
        (rightly) closed the connection."""
        r = self.r
        kind, bad = r.choice(EVIL)
        extra = {'short': r.randrange(1, 64), 'long': r.randrange(1, 64),
                 'seq': r.randrange(1, 1 << 31),
                 'status': r.choice([1, 2, 3, r.randrange(4, 1 << 16)]),
                 'direction': 0}[kind]
        read = r.random() < 0.5         # readlist: card -> host
        n = r.choice([64, 4096, r.randrange(1, 65536)])
        if self.paused:                 # else no request would come
            self.answered(ln, hl.RESUME, b'', f'RESUME before DMA #{i}',
                          hl.OK)
            self.paused = False
        ln.plan = (kind, extra)
        self.card.link, self.card.stash = ln, {}
        try:
            self.card.send(fw_tests.MSG['readlist' if read else 'writelist'],
                           struct.pack('<QQQII', fw_tests.HOST_MEM,
                                       fw_tests.HOST_MEM, HEALTH_DMA, n, 0))
        except (hl.LinkError, AssertionError) as e:
            raise FuzzError(f'DMA #{i}: could not push it: {e}')
        finally:
            self.card.link = None
        what = f'DMA #{i} answered "{kind}" ({extra})'
        self.stats[f'DMA reply {kind}'] += 1
        if bad:
            self.expect_close(ln, what)
            return True
        ln._wait(lambda: ln.plan is None or ln.closed, REPLY_WAIT)
        if ln.closed:
            raise FuzzError(f'{what}: the card closed the connection')
        return False

    def stop(self):
        """STOP, then more frames in the same write: QEMU exits 0."""
        ln = self.link()
        good = hl.frame(hl.MMIO_READ, struct.pack('<QI', self.bar2, 8), seq=3)
        tail = b''.join(self.malformed(ln, True) if self.r.random() < 0.5
                        else good for _ in range(self.r.randrange(1, 8)))
        ln.send_raw(hl.frame(hl.STOP, seq=99) + tail)
        self.frames += 1 + tail.count(struct.pack('<I', hl.MAGIC))
        try:
            rc = self.card.proc.wait(REPLY_WAIT)
        except Exception:       # subprocess.TimeoutExpired
            rc = None
        ln.close()
        if rc != 0:
            raise FuzzError(f'STOP with frames after it: QEMU exit status '
                            f'{rc}')

    def logs(self):
        return self.card.logs()

    def close(self):
        self.card.close()


def fuzz_one(root, seed, count, log):
    """@count connections of @seed: (failure or None, frames, stats)."""
    try:
        f = Fuzzer(root, seed, log)
    except (hl.LinkError, OSError) as e:
        return f'the card did not boot: {e}', 0, collections.Counter()
    failure, done = None, 0
    try:
        for n in range(count):
            done = n
            f.connection(n)
            f.healthy(n)
        f.stop()
    except (FuzzError, hl.LinkError, OSError) as e:
        failure = f'connection {done}: {e}\n' + f.logs()
    finally:
        f.close()
    return failure, f.frames, f.stats


def fuzz(root, seed, count, runs, log=print):
    """@runs seeds from @seed: (failures, frames, what was sent)."""
    return each_seed('hostlink_fuzz.py', seed, count, runs,
                     lambda s: fuzz_one(root, s, count, log), log)


def main():
    return fuzz_seeds.main(__doc__, 'hostlink_fuzz', 200, 'frames',
                           lambda a: fuzz(a.build, a.seed, a.count, a.runs))


if __name__ == '__main__':
    sys.exit(main())
