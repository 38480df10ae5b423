# SPDX-License-Identifier: GPL-2.0-or-later
"""What the timing probes should measure, from ../shared/spec/timing.md.

Written for the tests and bench/fidelity, independently of the emulator's
own table (hw/etsoc1/etsoc1-timing.c): the silicon constants and the
shire map are copied here from timing.md.  expected() turns a probe line
into the silicon value at a given minion clock; checks() compares every
probe with it.
"""
import re

# timing.md 2: the 6x6 map, rows y = 0..5; None = no compute shire
MAP = [[0, 24, 9, 25, 2, 11],
       [8, 16, 1, 17, 10, 19],
       [3, 4, 13, 14, 18, 27],
       [None, 12, 21, 22, 26, None],
       [None, 20, 29, 30, 15, 23],
       [None, 28, 5, 6, 7, 31]]
POS = {s: (x, y) for y, row in enumerate(MAP) for x, s in enumerate(row)
       if s is not None}
RING = [0, 24, 9, 25, 2, 11, 19, 27, 18, 10, 17, 14, 22, 26, 15, 23, 31, 7,
        6, 30, 29, 5, 28, 20, 12, 21, 13, 1, 16, 4, 3, 8]

# timing.md 3, at 600 MHz (cycles) or in ns
MSG_RTT = {'tree': 68, 'xbar': 114}
# the tree edges of an 8-minion neighbourhood (minions 0-7 in it)
TREE = {frozenset(e) for e in ((0, 1), (0, 2), (0, 4), (2, 3), (4, 5),
                               (4, 6), (6, 7))}
MSG_RTT_MESH, MESH_HOP_NS = 150, 20          # + 20 ns (12 cycles) per hop
STREAM = {'tree': (40, 2.3), 'xbar': (86, 4.0), 'near': (135, 3.0),
          'far': (224, 4.6)}
CREDIT_RTT_SHIRE = 120
CREDIT_RTT_MESH_NS, CREDIT_HOP_NS = 234, 24
# our choice (docs/timing.md, fast local barrier): an FLB access is one
# trip to the shire's barrier unit and back; the in-shire credit round
# trip is two such trips
FLB_RTT = CREDIT_RTT_SHIRE / 2
# our choice (docs/timing.md, fast local barrier): the unit serves one
# access at a time, one per slot of the in-shire crossbar, the crossbar
# stream's cost per 32 B register
FLB_SERVICE = STREAM['xbar'][1]
# our choice (docs/timing.md, "One sub-bank at a time"): each of the home
# slice's L3_BANKS sub-banks does one global write at a time, each holding
# it this long; a line's sub-bank is its set (PA >> 11) modulo L3_BANKS
L3_BANK_SERVICE = 2
L3_BANKS = 16
# fitted (docs/timing.md, "Contention"): a shire's mesh port passes a 64 B
# line of a TensorLoad from another shire in this many ns
MESH_PORT_TLOAD_NS = 2.13
# our choice (docs/timing.md, "Mesh links"): a mesh link passes a 64 B
# line of a TensorLoad between shires in this many ns, half of what a
# port takes
MESH_LINK_TLOAD_NS = MESH_PORT_TLOAD_NS / 2
# ... and one 32 B register of a tensor message in this many ns, a third
# of the fitted mesh.port.reg (8.5 ns)
MESH_LINK_REG_NS = 2.83
# our choice from public figures (docs/timing.md, "Contention"): a memory
# shire's DRAM passes one 64 B line per this many ns
DRAM_LINE_NS = 3.75
TOLERANCE = 0.05                             # issue 5: +-5% per mechanism

# timing.md 5, cycles
TFMA = {'alone': {'fp32': 546, 'fp16': 546, 'int8': 318},
        'pipelined': {'fp32': 529, 'fp16': 529, 'int8': 280}}
TLOAD = {'l2': {16: 160, 8: 81, 4: 45},
         'dram': {16: 730, 8: 320, 4: 144, 1: 73}}

# timing.md 4: L3 and DRAM legs in cycles at 600 MHz (fixed in ns), the
# remote scratchpad in cycles + ns
L3_HIT_600, DRAM_LEG_600 = 110, 91
L2_HIT = 47                                  # cycles, own shire
L2_RBUF = 36                                 # cycles, L2 read buffer
# timing.md 4: an L1 hit (what every load costs) and what hart 1 adds to
# each L1 miss, cycles
L1_HIT, HART1_MISS = 5, 3
# our choice (docs/timing.md, "The cache model"): a dirty L1 line's
# write-back to the L2 costs this share of an L2 hit (one of its two ways)
L1_WRITEBACK = 0.5
SCP_REMOTE_CYC, SCP_REMOTE_NS = 66, 56


