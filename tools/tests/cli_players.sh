# SPDX-License-Identifier: GPL-2.0
#
# Part of cli.sh (sourced, with its helpers and $T): the notation players
# paste (issue #23): case, spaces, rolldice's order, Unicode, functions and
# powers, d20's and Avrae's and Foundry's modifiers, explosion caps, marks
# for clamped faces, labels in the plain output.

# ---- what players paste (issue #23) -------------------------------------------
tap_section "what players paste (issue #23)"

t_dist "D20 is d20" "$(i=1; s=; while [ $i -le 20 ]; do printf '%s%s:1' "$s" $i; s=' '; i=$((i + 1)); done)" 20 D20
t_dist "1D20+5" "$(i=6; s=; while [ $i -le 25 ]; do printf '%s%s:1' "$s" $i; s=' '; i=$((i + 1)); done)" 20 1D20+5
t_dist "4d6KH3 is 4d6kh3" "3:1 4:4 5:10 6:21 7:38 8:62 9:91 10:122 11:148 12:167 13:172 14:160 15:131 16:94 17:54 18:21" 1296 4d6KH3
t_dist "4D6DL1 is 4d6dl1" "3:1 4:4 5:10 6:21 7:38 8:62 9:91 10:122 11:148 12:167 13:172 14:160 15:131 16:94 17:54 18:21" 1296 4D6DL1
t_dist "2D6R1 and 2d6R<2 reroll" "4:1 5:2 6:3 7:4 8:5 9:4 10:3 11:2 12:1" 25 2D6R1
t_dist "6X3D6: the repeat in capitals" "3:1 4:3 5:6 6:10 7:15 8:21 9:25 10:27 11:27 12:25 13:21 14:15 15:10 16:6 17:3 18:1" 216 6X3D6
t_out "labels keep their case" "[Fire]" --seed=1 -s "2D6[Fire]"
t_out "case: the expression is shown as typed" "expression: 4d6KH3" --dist 4d6KH3
t_out "rolldice order: 4d6*5+1s2 reads as (4d6s2)*5+1" "expression: (4d6s2)*5+1" --dist "4d6*5+1s2"
t_out "rolldice order: 2d6*3-4s1 reads as (2d6s1)*3-4" "expression: (2d6s1)*3-4" --dist "2d6*3-4s1"
t_range "rolldice's example 3x4d6*5+1s2: three rolls in 11..61" 3 11 61 --seed=42 "3x4d6*5+1s2"
t_dist "rolldice order: 2d6*3-4s1" "-1:1 2:3 5:5 8:7 11:9 14:11" 36 "2d6*3-4s1"
t_parse "rolldice order: cannot drop every die" 8 "cannot drop 2 of 2 dice" "2d6*3+1s2"
t_dist "U+2212 minus sign" "2:1 3:1 4:1 5:1 6:1 7:1" 6 "d6$(printf '\342\210\222')(-1)"
t_dist "en dash as minus" "0:1 1:1 2:1 3:1 4:1 5:1" 6 "d6$(printf '\342\200\223')1"
t_dist "no-break space" "2:1 3:1 4:1 5:1 6:1 7:1" 6 "d6$(printf '\302\240')+$(printf '\302\240')1"
t_dist "narrow no-break and thin spaces" "2:1 3:1 4:1 5:1 6:1 7:1" 6 "d6$(printf '\342\200\257')+$(printf '\342\200\211')1"
t_dist "full-width digits and letters: 3d6" "3:1 4:3 5:6 6:10 7:15 8:21 9:25 10:27 11:27 12:25 13:21 14:15 15:10 16:6 17:3 18:1" 216 "$(printf '\357\274\223\357\275\204\357\274\226')"
t_dist "full-width plus" "2:1 3:1 4:1 5:1 6:1 7:1" 6 "d6$(printf '\357\274\213')1"
t_dist "U+00D7 times" "2:1 4:1 6:1" 3 "2$(printf '\303\227')d3"
t_out "pasted text is shown in ASCII" "expression: 3d6-1" --dist "3d6$(printf '\342\210\222')1"
t_parse "caret under the typed byte after a full-width character" 6 "unknown modifier 'q'" "$(printf '\357\274\223')d6q"
t_parse "other non-ASCII is still refused, by byte" 4 "unexpected byte 0xe2" "3d6$(printf '\342\202\254')"
t_dist "spaces inside a group: 4d6 dl1" "3:1 4:4 5:10 6:21 7:38 8:62 9:91 10:122 11:148 12:167 13:172 14:160 15:131 16:94 17:54 18:21" 1296 "4d6 dl1"
t_dist "spaces inside a group: 3d6 >= 5" "0:8 1:12 2:6 3:1" 27 "3d6 >= 5"
t_dist "spaces inside a group: 1d6 r1" "2:1 3:1 4:1 5:1 6:1" 5 "1d6 r1"
t_parse "3d6 d4 is still a missing operator" 5 "expected an operator" "3d6 d4"
t_out "a space before a label" "3d6[str] [" --seed=1 -s "3d6 [str]"
t_out "spaces around labels" "1d4[cold] [" --seed=1 -s "2d6 [fire] + 1d4 [cold]"
t_err "a leading minus: unknown option, with a hint of --" 2 "an expression that starts with '-' goes after '--', as in: dice -- -1d6+5" -1d6+5
t_err "-(d6): the hint too" 2 "goes after '--'" "-(d6)"
t_range "-- then a leading minus rolls" 1 -6 -1 --seed=1 -- -1d6

