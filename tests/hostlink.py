# SPDX-License-Identifier: GPL-2.0-or-later
"""A small host-side client of the ET-SoC-1 host link (docs/host-link.md).

    link = HostLink('/tmp/hl.sock')
    link.hello()                     # -> protocol version
    link.wait_ready()                # -> (bar0, bar2)
    link.write(addr, b'...'); link.read(addr, 8)
    link.read32(addr); link.write32(addr, v)
    link.wait_msi(mask)              # -> bitmap, cleared like waitForInterrupt
    link.mem                         # bytearray served as host memory at mem_base

A reader thread answers the card's HOSTMEM_READ/WRITE requests from `mem`
and records every card frame in `events` (in arrival order), so tests can
check that an MSI arrived after the data it announces.  Also a minimal
client of QEMU's qtest protocol (QTest) for playing the firmware's part.
"""

import socket
import struct
import threading
import time

MAGIC = 0x4c485445          # "ETHL"
VERSION = 1
HDR = struct.Struct('<IBBHII')  # magic, version, type, status, length, seq
MAX_DATA = 1 << 20

HELLO, MMIO_READ, MMIO_WRITE, PAUSE, RESUME, STOP = 1, 2, 3, 4, 5, 6
SHM_MAP, SHM_UNMAP, MEM_FD = 7, 8, 9
READY, MSI, HOSTMEM_READ, HOSTMEM_WRITE, FATAL = 0x10, 0x11, 0x12, 0x13, 0x14
REPLY = 0x80
OPT_HOSTMEM, OPT_SHM = 1, 2
OK, E_DECODE, E_ACCESS, E_LENGTH = 0, 1, 2, 3

# The card's registers a test plays the firmware with (docs/host-interface.md)
DBI = 0x7e80000000
IATU = DBI + 0x300000 + 0x100
EDMA = DBI + 0x380000
NOPCIESR_MSI = 0x7f80001000 + 0x18
TRG_PCIE = 0x30008000
DRAM_BAR0 = 0x8004001000        # DRAM_MEMMAP_BEGIN
EDMA_DONE, EDMA_ABORT = 0x1, 0x10000


def frame(ftype, payload=b'', seq=0, status=0, magic=MAGIC, version=VERSION,
          length=None):
    """Encode one frame (the keyword arguments make malformed ones)."""
    n = len(payload) if length is None else length
    return HDR.pack(magic, version, ftype, status, n, seq) + payload


class LinkError(Exception):
    pass


class HostLink:
    def __init__(self, path, mem_base=0x1_0000_0000, mem_size=1 << 20,
                 timeout=10.0):
        self.timeout = timeout
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.mem_base = mem_base
        self.mem = bytearray(mem_size)
        self.events = []            # ('ready'|'msi'|'hostmem_read'|...)
        self.replies = {}
        self.fatal = None
        self.closed = False
        self.pending_msi = 0
        self.short_reads = False
        self.seq = 1
        self.cv = threading.Condition()
        self.wlock = threading.Lock()
        self.thread = threading.Thread(target=self._reader, daemon=True)
        self.thread.start()

    # ---- wire -------------------------------------------------------------
    def send_raw(self, data):
        with self.wlock:
            self.sock.sendall(data)

    def _recv_exact(self, n):
        buf = b''
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                return None
            buf += chunk
        return buf

    def _host_mem(self, addr, n):
        off = addr - self.mem_base
        return off if 0 <= off and off + n <= len(self.mem) else None

    def _reader(self):
        try:
            while True:
                hdr = self._recv_exact(HDR.size)
                if hdr is None:
                    break
                magic, ver, ftype, status, n, seq = HDR.unpack(hdr)
                payload = self._recv_exact(n) if n else b''
                if payload is None or magic != MAGIC:
                    break
                self._handle(ftype, status, seq, payload)
        except OSError:
            pass
        with self.cv:
            self.closed = True
            self.cv.notify_all()

    def _handle(self, ftype, status, seq, p):
        if ftype & REPLY:
            with self.cv:
                self.replies[seq] = (ftype, status, p)
                self.cv.notify_all()
            return
        if ftype == HOSTMEM_READ:
            addr, n = struct.unpack_from('<QI', p)
            off = self._host_mem(addr, n)
            with self.cv:
                self.events.append(('hostmem_read', addr, n))
            if off is None:
                self.send_raw(frame(HOSTMEM_READ | REPLY, seq=seq,
                                    status=E_DECODE))
            else:
                # short_reads: a malformed reply, one byte short (a test)
                end = off + n - (1 if self.short_reads else 0)
                self.send_raw(frame(HOSTMEM_READ | REPLY,
                                    bytes(self.mem[off:end]), seq=seq))
            return
        if ftype == HOSTMEM_WRITE:
            addr, n = struct.unpack_from('<QI', p)
            off = self._host_mem(addr, n)
            with self.cv:
                self.events.append(('hostmem_write', addr, n))
            if off is not None and len(p) == 12 + n:
                self.mem[off:off + n] = p[12:]
                self.send_raw(frame(HOSTMEM_WRITE | REPLY, seq=seq))
            else:
                self.send_raw(frame(HOSTMEM_WRITE | REPLY, seq=seq,
                                    status=E_DECODE))
            return
        with self.cv:
            if ftype == MSI:
                v = struct.unpack('<I', p)[0]
                self.pending_msi |= v
                self.events.append(('msi', v))
            elif ftype == READY:
                self.events.append(('ready',) + struct.unpack('<QQ', p))
            elif ftype == FATAL:
                self.fatal = p.decode(errors='replace')
                self.events.append(('fatal', self.fatal))
            self.cv.notify_all()

    def _wait(self, pred, timeout=None):
        with self.cv:
            if not self.cv.wait_for(pred, timeout or self.timeout):
                raise LinkError('timed out')

    def request(self, ftype, payload=b''):
        """Send a host request; return (status, reply payload)."""
        seq = self.seq
        self.seq += 1
        self.send_raw(frame(ftype, payload, seq=seq))
        self._wait(lambda: seq in self.replies or self.closed)
        with self.cv:
            if seq not in self.replies:
                raise LinkError(f'connection closed: {self.fatal}')
            rtype, status, p = self.replies.pop(seq)
        if rtype != ftype | REPLY:
            raise LinkError(f'reply type 0x{rtype:x} for 0x{ftype:x}')
        return status, p

    # ---- API --------------------------------------------------------------
    def hello(self, options=OPT_HOSTMEM):
        status, p = self.request(HELLO, struct.pack('<II', VERSION, options))
        if status != OK:
            raise LinkError(f'HELLO status {status}')
        return struct.unpack('<II', p)

    def wait_ready(self, timeout=None):
        ev = lambda: [e for e in self.events if e[0] == 'ready']
        self._wait(lambda: ev() or self.closed, timeout)
        return ev()[0][1:]

    def read(self, addr, n):
        status, p = self.request(MMIO_READ, struct.pack('<QI', addr, n))
        if status != OK:
            raise LinkError(f'MMIO_READ 0x{addr:x}: status {status}')
        return p

    def read_status(self, addr, n):
        return self.request(MMIO_READ, struct.pack('<QI', addr, n))[0]

    def write(self, addr, data):
        status, _ = self.request(MMIO_WRITE,
                                 struct.pack('<QI', addr, len(data)) + data)
        if status != OK:
            raise LinkError(f'MMIO_WRITE 0x{addr:x}: status {status}')

    def read32(self, addr):
        return struct.unpack('<I', self.read(addr, 4))[0]

    def write32(self, addr, v):
        self.write(addr, struct.pack('<I', v))

    def wait_msi(self, mask=0xf, timeout=None):
        self._wait(lambda: self.pending_msi & mask or self.closed, timeout)
        with self.cv:
            got = self.pending_msi & mask
            self.pending_msi &= ~mask
        return got

    def wait_closed(self, timeout=None):
        self._wait(lambda: self.closed, timeout)
        return self.fatal

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self.thread.join(2)


