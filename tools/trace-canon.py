#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The canonical form of a trace-json file (docs/trace.md), in which two
runs that did the same thing in emulated time are equal: a replay's trace
and its record's (docs/record-replay.md).

    tools/trace-canon.py TRACE [-o OUT]      write the canonical form
    tools/trace-canon.py --diff A B          compare two traces' forms

The form is one JSON object per line, keys sorted, the events sorted by a
total key (time, track, then the whole event).  Every rule below removes
or normalises something that follows the host (the order in which QEMU's
threads reached the writer, docs/trace.md "Choices"); every emulated time
and argument is kept.  Outside record= and replay=, which hart leads an
FLB round is the host's too (docs/timing.md), so two plain runs may
differ there.  --diff exits 0 if the
forms are equal, 1 (printing the first lines that differ and the counts)
if not, 2 if a file cannot be read or written or is not comparable.
canon() and diff() are also a module for the tests (tests/rr_tests.py).
"""

import json
import sys
from collections import Counter


class NotComparable(Exception):
    pass


# the waits drawn from a halt that only the host's order makes
HALT_DRAWN = ('read gate', 'poll')


def _dumps(ev):
    return json.dumps(ev, sort_keys=True, separators=(',', ':'))


def _order(ev):
    """The total key: metadata first, then by time, track, the event."""
    return (ev.get('ph') != 'M', ev.get('ts', 0), ev.get('pid', 0),
            ev.get('tid', 0), _dumps(ev))


def canon(trace):
    """@trace (the parsed file): its canonical lines."""
    other = dict(trace.get('otherData', {}))
    # A cut trace holds the first N events the host's threads wrote: which
    # ones is the host's order, so two cut traces cannot be compared.
    if other.get('cut'):
        raise NotComparable(f'the trace was cut after {other.get("events")} '
                            f'events (trace-json-max-events): which events '
                            f'it holds follows the host')
    # the count is the set's, which is compared event by event
    other.pop('events', None)
    events = []
    flows = {}
    for ev in trace['traceEvents']:
        ev = dict(ev)
        if ev.get('ph') == 'X' and ev['name'] in HALT_DRAWN:
            # Drawn only when the host made the hart halt (etsoc1_sync_halt):
            # at the gate, if it was still closed when the hart's thread got
            # there; on a poll, if the write was not made yet.  A thread
            # that came later passes with the same clocks (the poll sees
            # the write as if it had polled all along) and draws nothing.
            # The time is the model's either way; whether it is drawn is
            # the host's.
            continue
        if ev.get('ph') == 'C' and ev.get('cat') == 'credit':
            # A credit counter's value is written after each delivery and
            # take in the order the host's threads made them, not in
            # emulated time (docs/trace.md "Counter values are the host's
            # order"): the sample's time stays, its value goes.
            ev['args'] = {}
        if ev.get('ph') in ('s', 'f'):
            # A flow's id is a counter taken in the host's order of
            # deliveries; it only pairs the two ends, renumbered below.
            flows.setdefault(ev['id'], []).append(ev)
            continue
        events.append(ev)
    # Flows renumbered in the order of their (start, end) without the id.
    pairs = []
    for ends in flows.values():
        for ev in ends:
            del ev['id']
        ends.sort(key=lambda e: e['ph'] != 's')
        pairs.append(ends)
    pairs.sort(key=lambda ends: [_order(e) for e in ends])
    for n, ends in enumerate(pairs, 1):
        for ev in ends:
            ev['id'] = n
            events.append(ev)
    events.sort(key=_order)
    lines = [_dumps(ev) for ev in events]
    lines.append(_dumps({'otherData': other,
                         'displayTimeUnit': trace.get('displayTimeUnit')}))
    return lines


def load(path):
    try:
        with open(path) as f:
            return canon(json.load(f))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise NotComparable(f'{path}: {e}') from e


def diff(a, b, limit=10):
    """Lines in only one of the canonical forms @a and @b (multisets, in
    canonical order), at most @limit of each, and the counts; None if
    equal."""
    if a == b:
        return None
    only = []
    for x, y in ((a, b), (b, a)):
        left = Counter(y)
        mine = []
        for line in x:
            if left[line]:
                left[line] -= 1
            else:
                mine.append(line)
        only.append(mine)
    return {'only_a': only[0][:limit], 'only_b': only[1][:limit],
            'n_a': len(only[0]), 'n_b': len(only[1])}


def main(argv):
    try:
        if len(argv) == 4 and argv[1] == '--diff':
            a, b = load(argv[2]), load(argv[3])
            d = diff(a, b)
            if d is None:
                print(f'equal: {len(a) - 1} events')
                return 0
            print(f'differ: {d["n_a"]} events only in {argv[2]}, '
                  f'{d["n_b"]} only in {argv[3]}')
            for x in d['only_a']:
                print(f'< {x}')
            for x in d['only_b']:
                print(f'> {x}')
            return 1
        if len(argv) in (2, 4) and not argv[1].startswith('-'):
            text = '\n'.join(load(argv[1])) + '\n'
            if len(argv) == 2:
                sys.stdout.write(text)
                return 0
            if argv[2] == '-o':
                with open(argv[3], 'w') as out:
                    out.write(text)
                return 0
    except (NotComparable, OSError) as e:
        print(f'trace-canon: {e}', file=sys.stderr)
        return 2
    print(__doc__.split('\n\n')[1], file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
