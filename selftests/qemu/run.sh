#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the dice test VM (an initramfs from mkinitramfs.sh) under QEMU and
# turn its verdict into TAP on stdout: one line per module load, test and
# module unload, then "vm: verdict received" and "vm: kernel log clean",
# then a "vm: N passed, N failed" line ("vm" is --name).  Exit 0 only when
# all passed.  selftests/qemu/vmtest.sh, the runner of every VM tier, calls
# it; an interrupt or SIGTERM ends QEMU with it.
#
# A kernel loop that never yields or a task blocked for good panics the
# guest at once (softlockup_panic=1 with watchdog_thresh=VM_WATCHDOG_THRESH,
# default 5: a CPU stuck for 10 s; hung_task_panic=1 with
# hung_task_timeout_secs=VM_HUNG_TASK_SECS, default 30), rather than
# running into the timeout: the verdict is then missing, and its TAP line
# names the lockup and the test that was running.
#
# Environment: KVM=1 uses -accel kvm instead of TCG (KVM hangs at boot on
# some hosts); APPEND_EXTRA is added to the kernel command line (e.g.
# panic_on_warn=1, DICE_TEST_TIMEOUT=SECS); QEMU_MEM (MiB, default 1024)
# and QEMU_SMP (default 2); QEMU_CPU (default max); VM_WATCHDOG_THRESH and VM_HUNG_TASK_SECS as
# above (0 turns that detector off).
set -uo pipefail

ME=${0##*/}

usage() {
	cat <<EOF
Usage: $ME --kernel BZIMAGE --initrd FILE [options]
  --kernel FILE     kernel to boot, e.g. /boot/vmlinuz-\$(scripts/kernels.sh 6.1)
  --initrd FILE     initramfs built by mkinitramfs.sh
  --timeout SECS    kill the VM after SECS seconds (default 900)
  --log FILE        write the guest console log there (default: a temp file,
                    kept and named on failure)
  --append ARGS     more kernel command line (also: APPEND_EXTRA env)
  --name PREFIX     the prefix of every TAP name (default vm)
  -v, --verbose     also stream the guest console to stdout
  --shell           interactive: console on this terminal, no verdict
                    (initramfs built with --shell; quit with ^A x)
  -h, --help        this text
EOF
}

bad_usage() {
	echo "$ME: $*" >&2
	usage >&2
	exit 2
}

KERNEL='' INITRD='' TIMEOUT=900 LOG='' SHELL_MODE='' VERBOSE='' NAME=vm
APPEND=${APPEND_EXTRA:-}
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KERNEL=${2:?}; shift ;;
	--initrd) INITRD=${2:?}; shift ;;
	--timeout) TIMEOUT=${2:?}; shift ;;
	--log) LOG=${2:?}; shift ;;
	--append) APPEND="$APPEND ${2:?}"; shift ;;
	--name) NAME=${2:?}; shift ;;
	--kernel=*) KERNEL=${1#*=} ;;
	--initrd=*) INITRD=${1#*=} ;;
	--timeout=*) TIMEOUT=${1#*=} ;;
	--log=*) LOG=${1#*=} ;;
	--append=*) APPEND="$APPEND ${1#*=}" ;;
	--name=*) NAME=${1#*=} ;;
	-v | --verbose) VERBOSE=1 ;;
	--shell) SHELL_MODE=1 ;;
	-h | --help) usage; exit 0 ;;
	*) bad_usage "unknown argument: $1" ;;
	esac
	shift
done
[ -n "$KERNEL" ] || bad_usage "--kernel is required"
[ -n "$INITRD" ] || bad_usage "--initrd is required"
case $TIMEOUT in '' | *[!0-9]*) bad_usage "--timeout wants whole seconds" ;; esac
[ -r "$KERNEL" ] || { echo "$ME: cannot read kernel $KERNEL" >&2; exit 1; }
[ -r "$INITRD" ] || { echo "$ME: cannot read initrd $INITRD" >&2; exit 1; }
command -v qemu-system-x86_64 >/dev/null ||
	{ echo "$ME: qemu-system-x86_64 not found (make deps)" >&2; exit 1; }

ACCEL=(-accel tcg)
# QEMU_CPU (default max) gives the guest RDRAND, so its CRNG is seeded at
# boot, before any test runs: under TCG a task running when the CRNG
# becomes ready can race the kernel's patching of its static key (oopses
# on 6.12, 7.2 and 7.3 without it; Documentation/dice/kernels.rst).
ACCEL+=(-cpu "${QEMU_CPU:-max}")
[ "${KVM:-0}" = 1 ] && ACCEL=(-accel kvm -cpu host)
# oops=panic and panic=-1: a crash ends the VM at once (-no-reboot turns
# the reboot into an exit) instead of waiting for the timeout; so do a soft
# lockup and a hung task (see the top).  Kernels without a detector pass
# its parameters on to init, harmlessly.
WATCHDOG="softlockup_panic=1 watchdog_thresh=${VM_WATCHDOG_THRESH:-5}"
WATCHDOG="$WATCHDOG hung_task_panic=1"
WATCHDOG="$WATCHDOG sysctl.kernel.hung_task_timeout_secs=${VM_HUNG_TASK_SECS:-30}"
SMP=${QEMU_SMP:-2}
# DICE_VM_CPUS: init checks that the kernel brought every CPU up.
CMDLINE="console=ttyS0 panic=-1 oops=panic $WATCHDOG DICE_VM_CPUS=$SMP $APPEND"
QEMU=(qemu-system-x86_64 "${ACCEL[@]}" -m "${QEMU_MEM:-1024}"
	-smp "$SMP" -no-reboot -kernel "$KERNEL" -initrd "$INITRD"
	-append "$CMDLINE")

