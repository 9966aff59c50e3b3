#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# checkpatch --strict on the kernel code: ERROR and WARNING fail the gate,
# CHECK lines are shown for review but do not.  Documented exceptions, for
# dice_compat.h alone: it typedefs u128 (and userspace's u8..u64), which
# Linux 6.1 does not provide (NEW_TYPEDEFS); and it is where the out-of-tree
# module meets the kernels it builds for, with shims keyed on
# LINUX_VERSION_CODE < KERNEL_VERSION(...) (LINUX_VERSION_CODE,
# CONSTANT_COMPARISON), so that no other file needs one.
set -u
: "${LINUX_SRC:?run from make}"
cp="perl $LINUX_SRC/scripts/checkpatch.pl --no-tree --strict --terse --show-types"
out=$(
	for f in kmod/*.c kmod/*.h kmod/include/uapi/linux/dice.h; do
		case $f in
		*.mod.c) ;;
		kmod/dice_compat.h)
			$cp --ignore NEW_TYPEDEFS,LINUX_VERSION_CODE,CONSTANT_COMPARISON \
				-f "$f" ;;
		*) $cp -f "$f" ;;
		esac
	done 2>&1
)
echo "$out" | grep -v '^total:'
if echo "$out" | grep -qE ': (ERROR|WARNING):'; then
	echo "checkpatch: errors or warnings"
	exit 1
fi
echo "checkpatch: no errors or warnings ($(echo "$out" | grep -c ': CHECK:') checks)"
