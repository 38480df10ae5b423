# SPDX-License-Identifier: GPL-2.0-or-later
"""The seed loop every fuzzer in tests/fuzz shares."""
import collections


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
