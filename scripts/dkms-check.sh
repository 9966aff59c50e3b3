#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Prove dkms.conf works: add, build and remove the module through dkms
# against the installed headers, from a copy of the sources in /usr/src.
set -eu
: "${TOP:?run from make}" "${KVER:?}"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")
src=/usr/src/dice-$ver
cleanup() {
	dkms remove -m dice -v "$ver" --all >/dev/null 2>&1 || true
	rm -rf "$src"
}
trap cleanup EXIT
cleanup
mkdir -p "$src/kmod"
cp "$TOP/dkms.conf" "$TOP/Kbuild" "$src/"
cp -r "$TOP"/kmod/Kbuild "$TOP"/kmod/*.c "$TOP"/kmod/*.h "$TOP"/kmod/include "$src/kmod/"
rm -f "$src"/kmod/*.mod.c
dkms add -m dice -v "$ver"
dkms build -m dice -v "$ver" -k "$KVER"
ko=$(find /var/lib/dkms/dice/"$ver"/"$KVER" -name 'dice.ko*' | head -n 1)
test -n "$ko" && modinfo "$ko" | grep -E '^(filename|vermagic|description):'
echo "ok 1 - dkms: dice/$ver builds for $KVER"
