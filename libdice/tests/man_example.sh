#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The EXAMPLE of dice_expr_parse(3), as the Makefile took it out of the
# page and built it ($MAN_EXAMPLE): it rolls and prints the exact
# distribution of 4d6kh3+2, and shows a caret under a bad expression.
# And every name libdice.map exports has its page in man/man3.
# TAP, for tests/run.sh.
ex=${MAN_EXAMPLE:?MAN_EXAMPLE: the built example}
out=$("$ex" 4d6kh3+2 2>&1)
rc=$?
echo "1..3"
here=$(cd "$(dirname "$0")" && pwd)
if [ $rc -eq 0 ] &&
   printf '%s\n' "$out" | grep -Eq '^4d6kh3 \[[0-9, a-z]+\] \+ 2 = [0-9]+$' &&
   printf '%s\n' "$out" | grep -q "^5	1/1296$" &&
   printf '%s\n' "$out" | grep -q "^20	7/432$" &&
   printf '%s\n' "$out" | grep -q '^mean 14.24[0-9]*, median 14$'; then
	echo "ok 1 - dice_expr_parse(3)'s example rolls 4d6kh3+2 and prints its exact law"
else
	echo "not ok 1 - dice_expr_parse(3)'s example (exit $rc)"
	printf '%s\n' "$out" | sed 's/^/#   /' | head -20
fi
out=$("$ex" '3d6 d4' 2>&1)
rc=$?
if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q '^    \^ unexpected' ; then
	echo "ok 2 - dice_expr_parse(3)'s example shows a caret under a bad expression"
else
	echo "not ok 2 - dice_expr_parse(3)'s example on a bad expression (exit $rc)"
	printf '%s\n' "$out" | sed 's/^/#   /' | head -5
fi
missing=
for name in $(sed -n 's/^[[:space:]]*\(dice_[a-z0-9_]*\);$/\1/p' "$here/../libdice.map"); do
	[ -f "$here/../../man/man3/$name.3" ] || missing="$missing $name"
done
if [ -z "$missing" ]; then
	echo "ok 3 - every name of libdice.map has its man page"
else
	echo "not ok 3 - names of libdice.map without a man page:$missing"
fi
