#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check `dice --dist --json` against brute-force enumeration.

Usage: ref_dist.py DICE NOTATION SPEC [DICE-OPTION]...

SPEC is a Python expression for a term, built of:
    an int                  a constant
    a dict                  one dice group, with the keys
        n        number of dice
        faces    face values (list or range)
        weights  optional weights, one per face
        min, max optional: faces below/above count as min/max
        reroll   optional ('always' | 'once', [compare, ...])
        unique   optional 'always' | 'once'
        explode  optional ('sep' | 'compound', compare)
        penetrate optional True: every face an explosion adds counts 1 less
        limit    explosions per die (default 100)
        add_once optional compare: Avrae's ra: when some die of the pool
                 matches, one more die (of the plain face law) joins it,
                 once for the whole group (d20's explode_once())
        keep     optional ('h' | 'l', k)
        keep_by, drop_by  optional compare: keep (drop) each die that
                 matches, the others count nothing
        success  optional compare; failure optional compare
        match    optional m: the value is the number of values at least m
                 kept dice show ('mt')
        sign     optional -1 to subtract the term (in a list)
    a list [t, ...]         the sum of its terms
    Neg(t), Mul(a, b), Mod(a, b), Abs(t), Div(a, b, 'floor'|'ceil'|'round')
    Max(t, ...), Min(t, ...), Pow(a, b)
    SumN(n, S)              n dice dS summed, for large n
    Count(t, g)             group g rolled with t dice, t itself random
    Cmp(a, op, b)           1 when a op b holds, else 0 (op: the OPS keys,
                            '==' and '!='), Avrae's comparisons
    Brace([t, ...], keep=, success=, failure=)
                            a grouped roll whose elements are the totals
    Pool([g or int, ...], keep=, success=, failure=)
                            a grouped roll of one element: the dice of its
                            groups are what keep and success see
A compare is a pair such as ('>=', 5).  The reference enumerates every
sequence of faces (explosions included, so keep limits small), which is an
implementation independent of libdice/notation/dist*.c.  Exit 0 when the distributions
are equal as exact fractions, 1 otherwise.
"""
import decimal
import json
import math
import subprocess
import sys
from collections import defaultdict
from fractions import Fraction
from itertools import combinations_with_replacement, product

OPS = {
    '=': lambda v, n: v == n,
    '<': lambda v, n: v < n,
    '<=': lambda v, n: v <= n,
    '>': lambda v, n: v > n,
    '>=': lambda v, n: v >= n,
    'even': lambda v, n: v % 2 == 0,
    'odd': lambda v, n: v % 2 == 1,
}


def match(c, v):
    return c is not None and OPS[c[0]](v, c[1])


def face_law(g):
    faces = list(g['faces'])
    weights = g.get('weights') or [1] * len(faces)
    total = sum(weights)
    law = defaultdict(Fraction)
    for f, w in zip(faces, weights):
        if 'min' in g:
            f = max(f, g['min'])
        if 'max' in g:
            f = min(f, g['max'])
        law[f] += Fraction(w, total)
    return {v: p for v, p in law.items() if p}


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
    """Every chain of faces of one die: (probability, [faces as counted])."""
    ex = g.get('explode')
    limit = g.get('limit', 100)
    pen = 1 if g.get('penetrate') and k else 0
    out = []
    for v, p in law.items():
        if p == 0:
            continue
        if ex and match(ex[1], v) and k < limit:
            for q, rest in chains(g, law, k + 1):
                out.append((p * q, [v - pen] + rest))
        else:
            out.append((p, [v - pen]))
    return out


def unique_pools(g, law, n):
    """Unique dice, one after another: (probability, [faces])."""
    mode = g['unique']
    out = []

    def rec(i, used, p, seq):
        if i == n:
            out.append((p, seq))
            return
        if mode == 'always':
            avail = {v: q for v, q in law.items() if v not in used}
            tot = sum(avail.values())
            for v, q in avail.items():
                rec(i + 1, used | {v}, p * q / tot, seq + [v])
            return
        for v, q in law.items():
            if v in used:
                for v2, q2 in law.items():
                    rec(i + 1, used | {v2}, p * q * q2, seq + [v2])
            else:
                rec(i + 1, used | {v}, p * q, seq + [v])
    rec(0, frozenset(), Fraction(1), [])
    return out


def group_pools(g, n=None):
    """Every pool of the group (before keep): (probability, [dice])."""
    n = g['n'] if n is None else n
    law = roll_law(g)
    if g.get('unique'):
        return unique_pools(g, law, n)
    slot = []
    for p, chain in chains(g, law):
        if g.get('explode') and g['explode'][0] == 'compound':
            slot.append((p, [sum(chain)]))
        else:
            slot.append((p, chain))
    out = []
    ra = g.get('add_once')
    for combo in product(slot, repeat=n):
        p = Fraction(1)
        pool = []
        for q, dice in combo:
            p *= q
            pool += dice
        if ra and any(match(ra, v) for v in pool):
            for v, q in face_law(g).items():
                out.append((p * q, pool + [v]))
        else:
            out.append((p, pool))
    return out


def kept(pool, keep):
    if keep:
        pool = sorted(pool, reverse=keep[0] == 'h')[:keep[1]]
    return pool


def value_of(pool, success=None, failure=None, matches=None):
    if matches:
        count = defaultdict(int)
        for v in pool:
            count[v] += 1
        return sum(1 for c in count.values() if c >= matches)
    if success:
        return sum(1 if match(success, v) else
                   -1 if match(failure, v) else 0 for v in pool)
    return sum(pool)


def unique_once_sums(g, n):
    """Sums of n 'uo' dice, roll by roll as unique_pools(), memoized on
    (dice rolled, values taken) so that 6d6uo and 5d10uo stay small."""
    from functools import lru_cache
    law = roll_law(g)

    @lru_cache(maxsize=None)
    def rec(i, used):
        if i == n:
            return {0: Fraction(1)}
        out = defaultdict(Fraction)
        for v, q in law.items():
            firsts = [(v2, q * q2) for v2, q2 in law.items()] if v in used \
                else [(v, q)]
            for v2, p in firsts:
                for s, r in rec(i + 1, used | frozenset([v2])).items():
                    out[s + v2] += p * r
        return dict(out)
    return rec(0, frozenset())


def group_dist(g, n=None):
    if (g.get('unique') == 'once' and not g.get('keep') and
            not g.get('success') and not g.get('match')):
        return unique_once_sums(g, g['n'] if n is None else n)
    dist = defaultdict(Fraction)
    for p, pool in group_pools(g, n):
        pool = kept(pool, g.get('keep'))
        if 'keep_by' in g:      # k>3: each die on its own
            pool = [v for v in pool if match(g['keep_by'], v)]
        if 'drop_by' in g:      # p<2
            pool = [v for v in pool if not match(g['drop_by'], v)]
        dist[value_of(pool, g.get('success'), g.get('failure'),
                      g.get('match'))] += p
    return dist


def combine(a, b, f):
    out = defaultdict(Fraction)
    for x, p in a.items():
        for y, q in b.items():
            out[f(x, y)] += p * q
    return out


class Neg:
    def __init__(self, t):
        self.t = t

    def dist(self):
        return {-v: p for v, p in dist(self.t).items()}


class Abs:
    def __init__(self, t):
        self.t = t

    def dist(self):
        out = defaultdict(Fraction)
        for v, p in dist(self.t).items():
            out[abs(v)] += p
        return out


class Mul:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def dist(self):
        return combine(dist(self.a), dist(self.b), lambda x, y: x * y)


class Max:
    def __init__(self, *ts):
        self.ts = ts

    def dist(self):
        out = dist(self.ts[0])
        for t in self.ts[1:]:
            out = combine(out, dist(t), max)
        return out


class Min(Max):
    def dist(self):
        out = dist(self.ts[0])
        for t in self.ts[1:]:
            out = combine(out, dist(t), min)
        return out


class Pow:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def dist(self):
        return combine(dist(self.a), dist(self.b), lambda x, y: x ** y)


class Mod:
    """Truncated remainder (sign of the dividend), as C and Roll20."""
    def __init__(self, a, b):
        self.a, self.b = a, b

    def dist(self):
        return combine(dist(self.a), dist(self.b),
                       lambda x, y: int(math.fmod(x, y)))


class Div:
    def __init__(self, a, b, how):
        self.a, self.b, self.how = a, b, how

    def dist(self):
        def f(x, y):
            q = Fraction(x, y)
            if self.how == 'floor':
                return math.floor(q)
            if self.how == 'ceil':
                return math.ceil(q)
            return math.floor(q + Fraction(1, 2))   # halves up
        return combine(dist(self.a), dist(self.b), f)


class Count:
    def __init__(self, t, g):
        self.t, self.g = t, g

    def dist(self):
        out = defaultdict(Fraction)
        for n, p in dist(self.t).items():
            for v, q in group_dist(self.g, n).items():
                out[v] += p * q
        return out


class Brace:
    def __init__(self, elems, keep=None, success=None, failure=None):
        self.elems, self.keep = elems, keep
        self.success, self.failure = success, failure

    def dist(self):
        out = defaultdict(Fraction)
        laws = [list(dist(e).items()) for e in self.elems]
        if len(self.elems) > 4 and all(e == self.elems[0] for e in self.elems):
            # n alike elements: every multiset of values once, weighted by
            # its multinomial coefficient (not the order statistics that
            # dice uses)
            n = len(self.elems)
            law = laws[0]
            for combo in combinations_with_replacement(range(len(law)), n):
                p = Fraction(math.factorial(n))
                for i in set(combo):
                    c = combo.count(i)
                    p *= law[i][1] ** c / math.factorial(c)
                pool = kept([law[i][0] for i in combo], self.keep)
                out[value_of(pool, self.success, self.failure)] += p
            return out
        for combo in product(*laws):
            p = Fraction(1)
            for _, q in combo:
                p *= q
            pool = kept([v for v, _ in combo], self.keep)
            out[value_of(pool, self.success, self.failure)] += p
        return out


class Cmp:
    """Avrae's X op Y: 1 or 0, by enumerating the pairs of totals."""
    def __init__(self, a, op, b):
        self.a, self.op, self.b = a, op, b

    def dist(self):
        test = {'==': lambda x, y: x == y, '!=': lambda x, y: x != y,
                '>': lambda x, y: x > y, '<': lambda x, y: x < y,
                '>=': lambda x, y: x >= y, '<=': lambda x, y: x <= y}
        return combine(dist(self.a), dist(self.b),
                       lambda x, y: int(test[self.op](x, y)))


class SumN:
    """n dice dS, summed: the coefficients of (x + ... + x^S)^n read off
    the digits of one huge decimal power (Kronecker substitution; decimal
    multiplies by number-theoretic transform), not by a recurrence."""
    def __init__(self, n, sides):
        self.n, self.s = n, sides

    def dist(self):
        n, S = self.n, self.s
        W = len(str(S ** n)) + 2
        L = n * (S - 1) + 1
        ctx = decimal.Context(prec=W * L + 10, Emax=decimal.MAX_EMAX)
        with decimal.localcontext(ctx):
            base = decimal.Decimal(10) ** W
            q = sum(base ** j for j in range(S))
            s = format(q ** n, 'f').rjust(W * L, '0')
        den = S ** n
        return {n + i: Fraction(int(s[len(s) - W * (i + 1):len(s) - W * i]), den)
                for i in range(L)}


class Pool:
    def __init__(self, parts, keep=None, success=None, failure=None):
        self.parts, self.keep = parts, keep
        self.success, self.failure = success, failure

    def dist(self):
        const = sum(t for t in self.parts if isinstance(t, int))
        groups = [group_pools(g) for g in self.parts if isinstance(g, dict)]
        out = defaultdict(Fraction)
        for combo in product(*groups):
            p = Fraction(1)
            pool = []
            for q, dice in combo:
                p *= q
                pool += dice
            pool = kept(pool, self.keep)
            v = value_of(pool, self.success, self.failure)
            out[v + (0 if self.success else const)] += p
        return out


def dist(t):
    if isinstance(t, int):
        return {t: Fraction(1)}
    if isinstance(t, dict):
        d = group_dist(t)
        return {t.get('sign', 1) * v: p for v, p in d.items()}
    if isinstance(t, list):
        total = {0: Fraction(1)}
        for x in t:
            total = combine(total, dist(x), lambda a, b: a + b)
        return total
    return t.dist()


def main():
    dice, notation, spec = sys.argv[1:4]
    term = eval(spec)  # test input, written by us
    ref = {v: p for v, p in dist(term).items() if p}

    out = subprocess.run([dice, '--dist', '--json', *sys.argv[4:], notation],
                         capture_output=True, text=True)
    if out.returncode:
        print(f'# dice exited {out.returncode}: {out.stderr.strip()}')
        return 1
    d = json.loads(out.stdout)
    den = int(d['denominator'])
    got = {int(e['value']): Fraction(int(e['count']), den)
           for e in d['distribution']}
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
    var = sum(v * v * p for v, p in ref.items()) - mean * mean
    m = d['variance']
    if Fraction(int(m['numerator']), int(m['denominator'])) != var:
        ok = False
        print(f"# variance: dice {m['numerator']}/{m['denominator']} reference {var}")
    if ref and (d['min'] != min(ref) or d['max'] != max(ref)):
        ok = False
        print(f"# min/max: dice {d['min']}..{d['max']} reference {min(ref)}..{max(ref)}")
    # percentiles: the least v with P(X <= v) >= p/100
    for pct, v in d['percentiles'].items():
        acc, want = Fraction(0), None
        for x in sorted(ref):
            acc += ref[x]
            if acc * 100 >= int(pct):
                want = x
                break
        if v != want:
            ok = False
            print(f'# percentile {pct}: dice {v} reference {want}')
    # lowest terms: the counts and the denominator share no factor
    g = den
    for e in d['distribution']:
        g = math.gcd(g, int(e['count']))
    if g != 1:
        ok = False
        print(f'# not in lowest terms: common factor {g}')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
