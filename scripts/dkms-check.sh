#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove dkms.conf builds the module for every kernel of scripts/kernels.sh
# (KERNELS picks the set): dkms add, then dkms build -k KVER for each.
#
# DKMS runs in private trees (--dkmstree, --sourcetree, --installtree in a
# temporary directory), never in /var/lib/dkms or /usr/src: nothing is
# registered on this machine at any moment, so a failed, interrupted or
# killed run cannot leave an entry behind that a later kernel install
# would try to rebuild.  Only what dkms.conf names is copied, as a user's
# /usr/src/dice-VERSION would hold it.
set -uo pipefail
: "${TOP:?run from make}"
ver=$(cat "$TOP/VERSION")
T=$(mktemp -d "${TMPDIR:-/tmp}/dice-dkms.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
DKMS=(dkms --dkmstree "$T/dkms" --sourcetree "$T/src" --installtree "$T/install")
n=0 bad=0
tap() { # ok|fail NAME [LOG]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - dkms: $2"
	else
		bad=$((bad + 1))
		echo "not ok $n - dkms: $2"
		[ -n "${3:-}" ] && tail -n 30 "$3" | sed 's/^/#   /'
	fi
}

src=$T/src/dice-$ver
mkdir -p "$src/kmod" "$T/dkms" "$T/install"
cp "$TOP/dkms.conf" "$TOP/Kbuild" "$src/"
sed -i "s/#MODULE_VERSION#/$ver/" "$src/dkms.conf"	# as make dkms-source does
(cd "$TOP/kmod" && cp -r Kbuild Kconfig include ./*.h "$src/kmod/" &&
	find . -maxdepth 1 -name '*.c' ! -name '*.mod.c' -exec cp {} "$src/kmod/" \;)
if "${DKMS[@]}" add -m dice -v "$ver" >"$T/add.log" 2>&1; then
	tap ok "add dice/$ver (private tree)"
else
	tap fail "add dice/$ver" "$T/add.log"
fi
if ! kernels=$("$TOP"/scripts/kernels.sh); then
	tap fail "kernels of the set installed (make deps)"
fi
while read -r name kver; do
	[ -n "$kver" ] || continue
	log=$T/build-$kver.log
	if "${DKMS[@]}" build -m dice -v "$ver" -k "$kver" >"$log" 2>&1 &&
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
echo "dkms: $((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
