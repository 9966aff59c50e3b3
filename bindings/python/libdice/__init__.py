# SPDX-License-Identifier: LGPL-2.1-or-later
"""libdice: exact dice from /dev/dice, in Python.

A thin layer over libdice's C library (the ``libdice._ext`` extension):

>>> import libdice
>>> with libdice.Die(20, userspace=True) as d20:
...     1 <= d20.roll() <= 20
True

``Die()`` opens ``/dev/dice`` (the kernel module) and never falls back:
without the device it raises :class:`DeviceNotFoundError`, whose message
names the fixes (``modprobe dice``, or ``userspace=True`` for libdice's
userspace engine in this process).  ``seed=`` gives a seeded engine whose
faces are those of libdice's C ``dice_open_seeded()`` for the same seed:
replays, never secrets.
"""

# The types are in __init__.pyi: importing typing and dataclasses here
# would triple the import time (and the QEMU guest's image) for nothing.
import itertools
import operator
from collections import namedtuple

from . import _ext
from ._ext import DeviceNotFoundError, InvalidArgumentError

__all__ = [
    "Die",
    "DieInfo",
    "DieStats",
    "DeviceNotFoundError",
    "InvalidArgumentError",
    "METHODS",
    "MAX_FAIR_SIDES",
    "TABLE_SIDES_MAX",
    "alias_build",
    "method_name",
    "method_parse",
]

# Hook point for the notation API (issue #31, part 1): when libdice's C
# notation API lands, its functions are added here, each over a C function
# of a new libdice/ext/notation.c that rolls on a Die's handle through
# libdice_die_acquire()/libdice_die_release() (ext/internal.h), with the
# GIL released like every other call:
#   roll(expr, die=None) -> a result with .total, a text and a Markdown
#                           breakdown, the tree, crit/fumble flags
#   distribution(expr)   -> dict[int, Fraction] with min/max/mean/percentiles
#   versus(a, b)         -> the exact comparison of two expressions
# None exists before then, not even as a stub.

MAX_FAIR_SIDES = _ext.MAX_FAIR_SIDES
TABLE_SIDES_MAX = _ext.TABLE_SIDES_MAX

#: The sampling methods by name, as dice_method_name(3) spells them.
METHODS = tuple(
    name for name in (_ext.method_name(m) for m in range(16)) if name)


def method_name(method):
    """The name of a method number, None when there is no such method."""
    return _ext.method_name(operator.index(method))


def method_parse(name):
    """The number of a method name; ValueError when there is none."""
    if not isinstance(name, str):
        raise TypeError("a method name is a str")
    return _ext.method_parse(name)


def alias_build(weights):
    """An exact alias table ``(thresholds, aliases, mass)`` from integer
    weights, as dice_alias_build(3) makes it: ``Die(alias=...)`` takes it."""
    return _ext.alias_build(_uint_list(weights, "weights", 2**32 - 1))


#: What the die is (dice_get_info(3)): kind "fair" or "loaded", method a
#: name of METHODS, userspace True for libdice's engine in this process,
#: source DICE_SRC_KERNEL (0): the CRNG, or the seed's stream.
DieInfo = namedtuple("DieInfo", "sides kind method userspace source")

#: What the die has spent (dice_get_stats(3)): the device counts the bits
#: of its CRNG draws, the engine those of its stream.
DieStats = namedtuple("DieStats",
                      "rolls bits_used bits_drawn bits_discarded coin_bits")


def _uint_list(values, what, most):
    # Checked here so that a bad value is named before any C call.
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{what} must be a sequence of ints")
    out = []
    for i, v in enumerate(values):
        try:
            v = operator.index(v)
        except TypeError:
            raise TypeError(f"{what}[{i}] is not an int: {v!r}") from None
        if not 0 <= v <= most:
            raise ValueError(f"{what}[{i}] = {v} is not in 0..{most}")
        out.append(v)
    return out


