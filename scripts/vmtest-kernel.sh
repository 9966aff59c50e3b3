#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's tier for one more kernel of scripts/kernels.sh (6.12,
# 6.1-rt, 6.12-rt; the default kernel has the full VM tier):
#
#   scripts/vmtest-kernel.sh NAME
#
# Builds dice.ko against that kernel's headers (W=1 and sparse clean,
# scripts/module-build.sh), boots the kernel under QEMU with the module and
# the device's kselftests, and prints TAP with the same kernel-log gate as
# the other VM tiers (any WARNING, BUG or oops fails).  The kselftests are
# those that prove the device rather than the tools around it: ioctls and
# errno rules, read semantics (dice_test), loaded dice, written bits, a
# bounded run of the ioctl fuzzer (DICE_FUZZ_SECONDS, default 20),
# concurrency with unload and reload (dice_stress_test), the hostile-user
# limits, a 1 GiB read beside a SCHED_FIFO thread (dice_latency_test),
# and every ioctl from an i386 process (dice_compat32_test).
set -uo pipefail
: "${TOP:?run from make}" "${B:?}"
NAME=${1:?usage: vmtest-kernel.sh NAME}
TESTS=${KERNEL_TESTS:-dice_test dice_loaded_test dice_written_test
	dice_fuzz_test dice_stress_test dice_hostile_test dice_latency_test
	dice_compat_test dice_compat32_test}

if ! KVER=$("$TOP"/scripts/kernels.sh "$NAME"); then
	echo "not ok 1 - $NAME: kernel installed (make deps)"
	echo "kernel-$NAME: 0 passed, 1 failed"
	exit 1
fi
DIR=$B/kernels/$KVER
rc=0
"$TOP"/scripts/module-build.sh "$KVER" "$DIR" | tee "$B/kernel-$NAME.tap" ||
	rc=1
if [ $rc -ne 0 ]; then
	echo "kernel-$NAME: module build failed"
	exit 1
fi

tests=$B/vmtests-$NAME
rm -rf "$tests"
mkdir -p "$tests"
for t in $TESTS; do
	if [ -x "$B/selftests/$t" ]; then
		cp "$B/selftests/$t" "$tests/"
	else
		echo "# kernel-$NAME: no $B/selftests/$t, not run"
	fi
done
"$TOP"/selftests/qemu/mkinitramfs.sh --out "$B/initrd-$NAME.gz" \
	--module "$DIR/kmod/dice.ko" --tests "$tests" --test-timeout 900 || exit 1
# -cpu max: the guest's CRNG is seeded from RDRAND at boot.  6.12 flips a
# static key when the CRNG becomes ready, and under TCG a reader woken by
# that moment can hit the int3 of the half-patched branch (an oops in
# rng_is_initialized() seen here once); seeded at boot, no test waits.
QEMU_CPU=${QEMU_CPU:-max} \
APPEND_EXTRA="${APPEND_EXTRA:-} DICE_FUZZ_SECONDS=${DICE_FUZZ_SECONDS:-20}" \
	"$TOP"/selftests/qemu/run.sh --kernel "/boot/vmlinuz-$KVER" \
	--initrd "$B/initrd-$NAME.gz" --log "$B/vm-$NAME-console.log" \
	--timeout 1800 >"$B/vm-$NAME.out"
vm_rc=$?
# Number on from the build's lines; keep the guest's own cases, as the
# default tier does, so the count says what ran on this kernel.
n=$(grep -cE '^(not )?ok [0-9]+' "$B/kernel-$NAME.tap")
awk -v n="$n" -v k="$NAME" '
	/^(not )?ok [0-9]+ - vm: / {
		sub(/ [0-9]+ - vm: /, " " ++n " - " k ": ")
		print; next
	}
	{ print }' "$B/vm-$NAME.out" | grep -v '^vm: [0-9]* passed'
awk -v n=1000 -v k="$NAME" '
	/^# selftest: / { bin = $3; next }
	/^# (not )?ok [0-9]+ / {
		line = substr($0, 3)
		notok = line ~ /^not ok/
		sub(/^(not )?ok [0-9]+ (- )?/, "", line)
		printf "%s %d - %s case: %s: %s\n", notok ? "not ok" : "ok", ++n, k, bin, line
	}
	/^# # latency: / { print substr($0, 3) }' "$B/vm-$NAME-console.log"
[ $vm_rc -eq 0 ]
