# SPDX-License-Identifier: LGPL-2.1-or-later
"""libdice.roll(), distribution(), versus(): dice(1)'s notation over
libdice's C notation API.  Seeded rolls against the dice CLI for the same
seed; exact laws against oracles enumerated here with itertools, sharing
no code with libdice."""

import itertools
import os
import shutil
import subprocess
import threading
from collections import Counter
from fractions import Fraction

import pytest

import libdice

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def enumerate_law(sides, count, combine):
    """The exact law of combine(faces) over count fair dice of sides."""
    laws = Counter(combine(faces) for faces in
                   itertools.product(range(1, sides + 1), repeat=count))
    total = sides ** count
    return {v: Fraction(n, total) for v, n in laws.items()}


@pytest.fixture(scope="module")
def cli():
    """The dice CLI of this tree (make cli: build/tools/dice), or DICE_CLI."""
    exe = os.environ.get("DICE_CLI") or os.path.join(
        os.environ.get("DICE_TOP", TOP), "build", "tools", "dice")
    if not os.access(exe, os.X_OK):
        exe = shutil.which("dice")
    if not exe:
        pytest.skip("no dice CLI (make cli) to compare with")
    return exe


# ---- roll ---------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 7, 42, 2**64 - 1])
@pytest.mark.parametrize("expr", ["4d6kh3", "4d6kh3+1d8", "2d20kh1",
                                  "3d6!", "1d20+7"])
def test_seeded_roll_matches_cli(cli, seed, expr):
    # dice --seed N -s EXPR: the breakdown dice(1) prints for that seed
    out = subprocess.run([cli, "--seed", str(seed), "-s", expr], check=True,
                         capture_output=True, text=True).stdout.strip()
    with libdice.Die(seed=seed) as d:
        r = libdice.roll(expr, die=d)
    assert r.text == out
    assert str(r) == out
    assert r.total == int(out.rsplit("=", 1)[1])


def test_seeded_4d6kh3_total_matches_cli(cli):
    out = subprocess.run([cli, "--seed", "12345", "4d6kh3"], check=True,
                         capture_output=True, text=True).stdout.strip()
    r = libdice.roll("4d6kh3", die=libdice.Die(seed=12345))
    assert r.total == int(out)


def test_result_tree_and_markdown():
    r = libdice.roll("4d6kh3+2", die=libdice.Die(userspace=True))
    (g,) = r.tree
    assert (g.text, g.start, g.end) == ("4d6kh3", 0, 6)
    assert len(g.dice) == 4
    kept = [f.value for f in g.dice if f.kept]
    dropped = [f for f in g.dice if f.dropped]
    assert len(kept) == 3 and len(dropped) == 1
    assert dropped[0].value <= min(kept)
    assert g.value == sum(kept) and r.total == g.value + 2
    assert all(1 <= f.value <= 6 for f in g.dice)
    assert f"~~{dropped[0].value}~~" in r.markdown
    assert r.markdown.endswith(f"= **{r.total}**")
    assert int(r) == r.total and isinstance(r.total, int)


def test_die_of_any_sides_rolls_the_notation():
    # the notation sets the sides of the die it rolls on
    with libdice.Die(100, seed=5) as d:
        assert all(1 <= libdice.roll("1d6", d).total <= 6 for _ in range(200))


def test_seeded_face_is_the_die_face():
    for seed in range(20):
        face = libdice.Die(20, seed=seed).roll()
        assert libdice.roll("1d20", libdice.Die(seed=seed)).total == face


def test_critical_and_fumble_on_1d20():
    # a seeded search for a 20 and a 1
    seen = set()
    for seed in range(2000):
        r = libdice.roll("1d20", libdice.Die(seed=seed))
        (face,) = r.tree[0].dice
        if r.total == 20:
            assert r.critical and not r.fumble
            assert "critical" in face.flags
        elif r.total == 1:
            assert r.fumble and not r.critical
            assert "fumble" in face.flags
        else:
            assert not r.critical and not r.fumble
        seen.add(r.total)
        if {1, 20, 10} <= seen:
            break
    assert {1, 20} <= seen


def test_exploded_dice_flags():
    for seed in range(200):
        r = libdice.roll("3d6!", libdice.Die(seed=seed))
        dice = r.tree[0].dice
        if len(dice) > 3:
            break
    else:
        pytest.fail("no explosion in 200 seeds")
    assert any("exploded" in f.flags for f in dice)
    assert any("extra" in f.flags for f in dice)
    assert sum(f.value for f in dice) == r.total


