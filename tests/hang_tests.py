# SPDX-License-Identifier: GPL-2.0-or-later
"""The hang report and the idle state (docs/fabric.md, "Hang report").

* The naive 2D array (one shire, handshake=rtl) hangs on a lost ready in
  every run; the report must name it, with the lost ready, in every run,
  the same ready in each, under MTTCG and single-threaded TCG, with the
  host idle and with a second process keeping one host CPU busy.
  naive2d-spin is the case the old detector missed: the cells that finish
  spin on flags in memory, so harts keep running beside the hung ones.
* fabric/hangrun: a lost ready, a cycle of sends and a stopped partner
  are named while other harts loop, poll and wait for a credit; those
  are not part of the hang.
* A normal finish is never a deadlock: harts parked in wfi (tests/park)
  are idle, on-deadlock=exit leaves them alone, on-idle=exit ends the
  run with status 0; harts that pass validation0 end it with status 0.

bench/hang runs the repeated groups with more runs.
"""

import os
import re
import subprocess
import sys
import tempfile
import time

from qmp import Qmp

LOST = re.compile(r'lost ready: minion (\d+) took a ready from minion (\d+), '
                  r'then the ready from minion (\d+) was lost')
HEADER = re.compile(r'^etsoc1: deadlock: (no hart can make progress|'
                    r'(\d+) waiting harts? can never be woken)', re.M)
# each hart's line ends with its clock (which stands still in its wait)
NAMED = re.compile(r'^  hart (\d+) \(shire (\d+) minion (\d+) thread (\d+)\) '
                   r'waits on (\S+)(?: (?:to|from) minion (\d+)(?:: (.*?))?)? '
                   r'\(clock \d+\)$', re.M)
IDLE = 'etsoc1: idle: every hart waits for an interrupt or has stopped'


def grid_partners(m):
    """East and south neighbours of cell @m of a shire's 4 x 8 grid."""
    return {m + 1, m + 8}


def naive2d_named(rc, out):
    """Problems with a naive2d run under on-deadlock=exit, or []."""
    problems = []
    if rc != 3:
        problems.append(f'exit status {rc}, want 3')
    if not HEADER.search(out):
        problems.append('no deadlock header')
    lost = LOST.findall(out)
    if not lost:
        problems.append('no lost ready named')
    elif not all({int(a), int(b)} == grid_partners(int(m)) for m, a, b in lost):
        problems.append(f'lost readies {lost} are not east/south partners')
    # the minion that lost a ready waits on its send, for the ready
    lost_at = {int(m) for m, _, _ in lost}
    if not any(w == 'tensor-send' and int(m) in lost_at and 'ready bit' in why
               for _, _, m, _, w, _, why in NAMED.findall(out)):
        problems.append('the minion that lost a ready is not named')
    return problems


class HostLoad:
    """A second process that keeps one host CPU busy."""

    def __enter__(self):
        self.proc = subprocess.Popen([sys.executable, '-c', 'while True: pass'])
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()


def repeated(run, kernel, accel, loaded, runs, report=True):
    """Run @kernel @runs times; return (named, runs, max wall, failures).
    Each run must hang and be named with its lost ready, and every run
    must lose the same ready: the ready bit sees its readies in the
    model's time order (docs/fabric.md), not the host's."""
    named, worst, bad, seen = 0, 0.0, [], set()
    cmd = run.qemu_cmd(kernel, 1, accel,
                       machine=',handshake=rtl,on-deadlock=exit')

    def once():
        nonlocal named, worst
        for _ in range(runs):
            rc, out, wall = run.run(cmd, 30)
            worst = max(worst, wall)
            problems = naive2d_named(rc, out)
            if problems:
                bad.append('; '.join(problems) + '\n' + out[-1500:])
            else:
                named += 1
                seen.add(tuple(sorted(LOST.findall(out))))

    if loaded:
        with HostLoad():
            once()
    else:
        once()
    if len(seen) > 1:
        bad.append(f'runs lost different readies: {sorted(seen)}')
    if report:
        mode = run.accel_label(accel)
        host = 'host loaded' if loaded else 'host idle'
        lost = ', '.join(f'minion {m} lost {c}\'s ready'
                         for m, _, c in next(iter(seen), ()))
        run.report(named == runs and len(seen) == 1,
                   f'hang: {kernel} (1 shire, rtl) named with its lost ready '
                   f'in {named}/{runs} runs, the same in each ({lost}; {mode}, '
                   f'{host}; slowest run to the report {worst:.2f} s)',
                   '\n'.join(bad[:2]))
    return named, runs, worst, bad


