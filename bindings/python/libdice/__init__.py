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
replays, never secrets.  ``mapping=`` chooses how an engine turns bits
into faces (dice_set_mapping(3)): seeded engines start at ``MAPPING_1``, as
libdice rolled before there were mappings, the others at
``MAPPING_LATEST``.

The notation of dice(1), over libdice's C notation API
(<dice_notation.h>): ``roll("4d6kh3", die=None)`` a :class:`Result`,
``distribution("2d6")`` the exact law as a dict of Fractions,
``versus("1d20", "1d20")`` exact P(A > B), P(A = B), P(A < B).
"""

# The types are in __init__.pyi: importing typing and dataclasses here
# would triple the import time (and the QEMU guest's image) for nothing.
import itertools
import operator
from collections import namedtuple

from . import _ext
from ._ext import DeviceNotFoundError, InvalidArgumentError, NotationError

__all__ = [
    "Die",
    "DieInfo",
    "DieStats",
    "DeviceNotFoundError",
    "Distribution",
    "Face",
    "Group",
    "InvalidArgumentError",
    "NotationError",
    "Result",
    "Versus",
    "METHODS",
    "MAPPING_1",
    "MAPPING_2",
    "MAPPING_3",
    "MAPPING_LATEST",
    "MAX_FAIR_SIDES",
    "TABLE_SIDES_MAX",
    "alias_build",
    "method_name",
    "method_parse",
    "distribution",
    "roll",
    "rolls",
    "versus",
]

MAX_FAIR_SIDES = _ext.MAX_FAIR_SIDES
TABLE_SIDES_MAX = _ext.TABLE_SIDES_MAX

#: The mappings of bits to faces (dice_set_mapping(3)): MAPPING_1, how
#: libdice rolled before there were mappings (a seeded die's default, so
#: that old replays hold), MAPPING_2, MAPPING_3, MAPPING_LATEST the latest
#: (the device's and ``userspace=True``'s).
MAPPING_1 = _ext.MAPPING_1
MAPPING_2 = _ext.MAPPING_2
MAPPING_3 = _ext.MAPPING_3
MAPPING_LATEST = _ext.MAPPING_LATEST

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
    ``method`` is a name of :data:`METHODS` or its number.  ``mapping``
    (:data:`MAPPING_1` to :data:`MAPPING_LATEST`) is how the engine turns bits
    into faces (dice_set_mapping(3)): by default MAPPING_1 with ``seed``,
    so that old replays hold, MAPPING_LATEST with ``userspace``; /dev/dice
    rolls by its module's latest and refuses one (OSError, EOPNOTSUPP).

    A context manager; :meth:`close` may be called twice; a closed die
    raises ValueError.  Calls release the GIL, and a die shared by threads
    serves one call at a time.
    """

    def __init__(self, sides=None, *, weights=None, alias=None,
                 userspace=False, seed=None, method=None, mapping=None):
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
        if mapping is not None:
            mapping = operator.index(mapping)
            if not MAPPING_1 <= mapping <= MAPPING_LATEST:
                raise ValueError(f"no such mapping: {mapping} (1.."
                                 f"{MAPPING_LATEST})")

        die = _ext.Die(userspace=bool(userspace), seed=seed)
        try:
            # The mapping first: the device refuses it before any table.
            if mapping is not None:
                die.set_mapping(mapping)
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
        # The C handle, for roll(expr, die=...) too.
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

    @property
    def mapping(self):
        """The mapping of bits to faces the engine rolls by
        (dice_get_mapping(3)); /dev/dice has none to report: OSError
        (EOPNOTSUPP)."""
        return self._handle().mapping()

    def __repr__(self):
        if self.closed:
            return "<libdice.Die closed>"
        i = self.info
        where = "userspace" if i.userspace else "/dev/dice"
        return f"<libdice.Die {i.kind} d{i.sides} {i.method} {where}>"


# ---- the notation (dice(1)'s, from libdice's <dice_notation.h>) -------------

# Flags of a die of a roll (DICE_DIE_* of dice_notation.h), by name.
_DIE_FLAGS = (
    (0x1, "dropped"), (0x2, "exploded"), (0x4, "extra"), (0x8, "rerolled"),
    (0x10, "critical"), (0x20, "fumble"), (0x40, "success"),
    (0x80, "failure"),
)
_RESULT_CRITICAL = 0x1
_RESULT_FUMBLE = 0x2


class Face(namedtuple("Face", "value flags")):
    """One die of a group: ``value`` what it counts, ``flags`` a
    frozenset of "dropped", "exploded", "extra" (added by an explosion),
    "rerolled", "critical", "fumble", "success", "failure"."""

    __slots__ = ()

    @property
    def dropped(self):
        return "dropped" in self.flags

    @property
    def kept(self):
        return "dropped" not in self.flags


#: One dice group of a roll (``4d6kh3`` of ``4d6kh3+2``): its text, where
#: it lies in Result.expr (start, end), its value, and its dice (Faces).
Group = namedtuple("Group", "text start end value dice")


def _face(value, flags):
    return Face(value, frozenset(n for bit, n in _DIE_FLAGS if flags & bit))


