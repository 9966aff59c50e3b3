#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build dice.ko for one kernel, outside the source tree, and prove it clean:
#
#   scripts/module-build.sh KVER DIR
#
# DIR gets a tree of symbolic links to the files a module build needs, as
# "make kmod-files" names them (Kbuild and kmod/...), so builds for several
# kernels never share objects with each other or with the in-tree "make
# module".  The module is built at W=1, then
# checked with sparse; any warning or error fails.  TAP lines, one per
# step; the module ends up in DIR/kmod/dice.ko.
set -uo pipefail
: "${TOP:?run from make}"
KVER=${1:?usage: module-build.sh KVER DIR}
DIR=${2:?usage: module-build.sh KVER DIR}
KDIR=/lib/modules/$KVER/build
n=0 bad=0

tap() { # ok|fail NAME [LOG]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $KVER: $2"
	else
		bad=$((bad + 1))
		echo "not ok $n - $KVER: $2"
		[ -n "${3:-}" ] && tail -n 30 "$3" | sed 's/^/#   /'
	fi
}

# make_clean LOG ARGS...: make must succeed and print no warning or error.
make_clean() {
	local log=$1
	shift
	make -C "$KDIR" M="$DIR" "$@" >"$log" 2>&1 &&
		! grep -E '(warning|error):' "$log" >/dev/null
}

[ -d "$KDIR" ] || { tap fail "headers in $KDIR (make deps)"; exit 1; }
if ! files=$(make -s --no-print-directory -C "$TOP" kmod-files) ||
	[ -z "$files" ]; then
	tap fail "the module's files (make kmod-files)"
	exit 1
fi
rm -rf "$DIR"
for f in $files; do
	mkdir -p "$DIR/$(dirname "$f")" && ln -s "$TOP/$f" "$DIR/$f" || exit 1
done

if make_clean "$DIR/build.log" W=1 modules && [ -f "$DIR/kmod/dice.ko" ]; then
	tap ok "builds at W=1 without a warning"
else
	tap fail "builds at W=1 without a warning" "$DIR/build.log"
	exit 1
fi
vermagic=$(modinfo -F vermagic "$DIR/kmod/dice.ko")
case $vermagic in
"$KVER "*) tap ok "vermagic $vermagic" ;;
*) tap fail "vermagic '$vermagic' is not for $KVER" ;;
esac
if command -v sparse >/dev/null &&
	make_clean "$DIR/sparse.log" C=2 CHECK="sparse -Wbitwise" modules; then
	tap ok "sparse clean"
else
	tap fail "sparse clean" "$DIR/sparse.log"
fi
[ "$bad" -eq 0 ]
