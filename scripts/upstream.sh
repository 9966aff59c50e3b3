#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make upstream: /dev/dice as a git format-patch series with a cover letter
# against an unpacked linux-source tree (the newest Debian has by default,
# 7.3 today), in build/upstream/linux-X.Y/.
#
#   scripts/upstream.sh [--src LINUX_SRC|X.Y|newest] [--out DIR]
#
# The out-of-tree files are the one source: every file of the series is
# copied from this tree, or generated from it, by this script (paths
# rewritten to the kernel's, the in-tree Makefile from kmod/dice-core.mk's
# list, the one-line hooks in the kernel's own files), committed patch by
# patch in a scratch git repository that holds only the kernel files the
# series changes, and written out with git format-patch.  Nothing of the
# series is edited by hand.  Out-of-tree-only files (kmod/compat.h, kmod/Kbuild
# and its -include, dice-core.mk) are not in it.
#
# The patches, by concern, in an order where each one builds and its KUnit
# suite passes:
#   1. the uapi header, whole (the ABI reviewed in one place), and its
#      ioctl-number.rst line (type 0xD1)
#   2. the driver, drivers/misc/dice/, with fair dice by the recycler: Kconfig,
#      Makefile, the hooks and its KUnit suite (CONFIG_RANDOM_DICE_KUNIT_TEST,
#      .kunitconfig; a patch of its own would add files without touching
#      MAINTAINERS, which checkpatch warns about)
#   3. loaded dice (alias tables)
#   4.-6. DICE_METHOD_VIGLIETTA, DICE_METHOD_BATCH, DICE_METHOD_ALIAS
#   7. the documentation: userspace-api/dice.rst, and misc-devices/dice.rst
#      (why the rolls are exact: the proofs)
#   8. the kselftests, tools/testing/selftests/drivers/dice/
# Patches 2 to 6 are cut from the one source by scripts/series-cut.awk:
# the regions a later patch adds are marked "series: FEATURE" in it.
# The MAINTAINERS entry (this tree's MAINTAINERS) comes with the first patch
# and every later patch adds its files to it, so that checkpatch's "does
# MAINTAINERS need updating?" has nothing to say.  scripts/upstream-check.sh
# proves the series (the upstream tier of make check).
set -euo pipefail

ME=${0##*/}
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
B=${B:-$TOP/build}
DICE_CACHE=${DICE_CACHE:-/var/tmp/dice}

# The selftests that go upstream: the device's own tests, which need
# nothing but the harness and dice_common.h (not the statistical battery,
# the module reload cycles, the i386 build or the userspace core).
UPSTREAM_TESTS=${UPSTREAM_TESTS:-dice_test}

SRC='' OUT=''
while [ $# -gt 0 ]; do
	case $1 in
	--src) SRC=${2:?}; shift ;;
	--src=*) SRC=${1#*=} ;;
	--out) OUT=${2:?}; shift ;;
	--out=*) OUT=${1#*=} ;;
	-h | --help) sed -n '3,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "$ME: unknown argument: $1" >&2; exit 2 ;;
	esac
	shift
done
case $SRC in
newest) SRC='' ;;
[0-9]*.[0-9]*) SRC=$DICE_CACHE/linux-source-$SRC ;;	# as upstream-check.sh unpacks it
esac
if [ -z "$SRC" ]; then
	SRC=$(awk '$1 == "source" { print $2 }' "$DICE_CACHE/trixie/current" 2>/dev/null || true)
	[ -n "$SRC" ] || { echo "$ME: no newest tree: run make linux-src-newest, or pass --src" >&2; exit 1; }
fi
[ -f "$SRC/Makefile" ] && [ -f "$SRC/MAINTAINERS" ] ||
	{ echo "$ME: $SRC is not an unpacked kernel tree" >&2; exit 1; }
VER=$(sed -n 's/^\(VERSION\|PATCHLEVEL\) = //p' "$SRC/Makefile" | paste -sd.)
OUT=${OUT:-$B/upstream/linux-$VER}