class Result:
    """One roll of an expression.

    ``total`` (an int, exact even beyond 64 bits), ``text`` the breakdown
    ("4d6kh3 [6, 5, 4, 1 dropped] = 15"), ``markdown`` the same for chat
    ("4d6kh3 \\[6, 5, 4, ~~1~~\\] = **15**"), ``total_text`` the total
    with its labels and comment, ``tree`` the groups with their dice,
    ``critical``/``fumble`` whether a kept die rolled one, ``expr`` the
    text as read, ``warnings`` readings other rollers differ on.
    ``str(result)`` is the breakdown.
    """

    __slots__ = ("total", "flags", "total_text", "text", "markdown", "expr",
                 "tree", "warnings")

    def __init__(self, raw):
        (self.total, self.flags, self.total_text, self.text, self.markdown,
         self.expr, groups, self.warnings) = raw
        self.tree = [Group(self.expr[start:end], start, end, value,
                           [_face(v, f) for v, f in dice])
                     for start, end, value, dice in groups]

    @property
    def critical(self):
        return bool(self.flags & _RESULT_CRITICAL)

    @property
    def fumble(self):
        return bool(self.flags & _RESULT_FUMBLE)

    def __int__(self):
        return self.total

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"<libdice.Result {self.text!r}>"


def _expr(expr):
    if not isinstance(expr, str):
        raise TypeError(f"an expression is a str, not {type(expr).__name__}")
    return expr


def _die_handle(die):
    if die is None:
        return None     # /dev/dice, opened by _ext.roll once expr has parsed
    if not isinstance(die, Die):
        raise TypeError(f"die must be a libdice.Die, not "
                        f"{type(die).__name__}")
    return die._handle()


def roll(expr, die=None):
    """Parse and roll ``expr`` (dice(1)'s notation) once: a :class:`Result`.

    Without ``die``, from /dev/dice as dice(1) rolls (never a fallback:
    :class:`DeviceNotFoundError` without the module); with one
    (``Die(userspace=True)``, ``Die(seed=N)``, any sides: the notation sets
    them), through it: a seeded die rolls dice(1)'s faces for ``dice
    --seed N``.  Parse errors raise :class:`NotationError`, and so does
    ``NxEXPR`` (N rolls: :func:`rolls`).  A roll that divides by zero
    raises ZeroDivisionError; a value past 128 bits OverflowError; a
    computed number of dice out of its range ValueError.
    """
    expr = _expr(expr)
    return Result(_ext.roll(expr, _die_handle(die), False)[0])


def rolls(expr, die=None):
    """Every roll of ``expr``: a list of :class:`Result`, N of them for
    ``NxEXPR`` (``"6x4d6kh3"``), else one.  ``die`` and the exceptions as
    :func:`roll`.  The die stays set between the rolls, as dice(1) keeps
    it (``dice_expr_rolls(3)``), so through a seeded die every roll is
    the one ``dice --seed N`` prints for it."""
    expr = _expr(expr)
    return [Result(raw) for raw in _ext.roll(expr, _die_handle(die), True)]


def _fraction(num, den):
    from fractions import Fraction  # not at import: it costs milliseconds
    return Fraction(int(num), int(den))


class Distribution(dict):
    """The exact law of an expression: {value: Fraction}, ascending, every
    value of non-zero probability; ``min``, ``max``, ``mean`` (a Fraction),
    :meth:`percentile`, :meth:`at_least`, :meth:`at_most`."""

    __slots__ = ("expr", "min", "max", "mean", "_percentiles")

    @property
    def probabilities(self):
        """A plain dict {value: Fraction}."""
        return dict(self)

    def percentile(self, p):
        """The p-th percentile (p an int, 0..100), as libdice computes it
        (dice_dist_percentile(3)): the least value v with P(X <= v) >= p%."""
        p = operator.index(p)
        if not 0 <= p <= 100:
            raise ValueError("p must be in 0..100")
        return self._percentiles[p]

    @property
    def median(self):
        return self._percentiles[50]

    def at_least(self, value):
        """P(X >= value), exactly."""
        return sum((q for v, q in self.items() if v >= value),
                   _fraction(0, 1))

    def at_most(self, value):
        """P(X <= value), exactly."""
        return sum((q for v, q in self.items() if v <= value),
                   _fraction(0, 1))

    def __repr__(self):
        return f"<libdice.Distribution {self.expr!r} {dict.__repr__(self)}>"


def distribution(expr):
    """The exact distribution of ``expr``: a :class:`Distribution`.
    :class:`NotationError` when it does not parse or cannot be computed
    exactly within libdice's limits (its message says which)."""
    expr = _expr(expr)
    law, mean, percentiles = _ext.distribution(expr)
    d = Distribution((v, _fraction(n, m)) for v, n, m in law)
    d.expr = expr
    d.min = law[0][0]
    d.max = law[-1][0]
    d.mean = _fraction(*mean.split("/")) if "/" in mean else \
        _fraction(mean, 1)
    d._percentiles = tuple(percentiles)
    return d


#: versus(a, b): exact P(A > B) (win), P(A = B) (tie), P(A < B) (lose).
Versus = namedtuple("Versus", "win tie lose")


def versus(a, b):
    """Exact chances of ``a`` against ``b``: Versus(win=P(A > B),
    tie=P(A = B), lose=P(A < B)), as ``dice --versus A B`` gives them."""
    law = {sign: _fraction(n, m)
           for sign, n, m in _ext.versus(_expr(a), _expr(b))}
    zero = _fraction(0, 1)
    return Versus(law.get(1, zero), law.get(0, zero), law.get(-1, zero))
