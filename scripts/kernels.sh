#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernels the module is built and tested for: one line "NAME KVER"
# each, in the order of KERNELS.  This file holds the one default set
# (make, check.sh and the docs take it from here): Debian 12's kernels from
# 6.1 on, Debian 13's and trixie-backports' newest.  Each version comes
# from the Depends of Debian's meta-package, never from this file, so the
# newest one the archive offers is taken.  None is ever installed on the
# host: each image is taken out of its .deb into DICE_CACHE, its headers
# and their compiler are in a cached Debian root (its own dpkg database),
# where the module builds run (scripts/in-root.sh):
#
#   Debian 12 (scripts/bookworm.sh, make bookworm):
#   6.1            linux-image-amd64          (the default kernel of the
#                                             tests and the demo)
#   6.12           linux-image-6.12-amd64
#   6.1-rt         linux-image-rt-amd64       (PREEMPT_RT)
#   6.12-rt        linux-image-6.12-rt-amd64  (PREEMPT_RT)
#   Debian 13 (scripts/trixie.sh, make trixie):
#   trixie-6.12    linux-image-amd64 of trixie
#   trixie-6.12-rt linux-image-rt-amd64 of trixie
#   trixie-bpo     linux-image-amd64 of trixie-backports (the newest 7.x)
#   trixie-bpo-rt  linux-image-rt-amd64 of trixie-backports
#
#   scripts/kernels.sh              every kernel of the set
#   scripts/kernels.sh --names      the names of the set (KERNELS)
#   scripts/kernels.sh --debian12   the Debian 12 ones of the set
#   scripts/kernels.sh NAME         the version of NAME alone
#   scripts/kernels.sh --info NAME  "KVER IMAGE CONFIG ROOT": the kernel's
#                                   image and config, and the root its
#                                   headers are in
#
# Exit 1 if a kernel of the set has no headers or image.
set -eu

KERNELS=${KERNELS:-6.1 6.12 6.1-rt 6.12-rt trixie-6.12 trixie-6.12-rt trixie-bpo trixie-bpo-rt}
CACHE=${DICE_CACHE:-/var/tmp/dice}

release() { # NAME -> the scripts/ that makes it: bookworm or trixie
	case $1 in
	6.1 | 6.12 | 6.1-rt | 6.12-rt) echo bookworm ;;
	trixie-6.12 | trixie-6.12-rt | trixie-bpo | trixie-bpo-rt) echo trixie ;;
	*) echo "kernels.sh: unknown kernel '$1' (6.1 6.12 6.1-rt 6.12-rt" \
		"trixie-6.12 trixie-6.12-rt trixie-bpo trixie-bpo-rt)" >&2
	   return 1 ;;
	esac
}

state() { # RELEASE KEY -> its value in scripts/RELEASE.sh's state file
	local f=$CACHE/$1/current
	[ -r "$f" ] || {
		echo "kernels.sh: no $1 kernels in $CACHE yet (make $1)" >&2
		return 1
	}
	awk -v k="$2" '$1 == k { print $2 }' "$f" | grep .
}

info() { # NAME -> KVER IMAGE CONFIG ROOT
	local rel v root d
	rel=$(release "$1") || return 1
	v=$(state "$rel" "$1") || return 1
	# Debian 12's lines name their root; Debian 13's share "root DIR".
	root=$(awk -v k="$1" '$1 == k { print $3 }' "$CACHE/$rel/current")
	[ -n "$root" ] || root=$(state "$rel" root) || return 1
	d=$CACHE/$rel/kernels/$v
	# build may be an absolute link: resolved inside the root, not here.
	if ! chroot "$root" test -d "/lib/modules/$v/build" ||
		[ ! -r "$d/vmlinuz" ]; then
		echo "kernels.sh: $1: no headers or image for $v (make $rel)" >&2
		return 1
	fi
	echo "$v $d/vmlinuz $d/config $root"
}

case ${1:-} in
--names)
	echo $KERNELS
	exit 0
	;;
--info)
	info "${2:?usage: kernels.sh --info NAME}"
	exit
	;;
--debian12)
	only=bookworm
	;;
'') only= ;;
*)
	i=$(info "$1") || exit 1
	echo "${i%% *}"
	exit 0
	;;
esac

rc=0
for k in $KERNELS; do
	[ -n "$only" ] && [ "$(release "$k")" != "$only" ] && continue
	i=$(info "$k") || { rc=1; continue; }
	echo "$k ${i%% *}"
done
exit $rc
