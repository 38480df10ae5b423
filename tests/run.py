#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Run every test of the project and print TAP.

Three kinds of test:
  * qtests (GLib, TAP) built inside QEMU's tree: each of their TAP lines
    counts as one test;
  * guest tests: a guest kernel on -M etsoc1, checked by its exit status
    and console output; guest kernels that print TAP contribute their lines;
  * command-line tests: bad options must be refused with a message.
The run ends with "N passed, N failed".

Usage: tests/run.py BUILD_ROOT [GROUP...]
  BUILD_ROOT holds qemu-build/ and guest/.  ETSOC1_QEMU_BUILD=DIR runs the
  QEMU (and the qtests) built in DIR instead of BUILD_ROOT/qemu-build, e.g.
  the sanitizer build (make check, make check-asan, docs/robustness.md);
  every group and every program a test starts (ETSOC1_QEMU) then uses it.
  ETSOC1_SAN_LOGS=DIR: the sanitizers' log_path directory; each file there
  with a report is one more failure.
  ETSOC1_TAP_ONLY=1: the final line is a TAP comment (meson test runs each
  group so: `meson test -C build/guest --suite etsoc1-isa`).
       tests/run.py --meson-sum LOG.json... [--san-logs DIR]
  the TAP of meson test runs (their JSON logs), renumbered, with the
  sanitizer reports of DIR, and one final line (make check).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etsoc1test import harness  # noqa: E402
from etsoc1test import (cli, fabric, fuzz, guest, isa, link, memory,  # noqa: E402
                        qtests, timing)
import asm_tests  # noqa: E402
import fw_tests  # noqa: E402
import hang_tests  # noqa: E402
import rr_tests  # noqa: E402
import host_tests  # noqa: E402
import sysemu_tests  # noqa: E402

# Every group is a function of no arguments that reports through the
# harness (tests/etsoc1test/harness.py).
GROUPS = {
    'qtests': qtests.qtests, 'hostlink': link.hostlink_tests,
    'guest': guest.guest_tests, 'fabric': fabric.fabric_tests,
    'hang': hang_tests.hang_tests,
    'isa': isa.isa_tests, 'timing': timing.timing_tests,
    'memory': memory.memory_timing_tests, 'cli': cli.cli_tests,
    'host': host_tests.host_tests,
    'fw': fw_tests.fw_tests,
    'sysemu': sysemu_tests.sysemu_tests,
    'asm': asm_tests.asm_tests,
    'fuzz': fuzz.fuzz_tests,
    'rr': rr_tests.rr_tests,
}


if __name__ == '__main__':
    if sys.argv[1:2] == ['--meson-sum']:
        args = sys.argv[2:]
        san = args[args.index('--san-logs') + 1] \
            if '--san-logs' in args else None
        sys.exit(harness.meson_sum([a for a in args if a.endswith('.json')],
                                   san))
    sys.exit(harness.main(GROUPS))
