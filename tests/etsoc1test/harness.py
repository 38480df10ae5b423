# SPDX-License-Identifier: GPL-2.0-or-later
"""The harness the test groups share: where QEMU and the guest code are,
running a process with a timeout, TAP out (report, relay_tap), a guest
run with its checks, a refused command line, a gdb remote client, the
sanitizer reports, and main() for tests/run.py and each group run alone
(docs/testing.md).  BUILD_ROOT is the first argument."""

import os
import re
import subprocess
import sys
import time

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TESTS)
sys.path.insert(0, os.path.join(TESTS, 'fuzz'))
import timing_ref  # noqa: E402,F401  (a module's r.timing_ref)
from qmp import connect_unix  # noqa: E402

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(TESTS, '..', 'build'))
QEMU_BUILD = os.path.abspath(os.environ.get('ETSOC1_QEMU_BUILD') or
                             os.path.join(ROOT, 'qemu-build'))
QEMU = os.path.join(QEMU_BUILD, 'qemu-system-riscv64')
GUEST = os.path.join(ROOT, 'guest')
QTEST_DIR = os.path.join(QEMU_BUILD, 'tests', 'qtest')
if os.environ.get('ETSOC1_QEMU_BUILD'):
    # the modules and host programs that find QEMU themselves
    os.environ['ETSOC1_QEMU'] = QEMU
# glibc's heap on transparent huge pages for every QEMU the tests start, as
# libetsoc1-host and `make demo` start theirs (docs/architecture.md,
# "Thousands of vCPUs": a full chip starts in about two thirds of the time).
# A GLIBC_TUNABLES of the caller's is kept, and one that names the tunable
# (glibc.malloc.hugetlb=0 turns it off) is left as it is.
HUGE_HEAP = 'glibc.malloc.hugetlb=1'
_tun = os.environ.get('GLIBC_TUNABLES')
if not _tun:
    os.environ['GLIBC_TUNABLES'] = HUGE_HEAP
elif 'glibc.malloc.hugetlb' not in _tun:
    os.environ['GLIBC_TUNABLES'] = _tun + ':' + HUGE_HEAP

counts = {'passed': 0, 'failed': 0}

# A fixed CPU loop took this long (best of five) on the machine the
# wall-time bounds of the tests were set on (2 cores, 2026-12-05).
SPEED_REF_S = 0.08


def _slowdown():
    """How much slower than that machine this one is, never below 1:
    ETSOC1_TEST_SLOWDOWN, or the best of five runs of the loop against
    SPEED_REF_S.  Wall-time bounds are multiplied by it (docs/testing.md)."""
    env = os.environ.get('ETSOC1_TEST_SLOWDOWN')
    if env:
        try:
            return max(1.0, float(env))
        except ValueError:
            sys.exit(f'ETSOC1_TEST_SLOWDOWN={env!r}: not a number')
    best = None
    for _ in range(5):
        start, x = time.perf_counter(), 0
        for i in range(2_000_000):
            x ^= i
        t = time.perf_counter() - start
        best = t if best is None else min(best, t)
    return max(1.0, best / SPEED_REF_S)


SLOWDOWN = _slowdown()
# Under the sanitizers QEMU runs about three times slower: bounds on how
# fast it is (max_wall) are three times as wide there.
SANITIZED = bool(os.environ.get('ETSOC1_SAN_LOGS'))


def wall_bound(seconds):
    """A bound on how fast QEMU is, for this machine and build."""
    return round(seconds * SLOWDOWN * (3 if SANITIZED else 1), 2)


def repeats(n):
    """How many times a test repeats a run that shows a figure is the
    same every time (determinism, which the plain suite checks): @n on
    the plain build, once under the sanitizers, which look for memory
    and UB errors on the paths the first run already takes."""
    return 1 if SANITIZED else n


def report(ok, name, diag=None):
    counts['passed' if ok else 'failed'] += 1
    n = counts['passed'] + counts['failed']
    print(f"{'ok' if ok else 'not ok'} {n} - {name}", flush=True)
    if not ok and diag:
        for line in diag.strip().splitlines()[-25:]:
            print(f"#   {line}")


