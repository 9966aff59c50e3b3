#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Independent reference of the loaded recycling sampler, in Python integers.

Prints the faces (0-based sides) a loaded die given by integer weights rolls
under the default method, DICE_METHOD_RECYCLE, from the known bit stream of
ref_recycle.py, starting from the state x = 0, m = 1 with no offset held and
no columns waiting.  It was written from the documents alone,
Documentation/dice/recycling.rst, Documentation/dice/alias.rst and
Documentation/misc-devices/dice.rst, and in the style of ref_recycle.py; no C
source of the project was read, so it shares no code with the C sampler and
can serve it as an oracle.

Usage: python3 ref_loaded.py [options] WEIGHTS [WEIGHTS ...]
where WEIGHTS is a comma-separated list such as 2,2,6,1,1; see --help.
Each die starts from a fresh state and a fresh stream, and prints one line:
the weights, the ring depth, the whole limit, then the faces.

Where the documents leave a choice open, the reading taken here is written
down below (Rn), and some have an option to try the other reading.

R1  Top-up trigger.  A draw from [0, d) tops up when m < d * 2^(w // 2),
    w // 2 rounded down, so 31 for the narrow width 63 (dice.rst says
    "below n * 2^31"; recycling.rst says "d * 2^(w/2)" with w = 63), and
    64 for the wide width 128.  A top-up takes k = w - bitlength(m) bits,
    none if k <= 0, each bit appended least significant (x = x * 2^k + b,
    first stream bit most significant), as in ref_recycle.py.
