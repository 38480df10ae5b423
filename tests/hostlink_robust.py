# SPDX-License-Identifier: GPL-2.0-or-later
"""The host link under bad input from the command line and from the host
(docs/host-link.md, "Robustness"), for run.py's hostlink group.

  * a chardev the link cannot have (already used by -serial, -mon, the SP
    UART, a -global, multiplexed) is refused at start-up: status 1 and a
    message, never an abort;
  * a host that stops reading never blocks QEMU, one silent past the
    bound is dropped, an eDMA whose host never answers aborts.
"""

import os
import re
import socket
import struct
import subprocess
import tempfile
import time

import hostlink as hl
from qmp import Qmp


def wire_test(r):
    """The Python client's wire constants (tests/hostlink.py) are the
    card's and the host library's (hw/etsoc1/etsoc1-hostlink-wire.h): every
    HL_X there that the client names X has the same value."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                        'hw', 'etsoc1', 'etsoc1-hostlink-wire.h')
    text = open(path).read()
    consts = {m[0]: m[1] for m in re.findall(
        r'(?:#define\s+|^\s+)HL_(\w+)\s*=?\s*(0x[0-9a-fA-F]+|\d+)u?\b',
        text, re.M)}
    py = {name: getattr(hl, name) for name in consts if hasattr(hl, name)}
    py['HDR_SIZE'] = hl.HDR.size
    bad = [f'{n}: C {v}, Python {py[n]}' for n, v in consts.items()
           if n in py and int(v, 0) != py[n]]
    r.report(len(py) >= 25 and not bad,
             f'hostlink: the Python client\'s {len(py)} wire constants are '
             f'the ones of etsoc1-hostlink-wire.h', '\n'.join(bad))


def chardev_tests(r):
    """@r is run.py (QEMU, GUEST, run, report)."""
    sp = os.path.join(r.GUEST, 'etsoc1-sp.elf')
    with tempfile.TemporaryDirectory(prefix='etsoc1-hlc-') as tmp:
        sock = os.path.join(tmp, 'hl.sock')
        hl = ['-chardev', f'socket,id=hl,path={sock},server=on,wait=off']
        plain = ['-M', 'etsoc1,hostlink=hl'] + hl
        with_sp = ['-M', f'etsoc1,shires=33,sp-firmware={sp},hostlink=hl',
                   '-smp', '2113'] + hl
        cases = [
            ('-serial chardev:hl (the PU UART0)', plain +
             ['-serial', 'chardev:hl'],
             r"hostlink=hl: chardev 'hl' is also the PU UART0"),
            ('-serial null -serial chardev:hl (the PU UART1)', plain +
             ['-serial', 'null', '-serial', 'chardev:hl'],
             r"hostlink=hl: chardev 'hl' is also the PU UART1"),
            ('the SP UART (-serial #3) on the link\'s chardev', with_sp +
             ['-serial', 'null', '-serial', 'null', '-serial', 'chardev:hl'],
             r"hostlink=hl: chardev 'hl' is also the SP UART0"),
            ('-mon chardev=hl', plain + ['-mon', 'chardev=hl'],
             r"hostlink=hl: chardev 'hl' is already in use"),
            ('-global etsoc1-hostlink.chardev=hl', plain +
             ['-global', 'etsoc1-hostlink.chardev=hl'],
             r'-global etsoc1-hostlink.chardev cannot set it'),
            ('-global etsoc1-hostlink.chardev naming another chardev',
             plain + ['-chardev', 'null,id=other', '-global',
                      'etsoc1-hostlink.chardev=other'],
             r'-global etsoc1-hostlink.chardev cannot set it'),
            ('a multiplexed chardev', ['-M', 'etsoc1,hostlink=hl',
                                       '-chardev', f'socket,id=hl,path='
                                       f'{sock},server=on,wait=off,mux=on'],
             r'multiplexed chardev \(mux=on\) cannot carry the host link'),
            ('hostlink= naming no chardev', ['-M', 'etsoc1,hostlink=nope'],
             r'hostlink=nope: no such chardev'),
            ('one chardev on both PU UARTs', ['-M', 'etsoc1', '-chardev',
                                              'null,id=n', '-serial',
                                              'chardev:n', '-serial',
                                              'chardev:n'],
             r"PU UART1 \(-serial #2\): chardev 'n' is also the PU UART0"),
            ('a UART on the monitor\'s chardev', ['-M', 'etsoc1', '-chardev',
                                                  'null,id=n', '-mon',
                                                  'chardev=n', '-serial',
                                                  'chardev:n'],
             r"PU UART0 \(-serial #1\): chardev 'n' is already in use"),
        ]
        for name, args, pattern in cases:
            if sp in args[1] and not os.path.exists(sp):
                r.report(False, f'hostlink: chardev {name}: skipped, '
                         f'{sp} missing')
                continue
            rc, out, _ = r.run([r.QEMU, '-display', 'none', '-S'] + args, 60)
            ok = rc == 1 and re.search(pattern, out) is not None
            r.report(ok, f'hostlink: {name} is refused at start-up with a '
                     f'message and status 1 (got {rc})', out)


class Card:
    """QEMU under qtest with the host link and a QMP socket; the test plays
    the firmware over qtest (tests/hostlink.py QTest)."""

    def __init__(self, r, tmp, extra=()):
        self.hl_path = os.path.join(tmp, 'hl.sock')
        qt_path = os.path.join(tmp, 'qt')
        qmp_path = os.path.join(tmp, 'qmp')
        self.log_path = os.path.join(tmp, 'qemu.log')
        self.err_path = os.path.join(tmp, 'qemu.err')
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(qt_path)
        listener.listen(1)
        self.proc = subprocess.Popen(
            [r.QEMU, '-machine', 'etsoc1,hostlink=hl', '-accel', 'qtest',
             '-display', 'none', '-qtest', f'unix:{qt_path}', '-qtest-log',
             '/dev/null', '-chardev',
             f'socket,id=hl,path={self.hl_path},server=on,wait=off',
             '-qmp', f'unix:{qmp_path},server=on,wait=off',
             '-d', 'guest_errors', '-D', self.log_path] + list(extra),
            stdin=subprocess.DEVNULL, stdout=open(self.err_path, 'w'),
            stderr=subprocess.STDOUT)
        try:
            self.qt = hl.QTest(listener)
        finally:
            listener.close()
        self.qmp = Qmp(qmp_path)
        self.qt.iatu(0, BAR0, 1 << 24, hl.DRAM_BAR0)

    def qmp_latency(self, seconds):
        """The slowest query-status over @seconds of asking (s)."""
        worst, end = 0.0, time.monotonic() + seconds
        while time.monotonic() < end:
            t = time.monotonic()
            ok = self.qmp.cmd('query-status').get('return', {}).get('status')
            worst = max(worst, time.monotonic() - t if ok else 99.0)
            time.sleep(0.05)
        return worst

    def logs(self):
        text = ''
        for p in (self.err_path, self.log_path):
            if os.path.exists(p):
                text += open(p, errors='replace').read()
        return text

    def wait_log(self, text, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if text in self.logs():
                return True
            time.sleep(0.05)
        return False

    def close(self):
        self.qmp.close()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


BAR0 = 0x1000000000
MIB = 1 << 20


class RawHost:
    """A host that writes frames and reads only when told to."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.sock.settimeout(20)

    def send(self, ftype, payload=b'', seq=0):
        self.sock.sendall(hl.frame(ftype, payload, seq=seq))

    def recv_frame(self):
        """(type, status, seq, payload), or None at EOF."""
        hdr = self._exact(hl.HDR.size)
        if hdr is None:
            return None
        _, _, ftype, status, n, seq = hl.HDR.unpack(hdr)
        p = self._exact(n) if n else b''
        return None if p is None else (ftype, status, seq, p)

    def _exact(self, n):
        buf = bytearray()
        while len(buf) < n:
            try:
                chunk = self.sock.recv(n - len(buf))
            except ConnectionResetError:
                # closed with our requests unread: a reset, not a FIN
                return None
            if not chunk:
                return None
            buf += chunk
        return bytes(buf)

    def hello(self, options=hl.OPT_HOSTMEM):
        self.send(hl.HELLO, struct.pack('<II', hl.VERSION, options), seq=1000)
        return self.recv_frame()

    def read_until_eof(self):
        """Frames until the card closes: [(type, status, seq, len)]."""
        out = []
        while True:
            f = self.recv_frame()
            if f is None:
                return out
            out.append(f[:3] + (len(f[3]),))

    def close(self):
        self.sock.close()


