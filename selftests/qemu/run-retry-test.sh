#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh boots again once, and only once, after a crash (an oops, a BUG
# report, a warning or a panic) in a boot whose kernel never ran init; a
# second such crash, or any crash in a boot that ran init, fails.  A
# stand-in qemu-system-x86_64 (first on PATH) plays the guest:
#
#   selftests/qemu/run-retry-test.sh       exit 1 on any wrong outcome
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
D=$(mktemp -d "${TMPDIR:-/tmp}/run-retry-test.XXXXXX") || exit 1
trap 'rm -rf "$D"' EXIT

# The guest: each boot takes the next word of $D/plan: "oops" (an int3
# oops before init, as 7.x prints it), "oops6" (the same as 6.x prints
# it), "gpf" (another oops before init), "kasan" (the 6.1 debug kernel's
# KASAN report before init), "earlywarn" (a warning before init, init
# started, then a KASAN report), "warnpanic" (a warning that panics
# before init), "warnonly" (a warning, then the boot ends),
# "quietverdict" (a warning, no init line, then a verdict), "quietinit"
# (init's line on the port but none on the console, then an oops), "vfs" (a
# panic alone before init), "warnverdict" (a warning before init, then a
# verdict), "afterinit" (init started, then an int3 oops before any
# result), "kasaninit" (init started, then a KASAN report), "late" (a
# result, then an int3 oops), "good", "failcase" (a kselftest with a
# passed case, then a failed one of 53 lines), "warn" (a warning that
# panics, while a kselftest runs).
cat >"$D/qemu-system-x86_64" <<'GUEST'
#!/bin/bash
v=
for a in "$@"; do case $a in file:*) v=${a#file:} ;; esac; done
read -r what rest <"$PLAN"
echo "$rest" >"$PLAN"
echo "$what" >>"$PLAN.boots"
panic() { echo "[    9.000100] Kernel panic - not syncing: Fatal exception in interrupt"; }
WARNING="WARNING: CPU: 0 PID: 1 at mm/early.c:10 early_thing+0x1/0x2"
early_warning() { echo "[    1.200000] $WARNING"; }
# As the real init: the kernel's line on the console, init's on the port.
init_runs() {
	echo "[    4.383144] Run /init as init process"
	echo "init begin" >>"$v"
}
case $what in
oops)
	echo "[    1.427042] Oops: int3: 0000 [#1] SMP NOPTI"
	echo "[    1.474032] Oops: int3: 0000 [#2] SMP NOPTI"
	panic ;;
oops6)
	echo "[    1.427042] int3: 0000 [#1] PREEMPT SMP NOPTI"
	panic ;;
gpf)
	echo "[    1.427042] general protection fault, probably for non-canonical address 0xdead: 0000 [#1] PREEMPT SMP NOPTI"
	echo "[    1.474032] int3: 0000 [#2] PREEMPT SMP NOPTI"
	panic ;;
kasan)
	echo "[    1.147127] BUG: KASAN: wild-memory-access in do_raw_spin_lock+0x10a/0x240"
	echo "[    1.147836] Kernel panic - not syncing: KASAN: panic_on_warn set ..." ;;
earlywarn)
	early_warning
	init_runs
	echo "[    5.000000] BUG: KASAN: slab-out-of-bounds in dice_read+0x10/0x80 [dice]"
	echo "[    5.000100] Kernel panic - not syncing: Fatal exception" ;;
warnpanic)
	early_warning
	echo "[    1.200100] Kernel panic - not syncing: kernel: panic_on_warn set ..." ;;
warnonly)
	early_warning ;;
quietverdict)
	early_warning
	printf 'init begin\nresult insmod:dice pass\nlog begin\nlog end\nverdict done\n' >"$v" ;;
vfs)
	echo "[    2.000000] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)" ;;
warnverdict)
	early_warning
	init_runs
	printf 'result insmod:dice pass\nlog begin\n[    1.200000] %s\nlog end\nverdict done\n' "$WARNING" >>"$v" ;;
quietinit)
	echo "init begin" >>"$v"
	echo "[    5.000000] Oops: int3: 0000 [#1] SMP NOPTI"
	panic ;;
kasaninit)
	init_runs
	echo "[    5.000000] BUG: KASAN: slab-out-of-bounds in dice_read+0x10/0x80 [dice]"
	echo "[    5.000100] Kernel panic - not syncing: KASAN: panic_on_warn set ..." ;;
afterinit)
	init_runs
	echo "[    5.000000] Oops: int3: 0000 [#1] SMP NOPTI"
	echo "[    5.000010] CPU: 1 UID: 0 PID: 77 Comm: dice_stress_tes"
	echo "[    5.000020] RIP: 0010:mem_cgroup_css_alloc+0x1c/0x3f0"
	panic ;;
warn)
	init_runs
	echo "# selftest: dice_test"
	echo "[    6.000000] WARNING: CPU: 0 PID: 80 at kmod/dice_pool.c:42 dice_pool_refill+0x9/0x80 [dice]"
	echo "[    6.000100] Kernel panic - not syncing: kernel: panic_on_warn set ..."
	;;
late)
	init_runs
	printf 'result insmod:dice pass\n' >>"$v"
	echo "[    9.000000] Oops: int3: 0000 [#1] SMP NOPTI"
	panic ;;
good)
	init_runs
	printf 'result insmod:dice pass\nlog begin\nlog end\nverdict done\n' >>"$v" ;;
