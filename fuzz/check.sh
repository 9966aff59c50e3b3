#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run each libFuzzer target named on the command line for FUZZ_SECONDS
# (0: each committed input once) over a scratch copy of fuzz/corpus/NAME,
# one TAP line per target, then "fuzz: N passed, N failed".  Exit 1 if any
# target crashed, leaked, timed out or found its corpus missing.
# Called by "make -C fuzz check|regress", which sets O.
set -u
: "${O:?run from make -C fuzz}"
HERE=$(cd "$(dirname "$0")" && pwd)
SECONDS_EACH=${FUZZ_SECONDS:-30}
FLAGS=${FUZZ_FLAGS:-}

case $SECONDS_EACH in
'' | *[!0-9]*) echo "fuzz: FUZZ_SECONDS wants whole seconds" >&2; exit 2 ;;
esac

# Inputs worth trying are small: a few columns, a short expression.
max_len() {
	case $1 in
	alias) echo 16384 ;;
	*) echo 4096 ;;
	esac
}

n=0 pass=0 fail=0
echo "TAP version 13"
echo "1..$#"
for t in "$@"; do
	n=$((n + 1))
	bin=$O/fuzz_$t
	seeds=$HERE/corpus/$t
	run=$O/run/$t
	log=$O/run/$t.log
	rm -rf "$run" "$O/artifacts/$t-"*
	mkdir -p "$run" "$O/artifacts"
	nseeds=$(find "$seeds" -type f 2>/dev/null | wc -l)
	if [ "$nseeds" -eq 0 ]; then
		echo "not ok $n - fuzz_$t # no corpus in $seeds"
		fail=$((fail + 1))
		continue
	fi
	start=$(date +%s)
	if [ "$SECONDS_EACH" -eq 0 ]; then
		# Each committed input once: a regression run.
		# shellcheck disable=SC2046
		"$bin" -timeout=10 -rss_limit_mb=2048 \
			-artifact_prefix="$O/artifacts/$t-" \
			$(find "$seeds" -type f | sort) >"$log" 2>&1
		rc=$?
	else
		cp "$seeds"/* "$run"/
		# shellcheck disable=SC2086
		"$bin" -max_total_time="$SECONDS_EACH" -timeout=10 \
			-rss_limit_mb=2048 -max_len="$(max_len "$t")" \
			-print_final_stats=1 -artifact_prefix="$O/artifacts/$t-" \
			$FLAGS "$run" >"$log" 2>&1
		rc=$?
	fi
	took=$(($(date +%s) - start))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	what="$nseeds seeds${execs:+, $execs runs}${cov:+, $cov}, ${took}s"
	if [ "$rc" -eq 0 ]; then
		echo "ok $n - fuzz_$t ($what)"
		pass=$((pass + 1))
	else
		echo "not ok $n - fuzz_$t # exit $rc ($what)"
		fail=$((fail + 1))
		echo "# last lines of $log:"
		tail -n 40 "$log" | sed 's/^/#   /'
		# The CI log must be enough to reproduce: a clean clone's
		# artifacts go with it.
		seed=$(sed -n 's/^INFO: Seed: *//p' "$log" | head -n 1)
		[ -n "$seed" ] && echo "# seed: $seed (FUZZ_FLAGS=-seed=$seed)"
		for a in "$O/artifacts/$t-"*; do
			[ -e "$a" ] || continue
			echo "# reproducer: $bin $a"
			if [ "$(wc -c <"$a")" -le 16384 ]; then
				echo "# its bytes, for base64 -d > FILE:"
				base64 "$a" | sed 's/^/#   /'
			fi
		done
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