def stalled_host_tests(r):
    """A host that stops reading never blocks QEMU: QMP and qtest answer,
    the replies arrive whole once it reads again; one silent past
    host-timeout-ms is dropped with a log line and the next one is
    served; an eDMA whose host does not answer aborts its channel."""
    bound_ms = 4000
    with tempfile.TemporaryDirectory(prefix='etsoc1-hls-') as tmp:
        card = Card(r, tmp, ['-global',
                             f'etsoc1-hostlink.host-timeout-ms={bound_ms}'])
        host = None
        try:
            # 16 x 1 MiB MMIO_READs whose replies are not read for a while
            marks = [0x5a5a000000000000 | i for i in range(16)]
            for i, m in enumerate(marks):
                card.qt.writeq(hl.DRAM_BAR0 + i * MIB, m)
            host = RawHost(card.hl_path)
            ack = host.hello()
            for i in range(16):
                host.send(hl.MMIO_READ,
                          struct.pack('<QI', BAR0 + i * MIB, MIB), seq=i)
            worst = card.qmp_latency(1.5)
            t = time.monotonic()
            word = card.qt.readq(hl.DRAM_BAR0)
            qt_secs = time.monotonic() - t
            # an eDMA to the host meanwhile: deferred, the channel waits
            card.qt.edma_start(True, 4096, hl.DRAM_BAR0, 0x100000000)
            for _ in range(20):
                card.qt.clock_step(100_000)
            waiting = card.qt.edma_status(True)
            # the replies, and the deferred request once there is room
            got, req = [], None
            while len(got) < 16 or req is None:
                f = host.recv_frame()
                if f is None:
                    break
                if f[0] == hl.HOSTMEM_WRITE:
                    req = f
                    host.send(hl.HOSTMEM_WRITE | hl.REPLY, seq=f[2])
                else:
                    got.append(f)
            done = 0
            for _ in range(200):
                card.qt.clock_step(100_000)
                done = card.qt.edma_status(True)
                if done & (hl.EDMA_DONE | hl.EDMA_ABORT):
                    break
            r.report(waiting == 0 and req and req[0] == hl.HOSTMEM_WRITE and
                     struct.unpack_from('<QI', req[3]) ==
                     (0x100000000, 4096) and done == hl.EDMA_DONE,
                     f'hostlink: an eDMA started while the host does not '
                     f'read waits (status 0x{waiting:x}); its HOSTMEM_WRITE '
                     f'is sent once the host reads, and the channel '
                     f'completes (0x{done:x})', card.logs())
            ok = (ack and ack[0] == hl.HELLO | hl.REPLY and
                  all(f and f[0] == hl.MMIO_READ | hl.REPLY and f[1] == 0 and
                      f[2] == i and len(f[3]) == MIB and
                      struct.unpack_from('<Q', f[3])[0] == marks[i]
                      for i, f in enumerate(got)))
            r.report(ok and worst < 1.0 and qt_secs < 1.0 and
                     word == marks[0] and card.proc.poll() is None,
                     f'hostlink: a host that does not read 16 x 1 MiB of '
                     f'replies does not block QEMU (slowest query-status '
                     f'{worst * 1000:.0f} ms, qtest {qt_secs * 1000:.0f} ms); '
                     f'then all 16 arrive in order, data checked',
                     card.logs())
            host.close()

            # the same host never reads: dropped after the bound
            host = RawHost(card.hl_path)
            host.hello()
            t = time.monotonic()
            for i in range(16):
                host.send(hl.MMIO_READ,
                          struct.pack('<QI', BAR0 + i * MIB, MIB), seq=i)
            dropped = card.wait_log('dropping the host: it has not read for '
                                    f'{bound_ms} ms', bound_ms / 1000 + 20)
            secs = time.monotonic() - t
            worst = card.qmp_latency(0.5)
            frames = host.read_until_eof()
            host.close()
            host = RawHost(card.hl_path)
            ack = host.hello()
            r.report(dropped and secs >= bound_ms / 1000 and worst < 1.0 and
                     len(frames) < 16 and ack and
                     ack[0] == hl.HELLO | hl.REPLY and
                     card.proc.poll() is None,
                     f'hostlink: a host that never reads is dropped after '
                     f'host-timeout-ms={bound_ms} ({secs:.1f} s, logged, '
                     f'{len(frames)} of 16 replies had reached it), the '
                     f'next host is served', card.logs())

            # a host that sends a request and dies before its reply
            host = RawHost(card.hl_path)
            host.hello()
            host.send(hl.MMIO_READ, struct.pack('<QI', BAR0, MIB), seq=1)
            host.close()
            host = RawHost(card.hl_path)
            ack1 = host.hello()
            host.sock.sendall(hl.frame(hl.MMIO_READ,
                                       struct.pack('<QI', BAR0, 8),
                                       seq=2)[:20])
            host.close()
            truncated = card.wait_log('truncated frame', 10)
            host = RawHost(card.hl_path)
            ack = host.hello()
            r.report(truncated and ack1 and ack and
                     ack1[0] == ack[0] == hl.HELLO | hl.REPLY and
                     card.qmp_latency(0.2) < 1.0 and
                     card.proc.poll() is None,
                     'hostlink: a host that sends a 1 MiB request and dies, '
                     'and one that sends half a frame and dies (logged): '
                     'QEMU goes on, the next host is served', card.logs())

            # a second host while one is connected waits in the backlog
            second = RawHost(card.hl_path)
            second.send(hl.HELLO, struct.pack('<II', hl.VERSION, 1), seq=7)
            second.sock.settimeout(1.0)
            try:
                early = second.recv_frame()
            except socket.timeout:
                early = 'none'
            host.send(hl.MMIO_READ, struct.pack('<QI', BAR0, 8), seq=3)
            first_ok = host.recv_frame()
            host.close()
            second.sock.settimeout(20)
            late = second.recv_frame()
            r.report(early == 'none' and first_ok and first_ok[1] == 0 and
                     struct.unpack('<Q', first_ok[3])[0] == marks[0] and
                     late and late[0] == hl.HELLO | hl.REPLY and
                     late[2] == 7 and card.proc.poll() is None,
                     'hostlink: a host that connects while another is '
                     'connected is not answered until the first leaves, '
                     'then it is served; the first is undisturbed',
                     card.logs())
            host = second

            # an eDMA to a host that takes its request but never answers
            card.qt.iatu(3, 0x2000002000, 0x2000, hl.TRG_PCIE)
            while True:                     # READY comes after HELLO_ACK
                f = host.recv_frame()
                if f is None or f[0] == hl.READY:
                    break
            t = time.monotonic()
            card.qt.edma_start(True, 4096, hl.DRAM_BAR0, 0x100000000)
            req = host.recv_frame()
            st = 0
            while time.monotonic() - t < bound_ms / 1000 + 20:
                card.qt.clock_step(100_000)
                st = card.qt.edma_status(True)
                if st & (hl.EDMA_DONE | hl.EDMA_ABORT):
                    break
                time.sleep(0.05)
            secs = time.monotonic() - t
            closed = host.read_until_eof()
            host.close()
            host = None
            # QEMU's deadline counts whole ms from the request's send
            # (qemu_clock_get_ms): up to 1 ms before host-timeout-ms of
            # this host's clock; t was taken before the eDMA started
            r.report(req is not None and req[0] == hl.HOSTMEM_WRITE and
                     st & hl.EDMA_ABORT and
                     secs >= bound_ms / 1000 - 0.002 and
                     'it has not answered HOSTMEM_WRITE' in card.logs() and
                     closed and closed[-1][0] == hl.FATAL and
                     card.proc.poll() is None,
                     f'hostlink: an eDMA whose host never answers aborts '
                     f'its channel after host-timeout-ms (status 0x{st:x}, '
                     f'{secs:.3f} s), the host dropped with FATAL, logged',
                     f'first frame {req and hex(req[0])}, last frames '
                     f'{[hex(f[0]) for f in (closed or [])[-3:]]}\n' +
                     card.logs())
        except Exception as e:      # noqa: BLE001 - report, do not crash
            r.report(False, f'hostlink: stalled host: {type(e).__name__}: '
                     f'{e}', card.logs())
        finally:
            if host:
                host.close()
            card.close()


