# SPDX-License-Identifier: GPL-2.0-or-later
"""Group qtests: the qtests as QEMU's own meson runs them (its suite
qtest-riscv64: ours, tests/qtest/etsoc1-*.c, and QEMU's qom-test and
device-introspect-test), one TAP line each.

Run alone: tests/run.py BUILD_ROOT qtests, or from tests/,
python3 -m etsoc1test.qtests BUILD_ROOT (docs/testing.md)."""

import json
import math
import os
import sys

from etsoc1test import harness
from etsoc1test.harness import QEMU_BUILD, SLOWDOWN, report, relay_tap, run

# The qtests scripts/build-qemu.sh builds (the rest of QEMU's riscv64 suite
# is not built)
QTESTS = ['etsoc1-machine-test', 'etsoc1-pcie-test', 'etsoc1-timer-test',
          'qom-test', 'device-introspect-test']
LOGBASE = 'etsoc1-qtests'


def qtests():
    log = os.path.join(QEMU_BUILD, 'meson-logs', LOGBASE + '.json')
    if os.path.exists(log):
        os.unlink(log)
    # QEMU's 30 s qtest timeout, six times (the 33-shire qtests take over
    # 30 s under the sanitizers), and the harness's slowdown more: on a
    # machine half as fast with a core busy the PLIC qtest took over 180 s
    mult = str(math.ceil(6 * SLOWDOWN))
    rc, out, _ = run(['meson', 'test', '-C', QEMU_BUILD, '--no-rebuild',
                      '--timeout-multiplier', mult, '--logbase', LOGBASE] +
                     [f'qtest-riscv64/{t}' for t in QTESTS], 900)
    seen = set()
    for line in open(log) if os.path.exists(log) else ():
        t = json.loads(line)
        name = t['name'].rsplit('/', 1)[-1]
        seen.add(name)
        if (relay_tap(f'qtest {name}', t.get('stdout', '')) == 0 or
                t['result'] != 'OK'):
            report(False, f'qtest {name}: {t["result"]} (exit status '
                   f'{t.get("returncode")})', t.get('stdout', '') +
                   t.get('stderr', ''))
    for name in sorted(set(QTESTS) - seen):
        report(False, f'qtest {name} did not run (meson test status {rc})',
               out)


if __name__ == '__main__':
    sys.exit(harness.main({'qtests': qtests}))
