#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The file-level call graph of hw/etsoc1 and its cycles.

An extern function is defined in the file whose top level opens its
body; a call is its name followed by '(' anywhere in another file's code
(comments and strings removed; calls through headers' inline functions
and function pointers are not seen).  Prints each file's callees, then the
strongly connected components of more than one file: the cycles of calls.
With --nature, the edges a CPU and its devices have by nature are left
out first (below).
Usage: tools/callgraph.py [--nature] [DIR] (default hw/etsoc1)."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARGS = [a for a in sys.argv[1:] if not a.startswith('--')]
DIR = ARGS[0] if ARGS else os.path.join(ROOT, 'hw', 'etsoc1')


def code(path):
    text = open(path).read()
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)


files = {f[:-2].replace('etsoc1-', ''): code(os.path.join(DIR, f))
         for f in sorted(os.listdir(DIR)) if f.endswith('.c')}
defs = {}
for f, text in files.items():
    for m in re.finditer(r'^([A-Za-z_][\w \*]*?)\b(\w+)\([^;{]*?\)\s*\{',
                         text, re.M):
        if not re.search(r'\bstatic\b', m.group(1)):   # only those others see
            defs.setdefault(m.group(2), f)
edges = {f: set() for f in files}
for f, text in files.items():
    for name in set(re.findall(r'\b(\w+)\s*\(', text)):
        g = defs.get(name)
        if g and g != f:
            edges[f].add(g)
for f in files:
    print(f'{f} -> {", ".join(sorted(edges[f])) or "-"}')

# --nature: leave out the edges that are the nature of a CPU and its
# devices (issue 26): a unit's calls of the minion (units block, wake and
# clock a hart; the shire owns its harts) and a global write waking the
# polls on its line (l3 -> sync).  The minion's own calls stay.
if '--nature' in sys.argv:
    for f in edges:
        edges[f] = {g for g in edges[f] if g != 'minion' and
                    (f, g) != ('l3', 'sync')}

# Tarjan's strongly connected components
index, low, stack, on, sccs = {}, {}, [], set(), []


def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))


sys.setrecursionlimit(10000)
for v in files:
    if v not in index:
        visit(v)
for c in sccs:
    print(f'cycle of {len(c)} files: {", ".join(c)}')
if not sccs:
    print('no cycle')
