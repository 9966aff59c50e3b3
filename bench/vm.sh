#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest side of make bench (scripts/bench.sh): run vm_bench between
# markers, with the kernel's messages kept off the console.
PATH=/extra:$PATH
secs=1
# shellcheck source=/dev/null
[ -f /extra/bench.conf ] && . /extra/bench.conf
echo 1 >/proc/sys/kernel/printk
echo "=== vm bench begin ==="
vm_bench "$secs"
rc=$?
echo "=== vm bench end ==="
exit $rc
