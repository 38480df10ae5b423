#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seeded migration-stream fuzzer.

A round trip first: pingpong (guest-kernels/tests/pingpong.c, built here
with more rounds so that it runs for seconds) on -M etsoc1,shires=2 is
stopped mid-flight, its harts halted in credit waits, at a time the seed
picks, migrated to a file (QMP stop, migrate exec:) and loaded back into a
new QEMU (-incoming), which must finish it with the output and exit
status of a run without migration.  Then the seed alone decides
corrupted copies of that stream: bytes flipped, ranges zeroed or set to
0xff, bytes inserted or deleted, section headers (id, name, instance,
version) damaged, garbage appended, or the stream cut short; two thirds
of them aimed at the device sections after the RAM (and a few at the
JSON description QEMU appends after the state).  Each is loaded into
a new QEMU.  Checks: QEMU never dies of a signal or an assertion and
never hangs (QMP answers within a bound); a stream cut before the end
of its state is refused (exit status 1 and a message); a damaged one is refused the same way or loads,
and then runs and quits on QMP with status 0.  A failing seed is printed
with its replay:

    tests/fuzz/migrate_fuzz.py [--build BUILD] [--seed S] [--count N]
                               [--runs R]

(N corrupted streams per seed, R seeds from S; docs/robustness.md).
"""

import collections
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import fuzz_seeds
from fuzz_seeds import each_seed

HERE = os.path.dirname(os.path.abspath(__file__))
PROJ = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from qmp import Qmp  # noqa: E402

ROUNDS = 100000             # pingpong's credit round trips: seconds of run
SHIRES = 2
WAIT = 60                   # s of host time for a load or a QMP answer
RUN_WAIT = 120              # s for the migrated kernel to finish
CFLAGS = ['-march=rv64imfc_zicsr_zifencei', '-mabi=lp64f', '-mcmodel=medany',
          '-ffreestanding', '-fno-builtin', '-O2', '-nostdlib',
          '-nostartfiles', '-static', '-Wl,--no-relax',
          '-Wl,--no-warn-rwx-segments']
# A full section (QEMU_VM_SECTION_FULL, 4) or a start (1): u32 section id,
# u8 name length, the name
SECTION = re.compile(rb'[\x01\x04][\x00-\xff]{4}([\x03-\x40])')
SECTION_NAME = re.compile(rb'[a-z][a-z0-9_\-]+')


class FuzzError(Exception):
    pass


def build_kernel(build, tmp):
    elf = os.path.join(tmp, 'pingpong-long.elf')
    cmd = (['riscv64-unknown-elf-gcc'] + CFLAGS +
           [f'-DROUNDS={ROUNDS}', '-B', os.path.join(build, 'tools', 'bin') + '/',
            '-I', os.path.join(PROJ, 'firmware-stubs', 'include'),
            '-T', os.path.join(PROJ, 'firmware-stubs', 'etsoc1.ld'),
            os.path.join(PROJ, 'guest-kernels', 'tests', 'pingpong.c'),
            os.path.join(build, 'guest', 'libetsoc1-stubs.a'), '-o', elf])
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if p.returncode:
        raise FuzzError('kernel build failed:\n' + p.stdout)
    return elf


class Qemu:
    """One QEMU with pingpong, QMP, its UART in a file."""

    def __init__(self, qemu, elf, tmp, name, incoming=None):
        self.qmp_path = os.path.join(tmp, f'{name}.qmp')
        self.out = os.path.join(tmp, f'{name}.out')
        self.err = os.path.join(tmp, f'{name}.err')
        for p in (self.qmp_path, self.out, self.err):
            if os.path.exists(p):
                os.unlink(p)
        cmd = [qemu, '-M', f'etsoc1,shires={SHIRES}', '-smp',
               str(64 * SHIRES), '-m', '128M', '-display', 'none',
               '-monitor', 'none', '-serial', f'file:{self.out}',
               '-qmp', f'unix:{self.qmp_path},server=on,wait=off',
               '-kernel', elf]
        if incoming:
            cmd += ['-incoming', f'exec:cat {incoming}']
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL,
                                     stderr=open(self.err, 'w'))
        self.qmp = None

    def connect(self):
        """QMP, or None if QEMU ended first."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return None
            try:
                self.qmp = Qmp(self.qmp_path, timeout=WAIT, wait=0.5)
                return self.qmp
            except (OSError, ValueError):
                time.sleep(0.05)
        raise FuzzError(f'no QMP in {WAIT} s')

    def output(self):
        return open(self.out, errors='replace').read() \
            if os.path.exists(self.out) else ''

    def stderr(self):
        return open(self.err, errors='replace').read() \
            if os.path.exists(self.err) else ''

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        if self.qmp:
            self.qmp.close()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def save(qemu, elf, tmp, delay):
    """Run pingpong, stop it after @delay s, migrate it to a file: (the
    file, the output so far)."""
    state = os.path.join(tmp, 'state')
    src = Qemu(qemu, elf, tmp, 'src')
    try:
        q = src.connect()
        if q is None:
            raise FuzzError(f'the source ended: {src.stderr()}')
        time.sleep(delay)
        q.get('stop')
        q.get('migrate', uri=f'exec:cat > {state}')
        status = None
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            status = q.get('query-migrate').get('status')
            if status in ('completed', 'failed'):
                break
            time.sleep(0.05)
        if status != 'completed':
            raise FuzzError(f'migration {status}: {src.stderr()}')
        q.get('quit')
        rc = src.wait(WAIT)
        if rc != 0:
            raise FuzzError(f'the source exited {rc} after quit')
        return state, src.output()
    finally:
        src.kill()


