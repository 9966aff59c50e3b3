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
#   scripts/tiers.sh --packages [NAME...]
#                                    the Debian packages those tiers (or
#                                    demo, bench) need, one a line; every
#                                    tier's without NAME (packages() below)
#   scripts/tiers.sh --check-packages
#                                    exit 1 unless packages() has a line
#                                    for every tier and none other, and
#                                    no line's install (apt-get -s, on an
#                                    empty dpkg database) would install a
#                                    linux-image-* package
#
# NEEDS: make targets a tier needs built before it runs ("-": none), built
# quietly by check.sh before the tier (so make check-vm works alone):
# "bookworm" and "trixie" make the cached Debian 12 and 13 kernels
# (scripts/bookworm.sh, scripts/trixie.sh) where they are missing.
# COMMAND: run by check.sh from the top of the tree (bash, eval'd there:
# $B, $VMTEST, no_warnings, kbuild come from it).  kernel-NAME: one tier
# per kernel of scripts/kernels.sh --names but the default (6.1, which the
# vm tier boots and module-w1, sparse build against, in its cached root).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=${TOP:-$(cd "$HERE/.." && pwd)}

list() {
	cat <<'EOF'
module-w1 bookworm no_warnings kbuild 6.1 W=1 modules
sparse bookworm read -r kv _ _ root < <(scripts/kernels.sh --info 6.1) && scripts/sparse.sh "/lib/modules/$kv/build" "$TOP" sparse "$root" "$B/logs/sparse-make.log"
checkpatch - make -s checkpatch
checkpatch-newest trixie make -s checkpatch-newest
static - make -s static
docs - make -s docs
core - make -s -C kmod/tests O="$B/core" check
libdice - make -s -C libdice O="$B/libdice" check
cli - make -s -C tools O="$B/tools" check
python - make -s python-test
fuzz - make -s -C fuzz O="$B/fuzz" check FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
install bookworm scripts/install-check.sh
dkms bookworm scripts/dkms-check.sh
deb bookworm,trixie scripts/deb-check.sh
upstream trixie scripts/upstream-check.sh
selftests-build - make -s selftests
vm bookworm,selftests "$VMTEST" --kernel 6.1 --name vm all
vmfork bookworm "$VMTEST" --kernel 6.1 --name vmfork vmfork
EOF
	local k
	# The extra kernels run every case, the time-boxed ones shorter than
	# the vm tier on the default kernel does (20, 4 and 5 s there): each
	# path on each kernel, not the same seconds seven times over.
	local QUICK='DICE_FUZZ_SECONDS=5 DICE_HOSTILE_SECONDS=2 DICE_STRESS_SECONDS=2'
	for k in $("$HERE"/kernels.sh --names); do
		[ "$k" = 6.1 ] && continue
		case $k in trixie-*) rel=trixie ;; *) rel=bookworm ;; esac
		echo "kernel-$k $rel,selftests $QUICK \"\$VMTEST\" --kernel $k"
	done
	cat <<'EOF'
debug-kernel linux-src selftests/qemu/debug-kernel.sh
vm-debug linux-src,selftests "$VMTEST" --kernel debug
EOF
}

# The one list of what each tier needs from Debian, kept beside the tiers:
# "NAME PACKAGE..." a line, one line per tier of list() (kernel-* stands
# for every kernel-NAME tier), "demo" (make demo) and "bench" (make bench);
# the "all" line goes with every one.  scripts/deps.sh installs the
# packages of the tiers it is asked for (make check: every tier's; make
# check-TIER: that tier's; make demo: demo's).  No line names a kernel
# image: the kernels the tiers boot and build against come from their
# .deb into DICE_CACHE (scripts/bookworm.sh, scripts/trixie.sh), their
# headers and compilers in cached roots that debootstrap makes.  The
# static tier checks this list against list() and simulates each line's
# install (--check-packages).
packages() {
	cat <<'EOF'
all gcc make libc6-dev kmod xz-utils python3
module-w1 debootstrap
sparse debootstrap
checkpatch linux-source perl
checkpatch-newest debootstrap perl
static linux-source cppcheck perl liburing-dev libsodium-dev
docs python3-sphinx
core valgrind
libdice pkg-config liburing-dev libsodium-dev
cli pkg-config liburing-dev libsodium-dev
python pkg-config liburing-dev libsodium-dev python3-dev python3-setuptools python3-pytest python3-venv python3-pip python3-wheel
fuzz clang llvm lld libclang-rt-dev pkg-config liburing-dev libsodium-dev
install debootstrap pkg-config liburing-dev libsodium-dev
dkms debootstrap
deb debootstrap git build-essential debhelper dh-dkms dpkg-dev lintian pkg-config liburing-dev libsodium-dev dh-python python3-all-dev python3-setuptools python3-pytest
upstream debootstrap rsync flex bison bc libelf-dev libssl-dev python3-ply python3-git python3-sphinx python3-yaml
selftests-build debootstrap gcc-multilib
vm debootstrap gcc-multilib qemu-system-x86 busybox-static cpio pkg-config liburing-dev libsodium-dev dieharder ent python3-dev python3-setuptools
vmfork debootstrap qemu-system-x86 busybox-static cpio
kernel-* debootstrap gcc-multilib qemu-system-x86 busybox-static cpio
debug-kernel linux-source flex bison bc libelf-dev libssl-dev
vm-debug debootstrap linux-source flex bison bc libelf-dev libssl-dev gcc-multilib qemu-system-x86 busybox-static cpio pkg-config liburing-dev libsodium-dev dieharder ent python3-dev python3-setuptools
demo debootstrap qemu-system-x86 busybox-static cpio
bench debootstrap valgrind libgsl-dev pkg-config liburing-dev libsodium-dev qemu-system-x86 busybox-static cpio
EOF
}

