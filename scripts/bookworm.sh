#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian 12 ("bookworm") kernels for the tests and the demo, without
# installing any of them on the host (the host's /boot, /vmlinuz, GRUB menu
# and /lib/modules stay as they are):
#
#   scripts/bookworm.sh [--offline] [NAME...]
#
# finds the kernels, makes what is missing (root, network) and prints the
# state file; --offline: from the index already here.  NAME: only those
# kernels (make demo asks for 6.1 alone: its root has 6.1's headers only
# and is made sooner; the 6.12 headers depend on their image, which the
# root then installs, without an initramfs); default all four.
#
# The same way scripts/trixie.sh does it for Debian 13:
#
# 1. The index: bookworm, bookworm-updates and bookworm-security package
#    lists, fetched by the host's apt into a private directory
#    ($DICE_CACHE/bookworm/apt: its own sources, lists, cache and an empty
#    dpkg status), refreshed at every run.  Private rather than the host's
#    own lists so that the versions found are the ones the root below
#    installs, whatever the host's sources say.
# 2. The kernels, from the meta-packages, never from this file:
#      6.1      linux-image-amd64          (the default kernel)
#      6.12     linux-image-6.12-amd64
#      6.1-rt   linux-image-rt-amd64       (PREEMPT_RT)
#      6.12-rt  linux-image-6.12-rt-amd64  (PREEMPT_RT)
#    each as the ABI name its meta-package depends on (linux-image-KVER).
# 3. The root: scripts/deb-root.sh --suite bookworm with the headers of the
#    four kernels, gcc (the headers' compiler, gcc-12, comes with them) and
#    sparse: every module build and sparse run for these kernels happens in
#    it (scripts/in-root.sh).  A root with its own dpkg database rather than
#    headers unpacked beside the host: the headers' dependencies (their
#    compiler, linux-kbuild's libraries) are resolved by dpkg, not by
#    whatever the host has, and the same mechanism serves Debian 13.
# 4. The images: vmlinuz and config of each kernel, taken out of the
#    linux-image-KVER .deb (dpkg-deb --fsys-tarfile, its /boot alone) into
#    $DICE_CACHE/bookworm/kernels/KVER/, never installed.  The VM needs no
#    module of the kernel's own: the serial console, initramfs (gzip),
#    devtmpfs and ACPI power-off are built in, and the initramfs carries
#    busybox and dice.ko only (selftests/qemu/mkinitramfs.sh).
#
# The state file, $DICE_CACHE/bookworm/current, one "NAME KVER ROOT" a
# line, ROOT the root its headers are in; scripts/kernels.sh reads it.
set -euo pipefail
cache=${DICE_CACHE:-/var/tmp/dice}
D=$cache/bookworm
suite=bookworm
mirror=${DEB_MIRROR:-http://deb.debian.org/debian}
security=${DEB_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
HERE=$(cd "$(dirname "$0")" && pwd)
offline=
[ "${1:-}" = --offline ] && { offline=1; shift; }
all="6.1 6.12 6.1-rt 6.12-rt"
names=${*:-$all}
for n in $names; do
	case " $all " in *" $n "*) ;; *) echo "bookworm: no kernel $n ($all)" >&2; exit 2 ;; esac
done
say() { echo "bookworm: $*" >&2; }

mkdir -p "$D/kernels"
exec 8>"$D/.lock"
flock 8
# 1. the index
# shellcheck source=scripts/deb-index.sh
. "$HERE"/deb-index.sh
deb_index "$D" bookworm "$offline" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb $security $suite-security main
EOF

# 2. the kernels: the ABI name META's candidate depends on
kver() {
	local v
	v=$(acache policy "$1" | sed -n 's/^  Candidate: //p')
	[ -n "$v" ] && [ "$v" != "(none)" ] || return 1
	acache show "$1=$v" | sed -n 's/^Depends:.*linux-image-\([0-9][^ ,]*\).*/\1/p' |
		head -n 1 | grep .
}
declare -A K
for n in $names; do
	case $n in
	6.1) K[$n]=$(kver linux-image-amd64) ;;
	6.12) K[$n]=$(kver linux-image-6.12-amd64) ;;
	6.1-rt) K[$n]=$(kver linux-image-rt-amd64) ;;
	6.12-rt) K[$n]=$(kver linux-image-6.12-rt-amd64) ;;
	esac || { say "no version for $n in the index"; exit 1; }
done
kvers=$(for n in $names; do echo "${K[$n]}"; done)

# 3. the root: the one the state file names for these kernels, when it
# names one for all of them at these versions and it is still there (so
# that make demo after make check reuses the root of all four); else
# deb-root.sh's, made if needed
root=
if [ -r "$D/current" ]; then
	root=$(for n in $names; do
		awk -v n="$n" -v k="${K[$n]}" '$1 == n && $2 == k { print $3 }' "$D/current"
	done | sort | uniq -c | awk -v c="$(echo $names | wc -w)" '$1 == c { print $2 }')
	[ -n "$root" ] && [ -f "$root/../done" ] && touch "$root/../used" || root=
fi
# shellcheck disable=SC2086
[ -n "$root" ] || root=$("$HERE"/deb-root.sh --suite "$suite" --packages "sparse bc" $kvers)

# 4. the images
tmp=
trap 'rm -rf "$tmp"' EXIT
for n in $names; do
	k=${K[$n]}
	d=$D/kernels/$k
	[ -f "$d/vmlinuz" ] && [ -f "$d/config" ] && continue
	say "$n: kernel $k, from its .deb (once)"
	deb_image "$k" "$d" "linux-image-$k" || exit 1
done

# The kernels asked for with their root; the others of the state file, if
# their root is still there, with theirs.
{
	for n in $names; do echo "$n ${K[$n]} $root"; done
	[ -r "$D/current" ] && for n in $all; do
		case " $names " in *" $n "*) continue ;; esac
		awk -v n="$n" '$1 == n && NF == 3' "$D/current" |
			while read -r _ _ r; do [ -d "$r/usr" ] && awk -v n="$n" '$1 == n' "$D/current"; done
	done
} >"$D/current.new"
mv "$D/current.new" "$D/current"
cat "$D/current"