def round_trip(qemu, elf, tmp, r, reference):
    """Migrate pingpong mid-flight; the destination must finish it as the
    reference run did.  The stream's path."""
    delay = 0.2 + r.random()
    for _ in range(4):
        state, before = save(qemu, elf, tmp, delay)
        if '1..2' not in before:
            break
        delay /= 3                      # it had finished: earlier
    else:
        raise FuzzError('pingpong always finished before the migration')
    dst = Qemu(qemu, elf, tmp, 'dst', incoming=state)
    try:
        q = dst.connect()
        deadline = time.monotonic() + WAIT
        while q is not None and time.monotonic() < deadline:
            status = q.get('query-status').get('status')
            if status == 'paused':      # as the source was when saved
                q.get('cont')
                break
            if status == 'running':
                break
            time.sleep(0.05)
        rc = dst.wait(RUN_WAIT)
        out = before + dst.output()
        if rc != reference[0] or out != reference[1]:
            raise FuzzError(f'after a migration at {delay:.2f} s: exit '
                            f'{rc}, want {reference[0]}; output\n{out}\n'
                            f'want\n{reference[1]}\n{dst.stderr()}')
    finally:
        dst.kill()
    return state


def sections(data):
    """Offsets of the stream's section headers (devices after the RAM)."""
    found = []
    for m in SECTION.finditer(data):
        n = m.group(1)[0]
        if SECTION_NAME.fullmatch(data[m.end():m.end() + n]):
            found.append(m.start())
    return found


def state_end(data):
    """Where the state ends: QEMU appends a JSON description of it
    (QEMU_VM_VMDESCRIPTION, u32 length, the text) that a load reads only
    to warn if it is missing."""
    j = data.find(b'{"page_size"')
    return j - 5 if j >= 5 and data[j - 5] == 6 else len(data)


def mutate(r, data, heads):
    """A damaged copy of @data: (kind, bytes, must be refused)."""
    devices = heads[1] if len(heads) > 1 else 0
    end = state_end(data)

    def at():
        lo = devices if r.random() < 0.67 else 0
        return r.randrange(lo, end if r.random() < 0.95 else len(data))

    k = r.randrange(8)
    d = bytearray(data)
    if k == 0:
        for _ in range(r.randrange(1, 9)):
            d[at()] ^= r.randrange(1, 256)
        return 'flip', bytes(d), False
    if k == 1:
        o, n = at(), r.randrange(1, 64)
        d[o:o + n] = bytes([r.choice([0, 0xff])]) * len(d[o:o + n])
        return 'fill', bytes(d), False
    if k == 2:
        o = at()
        return 'insert', bytes(d[:o] + r.randbytes(r.randrange(1, 64)) +
                               d[o:]), False
    if k == 3:
        o = at()
        return 'delete', bytes(d[:o] + d[o + r.randrange(1, 64):]), False
    if k == 4:                          # a section header
        o = r.choice(heads) + r.randrange(24)
        if o < len(d):
            d[o] ^= r.randrange(1, 256)
        return 'header', bytes(d), False
    if k == 5:
        return 'append', data + r.randbytes(r.randrange(1, 4096)), False
    o = at()
    if o >= end:
        return 'cut in the description', data[:o], False
    return 'cut', data[:o], True


