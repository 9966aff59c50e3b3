#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the die core and its peers in userspace (time, bits,
# callgrind instructions, cachegrind misses), then /dev/dice in a VM booted
# on Debian's kernel beside getrandom() and libdice's engine.  Prints
# everything and writes it to $B/bench/results.txt (TSV next to it).
#
# Environment:
#   BENCH_QUICK=1     shorter userspace runs (10^6 rolls, 0.05 s timings)
#   BENCH_CORE=0      skip the userspace timings
#   BENCH_VM=0        skip the VM part
#   BENCH_CALLGRIND=0 skip callgrind (and cachegrind)
#   CACHEGRIND=0      skip cachegrind's cache misses on the 2^20-side die
#   BENCH_VM_SECS=N   seconds per VM test (default 1)
#   BENCH_KERNEL=NAME the guest kernel, a name of scripts/kernels.sh
#                     (default 6.1; 6.12 has the vDSO's getrandom())
#   KVM=1, QEMU_SMP   as for selftests/qemu/run.sh (default TCG, 2 CPUs)
set -euo pipefail
: "${TOP:?run from make}" "${B:?}"
# The guest: Debian 12's default kernel from the cache (make bookworm), or
# BENCH_KERNEL, dice.ko built for it (no test hook) in its cached root.
BENCH_KERNEL=${BENCH_KERNEL:-6.1}
read -r KVER KIMAGE _ KROOT < <("$TOP"/scripts/kernels.sh --info "$BENCH_KERNEL") || {
	echo "bench: no cached kernel $BENCH_KERNEL (make bookworm, make trixie)" >&2
	exit 1
}

export O=$B/bench
RES=$O/results.txt
make -s -C "$TOP/bench" O="$O" LIBDICE="$B/libdice"
mkdir -p "$O"

host() {
	local model cpus debver
	model=$(LC_ALL=C lscpu | sed -n 's/^Model name: *//p' | head -n 1)
	cpus=$(nproc)
	debver=$(sed -n 's/^linux-image-[^_]*_\([^_]*\)_.*/\1/p' "$(dirname "$KIMAGE")/from" 2>/dev/null | head -n 1)
	debver=${debver:-?}
	echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "host:    $model, $cpus CPUs, $(uname -r) (load average $(cut -d' ' -f1-3 /proc/loadavg))"
	echo "guest:   Debian linux-image-$KVER $debver, QEMU $(qemu-system-x86_64 --version 2>/dev/null | sed -n '1s/.*version \([^ ]*\).*/\1/p')" \
		"$([ "${KVM:-0}" = 1 ] && echo KVM || echo TCG), ${QEMU_SMP:-2} CPUs"
	echo "source:  $(git -C "$TOP" describe --always --dirty 2>/dev/null || echo '?')" \
		"$(git -C "$TOP" status --porcelain -- kmod 2>/dev/null | grep -q . && echo '(kmod/ has uncommitted changes)')"
	echo "cc:      $(${CC:-cc} --version | head -n 1)"
}

vm() {
	local extra=$O/vm-extra log=$O/vm-console.log
	if [ "${BENCH_VM:-1}" = 0 ]; then
		echo "VM part skipped (BENCH_VM=0)"
		return 0
	fi
	if ! command -v qemu-system-x86_64 >/dev/null; then
		echo "VM part skipped: qemu-system-x86_64 not found (make deps)"
		return 0
	fi
	local mod=$O/mod
	"$TOP"/scripts/module-build.sh --no-test-hooks "$KVER" "$mod" "$KROOT" \
		>"$O/module.log" 2>&1 || {
		cat "$O/module.log" >&2
		echo "bench: dice.ko did not build for $KVER" >&2
		return 1
	}
	echo "secs=${BENCH_VM_SECS:-1}" >"$extra/bench.conf"
	"$TOP"/selftests/qemu/mkinitramfs.sh --out "$O/initrd-bench.gz" \
		--module "$mod/kmod/dice.ko" --extra "$extra" \
		--script "$TOP/bench/vm.sh" --test-timeout 300 >/dev/null
	if ! "$TOP"/selftests/qemu/run.sh --kernel "$KIMAGE" \
		--initrd "$O/initrd-bench.gz" --log "$log" --timeout 420 \
		>"$O/vm-verdict.log"; then
		cat "$O/vm-verdict.log" >&2
		return 1
	fi
	sed -n '/^=== vm bench begin ===$/,/^=== vm bench end ===$/p' "$log" |
		grep -vE '^=== vm bench|^\[ *[0-9]+\.[0-9]+\]'
}

start=$(date +%s)
rc=0
{
	host
	echo
	if [ "${BENCH_CORE:-1}" != 0 ]; then
		"$O/bench_core" ${BENCH_QUICK:+--quick} --tsv "$O/bench_core.tsv"
		echo
	fi
	if [ "${BENCH_CALLGRIND:-1}" != 0 ]; then
		"$TOP/bench/callgrind.sh" "$O/bench_core"
		echo
	fi
	vm
	echo
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(($(date +%s) - start)) s in all"
} 2>&1 | tee "$RES.tmp" || rc=$?
mv "$RES.tmp" "$RES"
echo "results: $RES"
exit "$rc"