# packages_of NAME...: the packages of those tiers (or demo, bench) and
# of the "all" line, one a line, each once.
packages_of() {
	local want=" $* " name rest w
	packages | while read -r name rest; do
		case $name in
		all) printf '%s\n' $rest ;;
		'kernel-*')
			for w in $want; do
				case $w in kernel-*) printf '%s\n' $rest; break ;; esac
			done ;;
		*) case $want in *" $name "*) printf '%s\n' $rest ;; esac ;;
		esac
	done | awk '!seen[$0]++'
}

# check_packages: every tier has its line in packages() and no line names
# what is no tier; and no line's packages, installed with apt-get -s
# (a simulation: nothing changes) against an empty dpkg database (a
# machine with nothing installed yet), bring a linux-image-* package along.
# Prints the faults; exit 1 on any.
check_packages() {
	local rc=0 names lines n pkgs sim img sim_dir
	names=$(list | cut -d' ' -f1)
	lines=$(packages | cut -d' ' -f1)
	for n in $names; do
		case $n in kernel-*) n='kernel-*' ;; esac
		grep -qxF -- "$n" <<<"$lines" ||
			{ echo "tiers.sh: tier $n has no line in packages()"; rc=1; }
	done
	for n in $lines; do
		case $n in
		all | demo | bench) continue ;;
		'kernel-*') grep -q '^kernel-' <<<"$names" && continue ;;
		*) grep -qxF -- "$n" <<<"$names" && continue ;;
		esac
		echo "tiers.sh: packages() names $n, which is no tier"
		rc=1
	done
	# An empty status and a private package cache, built once for all.
	sim_dir=$(mktemp -d)
	: >"$sim_dir/status"
	for n in $lines; do
		[ "$n" = all ] && continue
		[ "$n" = 'kernel-*' ] && n=kernel-any
		pkgs=$(packages_of "$n" | paste -sd' ')
		# shellcheck disable=SC2086
		if ! sim=$(apt-get -s -q -o Debug::NoLocking=1 \
			-o Dir::State::status="$sim_dir/status" \
			-o Dir::Cache::pkgcache="$sim_dir/pkgcache.bin" \
			-o Dir::Cache::srcpkgcache="$sim_dir/srcpkgcache.bin" \
			install --no-install-recommends $pkgs 2>&1); then
			echo "tiers.sh: $n: apt-get -s install failed:"
			printf '%s\n' "$sim" | tail -n 5
			rc=1
			continue
		fi
		img=$(printf '%s\n' "$sim" | sed -n 's/^Inst \(linux-image-[^ ]*\).*/\1/p' | paste -sd' ')
		if [ -n "$img" ]; then
			echo "tiers.sh: $n: installing its packages would install $img"
			rc=1
		else
			echo "# $n: apt-get -s install of $(wc -w <<<"$pkgs") packages: $(grep -c '^Inst ' <<<"$sim") to install on an empty system, no linux-image-*"
		fi
	done
	rm -rf "$sim_dir"
	return $rc
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
--packages)
	shift
	# shellcheck disable=SC2046
	[ $# -gt 0 ] || set -- $(list | cut -d' ' -f1)
	packages_of "$@"
	;;
--check-packages) check_packages ;;
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
*) echo "usage: tiers.sh [--names|--check-docs|--packages [NAME...]|--check-packages]" >&2; exit 2 ;;
esac
