# SPDX-License-Identifier: GPL-2.0-or-later
"""The sw-sysemu replacement (host/sysemu, docs/sysemu-layer.md).

Configures and builds the CMake project host/sysemu into BUILD_ROOT/sysemu
and runs tests/host/sysemu-test, which boots a card through
emu::ISysEmu::create() and does what Esperanto's DeviceSysEmu does (DIRs,
CRC, an ECHO through MM SQ0/CQ0).  Its TAP lines count as tests.
"""

import os
import shutil
import signal
import subprocess
import tempfile

import host_tests

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, '..', 'host', 'sysemu')


def _run(cmd, timeout, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True,
                          timeout=timeout, **kw)


def sysemu_tests(run=None):
    """The sysemu group.  @run: the harness (ROOT, report, relay_tap), by
    default tests/etsoc1test/harness.py."""
    if run is None:
        from etsoc1test import harness as run
    root, report = run.ROOT, run.report
    build = os.path.join(root, 'sysemu')
    if not shutil.which('cmake'):
        report(False, 'sysemu: cmake', 'cmake is not installed '
               '(scripts/deps.sh)')
        return
    try:
        r = _run(['cmake', '-S', SRC, '-B', build,
                  '-DCMAKE_BUILD_TYPE=RelWithDebInfo',
                  f'-DETSOC1_BUILD_DIR={root}'], 300)
        if r.returncode == 0:
            r = _run(['cmake', '--build', build, '-j2'], 600)
    except subprocess.TimeoutExpired as e:
        report(False, 'sysemu: build', str(e))
        return
    report(r.returncode == 0, 'sysemu: CMake package builds', r.stdout)
    if r.returncode != 0:
        return

    env = dict(os.environ)
    env.setdefault('ETSOC1_QEMU',
                   os.path.join(root, 'qemu-build', 'qemu-system-riscv64'))
    env.setdefault('ETSOC1_GUEST_DIR', os.path.join(root, 'guest'))
    # runDir is the cwd, as in Esperanto's tests; keep it short (socket).
    run_dir = tempfile.mkdtemp(prefix='sysemu-')
    # Own session, so a timeout also ends the QEMU the test started.
    proc = subprocess.Popen([os.path.join(build, 'sysemu-test')],
                            cwd=run_dir, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        out += '\ntimed out'
    out += f'\n(run directory {run_dir})'
    seen = run.relay_tap('sysemu', out)
    if proc.returncode != 0 and seen == 0:
        report(False, 'sysemu: sysemu-test ran', out)
    if proc.returncode == 0:
        shutil.rmtree(run_dir, ignore_errors=True)
    for what in ('dma', 'kernel'):
        run_dir = tempfile.mkdtemp(prefix='sysemu-')
        # the DMA through the listener: slow enough to be killed in it
        host_tests.orphan_test(run, 'sysemu', [os.path.join(build,
                                                            'sysemu-test'),
                                               '--orphan', what],
                               dict(env, ETSOC1_SYSEMU_SHARED_DMA='0'),
                               cwd=run_dir)
        shutil.rmtree(run_dir, ignore_errors=True)
