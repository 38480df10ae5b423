# SPDX-License-Identifier: GPL-2.0-or-later
"""Group cli: bad command lines are refused with a message; -machine dumpdtb.

Run alone: tests/run.py BUILD_ROOT cli, or from tests/,
python3 -m etsoc1test.cli BUILD_ROOT (docs/testing.md)."""

import os
import re
import struct
import subprocess
import sys
import tempfile

from etsoc1test import harness
from etsoc1test.harness import QEMU, GUEST, report, run, refused
from qmp import Qmp


def fdt_strings(blob):
    """Node names of a flattened device tree, in order."""
    magic, total, off_struct = struct.unpack('>III', blob[:12])
    assert magic == 0xd00dfeed and total == len(blob)
    names, p = [], off_struct
    while True:
        tag, = struct.unpack('>I', blob[p:p + 4])
        p += 4
        if tag == 1:
            end = blob.index(b'\0', p)
            names.append(blob[p:end].decode())
            p = (end + 4) & ~3
        elif tag == 3:
            length, = struct.unpack('>I', blob[p:p + 4])
            p += 8 + ((length + 3) & ~3)
        elif tag == 9:
            return names
        elif tag not in (2, 4):
            raise ValueError(f'bad tag {tag}')


def dram_too_small_tests():
    """-m too small for what the machine places in DRAM (docs/memory-map.md):
    refused, and the minimum the message names starts (dumpdtb exits)."""
    refused('-m 64K with 33 shires (the device tree does not fit)',
            ['-M', 'etsoc1,shires=33', '-smp', '2112', '-m', '64K'],
            r'-m 64K? .*too small.*device tree', max_wall=0.5)
    refused('-m 64K (the reset PC lies under the device tree)',
            ['-M', 'etsoc1', '-m', '64K'], r'too small.*reset PC')
    hello = os.path.join(GUEST, 'hello.elf')
    # not an ELF for RISC-V: loaded raw at the reset PC, tens of MiB
    refused('-m 16M for a raw image bigger than DRAM',
            ['-M', 'etsoc1', '-m', '16M', '-kernel', QEMU],
            r'qemu-system-riscv64.*does not fit in DRAM \(-m 16384K\)')
    for name, args in (('33 shires', ['-M', 'etsoc1,shires=33', '-smp', '2112']),
                       ('hello.elf', ['-M', 'etsoc1', '-kernel', hello])):
        rc, out, _ = run([QEMU, '-display', 'none', '-m', '64K'] + args, 30)
        m = re.search(r'need -m (\d+)K or more', out)
        ok, diag = False, out
        if m and rc == 1:
            need = int(m.group(1))
            with tempfile.TemporaryDirectory() as tmp:
                dtb = os.path.join(tmp, 'etsoc1.dtb')
                mach = args[1] + f',dumpdtb={dtb}'
                rcs = []
                for k in (need, need - 8):
                    r, o, _ = run([QEMU, '-display', 'none', '-m', f'{k}K',
                                   '-M', mach] + args[2:], 30)
                    rcs.append(r)
                    diag += o
                ok = rcs == [0, 1] and os.path.exists(dtb)
                diag += f'\nneed {need}K: exit statuses {rcs}'
        report(ok, f'cli: {name}: the minimum -m named starts, 8K less is '
               f'refused', diag)


def full_chip_refused_early_tests():
    """What a full chip's command line can get wrong is refused before its
    2,176 harts are built (building them takes most of a second)."""
    first = os.path.join(GUEST, 'first.elf')
    full = ['-M', 'etsoc1,shires=34', '-smp', '2176']
    refused('a full chip with -smp 2000', ['-M', 'etsoc1,shires=34', '-smp',
            '2000'], r'34 shire\(s\) need -smp 2176', max_wall=0.5)
    refused('a full chip with a -kernel that does not exist',
            full + ['-kernel', '/nonexistent/k.elf'],
            r"could not load '/nonexistent/k.elf'", max_wall=0.5)
    refused('a full chip with a -bios that does not exist',
            full + ['-bios', '/nonexistent/fw.elf'],
            r"could not load '/nonexistent/fw.elf'", max_wall=0.5)
    refused('vcpu-threads with thread=single',
            full + ['-accel', 'tcg,thread=single,vcpu-threads=2'],
            r'vcpu-threads needs thread=multi', max_wall=0.5)
    refused('vcpu-threads that is not a number or auto',
            full + ['-accel', 'tcg,vcpu-threads=two'],
            r"Invalid 'vcpu-threads' setting two", max_wall=0.5)
    refused('a card with an sp-firmware that does not exist',
            ['-M', 'etsoc1,shires=33,sp-firmware=/nonexistent/sp.elf',
             '-smp', '2113', '-kernel', first],
            r'sp-firmware=/nonexistent/sp.elf: not a RISC-V ELF', max_wall=0.5)


def source_tree_tests():
    """The shape of the tree that docs/architecture.md states (issue 26)."""
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                        '..', 'tools', 'callgraph.py')
    out = subprocess.run([sys.executable, tool, '--nature'],
        capture_output=True, text=True).stdout
    report(out.strip().endswith('no cycle'),
           'tree: hw/etsoc1 calls in no cycle but the CPU <-> device edges '
           '(tools/callgraph.py --nature)', out[-600:])