TAP_LINE = re.compile(r'^(not ok|ok)\s+\d+\s*(?:-\s*)?(.*)$')


def relay_tap(prefix, text):
    """Report each TAP result line of @text (named @prefix: its text, or its
    text alone without @prefix); return how many there were.  A failure's
    diagnosis is the '#   ' lines that follow it, as report() prints
    them, else the whole of @text."""
    lines = text.splitlines()
    seen = 0
    for i, line in enumerate(lines):
        m = TAP_LINE.match(line.strip())
        if not m:
            continue
        seen += 1
        diag = []
        for follow in lines[i + 1:]:
            if not follow.startswith('#   '):
                break
            diag.append(follow[4:])
        report(m.group(1) == 'ok',
               f'{prefix}: {m.group(2)}' if prefix else m.group(2),
               '\n'.join(diag) or text)
    return seen


def run(cmd, timeout, env=None):
    """Run @cmd; its @timeout (s) is scaled by SLOWDOWN."""
    timeout = timeout * SLOWDOWN if timeout else timeout
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=timeout, env=env,
                           text=True, errors='replace')
        return p.returncode, p.stdout, time.monotonic() - start
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors='replace') if isinstance(e.stdout, bytes) else (e.stdout or '')
        return None, out + f'\n(timed out after {timeout} s)', time.monotonic() - start


# MTTCG on a pool of two vCPU threads (qemu-patches/0020; the machine's
# default is a pool of one per host CPU), and on a thread per hart
POOL = 'vcpu-threads=2'
PER_HART = 'vcpu-threads=0'


def accel_label(accel):
    """How a test names the TCG mode of its -accel tcg,@accel."""
    return accel or 'mttcg pool'


def default_accel_args(args):
    """What a QEMU command line @args with no -accel of its own adds: a
    pool of N vCPU threads with ETSOC1_TEST_VCPU_THREADS=N
    (docs/testing.md), else nothing (the machine's default)."""
    n = os.environ.get('ETSOC1_TEST_VCPU_THREADS')
    return ['-accel', f'tcg,vcpu-threads={n}'] if n and '-accel' not in args \
        else []


def qemu_cmd(kernel, shires=1, accel='', loader='-kernel', machine='',
             extra=()):
    cmd = [QEMU, '-M', f'etsoc1,shires={shires}{machine}', '-smp', str(64 * shires),
           '-display', 'none', '-serial', 'stdio', '-monitor', 'none',
           loader, os.path.join(GUEST, kernel + '.elf')] + list(extra)
    return cmd + (['-accel', f'tcg,{accel}'] if accel
                  else default_accel_args(cmd))


def guest(name, kernel, shires=1, accel='', expect_status=0, expect=(),
          timeout=120, max_wall=None, loader='-kernel', extra=(), machine=''):
    """Run @kernel; pass if the exit status and every @expect regex match,
    within @max_wall seconds if given (scaled by SLOWDOWN, and by 3 under
    the sanitizers)."""
    if max_wall is not None:
        max_wall = wall_bound(max_wall)
    rc, out, wall = run(qemu_cmd(kernel, shires, accel, loader, machine,
                                 extra=extra), timeout)
    label = f'guest {name} ({shires} shire(s), {accel_label(accel)})'
    relay_tap(label, out)
    problems = []
    if rc != expect_status:
        problems.append(f'exit status {rc}, want {expect_status}')
    for pattern in expect:
        if not re.search(pattern, out, re.M):
            problems.append(f'no output matching {pattern!r}')
    if max_wall is not None and wall > max_wall:
        problems.append(f'took {wall:.1f} s, limit {max_wall} s')
    report(not problems, f'{label}: {"; ".join(problems) or f"{wall:.2f} s"}',
           out)
    return out


