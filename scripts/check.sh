#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test tier of scripts/tiers.sh (the one list), one after
# the other in its order, but the LANE_NAMES (upstream, deb, debug-kernel,
# vm-debug, the kernel-NAME tiers, checkpatch-newest), which run last, two
# at a time (lanes() below), and make trixie and the debug kernel's build,
# which start first, in the background.  Each tier's output goes to
# build/logs/TIER.log and is echoed when the tier is done;
# TAP "ok"/"not ok" lines are counted (a tier that produces none counts as
# one test, passed if it exited 0).  Ends with "N passed, N failed[, N
# skipped]", before it, where any skipped, the reasons, and where any
# failed, each failed test with its first diagnostic lines ("failed:",
# scripts/check-test.sh); exit 1 on any failure.
#
#   scripts/check.sh [TIER...]     (or make check TIERS="TIER...", or
#                                  make check-TIER for one)
#
# runs only the tiers named (shell patterns: kernel-*); every tier without.
# A pattern that names no tier is an error.  Before a tier, what it needs
# (the list's NEEDS) is built quietly.  TAP_ONLY=PATTERN, in the
# environment, keeps the TAP programs to their matching cases
# (Documentation/dice/testing.rst, "One test at a time").
# The VM tiers all go through the one VM runner, selftests/qemu/vmtest.sh.
set -uo pipefail
: "${TOP:?run from make}" "${B:?}"
VMTEST=$TOP/selftests/qemu/vmtest.sh
WANT=${*:-${TIERS:-}}
TIER_LIST=$("$TOP"/scripts/tiers.sh) || { echo "scripts/tiers.sh failed"; exit 1; }

# selected NAME: is tier NAME to run?
selected() {
	local w
	[ -n "$WANT" ] || return 0
	for w in $WANT; do
		# shellcheck disable=SC2254 # a pattern on purpose
		case $1 in $w) return 0 ;; esac
	done
	return 1
}

LOGS=$B/logs
mkdir -p "$LOGS"
pass=0 fail=0 skip=0
failed_tiers=()

# count FILE: add the TAP results in FILE to the totals.
count() {
	local p f s
	p=$(grep -cE '^(# )?ok [0-9]+' "$1" | head -n1)
	s=$(grep -cE '^(# )?ok [0-9]+.*# (SKIP|skip)' "$1" | head -n1)
	f=$(grep -cE '^(# )?not ok [0-9]+' "$1" | head -n1)
	echo "$((p - s)) $f $s"
}

