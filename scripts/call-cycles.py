#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The .c files of libdice/, tools/ and bindings/ must not call each
other in a circle of any length (issue #31): the folders are layers
(library, CLI, bindings) and each file one concern, so every call goes
one way.

  call-cycles.py SRCDIR=OBJDIR...   the file graph of every SRCDIR/**.c
                                    (tests/ folders left out: programs, not
                                    parts), from the objects the Makefiles
                                    built, OBJDIR/**.o at the same relative
                                    path; a SRCDIR that does not exist (no
                                    bindings yet) is skipped
  call-cycles.py --self-test        build a tiny tree with a cycle and one
                                    without, and check that this script
                                    fails on the first only

File A -> file B when A's object refers to a global symbol B's object
defines (nm: U in A, T/D/B/R/... in B): exact for every function and
variable that is not static, and static ones never leave their file.
Symbols defined outside the tree (libc, the die core kmod/ built into
libdice) are not files of the graph.  Prints each circle, its files and
the symbols that close it, and exits 1; else one summary line.
"""
import os
import subprocess
import sys
import tempfile

DEFINED = set('TDBRCVGSW')  # W: a weak definition still defines
UNDEFINED = set('Uw')


def nm(obj):
    """(defined, undefined) global symbol names of one object."""
    out = subprocess.run(['nm', '-P', obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        name, kind = f[0], f[1]
        if kind in UNDEFINED:
            undefined.add(name)
        elif kind in DEFINED:
            defined.add(name)
    return defined, undefined


def sources(pairs):
    """[(source path, object path)] of every pair whose SRCDIR exists."""
    files = []
    for pair in pairs:
        if '=' not in pair:
            sys.exit(f'call-cycles: {pair}: expected SRCDIR=OBJDIR')
        src, obj = pair.split('=', 1)
        if not os.path.isdir(src):
            print(f'# call-cycles: no {src}: skipped')
            continue
        for root, dirs, names in os.walk(src):
            dirs[:] = sorted(d for d in dirs if d != 'tests')
            for n in sorted(names):
                if n.endswith('.c'):
                    rel = os.path.relpath(os.path.join(root, n), src)
                    files.append((os.path.join(root, n),
                                  os.path.join(obj, rel[:-2] + '.o')))
    return files


def graph(files):
    """{file: {file it uses: [symbols]}} and the number of files."""
    definer, uses = {}, {}
    for src, obj in files:
        if not os.path.exists(obj):
            sys.exit(f'call-cycles: {src}: no object {obj} (build first)')
        defined, undefined = nm(obj)
        uses[src] = undefined
        for s in defined - {'main'}:
            if s in definer:
                sys.exit(f'call-cycles: {s} defined in {definer[s]} and {src}')
            definer[s] = src
    edges = {src: {} for src in uses}
    for src, undefined in uses.items():
        for s in sorted(undefined):
            to = definer.get(s)
            if to and to != src:
                edges[src].setdefault(to, []).append(s)
    return edges


def components(edges):
    """Strongly connected components (Tarjan), iteratively."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def one_cycle(edges, comp):
    """A shortest circle through the first file of @comp, within it."""
    start, inside = comp[0], set(comp)
    prev, queue = {start: None}, [start]
    for v in queue:
        for w in sorted(edges[v]):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in inside and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def check(pairs):
    edges = graph(sources(pairs))
    circles = [c for c in components(edges) if len(c) > 1]
    nedges = sum(len(v) for v in edges.values())
    for comp in circles:
        cycle = one_cycle(edges, comp)
        print(f'call-cycles: circle of {len(cycle) - 1} files: '
              + ' -> '.join(cycle))
        for a, b in zip(cycle, cycle[1:]):
            syms = edges[a][b]
            more = f' (+{len(syms) - 3})' if len(syms) > 3 else ''
            print(f'    {a} -> {b}: {", ".join(syms[:3])}{more}')
        if len(comp) > len(cycle) - 1:
            print(f'    (all {len(comp)} files of this tangle: '
                  + ' '.join(comp) + ')')
    if circles:
        return 1
    print(f'call-cycles: {len(edges)} files, {nedges} file-to-file '
          'dependencies, no circle')
    return 0


def self_test():
    """A circle a -> b -> c -> a must fail; the same tree without c -> a
    must pass.  Built with the same cc and nm as the real check."""
    tree = {
        'a.c': 'int b(void); int a(void) { return b(); }\n',
        'b.c': 'int c(void); int b(void) { return c(); }\n',
        'c.c': 'int a(void); int c(void) { return a(); }\n',
        'tests/t.c': 'int a(void); int main(void) { return a(); }\n',
    }
    fine = dict(tree, **{'c.c': 'int c(void) { return 0; }\n'})
    with tempfile.TemporaryDirectory() as tmp:
        results = []
        for name, files in (('circle', tree), ('fine', fine)):
            src, obj = (os.path.join(tmp, name, d) for d in ('src', 'obj'))
            for rel, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(src, rel)),
                            exist_ok=True)
                with open(os.path.join(src, rel), 'w') as f:
                    f.write(text)
                if rel.startswith('tests/'):
                    continue
                os.makedirs(obj, exist_ok=True)
                subprocess.run(['cc', '-c', '-o',
                                os.path.join(obj, rel[:-2] + '.o'),
                                os.path.join(src, rel)], check=True)
            r = subprocess.run([sys.executable, os.path.abspath(__file__),
                                f'{src}={obj}',
                                os.path.join(tmp, 'absent') + '=' + obj],
                               capture_output=True, text=True)
            results.append((r.returncode, r.stdout))
    (rc_circle, out_circle), (rc_fine, out_fine) = results
    ok = (rc_circle == 1 and 'circle of 3 files' in out_circle
          and 'a.c -> ' in out_circle and rc_fine == 0
          and 'no circle' in out_fine)
    print(f'call-cycles self-test: a 3-file circle '
          f'{"fails" if rc_circle == 1 else "PASSES"}, '
          f'the tree without it {"passes" if rc_fine == 0 else "FAILS"}')
    if not ok:
        print(out_circle + out_fine)
    return 0 if ok else 1


if __name__ == '__main__':
    if sys.argv[1:] == ['--self-test']:
        sys.exit(self_test())
    if not sys.argv[1:]:
        sys.exit(__doc__)
    sys.exit(check(sys.argv[1:]))
