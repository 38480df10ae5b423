#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Record and replay of a host session (docs/record-replay.md): the rr
group of tests/run.py.

A host (tests/hostlink.py) drives the 20 ms firmware card of the fw group
under -M etsoc1,record=FILE: it writes vecadd.elf and its arguments by
MMIO, sends an echo and two kernel launches, reads the CQ, STOP.  The
record is then replayed with no host under MTTCG and under
thread=single: the END trailer must match (every hart's clock and
instructions, the RAM digest) and so must every MSI; an edited record
must diverge (exit status 5).  The issue's DMA session (vecadd.elf, its
data and more by writelists over the socket and a shared buffer, a refused
DMA, two launches, a readlist) replays the same way, with the record's
host data; an edited HOSTMEM address or write crc diverges; two DMAs at
once give the same figures in every run and replay exactly.  Bad records and command
lines are refused at start with exit status 1 and their message.

    python3 tests/rr_tests.py BUILD_ROOT      standalone, prints TAP
"""

import os
import random
import re
import fcntl
import json
import mmap
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'tools'))
import hostlink as hl  # noqa: E402
import fw_tests  # noqa: E402
import fw_startup  # noqa: E402
from fw_tests import MSG, MM_SQ0, MM_CQ, DEV_FREE, BAR0_DRAM  # noqa: E402

rrdump = __import__('rr-dump')
tracecanon = __import__('trace-canon')

FW = 'etsoc1-fw-short-timeout.elf'      # the 20 ms launch watchdog
DIVERGED = 5
N = 1024                                # vecadd's vector length


def qemu_bin(root):
    return os.environ.get('ETSOC1_QEMU') or os.path.join(
        root, 'qemu-build', 'qemu-system-riscv64')


def card_args(root, d, machine_extra, bios=FW):
    """The fw group's card command line, without its host link."""
    g = os.path.join(root, 'guest')
    return [qemu_bin(root), '-M', f'etsoc1,shires=33,sp-firmware='
            f'{g}/etsoc1-sp.elf{machine_extra}', '-smp', '2113', '-m', '2G',
            '-bios', os.path.join(g, bios), '-display', 'none',
            '-serial', f'file:{d}/pu0.log', '-serial', f'file:{d}/pu1.log',
            '-serial', f'file:{d}/sp0.log']


def mmio_load_elf(card, path):
    """PT_LOAD segments written through BAR0 by MMIO (no DMA)."""
    entry, segments = fw_tests.elf_segments(path)
    for paddr, data in segments:
        mmio_write(card, paddr, data)
    return entry


def mmio_write(card, dev, data, chunk=16384):
    for o in range(0, len(data), chunk):
        card.link.write(card.bar0 + dev - BAR0_DRAM + o, data[o:o + chunk])


def settle(card):
    """MM_READY, then, as a runtime does, the card settles (its harts
    halt) before the host's first write."""
    st = card.wait_status(8, 8)
    assert st == 8, f'MM status {st}'
    deadline = time.monotonic() + fw_tests.wall_bound(20)
    while card.cpu_share(0.3) > fw_tests.IDLE_CPU_MAX and \
            time.monotonic() < deadline:
        pass


def wait_idle(card):
    """Until the card is idle (the machine's "idle": nothing can act, no
    input pending), up to wall_bound(20) s: whether it came."""
    deadline = time.monotonic() + fw_tests.wall_bound(20)
    while time.monotonic() < deadline:
        try:
            if card.qmp('qom-get', path='/machine', property='idle') is True:
                return True
        except OSError:
            return False        # QEMU is gone: STOP will say so
        time.sleep(0.02)
    return False


def stop(card, seen):
    """STOP the recording card (the host link waits for it to be idle, up
    to its stop-idle-ms): into @seen its answer (or what went wrong) and
    how long it took, QEMU's exit status and its stderr."""
    card.link.timeout = 30
    t = time.monotonic()
    try:
        seen['stop'] = card.link.request(hl.STOP)[0]
    except (hl.LinkError, OSError) as e:
        seen['stop'] = str(e)
    seen['stop_wall'] = time.monotonic() - t
    card.link.close()
    card.link = None
    try:
        seen['rc'] = card.proc.wait(fw_tests.wall_bound(60))
    except subprocess.TimeoutExpired:
        card.proc.kill()
        seen['rc'] = card.proc.wait()
    seen['err'] = open(os.path.join(card.dir, 'qemu.err')).read()
    card.close()


def recording(path, trace):
    """The command line's additions to record into @path, with the
    trace-json timeline into @trace."""
    return ['-M', f'record={path},trace-json={trace}']


def record_session(root, path, trace):
    """The session under record=@path (and trace-json=@trace): what the
    host saw (CQ replies, MSI events, vecadd's sums) and QEMU's exit
    status."""
    card = fw_tests.Card(root, fw=FW, extra=recording(path, trace))
    seen = {}
    try:
        settle(card)
        a = [i * 3 - 500 for i in range(N)]
        b = [7 - i * i for i in range(N)]
        va, vb, vr, vargs = (DEV_FREE + 0x10_0000 * k for k in range(1, 5))
        entry = mmio_load_elf(card, os.path.join(root, 'guest',
                                                 'vecadd.elf'))
        mmio_write(card, va, struct.pack(f'<{N}i', *a))
        mmio_write(card, vb, struct.pack(f'<{N}i', *b))
        mmio_write(card, vr, bytes(4 * N))
        mmio_write(card, vargs, struct.pack('<QQQi4x', va, vb, vr, N))
        replies = [card.command(MSG['echo'], bytes(8))]
        for mask in (0x1, 0x3):
            replies.append(card.wait(card.launch(entry, vargs, mask),
                                     timeout=fw_tests.wall_bound(60)))
        got = struct.unpack(f'<{N}i', card.link.read(
            card.bar0 + vr - BAR0_DRAM, 4 * N))
        seen['sums'] = list(got) == [x + y for x, y in zip(a, b)]
        # refused: the record holds no reset (and the card goes on)
        seen['reset'] = card.qmp('system_reset')
        seen['replies'] = replies
        seen['status'] = [struct.unpack_from('<I', r[1], 32)[0]
                          for r in replies[1:]]
        seen['msi'] = [e[1] for e in card.link.events if e[0] == 'msi']
    finally:
        stop(card, seen)
    return seen


def run_replay(root, path, extra=(), machine_extra='', timeout=240,
               bios=FW):
    """Replay @path; (exit status, stderr, wall seconds)."""
    from etsoc1test import harness
    d = tempfile.mkdtemp(prefix='etsoc1-rr-')
    t = time.monotonic()
    try:
        p = subprocess.run(card_args(root, d, f',replay={path}' +
                                     machine_extra, bios) + list(extra) +
                           harness.default_accel_args(extra),
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True,
                           timeout=fw_tests.wall_bound(timeout))
        return p.returncode, p.stdout + p.stderr, time.monotonic() - t
    except subprocess.TimeoutExpired as e:
        return None, f'timed out: {e}', time.monotonic() - t
    finally:
        shutil.rmtree(d, ignore_errors=True)


def traced(rec, mode):
    """The replay's command line addition for its trace-json, beside the
    record @rec's (REC.json) as REC.MODE.json."""
    return ['-M', f'trace-json={rec}.{mode.replace("=", "-")}.json']


def past_stop(trace, rec):
    """How many events of trace-json @trace start after the STOP of the
    record @rec, if its card was idle then (None otherwise): the card
    stops at the STOP's T in the record and in its replay
    (hl_stop_apply), so none may."""
    (flags, _, _), events = end_of(rec)
    stops = [e['t'] for e in events if e['kind'] == 'STOP']
    if flags != 3 or not stops:
        return None
    with open(trace) as f:
        tr = json.load(f)
    mhz = tr['otherData']['clock_mhz']
    return sum(1 for e in tr['traceEvents']
               if e.get('ph') != 'M' and
               e.get('ts', 0) * mhz > stops[0] + 0.5)   # ts: µs, rounded


def same_trace(report, what, rec, mode):
    """The replay of @rec under @mode drew the record's timeline: the
    canonical forms (tools/trace-canon.py) of REC.json and of the replay's
    trace-json (traced()) are equal, and neither has an event past the
    STOP (past_stop)."""
    mine = traced(rec, mode)[1].split('=', 1)[1]
    try:
        a, b = tracecanon.load(rec + '.json'), tracecanon.load(mine)
        d = tracecanon.diff(a, b)
        late = [past_stop(x, rec) for x in (rec + '.json', mine)]
    except (tracecanon.NotComparable, OSError, ValueError, KeyError) as e:
        report(False, f'rr: {what}\'s trace-json under {mode}: {e}')
        return
    report(d is None and len(a) > 100 and late == [0, 0],
           f'rr: {what} replayed under {mode} draws the record\'s '
           f'trace-json ({len(a) - 1} events in canonical form, '
           f'{"equal" if d is None else "different"}; events past the '
           f'STOP in the record and the replay {late}, [0, 0])',
           d and '\n'.join(['< ' + x[:300] for x in d['only_a']] +
                           ['> ' + x[:300] for x in d['only_b']]))


