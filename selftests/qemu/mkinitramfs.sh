#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the gzip'ed cpio initramfs of the dice test VM: busybox-static, the
# /init next to this script, modules, tests and extras.  Needs no root.
# See usage() for the options; run.sh boots the result.
set -euo pipefail

ME=${0##*/}
HERE=$(cd "$(dirname "$0")" && pwd)
BUSYBOX=${BUSYBOX:-/bin/busybox}

usage() {
	cat <<EOF
Usage: $ME --out FILE [options]
  --out FILE          initramfs to write (gzip'ed newc cpio)
  --module PATH.ko    module to insmod at boot; repeatable, loaded in order
  --tests DIR         copied to /tests; its executables run in sorted order
  --extra DIR         copied verbatim to /extra (on the guest's PATH)
  --script FILE       run this guest shell script instead of the tests
  --shell             drop to a shell on the console after loading modules
  --test-timeout SECS per-test (or script) timeout in the guest (default 120)
  -h, --help          this text
Executables that are dynamically linked get their libraries copied (ldd).
EOF
}

die() {
	echo "$ME: $*" >&2
	exit 1
}

bad_usage() {
	echo "$ME: $*" >&2
	usage >&2
	exit 2
}

OUT='' TESTS='' EXTRA='' SCRIPT='' SHELL_MODE='' TEST_TIMEOUT=120
MODULES=()
while [ $# -gt 0 ]; do
	case $1 in
	--out) OUT=${2:?}; shift ;;
	--module) MODULES+=("${2:?}"); shift ;;
	--tests) TESTS=${2:?}; shift ;;
	--extra) EXTRA=${2:?}; shift ;;
	--script) SCRIPT=${2:?}; shift ;;
	--shell) SHELL_MODE=1 ;;
	--test-timeout) TEST_TIMEOUT=${2:?}; shift ;;
	--out=*) OUT=${1#*=} ;;
	--module=*) MODULES+=("${1#*=}") ;;
	--tests=*) TESTS=${1#*=} ;;
	--extra=*) EXTRA=${1#*=} ;;
	--script=*) SCRIPT=${1#*=} ;;
	--test-timeout=*) TEST_TIMEOUT=${1#*=} ;;
	-h | --help) usage; exit 0 ;;
	*) bad_usage "unknown argument: $1" ;;
	esac
	shift
done

[ -n "$OUT" ] || bad_usage "--out is required"
[ -n "$SCRIPT" ] && [ -n "$SHELL_MODE" ] && bad_usage "--script and --shell exclude each other"
case $TEST_TIMEOUT in
'' | *[!0-9]*) bad_usage "--test-timeout wants whole seconds" ;;
esac
[ -x "$BUSYBOX" ] || die "$BUSYBOX not found (apt-get install busybox-static)"
# A dynamically linked busybox would not run in an initramfs without libc.
if grep -q 'program interpreter' <<<"$(LC_ALL=C readelf -l "$BUSYBOX" 2>/dev/null)"; then
	die "$BUSYBOX is dynamically linked; install busybox-static"
fi
for m in "${MODULES[@]}"; do
	[ -f "$m" ] || die "no such module: $m"
	case $m in *.ko) ;; *) die "not a .ko file: $m" ;; esac
done
[ -z "$TESTS" ] || [ -d "$TESTS" ] || die "no such directory: $TESTS"
[ -z "$EXTRA" ] || [ -d "$EXTRA" ] || die "no such directory: $EXTRA"
[ -z "$SCRIPT" ] || [ -f "$SCRIPT" ] || die "no such file: $SCRIPT"

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/dicevm-initramfs.XXXXXX")
trap 'rm -rf "$STAGE" "$OUT.tmp"' EXIT

mkdir -p "$STAGE"/{bin,dev,proc,sys,tmp,root,etc,dice,tests,extra}
chmod 1777 "$STAGE/tmp"
cp "$BUSYBOX" "$STAGE/bin/busybox"
# "busybox --list" names busybox itself: a link would replace the binary.
for applet in $("$BUSYBOX" --list); do
	[ "$applet" = busybox ] && continue
	ln -s busybox "$STAGE/bin/$applet"
done
ln -s bin "$STAGE/sbin"
ln -s /proc/mounts "$STAGE/etc/mtab"
install -m 0755 "$HERE/init" "$STAGE/init"

for m in "${MODULES[@]}"; do
	base=${m##*/}
	[ -e "$STAGE/dice/$base" ] && die "two modules named $base"
	cp "$m" "$STAGE/dice/$base"
	echo "$base" >>"$STAGE/dice/order"
done

[ -n "$TESTS" ] && cp -a "$TESTS/." "$STAGE/tests/"
[ -n "$EXTRA" ] && cp -a "$EXTRA/." "$STAGE/extra/"
[ -n "$SCRIPT" ] && install -m 0755 "$SCRIPT" "$STAGE/script"

MODE=tests
[ -n "$SCRIPT" ] && MODE=script
[ -n "$SHELL_MODE" ] && MODE=shell
printf 'MODE=%s\nTEST_TIMEOUT=%s\n' "$MODE" "$TEST_TIMEOUT" >"$STAGE/etc/dicevm.conf"

# Copy the shared libraries (and loader) of any dynamically linked
# executable, or shared object (a Python extension module, which has no
# interpreter of its own), under the paths the guest's loader will look in.
copy_libs() {
	local f=$1 lib
	# Here-strings, not "| grep -q": under pipefail, grep quitting at
	# the first match would fail the writer with SIGPIPE.
	grep -q '(NEEDED)' <<<"$(LC_ALL=C readelf -d "$f" 2>/dev/null)" || return 0
	if grep -q 'not found' <<<"$(LC_ALL=C ldd "$f")"; then
		ldd "$f" >&2
		die "${f#"$STAGE"}: shared library not found (set LD_LIBRARY_PATH?)"
	fi
	for lib in $(LC_ALL=C ldd "$f" | grep -o '/[^ ]*'); do
		[ -e "$STAGE$lib" ] && continue
		mkdir -p "$STAGE$(dirname "$lib")"
		cp -L "$lib" "$STAGE$lib"
	done
}
while IFS= read -r -d '' f; do
	# Only ELF files: scripts and data pass through untouched.
	[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
	copy_libs "$f"
done < <(find "$STAGE/tests" "$STAGE/extra" -type f -perm -u+x -print0)

# The kernel opens /dev/console for init before init can mount devtmpfs, so
# the archive needs that node.  mknod needs root; instead append a second
# newc archive, written by hand, holding only dev/console (char 5:1).
# The kernel unpacks concatenated archives in turn.
newc_entry() { # NAME MODE(hex) RDEVMAJOR RDEVMINOR
	local name=$1 namesize=$((${#1} + 1)) pad
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		$((0x7ffff000 + namesize)) "0x$2" 0 0 1 0 0 0 0 "$3" "$4" "$namesize" 0
	printf '%s\0' "$name"
	# Header (110 bytes) plus name is padded to a multiple of 4.
	pad=$(((4 - (110 + namesize) % 4) % 4))
	[ "$pad" -eq 0 ] || head -c "$pad" /dev/zero
}

mkdir -p "$(dirname "$OUT")"
{
	(cd "$STAGE" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0)
	newc_entry dev/console 2180 5 1
	newc_entry 'TRAILER!!!' 0 0 0
} | gzip -n -6 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "$ME: wrote $OUT ($(du -h "$OUT" | cut -f1), mode $MODE, ${#MODULES[@]} module(s))"