def hangrun_test(run, accel):
    """Hung harts named while other harts run, poll and wait for a credit."""
    # The hangs form at different times (under single-threaded TCG a
    # spinning hart holds the one thread for its time slice): the first
    # report names what has hung, "deadlock grows" lines the rest.
    rc, out, wall = run.run(run.qemu_cmd('hangrun', 1, accel), 4)
    named = {int(h): (w, p, why) for h, _, _, _, w, p, why
             in NAMED.findall(out)}
    want = {0: ('tensor-send', '2', 'ready bit'),
            4: ('tensor-recv', '0', 'ready bit'),
            8: ('tensor-send', '5', 'cycle'),
            10: ('tensor-send', '6', 'cycle'),
            12: ('tensor-send', '4', 'cycle'),
            16: ('tensor-recv', '9', 'has stopped')}
    problems = []
    if rc is not None:
        problems.append(f'exit status {rc}, want QEMU to stay up')
    if not HEADER.search(out):
        problems.append('no deadlock header')
    if 'hangrun: minion 1 went on' not in out:
        problems.append('minion 1 did not complete')
    for h, (w, p, why) in want.items():
        got = named.get(h)
        if not got or got[0] != w or got[1] != p or why not in got[2]:
            problems.append(f'hart {h}: {got}, want {w} {p} ({why})')
    extra = set(named) - set(want)
    if extra:
        problems.append(f'harts {sorted(extra)} named, but they could still '
                        f'be woken')
    lost = LOST.findall(out)
    if [(int(a), {int(b), int(c)}) for a, b, c in lost] != [(0, {1, 2})]:
        problems.append(f'lost readies {lost}, want minion 0 from 1 and 2')
    run.report(not problems, f'hang: lost ready, send cycle and stopped '
               f'partner named while other harts loop, poll and wait for a '
               f'credit ({run.accel_label(accel)})',
               '; '.join(problems) + '\n' + out)


def frozen_test(run, accel):
    """Nothing can run: the credit waiter joins the deadlock."""
    rc, out, wall = run.run(run.qemu_cmd('hangrun-frozen', 1, accel,
                                         machine=',on-deadlock=exit'), 30)
    named = {int(h): w for h, _, _, _, w, _, _ in NAMED.findall(out)}
    m = HEADER.search(out)
    ok = (rc == 3 and m and m.group(1) == 'no hart can make progress' and
          named.get(22) == 'fcc0-credit' and
          {0, 4, 8, 10, 12, 16} <= set(named) and
          [int(x) for x, _, _ in LOST.findall(out)] == [0])
    run.report(ok, f'hang: nothing can run: the credit waiter is part of the '
               f'deadlock, "no hart can make progress" ({run.accel_label(accel)}, '
               f'{wall:.2f} s)', out)


def qom_deadlock(run, kernel, machine='', until=None, timeout=10, shires=1,
                 settle=0):
    """Poll qom-get /machine deadlock until @until(answer), wait @settle
    seconds more (for the text report), quit: (answer, QEMU's output)."""
    with tempfile.TemporaryDirectory() as tmp:
        sock = os.path.join(tmp, 'qmp')
        cmd = run.qemu_cmd(kernel, shires, machine=machine) + \
            ['-qmp', f'unix:{sock},server=on,wait=off']
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        answer = None
        try:
            with Qmp(sock) as qmp:
                deadline = time.monotonic() + timeout
                while time.monotonic() < deadline:
                    answer = qmp.get('qom-get', path='/machine',
                                     property='deadlock')
                    if answer and until(answer):
                        time.sleep(settle)
                        break
                    time.sleep(0.1)
                qmp.cmd('quit')
        except (OSError, ValueError) as e:
            answer = {'error': str(e)}
        try:
            out = proc.communicate(timeout=10)[0].decode(errors='replace')
        except subprocess.TimeoutExpired:
            proc.kill()
            out = proc.communicate()[0].decode(errors='replace')
        return answer, out