def memshire_hops(shire, m):
    """Hops from a shire to memory shire m (0-3 above, 4-7 below)."""
    x, y = POS[shire]
    return abs(x - (1 + m % 4)) + abs(y - (-1 if m < 4 else 6))


def hops(a, b):
    (ax, ay), (bx, by) = POS[a], POS[b]
    return abs(ax - bx) + abs(ay - by)


def route(a, b):
    """The mesh links from shire @a to shire @b, X first, then Y (our
    choice, docs/timing.md "Mesh links"): ((x, y), (x', y')) each."""
    (x, y), (bx, by) = POS[a], POS[b]
    links = []
    while x != bx:
        links.append(((x, y), (x + (1 if bx > x else -1), y)))
        x += 1 if bx > x else -1
    while y != by:
        links.append(((x, y), (x, y + (1 if by > y else -1))))
        y += 1 if by > y else -1
    return links


def busiest_link(pairs):
    """How many of the routes of @pairs ((from, to) shires) share the
    busiest mesh link."""
    count = {}
    for a, b in pairs:
        for link in route(a, b):
            count[link] = count.get(link, 0) + 1
    return max(count.values(), default=0)


def ns(t, mhz):
    return t * mhz / 1000


def l3_hit(shire, home, mhz=600):
    """A global access from @shire that hits at slice @home (timing.md 4)."""
    return L3_HIT_600 * mhz / 600 + hops(shire, home) * ns(MESH_HOP_NS, mhz)


def l3_miss(shire, home, mhz=600, mem=None):
    """The same, missing: on to memory shire @mem (PA[8:6]) and back."""
    mem = home % 8 if mem is None else mem
    return (l3_hit(shire, home, mhz) + DRAM_LEG_600 * mhz / 600 +
            memshire_hops(home, mem) * ns(MESH_HOP_NS, mhz))


def chase_step(level, hart=0, base=0, lines=0, target=None, mhz=600):
    """Cycles per step of probes/cache-timing's pointer chase from shire 0
    (ld, addi, bnez): the load-to-use latency of @level (timing.md 4) and
    the two loop instructions.  For l3 and dram the mean over the @lines
    lines from @base, each at its home slice PA[10:6] and memory shire
    PA[8:6]; each line's latency is rounded, as the hart's clock counts."""
    loop = 2
    if level in ('l1', 'prefetch', 'locked'):
        return L1_HIT + loop
    if level == 'rbuf':
        return L2_RBUF + (HART1_MISS if hart else 0) + loop
    if level in ('l2', 'scp', 'evict-sw', 'unlocked', 'rbuf-full',
                 'l2-again'):
        return L2_HIT + (HART1_MISS if hart else 0) + loop
    if level == 'remote':
        # load-to-use of timing.md 4 (the model charges the round trip on
        # top of the load's own L1 hit: 5 cycles more, as before issue 27)
        return SCP_REMOTE_CYC + ns(SCP_REMOTE_NS + hops(0, target) *
                                   MESH_HOP_NS, mhz) + loop
    if level in ('l3-home', 'dram-home'):
        # every line of the chain at one home slice, PA[10:6]
        home = (base >> 6) % 32
        return round(l3_hit(0, home, mhz) if level == 'l3-home'
                     else l3_miss(0, home, mhz)) + loop
    lats = []
    for i in range(lines):
        line = (base >> 6) + i
        home, mem = line % 32, line % 8
        # l2-small: L2 misses that the L3 serves (its warm pass filled it)
        lats.append(round(l3_hit(0, home, mhz) if level in ('l3', 'l2-small')
                          else l3_miss(0, home, mhz, mem)))   # dram
    return sum(lats) / lines + loop


def msg_rtt(path, mhz=600):
    """TensorSend round trip on @path: 'tree', 'xbar' or (shire, shire)."""
    if path in MSG_RTT:
        return MSG_RTT[path]
    return MSG_RTT_MESH + hops(*path) * ns(MESH_HOP_NS, mhz)


def probe_path(args):
    """The path a probe line names: 'tree', 'xbar' or (shire, shire)."""
    if 'shires' in args:
        return tuple(map(int, args['shires'].split(',')))
    return next(p for p in MSG_RTT if p in args)


def recv_late(path, mhz=600):
    """A receive posted after its send: the ready's way to the sender and
    the data's way back, the round trip of the path."""
    return msg_rtt(path, mhz)


def recv_early(path, mhz=600):
    """A receive posted before its send: the data's one way."""
    return msg_rtt(path, mhz) / 2


def flb_served(arrivals, service=FLB_SERVICE):
    """When a unit that serves one access at a time, @service cycles
    each, in time order, is done with the last of @arrivals."""
    end = 0
    for a in sorted(arrivals):
        end = max(end, a) + service
    return end


