#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian 13 ("trixie") for the tests, without a trixie package on this
# Debian 12 host:
#
#   scripts/trixie.sh            find the kernels, make what is missing
#                                (root, network); print the state file
#   scripts/trixie.sh --offline  the same from the index already here
#   scripts/trixie.sh --root     only the root of step 3, made if
#                                missing: print its directory
#
# 1. The index: Debian's trixie, trixie-updates, trixie-security and
#    trixie-backports package lists, fetched by the host's apt into a
#    private directory ($DICE_CACHE/trixie/apt: its own sources, lists,
#    cache and an empty dpkg status), refreshed at every run: about 11 MB,
#    one second.  Nothing is ever installed from it on the host.
# 2. The kernels, from the meta-packages, never from this file:
#      trixie-6.12     linux-image-amd64 of trixie (apt's candidate: the
#                      newest of trixie and trixie-security)
#      trixie-6.12-rt  linux-image-rt-amd64, the same way
#      trixie-bpo      linux-image-amd64 of trixie-backports (the newest
#                      7.x today; the set follows when backports moves)
#      trixie-bpo-rt   linux-image-rt-amd64 of trixie-backports
#    each as the ABI name its meta-package depends on (linux-image-KVER).
# 3. The root: scripts/deb-root.sh --suite trixie --backports with the
#    headers of the four kernels, gcc-14 (the headers' compiler) and
#    sparse: the kernels' module builds (scripts/in-root.sh) and the deb
#    tier's Debian 13 installs run in it (an overlay over it for those).
# 4. The images: vmlinuz and config of each kernel, taken out of their
#    .deb, those two files alone (linux-image-KVER for 6.12; linux-binary-KVER
#    and linux-base-KVER for 7.x, which put vmlinuz in usr/lib/modules/KVER)
#    into $DICE_CACHE/trixie/kernels/KVER/, never installed.
# 5. The newest source: linux-source-X.Y of the newest linux-source in
#    trixie-backports, its .deb taken apart the same way and its tarball
#    unpacked into $DICE_CACHE/linux-source-X.Y (make linux-src-newest).
#
# The state file, $DICE_CACHE/trixie/current, one "NAME VALUE" a line:
# each kernel's name and KVER, "root DIR" and "source DIR";
# scripts/kernels.sh reads it.
set -euo pipefail
cache=${DICE_CACHE:-/var/tmp/dice}
T=$cache/trixie
mirror=${DEB_MIRROR:-http://deb.debian.org/debian}
security=${DEB_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
HERE=$(cd "$(dirname "$0")" && pwd)
offline='' root_only=''
for a in "$@"; do
	case $a in
	--offline) offline=1 ;;
	--root) root_only=1 ;;
	*) echo "trixie.sh: unknown argument $a" >&2; exit 2 ;;
	esac
done
say() { echo "trixie: $*" >&2; }

mkdir -p "$T/kernels"
exec 8>"$T/.lock"
flock 8
# 1. the index
# shellcheck source=scripts/deb-index.sh
. "$HERE"/deb-index.sh
deb_index "$T" trixie "$offline" <<EOF
deb $mirror trixie main
deb $mirror trixie-updates main
deb $security trixie-security main
deb $mirror trixie-backports main
EOF

# 2. the kernels
# version SUITE META: META's version in SUITE (trixie: apt's candidate)
version() {
	if [ "$1" = trixie ]; then
		acache policy "$2" | sed -n 's/^  Candidate: //p'
	else
		acache madison "$2" | awk -F' *[|] *' -v s="$1/" \
			'index($3, s) { print $2; exit }'
	fi
}
# kver SUITE META: the ABI name META's version depends on
kver() {
	local v
	v=$(version "$1" "$2")
	[ -n "$v" ] && [ "$v" != "(none)" ] || return 1
	acache show "$2=$v" | sed -n 's/^Depends:.*linux-image-\([0-9][^ ,]*\).*/\1/p' |
		head -n 1 | grep .
}
names="trixie-6.12 trixie-6.12-rt trixie-bpo trixie-bpo-rt"
declare -A K
for n in $names; do
	case $n in
	trixie-6.12) K[$n]=$(kver trixie linux-image-amd64) ;;
	trixie-6.12-rt) K[$n]=$(kver trixie linux-image-rt-amd64) ;;
	trixie-bpo) K[$n]=$(kver trixie-backports linux-image-amd64) ;;
	trixie-bpo-rt) K[$n]=$(kver trixie-backports linux-image-rt-amd64) ;;
	esac || { say "no version for $n in the index"; exit 1; }
