#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run the libdice test programs given as arguments, show their TAP, and end
# with "libdice: N passed, N failed" (cases; a case skipped counts as
# neither and is reported apart).  Exit 1 if a case failed or a program
# exited with anything but 0 (all passed) or 4 (all skipped).
passed=0 failed=0 skipped=0 crashed=0
out=${TMPDIR:-/tmp}/libdice-test.$$
trap 'rm -f "$out"' EXIT
for t in "$@"; do
	echo "# ${t##*/}"
	"$t" >"$out" 2>&1
	rc=$?
	cat "$out"
	p=$(grep -c '^ok .* # SKIP' "$out")
	a=$(grep -c '^ok ' "$out")
	f=$(grep -c '^not ok ' "$out")
	skipped=$((skipped + p))
	passed=$((passed + a - p))
	failed=$((failed + f))
	case $rc in
	0 | 4) ;;
	*)
		if [ "$f" -eq 0 ]; then
			echo "not ok - ${t##*/} exited with $rc"
			failed=$((failed + 1))
		fi
		crashed=1
		;;
	esac
done
echo "libdice: $passed passed, $failed failed${skipped:+, $skipped skipped}"
[ "$failed" -eq 0 ] && [ "$crashed" -eq 0 ]