# ---- functions, powers, d20's modifiers, 64-bit constants (issue #23) ----------
tap_section "functions, powers, d20's modifiers, 64-bit constants (issue #23)"

t_dist "max(d6, d6)" "1:1 2:3 3:5 4:7 5:9 6:11" 36 "max(d6, d6)"
t_dist "min(d6,d6) is 2d6kl1" "1:11 2:9 3:7 4:5 5:3 6:1" 36 "min(d6,d6)"
t_dist "max of one" "1:1 2:1 3:1" 3 "max(d3)"
t_out "max() in the breakdown" "max(d20 [" --seed=1 -s "max(d20, d20)"
t_parse "max() needs a ')'" 4 "missing ')' for this '('" "max(d6, d6"
t_parse "max() with a stray character" 8 "expected an operator, ',' or ')'" "max(d6 d4)"
t_parse "max() with an empty argument" 8 "expected a number" "max(d6,)"
t_dist "d4^2" "1:1 4:1 9:1 16:1" 4 "d4^2"
t_dist "2**d3" "2:1 4:1 8:1" 3 "2**d3"
t_dist "powers group to the right: 2^3^2 is 512" "512:1" 1 "2^3^2"
t_dist "-2^2 is -(2^2)" "-4:1" 1 -- "-2^2"
t_dist "0^0 is 1" "1:1" 1 "0^0"
t_dist "2 ^ d2 with spaces" "2:1 4:1" 2 "2 ^ d2"
t_out "a power in the breakdown" "d4 [" --seed=1 -s "d4^2"
t_parse "a negative exponent is refused" 3 "the exponent can be negative" "2^-1"
t_parse "an exponent that can be negative is refused" 4 "the exponent can be negative" "d6^(d4-2)"
t_parse "a power of nothing" 4 "expression ends too early" "d6^"
t_out "2^100 rolls in 128 bits" "1267650600228229401496703205376" --seed=1 "2^100"
t_err "2^127 overflows a roll" 1 "does not fit in 128 bits" --seed=1 "2^127"
t_parse "--dist: a power beyond 62 bits" 1 "its values would not fit in 62 bits" --dist "2^70"
t_dist "bare ro" "1:1 2:7 3:7 4:7 5:7 6:7" 36 "1d6ro"
t_dist "bare r on dF rerolls -1" "0:1 1:1" 2 "1dFr"
t_dist "bare r then another rule" "3:1 4:1 5:1 6:1" 4 "1d6rr2"
t_dist "d20's mi: 1d6mi3" "3:3 4:1 5:1 6:1" 6 "1d6mi3"
t_dist "d20's ma: 1d6ma2" "1:1 2:5" 6 "1d6ma2"
t_parse "mi twice" 7 "more than one 'min' modifier" "1d6mi2min3"
t_out "a constant of 2^63" "9223372036854775808" --seed=1 "9223372036854775808"
t_out "a constant of 2^64 - 1, as the largest face" "18446744073709551615" --seed=1 "18446744073709551615"
t_out "2^64 - 1 in arithmetic" "36893488147419103230" --seed=1 "18446744073709551615*2"
t_out "a 64-bit constant in JSON is a string" '"total":"18446744073709551615"' --seed=1 --json "18446744073709551615"
t_parse "a constant of 2^64 is too large" 1 "number too large" "18446744073709551616+1"

