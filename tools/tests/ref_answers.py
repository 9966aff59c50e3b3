#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check dice's exact answers against brute force on generated cases.

Usage: ref_answers.py DICE MODE COUNT [SEED]

MODE is one of
    versus  COUNT pairs A, B: `dice --versus --json A B` against
            P(A > B), P(A = B), P(A < B) summed over both laws
    count   COUNT cases (expression, repeats N, target): `dice --dist --json
            --count=TARGET NxEXPR` against the binomial law of the hits
    stats   COUNT expressions: `dice --dist --json` min, max, mean,
            variance and percentiles against the law

The expressions come from a small grammar whose law this script computes
itself, by enumerating faces with exact fractions: sums and differences of
NdS, NdSkhM/klM, NdF, custom faces with negative values, exploding dice
(--max-explode 2) and constants.  It shares no code with tools/dist*.c or
tools/versus.c.  Ties are sought on purpose: equal expressions, constants
at the other side's ends, ranges that touch.  Prints one line per mismatch
and exits 1 if there is any.
"""
import json
import random
import subprocess
import sys
from collections import defaultdict
from fractions import Fraction
from itertools import product

EXPLODE_LIMIT = 2


def convolve(a, b, sign=1):
    out = defaultdict(Fraction)
    for x, p in a.items():
        for y, q in b.items():
            out[x + sign * y] += p * q
    return dict(out)


def uniform(faces):
    law = defaultdict(Fraction)
    for f in faces:
        law[f] += Fraction(1, len(faces))
    return dict(law)


def exploding(sides):
    """One dS that rolls again on S, at most EXPLODE_LIMIT times."""
    law = defaultdict(Fraction)

    def go(total, depth, p):
        for f in range(1, sides + 1):
            q = p / sides
            if f == sides and depth < EXPLODE_LIMIT:
                go(total + f, depth + 1, q)
            else:
                law[total + f] += q
    go(0, 0, Fraction(1))
    return dict(law)


def keep(n, sides, hi, m):
    """NdS keeping the m highest (hi) or lowest."""
    law = defaultdict(Fraction)
    p = Fraction(1, sides ** n)
    for roll in product(range(1, sides + 1), repeat=n):
        kept = sorted(roll, reverse=hi)[:m]
        law[sum(kept)] += p
    return dict(law)


def term(rng):
    """(notation, law) of one random term."""
    kind = rng.choice(['dice', 'dice', 'dice', 'keep', 'fudge', 'custom',
                       'explode', 'const'])
    if kind == 'dice':
        n, s = rng.randint(1, 3), rng.choice([1, 2, 3, 4, 6, 8, 10, 12, 20])
        law = {0: Fraction(1)}
        for _ in range(n):
            law = convolve(law, uniform(range(1, s + 1)))
        return f'{n}d{s}', law
    if kind == 'keep':
        n, s = rng.randint(2, 4), rng.choice([2, 4, 6, 8])
        m, hi = rng.randint(1, n - 1), rng.random() < 0.5
        return f'{n}d{s}k{"h" if hi else "l"}{m}', keep(n, s, hi, m)
    if kind == 'fudge':
        n = rng.randint(1, 3)
        law = {0: Fraction(1)}
        for _ in range(n):
            law = convolve(law, uniform([-1, 0, 1]))
        return f'{n}dF', law
    if kind == 'custom':
        faces = [rng.randint(-4, 6) for _ in range(rng.randint(2, 5))]
        return 'd{' + ','.join(map(str, faces)) + '}', uniform(faces)
    if kind == 'explode':
        s = rng.choice([2, 3, 4, 6])
        return f'1d{s}!', exploding(s)
    k = rng.randint(0, 25)
    return str(k), {k: Fraction(1)}


def expression(rng):
    text, law = term(rng)
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        t, l2 = term(rng)
        if rng.random() < 0.3 and not t.startswith('-'):
            text, law = f'{text}-{t}', convolve(law, l2, -1)
        else:
            text, law = f'{text}+{t}', convolve(law, l2)
    return text, law


def tie_partner(rng, law):
    """An expression likely to tie with @law: a constant at its ends."""
    v = rng.choice([min(law), max(law), min(law) - 1, max(law) + 1])
    return str(v) if v >= 0 else f'0-{-v}', {v: Fraction(1)}


def run(dice, *args):
    out = subprocess.run([dice, '--max-explode', str(EXPLODE_LIMIT), *args],
                         capture_output=True, text=True, check=False)
    if out.returncode:
        raise RuntimeError(f'dice {" ".join(args)}: exit {out.returncode}: '
                           f'{out.stderr.strip()}')
    return json.loads(out.stdout)


def frac(j):
    return Fraction(int(j['numerator']), int(j['denominator']))


def check_versus(dice, rng, count):
    bad = 0
    for i in range(count):
        a, la = expression(rng)
        r = rng.random()
        if r < 0.1:
            b, lb = a, la
        elif r < 0.3:
            b, lb = tie_partner(rng, la)
        else:
            b, lb = expression(rng)
        if rng.random() < 0.5:
            a, la, b, lb = b, lb, a, la
        gt = sum(p * q for x, p in la.items() for y, q in lb.items() if x > y)
        eq = sum(p * q for x, p in la.items() for y, q in lb.items() if x == y)
        lt = 1 - gt - eq
        got = run(dice, '--versus', '--json', a, b)
        want = (gt, eq, lt)
        have = (frac(got['greater']), frac(got['equal']), frac(got['less']))
        if have != want:
            bad += 1
            print(f'versus {a!r} {b!r}: dice {have}, brute force {want}')
    return bad


OPS = {'>=': lambda v, t: v >= t, '<=': lambda v, t: v <= t,
       '>': lambda v, t: v > t, '<': lambda v, t: v < t,
       '': lambda v, t: v == t}


def check_count(dice, rng, count):
    bad = 0
    for i in range(count):
        e, law = expression(rng)
        n = rng.randint(2, 6)
        op = rng.choice(list(OPS))
        t = rng.choice([min(law), max(law), rng.randint(min(law), max(law))])
        if t < 0 and op == '':
            op = '>='
        p = sum(q for v, q in law.items() if OPS[op](v, t))
        binom = {k: Fraction(1) for k in range(n + 1)}
        for k in range(n + 1):
            c = 1
            for j in range(k):
                c = c * (n - j) // (j + 1)
            binom[k] = c * p ** k * (1 - p) ** (n - k)
        binom = {k: q for k, q in binom.items() if q}
        try:
            got = run(dice, '--dist', '--json', f'--count={op}{t}',
                      f'{n}x{e}')
        except RuntimeError as err:
            bad += 1
            print(f'count {op}{t} of {n}x{e}: {err}')
            continue
        den = int(got['denominator'])
        have = {d['value']: Fraction(int(d['count']), den)
                for d in got['distribution'] if int(d['count'])}
        if have != binom:
            bad += 1
            print(f'count {op}{t} of {n}x{e}: dice {have}, brute force {binom}')
    return bad


def stats(law):
    mean = sum(v * p for v, p in law.items())
    var = sum((v - mean) ** 2 * p for v, p in law.items())
    pct, acc, vals = {}, Fraction(0), sorted(law)
    for q in (5, 10, 25, 50, 75, 90, 95):
        acc = Fraction(0)
        for v in vals:
            acc += law[v]
            if acc >= Fraction(q, 100):
                pct[str(q)] = v
                break
    return min(law), max(law), mean, var, pct


def check_stats(dice, rng, count):
    bad = 0
    for i in range(count):
        e, law = expression(rng)
        got = run(dice, '--dist', '--json', e)
        lo, hi, mean, var, pct = stats(law)
        have = (got['min'], got['max'], frac(got['mean']),
                frac(got['variance']), got['percentiles'])
        if have != (lo, hi, mean, var, pct):
            bad += 1
            print(f'stats {e!r}: dice {have}, brute force {(lo, hi, mean, var, pct)}')
    return bad


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    dice, mode, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) == 5 else 1)
    check = {'versus': check_versus, 'count': check_count,
             'stats': check_stats}[mode]
    bad = check(dice, rng, count)
    print(f'{mode}: {count - bad} of {count} cases agree with brute force')
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
