#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The upstream tier: make upstream's series, proved in a kernel tree.
#
#   scripts/upstream-check.sh [--src LINUX_SRC|X.Y|newest]
#
# Regenerates the series (scripts/upstream.sh) against LINUX_SRC (an
# unpacked tree; X.Y: Debian's linux-source-X.Y, fetched and unpacked in
# the cache if missing, as 6.12; default: UPSTREAM_SRC, or else newest, the
# tree of make linux-src-newest) and, in a git-initialised copy of that tree:
#   - git am applies every patch;
#   - after each patch, make W=1 drivers/misc/dice/ builds with
#     CONFIG_RANDOM_DICE=m (and CONFIG_RANDOM_DICE_KUNIT_TEST=m, CONFIG_RANDOM_DICE_TEST_HOOKS=y once they exist), without
#     a warning; make headers (after a patch to a uapi header), and the
#     uapi header compiles alone;
#   - scripts/checkpatch.pl --strict (in-tree mode) on every patch: nothing,
#     but for a patch that adds files to drivers/misc/dice/ the question
#     whether MAINTAINERS needs updating, answered by get_maintainer.pl
#     naming the entry for each file added;
#   - make htmldocs SPHINXDIRS="userspace-api misc-devices" (the uapi page
#     and the proofs): no warning that names dice;
#     no Documentation/ABI file (no sysfs ABI, no module parameter);
#   - after each patch that changes the driver (the fair driver, loaded
#     dice, each further method): tools/testing/kunit/kunit.py run
#     --kunitconfig=drivers/misc/dice;
#   - make -C tools/testing/selftests TARGETS=drivers/dice builds;
#   - scripts/get_maintainer.pl names the MAINTAINERS entry for every patch.
# TAP, one line a check, prefixed "upstream X.Y:", each after a "# Ns"
# line with its seconds.
#
# Cached by version in $DICE_CACHE/upstream-X.Y/ (/var/tmp/dice), as the
# debug kernel is: tree/ (hard links to the unpacked source, and a .git of
# it: the base commit), build/ (O=: defconfig, CONFIG_KUNIT=m,
# modules_prepare done), kunit/ (kunit.py's UML build), docs/ (htmldocs'
# output).  Each run puts the tree back to the base commit first and takes
# every file the series touches out of the hard links; the source tree is
# never written.  Made afresh when the source is unpacked again.
set -uo pipefail

ME=${0##*/}
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
B=${B:-$TOP/build}
DICE_CACHE=${DICE_CACHE:-/var/tmp/dice}
JOBS=${JOBS:-2}
SRC=''
while [ $# -gt 0 ]; do
	case $1 in
	--src) SRC=${2:?}; shift ;;
	--src=*) SRC=${1#*=} ;;
	-h | --help) sed -n '3,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "$ME: unknown argument: $1" >&2; exit 2 ;;
	esac
	shift
done
SRC=${SRC:-${UPSTREAM_SRC:-newest}}
case $SRC in
newest)
	SRC=$(awk '$1 == "source" { print $2 }' "$DICE_CACHE/trixie/current" 2>/dev/null || true)
	;;
