#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot Debian's kernel with the module and every VM test binary, print TAP.
set -eu
: "${TOP:?run from make}" "${B:?}" "${KIMAGE:?}"
tests=$B/vmtests
rm -rf "$tests"
mkdir -p "$tests"
cp "$B"/selftests/* "$tests"/
# Optional tiers that put static binaries or scripts in $B/vmtests-extra.
[ -d "$B/vmtests-extra" ] && cp "$B"/vmtests-extra/* "$tests"/
"$TOP"/selftests/qemu/mkinitramfs.sh --out "$B/initrd-test.gz" \
	--module "$TOP/kmod/dice.ko" --tests "$tests" --test-timeout 900
exec "$TOP"/selftests/qemu/run.sh --kernel "$KIMAGE" \
	--initrd "$B/initrd-test.gz" --log "$B/vm-console.log" --timeout 1800
