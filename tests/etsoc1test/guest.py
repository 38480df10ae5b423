# SPDX-License-Identifier: GPL-2.0-or-later
"""Group guest: guest tests: waits, ESRs, the full chip.

Run alone: tests/run.py BUILD_ROOT guest, or from tests/,
python3 -m etsoc1test.guest BUILD_ROOT (docs/testing.md)."""


import os
import re
import sys
import tempfile

from etsoc1test import harness
from etsoc1test.harness import PER_HART, SAN_REPORT, guest, qemu_cmd, report, run


def noreserve_test():
    """DRAM from a memory backend with reserve=off, as the host library
    starts the card (host/src/start.c).  Under the sanitizers this QEMU
    writes its reports to a directory of its own, so that a leak fails
    this test by name: QEMU 7.2 leaked what it read from
    /proc/sys/vm/overcommit_memory for every such block (3 bytes,
    qemu-patches/0009; docs/robustness.md, "Findings")."""
    name = 'guest hello on DRAM with reserve=off (the host library\'s backend)'
    with tempfile.TemporaryDirectory(prefix='etsoc1-noreserve-') as tmp:
        env = dict(os.environ)
        if 'ASAN_OPTIONS' in env:
            env['ASAN_OPTIONS'] = re.sub(r'log_path=[^:]*',
                                         f'log_path={tmp}/asan',
                                         env['ASAN_OPTIONS'])
        rc, out, wall = run(qemu_cmd(
            'hello', 1, machine=',memory-backend=dram',
            extra=['-object', 'memory-backend-ram,id=dram,size=1024M,'
                   'reserve=off']), 60, env=env)
        reports = [open(os.path.join(tmp, f), errors='replace').read()
                   for f in sorted(os.listdir(tmp))]
    reports = [r for r in reports if SAN_REPORT.search(r)]
    problems = [f'exit status {rc}'] if rc != 0 else []
    if not re.search(r'^hello: 1 of 1 shires reported$', out, re.M):
        problems.append('no "hello: 1 of 1 shires reported"')
    if reports:
        problems.append('a sanitizer report')
    report(not problems, f'{name}: {"; ".join(problems) or f"{wall:.2f} s"}',
           out + '\n'.join(reports))


def allsum_same():
    """The full chip's allsum (make demo) three times, twice under MTTCG
    and once under thread=single: hart 0 takes 2,175 credits from as many
    senders, each a miss away, so its cycle count is the same in every run
    only if no credit arrival merges with another in the host's order
    (etsoc1_fcc_arrive; it varied by up to 45 cycles when full slots
    merged)."""
    cycles = []
    for accel in ('', 'thread=single', ''):
        out = guest('full-chip allsum', 'allsum', 34, accel,
                    expect=[r'^allsum: 2176 harts x 8192 terms: .*: OK$',
                            r'emulated time on hart 0: \d+ cycles'])
        m = re.search(r'emulated time on hart 0: (\d+) cycles', out)
        cycles.append(int(m.group(1)) if m else None)
    report(None not in cycles and len(set(cycles)) == 1,
           f'guest full-chip allsum: hart 0 ends at the same cycle in every '
           f'run and mode ({", ".join(map(str, cycles))})')


def edma_stop_same():
    """An eDMA transfer a hart stops while it runs (tests/edmastop.c): the
    STOP doorbell, then the engine disabled, each 100,000 cycles after the
    doorbell.  What moved must follow from the model's times, not from
    how far the host had taken the channel's steps: the same bytes in
    every run and mode, the whole 64 KiB pieces that start before the
    stop at 12.5 GB/s (docs/timing.md, "DMA"; before the stop waited for
    the channel's steps, 0 bytes moved, the host being behind)."""
    seen = []
    for accel in ('', 'thread=single', ''):
        out = guest('eDMA stopped by a hart', 'edmastop', 1, accel,
                    machine=',host-loopback=on', expect=[r'^1\.\.6$'])
        seen.append(tuple(int(n) for n in re.findall(
            r'^edmastop: \w+ moved (\d+) bytes$', out, re.M)))
    # 100,000 cycles at 600 MHz, host -> card at 12.5 GB/s (timing.md 6)
    want = 100_000 / 600e6 * 12.5e9
    piece = 64 * 1024
    report(len(set(seen)) == 1 and len(seen[0]) == 2 and
           all(abs(n - want) <= piece for n in seen[0]),
           f'guest eDMA stopped by a hart: the same bytes moved in every run '
           f'and mode, within a 64 KiB piece of {want:.0f} ({seen})')


def guest_tests():
    for accel in ('', 'thread=single'):
        guest('hello', 'hello', 2, accel, expect=[
            r'^hello from shire 0 minion 0 \(hart 0\)$',
            r'^hello from shire 1 minion 0 \(hart 64\)$',
            r'^hello: 2 of 2 shires reported$'])
        guest('allsum', 'allsum', 2, accel,
              expect=[r'^allsum: 128 harts x 8192 terms: .*: OK$'])
        guest('esr', 'esr', 2, accel, expect=[r'^1\.\.\d+$'])
        # the DRAM protection of mprot: 5 values x 7 regions (and 9 GiB)
        guest('mprot PMA', 'pma', 1, accel, expect=[r'^1\.\.40$'],
              extra=['-m', '9G'])
        # The blocking proof: a lost wake-up hangs, a spurious one fails.
        guest('pingpong (inside a shire and across shires)', 'pingpong', 2,
              accel, expect=[r'^1\.\.2$'])
    # A spinning waiter would cost a 100 ms slice per turn under
    # single-threaded TCG: 63 of them, several turns each, take seconds.
    guest('idle harts halt', 'idle', 1, 'thread=single', max_wall=3.0,
          expect=[r'^1\.\.1$'])
    guest('hello loaded with -bios', 'hello', 1, loader='-bios',
          expect=[r'^hello: 1 of 1 shires reported$'])
    noreserve_test()
    edma_stop_same()
    guest('validation0 FAIL ends the run with status 1', 'fail', 1,
          expect_status=1, expect=[r'^fail: hart 0 returns 1$'])
    # The full chip: every minion of all 34 shires.
    guest('full-chip hello', 'hello', 34,
          expect=[r'^hello from shire 33 minion 0 \(hart 2112\)$',
                  r'^hello: 34 of 34 shires reported$'])
    allsum_same()
    # Start to exit of the full chip (bench/speed): every hart runs one
    # loop iteration and stops itself: 0.7-0.9 s on the reference
    # machine, 4-5 s when waking harts queued for the BQL (before
    # qemu-patches/0011).
    for accel in ('', 'thread=single', PER_HART):
        guest('full-chip start to exit', 'speed1', 34, accel,
              max_wall=4.0)


if __name__ == '__main__':
    sys.exit(harness.main({'guest': guest_tests}))
