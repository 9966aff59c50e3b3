#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The one list of make check's tiers: scripts/check.sh runs them from here,
# the Makefile's check-TIER targets and "make tiers" read it, and the tier
# tables of README.md and Documentation/dice/testing.rst are checked
# against it (the static tier runs --check-docs).
#
#   scripts/tiers.sh                 "NAME NEEDS COMMAND" a line, in order
#   scripts/tiers.sh --names         the names, one a line
#   scripts/tiers.sh --check-docs    exit 1 unless both tables name every
#                                    tier and no other, in this order
#
# NEEDS: make targets a tier needs built before it runs ("-": none), built
# quietly by check.sh before the tier (so make check-vm works alone).
# COMMAND: run by check.sh from the top of the tree (bash, eval'd there:
# $KDIR, $B, $VMTEST, no_warnings come from it).  kernel-NAME: one tier per
# kernel of scripts/kernels.sh --names but the default (6.1, which the vm
# tier boots).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=${TOP:-$(cd "$HERE/.." && pwd)}

list() {
	cat <<'EOF'
module-w1 - no_warnings make -C "$KDIR" M="$TOP" W=1 modules
sparse - scripts/sparse.sh "$KDIR" "$TOP" sparse / "$B/logs/sparse-make.log"
checkpatch - make -s checkpatch
checkpatch-newest - make -s checkpatch-newest
static - make -s static
docs - make -s docs
core - make -s -C kmod/tests O="$B/core" check
libdice - make -s -C libdice O="$B/libdice" check
cli - make -s -C tools O="$B/tools" check
fuzz - make -s -C fuzz O="$B/fuzz" check FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
install - scripts/install-check.sh
dkms - scripts/dkms-check.sh
deb - scripts/deb-check.sh
kunit - make -s kunit
upstream - scripts/upstream-check.sh
selftests-build - make -s selftests
vm module,selftests "$VMTEST" --kernel default
vmfork module "$VMTEST" --kernel default vmfork
EOF
	local k
	for k in $("$HERE"/kernels.sh --names); do
		[ "$k" = 6.1 ] && continue
		echo "kernel-$k selftests \"\$VMTEST\" --kernel $k"
	done
	cat <<'EOF'
debug-kernel - selftests/qemu/debug-kernel.sh
vm-debug selftests "$VMTEST" --kernel debug
EOF
}

# doc_names FILE: the tier names of FILE's tier table, in order: README's
# rows "| `NAME`[, `NAME`...] |", testing.rst's rows "``NAME``  ...".
doc_names() {
	case $1 in
	*.md)
		sed -n '/^| Tier | What runs/,/^$/p' "$1" |
			sed -n 's/^| \(`[^|]*`\) |.*/\1/p' | grep -o '`[^`]*`' | tr -d '`'
		;;
	*.rst)
		sed -n '/^tier  .*  run alone$/,/^$/p' "$1" |
			sed -n 's/^``\([^`]*\)``.*/\1/p'
		;;
	esac
}

case ${1:-} in
'') list ;;
--names) list | cut -d' ' -f1 ;;
--check-docs)
	want=$(list | cut -d' ' -f1)
	rc=0
	for f in README.md Documentation/dice/testing.rst; do
		got=$(doc_names "$TOP/$f")
		if [ "$got" != "$want" ]; then
			echo "$f: its tier table does not list the tiers of scripts/tiers.sh (- list, + table):"
			{ diff <(echo "$want") <(echo "$got") || true; } | grep '^[<>]' | sed 's/^</-/;s/^>/+/'
			rc=1
		fi
	done
	exit $rc
	;;
*) echo "usage: tiers.sh [--names|--check-docs]" >&2; exit 2 ;;
esac
