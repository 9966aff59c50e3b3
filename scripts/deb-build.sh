#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the Debian packages, from a clean copy of the tree.
#
#   scripts/deb-build.sh [--out DIR] [--version V] [--binary-only]
#
# Copies the files git knows (tracked, and untracked ones it does not
# ignore) into DIR/dice-VERSION, makes DIR/dice_VERSION.orig.tar.xz from it
# (reproducible: sorted, owner 0, mtime of the changelog entry) and runs
# dpkg-buildpackage there: the source package (dpkg-source -b, format
# 3.0 (quilt)) and the binary packages dice-dkms, libdice1, libdice-dev,
# dice and python3-libdice land in DIR, next to the .changes that lintian reads.
#
# --version V builds the same sources as upstream version V (VERSION and
# a one-entry changelog rewritten in the copy): the upgrade test's
# "previous" packages.  --binary-only skips the source package and the
# build-time tests (nocheck).  Needs no network: build dependencies come
# from make deps.
set -euo pipefail
: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"

out=$TOP/build/deb version='' binary_only=''
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--version) version=$2; shift 2 ;;
	--binary-only) binary_only=1; shift ;;
	*) echo "deb-build: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
upstream=$(cat "$TOP/VERSION")
version=${version:-$upstream}
case $out in /*) ;; *) out=$PWD/$out ;; esac

# What the package build needs, said plainly rather than by a failed build.
missing=
for p in dpkg-dev debhelper dh-dkms dh-python python3-all-dev python3-setuptools \
	python3-pytest pkg-config liburing-dev libsodium-dev xz-utils; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deb-build: missing packages:$missing (run make deps)" >&2
	exit 1
fi

rm -rf "$out"
src=$out/dice-$version
mkdir -p "$src"

# The tree as git sees it, without build outputs or anything ignored.
if git -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			[ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"
		done | tar --null -T - -cf -) | tar -C "$src" -xf -
else
	tar -C "$TOP" --exclude=./build --exclude=./.git --exclude='*.o' \
		--exclude='*.ko' --exclude='*.cmd' -cf - . | tar -C "$src" -xf -
fi

if [ "$version" != "$upstream" ]; then
	echo "$version" >"$src/VERSION"
	cat >"$src/debian/changelog" <<EOF
dice ($version-1) unstable; urgency=medium

  * Test build of version $version (scripts/deb-build.sh --version).

 -- The dice developers <maintainers@users.noreply.a-seed-e5ea7db1.example>  $(date -R -u)
EOF
fi

if [ -z "$binary_only" ]; then
	epoch=$(cd "$src" && dpkg-parsechangelog -STimestamp)
	tar -C "$out" --sort=name --mtime="@$epoch" --owner=0 --group=0 \
		--numeric-owner --exclude="dice-$version/debian" \
		-cf - "dice-$version" | xz -6 -T1 >"$out/dice_$version.orig.tar.xz"
fi

# The system's tools only, as on a build machine: an interpreter of one's
# own early on PATH (pyenv's python3.11, say) would run pybuild's tests.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# No -dbgsym packages: build/deb/*.deb is what a user installs.
export DEB_BUILD_OPTIONS="noautodbgsym ${DEB_BUILD_OPTIONS:-}"
opts=(-us -uc -j"$(nproc)")
if [ -n "$binary_only" ]; then
	opts+=(-b)
	DEB_BUILD_OPTIONS="nocheck $DEB_BUILD_OPTIONS"
fi
(cd "$src" && dpkg-buildpackage "${opts[@]}")
rm -rf "$src"

cd "$out"
echo "deb-build: in $out:"
shopt -s nullglob
for f in *.deb *.dsc *.orig.tar.* *.debian.tar.*; do
	printf '  %8d  %s\n' "$(stat -c %s "$f")" "$f"
done
