#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Each ioctl's errors: the uapi header and dice.rst's table must agree.

    errno-check.py UAPI_HEADER DICE_RST

<linux/dice.h> lists each command's errors once, in the comment above its
#define ("Errors: EINVAL (...), ..."; EFAULT is common to all, said once at
the top); Documentation/userspace-api/dice.rst has a table of the
ioctls with an Errors column.  Prints one line per command and a verdict;
exit 1 on any difference, on a command only one of them knows, or if
either lists none (a parser that found nothing must not pass).
"""
import re
import sys

ERRNO = re.compile(r"\bE[A-Z0-9]{2,}\b")


def no_parens(text):
    while True:
        out = re.sub(r"\([^()]*\)", "", text)
        if out == text:
            return out
        text = out


def from_header(path):
    src = open(path).read()
    found = {}
    for m in re.finditer(r"/\*((?:(?!\*/).)*?)\*/\s*#define\s+(DICE_IOC_\w+)\s",
                         src, re.S):
        body, name = m.group(1), m.group(2)
        if "Errors:" not in body:
            continue
        text = body.split("Errors:", 1)[1].replace("*", " ")
        found[name] = set(ERRNO.findall(no_parens(text))) | {"EFAULT"}
    return found


def from_rst(path):
    rows = open(path).read().split("   * - ")
    found = {}
    for row in rows:
        m = re.match(r"``(DICE_IOC_\w+)``", row)
        if not m:
            continue
        cells = re.split(r"\n     - ", row)
        if len(cells) < 6:
            continue
        cell = cells[5].split("\n\n", 1)[0]	# the last row ends the table
        found[m.group(1)] = set(ERRNO.findall(no_parens(
            cell.replace("``", ""))))
    return found


def main():
    header, rst = from_header(sys.argv[1]), from_rst(sys.argv[2])
    bad = 0
    if not header or not rst:
        print("errno-check: no ioctl found in %s" %
              (sys.argv[1] if not header else sys.argv[2]))
        return 1
    for name in sorted(set(header) | set(rst)):
        h, r = header.get(name), rst.get(name)
        if h == r:
            print("# %s: %s" % (name, " ".join(sorted(h))))
            continue
        bad += 1
        print("# %s: header %s, dice.rst %s" %
              (name, " ".join(sorted(h or [])) or "(absent)",
               " ".join(sorted(r or [])) or "(absent)"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
