# SPDX-License-Identifier: GPL-2.0-or-later
"""The trace-json timeline (docs/trace.md), in the timing group.

* Structure: a {"traceEvents": [...]} object whose every event has the
  keys its phase needs; every shire and hart track is named; the metadata
  says nothing was cut.
* fabric/ring on 2 shires: every delivery (tensor message, ready, credit)
  is a flow from the sender's hart track to the receiver's, whose length
  is the model's one-way latency for that pair (timing_ref's constants);
  every credit wait (fcc) slice ends at the arrival of a credit on its
  own track, so its length is the modeled wait.
* Tracing changes no emulated time: probes/sync-timing (barriers, credits,
  late and early receives) gives the same figures with and without it.
* trace-json-max-events: a cut trace is still valid JSON, holds at most
  that many events and says how many it dropped.
* dma_trace_test (host group): the eDMA channels are tracks of transfers.
"""

import json
import os
import re
import tempfile

import timing_ref

MHZ = 600                   # the machine's default clock-mhz: the runs' clock
# keys every event of a phase must have (Chrome trace-event format)
REQUIRED = {
    'M': {'name', 'pid', 'args'},
    'X': {'name', 'pid', 'tid', 'ts', 'dur'},
    's': {'name', 'id', 'pid', 'tid', 'ts'},
    'f': {'name', 'id', 'pid', 'tid', 'ts', 'bp'},
    'C': {'name', 'pid', 'ts', 'args'},
    'i': {'name', 'ts', 's'},
}


def structure_errors(doc):
    """What is wrong with the shape of trace @doc (a list of strings)."""
    bad = []
    events = doc.get('traceEvents') if isinstance(doc, dict) else None
    if not isinstance(events, list):
        return ['no traceEvents list']
    for e in events:
        ph = e.get('ph')
        if ph not in REQUIRED:
            bad.append(f'unknown phase: {e}')
        elif not REQUIRED[ph] <= e.keys():
            bad.append(f'missing {REQUIRED[ph] - e.keys()}: {e}')
        elif ph == 'X' and not e['dur'] >= 0:
            bad.append(f'negative duration: {e}')
        elif ph == 'C' and not all(isinstance(v, (int, float))
                                   for v in e['args'].values()):
            bad.append(f'counter without numbers: {e}')
    return bad


