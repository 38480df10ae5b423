# SPDX-License-Identifier: GPL-2.0-or-later
"""Group hostlink: the host link under qtest (run.py group "hostlink").

Run alone: tests/run.py BUILD_ROOT hostlink, or from tests/,
python3 -m etsoc1test.link BUILD_ROOT (docs/testing.md)."""

import os
import socket
import struct
import subprocess
import sys
import tempfile
import time

from etsoc1test import harness
from etsoc1test.harness import QEMU, report
import hostlink_robust  # noqa: E402


def hostlink_tests():
    """QEMU under qtest (the test plays the firmware) with -M hostlink=; the
    tests/hostlink.py client plays the host."""
    import hostlink as hl

    NOPCIESR_MSI, TRG_PCIE = hl.NOPCIESR_MSI, hl.TRG_PCIE
    DRAM_BAR0 = hl.DRAM_BAR0

    hostlink_robust.wire_test(harness)
    hostlink_robust.chardev_tests(harness)
    hostlink_robust.stalled_host_tests(harness)
    hostlink_robust.shm_tests(harness)
    tmp = tempfile.mkdtemp(prefix='etsoc1-hl-')
    hl_path, qt_path = os.path.join(tmp, 'hl.sock'), os.path.join(tmp, 'qt')
    log_path = os.path.join(tmp, 'qemu.log')
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(qt_path)
    listener.listen(1)
    proc = subprocess.Popen(
        [QEMU, '-machine', 'etsoc1,hostlink=hl', '-accel', 'qtest',
         '-display', 'none', '-qtest', f'unix:{qt_path}', '-qtest-log',
         '/dev/null', '-chardev',
         f'socket,id=hl,path={hl_path},server=on,wait=off',
         '-d', 'guest_errors', '-D', log_path],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT)
    qt = link = None

    def log_has(text, timeout=5):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if os.path.exists(log_path) and text in open(log_path).read():
                return True
            time.sleep(0.05)
        return False

    def iatu(i, base, size, target):
        qt.iatu(i, base, size, target)

    def edma_run(write, n, sar, dar, limit_ns=50_000_000):
        return qt.edma_run(write, n, sar, dar, limit_ns)

    def fresh():
        nonlocal link
        if link:
            link.close()
        link = hl.HostLink(hl_path)
        return link

    try:
        qt = hl.QTest(listener)
        link = fresh()
        ver, opts = link.hello()
        report(ver == 1 and opts == hl.OPT_HOSTMEM,
               f'hostlink: HELLO_ACK version {ver} options {opts}')
        early = [e for e in link.events if e[0] == 'ready']

        # firmware (here the test) programs the inbound iATUs like the BL2
        iatu(0, 0x1000000000, 1 << 24, DRAM_BAR0)
        iatu(1, 0x2000000000, 0x1000, 0x20007000)
        iatu(2, 0x2000001000, 0x1000, 0x30003000)
        iatu(3, 0x2000002000, 0x2000, TRG_PCIE)
        bars = link.wait_ready()
        report(not early and tuple(bars) == (0x1000000000, 0x2000000000),
               f'hostlink: READY after iATU 3 is enabled, BARs '
               f'{[hex(b) for b in bars]}')

        # BAR0 = DRAM through iATU 0, all sizes, bulk, and a miss
        link.write(0x1000000100, struct.pack('<Q', 0x1122334455667788))
        card = qt.readq(DRAM_BAR0 + 0x100)
        qt.writeq(DRAM_BAR0 + 0x200, 0xa1b2c3d4e5f60718)
        sizes = [link.read(0x1000000200, n) for n in (1, 2, 4, 8)]
        want = struct.pack('<Q', 0xa1b2c3d4e5f60718)
        bulk = bytes((i * 7 + 3) & 0xff for i in range(64 * 1024))
        link.write(0x1000010000, bulk)
        miss = link.read_status(0x1000000000 + (1 << 24), 4)
        report(card == 0x1122334455667788 and
               sizes == [want[:n] for n in (1, 2, 4, 8)] and
               link.read(0x1000010000, len(bulk)) == bulk and
               miss == hl.E_DECODE,
               f'hostlink: BAR0 MMIO through the iATU (card 0x{card:x}, '
               f'sizes 1/2/4/8, 64 KiB bulk, unmapped -> status {miss})')

        # doorbell: BAR2 + 0x2004 (MMM_INT_INC) raises GPIO 1 (MM)
        qt.cmd('irq_intercept_out /machine/pcie')
        link.write32(0x2000002004, 1)
        cnt = qt.readl(TRG_PCIE + 0xc)
        report('IRQ raise 1' in qt.irqs and cnt == 1,
               f'hostlink: MM doorbell over BAR2 raises its line '
               f'({qt.irqs}, PCI_MMM_CNT {cnt})')

        # eDMA card -> host, then the firmware's MSI (MM_CQ = vector 3)
        n = 200 * 1024
        data = bytes((i * 13 + 5) & 0xff for i in range(n))
        link.write(0x1000100000, data)
        st = edma_run(True, n, DRAM_BAR0 + 0x100000, link.mem_base + 0x1000)
        qt.writel(NOPCIESR_MSI, 1 << 3)
        qt.writel(NOPCIESR_MSI, 0)
        msi = link.wait_msi()
        kinds = [e[0] for e in link.events]
        writes = [e for e in link.events if e[0] == 'hostmem_write']
        report(st == 1 and msi == 8 and
               bytes(link.mem[0x1000:0x1000 + n]) == data and
               sum(e[2] for e in writes) == n and
               kinds.index('msi') > max(i for i, k in enumerate(kinds)
                                        if k == 'hostmem_write'),
               f'hostlink: eDMA card->host {n} bytes in {len(writes)} '
               f'HOSTMEM_WRITEs, data checked, MSI 0x{msi:x} after them '
               f'(status 0x{st or 0:x})')

        # eDMA host -> card
        src = bytes((i * 31 + 1) & 0xff for i in range(n))
        link.mem[0x40000:0x40000 + n] = src
        st = edma_run(False, n, link.mem_base + 0x40000,
                      DRAM_BAR0 + 0x200000)
        reads = [e for e in link.events if e[0] == 'hostmem_read']
        report(st == 1 and link.read(0x1000200000, n) == src,
               f'hostlink: eDMA host->card {n} bytes in {len(reads)} '
               f'HOSTMEM_READs, data checked (status 0x{st or 0:x})')

        # the host refuses: the channel aborts
        st = edma_run(False, 4096, link.mem_base + len(link.mem),
                      DRAM_BAR0 + 0x200000)
        report(st is not None and st & 0x10000,
               f'hostlink: a refused HOSTMEM_READ aborts the channel '
               f'(status 0x{st or 0:x})')

        status, _ = link.request(hl.PAUSE)
        status2, _ = link.request(hl.RESUME)
        report(status == 0 and status2 == 0 and proc.poll() is None,
               'hostlink: PAUSE and RESUME acknowledged')

        # malformed frames: each closes the connection with a logged reason
        bad = [
            ('bad magic', hl.frame(hl.HELLO, b'\0' * 8, magic=0x12345678),
             'bad magic 0x12345678'),
            ('bad version', hl.frame(hl.HELLO, b'\0' * 8, version=9),
             'bad version 9'),
            ('oversize length', hl.frame(hl.MMIO_WRITE, b'', length=1 << 30),
             'over the bound'),
            ('unknown type', hl.frame(0x7f, b''), 'frame type 0x7f'),
            ('wrong payload length', hl.frame(hl.MMIO_READ, b'\0' * 5),
             'MMIO_READ frame with a payload of 5 bytes'),
            ('request before HELLO', hl.frame(hl.MMIO_READ, b'\0' * 12),
             'MMIO_READ before HELLO'),
            ('stray reply', hl.frame(hl.HOSTMEM_WRITE | hl.REPLY, seq=999),
             'sequence id 999 matches no request'),
            ('second HELLO', hl.frame(hl.HELLO, struct.pack('<II', 1, 1)),
             'second HELLO'),
            ('HELLO for version 2', hl.frame(hl.HELLO,
                                             struct.pack('<II', 2, 1)),
             'HELLO for protocol version 2'),
            ('misdirected type', hl.frame(hl.READY, b'\0' * 16),
             'misdirected frame type 0x10'),
        ]
        after_hello = ('stray reply', 'second HELLO', 'misdirected type')
        for name, raw, reason in bad:
            link = fresh()
            if name in after_hello:
                link.hello()
            link.send_raw(raw)
            fatal = link.wait_closed()
            report(fatal is not None and reason in fatal and
                   log_has(reason) and proc.poll() is None,
                   f'hostlink: {name} closes the connection '
                   f'(FATAL "{fatal}"), logged, QEMU up')
        link = fresh()
        link.send_raw(hl.frame(hl.HELLO, struct.pack('<II', 1, 1))[:10])
        link.close()
        link = None
        ok = log_has('truncated frame')
        link = fresh()
        ver, _ = link.hello()
        report(ok and ver == 1 and proc.poll() is None,
               'hostlink: a truncated frame is logged; a new client '
               'connects and says HELLO')

        # a HOSTMEM_READ reply of the wrong length: closed, channel aborts
        link.short_reads = True
        st = edma_run(False, 4096, link.mem_base, DRAM_BAR0 + 0x200000)
        fatal = link.wait_closed()
        reason = 'HOSTMEM_READ reply of 4095 bytes for a 4096 byte request'
        report(st is not None and st & 0x10000 and fatal is not None and
               reason in fatal and log_has(reason) and proc.poll() is None,
               f'hostlink: a short HOSTMEM_READ reply closes the connection '
               f'(FATAL "{fatal}") and aborts the channel '
               f'(status 0x{st or 0:x}), QEMU up')
        link = fresh()
        link.hello()

        status, _ = link.request(hl.STOP)
        rc = proc.wait(timeout=10)
        report(status == 0 and rc == 0, f'hostlink: STOP ends QEMU ({rc})')
    except Exception as e:      # noqa: BLE001 - report, do not crash the run
        out = ''
        if proc.poll() is not None:
            out = proc.stdout.read().decode(errors='replace')
        log = open(log_path).read() if os.path.exists(log_path) else ''
        report(False, f'hostlink: {type(e).__name__}: {e}',
               out + '\n' + log[-3000:])
    finally:
        if link:
            link.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        listener.close()


if __name__ == '__main__':
    sys.exit(harness.main({'hostlink': hostlink_tests}))
