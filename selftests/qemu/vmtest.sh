#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The dice VM harness: one runner for every VM tier of make check (vm,
# vmfork, kernel-NAME, vm-debug), make vmtest, make shell and make demo.
#
#   selftests/qemu/vmtest.sh [--kernel KERNEL] [options] [TEST...]
#
# For KERNEL it builds dice.ko where needed, never in kmod/ (a private copy
# of the files "make kmod-files" names), builds the initramfs with the
# tests (mkinitramfs.sh), boots QEMU (run.sh: one command line for every
# kernel, with the lockup detectors that panic the guest, and one
# kernel-log gate) and prints TAP: its own lines (the kernel, the module
# build), run.sh's (each module load, test binary and unload, the verdict,
# the kernel log), each KUnit case where dice.ko carries the suite, each
# case of each test binary ("PREFIX case: BINARY: CASE"), then
# "PREFIX: N passed, N failed".  Exit 0 only when every line passed.
#
# KERNEL (env VM_KERNEL; default 6.1, Debian 12's default kernel from the
# cache, as make's):
#   default  the host's own linux-image-amd64 and headers, where installed
#            (KVER, KIMAGE from make): nothing of make check boots it;
#            dice.ko built for it with the test hook as for the other
#            kernels (kmod/dice.ko has none); TAP prefix "vm"
#   debug    the debug kernel of debug-kernel.sh next to this script
#            (KASAN, UBSAN, lockdep, kmemleak, KUnit; built once, cached),
#            booted with panic_on_warn=1 kmemleak=on, dice.ko built against
#            it with the KUnit suite linked in; prefix "vm-debug"
#   NAME     a kernel of scripts/kernels.sh (6.12, 6.1-rt, 6.12-rt, 6.1,
#            trixie-6.12, trixie-6.12-rt, trixie-bpo, trixie-bpo-rt):
#            dice.ko built by scripts/module-build.sh into
#            build/kernels/KVER (W=1 and sparse clean, in the kernel's
#            cached Debian root); prefix NAME
# Every kernel boots with QEMU_CPU=max (see below).
#
# TEST: a binary of build/selftests (make selftests), or a group:
#   selftests  every binary of build/selftests
#   libdice    libdice's device and io_uring tests
#   cli        the dice CLI against the device
#   python     libdice's Python binding against the device (Debian's
#              python3 and the modules it needs brought into the image)
#   quality    ent and dieharder on the device's streams (selftests/quality)
#   device     the device's own kselftests, as the extra kernels run them:
#              KERNEL_TESTS, default dice_test dice_loaded_test
#              dice_written_test dice_fuzz_test dice_stress_test
#              dice_hostile_test dice_latency_test dice_compat_test
#              dice_compat32_test (one not built is named and left out)
#   all        selftests libdice cli python quality
#   debug      every binary of build/selftests but dice_stats_test, then
#              libdice cli python: all but its statistics (dice_stats_test,
#              quality), which take no path in the module that the others
#              do not, and which the vm tier runs on the same source
#   vmfork     alone: the VM saved while a file holds CRNG bits and started
#              twice (vmfork.py); the clones must roll different dice;
#              prefix "vmfork" ("NAME vmfork" on another kernel)
# Without TEST: all on 6.1 and on the default kernel, debug on the debug
# kernel, device on the others.
#
# Environment: TOP and B (from make; default this tree and its build/);
# KVER and KIMAGE for the default kernel; LINUX_SRC, DICE_CACHE and JOBS
# for debug-kernel.sh; QEMU_MEM (default 1024, 2048 for debug), QEMU_SMP,
# QEMU_CPU, KVM, APPEND_EXTRA, VM_WATCHDOG_THRESH and VM_HUNG_TASK_SECS as
# for run.sh; DEBUG_TEST_TIMEOUT and DEBUG_VM_TIMEOUT for the debug kernel
# (--module loads a module built against it after dice.ko, to prove that
# the checks catch a bad one).
#
# An interrupt or SIGTERM ends the build or the VM under way and removes
# the private copy of the module; nothing is ever installed or loaded on
# this machine.
set -uo pipefail