# ---- Avrae's and Foundry's modifiers (issue #23) --------------------------------
tap_section "Avrae's and Foundry's modifiers (issue #23)"

t_dist "5d6even counts even dice" "0:1 1:5 2:10 3:10 4:5 5:1" 32 5d6even
t_dist "1d6odd" "0:1 1:1" 2 1d6odd
t_dist "2d6evenf1" "-2:1 -1:4 0:10 1:12 2:9" 36 2d6evenf1
t_out "even in the breakdown" "success" --seed=1 -s 5d6even
t_out "even in JSON" '"success":true' --seed=1 --json 5d6even
t_parse "odd on a die with no odd face" 7 "matches no face" "d{2,4}odd"
t_parse "even and a failure that overlaps" 8 "cannot count as both" "3d6evenf2"
t_parse "even, then odd" 8 "the success target must be the last modifier" "3d6evenodd"
t_dist "1d20ms15: the margin of success" "-14:1 -13:1 -12:1 -11:1 -10:1 -9:1 -8:1 -7:1 -6:1 -5:1 -4:1 -3:1 -2:1 -1:1 0:1 1:1 2:1 3:1 4:1 5:1" 20 1d20ms15
t_dist "1d4ms<3: the margin below" "-1:1 0:1 1:1 2:1" 4 "1d4ms<3"
t_dist "1d4ms>=2 is 1d4-2" "-1:1 0:1 1:1 2:1" 4 "1d4ms>=2"
t_dist "3d2>=2ms3: the successes beyond three" "-3:1 -2:3 -1:3 0:1" 8 "3d2>=2ms3"
t_range "1d20ms15 rolls in -14..5" 50 -14 5 --seed=42 50x1d20ms15
t_parse "ms twice" 8 "more than one 'ms' modifier" "1d20ms5ms6"
t_parse "ms without a number" 7 "expected a compare point" "1d20ms"
t_range "1d6ra6 (a six adds one die, once) in 1..12" 200 1 12 --seed=42 200x1d6ra6
t_dist "1d4ra4: a four adds one d4, once" "1:4 2:4 3:4 5:1 6:1 7:1 8:1" 16 1d4ra4
t_count "ra in the breakdown" "exploded" 1 200 --seed=42 -s 200x1d6ra6
t_parse "ra without a compare point" 6 "expected a compare point" "1d6ra"
t_parse "ra and !" 5 "more than one '!' modifier" "1d6!ra1"
t_dist "4d6k>4 keeps fives and sixes" "0:256 5:256 6:256 10:96 11:192 12:96 15:16 16:48 17:48 18:16 20:1 21:4 22:6 23:4 24:1" 1296 "4d6k>4"
t_dist "1d6k>4" "0:4 5:1 6:1" 6 "1d6k>4"
t_dist "1d6p<3 (Avrae's p)" "0:2 3:1 4:1 5:1 6:1" 6 "1d6p<3"
t_dist "1d6d<=3 (d with a compare point drops)" "0:3 4:1 5:1 6:1" 6 "1d6d<=3"
t_count "k>3 in the breakdown" "dropped" 1 100 --seed=42 -s "100x4d6k>3"
t_out "k>3 in JSON" '"kept":false' --seed=42 --json "20x4d6k>3"
t_parse "k>3 with kh" 7 "more than one keep/drop modifier" "4d6k>3kh2"
t_parse "kh with k>3" 7 "more than one keep/drop modifier" "4d6kh2k>3"
t_parse "p< without a number" 6 "expected a number after '<'" "4d6p<"
t_dist "1d4!:2 caps a die at two extra dice" "1:16 2:16 3:16 5:4 6:4 7:4 9:1 10:1 11:1 12:1" 64 "1d4!:2"
t_dist "1d4!o explodes once" "1:4 2:4 3:4 5:1 6:1 7:1 8:1" 16 "1d4!o"
t_dist "1d4!!>=3:1" "1:4 2:4 4:1 5:2 6:2 7:2 8:1" 16 "1d4!!>=3:1"
t_range "1d6!:3 never passes 24" 300 1 24 --seed=42 "300x1d6!:3"
t_dist "the cap is the die's, whatever --max-explode says" "1:16 2:16 3:16 5:4 6:4 7:4 9:1 10:1 11:1 12:1" 64 --max-explode 5 "1d4!:2"
t_parse "a cap of 0" 5 "an explosion cap must be from 1 to 10000" "1d6!:0"
t_parse "a cap without a number" 6 "expected a number after ':'" "1d6!:"