[0-9]*.[0-9]*)
	# linux-source-X.Y of this Debian's archive (Debian 12 has 6.12 in
	# bookworm-security): the .deb downloaded, its tarball unpacked in
	# the cache, nothing installed.
	v=$SRC SRC=$DICE_CACHE/linux-source-$SRC
	if [ ! -f "$SRC/Makefile" ]; then
		echo "# $SRC: apt-get download linux-source-$v, unpacked here"
		mkdir -p "$DICE_CACHE/pkg-$v" &&
			(cd "$DICE_CACHE/pkg-$v" && rm -f ./*.deb &&
				apt-get download "linux-source-$v" >/dev/null) &&
			dpkg-deb --fsys-tarfile "$DICE_CACHE/pkg-$v"/linux-source-"$v"_*.deb |
			tar -xO "./usr/src/linux-source-$v.tar.xz" |
			tar -C "$DICE_CACHE" -xJf - && rm -rf "$DICE_CACHE/pkg-$v" ||
			echo "# cannot fetch linux-source-$v"
	fi
	;;
esac

# shellcheck source=testlib/tap.sh
. "$TOP/testlib/tap.sh"
ok() { tap_ok "upstream $VER: $*"; }
not_ok() { tap_not_ok "upstream $VER: $*"; }
# check NAME CMD...: ok or not ok as CMD exits, its output shown with "# ".
check() {
	local name=$1 out rc t0=$SECONDS
	shift
	out=$("$@" 2>&1)
	rc=$?
	[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/# /'
	echo "# $((SECONDS - t0))s"
	if [ $rc -eq 0 ]; then ok "$name"; else not_ok "$name"; fi
	return $rc
}
finish() {
	echo "1..$tap_n"
	echo "# upstream $VER: $(($(date +%s) - start))s"
	tap_init "upstream $VER"
	tap_done
	exit
}
start=$(date +%s)
VER=?
if [ -z "$SRC" ] || [ ! -f "$SRC/Makefile" ]; then
	not_ok "a kernel tree to test in (make linux-src-newest, or --src): none at '${SRC}'"
	finish
fi
SRC=$(cd "$SRC" && pwd -P)
VER=$(sed -n 's/^\(VERSION\|PATCHLEVEL\) = //p' "$SRC/Makefile" | paste -sd.)
C=$DICE_CACHE/upstream-$VER
T=$C/tree O=$C/build K=$C/kunit DOCS=$C/docs
SERIES=$B/upstream/linux-$VER
mkdir -p "$C"
exec 9>"$C.lock"
if ! flock -n 9; then
	echo "# waiting for another run in $C"
	flock -w 3600 9 || { not_ok "the lock $C.lock"; finish; }
fi

# A test identity of the tier's own: make upstream signs the series off
# as whoever runs it (git's identity), never as MAINTAINERS.
UPSTREAM_NAME='Upstream Tier' UPSTREAM_EMAIL=upstream-tier@example.org
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=$UPSTREAM_NAME GIT_AUTHOR_EMAIL=$UPSTREAM_EMAIL
export GIT_COMMITTER_NAME=$UPSTREAM_NAME GIT_COMMITTER_EMAIL=$UPSTREAM_EMAIL
export KBUILD_BUILD_TIMESTAMP='' PYTHONDONTWRITEBYTECODE=1
# Debian's python3 first (its python3-ply and python3-git, which the tree's
# scripts/spdxcheck.py needs), ahead of any other python3 on the PATH.
export PATH=/usr/bin:$PATH
git_t() { git -C "$T" "$@"; }
kmake() { make -s --no-print-directory -C "$T" O="$O" -j"$JOBS" "$@"; }

# The cached tree, its git base and the configured build: made once per
# unpacked source (its path, top Makefile's inode and version).
src_id() {
	printf '%s %s %s\n' "$SRC" "$(stat -c %d:%i "$SRC/Makefile")" \
		"$(sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = //p' "$SRC/Makefile" | paste -sd.)"
}
want=$(src_id)
if [ "$(cat "$C/stamp" 2>/dev/null)" != "$want" ]; then
	echo "# $C: making the tree (hard links to $SRC, git base) and the build"
	rm -rf "$C/stamp" "$T" "$O" "$K" "$DOCS"
	t0=$(date +%s)
	# The base's objects stored uncompressed: 1.8 GB in the cache for the
	# whole tree, and git add takes 32 s rather than 50 (Linux 7.3, quiet).
	cp -al "$SRC" "$T" 2>/dev/null || { rm -rf "$T"; cp -a "$SRC" "$T"; } || {
		not_ok "copy $SRC to $T"; finish; }
	git_t init -q -b master &&
		git_t config core.trustctime false &&
		git_t config gc.auto 0 &&
		git_t -c core.looseCompression=0 add -A -f . &&
		git_t commit -q -m "Linux $VER ($(basename "$SRC"))" &&
		git_t tag base || { not_ok "git init the tree in $T"; finish; }
	t1=$(date +%s)
	mkdir -p "$O"
	kmake defconfig >/dev/null &&
		"$T"/scripts/config --file "$O/.config" -m KUNIT -e HEADERS_INSTALL &&
		kmake olddefconfig >/dev/null &&
		cp "$O/.config" "$C/config.base" &&
		kmake modules_prepare >"$C/prepare.log" 2>&1 || {
			cat "$C/prepare.log"; not_ok "configure and prepare the build in $O"; finish; }
	echo "$want" >"$C/stamp"
	echo "# made in $(($(date +%s) - t0))s (git base $((t1 - t0))s)"
fi

# Back to the base commit, nothing of a former run left.
git_t am --abort >/dev/null 2>&1
git_t reset -q --hard base && git_t clean -qfdx || { not_ok "reset $T to its base"; finish; }
cp "$C/config.base" "$O/.config"
rm -rf "$O/drivers/misc/dice" "$O/kselftest" "$O/usr/include"

# The series, made afresh.
check "make upstream writes the series ($(basename "$SERIES"))" \
	"$TOP/scripts/upstream.sh" --src "$SRC" --out "$SERIES" || finish
PATCHES=$(find "$SERIES" -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort)
[ -n "$PATCHES" ] || { not_ok "the series has patches"; finish; }

# Every patch and the cover letter are from and signed off by the identity
# that ran make upstream; without one it refuses (empty user.name and
# user.email given on git's command-line level, no GIT_AUTHOR_*).
ident_check() {
	local f bad=0
	for f in "$SERIES"/*.patch; do
		grep -qxF "From: $UPSTREAM_NAME <$UPSTREAM_EMAIL>" "$f" &&
			{ [ "${f##*/0000-}" != "$f" ] ||
			  grep -qxF "Signed-off-by: $UPSTREAM_NAME <$UPSTREAM_EMAIL>" "$f"; } ||
			{ echo "${f##*/}: not from and signed off by the runner"; bad=1; }
	done
	if env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL GIT_CONFIG_COUNT=2 \
		GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0= \
		GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1= \
		"$TOP/scripts/upstream.sh" --src "$SRC" --out "$C/no-identity" >/dev/null 2>&1; then
		echo "make upstream ran without a git identity"
		bad=1
	fi
	rm -rf "$C/no-identity"
	return $bad
}
check "the series is the runner's: From and Signed-off-by, refused without an identity" ident_check

