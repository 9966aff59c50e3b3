#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM tier again, in the debug kernel of scripts/debug-kernel.sh (KASAN,
# UBSAN, lockdep, atomic-sleep checks, kmemleak, KUnit), booted with
# panic_on_warn=1: every test binary of vmtest.sh, with dice.ko and its
# KUnit suite built against that kernel, then a kmemleak scan.
# A warning panics the guest (no verdict: fails), and any KASAN, UBSAN,
# lockdep or kmemleak report in the guest's log fails "kernel log clean".
#
# TAP on stdout, "vm-debug" in every name: run.sh's lines (module loads,
# binaries, unloads, verdict, log), one line per KUnit case and one per
# case of each test binary, then "vm-debug: N passed, N failed".
#
# Environment: TOP and B (from make); LINUX_SRC, DICE_CACHE, JOBS (for
# debug-kernel.sh); DEBUG_TEST_TIMEOUT per test binary in the guest
# (seconds, default 900); DEBUG_VM_TIMEOUT for the whole VM (default
# 2400); QEMU_MEM (default here 2048), QEMU_SMP, KVM as for run.sh;
# DEBUG_EXTRA_MODULES, .ko files (built against the debug kernel) loaded
# after dice's, to prove that the checks catch a bad module.
set -uo pipefail
: "${TOP:?run from make}" "${B:?}"

TEST_TIMEOUT=${DEBUG_TEST_TIMEOUT:-900}
VM_TIMEOUT=${DEBUG_VM_TIMEOUT:-2400}
export QEMU_MEM=${QEMU_MEM:-2048}
CONSOLE=$B/vm-debug-console.log
TAPF=$B/vm-debug.tap
: >"$TAPF"

# Before the VM's own lines, a failure is a "not ok" of its own.
n_pre=0 pre_failed=0
pre() { # ok|fail NAME [DETAIL]
	n_pre=$((n_pre + 1))
	if [ "$1" = ok ]; then
		echo "ok $n_pre - vm-debug: $2"
	else
		echo "not ok $n_pre - vm-debug: $2${3:+ # $3}"
	fi | tee -a "$TAPF"
	[ "$1" = ok ] || pre_failed=$((pre_failed + 1))
}
# summary: the closing count of every TAP line printed.
summary() {
	local p f s
	p=$(grep -cE '^ok [0-9]+' "$TAPF")
	s=$(grep -cE '^ok [0-9]+.*# SKIP' "$TAPF")
	f=$(grep -cE '^not ok [0-9]+' "$TAPF")
	[ "$s" -gt 0 ] && echo "# vm-debug: $s skipped"
	echo "vm-debug: $((p - s)) passed, $f failed"
}
give_up() {
	summary
	exit 1
}

# The kernel: built once, then reused from the cache.
if KDIR=$("$TOP"/scripts/debug-kernel.sh); then
	pre ok "debug kernel $(basename "$KDIR")"
else
	pre fail "debug kernel" "scripts/debug-kernel.sh failed"
	give_up
fi

# The module, built against that kernel in a private copy of the sources:
# building in the repository would replace kmod/dice.ko, built for the
# Debian kernel.  The copy holds sources only, no objects of that build.
mkdir -p "${DICE_CACHE:-/var/tmp/dice}/debug-module"
MOD=$(mktemp -d "${DICE_CACHE:-/var/tmp/dice}/debug-module/build.XXXXXX")
trap 'rm -rf "$MOD"' EXIT
cp "$TOP/Kbuild" "$MOD/"
(cd "$TOP" && find kmod -path kmod/tests -prune -o -type f \
	\( -name Kbuild -o -name Kconfig -o -name '*.[ch]' \) ! -name '*.mod.c' -print |
	cpio --quiet -pdm "$MOD")
# With CONFIG_DICE_KUNIT_TEST=m, kmod/Kbuild links the KUnit suite "dice"
# into dice.ko (or, in a layout with a module of its own, builds
# dice_kunit.ko, loaded after dice.ko): it runs as the module loads.  If the
# suite does not build, dice.ko is built without it so the binaries still
# run, and the suite counts as failed.
MODULES=()
KUNIT=
mod_make() { # LOG [VAR=VALUE...]
	local log=$1
	shift
	make -C "$KDIR" M="$MOD" "$@" modules >"$log" 2>&1 &&
		[ -f "$MOD/kmod/dice.ko" ]
}
if mod_make "$B/vm-debug-module.log" CONFIG_DICE_KUNIT_TEST=m; then
	pre ok "build dice.ko with the KUnit suite"
	KUNIT=1
