# SPDX-License-Identifier: GPL-2.0-or-later
"""Migration with the tensor unit busy and with the caches' tags in use,
for run.py's memory group.

probes/tfma-migrate issues a TensorFMA and halts on a poll before the f0
read that waits for the TensorFMA.  Once with and once without a
migration in that wait, gdb writes the flag, and the cycles from the
TensorFMA to the read must be the same: the f registers stay busy across the migration, so the
read still catches up with the TensorFMA's completion
(etsoc1_shire_post_load).  The source is stopped with QMP, not gdb: QEMU
7.2 aborts a destination whose source was in run state "debug".
probes/cache-migrate does the same with chains in the L1 and the L2
(cache_migrate_test).
"""

import os
import re
import subprocess
import tempfile
import time

import poll_tests


def set_flag(r, gdb_path, sym):
    """Attach gdb, write 1 to the flag at @sym, detach."""
    g = poll_tests.attach_gdb(r, gdb_path, 30)
    reply = poll_tests.write_flag(g, sym)
    g.sock.sendall(b'$D#44')
    return reply


def flag_runs(r, kernel, flag, pattern):
    """@kernel run twice, without and with a migration while hart 0 polls
    @flag, which gdb then sets: the flag's address (0 if not found), and
    per run (exit status, @pattern's groups or None, the migration's
    status, gdb's reply, the output)."""
    nm = subprocess.run(['riscv64-unknown-elf-nm',
                         os.path.join(r.GUEST, kernel + '.elf')],
                        stdout=subprocess.PIPE, text=True).stdout
    m = re.search(r'^([0-9a-f]+) [BbDdSs] ' + flag + '$', nm, re.M)
    sym = int(m.group(1), 16) if m else 0
    results = []
    for migrate in (False, True):
        with tempfile.TemporaryDirectory() as tmp:
            proc, qmp, gdb = poll_tests.start(r, tmp, kernel=kernel)
            status, reply = 'none', ''
            time.sleep(1.5)          # hart 0 is in its poll by then
            try:
                if migrate:
                    status, _, proc, qmp, gdb = poll_tests.migrate(
                        r, tmp, proc, qmp, kernel=kernel)
                reply = set_flag(r, gdb, sym)
            except OSError as e:
                reply += f' gdb: {e}'
            rc, out = poll_tests.finish(proc)
        m = re.search(pattern, out)
        results.append((rc, m.groups() if m else None, status, reply, out))
    return sym, results


def tfma_migrate_test(r):
    sym, results = flag_runs(r, 'tfma-migrate', 'tfma_flag',
                             r'tfma-migrate cycles=(\d+) f0=(\S+)')
    (rc0, f0, _, rep0, out0), (rc1, f1, status, rep1, out1) = results
    tfma = r.timing_ref.TFMA['alone']['fp32']
    r.report(sym and rc0 == 0 and rc1 == 0 and status == 'completed' and
             f0 is not None and f0 == f1 and int(f0[0]) >= tfma,
             f'migrate: a TensorFMA in flight keeps its f registers busy '
             f'across a migration: the read after it waits as without one '
             f'({f0} / {f1} cycles, f0; TensorFMA {tfma}; migration '
             f'{status})', f'{rep0} {rep1}\n' + out0 + out1)


def cache_migrate_test(r):
    """probes/cache-migrate: a chain in the L1 (two lines soft-locked, one
    dirty) and one in the L2, chased after a poll, then a flush of the
    dirty line: the same cycles with a migration in the poll as without
    (the tags, locks and dirty bits are in the migration stream)."""
    sym, results = flag_runs(
        r, 'cache-migrate', 'cache_flag',
        r'cache-migrate l1=(\d+) l2=(\d+) flush=(\d+)')
    (rc0, f0, _, rep0, out0), (rc1, f1, status, rep1, out1) = results
    ref = r.timing_ref
    l1 = 32 * ref.chase_step('l1') + 1
    r.report(sym and rc0 == 0 and rc1 == 0 and status == 'completed' and
             f0 is not None and f0 == f1 and int(f0[0]) == l1,
             f'migrate: the L1 and L2 tags, locks and dirty bits go with a '
             f'migration: a chain in the L1, one in the L2 and a flush of a '
             f'dirty line take {f0} / {f1} cycles without / with one (the '
             f'L1 pass {l1}; migration {status})',
             f'{rep0} {rep1}\n' + out0 + out1)


def cache_stream_test(r):
    """The tags' subsections are in the migration stream of a run that
    used them, and not in that of a cache-model=off run without locks
    (which migrates as before the cache model)."""
    found = {}
    for model in ('on', 'off'):
        with tempfile.TemporaryDirectory() as tmp:
            proc, qmp, _ = poll_tests.start(
                r, tmp, kernel='cache-migrate',
                machine=f'{poll_tests.MACHINE},cache-model={model}')
            time.sleep(1.5)          # hart 0 is in its poll by then
            state = os.path.join(tmp, 'state')
            status = None
            try:
                status = poll_tests.save_state(qmp, state)
            except OSError:
                pass
            poll_tests.finish(proc)
            data = open(state, 'rb').read() if os.path.exists(state) else b''
            found[model] = (status, b'etsoc1-cpu-et/l1' in data,
                            b'etsoc1-cpu-et/l2' in data)
    r.report(found == {'on': ('completed', True, True),
                       'off': ('completed', False, False)},
             f'migrate: the L1 and L2 tag subsections are in the stream of '
             f'a run that used them and not with cache-model=off (status, '
             f'L1, L2: {found})')
