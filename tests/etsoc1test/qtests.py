# SPDX-License-Identifier: GPL-2.0-or-later
"""Group qtests: the qtests built in QEMU's tree, one TAP line each.

Run alone: tests/run.py BUILD_ROOT qtests, or from tests/,
python3 -m etsoc1test.qtests BUILD_ROOT (docs/testing.md)."""

import os
import sys

from etsoc1test import harness
from etsoc1test.harness import QEMU, QTEST_DIR, report, relay_tap, run


QTESTS = [
    # (binary, extra args, timeout)
    ('etsoc1-machine-test', [], 120),
    ('etsoc1-pcie-test', [], 120),
    ('etsoc1-timer-test', [], 120),
    ('qom-test', ['-p', '/riscv64/qom/etsoc1'], 120),
    ('device-introspect-test', [], 300),
]


def qtests():
    env = dict(os.environ, QTEST_QEMU_BINARY=QEMU)
    for name, args, timeout in QTESTS:
        rc, out, _ = run([os.path.join(QTEST_DIR, name), '--tap', '-k'] + args,
                         timeout, env)
        if relay_tap(f'qtest {name}', out) == 0 or rc != 0:
            report(False, f'qtest {name} exited {rc}', out)


if __name__ == '__main__':
    sys.exit(harness.main({'qtests': qtests}))