# needs NAME NEEDS: make what tier NAME needs (the list's NEEDS, "-" for
# nothing), quietly; on failure its output and a failed line go to the
# tier's log, and it returns 1.
needs() {
	local name=$1 needs=$2 log=$LOGS/$1.log
	: >"$log"
	[ "$needs" != - ] || return 0
	make -s --no-print-directory ${needs//,/ } >"$LOGS/$name.needs.log" 2>&1 &&
		return 0
	cat "$LOGS/$name.needs.log" >"$log"
	echo "not ok 1 - $name: make ${needs//,/ } (what the tier needs) failed" >>"$log"
	return 1
}

# book NAME RC SECONDS: echo tier NAME's log and add its results (exit
# status RC) to the totals.
book() {
	local name=$1 rc=$2 secs=$3 log=$LOGS/$1.log p f s
	cat "$log"
	read -r p f s < <(count "$log")
	if [ -n "${TAP_ONLY:-}" ] && [ "$((p + f))" -eq 0 ]; then
		echo "not ok - $name: TAP_ONLY=$TAP_ONLY ran no case here"
		f=1
	elif [ "$((p + f + s))" -eq 0 ]; then
		if [ "$rc" -eq 0 ]; then p=1; else f=1; fi
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# it failed without saying which test: count the tier
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	[ "$f" -eq 0 ] || failed_tiers+=("$name")
	grep -E '^(# )?ok [0-9]+.*# (SKIP|skip)' "$log" | sed "s/^/  $name: /" >>"$NOTES/skips"
	# Each failed test and the first lines of its diagnostics, for the
	# end of the output: a reader of only the tail learns why.
	awk -v t="  $name: " '
		/^(# )?not ok [0-9]+/ { print t $0; n = 8; next }
		n > 0 && /^#/ { print t "  " $0; n--; next }
		{ n = 0 }' "$log" >>"$NOTES/fails"
	echo "=== $name: $p passed, $f failed, $s skipped (${secs}s)"
	echo "$name $p $f $s $secs" >>"$NOTES/times"
}

# run NAME CMD: run tier NAME's command into its log; prints "RC SECONDS".
run() {
	local start rc
	start=$(date +%s)
	eval "$2" >>"$LOGS/$1.log" 2>&1
	rc=$?
	echo "$rc $(($(date +%s) - start))"
}

# tier NAME NEEDS CMD: run one tier and book its results.
tier() {
	local name=$1 needs=$2 cmd=$3 rc=1 secs=0
	echo "=== $name: $cmd"
	! needs "$name" "$needs" || read -r rc secs < <(run "$name" "$cmd")
	book "$name" "$rc" "$secs"
}

# lanes: run the tiers queued in LANE_TIERS ("NAME NEEDS CMD" lines), up
# to LANES (env CHECK_LANES, default 2) at a time, longest first
# (lane_rank), then book each in list order.  Queued, and run after the
# other tiers: the LANE_NAMES.  Each keeps about one core busy most of its
# time (a QEMU guest under TCG, the package builds in a Debian root, the
# series' KUnit runs and checks), none needs another's results, and they
# share nothing they write: each kernel's module and guest files are its
# own, deb and upstream build in their own directories and caches, and
# scripts/in-root.sh gives each build its own overlay of a Debian root;
# vm-debug rebuilds what the vm tier, before the lanes, built (libdice's
# and the CLI's guest tests, the Python binding), and no lane but vm-debug
# writes those.  So two at a time on two cores take about half the time.
# Their NEEDS are made one at a time first: make never runs twice at once
# on the same targets.
LANES=${CHECK_LANES:-2}
LANE_NAMES='upstream deb debug-kernel vm-debug kernel-* checkpatch-newest'
LANE_TIERS=

# lane_rank NAME: print NAME's place in LANE_NAMES; fail if it is none.
# The longest on a new machine come first (upstream about 23 minutes, deb
# 21, vm-debug 9, a kernel 3 to 4, with two lanes), so that the short ones
# fill the end of both lanes; debug-kernel, which waits for the early
# build, just before vm-debug, which boots it.
lane_rank() {
	local i=0 w
	for w in $LANE_NAMES; do
		# shellcheck disable=SC2254 # a pattern on purpose
		case $1 in $w) echo $i; return 0 ;; esac
		i=$((i + 1))
	done
	return 1
}

lanes() {
	local rank name needs cmd rc secs ended
	local -A running=()	# the lanes' PIDs
	[ -n "$LANE_TIERS" ] || return 0
	while read -r rank name needs cmd; do
		[ -n "$name" ] || continue
		echo "=== $name: $cmd (started; ${LANES} at a time)"
		if needs "$name" "$needs"; then
			run "$name" "$cmd" >"$NOTES/lane.$name" </dev/null &
			running[$!]=1
		else
			echo "1 0" >"$NOTES/lane.$name"
		fi
		# Until a lane ends: the early jobs may still run (the debug
		# kernel, which the debug-kernel lane waits for), and their
		# end is no lane's.
		while [ "${#running[@]}" -ge "$LANES" ]; do
			ended=
			wait -n -p ended
			[ -n "$ended" ] || break	# no child left
			unset "running[$ended]"
		done
	done < <(printf '%s' "$LANE_TIERS" | sort -s -n -k1,1)
	wait
	while read -r _ name _; do
		[ -n "$name" ] || continue
		# No figures: the lane was killed before it wrote them.
		read -r rc secs <"$NOTES/lane.$name" && [ -n "$secs" ] ||
			rc=1 secs=0
		book "$name" "$rc" "$secs"
	done <<<"$LANE_TIERS"
	LANE_TIERS=
}

# kbuild NAME ARGS...: make -C the headers of kernel NAME of
# scripts/kernels.sh M=$TOP ARGS, in the cached Debian root its headers and
# compiler are in (scripts/in-root.sh): module-w1 and sparse build the
# module in the tree for the tests' default kernel, never the host's.
kbuild() {
	local kv root
	read -r kv _ _ root < <("$TOP"/scripts/kernels.sh --info "$1") || return 1
	shift
	"$TOP"/scripts/in-root.sh "$root" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "/lib/modules/$kv/build" M="$TOP" "$@"
}

# no_warnings CMD...: run CMD; fail if it fails or prints a warning.
no_warnings() {
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	echo "$out"
	[ $rc -eq 0 ] || return $rc
	! echo "$out" | grep -E '(warning|error):'
}

cd "$TOP" || exit 1
for w in $WANT; do
	# shellcheck disable=SC2254 # a pattern on purpose
	while read -r name _; do case $name in $w) continue 2 ;; esac; done <<<"$TIER_LIST"
	echo "check.sh: no tier matches '$w'; the tiers (scripts/tiers.sh):"
	cut -d' ' -f1 <<<"$TIER_LIST" | paste -sd' '
	exit 2
done
# Cleaned first, so that every file is compiled at W=1 (the tier's own
# NEEDS make the cached kernel first where it is missing).
selected module-w1 && make -s --no-print-directory bookworm >/dev/null 2>&1 &&
	kbuild 6.1 clean >/dev/null 2>&1
