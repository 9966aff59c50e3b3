# SPDX-License-Identifier: LGPL-2.1-or-later
"""The binding against the real /dev/dice, in the QEMU guest (vmtest.sh
python; guest_image.py puts Debian's python3, the part of the standard
library this imports, libdice and this file into the initramfs).

    python3 -S guest.py            the tests, TAP (the guest's init runs
                                   them with dice.ko loaded)
    python3 -S guest.py --modules  the files of the modules imported, one
                                   a line: what guest_image.py copies

The guest has no pytest: plain checks, one TAP line each.  The module is
unloaded (rmmod) for the missing-device case and loaded again after it.
"""
import errno
import os
import sys
import time

t0 = time.monotonic()
import libdice  # noqa: E402 (timed)
import threading  # noqa: E402
IMPORT_MS = (time.monotonic() - t0) * 1000

if sys.argv[1:] == ["--modules"]:
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None)
        if f:
            print(f)
    sys.exit(0)

n = failed = 0


def check(name, cond, detail=""):
    global n, failed
    n += 1
    if cond:
        print(f"ok {n} - python: {name}")
    else:
        failed += 1
        print(f"not ok {n} - python: {name}" + (f" # {detail}" if detail
                                                  else ""))


def case(name):
    """Run the function as one case; an exception fails it."""
    def run(fn):
        try:
            ok, detail = fn()
        except Exception as e:	# noqa: BLE001 (reported, counted)
            ok, detail = False, f"{type(e).__name__}: {e}"
        check(name, ok, detail)
        return fn
    return run


print(f"# python {sys.version.split()[0]}: import libdice {IMPORT_MS:.0f} ms")


@case("/dev/dice d6: 1000 rolls, every face 1..6, counted by the device")
def d6():
    with libdice.Die() as d:
        faces = d.roll(1000)
        info, st = d.info, d.stats
    print(f"# d6 from /dev/dice: {faces[:12]}..., {st.bits_used} bits used "
          f"for {st.rolls} rolls")
    return (set(faces) == set(range(1, 7)) and not info.userspace and
            info.sides == 6 and st.rolls == 1000 and st.bits_used > 0,
            f"faces {sorted(set(faces))}, {info}, {st}")


@case("/dev/dice d6: roll() and iteration give ints 1..6")
def d6_one():
    with libdice.Die() as d:
        one = d.roll()
        it = iter(d)
        more = [next(it) for _ in range(100)]
    return (isinstance(one, int) and 1 <= one <= 6 and
            all(1 <= f <= 6 for f in more), f"{one}, {more[:10]}")


def chi_square(faces, weights):
    total = sum(weights)
    counts = [faces.count(i + 1) for i in range(len(weights))]
    return sum((c - len(faces) * w / total) ** 2 / (len(faces) * w / total)
               for c, w in zip(counts, weights) if w), counts


# 4 degrees of freedom: 1e-6 tail about 33.4 (a random device: rare
# enough never to fail a correct run)
CHI2_4DF = 33.4


@case("/dev/dice loaded die (weights 2,2,6,1,1): 20000 rolls fit")
def loaded():
    w = [2, 2, 6, 1, 1]
    with libdice.Die(weights=w) as d:
        faces = d.roll(20000)
        info = d.info
    chi2, counts = chi_square(faces, w)
    print(f"# loaded die from /dev/dice: counts {counts}, chi2 {chi2:.2f}")
    return (info.kind == "loaded" and info.sides == 5 and chi2 < CHI2_4DF,
            f"{info}, counts {counts}, chi2 {chi2:.2f}")


@case("/dev/dice alias table, method alias: weight 0 never, fit")
def alias():
    w = [2, 0, 6, 1, 1]
    with libdice.Die(alias=libdice.alias_build(w), method="alias") as d:
        faces = d.roll(20000)
        info = d.info
    chi2, counts = chi_square(faces, [x for x in w])
    return (counts[1] == 0 and info.method == "alias" and
            chi2 < CHI2_4DF - 2, f"{info}, counts {counts}")


@case("/dev/dice: two threads roll at once, each its own die")
def threads():
    out = {}

    def work(k):
        with libdice.Die(20) as d:
            out[k] = [f for _ in range(20) for f in d.roll(500)]
    ts = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return (all(len(v) == 10000 and set(v) == set(range(1, 21))
                for v in out.values()) and len(out) == 2, str(out.keys()))


@case("/dev/dice: batch method on a d100, faces in range")
def batch():
    with libdice.Die(100, method="batch") as d:
        faces = d.roll(5000)
        return (d.info.method == "batch" and
                set(faces) <= set(range(1, 101)), d.info)


@case("a closed /dev/dice die raises ValueError; close() twice is fine")
def closed():
    d = libdice.Die()
    d.close()
    d.close()
    try:
        d.roll()
    except ValueError:
        return True, ""
    return False, "no ValueError"


@case("/dev/dice has no mapping to choose: Die(mapping=...) and .mapping "
      "raise OSError EOPNOTSUPP")
def mapping():
    got = []
    with libdice.Die() as d:
        try:
            print(f"# /dev/dice mapping: {d.mapping}")
        except OSError as e:
            got.append(e.errno)
    try:
        libdice.Die(mapping=libdice.MAPPING_LATEST).close()
    except OSError as e:
        got.append(e.errno)
    return got == [errno.EOPNOTSUPP] * 2, str(got)


@case("/dev/dice notation: libdice.roll('4d6kh3') with no die, its tree")
def notation():
    rolls = [libdice.roll("4d6kh3") for _ in range(200)]
    r = rolls[0]
    print(f"# libdice.roll('4d6kh3') from /dev/dice: {r}")
    ok = all(3 <= x.total <= 18 and len(x.tree[0].dice) == 4 and
             sum(f.dropped for f in x.tree[0].dice) == 1 for x in rolls)
    return ok and len({x.total for x in rolls}) > 3, str(r)


@case("no module: Die() and libdice.roll() raise DeviceNotFoundError "
      "naming modprobe and userspace=True, no fallback")
def missing():
    # os.system, not subprocess: the image holds only what this imports
    if os.system("rmmod dice") != 0:
        return False, "rmmod dice failed"
    try:
        gone = not os.path.exists("/dev/dice")
        try:
            libdice.Die()
        except libdice.DeviceNotFoundError as e:
            msg = str(e)
            print(f"# {type(e).__name__}: {msg}")
            if not (gone and isinstance(e, FileNotFoundError) and
                    "modprobe dice" in msg and "userspace=True" in msg):
                return False, msg
        else:
            return False, "Die() opened something without the module"
        try:
            libdice.roll("4d6kh3")
        except libdice.DeviceNotFoundError as e:
            return "modprobe dice" in str(e), str(e)
        return False, "libdice.roll() rolled without the module"
    finally:
        if os.system("insmod /dice/dice.ko") != 0:
            print("# insmod /dice/dice.ko failed")


@case("module loaded again: /dev/dice rolls; the userspace engine too")
def again():
    with libdice.Die(6) as d, libdice.Die(6, userspace=True) as u:
        a, b = d.roll(100), u.roll(100)
    return set(a) <= set(range(1, 7)) and set(b) <= set(range(1, 7)), ""


print(f"1..{n}")
print(f"# python: {n - failed} passed, {failed} failed, "
      f"{time.monotonic() - t0:.1f} s")
sys.exit(1 if failed else 0)
