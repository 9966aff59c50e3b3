#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/series-cut.awk against known answers: what each stage keeps of a
# marked file, and the markers it refuses (exit 2).  Then every file of
# kmod/ cuts cleanly at every stage of scripts/upstream.sh.  Run by the
# static tier; prints nothing and exits 0 when all holds.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
CUT=$HERE/series-cut.awk
STAGES=$(sed -n 's/^STAGES="\(.*\)"$/\1/p' "$HERE/upstream.sh")
[ -n "$STAGES" ] || { echo "no STAGES in scripts/upstream.sh"; exit 1; }
fail=0

cut() {
	awk -v stages="a b c" -v stage="$1" -f "$CUT" "$2"
}

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

cat >"$W/in" <<'EOF'
base
/* series: b */
b1
	/* series: c */
	c-in-b
	/* series: end */
#ifdef DICE_SERIES_CUT /* series: not b */
not-b
#endif /* series: end */
/*
 * series: out-of-tree
 * ours
 * series: in-tree
 * theirs
 * series: end
 */
#ifndef __KERNEL__
user
#if X
user2
#endif
#endif
#if !defined(__KERNEL__) || defined(CONFIG_T)
hook
#endif


last

/* series: c */
f() {

	tail
}
/* series: end */
EOF
# expect STAGE LINE...: the cut of $W/in at STAGE, a line each.
expect() {
	local stage=$1 got want
	shift
	want=$(printf '%s\n' "$@")
	got=$(cut "$stage" "$W/in" 2>&1)
	if [ "$got" != "$want" ]; then
		printf 'stage %s:\n--- want\n%s\n--- got\n%s\n' "$stage" "$want" "$got"
		fail=1
	fi
}
tail_lines=("/*" " * theirs" " */" "#if defined(CONFIG_T)" hook "#endif" "" last)
expect a base not-b "${tail_lines[@]}"
expect b base b1 "${tail_lines[@]}"
expect c base b1 "	c-in-b" "${tail_lines[@]}" "" "f() {" "	tail" "}"

# refuse NAME INPUT: the cutter exits 2 on INPUT.
refuse() {
	printf '%b' "$2" >"$W/bad"
	cut c "$W/bad" >/dev/null 2>&1
	[ $? -eq 2 ] || { echo "not refused: $1"; fail=1; }
}
refuse "an unknown feature" '/* series: z */\nx\n/* series: end */\n'
refuse "an unclosed region" '/* series: b */\nx\n'
refuse "an end outside a region" 'x\n/* series: end */\n'
refuse "a malformed marker" '/* series: b and c */\n/* series: end */\n'
refuse "an inner region of an earlier feature" '/* series: c */\n/* series: b */\n/* series: end */\n/* series: end */\n'
refuse "an #else in an #ifndef __KERNEL__ block" '#ifndef __KERNEL__\n#else\n#endif\n'
refuse "a not region in code without #ifdef DICE_SERIES_CUT" '/* series: not b */\nx\n/* series: end */\n'
refuse "an #ifdef DICE_SERIES_CUT region without its #endif" '#ifdef DICE_SERIES_CUT /* series: not b */\nx\n/* series: end */\n'
refuse "an #endif end of a plain region" '/* series: b */\nx\n#endif /* series: end */\n'
refuse "not out-of-tree" '/* series: not out-of-tree */\n/* series: end */\n'
awk -v stages="a b c" -v stage=d -f "$CUT" /dev/null >/dev/null 2>&1
[ $? -eq 2 ] || { echo "not refused: an unknown stage"; fail=1; }

# The driver's own files, at every stage of the series.
for f in "$TOP"/kmod/*.[ch] "$TOP"/kmod/Kconfig "$TOP"/kmod/include/uapi/linux/dice.h; do
	for s in $STAGES; do
		awk -v stages="$STAGES" -v stage="$s" -f "$CUT" "$f" >/dev/null ||
			{ echo "${f#"$TOP"/}: does not cut at stage $s"; fail=1; }
	done
done
exit $fail
