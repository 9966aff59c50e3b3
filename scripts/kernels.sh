#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernels the module is built and tested for: one line "NAME KVER"
# each, in the order of KERNELS.  This file holds the one default set
# (make, check.sh and the docs take it from here): Debian 12's kernels from
# 6.1 on, Debian 13's and trixie-backports' newest.  Each version comes
# from the Depends of Debian's meta-package, never from this file, so the
# newest one the archive offers is taken:
#
#   Debian 12, installed on the host (make deps):
#   6.1            linux-image-amd64          (the default kernel: make kver)
#   6.12           linux-image-6.12-amd64
#   6.1-rt         linux-image-rt-amd64       (PREEMPT_RT)
#   6.12-rt        linux-image-6.12-rt-amd64  (PREEMPT_RT)
#   Debian 13, never on the host: headers in a cached trixie root, images
#   taken out of their .deb (scripts/trixie.sh, make trixie):
#   trixie-6.12    linux-image-amd64 of trixie
#   trixie-6.12-rt linux-image-rt-amd64 of trixie
#   trixie-bpo     linux-image-amd64 of trixie-backports (the newest 7.x)
#   trixie-bpo-rt  linux-image-rt-amd64 of trixie-backports
#
#   scripts/kernels.sh              every kernel of the set
#   scripts/kernels.sh --names      the names of the set (KERNELS)
#   scripts/kernels.sh --host       the Debian 12 ones of the set
#   scripts/kernels.sh --packages   the meta-packages to install (make deps)
#   scripts/kernels.sh NAME         the version of NAME alone
#   scripts/kernels.sh --info NAME  "KVER IMAGE CONFIG ROOT": the kernel's
#                                   image and config, and the root its
#                                   headers are in ("/" for the host)
#
# Exit 1 if a kernel of the set has no headers or image.
set -eu

KERNELS=${KERNELS:-6.1 6.12 6.1-rt 6.12-rt trixie-6.12 trixie-6.12-rt trixie-bpo trixie-bpo-rt}
STATE=${DICE_CACHE:-/var/tmp/dice}/trixie/current

meta() { # NAME -> image meta-package
	case $1 in
	6.1) echo linux-image-amd64 ;;
	6.12) echo linux-image-6.12-amd64 ;;
	6.1-rt) echo linux-image-rt-amd64 ;;
	6.12-rt) echo linux-image-6.12-rt-amd64 ;;
	trixie-6.12 | trixie-6.12-rt | trixie-bpo | trixie-bpo-rt) echo trixie ;;
	*) echo "kernels.sh: unknown kernel '$1' (6.1 6.12 6.1-rt 6.12-rt" \
		"trixie-6.12 trixie-6.12-rt trixie-bpo trixie-bpo-rt)" >&2
	   return 1 ;;
	esac
}

state() { # KEY -> its value in scripts/trixie.sh's state file
	[ -r "$STATE" ] || {
		echo "kernels.sh: no Debian 13 kernels yet (make trixie)" >&2
		return 1
	}
	awk -v k="$1" '$1 == k { print $2 }' "$STATE" | grep .
}

info() { # NAME -> KVER IMAGE CONFIG ROOT
	pkg=$(meta "$1") || return 1
	if [ "$pkg" = trixie ]; then
		v=$(state "$1") && root=$(state root) || return 1
		d=${STATE%/current}/kernels/$v
		if [ ! -d "$root/lib/modules/$v/build" ] || [ ! -r "$d/vmlinuz" ]; then
			echo "kernels.sh: $1: no headers or image for $v (make trixie)" >&2
			return 1
		fi
		echo "$v $d/vmlinuz $d/config $root"
		return
	fi
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
	echo "$v /boot/vmlinuz-$v /boot/config-$v /"
}

case ${1:-} in
--names)
	echo $KERNELS
	exit 0
	;;
--packages)
	for k in $KERNELS; do
		pkg=$(meta "$k")
		[ "$pkg" = trixie ] && continue
		echo "$pkg"
		echo "linux-headers-${pkg#linux-image-}"
	done
	exit 0
	;;
--info)
	info "${2:?usage: kernels.sh --info NAME}"
	exit
	;;
--host)
	host=1
	;;
'') host= ;;
*)
	i=$(info "$1") || exit 1
	echo "${i%% *}"
	exit 0
	;;
esac

rc=0
for k in $KERNELS; do
	[ -n "$host" ] && [ "$(meta "$k")" = trixie ] && continue
	i=$(info "$k") || { rc=1; continue; }
	echo "$k ${i%% *}"
done
exit $rc