def test_parse_error_offset():
    with pytest.raises(libdice.NotationError) as e:
        libdice.roll("4d6kq", libdice.Die(userspace=True))
    assert e.value.offset == 4
    assert "q" in e.value.message and e.value.expr == "4d6kq"
    assert isinstance(e.value, ValueError)
    with pytest.raises(libdice.NotationError) as e:
        libdice.distribution("1d20+")
    assert e.value.offset == 5
    # the offset is a str index, not the UTF-8 byte offset libdice gives
    with pytest.raises(libdice.NotationError) as e:
        libdice.distribution("1d20 \u2212 2q")
    assert e.value.offset == 8


def test_repeat_is_never_dropped(cli):
    # roll("6x4d6kh3") rolled once, and distribution() and versus() of
    # NxEXPR gave the law of one roll, without a word (helper-36)
    with pytest.raises(libdice.NotationError) as e:
        libdice.roll("6x4d6kh3", libdice.Die(seed=3))
    assert "rolls 6 times" in e.value.message and "rolls()" in e.value.message
    for f in (libdice.distribution, lambda x: libdice.versus(x, "1d6"),
              lambda x: libdice.versus("1d6", x)):
        with pytest.raises(libdice.NotationError) as e:
            f("6x1d20")
        assert "rolls 6 times" in e.value.message
    # rolls(): each repetition, every one dice(1)'s for the same seed (the
    # die kept set between them; only the first was, before
    # dice_expr_rolls())
    for seed, text in ((3, "6x4d6kh3"), (11, "5x1d6+1d20"),
                       (7, "4x2d6!+d{1,1,2}"), (5, "3x3d1099511627777")):
        out = subprocess.run([cli, "--seed", str(seed), "-s", text],
                             check=True, capture_output=True,
                             text=True).stdout.splitlines()
        got = libdice.rolls(text, libdice.Die(seed=seed))
        assert [r.text for r in got] == out, text
    got = libdice.rolls("6x4d6kh3", libdice.Die(seed=3))
    assert len(got) == 6
    for r in got:
        kept = [f.value for f in r.tree[0].dice if f.kept]
        assert len(r.tree[0].dice) == 4 and r.total == sum(kept)
    (one,) = libdice.rolls("4d6kh3", libdice.Die(seed=3))
    assert one.text == libdice.roll("4d6kh3", libdice.Die(seed=3)).text


def test_roll_errors_are_pythons():
    # a roll's errors were OSError with errno's text ("Numerical argument
    # out of domain" for a division by zero)
    d = libdice.Die(userspace=True)
    with pytest.raises(ZeroDivisionError, match="by zero"):
        libdice.roll("floor(1d6/(1d1-1))", d)
    with pytest.raises(ZeroDivisionError):
        libdice.roll("1d6%(1d1-1)", d)
    with pytest.raises(OverflowError, match="128 bits"):
        libdice.roll("d18446744073709551615*d18446744073709551615"
                     "*d18446744073709551615*2", d)


def test_parse_error_before_the_device():
    # a bad expression fails before /dev/dice is opened
    with pytest.raises(libdice.NotationError):
        libdice.roll("2d")


def test_type_errors():
    with pytest.raises(TypeError):
        libdice.roll(b"1d6", libdice.Die(userspace=True))
    with pytest.raises(TypeError):
        libdice.roll("1d6", die=6)
    with pytest.raises(ValueError):
        libdice.roll("1d6\0", libdice.Die(userspace=True))


def test_closed_die():
    d = libdice.Die(userspace=True)
    d.close()
    with pytest.raises(ValueError):
        libdice.roll("1d6", d)


def test_values_past_int64_are_exact():
    # Faces up to 2^64 - 1: the total, each group's value and each die's
    # are exact ints (they once raised OverflowError half the time).
    past = 0
    for seed in range(8):
        r = libdice.roll("3d18446744073709551615 + 1d18446744073709551615",
                         libdice.Die(seed=seed))
        assert [len(g.dice) for g in r.tree] == [3, 1]
        for g in r.tree:
            assert all(0 < d.value < 2**64 for d in g.dice)
            assert g.value == sum(d.value for d in g.dice)
        assert r.total == r.tree[0].value + r.tree[1].value
        past += r.tree[0].value > 2**63 - 1
        past += r.tree[1].value > 2**63 - 1
    # Those of groups alone: libdice gave them as text, not int64_t.
    assert past >= 8