def load(qemu, elf, tmp, data):
    """Load @data into a new QEMU: ('refused'|'loaded', detail)."""
    path = os.path.join(tmp, 'damaged')
    with open(path, 'wb') as f:
        f.write(data)
    dst = Qemu(qemu, elf, tmp, 'load', incoming=path)
    try:
        q = dst.connect()
        state = None
        deadline = time.monotonic() + WAIT
        while q is not None:
            try:
                state = q.get('query-status').get('status')
            except (OSError, ValueError):
                state = None            # QEMU ended meanwhile
                break
            if state != 'inmigrate':
                break
            if time.monotonic() > deadline:
                raise FuzzError(f'still loading after {WAIT} s')
            time.sleep(0.05)
        loaded = state is not None
        if loaded:                      # it runs, answers and quits
            try:
                if state == 'paused':
                    q.get('cont')
                time.sleep(0.2)
                state = q.get('query-status').get('status')
                q.get('quit')
            except (OSError, ValueError):
                pass                    # it ended by itself
        rc = dst.wait(WAIT)
        err = dst.stderr()
        if rc is None:
            raise FuzzError(f'{"loaded" if loaded else "loading"} and no '
                            f'exit in {WAIT} s')
        if rc < 0 or 'Assertion' in err or 'core dumped' in err:
            raise FuzzError(f'QEMU ended with {rc}:\n{err[-2000:]}')
        if not loaded and rc != 0 and not err.strip():
            raise FuzzError(f'refused (exit {rc}) without a message')
        return ('loaded' if loaded else 'refused' if rc else 'ran'), \
            f'{state}, exit {rc}: ' + (err.strip().splitlines() or [''])[-1]
    finally:
        dst.kill()


def fuzz_one(qemu, build, seed, count, reference=None):
    """Round trip, then @count damaged streams of @seed: (failure or
    None, streams loaded, stats)."""
    r = random.Random(seed)
    stats = collections.Counter()
    done = 0
    with tempfile.TemporaryDirectory(prefix='etsoc1-migfuzz-') as tmp:
        try:
            elf = build_kernel(build, tmp)
            if reference is None:
                ref = Qemu(qemu, elf, tmp, 'ref')
                rc = ref.wait(RUN_WAIT)
                reference = (rc, ref.output())
                ref.kill()
                if rc != 0 or 'not ok' in reference[1] or \
                        '1..2' not in reference[1]:
                    raise FuzzError(f'pingpong without migration: exit '
                                    f'{rc}\n{reference[1]}')
            state = round_trip(qemu, elf, tmp, r, reference)
            stats['round trip'] += 1
            data = open(state, 'rb').read()
            heads = sections(data)
            for done in range(count):
                kind, damaged, must_refuse = mutate(r, data, heads)
                how, detail = load(qemu, elf, tmp, damaged)
                stats[f'{kind}: {how}'] += 1
                if must_refuse and how != 'refused':
                    raise FuzzError(f'a stream cut at {len(damaged)} of '
                                    f'{len(data)} bytes: {how} ({detail})')
            done = count
        except FuzzError as e:
            return f'stream {done}: {e}', done, stats
    return None, done, stats


def fuzz(qemu, build, seed, count, runs, log=print):
    """@runs seeds from @seed: (failures, streams, what happened)."""
    return each_seed('migrate_fuzz.py', seed, count, runs,
                     lambda s: fuzz_one(qemu, build, s, count), log)


def main():
    return fuzz_seeds.main(__doc__, 'migrate_fuzz', 100, 'damaged streams',
                           lambda a: fuzz(a.qemu, a.build, a.seed, a.count,
                                          a.runs))


if __name__ == '__main__':
    sys.exit(main())