# The identity of the series: whoever runs it, as git knows them
# (user.name and user.email of this tree's git config, or the
# environment's GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL), never MAINTAINERS:
# a Signed-off-by is a person's certificate (submitting-patches.rst).
[ -f "$TOP/MAINTAINERS" ] || { echo "$ME: no MAINTAINERS in $TOP" >&2; exit 1; }
NAME=${GIT_AUTHOR_NAME:-$(git -C "$TOP" config user.name 2>/dev/null || true)}
EMAIL=${GIT_AUTHOR_EMAIL:-$(git -C "$TOP" config user.email 2>/dev/null || true)}
if [ -z "$NAME" ] || [ -z "$EMAIL" ]; then
	echo "$ME: no git identity: set git config user.name and user.email (the series is signed off by you)" >&2
	exit 1
fi
# The same series for the same sources: dates from the project's HEAD.
DATE=$(git -C "$TOP" log -1 --format=%cI 2>/dev/null || date -u +%FT%TZ)
export GIT_AUTHOR_NAME=$NAME GIT_AUTHOR_EMAIL=$EMAIL GIT_AUTHOR_DATE=$DATE
export GIT_COMMITTER_NAME=$NAME GIT_COMMITTER_EMAIL=$EMAIL GIT_COMMITTER_DATE=$DATE
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

# The kernel files the series changes, as the tree has them.
BASE_FILES="MAINTAINERS Documentation/userspace-api/index.rst
Documentation/misc-devices/index.rst
Documentation/userspace-api/ioctl/ioctl-number.rst drivers/misc/Kconfig
drivers/misc/Makefile tools/testing/selftests/Makefile"

mkdir -p "$B"
W=$(mktemp -d "$B/.upstream.XXXXXX")
trap 'rm -rf "$W"' EXIT
G=$W/linux
mkdir -p "$G"
for f in $BASE_FILES; do
	[ -f "$SRC/$f" ] || { echo "$ME: $SRC has no $f" >&2; exit 1; }
	install -D -m 0644 "$SRC/$f" "$G/$f"
done
git -C "$G" init -q -b master
git -C "$G" add -A
git -C "$G" commit -q -m "Linux $VER (linux-source, only the files the series changes)"

# rewrite FILE...: this tree's paths as the kernel's, in place (copies).
rewrite() {
	sed -i \
		-e 's|"\.\./\.\./kmod/\(dice_[a-z_]*\.h\)"|"../../../../../drivers/misc/dice/\1"|g' \
		-e 's|kmod/include/uapi/linux/dice\.h|include/uapi/linux/dice.h|g' \
		-e 's|kmod/dice_\*\.c|drivers/misc/dice/dice_*.c|g' \
		-e 's|kmod/\(dice_[a-z_]*\.[ch]\)|drivers/misc/dice/\1|g' \
		-e 's|selftests/dice/|tools/testing/selftests/drivers/dice/|g' \
		"$@"
}

# copy SRC DST: a file of this tree into the kernel tree, paths rewritten.
copy() {
	install -D -m 0644 "$TOP/$1" "$G/$2"
	rewrite "$G/$2"
}