def flb_barrier(stagger, n=32, rtt=FLB_RTT, service=FLB_SERVICE):
    """A barrier of @n minions, minion m arriving m x @stagger after the
    first: the accesses' way to the unit, the unit serving them one at a
    time in the order they arrive, the answer to the one that completes
    the barrier back."""
    return flb_served([m * stagger + rtt / 2 for m in range(n)],
                      service) + rtt / 2


def flb_access(rtt=FLB_RTT, service=FLB_SERVICE):
    """With flb-order=off, an access that does not complete the barrier:
    answered as if it found the unit free (docs/timing.md: its true turn
    may depend on arrivals the host has not run yet)."""
    return rtt + service


def flb_accesses(stagger, n=32, rtt=FLB_RTT, service=FLB_SERVICE):
    """With flb-order (the default), the n - 1 accesses of flb_barrier's
    barrier that do not complete it, each from its issue to its answer:
    served in its turn, after the arrivals before it."""
    arr = [m * stagger + rtt / 2 for m in range(n)]
    return [flb_served(arr[:k + 1], service) + rtt / 2 - k * stagger
            for k in range(n - 1)]


def flb_credit(stagger, n=32):
    """The same barrier whose last arrival credits all @n (fcc_credinc),
    each waiting on fcc: the barrier, then one in-shire credit."""
    return flb_barrier(stagger, n) + CREDIT_RTT_SHIRE / 2


def parse(text):
    """[(name, {key: value}, cycles)] of the 'probe' lines of a run."""
    probes = []
    for line in text.splitlines():
        m = re.match(r'^probe (\S+)((?: \S+)*) cycles=(\d+)$', line)
        if not m:
            continue
        args = {}
        for word in m.group(2).split():
            k, _, v = word.partition('=')
            args[k] = v
        probes.append((m.group(1), args, int(m.group(3))))
    return probes


def expected(name, args, mhz=600):
    """(mechanism label, silicon cycles) of a probe, or None."""
    if name in ('msg-rtt', 'msg-combine') and 'shires' in args:
        a, b = map(int, args['shires'].split(','))
        h = hops(a, b)
        return (f'TensorSend round trip, shires {a}-{b} ({h} hops)',
                MSG_RTT_MESH + h * ns(MESH_HOP_NS, mhz))
    if name in ('msg-rtt', 'msg-combine'):
        path = next(iter(args))
        what = 'TensorSend round trip' if name == 'msg-rtt' else \
            f'the same, receiving with {args["func"]} (combine = move)'
        return f'{what}, {path}', MSG_RTT[path]
    if name in ('recv-late', 'recv-early'):
        path = probe_path(args)
        where = (f'shires {path[0]}-{path[1]} ({hops(*path)} hops)'
                 if isinstance(path, tuple) else path)
        if name == 'recv-late':
            return (f'late receive (posted after the send): round trip, '
                    f'{where}', recv_late(path, mhz))
        return (f'early receive (posted before the send): one way, {where}',
                recv_early(path, mhz))
    if name == 'stream':
        path, n = next(iter(args)), int(args['regs'])
        fixed, reg = STREAM[path]
        return f'streamed message, {path}, {n} regs', fixed + reg * n
    if name == 'credit-rtt':
        a, b = map(int, args['minions'].split(','))
        sa, sb = a // 32, b // 32
        if sa == sb:
            return 'credit round trip in a shire', CREDIT_RTT_SHIRE
        h = hops(sa, sb)
        return (f'credit round trip, shires {sa}-{sb} ({h} hops)',
                ns(CREDIT_RTT_MESH_NS + h * CREDIT_HOP_NS, mhz))
    if name in ('l3-hit', 'l3-miss'):
        a, home = int(args['shire']), int(args['home'])
        h = hops(a, home)
        if name == 'l3-hit':
            return (f'L3 hit, shire {a} to home {home} ({h} hops)',
                    l3_hit(a, home, mhz))
        mem = int(args['mem'])
        return (f'L3 miss to DRAM, shire {a}, home {home} ({h} hops), memory '
                f'shire {mem} ({memshire_hops(home, mem)} hops)',
                l3_miss(a, home, mhz, mem))
    if name == 'scp-load':
        a, b = int(args['shire']), int(args['target'])
        h = hops(a, b)
        return (f'remote scratchpad load, shire {a} to {b} ({h} hops)',
                SCP_REMOTE_CYC + ns(SCP_REMOTE_NS + h * MESH_HOP_NS, mhz))
    if name.startswith('tfma-'):
        mode, typ = name[5:], next(iter(args))
        what = {'masked': 'alone, tensor_mask 0x5555 (no time change)',
                'zero': 'alone, A all +0.0 (zero skip: no time change)'}
        return (f'TensorFMA {typ}, {what.get(mode, mode)}',
                TFMA['alone' if mode in what else mode][typ])
    if name == 'cache-chase':
        level, hart = args['level'], int(args['hart'])
        where = {'l1': 'in the L1', 'l2': 'in the shire\'s L2',
                 'evict-sw': 'in the L1, then evict_sw of every set and way '
                             'to the L2',
                 'scp': 'in the own L2 scratchpad',
                 'l3': 'in the L3 (evict_va to L3), mean over its lines',
                 'dram': 'in DRAM (evict_va to memory), mean over its lines',
                 'l2-small': 'of 4,096 lines, the L2 at 128 KiB '
                             '(sc_l2_cache_ctl): L2 misses, from the L3 '
                             'its warm pass filled',
                 'l2-again': 'of 4,096 lines, the L2 back at 512 KiB',
                 'l3-home': f'in the L3 at home slice {args.get("home")} '
                            f'({args.get("hops")} hops; evict_va to L3)',
                 'dram-home': f'in DRAM behind home slice {args.get("home")} '
                              f'({args.get("hops")} hops; evict_va to '
                              f'memory)',
                 'prefetch': 'prefetched to the L1 (prefetch_va)',
                 'rbuf': 'of 6 lines of one L1 set: L1 misses that hit the '
                         'L2\'s read buffer',
                 'rbuf-full': 'of 12 lines of one L1 set: past the read '
                              'buffer, L2 hits',
                 'unlocked': 'of 2 lines, after a stream through their L1 '
                             'set',
                 'locked': 'of 2 lines soft-locked (lock_va), after a '
                           'stream through their L1 set',
                 'remote': f'in shire {args.get("shire")}\'s scratchpad '
                           f'({args.get("hops")} hops)'}[level]
        return (f'pointer chase (ld, addi, bnez), chain {where}, hart '
                f'{hart}, per step',
                chase_step(level, hart, int(args.get('base', '0'), 16),
                           int(args['lines']),
                           int(args['shire']) if 'shire' in args else None,
                           mhz))
    if name == 'cache-flush':
        return ('flush_va to the L2 of a dirty line less that of the clean '
                'line: its write-back (our choice: l1.writeback x l2.hit)',
                L1_WRITEBACK * L2_HIT)
    if name.startswith('tload-'):
        src, rows = name[6:], int(args['rows'])
        # from DRAM a leg fixed in ns (timing.md 1); from L2 in cycles
        scale = mhz / 600 if src == 'dram' else 1
        return (f'TensorLoad from {src}, {rows} rows',
                TLOAD[src][rows] * scale)
    return None


