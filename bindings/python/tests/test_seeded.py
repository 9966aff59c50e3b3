# SPDX-License-Identifier: LGPL-2.1-or-later
"""Seeded rolls are libdice's: the binding's faces against those of a C
program over libdice's seeded engine (seeded_oracle.c), never against
numbers the binding once printed."""

import itertools
import subprocess

import pytest

import libdice

WEIGHTS = [2, 2, 6, 1, 1]
CASES = [
    # (seed, die, Die() arguments)
    (0, "d6", dict()),
    (42, "d6", dict(sides=6)),
    (1, "d20", dict(sides=20)),
    (2**64 - 1, "d100", dict(sides=100)),
    (3, "d1", dict(sides=1)),
    (4, f"d{2**32 + 1}", dict(sides=2**32 + 1)),
    (5, f"d{2**64 - 1}", dict(sides=2**64 - 1)),
    (6, "w" + ",".join(map(str, WEIGHTS)), dict(weights=WEIGHTS)),
    (7, "w0,3,0,1", dict(weights=[0, 3, 0, 1])),
    (8, "a" + ",".join(map(str, WEIGHTS)),
     dict(alias=libdice.alias_build(WEIGHTS))),
]


@pytest.mark.parametrize("seed, die, kwargs", CASES,
                         ids=[f"{c[1][:12]}-seed{c[0]}" for c in CASES])
@pytest.mark.parametrize("method", [None] + list(libdice.METHODS))
def test_seeded_matches_c(oracle, seed, die, kwargs, method):
    try:
        d = libdice.Die(seed=seed, method=method, **kwargs)
    except libdice.InvalidArgumentError:
        # a method the die has not (batch, rejection: fair dice only):
        # the C engine refuses it too
        with pytest.raises(subprocess.CalledProcessError):
            oracle(seed, 1, die, method)
        return
    with d:
        want = oracle(seed, 5000, die, method)
        assert d.roll(5000) == want


def test_seeded_roll_in_pieces_matches_c(oracle):
    # roll(), roll(n) and iteration all continue one stream
    want = oracle(99, 10000, "d6")
    with libdice.Die(seed=99) as d:
        got = [d.roll()] + d.roll(4999) + list(itertools.islice(d, 5000))
    assert got == want


def test_seed_zero_is_the_chacha20_test_vector():
    # dice_open_seeded(3): seed 0 starts with the all-zero-key ChaCha20
    # keystream, so a die of 2**32 sides rolls 0x903df1a0 + 1 first.
    with libdice.Die(2**32, seed=0) as d:
        assert d.roll() == 0x903DF1A0 + 1


def test_other_seed_other_faces():
    with libdice.Die(seed=1) as a, libdice.Die(seed=2) as b:
        assert a.roll(100) != b.roll(100)
