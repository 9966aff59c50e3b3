#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dice(1) against the real /dev/dice, for the QEMU guest (busybox sh).
# "make -C tools vmtest VMTESTS=DIR" installs this as DIR/tools_dice_cli
# and a static dice as DIR/dice-cli/dice.  Prints TAP; exit 0 if every
# case passed, 1 if one failed, 4 (skip) if /dev/dice is missing.

HERE=$(cd "$(dirname "$0")" && pwd)
DICE=${DICE:-$HERE/dice-cli/dice}
[ -x "$DICE" ] || DICE=$(command -v dice) || {
	echo "not ok 1 - no dice binary next to $0 or on PATH"
	exit 1
}
T=$(mktemp -d /tmp/dice-vm.XXXXXX)
trap 'rm -rf "$T"' EXIT

# testlib/tap.sh: in the guest's /extra (vmtest.sh puts it there), else
# from the tree.
for TAPLIB in /extra/tap.sh "$HERE/../../testlib/tap.sh"; do
	[ -f "$TAPLIB" ] && break
done
# shellcheck source=testlib/tap.sh
. "$TAPLIB"
tap_init tools_dice_cli

# Each case asks tap_wanted before it runs (TAP_ONLY).
ok() { tap_ok "$1"; }
not_ok() { # NAME WHY
	tap_not_ok "$1" "$2"
	sed 's/^/#   out: /' "$T/out" | head -10
	sed 's/^/#   err: /' "$T/err" | head -10
}