# This run's own notes (several runs may share build/logs).
NOTES=$(mktemp -d "$LOGS/.run.XXXXXX") || exit 1
trap 'rm -rf "$NOTES"' EXIT
RUN_START=$(date +%s)
# On a new machine the Debian 13 root, its kernels and the newest source
# (make trixie) take minutes, mostly the network's and dpkg's, which the
# tiers that need them (checkpatch-newest, selftests-build, upstream, deb,
# the trixie kernels) need late.  Started here, they are made while the
# first tiers run; those tiers' own make trixie waits for it (trixie.sh's
# lock) and then finds them made.
while read -r name needs _; do
	if selected "$name" && [[ ,$needs, == *,trixie,* ]]; then
		make -s --no-print-directory trixie \
			>"$LOGS/trixie.early.log" 2>&1 </dev/null &
		break
	fi
done <<<"$TIER_LIST"
# On a new machine the debug kernel takes minutes to build on both cores,
# and only the debug-kernel tier, in the lanes, needs it.  Started here at
# the lowest priority, it takes the core that the single-threaded tiers
# before it leave idle; the tier then finds it built, or waits for it
# (debug-kernel.sh's lock) and reports any failure itself.  With a cached
# kernel it is a no-op.  It stays in this script's process group, so what
# stops make check stops it.
# When the lanes start, the build gets its fair share (unnice below): the
# tiers it gave way to are done, and vm-debug waits for it.
DEBUG_BUILD=
if selected debug-kernel; then
	{ renice -n 19 -p "$BASHPID" >/dev/null
		make -s --no-print-directory linux-src &&
		make -s --no-print-directory debug-kernel; } \
		>"$LOGS/debug-kernel.early.log" 2>&1 </dev/null &
	DEBUG_BUILD=$!
fi

# unnice PID: PID and every process under it back to niceness 0; what they
# start from then on inherits it.  Walked again until none is left at 19:
# a process forked during a walk is caught by the next.
unnice() {
	local pids all tries=0
	while [ $tries -lt 10 ]; do
		pids=$1 all=
		while [ -n "$pids" ]; do
			all="$all $pids"
			pids=$(for p in $pids; do ps -o pid= --ppid "$p"; done)
		done
		# shellcheck disable=SC2086 # a list of PIDs
		[ -n "$(ps -o ni= -p $all 2>/dev/null | grep -v '^ *0$')" ] || return 0
		# shellcheck disable=SC2086
		renice -n 0 -p $all >/dev/null 2>&1
		tries=$((tries + 1))
	done
}

while read -r name needs cmd; do
	selected "$name" || continue
	if rank=$(lane_rank "$name"); then
		LANE_TIERS+="$rank $name $needs $cmd"$'\n'
	else
		tier "$name" "$needs" "$cmd"
	fi
done <<<"$TIER_LIST"
[ -z "$DEBUG_BUILD" ] || unnice "$DEBUG_BUILD"
lanes

echo
# What the closing line counts besides tests: the kernels whose module
# built, kselftests ran and kernel log was clean (the vm tier's default
# kernel, each kernel-NAME tier), and the Debian roots the packages
# installed into.
kernels=()
for log in "$LOGS"/vm.log "$LOGS"/kernel-*.log; do
	[ -f "$log" ] && [ "$(stat -c %Y "$log")" -ge "$RUN_START" ] || continue
	name=$(basename "$log" .log)
	name=${name#kernel-}
	[ "$name" = vm ] && name="default ($("$TOP"/scripts/kernels.sh 6.1))"
	grep -qE '^ok [0-9]+ - [^ ]+: kernel log clean' "$log" &&
		! grep -qE '^not ok' "$log" && kernels+=("$name")
done
roots=()
if [ -f "$LOGS/deb.log" ] && [ "$(stat -c %Y "$LOGS/deb.log")" -ge "$RUN_START" ]; then
	grep -qE '^ok [0-9]+ - deb: apt-get install' "$LOGS/deb.log" && roots+=("Debian 12")
	grep -qE '^ok [0-9]+ - deb trixie: apt-get install' "$LOGS/deb.log" && roots+=("Debian 13")
fi
kernel_tiers=0
while read -r name _; do
	case $name in vm | kernel-*) selected "$name" && kernel_tiers=$((kernel_tiers + 1)) ;; esac
done <<<"$TIER_LIST"
[ "$kernel_tiers" -eq 0 ] ||
	echo "kernels exercised (build, kselftests, log gate): ${#kernels[@]} of $kernel_tiers${kernels[*]:+ (${kernels[*]})}"
! selected deb ||
	echo "packages installed in ${#roots[@]} of 2 Debian roots${roots[*]:+ (${roots[*]})}"
if [ ${#failed_tiers[@]} -gt 0 ]; then
	echo "failed tiers: ${failed_tiers[*]}"
	if [ -s "$NOTES/fails" ]; then
		echo "failed:"
		head -n 120 "$NOTES/fails"
	fi
fi
if [ "$skip" -gt 0 ]; then
	echo "skipped:"
	cat "$NOTES/skips"
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
