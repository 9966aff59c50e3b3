#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: boot Debian 12's default kernel (from the cache: make
# bookworm; never installed here) with the module and show it at work.
set -eu
: "${TOP:?run from make}" "${B:?}"
extra=$B/demo-extra
rm -rf "$extra"
mkdir -p "$extra"
cc -static -O2 -Wall -I"$TOP/kmod/include/uapi" -o "$extra/dicectl" \
	"$TOP/selftests/qemu/dicectl.c" -lm
# The VM harness, in script mode (VM_KERNEL picks another kernel of
# scripts/kernels.sh).
"$TOP"/selftests/qemu/vmtest.sh --kernel "${VM_KERNEL:-6.1}" \
	--extra "$extra" --script "$TOP/selftests/qemu/demo.sh" \
	--test-timeout 120 --log "$B/demo-console.log" --timeout 600 \
	>"$B/demo-verdict.log" || {
	cat "$B/demo-verdict.log"
	exit 1
}
# The script's output, without the kernel's boot messages.
sed -n '/^\$ ls -l \/dev\/dice/,$p' "$B/demo-console.log" |
	grep -vE '^\[ *[0-9]+\.[0-9]+\]|^# (result|verdict)' | sed '/^vm:/,$d'
echo
grep -E '^(ok|not ok)' "$B/demo-verdict.log"
