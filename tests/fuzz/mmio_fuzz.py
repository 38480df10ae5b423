#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seeded qtest MMIO fuzzer over the ESR, PCIe DBI/iATU and eDMA spaces.

One QEMU per seed (-accel qtest, the qtest protocol on stdio); the seed
alone decides every operation, so a failure replays exactly:

    tests/fuzz/mmio_fuzz.py [--qemu BIN] [--seed S] [--count N] [--runs R]

runs R seeds S, S+1, ... with N operations each: random reads and writes
of 1-8 bytes (ESR of present, absent, memory and IO shires at every PP;
the PCIe config header, inbound iATU, eDMA registers and the rest of the
DBI window), clock steps, and eDMA starts with random linked lists (random
control bits, sizes, source and destination addresses anywhere, circular
links).  Every 250 operations and at the end a health check: QEMU is up,
answers, and a DRAM word and the PU timer version read back.  At the end
SIGTERM must end QEMU with status 0.  A failing seed is printed with the
command that replays it (docs/robustness.md).
"""

import os
import random
import select
import signal
import subprocess
import sys
import tempfile
import time

import fuzz_seeds
from fuzz_seeds import each_seed

DRAM = 0x8000000000
LL_BASE = 0x8004000000
DBI = 0x7e80000000
IATU = DBI + 0x300000
EDMA = DBI + 0x380000
HOST = 0x3000000000          # qtest loopback host memory, 64 MiB
PU_TIMER_VERSION = 0x12005000 + 0xac
SHIRES = 2
OP_TIMEOUT = 60              # s of host time for one reply: a hang
HEALTH_EVERY = 250


def esr_addr(r):
    pp = r.randrange(4)
    shire = r.choice([0, 1, SHIRES, 0xff, 232, 239, 254, r.randrange(256)])
    off = r.choice([r.randrange(0x400) * 8, r.randrange(0x40000),
                    r.randrange(0x400000)])
    return 0x100000000 | pp << 30 | shire << 22 | off


def dbi_addr(r):
    return r.choice([
        DBI + r.randrange(0x1000),                      # config header
        IATU + r.randrange(0x2000),                     # inbound iATU
        EDMA + r.randrange(0x1400),                     # eDMA
        DBI + r.randrange(0x80000000),                  # anywhere
    ])


def edma_reg(r):
    return EDMA + r.choice([0x08, 0x0c, 0x10, 0x2c, 0x30, 0x4c, 0x54, 0x58,
                            0xa0, 0xa8, 0xac, 0xb4, 0xb8,
                            0x200 + r.randrange(8) * 0x100 + r.randrange(0x40)])


def value(r, size):
    bits = 8 * size
    return r.choice([r.getrandbits(bits), 0, (1 << bits) - 1,
                     1 << r.randrange(bits), r.randrange(16)])


def dma_addr(r):
    return r.choice([
        DRAM + r.randrange(256 << 20),                  # DRAM (-m 256M)
        DRAM + (256 << 20) - r.randrange(1, 4096),      # the end of DRAM
        DRAM + r.randrange(1 << 35),                    # past it
        HOST + r.randrange(64 << 20),                   # host memory
        r.getrandbits(64), r.getrandbits(40), 0,
    ])


def dma_start(r):
    """The qtest commands of one eDMA start with a random linked list."""
    rd = r.randrange(2)
    ch = r.randrange(4) if r.random() < 0.9 else r.randrange(256)
    base = LL_BASE + r.randrange(0x800 // 8) * 8
    cmds = []
    n = r.randrange(1, 5)
    for i in range(n):
        at = base + 24 * i
        ctrl = r.choice([1 | 8, 1, 1 | 2 | 4, r.getrandbits(32)])
        if i == n - 1 and r.random() < 0.8:
            ctrl = 1 | 2 | 4             # CB | TCB | LLP: back to the start
            sar = base if r.random() < 0.8 else dma_addr(r)
            size = 0
        else:
            sar = dma_addr(r)
            size = r.choice([r.randrange(1, 4096), r.randrange(1 << 20),
                             r.getrandbits(32), 0])
        cmds += [f'writel 0x{at:x} 0x{ctrl:x}',
                 f'writel 0x{at + 4:x} 0x{size:x}',
                 f'writeq 0x{at + 8:x} 0x{sar:x}',
                 f'writeq 0x{at + 16:x} 0x{dma_addr(r):x}']
    en = 0x2c if rd else 0x0c
    chan = EDMA + 0x200 + ch * 0x200 + (0x100 if rd else 0)
    llp = base if r.random() < 0.9 else r.getrandbits(64)
    cmds += [f'writel 0x{EDMA + en:x} 0x1',
             f'writel 0x{chan + 0x1c:x} 0x{llp & 0xffffffff:x}',
             f'writel 0x{chan + 0x20:x} 0x{llp >> 32:x}',
             f'writel 0x{chan:x} 0x{r.choice([0x300, 0x200, r.getrandbits(32)]):x}',
             f'writel 0x{EDMA + (0x30 if rd else 0x10):x} '
             f'0x{ch if r.random() < 0.9 else r.getrandbits(32):x}',
             f'clock_step {r.randrange(1, 2000000)}']
    return cmds


SIZES = {1: 'b', 2: 'w', 4: 'l', 8: 'q'}


def operation(r):
    """The qtest commands of one random operation."""
    k = r.random()
    if k < 0.04:
        return [f'clock_step {r.randrange(1, 100000)}']
    if k < 0.08:
        return dma_start(r)
    addr = r.choice([esr_addr, dbi_addr, edma_reg])(r)
    size = r.choice([1, 2, 4, 8, 4, 4, 8])
    if r.random() < 0.6:
        return [f'write{SIZES[size]} 0x{addr:x} 0x{value(r, size):x}']
    return [f'read{SIZES[size]} 0x{addr:x}']


class Qemu:
    def __init__(self, qemu, log):
        self.p = subprocess.Popen(
            [qemu, '-M', f'etsoc1,shires={SHIRES},host-loopback=on',
             '-smp', str(64 * SHIRES),
             '-m', '256M', '-accel', 'qtest', '-qtest', 'stdio',
             '-qtest-log', '/dev/null',
             '-display', 'none', '-monitor', 'none', '-serial', 'none',
             '-d', 'guest_errors,unimp', '-D', log],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        self.buf = b''

    def cmd(self, line):
        """Send @line; its reply, or None if QEMU died or hung."""
        self.p.stdin.write(line.encode() + b'\n')
        self.p.stdin.flush()
        deadline = time.monotonic() + OP_TIMEOUT
        while True:
            nl = self.buf.find(b'\n')
            if nl >= 0:
                reply, self.buf = self.buf[:nl].decode(), self.buf[nl + 1:]
                if reply.startswith('IRQ'):
                    continue
                return reply
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                return None
            data = os.read(self.p.stdout.fileno(), 65536)
            if not data:
                return None
            self.buf += data

    def read(self, line):
        reply = self.cmd(line)
        try:
            return int(reply.split()[1], 16) if reply.startswith('OK ') else None
        except (AttributeError, ValueError, IndexError):
            return None

    def healthy(self):
        word = 0x5a5aa5a5deadbeef
        if self.cmd(f'writeq 0x{DRAM + 0x1000:x} 0x{word:x}') != 'OK':
            return False
        return (self.read(f'readq 0x{DRAM + 0x1000:x}') == word and
                self.read(f'readl 0x{PU_TIMER_VERSION:x}') == 0x3230392a)

    def stop(self):
        """SIGTERM: QEMU's exit status (0 when it shuts down cleanly)."""
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        try:
            rc = self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
        return rc