# maintainers: the entry of this tree's MAINTAINERS, its F: lines kept to
# the files and folders the kernel tree has so far, put in its place in the
# alphabetical order of the kernel's MAINTAINERS.  A file whose entry is
# there already has it replaced.
maintainers() {
	local entry title m=$G/MAINTAINERS
	entry=$(awk -v g="$G" '
		/^F:/ { p = $2; sub(/\/$/, "", p); if (system("test -e \"" g "/" p "\"")) next }
		{ print }' "$TOP/MAINTAINERS" | sed '/^$/d')
	title=$(head -n1 <<<"$entry")
	LC_ALL=C awk -v title="$title" -v entry="$entry" '
		{ l[NR] = $0 }
		END {
			n = 0
			for (i = 1; i <= NR; i++) {
				if (l[i] == title) {	# ours, from an earlier patch
					while (i <= NR && l[i] != "") i++
					continue
				}
				m[++n] = l[i]
			}
			for (i = 1; i <= n; i++) if (m[i] ~ /^Maintainers List/) start = i
			# the entries: a title after a blank line, tags below it
			e = 0
			for (i = start + 1; start && i < n; i++)
				if (m[i - 1] == "" && m[i] != "" && m[i + 1] ~ /^[A-Z]:\t/) {
					at[++e] = i
					t[e] = toupper(m[i])
				}
			# before the first entry after ours that is followed by four
			# more and preceded by two before ours (a few entries are out
			# of order)
			T = toupper(title)
			for (j = 3; j + 4 <= e && !pos; j++) {
				ok = t[j - 2] < T && t[j - 1] < T
				for (k = j; k <= j + 4; k++) ok = ok && t[k] > T
				if (ok) pos = at[j]
			}
			for (i = 1; i <= n; i++) {
				if (i == pos) {
					print entry
					print ""
				}
				print m[i]
			}
		}' "$m" >"$m.new"
	mv "$m.new" "$m"
	grep -qxF "$title" "$m" || { echo "$ME: could not place the MAINTAINERS entry" >&2; exit 1; }
}

# commit SUBJECT BODY: commit everything, signed off by the identity.
commit() {
	git -C "$G" add -A
	git -C "$G" commit -q -F - <<EOF
$1

$2

Signed-off-by: $NAME <$EMAIL>
EOF
}

# The ioctl numbers the header defines, as ioctl-number.rst's range.
ioctl_range() {
	sed -n 's/.*_IO[RW]*(DICE_IOC_MAGIC, 0x\([0-9A-Fa-f]*\).*/\1/p' \
		"$TOP/kmod/include/uapi/linux/dice.h" | tr a-f A-F | sort |
		sed -n '1p;$p' | paste -sd-
}

# ---- 1. uapi ----
copy kmod/include/uapi/linux/dice.h include/uapi/linux/dice.h
magic=$(sed -n 's/^#define DICE_IOC_MAGIC[[:space:]]*0x\([0-9A-Fa-f]*\).*/\1/p' \
	"$TOP/kmod/include/uapi/linux/dice.h" | tr a-f A-F)
[ -n "$magic" ] || { echo "$ME: no DICE_IOC_MAGIC in the uapi header" >&2; exit 1; }
line=$(printf '%-6s%-7s%-58s%s' "0x$magic" "$(ioctl_range)" uapi/linux/dice.h '/dev/dice random dice')
awk -v line="$line" -v code="$magic" '
	!done && /^0x[0-9A-F][0-9A-F] / && substr($1, 3) > code { print line; done = 1 }
	{ print }' "$G/Documentation/userspace-api/ioctl/ioctl-number.rst" >"$W/ioc"
mv "$W/ioc" "$G/Documentation/userspace-api/ioctl/ioctl-number.rst"
maintainers
commit "misc: dice: add the /dev/dice uapi header" \
"/dev/dice is a misc character device that rolls dice: fair dice of 1 to
2^64 - 1 sides and loaded dice given as integer weights or an alias
table, exact in every face, from the kernel's CRNG (or from bits written
to the file).  Each open file is one die, configured with ioctls and read
as text lines or little-endian integers.

This adds its uapi header, <linux/dice.h>: nine ioctls of type 0x$magic,
which ioctl-number.rst records, on structs of fixed-width members, sizes
that are multiples of 8, user pointers as __u64 and a flags member that
must be zero; the size travels in the ioctl number and a struct may grow
at its end (copy_struct_from_user() rules).  It is unrelated to the Open
Profile for DICE driver (drivers/misc/open-dice.c).

The MAINTAINERS entry starts here; the patches that follow add their
files to it."

