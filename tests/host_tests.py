# SPDX-License-Identifier: GPL-2.0-or-later
"""The host library's test programs (docs/host-library.md), for run.py.

Both are native programs built by the meson project (build/guest); this
runs them and relays their TAP:
  * etsoc1-host-libtest: the library against QEMU under qtest (the test
    plays the firmware) and a fake card; needs only QEMU;
  * etsoc1-host-test: the card with the firmware stubs, driven like
    Esperanto's device layer; needs the firmware and kernel ELFs.
"""

import itertools
import os
import queue
import re
import signal
import subprocess
import threading
import time

import trace_tests

FIRMWARE = ('etsoc1-sp.elf', 'etsoc1-fw.elf', 'vecadd.elf', 'hang.elf',
            'exception.elf', 'kerror.elf')


def host_tests(r=None):
    """The host group.  @r: the harness (QEMU, GUEST, run, relay_tap,
    report, wall_bound), by default tests/etsoc1test/harness.py."""
    if r is None:
        from etsoc1test import harness as r
    env = dict(os.environ, ETSOC1_QEMU=r.QEMU, ETSOC1_GUEST_DIR=r.GUEST)
    for name, timeout, needs in (('etsoc1-host-libtest', 300, ()),
                                 ('etsoc1-host-test', 1200, FIRMWARE)):
        exe = os.path.join(r.GUEST, name)
        missing = [f for f in needs
                   if not os.path.exists(os.path.join(r.GUEST, f))]
        if not os.access(exe, os.X_OK):
            r.report(False, f'host {name}: not built ({exe})')
            continue
        if missing:
            r.report(False, f'host {name}: skipped, firmware missing: '
                     f'{" ".join(missing)}')
            continue
        rc, out, secs = r.run([exe], timeout, env)
        if r.relay_tap(f'host {name}', out) == 0 or rc != 0:
            r.report(False, f'host {name} exited {rc} after {secs:.0f} s',
                     out)
    if all(os.path.exists(os.path.join(r.GUEST, f)) for f in FIRMWARE):
        demo_determinism(r)
        trace_tests.dma_trace_test(r)
        # the card's QEMU runs with glibc's heap on huge pages, a caller's
        # own GLIBC_TUNABLES kept (host/src/start.c, qemu_environ)
        mine = 'glibc.malloc.perturb=0'
        for what, tun, want in (
                ('dma', mine, mine + ':glibc.malloc.hugetlb=1'),
                ('kernel', None, 'glibc.malloc.hugetlb=1')):
            e = {k: v for k, v in env.items() if k != 'GLIBC_TUNABLES'}
            if tun:
                e['GLIBC_TUNABLES'] = tun
            orphan_test(r, 'host', [os.path.join(r.GUEST, 'etsoc1-host-test'),
                                    '--orphan', what], e, tunables=want)


def _children(pid):
    """Child pids of @pid (every thread's)."""
    kids = []
    try:
        for tid in os.listdir(f'/proc/{pid}/task'):
            with open(f'/proc/{pid}/task/{tid}/children') as f:
                kids += [int(k) for k in f.read().split()]
    except OSError:
        pass
    return kids


def _alive(pid):
    """Running, not a zombie (an orphan's reaper may not reap at once)."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


def _tunables(pid):
    """@pid's GLIBC_TUNABLES, None if unset or gone.  The dynamic loader
    ends each tunable's value in place with a NUL where its ':' was, so
    /proc shows the tunables after the first as entries of their own."""
    try:
        with open(f'/proc/{pid}/environ', 'rb') as f:
            env = f.read().decode(errors='replace').split('\0')
    except OSError:
        return None
    for i, var in enumerate(env):
        if var.startswith('GLIBC_TUNABLES='):
            parts = [var.split('=', 1)[1]]
            parts += itertools.takewhile(lambda v: v.startswith('glibc.'),
                                         env[i + 1:])
            return ':'.join(parts)
    return None


def orphan_test(r, label, argv, env, cwd=None, bound=3.0, tunables=None):
    """Run @argv (a host program that starts a card, leaves it busy and
    prints '# orphan: ...'), SIGKILL it, and check that its QEMU is gone
    within @bound seconds (docs/host-library.md, no orphan cards); with
    @tunables, that QEMU's GLIBC_TUNABLES was that."""
    what = argv[-1]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env,
                            cwd=cwd, start_new_session=True)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout],
                     daemon=True).start()
    out, busy, qemu = '', None, []
    end = time.monotonic() + 600
    while time.monotonic() < end and proc.poll() is None:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        out += line
        if line.startswith('# orphan:'):
            busy = line.strip()
            break
    seen = None
    if busy:
        qemu = _children(proc.pid)
        seen = [_tunables(q) for q in qemu]
        time.sleep(0.3)
    proc.kill()
    t = time.monotonic()
    proc.wait()
    while any(_alive(q) for q in qemu) and time.monotonic() - t < 30:
        time.sleep(0.01)
    secs = time.monotonic() - t
    # the kernel's teardown of 2,177 threads: 50-1,205 ms on a slow
    # 2-core VM whose Python loop (the harness's speed factor) is as
    # fast as the reference machine's, 60-100 ms there
    bound = r.wall_bound(bound)
    left = [q for q in qemu if _alive(q)]
    for q in left:
        os.kill(q, signal.SIGKILL)
    r.report(busy is not None and len(qemu) == 1 and not left and
             secs < bound,
             f'{label}: SIGKILL of the host in the middle of a {what}: its '
             f'QEMU is gone {secs * 1000:.0f} ms later (bound '
             f'{bound * 1000:.0f} ms)', out + f'\nQEMU pids {qemu}, left '
             f'{left}')
    if tunables is not None:
        r.report(seen == [tunables],
                 f'{label}: the card\'s QEMU runs with GLIBC_TUNABLES='
                 f'{tunables} (caller\'s: {env.get("GLIBC_TUNABLES")}); '
                 f'seen {seen}', out)


def demo_determinism(r):
    """make demo's card part twice: the card's own times must be equal."""
    env = dict(os.environ, ETSOC1_QEMU=r.QEMU, ETSOC1_GUEST_DIR=r.GUEST)
    exe = os.path.join(r.GUEST, 'etsoc1-host-test')
    runs = []
    for _ in range(2):
        rc, out, _ = r.run([exe, '--demo'], 300, env)
        cycles = re.findall(r'^  (.+?)\s+(\d+) cycles', out, re.M)
        runs.append((rc, cycles, out))
    (rc0, c0, out0), (rc1, c1, _) = runs
    r.report(rc0 == 0 and rc1 == 0 and len(c0) == 3 and c0 == c1,
             f'host: the demo twice gives the same emulated cycles '
             f'({", ".join(f"{w}: {n}" for w, n in c0)})', out0)
