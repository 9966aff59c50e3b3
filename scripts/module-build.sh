#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build dice.ko for one kernel, outside the source tree, and prove it clean:
#
#   scripts/module-build.sh [--no-test-hooks] KVER DIR [ROOT]
#
# ROOT: the Debian root whose headers and compiler build for KVER
# (scripts/kernels.sh --info names it); the builds run in it through
# scripts/in-root.sh, DIR bind-mounted.  Default /, the host.
# --no-test-hooks: the module as shipped (make bench), without the test
# hook the VM tiers' selftests use.
#
# DIR gets a tree of symbolic links to the files a module build needs, as
# "make kmod-files" names them (Kbuild and kmod/...), so builds for several
# kernels never share objects with each other or with the in-tree "make
# module".  The module is built at W=1, then checked with sparse
# (scripts/sparse.sh: it counts the files sparse checked, and says SKIP
# with the reason where the distribution's sparse cannot check that
# kernel); any warning or error fails.  TAP lines, one per step, and a
# "# KVER: W=1: N warnings" line; the module ends up in DIR/kmod/dice.ko.
set -uo pipefail
: "${TOP:?run from make}"
# The VM tiers load this build: with the test hook their selftests use
# (kmod/Kconfig, selftests/dice/config), checked by W=1 and sparse alike.
export DICE_MAKE_ARGS=CONFIG_RANDOM_DICE_TEST_HOOKS=y
[ "${1:-}" = --no-test-hooks ] && { DICE_MAKE_ARGS=; shift; }
KVER=${1:?usage: module-build.sh KVER DIR}
DIR=${2:?usage: module-build.sh KVER DIR}
ROOT=${3:-/}
KDIR=/lib/modules/$KVER/build
inroot() {
	if [ "$ROOT" = / ]; then "$@"; else "$TOP"/scripts/in-root.sh "$ROOT" "$@"; fi
}
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
	inroot env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "$KDIR" M="$DIR" $DICE_MAKE_ARGS "$@" >"$log" 2>&1 &&
		! grep -E '(warning|error):' "$log" >/dev/null
}

# KDIR is an absolute link into /usr/src: resolved in ROOT, not on the host.
chroot "$ROOT" test -d "$KDIR" || { tap fail "headers in ${ROOT%/}$KDIR (make bookworm, make trixie)"; exit 1; }
if ! files=$(make -s --no-print-directory -C "$TOP" kmod-files) ||
	[ -z "$files" ]; then
	tap fail "the module's files (make kmod-files)"
	exit 1
fi
rm -rf "$DIR"
for f in $files; do
	mkdir -p "$DIR/$(dirname "$f")" && ln -s "$TOP/$f" "$DIR/$f" || exit 1
done

t=$(date +%s)
if make_clean "$DIR/build.log" W=1 modules && [ -f "$DIR/kmod/dice.ko" ]; then
	tap ok "builds at W=1 without a warning ($(grep -c 'CC \[M\]' "$DIR/build.log") files, $(( $(date +%s) - t ))s)"
	echo "# $KVER: W=1: 0 warnings, $(inroot gcc --version | head -n 1)"
else
	echo "# $KVER: W=1: $(grep -c 'warning:' "$DIR/build.log") warnings"
	tap fail "builds at W=1 without a warning" "$DIR/build.log"
	exit 1
fi
vermagic=$(modinfo -F vermagic "$DIR/kmod/dice.ko")
case $vermagic in
"$KVER "*) tap ok "vermagic $vermagic" ;;
*) tap fail "vermagic '$vermagic' is not for $KVER" ;;
esac
# One TAP line, numbered here.
sp=$("$TOP"/scripts/sparse.sh "$KDIR" "$DIR" "$KVER" "$ROOT" "$DIR/sparse.log")
rc=$?
n=$((n + 1))
echo "$sp" | sed "1s/^\(\(not \)\?ok\) 1 /\1 $n /"
[ $rc -eq 0 ] || bad=$((bad + 1))
[ "$bad" -eq 0 ]
