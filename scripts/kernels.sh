#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernels Debian 12 carries, from 6.1 on, that the module is built and
# tested for: one line "NAME KVER" each, in the order of KERNELS (default
# "6.1 6.12 6.1-rt 6.12-rt").  Each version comes from the Depends of
# Debian's meta-package, never from this file, so the newest one the
# archive offers is taken:
#
#   6.1      linux-image-amd64          (the default kernel: make kver)
#   6.12     linux-image-6.12-amd64
#   6.1-rt   linux-image-rt-amd64       (PREEMPT_RT)
#   6.12-rt  linux-image-6.12-rt-amd64  (PREEMPT_RT)
#
#   scripts/kernels.sh              every kernel of the set
#   scripts/kernels.sh --packages   the meta-packages to install (make deps)
#   scripts/kernels.sh NAME         the version of NAME alone
#
# Exit 1 if a kernel of the set has no headers or image installed.
set -eu

KERNELS=${KERNELS:-6.1 6.12 6.1-rt 6.12-rt}

meta() { # NAME -> image meta-package
	case $1 in
	6.1) echo linux-image-amd64 ;;
	6.12) echo linux-image-6.12-amd64 ;;
	6.1-rt) echo linux-image-rt-amd64 ;;
	6.12-rt) echo linux-image-6.12-rt-amd64 ;;
	*) echo "kernels.sh: unknown kernel '$1' (6.1 6.12 6.1-rt 6.12-rt)" >&2
	   return 1 ;;
	esac
}

version() { # NAME -> the installed version its meta-package points at
	pkg=$(meta "$1") || return 1
	v=$(dpkg-query -W -f='${Depends}' "$pkg" 2>/dev/null |
		sed -n 's/.*linux-image-\([0-9][^ ,]*\).*/\1/p')
	if [ -z "$v" ]; then
		echo "kernels.sh: $pkg is not installed (make deps)" >&2
		return 1
	fi
	if [ ! -d "/lib/modules/$v/build" ] || [ ! -r "/boot/vmlinuz-$v" ]; then
		echo "kernels.sh: $1: no headers or image for $v (make deps)" >&2
		return 1
	fi
	echo "$v"
}

if [ "${1:-}" = --packages ]; then
	for k in $KERNELS; do
		pkg=$(meta "$k")
		echo "$pkg"
		echo "linux-headers-${pkg#linux-image-}"
	done
	exit 0
fi

if [ $# -gt 0 ]; then
	version "$1"
	exit
fi

rc=0
for k in $KERNELS; do
	v=$(version "$k") || { rc=1; continue; }
	echo "$k $v"
done
exit $rc