class Die:
    """One die: a file of /dev/dice, or libdice's userspace engine.

    ``Die(sides=6)`` a fair die of 1..2**64-1 sides; ``Die(weights=[...])``
    a loaded die (integer weights, exact); ``Die(alias=(thresholds,
    aliases, mass))`` a loaded die as an exact alias table
    (dice_set_alias(3); :func:`alias_build` makes one).  ``userspace=True``
    rolls in this process from getrandom(); ``seed=N`` rolls the seeded
    ChaCha20 stream of dice_open_seeded(3); otherwise /dev/dice.
    ``method`` is a name of :data:`METHODS` or its number.

    A context manager; :meth:`close` may be called twice; a closed die
    raises ValueError.  Calls release the GIL, and a die shared by threads
    serves one call at a time.
    """

    def __init__(self, sides=None, *, weights=None, alias=None,
                 userspace=False, seed=None, method=None):
        self._die = None
        given = [n for n, v in (("sides", sides), ("weights", weights),
                                ("alias", alias)) if v is not None]
        if len(given) > 1:
            raise ValueError(f"give one of sides, weights, alias, "
                             f"not {' and '.join(given)}")
        if seed is not None:
            seed = operator.index(seed)
            if not 0 <= seed < 2**64:
                raise ValueError("seed must be in 0..2**64-1")
        if sides is not None:
            sides = operator.index(sides)
            if not 1 <= sides <= MAX_FAIR_SIDES:
                raise ValueError(f"sides must be in 1..{MAX_FAIR_SIDES}")
        if weights is not None:
            weights = _uint_list(weights, "weights", 2**32 - 1)
            if not weights or not any(weights):
                raise ValueError("weights need a side of nonzero weight")
        if alias is not None:
            try:
                thresholds, aliases, mass = alias
            except (TypeError, ValueError):
                raise ValueError("alias is (thresholds, aliases, mass)") \
                    from None
            thresholds = _uint_list(thresholds, "thresholds", 2**64 - 1)
            aliases = _uint_list(aliases, "aliases", 2**32 - 1)
            mass = operator.index(mass)
            if len(thresholds) != len(aliases) or not thresholds:
                raise ValueError("alias: thresholds and aliases must be "
                                 "as long as each other, and not empty")
            if not 0 < mass < 2**64:
                raise ValueError("alias: mass must be in 1..2**64-1")
        if method is not None and not isinstance(method, str):
            method = operator.index(method)
            if method_name(method) is None:
                raise ValueError(f"no such method: {method}")
        elif method is not None:
            method = method_parse(method)

        die = _ext.Die(userspace=bool(userspace), seed=seed)
        try:
            # The die, then its method: a method may suit one kind only.
            if weights is not None:
                die.set_weights(weights)
            elif alias is not None:
                die.set_alias(thresholds, aliases, mass)
            elif sides is not None:
                die.set_sides(sides)
            if method is not None:
                die.set_method(method)
        except BaseException:
            die.close()
            raise
        self._die = die

    # ---- lifetime --------------------------------------------------------

    def close(self):
        """Release the die; calling it again does nothing."""
        if self._die is not None:
            self._die.close()

    @property
    def closed(self):
        return self._die is None or self._die.closed

    def __enter__(self):
        self._handle()
        return self

    def __exit__(self, *exc_info):
        self.close()

    def _handle(self):
        # The C handle, for the future notation functions too.
        if self._die is None or self._die.closed:
            raise ValueError("I/O operation on a closed Die")
        return self._die

    # ---- rolls ------------------------------------------------------------

    def roll(self, n=None):
        """One face (1..sides), or a list of n faces."""
        die = self._handle()
        if n is None:
            return die.roll()
        n = operator.index(n)
        if n < 0:
            raise ValueError("n must be >= 0")
        return die.roll(n)

    def __iter__(self):
        """Rolls without end, one at a time (none rolled ahead)."""
        roll = self._handle().roll
        return (roll() for _ in itertools.repeat(None))

    # ---- queries ----------------------------------------------------------

    @property
    def info(self):
        i = self._handle().info()
        return DieInfo(sides=i["sides"],
                       kind="fair" if i["kind"] == _ext.KIND_FAIR
                       else "loaded",
                       method=method_name(i["method"]) or str(i["method"]),
                       userspace=i["userspace"], source=i["source"])

    @property
    def stats(self):
        return DieStats(**self._handle().stats())

    def __repr__(self):
        if self.closed:
            return "<libdice.Die closed>"
        i = self.info
        where = "userspace" if i.userspace else "/dev/dice"
        return f"<libdice.Die {i.kind} d{i.sides} {i.method} {where}>"
