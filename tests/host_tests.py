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
