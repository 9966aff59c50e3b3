#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the KUnit suite "dice" (kmod/dice_kunit.c) in a UML kernel built by
# tools/testing/kunit/kunit.py from an unpacked linux-source tree.
#
# The source tree is never changed.  The suite is placed in a private copy
# of it (hard links, so it is quick and small), where drivers/misc/dice/
# holds symbolic links to this repository's kmod/ sources, its Kconfig and
# a Makefile that includes kmod/Kbuild.  The two files of the copy that must
# name the new directory (drivers/misc/Kconfig and Makefile) are written as
# new files, never edited in place, so the originals they were linked to
# stay untouched.  The copy and the build directory are reused: a second
# run only rebuilds what changed.  Both are made afresh when the source tree
# changes (another version unpacked).
#
# Output: the kernel's KTAP, each line prefixed "# ktap: "; then one TAP
# line per test case (a parameterized case counts once per parameter, as
# kunit.py counts), then "kunit: N passed, N failed[, N skipped]".  Exit 0
# only when the build succeeded, the suite ran and every case passed.
set -uo pipefail

ME=${0##*/}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
KMOD=$REPO/kmod

usage() {
	cat <<EOF
Usage: $ME [options] [LINUX_SRC]
  LINUX_SRC          unpacked linux-source tree (env LINUX_SRC, default
                     \$DICE_CACHE/linux-source-6.1); only read
  --tree DIR         private copy of it with the suite placed in
                     (env DICE_KUNIT_TREE, default \$DICE_CACHE/kunit-tree)
  --build-dir DIR    kunit.py build directory
                     (env DICE_KUNIT_BUILD, default \$DICE_CACHE/kunit-build)
  DICE_CACHE         the cache (env; default /var/tmp/dice)
  --jobs N           make jobs (env JOBS, default 2)
  --timeout SECS     limit for running the tests, not the build (default 300)
  --fresh            make the copy and the build directory afresh
  -v, --verbose      also show everything kunit.py printed
  -h, --help         this text
EOF
}

bad_usage() {
	echo "$ME: $*" >&2
	usage >&2
	exit 2
}

CACHE=${DICE_CACHE:-/var/tmp/dice}
SRC=${LINUX_SRC:-$CACHE/linux-source-6.1}
TREE=${DICE_KUNIT_TREE:-$CACHE/kunit-tree}
BUILD=${DICE_KUNIT_BUILD:-$CACHE/kunit-build}
JOBS=${JOBS:-2} TIMEOUT=300 FRESH='' VERBOSE=''
while [ $# -gt 0 ]; do
	case $1 in
	--tree) TREE=${2:?}; shift ;;
	--tree=*) TREE=${1#*=} ;;
	--build-dir) BUILD=${2:?}; shift ;;
	--build-dir=*) BUILD=${1#*=} ;;
	--jobs) JOBS=${2:?}; shift ;;
	--jobs=*) JOBS=${1#*=} ;;
	--timeout) TIMEOUT=${2:?}; shift ;;
	--timeout=*) TIMEOUT=${1#*=} ;;
	--fresh) FRESH=1 ;;
	-v | --verbose) VERBOSE=1 ;;
	-h | --help) usage; exit 0 ;;
	-*) bad_usage "unknown option: $1" ;;
	*) SRC=$1 ;;
	esac
	shift
done
case $JOBS$TIMEOUT in *[!0-9]*) bad_usage "--jobs and --timeout take numbers" ;; esac

# Before the tests run, a failure is one "not ok" so that it is counted.
die() {
	echo "not ok 1 - kunit: $*"
	echo "kunit: 0 passed, 1 failed"
	exit 1
}

[ -f "$SRC/Makefile" ] && [ -f "$SRC/tools/testing/kunit/kunit.py" ] ||
	die "no linux source tree with kunit.py at $SRC"