if [ -n "$SHELL_MODE" ]; then
	# -nographic puts console and monitor on this terminal (^A c, ^A x).
	exec "${QEMU[@]}" -nographic -serial mon:stdio -serial null
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dicevm-run.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
KEEP_LOG=
if [ -z "$LOG" ]; then
	LOG=$(mktemp "${TMPDIR:-/tmp}/dicevm-console.XXXXXX.log")
	KEEP_LOG=temp
fi
VERDICT=$WORK/verdict

start=$(date +%s)
# The serial console adds \r to every line.  stdin from /dev/null keeps
# QEMU off the terminal; the monitor is disabled so it cannot eat input.
if [ -n "$VERBOSE" ]; then
	show=(tee /dev/stderr)
else
	show=(cat)
fi
# QEMU runs in the background so that an interrupt or SIGTERM, trapped
# here, can end it rather than leave it running to its timeout.
stop_qemu() {
	[ -s "$WORK/qemu.pid" ] && kill -TERM "$(cat "$WORK/qemu.pid")" 2>/dev/null
	[ "$KEEP_LOG" = temp ] && rm -f "$LOG"
	exit "$1"
}
trap 'stop_qemu 130' INT
trap 'stop_qemu 143' TERM
boot() {
	rm -f "$VERDICT" "$WORK/qemu.rc" "$WORK/qemu.pid"
	{
		timeout --foreground -k 10 "$TIMEOUT" "${QEMU[@]}" -display none -vga none \
			-monitor none -serial stdio -serial "file:$VERDICT" </dev/null 2>&1 &
		echo $! >"$WORK/qemu.pid"
		wait $!
		{ echo $? >"$WORK/qemu.rc"; } 2>/dev/null	# gone if interrupted
	} | tr -d '\r' | "${show[@]}" >"$LOG" &
	wait $!
}
boot
# A boot whose kernel crashed and never ran init is booted once more: no
# dice code had run (init loads the modules), so the crash is the kernel's
# or QEMU's.  Init never ran when the verdict port is empty (init's first
# line there, "init begin", comes before it loads anything) and the
# console has no "Run /init" line either; the port does not depend on the
# console's log level.  Two are known under
# TCG, both rare: a 7.x kernel's oops on a stale int3 of its own
# static-key patching (QEMU's multi-threaded TCG sees the patched code
# late), and the 6.1 debug kernel's KASAN report from an interrupt taken
# while identify_cpu() has the boot CPU's feature bits cleared
# (Documentation/dice/testing.rst, "The VM harness").  A warning or a BUG
# report need not end a boot (only panic_on_warn makes them panic): a
# boot that went on to run init is judged as any boot is.  With --log,
# the first console is kept beside the log.  A second such crash fails.
early_crash() { # prints the crash's first line
	awk '/Run \/init as init process/ { init = 1; exit }
		c == "" && /: [0-9a-f]+ \[#[0-9]+\]|BUG: |WARNING: CPU: |Kernel panic - not syncing/ {
			c = $0; sub(/^\[[ 0-9.]*\] /, "", c) }
		END { if (init || c == "") exit 1; print c }' "$LOG"
}
[ -n "$KEEP_LOG" ] || rm -f "$LOG.early"
if [ ! -s "$VERDICT" ] && crash=$(early_crash); then
	first=
	if [ -z "$KEEP_LOG" ]; then
		cp "$LOG" "$LOG.early"
		first=" (first console: $LOG.early)"
	fi
	echo "# $NAME: the kernel crashed while booting, before it ran init and any dice code ($crash); booted again$first"
	boot
fi
trap - INT TERM
qemu_rc=$(cat "$WORK/qemu.rc" 2>/dev/null || echo 1)
elapsed=$(($(date +%s) - start))

n=0 passed=0 failed=0 skipped=0
tap() { # ok|fail|skip NAME [DETAIL]
	n=$((n + 1))
	case $1 in
	ok) passed=$((passed + 1)); echo "ok $n - $NAME: $2" ;;
	skip) skipped=$((skipped + 1)); echo "ok $n - $NAME: $2 # SKIP" ;;
	*) failed=$((failed + 1)); echo "not ok $n - $NAME: $2${3:+ # $3}" ;;
	esac
}