def fuzz_one(qemu, seed, count):
    """Run @count operations of @seed: (failure or None, commands sent)."""
    r = random.Random(seed)
    sent, last = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        q = Qemu(qemu, os.path.join(tmp, 'qemu.log'))
        failure = None
        try:
            for i in range(count):
                for line in operation(r):
                    last = (last + [line])[-12:]
                    sent += 1
                    reply = q.cmd(line)
                    if reply is None or not reply.startswith('OK'):
                        failure = (f'op {i}: {line!r}: '
                                   f'{"no reply" if reply is None else reply}')
                        break
                if failure is None and (i + 1) % HEALTH_EVERY == 0 \
                        and not q.healthy():
                    failure = f'op {i}: health check failed'
                if failure:
                    break
            if failure is None and not q.healthy():
                failure = 'final health check failed'
        finally:
            rc = q.stop()
            err = q.p.stderr.read().decode(errors='replace')
        if failure is None and rc != 0:
            failure = f'QEMU exit status {rc} after SIGTERM'
        if failure:
            failure += '\nlast commands:\n  ' + '\n  '.join(last)
            failure += '\nQEMU stderr:\n' + err[-3000:]
    return failure, sent


def fuzz(qemu, seed, count, runs, log=print):
    """@runs seeds from @seed; (failures, operations, commands)."""
    failures, cmds, _ = each_seed('mmio_fuzz.py', seed, count, runs,
                                  lambda s: fuzz_one(qemu, s, count), log)
    return failures, count * runs, cmds


def main():
    def run(a):
        failures, ops, cmds = fuzz(a.qemu, a.seed, a.count, a.runs)
        return failures, ops, {'qtest commands': cmds}

    return fuzz_seeds.main(__doc__, 'mmio_fuzz', 20000, 'operations', run)


if __name__ == '__main__':
    sys.exit(main())
