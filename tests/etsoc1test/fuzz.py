# SPDX-License-Identifier: GPL-2.0-or-later
"""Group fuzz: the fuzzers' smoke budgets.

Run alone: tests/run.py BUILD_ROOT fuzz, or from tests/,
python3 -m etsoc1test.fuzz BUILD_ROOT (docs/testing.md)."""

import sys
import time

from etsoc1test import harness
from etsoc1test.harness import ROOT, QEMU, report
import mmio_fuzz  # noqa: E402
import insn_fuzz  # noqa: E402
import hostlink_fuzz  # noqa: E402
import devapi_fuzz  # noqa: E402
import migrate_fuzz  # noqa: E402


def fuzz_tests():
    seed, count, runs = 1, 3000, 2
    t0 = time.monotonic()
    failures, ops, cmds = mmio_fuzz.fuzz(QEMU, seed, count, runs, log=str)
    report(not failures, f'fuzz: qtest MMIO, seeds {seed}..{seed + runs - 1} x '
           f'{count} operations ({cmds} commands, '
           f'{time.monotonic() - t0:.1f} s): no crash, hang or failed health '
           f'check', '\n'.join(failures))
    for accel, seed in (('', 1), ('thread=single', 3)):
        count, runs = 2000, 2
        t0 = time.monotonic()
        failures, n = insn_fuzz.fuzz(QEMU, ROOT, seed, count, runs, log=str,
                                     accel=accel)
        report(not failures, f'fuzz: ET instruction streams '
               f'({harness.accel_label(accel)}), seeds {seed}..{seed + runs - 1}, {n} '
               f'words ({time.monotonic() - t0:.1f} s): QEMU exits 0, '
               f'architectural traps, another hart runs', '\n'.join(failures))
    seed, count = 1, 30
    t0 = time.monotonic()
    failures, frames, _ = hostlink_fuzz.fuzz(ROOT, seed, count, 1, log=str)
    report(not failures, f'fuzz: host-link frames against a booted card, '
           f'seed {seed} x {count} connections ({frames} frames, '
           f'{time.monotonic() - t0:.1f} s): every request answered, every '
           f'malformed frame closed, healthy after each, STOP exits 0',
           '\n'.join(failures))
    for seed in (1, 2):         # the 20 ms and the 30 s launch watchdog
        count = 8
        t0 = time.monotonic()
        failures, n, _ = devapi_fuzz.fuzz(ROOT, seed, count, 1, log=str)
        report(not failures, f'fuzz: device API, seed {seed} x {count} '
               f'rounds ({n} hostile commands, {time.monotonic() - t0:.1f} '
               f's): each answered as the API defines, a good command and '
               f'kernel after each round', '\n'.join(failures))
    seed, count = 1, 12
    t0 = time.monotonic()
    failures, n, _ = migrate_fuzz.fuzz(QEMU, ROOT, seed, count, 1, log=str)
    report(not failures, f'fuzz: migration, a mid-flight round trip and '
           f'{n} damaged streams, seed {seed} ({time.monotonic() - t0:.1f} '
           f's): same result; cut streams refused, no crash or hang',
           '\n'.join(failures))


if __name__ == '__main__':
    sys.exit(harness.main({'fuzz': fuzz_tests}))