done
kvers=$(for n in $names; do echo "${K[$n]}"; done)

# 3. the root (sparse from trixie itself; gcc-14 comes with the headers),
# with debian/control's Build-Depends: the deb tier builds python3-libdice
# (a Python extension, for Debian 13's Python) in it.
DEB_BUILD_DEPS="build-essential dpkg-dev debhelper dh-dkms dh-python
	python3-all-dev python3-setuptools python3-pytest pkg-config
	liburing-dev libsodium-dev"
# shellcheck disable=SC2086
root=$("$HERE"/deb-root.sh --suite trixie --backports --packages "sparse bc
	$DEB_BUILD_DEPS" $kvers)
# --root: that root's path alone, for the deb tier.  The state file is
# shared by every tree using DICE_CACHE: another tree's trixie.sh (another
# package list) may have written its own root there meanwhile.
if [ -n "$root_only" ]; then
	echo "$root"
	exit 0
fi

# download PKG DIR: PKG's .deb (the candidate, or the only version) in DIR
download() {
	(cd "$2" && apt-get "${APT[@]}" -q download "$1" >/dev/null) &&
		ls "$2"/*.deb >/dev/null
}
tmp=
trap 'rm -rf "$tmp"' EXIT
# 4. the images
for n in $names; do
	k=${K[$n]}
	d=$T/kernels/$k
	[ -f "$d/vmlinuz" ] && [ -f "$d/config" ] && continue
	say "$n: kernel $k, from its .deb (once)"
	# grep -c, not -q: one that stops at the first match kills apt-cache
	# with SIGPIPE, which pipefail takes for "no such package".
	if [ "$(acache show "linux-binary-$k" | grep -c '^Package:')" -gt 0 ]; then
		deb_image "$k" "$d" "linux-binary-$k" "linux-base-$k" || exit 1
	else
		deb_image "$k" "$d" "linux-image-$k" || exit 1
	fi
done

# 5. the newest source tree
srcpkg=$(acache show "linux-source=$(version trixie-backports linux-source)" |
	sed -n 's/^Depends:.*\(linux-source-[0-9][0-9.]*\).*/\1/p' | head -n 1)
[ -n "$srcpkg" ] || { say "no linux-source in trixie-backports"; exit 1; }
srcver=$(version trixie-backports "$srcpkg")
src=$cache/$srcpkg
if [ ! -f "$src/.dice-version" ] || [ "$(cat "$src/.dice-version")" != "$srcver" ]; then
	say "$srcpkg $srcver: unpacked into $src (once)"
	tmp=$(mktemp -d "$T/.new.XXXXXX")
	mkdir "$tmp/debs" "$tmp/x"
	download "$srcpkg" "$tmp/debs" || { say "cannot download $srcpkg"; exit 1; }
	dpkg-deb -x "$tmp"/debs/*.deb "$tmp/x"
	tarball=$(ls "$tmp"/x/usr/src/linux-source-*.tar.* | head -n 1)
	tar -C "$tmp" -xf "$tarball"
	rm -rf "$src"
	mv "$tmp/$(basename "${tarball%.tar.*}")" "$src"
	echo "$srcver" >"$src/.dice-version"
	rm -rf "$tmp"
	tmp=
fi

{
	for n in $names; do echo "$n ${K[$n]}"; done
	echo "root $root"
	echo "source $src"
	echo "source-version $srcver"
} >"$T/current.new"
mv "$T/current.new" "$T/current"
cat "$T/current"