def qom_tests(run):
    # the query answers as of now: wait until every hang has formed
    answer, out = qom_deadlock(
        run, 'hangrun',
        until=lambda a: sum(w['hung'] for w in a.get('waiting', [])) >= 6)
    try:
        hung = {w['hartid'] for w in answer['waiting'] if w['hung']}
        credit = [w for w in answer['waiting'] if w['hartid'] == 22]
        why = {w['hartid']: w.get('why') for w in answer['waiting']}
        ok = (answer['state'] == 'deadlocked' and
              hung == {0, 4, 8, 10, 12, 16} and
              credit and credit[0]['wait'] == 'fcc0-credit' and
              not credit[0]['hung'] and
              all(isinstance(w['clock'], int) and w['clock'] > 0
                  for w in answer['waiting']) and
              why[0] == 'ready-gone' and why[8] == 'cycle' and
              why[16] == 'partner-stopped' and
              {(t['minion'], t['op'], t['partner'])
               for t in answer['stuck-transfers']} >=
              {(0, 'send', 2), (4, 'send', 5), (8, 'recv', 9)} and
              [(e['minion'], {e['ready-from'], e['lost-from']})
               for e in answer['lost-readies']] == [(0, {1, 2})])
    except (KeyError, TypeError, IndexError):
        ok = False
    run.report(ok, 'hang: qom-get deadlock: state "deadlocked", hung harts '
               'flagged with why, the credit waiter not hung, each with its '
               'clock, stuck transfers, lost ready', f'{answer}\n{out}')
    answer, out = qom_deadlock(run, 'park',
                               until=lambda a: a.get('state') == 'idle')
    ok = (isinstance(answer, dict) and answer.get('state') == 'idle' and
          answer.get('deadlocked') is False and
          not any(w['hung'] for w in answer.get('waiting', [{}])))
    run.report(ok, 'hang: qom-get deadlock of harts parked in wfi: state '
               '"idle", deadlocked false', f'{answer}\n{out}')


def idle_tests(run):
    for accel in ('', 'thread=single'):
        mode = run.accel_label(accel)
        rc, out, _ = run.run(run.qemu_cmd('park', 1, accel,
                                          machine=',on-deadlock=exit'), 3)
        ok = (rc is None and 'park: every hart parks' in out and
              out.count(IDLE) == 1 and 'deadlock' not in out)
        run.report(ok, f'hang: harts parked in wfi are idle (one line), '
                   f'on-deadlock=exit leaves the run alone ({mode})', out)
        rc, out, wall = run.run(run.qemu_cmd('park', 1, accel,
                                             machine=',on-idle=exit'), 30)
        ok = rc == 0 and IDLE in out and 'deadlock' not in out
        run.report(ok, f'hang: on-idle=exit ends a parked run with status 0 '
                   f'({mode}, {wall:.2f} s)', out)
        rc, out, _ = run.run(run.qemu_cmd('park-half', 1, accel,
                                          machine=',on-deadlock=exit,'
                                                  'on-idle=exit'), 30)
        ok = rc == 0 and IDLE in out and 'deadlock' not in out
        run.report(ok, f'hang: half the harts stopped, half in wfi: idle, '
                   f'not deadlocked ({mode})', out)
        rc, out, _ = run.run(run.qemu_cmd('park', 1, accel,
                                          machine=',on-idle=ignore'), 2)
        run.report(rc is None and IDLE not in out,
                   f'hang: on-idle=ignore says nothing ({mode})', out)
        rc, out, _ = run.run(run.qemu_cmd('hello', 1, accel,
                                          machine=',on-deadlock=exit'), 30)
        run.report(rc == 0 and 'deadlock' not in out and IDLE not in out,
                   f'hang: a run that passes validation0 ends with status 0 '
                   f'under on-deadlock=exit ({mode})', out)


def hang_tests(run=None, runs=20, spin_runs=5):
    """The hang group.  @run: the harness (qemu_cmd, run, report), by
    default tests/etsoc1test/harness.py, as for every group of run.py."""
    if run is None:
        from etsoc1test import harness as run
    for accel in ('', 'thread=single'):
        for loaded in (False, True):
            repeated(run, 'naive2d', accel, loaded, runs)
            repeated(run, 'naive2d-spin', accel, loaded, spin_runs)
        hangrun_test(run, accel)
        frozen_test(run, accel)
    qom_tests(run)
    idle_tests(run)
