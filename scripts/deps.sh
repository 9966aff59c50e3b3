#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make deps: install every Debian package the project needs.  Idempotent:
# when nothing is missing it exits at once, without touching the network.
set -eu

PKGS="
	gcc gcc-multilib make pkg-config python3 rsync xz-utils
	cppcheck valgrind clang llvm lld libclang-rt-dev sparse
	busybox-static cpio kmod dkms qemu-system-x86
	linux-image-amd64 linux-headers-amd64 linux-source
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	linux-image-rt-amd64 linux-headers-rt-amd64
	linux-image-6.12-rt-amd64 linux-headers-6.12-rt-amd64
	flex bison bc libelf-dev libssl-dev
	libsodium-dev liburing-dev libgsl-dev
	dieharder ent
	python3-sphinx python3-ply python3-git
	debhelper dh-dkms dpkg-dev lintian debootstrap
"

# One dpkg-query call keeps the nothing-to-do path fast.  "ii" = installed;
# anything else (unknown, removed, half-installed) counts as missing so that
# apt-get repairs it.
# shellcheck disable=SC2086
installed=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $PKGS 2>/dev/null |
	awk '$1 == "ii" { print $2 }' || true)
missing=
for p in $PKGS; do
	echo "$installed" | grep -qx -- "$p" || missing="$missing $p"
done

if [ -z "$missing" ]; then
	# shellcheck disable=SC2086
	echo "deps: all $(echo $PKGS | wc -w) packages already installed"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$missing" >&2
	echo "deps: run 'make deps' as root (or: sudo apt-get install$missing)" >&2
	exit 1
fi

echo "deps: installing:$missing"
apt-get update
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