# ---- 2. the driver, one concern a patch ----
# Each patch's files are cut from this tree's (scripts/series-cut.awk): the
# stages below, in order, and the regions of the sources marked for them.
# A core file is in the series from the stage that FILE_STAGE names (else
# from the first).
STAGES="fair loaded viglietta batch alias-method"
declare -A FILE_STAGE=(
	[dice_alias.c]=loaded [dice_alias.h]=loaded
	[dice_methods.c]=viglietta [dice_methods.h]=viglietta
)
D=drivers/misc/dice
mkvar() {
	make -s --no-print-directory -C "$TOP" -f kmod/dice-core.mk \
		--eval "print: ; @echo \$($1)" print
}
ALL_CORE=$(mkvar DICE_CORE)
ALL_HDRS=$(mkvar DICE_CORE_HDR_NAMES | tr ' ' '\n' | grep -v '^include/' | paste -sd' ')
[ -n "${ALL_CORE:-}" ] && [ -n "${ALL_HDRS:-}" ] || { echo "$ME: cannot read kmod/dice-core.mk" >&2; exit 1; }
# in_stage FILE STAGE: FILE is in the driver at STAGE.
in_stage() {
	local want=${FILE_STAGE[$1]:-fair} s
	for s in $STAGES; do
		[ "$s" = "$want" ] && return 0
		[ "$s" = "$2" ] && return 1
	done
	return 1
}
# cut_copy SRC DST STAGE: copy(), then cut to what STAGE has.
cut_copy() {
	copy "$1" "$2"
	awk -v stages="$STAGES" -v stage="$3" -f "$HERE/series-cut.awk" \
		"$G/$2" >"$W/cut" || { echo "$ME: cannot cut $1 to the $3 stage" >&2; exit 1; }
	mv "$W/cut" "$G/$2"
}
# makefile: the in-tree Makefile; the objects of $CORE.
makefile() {
	{
		echo '# SPDX-License-Identifier: GPL-2.0'
		echo
		printf 'obj-$(CONFIG_RANDOM_DICE)\t\t+= dice.o\n'
		printf 'dice-y\t\t\t\t:= dice_main.o'
		local n=1 o
		for o in $CORE; do
			if [ $((n % 4)) -eq 0 ]; then printf ' \\\n\t\t\t\t   '; else printf ' '; fi
			printf '%s.o' "$o"
			n=$((n + 1))
		done
		echo
		echo
		printf 'obj-$(CONFIG_RANDOM_DICE_KUNIT_TEST)\t+= dice_kunit.o\n'
	} >"$G/$D/Makefile"
}
# driver STAGE: the driver's files as they are at STAGE.
driver() {
	local o h
	CORE='' HDRS=''
	for o in $ALL_CORE; do in_stage "$o.c" "$1" && CORE="$CORE $o"; done
	for h in $ALL_HDRS; do in_stage "$h" "$1" && HDRS="$HDRS $h"; done
	cut_copy kmod/dice_main.c $D/dice_main.c "$1"
	for o in $CORE; do cut_copy "kmod/$o.c" "$D/$o.c" "$1"; done
	for h in $HDRS; do cut_copy "kmod/$h" "$D/$h" "$1"; done
	cut_copy kmod/Kconfig $D/Kconfig "$1"
	cut_copy kmod/dice_kunit.c $D/dice_kunit.c "$1"
	cut_copy kmod/dice_test_hooks.h $D/dice_test_hooks.h "$1"
	cp "$TOP/selftests/kunit/.kunitconfig" "$G/$D/.kunitconfig"
	makefile
}

driver fair
awk '{ l[NR] = $0; if ($0 ~ /^endmenu/) e = NR }
END { for (i = 1; i <= NR; i++) { if (i == e) print "source \"drivers/misc/dice/Kconfig\""; print l[i] } }' \
	"$G/drivers/misc/Kconfig" >"$W/k" && mv "$W/k" "$G/drivers/misc/Kconfig"
printf 'obj-$(CONFIG_RANDOM_DICE)\t\t+= dice/\n' >>"$G/drivers/misc/Makefile"
maintainers
commit "misc: dice: add /dev/dice, fair dice by randomness recycling" \
"/dev/dice rolls fair dice of 1 to 2^64 - 1 sides from the kernel's CRNG,
each face exactly uniform, at close to log2 n random bits a roll: the
randomness a roll leaves unused is kept for the next one (randomness
recycling), so a d6 costs 2.585 bits instead of the 32 of
get_random_u32_below().  Each open file is one die, a d6 in text when
opened; DICE_IOC_SET_DIE makes it another fair die in one step,
DICE_IOC_GET_DIE and DICE_IOC_GET_STATS report the die and the bits it
spent.  Loaded dice and the other sampling methods of the uapi follow in
their own patches; until then DICE_IOC_SET_DIE refuses them with EINVAL.

