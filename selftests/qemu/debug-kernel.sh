#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the dice debug kernel, which vmtest.sh --kernel debug boots
# (the vm-debug tier): the unpacked linux-source tree,
# "make tinyconfig" plus selftests/qemu/debug.config (KASAN generic inline,
# UBSAN, PROVE_LOCKING, DEBUG_ATOMIC_SLEEP, DEBUG_KMEMLEAK, KUNIT and what
# the test VM needs), built with O= outside the source tree, which is only
# read.  The result is cached in
#
#   $DICE_CACHE/debug-kernel/VERSION-HASH/
#
# where VERSION is the source's kernel version and HASH the first 12 hex
# digits of the sha256 of the fragment and of the build recipe below, so a
# change of either gives a new directory and a fresh build; the same ones
# reuse the finished build at once.  The directory is the O= build tree:
# bzImage is arch/x86/boot/bzImage (also linked as ./bzImage), and it is
# ready for out-of-tree modules (modules_prepare and Module.symvers):
#   make -C DIR M=/path/to/module modules
#
# On success the directory is the only thing printed on stdout; progress
# goes to stderr and the build's output to DIR/build.log (its tail is shown
# on failure).  An interrupted build is resumed, not restarted.
set -euo pipefail

ME=${0##*/}
HERE=$(cd "$(dirname "$0")" && pwd)
FRAGMENT=$HERE/debug.config

usage() {
	cat <<EOF
Usage: $ME [options]
  --src DIR       unpacked linux-source tree, only read
                  (env LINUX_SRC, default /var/tmp/dice/linux-source-6.1)
  --cache DIR     where builds are kept (env DICE_CACHE, default /var/tmp/dice;
                  builds go to DIR/debug-kernel/)
  --jobs N        make jobs (env JOBS, default 2)
  --print-dir     print the build directory this would use and exit
                  (exit 0 if it is built, 1 if not)
  -h, --help      this text
EOF
}

bad_usage() {
	echo "$ME: $*" >&2
	usage >&2
	exit 2
}

die() {
	echo "$ME: $*" >&2
	exit 1
}

SRC=${LINUX_SRC:-${DICE_CACHE:-/var/tmp/dice}/linux-source-6.1}
CACHE=${DICE_CACHE:-/var/tmp/dice}
JOBS=${JOBS:-2}
PRINT_DIR=
while [ $# -gt 0 ]; do
	case $1 in
	--src) SRC=${2:?}; shift ;;
	--src=*) SRC=${1#*=} ;;
	--cache) CACHE=${2:?}; shift ;;
	--cache=*) CACHE=${1#*=} ;;
	--jobs) JOBS=${2:?}; shift ;;
	--jobs=*) JOBS=${1#*=} ;;
	--print-dir) PRINT_DIR=1 ;;
	-h | --help) usage; exit 0 ;;
	*) bad_usage "unknown argument: $1" ;;
	esac
	shift
done
case $JOBS in '' | *[!0-9]*) bad_usage "--jobs wants a number" ;; esac
[ -f "$SRC/Makefile" ] || die "no kernel source at $SRC (make linux-src)"
[ -f "$FRAGMENT" ] || die "no config fragment $FRAGMENT"
SRC=$(cd "$SRC" && pwd)

# The kernel version, read from the source's Makefile: running make in the
# source tree could write to it.
kernelversion() {
	awk -F' *= *' '
		$1 == "VERSION" { v = $2 }
		$1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 }
		$1 == "EXTRAVERSION" { e = $2; exit }
		END { if (v == "") exit 1; printf "%s.%s.%s%s\n", v, p, s, e }' "$SRC/Makefile"
}
KVERSION=$(kernelversion) || die "cannot read the kernel version from $SRC/Makefile"