# Every file the series touches that the base has: out of the hard links
# (git replaces files rather than writing into them, but the source tree
# must not depend on that).
for f in $(sed -n 's|^--- a/||p' $PATCHES | sort -u); do
	[ -f "$T/$f" ] && [ "$(stat -c %h "$T/$f")" -gt 1 ] &&
		cp "$T/$f" "$T/$f.unlink" && mv "$T/$f.unlink" "$T/$f"
done

# build_step PATCH: what must build after PATCH.  The configuration is
# made again only after a patch that changes a Kconfig file, and the
# headers installed again only after one that changes a uapi header: the
# others leave both as they were (make olddefconfig and make headers cost
# 8 s a patch on a tree that has them).
build_step() {
	local out rc=0
	if grep -qE '^(---|\+\+\+) [ab]/(.*/)?Kconfig' "$1"; then
		if grep -q 'drivers/misc/dice/Kconfig' "$T/drivers/misc/Kconfig" 2>/dev/null; then
			"$T"/scripts/config --file "$O/.config" -m RANDOM_DICE -m RANDOM_DICE_KUNIT_TEST \
				-e RANDOM_DICE_TEST_HOOKS
		fi
		kmake olddefconfig >/dev/null || return 1
	fi
	if [ -f "$T/include/uapi/linux/dice.h" ]; then
		if grep -qE '^(---|\+\+\+) [ab]/(arch/[^/]+/)?include/uapi/' "$1"; then
			kmake headers || return 1
		fi
		# the installed header alone, as usr/include/Makefile's header
		# test compiles each (C90, all warnings)
		out=$(gcc -std=c90 -Wall -Wextra -Werror -fsyntax-only -I"$O/usr/include" \
			-include linux/dice.h -x c /dev/null 2>&1) || rc=1
		[ -z "$out" ] || echo "$out"
	fi
	if [ -d "$T/drivers/misc/dice" ]; then
		out=$(kmake W=1 drivers/misc/dice/ 2>&1) || rc=1
		[ -z "$out" ] || echo "$out"
		grep -q 'CONFIG_RANDOM_DICE=m' "$O/.config" || { echo "CONFIG_RANDOM_DICE=m not set"; rc=1; }
		ls "$O"/drivers/misc/dice/*.o >/dev/null 2>&1 || { echo "no objects built"; rc=1; }
	fi
	[ $rc -eq 0 ] && ! grep -qE '(warning|error):' <<<"$out"
}

# KUnit under UML, its build cached in $K.
kunit() {
	mkdir -p "$K"
	(cd "$T" && python3 tools/testing/kunit/kunit.py run --arch=um \
		--jobs="$JOBS" --build_dir="$K" --kunitconfig=drivers/misc/dice) \
		>"$C/kunit.log" 2>&1 </dev/null
	local rc=$?
	grep -E '^\[[0-9:]+\] (Testing complete|Elapsed time)|^\[[0-9:]+\] ={6,} dice|FAILED|not ok' "$C/kunit.log" |
		head -n 20
	grep -q 'drivers/misc/dice/.*warning:' "$C/kunit.log" && { grep 'warning:' "$C/kunit.log"; rc=1; }
	[ $rc -eq 0 ] || tail -n 30 "$C/kunit.log"
	return $rc
}
am_ok=1
for p in $PATCHES; do
	name=$(basename "$p" .patch)
	if ! check "git am $name" git_t am -q --whitespace=error "$p"; then
		am_ok=''
		git_t am --abort >/dev/null 2>&1
		break
	fi
	check "W=1 build after $name (CONFIG_RANDOM_DICE=m)" build_step "$p"
	# Every patch that changes the driver passes its KUnit suite.
	if grep -q '^+++ b/drivers/misc/dice/' "$p"; then
		check "kunit.py run --kunitconfig=drivers/misc/dice after $name" kunit
	fi
done

# checkpatch, in-tree mode (run from the top of the tree), on every patch:
# nothing excepted but one question.  A patch that adds a file without
# touching MAINTAINERS gets "added, moved or deleted file(s), does
# MAINTAINERS need updating?" (FILE_PATH_CHANGES): loaded dice and
# Viglietta's method add files to drivers/misc/dice/, which the entry's F:
# line covers since the driver's patch.  The answer is checked instead of
# the question being silenced: get_maintainer.pl must name the entry for
# every file such a patch adds, and any other report still fails.
entry=$(sed -n 's/^M:[[:space:]]*//p' "$TOP/MAINTAINERS" | head -n1)
for p in $PATCHES; do
	check "checkpatch --strict $(basename "$p" .patch)" bash -c '
		out=$(cd "$1" && perl scripts/checkpatch.pl --strict \
			--show-types "$2" 2>&1)
		echo "$out" | grep -v "^$"
		echo "$out" | grep -q Traceback && exit 1
		echo "$out" | grep -q "total: 0 errors, 0 warnings, 0 checks" && exit 0
		echo "$out" | grep -q "total: 0 errors, 1 warnings, 0 checks" &&
			[ "$(echo "$out" | grep -c "^WARNING:")" = 1 ] &&
			echo "$out" | grep -q "^WARNING:FILE_PATH_CHANGES:" || exit 1
		! grep -q "^+++ b/MAINTAINERS" "$2" || exit 1
		added=$(awk "/^diff --git/ { f = \$4; sub(/^b\\//, \"\", f) } /^new file mode/ { print f }" "$2")
		[ -n "$added" ] || exit 1
		for f in $added; do
			(cd "$1" && perl scripts/get_maintainer.pl --no-git \
				--no-git-fallback -f "$f" 2>/dev/null) | grep -qF "$3" ||
				{ echo "# $f: not covered by the MAINTAINERS entry"; exit 1; }
		done
		echo "# FILE_PATH_CHANGES answered: $(echo $added | wc -w) new files, each covered by the entry ($3)"' \
		_ "$T" "$p" "$entry"
done

[ -n "$am_ok" ] || finish

# get_maintainer.pl names the entry for each patch.
for p in $PATCHES; do
	check "get_maintainer.pl $(basename "$p" .patch) names $entry" bash -c '
		out=$(cd "$1" && perl scripts/get_maintainer.pl --no-git --no-git-fallback "$2" 2>&1)
		echo "$out"
		grep -qF "$3" <<<"$out"' _ "$T" "$p" "$entry"
done

# htmldocs of userspace-api and misc-devices (the uapi page and the proofs,
# misc-devices/dice.rst): no warning that names dice, and both pages built.  Sphinx keeps its
# environment in $DOCS, so a warm run reads only what changed.
docs() {
	local out warn rc
	mkdir -p "$DOCS"
	out=$(make --no-print-directory -C "$T" O="$DOCS" SPHINXDIRS="userspace-api misc-devices" \
		SPHINXOPTS=-q htmldocs 2>&1)
	rc=$?
	# the tree's own path out, so that only dice's files name dice
	warn=$(grep -iE 'warning|error' <<<"$out" | sed "s|$T/||g; s|$DOCS/||g")
	echo "$warn" | grep -i dice
	echo "htmldocs: $(grep -c . <<<"$warn") warning or error lines in all (the tree's own), $(grep -ci dice <<<"$warn") naming dice"
	[ $rc -eq 0 ] || { echo "$out" | tail -n 20; return 1; }
	local p
	for p in userspace-api/dice misc-devices/dice; do
		[ -f "$DOCS/Documentation/output/$p.html" ] || { echo "no $p.html"; return 1; }
	done
	! grep -qi dice <<<"$warn"
}
if command -v sphinx-build >/dev/null; then
	check "make htmldocs SPHINXDIRS=\"userspace-api misc-devices\": no warning for dice" docs
else
	not_ok "make htmldocs: no sphinx-build (python3-sphinx: make deps)"
fi
# The driver has no sysfs files and no module parameters: no ABI file.
abi_files=$(cd "$T" && ls Documentation/ABI/*/*dice* 2>/dev/null)
check "no Documentation/ABI file: no sysfs ABI, no module parameter" \
	test -z "$abi_files"


# The selftests, in O= (where make headers put the uapi).
check "make -C tools/testing/selftests TARGETS=drivers/dice" bash -c '
	out=$(make --no-print-directory -C "$1/tools/testing/selftests" O="$2" \
		TARGETS=drivers/dice 2>&1)
	rc=$?
	echo "$out" | grep -E "warning|error" | head -n 20
	ls "$2"/kselftest/drivers/dice/
	[ $rc -eq 0 ] && ! grep -qE "(warning|error):" <<<"$out"' _ "$T" "$O"

# Leave the tree at its base: the next run (and du) see nothing of this one.
git_t reset -q --hard base && git_t clean -qfdx
finish