R2  Which draws are narrow.  recycling.rst makes a draw narrow when
    d < 2^32 and m < 2^63; alias.rst draws the whole table "in the 64-bit
    state" for n D up to 2^40 and the cells of the grouped shape "in 64
    bits".  Read: every draw of the three 64-bit loaded shapes (grouped,
    whole, column and height) tops up to the narrow width with the narrow
    trigger whatever d is (so also a whole draw of n D >= 2^32, and a
    grouped draw of exactly (n D)^k = 2^32); only the fourth shape uses the
    128-bit state (trigger d * 2^64, fill to 128 bits).  The narrow limit
    (--narrow-limit) then only bounds the grouping ((n D)^2 <= limit, k
    the largest with (n D)^k <= limit, the "2^32" of "Faces drawn
    together"), the column count of the column-and-height shape
    (n < limit) and, under mapping 1, its column mass (D < limit).
R3  Choice of shape, in this order: n D < whole limit and (n D)^2 <= narrow
    limit: grouped; else n D < whole limit: whole; else n < narrow limit
    and D 2^e < 2^40 (and D < narrow limit under mapping 1): column then
    height; else the 128-bit draw.  The 2^40 of the column-and-height test
    is its own constant (--height-limit), not the whole limit, so that a
    whole limit of 0 gives column and height, as the brief asks.  e is the
    least e >= 0 with every share (n w_i) at most D 2^e.  So with the
    default limits {2, 2, 6, 1, 1} (n D = 60) is grouped, five cells a
    draw, as alias.rst says, not drawn whole; --narrow-limit 3000 (below
    60^2) turns grouping off and draws it whole.
R4  The alias table.  Vose's method in integers (dice.rst "Construction"),
    with the stacks of the Games::Dice::Loaded seed: sides scanned in
    increasing order, each pushed on the small stack (bar n w_i < W) or
    the large one; both are stacks (last in, first out: "small bars from
    the bottom, large ones from the top" of one array); each step pops the
    top small bar s and pairs it with the top large bar l, which stays on
    top of the large stack unless it became small, in which case it is
    pushed on top of the small stack.  A zero weight is a small bar of
    height 0 (thr = 0).  For {2, 2, 6, 1, 1}, {1, 0, 3} and
    {20, 1, 1, 1, 1, 1, 1} every order gives the same table (one large
    bar takes every small one), so this choice does not show in them.
R5  Offsets (dice.rst "Shares and offsets"): a side's share is its own
    piece (thr[s] units of column s, offsets 0..thr[s]-1), then the alias
    pieces it receives in increasing column order; columns with
    thr[c] = D give no piece.  Not really ambiguous; stated for the record.
R6  Grouped shape, order of digits.  u on [0, (n D)^k) is read as 2k
    mixed-radix digits, most significant first, the first cell first, and
    within a cell "column (radix n) then height (radix D)": the column is
    the more significant digit, cell = c * D + y, c = cell // D.  (The
    whole shape is the other way round, documented: c = u mod n,
    y = u // n.)  --cell-order=height-first tries c = cell mod n,
    y = cell // n.  The digits are computed by exact integer division; the
    64-bit fraction the documents describe is claimed to give the same.
R7  Where the held offset joins.  alias.rst: "The two 64-bit shapes merge
    one roll late ... join x only after roll i+1's draw".  Read: the two
    are whole and column-and-height (the bullets that say "64-bit"); the
    grouped shape merges each cell's offset at once (--grouped-late to
    hold it one roll as well: then a roll that draws merges the held
    offset after its draw, and a roll served from waiting cells merges the
    held offset, then holds its own).  In the column-and-height shape the
    held offset joins after both the column and the height draw ("a column
    draw, a height draw and a merge, in that order").  The first roll has
    nothing held; nothing is merged after the last roll (it cannot change
    a face printed).  The 128-bit shape merges at once.
R8  Height draw top-up.  "a height draw from an m topped up to only
    63 - e bits": first read as the usual trigger m < D * 2^31 (R1, w =
    narrow width) and a fill to (narrow width - e) bits.  Compared with
    the C core, the faces agreed only with --height-topup=reduced, the
    trigger D * 2^((63 - e) // 2) (recycling.rst's rule with w = 63 - e),
    which alias.rst now states; it is the default.  --height-topup=narrow
    keeps the first reading, --height-topup=full tops up whenever
    m < 2^(62 - e).
R9  Columns drawn ahead (ring of depth k).  Each roll with fewer than k
    columns waiting first draws columns until k wait ("the first roll
    after a change of the die fills it"), then makes its ordinary column
    draw (the column of roll i + k), then its height draw, then merges the
    held offset, then takes the oldest waiting column as its own: first
    in, first out, so from a fresh state the first roll makes k + 1
    column draws in a row and uses the first of them.  k = 0 is mapping 1:
    column draw, height draw, merge.  All column draws are narrow draws
    from [0, n).
R10 Default depth: 16 for a column-and-height table of 2^17 sides or more
    under mapping 2, of 2^14 sides or more under mapping 3, else 0.
    --ahead is honoured only by the column-and-height shape (the others
    have no columns to draw ahead).
R11 Nothing is special-cased for loaded dice: no shortcut for n D a power
    of two (the fair die's 2^k shortcut is documented for fair dice only),
    and a one-sided die still draws its height and merges it back.  The
    one exception is n D = 1, where grouping would be unbounded: such a
    die shows side 0 and takes no bit (not documented).
R12 The state is not narrowed before the first roll (it starts at (0, 1)).
    A 64-bit draw entered with m >= 2^(narrow width) is a broken invariant
    (recycling.rst, "Loop bounds"); this script stops with an error there
    rather than guess what the C does.
"""
import argparse
import os
import sys

# The known bit stream is ref_recycle.py's: byte i is (i * 37 + 11) & 0xff,
# most significant bit first.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ref_recycle import bitstream  # noqa: E402


class Recycler:
    """The state (x, m), x uniform on [0, m), fed by the bit stream."""

    def __init__(self):
        self.bits = bitstream()
        self.x, self.m = 0, 1
        self.taken = 0

    def take(self, k):
        v = 0
        for _ in range(k):
            v = v * 2 + next(self.bits)
        self.taken += k
        return v

    def draw(self, d, width, trigger):
        """Uniform on [0, d): top up to width bits when m < trigger (R1),
        accept x < q d, else keep the remainder and try again."""
        while True:
            if self.m < trigger:
                k = width - self.m.bit_length()
                if k > 0:
                    self.x = self.x * 2**k + self.take(k)
                    self.m *= 2**k
            if self.m < d:
                raise SystemExit("top-up cannot reach the draw (width too small)")
            q = self.m // d
            if self.x < q * d:
                u = self.x % d
                self.x, self.m = self.x // d, q
                return u
            self.x, self.m = self.x - q * d, self.m - q * d

    def merge(self, offset, size):
        self.x = self.x * size + offset
        self.m *= size


def build_table(w):
    """Vose's method in integers (R4), then shares and offsets (R5)."""
    n, D = len(w), sum(w)
    bar = [n * wi for wi in w]
    thr = [0] * n
    alias = list(range(n))
    small = [i for i in range(n) if bar[i] < D]
    large = [i for i in range(n) if bar[i] >= D]
    while small and large:
        s = small.pop()
        l = large[-1]
        thr[s], alias[s] = bar[s], l
        bar[l] -= D - bar[s]
        if bar[l] < D:
            large.pop()
            small.append(l)
    for i in small + large:
        assert bar[i] == D, "a bar left over is not exactly full"
        thr[i] = D
    share = thr[:]          # own piece first
    start = [0] * n         # where column c's alias piece starts in its share
    for c in range(n):
        if thr[c] < D:
            a = alias[c]
            start[c] = share[a]
            share[a] += D - thr[c]
    assert share == [n * wi for wi in w]
    return D, thr, alias, share, start


def side(table, c, y):
    D, thr, alias, share, start = table
    if y < thr[c]:
        return c, y
    return alias[c], y - thr[c] + start[c]


def plan(w, o):
    """The shape a die is drawn in (R2, R3) and its ring depth (R10)."""
    n, D = len(w), sum(w)
    nd = n * D
    if nd < o.whole_limit:
        if nd == 1:
            return "one", 0
        if nd * nd <= o.narrow_limit:
            return "grouped", 0
        return "whole", 0
    top = max(n * wi for wi in w)
    e = 0
    while top > D * 2**e:
        e += 1
    if (n < o.narrow_limit and D * 2**e < o.height_limit
            and (o.mapping >= 2 or D < o.narrow_limit)):
        if o.ahead is not None:
            ahead = o.ahead
        else:
            smallest = {2: 2**17, 3: 2**14}.get(o.mapping)
            ahead = 16 if smallest and n >= smallest else 0
        return "colheight", ahead
    return "wide", 0


def roll(w, count, o):
    n, D = len(w), sum(w)
    nd = n * D
    table = build_table(w)
    shape, ahead = plan(w, o)
    rec = Recycler()
    nw, half = o.narrow_width, o.narrow_width // 2
    held = None             # (offset, share) of the roll before (R7)
    cells = []              # grouped: cells drawn, not yet served
    ring = []               # column and height: columns waiting (R9)
    out = []

    def narrow(d, width=nw, trigger=None):
        if rec.m >= 2**nw:
            raise SystemExit("broken invariant: m >= 2^%d before a 64-bit draw" % nw)
        return rec.draw(d, width, d * 2**half if trigger is None else trigger)

    def release():
        nonlocal held
        if held is not None:
            rec.merge(*held)
            held = None

    if shape == "grouped":
        k, span = 1, nd
        while span * nd <= o.narrow_limit:
            span *= nd
            k += 1
    if shape == "colheight":
        top = max(n * wi for wi in w)
        e = 0
        while top > D * 2**e:
            e += 1
        hw = nw - e
        if o.height_topup == "narrow":
            htrig = D * 2**half
        elif o.height_topup == "reduced":
            htrig = D * 2**(hw // 2)
        else:
            htrig = 2**(hw - 1)

    while len(out) < count:
        if shape == "one":
            out.append(0)
            continue
        if shape == "grouped":
            if not cells:
                u = narrow(span)
                if o.grouped_late:
                    release()
                digits = []
                for r in [D, n] * k:        # least significant first
                    digits.append(u % r)
                    u //= r
                digits.reverse()            # c0 y0 c1 y1 ... (R6)
                cells = [(digits[2 * j], digits[2 * j + 1]) for j in range(k)]
            elif o.grouped_late:
                release()
            c, y = cells.pop(0)
            if o.cell_order == "height-first":
                c, y = (c * D + y) % n, (c * D + y) // n
            s, off = side(table, c, y)
            if o.grouped_late:
                held = (off, table[3][s])
            else:
                rec.merge(off, table[3][s])
        elif shape == "whole":
            u = narrow(nd)
            release()
            c, y = u % n, u // n
            s, off = side(table, c, y)
            held = (off, table[3][s])
        elif shape == "colheight":
            while len(ring) < ahead:
                ring.append(narrow(n))
            ring.append(narrow(n))
            y = narrow(D, hw, htrig)
            release()
            c = ring.pop(0)
            s, off = side(table, c, y)
            held = (off, table[3][s])
        else:
            u = rec.draw(nd, 128, nd * 2**64)
            c, y = u % n, u // n
            s, off = side(table, c, y)
            rec.merge(off, table[3][s])
        out.append(s)
    return out, shape, ahead, rec.taken


def number(text):
    text = text.replace("**", "^")
    if "^" in text:
        b, p = text.split("^")
        return int(b, 0) ** int(p, 0)
    return int(text, 0)


def main(argv):
    p = argparse.ArgumentParser(description="Faces of loaded dice from the known bit stream.")
    p.add_argument("weights", nargs="+", help="comma-separated integer weights, e.g. 2,2,6,1,1")
    p.add_argument("-n", "--rolls", type=int, default=30, help="faces per die (30)")
    p.add_argument("--narrow-width", type=number, default=63, help="narrow state width in bits (63)")
    p.add_argument("--narrow-limit", type=number, default=2**32,
                   help="narrow limit: grouping bound and column bound (2^32)")
    p.add_argument("--whole-limit", type=number, default=2**40,
                   help="n*D below this is drawn in one draw (2^40); 0 forces column then height")
    p.add_argument("--height-limit", type=number, default=2**40,
                   help="D*2^e below this allows column then height (2^40)")
    p.add_argument("--ahead", type=number, default=None,
                   help="columns drawn ahead (default: 16 from 2^17 sides under mapping 2, "
                        "from 2^14 under 3, else 0)")
    p.add_argument("--mapping", type=int, choices=(1, 2, 3), default=3, help="mapping version (3)")
    p.add_argument("--cell-order", choices=("column-first", "height-first"),
                   default="column-first", help="grouped shape: digits of a cell (R6)")
    p.add_argument("--grouped-late", action="store_true",
                   help="grouped shape: merge each offset one roll late too (R7)")
    p.add_argument("--height-topup", choices=("narrow", "reduced", "full"), default="reduced",
                   help="column and height: trigger of the height draw's top-up (R8)")
    p.add_argument("-v", "--verbose", action="store_true", help="also print shape and bits taken")
    o = p.parse_args(argv)
    for text in o.weights:
        w = [int(t, 0) for t in text.split(",")]
        if not w or min(w) < 0 or sum(w) == 0:
            p.error("weights must be non-negative with a positive sum: " + text)
        faces, shape, ahead, taken = roll(w, o.rolls, o)
        line = "%s ahead=%d whole=%d: %s" % (text, ahead, o.whole_limit, " ".join(map(str, faces)))
        if o.verbose:
            line += "  [%s, %d bits]" % (shape, taken)
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
