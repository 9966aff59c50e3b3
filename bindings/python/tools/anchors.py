# SPDX-License-Identifier: LGPL-2.1-or-later
"""Anchors for libdice's notation in Python: the time of one roll of
4d6kh3 against avrae's d20, and exact laws against HighDiceRoller's
Icepool.  Neither is a dependency: give their source trees.

  PYTHONPATH=build/python/lib /usr/bin/python3 \\
      bindings/python/tools/anchors.py [--d20 DIR] [--icepool DIR] [-n N]

d20 needs lark (Debian: python3-lark); Icepool needs Python >= 3.12 (it
is reported as not importable otherwise).  Prints the figures.
"""

import argparse
import platform
import sys
import timeit
from fractions import Fraction

import libdice


def timing(stmt, n, setup_globals):
    # the best of 5 runs of n, in microseconds per call
    t = min(timeit.repeat(stmt, number=n, repeat=5, globals=setup_globals))
    return t / n * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d20")
    ap.add_argument("--icepool")
    ap.add_argument("-n", type=int, default=10000)
    a = ap.parse_args()
    out = [f"python {platform.python_version()} ({sys.executable}), "
           f"{a.n} runs, best of 5"]

    die = libdice.Die(userspace=True)
    us = timing("roll('4d6kh3', die=die)", a.n,
                {"roll": libdice.roll, "die": die})
    out.append(f"libdice.roll('4d6kh3', die=Die(userspace=True)): "
               f"{us:.1f} us/roll")
    seeded = libdice.Die(seed=1)
    us = timing("roll('4d6kh3', die=die)", a.n,
                {"roll": libdice.roll, "die": seeded})
    out.append(f"libdice.roll('4d6kh3', die=Die(seed=1)): {us:.1f} us/roll")
    if a.d20:
        sys.path.insert(0, a.d20)
        try:
            import d20
        except ImportError as e:
            out.append(f"d20: not importable ({e})")
        else:
            us = timing("roll('4d6kh3')", a.n, {"roll": d20.roll})
            out.append(f"d20.roll('4d6kh3'): {us:.1f} us/roll")

    two = libdice.distribution("2d6")
    hit = libdice.distribution("1d20+7>=15")[1]
    out.append(f"libdice: 2d6 = {dict((k, str(v)) for k, v in two.items())}")
    out.append(f"libdice: P(1d20+7 >= 15) = {hit}")
    if a.icepool:
        sys.path.insert(0, a.icepool)
        try:
            import icepool
        except Exception as e:  # a SyntaxError too, on an older Python
            out.append(f"icepool: not importable on Python "
                       f"{platform.python_version()} ({type(e).__name__}: "
                       f"{e}); its setup.cfg asks for >= 3.12")
        else:
            law = (2 @ icepool.d6)
            ice = {k: Fraction(law.quantity(k), law.denominator())
                   for k in law.outcomes()}
            out.append(f"icepool 2d6 equal to libdice's: {ice == dict(two)}")
            h = (icepool.d20 + 7 >= 15)
            p = Fraction(h.quantity(True), h.denominator())
            out.append(f"icepool P(1d20+7 >= 15) = {p}: "
                       f"{'equal' if p == hit else 'DIFFERENT'}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
