# SPDX-License-Identifier: GPL-2.0-or-later
"""The tests' one QMP client: connect to a QEMU's unix socket (waiting for
it to appear), negotiate, and run commands, skipping events."""

import json
import os
import socket
import time


class Qmp:
    def __init__(self, path, timeout=30.0, wait=10.0):
        deadline = time.monotonic() + wait
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
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