# The build recipe: everything below that decides what is built.  It goes
# into the cache key with the fragment, so changing either rebuilds.  The
# compiler is part of it: a kernel and the modules built against it must
# come from the same one.
BASE_CONFIG=tinyconfig
TARGETS=(bzImage modules)
RECIPE="base=$BASE_CONFIG
merge=merge_config.sh -m; olddefconfig; every CONFIG_x=y of the fragment checked
targets=${TARGETS[*]}
cc=$(gcc --version | head -n1)"
HASH=$( { cat "$FRAGMENT"; printf '%s\n' "$RECIPE"; } | sha256sum | cut -c1-12)
O=$CACHE/debug-kernel/$KVERSION-$HASH
STAMP=$O/.dice-debug-kernel-done

if [ -n "$PRINT_DIR" ]; then
	echo "$O"
	[ -f "$STAMP" ]
	exit
fi
if [ -f "$STAMP" ] && [ -f "$O/arch/x86/boot/bzImage" ]; then
	echo "$ME: reusing $O" >&2
	echo "$O"
	exit 0
fi

mkdir -p "$O"
# Two runs at once (make check in two trees) wait for each other rather
# than build the same tree together.
exec 9>"$O.lock"
if ! flock -n 9; then
	echo "$ME: waiting for another build of $O" >&2
	flock 9
fi
if [ -f "$STAMP" ] && [ -f "$O/arch/x86/boot/bzImage" ]; then
	echo "$ME: reusing $O" >&2
	echo "$O"
	exit 0
fi

LOG=$O/build.log
: >"$LOG"
step() { # WHAT CMD...: run CMD with its output in the log
	local what=$1 rc=0
	shift
	echo "$ME: $what" >&2
	echo "### $what: $*" >>"$LOG"
	"$@" >>"$LOG" 2>&1 </dev/null || rc=$?
	if [ $rc -ne 0 ]; then
		echo "$ME: $what failed (exit $rc); last lines of $LOG:" >&2
		tail -n 40 "$LOG" >&2
		exit 1
	fi
}

KMAKE=(make -C "$SRC" O="$O" -j"$JOBS")
start=$(date +%s)
echo "$ME: kernel $KVERSION, config $HASH, in $O" >&2

# The config is made afresh every time the build is not finished: cheap,
# and make rebuilds only what a changed config touches.
step "make $BASE_CONFIG" "${KMAKE[@]}" "$BASE_CONFIG"
# shellcheck disable=SC2016 # expanded by that sh, from its arguments
step "merge $FRAGMENT" \
	sh -c 'cd "$1" && "$2/scripts/kconfig/merge_config.sh" -m -O "$1" "$1/.config" "$3"' \
	sh "$O" "$SRC" "$FRAGMENT"
step "make olddefconfig" "${KMAKE[@]}" olddefconfig

# merge_config.sh only warns when Kconfig drops or changes a value (a
# dependency not met); fail instead, naming every one.
missing=()
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF "$line" "$O/.config" || missing+=("$line (got: $(grep -E "^(# )?${line%%=*}[= ]" "$O/.config" || echo unset))")
		;;
	'# CONFIG_'*' is not set')
		sym=${line#\# }
		sym=${sym%% *}
		grep -q "^$sym=" "$O/.config" && missing+=("$line (got: $(grep "^$sym=" "$O/.config"))")
		;;
	esac
done <"$FRAGMENT"
if [ ${#missing[@]} -gt 0 ]; then
	echo "$ME: olddefconfig did not keep these options of $FRAGMENT:" >&2
	printf '  %s\n' "${missing[@]}" >&2
	exit 1
fi

# modules builds Module.symvers and runs modules_prepare, which is what an
# out-of-tree module needs besides the headers and scripts.
step "make ${TARGETS[*]} (the long part)" "${KMAKE[@]}" "${TARGETS[@]}"
[ -f "$O/arch/x86/boot/bzImage" ] || die "no bzImage after the build; see $LOG"
[ -f "$O/Module.symvers" ] || die "no Module.symvers after the build; see $LOG"
ln -sf arch/x86/boot/bzImage "$O/bzImage"
printf '%s\n' "$RECIPE" >"$O/.dice-debug-kernel-recipe"
echo "$KVERSION-$HASH" >"$STAMP"
echo "$ME: built in $(($(date +%s) - start))s" >&2
echo "$O"