ME=${0##*/}
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=${TOP:-$(cd "$HERE/../.." && pwd)}
B=${B:-$TOP/build}
export TOP B

usage() {
	cat <<EOF
Usage: $ME [options] [TEST...]
  --kernel KERNEL      a name of scripts/kernels.sh (6.1, the default,
                       6.12, 6.1-rt, 6.12-rt, trixie-6.12, trixie-6.12-rt,
                       trixie-bpo, trixie-bpo-rt), debug, or default (the
                       host's linux-image-amd64); env VM_KERNEL
  --name PREFIX        the prefix of every TAP name (default: see above)
  --module KO          one more module for that kernel, loaded after
                       dice.ko (repeatable)
  --extra DIR          copied into the guest's /extra (on its PATH)
  --script FILE        run FILE in the guest instead of tests (make demo)
  --shell              a shell in the guest on this terminal (make shell;
                       ^A x quits)
  --log FILE           the guest console (default build/vm-console.log,
                       build/vm-KERNEL-console.log on another kernel)
  --timeout SECS       the whole VM (default 1800, 2400 for debug)
  --test-timeout SECS  each test in the guest (default 900)
  -h, --help           this text
TEST: a binary of build/selftests, or selftests, libdice, cli, python,
quality, device, debug, all, vmfork (alone).  Default: all (6.1 and default
kernels), debug (the debug kernel), device (the others).
EOF
}

bad_usage() {
	echo "$ME: $*" >&2
	usage >&2
	exit 2
}

KERNEL=${VM_KERNEL:-6.1}
PREFIX='' SCRIPT='' SHELL_MODE='' LOG='' VM_TIMEOUT='' TEST_TIMEOUT=''
MORE_MODULES=() EXTRAS=() TESTS=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KERNEL=${2:?}; shift ;;
	--kernel=*) KERNEL=${1#*=} ;;
	--name) PREFIX=${2:?}; shift ;;
	--name=*) PREFIX=${1#*=} ;;
	--module) MORE_MODULES+=("${2:?}"); shift ;;
	--module=*) MORE_MODULES+=("${1#*=}") ;;
	--extra) EXTRAS+=("${2:?}"); shift ;;
	--extra=*) EXTRAS+=("${1#*=}") ;;
	--script) SCRIPT=${2:?}; shift ;;
	--script=*) SCRIPT=${1#*=} ;;
	--shell) SHELL_MODE=1 ;;
	--log) LOG=${2:?}; shift ;;
	--log=*) LOG=${1#*=} ;;
	--timeout) VM_TIMEOUT=${2:?}; shift ;;
	--timeout=*) VM_TIMEOUT=${1#*=} ;;
	--test-timeout) TEST_TIMEOUT=${2:?}; shift ;;
	--test-timeout=*) TEST_TIMEOUT=${1#*=} ;;
	-h | --help) usage; exit 0 ;;
	-*) bad_usage "unknown option: $1" ;;
	*) TESTS+=("$1") ;;
	esac
	shift
