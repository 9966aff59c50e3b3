#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make install into a staging DESTDIR puts every piece in place, and
# make uninstall takes every file away again.  Both run in the cached
# Debian 12 root of the tests' default kernel (make bookworm;
# scripts/in-root.sh), KVER that kernel: the test needs no kernel headers
# on the host, whatever kernel it runs.
set -eu
: "${TOP:?run from make}"
B=${B:-$TOP/build}
read -r kv _ _ root <<EOF
$("$TOP"/scripts/kernels.sh --info 6.1)
EOF
[ -n "$root" ] || { echo "not ok 1 - install: the cached default kernel (make bookworm)"; exit 1; }
mkdir -p "$B"
stage=$(mktemp -d "$B/install-check.XXXXXX")
trap 'rm -rf "$stage" "$stage.log"' EXIT
inroot() { "$TOP"/scripts/in-root.sh "$root" "$@"; }
n=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - install: $1"; else echo "not ok $n - install: $1"; fail=1; fi
}
fail=0
inroot make -s -C "$TOP" install DESTDIR="$stage" PREFIX=/usr KVER="$kv" >"$stage.log" 2>&1 || cat "$stage.log"
check "module" "find '$stage/lib/modules' -name dice.ko | grep -q ."
check "uapi header as <libdice/uapi.h>, nothing in include/linux" "test -f '$stage/usr/include/libdice/uapi.h' && ! test -e '$stage/usr/include/linux'"
check "library, soname and pkg-config" "test -f '$stage/usr/lib/libdice.a' && ls '$stage'/usr/lib/libdice.so.1* >/dev/null && test -f '$stage/usr/lib/pkgconfig/libdice.pc'"
check "dice.h" "test -f '$stage/usr/include/dice.h'"
check "dice_notation.h" "test -f '$stage/usr/include/dice_notation.h'"
check "CLI and man pages" "test -x '$stage/usr/bin/dice' && test -f '$stage/usr/share/man/man1/dice.1' && test -f '$stage/usr/share/man/man3/libdice.3'"
inroot make -s -C "$TOP" uninstall DESTDIR="$stage" PREFIX=/usr KVER="$kv" >"$stage.log" 2>&1 || cat "$stage.log"
check "uninstall leaves no file" "test -z \"\$(find '$stage' -type f)\""
exit $fail
