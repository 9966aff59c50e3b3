#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove dkms.conf builds the module for every Debian 12 kernel of
# scripts/kernels.sh (KERNELS picks the set): dkms add, then dkms build -k
# KVER for each.
#
# The kernels are the cached ones (make bookworm): DKMS runs in their
# cached Debian 12 root, where their headers and compiler are
# (scripts/in-root.sh: an overlay thrown away after each command), with
# its trees under the build directory, which the root sees.  No kernel or
# headers package of the host is used or needed.
#
# DKMS runs in private trees (--dkmstree, --sourcetree, --installtree in a
# temporary directory), never in /var/lib/dkms or /usr/src: nothing is
# registered on this machine at any moment, so a failed, interrupted or
# killed run cannot leave an entry behind that a later kernel install
# would try to rebuild.  The source tree is what "make dkms-source" lays
# out, the one the dice-dkms package and make dkms-install ship.  DKMS signs
# what it builds, and would make its signing key in /var/lib/dkms (mok.key,
# mok.pub) on first use: the key pair is made in the temporary directory too
# (DKMS takes mok_signing_key and mok_certificate from the environment when
# /etc/dkms/framework.conf does not set them), and the run fails if
# /var/lib/dkms changed.
set -uo pipefail
: "${TOP:?run from make}"
B=${B:-$TOP/build}
ver=$(cat "$TOP/VERSION")
mkdir -p "$B"
T=$(mktemp -d "$B/dkms-check.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
# dkms ROOT ARGS...: DKMS in ROOT, its trees and key pair in $T.
dkms() {
	local root=$1
	shift
	"$TOP"/scripts/in-root.sh "$root" env mok_signing_key="$T/mok.key" \
		mok_certificate="$T/mok.pub" dkms --dkmstree "$T/dkms" \
		--sourcetree "$T/root/usr/src" --installtree "$T/install" "$@"
}
state_before=$(ls -A --full-time /var/lib/dkms 2>/dev/null)
# shellcheck source=../testlib/tap.sh
. "$TOP/testlib/tap.sh"
tap_init dkms
tap() { # ok|fail NAME [LOG]
	if [ "$1" = ok ]; then
		tap_ok "dkms: $2"
	else
		tap_not_ok "dkms: $2"
		[ -n "${3:-}" ] && tail -n 30 "$3" | sed 's/^/#   /'
	fi
}

mkdir -p "$T/dkms" "$T/install"
# The source tree the dice-dkms package and make dkms-install ship.
if make -s --no-print-directory -C "$TOP" dkms-source DESTDIR="$T/root" \
	>"$T/source.log" 2>&1; then
	tap ok "make dkms-source: dkms.conf and the module's files"
else
	tap fail "make dkms-source: dkms.conf and the module's files" "$T/source.log"
fi
# Debian 12's kernels, in their cached root; Debian 13's are built by DKMS
# in the deb tier's trixie root (scripts/deb-check.sh).
if ! kernels=$("$TOP"/scripts/kernels.sh --debian12); then
	tap fail "Debian 12 kernels of the set in the cache (make bookworm)"
fi
root=
while read -r name _; do
	[ -n "$name" ] || continue
	read -r _ _ _ root < <("$TOP"/scripts/kernels.sh --info "$name") && break
done <<<"$kernels"
if [ -n "$root" ] && dkms "$root" add -m dice -v "$ver" >"$T/add.log" 2>&1; then
	tap ok "add dice/$ver (private tree, in the cached Debian 12 root)"
else
	tap fail "add dice/$ver" "$T/add.log"
fi
while read -r name kver; do
	[ -n "$kver" ] || continue
	log=$T/build-$kver.log
	read -r _ _ _ root < <("$TOP"/scripts/kernels.sh --info "$name")
	if dkms "$root" build -m dice -v "$ver" -k "$kver" >"$log" 2>&1 &&
		ko=$(find "$T/dkms/dice/$ver/$kver" -name 'dice.ko*' | head -n 1) &&
		[ -n "$ko" ] &&
		modinfo -F vermagic "$ko" | grep -q "^$kver "; then
		tap ok "builds for $name ($kver)"
	else
		tap fail "builds for $name ($kver)" "$log"
	fi
done <<<"$kernels"
if [ -z "$(ls -A /var/lib/dkms/dice 2>/dev/null)" ]; then
	tap ok "nothing registered in /var/lib/dkms"
else
	tap fail "nothing registered in /var/lib/dkms (a dice entry is there)"
fi
state_after=$(ls -A --full-time /var/lib/dkms 2>/dev/null)
if [ "$state_after" = "$state_before" ]; then
	tap ok "/var/lib/dkms as it was (no signing key made there)"
else
	tap_not_ok "dkms: /var/lib/dkms as it was"
	diff <(echo "$state_before") <(echo "$state_after") | sed 's/^/#   /'
fi
tap_done