done
case $KERNEL in
'' | */*) bad_usage "--kernel wants default, debug or a kernel name" ;;
esac
for t in $VM_TIMEOUT $TEST_TIMEOUT; do
	case $t in *[!0-9]*) bad_usage "timeouts are whole seconds" ;; esac
done

MODE=tests
[ -n "$SCRIPT" ] && MODE=script
[ -n "$SHELL_MODE" ] && MODE=shell
[ -n "$SCRIPT" ] && [ -n "$SHELL_MODE" ] &&
	bad_usage "--script and --shell exclude each other"
if [ "${TESTS[*]}" = vmfork ]; then
	[ "$MODE" = tests ] || bad_usage "vmfork runs alone"
	MODE=vmfork
	TESTS=()
fi
for t in "${TESTS[@]}"; do
	[ "$t" = vmfork ] && bad_usage "vmfork runs alone"
	[ "$MODE" = tests ] || bad_usage "tests and --$MODE exclude each other"
done
[ -z "$SCRIPT" ] || [ -f "$SCRIPT" ] || bad_usage "no such file: $SCRIPT"
for d in "${EXTRAS[@]}"; do
	[ -d "$d" ] || bad_usage "no such directory: $d"
done

# The TAP prefix and the console log: vm, vm-debug or the kernel's name;
# vmfork, or "NAME vmfork" on another kernel than the default.
case $KERNEL in
default) CONSOLE=${LOG:-$B/vm-console.log} ;;
*) CONSOLE=${LOG:-$B/vm-$KERNEL-console.log} ;;
esac
if [ -z "$PREFIX" ]; then
	case $MODE:$KERNEL in
	vmfork:default) PREFIX=vmfork ;;
	vmfork:*) PREFIX="$KERNEL vmfork" ;;
	*:default) PREFIX=vm ;;
	*:debug) PREFIX=vm-debug ;;
	*) PREFIX=$KERNEL ;;
	esac
fi
W=$B/vmtest/$KERNEL-$MODE
TAPF=$W/tap
rm -rf "$W"
mkdir -p "$W/tests" "$W/extra" || exit 1
# The shell tests' TAP (testlib/tap.sh), at /extra/tap.sh in the guest.
cp "$TOP/testlib/tap.sh" "$W/extra/tap.sh" || exit 1
: >"$TAPF"

# Long steps run in a process group of their own, which an interrupt or
# SIGTERM ends before this script exits (and its EXIT trap cleans up).
child=
run_child() { # CMD...
	local rc
	set -m
	"$@" &
	child=$!
	set +m
	wait "$child"
	rc=$?
	child=
	return $rc
}
on_signal() {
	[ -n "$child" ] && kill -TERM -- "-$child" 2>/dev/null
	exit "$1"
}
trap 'on_signal 130' INT
trap 'on_signal 143' TERM

# TAP: every line goes to stdout and to $TAPF; n numbers them all.
n=0
tap() { # ok|fail|skip NAME [DETAIL]
	n=$((n + 1))
	case $1 in
	ok) echo "ok $n - $PREFIX: $2" ;;
	skip) echo "ok $n - $PREFIX: $2 # SKIP${3:+ $3}" ;;
	*) echo "not ok $n - $PREFIX: $2${3:+ # $3}" ;;
	esac | tee -a "$TAPF"
}
# renumber FILE: FILE's TAP lines numbered on from n (other lines as they
# are, each tool's own "X: N passed" line left out); sets n.
renumber() {
	awk -v n="$n" '
		/^(not )?ok [0-9]+ / {
			notok = $0 ~ /^not ok/
			sub(/^(not )?ok [0-9]+ (- )?/, "")
			printf "%s %d - %s\n", notok ? "not ok" : "ok", ++n, $0
			next
		}
		/^[^#].*: [0-9]+ passed, [0-9]+ failed/ { next }
		{ print }
		END { print n > "/dev/stderr" }' "$1" 2>"$W/n" | tee -a "$TAPF"
	n=$(cat "$W/n")
}
summary() {
	local p f s
	p=$(grep -cE '^ok [0-9]+' "$TAPF")
	s=$(grep -cE '^ok [0-9]+.*# SKIP' "$TAPF")
	f=$(grep -cE '^not ok [0-9]+' "$TAPF")
	[ "$s" -gt 0 ] && echo "# $PREFIX: $s skipped"
	echo "$PREFIX: $((p - s)) passed, $f failed"
	[ "$f" -eq 0 ]
}
give_up() {
	summary
	exit 1
}

# build_module KVER ROOT: dice.ko with the test hook, in its own build
# tree (W=1 and sparse clean, vermagic: scripts/module-build.sh); sets KO.
# kmod/dice.ko ("make module", what users install) has no test hook.
build_module() {
	local build_rc
	run_child "$TOP"/scripts/module-build.sh "$1" "$B/kernels/$1" "$2" \
		>"$W/module.tap"
	build_rc=$?
	renumber "$W/module.tap"
	if [ $build_rc -ne 0 ]; then
		grep -q '^not ok' "$W/module.tap" ||
			tap fail "build dice.ko" "scripts/module-build.sh failed"
		give_up
	fi
	KO=$B/kernels/$1/kmod/dice.ko
}

# The kernel and dice.ko built for it.
APPEND=${APPEND_EXTRA:-}
KUNIT=
CONFIG=
case $KERNEL in
default)
	KVER=${KVER:-$(make -s --no-print-directory -C "$TOP" kver)}
	IMAGE=${KIMAGE:-/boot/vmlinuz-$KVER}
	CONFIG=/boot/config-$KVER
	tap ok "kernel $KVER"
	build_module "$KVER" /
	;;
debug)
	: "${VM_TIMEOUT:=${DEBUG_VM_TIMEOUT:-2400}}"
	: "${TEST_TIMEOUT:=${DEBUG_TEST_TIMEOUT:-900}}"
	export QEMU_MEM=${QEMU_MEM:-2048}
	APPEND="$APPEND panic_on_warn=1 kmemleak=on"
	# Built once, then reused from the cache.
	if run_child "$HERE"/debug-kernel.sh >"$W/kdir" &&
		KDIR=$(cat "$W/kdir") && [ -n "$KDIR" ]; then
		tap ok "debug kernel $(basename "$KDIR")"
	else
		tap fail "debug kernel" "debug-kernel.sh failed"
		give_up
	fi
	IMAGE=$KDIR/bzImage
	CONFIG=$KDIR/.config
	# The module, built against that kernel in a private copy of the
	# files a module build needs (make kmod-files): building in kmod/
	# would replace kmod/dice.ko, built for the default kernel.  The copy
	# lives in $W, under build/, made afresh by every run.
	MOD=$W/mod
	if ! mkdir -p "$MOD" ||
		! files=$(make -s --no-print-directory -C "$TOP" kmod-files) ||
		[ -z "$files" ] ||
		! printf '%s\n' "$files" | (cd "$TOP" && cpio --quiet -pdm "$MOD"); then
		tap fail "private copy of the module's sources" "make kmod-files failed"
		give_up
	fi
	# With CONFIG_RANDOM_DICE_KUNIT_TEST=m (kmod/Kconfig), kmod/Kbuild builds
	# the KUnit suite "dice" as dice_kunit.ko, loaded after dice.ko: it
	# runs as it loads, and the guest unloads it then.  If the suite does
	# not build, dice.ko is built without it so the binaries still run,
	# and the suite counts as failed.
	mod_make() { # LOG [VAR=VALUE...]
		local log=$1
		shift
		run_child make -C "$KDIR" M="$MOD" "$@" modules >"$log" 2>&1 &&
			[ -f "$MOD/kmod/dice.ko" ]
	}
	if mod_make "$W/module.log" CONFIG_RANDOM_DICE_KUNIT_TEST=m \
		CONFIG_RANDOM_DICE_TEST_HOOKS=y &&
		[ -f "$MOD/kmod/dice_kunit.ko" ]; then
		tap ok "build dice.ko and its KUnit suite, dice_kunit.ko"
		KUNIT=1
	else
		tap fail "build dice.ko with the KUnit suite" "see $W/module.log"
		sed 's/^/# /' "$W/module.log" | tail -n 30
		rm -f "$MOD"/kmod/*.o "$MOD"/kmod/*.ko
		if mod_make "$W/module-nokunit.log" \
			CONFIG_RANDOM_DICE_TEST_HOOKS=y; then
			tap ok "build dice.ko without the KUnit suite"
		else
			tap fail "build dice.ko" "see $W/module-nokunit.log"
			sed 's/^/# /' "$W/module-nokunit.log" | tail -n 30
			give_up
		fi
	fi
	KO=$MOD/kmod/dice.ko
	;;
*)
	# KVER, its image and config, and the cached root its headers are
	# in (every image taken out of its .deb: scripts/bookworm.sh,
	# scripts/trixie.sh).
	if ! info=$("$TOP"/scripts/kernels.sh --info "$KERNEL"); then
		tap fail "kernel $KERNEL there (make bookworm, make trixie)"
		give_up
	fi
	read -r KVER IMAGE CONFIG KROOT <<<"$info"
	tap ok "kernel $KVER"
	build_module "$KVER" "$KROOT"
	;;
esac
# How long the time-boxed kselftests run, where set (the guest's defaults
# otherwise: the fuzz storm 20 s, dice_hostile_test's floods 4 s,
# dice_stress_test's threads 5 s); make check's kernel-NAME tiers set
# them shorter (scripts/tiers.sh).  Numbers only: they go on the kernel
# command line.
for v in DICE_FUZZ_SECONDS DICE_HOSTILE_SECONDS DICE_STRESS_SECONDS; do
	[ -n "${!v:-}" ] || continue
	case ${!v} in *[!0-9]*) bad_usage "$v=${!v}: not a number of seconds" ;; esac
	APPEND="$APPEND $v=${!v}"
done
# TAP_ONLY (a case filter: testlib/tap.sh, testlib/tap.h, and the guest's
# init for the kselftests, through their harness's -r) reaches the guest
# through the kernel command line, which hands it to init's environment:
# no spaces in it.
if [ -n "${TAP_ONLY:-}" ]; then
	case $TAP_ONLY in *[[:space:]]*) bad_usage "TAP_ONLY cannot hold a space in a VM" ;; esac
	APPEND="$APPEND TAP_ONLY=$TAP_ONLY"
	echo "# $PREFIX: TAP_ONLY=$TAP_ONLY"
fi
# -cpu max on every kernel: the guest's CRNG is seeded from RDRAND at
# boot.  6.12 and 7.x flip a static key when the CRNG becomes ready, and
# under TCG a task running at that moment can hit the int3 of the
# half-patched branch (oopses in rng_is_initialized(), and on 7.3 in
# sched_clock_cpu() with no module loaded; Documentation/dice/kernels.rst);
# seeded at boot, the key flips before any test runs.
export QEMU_CPU=${QEMU_CPU:-max}
: "${VM_TIMEOUT:=1800}" "${TEST_TIMEOUT:=900}"
MODULES=(--module "$KO")
[ -n "$KUNIT" ] && MODULES+=(--module "${KO%/*}/dice_kunit.ko")
for ko in "${MORE_MODULES[@]}"; do
	MODULES+=(--module "$ko")
done

# The tests, in $W/tests (the guest's /tests) and $W/extra (its /extra).
tests=$W/tests
fail_tests() { # DETAIL
	tap fail "test binaries" "$1"
	give_up
}
add_test() { # NAME [lenient]
	if [ -f "$B/selftests/$1" ] && [ -x "$B/selftests/$1" ]; then
		cp "$B/selftests/$1" "$tests/"
	elif [ -n "${2:-}" ]; then
		echo "# $PREFIX: no $B/selftests/$1, not run"
	else
		fail_tests "no $B/selftests/$1 (make selftests)"
	fi
}
add_group() { # NAME
	local t
	case $1 in
	all)
		for t in selftests libdice cli python quality; do
			add_group $t
		done
		;;
	selftests)
		cp "$B"/selftests/* "$tests"/ 2>/dev/null ||
			fail_tests "no $B/selftests (make selftests)"
		;;
	libdice)
		make -s -C "$TOP/libdice" selftests O="$B/libdice" VMTESTS="$tests" ||
			fail_tests "libdice selftests did not build"
		;;
	python)
		# Debian's python3, the standard library modules the test
		# imports and the binding (make python) in /extra/python, the
		# test in /tests/python_test (guest_image.py says what and why).
		make -s -C "$TOP" python >"$W/python-build.log" 2>&1 &&
			/usr/bin/python3 "$TOP/bindings/python/tests/guest_image.py" \
				--pylib "$B/python/lib" --extra "$W/extra" \
				--tests "$tests" ||
			fail_tests "the Python binding's guest test: $(tail -n 3 "$W/python-build.log")"
		;;
	cli)
		if [ -f "$TOP/tools/Makefile" ]; then
			make -s -C "$TOP/tools" vmtest O="$B/tools" VMTESTS="$tests" ||
				fail_tests "the CLI did not build"
		fi
		;;
	quality)
		cp "$TOP/selftests/quality/quality.sh" "$tests"/
		"$TOP"/selftests/quality/prepare.sh "$W/extra" ||
			fail_tests "selftests/quality/prepare.sh failed"
		;;
	debug)
		for t in selftests libdice cli python; do
			add_group $t
		done
		rm -f "$tests/dice_stats_test"
		;;
	device)
		for t in ${KERNEL_TESTS:-dice_test dice_loaded_test
			dice_written_test dice_fuzz_test dice_stress_test
			dice_hostile_test dice_latency_test dice_compat_test
			dice_compat32_test}; do
			add_test "$t" lenient
		done
		;;
	*) add_test "$1" ;;
	esac
}
if [ "$MODE" = tests ]; then
	if [ ${#TESTS[@]} -eq 0 ]; then
		case $KERNEL in
		6.1 | default) TESTS=(all) ;;
		debug) TESTS=(debug) ;;
		*) TESTS=(device) ;;
		esac
	fi
	for t in "${TESTS[@]}"; do
		add_group "$t"
	done
	# The kselftests among them, for init's TAP_ONLY (their harness's -r).
	for t in "$tests"/*; do
		if [ -f "$B/selftests/${t##*/}" ]; then
			echo "${t##*/}"
		fi
	done >"$tests/.kselftests"
	# The i386 test needs IA32 emulation, which a kernel may lack (a
	# debug kernel built before it entered debug.config): skipped there,
	# named.
	if [ -e "$tests/dice_compat32_test" ] && [ -f "$CONFIG" ] &&
		! grep -qx 'CONFIG_IA32_EMULATION=y' "$CONFIG"; then
		rm -f "$tests/dice_compat32_test"
		tap skip dice_compat32_test "kernel without CONFIG_IA32_EMULATION"
	fi
