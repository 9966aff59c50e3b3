#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot Debian's kernel with the module and every VM test binary, print TAP.
set -eu
: "${TOP:?run from make}" "${B:?}" "${KIMAGE:?}"
tests=$B/vmtests
rm -rf "$tests"
mkdir -p "$tests"
cp "$B"/selftests/* "$tests"/
# libdice's device and io_uring tests, static.
make -s -C "$TOP/libdice" selftests O="$B/libdice" VMTESTS="$tests"
# The CLI against the real device.
if [ -f "$TOP/tools/Makefile" ]; then
	make -s -C "$TOP/tools" vmtest O="$B/tools" VMTESTS="$tests"
fi
# Statistical quality: ent and dieharder on the device's byte streams
# (selftests/quality); dicecat, ent and dieharder go to the guest's /extra.
cp "$TOP/selftests/quality/quality.sh" "$tests"/
rm -rf "$B/vmextra"
"$TOP"/selftests/quality/prepare.sh "$B/vmextra"
"$TOP"/selftests/qemu/mkinitramfs.sh --out "$B/initrd-test.gz" \
	--module "$TOP/kmod/dice.ko" --tests "$tests" --extra "$B/vmextra" \
	--test-timeout 900
rc=0
"$TOP"/selftests/qemu/run.sh --kernel "$KIMAGE" \
	--initrd "$B/initrd-test.gz" --log "$B/vm-console.log" --timeout 1800 ||
	rc=$?
# Each binary's own cases, as TAP lines of their own, so the closing count
# says how many cases ran in the guest, not just how many binaries.
[ -f "$B/vm-console.log" ] && awk '
	/^# selftest: / { bin = $3; next }
	/^# (not )?ok [0-9]+ / {
		line = substr($0, 3)
		notok = line ~ /^not ok/
		sub(/^(not )?ok [0-9]+ (- )?/, "", line)
		printf "%s %d - vm case: %s: %s\n", notok ? "not ok" : "ok", ++n, bin, line
		if (notok) bad = 1
	}
	END { exit bad }' "$B/vm-console.log" || rc=1
exit $rc