# ---- marks for clamped faces, labels in plain output (issue #23) ---------------
tap_section "marks for clamped faces, labels in plain output (issue #23)"

t_out "a face raised by min is marked ^" "3^" --seed=1 -s 4d6min3
t_out "a face lowered by max is marked v" "2v" --seed=1 -s 4d6max2
t_count "no mark on a face rolled as it counts" "3^" 0 0 --seed=1 -s 4d6
t_out "JSON: raised" '"raised":true' --seed=1 --json 4d6min3
t_out "JSON: lowered" '"lowered":true' --seed=1 --json 4d6max2
run --seed=1 --json 4d6min3
if grep -q '{"value":3,"kept":true,"raised":true}' "$T/out" && ! grep -q '"value":[4-6],"kept":true,"raised"' "$T/out"; then
	ok "JSON: only the raised faces are marked"
else
	not_ok "JSON: only the raised faces are marked" "marks"
fi
t_out "labels in the plain output" "(fire " --seed=1 "2d6[fire] + 1d4[cold]"
run --seed=1 "2d6[fire] + 1d4[cold]"
line=$(cat "$T/out")
tot=${line%% *}
fire=$(echo "$line" | sed -n 's/.*(fire \([0-9]*\), cold \([0-9]*\))$/\1/p')
cold=$(echo "$line" | sed -n 's/.*(fire \([0-9]*\), cold \([0-9]*\))$/\2/p')
if [ -n "$fire" ] && [ -n "$cold" ] && [ "$tot" -eq $((fire + cold)) ] && [ "$fire" -ge 2 ] && [ "$fire" -le 12 ] && [ "$cold" -ge 1 ] && [ "$cold" -le 4 ]; then
	ok "labels: the parts add up to the total"
else
	not_ok "labels: the parts add up to the total" "$line"
fi
t_out "a label on a parenthesis" "(x " --seed=1 "(2d6+1)[x]*2"
t_count "no parenthesis without a label" "(" 0 0 --seed=1 3d6
run --dist 3d6
plain=$(cat "$T/out")
DICE_DEBUG_DIST=1 "$DICE" --dist 3d6 </dev/null >"$T/out" 2>"$T/err"
if [ "$(cat "$T/out")" = "$plain" ] && grep -q '^dice: debug: estimate .*, work [0-9]* limb products$' "$T/err"; then
	ok "DICE_DEBUG_DIST: the estimate and the work on stderr, stdout unchanged"
else
	not_ok "DICE_DEBUG_DIST: the estimate and the work on stderr, stdout unchanged" "$(cat "$T/err")"
fi
if grep -q '^\.B DICE_DEBUG_DIST$' "$HERE/../../man/man1/dice.1"; then ok "dice(1) documents DICE_DEBUG_DIST"; else not_ok "dice(1) documents DICE_DEBUG_DIST" "missing"; fi
