#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""debian/copyright (DEP-5) against the SPDX lines of the source files.

    scripts/deb-copyright.py [TOP]

For every file of the tree (what git tracks, and untracked files it does
not ignore: what make deb packs), the licence that debian/copyright gives
its path (the last matching "Files:" stanza, as DEP-5 says) must be the
one of its SPDX-License-Identifier line, translated to DEP-5 short names.
Every licence named in a stanza needs its own "License:" paragraph.
Prints one line per disagreement; exit 0 when there is none.
"""
import os
import re
import subprocess
import sys

# SPDX identifiers to DEP-5 short names.
SPDX_TO_DEP5 = {
    "GPL-2.0": "GPL-2",
    "GPL-2.0-only": "GPL-2",
    "GPL-2.0+": "GPL-2+",
    "GPL-2.0-or-later": "GPL-2+",
    "LGPL-2.1": "LGPL-2.1",
    "LGPL-2.1-only": "LGPL-2.1",
    "LGPL-2.1+": "LGPL-2.1+",
    "LGPL-2.1-or-later": "LGPL-2.1+",
}
SPDX_RE = re.compile(r"SPDX-License-Identifier:\s*(.*?)\s*(?:\*/)?\s*$")


def dep5_of_spdx(expr):
    """'GPL-2.0 OR LGPL-2.1-or-later' -> 'GPL-2 or LGPL-2.1+'."""
    out = []
    toks = expr.replace("(", " ( ").replace(")", " ) ").split()
    i = 0
    while i < len(toks):
        t = toks[i]
        if t in ("OR", "AND"):
            out.append(t.lower())
        elif t == "WITH" and i + 1 < len(toks):
            out.append("with %s exception" % toks[i + 1])
            i += 1
        elif t in "()":
            out.append(t)
        elif t in SPDX_TO_DEP5:
            out.append(SPDX_TO_DEP5[t])
        else:
            raise ValueError("unknown SPDX identifier %r" % t)
        i += 1
    return " ".join(out)


def paragraphs(text):
    """deb822 paragraphs as lists of (field, value) with folded values."""
    paras, cur, field = [], [], None
    for line in text.splitlines():
        if not line.strip():
            if cur:
                paras.append(cur)
            cur, field = [], None
        elif line[0] in " \t":
            if field is not None:
                cur[-1] = (field, cur[-1][1] + "\n" + line.strip())
        else:
            field, _, value = line.partition(":")
            field = field.strip()
            cur.append((field, value.strip()))
    if cur:
        paras.append(cur)
    return [dict(p) for p in paras]


def glob_re(pattern):
    """DEP-5 globs: * is any string (slashes too), ? one character."""
    out = ""
    for ch in pattern:
        out += ".*" if ch == "*" else "." if ch == "?" else re.escape(ch)
    return re.compile(out + r"\Z")


def source_files(top):
    try:
        out = subprocess.run(
            ["git", "-C", top, "ls-files", "-z", "--cached", "--others",
             "--exclude-standard"], check=True, capture_output=True).stdout
        files = [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root, dirs, names in os.walk(top):
            dirs[:] = [d for d in dirs if d not in (".git", "build")]
            for n in names:
                files.append(os.path.relpath(os.path.join(root, n), top))
    return sorted(f for f in files if os.path.isfile(os.path.join(top, f)))


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    with open(os.path.join(top, "debian/copyright"), encoding="utf-8") as f:
        paras = paragraphs(f.read())
    bad = 0
    stanzas, licences = [], set()
    for p in paras[1:]:
        if "Files" in p:
            globs = [glob_re(g) for g in p["Files"].split()]
            stanzas.append((globs, p.get("License", "").split("\n")[0]))
        elif "License" in p:
            licences.add(p["License"].split("\n")[0])
    for globs, lic in stanzas:
        for name in re.split(r"\s+(?:or|and)\s+", lic):
            if name not in licences:
                print("debian/copyright: no License paragraph for %r" % name)
                bad += 1
    checked = 0
    for path in source_files(top):
        try:
            with open(os.path.join(top, path), encoding="utf-8") as f:
                head = [next(f, "") for _ in range(5)]
        except UnicodeDecodeError:
            continue
        spdx = None
        for line in head:
            m = SPDX_RE.search(line)
            if m:
                spdx = m.group(1)
                break
        if spdx is None:
            continue
        try:
            want = dep5_of_spdx(spdx)
        except ValueError as e:
            print("%s: %s" % (path, e))
            bad += 1
            continue
        got = None
        for globs, lic in stanzas:
            if any(g.match(path) for g in globs):
                got = lic
        checked += 1
        if got != want:
            print("%s: SPDX %r is %r in DEP-5, debian/copyright says %r"
                  % (path, spdx, want, got))
            bad += 1
    print("deb-copyright: %d files with an SPDX line, %d disagreements"
          % (checked, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
