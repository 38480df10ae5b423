# SPDX-License-Identifier: GPL-2.0-or-later
"""The host library's test programs (docs/host-library.md), for run.py.

Both are native programs built by the meson project (build/guest); this
runs them and relays their TAP:
  * etsoc1-host-libtest: the library against QEMU under qtest (the test
    plays the firmware) and a fake card; needs only QEMU;
  * etsoc1-host-test: the card with the firmware stubs, driven like
    Esperanto's device layer; needs the firmware and kernel ELFs.
"""

import os
import re

FIRMWARE = ('etsoc1-sp.elf', 'etsoc1-fw.elf', 'vecadd.elf', 'hang.elf',
            'exception.elf')


def host_tests(r):
    """@r is run.py (QEMU, GUEST, run, relay_tap, report)."""
    env = dict(os.environ, ETSOC1_QEMU=r.QEMU, ETSOC1_GUEST_DIR=r.GUEST)
    for name, timeout, needs in (('etsoc1-host-libtest', 300, ()),
                                 ('etsoc1-host-test', 1200, FIRMWARE)):
        exe = os.path.join(r.GUEST, name)
        missing = [f for f in needs
                   if not os.path.exists(os.path.join(r.GUEST, f))]
        if not os.access(exe, os.X_OK):
            r.report(False, f'host {name}: not built ({exe})')
            continue
        if missing:
            r.report(False, f'host {name}: skipped, firmware missing: '
                     f'{" ".join(missing)}')
            continue
        rc, out, secs = r.run([exe], timeout, env)
        if r.relay_tap(f'host {name}', out) == 0 or rc != 0:
            r.report(False, f'host {name} exited {rc} after {secs:.0f} s',
                     out)
    if all(os.path.exists(os.path.join(r.GUEST, f)) for f in FIRMWARE):
        demo_determinism(r)


def demo_determinism(r):
    """make demo's card part twice: the card's own times must be equal."""
    env = dict(os.environ, ETSOC1_QEMU=r.QEMU, ETSOC1_GUEST_DIR=r.GUEST)
    exe = os.path.join(r.GUEST, 'etsoc1-host-test')
    runs = []
    for _ in range(2):
        rc, out, _ = r.run([exe, '--demo'], 300, env)
        cycles = re.findall(r'^  (.+?)\s+(\d+) cycles', out, re.M)
        runs.append((rc, cycles, out))
    (rc0, c0, out0), (rc1, c1, _) = runs
    r.report(rc0 == 0 and rc1 == 0 and len(c0) == 3 and c0 == c1,
             f'host: the demo twice gives the same emulated cycles '
             f'({", ".join(f"{w}: {n}" for w, n in c0)})', out0)
