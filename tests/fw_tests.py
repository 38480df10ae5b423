#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The card firmware (docs/firmware.md) seen from the host.

QEMU runs the full card command line of the host interface (SP stub,
minion firmware, host link); this file plays the host over
tests/hostlink.py: DIRs, the MM and SP queues, DMA lists, kernels.

    python3 tests/fw_tests.py BUILD_ROOT      standalone, prints TAP
    fw_tests()                                the fw group of tests/run.py
"""

import ctypes
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostlink as hl  # noqa: E402
import fw_startup  # noqa: E402
import timing_ref  # noqa: E402
from qmp import Qmp  # noqa: E402

HOST_MEM = 0x1_0000_0000            # host "physical" addresses we serve
HOST_MEM_SIZE = 8 << 20
DEV_FREE = 0x80_0700_0000           # host-managed DRAM the tests use
BAR0_DRAM = 0x80_0400_1000          # where BAR0 starts (firmware.md)
IDLE_CPU_MAX = 0.10                 # of one host CPU, for an idle card

MM_VQ = 0x100                       # BAR2 offsets (spec 3.4)
MM_SQ0, MM_CQ = MM_VQ + 0x000, MM_VQ + 0x900
MM_SQ1 = MM_VQ + 0x440              # the second submission queue
SP_SQ, SP_CQ = 0x1200, 0x1200 + 0x700
MM_DOORBELL, SP_DOORBELL = 0x2004, 0x2000

MSG = dict(api_compat=513, fw_version=515, echo=517, abort=519,
           launch=521, kernel_abort=523, readlist=525, writelist=527,
           fw_error=535)


def die_with_parent():
    """In the child: QEMU gets SIGKILL when this process dies (Linux)."""
    try:
        # prctl(PR_SET_PDEATHSIG, SIGKILL)
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def elf_segments(path):
    """The entry point of the ELF at @path and its PT_LOAD segments as
    (p_paddr, bytes), each padded with zeros to p_memsz."""
    elf = open(path, 'rb').read()
    entry, phoff = struct.unpack_from('<QQ', elf, 24)
    phentsize, phnum = struct.unpack_from('<HH', elf, 54)
    segments = []
    for i in range(phnum):
        (ptype, _, off, _, paddr, filesz, memsz,
         _) = struct.unpack_from('<IIQQQQQQ', elf, phoff + i * phentsize)
        if ptype == 1 and memsz:
            segments.append((paddr, elf[off:off + filesz] +
                             bytes(memsz - filesz)))
    return entry, segments


class Card:
    """One QEMU running the contract's command line, and its host link."""

    def __init__(self, root, extra=(), fw='etsoc1-fw.elf',
                 options=hl.OPT_HOSTMEM):
        from etsoc1test import harness
        qemu = os.environ.get('ETSOC1_QEMU') or os.path.join(
            root, 'qemu-build', 'qemu-system-riscv64')
        g = os.path.join(root, 'guest')
        self.dir = tempfile.mkdtemp(prefix='etsoc1-fw-')
        self.started = time.monotonic()
        sock = os.path.join(self.dir, 'hl.sock')
        self.proc = subprocess.Popen(
            [qemu, '-M', f'etsoc1,shires=33,sp-firmware={g}/etsoc1-sp.elf,'
             'hostlink=hl', '-smp', '2113', '-m', '2G',
             '-bios', os.path.join(g, fw), '-display', 'none',
             '-chardev', f'socket,id=hl,path={sock},server=on,wait=off',
             '-serial', f'file:{self.dir}/pu0.log',
             '-serial', f'file:{self.dir}/pu1.log',
             '-serial', f'file:{self.dir}/sp0.log',
             '-qmp', f'unix:{self.dir}/qmp.sock,server=on,wait=off'] +
            list(extra) + harness.default_accel_args(extra),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(self.dir, 'qemu.err'), 'w'),
            preexec_fn=die_with_parent)
        self.link = None
        try:
            self.link = hl.HostLink(sock, mem_base=HOST_MEM,
                                    mem_size=HOST_MEM_SIZE, timeout=30)
            self.link.hello(options)
            self.bar0, self.bar2 = self.link.wait_ready(timeout=60)
        except (hl.LinkError, OSError):
            self.close()
            raise
        self.tag = 0
        self.stash = {}

    def qmp(self, execute, **arguments):
        """One QMP command on a fresh connection; its 'return'."""
        with Qmp(os.path.join(self.dir, 'qmp.sock')) as qmp:
            return qmp.get(execute, **arguments)

    def logs(self):
        out = ''
        for name in ('sp0.log', 'pu0.log', 'qemu.err'):
            path = os.path.join(self.dir, name)
            if os.path.exists(path):
                out += f'--- {name}\n' + open(path).read()[-3000:]
        return out

    def close(self):
        if self.link:
            try:
                self.link.timeout = 5
                self.link.request(hl.STOP)
            except (hl.LinkError, OSError):
                pass
            self.link.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def cpu_share(self, seconds):
        """QEMU's CPU time over @seconds of wall time, per second."""
        def cpu():
            with open(f'/proc/{self.proc.pid}/stat') as f:
                fields = f.read().rsplit(')', 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf(
                'SC_CLK_TCK')

        before = cpu()
        time.sleep(seconds)
        return (cpu() - before) / seconds

    # ---- BAR2 helpers ----
    def r64(self, off):
        return struct.unpack('<Q', self.link.read(self.bar2 + off, 8))[0]

    def w64(self, off, v):
        self.link.write(self.bar2 + off, struct.pack('<Q', v))

    def wait_status(self, off, want, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            st = struct.unpack('<h', self.link.read(self.bar2 + off, 2))[0]
            if st >= want:
                return st
            time.sleep(0.1)
        return st

    def push(self, q, data, doorbell):
        """Producer side of a queue at BAR2 + q (the host's SQ push)."""
        head, tail, length = self.r64(q), self.r64(q + 8), self.r64(q + 16)
        used = (head - tail) % length
        assert length - 1 - used >= len(data), 'SQ full'
        first = min(len(data), length - head)
        self.link.write(self.bar2 + q + 32 + head, data[:first])
        if first < len(data):
            self.link.write(self.bar2 + q + 32, data[first:])
        self.w64(q, (head + len(data)) % length)
        self.link.write32(self.bar2 + doorbell, 1)

    def ring_read(self, q, off, n, length):
        first = min(n, length - off)
        data = self.link.read(self.bar2 + q + 32 + off, first)
        if first < n:
            data += self.link.read(self.bar2 + q + 32, n - first)
        return data

    def pop(self, q):
        """Consumer side: one message (header size = payload) or None."""
        head, tail, length = self.r64(q), self.r64(q + 8), self.r64(q + 16)
        if head == tail:
            return None
        hdr = self.ring_read(q, tail, 8, length)
        size = struct.unpack_from('<H', hdr)[0]
        msg = hdr + self.ring_read(q, (tail + 8) % length, size, length)
        self.w64(q + 8, (tail + 8 + size) % length)
        return msg

    def send(self, msg_id, payload=b'', sq=MM_SQ0, flags=0):
        self.tag = (self.tag + 1) & 0xffff
        cmd = struct.pack('<HHHH', 8 + len(payload), self.tag, msg_id,
                          flags) + payload
        self.push(sq, cmd, SP_DOORBELL if sq == SP_SQ else MM_DOORBELL)
        return self.tag

    def wait(self, tag, cq=MM_CQ, timeout=60):
        """The response or event carrying @tag: (msg_id, whole message)."""
        vec = 1 << (1 if cq == SP_CQ else 3)
        deadline = time.monotonic() + timeout
        while (cq, tag) not in self.stash:
            msg = self.pop(cq)
            if msg:
                t, mid = struct.unpack_from('<HH', msg, 2)
                self.stash[(cq, t)] = (mid, msg)
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                raise hl.LinkError(f'no response for tag {tag}')
            try:
                self.link.wait_msi(vec, min(left, 1.0))
            except hl.LinkError:
                pass
        return self.stash.pop((cq, tag))

    def command(self, msg_id, payload=b'', **kw):
        timeout = kw.pop('timeout', 60)
        return self.wait(self.send(msg_id, payload, **kw), timeout=timeout)

    # ---- DMA ----
    def dma(self, msg_id, nodes):
        """nodes: (host address, device address, size); the status."""
        payload = b''.join(struct.pack('<QQQII', h, h, d, n, 0)
                           for h, d, n in nodes)
        mid, rsp = self.command(msg_id, payload)
        assert mid == msg_id + 1, f'response {mid} to {msg_id}'
        return struct.unpack_from('<I', rsp, 32)[0]

    def to_card(self, dev, data, host_off=0):
        self.link.mem[host_off:host_off + len(data)] = data
        return self.dma(MSG['writelist'],
                        [(HOST_MEM + host_off, dev, len(data))])

    def from_card(self, dev, n, host_off=HOST_MEM_SIZE // 2):
        self.link.mem[host_off:host_off + n] = bytes(n)
        st = self.dma(MSG['readlist'], [(HOST_MEM + host_off, dev, n)])
        return st, bytes(self.link.mem[host_off:host_off + n])

    def load_elf(self, path):
        """Load the PT_LOAD segments at p_paddr by DMA; the entry point."""
        entry, segments = elf_segments(path)
        for paddr, data in segments:
            st = self.to_card(paddr, data)
            assert st == 0, f'segment at {paddr:#x}: DMA status {st}'
        return entry

    def launch(self, entry, args, mask, timeout=120):
        payload = struct.pack('<QQQQ', entry, args, 0, mask)
        tag = self.send(MSG['launch'], payload)
        return tag

    def launch_status(self, tag, timeout=120):
        mid, rsp = self.wait(tag, timeout=timeout)
        assert mid == MSG['launch'] + 1, f'response {mid} to launch'
        return struct.unpack_from('<I', rsp, 32)[0]


def fw_tests(report=None, root=None):
    """The fw group: by default with the harness's report and build root
    (tests/etsoc1test/harness.py), or @report (ok, name, diag) and @root
    when run standalone."""
    if report is None:
        from etsoc1test import harness
        report, root = harness.report, harness.ROOT
    root = os.path.abspath(root or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', 'build'))
    guest = os.path.join(root, 'guest')
    # the default firmware, then the launch watchdog on one whose timeout
    # is 200 ms
    for label, fw, tests in (('firmware', 'etsoc1-fw.elf', _fw_tests),
                             ('firmware (200 ms timeout)',
                              'etsoc1-fw-short-timeout.elf', _timeout_tests)):
        # the halts of polls (etsoc1_sync_halt) for _abi_tests
        sync_log = os.path.join(tempfile.mkdtemp(prefix='etsoc1-fw-sync-'),
                                'sync.log')
        try:
            card = Card(root, fw=fw, extra=['-trace', 'etsoc1_sync_halt',
                                            '-D', sync_log])
            card.sync_log = sync_log
        except (hl.LinkError, OSError) as e:
            report(False, f'{label}: card boots ({e})')
            return
        try:
            tests(report, card, guest)
        except (hl.LinkError, AssertionError, OSError) as e:
            report(False, f'{label}: tests stopped: {e}', card.logs())
        finally:
            card.close()
            shutil.rmtree(os.path.dirname(sync_log), ignore_errors=True)
    repeat_tests(report, root, guest)
    host_track_test(report, root)
    # issue 13: the runtime's start-up through libetsoc1-host, under load
    # (longer by hand: python3 tests/fw_startup.py BUILD --boots 40)
    t = time.monotonic()
    try:
        results = fw_startup.run(root, nboots=3, nreplays=200, nclients=4,
                                 rounds=10, log=lambda line: None)
    except (fw_startup.CardError, OSError) as e:
        results = [('start-up sequence', [f'stopped: {e}'])]
    wall = time.monotonic() - t
    for name, fails in results:
        report(not fails, f'firmware start-up (a host core busy): {name}: '
               f'{len(fails)} hangs or errors ({wall:.0f} s for all)',
               '\n'.join(fails))


def _fw_tests(report, card, guest):
    t0 = card.started       # times below are from QEMU's start
    # ---- SP DIR ----
    st = card.wait_status(0x1000 + 44, 12)
    sp = card.link.read(card.bar2 + 0x1000, 352)
    gen_size, ver, total = struct.unpack_from('<HHH', sp)
    crc = struct.unpack_from('<I', sp, 16)[0]
    shires = struct.unpack_from('<I', sp, 24)[0]
    report(st == 12 and ver == 2 and total == 352 and
           crc == zlib.crc32(sp[gen_size:total]) and shires == 0xffffffff,
           f'firmware: SP DIR v2, 352 B, CRC ok, status {st} (DEV_READY), '
           f'compute shires {shires:#x} ({time.monotonic() - t0:.1f} s)',
           card.logs())
    # ---- MM DIR ----
    st = card.wait_status(8, 8)
    mm = card.link.read(card.bar2, 112)
    gen_size, ver, total, nreg = struct.unpack_from('<HHHH', mm)
    crc = struct.unpack_from('<I', mm, 10)[0]
    vq = struct.unpack_from('<HBBIIHHIHHIHH', mm, 16)
    report(st == 8 and ver == 1 and total == 112 and nreg == 2 and
           crc == zlib.crc32(mm[gen_size:total]) and
           vq[4:] == (0, 2, 0x440, 0x900, 1, 0x600, 0x880, 2, 0x40),
           f'firmware: MM DIR v1, 112 B, CRC ok, status {st} (MM_READY), '
           f'queues as spec 3.4 ({time.monotonic() - t0:.1f} s)', card.logs())
    # ---- idle: 2,113 harts wait halted, not spinning ----
    busy = card.cpu_share(2.0)
    report(busy < IDLE_CPU_MAX,
           f'firmware: the booted, idle card uses {100 * busy:.1f}% of a '
           f'host CPU over 2 s (at most {100 * IDLE_CPU_MAX:.0f}%): its '
           f'harts halt', card.logs())
    dev_size, dev_base = struct.unpack_from('<QQ', mm, 48 + 32 + 16)
    report(dev_base == 0x80_0580_1000 and
           dev_base + dev_size == 0x80_8000_0000,
           f'firmware: host-managed DRAM {dev_base:#x} + {dev_size:#x}')

    # ---- simple commands ----
    mid, rsp = card.command(MSG['echo'], bytes(8))
    report(mid == 518 and struct.unpack_from('<I', rsp, 16)[0] == 0 and
           struct.unpack_from('<H', rsp, 0)[0] == 16,
           'firmware: echo answered (518, size = payload 16, status 0)')
    for name, sq in (('SQ1', MM_SQ1), ('HP SQ0', MM_VQ + 0x880),
                     ('HP SQ1', MM_VQ + 0x8c0)):
        mid, rsp = card.command(MSG['echo'], bytes(8), sq=sq)
        report(mid == 518, f'firmware: echo on {name} answered')
    sq_msi = any(e[0] == 'msi' and e[1] & 4 for e in card.link.events)
    report(sq_msi, 'firmware: MSI vector 2 (MM_SQ) after a pop')
    mid, rsp = card.command(MSG['api_compat'], bytes(8))
    ver = struct.unpack_from('<IHHH', rsp, 8)
    report(mid == 514 and ver == (0, 2, 6, 0),
           f'firmware: API compatibility: status {ver[0]}, version '
           f'{ver[1]}.{ver[2]}.{ver[3]}')
    mid, rsp = card.command(MSG['fw_version'], bytes(8))
    report(mid == 516 and struct.unpack_from('<I', rsp, 8)[0] == 0,
           'firmware: FW version answered')
    mid, rsp = card.command(600, bytes(8))
    payload, etype = struct.unpack_from('<QI', rsp, 8)
    report(mid == 535 and payload == 600 and etype == 0,
           f'firmware: unsupported command 600 -> DEVICE_FW_ERROR event '
           f'(msg {mid}, payload {payload}, error_type {etype})')

    # ---- SP management queue ----
    for cmd in (0, 52):
        mid, rsp = card.wait(card.send(cmd, bytes(8), sq=SP_SQ), cq=SP_CQ)
        status = struct.unpack_from('<i', rsp, 16)[0]
        report(mid == cmd and status != 0 and len(rsp) == 24,
               f'firmware: SP management command {cmd} answered with error '
               f'status {status}')

    # ---- DMA round trips ----
    for size in (4096, 1 << 20):
        data = os.urandom(size)
        t = time.monotonic()
        st_w = card.to_card(DEV_FREE, data)
        st_r, back = card.from_card(DEV_FREE, size)
        report(st_w == 0 and st_r == 0 and back == data,
               f'firmware: DMA writelist + readlist of {size} B, data checked '
               f'(status {st_w}/{st_r}, {time.monotonic() - t:.2f} s)')
    # two lists in flight at once, from SQ0 and SQ1 (two read channels)
    big = [os.urandom(1 << 20) for _ in range(2)]
    for i, d in enumerate(big):
        card.link.mem[i << 20:(i + 1) << 20] = d
    tags = [card.send(MSG['writelist'], struct.pack(
        '<QQQII', HOST_MEM + (i << 20), HOST_MEM + (i << 20),
        DEV_FREE + (i << 21), 1 << 20, 0),
        sq=MM_SQ0 + i * 0x440) for i in range(2)]
    sts = [struct.unpack_from('<I', card.wait(t)[1], 32)[0] for t in tags]
    backs = [card.from_card(DEV_FREE + (i << 21), 1 << 20)[1]
             for i in range(2)]
    report(sts == [0, 0] and backs == big,
           f'firmware: two 1 MiB writelists in flight from SQ0 and SQ1: '
           f'status {sts}, data checked')
    # many small commands: both rings wrap many times
    ok = 0
    for burst in range(50):
        tags = [card.send(MSG['echo'], bytes(8)) for _ in range(4)]
        ok += sum(card.wait(t)[0] == 518 for t in tags)
    report(ok == 200, f'firmware: 200 echos in bursts of 4 (SQ and CQ '
           f'rings wrap): {ok} answered')
    # four nodes each way
    parts = [os.urandom(8192) for _ in range(4)]
    for i, p in enumerate(parts):
        card.link.mem[i * 8192:(i + 1) * 8192] = p
    st_w = card.dma(MSG['writelist'], [(HOST_MEM + i * 8192,
                                        DEV_FREE + i * 65536, 8192)
                                       for i in range(4)])
    base = HOST_MEM_SIZE // 2
    card.link.mem[base:base + 4 * 8192] = bytes(4 * 8192)
    st_r = card.dma(MSG['readlist'], [(HOST_MEM + base + i * 8192,
                                       DEV_FREE + i * 65536, 8192)
                                      for i in range(4)])
    report(st_w == 0 and st_r == 0 and
           bytes(card.link.mem[base:base + 4 * 8192]) == b''.join(parts),
           'firmware: DMA lists of 4 nodes each way')
    st = card.dma(MSG['writelist'], [(HOST_MEM, 0x80_0010_0000, 4096)])
    report(st == 6, f'firmware: DMA to firmware DRAM refused: status {st} '
           '(6 invalid address)')
    st = card.dma(MSG['writelist'], [(HOST_MEM, DEV_FREE, 256 << 20)])
    report(st == 7, f'firmware: DMA element of 256 MiB refused: status {st} '
           '(7 invalid size)')
    st = card.dma(MSG['readlist'], [(HOST_MEM, DEV_FREE, 4096)] * 5)
    report(st == 7, f'firmware: DMA list of 5 nodes refused: status {st}')
    st = card.dma(MSG['readlist'], [(HOST_MEM + HOST_MEM_SIZE, DEV_FREE,
                                     4096)])
    report(st == 4, f'firmware: DMA to a host address the host refuses: '
           f'status {st} (4 error aborted)')

    # ---- kernels ----
    n = 4096
    a = [i * 3 - 5000 for i in range(n)]
    b = [7 - i * i for i in range(n)]
    va, vb, vr, vargs = (DEV_FREE + 0x10_0000 * k for k in range(1, 5))
    card.to_card(va, struct.pack(f'<{n}i', *a))
    card.to_card(vb, struct.pack(f'<{n}i', *b))
    card.to_card(vr, bytes(4 * n))
    card.to_card(vargs, struct.pack('<QQQi4x', va, vb, vr, n))
    entry = card.load_elf(os.path.join(guest, 'vecadd.elf'))
    for mask in (0x1, 0x3, 0xffffffff):
        card.to_card(vr, bytes(4 * n))
        t = time.monotonic()
        st = card.launch_status(card.launch(entry, vargs, mask))
        _, back = card.from_card(vr, 4 * n)
        got = list(struct.unpack(f'<{n}i', back))
        want = [x + y for x, y in zip(a, b)]
        report(st == 0 and got == want,
               f'firmware: vecadd.elf on shire mask {mask:#x}: status {st}, '
               f'{sum(g == w for g, w in zip(got, want))}/{n} sums right '
               f'({time.monotonic() - t:.2f} s)', card.logs())

    # embedded arguments (flag bit 5) and a stack area (bit 6)
    vargs2 = DEV_FREE + 0x50_0000
    card.to_card(vr, bytes(4 * n))
    stack = struct.pack('<II', 0x2000, 64)      # 64 pages for 64 harts
    args = struct.pack('<QQQi4x', va, vb, vr, n)
    mid, rsp = card.command(MSG['launch'], struct.pack(
        '<QQQQ', entry, vargs2, 0, 1) + stack + args, flags=0x60)
    st = struct.unpack_from('<I', rsp, 32)[0]
    _, back = card.from_card(vr, 4 * n)
    report(st == 0 and list(struct.unpack(f'<{n}i', back)) ==
           [x + y for x, y in zip(a, b)],
           f'firmware: vecadd.elf with embedded arguments and a stack area: '
           f'status {st}', card.logs())
    mid, rsp = card.command(MSG['launch'], struct.pack(
        '<QQQQ', entry, vargs, 0, 1) + struct.pack('<II', 0x2000, 63),
        flags=0x40)
    st = struct.unpack_from('<I', rsp, 32)[0]
    report(st == 14, f'firmware: a stack area under 4 KiB per hart: status '
           f'{st} (14 bad stack config)')

    st = card.launch_status(card.launch(entry, vargs, 0))
    report(st == 12, f'firmware: kernel launch on shire mask 0: status {st} '
           '(12 bad shire mask)')
    st = card.launch_status(card.launch(entry, vargs, 1 << 40))
    report(st == 12, f'firmware: kernel launch on an absent shire: status '
           f'{st} (12)')

    # host writes, by DMA or through BAR0, land in their lines' home L3
    # slices (timing.md 4): a global atomic on such a line costs an L3
    # hit, on a fresh one the DRAM path
    copied, fresh, written, out, l3args = (DEV_FREE + 0x60_0000 +
                                           0x1_0000 * k for k in range(5))
    entry = card.load_elf(os.path.join(guest, 'l3dma.elf'))
    card.to_card(copied, bytes(range(256)) * 8)
    card.link.write(card.bar0 + written - BAR0_DRAM, bytes(range(256)) * 8)
    card.to_card(l3args, struct.pack('<QQQQ', copied, fresh, written, out))
    st = card.launch_status(card.launch(entry, l3args, 0x1))
    _, back = card.from_card(out, 96 * 8)
    got = struct.unpack('<96Q', back)
    bad = []
    for k in range(32):
        hit, miss = timing_ref.l3_hit(0, k), timing_ref.l3_miss(0, k)
        for what, cycles, want in (('copied', got[3 * k], hit),
                                   ('fresh', got[3 * k + 1], miss),
                                   ('written', got[3 * k + 2], hit)):
            if abs(cycles - want) > want * timing_ref.TOLERANCE:
                bad.append(f'{what} line of home {k}: {cycles} cycles, '
                           f'want {want:.0f}')
    report(st == 0 and not bad,
           f'firmware: l3dma.elf: host writes land in the L3 (32 lines '
           f'copied by DMA and 32 written through BAR0 cost an L3 hit, 32 '
           f'fresh ones the DRAM path, within '
           f'5%; status {st})', '\n'.join(bad) + f'\n{got}')

    entry = card.load_elf(os.path.join(guest, 'exception.elf'))
    exc = DEV_FREE + 0x60_0000
    card.to_card(exc, bytes(64 * 320))
    mid, rsp = card.wait(card.send(MSG['launch'], struct.pack(
        '<QQQQ', entry, 0, exc, 0x1)), timeout=120)
    st = struct.unpack_from('<I', rsp, 32)[0]
    ptrs = struct.unpack_from('<QQQ', rsp, 40) if len(rsp) >= 64 else None
    _, ctx = card.from_card(exc, 64 * 320)
    ctxs = [struct.unpack_from('<8Q', ctx, 320 * h) for h in range(64)]
    # the first fault stops the others: the rest are system aborts (type
    # 2) or never started (empty)
    faults = [h for h, c in enumerate(ctxs) if c[0] == 1 and c[2] == h and
              c[6] == 7 and c[3] > entry]
    aborts = [h for h, c in enumerate(ctxs) if c[0] == 2 and c[2] == h]
    empty = [h for h, c in enumerate(ctxs) if not any(c)]
    report(st == 2 and ptrs == (exc, 0, 1) and faults and
           len(faults) + len(aborts) + len(empty) == 64,
           f'firmware: exception.elf: status {st} (2 exception), error '
           f'pointers {ptrs}, contexts: {len(faults)} faults (mcause 7: '
           f'the store to address 0), '
           f'{len(aborts)} aborted, {len(empty)} not started',
           card.logs())

    # Bit 32 of the mask launches the "sync minions" (harts 2080-2111 of
    # the master shire) too; their contexts follow hart 2047's.
    card.to_card(exc, bytes(2080 * 320))
    mid, rsp = card.wait(card.send(MSG['launch'], struct.pack(
        '<QQQQ', entry, 0, exc, 1 << 32)), timeout=120)
    st = struct.unpack_from('<I', rsp, 32)[0]
    _, ctx = card.from_card(exc + 2048 * 320, 32 * 320)
    sync = [struct.unpack_from('<8Q', ctx, 320 * i) for i in range(32)]
    mine = sum(c[2] == 2080 + i and c[0] in (1, 2) for i, c in
               enumerate(sync) if any(c))
    faults = sum(c[0] == 1 and c[6] == 7 for c in sync)
    report(st == 2 and faults and mine == sum(any(c) for c in sync),
           f'firmware: exception.elf on shire mask 1 << 32 (the sync '
           f'minions): status {st} (2), {faults} faults, contexts at slots '
           f'2048-2079 from harts 2080-2111: {mine}', card.logs())
    st = card.launch_status(card.launch(entry, 0, 0xffffffff00000000))
    report(st == 12, f'firmware: shire mask 0xffffffff00000000: status '
           f'{st} (12)')

    entry = card.load_elf(os.path.join(guest, 'fault1.elf'))
    st = card.launch_status(card.launch(entry, 0, 0x1))
    report(st == 2, f'firmware: fault1.elf (one hart faults, 63 spin): '
           f'status {st} (2), the others stopped', card.logs())

    # Secure memory (the SP sets mprot as the card's boot does): a U-mode
    # store into the firmware's code, data or stacks is a store access
    # fault at that address, and the firmware lives on.
    entry = card.load_elf(os.path.join(guest, 'fwpoke.elf'))
    for what, addr in (('M-code (its text)', 0x80_0000_1000),
                       ('M-data (its data)', 0x80_0020_0000),
                       ('S-data (its stacks)', 0x80_0100_0000)):
        card.to_card(exc, bytes(320))
        mid, rsp = card.wait(card.send(MSG['launch'], struct.pack(
            '<QQQQ', entry, addr, exc, 0x1)), timeout=120)
        st = struct.unpack_from('<I', rsp, 32)[0]
        _, ctx = card.from_card(exc, 320)
        c = struct.unpack_from('<8Q', ctx)
        report(st == 2 and c[0] == 1 and c[6] == 7 and c[5] == addr,
               f'firmware: a kernel storing to {addr:#x}, the firmware\'s '
               f'{what}: status {st} (2 exception), context type {c[0]} (1 '
               f'U-mode exception), mcause {c[6]} (7), mtval {c[5]:#x}',
               card.logs())
    mid, rsp = card.command(MSG['echo'], bytes(8))
    report(mid == 518 and struct.unpack_from('<I', rsp, 16)[0] == 0,
           'firmware: echo answered after the stores were refused')

    entry = card.load_elf(os.path.join(guest, 'hang.elf'))
    tag = card.launch(entry, 0, 0x1)
    time.sleep(1)
    mid, rsp = card.command(MSG['kernel_abort'], struct.pack('<H6x', tag))
    ab = struct.unpack_from('<I', rsp, 8)[0]
    st = card.launch_status(tag)
    report(mid == 524 and ab == 0 and st == 4,
           f'firmware: hang.elf + kernel abort: abort status {ab}, launch '
           f'status {st} (4 host aborted)', card.logs())
    # A DMA with the barrier flag (header bit 0) waits for the kernel
    # before it, as Esperanto's runtime expects of its copy back after a
    # launch (its memcpy sets the flag): behind hang.elf it is answered
    # only once the kernel is aborted (from SQ1: SQ0's worker waits).
    tag = card.launch(entry, 0, 0x1)
    dtag = card.send(MSG['readlist'], struct.pack(
        '<QQQII', HOST_MEM, HOST_MEM, DEV_FREE, 4096, 0), flags=1)
    try:    # without the wait it comes in 0.2-1.5 s (64 spinning harts)
        card.wait(dtag, timeout=3)
        early = True
    except hl.LinkError:
        early = False
    card.command(MSG['kernel_abort'], struct.pack('<H6x', tag),
                 sq=MM_SQ1)
    dst = -1 if early else struct.unpack_from('<I', card.wait(dtag)[1],
                                              32)[0]
    st = card.launch_status(tag)
    report(not early and dst == 0 and st == 4,
           f'firmware: a DMA with the barrier flag behind hang.elf: '
           f'{"answered before" if early else "held until"} the kernel '
           f'abort, then status {dst}; launch status {st} (4)', card.logs())
    # a second launch (on SQ1) waits for the running one; ABORT (519)
    # stops the first, then the second runs
    entry = card.load_elf(os.path.join(guest, 'hang.elf'))
    tag1 = card.launch(entry, 0, 0x2)
    time.sleep(0.5)
    tag2 = card.send(MSG['launch'], struct.pack('<QQQQ', entry, 0, 0, 0x1),
                     sq=MM_SQ1)
    time.sleep(0.5)
    pending = (MM_CQ, tag2) not in card.stash and card.pop(MM_CQ) is None
    mid, rsp = card.command(MSG['abort'], struct.pack('<H6x', tag1))
    ab = struct.unpack_from('<I', rsp, 8)[0]
    st1 = card.launch_status(tag1)
    # the second launch is hang.elf too: abort it by its tag
    time.sleep(0.5)
    mid2, rsp2 = card.command(MSG['kernel_abort'], struct.pack('<H6x', tag2))
    st2 = card.launch_status(tag2)
    report(pending and mid == 520 and ab == 0 and st1 == 4 and st2 == 4 and
           struct.unpack_from('<I', rsp2, 8)[0] == 0,
           f'firmware: a launch waits for the running kernel (pending '
           f'{pending}); ABORT stops the first ({st1}), the second runs and '
           f'is aborted ({st2})', card.logs())
    st = card.command(MSG['kernel_abort'], struct.pack('<H6x', tag2))[1]
    report(struct.unpack_from('<I', st, 8)[0] == 2,
           'firmware: kernel abort with no such kernel: status 2 (invalid '
           'tag)')
    _host_abort_test(report, card, guest)
    _close_while_waiting_test(report, card, guest)
    # the shire runs kernels again after the aborts
    entry = card.load_elf(os.path.join(guest, 'vecadd.elf'))
    card.to_card(vr, bytes(4 * n))
    st = card.launch_status(card.launch(entry, vargs, 0x1))
    _, back = card.from_card(vr, 4 * n)
    report(st == 0 and list(struct.unpack(f'<{n}i', back)) ==
           [x + y for x, y in zip(a, b)],
           f'firmware: vecadd.elf again after the abort: status {st}')
    _abi_tests(report, card, guest)
    _selfabort_test(report, card, guest)
    _lost_doorbell_test(report, card)
    # the default firmware's 30 s, reached by the warp alone
    _all_waiting_test(report, card, guest, 'firmware', 30000)
    mid, rsp = card.command(MSG['echo'], bytes(8))
    report(mid == 518 and struct.unpack_from('<I', rsp, 16)[0] == 0,
           'firmware: echo answered after the 30 s timeout')


def _host_abort_test(report, card, guest):
    """hang.elf spins on shire 0; a kernel abort sent from SQ1, whose
    worker lags far behind the spinners, is handled at its stamped time,
    after the spinners' clocks (docs/timing.md, "Host inputs at a stamped
    time"): an echo on the same queue after the abort is taken after the
    launch's end.  Before, that worker took both at its own clock (with
    stamp-host=off: the echo at 27,492, the launch from 22,453 to
    51,638,615)."""
    sq1 = MM_SQ1
    entry = card.load_elf(os.path.join(guest, 'hang.elf'))
    tag = card.launch(entry, 0, 0x1)
    time.sleep(1)
    mid, rsp = card.command(MSG['kernel_abort'], struct.pack('<H6x', tag),
                            sq=sq1)
    ab = struct.unpack_from('<I', rsp, 8)[0] if mid == 524 else None
    mid, rsp = card.wait(tag, timeout=120)
    st = struct.unpack_from('<I', rsp, 32)[0] if mid == 522 else None
    t0, dur = struct.unpack_from('<QQ', rsp, 8) if mid == 522 else (0, 0)
    mid, rsp = card.command(MSG['echo'], bytes(8), sq=sq1)
    et0 = struct.unpack_from('<Q', rsp, 8)[0] if mid == 518 else 0
    report(ab == 0 and st == 4 and dur > 0 and et0 > t0 + dur,
           f'firmware: a kernel abort from SQ1 while hang.elf spins: status {ab}, launch status {st} (4), '
           f'launch {t0} + {dur}; the echo after it on SQ1 at cycle {et0} '
           f'(after the launch\'s end)', card.logs())


def _close_while_waiting_test(report, card, guest):
    """A host write waits for its stamped time while hang.elf spins; the
    host closes the connection meanwhile.  The write is made and answers
    no one; a new connection gets READY and its commands answered."""
    entry = card.load_elf(os.path.join(guest, 'hang.elf'))
    tag = card.launch(entry, 0, 0x1)
    time.sleep(0.5)
    card.link.send_raw(hl.frame(hl.MMIO_WRITE, struct.pack(
        '<QI', card.bar2 + 0xff0, 8) + bytes(8), seq=0xffff))
    card.link.close()
    card.link = hl.HostLink(os.path.join(card.dir, 'hl.sock'),
                            mem_base=HOST_MEM, mem_size=HOST_MEM_SIZE,
                            timeout=30)
    card.link.hello()
    card.bar0, card.bar2 = card.link.wait_ready(timeout=60)
    card.stash = {}
    mid, rsp = card.command(MSG['kernel_abort'], struct.pack('<H6x', tag))
    ab = struct.unpack_from('<I', rsp, 8)[0] if mid == 524 else None
    st = card.launch_status(tag)
    mid, _ = card.command(MSG['echo'], bytes(8))
    report(ab == 0 and st == 4 and mid == 518 and card.proc.poll() is None,
           f'firmware: the host closes while its write waits for hang.elf\'s '
           f'spinners; a new connection aborts the kernel (status {ab}, '
           f'launch {st}) and gets an echo ({mid})', card.logs())


def _harness():
    """tests/etsoc1test/harness.py, or None when run standalone."""
    try:
        from etsoc1test import harness
        return harness
    except ImportError:
        return None


def wall_bound(seconds):
    """The harness's bound on host time (its speed factor), or @seconds
    x ETSOC1_TEST_SLOWDOWN when run standalone."""
    h = _harness()
    return h.wall_bound(seconds) if h else \
        seconds * float(os.environ.get('ETSOC1_TEST_SLOWDOWN', 1))


def repeats(n):
    """harness.repeats (a determinism check's runs: @n, once under the
    sanitizers), or @n when run standalone."""
    h = _harness()
    return h.repeats(n) if h else n


def _all_waiting_test(report, card, guest, label, limit_ms, mask=0x3):
    """fccwait.elf: every launched hart waits on a credit nobody sends.
    No hart can act, so the model moves its emulated time on to the
    launch watchdog's expiry (docs/timing.md, "Timers and the warp"): the
    launch is answered 6 after limit_ms of emulated time (execute_dur at
    least the limit in cycles), in a few host seconds."""
    entry = card.load_elf(os.path.join(guest, 'fccwait.elf'))
    t = time.monotonic()
    mid, rsp = card.wait(card.launch(entry, 0, mask), timeout=120)
    dt = time.monotonic() - t
    st = struct.unpack_from('<I', rsp, 32)[0] if mid == 522 else None
    dur = struct.unpack_from('<Q', rsp, 16)[0] if mid == 522 else 0
    bound = wall_bound(10)
    limit = limit_ms * 1000 * CLOCK_MHZ
    report(st == 6 and dt < bound and dur >= limit,
           f'{label}: fccwait.elf (every hart waits on a credit) on mask '
           f'{mask:#x} timed out: status {st} (6), execute_dur {dur} '
           f'cycles (at least the limit, {limit}), after {dt:.2f} s of '
           f'host time (< {bound} s)', card.logs())
    return dt


MODES = (('MTTCG', []), ('thread=single', ['-accel', 'tcg,thread=single']))


def launch_durs(root, guest, extra, mask, sqs, fw='etsoc1-fw.elf'):
    """The execute_dur of launches of abi.elf's check on @mask, one from
    each submission queue of @sqs in turn, on a fresh card with @extra on
    its command line."""
    card = Card(root, extra=extra, fw=fw)
    try:
        st = card.wait_status(8, 8)
        assert st == 8, f'MM status {st}'
        entry = card.load_elf(os.path.join(guest, 'abi.elf'))
        args = DEV_FREE + 0x70_0000
        out = args + 0x4_0000
        durs = []
        for sq in sqs:
            card.to_card(out, bytes(8 * 64))
            card.to_card(args, struct.pack('<QQ', ABI_CHECK, out))
            tag = card.send(MSG['launch'], struct.pack('<QQQQ', entry, args,
                                                       0, mask), sq=sq)
            mid, rsp = card.wait(tag, timeout=120)
            assert mid == 522, f'response {mid} to a launch'
            st = struct.unpack_from('<I', rsp, 32)[0]
            assert st == 0, f'launch status {st}'
            durs.append(struct.unpack_from('<Q', rsp, 16)[0])
        return durs
    finally:
        card.close()


def repeat_tests(report, root, guest):
    """Three launches of abi.elf's check on shire 0 of one card, on two
    cards under MTTCG and two under thread=single (one of each under the
    sanitizers: repeats): the same execute_dur lists (issue 29 item 3;
    docs/firmware.md, "Launch watchdog").  On the
    short-timeout firmware, whose watchdog used to look every 2 ms of
    host-paced virtual time, many times in a launch; the second launch
    from SQ1, whose worker has been idle since the start-up: host inputs
    are stamped after every clock, so its launch counts from the
    command's time, not from that worker's own clock (its first launch:
    its L1 is cold, as SQ0's worker's is for the first).  Then two
    launches on all 32 compute shires, a card under each mode: until a
    WFI hart whose IPI was raised counted as able to act
    (etsoc1_next_act), the last shire-0 hart at the launch barrier found
    every other hart parked under thread=single and spun 8,192 polls
    before it halted: about 655,000 cycles more than under MTTCG.  Until
    the launch barrier's FLB leader handed its shire to a captain
    (docs/firmware.md), the lines the leader's count-in left in its L1
    (which hart leads is the host's choice) moved a 32-shire launch's
    execute_dur by 15-42 cycles in about one card in ten, and the pair
    ran with cache-model=off."""
    for mask, cards, sqs, fw in (
            (0x1, repeats(2), (MM_SQ0, MM_SQ1, MM_SQ0),
             'etsoc1-fw-short-timeout.elf'),
            (0xffffffff, 1, (MM_SQ0, MM_SQ0), 'etsoc1-fw.elf')):
        runs = {}
        for mode, extra in MODES:
            for run in range(cards):
                try:
                    runs[(mode, run)] = launch_durs(root, guest, extra, mask,
                                                    sqs, fw)
                except (hl.LinkError, AssertionError, OSError) as e:
                    report(False, f'firmware, {mode}: launches on {mask:#x} '
                           f'stopped: {e}')
                    return
        first = runs[('MTTCG', 0)]
        where = 'shire 0 (the second from SQ1)' if mask == 1 \
            else 'all 32 compute shires'
        report(all(d == first for d in runs.values()),
               f'firmware: {len(sqs)} launches of abi.elf\'s check on '
               f'{where}, {cards} card(s) under MTTCG and {cards} under '
               'thread=single: the same execute_dur each time: ' +
               '; '.join(f'{m} #{r + 1}: {d}' for (m, r), d in runs.items()))


def host_track_test(report, root):
    """trace-json's "host" track: each host write drawn at its stamped
    time, and the worker that takes a command starts at or after the
    doorbell's (docs/timing.md, "Host inputs at a stamped time")."""
    tdir = tempfile.mkdtemp(prefix='etsoc1-fw-trace-')
    path = os.path.join(tdir, 'trace.json')
    try:
        card = Card(root, extra=['-M', f'trace-json={path}'])
    except (hl.LinkError, OSError) as e:
        report(False, f'firmware: trace-json card boots ({e})')
        return
    try:
        assert card.wait_status(8, 8) == 8, 'MM not ready'
        mid, rsp = card.command(MSG['echo'], bytes(8))
        assert mid == 518, f'response {mid} to an echo'
        et0 = struct.unpack_from('<Q', rsp, 8)[0]
    except (hl.LinkError, AssertionError, OSError) as e:
        report(False, f'firmware: trace-json host track: {e}', card.logs())
        card.close()
        shutil.rmtree(tdir, ignore_errors=True)
        return
    card.close()
    try:
        events = json.load(open(path))
        events = events.get('traceEvents', events) \
            if isinstance(events, dict) else events
    except (OSError, ValueError) as e:
        events = []
        report(False, f'firmware: trace-json host track: unreadable ({e})')
    shutil.rmtree(tdir, ignore_errors=True)
    host = [e for e in events if e.get('cat') == 'host']
    ats = [e['args']['at'] for e in host]
    doorbells = [e['args']['at'] for e in host
                 if e['args']['addr'] == card.bar2 + MM_DOORBELL]
    named = any(e.get('ph') == 'M' and e.get('args', {}).get('name') ==
                'host' for e in events)
    report(named and host and ats == sorted(ats) and
           len(set(ats)) == len(ats) and doorbells and
           et0 >= doorbells[-1],
           f'firmware: trace-json draws {len(host)} host writes on a "host" '
           f'track at their stamped times, rising; the echo\'s worker starts '
           f'at cycle {et0}, at or after its doorbell\'s '
           f'{doorbells[-1] if doorbells else None}')


# guest-kernels/host/abi.c: its modes and result bits
(ABI_DIRTY, ABI_CHECK, ABI_BUS_ERROR, ABI_COOP_HOLD, ABI_LATE_CREDIT,
 ABI_ENTRY_CREDIT) = range(6)
ABI_BITS = ('FCC credits', 'FLB 3 count', 'fcsr', 'mask m0-m7',
            'trace control block', 'coop TensorLoad tensor_error')
ABI_RAN = 1 << 63
ABI_BUS_ERROR_HART = 5
CTX_BUS_ERROR = 6


def _abi_tests(report, card, guest):
    """The per-launch set-up a kernel may rely on (docs/firmware.md)."""
    entry = card.load_elf(os.path.join(guest, 'abi.elf'))
    args, out, exc = (DEV_FREE + 0x70_0000 + 0x4_0000 * k for k in range(3))
    mask, harts = 0x3, 128

    def run(mode):
        card.to_card(out, bytes(8 * harts))
        card.to_card(args, struct.pack('<QQ', mode, out))
        card.to_card(exc, bytes(harts * 320))
        mid, rsp = card.wait(card.send(MSG['launch'], struct.pack(
            '<QQQQ', entry, args, exc, mask)), timeout=120)
        st = struct.unpack_from('<I', rsp, 32)[0]
        err = struct.unpack_from('<Q', rsp, 56)[0] if len(rsp) >= 64 else 0
        got = struct.unpack(f'<{harts}Q', card.from_card(out, 8 * harts)[1])
        ctx = card.from_card(exc, harts * 320)[1]
        return st, err, got, [struct.unpack_from('<8Q', ctx, 320 * h)
                              for h in range(harts)]

    st, _, got, _ = run(ABI_DIRTY)
    report(st == 0 and all(v == ABI_RAN for v in got),
           f'firmware: abi.elf leaves credits, a half-joined FLB, fcsr, m0 '
           f'and its trace block behind: status {st}', card.logs())
    # hart 0 of each shire waits in a coop load its partner never joins
    card.to_card(args, struct.pack('<QQ', ABI_COOP_HOLD, out))
    tag = card.launch(entry, args, mask)
    time.sleep(1)
    try:
        card.stash[(MM_CQ, tag)] = card.wait(tag, timeout=0.01)
        early = True
    except hl.LinkError:
        early = False
        card.command(MSG['kernel_abort'], struct.pack('<H6x', tag))
    st = card.launch_status(tag)
    report(not early and st == 4,
           f'firmware: abi.elf held in a cooperative TensorLoad until the '
           f'kernel abort: status {st} (4)', card.logs())
    st, _, got, _ = run(ABI_LATE_CREDIT)
    report(st == 0 and all(v == ABI_RAN for v in got),
           f'firmware: abi.elf credits hart 0 of each shire after its kernel '
           f'returned: status {st}', card.logs())
    st, _, got, _ = run(ABI_CHECK)
    bad = {}
    for h, v in enumerate(got):
        for what in ['did not run'] if not v & ABI_RAN else \
                [w for b, w in enumerate(ABI_BITS) if v >> b & 1]:
            bad.setdefault(what, []).append(h)
    report(st == 0 and not bad,
           f'firmware: the next launch starts clean on shires 0-1 (no '
           f'credits, not even one sent after a hart had returned, FLBs 0, '
           f'fcsr 0, m0 0xff, U-mode trace disabled, L1 scratchpad on, coop '
           f'TensorLoad allowed and not held behind the aborted one): '
           f'status {st}' +
           ''.join(f'; {w}: {len(hs)} harts (first {hs[0]})'
                   for w, hs in bad.items()), card.logs())
    # the same kernel again: its reads of FLB 3's ESR find what the last
    # kernel's found, but a kernel's return ends a poll, so they do not
    # halt as polls; only each shire's launch barrier leader may (its
    # amoorg.d on the launch block)
    seen = os.path.getsize(card.sync_log)
    st, _, got, _ = run(ABI_CHECK)
    with open(card.sync_log) as f:
        f.seek(seen)
        polls = {int(h) for h in re.findall(
            r'etsoc1_sync_halt hart (\d+) halts \(wait 7\)', f.read())
            if int(h) < harts}
    report(st == 0 and all(v == ABI_RAN for v in got) and len(polls) <= 2,
           f'firmware: abi.elf\'s check again: no hart halts on a poll for '
           f'reading what it read in the last kernel (harts halted on polls: '
           f'{sorted(polls)}, at most the 2 barrier leaders): status {st}',
           card.logs())
    st, _, got, _ = run(ABI_ENTRY_CREDIT)
    report(st == 0 and all(v == ABI_RAN for v in got),
           f'firmware: abi.elf credits the other shire\'s harts as it starts '
           f'and waits for theirs (no credit lost to the set-up): status '
           f'{st}', card.logs())
    st, err, got, ctxs = run(ABI_BUS_ERROR)
    bus = [h for h in range(harts) if h % 64 == ABI_BUS_ERROR_HART]
    esr = 0x1_0000_0000 | 0x10_0000 | 0x20     # neigh 0 MPROT at PP=U
    ok_ctx = all(ctxs[h][0] == CTX_BUS_ERROR and ctxs[h][2] == h and
                 ctxs[h][5] == esr | (h // 64) << 22 for h in bus)
    others = [h for h in range(harts) if h not in bus]
    report(st == 1 and err == mask and ok_ctx and
           all(got[h] == 0 for h in bus) and
           all(got[h] == ABI_RAN and not any(ctxs[h]) for h in others),
           f'firmware: a U-mode read of a missing ESR (hart 5 of shires 0-1) '
           f'ends the kernel there with a bus error: status {st} (1 error), '
           f'shires in error {err:#x}, contexts type '
           f'{[ctxs[h][0] for h in bus]} tval '
           f'{[hex(ctxs[h][5]) for h in bus]}', card.logs())



CTX_SELF_ABORT = 3


def _selfabort_test(report, card, guest):
    """et_abort() (return type 1) is the shire's error, not an exception:
    status 1, self-abort contexts, the other harts run on (Esperanto's
    abort kernel; their worker's process_kernel_completion_status)."""
    entry = card.load_elf(os.path.join(guest, 'selfabort.elf'))
    args, out, exc = (DEV_FREE + 0x70_0000 + 0x4_0000 * k for k in range(3))
    mask, harts = 0x3, 128
    card.to_card(out, bytes(8 * harts))
    card.to_card(args, struct.pack('<QQ', out, 20000))
    card.to_card(exc, bytes(harts * 320))
    mid, rsp = card.wait(card.send(MSG['launch'], struct.pack(
        '<QQQQ', entry, args, exc, mask)), timeout=120)
    st = struct.unpack_from('<I', rsp, 32)[0]
    got = struct.unpack(f'<{harts}Q', card.from_card(out, 8 * harts)[1])
    ctx = card.from_card(exc, harts * 320)[1]
    ctxs = [struct.unpack_from('<8Q', ctx, 320 * h) for h in range(harts)]
    odd, even = range(1, harts, 2), range(0, harts, 2)
    aborted = sum(ctxs[h][0] == CTX_SELF_ABORT and ctxs[h][2] == h and
                  ctxs[h][3] > entry for h in odd)
    ran = sum(got[h] == 1 and not any(ctxs[h]) for h in even)
    report(st == 1 and aborted == len(odd) and ran == len(even) and
           not any(got[h] for h in odd),
           f'firmware: selfabort.elf (odd harts of shires 0-1 self abort, '
           f'as et_abort): status {st} (1 error, not 2), {aborted}/'
           f'{len(odd)} self-abort contexts, {ran}/{len(even)} other harts '
           f'ran to the end', card.logs())

def _lost_doorbell_test(report, card):
    """A command the dispatcher was never told about (here: pushed with
    no doorbell, the state issue 13's lost command left) shows in the hang
    report: the queue's worker halted on its credit counter, which is 0,
    and the dispatcher on its interrupt; a doorbell then gets it done."""
    hp0, worker = MM_VQ + 0x880, 2051
    head, tail, length = (card.r64(hp0 + k) for k in (0, 8, 16))
    card.tag = (card.tag + 1) & 0xffff
    cmd = struct.pack('<HHHHH6x', 16, card.tag, MSG['abort'], 0, 0)
    first = min(len(cmd), length - head)
    card.link.write(card.bar2 + hp0 + 32 + head, cmd[:first])
    if first < len(cmd):
        card.link.write(card.bar2 + hp0 + 32, cmd[first:])
    card.w64(hp0, (head + len(cmd)) % length)
    time.sleep(1.0)     # several ticks of the detector (250 ms)
    dl = card.qmp('qom-get', path='/machine', property='deadlock')
    fcc = card.qmp('qom-get', path='/machine/shire[32]', property='fcc')
    waits = {w['hartid']: w for w in dl.get('waiting', [])}
    w, d = waits.get(worker, {}), waits.get(2048, {})
    report(w.get('wait') == 'fcc0-credit' and fcc[worker % 64][0] == 0 and
           d.get('wait') == 'interrupt' and
           card.r64(hp0) != card.r64(hp0 + 8),
           f'firmware: a command in HP SQ0 with no doorbell: the hang report '
           f'(qom-get deadlock, state {dl.get("state")}) names worker '
           f'{worker} waiting on {w.get("wait")} (credits '
           f'{fcc[worker % 64][0]}, hung {w.get("hung")}) and the '
           f'dispatcher on {d.get("wait")}', json.dumps(dl)[:2000])
    card.link.write32(card.bar2 + MM_DOORBELL, 1)
    mid, rsp = card.wait(card.tag, timeout=30)
    report(mid == MSG['abort'] + 1 and card.r64(hp0) == card.r64(hp0 + 8),
           'firmware: ... and a doorbell gets it answered', card.logs())


TIMEOUT_MS = 20    # LAUNCH_TIMEOUT_MS of etsoc1-fw-short-timeout.elf
CLOCK_MHZ = 600     # the machine's default clock-mhz
BUDGET = TIMEOUT_MS * 1000 * CLOCK_MHZ     # the timeout in minion cycles

# A kernel (U-mode, position independent; a0 = {u64 cycles, u64 iters,
# u64 out}): hart 0 of each shire spins until its hpmcounter3 (cycles)
# has moved by `cycles`, then counts `iters` down in an addi/bnez loop and
# stores the cycles that loop took at `out`; the other harts return.
SPIN_KERNEL = struct.pack('<21I',
    0xcd002e73,     # csrr  t3, hartid
    0x03fe7e13,     # andi  t3, t3, 63
    0x020e1e63,     # bnez  t3, ret
    0x00053303,     # ld    t1, 0(a0)
    0x00853e83,     # ld    t4, 8(a0)
    0xc03022f3,     # csrr  t0, hpmcounter3
    0xc03023f3,     # 1: csrr t2, hpmcounter3
    0x405383b3,     # sub   t2, t2, t0
    0xfe63ece3,     # bltu  t2, t1, 1b
    0xc03022f3,     # csrr  t0, hpmcounter3
    0x000e8863,     # beqz  t4, 3f
    0xfffe8e93,     # 2: addi t4, t4, -1
    0xc0302f73,     # csrr  t5, hpmcounter3 (slow in host time, 1 cycle)
    0xfe0e9ce3,     # bnez  t4, 2b
    0xc03023f3,     # 3: csrr t2, hpmcounter3
    0x405383b3,     # sub   t2, t2, t0
    0x00753823,     # sd    t2, 16(a0)
    0x00800513,     # ret: li a0, 8 (SYSCALL_RETURN_FROM_KERNEL)
    0x00000593,     # li    a1, 0
    0x00000613,     # li    a2, 0 (success)
    0x00000073)     # ecall


def spin_loop_cycles(iters):
    """Cycles between the kernel's two hpmcounter3 reads around its
    count-down: the first read and the beqz, then addi, csrr and bnez per
    turn, each 1 cycle (insn.alu, insn.system, insn.branch of
    docs/timing.md)."""
    return 2 + 3 * iters


def _timeout_tests(report, card, guest):
    st = card.wait_status(8, 8)
    assert st == 8, f'MM status {st}'
    n = 4096
    a = [i * 5 - 77 for i in range(n)]
    b = [3 * i * i - 11 for i in range(n)]
    va, vb, vr, vargs = (DEV_FREE + 0x10_0000 * k for k in range(1, 5))
    code, sargs = DEV_FREE + 0x50_0000, DEV_FREE + 0x60_0000
    card.to_card(va, struct.pack(f'<{n}i', *a))
    card.to_card(vb, struct.pack(f'<{n}i', *b))
    card.to_card(vargs, struct.pack('<QQQi4x', va, vb, vr, n))
    card.to_card(code, SPIN_KERNEL)
    want = [x + y for x, y in zip(a, b)]

    def spin(cycles, iters=0, mask=0x1):
        card.to_card(sargs, struct.pack('<QQQ', cycles, iters, 0))
        t = time.monotonic()
        mid, rsp = card.wait(card.launch(code, sargs, mask), timeout=120)
        dt = time.monotonic() - t
        assert mid == 522, f'response {mid} to a launch'
        st = struct.unpack_from('<I', rsp, 32)[0]
        ptrs = struct.unpack_from('<QQQ', rsp, 40) if len(rsp) >= 64 else None
        spin.t0 = struct.unpack_from('<Q', rsp, 8)[0]
        _, out = card.from_card(sargs + 16, 8)
        return st, ptrs, dt, struct.unpack('<Q', out)[0]

    # The watchdog counts the kernel's own cycles: a kernel inside the
    # limit in cycles completes however long it takes in host time (here
    # many times the limit, with a host core kept busy on top), one past
    # it is stopped with 6; twice, so that the second gets its whole
    # limit again (a look left from the first must not end it early).
    with Busy():
        st, _, dt, _ = spin(BUDGET * 8 // 10)
    report(st == 0 and dt > 3 * TIMEOUT_MS / 1000,
           f'firmware ({TIMEOUT_MS} ms timeout): a kernel of 0.8 x the '
           f'limit in cycles completes: status {st} (0) after {dt:.2f} s '
           f'of host time (> 3 x {TIMEOUT_MS} ms), a host core busy',
           card.logs())
    for i in range(2):
        st, ptrs, dt, _ = spin(BUDGET * 2)
        report(st == 6 and ptrs == (0, 0, 1),
               f'firmware ({TIMEOUT_MS} ms timeout): a kernel of 2 x the '
               f'limit in cycles #{i + 1} timed out: status {st} (6), '
               f'shires in error {ptrs and hex(ptrs[2])}, {dt:.2f} s',
               card.logs())
    # A host command takes effect at a time stamped after every clock
    # (docs/timing.md, "Host inputs at a stamped time"): an echo on SQ1
    # after the timed-out kernel is taken at or after the kernel's harts
    # passed the limit.  Before, SQ1's worker, idle since the start-up,
    # took it at its own clock (about 20,000 cycles).  (SQ0's worker has
    # passed the kernel's end anyway: its DMA answers took the CQ's lock
    # after the kernel worker's.)
    mid, rsp = card.command(MSG['echo'], bytes(8), sq=MM_SQ1)
    et0 = struct.unpack_from('<Q', rsp, 8)[0] if mid == 518 else 0
    report(mid == 518 and et0 >= spin.t0 + BUDGET,
           f'firmware ({TIMEOUT_MS} ms timeout): an echo on SQ1 after the '
           f'timed-out kernel is taken at cycle {et0}, at least its '
           f'launch\'s {spin.t0} + the limit {BUDGET} (a host input '
           f'stamped after every clock)', card.logs())
    # The watchdog does not disturb the kernel (it sends its harts nothing
    # until it stops them): a long count-down loop takes exactly its
    # cycles.
    iters = BUDGET * 3 // 10
    with Busy():
        st, _, dt, got = spin(0, iters)
    report(st == 0 and got == spin_loop_cycles(iters),
           f'firmware ({TIMEOUT_MS} ms timeout): the watchdog leaves a '
           f'kernel\'s cycles alone: {got} cycles for {iters} turns '
           f'({spin_loop_cycles(iters)}), status {st}, {dt:.2f} s',
           card.logs())
    _all_waiting_test(report, card, guest, f'firmware ({TIMEOUT_MS} ms '
                      'timeout)', TIMEOUT_MS)
    entry = card.load_elf(os.path.join(guest, 'hang.elf'))
    mid, rsp = card.wait(card.launch(entry, 0, 0x1), timeout=120)
    st = struct.unpack_from('<I', rsp, 32)[0]
    report(mid == 522 and st == 6,
           f'firmware ({TIMEOUT_MS} ms timeout): hang.elf on shire 0 (64 '
           f'harts spinning) timed out: status {st} (6)', card.logs())
    mid, rsp = card.command(MSG['echo'], bytes(8))
    report(mid == 518 and struct.unpack_from('<I', rsp, 16)[0] == 0,
           f'firmware ({TIMEOUT_MS} ms timeout): echo answered after the '
           'timeouts')
    # Kernels share one load address: vecadd.elf replaces hang.elf.  Its
    # first launch costs QEMU host time (docs/firmware.md), none of the
    # card's: with the limit in cycles it completes as the later ones do.
    entry = card.load_elf(os.path.join(guest, 'vecadd.elf'))
    for mask in (0x1, 0x1, 0x3):
        card.to_card(vr, bytes(4 * n))
        t = time.monotonic()
        st = card.launch_status(card.launch(entry, vargs, mask))
        dt = time.monotonic() - t
        _, back = card.from_card(vr, 4 * n)
        got = list(struct.unpack(f'<{n}i', back))
        report(st == 0 and got == want,
               f'firmware ({TIMEOUT_MS} ms timeout): vecadd.elf on shire mask '
               f'{mask:#x} after the timeouts: status {st}, '
               f'{sum(g == w for g, w in zip(got, want))}/{n} sums right '
               f'({dt:.2f} s)', card.logs())


class Busy:
    """One host core kept busy (a spinning child) inside the block."""

    def __enter__(self):
        self.p = subprocess.Popen(
            [sys.executable, '-c', 'while True: pass'],
            preexec_fn=die_with_parent)
        return self

    def __exit__(self, *exc):
        self.p.kill()
        self.p.wait()


if __name__ == '__main__':
    counts = [0, 0]

    def tap(ok, name, diag=None):
        counts[0 if ok else 1] += 1
        print(f"{'ok' if ok else 'not ok'} {sum(counts)} - {name}",
              flush=True)
        if not ok and diag:
            for line in diag.strip().splitlines()[-25:]:
                print(f'#   {line}')

    fw_tests(tap, sys.argv[1] if len(sys.argv) > 1 else None)
    print(f'1..{sum(counts)}')
    print(f'{counts[0]} passed, {counts[1]} failed')
    sys.exit(1 if counts[1] else 0)
