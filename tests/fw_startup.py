#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The runtime's start-up sequence, replayed through libetsoc1-host.

Esperanto's runtime, once the card is READY, sends ABORT on every
high-priority SQ, waits for the answers, then puts work on every SQ
(issue 13 item 1: that first command was sometimes lost).  This drives the
real C host library (build/guest/libetsoc1-host.so) with ctypes:

* boots: fresh cards, the sequence sent the moment the MM DIR says READY;
* replays: the sequence N times in a row on one card;
* clients: several client processes at once, each sending its sequence
  through one server process that owns the card, as the runtime's
  multi-process mode does (its server owns the device, clients talk to it);

all with one host core kept busy by a spinning process.  A command not
answered within HANG_S of host time counts as a hang.

    python3 tests/fw_startup.py BUILD [--boots N] [--replays N]
                                      [--clients N] [--rounds N] [--no-load]
"""

import argparse
import ctypes
import multiprocessing as mp
import os
import struct
import sys
import threading
import time

HANG_S = 60.0           # host seconds without an answer: a hang
MM_DIR_STATUS = 8       # BAR2 offset of the MM DIR status (s16)
MM_READY = 8
MM_VQ = 0x100
MM_SQS = (MM_VQ + 0x000, MM_VQ + 0x440)     # SQ0, SQ1
MM_HPS = (MM_VQ + 0x880, MM_VQ + 0x8C0)     # HP SQ0, HP SQ1
MM_CQ = MM_VQ + 0x900
MSI_MM_SQ, MSI_MM_CQ = 1 << 2, 1 << 3
MSG_ABORT, MSG_ECHO, MSG_WRITELIST, MSG_READLIST = 519, 517, 527, 525
DEV_SCRATCH = 0x80_0700_0000    # host-managed DRAM; 4 KiB per client slot
DMA_BYTES = 256


class CardError(Exception):
    pass


class Lib:
    """The C API of host/include/etsoc1-host.h, by ctypes."""

    def __init__(self, root):
        self.c = ctypes.CDLL(os.path.join(root, 'guest', 'libetsoc1-host.so'))
        c = self.c
        P, U64, U32 = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32
        c.etsoc1_host_start.argtypes = [P, ctypes.POINTER(P)]
        c.etsoc1_host_wait_ready.argtypes = [P, ctypes.c_uint,
                                             ctypes.POINTER(U64),
                                             ctypes.POINTER(U64)]
        c.etsoc1_host_mmio_read.argtypes = [P, U64, P, U32]
        c.etsoc1_host_mmio_write.argtypes = [P, U64, P, U32]
        c.etsoc1_host_doorbell.argtypes = [P, ctypes.c_int]
        c.etsoc1_host_wait_msi.argtypes = [P, U32, ctypes.c_int]
        c.etsoc1_host_wait_msi.restype = U32
        c.etsoc1_host_stop.argtypes = [P]
        c.etsoc1_host_close.argtypes = [P]
        c.etsoc1_host_run_dir.argtypes = [P]
        c.etsoc1_host_run_dir.restype = ctypes.c_char_p
        c.etsoc1_host_strerror.restype = ctypes.c_char_p


class LibCard:
    """One card started by the library; the MM queues as the runtime uses
    them.  Pushes and pops are serialised by a lock (one producer per SQ,
    as the runtime's device layer does)."""

    def __init__(self, lib):
        self.c = lib.c
        h = ctypes.c_void_p()
        self._check(self.c.etsoc1_host_start(None, ctypes.byref(h)), 'start')
        self.h = h
        bar0, bar2 = ctypes.c_uint64(), ctypes.c_uint64()
        self._check(self.c.etsoc1_host_wait_ready(h, 0, ctypes.byref(bar0),
                                                  ctypes.byref(bar2)),
                    'wait_ready')
        self.bar2 = bar2.value
        self.lock = threading.Lock()
        self.stash = {}
        self.tag = 0
        # host memory the card's DMA reaches: addresses in this process
        self.mem = ctypes.create_string_buffer(64 << 10)
        self.mem_base = ctypes.addressof(self.mem)

    def _check(self, rc, what):
        if rc < 0:
            raise CardError(f'{what}: {self.c.etsoc1_host_strerror(rc)}')

    def run_dir(self):
        return self.c.etsoc1_host_run_dir(self.h).decode()

    def close(self):
        if self.h:
            self.c.etsoc1_host_stop(self.h)
            self.c.etsoc1_host_close(self.h)
            self.h = None

    def read(self, off, n):
        buf = ctypes.create_string_buffer(n)
        self._check(self.c.etsoc1_host_mmio_read(self.h, self.bar2 + off,
                                                 buf, n), 'mmio_read')
        return buf.raw

    def write(self, off, data):
        self._check(self.c.etsoc1_host_mmio_write(self.h, self.bar2 + off,
                                                  data, len(data)),
                    'mmio_write')

    def r64(self, off):
        return struct.unpack('<Q', self.read(off, 8))[0]

    def w64(self, off, v):
        self.write(off, struct.pack('<Q', v))

    def mm_status(self):
        return struct.unpack('<h', self.read(MM_DIR_STATUS, 2))[0]

    def push(self, q, data, timeout=HANG_S):
        """The device layer's SQ push: ring, head, then the doorbell; a full
        SQ (the HP SQs hold one ABORT) is retried until the card pops."""
        deadline = time.monotonic() + timeout
        while not self._try_push(q, data):
            if time.monotonic() > deadline:
                raise CardError(f'SQ at {q:#x} full for {timeout:.0f} s '
                                f'(run dir {self.run_dir()})')
            self.c.etsoc1_host_wait_msi(self.h, MSI_MM_SQ, 5)

    def _try_push(self, q, data):
        with self.lock:
            head, tail, length = self.r64(q), self.r64(q + 8), \
                self.r64(q + 16)
            if length - 1 - (head - tail) % length < len(data):
                return False
            first = min(len(data), length - head)
            self.write(q + 32 + head, data[:first])
            if first < len(data):
                self.write(q + 32, data[first:])
            self.w64(q, (head + len(data)) % length)
            self._check(self.c.etsoc1_host_doorbell(self.h, 1), 'doorbell')
        return True

    def _ring(self, q, off, n, length):
        first = min(n, length - off)
        data = self.read(q + 32 + off, first)
        if first < n:
            data += self.read(q + 32, n - first)
        return data

    def _drain_cq(self):
        """Move every CQ message into the stash (called with the lock)."""
        while True:
            head, tail, length = self.r64(MM_CQ), self.r64(MM_CQ + 8), \
                self.r64(MM_CQ + 16)
            if head == tail:
                return
            hdr = self._ring(MM_CQ, tail, 8, length)
            size, tag, mid = struct.unpack_from('<HHH', hdr)
            msg = hdr + self._ring(MM_CQ, (tail + 8) % length, size, length)
            self.w64(MM_CQ + 8, (tail + 8 + size) % length)
            self.stash[tag] = (mid, msg)

    def send(self, q, msg_id, payload=b''):
        with self.lock:
            self.tag = self.tag % 0xffff + 1
            tag = self.tag
        self.push(q, struct.pack('<HHHH', 8 + len(payload), tag, msg_id, 0) +
                  payload)
        return tag

    def wait(self, tag, timeout=HANG_S):
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                self._drain_cq()
                if tag in self.stash:
                    return self.stash.pop(tag)
            left = deadline - time.monotonic()
            if left <= 0:
                raise CardError(f'no answer to tag {tag} in {timeout:.0f} s '
                                f'(run dir {self.run_dir()})')
            # other waiters may take the MSI: look again at least every 50 ms
            self.c.etsoc1_host_wait_msi(self.h, MSI_MM_CQ,
                                        int(min(left, 0.05) * 1000))


def startup(card, slot=0):
    """The runtime's start-up: ABORT on every HP SQ (both in flight), then
    an echo and a DMA both ways on every SQ (all in flight); every answer
    checked.  @slot picks a private host and device buffer."""
    tags = [card.send(q, MSG_ABORT, struct.pack('<HHI', 0, 0, 0))
            for q in MM_HPS]
    for t in tags:
        mid, rsp = card.wait(t)
        assert mid == MSG_ABORT + 1, f'answer {mid} to ABORT'
        assert struct.unpack_from('<I', rsp, 8)[0] == 0, 'ABORT status'
    host = card.mem_base + slot * 2 * DMA_BYTES
    dev = DEV_SCRATCH + slot * 4096
    pattern = os.urandom(DMA_BYTES)
    ctypes.memmove(host, pattern, DMA_BYTES)
    tags = []
    for i, q in enumerate(MM_SQS):
        tags.append((MSG_ECHO, card.send(q, MSG_ECHO, bytes(8))))
        tags.append((MSG_WRITELIST, card.send(
            q, MSG_WRITELIST,
            struct.pack('<QQQII', host, host, dev + i * DMA_BYTES,
                        DMA_BYTES, 0))))
    for want, t in tags:
        mid, rsp = card.wait(t)
        assert mid == want + 1, f'answer {mid} to {want}'
        if want == MSG_WRITELIST:
            assert struct.unpack_from('<I', rsp, 32)[0] == 0, 'DMA status'
    back = host + DMA_BYTES
    for i, q in enumerate(MM_SQS):
        ctypes.memset(back, 0, DMA_BYTES)
        mid, rsp = card.wait(card.send(
            q, MSG_READLIST, struct.pack('<QQQII', back, back,
                                         dev + i * DMA_BYTES, DMA_BYTES, 0)))
        assert mid == MSG_READLIST + 1 and \
            struct.unpack_from('<I', rsp, 32)[0] == 0, 'readlist'
        assert ctypes.string_at(back, DMA_BYTES) == pattern, 'DMA data'


def wait_mm_ready(card, timeout=HANG_S):
    deadline = time.monotonic() + timeout
    while card.mm_status() < MM_READY:
        if time.monotonic() > deadline:
            raise CardError('MM never READY')
        time.sleep(0.001)


class Load:
    """One host core kept busy (a spinning child process) while in use."""

    def __init__(self, on=True):
        self.p = None
        if on:
            self.p = mp.get_context('spawn').Process(target=_spin,
                                                     daemon=True)

    def __enter__(self):
        if self.p:
            self.p.start()
        return self

    def __exit__(self, *exc):
        if self.p:
            self.p.kill()
            self.p.join()


def _spin():
    while True:
        pass


# ---- the three modes -----------------------------------------------------

def boots(lib, n, log=print):
    """@n fresh cards, the start-up sent the moment MM is READY; hangs."""
    hangs = []
    for i in range(n):
        card = LibCard(lib)
        try:
            wait_mm_ready(card)
            t = time.monotonic()
            startup(card)
            log(f'# boot {i + 1}: start-up answered in '
                f'{time.monotonic() - t:.2f} s')
        except (CardError, AssertionError) as e:
            hangs.append(f'boot {i + 1}: {e}')
        finally:
            card.close()
    return hangs


def replays(card, n):
    hangs = []
    for i in range(n):
        try:
            startup(card)
        except (CardError, AssertionError) as e:
            hangs.append(f'replay {i + 1}: {e}')
            break           # a hung queue stays hung
    return hangs


def _server(card, conn_list, stop):
    """One thread per client: run its start-up requests on the card."""
    def serve(conn, slot):
        while True:
            try:
                req = conn.recv()
            except EOFError:
                return
            try:
                startup(card, slot)
                conn.send('ok')
            except (CardError, AssertionError) as e:
                conn.send(str(e))
    threads = [threading.Thread(target=serve, args=(c, i), daemon=True)
               for i, c in enumerate(conn_list)]
    for t in threads:
        t.start()
    return threads


def _client(conn, rounds, out):
    bad = []
    for r in range(rounds):
        conn.send('startup')
        if not conn.poll(HANG_S * 8):
            bad.append(f'round {r + 1}: no answer from the server')
            break
        ans = conn.recv()
        if ans != 'ok':
            bad.append(f'round {r + 1}: {ans}')
    conn.close()
    out.put(bad)


def clients(card, nclients, rounds):
    """@nclients client processes at once, @rounds start-ups each, all
    through this (server) process's card."""
    ctx = mp.get_context('fork')
    out = ctx.Queue()
    ends = [ctx.Pipe() for _ in range(nclients)]
    threads = _server(card, [s for s, _ in ends], None)
    procs = [ctx.Process(target=_client, args=(c, rounds, out))
             for _, c in ends]
    for p in procs:
        p.start()
    bad = []
    for _ in procs:
        bad += out.get()
    for p in procs:
        p.join()
    for s, _ in ends:
        s.close()
    for t in threads:
        t.join(1)
    return bad


def run(root, nboots, nreplays, nclients, rounds, load=True, log=print):
    """Every mode; a list of (name, [failures])."""
    lib = Lib(root)
    os.environ.setdefault('ETSOC1_QEMU', os.path.join(
        root, 'qemu-build', 'qemu-system-riscv64'))
    os.environ.setdefault('ETSOC1_GUEST_DIR', os.path.join(root, 'guest'))
    results = []
    with Load(load):
        t = time.monotonic()
        results.append((f'{nboots} fresh boots, start-up at MM READY',
                        boots(lib, nboots, log)))
        log(f'# boots: {time.monotonic() - t:.1f} s')
        card = LibCard(lib)
        try:
            wait_mm_ready(card)
            t = time.monotonic()
            results.append((f'start-up replayed {nreplays} times on one card',
                            replays(card, nreplays)))
            log(f'# replays: {time.monotonic() - t:.1f} s')
            t = time.monotonic()
            results.append((f'{nclients} client processes x {rounds} '
                            'start-ups through one server',
                            clients(card, nclients, rounds)))
            log(f'# clients: {time.monotonic() - t:.1f} s')
        finally:
            card.close()
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('root', nargs='?', default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', 'build'))
    ap.add_argument('--boots', type=int, default=10)
    ap.add_argument('--replays', type=int, default=200)
    ap.add_argument('--clients', type=int, default=4)
    ap.add_argument('--rounds', type=int, default=25)
    ap.add_argument('--no-load', action='store_true')
    a = ap.parse_args()
    bad = 0
    for name, fails in run(os.path.abspath(a.root), a.boots, a.replays,
                           a.clients, a.rounds, not a.no_load):
        print(f"{'not ok' if fails else 'ok'} - {name}")
        for f in fails:
            print(f'#   {f}')
        bad += bool(fails)
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
