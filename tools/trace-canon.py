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
threads reached the writer, docs/trace.md "Choices"), and one thing the
model leaves to the host: which hart leads an FLB round (_flb_roles).
Every other emulated time and argument is kept.  --diff exits 0 if the
forms are equal, 1 (printing the first lines that differ and the counts)
if not, 2 if a file cannot be read or written or is not comparable.
canon() and diff() are also a module for the tests (tests/rr_tests.py).
"""

import json
import sys
from collections import Counter


class NotComparable(Exception):
    pass


def _dumps(ev):
    return json.dumps(ev, sort_keys=True, separators=(',', ':'))


def _order(ev):
    """The total key: metadata first, then by time, track, the event."""
    return (ev.get('ph') != 'M', ev.get('ts', 0), ev.get('pid', 0),
            ev.get('tid', 0), _dumps(ev))


def _cycles(ev, mhz):
    return round(ev['ts'] * mhz)


def _flb_rounds(events):
    """Each FLB barrier round's members' windows: {(pid, tid): [(from,
    to, arg, leader)]}, from the member's arrival to the arrival of the
    leader's credit that releases it, in cycles (to is None if that never
    arrived)."""
    flb = {}
    for ev in events:
        if ev.get('ph') == 'X' and ev['name'].startswith('FLB barrier'):
            flb.setdefault((ev['pid'], ev['args']['arg']), []).append(ev)
    sends, froms = {}, {}
    for ev in events:
        if ev.get('ph') == 'X' and ev['name'].startswith('send credit to '):
            sends.setdefault((ev['pid'], ev['tid']), []).append(ev)
        elif ev.get('ph') == 'X' and ev['name'].startswith('credit from '):
            froms[(ev['tid'], ev['args']['src'], ev['args']['sent'])] = \
                ev['args']['arrival']
    windows = {}
    for (pid, arg), slices in flb.items():
        slices.sort(key=lambda e: e['args']['start'])
        prev = -1
        for lead in sorted((e for e in slices if e['name'].endswith(
                '(last)')), key=lambda e: e['args']['end']):
            end = lead['args']['end']
            members = [e for e in slices if prev < e['args']['start'] <= end]
            prev = end
            # the leader's first credit to each member after the round
            release = {}
            for snd in sorted(sends.get((pid, lead['tid']), []),
                              key=lambda e: e['args']['sent']):
                dst, sent = snd['args']['dst'], snd['args']['sent']
                if sent >= end and dst not in release:
                    release[dst] = froms.get((dst, lead['tid'], sent))
            for m in members:
                windows.setdefault((pid, m['tid']), []).append(
                    (m['args']['start'], release.get(m['tid']), arg,
                     lead['tid']))
    return windows


def _flb_roles(events, mhz):
    """Which hart of an FLB round reads 1 (the leader, "FLB barrier
    (last)") is the one the host ran last among arrivals within the gate's
    lookahead, not the latest in emulated time (docs/record-replay.md
    "Limits", docs/timing.md "Determinism"): the leader then waits at the
    read gate and sends every member its credit, the others wait for it.
    The time the round releases its members is the model's (the latest
    arrival, etsoc1_flb); who did what in between is the host's.  So each
    member's events from its arrival to the leader's credit's arrival
    (both included) are replaced by one "FLB barrier round" event that
    keeps those two times, and by that credit's arrival with its sender
    left out; the flows with an end inside go too."""
    windows = _flb_rounds(events)
    out, fid_gone = [], set()

    def window(ev):
        for w in windows.get((ev.get('pid'), ev.get('tid')), ()):
            c = _cycles(ev, mhz)
            if w[0] <= c and (w[1] is None or c <= w[1]):
                return w
        return None

    for ev in events:
        w = window(ev) if ev.get('ph') != 'M' and 'ts' in ev else None
        if w is None:
            out.append(ev)
        elif ev.get('ph') == 'X' and ev['args'].get('src') == w[3] and \
                ev['name'].startswith('credit from ') and \
                _cycles(ev, mhz) == w[1]:
            args = {k: v for k, v in ev['args'].items() if k != 'src'}
            out.append(dict(ev, name='credit from the FLB round\'s leader',
                            args=args))
        elif ev.get('ph') in ('s', 'f'):
            fid_gone.add(ev['id'])
    out = [e for e in out if e.get('ph') not in ('s', 'f') or
           e['id'] not in fid_gone]
    for (pid, tid), ws in windows.items():
        for lo, hi, arg, _ in ws:
            out.append({'ph': 'X', 'name': 'FLB barrier round',
                        'cat': 'canon', 'pid': pid, 'tid': tid,
                        'ts': round(lo / mhz, 6),
                        'args': {'arg': arg, 'start': lo, 'release': hi}})
    return out


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
    for ev in _flb_roles(trace['traceEvents'], other['clock_mhz']):
        ev = dict(ev)
        if ev.get('ph') == 'X' and ev['name'] == 'read gate':
            # Drawn only when the host made the hart halt at the gate (the
            # gate was still closed when its thread got there): a hart
            # whose thread came later passes the open gate with the same
            # clocks and draws nothing.  The read's time is the model's
            # either way; whether it is drawn is the host's.
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
