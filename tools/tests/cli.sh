#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# CLI tests of dice(1): every notation feature, every error message, the
# rolldice bugs as regression cases, --dist against hand-computed exact
# distributions and against a brute-force reference (tests/ref_dist.py,
# run by Debian's python3).  Rolls use the seeded or userspace engine only,
# so /dev/dice is not needed (vm.sh tests the real device).
#
# Usage: cli.sh PATH/TO/dice
# Prints TAP and ends with "cli: N passed, N failed"; exit 1 on failure.
# TAP_ONLY=PATTERN runs the cases whose "SECTION: NAME" matches it, e.g.
# TAP_ONLY='Roll20 notation: *' (testlib/tap.sh); make check-cli passes it.

DICE=${1:?usage: cli.sh PATH/TO/dice}
LC_ALL=C	# ASCII bars; the UTF-8 ones are tested on their own
export LC_ALL
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../testlib/tap.sh
. "$HERE/../../testlib/tap.sh"
tap_init cli
T=$(mktemp -d "${TMPDIR:-/tmp}/dice-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT

# ---- helpers ------------------------------------------------------------

run() { # ARGS...: run dice, set RC, stdout in $T/out, stderr in $T/err
	"$DICE" "$@" </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

# A case that TAP_ONLY leaves out still runs (most are one call of dice)
# but is not counted; the helpers below skip theirs before running.
ok() {
	tap_wanted "$1" || return 0
	tap_ok "$1"
}

not_ok() { # NAME WHY
	tap_wanted "$1" || return 0
	tap_not_ok "$1" "$2"
	sed 's/^/#   out: /' "$T/out" | head -20
	sed 's/^/#   err: /' "$T/err" | head -20
}

# t_rc NAME RC ARGS...
t_rc() {
	tap_wanted "$1" || return 0
	name=$1 want=$2
	shift 2
	run "$@"
	if [ "$RC" -eq "$want" ]; then ok "$name"; else not_ok "$name" "exit $RC, want $want"; fi
}

# t_err NAME RC TEXT ARGS...: exit RC, stderr has TEXT (fixed string)
# starting with "dice: ", and stdout is empty
t_err() {
	tap_wanted "$1" || return 0
	name=$1 want=$2 text=$3
	shift 3
	run "$@"
	if [ "$RC" -ne "$want" ]; then
		not_ok "$name" "exit $RC, want $want"
	elif ! grep -qF -- "$text" "$T/err"; then
		not_ok "$name" "stderr lacks: $text"
	elif ! head -1 "$T/err" | grep -q '^dice: '; then
		not_ok "$name" "stderr does not start with 'dice: '"
	elif [ -s "$T/out" ]; then
		not_ok "$name" "stdout not empty"
	else
		ok "$name"
	fi
}

# t_parse NAME COLUMN TEXT EXPR...: a notation error, exit 2, with the
# caret under COLUMN (1-based) of the echoed expression
t_parse() {
	tap_wanted "$1" || return 0
	name=$1 col=$2 text=$3
	shift 3
	run "$@"
	caret=$(printf '%*s^' $((col + 1)) '')
	if [ "$RC" -ne 2 ]; then
		not_ok "$name" "exit $RC, want 2"
	elif ! grep -qF -- "$text" "$T/err"; then
		not_ok "$name" "stderr lacks: $text"
	elif ! grep -qF "(column $col)" "$T/err"; then
		not_ok "$name" "no (column $col)"
	elif [ "$(grep -F -A2 "(column $col)" "$T/err" | sed -n 3p)" != "$caret" ]; then
		not_ok "$name" "caret not under column $col"
	else
		ok "$name"
	fi
}

# t_out NAME TEXT ARGS...: exit 0 and stdout has TEXT
t_out() {
	tap_wanted "$1" || return 0
	name=$1 text=$2
	shift 2
	run "$@"
	if [ "$RC" -ne 0 ]; then
		not_ok "$name" "exit $RC"
	elif ! grep -qF -- "$text" "$T/out"; then
		not_ok "$name" "stdout lacks: $text"
	else
		ok "$name"
	fi
}

# t_range NAME LINES LO HI ARGS...: exit 0, LINES lines of integers in [LO, HI]
t_range() {
	tap_wanted "$1" || return 0
	name=$1 lines=$2 lo=$3 hi=$4
	shift 4
	run "$@"
	if [ "$RC" -ne 0 ]; then
		not_ok "$name" "exit $RC"
		return
	fi
	got=$(wc -l <"$T/out")
	if [ "$got" -ne "$lines" ]; then
		not_ok "$name" "$got lines, want $lines"
		return
	fi
	while read -r v; do
		case $v in
		'' | *[!0-9-]* | ?*-*)
			not_ok "$name" "not an integer: $v"
			return
			;;
		esac
		if [ "$v" -lt "$lo" ] || [ "$v" -gt "$hi" ]; then
			not_ok "$name" "$v not in [$lo, $hi]"
			return
		fi
	done <"$T/out"
	ok "$name"
}

# t_count NAME TEXT MIN MAX ARGS...: TEXT occurs on MIN..MAX stdout lines
t_count() {
	tap_wanted "$1" || return 0
	name=$1 text=$2 min=$3 max=$4
	shift 4
	run "$@"
	c=$(grep -cF -- "$text" "$T/out")
	if [ "$RC" -ne 0 ]; then
		not_ok "$name" "exit $RC"
	elif [ "$c" -lt "$min" ] || [ "$c" -gt "$max" ]; then
		not_ok "$name" "'$text' on $c lines, want $min..$max"
	else
		ok "$name"
	fi
}

# t_dist NAME "v:c v:c ..." DENOMINATOR EXPR: the exact distribution
t_dist() {
	tap_wanted "$1" || return 0
	name=$1 want=$2 den=$3
	shift 3
	run --dist "$@"
	got=$(awk -F'\t' 'NF >= 3 && $1 ~ /^-?[0-9]+$/ { printf "%s%s:%s", s, $1, $2; s = " " }' "$T/out")
	if [ "$RC" -ne 0 ]; then
		not_ok "$name" "exit $RC"
	elif ! grep -qx "denominator: $den" "$T/out"; then
		not_ok "$name" "denominator is not $den"
	elif [ "$got" != "$want" ]; then
		not_ok "$name" "got $got"
	else
		ok "$name"
	fi
}


# ---- rolldice forms and regressions ----------------------------------------
tap_section "rolldice forms and regressions"

t_range "3d6 rolls one total in 3..18" 1 3 18 --seed=42 3d6
t_range "100x3d6: 100 totals in 3..18" 100 3 18 --seed=42 100x3d6
t_range "6x3d6: one line per roll" 6 3 18 --seed=42 6x3d6
t_range "4d6s1 (rolldice drop lowest) in 3..18" 1 3 18 --seed=42 4d6s1
t_count "4d6s1 drops exactly one die" "dropped" 1 1 --seed=42 -s 4d6s1
t_dist "4d6s1 is 4d6kh3" "3:1 4:4 5:10 6:21 7:38 8:62 9:91 10:122 11:148 12:167 13:172 14:160 15:131 16:94 17:54 18:21" 1296 4d6s1
t_parse "rolldice bug: abc is rejected, not 1d6" 1 "unexpected 'a'" abc
t_range "rolldice bug: 3d6+2d4 is 3d6 plus 2d4 (5..26)" 200 5 26 --seed=42 200x3d6+2d4
t_out "rolldice bug: 3d6+2d4 shows both groups" "3d6 [" --seed=42 -s 3d6+2d4
t_out "rolldice bug: 3d6+2d4 shows the 2d4" " + 2d4 [" --seed=42 -s 3d6+2d4
t_dist "rolldice bug: 3d6+2d4 distribution" "5:1 6:5 7:15 8:35 9:68 10:116 11:177 12:245 13:311 14:363 15:392 16:392 17:363 18:311 19:245 20:177 21:116 22:68 23:35 24:15 25:5 26:1" 3456 "3d6+2d4"
t_parse "rolldice bug: 0d6 is rejected" 1 "a dice group needs at least one die" 0d6
t_parse "0x3d6 is rejected" 1 "repeat count must be at least 1" 0x3d6
t_parse "rolldice bug: 4d6s5 drops 5 of 4: error" 4 "cannot drop 5 of 4 dice" 4d6s5
t_parse "4d6s4 would drop every die" 4 "cannot drop 4 of 4 dice (at least one must remain)" 4d6s4
t_range "d% is d100" 300 1 100 --seed=42 300xd%
t_dist "d% distribution is uniform on 1..100" "$(i=1; s=; while [ $i -le 100 ]; do printf '%s%s:1' "$s" $i; s=' '; i=$((i + 1)); done)" 100 d%

# ---- Roll20 notation ---------------------------------------------------------
tap_section "Roll20 notation"

t_range "4dF in -4..4" 200 -4 4 --seed=42 200x4dF
t_dist "4dF distribution" "-4:1 -3:4 -2:10 -1:16 0:19 1:16 2:10 3:4 4:1" 81 4dF
t_count "4d6kh3 drops one" "dropped" 1 1 --seed=42 -s 4d6kh3
t_count "4d6k3 (k = kh) drops one" "dropped" 1 1 --seed=42 -s 4d6k3
run --seed=42 -s 5d6kl2
if [ "$(grep -o dropped "$T/out" | wc -l)" -eq 3 ]; then ok "5d6kl2 drops three"; else not_ok "5d6kl2 drops three" "wrong count"; fi
t_dist "4d6dl1 = 4d6kh3" "3:1 4:4 5:10 6:21 7:38 8:62 9:91 10:122 11:148 12:167 13:172 14:160 15:131 16:94 17:54 18:21" 1296 4d6dl1
t_dist "2d20kh1 (advantage)" "$(i=1; s=; while [ $i -le 20 ]; do printf '%s%s:%s' "$s" $i $((2 * i - 1)); s=' '; i=$((i + 1)); done)" 400 2d20kh1
t_dist "2d20kl1 (disadvantage)" "$(i=1; s=; while [ $i -le 20 ]; do printf '%s%s:%s' "$s" $i $((41 - 2 * i)); s=' '; i=$((i + 1)); done)" 400 2d20kl1
t_dist "2d6dh1 = 2d6kl1" "1:11 2:9 3:7 4:5 5:3 6:1" 36 2d6dh1
t_dist "3d6 exact distribution" "3:1 4:3 5:6 6:10 7:15 8:21 9:25 10:27 11:27 12:25 13:21 14:15 15:10 16:6 17:3 18:1" 216 3d6
t_dist "4d6kh3 exact distribution" "3:1 4:4 5:10 6:21 7:38 8:62 9:91 10:122 11:148 12:167 13:172 14:160 15:131 16:94 17:54 18:21" 1296 4d6kh3
t_out "3d6 mean is 21/2" "mean: 21/2 = 10.5" --dist 3d6
t_out "4d6kh3 mean is 15869/1296" "mean: 15869/1296 = 12.24459877" --dist 4d6kh3
t_out "2d20kh1 mean is 5530/400 = 553/40" "mean: 553/40 = 13.825" --dist 2d20kh1
t_out "3d6 min" "min: 3" --dist 3d6
t_out "3d6 max" "max: 18" --dist 3d6
t_dist "1d6! explodes into separate dice (limit 2)" "1:36 2:36 3:36 4:36 5:36 7:6 8:6 9:6 10:6 11:6 13:1 14:1 15:1 16:1 17:1 18:1" 216 --max-explode 2 "1d6!"
t_dist "1d4!! compounds (limit 1)" "1:4 2:4 3:4 5:1 6:1 7:1 8:1" 16 --max-explode 1 "1d4!!"
t_dist "1d4!>=3 explodes on 3 and 4 (limit 1)" "1:4 2:4 4:1 5:2 6:2 7:2 8:1" 16 --max-explode 1 "1d4!>=3"
t_count "3d6! breakdown marks explosions" "exploded" 1 200 --seed=42 -s 200x3d6!
t_count "3d6!! breakdown shows compounded faces" "(6+" 1 200 --seed=42 -s 200x3d6!!
t_range "1d6! totals stay within the explosion limit" 200 1 606 --seed=42 200x1d6!
t_range "--max-explode 1 bounds 1d6! to 12" 300 1 12 --seed=42 --max-explode 1 300x1d6!
t_dist "1d6r1 rerolls 1s until gone" "2:1 3:1 4:1 5:1 6:1" 5 "1d6r1"
t_dist "1d6r<3 rerolls 1 and 2" "3:1 4:1 5:1 6:1" 4 "1d6r<3"
t_dist "1d6ro1 rerolls a 1 once" "1:1 2:7 3:7 4:7 5:7 6:7" 36 "1d6ro1"
t_dist "1d6r1r6 takes several rules" "2:1 3:1 4:1 5:1" 4 "1d6r1r6"
t_count "2d6r1 breakdown shows rerolled dice" "rerolled" 1 300 --seed=42 -s 300x2d6r1
t_range "2d6r<3 never shows a kept 1 or 2" 200 6 12 --seed=42 200x2d6r\<3
t_range "10d10>=8 counts 0..10 successes" 200 0 10 --seed=42 "200x10d10>=8"
t_dist "3d6>=5 counts successes" "0:8 1:12 2:6 3:1" 27 "3d6>=5"
t_dist "3d6>3 is strict (3 does not count)" "0:1 1:3 2:3 3:1" 8 "3d6>3"
t_dist "3d6=6 counts sixes" "0:125 1:75 2:15 3:1" 216 "3d6=6"
t_dist "2d6>=5f1 subtracts failures" "-2:1 -1:6 0:13 1:12 2:4" 36 "2d6>=5f1"
t_count "10d10>=8 breakdown marks successes" "success" 1 50 --seed=42 -s "50x10d10>=8"
t_range "10d10>=8f1 can go negative" 200 -10 10 --seed=42 "200x10d10>=8f1"
t_dist "4d6kh3>=5 counts among the kept" "0:16 1:32 2:24 3:9" 81 "4d6kh3>=5"

# ---- arithmetic ------------------------------------------------------------
tap_section "arithmetic"

t_dist "d6+3 shifts" "4:1 5:1 6:1 7:1 8:1 9:1" 6 "d6+3"
t_dist "d6-d6 is symmetric" "-5:1 -4:2 -3:3 -2:4 -1:5 0:6 1:5 2:4 3:3 4:2 5:1" 36 "d6-d6"
t_dist "2*d3 scales" "2:1 4:1 6:1" 3 "2*d3"
t_dist "d2*d3 multiplies" "1:1 2:2 3:1 4:1 6:1" 6 "d2*d3"
t_dist "(d2+1)*2 uses parentheses" "4:1 6:1" 2 "(d2+1)*2"
t_dist "-d4 negates" "-4:1 -3:1 -2:1 -1:1" 4 -- "-d4"
t_dist "1+2*3 is 7" "7:1" 1 "1+2*3"
t_dist "spaces around operators" "3:1 4:2 5:1" 4 " d2 + d2 + 1 "
t_range "3d6 + 2d4 - 1 rolls" 50 4 25 --seed=42 "50x3d6 + 2d4 - 1"
t_out "breakdown of parentheses" "(2d6 [" --seed=42 -s "(2d6+1)*2"
# a brace (or a comparison, a brace inside) in parentheses lost its ")"
t_out "breakdown of a brace in parentheses closes them" "kh1) * 2 = " --seed=3 -s "({1d6,1d8}kh1)*2"
t_out "breakdown of a comparison in parentheses closes them" "5 >= 15) * 2d6 [" --seed=3 -s "(1d20+5>=15)*2d6"
# a comparison was {A-B} against 0 inside: its breakdown showed that, an
# A - B past 128 bits failed, and the law of A - B spanned more values
# than a distribution may where A and B did not (helper-36)
t_out "a comparison's breakdown as written: 1d20 [16] + 5 >= 15 = 1" "1d20 [16] + 5 >= 15 = 1" --seed=3 -s "1d20+5>=15"
t_out "!=: as written, 1 when the totals differ" "(1d20 [16]) != 1d20 [" --seed=3 -s "(1d20) != 1d20"
# the group's text kept the space read looking for a modifier (helper-37)
t_out "--avrae 2d6 != 7: one space before the dice" "2d6 [5, 4] != 7 = 1" --avrae --seed=1 -s "2d6 != 7"
t_dist "(d600000)>(d600000): the law of two values, not of A - B" "0:600001 1:599999" 1200000 "(d600000)>(d600000)"
M=9223372036854775807
t_dist "A > B where A and B fit a distribution's 62 bits and A - B does not" "1:1" 1 "(1d2+4611686018427387000) > (1d2-4611686018427387000)"
t_out "A > B near 2^127 rolls where A - B is past 128 bits" "= 1" --seed=1 -s "($M*$M*2) > -($M*$M*2)"
t_range "several expressions roll in turn" 2 1 6 --seed=42 d6 d6

# ---- custom and weighted dice -----------------------------------------------
tap_section "custom and weighted dice"

t_dist "--weights 2,2,6,1,1" "1:2 2:2 3:6 4:1 5:1" 12 --weights 2,2,6,1,1
t_dist "--faces 1,1,2,3,5,8" "1:2 2:1 3:1 5:1 8:1" 6 --faces 1,1,2,3,5,8
t_dist "--faces with --weights" "-1:1 0:2 10:1" 4 --faces 10,0,-1 --weights 1,2,1
t_dist "3dW uses the custom die" "3:1 4:3 5:3 6:1" 8 --faces 1,2 3dW
t_dist "d{...} inline faces" "1:2 2:1 3:1 5:1 8:1" 6 "d{1,1,2,3,5,8}"
t_dist "d{face:weight} inline weights" "1:2 2:2 3:6 4:1 5:1" 12 "d{1:2,2:2,3:6,4:1,5:1}"
t_dist "zero weights never come up" "1:1 3:1" 2 --weights 1,0,1
t_range "--weights rolls faces 1..5" 200 1 5 --seed=42 --weights 2,2,6,1,1 200xdW
t_range "--faces rolls only listed faces" 100 1 8 --seed=42 --faces 1,1,2,3,5,8 100xdW
t_range "--weights 0,1 always rolls 2" 50 2 2 --seed=42 --weights 0,1 50xdW
t_range "with --weights the expression defaults to dW" 1 1 3 --seed=42 --weights 1,1,1
t_count "weighted dice roll through the loaded die" "" 1 1 --seed=42 --weights 5,1 dW
t_range "3d{-1:1,1:1} in -3..3" 100 -3 3 --seed=42 "100x3d{-1:1,1:1}"

# ---- output forms ---------------------------------------------------------
tap_section "output forms"

t_out "--breakdown shows the total" " = " --seed=42 -s 3d6
t_out "-s prints one line per roll" "4d6kh3 [" --seed=42 -s 4d6kh3+2
run --seed=42 5x3d6
plain=$(cat "$T/out")
run --seed=42 -s 5x3d6
sums=$(sed 's/.* = //' "$T/out")
if [ "$plain" = "$sums" ]; then ok "-s totals equal the plain totals"; else not_ok "-s totals equal the plain totals" "$plain vs $sums"; fi
run --seed=42 5x3d6
again=$(cat "$T/out")
if [ "$plain" = "$again" ]; then ok "--seed replays the same rolls"; else not_ok "--seed replays the same rolls" "differs"; fi
run --seed 43 20x3d6
other=$(cat "$T/out")
run --seed=42 20x3d6
if [ "$other" != "$(cat "$T/out")" ]; then ok "another seed gives other rolls"; else not_ok "another seed gives other rolls" "same"; fi
run --seed=42 3d6
if [ "$(cat "$T/err")" = "dice: seeded replay (seed 42) - not random" ]; then ok "--seed labels the rolls as not random (stderr)"; else not_ok "--seed labels the rolls as not random (stderr)" "no label"; fi
if grep -qx '[0-9]*' "$T/out" && ! grep -q seeded "$T/out"; then ok "--seed label stays off stdout"; else not_ok "--seed label stays off stdout" "stdout polluted"; fi
t_out "--json has the expression" '"expression":"4d6kh3+2"' --seed=42 --json 4d6kh3+2
t_out "--json has each die" '"dice":[{"value":' --seed=42 --json 4d6kh3+2
t_out "--json marks dropped dice" '"kept":false' --seed=42 --json 4d6kh3+2
t_out "--json has the total" '"total":' --seed=42 --json 4d6kh3+2
t_out "--json names the source" '"source":"seeded","seed":42' --seed=42 --json 3d6
t_out "--json lists rerolled faces" '"rerolled":[' --seed=42 --json 50x2d6r1
t_out "--json marks explosions" '"exploded":true' --seed=42 --json 50x2d6!
t_out "--json marks extra dice" '"extra":true' --seed=42 --json 50x2d6!
t_out "--json lists compounded faces" '"faces":[' --seed=42 --json 2d6!!
t_out "--json marks successes" '"success":true' --seed=42 --json "10d10>=5"
t_out "--json --dist" '"denominator":"216","min":3,"max":18,"mean":{"numerator":"21","denominator":"2"' --json --dist 3d6
t_out "--json --histogram" '"rolls":100,"values":[' --seed=42 --json -H 100 3d6
# Debian's python3 (a dependency of make check, started directly: a
# python3 earlier on the PATH may be a shim that costs a shell a call).
for args in "--json 4d6kh3+2" "--json 6x3d6!" "--json --bits 2d6r1" "--json 10d10>=8f1" "--json --dist 3d6" "--json -H 1000 2d6" "--json 3d6 2d4"; do
	# shellcheck disable=SC2086
	run --seed=42 $args
	if /usr/bin/python3 -c 'import json,sys
for line in sys.stdin: json.loads(line)' <"$T/out" 2>/dev/null; then
		ok "valid JSON: $args"
	else
		not_ok "valid JSON: $args" "python3 json.loads failed"
	fi
done
t_out "--bits reports bits against the bound" "bits: " --seed=42 --bits 100d6
t_out "--bits names the entropy bound" "entropy bound 258.496" --seed=42 --bits 100d6
t_out "--bits counts the faces" "for 100 faces" --seed=42 --bits 100d6
t_out "--bits --json" '"bits":{"used":' --seed=42 --bits --json 10d6
for m in recycle viglietta batch rejection; do
	t_range "--method $m rolls" 50 3 18 --seed=42 --method $m 50x3d6
done
t_range "--method alias rolls a loaded die" 20 1 3 --seed=42 --method alias --weights 1,2,3 20xdW
t_range "--userspace rolls" 20 3 18 --userspace 20x3d6
t_out "--histogram draws bars (--bars=always)" "#" --seed=42 --bars=always -H 2000 2d6
t_out "--histogram shows the expectation" "expected" --seed=42 -H 2000 2d6
t_out "--histogram runs a chi-square test" "chi-square: " --seed=42 -H 2000 2d6
t_out "--histogram counts repeats" "300 rolls" --seed=42 -H 100 3x2d6
t_out "--dist of a repeat says so" "repeat: 6 independent rolls" --dist 6x3d6
t_range "a million dice" 1 1000000 6000000 --seed=42 1000000d6
t_out "--help" "Usage: dice" --help
# Every example of --help's notation summary gives an exact distribution:
# the examples are the text before column 49, two spaces apart.
"$DICE" --help | sed -n '/^Notation/,/^Options:/p' | grep '^  ' |
	cut -c3-48 | sed 's/   */\n/g; s/ *$//' | grep . >"$T/help_examples"
bad=
while IFS= read -r x; do
	"$DICE" --dist "$x" >/dev/null 2>&1 </dev/null || bad="$bad '$x'"
done <"$T/help_examples"
n=$(wc -l <"$T/help_examples")
if [ -z "$bad" ] && [ "$n" -ge 60 ]; then
	ok "--help: each notation example has a --dist"
else
	not_ok "--help: each notation example has a --dist" "failed:$bad ($n examples)"
fi
t_out "--version" "dice " --version

# ---- notation errors --------------------------------------------------------
tap_section "notation errors"

t_parse "empty expression" 1 "empty expression" ""
t_parse "garbage after a total" 4 "unknown modifier 'a'" 3d6abc
t_parse "3d: no sides" 3 "expected the number of sides" 3d
t_parse "d0: no sides" 2 "a die needs at least one side" d0
t_dist "4df is 4dF: case does not matter" "-4:1 -3:4 -2:10 -1:16 0:19 1:16 2:10 3:4 4:1" 81 4df
t_dist "3D6 is 3d6: case does not matter" "3:1 4:3 5:6 6:10 7:15 8:21 9:25 10:27 11:27 12:25 13:21 14:15 15:10 16:6 17:3 18:1" 216 3D6
t_parse "kh more than the dice" 4 "cannot keep 5 of 4 dice" 4d6kh5
t_parse "kh0" 4 "cannot keep 0 of 4 dice" 4d6kh0
t_parse "s without a number" 5 "expected a number after 's'" 4d6s
t_parse "s without a number" 5 "expected a number after 's'" 4d6s
t_parse "dl more than the dice" 4 "cannot drop 4 of 4 dice" 4d6dl4
t_parse "bare d after a group is ambiguous" 4 "ambiguous 'd' after a dice group" 4d6d1
t_parse "two keep/drop modifiers" 7 "more than one keep/drop modifier" 4d6kh3dl1
t_parse "two explosions" 7 "more than one '!' modifier" "3d6!r1!"
t_parse "explosion that matches no face" 4 "matches no face of the die, so nothing would explode" "3d6!7"
t_parse "explosion on every face" 4 "matches every face" "3d6!>=1"
t_dist "a bare r rerolls the lowest face" "2:1 3:1 4:1 5:1 6:1" 5 "1d6r"
t_parse "reroll that matches no face" 4 "'r7' matches no face of the die" "3d6r7"
t_parse "reroll every face forever" 7 "rerolling every face of the die would never stop" "3d6r<4r>3"
t_parse "mixing r and ro" 6 "cannot mix 'r' and 'ro'" "3d6r1ro2"
t_parse "too many reroll rules" 20 "too many reroll rules" "d20r1r2r3r4r5r6r7r8r9"
t_parse "success that matches no face" 4 "success target '>=7' matches no face" "3d6>=7"
t_parse "success target must come last" 7 "the success target must be the last modifier" "3d6>=5kh2"
t_parse "a roll after a success target: compare the group in parentheses" 9 "the success target must be the last modifier of its dice group, and it is a number, not a roll: to compare a group's total with a roll, put the group in parentheses, as in (1d6) > 1d4" "(1d6 > 1d4)"
t_parse "a roll right after a success target" 6 "and it is a number, not a roll" "3d6>4d6"
t_parse "a drop after a failure target is not called a roll" 10 "the success target must be the last modifier of its dice group" "10d10>8f1d2"
t_parse "failures need a success target" 4 "'f' (failures) needs a success target first" "3d6f1"
t_parse "failure that matches no face" 7 "failure target 'f<1' matches no face" "3d6>=5f<1"
t_parse "success and failure overlap" 7 "cannot count as both a success and a failure" "3d6>=3f<4"
t_parse "compare point without a number" 6 "expected a number after '>='" "3d6>="
t_parse "x after a constant" 4 "a repeat, as in 6x3d6, goes only at the start" "1+2x3d6"
t_parse "a second repeat" 4 "a repeat, as in 6x3d6, goes only at the start" "2x3x3d6"
t_parse "repeat without an expression" 3 "expected an expression after 'x'" "6x"
t_parse "division must be rounded" 4 "division must be rounded: write floor(A/B), ceil(A/B) or round(A/B)" "3d6/2"
# rolldice(6) 1.16 documents *N, +N, -N and sN but no '/': refused, with
# what to write instead
t_parse "rolldice's 3d6/2: the message cites floor(3d6/2)" 4 "or round(A/B), as in floor(3d6/2)" "3d6/2"
t_parse "missing )" 1 "missing ')' for this '('" "(3d6"
t_parse "stray )" 4 "unexpected ')' without a matching '('" "3d6)"
t_parse "trailing operator" 5 "expression ends too early" "3d6+"
t_parse "trailing minus" 6 "expression ends too early" "3d6--"
t_dist "spaces inside a group: 4d6 kh3 is 4d6kh3" "3:1 4:4 5:10 6:21 7:38 8:62 9:91 10:122 11:148 12:167 13:172 14:160 15:131 16:94 17:54 18:21" 1296 "4d6 kh3"
t_dist "rolldice order: 4d6+2s1 is (4d6s1)+2" "5:1 6:4 7:10 8:21 9:38 10:62 11:91 12:122 13:148 14:167 15:172 16:160 17:131 18:94 19:54 20:21" 1296 "4d6+2s1"
t_parse "modifier after a constant, not rolldice's shape" 9 "modifiers must directly follow their dice group" "d6+4d6+2s1"
t_parse "number too large" 1 "number too large" "99999999999999999999d6"
t_parse "constant too large" 1 "number too large" "18446744073709551616"
t_parse "sides too large" 2 "number too large" "d18446744073709551616"
t_parse "too many dice in a group" 1 "too many dice: more than 1000000" "1000001d6"
t_parse "too many dice over groups" 10 "too many dice: more than 1000000" "600000d6+600000d6"
t_parse "too many dice with repeats" 1 "too many dice: more than 1000000" "2x600000d6"
t_parse "--max-dice lowers the limit" 1 "too many dice: more than 10" --max-dice 10 11d6
t_parse "unknown modifier" 4 "unknown modifier 'q'" "3d6q"
t_parse "c alone is not a modifier" 4 "unknown modifier 'c'" "3d6c"
t_parse "empty custom die" 3 "expected a face value" "d{}"
t_parse "custom die without }" 2 "missing '}' for this '{'" "d{1,2"
t_parse "custom die: bad separator" 4 "expected ',' or '}'" "d{1;2}"
t_parse "custom die: some weights missing" 7 "give a weight (face:weight) for every face or for none" "d{1:2,3}"
t_parse "custom die: all weights zero" 2 "every weight is zero" "d{1:0,2:0}"
t_parse "custom die: weight too large" 5 "weight too large" "d{1:4294967296}"
t_parse "dW without --weights or --faces" 2 "dW needs --weights or --faces" "dW"
t_parse "non-ASCII byte" 4 "unexpected byte 0xc3" "3d6$(printf '\303\251')"
t_dist "a tab inside a group: 3d6<TAB>kh2" "2:1 3:3 4:7 5:12 6:19 7:27 8:34 9:36 10:34 11:27 12:16" 216 "$(printf '3d6\tkh2')"
t_range "tab around operators is fine" 1 4 9 --seed=42 "$(printf 'd6\t+3')"

# ---- what players paste; --versus, --count; verifiable rolls (issue #23) -----
tap_section "what players paste; --versus, --count; verifiable rolls (issue #23)"

. "$HERE/cli_players.sh"
. "$HERE/cli_fair.sh"

# ---- option errors --------------------------------------------------------
tap_section "option errors"

t_err "no expression" 2 "dice: no expression given" 
t_err "unknown long option" 2 "dice: unknown option '--frobnicate'" --frobnicate 3d6
t_err "unknown short option" 2 "dice: unknown option '-q'" -q 3d6
t_err "option without its value" 2 "dice: option '--seed' needs a value" 3d6 --seed
t_err "bad --seed" 2 "--seed needs a whole number" --seed 12abc 3d6
t_err "negative --seed" 2 "--seed needs a whole number" --seed=-1 3d6
t_err "--histogram 0" 2 "--histogram needs a whole number from 1" -H 0 3d6
t_err "unknown --method" 2 "unknown --method 'fast'" --method fast 3d6
t_err "--max-explode 0" 2 "--max-explode needs a whole number from 1 to 10000" --max-explode 0 "3d6!"
t_err "--max-dice too large" 2 "--max-dice needs a whole number from 1 to 100000000" --max-dice 100000001 3d6
t_err "--dist with --seed" 2 "--dist rolls nothing, so it cannot be combined with --seed" --dist --seed=42 3d6
t_err "--dist with --histogram" 2 "cannot be combined with --histogram" --dist -H 10 3d6
t_err "--json with --breakdown" 2 "--breakdown and --json cannot be combined" --json -s 3d6
t_err "--histogram with --breakdown" 2 "--breakdown and --histogram cannot be combined" -s -H 10 3d6
t_err "--weights: not a number" 2 "--weights: 'x' is not a weight" --weights 1,x 
t_err "--weights: empty item" 2 "--weights: empty item" --weights 1,,2
t_err "--weights: all zero" 2 "--weights: every weight is zero" --weights 0,0
t_err "--weights: too large" 2 "is not a weight" --weights 4294967296
t_err "--faces: not a number" 2 "--faces: '1.5' is not a whole number" --faces 1.5,2
t_err "--faces and --weights differ in length" 2 "--faces has 3 values but --weights has 2" --faces 1,2,3 --weights 1,1
t_err "--weights unused by the expression" 2 "--weights given, but no expression uses the die dW" --weights 1,2 3d6

# ---- failures (exit 1) ------------------------------------------------------
tap_section "failures (exit 1)"

if [ ! -e /dev/dice ]; then
	t_err "no /dev/dice: clear error, no fallback" 1 "dice: cannot open /dev/dice: No such file or directory (is the dice module loaded? load it with 'sudo modprobe dice', or roll with the userspace engine: dice -u, or DICE_ENGINE=userspace; see dice(1))" 3d6
else
	tap_wanted "no /dev/dice: clear error" &&
		tap_skip "no /dev/dice: clear error" "/dev/dice exists"
fi
t_parse "--dist: too many sides (exit 2, caret)" 1 "no exact distribution: the die has 2000000 sides, more than 1048576" --dist d2000000
t_parse "--dist: too many keep states" 1 "no exact distribution: keeping 5 dice with '!' of up to 100 values needs too many states" --dist "10d100!kh5"
t_parse "--dist: values beyond 62 bits (caret under the number)" 4 "no exact distribution: its values would not fit in 62 bits" --dist "d6*4611686018427387904"
t_err "a method that cannot roll loaded dice: exit 2 and a sentence" 2 "dice: --method batch rolls fair dice only, and dW has a loaded die (weights): use --method recycle or --method alias" --seed=42 --method batch --weights 1,2
t_err "regression: -m viglietta --weights 1,2 is bad usage, not Invalid argument" 2 "--method viglietta rolls fair dice only" -u -m viglietta --weights 1,2
t_err "total beyond 128 bits" 1 "dice: the total does not fit in 128 bits" --seed=42 "d18446744073709551615*d18446744073709551615*d18446744073709551615*2"
t_count "a d(2^64-1) rolls" "" 5 5 --seed=42 "5xd18446744073709551615"

# Ctrl-C stops a huge histogram: dice says so and dies by SIGINT (status
# 130 in the shell), so that shell loops stop too.
"$DICE" --seed=42 -H 1000000000 3d6 </dev/null >"$T/out" 2>"$T/err" &
pid=$!
# Once dice catches SIGINT (a background job starts with it ignored);
# a dice that never does is killed, and fails the case.
if tap_wait_catching $pid 2; then kill -INT $pid; else kill -KILL $pid; fi
wait $pid
RC=$?
if [ "$RC" -eq 130 ] && grep -q "^dice: interrupted after [0-9]* of 1000000000 rolls" "$T/err"; then
	ok "SIGINT interrupts a huge histogram and dice dies by SIGINT (130)"
else
	not_ok "SIGINT interrupts a huge histogram and dice dies by SIGINT (130)" "exit $RC"
fi

# ---- no crash, no hang: limits are errors with a caret ---------------------
tap_section "no crash, no hang: limits are errors with a caret"

# t_fast NAME MS RC TEXT ARGS...: exit RC within MS milliseconds, stderr has TEXT
t_fast() {
	tap_wanted "$1" || return 0
	name=$1 ms=$2 want=$3 text=$4
	shift 4
	t0=$(date +%s%N)
	run "$@"
	took=$((($(date +%s%N) - t0) / 1000000))
	if [ "$RC" -ne "$want" ]; then
		not_ok "$name" "exit $RC, want $want"
	elif [ -n "$text" ] && ! grep -qF -- "$text" "$T/err"; then
		not_ok "$name" "stderr lacks: $text"
	elif [ "$took" -gt "$ms" ]; then
		not_ok "$name" "took $took ms, more than $ms"
	else
		ok "$name ($took ms)"
	fi
}

sum14k=$(awk 'BEGIN { s = "1"; for (i = 1; i < 14000; i++) s = s "+1"; print s }')
sum40k=$(awk 'BEGIN { s = "1"; for (i = 1; i < 40000; i++) s = s "+1"; print s }')
(ulimit -s 1024 && "$DICE" --dist "$sum14k" </dev/null >"$T/out" 2>"$T/err")
RC=$?
if [ "$RC" -eq 0 ] && grep -qx "min: 14000" "$T/out"; then
	ok "regression: --dist of a 14000-term sum (28 KB) under ulimit -s 1024"
else
	not_ok "regression: --dist of a 14000-term sum (28 KB) under ulimit -s 1024" "exit $RC"
fi
(ulimit -s 1024 && "$DICE" --seed=1 "$sum40k" </dev/null >"$T/out" 2>"$T/err")
RC=$?
if [ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = 40000 ]; then
	ok "regression: rolling a 40000-term sum under ulimit -s 1024"
else
	not_ok "regression: rolling a 40000-term sum under ulimit -s 1024" "exit $RC"
fi
# A plain roll keeps no dice, exploding ones included: 100000 dice that
# explode on 2 or more (about 95 faces each, 240 MB of faces kept whole)
# roll in 150 MB of address space.
(ulimit -v 150000 && "$DICE" --seed=1 '100000d1000!>=2' </dev/null >"$T/out" 2>"$T/err")
RC=$?
if [ "$RC" -eq 0 ] && grep -qx '[0-9]*' "$T/out"; then
	ok "100000 exploding dice roll for their total under ulimit -v 150000"
else
	not_ok "100000 exploding dice roll for their total under ulimit -v 150000" "exit $RC: $(head -c 200 "$T/err")"
fi
dsum=$(awk 'BEGIN { s = "d6"; for (i = 1; i < 30000; i++) s = s "+d6"; print s }')
(ulimit -s 1024 && "$DICE" --seed=1 -s "$dsum" </dev/null >"$T/out" 2>"$T/err")
RC=$?
if [ "$RC" -eq 0 ] && grep -q " = [0-9]*$" "$T/out"; then
	ok "30000 dice groups in a sum roll with --breakdown under ulimit -s 1024"
else
	not_ok "30000 dice groups in a sum roll with --breakdown under ulimit -s 1024" "exit $RC"
fi
# t_limit NAME COLUMN TEXT ARGS...: exit 2, TEXT and (column COLUMN) on
# stderr, and a caret line (long expressions show a window around it)
t_limit() {
	tap_wanted "$1" || return 0
	name=$1 col=$2 text=$3
	shift 3
	run "$@"
	if [ "$RC" -ne 2 ]; then
		not_ok "$name" "exit $RC, want 2"
	elif ! grep -qF -- "$text" "$T/err"; then
		not_ok "$name" "stderr lacks: $text"
	elif ! grep -qF -- "(column $col)" "$T/err"; then
		not_ok "$name" "no (column $col)"
	elif ! sed -n 3p "$T/err" | grep -q '^ *^$'; then
		not_ok "$name" "no caret"
	else
		ok "$name"
	fi
}
deep=$(awk 'BEGIN { for (i = 0; i < 65; i++) printf "("; printf "1"; for (i = 0; i < 65; i++) printf ")" }')
t_limit "65 nested parentheses: nested too deeply" 65 "nested too deeply (more than 64 levels of parentheses, braces, functions and signs)" "$deep"
minus=$(awk 'BEGIN { for (i = 0; i < 70; i++) printf "-"; printf "1" }')
t_limit "70 unary minus signs: nested too deeply" 65 "nested too deeply" -- "$minus"
nest=$(awk 'BEGIN { for (i = 0; i < 40; i++) printf "{abs("; printf "d6"; for (i = 0; i < 40; i++) printf ")}" }')
t_limit "braces and functions count as nesting" 161 "nested too deeply" "$nest"
awk 'BEGIN { s = "1"; for (i = 1; i < 100001; i++) s = s "+1"; print s }' >"$T/long"
"$DICE" --seed=1 <"$T/long" >"$T/out" 2>"$T/err"
RC=$?
if [ "$RC" -eq 2 ] && grep -qF "dice: line 1: expression too long: more than 100000 numbers, dice groups and operators (column 199999)" "$T/err"; then
	ok "more than 100000 terms: expression too long (exit 2, column)"
else
	not_ok "more than 100000 terms: expression too long (exit 2, column)" "exit $RC"
fi
t_fast "regression: --dist 2d100000*2d100000 refuses at once" 2000 2 "no exact distribution" --dist "2d100000*2d100000"
t_parse "the refusal has a caret" 1 "more than the budget" --dist "2d100000*2d100000"
t_fast "regression: --dist 1000000d6 refuses at once" 2000 2 "it would span more than 1048576 values" --dist 1000000d6
t_fast "regression: --dist 10d10!>=8 with the roll cap refuses at once, naming --max-explode" 2000 2 "--max-explode=" --dist --max-explode=100 "10d10!>=8"
t_fast "--dist 10d10!>=8 with the --dist default cap answers at once" 3000 0 "" --dist "10d10!>=8"
t_out "--dist shows the explosion cap" "explosions: at most 10 per die (--max-explode); a die explodes that often with probability 5.9e-06" --dist "10d10!>=8"
run --dist "1d6!"
rows=$(grep -c '^[0-9]' "$T/out")
if [ "$RC" -eq 0 ] && [ "$rows" -le 60 ] && grep -q "^explosions: at most 10 per die" "$T/out"; then
	ok "regression: --dist 1d6! has a sane default cap (10): $rows rows"
else
	not_ok "regression: --dist 1d6! has a sane default cap (10): $rows rows" "exit $RC"
fi
t_dist "--max-explode still sets the --dist cap" "1:36 2:36 3:36 4:36 5:36 7:6 8:6 9:6 10:6 11:6 13:1 14:1 15:1 16:1 17:1 18:1" 216 --max-explode 2 "1d6!"
t_out "--json --dist shows the cap" '"explode_limit":10,"cap_probability":' --json --dist "2d6!"
t_fast "--dist of an enumerated group that would be too large refuses at once" 2000 2 "it would enumerate more than 1000000 outcomes" --dist "10d20uokh3"
t_fast "--dist of an enumerated group that would be too large refuses at once (uo of 20 values)" 2000 2 "it would enumerate more than 1000000 outcomes" --dist "10d20uo"
t_dist "d18uo: one die of 18 values, enumerated" "$(i=1; s=; while [ $i -le 18 ]; do printf '%s%s:1' "$s" $i; s=' '; i=$((i + 1)); done)" 18 "d18uo"
t_err "division by zero while rolling: exit 1" 1 "dice: division by zero" --seed=1 "floor(3/0)"
t_parse "--dist: unique dice of unequal values are refused with the reason" 1 "unique dice ('u') have an exact distribution here only when every value is equally likely" --dist "3d{1:1,2:2,3:3}u"
t_parse "--dist: keep/drop both inside and after {...} is refused with the reason" 1 "keep/drop after {...} over dice groups with a computed count, keep/drop, k>N/p<N, 'ms', 'u' or 'mt' has no exact method here" --dist "{4d6kh3+2d6}kh2"
# fuzz_grammar, seed 1796399428: --dist said 4, ignoring that k>2 had
# dropped every die, while the roll gives 0.
t_parse "regression: --dist: k>N inside, keep/drop after {...} is refused" 1 "keep/drop after {...} over dice groups with a computed count, keep/drop, k>N/p<N, 'ms', 'u' or 'mt' has no exact method here" --dist "{12d2min2k>2}kh2"
t_range "... though it rolls" 20 2 12 --seed=1 "20x{4d6kh3+2d6}kh2"
t_parse "--dist: a divisor that can be 0 is refused" 1 "the divisor can be 0" --dist "floor(d6/(d2-1))"

# ---- the engine ---------------------------------------------------------------
tap_section "the engine"

run_env() { # VAR=VALUE ARGS...
	env "$@" </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}
run_env DICE_ENGINE=userspace "$DICE" --json 3d6
if [ "$RC" -eq 0 ] && grep -qF '"source":"userspace"' "$T/out"; then
	ok "DICE_ENGINE=userspace rolls with the userspace engine"
else
	not_ok "DICE_ENGINE=userspace rolls with the userspace engine" "exit $RC"
fi
run_env DICE_ENGINE=bogus "$DICE" 3d6
if [ "$RC" -eq 2 ] && grep -qF "dice: DICE_ENGINE 'bogus': expected device or userspace" "$T/err"; then
	ok "DICE_ENGINE=bogus is bad usage"
else
	not_ok "DICE_ENGINE=bogus is bad usage" "exit $RC"
fi
run_env DICE_ENGINE=userspace "$DICE" --dist 3d6
if [ "$RC" -eq 0 ] && grep -qx "denominator: 216" "$T/out"; then
	ok "DICE_ENGINE=userspace with --dist"
else
	not_ok "DICE_ENGINE=userspace with --dist" "exit $RC"
fi
t_out "regression: dice -u --dist works (alias dice='dice -u')" "denominator: 216" -u --dist 3d6
t_out "-u --method with --dist" "denominator: 216" -u --method viglietta --dist 3d6
t_range "--engine=userspace rolls" 5 3 18 --engine=userspace 5x3d6
t_err "--engine=bogus" 2 "--engine 'bogus': expected device or userspace" --engine=bogus 3d6
t_out "-u with --histogram and --bits" "bits: " --userspace -H 100 --bits 3d6
if [ ! -e /dev/dice ]; then
	run_env DICE_ENGINE=userspace "$DICE" --engine=device 3d6
	if [ "$RC" -eq 1 ] && grep -qF "cannot open /dev/dice" "$T/err"; then
		ok "--engine=device overrides DICE_ENGINE"
	else
		not_ok "--engine=device overrides DICE_ENGINE" "exit $RC"
	fi
else
	tap_wanted "--engine=device overrides DICE_ENGINE" &&
		tap_skip "--engine=device overrides DICE_ENGINE" "/dev/dice exists"
fi

# ---- standard input and -i ------------------------------------------------------
tap_section "standard input and -i"

run_in() { # INPUT ARGS...: run dice with INPUT on stdin
	input=$1
	shift
	printf '%s' "$input" | "$DICE" "$@" >"$T/out" 2>"$T/err"
	RC=$?
}
run_in "$(printf '3d6\n\n   # a comment line\n2d6+1\n')" --seed=1
if [ "$RC" -eq 0 ] && [ "$(wc -l <"$T/out")" -eq 2 ]; then
	ok "expressions from standard input, one a line (blank and # lines skipped)"
else
	not_ok "expressions from standard input, one a line (blank and # lines skipped)" "exit $RC"
fi
run_in "$(printf '3d6\nabc\n2d6\n')" --seed=1
if [ "$RC" -eq 2 ] && [ "$(wc -l <"$T/out")" -eq 2 ] &&
   grep -qF "dice: line 2: unexpected 'a'" "$T/err" && grep -qF "  abc" "$T/err"; then
	ok "a bad line on standard input is reported with its number; the others roll; exit 2"
else
	not_ok "a bad line on standard input is reported with its number; the others roll; exit 2" "exit $RC"
fi
run_in "" --seed=1
if [ "$RC" -eq 2 ] && grep -qF "no expression given" "$T/err"; then
	ok "empty standard input: no expression (exit 2)"
else
	not_ok "empty standard input: no expression (exit 2)" "exit $RC"
fi
run_in "$(printf '3d6\n4d6kh3\n')" --dist
if [ "$RC" -eq 0 ] && grep -qx "expression: 3d6" "$T/out" && grep -qx "expression: 4d6kh3" "$T/out"; then
	ok "--dist reads standard input too"
else
	not_ok "--dist reads standard input too" "exit $RC"
fi
# --versus and --count checked only the command line's expressions: from
# standard input --versus read a second distribution that was not there
# (SIGSEGV) and --count took a single roll (helper-36)
for args in "--versus" "--versus --json" "--versus -i"; do
	# shellcheck disable=SC2086 # the options, split
	run_in "$(printf '1d6\n1d4\n')" $args
	name="--versus refuses expressions from standard input ($args): exit 2, no crash"
	if [ "$RC" -eq 2 ] && grep -qF "compares two expressions given as arguments" "$T/err"; then
		ok "$name"
	else
		not_ok "$name" "exit $RC"
	fi
done
# round() and ceil() doubled their operands or negated them, and said
# "does not fit in 128 bits" of quotients that fit (helper-36).  The
# oracle: Python's integers, on 96 quotients of numbers near +-2^127.
if tap_wanted "floor, ceil and round of 96 quotients near +-2^127 are Python's"; then
	/usr/bin/python3 - >"$T/cases" <<'PY'
M = 2**63 - 1
nums = {f"{M}*{M}*2": 2*M*M, f"-{M}*{M}*2": -2*M*M,
        f"({M}*{M}*2+{M}*2+1)": 2*M*M + 2*M + 1,
        f"-{M}*{M}*2-{M}*2-2": -2*M*M - 2*M - 2}
funcs = {"floor": lambda a, b: a // b, "ceil": lambda a, b: -(-a // b),
         "round": lambda a, b: (2*a + b) // (2*b)}    # halves up, as dice(1)
for text, a in nums.items():
    for b in (2, 3, -2, -3, 7, -7, M, -M):
        for name, f in funcs.items():
            print(f"{name}(({text})/({b}))", f(a, b))
PY
	bad=0 n=0
	while read -r expr want; do
		n=$((n + 1))
		got=$("$DICE" --seed=1 "$expr" 2>/dev/null)
		[ "$got" = "$want" ] || { bad=$((bad + 1)); first=${first:-"$expr: $got, want $want"}; }
	done <"$T/cases"
	if [ "$n" -eq 96 ] && [ "$bad" -eq 0 ]; then
		ok "floor, ceil and round of 96 quotients near +-2^127 are Python's"
	else
		not_ok "floor, ceil and round of 96 quotients near +-2^127 are Python's" "$bad of $n differ; first: $first"
	fi
fi
# dice(1) says spaces may surround braces and commas: a custom die's
# faces refused them (helper-36)
t_dist "spaces in a custom die's faces: d{1, 2} is d{1,2}" "1:1 2:1" 2 "d{ 1 , 2 }"
t_parse "a custom face's minus sign apart from its number" 4 "expected a number after '-' but found space" "d{- 1, 2}"
t_dist "spaces in a loaded die's faces: d{1:3, 2:1}" "1:3 2:1" 4 "d{1:3, 2:1}"
t_parse "two faces with no comma between them" 5 "expected ',' or '}' but found '2'" "d{1 2}"
# dice(1) said 4dFr is 4dFr-1 (4dFr less one); it is 4dFr=-1
run --seed=5 -s 4dFr
a=$(sed 's/^[^[]*//' "$T/out")
run --seed=5 -s '4dFr=-1'
if [ -n "$a" ] && [ "$a" = "$(sed 's/^[^[]*//' "$T/out")" ]; then
	ok "dice(1)'s example: 4dFr rolls as 4dFr=-1"
else
	not_ok "dice(1)'s example: 4dFr rolls as 4dFr=-1" "'$a'"
fi
# --versus of NxEXPR compared one roll, its N dropped without a word
t_err "--versus refuses NxEXPR (exit 2): it compares one roll of each" 2 "dice: --versus compares one roll of A with one of B, and 6x1d6 repeats" --versus 6x1d6 1d6
run_in "$(printf '1d20\n6x1d20\n')" -d --count '>=5'
if [ "$RC" -eq 2 ] && grep -qF "dice: line 1: --count counts the rolls of a repeat" "$T/err" &&
   grep -qF "count: how many of the 6 rolls are >=5" "$T/out"; then
	ok "--count on standard input: a line without NxEXPR is refused, the repeat is counted"
else
	not_ok "--count on standard input: a line without NxEXPR is refused, the repeat is counted" "exit $RC"
fi
# --count had no bound on its work within its 100000 rolls: 10000x1d6
# took minutes and 100000x1d6 grew past 4.7 GB; it is refused now when its
# work passes a distribution's budget, which fewer rolls fit (helper-36)
t_err "--count refuses rolls whose exact law is past a distribution's budget (exit 2)" 2 "dice: no exact distribution for --count: counting 100000x1d6 would take more work than a distribution may" -d --count '>=5' 100000x1d6
# sized by bit lengths, 2291x1d999999 against >=2 fitted the budget and
# took 6 s to print where 6500x1d6 took one (helper-37): sized by logarithms
t_err "--count sizes its counts by logarithms: 2291x1d999999 >=2 is past the budget" 2 "dice: no exact distribution for --count: counting 2291x1d999999 would take more work than a distribution may" -d --count '>=2' 2291x1d999999
t_out "--count of 2000x1d6: hit and miss in lowest terms, the denominator 3^2000's 955 digits" "$(printf '2000\t1\t')" -d --count '>=5' 2000x1d6
if [ "$RC" -eq 0 ] && [ "$(sed -n 's/^denominator: //p' "$T/out" | tr -d '\n' | wc -c)" -eq 955 ]; then
	ok "--count of 2000x1d6: a 955-digit denominator"
else
	not_ok "--count of 2000x1d6: a 955-digit denominator" "exit $RC"
fi
# a target every roll meets, or none does, was refused past 9204 rolls
# (its bound charged the work of a binomial law): one value (helper-37)
t_out "--count: every one of 90000 rolls meets >=1, one row" "$(printf '90000\t1\t1\t1\t1')" -d --count '>=1' 90000x1d20
# 1x1d6 was refused as if no repeat were written, where roll() and --versus
# take it as one roll (helper-37): 1x counts one roll, 1d6 alone is refused
t_out "--count of 1x1d6: one roll, 0 or 1" "$(printf '1\t1\t0.333333\t0.333333\t1')" -d --count '>=5' 1x1d6
t_out "--count of 1x1d6 says whether the one roll meets it" "count: whether the one roll is >=5" -d --count '>=5' 1x1d6
t_err "--count of 1d6 without 1x: refused as a repeat left out (exit 2)" 2 "--count counts the rolls of a repeat that meet the target: write NxEXPR" -d --count '>=5' 1d6
t_out "--count: none of 90000 rolls meets >=21, one row" "$(printf '0\t1\t1\t1\t1')" -d --count '>=21' 90000x1d20
# Ctrl-C while --dist prints a long table stops it, and dice dies by
# SIGINT: it printed every row and exited 0 (helper-36).  A reader that
# waits 3 s holds dice in write() on a full pipe, so the signal comes
# while it prints, whatever the machine's speed.
if tap_wanted "SIGINT stops --dist's printing: no last row, death by SIGINT (130)"; then
	mkfifo "$T/fifo"
	exec 3<>"$T/fifo"	# the reader's open() does not wait for dice
	(exec 3>&-; sleep 3; cat) <"$T/fifo" >"$T/out" &
	reader=$!
	"$DICE" -d --csv 150d100 </dev/null >"$T/fifo" 2>"$T/err" 3>&- &
	pid=$!
	exec 3>&-
	if tap_wait_catching $pid 2; then sleep 1; kill -INT $pid; else kill -KILL $pid; fi
	wait $pid
	RC=$?
	wait $reader
	rm -f "$T/fifo"
	if [ "$RC" -eq 130 ] && grep -qx "dice: interrupted: the distribution was not printed in full" "$T/err" &&
	   grep -q "^value,count" "$T/out" && ! grep -q "^15000," "$T/out"; then
		ok "SIGINT stops --dist's printing: no last row, death by SIGINT (130)"
	else
		not_ok "SIGINT stops --dist's printing: no last row, death by SIGINT (130)" "exit $RC"
	fi
fi
run_in "$(printf '3d6 # first\n')" --seed=1 --json
if [ "$RC" -eq 0 ] && grep -qF '"comment":"first"' "$T/out"; then
	ok "standard input with --json and a comment"
else
	not_ok "standard input with --json and a comment" "exit $RC"
fi
big_line=$(awk 'BEGIN { s = "1"; for (i = 1; i < 80000; i++) s = s "+1"; print s }')
run_in "$big_line
" --seed=1
if [ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = 80000 ]; then
	ok "a 160 KB line on standard input (past the 128 KiB argv limit)"
else
	not_ok "a 160 KB line on standard input (past the 128 KiB argv limit)" "exit $RC"
fi
run_in "$(printf 'help\n3d6\nbad(\n2d6\nquit\n3d6\n')" -i --seed=1
prompts=$(grep -o 'dice> ' "$T/out" | wc -l)
if [ "$RC" -eq 0 ] && [ "$prompts" -eq 5 ] && grep -qF "Type an expression" "$T/out" &&
   grep -qF "dice: line 3:" "$T/err"; then
	ok "-i prompts, answers help, reports errors and goes on, stops at quit"
else
	not_ok "-i prompts, answers help, reports errors and goes on, stops at quit" "exit $RC, $prompts prompts"
fi
t_err "-i with expressions on the command line" 2 "-i reads expressions at a prompt" -i 3d6

# ---- new notation -----------------------------------------------------------------
tap_section "new notation"

t_range "grouped roll {4d6+3d8}kh1 keeps one die" 100 1 8 --seed=42 "100x{4d6+3d8}kh1"
t_count "{4d6+3d8}kh1 drops six of seven dice" "dropped" 1 1 --seed=42 -s "{4d6+3d8}kh1"
run --seed=42 -s "{4d6+3d8}kh1"
if [ "$(grep -o dropped "$T/out" | wc -l)" -eq 6 ]; then ok "{4d6+3d8}kh1: exactly 6 dice dropped"; else not_ok "{4d6+3d8}kh1: exactly 6 dice dropped" "wrong count"; fi
t_range "{5d6!!}>=8 counts compounded dice of 8 or more" 100 0 5 --seed=42 "100x{5d6!!}>=8"
t_out "{3d6, 2d6+4}kh1 shows each element" "dropped" --seed=42 -s "{3d6, 2d6+4}kh1"
t_out "--json lists a grouped roll's elements" '"braces":[{"brace":"{3d6, 2d6+4}kh1"' --seed=42 --json "{3d6, 2d6+4}kh1"
t_parse "a success target inside a pooled {...} is refused" 2 "cannot count successes" "{3d6>3+2d6}kh1"
t_parse "a constant with a success target in {...} is ambiguous" 9 "is ambiguous" "{3d20+5}>21"
t_parse "keep more elements than there are" 10 "cannot keep 3 of 2 elements" "{3d6,2d6}kh3"
t_count "3d6!p breakdown marks explosions" "exploded" 1 200 --seed=42 -s "200x3d6!p"
t_dist "1d4!p (limit 1): later faces count 1 less" "1:4 2:4 3:4 4:1 5:1 6:1 7:1" 16 --max-explode 1 "1d4!p"
t_dist "1d4!!p compounds and penetrates" "1:4 2:4 3:4 4:1 5:1 6:1 7:1" 16 --max-explode 1 "1d4!!p"
t_out "cs marks critical successes" "critical" --seed=42 -s "50xd20cs>=15"
t_out "cf marks critical failures" "fumble" --seed=42 -s "50xd20cf<=5"
t_dist "cs/cf change nothing in the distribution" "1:1 2:1 3:1 4:1 5:1 6:1" 6 "d6cs5cf1"
run --seed=42 -s "8d6sa"
v=$(sed 's/.*\[\(.*\)\].*/\1/; s/, /\n/g' "$T/out")
if [ "$v" = "$(printf '%s\n' "$v" | sort -n)" ]; then ok "sa sorts the dice ascending"; else not_ok "sa sorts the dice ascending" "$v"; fi
run --seed=42 -s "8d6sd"
v=$(sed 's/.*\[\(.*\)\].*/\1/; s/, /\n/g' "$T/out")
if [ "$v" = "$(printf '%s\n' "$v" | sort -rn)" ]; then ok "sd sorts the dice descending"; else not_ok "sd sorts the dice descending" "$v"; fi
t_parse "bare s: rolldice's s needs a number" 5 "expected a number after 's'" "4d6s"
t_dist "6d6u shows every face once" "21:1" 1 "6d6u"
t_dist "2d3u" "3:1 4:1 5:1" 3 "2d3u"
t_count "5d10u: repeated faces are rerolled" "repeated" 0 200 --seed=42 -s "200x5d10u"
t_parse "7 unique dice of 6 faces" 4 "7 unique dice need 7 distinct faces, and the die has 6" "7d6u"
t_parse "unique dice cannot explode" 5 "unique dice ('u') cannot explode" "3d6u!"
t_dist "2d3uo rerolls a repeat once" "2:1 3:8 4:9 5:8 6:1" 27 "2d3uo"
t_dist "min2" "2:2 3:1 4:1 5:1 6:1" 6 "d6min2"
t_dist "max4" "1:1 2:1 3:1 4:3" 6 "d6max4"
t_parse "min above max" 7 "'min' is above 'max'" "d6min5max3"
t_parse "min makes an explosion match every face" 3 "matches every face" "d6!min6"
t_dist "floor(d6/2)" "0:1 1:2 2:2 3:1" 6 "floor(d6/2)"
t_dist "ceil(d6/2)" "1:1 2:1 3:1" 3 "ceil(d6/2)"
t_dist "round(d6/4): halves up" "0:1 1:4 2:1" 6 "round(d6/4)"
t_dist "round(-5/2) is -2 (halves up, as Roll20)" "-2:1" 1 "round(-5/2)"
t_dist "abs(d3-2)" "0:1 1:2" 3 "abs(d3-2)"
t_dist "7%3" "1:1" 1 "7%3"
t_dist "-7%3 is -1 (sign of the dividend, as Roll20 and C)" "-1:1" 1 -- "-7%3"
t_dist "2d6*-1 (unary minus after an operator)" "-12:1 -11:2 -10:3 -9:4 -8:5 -7:6 -6:5 -5:4 -4:3 -3:2 -2:1" 36 "2d6*-1"
t_dist "3d6--2 is 3d6+2" "5:1 6:3 7:6 8:10 9:15 10:21 11:25 12:27 13:27 14:25 15:21 16:15 17:10 18:6 19:3 20:1" 216 "3d6--2"
t_parse "division outside a rounding function" 3 "division must be rounded" "d6/2+1"
t_parse "division not last inside floor()" 11 "division must be the last operation inside floor()" "floor(d6/2*3)"
t_parse "division inside a sum inside floor()" 11 "division must be the whole argument of floor()" "floor(1+d6/2)"
t_parse "abs() does not divide" 7 "division must be rounded" "abs(d6/2)"
t_dist "(1d2)d4: computed number of dice" "1:4 2:5 3:6 4:7 5:4 6:3 7:2 8:1" 32 "(1d2)d4"
t_out "--json gives a computed count" '"count":' --seed=42 --json "(1d4)d6"
t_out "breakdown of a computed count" "(1d4 [" --seed=42 -s "(1d4)d6"
t_parse "a computed count that can be negative" 1 "the number of dice can be negative (down to -1)" "(d2-2)d6"
t_parse "a computed count beyond --max-dice" 1 "the count can exceed 10" --max-dice 10 "(d20)d6"
t_range "8d6mt counts matched sets" 100 0 4 --seed=42 "100x8d6mt"
t_out "8d6m marks matched dice" "matched" --seed=42 -s "20x8d6m"
t_dist "3d2mt: one pair or more" "1:1" 1 "3d2mt"
t_dist "3d3mt3" "0:8 1:1" 9 "3d3mt3"
t_parse "mt and a success target" 4 "cannot both give the group's value" "5d6mt>=3"
t_dist "dF.2 is dF" "-1:1 0:1 1:1" 3 "dF.2"
t_dist "dF.1: one +, one -, four blanks" "-1:1 0:4 1:1" 6 "dF.1"
t_parse "dF.3" 3 "expected dF, dF.1 or dF.2" "dF.3"
t_out "labels: [fire] shows in --breakdown" "2d6[fire] [" --seed=42 -s "2d6[fire]+1d4[cold]"
t_out "labels: --json has the label" '"label":"cold"' --seed=42 --json "2d6[fire]+1d4[cold]"
t_out "comments: # text follows the total" "  # advantage" --seed=42 "2d20kh1 # advantage"
t_out "comments: --dist names the side-by-side column" "advantage" --dist "2d20kh1 # advantage" "d20 # plain"
t_parse "a label without ]" 4 "missing ']' for this '['" "2d6[fire"
t_dist "> is strict: 3d6>3" "0:1 1:3 2:3 3:1" 8 "3d6>3"
t_dist "--roll20 reads > as >=" "0:1 1:15 2:75 3:125" 216 --roll20 "3d6>2"
t_dist "--roll20 reads < as <=" "0:1 1:3 2:3 3:1" 8 --roll20 "3d6<3"

# ---- --dist analysis -------------------------------------------------------------
tap_section "--dist analysis"

t_out "variance, exact" "variance: 35/12 = 2.916666667" --dist d6
t_out "stddev" "stddev: 1.707825128" --dist d6
t_out "percentiles" "percentiles: 5%: 1  10%: 1  25%: 2  50%: 3  75%: 5  90%: 6  95%: 6" --dist d6
t_out "at least / at most columns" "$(printf '10\t27\t0.125\t0.625\t0.5')" --dist 3d6
t_out "columns are named" "$(printf 'value\tcount\tprobability\tat least\tat most')" --dist 3d6
run --dist 4d6kh3 3d6
if [ "$RC" -eq 0 ] && grep -qF "$(printf '\t4d6kh3\t3d6')" "$T/out" &&
   grep -qF "$(printf 'mean\t12.2446\t10.5')" "$T/out" &&
   grep -qF "$(printf '3\t0.000771605\t0.00462963')" "$T/out"; then
	ok "several expressions side by side"
else
	not_ok "several expressions side by side" "exit $RC"
fi
t_out "side by side: --at-least" "$(printf '18\t0.0162037\t0.00462963')" --dist --at-least 4d6kh3 3d6
t_out "side by side: --at-most" "$(printf '3\t0.000771605\t0.00462963')" --dist --at-most 4d6kh3 3d6
t_out "side by side: values one side lacks" "$(printf '1\t0\t0.166667')" --dist 2d6 d6
t_out "--csv" "10,27,0.125,0.625,0.5" --dist --csv 3d6
t_out "--csv header" "value,count,probability,at_least,at_most" --dist --csv 3d6
t_out "--csv side by side, quoted names" 'value,4d6kh3,"d{1,2}"' --dist --csv 4d6kh3 "d{1,2}"
t_out "--json: variance" '"variance":{"numerator":"35","denominator":"12","value":2.916666667},"stddev":1.707825128' --json --dist d6
t_out "--json: percentiles" '"percentiles":{"5":1,"10":1,"25":2,"50":3,"75":5,"90":6,"95":6}' --json --dist d6
t_out "--json: at least / at most" '{"value":1,"count":"1","probability":0.1666666667,"at_least":1,"at_most":0.1666666667}' --json --dist d6
run --json --dist 4d6kh3 3d6
if [ "$RC" -eq 0 ] && [ "$(wc -l <"$T/out")" -eq 2 ]; then
	ok "--json --dist of two expressions: JSON Lines, one object a line"
else
	not_ok "--json --dist of two expressions: JSON Lines, one object a line" "exit $RC"
fi
t_out "--histogram --csv" "value,observed,expected" --seed=42 --csv -H 100 2d6
t_err "--csv alone" 2 "--csv goes with --dist or --histogram" --csv 3d6
t_err "--at-least without --dist" 2 "--at-least and --at-most go with --dist" --at-least 3d6
t_err "--at-least with --at-most" 2 "cannot be combined" --dist --at-least --at-most 3d6
t_err "--csv with --json" 2 "--csv and --json cannot be combined" --dist --csv --json 3d6

# ---- pictures in a terminal --------------------------------------------------------
tap_section "pictures in a terminal"

run --dist 2d6
if ! grep -q '[#]' "$T/out"; then ok "--dist piped: plain numbers, no bars"; else not_ok "--dist piped: plain numbers, no bars" "bars"; fi
run --dist --bars=always 2d6
if grep -q "$(printf '^7\t6\t.*\t#\{40\}$')" "$T/out"; then ok "--bars=always draws bars (ASCII in the C locale)"; else not_ok "--bars=always draws bars (ASCII in the C locale)" "no bar"; fi
run --seed=42 -H 1000 2d6
if ! grep -q '[#|]' "$T/out"; then ok "--histogram piped: no bars"; else not_ok "--histogram piped: no bars" "bars"; fi
t_err "--bars=sometimes" 2 "--bars 'sometimes': expected auto, always or never" --bars=sometimes --dist 3d6
if command -v script >/dev/null 2>&1; then
	LC_ALL=C.UTF-8 script -qec "$DICE --dist 2d6" /dev/null </dev/null >"$T/out" 2>&1
	if grep -q "$(printf '\342\226\210')" "$T/out"; then
		ok "--dist in a terminal (UTF-8) draws bars of blocks"
	else
		not_ok "--dist in a terminal (UTF-8) draws bars of blocks" "no blocks"
	fi
	script -qec "$DICE -d --bars=never 4d6kh3 3d6" /dev/null </dev/null >"$T/out" 2>&1
	if grep -q "^mean  *12.2446  *10.5" "$T/out"; then
		ok "in a terminal the columns are aligned with spaces"
	else
		not_ok "in a terminal the columns are aligned with spaces" "not aligned"
	fi
fi

# ---- small defects ------------------------------------------------------------------
tap_section "small defects"

for opt in --help --version; do
	"$DICE" $opt >/dev/full 2>"$T/err"
	RC=$?
	if [ "$RC" -eq 1 ] && grep -qF "dice: cannot write output" "$T/err"; then
		ok "regression: $opt to /dev/full fails (exit 1)"
	else
		not_ok "regression: $opt to /dev/full fails (exit 1)" "exit $RC"
	fi
done
"$DICE" --seed=1 3d6 >/dev/full 2>"$T/err"
if [ $? -eq 1 ] && grep -qF "cannot write output" "$T/err"; then ok "a roll to /dev/full fails (exit 1)"; else not_ok "a roll to /dev/full fails (exit 1)" "exit 0"; fi
t_out "regression: a total beyond 2^53 is a JSON string" '"total":"' --seed=1 --json "d18446744073709551615*d18446744073709551615"
# percentiles and histogram values were printed bare past 2^53
t_out "regression: --dist --json percentiles beyond 2^53 are JSON strings" '"75":"9007199254740995"' --json --dist "9007199254740993+1d2"
t_out "regression: -H --json values beyond 2^53 are JSON strings" '{"value":"9007199254740994",' --seed=1 -H 10 --json "9007199254740993+1d2"
t_out "a small total stays a JSON number" '{"total":' --seed=1 --json 3d6
run --seed=1 --json 3d6
if grep -q '"total":[0-9]' "$T/out"; then ok "3d6 total is a bare number"; else not_ok "3d6 total is a bare number" "quoted"; fi
t_out "regression: --histogram --json names the seed" '"source":"seeded","seed":42,"rolls":100' --seed=42 --json -H 100 3d6
t_out "--histogram --json names the method" '"method":"batch"' --seed=42 --method batch --json -H 100 3d6
run --seed=1 --json 3d6 2d4
if [ "$(wc -l <"$T/out")" -eq 2 ]; then ok "--json of two expressions: JSON Lines"; else not_ok "--json of two expressions: JSON Lines" "lines"; fi
if ! grep -q '^\.TH DICE 1 2024' "$HERE/../../man/man1/dice.1"; then ok "regression: dice.1 is not dated 2024"; else not_ok "regression: dice.1 is not dated 2024" "old date"; fi

# ---- against a brute-force reference ---------------------------------------
tap_section "against a brute-force reference"

ref() { # NAME NOTATION SPEC [OPTION]...
	tap_wanted "$1" || return 0
	name=$1
	shift
	if /usr/bin/python3 "$HERE/ref_dist.py" "$DICE" "$@" >"$T/out" 2>"$T/err"; then
		ok "reference: $name"
	else
		not_ok "reference: $name" "differs from brute force"
	fi
}
d6='range(1, 7)'
ref "3d6" 3d6 "[dict(n=3, faces=$d6)]"
ref "4d6kh3" 4d6kh3 "[dict(n=4, faces=$d6, keep=('h', 3))]"
ref "2d20kh1" 2d20kh1 "[dict(n=2, faces=range(1, 21), keep=('h', 1))]"
ref "5d6dh2" 5d6dh2 "[dict(n=5, faces=$d6, keep=('l', 3))]"
ref "3d6! (limit 2)" "3d6!" "[dict(n=3, faces=$d6, explode=('sep', ('=', 6)), limit=2)]" --max-explode 2
ref "2d6!!>=5 (limit 3)" "2d6!!>=5" "[dict(n=2, faces=$d6, explode=('compound', ('>=', 5)), limit=3)]" --max-explode 3
ref "2d6!! (limit 30, big counts)" "2d6!!" "[dict(n=2, faces=$d6, explode=('compound', ('=', 6)), limit=30)]" --max-explode 30
ref "3d6!!kh2 (limit 2)" "3d6!!kh2" "[dict(n=3, faces=$d6, explode=('compound', ('=', 6)), limit=2, keep=('h', 2))]" --max-explode 2
ref "4d6!kh3 (limit 2)" "4d6!kh3" "[dict(n=4, faces=$d6, explode=('sep', ('=', 6)), limit=2, keep=('h', 3))]" --max-explode 2
ref "3d6!>=5kl2 (limit 2)" "3d6!>=5kl2" "[dict(n=3, faces=$d6, explode=('sep', ('>=', 5)), limit=2, keep=('l', 2))]" --max-explode 2
ref "3d6!<2dh1>=4 (limit 3)" "3d6!<2dh1>=4" "[dict(n=3, faces=$d6, explode=('sep', ('<', 2)), limit=3, keep=('l', 2), success=('>=', 4))]" --max-explode 3
ref "3d6!>=5>=5 (limit 2)" "3d6!>=5>=5" "[dict(n=3, faces=$d6, explode=('sep', ('>=', 5)), limit=2, success=('>=', 5))]" --max-explode 2
ref "3d6r1" 3d6r1 "[dict(n=3, faces=$d6, reroll=('always', [('=', 1)]))]"
ref "3d6ro<3" "3d6ro<3" "[dict(n=3, faces=$d6, reroll=('once', [('<', 3)]))]"
ref "4d6r1r2kh3" 4d6r1r2kh3 "[dict(n=4, faces=$d6, reroll=('always', [('=', 1), ('=', 2)]), keep=('h', 3))]"
ref "3d6ro1!! (limit 2)" "3d6ro1!!" "[dict(n=3, faces=$d6, reroll=('once', [('=', 1)]), explode=('compound', ('=', 6)), limit=2)]" --max-explode 2
ref "3d6ro2!kh2 (limit 2)" "3d6ro2!kh2" "[dict(n=3, faces=$d6, reroll=('once', [('=', 2)]), explode=('sep', ('=', 6)), limit=2, keep=('h', 2))]" --max-explode 2
ref "4d10>=8f1" "4d10>=8f1" "[dict(n=4, faces=range(1, 11), success=('>=', 8), failure=('=', 1))]"
ref "4d10kh3>=8f1" "4d10kh3>=8f1" "[dict(n=4, faces=range(1, 11), keep=('h', 3), success=('>=', 8), failure=('=', 1))]"
ref "3d6+2d4-3" "3d6+2d4-3" "[dict(n=3, faces=$d6), dict(n=2, faces=range(1, 5)), -3]"
ref "2d20kl1-1d4" "2d20kl1-1d4" "[dict(n=2, faces=range(1, 21), keep=('l', 1)), dict(n=1, faces=range(1, 5), sign=-1)]"
ref "4dF" 4dF "[dict(n=4, faces=[-1, 0, 1])]"
ref "2d%" "2d%" "[dict(n=2, faces=range(1, 101))]"
ref "3d{1,1,2,3,5,8}kh2" "3d{1,1,2,3,5,8}kh2" "[dict(n=3, faces=[1, 1, 2, 3, 5, 8], keep=('h', 2))]"
ref "3d{1:2,2:2,3:6,4:1,5:1}" "3d{1:2,2:2,3:6,4:1,5:1}" "[dict(n=3, faces=[1, 2, 3, 4, 5], weights=[2, 2, 6, 1, 1])]"
ref "2d{1:1,2:3,3:1}r1!=2kh1 --roll20 (limit 3)" "2d{1:1,2:3,3:1}r1!=2kh1" "[dict(n=2, faces=[1, 2, 3], weights=[1, 3, 1], reroll=('always', [('=', 1)]), explode=('sep', ('=', 2)), limit=3, keep=('h', 1))]" --max-explode 3 --roll20
ref "3d{-2:1,0:3,5:2}r0!!>=5kl2 (limit 2)" "3d{-2:1,0:3,5:2}r0!!>=5kl2" "[dict(n=3, faces=[-2, 0, 5], weights=[1, 3, 2], reroll=('always', [('=', 0)]), explode=('compound', ('>=', 5)), limit=2, keep=('l', 2))]" --max-explode 2
ref "--weights 2,2,6,1,1 with 2dW" 2dW "[dict(n=2, faces=[1, 2, 3, 4, 5], weights=[2, 2, 6, 1, 1])]" --weights 2,2,6,1,1
# the operators of issue #14
ref "3d6!p (limit 2)" '3d6!p' "[dict(n=3, faces=$d6, explode=('sep', ('=', 6)), penetrate=True, limit=2)]" --max-explode 2
ref "2d6!!p (limit 3)" '2d6!!p' "[dict(n=2, faces=$d6, explode=('compound', ('=', 6)), penetrate=True, limit=3)]" --max-explode 3
ref "3d6!pkh2 (limit 2)" '3d6!pkh2' "[dict(n=3, faces=$d6, explode=('sep', ('=', 6)), penetrate=True, limit=2, keep=('h', 2))]" --max-explode 2
ref "3d6!p=6>=5 (limit 2)" '3d6!p=6>=5' "[dict(n=3, faces=$d6, explode=('sep', ('=', 6)), penetrate=True, limit=2, success=('>=', 5))]" --max-explode 2
ref "4d6u" '4d6u' "[dict(n=4, faces=$d6, unique='always')]"
ref "4d6ukh2" '4d6ukh2' "[dict(n=4, faces=$d6, unique='always', keep=('h', 2))]"
ref "3d6r1u" '3d6r1u' "[dict(n=3, faces=$d6, unique='always', reroll=('always', [('=', 1)]))]"
ref "4d6u>=4" '4d6u>=4' "[dict(n=4, faces=$d6, unique='always', success=('>=', 4))]"
ref "3d6uo" '3d6uo' "[dict(n=3, faces=$d6, unique='once')]"
ref "3d4uokl2" '3d4uokl2' "[dict(n=3, faces=range(1, 5), unique='once', keep=('l', 2))]"
ref "3d{1:2,2:1,3:1}uo" '3d{1:2,2:1,3:1}uo' "[dict(n=3, faces=[1, 2, 3], weights=[2, 1, 1], unique='once')]"
ref "3d6r6uo" '3d6r6uo' "[dict(n=3, faces=$d6, unique='once', reroll=('always', [('=', 6)]))]"
ref "3d6min2max5" '3d6min2max5' "[dict(n=3, faces=$d6, min=2, max=5)]"
ref "2d6min3! (limit 2)" '2d6min3!' "[dict(n=2, faces=$d6, min=3, explode=('sep', ('=', 6)), limit=2)]" --max-explode 2
ref "5d6mt" '5d6mt' "[dict(n=5, faces=$d6, match=2)]"
ref "6d4mt3" '6d4mt3' "[dict(n=6, faces=range(1, 5), match=3)]"
ref "5d6kh4mt" '5d6kh4mt' "[dict(n=5, faces=$d6, keep=('h', 4), match=2)]"
ref "3d6!!mt (limit 2)" '3d6!!mt' "[dict(n=3, faces=$d6, explode=('compound', ('=', 6)), limit=2, match=2)]" --max-explode 2
ref "2d6!mt (limit 2)" '2d6!mt' "[dict(n=2, faces=$d6, explode=('sep', ('=', 6)), limit=2, match=2)]" --max-explode 2
ref "4d6ro1mt" '4d6ro1mt' "[dict(n=4, faces=$d6, reroll=('once', [('=', 1)]), match=2)]"
ref "4dF.1" '4dF.1' "[dict(n=4, faces=[-1, 0, 0, 0, 0, 1])]"
ref "floor(3d6/2)" 'floor(3d6/2)' "Div([dict(n=3, faces=$d6)], 2, 'floor')"
ref "ceil(3d6/4)" 'ceil(3d6/4)' "Div([dict(n=3, faces=$d6)], 4, 'ceil')"
ref "round((2d6-7)/2)" 'round((2d6-7)/2)' "Div([dict(n=2, faces=$d6), -7], 2, 'round')"
ref "round(d6/(d4-5))" 'round(d6/(d4-5))' "Div(dict(n=1, faces=$d6), [dict(n=1, faces=range(1, 5)), -5], 'round')"
ref "2d6%3" '2d6%3' "Mod(dict(n=2, faces=$d6), 3)"
ref "(d6-4)%d3" '(d6-4)%d3' "Mod([dict(n=1, faces=$d6), -4], dict(n=1, faces=range(1, 4)))"
ref "abs(d6-d6)" 'abs(d6-d6)' "Abs([dict(n=1, faces=$d6), dict(n=1, faces=$d6, sign=-1)])"
ref "2d6*-1" '2d6*-1' "Mul(dict(n=2, faces=$d6), -1)"
ref "-(2d4)--3" '-(2d4)--3' "[Neg(dict(n=2, faces=range(1, 5))), 3]" --
ref "d4*d3%d2" 'd4*d3%d2' "Mod(Mul(dict(n=1, faces=range(1, 5)), dict(n=1, faces=range(1, 4))), dict(n=1, faces=range(1, 3)))"
ref "(1d4)d6" '(1d4)d6' "Count(dict(n=1, faces=range(1, 5)), dict(faces=$d6))"
ref "(1d4)d6kh2" '(1d4)d6kh2' "Count(dict(n=1, faces=range(1, 5)), dict(faces=$d6, keep=('h', 2)))"
ref "(d3-1)d6" '(d3-1)d6' "Count([dict(n=1, faces=range(1, 4)), -1], dict(faces=$d6))"
ref "(d2)d6!kh1 (limit 2)" '(d2)d6!kh1' "Count(dict(n=1, faces=range(1, 3)), dict(faces=$d6, explode=('sep', ('=', 6)), limit=2, keep=('h', 1)))" --max-explode 2
ref "{3d6,2d6+4}kh1" '{3d6,2d6+4}kh1' "Brace([dict(n=3, faces=$d6), [dict(n=2, faces=$d6), 4]], keep=('h', 1))"
ref "{3d6,2d6,4d4}>8f5" '{3d6,2d6,4d4}>8f5' "Brace([dict(n=3, faces=$d6), dict(n=2, faces=$d6), dict(n=4, faces=range(1, 5))], success=('>', 8), failure=('=', 5))"
ref "{d20,d20,d20}dl1" '{d20,d20,d20}dl1' "Brace([dict(n=1, faces=range(1, 21))] * 3, keep=('h', 2))"
ref "{3d6+2d8}kh1" '{3d6+2d8}kh1' "Pool([dict(n=3, faces=$d6), dict(n=2, faces=range(1, 9))], keep=('h', 1))"
ref "{2d6+1d8+3}kl2" '{2d6+1d8+3}kl2' "Pool([dict(n=2, faces=$d6), dict(n=1, faces=range(1, 9)), 3], keep=('l', 2))"
ref "{3d6!!}>=8 (limit 2)" '{3d6!!}>=8' "Pool([dict(n=3, faces=$d6, explode=('compound', ('=', 6)), limit=2)], success=('>=', 8))" --max-explode 2
ref "{2d6!+1d4}kh2 (limit 2)" '{2d6!+1d4}kh2' "Pool([dict(n=2, faces=$d6, explode=('sep', ('=', 6)), limit=2), dict(n=1, faces=range(1, 5))], keep=('h', 2))" --max-explode 2
ref "{2d6!p+d4}kh2 (limit 2)" '{2d6!p+d4}kh2' "Pool([dict(n=2, faces=$d6, explode=('sep', ('=', 6)), penetrate=True, limit=2), dict(n=1, faces=range(1, 5))], keep=('h', 2))" --max-explode 2
ref "{3d6+2d4}kh3>=4" '{3d6+2d4}kh3>=4' "Pool([dict(n=3, faces=$d6), dict(n=2, faces=range(1, 5))], keep=('h', 3), success=('>=', 4))"
ref "rolldice order 4d6*5+1s2" '4d6*5+1s2' "[Mul(dict(n=4, faces=$d6, keep=('h', 2)), 5), 1]"
ref "rolldice order 3d8*2-4s1" '3d8*2-4s1' "[Mul(dict(n=3, faces=range(1, 9), keep=('h', 2)), 2), -4]"
ref "4D6KH3+1D4" '4D6KH3+1D4' "[dict(n=4, faces=$d6, keep=('h', 3)), dict(n=1, faces=range(1, 5))]"
ref "3d6 >= 4 f 1 (spaces)" '3d6 >= 4 f 1' "[dict(n=3, faces=$d6, success=('>=', 4), failure=('=', 1))]"
ref "max(1d20,1d20)+5" 'max(1d20,1d20)+5' "[Max(dict(n=1, faces=range(1, 21)), dict(n=1, faces=range(1, 21))), 5]"
ref "min(d6, 2d4, d8-1)" 'min(d6, 2d4, d8-1)' "Min(dict(n=1, faces=$d6), dict(n=2, faces=range(1, 5)), [dict(n=1, faces=range(1, 9)), -1])"
ref "max(3d6, 4d6kh3) (a Max of groups)" 'max(3d6, 4d6kh3)' "Max(dict(n=3, faces=$d6), dict(n=4, faces=$d6, keep=('h', 3)))"
ref "d6^2" 'd6^2' "Pow(dict(n=1, faces=$d6), 2)"
ref "(d4-2)**d3" '(d4-2)**d3' "Pow([dict(n=1, faces=range(1, 5)), -2], dict(n=1, faces=range(1, 4)))"
ref "2^d4^2 (right to left)" '2^d4^2' "Pow(2, Pow(dict(n=1, faces=range(1, 5)), 2))"
ref "-d3^2 is -(d3^2)" '-d3^2' "Neg(Pow(dict(n=1, faces=range(1, 4)), 2))" --
ref "3d6r (bare r: the lowest face)" '3d6r' "[dict(n=3, faces=$d6, reroll=('always', [('=', 1)]))]"
ref "4dFro (bare ro)" '4dFro' "[dict(n=4, faces=[-1, 0, 1], reroll=('once', [('=', -1)]))]"
ref "4d6mi2kh3 (d20's mi)" '4d6mi2kh3' "[dict(n=4, faces=$d6, min=2, keep=('h', 3))]"
ref "3d8ma6 (d20's ma)" '3d8ma6' "[dict(n=3, faces=range(1, 9), max=6)]"
ref "5d6even (Foundry)" '5d6even' "[dict(n=5, faces=$d6, success=('even', 0))]"
ref "4d6oddf2" '4d6oddf2' "[dict(n=4, faces=$d6, success=('odd', 0), failure=('=', 2))]"
ref "5d6kh3even" '5d6kh3even' "[dict(n=5, faces=$d6, keep=('h', 3), success=('even', 0))]"
ref "3dFeven" '3dFeven' "[dict(n=3, faces=[-1, 0, 1], success=('even', 0))]"
ref "1d20ms15 (margin of success)" '1d20ms15' "[dict(n=1, faces=range(1, 21)), -15]"
ref "3d6ms<10 (margin below)" '3d6ms<10' "[Neg(dict(n=3, faces=$d6)), 10]"
# --json gave a group's value (10) but not what 'ms' made of it (-5), which
# the total counts: a reader could not tell (helper-36)
t_out "--json: a group with ms has its margin beside its value" '"group":"1d20ms15","value":10,"margin":-5,' --seed=1 --json '1d20ms15+2'
t_out "--json: ms< is the number less the value" '"value":14,"margin":-4,' --seed=1 --json '3d6ms<10'
ref "4d6ra6 (Avrae: reroll and add)" '4d6ra6' "[dict(n=4, faces=$d6, explode=('sep', ('=', 6)), limit=1)]"
ref "3d6ra<2kh2" '3d6ra<2kh2' "[dict(n=3, faces=$d6, explode=('sep', ('<', 2)), limit=1, keep=('h', 2))]"
ref "4d6ra6 --avrae: one die at most" '4d6ra6' "[dict(n=4, faces=$d6, add_once=('=', 6))]" --avrae
ref "2d20ra1 --avrae" '2d20ra1' "[dict(n=2, faces=range(1, 21), add_once=('=', 1))]" --avrae
ref "3d6ra<3 --avrae" '3d6ra<3' "[dict(n=3, faces=$d6, add_once=('<', 3))]" --avrae
ref "4d6ra6kh3 --avrae: the keep sees the added die" '4d6ra6kh3' "[dict(n=4, faces=$d6, add_once=('=', 6), keep=('h', 3))]" --avrae
ref "2d20ra1kl1 --avrae" '2d20ra1kl1' "[dict(n=2, faces=range(1, 21), add_once=('=', 1), keep=('l', 1))]" --avrae
ref "3d6ra>5kh2 --avrae" '3d6ra>5kh2' "[dict(n=3, faces=$d6, add_once=('>', 5), keep=('h', 2))]" --avrae
ref "3d6ra>4k>3 --avrae" '3d6ra>4k>3' "[dict(n=3, faces=$d6, add_once=('>', 4), keep_by=('>', 3))]" --avrae
ref "4d6ra1p<3 --avrae" '4d6ra1p<3' "[dict(n=4, faces=$d6, add_once=('=', 1), drop_by=('<', 3))]" --avrae
ref "5d4ra4k3 --avrae (keeps the 3s)" '5d4ra4k3' "[dict(n=5, faces=range(1, 5), add_once=('=', 4), keep_by=('=', 3))]" --avrae
ref "(1d3)d6ra6 --avrae (computed count)" '(1d3)d6ra6' "Count(dict(n=1, faces=range(1, 4)), dict(n=3, faces=$d6, add_once=('=', 6)))" --avrae
ref "1d20ra20+5 --avrae" '1d20ra20+5' "[dict(n=1, faces=range(1, 21), add_once=('=', 20)), 5]" --avrae
ref "4d6ra6>=15 --avrae (the total compared)" '4d6ra6>=15' "Cmp(dict(n=4, faces=$d6, add_once=('=', 6)), '>=', 15)" --avrae
ref "3d6!:2 (a cap of 2)" '3d6!:2' "[dict(n=3, faces=$d6, explode=('sep', ('=', 6)), limit=2)]"
ref "2d6!!>=5:3" '2d6!!>=5:3' "[dict(n=2, faces=$d6, explode=('compound', ('>=', 5)), limit=3)]"
ref "3d6!o (once)" '3d6!o' "[dict(n=3, faces=$d6, explode=('sep', ('=', 6)), limit=1)]"
ref "2d6!p:3 with --max-explode 1 (the cap wins)" '2d6!p:3' "[dict(n=2, faces=$d6, explode=('sep', ('=', 6)), penetrate=True, limit=3)]" --max-explode 1
ref "4d6k>3 (Avrae: keep by comparison)" '4d6k>3' "[dict(n=4, faces=$d6, keep_by=('>', 3))]"
ref "4d6p<2 (Avrae: drop by comparison)" '4d6p<2' "[dict(n=4, faces=$d6, drop_by=('<', 2))]"
ref "5d6d1 is not that, but 5d6p1 drops ones" '5d6p1' "[dict(n=5, faces=$d6, drop_by=('=', 1))]"
ref "4d6k>=3>=5f3" '4d6k>=3>=5f3' "[dict(n=4, faces=$d6, keep_by=('>=', 3), success=('>=', 5), failure=('=', 3))]"
ref "3d6!k>4 (limit 2)" '3d6!k>4' "[dict(n=3, faces=$d6, explode=('sep', ('=', 6)), limit=2, keep_by=('>', 4))]" --max-explode 2
ref "2d6!!k<9: the compound value is compared (limit 2)" '2d6!!k<9' "[dict(n=2, faces=$d6, explode=('compound', ('=', 6)), limit=2, keep_by=('<', 9))]" --max-explode 2
ref "4d6r1k>4" '4d6r1k>4' "[dict(n=4, faces=$d6, reroll=('always', [('=', 1)]), keep_by=('>', 4))]"
ref "4d6uk>3" '4d6uk>3' "[dict(n=4, faces=$d6, unique='always', keep_by=('>', 3))]"
ref "5d6p<3mt" '5d6p<3mt' "[dict(n=5, faces=$d6, drop_by=('<', 3), match=2)]"
ref "{3d6,3d6,3d6,3d6}dl1 (order statistics)" '{3d6,3d6,3d6,3d6}dl1' "Brace([dict(n=3, faces=$d6)] * 4, keep=('h', 3))"
ref "{3d6,3d6,3d6,3d6,3d6,3d6}kh3 (multisets)" '{3d6,3d6,3d6,3d6,3d6,3d6}kh3' "Brace([dict(n=3, faces=$d6)] * 6, keep=('h', 3))"
ref "six 4d6kh3, keep 1 lowest" '{4d6kh3,4d6kh3,4d6kh3,4d6kh3,4d6kh3,4d6kh3}kl1' "Brace([dict(n=4, faces=$d6, keep=('h', 3))] * 6, keep=('l', 1))"
ref "{2d6,2d6,2d6,2d6,2d6}kh2>7 (success counting)" '{2d6,2d6,2d6,2d6,2d6}kh2>7' "Brace([dict(n=2, faces=$d6)] * 5, keep=('h', 2), success=('>', 7))"
ref "2000d6 (refused before; Kronecker substitution in the reference)" '2000d6' "SumN(2000, 6)"
ref "100d100" '100d100' "SumN(100, 100)"
ref "6d6uo (refused before)" '6d6uo' "[dict(n=6, faces=$d6, unique='once')]"
ref "5d10uo (refused before)" '5d10uo' "[dict(n=5, faces=range(1, 11), unique='once')]"
ref "4d{1:3,2:1,5:2}uo" '4d{1:3,2:1,5:2}uo' "[dict(n=4, faces=[1, 2, 5], weights=[3, 1, 2], unique='once')]"
ref "4d6uo>=4f1" '4d6uo>=4f1' "[dict(n=4, faces=$d6, unique='once', success=('>=', 4), failure=('=', 1))]"
ref "3d6>2 with --roll20" '3d6>2' "[dict(n=3, faces=$d6, success=('>=', 2))]" --roll20
# issue #30: each roller's reading with its option, and pasted forms
ref "5d10cs>=8 --foundry: counts successes" '5d10cs>=8' "[dict(n=5, faces=range(1, 11), success=('>=', 8))]" --foundry
ref "4d10cf<3 --foundry: counts failures" '4d10cf<3' "[dict(n=4, faces=range(1, 11), success=('<', 3))]" --foundry
ref "5d10cs>=8: cs only marks (default)" '5d10cs>=8' "[dict(n=5, faces=range(1, 11))]"
ref "1d20r<3 --foundry: rerolls once" '1d20r<3' "[dict(n=1, faces=range(1, 21), reroll=('once', [('<', 3)]))]" --foundry
ref "2d20r --foundry: bare r rerolls 1s once" '2d20r' "[dict(n=2, faces=range(1, 21), reroll=('once', [('=', 1)]))]" --foundry
ref "1d20r<3: until no die matches (default)" '1d20r<3' "[dict(n=1, faces=range(1, 21), reroll=('always', [('<', 3)]))]"
ref "2d6rr6 --foundry: sixes, until none" '2d6rr6' "[dict(n=2, faces=$d6, reroll=('always', [('=', 6)]))]" --foundry
ref "2d6rr6 --avrae: sixes, until none" '2d6rr6' "[dict(n=2, faces=$d6, reroll=('always', [('=', 6)]))]" --avrae
ref "2d6rr6: r then r6 (default)" '2d6rr6' "[dict(n=2, faces=$d6, reroll=('always', [('=', 1), ('=', 6)]))]"
ref "5d6k3 --avrae: keeps the threes" '5d6k3' "[dict(n=5, faces=$d6, keep_by=('=', 3))]" --avrae
ref "5d6k3: kh3 (default)" '5d6k3' "[dict(n=5, faces=$d6, keep=('h', 3))]"
ref "5d6p3 --avrae: drops the threes" '5d6p3' "[dict(n=5, faces=$d6, drop_by=('=', 3))]" --avrae
ref "4d6ro<3 --avrae" '4d6ro<3' "[dict(n=4, faces=$d6, reroll=('once', [('<', 3)]))]" --avrae
ref "3d6>3 --roll20 (inclusive)" '3d6>3' "[dict(n=3, faces=$d6, success=('>=', 3))]" --roll20
ref "3d6>=10 --avrae: the total compared" '3d6>=10' "Cmp(dict(n=3, faces=$d6), '>=', 10)" --avrae
ref "4d6>12 --avrae" '4d6>12' "Cmp(dict(n=4, faces=$d6), '>', 12)" --avrae
ref "2d20kh (one die)" '2d20kh' "[dict(n=2, faces=range(1, 21), keep=('h', 1))]"
ref "2d20kl (one die)" '2d20kl' "[dict(n=2, faces=range(1, 21), keep=('l', 1))]"
ref "4d6dl (one die)" '4d6dl' "[dict(n=4, faces=$d6, keep=('h', 3))]"
ref "4d6dh (one die)" '4d6dh' "[dict(n=4, faces=$d6, keep=('l', 3))]"
ref "1d20x (Foundry, limit 2)" '1d20x' "[dict(n=1, faces=range(1, 21), explode=('sep', ('=', 20)), limit=2)]" --max-explode 2
ref "3d10x>=8 (Foundry, limit 2)" '3d10x>=8' "[dict(n=3, faces=range(1, 11), explode=('sep', ('>=', 8)), limit=2)]" --max-explode 2
ref "3d6xo (Foundry: once)" '3d6xo' "[dict(n=3, faces=$d6, explode=('sep', ('=', 6)), limit=1)]"
ref "2d6xo5 --foundry" '2d6xo5' "[dict(n=2, faces=$d6, explode=('sep', ('=', 5)), limit=1)]" --foundry
ref "4d6e6 (Avrae, limit 2)" '4d6e6' "[dict(n=4, faces=$d6, explode=('sep', ('=', 6)), limit=2)]" --max-explode 2
ref "3d6e>4 --avrae (limit 2)" '3d6e>4' "[dict(n=3, faces=$d6, explode=('sep', ('>', 4)), limit=2)]" --avrae --max-explode 2
ref "4d6pl1 (Avrae)" '4d6pl1' "[dict(n=4, faces=$d6, keep=('h', 3))]"
ref "4d6ph1 (Avrae)" '4d6ph1' "[dict(n=4, faces=$d6, keep=('l', 3))]"
ref "8d6mi2 (Avrae)" '4d6mi2' "[dict(n=4, faces=$d6, min=2)]" --avrae
ref "(1d4,2d6)kh1 (Avrae set)" '(1d4,2d6)kh1' "Brace([dict(n=1, faces=range(1, 5)), dict(n=2, faces=$d6)], keep=('h', 1))"
ref "(1d4+1, 3, 2d6kl1)kh1 (Avrae set)" '(1d4 + 1, 3, 2d6kl1)kh1' "Brace([[dict(n=1, faces=range(1, 5)), 1], 3, dict(n=2, faces=$d6, keep=('l', 1))], keep=('h', 1))" --avrae
ref "(2d6,1d8)pl1 (Avrae set)" '(2d6,1d8)pl1' "Brace([dict(n=2, faces=$d6), dict(n=1, faces=range(1, 9))], keep=('h', 1))"
ref "(3d6,) (a set of one)" '(3d6,)' "Brace([dict(n=3, faces=$d6)])"
ref "(1d6,1d6)>=7 --avrae: the set's total" '(1d6,1d6)>=7' "Cmp([dict(n=1, faces=$d6), dict(n=1, faces=$d6)], '>=', 7)" --avrae
ref "1d20+5>=15 (Avrae comparison)" '1d20+5>=15' "Cmp([dict(n=1, faces=range(1, 21)), 5], '>=', 15)"
ref "1d20+5 > 2d6+10 (comparison of two rolls)" '1d20+5 > 2d6+10' "Cmp([dict(n=1, faces=range(1, 21)), 5], '>', [dict(n=2, faces=$d6), 10])"
ref "1d20-1<=1d4 (comparison)" '1d20-1<=1d4' "Cmp([dict(n=1, faces=range(1, 21)), -1], '<=', dict(n=1, faces=range(1, 5)))"
ref "1d2==1d2" '1d2==1d2' "Cmp(dict(n=1, faces=range(1, 3)), '==', dict(n=1, faces=range(1, 3)))"
ref "1d3!=1d3 --avrae" '1d3!=1d3' "Cmp(dict(n=1, faces=range(1, 4)), '!=', dict(n=1, faces=range(1, 4)))" --avrae
ref "(1d20+5>=15)*2d6 (comparison in parentheses)" '(1d20+5>=15)*2d6' "Mul(Cmp([dict(n=1, faces=range(1, 21)), 5], '>=', 15), dict(n=2, faces=$d6))"
ref "[[1d20+5]] (Roll20 inline roll)" '[[1d20+5]]' "[dict(n=1, faces=range(1, 21)), 5]"
ref "/r 1d20+5 (chat command)" '/r 1d20+5' "[dict(n=1, faces=range(1, 21)), 5]"
ref "/roll 3d6 (chat command)" '/roll 3d6' "[dict(n=3, faces=$d6)]"
ref "!r 2d20kh1 (Avrae command)" '!r 2d20kh1' "[dict(n=2, faces=range(1, 21), keep=('h', 1))]"
ref "/r [[4d6kh3]] # str" '/r [[4d6kh3]] # str' "[dict(n=4, faces=$d6, keep=('h', 3))]"
ref "1d20—2 (em dash)" '1d20—2' "[dict(n=1, faces=range(1, 21)), -2]"
ref "1d20–2 (en dash)" '1d20–2' "[dict(n=1, faces=range(1, 21)), -2]"
ref "1d20−2 (minus sign)" '1d20−2' "[dict(n=1, faces=range(1, 21)), -2]"

# ---- dice(1)'s examples -------------------------------------------------------
tap_section "the man page's examples"

# Every "dice ..." command of EXAMPLES runs, in userspace (-i and -H,
# which need a terminal or time, are left out), and the figures the
# page gives are what dice prints: a doc example that drifts fails here.
MAN1="$HERE/../../man/man1/dice.1"
sed -n '/^\.SH EXAMPLES/,/^\.SH COMPARED/p' "$MAN1" |
	sed -n 's/^\.B dice //p' |
	sed -e "s/\\\\(aq/'/g" -e 's/\\-/-/g' -e 's/\\(em/—/g' \
	    -e 's/ > table.csv//' >"$T/examples"
n_examples=0
while IFS= read -r args; do
	case $args in *-i*|*-H*) continue ;; esac
	n_examples=$((n_examples + 1))
	eval "set -- $args"
	DICE_ENGINE=userspace "$DICE" "$@" </dev/null >"$T/out" 2>"$T/err"
	RC=$?
	if [ "$RC" -eq 0 ] &&
	   ! grep -v -e '^dice: warning: ' -e '^dice: seeded replay' "$T/err" |
	   grep -q '^dice: '; then
		ok "dice(1) example runs: dice $args"
	else
		not_ok "dice(1) example runs: dice $args" "exit $RC"
	fi
done <"$T/examples"
if [ "$n_examples" -ge 15 ]; then ok "dice(1) has its examples ($n_examples run)"; else not_ok "dice(1) has its examples" "$n_examples"; fi
t_out "dice(1) example: --dist 4d6kh3 has denominator 1296" "denominator: 1296" --dist 4d6kh3
t_out "dice(1) example: ... and mean 15869/1296" "mean: 15869/1296" --dist 4d6kh3
t_out "dice(1) example: 1d20+5>=15 --avrae has mean 11/20" "mean: 11/20" --avrae --dist '1d20+5>=15'
t_out "dice(1): 4d6r is 4d6r1" "$("$DICE" --dist 4d6r1 2>/dev/null | sed -n 2p)" --dist 4d6r
# The examples written inline in OPTIONS and NOTATION, with what they show.
t_out "dice(1) example: --versus 1d20+5 1d20+3 prints 229/400" "P(A > B) = 229/400" --versus '1d20+5' '1d20+3'
t_out "dice(1) example: ... 9/200" "P(A = B) = 9/200" --versus '1d20+5' '1d20+3'
t_out "dice(1) example: ... and 153/400" "P(A < B) = 153/400" --versus '1d20+5' '1d20+3'
t_out "dice(1) example: --count '>=15' 6x1d20+5 gives 0.441518 for at least 4" "$(printf '4\t17788815\t0.27795\t0.441518\t')" -d --count '>=15' 6x1d20+5
t_range "dice(1) example: dice -- -d4 rolls a negative d4" 1 -4 -1 --seed=1 -- -d4

# ---- dialects: never another number without a word ------------------------
tap_section "dialects"

# t_warn NAME TEXT ARGS...: exit 0, stderr has "dice: warning:" and TEXT
t_warn() {
	tap_wanted "$1" || return 0
	name=$1 text=$2
	shift 2
	run "$@"
	if [ "$RC" -ne 0 ]; then
		not_ok "$name" "exit $RC"
	elif ! grep -q '^dice: warning: ' "$T/err"; then
		not_ok "$name" "no 'dice: warning:' on stderr"
	elif ! grep -qF -- "$text" "$T/err"; then
		not_ok "$name" "stderr lacks: $text"
	else
		ok "$name"
	fi
}

# t_quiet NAME ARGS...: exit 0, nothing on stderr
t_quiet() {
	tap_wanted "$1" || return 0
	name=$1
	shift
	run "$@"
	if [ "$RC" -ne 0 ]; then
		not_ok "$name" "exit $RC"
	elif [ -s "$T/err" ]; then
		not_ok "$name" "stderr not empty"
	else
		ok "$name"
	fi
}

t_warn "5d10cs>=8 warns: Foundry counts" "use --foundry" --dist '5d10cs>=8'
t_quiet "5d10cs>=8 --foundry: no warning" --dist --foundry '5d10cs>=8'
t_warn "1d20r<3 warns: Foundry rerolls once" "Foundry's r rerolls once" --dist '1d20r<3'
t_quiet "1d20r<3 --foundry: no warning" --dist --foundry '1d20r<3'
t_warn "2d6rr6 warns: rr is r twice here" "use --foundry or --avrae" --dist '2d6rr6'
t_quiet "2d6rr6 --avrae: no warning" --dist --avrae '2d6rr6'
t_warn "10d6k3 warns: Avrae keeps the threes" "use --avrae" --dist '10d6k3'
t_quiet "10d6k3 --avrae: no warning" --dist --avrae '10d6k3'
t_quiet "10d6kh3: no warning" --dist '10d6kh3'
t_warn "4d6ra6 warns: Avrae adds one die at most" "Avrae's ra adds at most one die" --dist '4d6ra6'
t_quiet "4d6ra6 --avrae: no warning" --dist --avrae '4d6ra6'
t_err "4d6kh3ra6 --avrae: ra after a keep is refused, with the reason" 2 "'ra' must come first in its dice group" --dist --avrae '4d6kh3ra6'
t_err "4d6ra6mi2 --avrae: only a keep may follow ra" 2 "only a keep (kh, kl, k, p) may follow 'ra'" --dist --avrae '4d6ra6mi2'
t_err "4d6ra6pl1 --avrae: drop after ra is refused" 2 "dropping the lowest or highest dice (pl, ph) after 'ra'" --dist --avrae '4d6ra6pl1'
t_out "4d6ra6 --avrae: 5 dice at most (max 30)" "max: 30" --avrae --dist '4d6ra6'
t_parse "--dist: {4d6ra6+2}kh2 --avrae is refused with the reason" 1 "over a dice group with Avrae's 'ra' has no exact method here" --avrae --dist "{4d6ra6+2}kh2"
t_warn "10d10>8 warns: Roll20 includes 8" "use --roll20" --dist '10d10>8'
t_quiet "10d10>8 --roll20: no warning" --dist --roll20 '10d10>8'
t_quiet "10d10>=8: no warning" --dist '10d10>=8'
t_warn "the warning goes to stderr, the roll to stdout" "dice: warning:" --seed=1 '2d6r1'
if [ "$(wc -l <"$T/out")" -eq 1 ]; then ok "... and the roll is printed"; else not_ok "... and the roll is printed" "stdout"; fi
t_rc "--foundry and --avrae cannot be combined" 2 --foundry --avrae 3d6
t_rc "--roll20 and --foundry cannot be combined" 2 --roll20 --foundry 3d6
t_err "Foundry's cs and cf at once are refused" 2 "give one of them" --foundry --dist '4d10cs>=8cf1'
t_err "--foundry: cs needs its compare point" 2 "needs the faces it counts" --foundry --dist '4d10cs'
t_err "Avrae's e needs its faces" 2 "Avrae's 'e' needs the faces that explode" --dist '4d6e'
t_err "3d6<=6 is refused: every face succeeds, the count never varies" 2 "matches every face of the die, so the count never varies" --dist '3d6<=6'
t_err "4d6kh3>=1 is refused the same, when rolled" 2 "write the group in parentheses, as in (3d6)<=6" --seed=1 '4d6kh3>=1'
t_out "3d6<=6 --avrae: the total at most 6 (mean 5/54)" "mean: 5/54" --avrae --dist '3d6<=6'
t_out "(3d6)<=6 compares the total (mean 5/54)" "mean: 5/54" --dist '(3d6)<=6'
t_out "3d6>=2 still counts dice (max 3)" "max: 3" --dist '3d6>=2'
t_out "an exploding group may count every die (5d6!>=6>=1, min 5)" "min: 5" --dist '5d6!>=6>=1'
t_err "1d20!=20 is refused: Roll20 explodes, Avrae compares" 2 "'!=' after a dice group explodes on Roll20" --dist '1d20!=20'
t_err "1d20 != 20 is refused the same" 2 "or choose with --roll20 or --avrae" --seed=1 '1d20 != 20'
t_err "2d6 != 6kh1 is refused the same" 2 "write 1d20!20 or (1d20) != 20" --dist '2d6 != 6kh1'
t_out "1d20!=20 --roll20: explodes on 20 (max 220)" "max: 220" --roll20 --dist '1d20!=20'
t_out "1d20!=20 --avrae: the total is not 20 (mean 19/20)" "mean: 19/20" --avrae --dist '1d20!=20'
t_out "(1d20) != 20 compares, no option needed" "mean: 19/20" --dist '(1d20) != 20'
t_out "1d20!20 explodes on 20, no option needed" "max: 220" --dist '1d20!20'
t_out "1d6!!=6 stays a compound explosion on 6" "max: 66" --dist '1d6!!=6'
t_err "an unclosed [[ says what it is" 2 "an inline roll [[...]]" --dist '[[1d20'
t_err "{4d6kh3}>12 is refused as 4d6>12 is" 2 "success target '>12' matches no value" --dist '{4d6kh3}>12'
t_err "{3d6,2d6}>18 is refused: no element reaches it" 2 "matches no value an element can take" --dist '{3d6,2d6}>18'
# too long for one argument: on standard input
echo "1d{$(seq -s, 1 100001)}" >"$T/faces"
"$DICE" --dist <"$T/faces" >"$T/out" 2>"$T/err"
RC=$?
if [ "$RC" -eq 2 ] && grep -qF "more than 100000 numbers" "$T/err"; then
	ok "a die of 100001 faces is over the cap on numbers"
else
	not_ok "a die of 100001 faces is over the cap on numbers" "exit $RC"
fi
echo "1d{$(seq -s, 1 99999)}" >"$T/faces"
"$DICE" --dist <"$T/faces" >"$T/out" 2>"$T/err"
RC=$?
if [ "$RC" -eq 0 ] && grep -qF "max: 99999" "$T/out"; then
	ok "a die of 99999 faces is within it"
else
	not_ok "a die of 99999 faces is within it" "exit $RC"
fi

# ---- every exact answer against brute force, on generated cases ------------
tap_section "exact answers against brute force (generated cases)"

# tests/ref_answers.py computes the laws of the expressions it generates
# itself (no code of dist*.c or versus.c), ties and ends sought on purpose.
# Debian's python3 is a dependency of make check: no skip without it.
answers() { # NAME MODE COUNT
	tap_wanted "$1" || return 0
	if /usr/bin/python3 "$HERE/ref_answers.py" "$DICE" "$2" "$3" >"$T/out" 2>&1; then
		ok "$1"
	else
		not_ok "$1" "$(tail -n 1 "$T/out")"
	fi
}
answers "--versus on 1000 generated pairs (ties at both ends, equal pairs)" versus 1000
answers "--count on 250 generated cases (expression, repeats, target)" count 250
answers "min, max, mean, variance, percentiles of 300 generated expressions" stats 300
for row in "1d2 1d2 1/4 1/2 1/4" "1d20 1d20 19/40 1/20 19/40" "1d20+7 15 3/5 1/20 7/20"; do
	set -- $row
	name="regression: --versus $1 $2 gives $3, $4, $5"
	tap_wanted "$name" || continue
	"$DICE" --versus "$1" "$2" >"$T/out" 2>&1
	if grep -q "^P(A > B) = $3\b" "$T/out" && grep -q "^P(A = B) = $4\b" "$T/out" &&
		grep -q "^P(A < B) = $5\b" "$T/out"; then
		ok "$name"
	else
		not_ok "$name" "a tie at B's lowest value counted as A < B"
	fi
done

# ---- written bits, as documented; libdice-uninstalled.pc ---------------------
tap_section "written bits, as documented; libdice-uninstalled.pc"

if [ -n "${LIBDICE_O:-}" ] && command -v pkg-config >/dev/null 2>&1 &&
   [ -f "$LIBDICE_O/libdice-uninstalled.pc" ]; then
	pc() { PKG_CONFIG_PATH=$LIBDICE_O pkg-config "$@" libdice; }
	if ${CC:-cc} -std=gnu11 -Wall -Wextra -Werror $(pc --cflags) \
		-o "$T/written_bits" "$HERE/written_bits.c" $(pc --libs) 2>"$T/err" &&
	   "$T/written_bits" >"$T/wb"; then
		ok "a program builds against the tree with libdice-uninstalled.pc"
		wb() { # NAME LINE: the program printed LINE
			if grep -qx -- "$2" "$T/wb"; then ok "$1"; else not_ok "$1" "no line '$2'"; fi
		}
		wb "written bits: a fresh d6 cannot roll" "fresh-read -11"
		wb "written bits: nor after 7 bytes" "read-after-7 -11"
		wb "regression: dice.rst: after 8 bytes a read of 4 bytes returns 4" "read-4-after-8 4"
		wb "written bits: 4000 bytes then fit 1016" "write-4000 1016"
		wb "written bits: then none" "write-more -11"
		# the table in dice_write_bits(3)
		wb "first roll, recycle" "first-roll recycle d6:8 d20:8 d100:8 d4294967297:16 loaded:8"
		wb "first roll, viglietta" "first-roll viglietta d6:2 d20:3 d100:4 d4294967297:17 loaded:-1"
		wb "first roll, batch" "first-roll batch d6:314 d20:348 d100:474 d4294967297:509 loaded:-1"
		wb "first roll, alias" "first-roll alias d6:1 d20:1 d100:1 d4294967297:5 loaded:1"
		wb "first roll, rejection" "first-roll rejection d6:1 d20:1 d100:1 d4294967297:5 loaded:-1"
		man3=$HERE/../../man/man3/dice_write_bits.3
		if grep -q "^recycle.*8.*8.*8.*16.*8" "$man3" 2>/dev/null; then
			ok "dice_write_bits(3) tabulates the first roll's bytes"
		else
			not_ok "dice_write_bits(3) tabulates the first roll's bytes" "no table"
		fi
	else
		not_ok "a program builds against the tree with libdice-uninstalled.pc" "cannot build or run"
	fi
else
	echo "# no LIBDICE_O or pkg-config: written-bits and uninstalled .pc checks skipped"
fi

# ---- the grammar fuzzer -------------------------------------------------------
tap_section "the grammar fuzzer"

FUZZ_NAME="fuzz_grammar: parse, --dist, --versus, --count and roll of random expressions on 512 KiB stacks"
if [ -n "${FUZZ_GRAMMAR:-}" ] && [ -x "$FUZZ_GRAMMAR" ] &&
	tap_wanted "$FUZZ_NAME"; then
	ASAN_OPTIONS=detect_leaks=0:hard_rss_limit_mb=2048 \
		"$FUZZ_GRAMMAR" "${FUZZ_GRAMMAR_SECONDS:-10}" >"$T/fuzz" 2>&1
	RC=$?
	line=$(grep '^ok 1 - \|^not ok 1 - ' "$T/fuzz" | head -n 1)
	if [ "$RC" -eq 0 ] && [ -n "$line" ]; then
		tap_ok "$FUZZ_NAME"
		echo "# ${line#ok 1 - }"	# what it checked, and how often
		grep '^#' "$T/fuzz"
	else
		not_ok "$FUZZ_NAME" "exit $RC"
		tail -n 30 "$T/fuzz" | sed 's/^/#   /'
	fi
fi

echo "1..$tap_n"
tap_done