In drivers/misc/dice/: dice_main.c is the misc device (open, read_iter,
splice, poll, the ioctls, debugfs counters); dice_test_hooks.h is the
selftests' hook, written bits as a source (CONFIG_RANDOM_DICE_TEST_HOOKS
only, not uapi); the die core beside it is plain C without any device
code, built into dice.o:

  dice_pool.c     the bit pool the random bits are drawn from
  dice_uniform.c  fair faces by randomness recycling
  dice_die.c      a die: its sides, method and state
  dice_roll.c     rolls, one and many at a time
  dice_format.c   the output encodings
  dice_stream.c   a die and its encoded output, read in chunks

A file holds no CRNG output ahead of need (under 128 unspent bits between
reads), zeroes what a read spent and served, and drops its state on a VM
fork (vmgenid) or a hibernation restore, so clones do not share rolls.

The KUnit suite \"dice\" (CONFIG_RANDOM_DICE_KUNIT_TEST, dice_kunit.c)
runs the die core inside the kernel: faces from known bit streams against
an independent reference, the invariants of the randomness carried
between rolls, and an exhaustive check that every face is exactly
uniform.  It is a module of its own, calling the core through
EXPORT_SYMBOL_IF_KUNIT():

  ./tools/testing/kunit/kunit.py run --kunitconfig=drivers/misc/dice"

driver loaded
maintainers
commit "misc: dice: add loaded dice, as exact integer alias tables" \
"DICE_IOC_SET_DIE now takes a loaded die of up to 2^20 sides, as integer
weights (DICE_KIND_WEIGHTS) or as a prebuilt alias table
(DICE_KIND_ALIAS): side i comes up with exactly its weight's share, with
integer arithmetic only, and the roll goes through the same recycled
state as a fair die's, at close to the die's Shannon entropy.

dice_alias.c builds the table from the weights (Vose's construction in
integers, every column of the same mass) or validates a given one, and
packs it to 16 bytes a side when its masses allow.  A table is copied in
and built outside the file's lock, in 1 MiB steps that stop for a fatal
signal.  Its memory is charged to the caller's memory cgroup
(GFP_KERNEL_ACCOUNT) and bounded by DICE_TABLE_SIDES_MAX sides a table
and an eighth of RAM for the tables one user sets (over it only
CAP_SYS_RESOURCE goes on; per user, as pipes count their buffers), so
that a user with no memory limit cannot drive the machine into the OOM
killer through tables.  debugfs gains table_bytes and table_limit.

KUnit: the alias construction invariants and validation errors, loaded
faces from known bits, and the exhaustive check for loaded dice."

driver viglietta
maintainers
commit "misc: dice: add DICE_METHOD_VIGLIETTA" \
"Viglietta's die (\"Simulating a die roll by flipping two coins\"): a fair
n-sided die from one exact (1/n)-coin and exactly 3 floor(log2 n) + 1
fair flips a roll, as the paper's Theorem 4 gives it.  The coin compares
fresh bits with the binary expansion of 1/n, generated by long division,
so it is exact.  Fair dice only: a loaded die refuses it with EINVAL.

dice_methods.c holds the methods beside the default recycler; KUnit rolls
every method and checks which die each may roll."

