#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seeded fuzzer of the card's device API: hostile commands in the MM's
submission queues and the SP's management queue.

One card per seed (tests/fw_tests.py Card: the contract's command line,
SP and MM firmware; odd seeds run the firmware with the 20 ms launch
watchdog, even ones the default 30 s).  The test is the host: it writes
commands into the queues through BAR2 as the runtime does (raw queue
writes, tests/fw_tests.py push) and rings the doorbells.  Each round the
seed decides a few commands on the MM queues (SQ0, SQ1, HP SQ0, HP SQ1)
and the SP queue: known and unknown message ids with random payloads,
flags (the barrier bit included) and tags, DMA lists of 0-6 nodes with
host and device addresses anywhere and sizes from 0 to past the 128 MiB
bound, kernel launches of random bytes at random entry points and shire
masks with random exception buffers, embedded arguments and stack areas,
ABORT and KERNEL_ABORT with random tags at any point; and, alone in their
queue, commands whose size field is wrong (under the header, over what
was written, over the firmware's 256 bytes), which drop the queue.
Checks, every round: every well-formed command gets exactly one answer
with its tag on its completion queue, with the message id the device API
defines (the response id, DEVICE_FW_ERROR naming the id for unknown
ones, an error status from the SP); a dropped queue is
emptied and answers nothing; then, the round's kernels aborted from a
queue the round did not use, a good command (echo) is answered, and every
fourth round a DMA round trip (data checked) and vecadd.elf on shire 0
(sums checked).  A failing seed is printed with its replay:

    tests/fuzz/devapi_fuzz.py [--build BUILD] [--seed S] [--count N]
                              [--runs R]

(N rounds per seed, R seeds from S; docs/robustness.md).
"""

import collections
import os
import random
import struct
import sys
import time

import fuzz_seeds
from fuzz_seeds import each_seed

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import hostlink as hl  # noqa: E402
import fw_tests  # noqa: E402

MSG = fw_tests.MSG
MM_QUEUES = [fw_tests.MM_VQ + off for off in (0, 0x440, 0x880, 0x8c0)]
HP_QUEUES = MM_QUEUES[2:]           # 32-byte rings: 31 bytes fit
HP_ROOM = 31
SP_SQ, SP_CQ, MM_CQ = fw_tests.SP_SQ, fw_tests.SP_CQ, fw_tests.MM_CQ
HOST_MEM, HOST_MEM_SIZE = fw_tests.HOST_MEM, fw_tests.HOST_MEM_SIZE
DEV_FREE = fw_tests.DEV_FREE
GARBAGE = DEV_FREE                  # 64 KiB of random bytes, the "kernels"
HEALTH = DEV_FREE + (1 << 20)       # the health check's DMA and vecadd data
FUZZ_DEV = DEV_FREE + (32 << 20)    # where the fuzzed DMA may write
DRAM_END = 0x80_8000_0000           # -m 2G
HOST_MANAGED = 0x80_0580_1000
CMD_MAX = 256                       # firmware-stubs/fw/mm.c
ANSWER_WAIT = 60                    # s of host time for a round's answers
KNOWN = {MSG[k] for k in ('api_compat', 'fw_version', 'echo', 'abort',
                          'launch', 'kernel_abort', 'readlist', 'writelist')}
VECADD_N = 1024


class FuzzError(Exception):
    pass


class Fuzzer:
    def __init__(self, root, seed):
        self.r = random.Random(seed)
        fw = 'etsoc1-fw-short-timeout.elf' if seed % 2 else 'etsoc1-fw.elf'
        self.card = fw_tests.Card(root, fw=fw)
        self.card.link.timeout = ANSWER_WAIT
        self.guest = os.path.join(root, 'guest')
        self.commands = 0
        self.odds = 0.9
        self.stats = collections.Counter()
        st = self.card.wait_status(8, 8, timeout=120)
        if st != 8:
            raise FuzzError(f'MM status {st} after boot')
        self.dma_ok(GARBAGE, self.r.randbytes(64 << 10))

    # ---- the host's side of the queues -------------------------------------
    def push(self, q, data, doorbell=True, control=None, got=None):
        """Write @data into SQ @q when there is room; the doorbell.  While
        @q is full, ABORT through @control (its worker may wait behind a
        kernel of the round: a barrier, a second launch)."""
        c = self.card
        deadline = time.monotonic() + ANSWER_WAIT
        next_abort = time.monotonic() + 1.0
        while True:
            head, tail, length = c.r64(q), c.r64(q + 8), c.r64(q + 16)
            if length - 1 - (head - tail) % length >= len(data):
                break
            if time.monotonic() > deadline:
                raise FuzzError(f'SQ 0x{q:x} stays full ({head}/{tail})')
            if control is not None and time.monotonic() > next_abort:
                tag = self.fresh_tag(got)
                self.push(control, self.cmd(MSG['abort'], tag, bytes(8)))
                self.aborts.append((MM_CQ, tag))
                next_abort = time.monotonic() + 1.0
            time.sleep(0.01)
        first = min(len(data), length - head)
        c.link.write(c.bar2 + q + 32 + head, data[:first])
        if first < len(data):
            c.link.write(c.bar2 + q + 32, data[first:])
        c.w64(q, (head + len(data)) % length)
        if doorbell:
            c.link.write32(c.bar2 + (fw_tests.SP_DOORBELL if q == SP_SQ
                                     else fw_tests.MM_DOORBELL), 1)

    def drain(self, cq, got):
        """Pop every message in @cq into @got[tag]."""
        while True:
            m = self.card.pop(cq)
            if m is None:
                return
            size, tag, mid = struct.unpack_from('<HHH', m)
            got[(cq, tag)].append((mid, size, m))

    def wait_answers(self, want, got, what, control=None):
        """Until every (cq, tag) in @want has its answer; ABORT through
        @control meanwhile, so that no kernel of the round runs on."""
        deadline = time.monotonic() + ANSWER_WAIT
        next_abort = 0
        while True:
            for cq in (MM_CQ, SP_CQ):
                self.drain(cq, got)
            missing = [k for k in want if not got[k]]
            if not missing:
                return
            now = time.monotonic()
            if now > deadline:
                raise FuzzError(f'{what}: no answer for (cq, tag) '
                                f'{[(hex(c), t) for c, t in missing][:8]} '
                                f'in {ANSWER_WAIT} s')
            if control is not None and now > next_abort:
                tag = self.fresh_tag(got)
                self.push(control, self.cmd(MSG['abort'], tag, bytes(8)))
                want = want + [(MM_CQ, tag)]
                next_abort = now + 1.0
            try:
                self.card.link.wait_msi(0xa, 0.2)
            except hl.LinkError:
                pass

    def fresh_tag(self, got):
        while True:
            t = self.r.getrandbits(16)
            if (MM_CQ, t) not in got and (SP_CQ, t) not in got:
                got[(MM_CQ, t)] = []
                got[(SP_CQ, t)] = []
                return t

    @staticmethod
    def cmd(msg, tag, payload, flags=0, size=None):
        n = 8 + len(payload) if size is None else size
        return struct.pack('<HHHH', n & 0xffff, tag, msg, flags) + payload

    # ---- hostile commands ----------------------------------------------------
    # Half the commands are plausible: each field is valid with odds
    # 0.9, so that DMAs move data and launches run their random bytes.
    def pick(self, good, bad):
        r = self.r
        return good() if r.random() < self.odds else bad()

    def host_addr(self, size):
        r = self.r
        return self.pick(
            lambda: HOST_MEM + r.randrange(HOST_MEM_SIZE - size),
            lambda: r.choice([
                HOST_MEM + HOST_MEM_SIZE - r.randrange(1, 4096),
                HOST_MEM + HOST_MEM_SIZE + r.randrange(1 << 20),
                r.getrandbits(64), 0]))

    def dev_addr(self, size):
        r = self.r
        return self.pick(
            lambda: FUZZ_DEV + r.randrange(DRAM_END - FUZZ_DEV - size),
            lambda: r.choice([
                DRAM_END - r.randrange(1, 1 << 16),
                HOST_MANAGED - r.randrange(1, 1 << 20),
                0x80_0010_0000 + r.randrange(1 << 20),  # firmware DRAM
                r.getrandbits(64)]))

    def dma_payload(self, write):
        r = self.r
        n = self.pick(lambda: r.choice([1, 1, 2, 4]),
                      lambda: r.choice([0, 5, 6, 1]))
        out = b''
        for _ in range(n):
            size = self.pick(
                lambda: r.choice([r.randrange(1, 4096),
                                  r.randrange(1, 1 << 20)]),
                lambda: r.choice([0, (128 << 20) + r.randrange(1, 4096),
                                  r.getrandbits(32), 8 << 20]))
            size_ok = min(size, HOST_MEM_SIZE // 2)
            h = self.host_addr(size_ok)
            out += struct.pack('<QQQII', h, h, self.dev_addr(size_ok), size,
                               r.getrandbits(32) if r.random() < 0.1 else 0)
        if r.random() < 0.1:
            out = out[:r.randrange(len(out) + 1)] + r.randbytes(
                r.randrange(24))
        return out[:CMD_MAX - 8]

    def launch_payload(self):
        r = self.r
        code = self.pick(lambda: GARBAGE + r.randrange(64 << 10) // 2 * 2,
                         lambda: r.choice([r.getrandbits(64), 0x80_0010_0000,
                                           DRAM_END - 4, 0]))
        mask = self.pick(lambda: r.choice([1, 1, 2, 3, 1 << 32]),
                         lambda: r.choice([0, 1 << 40, r.getrandbits(64),
                                           0xffffffff]))
        exc = self.pick(lambda: r.choice([0, HEALTH + (8 << 20)]),
                        lambda: r.getrandbits(64))
        args = self.pick(lambda: HEALTH + (12 << 20) + r.randrange(1 << 20),
                         lambda: r.getrandbits(64))
        p = struct.pack('<QQQQ', code, args, exc, mask)
        flags = self.pick(lambda: r.choice([0, 0, 0x20, 0x40, 0x60]),
                          lambda: r.getrandbits(16))
        if flags & 0x40:
            p += self.pick(lambda: struct.pack('<II', 0x2000, 64),
                           lambda: struct.pack('<II', r.getrandbits(32),
                                               r.choice([63, 0, 1 << 20])))
        if flags & 0x20:
            p += r.randbytes(r.randrange(CMD_MAX - 8 - len(p)))
        if r.random() < 0.1:
            p = p[:r.randrange(len(p))]
        return p, flags

    def command(self, launched):
        """One well-formed command for an MM queue: (msg, payload, flags)."""
        r = self.r
        self.odds = 0.9 if r.random() < 0.5 else 0.3
        k = r.randrange(16)
        flags = r.getrandbits(16) if r.random() < 0.1 else \
            (1 if r.random() < 0.1 else 0)
        if k < 4:
            return MSG['writelist' if k < 2 else 'readlist'], \
                self.dma_payload(k < 2), flags
        if k < 7:
            p, f = self.launch_payload()
            return MSG['launch'], p, f
        if k < 9:
            tag = r.choice(launched) if launched and r.random() < 0.7 \
                else r.getrandbits(16)
            return r.choice([MSG['abort'], MSG['kernel_abort']]), \
                struct.pack('<H', tag) + r.randbytes(r.randrange(0, 16)), \
                flags
        if k < 12:
            return r.choice(sorted(KNOWN)), \
                r.randbytes(r.randrange(CMD_MAX - 8)), flags
        return r.getrandbits(16), r.randbytes(r.randrange(CMD_MAX - 8)), \
            flags

    def check_answer(self, cq, tag, msg, answers):
        if len(answers) != 1:
            raise FuzzError(f'command {msg} tag {tag}: {len(answers)} '
                            f'answers')
        mid, _, m = answers[0]
        if cq == SP_CQ:
            st = struct.unpack_from('<i', m, 16)[0] if len(m) >= 20 else 0
            if mid != msg or st == 0:
                raise FuzzError(f'SP command {msg}: answer {mid} status {st}')
            return
        want = msg + 1 if msg in KNOWN else MSG['fw_error']
        if mid != want:
            raise FuzzError(f'command {msg} tag {tag}: answer {mid}, want '
                            f'{want}')
        if mid == MSG['fw_error'] and struct.unpack_from('<Q', m, 8)[0] != msg:
            raise FuzzError(f'DEVICE_FW_ERROR for {msg} names '
                            f'{struct.unpack_from("<Q", m, 8)[0]}')
        st = ''
        if mid in (MSG['launch'] + 1, MSG['readlist'] + 1,
                   MSG['writelist'] + 1) and len(m) >= 36:
            st = f' status {struct.unpack_from("<I", m, 32)[0]}'
        self.stats[f'{msg if msg in KNOWN else "unknown"} -> {mid}{st}'] += 1

    # ---- one round -------------------------------------------------------------
    def round(self, n):
        r = self.r
        control = MM_QUEUES[n % 4]
        queues = [q for q in MM_QUEUES if q != control]
        got = collections.defaultdict(list)
        sent, launched = [], []
        self.aborts = []
        if r.random() < 0.15:
            self.bad_size(r.choice(queues + [SP_SQ]), got)
        for _ in range(r.randrange(1, 9)):
            tag = self.fresh_tag(got)
            if r.random() < 0.15:
                q, cq = SP_SQ, SP_CQ
                msg = r.choice([0, 1, 52, r.getrandbits(16)])
                payload = r.randbytes(r.randrange(CMD_MAX - 8))
                flags = r.getrandbits(16) if r.random() < 0.2 else 0
            else:
                q, cq = r.choice(queues), MM_CQ
                msg, payload, flags = self.command(launched)
                if msg == MSG['launch']:
                    launched.append(tag)
            data = self.cmd(msg, tag, payload, flags)
            if q in HP_QUEUES and len(data) > HP_ROOM:
                q = r.choice([x for x in queues if x not in HP_QUEUES])
            self.push(q, data, doorbell=r.random() < 0.9 or q == SP_SQ,
                      control=control, got=got)
            self.commands += 1
            sent.append((cq, tag, msg))
            if r.random() < 0.2:
                time.sleep(r.random() * 0.2)
        # a doorbell for any command pushed without one
        self.card.link.write32(self.card.bar2 + fw_tests.MM_DOORBELL, 1)
        self.wait_answers([(cq, t) for cq, t, _ in sent] + self.aborts, got,
                          f'round {n}', control)
        for cq, tag, msg in sent:
            self.check_answer(cq, tag, msg, got[(cq, tag)])
        self.healthy(n, control)

    def bad_size(self, q, got):
        """A command whose size field is wrong, alone in queue @q: the
        queue is dropped (emptied) and nothing is answered."""
        r = self.r
        tag = self.fresh_tag(got)
        payload = r.randbytes(r.randrange(
            HP_ROOM - 8 if q in HP_QUEUES else CMD_MAX - 8))
        size = r.choice([0, 1, 7, 8 + len(payload) + r.randrange(1, 64),
                         CMD_MAX + 1 + r.randrange(1 << 15), 0xffff])
        if size == CMD_MAX + 1 and 8 + len(payload) >= size:
            size = 0xffff
        self.push(q, self.cmd(r.getrandbits(16), tag, payload, size=size))
        self.commands += 1
        self.stats['bad size'] += 1
        deadline = time.monotonic() + ANSWER_WAIT
        while self.card.r64(q) != self.card.r64(q + 8):
            if time.monotonic() > deadline:
                raise FuzzError(f'a command of size {size} (for '
                                f'{8 + len(payload)} bytes) stays in SQ '
                                f'0x{q:x}')
            time.sleep(0.02)
        time.sleep(0.05)
        for cq in (MM_CQ, SP_CQ):
            self.drain(cq, got)
        if got[(MM_CQ, tag)] or got[(SP_CQ, tag)]:
            raise FuzzError(f'a command of size {size} was answered')

    # ---- good commands ---------------------------------------------------------
    def dma_ok(self, dev, data):
        st = self.card.to_card(dev, data)
        if st != 0:
            raise FuzzError(f'health: writelist of {len(data)} B: status {st}')

    def healthy(self, n, q):
        c, r = self.card, self.r
        got = collections.defaultdict(list)
        tag = self.fresh_tag(got)
        self.push(q, self.cmd(MSG['echo'], tag, bytes(8)))
        self.wait_answers([(MM_CQ, tag)], got, 'health: echo')
        if got[(MM_CQ, tag)][0][0] != 518:
            raise FuzzError(f'health: echo answered {got[(MM_CQ, tag)]}')
        if n % 4:
            return
        data = r.randbytes(4096)
        self.dma_ok(HEALTH, data)
        st, back = c.from_card(HEALTH, 4096)
        if st != 0 or back != data:
            raise FuzzError(f'health: readlist status {st}, data '
                            f'{"ok" if back == data else "wrong"}')
        a = [r.getrandbits(31) for _ in range(VECADD_N)]
        b = [r.getrandbits(31) for _ in range(VECADD_N)]
        va, vb, vr, vargs = (HEALTH + 0x10_0000 * k for k in range(1, 5))
        self.dma_ok(va, struct.pack(f'<{VECADD_N}i', *a))
        self.dma_ok(vb, struct.pack(f'<{VECADD_N}i', *b))
        self.dma_ok(vr, bytes(4 * VECADD_N))
        self.dma_ok(vargs, struct.pack('<QQQi4x', va, vb, vr, VECADD_N))
        entry = c.load_elf(os.path.join(self.guest, 'vecadd.elf'))
        st = c.launch_status(c.launch(entry, vargs, 1), timeout=ANSWER_WAIT)
        _, back = c.from_card(vr, 4 * VECADD_N)
        want = [(x + y + (1 << 31)) % (1 << 32) - (1 << 31)
                for x, y in zip(a, b)]
        if st != 0 or list(struct.unpack(f'<{VECADD_N}i', back)) != want:
            raise FuzzError(f'health: vecadd.elf status {st}, sums '
                            f'{"ok" if st == 0 else "not checked"}')

    def close(self):
        self.card.close()


def fuzz_one(root, seed, count):
    """@count rounds of @seed: (failure or None, commands, stats)."""
    try:
        f = Fuzzer(root, seed)
    except (hl.LinkError, OSError, FuzzError, AssertionError) as e:
        return f'the card did not boot: {e}', 0, collections.Counter()
    failure, done = None, 0
    try:
        for n in range(count):
            done = n
            f.round(n)
    except (FuzzError, hl.LinkError, OSError, AssertionError) as e:
        failure = f'round {done}: {e}\n' + f.card.logs()
    finally:
        f.close()
    return failure, f.commands, f.stats


def fuzz(root, seed, count, runs, log=print):
    """@runs seeds from @seed: (failures, commands, what was answered)."""
    return each_seed('devapi_fuzz.py', seed, count, runs,
                     lambda s: fuzz_one(root, s, count), log)


def main():
    return fuzz_seeds.main(__doc__, 'devapi_fuzz', 100, 'commands',
                           lambda a: fuzz(a.build, a.seed, a.count, a.runs))


if __name__ == '__main__':
    sys.exit(main())