def chase_steps(args):
    """Steps of a probes/cache-timing pass: 4,096, or one pass over the
    chain for the prefetch, remote, locking and per-home rows."""
    return int(args['lines']) \
        if args['level'] in ('prefetch', 'remote', 'evict-sw', 'locked',
                             'unlocked', 'l3-home', 'dram-home') \
        else 4096


def checks(probes, mhz=600):
    """[(mechanism, silicon, emulated, ratio, ok)] for each known probe."""
    rows = []
    for name, args, cycles in probes:
        exp = expected(name, args, mhz)
        if exp is None:
            continue
        if name == 'cache-chase':
            # mcycle across the pass, the reading csrr included: per step
            cycles = round((cycles - 1) / chase_steps(args), 2)
        if name == 'cache-flush':
            # the dirty round less the clean one: the write-back alone
            cycles -= int(args['clean'])
        label, silicon = exp
        ratio = cycles / silicon
        rows.append((label, silicon, cycles, ratio,
                     abs(ratio - 1) <= TOLERANCE))
    return rows


def hop_slope(probes, kind='msg-rtt'):
    """Least-squares cycles per hop over the shire-pair round trips of
    messages (msg-rtt) or of credits across shires (credit-rtt)."""
    if kind == 'msg-rtt':
        pts = [(hops(*map(int, a['shires'].split(','))), c)
               for n, a, c in probes if n == kind and 'shires' in a]
    else:
        pts = [(hops(*(int(m) // 32 for m in a['minions'].split(','))), c)
               for n, a, c in probes if n == kind and
               len({int(m) // 32 for m in a['minions'].split(',')}) == 2]
    if len(pts) < 2:
        return None
    mx = sum(h for h, _ in pts) / len(pts)
    my = sum(c for _, c in pts) / len(pts)
    sxx = sum((h - mx) ** 2 for h, _ in pts)
    return sum((h - mx) * (c - my) for h, c in pts) / sxx if sxx else None


def pair_rtt(probes):
    """{(a, b): cycles} of the shire-pair round trips, a < b."""
    return {tuple(map(int, a['shires'].split(','))): c
            for n, a, c in probes if n == 'msg-rtt' and 'shires' in a}