fi
for d in "${EXTRAS[@]}"; do
	cp -a "$d/." "$W/extra/" || exit 1
done

# The initramfs, and the VM.
case $MODE in
tests)
	INITRD_ARGS=(--tests "$tests" --test-timeout "$TEST_TIMEOUT")
	;;
script)
	INITRD_ARGS=(--script "$SCRIPT" --test-timeout "$TEST_TIMEOUT")
	;;
shell)
	INITRD_ARGS=(--shell)
	;;
vmfork)
	cc -static -O2 -Wall -Wextra -Werror -I"$TOP/kmod/include/uapi" \
		-o "$W/extra/vmfork_guest" "$HERE/vmfork_guest.c" ||
		{ tap fail "build vmfork_guest"; give_up; }
	printf '#!/bin/sh\nexec /extra/vmfork_guest\n' >"$W/script"
	INITRD_ARGS=(--script "$W/script" --test-timeout 120)
	;;
esac
if ! "$HERE"/mkinitramfs.sh --out "$W/initrd.gz" "${MODULES[@]}" \
	--extra "$W/extra" "${INITRD_ARGS[@]}" >"$W/initramfs.log" 2>&1; then
	cat "$W/initramfs.log"
	tap fail "initramfs"
	give_up
fi
cat "$W/initramfs.log" >&2