def late_props_test():
    """Once the chip is built, qom-set of a machine property that shapes
    the model (poll-halt, shires, record) fails with a message and leaves
    it as it was; the host-pacing ones (on-deadlock) may still change."""
    with tempfile.TemporaryDirectory() as d:
        sock = os.path.join(d, 'qmp.sock')
        p = subprocess.Popen([QEMU, '-M', 'etsoc1', '-smp', '64', '-S',
                              '-display', 'none', '-serial', 'none',
                              '-monitor', 'none', '-qmp',
                              f'unix:{sock},server=on,wait=off'],
                             stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        got, out = {}, ''
        try:
            with Qmp(sock, timeout=harness.wall_bound(30)) as q:
                for prop, value in (('poll-halt', False), ('shires', 2),
                                    ('record', '/tmp/x.rr'),
                                    ('on-deadlock', 'exit')):
                    got[prop] = q.cmd('qom-set', path='/machine',
                                      property=prop, value=value)
                got['poll-halt now'] = q.get('qom-get', path='/machine',
                                             property='poll-halt')
                got['on-deadlock now'] = q.get('qom-get', path='/machine',
                                               property='on-deadlock')
                q.cmd('quit')
            out = p.communicate(timeout=harness.wall_bound(30))[0]
        except (OSError, subprocess.TimeoutExpired) as e:
            p.kill()
            out = p.communicate()[0] + str(e)

    def desc(prop):
        return str(got.get(prop, {}).get('error', {}).get('desc', ''))
    report(all(f'etsoc1: {prop} is set on the command line only' in
               desc(prop) for prop in ('poll-halt', 'shires', 'record')) and
           got.get('on-deadlock') == {'return': {}} and
           got.get('poll-halt now') is True and
           got.get('on-deadlock now') == 'exit',
           f'cli: qom-set of poll-halt, shires, record once the chip is '
           f'built is refused ("{desc("poll-halt")}"), poll-halt stays '
           f'{got.get("poll-halt now")}; on-deadlock may change '
           f'({got.get("on-deadlock now")})', f'{got}\n{out[-1500:]}')


def cli_tests():
    source_tree_tests()
    late_props_test()
    full_chip_refused_early_tests()
    refused('shires=35', ['-M', 'etsoc1,shires=35'], r'at most 34 minion shires')
    refused('shires=abc', ['-M', 'etsoc1,shires=abc'], r'shires')
    refused('on-idle=sometimes', ['-M', 'etsoc1,on-idle=sometimes'],
            r"on-idle.*sometimes")
    refused('-smp not matching shires', ['-M', 'etsoc1,shires=2', '-smp', '64'],
            r'2 shire\(s\) need -smp 128')
    refused('-smp not a multiple of 64', ['-M', 'etsoc1', '-smp', '100'],
            r'need -smp')
    refused('odd reset-pc', ['-M', 'etsoc1,reset-pc=0x8000001001'],
            r'not a 40-bit even address')
    refused('missing kernel', ['-M', 'etsoc1', '-kernel', '/nonexistent.elf'],
            r'could not load')
    refused('the SP not counted in -smp',
            ['-M', 'etsoc1,shires=1,sp-firmware=' + QEMU, '-smp', '64'],
            r'1 shire\(s\) and the SP need -smp 65')
    refused('sp-firmware not an ELF',
            ['-M', 'etsoc1,shires=1,sp-firmware=/dev/null', '-smp', '65'],
            r'sp-firmware=/dev/null: not a RISC-V ELF image')
    refused('a trace-json file that cannot be written',
            ['-M', 'etsoc1,trace-json=/nonexistent/trace.json', '-smp', '64'],
            r"trace-json: cannot write '/nonexistent/trace.json': No such "
            r'file or directory')
    refused('hostlink= with host-loopback=on',
            ['-M', 'etsoc1,hostlink=hl,host-loopback=on', '-chardev',
             'socket,id=hl,path=/tmp/etsoc1-cli-hl.sock,server=on,wait=off'],
            r'hostlink= and host-loopback=on both give the eDMA a host '
            r'memory')

    dram_too_small_tests()

    with tempfile.TemporaryDirectory() as tmp:
        dtb = os.path.join(tmp, 'etsoc1.dtb')
        rc, out, _ = run([QEMU, '-M', f'etsoc1,shires=3,dumpdtb={dtb}', '-smp',
                          '192', '-display', 'none'], 30)
        try:
            names = fdt_strings(open(dtb, 'rb').read())
            cpus = [n for n in names if n.startswith('cpu@')]
            ok = (rc == 0 and len(cpus) == 192 and cpus[-1] == 'cpu@191' and
                  'memory@8000000000' in names and 'serial@12002000' in names and
                  'scratchpad@81000000' in names and names.count('thread1') == 96)
            diag = f'rc {rc}; {len(cpus)} cpu nodes; {names[:8]}'
        except (OSError, ValueError, AssertionError, struct.error) as e:
            ok, diag = False, f'{e}\n{out}'
        report(ok, 'cli: -machine dumpdtb writes the tree (192 cpus, cpu-map)', diag)


if __name__ == '__main__':
    sys.exit(harness.main({'cli': cli_tests}))
