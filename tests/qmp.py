# SPDX-License-Identifier: GPL-2.0-or-later
"""The tests' one QMP client: connect to a QEMU's unix socket (waiting for
it to appear), negotiate, and run commands, skipping events."""

import json
import socket
import time


def connect_unix(path, timeout, wait=10.0):
    """A stream socket connected to QEMU's server at @path, waiting up to
    @wait s for it: the socket file appears at bind(), before QEMU
    listens, and a connect in between is refused (seen under the
    sanitizers)."""
    deadline = time.monotonic() + wait
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(path)
            return sock
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.05)


class Qmp:
    def __init__(self, path, timeout=30.0, wait=10.0):
        self.sock = connect_unix(path, timeout, wait)
        self.buf = b''
        self._msg()                                 # greeting
        self.cmd('qmp_capabilities')

    def _msg(self):
        while b'\n' not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise OSError('QMP closed')
            self.buf += chunk
        line, self.buf = self.buf.split(b'\n', 1)
        return json.loads(line)

    def cmd(self, name, **args):
        """Run @name; its answer, 'return' or 'error' (events skipped)."""
        msg = {'execute': name}
        if args:
            msg['arguments'] = args
        self.sock.sendall(json.dumps(msg).encode() + b'\n')
        while True:
            m = self._msg()
            if 'return' in m or 'error' in m:
                return m

    def get(self, name, **args):
        """Run @name; what it returned, or the whole answer on an error."""
        m = self.cmd(name, **args)
        return m.get('return', m)

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