def shm_tests(r):
    """Shared DMA buffers (SHM_MAP): what the card refuses, that an eDMA
    inside one is a copy with no frame, and that one leaving it, or into
    one unmapped again, never touches memory outside."""
    import fcntl
    import mmap
    size, base = 1 << 20, 0x7f0000000000
    with tempfile.TemporaryDirectory(prefix='etsoc1-hlm-') as tmp:
        card = Card(r, tmp)
        host = None
        try:
            host = RawHost(card.hl_path)
            ack = host.hello(hl.OPT_HOSTMEM | hl.OPT_SHM)
            opts = struct.unpack('<II', ack[3])[1] if ack else 0

            def memfd(n, seal=True):
                fd = os.memfd_create('hl-test', os.MFD_ALLOW_SEALING)
                os.ftruncate(fd, n)
                if seal:
                    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
                return fd

            def shm_map(addr, n, fd=None, seq=1):
                f = hl.frame(hl.SHM_MAP, struct.pack('<QQ', addr, n), seq=seq)
                if fd is None:
                    host.sock.sendall(f)
                else:
                    socket.send_fds(host.sock, [f], [fd])
                rep = host.recv_frame()
                return rep[1] if rep and rep[0] == hl.SHM_MAP | hl.REPLY \
                    else None

            refusals = [
                ('no file descriptor', shm_map(base, size)),
                ('not sealed against shrinking',
                 shm_map(base, size, memfd(size, seal=False))),
                ('smaller than the range', shm_map(base, size, memfd(4096))),
            ]
            plain = os.open(os.path.join(tmp, 'plain'),
                            os.O_RDWR | os.O_CREAT, 0o600)
            os.ftruncate(plain, size)
            # a file that cannot be sealed at all
            refusals.append(('not sealed against shrinking',
                             shm_map(base, size, plain)))
            fd = memfd(size)
            ok_map = shm_map(base, size, fd)
            overlap = shm_map(base + 4096, 4096, memfd(4096))
            view = mmap.mmap(fd, size)
            try:
                os.ftruncate(fd, 4096)
                shrunk = True
            except OSError:
                shrunk = False
            r.report(opts & hl.OPT_SHM and
                     all(st == hl.E_ACCESS and card.wait_log(why, 5)
                         for why, st in refusals) and
                     ok_map == hl.OK and overlap == hl.E_ACCESS and
                     card.wait_log('overlaps a buffer already shared', 5) and
                     not shrunk,
                     f'hostlink: SHM_MAP refuses a missing fd, an unsealed '
                     f'memfd, a short one, a plain file, an overlap (statuses '
                     f'{[st for _, st in refusals]}, {overlap}, logged); a '
                     f'sealed one maps ({ok_map}) and cannot shrink',
                     card.logs())

            # an eDMA card -> host inside it: a copy, no frame on the link
            data = bytes((i * 7 + 1) & 0xff for i in range(8192))
            card.qt.writeq(hl.DRAM_BAR0, 0)
            host.send(hl.MMIO_WRITE, struct.pack('<QI', BAR0, len(data)) +
                      data, seq=9)
            w = host.recv_frame()
            st = card.qt.edma_run(True, len(data), hl.DRAM_BAR0,
                                  base + size - len(data))
            host.sock.settimeout(0.5)
            try:
                stray = host.recv_frame()
            except socket.timeout:
                stray = None
            host.sock.settimeout(20)
            r.report(w and w[1] == hl.OK and st == hl.EDMA_DONE and
                     view[size - len(data):] == data and stray is None,
                     f'hostlink: an eDMA card->host of 8 KiB inside the '
                     f'shared buffer is copied into it, no frame on the link '
                     f'(status 0x{st or 0:x}, frame {stray})', card.logs())

            # one that runs past its end: the channel aborts, no frame
            view[:] = bytes(size)
            st = card.qt.edma_run(True, len(data), hl.DRAM_BAR0,
                                  base + size - 4096)
            host.sock.settimeout(0.5)
            try:
                stray = host.recv_frame()
            except socket.timeout:
                stray = None
            host.sock.settimeout(20)
            r.report(st is not None and st & hl.EDMA_ABORT and
                     view[:] == bytes(size) and stray is None and
                     card.wait_log('leaves the shared buffer', 5),
                     f'hostlink: an eDMA running past the end of a shared '
                     f'buffer aborts its channel (status 0x{st or 0:x}), '
                     f'nothing written, no frame, logged', card.logs())

            # unmapped again: the same address goes over the socket
            host.send(hl.SHM_UNMAP, struct.pack('<Q', base), seq=10)
            un = host.recv_frame()
            card.qt.edma_start(True, 4096, hl.DRAM_BAR0, base)
            req = host.recv_frame()
            host.send(hl.HOSTMEM_WRITE | hl.REPLY, seq=req[2] if req else 0)
            st = 0
            for _ in range(500):
                card.qt.clock_step(20_000)
                st = card.qt.edma_status(True)
                if st & (hl.EDMA_DONE | hl.EDMA_ABORT):
                    break
            r.report(un and un[1] == hl.OK and req and
                     req[0] == hl.HOSTMEM_WRITE and st == hl.EDMA_DONE and
                     view[:4096] == bytes(4096) and card.proc.poll() is None,
                     'hostlink: after SHM_UNMAP the card no longer touches '
                     'the buffer: the same eDMA goes over the socket '
                     '(HOSTMEM_WRITE)', card.logs())
            view.close()

            # MEM_FD: this process's own memory, a buffer in it and a hole
            import ctypes
            buf = (ctypes.c_char * 8192)()
            addr = ctypes.addressof(buf)
            memfd_ = os.open('/proc/self/mem', os.O_RDWR)
            f = hl.frame(hl.MEM_FD, struct.pack('<QQ', 0x10000, 1 << 47),
                         seq=11)
            socket.send_fds(host.sock, [f], [memfd_])
            os.close(memfd_)
            rep = host.recv_frame()
            st = card.qt.edma_run(True, 8192, hl.DRAM_BAR0, addr)
            hole = card.qt.edma_run(True, 4096, hl.DRAM_BAR0, 0x10000)
            r.report(rep and rep[1] == hl.OK and st == hl.EDMA_DONE and
                     bytes(buf) == data and hole is not None and
                     hole & hl.EDMA_ABORT and
                     card.wait_log("through the host's memory fd", 5) and
                     card.proc.poll() is None,
                     f'hostlink: MEM_FD: an eDMA into the host\'s own memory '
                     f'lands there (status 0x{st or 0:x}); one into an '
                     f'unmapped address aborts cleanly (0x{hole or 0:x}), '
                     f'logged, QEMU up', card.logs())
        except Exception as e:      # noqa: BLE001 - report, do not crash
            r.report(False, f'hostlink: shared memory: {type(e).__name__}: '
                     f'{e}', card.logs())
        finally:
            if host:
                host.close()
            card.close()