driver batch
maintainers
commit "misc: dice: add DICE_METHOD_BATCH" \
"k rolls as one uniform integer on [0, n^k), served as its mixed-radix
digits (nullprogram, \"Rolling many dice as one big uniform number\"), k
chosen so that n^k lies just below a power of two, up to 4096 bits.  Its
state (1 KiB and more) is allocated only while it is the file's method.
Fair dice only."

driver alias-method
maintainers
commit "misc: dice: add DICE_METHOD_ALIAS" \
"Vose's alias method as Games::Dice::Loaded samples it: a fresh uniform
column and an exact biased coin a roll, nothing recycled; for a fair die
a fresh column alone (plain rejection sampling).  It is the reference
sampler that the recycler's savings are measured against."

# ---- 3. documentation ----
copy Documentation/userspace-api/dice.rst Documentation/userspace-api/dice.rst
# The proofs go as misc-devices/dice.rst: the uapi page's links to the
# project's recycling.rst and alias.rst name it instead (once where they
# named both), as a path, which the kernel's automarkup links and which
# builds with SPHINXDIRS=userspace-api alone (a :doc: link out of its
# folder would not); the project's other pages are not in the kernel:
# plain text for their links.
sed -i \
	-e '/(see :doc:`\.\.\/dice\/recycling` and$/{N;s|(see :doc:`\.\./dice/recycling` and\n:doc:`\.\./dice/alias`)|(see\nDocumentation/misc-devices/dice.rst)|}' \
	-e 's|(:doc:`\.\./dice/recycling`, :doc:`\.\./dice/alias`)|(Documentation/misc-devices/dice.rst)|g' \
	-e 's|^\* :doc:`\.\./dice/recycling`:.*|* Documentation/misc-devices/dice.rst: why every roll is exact, fair or\n  loaded, and what it costs.|' \
	-e '/^\* :doc:`\.\.\/dice\/alias`:/d' \
	-e 's#:doc:`\.\./dice/\(recycling\|alias\)`#Documentation/misc-devices/dice.rst#g' \
	-e 's|``Documentation/dice/\([a-z-]*\.rst\)``|the dice project'"'"'s ``\1``|g' \
	-e 's|``kmod/`` in this tree|``drivers/misc/dice/``|g' \
	-e 's|:doc:`\.\./dice/\([a-z-]*\)`|the dice project'"'"'s ``\1.rst``|g' \
	-e 's|`Documentation/dice/\([a-z-]*\)\.rst <\.\./dice/[a-z-]*\.html>`_|the dice project'"'"'s ``\1.rst``|g' \
	-e 's|Documentation/dice/\([a-z-]*\.rst\)|the dice project'"'"'s \1|g' \
	"$G/Documentation/userspace-api/dice.rst"
awk '{ l[NR] = $0 }
/^Everything else/ { s = NR }
END {
	# The last toctree entry of "Everything else": dice after it.
	e = 0
	for (i = s; i <= NR && s; i++) if (l[i] ~ /^   [a-z]/) e = i
	if (!e) exit 1
	for (i = 1; i <= NR; i++) { print l[i]; if (i == e) print "   dice" }
}' "$G/Documentation/userspace-api/index.rst" >"$W/idx" ||
	{ echo "$ME: no \"Everything else\" toctree in userspace-api/index.rst" >&2; exit 1; }
mv "$W/idx" "$G/Documentation/userspace-api/index.rst"
# The proofs: written for the kernel tree already (no project paths).
copy Documentation/misc-devices/dice.rst Documentation/misc-devices/dice.rst
if grep -nE 'kmod/|Documentation/dice/|:doc:`\.\./dice/' \
	"$G/Documentation/misc-devices/dice.rst" >&2; then
	echo "$ME: misc-devices/dice.rst names the project's own files" >&2
	exit 1
fi
LC_ALL=C awk '{ l[NR] = $0 }
END {
	# misc-devices/index.rst: one toctree of the drivers, in alphabetical
	# order; dice before the first entry after it, or after the last.
	for (i = 1; i <= NR; i++) {
		if (l[i] ~ /^\.\. toctree::/) t = 1
		else if (t && l[i] ~ /^   [a-z0-9]/) {
			last = i
			if (!at && l[i] > "   dice") at = i
		} else if (t && last && l[i] !~ /^ *$/ && l[i] !~ /^   :/) t = 0
	}
	if (!last) exit 1
	for (i = 1; i <= NR; i++) {
		if (i == at) print "   dice"
		print l[i]
		if (!at && i == last) print "   dice"
	}
}' "$G/Documentation/misc-devices/index.rst" >"$W/idx" ||
	{ echo "$ME: no toctree in misc-devices/index.rst" >&2; exit 1; }
mv "$W/idx" "$G/Documentation/misc-devices/index.rst"
maintainers
commit "docs: dice: document the /dev/dice uapi and why its rolls are exact" \
"Documentation/userspace-api/dice.rst describes the device: reading
rolls, every ioctl with its direction, argument and errors (the same
errors as <linux/dice.h>), the output formats and sampling methods, the
limits, what a file holds and what timing reveals, what an unprivileged
user can do and observe, and VM forks and hibernation.  The driver has
no sysfs files and no module parameters: nothing for Documentation/ABI.

Documentation/misc-devices/dice.rst proves what the driver promises of
every roll: the invariant of the recycled state and why it makes every
face of a fair die exactly uniform and independent of earlier rolls, at
about log2 n bits a roll; the construction of an alias table from
integer weights and why it is exact; how a loaded die is rolled through
the same state, exactly and at about its Shannon entropy; and the exact
biased coin of the other methods."

# ---- 4. kselftests ----
K=tools/testing/selftests/drivers/dice
copy selftests/dice/dice_common.h $K/dice_common.h
for t in $UPSTREAM_TESTS; do copy "selftests/dice/$t.c" "$K/$t.c"; done
{
	echo '# SPDX-License-Identifier: GPL-2.0'
	echo "TEST_GEN_PROGS := $UPSTREAM_TESTS"
	echo
	echo 'CFLAGS += -O2 -Wall $(KHDR_INCLUDES)'
	# 7.x's lib.mk puts the harness's folder on the include path, 6.12's not
	grep -q 'CFLAGS += -I.*tools/testing/selftests' "$SRC/tools/testing/selftests/lib.mk" ||
		echo 'CFLAGS += -I$(top_srcdir)/tools/testing/selftests'
	echo 'LDLIBS += -lpthread -lm'
	echo
	echo 'include ../../lib.mk'
} >"$G/$K/Makefile"
printf 'CONFIG_RANDOM_DICE=y\nCONFIG_DEBUG_KERNEL=y\nCONFIG_RANDOM_DICE_TEST_HOOKS=y\n' >"$G/$K/config"
printf '/%s\n' $UPSTREAM_TESTS >"$G/$K/.gitignore"
# TARGETS += drivers/dice, in the sorted run of drivers/ targets.
awk '!done && /^TARGETS \+= drivers\// && $3 > "drivers/dice" { print "TARGETS += drivers/dice"; done = 1 }
{ print }' "$G/tools/testing/selftests/Makefile" >"$W/ksft"
mv "$W/ksft" "$G/tools/testing/selftests/Makefile"
grep -qx 'TARGETS += drivers/dice' "$G/tools/testing/selftests/Makefile" ||
	{ echo "$ME: could not add drivers/dice to the selftests' TARGETS" >&2; exit 1; }
maintainers
commit "selftests: drivers: dice: add tests for /dev/dice" \
"The device's kselftests, on kselftest_harness.h: the default die, every
binary format, one case per errno rule of each ioctl, text lines read in
pieces, bit accounting, loaded dice, and more; each skips when /dev/dice
is absent (config: CONFIG_RANDOM_DICE, CONFIG_DEBUG_KERNEL,
CONFIG_RANDOM_DICE_TEST_HOOKS).

  make -C tools/testing/selftests TARGETS=drivers/dice run_tests"

# ---- the cover letter ----
cover() {
	local ioc p s
	cat <<EOF
misc: add /dev/dice, exact random dice at the entropy bound

/dev/dice is a misc character device that rolls dice: fair dice of 1 to
2^64 - 1 sides and loaded dice given as integer weights or as an alias
table.  Each open file is one die, configured with ioctls and read as
text lines or little-endian integers.  It is unrelated to the Open
Profile for DICE driver (drivers/misc/open-dice.c).

Why in the kernel
=================

Every program that needs a die roll today takes a 32- or 64-bit number
and reduces it (get_random_u32_below() in the kernel, arc4random_uniform()
or getrandom() plus a reduction in userspace), spending 32 or 64 random
bits on a d6 that holds 2.585.  The driver keeps the randomness a roll
leaves unused for the next one (randomness recycling), so a d6 costs
2.585 bits of the CRNG a roll, a loaded die close to its Shannon
entropy, and every face is exact: a loaded die shows each face with
exactly its weight's share, with integer arithmetic only.

What a userspace library cannot do as well:

 - one exact sampler for everyone, from the shell too (read(2) of text
   lines), with no library, seeding or fork-safety of its own;
 - rolls made before a VM fork are dropped (vmgenid), so clones of a
   snapshot never share rolls: a userspace pool carried in memory is
   cloned with the VM (vDSO getrandom() handles that for its own state,
   not for a sampler's recycled state above it);
 - the CRNG's bits are drawn in the kernel, one word or a small batch as
   a read needs them, never more than 127 of them kept between reads.

Against vDSO getrandom() with a library, measured in one sitting
(2026-12-04, Debian's 6.12 kernel in a QEMU TCG guest on 2 CPUs, 64 KiB of
d6 rolls a call; TCG times are relative only):

  /dev/dice read(), d6 U8           8.18e7 rolls/s (1)     2.585 bits
  the same core in the process      2.83e7 rolls/s (0.35)
  getrandom() syscall + Lemire      1.62e7 rolls/s (0.20)  32 bits
  vDSO getrandom() + Lemire         1.00e7 rolls/s (0.12)  32 bits

The case for the kernel is the shared, exact, fork- and VM-fork-safe
device at the entropy bound, not raw speed: natively the core in a
process rolls a d6 in about 1.2 ns.

Beyond the mission
==================

Kept, each for a reason a reviewer may still overrule:

 - debugfs counters (rolls, bits used and drawn, tables held, open
   files), root's: what an administrator watches; no sysfs ABI, and no
   module parameter (the limits are fixed: 2^20 sides a table, an eighth
   of RAM for a user's tables, on top of the memcg charge).
 - DICE_IOC_GET_DIE: what a file rolls, for a program handed the file
   (libdice reads it back rather than trust its own copy).
 - DICE_SRC_WRITTEN (bits written with write()) only behind the test-only
   CONFIG_RANDOM_DICE_TEST_HOOKS, which the selftests' config lists: the
   known-answer tests run end to end through it; no production file can
   be switched to chosen bits, and without it the file has no write op.
 - poll()/epoll readiness for written bits (test hook only), exact and
   side-effect free.

The proofs are in the series: Documentation/misc-devices/dice.rst.

The series
==========

 1. the uapi header, whole, so that the ABI is reviewed in one place,
    and its ioctl-number.rst line (type 0x$magic); until patch 6 the
    driver refuses the kinds and methods it does not have yet (EINVAL)
 2. the driver, drivers/misc/dice/, with fair dice by randomness
    recycling (the die core is plain C, in its own files beside
    dice_main.c), and its KUnit suite (kunit.py run
    --kunitconfig=drivers/misc/dice)
 3. loaded dice: exact integer alias tables, their memory bounds
 4. DICE_METHOD_VIGLIETTA: Viglietta's (1/n)-coin die
 5. DICE_METHOD_BATCH: k rolls as one big uniform number
 6. DICE_METHOD_ALIAS: Vose's sampling, a fresh column and a coin a roll
 7. documentation: Documentation/userspace-api/dice.rst, and
    Documentation/misc-devices/dice.rst, why the rolls are exact (the
    proofs of the recycler and of the integer alias tables)
 8. kselftests, tools/testing/selftests/drivers/dice/

Each patch builds (W=1, CONFIG_RANDOM_DICE=m), and after each of 2 to 6
the KUnit suite passes under UML; checkpatch --strict reports nothing on
each; the selftests build in the tree.

The ABI
=======

Ioctls (<linux/dice.h>):
EOF
	sed -n 's/^#define \(DICE_IOC_[A-Z_]*\)[[:space:]]*\(_IO[RW]*(DICE_IOC_MAGIC, [^)]*)\).*/  \1  \2/p' \
		"$TOP/kmod/include/uapi/linux/dice.h" | while read -r a b c; do printf '  %-22s%s %s\n' "$a" "$b" "$c"; done
	echo
	echo 'No sysfs files and no module parameters; root-only counters in'
	echo 'debugfs (/sys/kernel/debug/dice/).'
}
cover >"$W/cover"
git -C "$G" config branch.master.description "$(cat "$W/cover")"

rm -rf "$OUT"
mkdir -p "$OUT"
git -C "$G" format-patch -q --cover-letter --cover-from-description=subject \
	--thread=shallow -o "$OUT" HEAD~8 >/dev/null
n=$(find "$OUT" -name '[0-9]*.patch' | grep -vc /0000-)
echo "$ME: $n patches and a cover letter against Linux $VER in ${OUT#"$TOP"/}"
(cd "$OUT" && ls)
