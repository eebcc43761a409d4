#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# test-include-cycles.py — the `#include "rk-*.h"` graph of a source folder
# has no cycle: dependencies between modules point one way.
#
# A module is a header's stem with its .c, its -private.h and the .c files
# that split the class (rk-chart-axes.c belongs to rk-chart when there is no
# rk-chart-axes.h). Prints TAP; on a cycle, names each step and the file
# whose #include makes it.

import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"(rk-[^"/]+\.h)"', re.M)


def stem_of(name):
    stem = os.path.splitext(name)[0]
    if stem.endswith('-private'):
        stem = stem[:-len('-private')]
    return stem


def module_of(name, stems):
    parts = stem_of(name).split('-')
    for n in range(len(parts), 0, -1):
        candidate = '-'.join(parts[:n])
        if candidate in stems:
            return candidate
    return stem_of(name)


def build_graph(folder):
    files = sorted(f for f in os.listdir(folder)
                   if f.startswith('rk-') and f.endswith(('.c', '.h')))
    stems = {stem_of(f) for f in files if f.endswith('.h')}
    headers = {f for f in files if f.endswith('.h')}
    edges = {}  # module -> {module: file that includes it}
    for f in files:
        src = module_of(f, stems)
        edges.setdefault(src, {})
        with open(os.path.join(folder, f), encoding='utf-8') as fh:
            text = fh.read()
        for inc in INCLUDE.findall(text):
            if inc not in headers:
                continue
            dst = module_of(inc, stems)
            if dst != src:
                edges[src].setdefault(dst, '%s includes %s' % (f, inc))
    return edges


def strongly_connected(edges):
    """Tarjan's algorithm, iterative; returns components of two or more."""
    index, low, on_stack, stack, result = {}, {}, set(), [], []
    counter = [0]

    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, {}))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, {})))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    result.append(sorted(component))
    return result


def one_cycle(edges, component):
    """A shortest cycle through the first module of @component."""
    members = set(component)
    start = component[0]
    previous = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(edges.get(node, {})):
            if child not in members:
                continue
            if child == start:
                path = [node]
                while previous[path[-1]] is not None:
                    path.append(previous[path[-1]])
                path.reverse()
                return path + [start]
            if child not in previous:
                previous[child] = node
                queue.append(child)
    return component + [component[0]]


def main():
    folders = sys.argv[1:]
    print('1..%d' % len(folders))
    failed = 0
    for number, folder in enumerate(folders, 1):
        edges = build_graph(folder)
        components = strongly_connected(edges)
        name = os.path.basename(os.path.normpath(folder))
        if not components:
            print('ok %d - no include cycle among the %d modules of %s'
                  % (number, len(edges), name))
            continue
        failed += 1
        print('not ok %d - %d include cycle(s) in %s' % (number, len(components), name))
        for component in components:
            cycle = one_cycle(edges, component)
            print('# cycle: %s' % ' -> '.join(cycle))
            for a, b in zip(cycle, cycle[1:]):
                print('#   %s -> %s: %s' % (a, b, edges[a][b]))
            if len(component) > len(cycle) - 1:
                print('#   (all tied together: %s)' % ', '.join(component))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
