# SPDX-License-Identifier: LGPL-2.1-or-later
"""libdice.Die on the userspace and seeded engines: faces, lifetime,
arguments, errors, queries.  No /dev/dice needed."""

import errno
import itertools
import math
from fractions import Fraction

import pytest

import libdice

ENGINES = [dict(userspace=True), dict(seed=7)]


@pytest.mark.parametrize("engine", ENGINES, ids=["userspace", "seeded"])
@pytest.mark.parametrize("sides", [1, 2, 6, 20, 100, 2**32 + 1, 2**64 - 1])
def test_fair_faces_in_range(engine, sides):
    with libdice.Die(sides, **engine) as d:
        faces = d.roll(2000)
        assert all(isinstance(f, int) and 1 <= f <= sides for f in faces)
        one = d.roll()
        assert isinstance(one, int) and 1 <= one <= sides
        assert d.stats.rolls == 2001


@pytest.mark.parametrize("engine", ENGINES, ids=["userspace", "seeded"])
def test_d6_shows_every_face(engine):
    with libdice.Die(**engine) as d:
        assert d.info.sides == 6		# the default die
        assert set(d.roll(1000)) == set(range(1, 7))


def test_roll_counts():
    with libdice.Die(seed=1) as d:
        assert d.roll(0) == []
        assert len(d.roll(1)) == 1
        assert len(d.roll(10000)) == 10000	# several chunks of the C side
        with pytest.raises(ValueError):
            d.roll(-1)
        with pytest.raises(TypeError):
            d.roll(2.5)


def chi_square(counts, probs, n):
    return sum((counts.get(i, 0) - n * p) ** 2 / (n * p)
               for i, p in probs.items() if p)


@pytest.mark.parametrize("method", [None, "alias", "recycle"])
def test_loaded_die_follows_its_weights(method):
    weights = [2, 2, 6, 1, 0, 1]
    n = 60000
    with libdice.Die(weights=weights, seed=3, method=method) as d:
        faces = d.roll(n)
    counts = {f: faces.count(f) for f in set(faces)}
    assert 5 not in counts			# weight 0: never
    total = sum(weights)
    probs = {i + 1: Fraction(w, total) for i, w in enumerate(weights)}
    # 4 degrees of freedom, 1e-4 critical value about 23.5 (seeded: fixed)
    assert chi_square(counts, probs, n) < 23.5


def alias_distribution(thresholds, aliases, mass):
    """The exact distribution an alias table gives (dice_set_alias(3)):
    column c yields c for thresholds[c] of its mass, aliases[c] else."""
    n = len(thresholds)
    got = [Fraction(0)] * n
    for c in range(n):
        got[c] += Fraction(thresholds[c], n * mass)
        got[aliases[c]] += Fraction(mass - thresholds[c], n * mass)
    return got


@pytest.mark.parametrize("weights", [[1], [1, 1], [2, 2, 6, 1, 1],
                                     [0, 5, 0, 7], [2**32 - 1, 1, 3],
                                     list(range(1, 200))])
def test_alias_build_is_exact(weights):
    thresholds, aliases, mass = libdice.alias_build(weights)
    total = sum(weights)
    assert alias_distribution(thresholds, aliases, mass) == \
        [Fraction(w, total) for w in weights]


def test_alias_die_rolls_like_its_weights():
    table = libdice.alias_build([2, 2, 6, 1, 1])
    with libdice.Die(alias=table, seed=5) as a, \
            libdice.Die(weights=[2, 2, 6, 1, 1], seed=5) as w:
        assert a.info.kind == "loaded" and a.info.sides == 5
        assert a.roll(500) == w.roll(500)	# one table, one stream


def test_iteration_is_the_stream_of_rolls():
    with libdice.Die(20, seed=11) as a, libdice.Die(20, seed=11) as b:
        assert list(itertools.islice(a, 300)) == b.roll(300)
        assert a.stats.rolls == 300		# nothing rolled ahead


def test_info_and_stats():
    with libdice.Die(100, seed=2, method="viglietta") as d:
        i = d.info
        assert (i.sides, i.kind, i.method, i.userspace) == \
            (100, "fair", "viglietta", True)
        d.roll(1000)
        s = d.stats
        assert s.rolls == 1000
        # bits drawn cover the bits used, which are at least log2(100)
        # a roll (the entropy bound)
        assert s.bits_drawn >= s.bits_used >= 1000 * math.log2(100)
        assert "d100" in repr(d) and "userspace" in repr(d)