case $MODE in
shell)
	# On this terminal, in the foreground: no TAP.
	APPEND_EXTRA=$APPEND "$HERE"/run.sh --kernel "$IMAGE" \
		--initrd "$W/initrd.gz" --shell
	exit
	;;
vmfork)
	run_child python3 "$HERE/vmfork.py" --kernel "$IMAGE" \
		--initrd "$W/initrd.gz" --name "$PREFIX" >"$W/run.out" 2>&1
	vm_rc=$?
	renumber "$W/run.out"
	summary && [ $vm_rc -eq 0 ]
	exit
	;;
esac

APPEND_EXTRA=$APPEND run_child "$HERE"/run.sh --kernel "$IMAGE" \
	--initrd "$W/initrd.gz" --log "$CONSOLE" --timeout "$VM_TIMEOUT" \
	--name "$PREFIX" >"$W/run.out" 2>&1
vm_rc=$?
renumber "$W/run.out"
if [ "$MODE" = script ] || [ ! -f "$CONSOLE" ]; then
	summary && [ $vm_rc -eq 0 ]
	exit
fi

# The KUnit suite's KTAP went to the console as the module loaded: one TAP
# line per case (depth 1 of the suite), a parameterized case naming its
# failed parameters, and the suite must have ended "ok".  Should the suite
# run again (a reload of dice_kunit.ko), those runs count as one line,
# passed if each of them ended "ok".
if [ -n "$KUNIT" ]; then
	awk -v n="$n" -v p="$PREFIX kunit" '
		{ sub(/^\[ *[0-9]+\.[0-9]+\] /, "") }
		/^    # Subtest: dice$/ { insuite = 1; runs++; next }
		!insuite { next }
		runs == 1 && /^        not ok [0-9]+ / {
			c = $0; sub(/^        not ok [0-9]+ (- )?/, "", c)
			params = params (params == "" ? "" : ", ") c
			next
		}
		runs == 1 && /^    (not )?ok [0-9]+ / {
			c = $0; notok = c ~ /^    not ok/
			sub(/^    (not )?ok [0-9]+ (- )?/, "", c)
			printf "%s %d - %s: %s%s\n", notok ? "not ok" : "ok", ++n, p,
				c, notok && params != "" ? " # failed: " params : ""
			cases++; params = ""
			next
		}
		/^(not )?ok [0-9]+ (- )?dice$/ {
			insuite = 0
			if (runs == 1) first = $0 ~ /^ok/ ? "ok" : "not ok"
			else if ($0 !~ /^ok/) later_bad++
			ended = runs
		}
		END {
			why = ""
			if (first == "") { first = "not ok"; why = " # no end of suite dice in the console log" }
			else if (cases == 0) { first = "not ok"; why = " # no cases" }
			printf "%s %d - %s: suite dice%s\n", first, ++n, p, why
			if (runs > 1) {
				more = runs - 1
				why = later_bad ? " # " later_bad " failed" : ""
				if (ended < runs) why = " # the last run did not end"
				printf "%s %d - %s: suite dice again on %d reloads%s\n",
					why == "" ? "ok" : "not ok", ++n, p, more, why
			}
			print n > "/dev/stderr"
		}' "$CONSOLE" 2>"$W/n" | tee -a "$TAPF"
	n=$(cat "$W/n")
fi

# Each binary's own cases, as TAP lines of their own, so the count says how
# many cases ran in the guest, not just how many binaries; and the latency
# test's figures.
awk -v n="$n" -v p="$PREFIX case" '
	/^# selftest: / { bin = $3; next }
	/^# (not )?ok [0-9]+ / {
		line = substr($0, 3)
		notok = line ~ /^not ok/
		sub(/^(not )?ok [0-9]+ (- )?/, "", line)
		printf "%s %d - %s: %s: %s\n", notok ? "not ok" : "ok", ++n, p, bin, line
		next
	}
	/^# # latency: / { print substr($0, 3) }
	END { print n > "/dev/stderr" }' "$CONSOLE" 2>"$W/n" | tee -a "$TAPF"
cases=$(($(cat "$W/n") - n))
n=$(cat "$W/n")
# A misspelt filter must not pass: the run's own lines (kernel, build,
# module load) would otherwise carry it.
if [ -n "${TAP_ONLY:-}" ] && [ "$cases" -eq 0 ]; then
	tap fail "TAP_ONLY=$TAP_ONLY ran no case in the guest"
fi
summary && [ $vm_rc -eq 0 ]
