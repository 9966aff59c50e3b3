#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test tier, one after the other.  Each tier's output goes
# to build/logs/TIER.log and is echoed; TAP "ok"/"not ok" lines are counted
# (a tier that produces none counts as one test, passed if it exited 0).
# Ends with "N passed, N failed[, N skipped]"; exit 1 on any failure.
#
#   scripts/check.sh [TIER...]     (or make check TIERS="TIER...")
#
# runs only the tiers named (shell patterns: kernel-*); every tier without.
# The VM tiers all go through the one VM runner, selftests/qemu/vmtest.sh.
set -uo pipefail
: "${TOP:?run from make}" "${B:?}"
VMTEST=$TOP/selftests/qemu/vmtest.sh
WANT=${*:-${TIERS:-}}

# selected NAME: is tier NAME to run?
selected() {
	local w
	[ -n "$WANT" ] || return 0
	for w in $WANT; do
		# shellcheck disable=SC2254 # a pattern on purpose
		case $1 in $w) return 0 ;; esac
	done
	return 1
}

LOGS=$B/logs
mkdir -p "$LOGS"
pass=0 fail=0 skip=0
failed_tiers=()

# count FILE: add the TAP results in FILE to the totals.
count() {
	local p f s
	p=$(grep -cE '^(# )?ok [0-9]+' "$1" | head -n1)
	s=$(grep -cE '^(# )?ok [0-9]+.*# (SKIP|skip)' "$1" | head -n1)
	f=$(grep -cE '^(# )?not ok [0-9]+' "$1" | head -n1)
	echo "$((p - s)) $f $s"
}

# tier NAME CMD...: run one tier and book its results.
tier() {
	local name=$1 log=$LOGS/$1.log rc p f s start
	shift
	selected "$name" || return 0
	start=$(date +%s)
	echo "=== $name: $*"
	"$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	read -r p f s < <(count "$log")
	if [ "$((p + f + s))" -eq 0 ]; then
		if [ $rc -eq 0 ]; then p=1; else f=1; fi
	elif [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# it failed without saying which test: count the tier
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	[ "$f" -eq 0 ] || failed_tiers+=("$name")
	echo "=== $name: $p passed, $f failed, $s skipped ($(( $(date +%s) - start ))s)"
}

# no_warnings CMD...: run CMD; fail if it fails or prints a warning.
no_warnings() {
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	echo "$out"
	[ $rc -eq 0 ] || return $rc
	! echo "$out" | grep -E '(warning|error):'
}

cd "$TOP" || exit 1
make -s linux-src >/dev/null || { echo "cannot unpack linux-source"; exit 1; }
# Cleaned first, so that every file is compiled at W=1.
selected module-w1 && make -s -C "$KDIR" M="$TOP" clean >/dev/null 2>&1

tier module-w1 no_warnings make -C "$KDIR" M="$TOP" W=1 modules
tier sparse no_warnings make -C "$KDIR" M="$TOP" C=2 CHECK="sparse -Wbitwise" modules
tier checkpatch make -s checkpatch
tier static make -s static
tier core make -s -C kmod/tests O="$B/core" check
[ -f libdice/Makefile ] && tier libdice make -s -C libdice O="$B/libdice" check
[ -f tools/Makefile ] && tier cli make -s -C tools O="$B/tools" check
tier fuzz make -s -C fuzz O="$B/fuzz" check FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
tier install "$TOP"/scripts/install-check.sh
tier dkms "$TOP"/scripts/dkms-check.sh
tier deb "$TOP"/scripts/deb-check.sh
tier kunit make -s kunit
tier selftests-build make -s selftests
tier vm "$VMTEST" --kernel default
# Two clones of one saved VM must roll different dice.
tier vmfork "$VMTEST" --kernel default vmfork
# The other kernels of the set (KERNELS): module build, sparse and the
# device's kselftests on each; the default kernel had the full tier above.
for k in ${KERNELS:-6.1 6.12 6.1-rt 6.12-rt}; do
	[ "$k" = 6.1 ] && continue
	tier "kernel-$k" "$VMTEST" --kernel "$k"
done
# The vm tier again in the debug kernel (built once, then cached).
tier debug-kernel "$TOP"/selftests/qemu/debug-kernel.sh
tier vm-debug "$VMTEST" --kernel debug

echo
if [ ${#failed_tiers[@]} -gt 0 ]; then
	echo "failed tiers: ${failed_tiers[*]}"
fi
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
