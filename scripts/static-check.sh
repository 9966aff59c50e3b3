#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernel-doc on the kernel code and cppcheck on the userspace C: both clean.
set -u
: "${TOP:?run from make}" "${LINUX_SRC:?}"
cd "$TOP" || exit 1
fail=0
kd=$(perl "$LINUX_SRC/scripts/kernel-doc" -none \
	$(ls kmod/*.c kmod/*.h | grep -v '\.mod\.c$') \
	kmod/include/uapi/linux/dice.h 2>&1)
if [ -z "$kd" ]; then
	echo "ok 1 - static: kernel-doc -none reports nothing"
else
	echo "$kd"
	echo "not ok 1 - static: kernel-doc -none reports nothing"
	fail=1
fi
# The core as userspace builds it, libdice and the CLI.
if cppcheck --quiet --enable=warning,portability,performance \
	--error-exitcode=1 --inline-suppr --suppress=missingIncludeSystem \
	-DDICE_USERSPACE -D__SIZEOF_INT128__=16 -D__x86_64__ \
	-Ikmod -Ikmod/include/uapi -Ilibdice \
	libdice/*.c tools/*.c kmod/dice_bits.c kmod/dice_uniform.c \
	kmod/dice_alias.c kmod/dice_die.c kmod/dice_format.c \
	kmod/dice_methods.c; then
	echo "ok 2 - static: cppcheck on the core, libdice and the CLI"
else
	echo "not ok 2 - static: cppcheck on the core, libdice and the CLI"
	fail=1
fi
exit $fail