def refused(name, args, pattern, max_wall=None):
    """@args must make QEMU exit non-zero with a message matching
    @pattern, within @max_wall seconds if given (scaled by SLOWDOWN, and
    by 3 under the sanitizers)."""
    rc, out, wall = run([QEMU, '-display', 'none', '-S'] + args, 30)
    ok = rc not in (0, None) and re.search(pattern, out) is not None
    name = f'cli: {name} is refused with a message'
    if max_wall is not None:
        max_wall = wall_bound(max_wall)
        ok = ok and wall <= max_wall
        name += f' within {max_wall} s ({wall:.2f} s)'
    report(ok, name, out)


class Gdb:
    """Just enough of the gdb remote protocol to read and write registers."""

    def __init__(self, path):
        self.sock = connect_unix(path, 20)
        self.buf = b''

    def _read_packet(self):
        while True:
            start = self.buf.find(b'$')
            end = self.buf.find(b'#', start + 1) if start >= 0 else -1
            if start >= 0 and end >= 0 and len(self.buf) >= end + 3:
                data = self.buf[start + 1:end]
                self.buf = self.buf[end + 3:]
                self.sock.sendall(b'+')
                return data.decode()
            chunk = self.sock.recv(65536)
            if not chunk:
                raise OSError('gdbstub closed the connection')
            self.buf += chunk

    def cmd(self, text):
        data = text.encode()
        self.sock.sendall(b'$%s#%02x' % (data, sum(data) & 0xff))
        return self._read_packet()


SAN_REPORT = re.compile(r'ERROR: (Address|Leak)Sanitizer|runtime error:')


def sanitizer_reports(logs):
    """One failure per file in @logs holding a sanitizer report (from any
    process, also one whose exit status a test expected to be non-zero),
    else one pass.  ASan's start-up warning about QEMU's coroutines alone
    is no report."""
    files = sorted(os.listdir(logs)) if os.path.isdir(logs) else []
    bad = 0
    for name in files:
        text = open(os.path.join(logs, name), errors='replace').read()
        if SAN_REPORT.search(text):
            bad += 1
            report(False, f'sanitizer report in {logs}/{name}', text)
    if not bad:
        report(True, f'no sanitizer report ({len(files)} log files in '
               f'{logs})')


def finish():
    """The plan and the final line, "N passed, N failed" (a TAP comment
    under meson test, ETSOC1_TAP_ONLY); the exit status."""
    print(f'1..{sum(counts.values())}')
    print(f"{'# ' if os.environ.get('ETSOC1_TAP_ONLY') else ''}"
          f"{counts['passed']} passed, {counts['failed']} failed")
    return 1 if counts['failed'] else 0


def meson_sum(logs, san_logs=None):
    """run.py --meson-sum LOG.json... [--san-logs DIR] (make check): the TAP
    of every test of the meson runs whose JSON logs are @logs, numbered
    anew, a failure for each test meson did not see pass (a timeout, a
    crash before its plan), the sanitizer reports of @san_logs, and one
    final line for all."""
    import json
    for path in logs:
        entries = [json.loads(x) for x in open(path)] \
            if os.path.exists(path) else []
        if not entries:
            report(False, f'{path}: no test ran')
        for t in entries:
            name = t['name'].split(' / ')[-1]
            out = t.get('stdout', '')
            relay_tap(None, out)
            if t['result'] not in ('OK', 'EXPECTEDFAIL', 'SKIP') and \
                    not re.search(r'^not ok', out, re.M):
                report(False, f'{name}: {t["result"]} after '
                       f'{t["duration"]:.0f} s', out[-3000:] +
                       t.get('stderr', '')[-2000:])
    if san_logs:
        sanitizer_reports(san_logs)
    return finish()


def main(groups):
    """BUILD [GROUP...]: every group of @groups, or the ones named."""
    if not os.access(QEMU, os.X_OK):
        print(f'Bail out! {QEMU} is not built', flush=True)
        return 1
    for name in sys.argv[2:] or groups:
        groups[name]()
    # under meson the reports are counted once, for every group (meson_sum)
    if os.environ.get('ETSOC1_SAN_LOGS') and \
            not os.environ.get('ETSOC1_TAP_ONLY'):
        sanitizer_reports(os.environ['ETSOC1_SAN_LOGS'])
    return finish()