class QTest:
    """The qtest text protocol (QEMU connects to our socket)."""

    def __init__(self, listener, timeout=20.0):
        listener.settimeout(timeout)
        self.sock, _ = listener.accept()
        self.sock.settimeout(timeout)
        self.buf = b''
        self.irqs = []

    def _line(self):
        while b'\n' not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise LinkError('qtest connection closed')
            self.buf += chunk
        line, self.buf = self.buf.split(b'\n', 1)
        return line.decode()

    def cmd(self, text):
        self.sock.sendall(text.encode() + b'\n')
        while True:
            line = self._line()
            if line.startswith('IRQ'):
                self.irqs.append(line)
                continue
            if not line.startswith('OK'):
                raise LinkError(f'qtest {text!r}: {line}')
            return line[2:].strip()

    def readl(self, addr):
        return int(self.cmd(f'readl 0x{addr:x}'), 16)

    def readq(self, addr):
        return int(self.cmd(f'readq 0x{addr:x}'), 16)

    def writel(self, addr, v):
        self.cmd(f'writel 0x{addr:x} 0x{v:x}')

    def writeq(self, addr, v):
        self.cmd(f'writeq 0x{addr:x} 0x{v:x}')

    def clock_step(self, ns):
        return int(self.cmd(f'clock_step {ns}'))

    # ---- the firmware's part --------------------------------------------
    def iatu(self, i, base, size, target):
        """Inbound iATU region @i: bus [base, base + size) -> @target."""
        r = IATU + i * 0x200
        self.writel(r + 0x00, 0)                    # memory type
        self.writel(r + 0x08, base & 0xffffffff)
        self.writel(r + 0x0c, base >> 32)
        self.writel(r + 0x10, (base + size - 1) & 0xffffffff)
        self.writel(r + 0x14, target & 0xffffffff)
        self.writel(r + 0x18, target >> 32)
        self.writel(r + 0x04, 1 << 31)              # enable, address match

    def edma_start(self, write, n, sar, dar):
        """Channel 0 (@write: card -> host), one block of @n bytes."""
        ch = EDMA + 0x200 + (0 if write else 0x100)
        self.writel(ch + 0x00, 1 << 3)              # LIE, single block
        self.writel(ch + 0x08, n)
        self.writeq(ch + 0x0c, sar)
        self.writeq(ch + 0x14, dar)
        self.writel(EDMA + (0x0c if write else 0x2c), 1)
        self.writel(EDMA + (0x10 if write else 0x30), 0)

    def edma_status(self, write):
        """Channel 0's interrupt status (EDMA_DONE, EDMA_ABORT), cleared."""
        st = self.readl(EDMA + (0x4c if write else 0xa0))
        if st & (EDMA_DONE | EDMA_ABORT):
            self.writel(EDMA + (0x58 if write else 0xac),
                        EDMA_DONE | EDMA_ABORT)
        return st

    def edma_run(self, write, n, sar, dar, limit_ns=50_000_000):
        """Start, then step virtual time until DONE or ABORT (else None)."""
        self.edma_start(write, n, sar, dar)
        t = 0
        while t < limit_ns:
            st = self.edma_status(write)
            if st & (EDMA_DONE | EDMA_ABORT):
                return st
            self.clock_step(20_000)
            t += 20_000
            time.sleep(0.001)
        return None
