# SPDX-License-Identifier: LGPL-2.1-or-later
"""libdice.Die(mapping=...) and Die.mapping: which faces an engine makes
of which bits (dice_set_mapping(3)).  Seeded dice default to MAPPING_1, so
that old replays hold (faces recorded from libdice before there were
mappings), userspace dice to MAPPING_LATEST; the device refuses both."""

import errno
import os
import subprocess

import pytest

import libdice

# The first 32 faces of dice_open_seeded(42) with the weights of
# big_weights(), recorded from libdice as built at commit e796038, before
# there were mappings (as libdice/tests/mapping.c's big_known).
BIG_KNOWN = [89480, 44613, 81582, 77339, 71135, 61034, 52511, 65092, 72227,
             113201, 8211, 109172, 72511, 5630, 108948, 121418, 28341, 115574,
             103126, 88818, 30724, 102750, 21996, 72011, 72854, 61433, 126676,
             109902, 80539, 126655, 54974, 91711]

# 17 sides whose weights add up to more than 2^32 (libdice/tests/mapping.c's
# heavy_weights), and its faces for seed 42, from the same build.
HEAVY_WEIGHTS = [3900000000, 4000000000, 3800000000, 4100000000, 3950000000,
                 3700000000, 4200000000, 3850000000, 4050000000, 3750000000,
                 4150000000, 3900000000, 4000000000, 3800000000, 4100000000,
                 3950000000, 4294967295]
HEAVY_KNOWN = [12, 16, 10, 5, 10, 15, 6, 2, 6, 6, 8, 11, 13, 6, 17, 17, 7, 14,
               6, 1, 14, 10, 15, 9, 3, 5, 1, 14, 6, 16, 2, 7]

# The first 2^15 of big_weights(), seed 42: mappings 1 and 2 alike, recorded
# from libdice as built at commit 585b41c, before mapping 3 (as
# libdice/tests/mapping.c's middle_known).
MIDDLE_KNOWN = [23944, 19173, 9822, 8079, 21082, 14557, 30937, 18754, 12997,
                31010, 6519, 19412, 4913, 8988, 16942, 25630, 7451, 5512,
                16379, 30426, 20085, 21871, 24449, 23853, 5108, 4337, 331,
                25579, 15414, 14699, 16803, 30042]


def big_weights():
    return [1 + (i * 2654435761) % 65535 for i in range(2**17)]


def test_constants():
    assert (libdice.MAPPING_1, libdice.MAPPING_2, libdice.MAPPING_3) == \
        (1, 2, 3)
    assert libdice.MAPPING_LATEST == libdice.MAPPING_3


def test_defaults():
    with libdice.Die(seed=1) as d:
        assert d.mapping == libdice.MAPPING_1
    with libdice.Die(userspace=True) as d:
        assert d.mapping == libdice.MAPPING_LATEST


@pytest.mark.parametrize("engine", [dict(userspace=True), dict(seed=7)],
                         ids=["userspace", "seeded"])
@pytest.mark.parametrize("mapping", [1, 2, 3])
def test_mapping_is_set(engine, mapping):
    with libdice.Die(weights=[2, 2, 6, 1, 1], mapping=mapping,
                     **engine) as d:
        assert d.mapping == mapping
        assert d.info.kind == "loaded" and d.info.sides == 5
        assert set(d.roll(500)) <= set(range(1, 6))


@pytest.mark.parametrize("mapping, exc", [(0, ValueError), (4, ValueError),
                                          (-1, ValueError), (2**32, ValueError),
                                          ("1", TypeError), (1.0, TypeError)])
def test_bad_mapping(mapping, exc):
    with pytest.raises(exc):
        libdice.Die(seed=1, mapping=mapping)


def test_closed_die_has_no_mapping():
    d = libdice.Die(seed=1)
    d.close()
    with pytest.raises(ValueError, match="closed"):
        d.mapping


@pytest.mark.parametrize("weights, known", [(big_weights(), BIG_KNOWN),
                                            (HEAVY_WEIGHTS, HEAVY_KNOWN)],
                         ids=["2^17 sides", "weights over 2^32"])
def test_replay_of_old_faces(weights, known):
    # A seed replays the faces of libdice before mappings, by default and
    # with MAPPING_1; MAPPING_2 rolls these dice into other faces.
    with libdice.Die(weights=weights, seed=42) as d:
        assert d.roll(32) == known
    with libdice.Die(weights=weights, seed=42, mapping=1) as d:
        assert d.roll(32) == known
    with libdice.Die(weights=weights, seed=42, mapping=2) as d:
        two = d.roll(32)
    assert two != known
    # Mapping 3 changes only tables of 2^14 to 2^17 - 1 sides.
    with libdice.Die(weights=weights, seed=42, mapping=3) as d:
        assert d.roll(32) == two


def test_mapping_3_draws_ahead_from_2_14_sides():
    # 2^15 sides: mappings 1 and 2 alike (libdice/tests/mapping.c's
    # middle_known, recorded before mapping 3), mapping 3 other faces.
    weights = big_weights()[:2**15]
    with libdice.Die(weights=weights, seed=42, mapping=2) as d:
        assert d.roll(32) == MIDDLE_KNOWN
    with libdice.Die(weights=weights, seed=42, mapping=1) as d:
        assert d.roll(32) == MIDDLE_KNOWN
    with libdice.Die(weights=weights, seed=42, mapping=3) as d:
        assert d.roll(32) != MIDDLE_KNOWN


@pytest.mark.parametrize("die", [dict(sides=6), dict(sides=2**63 + 1),
                                 dict(weights=[2, 2, 6, 1, 1])],
                         ids=["d6", "d2^63+1", "small loaded"])
def test_small_dice_alike_under_all(die):
    with libdice.Die(seed=9, mapping=1, **die) as one, \
            libdice.Die(seed=9, mapping=2, **die) as two, \
            libdice.Die(seed=9, mapping=3, **die) as three:
        faces = one.roll(3000)
        assert two.roll(3000) == faces
        assert three.roll(3000) == faces


def heavy_expr():
    return "d{" + ",".join(f"{i + 1}:{w}" for i, w in
                           enumerate(HEAVY_WEIGHTS)) + "}"


@pytest.fixture(scope="module")
def cli():
    """The dice CLI of this tree (make cli: build/tools/dice)."""
    top = os.environ.get("DICE_TOP", os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
    exe = os.environ.get("DICE_CLI") or os.path.join(top, "build", "tools",
                                                     "dice")
    if not os.access(exe, os.X_OK):
        pytest.skip("no dice CLI (make cli) to compare with")
    return exe


@pytest.mark.parametrize("mapping", [1, 2, 3])
def test_seeded_roll_matches_cli_mapping(cli, mapping):
    # dice --seed N --mapping=M: the same roll as a Die of that mapping
    expr = "4" + heavy_expr()
    out = subprocess.run([cli, "--seed", "5", f"--mapping={mapping}", "-s",
                          expr], check=True, capture_output=True,
                         text=True).stdout.strip()
    with libdice.Die(seed=5, mapping=mapping) as d:
        r = libdice.roll(expr, die=d)
    assert r.text == out


def test_device_refuses_mapping(has_device):
    if not has_device:
        pytest.skip("no /dev/dice here (the QEMU guest has one)")
    with libdice.Die() as d:
        with pytest.raises(OSError) as e:
            d.mapping
        assert e.value.errno == errno.EOPNOTSUPP
    with pytest.raises(OSError) as e:
        libdice.Die(mapping=libdice.MAPPING_LATEST)
    assert e.value.errno == errno.EOPNOTSUPP