def first_differences(rec, replayed, mode):
    """For a replay of @replayed (traced() under @mode) that went another
    way than @rec: the first events of its trace-json that the record's
    does not have, in canonical (time) order, to say where it did (a
    replay that stopped early lacks the record's later events, so only
    its own extra ones tell)."""
    mine = traced(replayed, mode)[1].split('=', 1)[1]
    # the spans still open where each stopped differ by that alone
    cut = '"unfinished":true'
    try:
        d = tracecanon.diff([x for x in tracecanon.load(rec + '.json')
                             if cut not in x],
                            [x for x in tracecanon.load(mine)
                             if cut not in x], limit=12)
    except tracecanon.NotComparable as e:
        return f'\n(trace-json not compared: {e})'
    if d is None or not d['n_b']:
        return '\n(no trace-json event of the replay differs from the record)'
    return ('\nthe replay\'s first trace-json events not in the record '
            f'({d["n_b"]} in all):\n' +
            '\n'.join('> ' + x[:300] for x in d['only_b']))


def canon_test(report, d, trace):
    """tools/trace-canon.py ignores what is the host's (the file's order of
    events, flow ids) and sees what is emulated time: one event's ts
    changed makes the forms differ, and the tool exits 1 naming it.  A
    trace cut by trace-json-max-events is not comparable (exit 2)."""
    rnd = random.Random(29)
    with open(trace) as f:
        t = json.load(f)
    evs = t['traceEvents']
    ids = sorted({e['id'] for e in evs if 'id' in e})
    perm = dict(zip(ids, rnd.sample(ids, len(ids))))
    shuffled = [dict(e, id=perm[e['id']]) if 'id' in e else e for e in evs]
    rnd.shuffle(shuffled)
    moved = [dict(e) for e in evs]
    k = next(i for i, e in enumerate(moved) if e.get('cat') == 'host')
    moved[k]['ts'] += 1 / t['otherData']['clock_mhz']
    cut = dict(t['otherData'], cut=True)
    out = {}
    for name, events, other in (('shuffled', shuffled, t['otherData']),
                                ('moved', moved, t['otherData']),
                                ('cut', evs, cut)):
        path = os.path.join(d, f'{name}.json')
        with open(path, 'w') as f:
            json.dump(dict(t, traceEvents=events, otherData=other), f)
        p = subprocess.run([sys.executable, os.path.join(
            HERE, '..', 'tools', 'trace-canon.py'), '--diff', trace, path],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out[name] = (p.returncode, p.stdout)
    report(out['shuffled'][0] == 0 and out['moved'][0] == 1 and
           out['moved'][1].startswith('differ: 1 events only in') and
           f'"ts":{moved[k]["ts"]}' in out['moved'][1],
           f'rr: tools/trace-canon.py: the record\'s trace with its events '
           f'shuffled and {len(ids)} flow ids permuted is equal (exit '
           f'{out["shuffled"][0]}); with one host write\'s ts a cycle later '
           f'it differs (exit {out["moved"][0]}): '
           f'"{out["moved"][1].splitlines()[0]}"',
           out['shuffled'][1][-1500:] + out['moved'][1][-1500:])
    report(out['cut'][0] == 2 and 'was cut after' in out['cut'][1],
           f'rr: tools/trace-canon.py refuses a cut trace: exit '
           f'{out["cut"][0]} (2), "{out["cut"][1].strip()[:200]}"')


END_PARTS = (
    ('harts', r"END matches: (\d+) harts' clocks"),
    ('instret', r"\((\d+) with the record's instret too\)"),
    ('hostmem', r'(\d+) HOSTMEM events served'),
    ('hostmem_bytes', r'HOSTMEM events served \((\d+) bytes'),
    ('hostmem_other_t', r'HOSTMEM events served \(\d+ bytes, (\d+) at another T'),
    ('dma_ends', r'(\d+) DMA ends'),
    ('dma_other_t', r'DMA ends \((\d+) at another T'),
)


def end_match(out):
    """What a replay's "END matches" line says, as {part: int} (etsoc1-rr.c
    prints the HOSTMEM and DMA parts only when the record has them); None
    if the replay did not say END matches."""
    if 'END matches' not in out:
        return None
    got = {}
    for part, rx in END_PARTS:
        m = re.search(rx, out)
        if m:
            got[part] = int(m.group(1))
    return got


def end_of(path):
    _, _, events = rrdump.parse(open(path, 'rb').read())
    return rrdump.end_info(events[-1]['payload']), events


def rr_tests(report=None, root=None):
    if report is None:
        from etsoc1test import harness
        report, root = harness.report, harness.ROOT
    root = os.path.abspath(root or os.path.join(HERE, '..', 'build'))
    d = tempfile.mkdtemp(prefix='etsoc1-rr-tests-')
    try:
        _rr_tests(report, root, d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _rr_tests(report, root, d):
    rec = os.path.join(d, 'session.rr')
    t = time.monotonic()
    try:
        seen = record_session(root, rec, rec + '.json')
    except (hl.LinkError, AssertionError, OSError) as e:
        report(False, f'rr: the recorded session ran ({e})')
        return
    wall = time.monotonic() - t
    size = os.path.getsize(rec) if os.path.exists(rec) else 0
    report(seen['rc'] == 0 and seen['stop'] == 0 and seen['sums'] and
           seen['status'] == [0, 0] and size > 0,
           f'rr: a host session under record= (vecadd.elf and its arguments '
           f'by MMIO, an echo, two launches, STOP): sums right '
           f'{seen["sums"]}, launch status {seen["status"]}, exit status '
           f'{seen["rc"]}, a record of {size} bytes ({wall:.1f} s)',
           seen['err'][-2000:])
    reset = str(seen.get('reset', {}).get('error', {}).get('desc', seen))
    report(reset_refused('record') in reset,
           f'rr: system_reset during the recording is refused: "{reset}"')
    try:
        (flags, rows, digest), events = end_of(rec)
    except (rrdump.BadFile, OSError, struct.error, IndexError) as e:
        report(False, f'rr: the record reads back ({e})')
        return
    kinds = [e['kind'] for e in events]
    msis = [e for e in events if e['kind'] == 'MSI']
    report(kinds[-2:] == ['STOP', 'END'] and flags == 3 and
           len(rows) == 33 * 64 and 'READY' in kinds and
           'HOSTMEM' not in kinds and
           kinds.count('MMIO_WRITE') > 10 and len(msis) >= 3,
           f'rr: the record ends with STOP and END (flags {flags}: stopped, '
           f'idle, RAM digest {digest[:16]}...), {len(rows)} harts, '
           f'{kinds.count("MMIO_WRITE")} MMIO writes, {len(msis)} MSIs')
    # the record's MSIs are the ones the host was sent
    sent = 0
    for e in msis:
        sent |= struct.unpack_from('<I', e['payload'])[0]
    host = 0
    for v in seen['msi']:
        host |= v
    report(sent == host and sent & 0x8,
           f'rr: the record\'s MSI vectors ({sent:#x}) are the host\'s '
           f'({host:#x}), the CQ\'s vector 3 among them')
    ins = [e['t'] for e in events if e['kind'] in ('MMIO_WRITE', 'STOP')]
    report(ins == sorted(ins) and len(set(ins)) == len(ins),
           f'rr: the inputs\' T rise strictly ({len(ins)} inputs, T '
           f'{ins[0]}..{ins[-1]})')

    # rr-dump prints one line per event
    p = subprocess.run([sys.executable, os.path.join(HERE, '..', 'tools',
                                                     'rr-dump.py'), rec],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    lines = [x for x in p.stdout.splitlines() if not x.startswith('#')]
    report(p.returncode == 0 and len(lines) == len(events) and
           re.search(r'^# build=[0-9a-f]{64}$', p.stdout, re.M) and
           'END' in lines[-1] and 'idle' in lines[-1],
           f'rr: tools/rr-dump.py prints the header and {len(lines)} event '
           f'lines', p.stdout[-1500:] + p.stderr)

    # ---- replay, both TCG modes ----
    for mode, extra in fw_tests.MODES:
        rc, out, wall = run_replay(root, rec, extra + traced(rec, mode))
        e = end_match(out) or {}
        # every hart's instret too: the FLB's leader is the record's
        report(rc == 0 and e.get('harts') == 2112 and
               e.get('instret') == 2112,
               f'rr: replay under {mode}: exit status {rc}, END matches: '
               f'{e.get("harts", "?")} harts\' clocks ('
               f'{e.get("instret", "?")} with equal instret), the RAM '
               f'digest, every MSI ({wall:.1f} s)', out[-2000:])
        same_trace(report, 'the MMIO session', rec, mode)
    canon_test(report, d, rec + '.json')

    # ---- a replay that diverges ----
    data = bytearray(open(rec, 'rb').read())
    args = [e for e in events if e['kind'] == 'MMIO_WRITE' and
            struct.unpack_from('<QI', e['payload'])[1] == 32][-1]
    # vecadd's n: the kernel adds fewer elements, memory differs
    struct.pack_into('<i', data, args['off'] + rrdump.EV.size + 16 + 24,
                     N // 2)
    bad = os.path.join(d, 'diverge.rr')
    open(bad, 'wb').write(rrdump.rechain(data))
    rc, out, _ = run_replay(root, bad)
    report(rc == DIVERGED and 'replay diverged at record event' in out,
           f'rr: a record with vecadd\'s length edited (checksums fixed) '
           f'diverges: exit status {rc} ({DIVERGED}), '
           f'"{_line(out, "diverged")}"', out[-2000:])

    blocker_test(report, root, d, rec)
    hang_test(report, root, d)
    pause_test(report, root, d)
    qmp_stop_test(report, root, d)
    stop_wait_test(report, root, d)
    dma_test(report, root, d)
    host_session_test(report, root, d)
    overlap_test(report, root, d)
    doorbells_test(report, root, d)
    bad_input_tests(report, root, d, rec)


REST = re.compile(r'^etsoc1: deadlock at rest \(cycle (\d+)\): .*\n'
                  r'(?:  .*\n)*', re.M)
REST_HART = re.compile(r'^  hart (\d+) \(shire \d+ minion (\d+) thread \d+\) '
                       r'waits on (\S+) (?:to|from) minion (\d+): (.*) '
                       r'\(clock (\d+)\)$', re.M)


def record_hang_session(root, path):
    """Under record=@path: readyhang.elf (the naive 2D array) written by
    MMIO and launched on shire 0 with handshake=rtl; it hangs on a lost
    ready, the launch watchdog answers it; STOP.  What the host saw.
    trace-json into PATH.json."""
    card = fw_tests.Card(root, fw=FW, extra=recording(path, path + '.json'))
    seen = {}
    try:
        settle(card)
        entry = mmio_load_elf(card, os.path.join(root, 'guest',
                                                 'readyhang.elf'))
        t = time.monotonic()
        seen['status'] = card.launch_status(card.launch(entry, 0, 0x1),
                                            timeout=fw_tests.wall_bound(60))
        seen['launch_wall'] = time.monotonic() - t
    finally:
        stop(card, seen)
    return seen


def hang_test(report, root, d):
    """Stage 4: a recorded one-ready-flag hang replays to the same hang
    report (the one taken at rest, design 4.4), the same launch status (the
    CQ in the RAM digest, the MSIs) and the same END, under MTTCG and
    thread=single; a record whose report was edited diverges at its line;
    a record of format 2 is refused."""
    rec = os.path.join(d, 'hang.rr')
    t = time.monotonic()
    try:
        seen = record_hang_session(root, rec)
    except (hl.LinkError, AssertionError, OSError) as e:
        report(False, f'rr: the recorded hang session ran ({e})')
        return
    wall = time.monotonic() - t
    size = os.path.getsize(rec) if os.path.exists(rec) else 0
    m = REST.search(seen['err'])
    printed = m.group(0) if m else ''
    try:
        (flags, rows, digest), events = end_of(rec)
    except (rrdump.BadFile, OSError, struct.error, IndexError) as e:
        report(False, f'rr: the hang record reads back ({e})', seen['err'])
        return
    hangs = [e for e in events if e['kind'] == 'HANG']
    text = hangs[0]['payload'].decode() if hangs else ''
    harts = [(int(h), int(mn), w, int(p), why, int(c))
             for h, mn, w, p, why, c in REST_HART.findall(text)]
    lost21 = [x for x in harts if x[1] == 21]
    ok = (seen.get('status') == 6 and seen.get('stop') == 0 and
          seen.get('rc') == 0 and len(hangs) == 1 and printed == text and
          flags == 3 and len(harts) >= 2 and
          [x[0] for x in harts] == sorted(x[0] for x in harts) and
          all(x[5] < hangs[0]['t'] for x in harts) and
          lost21 and lost21[0][2] == 'tensor-send' and
          lost21[0][3] == 29 and 'ready bit of minion 21 is empty' in
          lost21[0][4] and 'lost ready: minion 21 took a ready from minion '
          '29, then the ready from minion 22 was lost' in text)
    report(ok, f'rr: a one-ready-flag hang under record= (readyhang.elf on '
           f'shire 0 by MMIO, launched, answered by the watchdog, STOP): '
           f'launch status {seen.get("status")} (6) after '
           f'{seen.get("launch_wall", 0):.1f} s, {len(hangs)} HANG event '
           f'at T={hangs[0]["t"] if hangs else "?"} as printed, '
           f'{len(harts)} hung harts in hart order with their clocks, '
           f'ready-gone at minion 21 (lost minion 22\'s ready), a record '
           f'of {size} bytes ({wall:.1f} s)',
           seen.get('err', '')[-3000:])
    if not hangs:
        return
    for mode, extra in fw_tests.MODES:
        rc, out, wall = run_replay(root, rec, extra + traced(rec, mode))
        m = REST.search(out)
        end = (end_match(out) or {}).get('harts') == 2112
        report(rc == 0 and m is not None and m.group(0) == text and
               f'the hang report at T={hangs[0]["t"]} matches the '
               f'record\'s' in out and end,
               f'rr: the hang record replayed under {mode}: exit status '
               f'{rc}, the same report ({len(text.splitlines())} lines, '
               f'{"equal" if m and m.group(0) == text else "different"}), '
               f'END matches (clocks, the RAM digest with the CQ\'s launch '
               f'status, every MSI) {bool(end)} ({wall:.1f} s)',
               out[-3000:])
        same_trace(report, 'the hang session', rec, mode)
    # the report edited in the record: the replay names the line
    data = bytearray(open(rec, 'rb').read())
    h = hangs[0]
    lines = text.splitlines()
    k = next(i for i, x in enumerate(lines) if x.startswith('  lost ready'))
    at = h['off'] + rrdump.EV.size + text.index(lines[k])
    old = lines[k].encode()
    new = old.replace(b'minion 22 was lost', b'minion 23 was lost')
    data[at:at + len(old)] = new
    bad = os.path.join(d, 'hang-edited.rr')
    open(bad, 'wb').write(rrdump.rechain(data))
    rc, out, _ = run_replay(root, bad, traced(bad, 'edited'))
    ok = rc == DIVERGED and re.search(
        rf'replay diverged at record event {events.index(h)} \(HANG, '
        rf'T={h["t"]}\): hang report line {k + 1}: ".*minion 22 was lost"; '
        rf'the record has ".*minion 23 was lost"', out)
    report(ok, f'rr: a record whose hang report was edited diverges at that '
               f'line: exit status {rc} ({DIVERGED}), '
               f'"{_line(out, "diverged")}"',
           None if ok else out[-2000:] + first_differences(rec, bad,
                                                           'edited'))
    # a record of format 2 (stage 3's, no HANG) is refused at start
    data = bytearray(open(rec, 'rb').read())
    struct.pack_into('<I', data, 8, 2)
    old_fmt = os.path.join(d, 'format2.rr')
    open(old_fmt, 'wb').write(rrdump.rechain(data))
    refused(report, root, d, 'a record of format 2', old_fmt,
            r'format 2; this QEMU reads format 4')


SHM_BASE, SHM_SIZE = 0x7f00_0000_0000, 1 << 20     # a shared buffer


def shm_map(link, addr, fd, n):
    """SHM_MAP of memfd @fd as host [addr, addr + n); its status."""
    seq = link.seq
    link.seq += 1
    with link.wlock:
        socket.send_fds(link.sock, [hl.frame(hl.SHM_MAP, struct.pack(
            '<QQ', addr, n), seq=seq)], [fd])
    link._wait(lambda: seq in link.replies or link.closed)
    with link.cv:
        return link.replies.pop(seq)[1] if seq in link.replies else None


def record_held_session(root, path, hold):
    """Under record=@path (and trace-json into PATH.json): a kernel
    launched on shire 0 (fw_tests' spin kernel, 200,000 cycles) by MMIO;
    right after its doorbell, while the master minion dispatches it,
    @hold(card, seen, sargs) stops the card, sends an echo on SQ1 while it
    is stopped, lets it go on and returns the echo's tag; both answers;
    STOP.  What the host saw."""
    card = fw_tests.Card(root, fw=FW, extra=recording(path, path + '.json'))
    code, sargs = DEV_FREE + 0x50_0000, DEV_FREE + 0x60_0000
    seen = {}
    try:
        settle(card)
        mmio_write(card, code, fw_tests.SPIN_KERNEL)
        mmio_write(card, sargs, struct.pack('<QQQ', 200_000, 0, 0))
        launch = card.launch(code, sargs, 0x1)
        # the firmware dispatches, then the kernel spins: not idle
        seen['busy_idle'] = card.qmp('qom-get', path='/machine',
                                     property='idle')
        seen['idle_set'] = card.qmp('qom-set', path='/machine',
                                    property='idle', value=True)
        echo = hold(card, seen, sargs)
        seen['echo'] = card.wait(echo, timeout=fw_tests.wall_bound(60))[0]
        seen['status'] = card.launch_status(launch,
                                            timeout=fw_tests.wall_bound(60))
        seen['idle'] = wait_idle(card)
    except (hl.LinkError, AssertionError, OSError, IndexError) as e:
        seen['error'] = str(e)
    finally:
        stop(card, seen)
    return seen


def hold_by_pause(card, seen, sargs):
    """The host's PAUSE; the echo (its entry, tail and doorbell) and a read
    while paused; RESUME."""
    seen['pause'] = card.link.request(hl.PAUSE)[0]
    echo = card.send(MSG['echo'], bytes(8), sq=fw_tests.MM_SQ1)
    seen['read'] = card.link.read32(card.bar0 + sargs - BAR0_DRAM)
    seen['resume'] = card.link.request(hl.RESUME)[0]
    return echo


def hold_by_qmp(card, seen, sargs):
    """QMP stop; the echo sent from another thread, whose writes must wait
    for the VM (seen['waited']: still unanswered after 0.5 s); QMP cont."""
    import threading
    seen['stop_q'] = card.qmp('stop')
    echo = []
    sender = threading.Thread(target=lambda: echo.append(
        card.send(MSG['echo'], bytes(8), sq=fw_tests.MM_SQ1)))
    sender.start()
    sender.join(0.5)
    seen['waited'] = sender.is_alive()
    seen['status_q'] = card.qmp('query-status').get('status')
    card.qmp('cont')
    sender.join(fw_tests.wall_bound(30))
    return echo[0]


def held_record(report, root, d, what, hold):
    """Record a held session (record_held_session with @hold) as @what:
    (the record's path, what the host saw, its events), or None
    (reported)."""
    rec = os.path.join(d, what.replace(' ', '-') + '.rr')
    t = time.monotonic()
    seen = record_held_session(root, rec, hold)
    seen['wall'] = time.monotonic() - t
    try:
        return rec, seen, end_of(rec)[1]
    except (rrdump.BadFile, OSError, struct.error, IndexError) as e:
        report(False, f'rr: the {what} record reads back ({e}): {seen}')
        return None


def held_replays(report, root, rec, what):
    """The held session's record @rec replays exactly under both TCG modes
    (END, trace-json), without the "exact only if the card was idle"
    warning."""
    for mode, extra in fw_tests.MODES:
        rc, out, wall = run_replay(root, rec, extra + traced(rec, mode))
        e = end_match(out) or {}
        report(rc == 0 and e.get('harts') == 2112 and 'paused' not in out,
               f'rr: the {what} record replayed under {mode}: exit status '
               f'{rc}, END matches ({e.get("harts", "?")} harts\' clocks, '
               f'the RAM digest with the echo\'s and the launch\'s '
               f'answers, every MSI), no "paused" warning ({wall:.1f} s)',
               out[-2000:])
        same_trace(report, f'the {what} session', rec, mode)


def qmp_stop_test(report, root, d):
    """A write made while QMP has the VM stopped waits for cont, then goes
    in by the rule of a running card: the record holds no write applied
    while stopped, and replays exactly under both TCG modes."""
    got = held_record(report, root, d, 'QMP stop', hold_by_qmp)
    if not got:
        return
    rec, seen, events = got
    paused = [e for e in events if e['kind'] in ('MMIO_WRITE', 'STOP') and
              e['flags'] & 1]
    report(seen.get('waited') is True and seen.get('status_q') == 'paused'
           and seen.get('echo') == 518 and seen.get('status') == 0 and
           seen.get('rc') == 0 and not paused,
           f'rr: QMP stop right after a launch\'s doorbell, an echo sent '
           f'while stopped, cont, under record=: the echo\'s writes '
           f'unanswered after 0.5 s of stop {seen.get("waited")}, echo and '
           f'launch answered (status {seen.get("status")}), {len(paused)} '
           f'writes applied while stopped (0) ({seen["wall"]:.1f} s)',
           str(seen)[-2000:])
    held_replays(report, root, rec, 'QMP stop')


def pause_test(report, root, d):
    """PAUSE is stamped (docs/record-replay.md, "PAUSE and RESUME"): the
    card stops at the PAUSE's T, the writes made while it is stopped take
    effect at that T, and a record of a PAUSE while the card works
    replays exactly (END, trace-json) under both TCG modes."""
    got = held_record(report, root, d, 'PAUSE', hold_by_pause)
    if not got:
        return
    rec, seen, events = got
    pauses = [e for e in events if e['kind'] == 'PAUSE']
    during = [e for e in events if e['kind'] == 'MMIO_WRITE' and
              e['flags'] & 1]
    after = [e for e in events if e['kind'] in ('MMIO_WRITE', 'STOP') and
             pauses and e['seq'] > during[-1]['seq']] if during else []
    pt = pauses[0]['t'] if pauses else None
    report(seen.get('pause') == 0 and seen.get('resume') == 0 and
           seen.get('read') == 200_000 and seen.get('echo') == 518 and
           seen.get('status') == 0 and
           seen.get('rc') == 0 and len(pauses) == 1 and len(during) >= 3 and
           all(e['flags'] & 4 and e['t'] == pt for e in during) and
           all(e['seq'] > pauses[0]['seq'] for e in during) and
           after and after[0]['t'] > pt,
           f'rr: a PAUSE while shire 0\'s kernel is dispatched, an echo '
           f'written on SQ1 while paused, RESUME, under record=: the '
           f'PAUSE at T={pt}, the {len(during)} writes made while paused '
           f'all at its T (flagged "at the PAUSE"), the next input after '
           f'it (T={after[0]["t"] if after else "?"}); echo answered, '
           f'launch status {seen.get("status")} (0) ({seen["wall"]:.1f} s)',
           str(seen)[-2000:])
    refused = seen.get('idle_set', {}).get('error', {}).get('desc', '')
    report(seen.get('busy_idle') is False and seen.get('idle') is True and
           'not writable' in refused,
           f'rr: the machine\'s "idle" (qom-get): {seen.get("busy_idle")} '
           f'(False) right after the doorbell, {seen.get("idle")} (True) '
           f'once both answers came, before STOP; qom-set refused: '
           f'"{refused}"', str(seen)[-2000:])
    held_replays(report, root, rec, 'PAUSE')


def record_spin_stop(root, path, cycles, extra=()):
    """Under record=@path: fw_tests' spin kernel (@cycles) launched on
    shire 0 by MMIO, and STOP right after its doorbell, with no wait for
    its answer.  What the host saw, the launch's tag and its CQ MSI's
    vector."""
    card = fw_tests.Card(root, fw=FW, extra=recording(path, path + '.json')
                         + list(extra))
    code, sargs = DEV_FREE + 0x50_0000, DEV_FREE + 0x60_0000
    seen = {}
    try:
        settle(card)
        mmio_write(card, code, fw_tests.SPIN_KERNEL)
        mmio_write(card, sargs, struct.pack('<QQQ', cycles, 0, 0))
        card.launch(code, sargs, 0x1)
    except (hl.LinkError, AssertionError, OSError) as e:
        seen['error'] = str(e)
    finally:
        stop(card, seen)
    return seen


def spin_stop_case(report, rec, what, root, cycles, extra=()):
    """record_spin_stop into @rec, its END read back and its replay: (what
    the host saw, END's flags, the events, the replay's exit status and
    output), or None (reported as @what's record not reading back)."""
    seen = record_spin_stop(root, rec, cycles, extra)
    try:
        (flags, _, _), events = end_of(rec)
    except (rrdump.BadFile, OSError, struct.error, IndexError) as e:
        report(False, f'rr: the {what} record reads back ({e}): {seen}')
        return None
    rc, out, _ = run_replay(root, rec)
    return seen, flags, events, rc, out


def stop_wait_test(report, root, d):
    """A STOP under record= waits for the card to be idle, up to the host
    link's stop-idle-ms (docs/record-replay.md, "Recording"): sent right
    after a launch's doorbell, it ends the record after the launch's
    answer, with an END that the replay compares whole; with a kernel
    that spins for longer than the bound (0.3 s here), it goes in after
    the bound and the END is not idle (the replay says so, exit 0), even
    if the firmware's watchdog (20 ms) aborts the kernel before the STOP
    goes in: the card is idle then, but not at the STOP's T (CI's
    sanitizer half, d6f81a4)."""
    got = spin_stop_case(report, os.path.join(d, 'stop-wait.rr'),
                         'STOP-after-doorbell', root, 200_000)
    if not got:
        return
    seen, flags, events, rc, out = got
    stop_t = next((e['t'] for e in events if e['kind'] == 'STOP'), None)
    cq = [e['t'] for e in events if e['kind'] == 'MSI' and
          struct.unpack_from('<I', e['payload'])[0] & 0x8]
    report(seen.get('stop') == 0 and seen.get('rc') == 0 and flags == 3 and
           cq and stop_t and cq[-1] < stop_t and rc == 0 and
           (end_match(out) or {}).get('harts') == 2112,
           f'rr: STOP right after a launch\'s doorbell (the spin kernel, '
           f'200,000 cycles) waits for the card: answered after '
           f'{seen.get("stop_wall", 0):.2f} s, the STOP at T={stop_t} after '
           f'the launch\'s CQ MSI (T={cq[-1] if cq else "?"}), END flags '
           f'{flags} (3: idle), its replay matches it (exit status {rc})',
           str(seen)[-1500:] + out[-1500:])
    got = spin_stop_case(report, os.path.join(d, 'stop-bound.rr'),
                         'STOP-at-the-bound', root, 10 ** 12,
                         ['-global', 'etsoc1-hostlink.stop-idle-ms=300'])
    if not got:
        return
    seen, flags, _, rc, out = got
    report(seen.get('stop') == 0 and seen.get('rc') == 0 and flags == 1 and
           seen.get('stop_wall', 0) >= 0.3 and rc == 0 and
           'was not idle when the record ended' in out,
           f'rr: STOP while a kernel spins past stop-idle-ms=300: answered '
           f'after {seen.get("stop_wall", 0):.2f} s (at least 0.3), END '
           f'flags {flags} (1: stopped, not idle), the replay says so and '
           f'exits {rc} (0)', str(seen)[-1500:] + out[-1500:])


def record_dma_session(root, path, trace):
    """The issue's session under record=@path, all data by DMA through the
    host link (tests/hostlink.py serves HOSTMEM from its buffer):
    vecadd.elf, its vectors and arguments, and 256 KiB of other data by
    writelists; 128 KiB to and from a buffer the host shared (SHM_MAP: a
    copy, no frame); a writelist from host memory no one serves (it
    fails); two launches; the result and the 256 KiB back by one
    readlist; STOP.  What the host saw.  trace-json into @trace."""
    card = fw_tests.Card(root, fw=FW, extra=recording(path, trace),
                         options=hl.OPT_HOSTMEM | hl.OPT_SHM)
    seen = {}
    rnd = random.Random(293)
    fd = os.memfd_create('rr-test', os.MFD_ALLOW_SEALING)
    try:
        settle(card)
        a = [i * 5 - 700 for i in range(N)]
        b = [11 - i * 3 for i in range(N)]
        va, vb, vr, vargs, vbig = (DEV_FREE + 0x10_0000 * k
                                   for k in range(1, 6))
        big = bytes(rnd.getrandbits(8) for _ in range(256 * 1024))
        entry = card.load_elf(os.path.join(root, 'guest', 'vecadd.elf'))
        st = [card.to_card(va, struct.pack(f'<{N}i', *a)),
              card.to_card(vb, struct.pack(f'<{N}i', *b)),
              card.to_card(vr, bytes(4 * N)),
              card.to_card(vargs, struct.pack('<QQQi4x', va, vb, vr, N)),
              card.to_card(vbig, big)]
        seen['to_card'] = st
        # the shared buffer: to the card, and back to its second half
        os.ftruncate(fd, SHM_SIZE)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
        view = mmap.mmap(fd, SHM_SIZE)
        shm = bytes(rnd.getrandbits(8) for _ in range(128 * 1024))
        view[:len(shm)] = shm
        vshm = DEV_FREE + 0x60_0000
        seen['shm'] = [shm_map(card.link, SHM_BASE, fd, SHM_SIZE),
                       card.dma(MSG['writelist'], [(SHM_BASE, vshm,
                                                    len(shm))]),
                       card.dma(MSG['readlist'], [(SHM_BASE + SHM_SIZE // 2,
                                                   vshm, len(shm))])]
        seen['shm_back'] = view[SHM_SIZE // 2:SHM_SIZE // 2 + len(shm)] == shm
        view.close()
        # host memory no one serves: the host answers an error
        seen['refused'] = card.dma(MSG['writelist'], [
            (fw_tests.HOST_MEM + fw_tests.HOST_MEM_SIZE, vshm, 4096)])
        seen['launch'] = [card.launch_status(card.launch(entry, vargs, mask),
                                             timeout=fw_tests.wall_bound(60))
                          for mask in (0x1, 0x3)]
        # one readlist of two nodes: the sums, then the 256 KiB
        half = fw_tests.HOST_MEM_SIZE // 2
        card.link.mem[half:half + 4 * N + len(big)] = bytes(4 * N + len(big))
        seen['from_card'] = card.dma(MSG['readlist'], [
            (fw_tests.HOST_MEM + half, vr, 4 * N),
            (fw_tests.HOST_MEM + half + 4 * N, vbig, len(big))])
        back = bytes(card.link.mem[half:half + 4 * N + len(big)])
        got = struct.unpack(f'<{N}i', back[:4 * N])
        seen['sums'] = list(got) == [x + y for x, y in zip(a, b)]
        seen['big'] = back[4 * N:] == big
        seen['back'] = back
        seen['host_base'] = fw_tests.HOST_MEM + half
        seen['msi'] = [e[1] for e in card.link.events if e[0] == 'msi']
    finally:
        os.close(fd)
        stop(card, seen)
    return seen


def hostmem_streams(events):
    """The record's HOSTMEM events per channel, each as rr-dump's dict
    with its index and T."""
    streams = {}
    for i, e in enumerate(events):
        if e['kind'] == 'HOSTMEM':
            h = rrdump.hostmem(e)
            h.update(idx=i, t=e['t'])
            streams.setdefault(h['chan'], []).append(h)
    return streams


def dma_test(report, root, d):
    """The issue's test: a host session with DMA both ways and two
    launches, recorded, then replayed under MTTCG and thread=single to
    the same memory image and MSIs; the data the record's host read back
    is what the replay's card wrote; an edited HOSTMEM address
    diverges."""
    rec = os.path.join(d, 'dma.rr')
    t = time.monotonic()
    try:
        seen = record_dma_session(root, rec, rec + '.json')
    except (hl.LinkError, AssertionError, OSError) as e:
        report(False, f'rr: the recorded DMA session ran ({e})')
        return
    wall = time.monotonic() - t
    size = os.path.getsize(rec) if os.path.exists(rec) else 0
    report(seen.get('rc') == 0 and seen.get('stop') == 0 and
           seen.get('sums') and seen.get('big') and
           seen.get('to_card') == [0] * 5 and seen.get('launch') == [0, 0]
           and seen.get('from_card') == 0 and
           seen.get('shm') == [0, 0, 0] and seen.get('shm_back') and
           seen.get('refused') not in (None, 0),
           f'rr: a host session with DMA under record= (vecadd.elf, its '
           f'vectors, arguments and 256 KiB by writelists, 128 KiB to and '
           f'from a shared buffer, a refused writelist, two launches, the '
           f'sums and the 256 KiB back by a readlist, STOP): DMA status '
           f'{seen.get("to_card")} / {seen.get("from_card")}, shared '
           f'{seen.get("shm")} (back {seen.get("shm_back")}), refused '
           f'{seen.get("refused")}, launch status {seen.get("launch")}, sums '
           f'right {seen.get("sums")}, 256 KiB back {seen.get("big")}, a '
           f'record of {size} bytes ({wall:.1f} s)',
           seen.get('err', '')[-2000:])
    try:
        (flags, rows, digest), events = end_of(rec)
    except (rrdump.BadFile, OSError, struct.error, IndexError) as e:
        report(False, f'rr: the DMA record reads back ({e})')
        return
    streams = hostmem_streams(events)
    every = [h for c in streams.values() for h in c]
    failed = [h for h in every if not h['ok']]
    shared = [h for h in every if SHM_BASE <= h['addr'] < SHM_BASE + SHM_SIZE]
    reads = [h for h in every if not h['write'] and h['ok'] and
             h not in shared]
    writes = [h for h in every if h['write'] and h['ok'] and
              h not in shared]
    # the bytes the record's host read back are the card's writes: the
    # write stream's crc over them, piece by piece (rr-dump's crc32c)
    back, base = seen['back'], seen['host_base']
    bad = [h for h in writes if not h['ok'] or
           rrdump.crc32c(0, back[h['addr'] - base:h['addr'] - base +
                                 h['len']]) != h['crc']]
    wbytes = sum(h['len'] for h in writes)
    rbytes = sum(h['len'] for h in reads)
    sbytes = sum(h['len'] for h in shared)
    report(flags == 3 and reads and writes and not bad and
           all(len(h['data']) == h['len'] for h in reads) and
           wbytes == len(back) and
           set(streams) <= set(range(8)) and
           all(h['chan'] >= 4 for h in every if not h['write']) and
           all(h['chan'] < 4 for h in every if h['write']) and
           sbytes == 2 * 128 * 1024 and
           len(failed) == 1 and failed[0]['done'] == 0 and
           not failed[0]['write'],
           f'rr: the record holds {len(reads)} HOSTMEM reads ({rbytes} bytes '
           f'with their data, read channels 4-7), {len(writes)} writes '
           f'({wbytes} bytes, write channels 0-3) whose crc32c is that of '
           f'the data the host read back ({len(bad)} differ), '
           f'{len(shared)} through the shared buffer ({sbytes} bytes) and '
           f'{len(failed)} failed read; END idle, digest {digest[:16]}...')
    rbytes += sbytes

    ends = sum(1 for e in events if e['kind'] == 'DMA_END')
    for mode, extra in fw_tests.MODES:
        rc, out, wall = run_replay(root, rec, extra + traced(rec, mode))
        e = end_match(out) or {}
        served = e.get('hostmem_bytes', 0)
        # one DMA at a time: the eDMA's emulated times are the record's
        report(rc == 0 and e.get('harts') == 2112 and
               e.get('instret') == 2112 and
               served == rbytes + wbytes and e.get('hostmem_other_t') == 0 and
               e.get('dma_ends') == ends and e.get('dma_other_t') == 0,
               f'rr: the DMA session replayed under {mode}: exit status '
               f'{rc}, END matches: {e.get("harts", "?")} harts\' '
               f'clocks ({e.get("instret", "?")} with equal instret), the '
               f'RAM digest, every MSI; HOSTMEM served '
               f'{e.get("hostmem", "?")} events, {served} bytes of '
               f'{rbytes + wbytes}, {e.get("hostmem_other_t", "?")} at '
               f'another T; {e.get("dma_ends", "?")} DMA ends of {ends}, '
               f'{e.get("dma_other_t", "?")} at another T ({wall:.1f} s)',
               _lines(out, ('etsoc1',)) or out[-2000:])
        same_trace(report, 'the DMA session', rec, mode)

    # an edited HOSTMEM address: the card asks for what the record does
    # not hold; the message names the event
    h = reads[len(reads) // 2]
    data = bytearray(open(rec, 'rb').read())
    off = events[h['idx']]['off'] + rrdump.EV.size
    struct.pack_into('<Q', data, off + 8, h['addr'] + 0x1000)
    bad_rec = os.path.join(d, 'dma-edit.rr')
    open(bad_rec, 'wb').write(rrdump.rechain(data))
    rc, out, _ = run_replay(root, bad_rec)
    want = (f'replay diverged at record event {h["idx"]} (HOSTMEM, '
            f'T={h["t"]}): channel {h["chan"]} at T=')
    report(rc == DIVERGED and want in out and
           f'reads host {h["addr"]:#x}' in out and
           f'the record holds a read of host {h["addr"] + 0x1000:#x}' in out,
           f'rr: a record with HOSTMEM event {h["idx"]}\'s host address '
           f'edited (checksums fixed) diverges: exit status {rc} '
           f'({DIVERGED}), "{_line(out, "diverged")}"', out[-2000:])

    # a HOSTMEM event on a channel the engine does not have (checksums
    # fixed): refused at start, the event named
    data = bytearray(open(rec, 'rb').read())
    struct.pack_into('<H', data, events[h['idx']]['off'] + 2, 9)
    open(bad_rec, 'wb').write(rrdump.rechain(data))
    refused(report, root, d, f'HOSTMEM event {h["idx"]} on channel 9',
            bad_rec, rf'event {h["idx"]} \(HOSTMEM, channel 9, T={h["t"]}\): '
            r'no such eDMA channel \(0-7\): the file was changed')

    # an edited crc of the card's write: the replay's card wrote other
    # data than the record's
    w = writes[-1]
    data = bytearray(open(rec, 'rb').read())
    off = events[w['idx']]['off'] + rrdump.EV.size
    struct.pack_into('<I', data, off + 20, w['crc'] ^ 1)
    open(bad_rec, 'wb').write(rrdump.rechain(data))
    rc, out, _ = run_replay(root, bad_rec)
    report(rc == DIVERGED and
           f'record event {w["idx"]} (HOSTMEM' in out and
           f"the record's has 0x{w['crc'] ^ 1:08x}" in out,
           f'rr: a record with a HOSTMEM write\'s crc edited diverges: exit '
           f'status {rc} ({DIVERGED}), "{_line(out, "diverged")}"',
           out[-2000:])


LIB_DRAM_MIB = 2048
# The card's RAM as libetsoc1-host gives it (host/src/start.c): a backend
# of its own, whose name the END's RAM digest covers, so its replay needs
# it too
LIB_RAM = (['-object', f'memory-backend-ram,id=etsoc1-dram,size='
            f'{LIB_DRAM_MIB}M,reserve=off'], ',memory-backend=etsoc1-dram')
FIGURES = re.compile(r'^# figures (.+?): status (\d+) start_ts (\d+) '
                     r'execute_dur (\d+) wait_dur (\d+)$', re.M)


def host_session_test(report, root, d):
    """The issue's test: a libetsoc1-host program (etsoc1-host-test
    --session: vecadd.elf and its inputs by DMA, a launch on shire 0, the
    sums back, a new input, a launch on shires 0-1, the sums back, each
    checked) under record=, replayed under MTTCG and thread=single to the
    same END (clocks, RAM digest with the CQ, MSIs) and trace-json.  The
    figures the program printed (each response's start_ts and
    execute_dur) are the card's: each command ends before the MSI that
    told the host of it, and those MSIs are the replay's too."""
    rec = os.path.join(d, 'host.rr')
    g = os.path.join(root, 'guest')
    env = dict(os.environ, ETSOC1_QEMU=qemu_bin(root), ETSOC1_GUEST_DIR=g,
               ETSOC1_DRAM_MIB=str(LIB_DRAM_MIB))
    t = time.monotonic()
    try:
        p = subprocess.run([os.path.join(g, 'etsoc1-host-test'), '--session']
                           + recording(rec, rec + '.json'), env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           timeout=fw_tests.wall_bound(300))
        rc, out = p.returncode, p.stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        rc, out = None, str(e)
    wall = time.monotonic() - t
    figures = [(w, int(st), int(t0), int(dur))
               for w, st, t0, dur, _ in FIGURES.findall(out)]
    report(rc == 0 and 'not ok' not in out and len(figures) == 6 and
           all(f[1] == 0 and f[3] > 0 for f in figures),
           f'rr: a libetsoc1-host session under record= (etsoc1-host-test '
           f'--session: vecadd.elf by DMA, two launches, the sums back by '
           f'DMA and checked): exit status {rc}, {len(figures)} commands\' '
           f'figures ({wall:.1f} s)', out[-3000:])
    try:
        (flags, rows, digest), events = end_of(rec)
    except (rrdump.BadFile, OSError, struct.error, IndexError) as e:
        report(False, f'rr: the libetsoc1-host record reads back ({e})')
        return
    # the MM CQ's MSI (vector 3) that told the host of each response
    cq = [e['t'] for e in events if e['kind'] == 'MSI' and
          struct.unpack_from('<I', e['payload'])[0] & 0x8]
    told = [next((x for x in cq if x >= t0 + dur), None)
            for _, _, t0, dur in figures]
    ends = ', '.join(f'{w} at T={t0 + dur}' for w, _, t0, dur in figures)
    report(flags == 3 and None not in told and len(set(told)) == 6 and
           told == sorted(told),
           f'rr: the program\'s figures are the record\'s card\'s: each '
           f'command ends ({ends}) before its own CQ MSI (T={told})')
    for mode, extra in fw_tests.MODES:
        rc, out, wall = run_replay(root, rec, extra + LIB_RAM[0] +
                                   traced(rec, mode), LIB_RAM[1],
                                   bios='etsoc1-fw.elf')
        e = end_match(out) or {}
        report(rc == 0 and e.get('harts') == 2112 and
               e.get('instret') == 2112 and
               e.get('hostmem') == sum(ev['kind'] == 'HOSTMEM'
                                       for ev in events),
               f'rr: the libetsoc1-host session replayed under {mode}: exit '
               f'status {rc}, END matches: {e.get("harts", "?")} '
               f'harts\' clocks ({e.get("instret", "?")} with equal '
               f'instret), the RAM digest, every MSI, '
               f'{e.get("hostmem", "?")} HOSTMEM events ({wall:.1f} s)',
               _lines(out, ('etsoc1',)) or out[-2000:])
        same_trace(report, 'the libetsoc1-host session', rec, mode)
    # the board's own RAM instead of the library's backend: refused at
    # start (the digest at END would differ)
    refused(report, root, d, 'the libetsoc1-host record replayed without '
            'the library\'s RAM backend', rec,
            r'machine\.memory-backend=etsoc1-dram in the record, \S+ here',
            bios='etsoc1-fw.elf')


def push_entry(card, q, data):
    """The host's SQ push without its doorbell (fw_tests.Card.push)."""
    head, length = card.r64(q), card.r64(q + 16)
    first = min(len(data), length - head)
    card.link.write(card.bar2 + q + 32 + head, data[:first])
    if first < len(data):
        card.link.write(card.bar2 + q + 32, data[first:])
    card.w64(q, (head + len(data)) % length)


def record_overlap(root, path, single, each=False):
    """Under record=@path (and -accel tcg,thread=single if @single): two
    writelists of 1 MiB at once, on SQ0 and SQ1, then one alone on SQ0.
    The pair's SQ entries are written before one doorbell, on a card at
    rest, so that their stamps follow no host timing: the dispatcher hands
    both out, and the two channels overlap in emulated time.  The lone
    one's stamp follows the host (the host's CQ-tail writes before it are
    stamped while the workers finish), its duration does not.  What the
    host saw: the pair's (start, duration, status), the lone one's
    (duration, status), and the record's DMA_END (channel, T), the
    pair's first.  With @each, every command comes with its own doorbell,
    as the library sends them: the pair's stamps then follow the host
    too, and the dispatcher handles a doorbell while the worker of the
    first takes it (docs/firmware.md, "Dispatcher and workers")."""
    extra = ['-M', f'record={path}']
    if single:
        extra += ['-accel', 'tcg,thread=single']
    card = fw_tests.Card(root, fw=FW, extra=extra)
    n = 1 << 20
    seen = {}
    try:
        settle(card)
        card.link.mem[0:2 * n] = random.Random(29).randbytes(2 * n)
        lists = [struct.pack('<QQQII', fw_tests.HOST_MEM + k * n,
                             fw_tests.HOST_MEM + k * n,
                             DEV_FREE + k * 0x20_0000, n, 0) for k in (0, 1)]
        tags = []
        for k, sq in enumerate((MM_SQ0, fw_tests.MM_SQ1)):
            if each:
                tags.append(card.send(MSG['writelist'], lists[k], sq=sq))
                continue
            card.tag = (card.tag + 1) & 0xffff
            push_entry(card, sq, struct.pack('<HHHH', 8 + len(lists[k]),
                                             card.tag, MSG['writelist'], 0) +
                       lists[k])
            tags.append(card.tag)
        if not each:
            card.link.write32(card.bar2 + fw_tests.MM_DOORBELL, 1)
        rsp = [card.wait(t)[1] for t in tags]
        rsp.append(card.wait(card.send(MSG['writelist'], lists[0]))[1])
        figs = [struct.unpack_from('<QQI', r, 8) for r in rsp]
        seen['figures'] = figs[:2] + [figs[2][1:]]
    except (hl.LinkError, AssertionError, OSError) as e:
        seen['error'] = str(e)
    finally:
        stop(card, seen)
    try:
        _, _, events = rrdump.parse(open(path, 'rb').read())
        seen['ends'] = [(e['source'], e['t']) for e in events
                        if e['kind'] == 'DMA_END'][:2]
    except (rrdump.BadFile, OSError) as e:
        seen['error'] = f'record: {e}'
    return seen


def overlap_test(report, root, d):
    """Two writelists of 1 MiB at once on SQ0 and SQ1 (then one alone): on
    the chip's time their channels share the link by their overlap in
    emulated time (docs/timing.md "DMA"), so every figure is the same in
    every run: five records, three under MTTCG and two under
    thread=single (one of each under the sanitizers: harness.repeats),
    give the same responses and DMA ends, the pair's durations longer
    than the lone one's (they shared the link); each record replays
    under each mode with END matching and every eDMA request and end at
    the record's T."""
    from etsoc1test import harness
    runs = []
    t = time.monotonic()
    modes = (False,) * harness.repeats(3) + (True,) * harness.repeats(2)
    for i, single in enumerate(modes):
        rec = os.path.join(d, f'overlap{i}.rr')
        runs.append((rec, single, record_overlap(root, rec, single)))
    wall = time.monotonic() - t
    first = runs[0][2]
    figs = first.get('figures', [])
    same = all(r[2].get('figures') == figs and
               r[2].get('ends') == first.get('ends') for r in runs)
    ok = (not any('error' in r[2] for r in runs) and len(figs) == 3 and
          [f[-1] for f in figs] == [0, 0, 0] and
          len(first.get('ends', [])) == 2 and
          all(f[1] > figs[2][0] for f in figs[:2]))
    report(ok and same,
           f'rr: two 1 MiB writelists at once on SQ0 and SQ1, then one alone, '
           f'recorded {len(runs)} times ({modes.count(False)} MTTCG, '
           f'{modes.count(True)} thread=single; {wall:.0f} s): the '
           f'pair\'s (start, duration, status) and the lone one\'s (duration, '
           f'status) {figs} and the pair\'s DMA ends (channel, T) '
           f'{first.get("ends")} in every run {same}, the pair longer than '
           f'the lone one (they share the link)',
           '\n'.join(f'{r[0]} single={r[1]}: {r[2]}' for r in runs))
    t = time.monotonic()
    bad, n = replays_match(root, [r[0] for r in runs])
    report(not bad,
           f'rr: the {len(runs)} overlap records replayed {n} times (each '
           f'under MTTCG and under thread=single, '
           f'{time.monotonic() - t:.0f} s): {n - len(bad)} end "END matches" '
           f'with every HOSTMEM request and DMA end at the record\'s T',
           '\n'.join(bad))


def replays_match(root, recs):
    """Replay each of @recs under each TCG mode: the replays that did not
    end "END matches" with every HOSTMEM request and DMA end at the
    record's T, and how many ran."""
    bad, n = [], 0
    for rec in recs:
        for mode, extra in fw_tests.MODES:
            rc, out, _ = run_replay(root, rec, extra=extra)
            e = end_match(out) or {}
            n += 1
            if not (rc == 0 and e.get('hostmem_other_t') == 0 and
                    e.get('dma_other_t') == 0):
                bad.append(f'{os.path.basename(rec)} {mode}: exit status '
                           f'{rc}: {_line(out, "diverged" if rc else "END")}')
    return bad, n


def doorbells_test(report, root, d):
    """The pair of writelists with a doorbell each, as a library sends
    them: which worker the dispatcher credits for the second doorbell
    used to follow the host (it looked at the SQ's tail, which the first
    worker moves with plain stores), and one replay in twelve of such
    records stopped at END 15 cycles apart (docs/record-replay.md).  Four
    records (two under each mode; their figures follow the host's pace
    and are not compared), made with two host cores kept busy (the race
    shows on a loaded host: the old dispatcher's records failed one
    replay in each of 4 such rounds of 8, none in 24 replays with the
    host idle nor in 16 with one core busy), each replayed under both
    modes: every replay ends "END matches".  Under the sanitizers two
    records, one under each mode (harness.repeats)."""
    from etsoc1test import harness
    recs, t = [], time.monotonic()
    for i, single in enumerate((False, True) * harness.repeats(2)):
        rec = os.path.join(d, f'doorbells{i}.rr')
        with fw_startup.Load(), fw_startup.Load():
            seen = record_overlap(root, rec, single, each=True)
        if 'error' in seen or len(seen.get('figures', [])) != 3:
            report(False, f'rr: a pair of writelists with a doorbell each, '
                          f'record {i}: {seen}')
            return
        recs.append(rec)
    bad, n = replays_match(root, recs)
    report(not bad,
           f'rr: two writelists on SQ0 and SQ1 with a doorbell each, then '
           f'one alone, recorded {len(recs)} times on a loaded host and '
           f'replayed {n} times (under MTTCG and thread=single, '
           f'{time.monotonic() - t:.0f} s in all): {n - len(bad)} end "END '
           f'matches" with every HOSTMEM request and DMA end at the '
           f'record\'s T',
           '\n'.join(bad))


def _lines(out, words):
    return '\n'.join(x for x in out.splitlines()
                     if any(w in x for w in words))[-2000:]


def reset_refused(mode):
    """The reset blocker's message under @mode (record, replay)."""
    return (f'etsoc1: a session under {mode}= cannot be reset (the record '
            f'holds no reset: quit and start again)')


def blocker_test(report, root, d, rec):
    """savevm and migrate during a replay (stopped at its start, -S) are
    refused by the migration blocker: the record would lose its place;
    system_reset (QMP and HMP) by the reset blocker: the record holds no
    reset."""
    from qmp import Qmp
    sock = os.path.join(d, 'qmp.sock')
    p = subprocess.Popen(card_args(root, d, f',replay={rec}') +
                         ['-S', '-qmp', f'unix:{sock},server=on,wait=off'],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    out = ''
    try:
        with Qmp(sock, timeout=fw_tests.wall_bound(30)) as q:
            mig = q.cmd('migrate', uri='exec:cat >/dev/null')
            sv = q.get('human-monitor-command', **{'command-line':
                                                   'savevm rr-test'})
            reset = q.cmd('system_reset')
            hmp_reset = q.get('human-monitor-command',
                              **{'command-line': 'system_reset'})
            q.cmd('quit')
        out = p.communicate(timeout=fw_tests.wall_bound(30))[0]
    except (OSError, subprocess.TimeoutExpired) as e:
        p.kill()
        out = p.communicate()[0]
        mig, sv = {'error': str(e)}, ''
        reset, hmp_reset = mig, ''
    want = 'cannot be saved or migrated'
    report(want in str(mig.get('error', {}).get('desc', '')) and
           want in str(sv),
           f'rr: migrate and savevm during a replay are refused: '
           f'"{mig.get("error", {}).get("desc", mig)}"; savevm: '
           f'"{str(sv).strip()[:120]}"', out[-1500:])
    desc = str(reset.get('error', {}).get('desc', reset))
    report(reset_refused('replay') in desc and
           reset_refused('replay') in str(hmp_reset),
           f'rr: system_reset during a replay is refused (QMP: "{desc}"; '
           f'HMP: "{str(hmp_reset).strip()[:120]}")', out[-1500:])


def _line(out, word):
    for line in out.splitlines():
        if word in line:
            return line.strip()[:200]
    return ''


def refused(report, root, d, name, path, want, machine_extra='', extra=(),
            bios=FW):
    """QEMU refuses at start: exit status 1, @want in its one message."""
    rc, out, wall = run_replay(root, path, extra, machine_extra, timeout=60,
                               bios=bios) if path else (None, '', 0)
    if path is None:
        p = subprocess.run(card_args(root, d, machine_extra, bios) +
                           list(extra), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=fw_tests.wall_bound(60))
        rc, out = p.returncode, p.stdout + p.stderr
    ok = rc == 1 and re.search(want, out) is not None and \
        'Aborted' not in out and 'core dumped' not in out
    report(ok, f'rr: {name}: refused with exit status {rc} (1): '
           f'"{_line(out, "etsoc1") or out.strip()[:200]}"', out[-1500:])
    return ok


def bad_input_tests(report, root, d, rec):
    data = open(rec, 'rb').read()
    rnd = random.Random(29)
    bad = os.path.join(d, 'bad.rr')

    # truncated at random offsets: a clear message, never a crash
    fails = []
    offsets = sorted(rnd.randrange(1, len(data)) for _ in range(20))
    for off in offsets:
        open(bad, 'wb').write(data[:off])
        rc, out, _ = run_replay(root, bad, timeout=60)
        if rc != 1 or not re.search(r'truncated', out):
            fails.append(f'cut at {off}: exit {rc}: {out.strip()[-300:]}')
    report(not fails, f'rr: the record cut at {len(offsets)} random offsets '
           f'({offsets[0]}..{offsets[-1]} of {len(data)}): each refused '
           f'with "truncated" and exit status 1', '\n'.join(fails))

    # random byte flips: a checksum (or the header's) names the change
    fails = []
    flips = sorted(rnd.randrange(0, len(data)) for _ in range(20))
    for off in flips:
        b = bytearray(data)
        b[off] ^= 1 << rnd.randrange(8)
        open(bad, 'wb').write(b)
        rc, out, _ = run_replay(root, bad, timeout=60)
        if rc != 1 or not re.search(r'checksum|not a record file|changed|'
                                    r'truncated', out):
            fails.append(f'flip at {off}: exit {rc}: {out.strip()[-300:]}')
    report(not fails, f'rr: {len(flips)} random bit flips ({flips[0]}..'
           f'{flips[-1]}): each refused with exit status 1 naming the '
           f'checksum', '\n'.join(fails))
    # the message names the event
    b = bytearray(data)
    _, _, events = rrdump.parse(data)
    mid = events[len(events) // 2]
    b[mid['off'] + rrdump.EV.size] ^= 0x40 if mid['payload'] else 0
    b[mid['off'] + 16] ^= 0x01      # its T
    open(bad, 'wb').write(b)
    refused(report, root, d, f'event {len(events) // 2} edited', bad,
            rf'event {len(events) // 2} \({mid["kind"]}, T=\d+\) fails its '
            r'checksum: the file was changed')

    # another build (header edited, checksums fixed)
    text_len = struct.unpack_from('<I', data, 12)[0]
    text = data[16:16 + text_len].decode()
    other = re.sub(r'^build=([0-9a-f]{64})$',
                   lambda m: 'build=' + '0' * 64, text, flags=re.M)
    b = bytearray(data[:16] + other.encode() + data[16 + text_len:])
    open(bad, 'wb').write(rrdump.rechain(b))
    refused(report, root, d, 'a record from another build', bad,
            r'was recorded by build 0{64}; this QEMU is build [0-9a-f]{64}')

    # another configuration
    refused(report, root, d, 'a replay with shires=34', rec,
            r'machine\.shires=33 in the record, 34 here',
            machine_extra=',shires=34', extra=['-smp', '2177'])
    refused(report, root, d, 'a replay with clock-mhz=500', rec,
            r'machine\.clock-mhz=\d+ in the record, 500 here',
            machine_extra=',clock-mhz=500')
    refused(report, root, d, 'a replay with -global etsoc1-edma.step-bytes',
            rec, r'dev\.etsoc1-edma\.step-bytes=65536 \(0x10000\) in the '
            r'record, 32768 \(0x8000\) here',
            extra=['-global', 'etsoc1-edma.step-bytes=32768'])
    other_bios = os.path.join(root, 'guest', 'etsoc1-fw.elf')
    refused(report, root, d, 'a replay with another -bios', rec,
            r'image\.bios sha256 [0-9a-f]{64} in the record .*, '
            r'[0-9a-f]{64} here \(.*etsoc1-fw\.elf\)',
            extra=['-bios', other_bios])

    # command lines
    refused(report, root, d, 'record= with replay=', None,
            r'record= and replay= together',
            machine_extra=f',record={bad},replay={rec}')
    refused(report, root, d, 'replay= with hostlink=', rec,
            r'replay= .* takes no hostlink=', machine_extra=',hostlink=hl',
            extra=['-chardev', f'socket,id=hl,path={d}/hl.sock,server=on,'
                   'wait=off'])
    refused(report, root, d, 'record= without hostlink=', None,
            r'record= records a host session: it needs hostlink=',
            machine_extra=f',record={bad}')
    refused(report, root, d, 'replay= with poll-halt=off', rec,
            r'need poll-halt=on', machine_extra=',poll-halt=off')


if __name__ == '__main__':
    root = sys.argv[1] if len(sys.argv) > 1 else None
    n = [0, 0]

    def tap(ok, name, diag=None):
        n[0 if ok else 1] += 1
        print(f'{"ok" if ok else "not ok"} {sum(n)} - {name}')
        if not ok and diag:
            print('\n'.join('# ' + x for x in str(diag).splitlines()))
        sys.stdout.flush()

    rr_tests(tap, root)
    print(f'{n[0]} passed, {n[1]} failed')
    sys.exit(1 if n[1] else 0)