run() {
	"$DICE" "$@" </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

# range NAME LINES LO HI ARGS...: exit 0, no stderr, LINES totals in [LO, HI]
range() {
	name=$1 lines=$2 lo=$3 hi=$4
	shift 4
	tap_wanted "$name" || return 0
	run "$@"
	if [ "$RC" -ne 0 ]; then
		not_ok "$name" "exit $RC"
		return
	fi
	if [ -s "$T/err" ]; then
		not_ok "$name" "unexpected stderr"
		return
	fi
	bad=$(awk -v lo="$lo" -v hi="$hi" -v want="$lines" '
		!/^-?[0-9]+$/ || $1 + 0 < lo + 0 || $1 + 0 > hi + 0 { bad++ }
		END { if (NR != want) bad++; print bad + 0 }' "$T/out")
	if [ "$bad" -ne 0 ]; then
		not_ok "$name" "$bad bad lines"
	else
		ok "$name"
	fi
}

# has NAME TEXT ARGS...: exit 0 and stdout has TEXT
has() {
	name=$1 text=$2
	shift 2
	tap_wanted "$name" || return 0
	run "$@"
	if [ "$RC" -ne 0 ]; then
		not_ok "$name" "exit $RC"
	elif ! grep -qF -- "$text" "$T/out"; then
		not_ok "$name" "stdout lacks $text"
	else
		ok "$name"
	fi
}

echo "TAP version 13"
if [ ! -c /dev/dice ]; then
	run 3d6
	if [ "$RC" -eq 1 ] && grep -qF "is the dice module loaded?" "$T/err" &&
	   grep -qF "DICE_ENGINE=userspace" "$T/err"; then
		echo "ok 1 - no /dev/dice: clear error, exit 1"
	else
		echo "not ok 1 - no /dev/dice: exit $RC"
		exit 1
	fi
	echo "1..1 # SKIP /dev/dice missing: the rest needs the module"
	exit 4
fi

range "dice 3d6" 1 3 18 3d6
range "dice 1000x3d6" 1000 3 18 1000x3d6
range "dice 6x4d6kh3" 6 3 18 6x4d6kh3
range "dice 4d6s1" 1 3 18 4d6s1
range "dice 3d6+2d4" 1 5 26 3d6+2d4
range "dice 100xd%" 100 1 100 100xd%
range "dice 100x4dF" 100 -4 4 100x4dF
range "dice 2d20kh1+5" 1 6 25 2d20kh1+5
range "dice 100x1d6! (bounded explosions)" 100 1 606 '100x1d6!'
# --roll20: its r is dice's (reroll until none matches), so no warning
range "dice --roll20 100x2d6r1" 100 4 12 --roll20 100x2d6r1
range "dice 100x10d10>=8f1" 100 -10 10 '100x10d10>=8f1'
range "dice --weights 2,2,6,1,1 300xdW" 300 1 5 --weights 2,2,6,1,1 300xdW
range "dice --faces 1,1,2,3,5,8 100xdW" 100 1 8 --faces 1,1,2,3,5,8 100xdW
range "dice 1000000d6" 1 1000000 6000000 1000000d6
range "dice d9223372036854775807" 1 1 9223372036854775807 d9223372036854775807
for m in recycle viglietta batch; do
	range "dice --method $m 200x3d6" 200 3 18 --method $m 200x3d6
done
# The baseline is the userspace engine's: the device refuses it, saying so.
name="dice --method rejection: refused on /dev/dice, with the way out"
if tap_wanted "$name"; then
	run --method rejection 3d6
	if [ "$RC" -ne 0 ] && grep -q "add --userspace" "$T/err"; then
		ok "$name"
	else
		not_ok "$name" "exit $RC"
	fi
fi
range "dice --userspace --method rejection 200x3d6" 200 3 18 --userspace --method rejection 200x3d6
range "dice --method alias loaded" 100 1 3 --method alias --weights 1,2,3 100xdW
has "dice -s 4d6kh3 shows a dropped die" "dropped" -s 4d6kh3
has "dice --json names /dev/dice" '"source":"/dev/dice"' --json 3d6
has "dice --bits reports the bound" "entropy bound" --bits 10000d6
range "dice {4d6+3d8}kh1 (grouped roll)" 1 1 8 '{4d6+3d8}kh1'
range "dice 100x3d6!p (penetrating)" 100 3 1518 '100x3d6!p'
range "dice 10x5d10u (unique)" 10 15 40 '10x5d10u'
range "dice (1d4)d6 (computed count)" 1 1 24 '(1d4)d6'
has "dice -s 8d6sa (sorted)" "8d6sa [" -s 8d6sa
name="dice reads expressions from standard input"
if tap_wanted "$name"; then
	if printf '3d6\n2d6\n' | "$DICE" >"$T/out" 2>"$T/err" &&
		[ "$(wc -l <"$T/out")" -eq 2 ]; then
		ok "$name"
	else
		not_ok "$name" "exit or lines"
	fi
fi

# bits used close to the bound: recycling wastes under 0.01 bit per d6
name="100000d6 spends about log2(6) bits per die"
if tap_wanted "$name"; then
	run --bits 100000d6
	grep '^bits:' "$T/out" | sed 's/^/# /'
	if awk '/^bits:/ { used = $2; bound = $9; sub(/;/, "", bound)
		exit !(used >= bound - 70 && used <= bound * 1.01 + 70) }' "$T/out"; then
		ok "$name"
	else
		not_ok "$name" "$(grep bits: "$T/out")"
	fi
fi

# fairness: chi-square p-value not absurdly small (fails 1 run in 10^5)
# hist NAME LABEL ARGS...: dice -H ARGS fits its exact distribution
hist() {
	name=$1 label=$2
	shift 2
	tap_wanted "$name" || return 0
	run -H "$@"
	grep '^chi-square:' "$T/out" | sed "s/^/# $label: /"
	if [ "$RC" -eq 0 ] &&
		awk '/^chi-square:/ { p = $NF } END { exit !(p + 0 > 1e-5) }' "$T/out"; then
		ok "$name"
	else
		not_ok "$name" "$(grep chi "$T/out")"
	fi
}
hist "histogram of 50000 2d6 fits the exact distribution" 2d6 50000 2d6
hist "histogram of a loaded die fits its weights" "weights 2,2,6,1,1" \
	20000 --weights 2,2,6,1,1

# Ctrl-C stops a huge histogram; dice dies by SIGINT (130)
name="SIGINT interrupts a huge histogram"
if tap_wanted "$name"; then
	"$DICE" -H 1000000000 3d6 </dev/null >"$T/out" 2>"$T/err" &
	pid=$!
	# Once dice catches SIGINT (a background job starts with it ignored);
	# a dice that never does is killed, and fails the case.
	if tap_wait_catching $pid 2; then kill -INT $pid; else kill -KILL $pid; fi
	wait $pid
	RC=$?
	if [ "$RC" -eq 130 ] && grep -q "interrupted after" "$T/err"; then
		ok "$name"
	else
		not_ok "$name" "exit $RC"
	fi
fi

name="dice abc is rejected (exit 2)"
if tap_wanted "$name"; then
	run abc
	if [ "$RC" -eq 2 ]; then ok "$name"; else not_ok "$name" "exit $RC"; fi
fi

echo "1..$tap_n"
tap_done