failcase)
	init_runs
	echo "# #  RUN           global.abi ..."
	echo "# # x.c:10:abi:all is well"
	echo "# #            OK  global.abi"
	echo "# #  RUN           limit.memcg ..."
	for i in $(seq 50); do echo "# # [ 6.2] memcg report line $i"; done
	echo "# # x.c:20:memcg:child: step 12"
	echo "# #          FAIL  limit.memcg"
	echo "# not ok 2 limit.memcg"
	for i in $(seq 70); do echo "# filler $i"; done
	printf 'result selftest fail\nlog begin\nlog end\nverdict done\n' >>"$v" ;;
esac
GUEST
chmod +x "$D/qemu-system-x86_64"

fail=0 n=0
# case PLAN WANT_RC WANT_BOOTS NAME [IN_OUTPUT [NOT_IN_OUTPUT]]
case_() {
	local rc boots said=yes
	n=$((n + 1))
	echo "$1" >"$D/plan"
	rm -f "$D/plan.boots"
	PATH=$D:$PATH PLAN=$D/plan "$HERE"/run.sh --kernel /dev/null \
		--initrd /dev/null --name guest --log "$D/console.log" >"$D/out" 2>&1
	rc=$?
	boots=$(paste -sd' ' "$D/plan.boots")
	[ -z "${5:-}" ] || grep -q -- "$5" "$D/out" || said=no
	[ -z "${6:-}" ] || ! grep -q -- "$6" "$D/out" || said=no
	if [ "$rc" = "$2" ] && [ "$boots" = "$3" ] && [ $said = yes ]; then
		echo "ok $n - run.sh: $4"
	else
		sed 's/^/# /' "$D/out"
		echo "not ok $n - run.sh: $4 (exit $rc, boots: $boots, output as expected: $said)"
		fail=1
	fi
}
case_ "oops good" 0 "oops good" "an int3 oops before init (7.x): booted again, and passes" \
	"crashed while booting, before it ran init and any dice code (Oops: int3: 0000 \[#1\] SMP NOPTI); booted again"
case_ "oops6 good" 0 "oops6 good" "an int3 oops before init (6.x): booted again, and passes"
case_ "oops oops good" 1 "oops oops" "two such oopses: booted again once, and fails"
case_ "gpf good" 0 "gpf good" "another oops before init: booted again, and passes"
case_ "kasan good" 0 "kasan good" "a KASAN report before init: booted again, and passes" \
	"(BUG: KASAN: wild-memory-access in do_raw_spin_lock+0x10a/0x240); booted again"
case_ "kasan gpf good" 1 "kasan gpf" "a KASAN report, then an oops, both before init: booted again once, and fails"
case_ "kasaninit good" 1 "kasaninit" "a KASAN report once init ran: not booted again, fails"
case_ "earlywarn good" 1 "earlywarn" "a warning before init, then a crash once init ran: not booted again, fails"
case_ "warnpanic good" 0 "warnpanic good" "a warning that panics before init: booted again, and passes"
case_ "warnonly good" 0 "warnonly good" "a warning alone, then no init: booted again, and passes"
case_ "quietverdict good" 0 "quietverdict" "a warning, no init line (quiet), then a verdict: not booted again, passes"
case_ "quietinit good" 1 "quietinit" "an oops once init ran, with no init line on the console (quiet) but init's on the port: not booted again, fails"
case_ "vfs good" 0 "vfs good" "a panic alone before init: booted again, and passes"
case_ "warnverdict good" 1 "warnverdict" "a warning before init, then a verdict: not booted again, fails the log gate"
case_ "afterinit good" 1 "afterinit" "an int3 oops once init ran: not booted again, fails, the oops and its RIP named" \
	"verdict received # no verdict.*: oops (Oops: int3: 0000 \[#1\] SMP NOPTI, RIP 0010:mem_cgroup_css_alloc+0x1c/0x3f0)"
case_ "warn" 1 "warn" "a warning that panics: fails, the warning and the test named" \
	"no verdict.*: warning (WARNING: CPU: 0 PID: 80 at kmod/dice_pool.c:42 dice_pool_refill+0x9/0x80 \[dice\]) while running dice_test"
case_ "late good" 1 "late" "an int3 oops after a result: not booted again, fails"
case_ "good" 0 "good" "a good boot: booted once"
case_ "failcase" 1 "failcase" "a failed kselftest case: its last lines printed, a passed one's not" \
	"^#   # # x.c:20:memcg:child: step 12" "all is well"
case_ "failcase" 1 "failcase" "a failed kselftest case of 53 lines: its FAIL line printed, its first 13 said left out" \
	"^#   (13 lines left out)" "memcg report line 12\$"
# The real init says "init begin" on the port before it loads any module.
n=$((n + 1))
said=$(grep -n '^echo "init begin" >&3$' "$HERE/init" | head -n 1 | cut -d: -f1)
loads=$(grep -n '^load_modules$' "$HERE/init" | head -n 1 | cut -d: -f1)
if [ -n "$said" ] && [ -n "$loads" ] && [ "$said" -lt "$loads" ]; then
	echo "ok $n - init: says init begin on the verdict port before it loads a module"
else
	echo "not ok $n - init: says init begin on the verdict port before it loads a module (line ${said:-none}, modules at ${loads:-none})"
	fail=1
fi
echo "1..$n"
exit $fail