def test_values_past_int64_with_dropped_dice():
    # Each group's own value, the sum of its kept dice, past int64_t too.
    for seed in range(8):
        r = libdice.roll("3d18446744073709551615kh2 + 1d18446744073709551615"
                         " + 5", libdice.Die(seed=seed))
        kept, single = r.tree
        assert len(kept.dice) == 3 and len(single.dice) == 1
        dropped = [d for d in kept.dice if "dropped" in d.flags]
        assert len(dropped) == 1
        assert dropped[0].value == min(d.value for d in kept.dice)
        assert kept.value == sum(d.value for d in kept.dice) - dropped[0].value
        assert single.value == single.dice[0].value
        assert r.total == kept.value + single.value + 5


def test_no_device_raises(has_device):
    if has_device:
        pytest.skip("/dev/dice is here (the QEMU guest tests it)")
    with pytest.raises(libdice.DeviceNotFoundError) as e:
        libdice.roll("4d6kh3")
    assert "modprobe dice" in str(e.value)
    assert "userspace=True" in str(e.value)
    assert isinstance(e.value, FileNotFoundError)


def test_threads_roll_their_own_seeded_dice():
    want = [libdice.roll("10d6kh3", libdice.Die(seed=s)).text
            for s in range(8)]
    got = [None] * 8

    def run(s):
        for _ in range(50):
            got[s] = libdice.roll("10d6kh3", libdice.Die(seed=s)).text
        libdice.distribution("20d6")

    threads = [threading.Thread(target=run, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == want


# ---- distribution ---------------------------------------------------------

def test_distribution_2d6():
    d = libdice.distribution("2d6")
    assert dict(d) == enumerate_law(6, 2, sum)
    assert d.probabilities == enumerate_law(6, 2, sum)
    assert list(d) == sorted(d)
    assert (d.min, d.max, d.mean, d.median) == (2, 12, Fraction(7), 7)
    assert all(isinstance(p, Fraction) for p in d.values())
    assert sum(d.values()) == 1


def test_distribution_4d6kh3():
    want = enumerate_law(6, 4, lambda f: sum(sorted(f)[1:]))
    d = libdice.distribution("4d6kh3")
    assert dict(d) == want
    assert d.mean == sum(v * p for v, p in want.items())


def test_distribution_advantage():
    want = enumerate_law(20, 2, max)
    d = libdice.distribution("2d20kh1")
    assert dict(d) == want
    assert d[20] == Fraction(39, 400)
    assert d.mean == Fraction(553, 40)


def test_1d20_plus_7_against_ac_15():
    d = libdice.distribution("1d20+7")
    assert d.at_least(15) == Fraction(13, 20)
    # the notation's own comparison: 1 on a hit, 0 on a miss
    assert libdice.distribution("1d20+7>=15")[1] == Fraction(13, 20)


def test_percentiles():
    d = libdice.distribution("1d100")
    assert d.percentile(0) == 1 and d.percentile(100) == 100
    assert d.percentile(25) == 25
    # the least v with P(X <= v) >= p%
    d = libdice.distribution("2d6")
    for p in range(101):
        v = d.percentile(p)
        assert d.at_most(v) >= Fraction(p, 100)
        assert v == d.min or d.at_most(v - 1) < Fraction(p, 100)
    with pytest.raises(ValueError):
        d.percentile(101)


def test_distribution_too_big():
    with pytest.raises(libdice.NotationError) as e:
        libdice.distribution("1000d1000!")
    assert e.value.message


# ---- versus ---------------------------------------------------------------

def test_versus_1d20_ties():
    v = libdice.versus("1d20", "1d20")
    assert v.tie == Fraction(1, 20)
    assert v.win == v.lose == Fraction(19, 40)
    assert sum(v) == 1


def test_versus_against_oracle():
    # advantage against disadvantage
    law = Counter()
    for a in itertools.product(range(1, 21), repeat=2):
        for b in itertools.product(range(1, 21), repeat=2):
            law[(max(a) > min(b)) - (max(a) < min(b))] += 1
    n = 20 ** 4
    v = libdice.versus("2d20kh1", "2d20kl1")
    assert v == (Fraction(law[1], n), Fraction(law[0], n),
                 Fraction(law[-1], n))


def test_versus_matches_cli(cli):
    out = subprocess.run([cli, "--versus", "3d6", "2d8+1"], check=True,
                         capture_output=True, text=True).stdout
    v = libdice.versus("3d6", "2d8+1")
    assert f"P(A > B) = {v.win.numerator}/{v.win.denominator}" in out
    assert f"P(A = B) = {v.tie.numerator}/{v.tie.denominator}" in out