def test_methods():
    assert libdice.METHODS == ("recycle", "viglietta", "batch", "alias",
                               "rejection")
    for name in libdice.METHODS:
        assert libdice.method_name(libdice.method_parse(name)) == name
        with libdice.Die(6, seed=1, method=name) as d:
            assert d.info.method == name
            assert set(d.roll(200)) <= set(range(1, 7))
    assert libdice.method_name(99) is None
    assert libdice.method_name(-1) is None
    with pytest.raises(ValueError):
        libdice.method_parse("Recycle")	# exact, lowercase
    for name in ("recycle\0x", "alias\0junk"):	# no name stops at a NUL
        with pytest.raises(ValueError, match="no such method"):
            libdice.method_parse(name)
        with pytest.raises(ValueError, match="no such method"):
            libdice.Die(method=name, userspace=True)


def test_close_and_context_manager():
    d = libdice.Die(userspace=True)
    assert not d.closed
    d.close()
    d.close()					# twice: nothing happens
    assert d.closed and repr(d) == "<libdice.Die closed>"
    for use in (d.roll, lambda: d.roll(3), lambda: d.stats,
                lambda: d.info, lambda: next(iter(d))):
        with pytest.raises(ValueError, match="closed"):
            use()
    with libdice.Die(seed=1) as d:
        it = iter(d)
        next(it)
    assert d.closed
    with pytest.raises(ValueError):
        next(it)				# an iterator of a closed die
    with pytest.raises(ValueError):
        with d:
            pass


def test_uninitialised_extension_die():
    """_ext.Die.__new__() without __init__(): every call raises, none
    crashes (it had no lock to take)."""
    from libdice import _ext
    uses = [lambda d: d.roll(), lambda d: d.info(), lambda d: d.stats(),
            lambda d: d.mapping(), lambda d: d.set_sides(6),
            lambda d: d.set_weights([1]), lambda d: d.set_alias([1], [0], 1),
            lambda d: d.set_method(0), lambda d: d.set_mapping(1),
            lambda d: _ext.roll("3d6", d, False)]
    for use in uses:
        with pytest.raises(ValueError, match="not initialised"):
            use(_ext.Die.__new__(_ext.Die))
    d = _ext.Die.__new__(_ext.Die)
    d.close()
    assert d.closed


@pytest.mark.parametrize("kwargs, exc", [
    (dict(sides=0), ValueError),
    (dict(sides=2**64), ValueError),
    (dict(sides=-1), ValueError),
    (dict(sides="6"), TypeError),
    (dict(weights=[]), ValueError),
    (dict(weights=[0, 0]), ValueError),
    (dict(weights=[1, -1]), ValueError),
    (dict(weights=[1, 2**32]), ValueError),
    (dict(weights=[1, "a"]), TypeError),
    (dict(weights="123"), TypeError),
    (dict(sides=6, weights=[1, 2]), ValueError),
    (dict(alias=([1], [0])), ValueError),
    (dict(alias=([1, 1], [0], 1)), ValueError),
    (dict(alias=([1], [0], 0)), ValueError),
    (dict(method="nope"), ValueError),
    (dict(method=99), ValueError),
    (dict(seed=-1), ValueError),
    (dict(seed=2**64), ValueError),
])
def test_bad_arguments(kwargs, exc):
    with pytest.raises(exc):
        libdice.Die(userspace=True, **kwargs)


def test_libdice_einval_is_oserror_and_valueerror():
    # A threshold above the column mass: only libdice can tell.
    with pytest.raises(libdice.InvalidArgumentError) as e:
        libdice.Die(alias=([5, 1], [0, 0], 2), seed=1)
    assert isinstance(e.value, ValueError) and isinstance(e.value, OSError)
    assert e.value.errno == errno.EINVAL


def test_missing_device_says_how_to_fix_it(has_device):
    if has_device:
        pytest.skip("/dev/dice is here (the QEMU guest tests its absence)")
    with pytest.raises(libdice.DeviceNotFoundError) as e:
        libdice.Die()
    err = e.value
    assert isinstance(err, FileNotFoundError)
    assert err.errno == errno.ENOENT and err.filename == "/dev/dice"
    assert "modprobe dice" in str(err) and "userspace=True" in str(err)


def test_device_die_when_there_is_one(has_device):
    if not has_device:
        pytest.skip("no /dev/dice here (the QEMU guest has one)")
    with libdice.Die() as d:
        assert not d.info.userspace
        assert set(d.roll(1000)) == set(range(1, 7))