SRC=$(cd "$SRC" && pwd -P)
mkdir -p "$(dirname "$TREE")" "$BUILD" || die "cannot create $TREE or $BUILD"
TREE=$(cd "$(dirname "$TREE")" && pwd -P)/$(basename "$TREE")
BUILD=$(cd "$BUILD" && pwd -P)
case $TREE/ in "$SRC"/*) die "--tree must lie outside $SRC" ;; esac
case $BUILD/ in "$SRC"/* | "$TREE"/*) die "--build-dir must lie outside the trees" ;; esac

# One run at a time per copy and per build directory: two makes in one
# build directory break each other.  A second run waits for the first.
exec 8>"$TREE.lock" 9>"$BUILD.lock" || die "cannot create $TREE.lock or $BUILD.lock"
for fd in 8 9; do
	if ! flock -n $fd; then
		echo "# kunit: waiting for another run to finish (lock $([ $fd = 8 ] && echo "$TREE" || echo "$BUILD").lock)"
		flock -w 3600 $fd || die "another run held the lock for an hour"
	fi
done

STAMP=.dice-kunit-copy
# What identifies the source tree: its path and its top Makefile's inode
# (unpacking again makes a new one) and version.
src_id() {
	printf '%s %s %s\n' "$SRC" "$(stat -c %d:%i "$SRC/Makefile")" \
		"$(sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = //p' "$SRC/Makefile" | paste -sd.)"
}

# remove_dir DIR: remove a directory this script made (it holds the stamp).
remove_dir() {
	[ -e "$1" ] || return 0
	if [ ! -f "$1/$STAMP" ] && [ -n "$(ls -A "$1")" ]; then
		die "$1 exists and was not made by $ME; remove it or choose another"
	fi
	rm -rf "$1"
}

start=$(date +%s)
want=$(src_id)
if [ -n "$FRESH" ] || [ "$(cat "$TREE/$STAMP" 2>/dev/null)" != "$want" ]; then
	echo "# kunit: copying $SRC to $TREE (hard links)"
	remove_dir "$TREE"
	remove_dir "$BUILD"
	rm -rf "$TREE.new.$$"
	if ! cp -al "$SRC" "$TREE.new.$$" 2>/dev/null; then
		echo "# kunit: hard links impossible, copying the files"
		rm -rf "$TREE.new.$$"
		cp -a "$SRC" "$TREE.new.$$" || die "cannot copy $SRC"
	fi
	echo "$want" >"$TREE.new.$$/$STAMP"
	mv "$TREE.new.$$" "$TREE" || die "cannot create $TREE"
	mkdir -p "$BUILD" && echo "$want" >"$BUILD/$STAMP"
fi
[ -f "$BUILD/$STAMP" ] || remove_dir "$BUILD"
mkdir -p "$BUILD" && echo "$want" >"$BUILD/$STAMP"

# replace FILE: move FILE.new over FILE unless they are the same.  The old
# FILE may be a hard link into the source tree: it is unlinked, not written.
replace() {
	if cmp -s "$1.new" "$1"; then
		rm -f "$1.new"
	else
		rm -f "$1" && mv "$1.new" "$1"
	fi
}

# link SRC DST: make DST a symbolic link to SRC unless it is one already.
link() {
	[ "$(readlink "$2")" = "$1" ] || ln -sfn "$1" "$2"
}

# Place the suite: drivers/misc/dice/ with links to kmod/.
D=$TREE/drivers/misc/dice
mkdir -p "$D" || die "cannot create $D"
for f in "$D"/*; do	# a source that is gone, or another checkout's
	t=$(readlink "$f") || continue
	[ -e "$f" ] && [ "${t%/*}" = "$KMOD" ] || rm -f "$f"
done
# The module's files as the one source list names them (kmod/dice-core.mk).
for f in $(make -s --no-print-directory -C "$REPO" kmod-files); do
	case $f in
	kmod/*.[ch]) [ "${f#kmod/*/}" = "$f" ] && link "$REPO/$f" "$D/${f#kmod/}" ;;
	esac
done
link "$KMOD/Kconfig" "$D/Kconfig"
cat >"$D/Makefile.new" <<EOF
# SPDX-License-Identifier: GPL-2.0
# Made by $REPO/selftests/kunit/run.sh: the repository's Kbuild,
# with the device built as configured (in a UML KUnit kernel: built in),
# its headers found by absolute path and W=1's warnings on.
include $KMOD/Kbuild
ccflags-y := \$(filter-out -I\$(src)%,\$(ccflags-y)) -I$KMOD/include/uapi
ccflags-y += -Wextra -Wunused -Wno-unused-parameter -Wmissing-declarations
ccflags-y += -Wmissing-format-attribute -Wmissing-prototypes
ccflags-y += -Wold-style-definition -Wmissing-include-dirs
ccflags-y += -Wunused-but-set-variable -Wunused-const-variable
ccflags-y += -Wno-missing-field-initializers -Wno-sign-compare
ccflags-y += -Wno-type-limits -Wno-shift-negative-value
ifeq (\$(CONFIG_RANDOM_DICE),y)
obj-y := \$(filter-out dice.o,\$(obj-y)) dice.o
endif
EOF
replace "$D/Makefile"

awk '{ line[NR] = $0; if ($0 ~ /^endmenu/) last = NR }
END {
	for (i = 1; i <= NR; i++) {
		if (i == last)
			print "source \"drivers/misc/dice/Kconfig\""
		print line[i]
	}
}' "$SRC/drivers/misc/Kconfig" >"$TREE/drivers/misc/Kconfig.new"
replace "$TREE/drivers/misc/Kconfig"
{ cat "$SRC/drivers/misc/Makefile"; echo 'obj-$(CONFIG_RANDOM_DICE)		+= dice/'; } \
	>"$TREE/drivers/misc/Makefile.new"
replace "$TREE/drivers/misc/Makefile"

# Build and run.
LOG=$BUILD/dice-kunit.log
rm -f "$BUILD/test.log"
echo "# kunit: kunit.py run --arch=um in $TREE, build directory $BUILD"
echo "# kunit: $D/ links to $KMOD/"
# TAP_ONLY=PATTERN (Documentation/dice/testing.rst) keeps the suite to the
# cases it matches, through kunit.py's own filter (suite.case globs); none
# matched and the suite does not run, which fails below.
FILTER='dice*'
if [ -n "${TAP_ONLY:-}" ]; then
	FILTER="dice.$TAP_ONLY"
	echo "# kunit: TAP_ONLY=$TAP_ONLY: kunit.py filter $FILTER"
fi
(cd "$TREE" && PYTHONDONTWRITEBYTECODE=1 python3 tools/testing/kunit/kunit.py \
	run --arch=um --jobs="$JOBS" --timeout="$TIMEOUT" \
	--build_dir="$BUILD" --kunitconfig="$HERE/.kunitconfig" "$FILTER") \
	>"$LOG" 2>&1 </dev/null
rc=$?
if [ -n "$VERBOSE" ] || [ ! -s "$BUILD/test.log" ]; then
	sed 's/^/# kunit.py: /' "$LOG"
else
	grep -E '^(\[[0-9:]+\] )?(Elapsed time|Testing complete)' "$LOG" |
		sed 's/^/# kunit.py: /'
fi

# The KTAP, then one line per case, then the counts.
PYTHONDONTWRITEBYTECODE=1 python3 - "$BUILD/test.log" "$rc" "$LOG" <<'EOF'
import re
import sys

log, rc, buildlog = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
	with open(log, errors='replace') as f:
		lines = f.read().splitlines()
except OSError:
	lines = []

# KTAP starts at the first version line; the text before it on that line is
# the console's prefix, if any, and stays off every line after it.  It ends
# with the last top-level result its plan announces.
ktap = []
for i, line in enumerate(lines):
	m = re.search(r'K?TAP version \d+', line)
	if m:
		prefix = line[:m.start()]
		planned = None
		done = 0
		for l in lines[i:]:
			if not l.startswith(prefix):
				continue
			l = l[len(prefix):]
			ktap.append(l)
			m = re.match(r'1\.\.(\d+)', l)
			if m and planned is None:
				planned = int(m.group(1))
			if re.match(r'(ok|not ok) \d+', l):
				done += 1
				if planned is not None and done >= planned:
					break
		break
for l in ktap:
	print('# ktap: ' + l)

RESULT = re.compile(r'^(\s*)(ok|not ok) (\d+)(?: -)? ?([^#]*?)\s*(?:#\s*(.*))?$')
SUBTEST = re.compile(r'^(\s*)# Subtest: (.*)$')
# A result whose predecessor is indented deeper closes a group (a suite, or
# a parameterized case): count only the others, the leaves.
n = passed = failed = skipped = 0
names = {}	# indent of a "# Subtest:" line -> the group it opens
prev = None
for l in ktap:
	m = SUBTEST.match(l)
	if m:
		names[len(m.group(1))] = m.group(2)
		continue
	m = RESULT.match(l)
	if not m:
		continue
	depth = len(m.group(1))
	is_leaf = prev is None or prev <= depth
	prev = depth
	if not is_leaf:
		for d in [d for d in names if d > depth]:
			del names[d]
		continue
	path = [names[d] for d in sorted(names) if d <= depth] + [m.group(4)]
	# suite.case, and a parameter's description after its case
	name = '.'.join(path[:2]) + ''.join(' (%s)' % p for p in path[2:])
	directive = m.group(5) or ''
	n += 1
	if m.group(2) == 'ok' and directive.lower().startswith('skip'):
		skipped += 1
		print('ok %d - kunit: %s # SKIP %s' % (n, name, directive[4:].strip()))
	elif m.group(2) == 'ok':
		passed += 1
		print('ok %d - kunit: %s' % (n, name))
	else:
		failed += 1
		print('not ok %d - kunit: %s' % (n, name))

def fail(what):
	global n, failed
	n += 1
	failed += 1
	print('not ok %d - kunit: %s' % (n, what))

if not any(re.match(r'\s*# Subtest: dice', l) for l in ktap):
	fail('suite dice ran')
elif rc != 0 and failed == 0:
	fail('kunit.py run (exit %d: build, crash or missing results)' % rc)
# Warnings in our own sources fail: the kernel build shows them to nobody.
try:
	with open(buildlog, errors='replace') as f:
		warn = [l for l in f if re.search(r'drivers/misc/dice/.*(warning|error):', l)]
except OSError:
	warn = []
for l in warn[:20]:
	print('# ' + l.rstrip())
if warn:
	fail('drivers/misc/dice builds without warnings or errors')
print('1..%d' % n)
print('kunit: %d passed, %d failed%s' % (passed, failed,
	', %d skipped' % skipped if skipped else ''))
sys.exit(1 if failed or n == 0 else 0)
EOF
res=$?
echo "# kunit: $(($(date +%s) - start))s; kunit.py log $LOG, kernel log $BUILD/test.log"
exit $res
