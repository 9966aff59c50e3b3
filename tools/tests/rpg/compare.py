#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare rpg-dice-roller (npm @dice-roller/rpg-dice-roller) with dice --dist:
roll each expression of EXPRS N times with it (roll.js, in this directory,
with node_modules installed by "npm install @dice-roller/rpg-dice-roller")
and test the rolls against the exact distribution: every total possible,
and a chi-square test (bins merged to an expectation of 5) with p > 0.001.

Usage: NODE_PATH=DIR/node_modules compare.py DICE N EXPRS
"""
import json, math, os, subprocess, sys
from fractions import Fraction
dice = sys.argv[1]
N = int(sys.argv[2])
exprs = [l.strip() for l in open(sys.argv[3]) if l.strip() and not l.startswith('#')]
rolls = json.loads(subprocess.run(['node', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'roll.js'), str(N)] + exprs, capture_output=True, text=True).stdout)
def chi2_p(obs, exp):
    # merge bins with expectation < 5, then chi-square; p via the Wilson-Hilferty approximation
    bins, o_acc, e_acc = [], 0, 0.0
    for o, e in zip(obs, exp):
        o_acc += o; e_acc += e
        if e_acc >= 5:
            bins.append((o_acc, e_acc)); o_acc, e_acc = 0, 0.0
    if e_acc and bins:
        o2, e2 = bins.pop(); bins.append((o2 + o_acc, e2 + e_acc))
    x = sum((o - e) ** 2 / e for o, e in bins)
    k = len(bins) - 1
    if k < 1: return 1.0, x, k
    z = ((x / k) ** (1/3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    return 0.5 * math.erfc(z / math.sqrt(2)), x, k
for e in exprs:
    r = rolls.get(e)
    p = subprocess.run([dice, '--dist', '--json', '--max-explode', '20', '--', e], capture_output=True, text=True)
    if isinstance(r, str):
        print(f'{e}\trpg-dice-roller refuses: {r}\tdice: ' + ('exact' if p.returncode == 0 else 'refuses: ' + p.stderr.split("\n")[0][:80]))
        continue
    if p.returncode:
        print(f'{e}\tdice refuses: {p.stderr.splitlines()[0][:100]}')
        continue
    d = json.loads(p.stdout)
    den = int(d['denominator'])
    law = {int(x['value']): int(x['count']) / den for x in d['distribution']}
    outside = [v for v in r if v not in law or law[v] == 0]
    vals = sorted(law)
    obs = [sum(1 for v in r if v == x) for x in vals]
    exp = [law[x] * len(r) for x in vals]
    pv, x2, k = chi2_p(obs, exp)
    mean_r = sum(r) / len(r)
    verdict = 'agree' if not outside and pv > 0.001 else 'DISAGREE'
    print(f'{e}\t{verdict}\tp={pv:.3g}\tchi2={x2:.1f}/{k}\toutside={len(outside)}\tmean rpg={mean_r:.3f} exact={float(Fraction(int(d["mean"]["numerator"]), int(d["mean"]["denominator"]))):.3f}')
