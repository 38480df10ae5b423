# SPDX-License-Identifier: GPL-2.0-or-later
"""The seed loop and the command line every fuzzer in tests/fuzz shares."""
import argparse
import collections
import os
import time

PROJ = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def each_seed(script, seed, count, runs, one, log=print):
    """Run one(s) for @runs seeds from @seed.  one(s) returns (failure,
    inputs) or (failure, inputs, Counter of what happened).  Returns
    (failures, inputs in all, the Counters added up); each failure names
    the command line that replays it."""
    failures, total, stats = [], 0, collections.Counter()
    for s in range(seed, seed + runs):
        failure, n, *st = one(s)
        total += n
        if st:
            stats += st[0]
        if failure:
            failures.append(f'seed {s}: {failure}\nreplay: tests/fuzz/'
                            f'{script} --seed {s} --count {count}')
            log(failures[-1])
    return failures, total, stats


def main(doc, script, count, what, run, accel=False):
    """The command line of every fuzzer: --build, --qemu (default:
    $ETSOC1_QEMU, else the build's), --seed, --count (default @count),
    --runs, and --accel if @accel.  run(args) fuzzes (args.build and
    args.qemu absolute) and returns (failures, inputs, Counter or None);
    the last line counts the inputs as @what.  Returns the exit status."""
    ap = argparse.ArgumentParser(description=doc.split('\n')[0])
    ap.add_argument('--build', default=os.path.join(PROJ, 'build'))
    ap.add_argument('--qemu', default=os.environ.get('ETSOC1_QEMU'))
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=count)
    ap.add_argument('--runs', type=int, default=1)
    if accel:
        ap.add_argument('--accel', default='', help='e.g. thread=single')
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    a.qemu = os.path.abspath(a.qemu or os.path.join(
        a.build, 'qemu-build', 'qemu-system-riscv64'))
    t0 = time.monotonic()
    failures, n, stats = run(a)
    for k, v in sorted((stats or {}).items()):
        print(f'  {k}: {v}')
    print(f'{script}: seeds {a.seed}..{a.seed + a.runs - 1} x {a.count}: '
          f'{n} {what}, {len(failures)} failing seed(s), '
          f'{time.monotonic() - t0:.1f} s')
    return 1 if failures else 0