touch "$VERDICT"
tr -d '\r' <"$VERDICT" >"$WORK/v"

# "result NAME pass|fail|skip [DETAIL]"; insmod:M reads as "insmod M".
while read -r word name result detail; do
	[ "$word" = result ] || continue
	case $name in
	insmod:* | rmmod:*) name=${name/:/ } ;;
	cpus:*) name="CPUs up: ${name#cpus:}, as many as QEMU's -smp gives" ;;
	esac
	case $result in
	pass) tap ok "$name" ;;
	skip) tap skip "$name" ;;
	*) tap fail "$name" "$detail" ;;
	esac
done < <(sed '/^log begin$/,/^log end$/d' "$WORK/v")

# What ended a guest that gave no verdict, from its console: a soft lockup
# or a hung task (which panic, see the top); the first oops, with its RIP
# (an int3 one outside dice.ko is TCG's stale static-key patch, see above);
# a warning; another panic; and the test that was running.
crash_reason() {
	local line test
	if line=$(grep -m1 -o 'BUG: soft lockup.*' "$LOG"); then
		printf 'soft lockup, a kernel loop that never yields (%s)' "$line"
	elif line=$(grep -m1 -o 'INFO: task .* blocked for more than [0-9]* seconds' "$LOG"); then
		printf 'hung task (%s)' "$line"
	elif line=$(awk '!h && /: [0-9a-f]+ \[#1\]/ { h = $0; sub(/^\[[ 0-9.]*\] /, "", h) }
			h && /RIP: / { sub(/^.*RIP: /, ""); h = h ", RIP " $0; exit }
			END { if (!h) exit 1; print h }' "$LOG"); then
		printf 'oops (%s)' "$line"
	elif line=$(grep -m1 -o 'WARNING: CPU: .*' "$LOG"); then
		printf 'warning (%s)' "$line"
	elif line=$(grep -m1 -o 'Kernel panic - not syncing.*' "$LOG"); then
		printf '%s' "$line"
	fi
	test=$(sed -n 's/^# selftest: //p' "$LOG" | tail -n 1)
	[ -n "$test" ] && printf ' while running %s' "$test"
}

if grep -qx 'verdict done' "$WORK/v"; then
	tap ok "verdict received"
else
	why="no verdict"
	[ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ] && why="timed out after ${TIMEOUT}s"
	[ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ] || why="$why, qemu exit $qemu_rc"
	crash=$(crash_reason)
	[ -n "$crash" ] && why="$why: $crash"
	tap fail "verdict received" "$why"
fi

# The guest's dmesg (sent on the verdict port) is the clean source: the
# console also carries test output, which may say "WARNING:" harmlessly.
# Without it (crash, timeout) fall back to the console.
if grep -qx 'log end' "$WORK/v"; then
	sed -n '/^log begin$/,/^log end$/p' "$WORK/v" >"$WORK/klog"
	src="guest dmesg"
else
	cp "$LOG" "$WORK/klog"
	src="console log"
fi
BAD='WARNING:|BUG:|Oops|KASAN|UBSAN|INFO: possible|possible circular locking|possible recursive locking|inconsistent lock state|unreferenced object|Kernel panic|Call Trace:|general protection fault|list_add corruption|list_del corruption'
if grep -E "$BAD" "$WORK/klog" >"$WORK/bad"; then
	tap fail "kernel log clean" "from $src"
	echo "# $NAME: offending lines in the $src:"
	head -n 40 "$WORK/bad" | sed 's/^/#   /'
else
	tap ok "kernel log clean"
fi

if [ "$failed" -gt 0 ]; then
	# What each failed kselftest case said (its TH_LOG lines), which
	# the console's tail rarely holds: the first 8 cases, the last 40
	# lines of each (its end says most), and a case cut short too.
	awk -v name="$NAME" '
		function show(why,  i, s) {
			if (shown++ >= 8)
				return
			print "# " name ": the failed case " c why ":"
			s = n > 40 ? n - 40 : 0
			if (s)
				print "#   (" s " lines left out)"
			for (i = s; i < n; i++)
				print "#   " buf[i % 40]
		}
		/^(# )*#  RUN  / {
			n = 0; c = $0
			sub(/.*RUN +/, "", c); sub(/ \.\.\.$/, "", c)
		}
		/^(# )*#  RUN  / || n { buf[n % 40] = $0; n++ }
		/^(# )*# +FAIL  / && n { show("") }
		/^(# )*# +(OK|FAIL|SKIP)  / { n = 0 }
		END { if (n) show(", cut short") }
	' "$LOG"
	echo "# $NAME: last 60 lines of the guest console ($LOG):"
	tail -n 60 "$LOG" | sed 's/^/# /'
elif [ "$KEEP_LOG" = temp ]; then
	rm -f "$LOG"
	LOG="(removed)"
fi
echo "# $NAME: ${elapsed}s, console log $LOG"
[ "$skipped" -gt 0 ] && echo "# $NAME: $skipped skipped"
echo "$NAME: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
