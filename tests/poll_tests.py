# SPDX-License-Identifier: GPL-2.0-or-later
"""A hart halted on a poll (poll-halt=on, docs/timing.md "Polls and the
read gate") as the outside sees it, for run.py's memory group:
  * a poll of DRAM beyond the machine's memory faults as any access does;
  * a halted poller costs no host CPU, is listed by QMP and `info cpus`,
    restarts on system_reset, shows its polling instruction to gdb, and
    goes on when gdb writes the flag;
  * migrated while halted, it resumes polling on the destination (no
    restart) and sees the flag written there.
"""

import os
import re
import subprocess
import tempfile
import time

from qmp import Qmp

FLAG = 0x8000000000 + (82 << 20)     # guest-kernels/tests/pollhalt.c
MACHINE = ',poll-halt=on'


def cpu_seconds(pid):
    with open(f'/proc/{pid}/stat') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def poll_pc(r):
    """The address of pollhalt's amoorg.d, from the project's objdump."""
    objdump = os.path.join(r.ROOT, 'tools', 'bin', 'et-objdump')
    out = subprocess.run([objdump, '-d', os.path.join(r.GUEST, 'pollhalt.elf')],
                         stdout=subprocess.PIPE, text=True).stdout
    m = re.search(r'^\s*([0-9a-f]+):\s+\S+\s+amoorg\.d', out, re.M)
    return int(m.group(1), 16) if m else None


def start(r, tmp, extra=(), kernel='pollhalt', machine=MACHINE):
    qmp, gdb = os.path.join(tmp, 'qmp'), os.path.join(tmp, 'gdb')
    for p in (qmp, gdb):
        if os.path.exists(p):
            os.unlink(p)
    cmd = r.qemu_cmd(kernel, 1, machine=machine,
                     extra=['-m', '128M',
                            '-qmp', f'unix:{qmp},server=on,wait=off',
                            '-gdb', f'unix:{gdb},server=on,wait=off'] +
                     list(extra))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    return proc, Qmp(qmp), gdb


def finish(proc, timeout=30):
    try:
        out = proc.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        proc.kill()
        out = proc.communicate()[0] + b'\n(killed after the timeout)'
    return proc.returncode, out.decode(errors='replace')


def attach_gdb(r, path, timeout):
    """gdb on @path (which stops the run), past the stop it reports."""
    g = r.Gdb(path)
    g.sock.settimeout(2)
    try:
        g._read_packet()    # the stop QEMU reports when gdb attaches
    except OSError:         # socket.timeout: none came
        pass
    g.sock.settimeout(timeout)
    return g


def write_flag(g, addr):
    """Write 1 to the 64-bit word at @addr; gdb's reply."""
    return g.cmd(f'M{addr:x},8:' + (1).to_bytes(8, 'little').hex())


def save_state(qmp, state):
    """Stop the run, migrate it to the file @state and quit: the
    migration's last status."""
    qmp.get('stop')
    qmp.get('migrate', uri=f'exec:cat > {state}')
    status = None
    for _ in range(600):
        status = qmp.get('query-migrate').get('status')
        if status in ('completed', 'failed'):
            break
        time.sleep(0.1)
    qmp.get('quit')
    return status


def migrate(r, tmp, proc, qmp, kernel='pollhalt'):
    """Stop the run, migrate it to a file, quit, and start a destination
    from the file, running: (status, the source's output, proc, qmp, gdb
    of the destination)."""
    state = os.path.join(tmp, 'state')
    status = save_state(qmp, state)
    _, out = finish(proc)
    proc, qmp, gdb = start(r, tmp, ['-incoming', f'exec:cat {state}'],
                           kernel=kernel)
    for _ in range(600):
        run_state = qmp.get('query-status').get('status')
        if run_state in ('paused', 'running'):
            break
        time.sleep(0.1)
    if run_state == 'paused':
        qmp.get('cont')
    return status, out, proc, qmp, gdb


def gdb_pc_and_release(r, path):
    """Stop, read hart 0's PC, write the flag, continue: the PC."""
    g = attach_gdb(r, path, 20)
    g.cmd('Hg1')
    regs = bytes.fromhex(g.cmd('g'))        # x0..x31, then pc
    pc = int.from_bytes(regs[32 * 8:33 * 8], 'little')
    write_flag(g, FLAG)
    g.sock.sendall(b'$c#63')
    return pc


def poll_tests(r):
    rc, out, _ = r.run(r.qemu_cmd('pollhalt-fault', 1, machine=MACHINE), 30)
    r.report(rc == 1 and 'pollhalt: trap mcause 7 mtval 0x8100000000' in out,
             'poll: a poll of DRAM beyond the memory faults (store/AMO '
             f'access fault, exit {rc}) with poll-halt=on', out)
    want_pc = poll_pc(r)
    with tempfile.TemporaryDirectory() as tmp:
        proc, qmp, gdb = start(r, tmp)
        time.sleep(1.5)
        c0 = cpu_seconds(proc.pid)
        time.sleep(2)
        used = cpu_seconds(proc.pid) - c0
        # A QEMU that ends here (a crash, a sanitizer's abort) fails the
        # checks below with its output; it must not end the whole run.
        cpus = info = None
        try:
            cpus = qmp.get('query-cpus-fast')
            info = qmp.get('human-monitor-command',
                           **{'command-line': 'info cpus'})
            qmp.get('system_reset')
            time.sleep(1.5)
            pc = gdb_pc_and_release(r, gdb)
        except OSError as e:
            pc = f'QMP/gdb: {e}'
        rc, out = finish(proc)
    r.report(used < 0.4,
             f'poll: a hart halted on a poll costs {used:.2f} s of host CPU '
             'in 2 s (the machine, one poller, 63 harts done)')
    r.report(isinstance(cpus, list) and len(cpus) == 64 and
             'CPU #0' in str(info),
             'poll: QMP query-cpus-fast and info cpus list the halted poller',
             str(info))
    r.report(pc == want_pc and want_pc is not None,
             f'poll: gdb sees the halted poller at its amoorg.d '
             f'({pc if isinstance(pc, str) else hex(pc)}, want '
             f'{hex(want_pc) if want_pc else "?"})', out)
    r.report(rc == 0 and out.count('pollhalt: polling') == 2 and
             'pollhalt: seen 1' in out,
             'poll: system_reset restarts a halted poller; the flag gdb '
             f'writes ends its poll (exit {rc})', out)
    with tempfile.TemporaryDirectory() as tmp:
        proc, qmp, _ = start(r, tmp)
        time.sleep(1.5)
        status, out0 = None, ''
        try:
            status, out0, proc, qmp, gdb = migrate(r, tmp, proc, qmp)
            time.sleep(0.5)
            pc = gdb_pc_and_release(r, gdb)
        except OSError as e:
            pc = f'QMP/gdb: {e}'
        rc, out = finish(proc)
    r.report(status == 'completed' and rc == 0 and pc == want_pc and
             'pollhalt: polling' not in out and 'pollhalt: seen 1' in out,
             f'poll: a halted poller migrates ({status}), resumes at its '
             f'amoorg.d on the destination and sees the flag written there '
             f'(exit {rc})', out0 + out)
