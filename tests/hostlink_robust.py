# SPDX-License-Identifier: GPL-2.0-or-later
"""The host link under bad input from the command line and from the host
(docs/host-link.md, "Robustness"), for run.py's hostlink group.

  * a chardev the link cannot have (already used by -serial, -mon, the SP
    UART, a -global, multiplexed) is refused at start-up: status 1 and a
    message, never an abort;
"""

import os
import re
import tempfile


def chardev_tests(r):
    """@r is run.py (QEMU, GUEST, run, report)."""
    sp = os.path.join(r.GUEST, 'etsoc1-sp.elf')
    with tempfile.TemporaryDirectory(prefix='etsoc1-hlc-') as tmp:
        sock = os.path.join(tmp, 'hl.sock')
        hl = ['-chardev', f'socket,id=hl,path={sock},server=on,wait=off']
        plain = ['-M', 'etsoc1,hostlink=hl'] + hl
        with_sp = ['-M', f'etsoc1,shires=33,sp-firmware={sp},hostlink=hl',
                   '-smp', '2113'] + hl
        cases = [
            ('-serial chardev:hl (the PU UART0)', plain +
             ['-serial', 'chardev:hl'],
             r"hostlink=hl: chardev 'hl' is also the PU UART0"),
            ('-serial null -serial chardev:hl (the PU UART1)', plain +
             ['-serial', 'null', '-serial', 'chardev:hl'],
             r"hostlink=hl: chardev 'hl' is also the PU UART1"),
            ('the SP UART (-serial #3) on the link\'s chardev', with_sp +
             ['-serial', 'null', '-serial', 'null', '-serial', 'chardev:hl'],
             r"hostlink=hl: chardev 'hl' is also the SP UART0"),
            ('-mon chardev=hl', plain + ['-mon', 'chardev=hl'],
             r"hostlink=hl: chardev 'hl' is already in use"),
            ('-global etsoc1-hostlink.chardev=hl', plain +
             ['-global', 'etsoc1-hostlink.chardev=hl'],
             r'-global etsoc1-hostlink.chardev cannot set it'),
            ('-global etsoc1-hostlink.chardev naming another chardev',
             plain + ['-chardev', 'null,id=other', '-global',
                      'etsoc1-hostlink.chardev=other'],
             r'-global etsoc1-hostlink.chardev cannot set it'),
            ('a multiplexed chardev', ['-M', 'etsoc1,hostlink=hl',
                                       '-chardev', f'socket,id=hl,path='
                                       f'{sock},server=on,wait=off,mux=on'],
             r'multiplexed chardev \(mux=on\) cannot carry the host link'),
            ('hostlink= naming no chardev', ['-M', 'etsoc1,hostlink=nope'],
             r'hostlink=nope: no such chardev'),
            ('one chardev on both PU UARTs', ['-M', 'etsoc1', '-chardev',
                                              'null,id=n', '-serial',
                                              'chardev:n', '-serial',
                                              'chardev:n'],
             r"PU UART1 \(-serial #2\): chardev 'n' is also the PU UART0"),
            ('a UART on the monitor\'s chardev', ['-M', 'etsoc1', '-chardev',
                                                  'null,id=n', '-mon',
                                                  'chardev=n', '-serial',
                                                  'chardev:n'],
             r"PU UART0 \(-serial #1\): chardev 'n' is already in use"),
        ]
        for name, args, pattern in cases:
            if sp in args[1] and not os.path.exists(sp):
                r.report(False, f'hostlink: chardev {name}: skipped, '
                         f'{sp} missing')
                continue
            rc, out, _ = r.run([r.QEMU, '-display', 'none', '-S'] + args, 60)
            ok = rc == 1 and re.search(pattern, out) is not None
            r.report(ok, f'hostlink: {name} is refused at start-up with a '
                     f'message and status 1 (got {rc})', out)
