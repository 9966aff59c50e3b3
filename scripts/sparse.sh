#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sparse on the module, a check that can fail:
#
#   scripts/sparse.sh KDIR M NAME [ROOT] [LOG]
#
# runs "make -C KDIR M=M C=2 CHECK='sparse -Wbitwise' modules" (in ROOT,
# a cached Debian root, through scripts/in-root.sh, when ROOT is not /) and
# prints one TAP line named "NAME: sparse ...":
#
#   ok         sparse checked every C file kbuild compiles for the module
#              (one "CHECK" line each, as many as kmod/*.o objects; the
#              count is in the line) and
#              printed no warning or error
#   not ok     a warning or error; no sparse at all (the cached roots have it); or fewer
#              files checked than the module has, for a reason not below
#   ok # SKIP  the distribution's sparse cannot check this kernel: kbuild
#              says "not available or not up to date", or sparse fails on
#              the kernel's own headers (files outside M): the reason is
#              in the line, never a plain ok
#
# The make output goes to LOG (default M/sparse.log).  Exit 1 on not ok.
set -uo pipefail
KDIR=${1:?usage: sparse.sh KDIR M NAME [ROOT] [LOG]}
M=${2:?}
NAME=${3:?}
ROOT=${4:-/}
LOG=${5:-$M/sparse.log}
HERE=$(cd "$(dirname "$0")" && pwd)

inroot() {
	if [ "$ROOT" = / ]; then "$@"; else "$HERE"/in-root.sh "$ROOT" "$@"; fi
}
tap() { # ok|fail|skip TEXT
	case $1 in
	ok) echo "ok 1 - $NAME: sparse $2" ;;
	skip) echo "ok 1 - $NAME: sparse # SKIP $2" ;;
	*) echo "not ok 1 - $NAME: sparse $2"
	   tail -n 30 "$LOG" | sed 's/^/#   /' ;;
	esac
	[ "$1" != fail ]
}

if ! ver=$(inroot sparse --version 2>/dev/null) || [ -z "$ver" ]; then
	: >"$LOG"
	tap fail "checked nothing: no sparse installed (make bookworm, make trixie)"
	exit
fi
# Without the caller's MAKEFLAGS: a "make -s" above would silence the
# CHECK lines this counts.
inroot env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	make -C "$KDIR" M="$M" ${DICE_MAKE_ARGS:-} C=2 CHECK="sparse -Wbitwise" \
	modules >"$LOG" 2>&1
rc=$?
# The module's C files: one object each (dice.o is the link of them).
want=$(find "$M/kmod" -maxdepth 1 -name '*.o' ! -name dice.o ! -name '*.mod.o' | grep -c .)
checked=$(grep -cE '^ +CHECK +' "$LOG")
if grep -q 'not available or not up to date' "$LOG"; then
	# Why: kbuild's own probe (scripts/checker-valid.sh of 6.13 and
	# later: the __typeof_unqual__ of the kernel's headers), tried here.
	probe='static inline int u(const int *q) { __typeof_unqual__(*q) v = *q; return v; }'
	out=$(inroot sh -c "printf '%s\n' '$probe' >/tmp/probe.c && sparse -m64 /tmp/probe.c" 2>&1)
	if printf '%s\n' "$out" | grep -q error; then
		why="it cannot parse __typeof_unqual__, which this kernel's headers use"
	else
		why="the headers lack scripts/checker-valid.sh"
	fi
	tap skip "checked 0 files: kbuild says sparse $ver is not available or not up to date for this kernel: $why"
	exit
fi
# Errors in the kernel's own headers, not the module's files.
hdr=$(grep -E '^[^ ]+: (error|warning):' "$LOG" | grep -v "^$M/\|^kmod/\|^\.\./" |
	grep -E '^(/usr/src|/lib/modules|\./include|\./arch|include/|arch/)' | head -n 1)
if [ -n "$hdr" ]; then
	tap skip "sparse $ver cannot parse this kernel's headers ($hdr)"
	exit
fi
if [ $rc -ne 0 ]; then
	tap fail "failed (make exit $rc, $checked files checked)"
elif grep -qE '(warning|error):' "$LOG"; then
	tap fail "warned ($(grep -cE '(warning|error):' "$LOG") lines, $checked files checked)"
elif [ "$checked" -lt "$want" ] || [ "$checked" -eq 0 ]; then
	tap fail "checked $checked of the module's $want C files"
else
	tap ok "clean, $checked of $want C files checked ($ver)"
fi
