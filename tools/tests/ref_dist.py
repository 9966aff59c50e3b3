#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check `dice --dist --json` against brute-force enumeration.

Usage: ref_dist.py DICE NOTATION SPEC [DICE-OPTION]...

SPEC is a Python expression for a list of terms, each a constant (int) or a
dict describing one dice group with the keys
    n        number of dice
    faces    face values (list or range)
    weights  optional weights, one per face
    reroll   optional ('always' | 'once', [compare, ...])
    explode  optional ('sep' | 'compound', compare)
    limit    explosions per die (default 100)
    keep     optional ('h' | 'l', k)
    success  optional compare; failure optional compare
    sign     optional -1 to subtract the term
A compare is a pair such as ('>=', 5).  The reference enumerates every
sequence of faces (explosions included, so keep limits small), which is an
implementation independent of tools/dist.c.  Exit 0 when the distributions
are equal as exact fractions, 1 otherwise.
"""
import json
import subprocess
import sys
from collections import defaultdict
from fractions import Fraction
from itertools import product

OPS = {
    '=': lambda v, n: v == n,
    '<': lambda v, n: v < n,
    '<=': lambda v, n: v <= n,
    '>': lambda v, n: v > n,
    '>=': lambda v, n: v >= n,
}


def match(c, v):
    return c is not None and OPS[c[0]](v, c[1])


def face_law(g):
    faces = list(g['faces'])
    weights = g.get('weights') or [1] * len(faces)
    total = sum(weights)
    law = defaultdict(Fraction)
    for f, w in zip(faces, weights):
        law[f] += Fraction(w, total)
    return dict(law)


def roll_law(g):
    """Law of one roll after the reroll rule."""
    law = face_law(g)
    rr = g.get('reroll')
    if not rr:
        return law
    mode, rules = rr
    hit = lambda v: any(match(c, v) for c in rules)
    p_hit = sum(p for v, p in law.items() if hit(v))
    out = defaultdict(Fraction)
    if mode == 'always':
        for v, p in law.items():
            if not hit(v):
                out[v] += p / (1 - p_hit)
        return dict(out)
    for v, p in law.items():            # first roll
        if not hit(v):
            out[v] += p
        else:
            for v2, p2 in law.items():  # the one reroll
                out[v2] += p * p2
    return dict(out)


def chains(g, law, k=0):
    """Every chain of faces of one die: (probability, [faces])."""
    ex = g.get('explode')
    limit = g.get('limit', 100)
    out = []
    for v, p in law.items():
        if p == 0:
            continue
        if ex and match(ex[1], v) and k < limit:
            for q, rest in chains(g, law, k + 1):
                out.append((p * q, [v] + rest))
        else:
            out.append((p, [v]))
    return out


def group_dist(g):
    law = roll_law(g)
    slot = []
    for p, chain in chains(g, law):
        if g.get('explode') and g['explode'][0] == 'compound':
            slot.append((p, [sum(chain)]))
        else:
            slot.append((p, chain))
    dist = defaultdict(Fraction)
    for combo in product(slot, repeat=g['n']):
        p = Fraction(1)
        pool = []
        for q, dice in combo:
            p *= q
            pool += dice
        keep = g.get('keep')
        if keep:
            pool.sort(reverse=keep[0] == 'h')
            pool = pool[:keep[1]]
        if g.get('success'):
            score = sum(1 if match(g['success'], v) else
                        -1 if match(g.get('failure'), v) else 0 for v in pool)
        else:
            score = sum(pool)
        dist[score] += p
    return dist


def add(a, b, sign):
    out = defaultdict(Fraction)
    for x, p in a.items():
        for y, q in b.items():
            out[x + sign * y] += p * q
    return out


def main():
    dice, notation, spec = sys.argv[1:4]
    terms = eval(spec)  # test input, written by us
    total = {0: Fraction(1)}
    for t in terms:
        if isinstance(t, int):
            total = add(total, {t: Fraction(1)}, 1)
        else:
            total = add(total, group_dist(t), t.get('sign', 1))
    ref = {v: p for v, p in total.items() if p}

    out = subprocess.run([dice, '--dist', '--json', *sys.argv[4:], notation],
                         capture_output=True, text=True)
    if out.returncode:
        print(f'# dice exited {out.returncode}: {out.stderr.strip()}')
        return 1
    d = json.loads(out.stdout)
    den = int(d['denominator'])
    got = {e['value']: Fraction(int(e['count']), den) for e in d['distribution']}
    ok = True
    if got != ref:
        ok = False
        for v in sorted(set(got) | set(ref)):
            if got.get(v) != ref.get(v):
                print(f'# value {v}: dice {got.get(v)} reference {ref.get(v)}')
    mean = sum(v * p for v, p in ref.items())
    m = d['mean']
    if Fraction(int(m['numerator']), int(m['denominator'])) != mean:
        ok = False
        print(f"# mean: dice {m['numerator']}/{m['denominator']} reference {mean}")
    if ref and (d['min'] != min(ref) or d['max'] != max(ref)):
        ok = False
        print(f"# min/max: dice {d['min']}..{d['max']} reference {min(ref)}..{max(ref)}")
    # lowest terms: the counts and the denominator share no factor
    from math import gcd
    g = den
    for e in d['distribution']:
        g = gcd(g, int(e['count']))
    if g != 1:
        ok = False
        print(f'# not in lowest terms: common factor {g}')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