else
	pre fail "build dice.ko with the KUnit suite" "see $B/vm-debug-module.log"
	sed 's/^/# /' "$B/vm-debug-module.log" | tail -n 30
	rm -f "$MOD"/kmod/*.o "$MOD"/kmod/*.ko
	if mod_make "$B/vm-debug-module-nokunit.log"; then
		pre ok "build dice.ko without the KUnit suite"
	else
		pre fail "build dice.ko" "see $B/vm-debug-module-nokunit.log"
		sed 's/^/# /' "$B/vm-debug-module-nokunit.log" | tail -n 30
		give_up
	fi
fi
MODULES+=(--module "$MOD/kmod/dice.ko")
[ -n "$KUNIT" ] && [ -f "$MOD/kmod/dice_kunit.ko" ] &&
	MODULES+=(--module "$MOD/kmod/dice_kunit.ko")
for ko in ${DEBUG_EXTRA_MODULES:-}; do
	MODULES+=(--module "$ko")
done

# The test binaries of vmtest.sh.
tests=$B/vmtests-debug
rm -rf "$tests"
mkdir -p "$tests"
cp "$B"/selftests/* "$tests"/ 2>/dev/null ||
	{ pre fail "test binaries" "no $B/selftests (make selftests)"; give_up; }
make -s -C "$TOP/libdice" selftests O="$B/libdice" VMTESTS="$tests" ||
	{ pre fail "test binaries" "libdice selftests did not build"; give_up; }
if [ -f "$TOP/tools/Makefile" ]; then
	make -s -C "$TOP/tools" vmtest O="$B/tools" VMTESTS="$tests" ||
		{ pre fail "test binaries" "the CLI did not build"; give_up; }
fi
# The i386 test needs IA32 emulation, which a debug kernel built before it
# entered debug.config lacks: skipped there, named.
if [ -e "$tests/dice_compat32_test" ] &&
	! grep -qx 'CONFIG_IA32_EMULATION=y' "$KDIR/.config"; then
	rm -f "$tests/dice_compat32_test"
	n_pre=$((n_pre + 1))
	echo "ok $n_pre - vm-debug: dice_compat32_test # SKIP kernel without CONFIG_IA32_EMULATION" |
		tee -a "$TAPF"
fi
# Statistical quality (ent and dieharder on the device's streams).
cp "$TOP/selftests/quality/quality.sh" "$tests"/
rm -rf "$B/vmextra-debug"
"$TOP"/selftests/quality/prepare.sh "$B/vmextra-debug" ||
	{ pre fail "test binaries" "selftests/quality/prepare.sh failed"; give_up; }
"$TOP"/selftests/qemu/mkinitramfs.sh --out "$B/initrd-debug.gz" \
	"${MODULES[@]}" --tests "$tests" --extra "$B/vmextra-debug" \
	--test-timeout "$TEST_TIMEOUT" >&2 ||
	{ pre fail "initramfs"; give_up; }

# run.sh numbers its lines from 1; renumber them after ours.
rc=0
APPEND_EXTRA="${APPEND_EXTRA:-} panic_on_warn=1 kmemleak=on" \
	"$TOP"/selftests/qemu/run.sh --kernel "$KDIR/bzImage" \
	--initrd "$B/initrd-debug.gz" --log "$CONSOLE" --timeout "$VM_TIMEOUT" \
	>"$B/vm-debug-run.out" || rc=$?
awk -v n="$n_pre" '
	/^(not )?ok [0-9]+ - vm: / {
		sub(/ [0-9]+ - vm: /, " " ++n " - vm-debug: ")
		print; next
	}
	/^vm: [0-9]+ passed/ { next }
	{ sub(/^# vm: /, "# vm-debug: "); print }
	END { print n > "/dev/stderr" }' "$B/vm-debug-run.out" 2>"$B/vm-debug-n" |
	tee -a "$TAPF"
n=$(cat "$B/vm-debug-n")
[ $pre_failed -eq 0 ] || rc=1

# The KUnit suite's KTAP went to the console as the module loaded: one TAP
# line per case (depth 1 of the suite), a parameterized case naming its
# failed parameters, and the suite must have ended "ok".  Tests that reload
# the module (dice_stress_test) run the suite again: those runs count as
# one line, passed if each of them ended "ok".
if [ -n "$KUNIT" ] && [ -f "$CONSOLE" ]; then
	awk -v n="$n" '
		{ sub(/^\[ *[0-9]+\.[0-9]+\] /, "") }
		/^    # Subtest: dice$/ { insuite = 1; runs++; next }
		!insuite { next }
		runs == 1 && /^        not ok [0-9]+ / {
			p = $0; sub(/^        not ok [0-9]+ (- )?/, "", p)
			params = params (params == "" ? "" : ", ") p
			next
		}
		runs == 1 && /^    (not )?ok [0-9]+ / {
			c = $0; notok = c ~ /^    not ok/
			sub(/^    (not )?ok [0-9]+ (- )?/, "", c)
			printf "%s %d - vm-debug kunit: %s%s\n", notok ? "not ok" : "ok",
				++n, c, notok && params != "" ? " # failed: " params : ""
			if (notok) bad = 1
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
			printf "%s %d - vm-debug kunit: suite dice%s\n", first, ++n, why
			if (first != "ok") bad = 1
			if (runs > 1) {
				more = runs - 1
				why = later_bad ? " # " later_bad " failed" : ""
				if (ended < runs) why = " # the last run did not end"
				printf "%s %d - vm-debug kunit: suite dice again on %d reloads%s\n",
					why == "" ? "ok" : "not ok", ++n, more, why
				if (why != "") bad = 1
			}
			print n > "/dev/stderr"
			exit bad
		}' "$CONSOLE" 2>"$B/vm-debug-n" | tee -a "$TAPF"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	n=$(cat "$B/vm-debug-n")
fi

# Each binary's own cases, as in vmtest.sh.
if [ -f "$CONSOLE" ]; then
	awk -v n="$n" '
		/^# selftest: / { bin = $3; next }
		/^# (not )?ok [0-9]+ / {
			line = substr($0, 3)
			notok = line ~ /^not ok/
			sub(/^(not )?ok [0-9]+ (- )?/, "", line)
			printf "%s %d - vm-debug case: %s: %s\n", notok ? "not ok" : "ok", ++n, bin, line
			if (notok) bad = 1
		}
		END { print n > "/dev/stderr"; exit bad }' "$CONSOLE" 2>"$B/vm-debug-n" |
		tee -a "$TAPF"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	n=$(cat "$B/vm-debug-n")
fi
rm -f "$B/vm-debug-n"
summary
exit $rc