def minion_path(a, b):
    """The path between global minions @a and @b, as timing_ref names it."""
    if a // 32 != b // 32:
        return (a // 32, b // 32)
    if a // 8 == b // 8 and frozenset((a % 8, b % 8)) in timing_ref.TREE:
        return 'tree'
    return 'xbar'


def one_way(kind, src, dst, mhz=MHZ):
    """The model's latency of a delivery from hart @src to hart @dst."""
    if kind == 'credit':
        if src // 64 == dst // 64:
            return timing_ref.CREDIT_RTT_SHIRE / 2
        return timing_ref.ns(timing_ref.CREDIT_RTT_MESH_NS +
                             timing_ref.hops(src // 64, dst // 64) *
                             timing_ref.CREDIT_HOP_NS, mhz) / 2
    # a 32-byte message, and the ready that goes the same way back
    return timing_ref.msg_rtt(minion_path(src // 2, dst // 2), mhz) / 2


def trace_tests(t):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'trace.json')
        rc, out, _ = t.run(t.qemu_cmd('ring', 2,
                                      machine=f',trace-json={path}'), 60)
        try:
            doc = json.load(open(path))
            events = doc['traceEvents']
        except (OSError, ValueError, KeyError) as e:
            t.report(False, 'timing: trace-json writes a timeline',
                     f'{e}\n{out[-2000:]}')
            return
        bad = structure_errors(doc)
        names = {(e['pid'], e.get('tid')): e['args']['name'] for e in events
                 if e['ph'] == 'M' and e['name'] == 'thread_name'}
        procs = {e['pid']: e['args']['name'] for e in events
                 if e['ph'] == 'M' and e['name'] == 'process_name'}
        used = {(e['pid'], e['tid']) for e in events
                if e['ph'] in 'Xsf' and e.get('cat') != 'trace'}
        unnamed = used - names.keys()
        t.report(rc == 0 and not bad and not unnamed and
                 procs == {0: 'shire 0', 1: 'shire 1'} and
                 names.get((1, 64)) == 'hart 64 (minion 0.0)' and
                 doc.get('otherData', {}).get('cut') is False,
                 f'timing: trace-json is a Chrome/Perfetto trace with named '
                 f'shire processes and hart tracks ({len(events)} events)',
                 '\n'.join(bad[:10] + [f'unnamed {sorted(unnamed)[:10]}',
                                       f'{procs}', out[-1000:]]))

        starts = {e['id']: e for e in events if e['ph'] == 's'}
        ends = {e['id']: e for e in events if e['ph'] == 'f'}
        wrong, kinds = [], {}
        for i, s in starts.items():
            f = ends.get(i)
            if f is None:
                wrong.append(f'flow {i} has no end')
                continue
            want = one_way(s['cat'], s['tid'], f['tid'])
            got = (f['ts'] - s['ts']) * MHZ
            kinds[s['cat']] = kinds.get(s['cat'], 0) + 1
            if (s['pid'] != s['tid'] // 64 or f['pid'] != f['tid'] // 64 or
                    round(got) != round(want)):
                wrong.append(f"{s['cat']} hart {s['tid']} -> {f['tid']}: "
                             f'{got:.2f} cycles, want {want}')
        # the ring sends on tree edges, crossbar pairs and across shires
        paths = {minion_path(s['tid'] // 2, ends[i]['tid'] // 2)
                 for i, s in starts.items()
                 if s['cat'] == 'message' and i in ends}
        t.report(not wrong and len(ends) == len(starts) and
                 {'message', 'ready', 'credit'} <= kinds.keys() and
                 {'tree', 'xbar', (0, 1), (1, 0)} <= paths,
                 f'timing: every delivery is a flow from the sender\'s hart '
                 f'to the receiver\'s with the model\'s latency ({kinds}, '
                 f'paths {sorted(map(str, paths))})', '\n'.join(wrong[:20]))

        arrivals = {(e['pid'], e['tid'], e['args']['arrival'])
                    for e in events if e['ph'] == 'X' and
                    e.get('cat') == 'credit' and 'arrival' in e['args']}
        waits = [e for e in events if e['ph'] == 'X' and
                 e['name'].startswith('credit (fcc')]
        off = [e for e in waits
               if (e['pid'], e['tid'], e['args']['end']) not in arrivals or
               round(e['dur'] * MHZ) != e['args']['end'] - e['args']['start']]
        t.report(waits and not off,
                 f'timing: each of {len(waits)} credit waits lasts from its '
                 f'fcc to the arrival of the credit that ends it',
                 '\n'.join(map(str, off[:10])))

        cut = 500
        rc, out, _ = t.run(t.qemu_cmd(
            'ring', 2, machine=f',trace-json={path},'
            f'trace-json-max-events={cut}'), 60)
        try:
            doc = json.load(open(path))
            events = doc['traceEvents']
            counted = [e for e in events if e['ph'] != 'M' and
                       'unfinished' not in e.get('args', {})]
            note = [e for e in events if e['ph'] == 'i' and
                    e['name'].startswith('trace cut')]
            other = doc['otherData']
            ok = (rc == 0 and not structure_errors(doc) and note and
                  other['cut'] is True and other['dropped'] > 0 and
                  other['events'] <= cut and
                  len(counted) - len(note) <= cut)
            diag = f'rc {rc}, {len(counted)} events, {other}'
        except (OSError, ValueError, KeyError) as e:
            ok, diag = False, f'{e}\n{out[-2000:]}'
        t.report(ok, f'timing: trace-json-max-events={cut} cuts the trace, '
                 'which stays valid JSON and says how many it dropped', diag)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'trace.json')
        plain = t.run(t.qemu_cmd('sync-timing', 10), 120)
        traced = t.run(t.qemu_cmd('sync-timing', 10,
                                  machine=f',trace-json={path}'), 120)
        a, b = (timing_ref.parse(r[1]) for r in (plain, traced))
        try:
            n = len(json.load(open(path))['traceEvents'])
        except (OSError, ValueError, KeyError):
            n = 0
        t.report(plain[0] == traced[0] == 0 and a and a == b and n,
                 f'timing: tracing changes no emulated time ({len(a)} '
                 f'sync-timing figures equal with trace-json, {n} events)',
                 traced[1][-2000:])


def dma_trace_test(r):
    """The eDMA side of a timeline: make demo's card part (vecadd with its
    DMA both ways) with trace-json added to the card's command line.  Each
    direction's big transfer is a slice on its channel's track, as long as
    the card's own counters measure the command (which also holds the
    command's handling: the slice is at most that, and within 1%)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'trace.json')
        wrap = os.path.join(tmp, 'qemu')
        with open(wrap, 'w') as f:
            f.write(f'#!/bin/sh\nexec {r.QEMU} "$@" -M trace-json={path}\n')
        os.chmod(wrap, 0o755)
        env = dict(os.environ, ETSOC1_QEMU=wrap, ETSOC1_GUEST_DIR=r.GUEST)
        rc, out, _ = r.run([os.path.join(r.GUEST, 'etsoc1-host-test'),
                            '--demo'], 300, env)
        measured = dict(re.findall(r'^  DMA (host->card|card->host)\D*'
                                   r'(\d+) cycles', out, re.M))
        try:
            doc = json.load(open(path))
            events = doc['traceEvents']
        except (OSError, ValueError, KeyError) as e:
            r.report(False, 'host: the demo writes a timeline', f'{e}\n{out}')
            return
        procs = {e['pid']: e['args']['name'] for e in events
                 if e['ph'] == 'M' and e['name'] == 'process_name'}
        dma = [e for e in events if e['ph'] == 'X' and e.get('cat') == 'dma']
        longest = {}
        for e in dma:
            way = 'host->card' if e['tid'] < 4 else 'card->host'
            longest[way] = max(longest.get(way, 0), e['args']['cycles']
                               if 'cycles' in e['args'] else
                               e['args']['end'] - e['args']['start'])
        off = {w: (longest.get(w), int(n)) for w, n in measured.items()
               if not 0.99 * int(n) <= longest.get(w, 0) <= int(n)}
        r.report(rc == 0 and not structure_errors(doc) and
                 procs.get(34) == 'PCIe / eDMA' and len(measured) == 2 and
                 all(0 <= e['tid'] < 8 and e['pid'] == 34 for e in dma) and
                 not off,
                 f'host: the eDMA channels are tracks of transfers on the '
                 f'timeline ({len(dma)} transfers; longest {longest}, the '
                 f'card measures {measured})', f'{off}\n{out[-2000:]}')
