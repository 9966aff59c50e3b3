#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Instructions per roll, counted by valgrind --tool=callgrind, for a fixed
# run of N rolls of each die and method (bench_core --callgrind DIE METHOD
# N).  Unlike a clock, this does not move on a busy machine.
#
# By default callgrind counts only inside bench_core's roll loops
# (--toggle-collect), so the setup is left out and one run per die is
# enough; CG_SUBTRACT=1 instead runs N rolls and 0 rolls and takes
# (Ir(N) - Ir(0)) / N.  The two agree to the first decimal.
#
# Usage: callgrind.sh BENCH_CORE [N]
#   O=<dir>    where callgrind's files and callgrind.tsv go (build/bench)
#   JOBS=<n>   valgrind runs at a time (nproc)
set -euo pipefail

LOOPS=(roll_core roll_many roll_lemire32 roll_lemire64 roll_fdr)

# --one DIR BENCH DIE METHOD COUNT: a single run (for xargs).
if [ "${1:-}" = --one ]; then
	out="$2/${4//^/p}.$5.$6.out"
	opts=()
	if [ "${CG_SUBTRACT:-0}" != 1 ]; then
		for f in "${LOOPS[@]}"; do
			opts+=("--toggle-collect=$f")
		done
	fi
	valgrind --tool=callgrind --callgrind-out-file="$out" "${opts[@]}" \
		"$3" --callgrind "$4" "$5" "$6" >/dev/null 2>"$out.log" || {
		echo "callgrind.sh: $4 $5 $6 failed:" >&2
		cat "$out.log" >&2
	}
	exit 0
fi

BENCH=${1:?usage: callgrind.sh BENCH_CORE [N]}
N=${2:-1000000}
HERE=$(cd "$(dirname "$0")" && pwd)
O=${O:-$HERE/../build/bench}
CG=$O/callgrind
JOBS=${JOBS:-$(nproc)}

command -v valgrind >/dev/null || {
	echo "callgrind.sh: valgrind not found (apt-get install valgrind)" >&2
	exit 1
}
rm -rf "$CG"
mkdir -p "$CG"

# die method: the default method on every die, the baselines on some.
CONFIGS=(
	"d6 RECYCLE" "d20 RECYCLE" "d100 RECYCLE" "n1000003 RECYCLE"
	"n2^31+1 RECYCLE" "n2^63+1 RECYCLE" "loaded5 RECYCLE"
	"zipf1000 RECYCLE" "random65536 RECYCLE" "random2^20 RECYCLE"
	"d6 RECYCLE64" "d20 RECYCLE64" "d100 RECYCLE64" "n2^31+1 RECYCLE64"
	"loaded5 RECYCLE64" "zipf1000 RECYCLE64" "random65536 RECYCLE64"
	"random2^20 RECYCLE64"
	"d6 BATCH" "loaded5 ALIAS"
	"d6 Lemire" "d6 FDR" "d20 Lemire" "d20 FDR"
	"n2^31+1 Lemire" "n2^31+1 FDR" "n2^63+1 Lemire" "n2^63+1 FDR"
)

# One valgrind run per line, JOBS at a time.
for c in "${CONFIGS[@]}"; do
	echo "$c $N"
	if [ "${CG_SUBTRACT:-0}" = 1 ]; then
		echo "$c 0"
	fi
done | xargs -P "$JOBS" -L 1 "$0" --one "$CG" "$BENCH"

ir() { # FILE: the total instructions of a callgrind output file
	sed -n 's/^totals: *\([0-9]*\).*/\1/p;s/^summary: *\([0-9]*\).*/\1/p' \
		"$1" 2>/dev/null | head -n 1
}

if [ "${CG_SUBTRACT:-0}" = 1 ]; then
	how="(Ir($N rolls) - Ir(0)) / $N"
else
	how="Ir of $N rolls in the roll loop / $N"
fi
echo "Instructions per roll (valgrind --tool=callgrind, $how)"
printf '%-13s %-9s %10s\n' die method Ir/roll
echo -e "die\tmethod\tir_per_roll" >"$O/callgrind.tsv"
rc=0
for c in "${CONFIGS[@]}"; do
	read -r die method <<<"$c"
	f=$CG/${die//^/p}.$method
	a=$(ir "$f.$N.out")
	b=0
	if [ "${CG_SUBTRACT:-0}" = 1 ]; then
		b=$(ir "$f.0.out")
	fi
	if [ -z "$a" ] || [ -z "$b" ]; then
		printf '%-13s %-9s %10s\n' "$die" "$method" failed
		rc=1
		continue
	fi
	per=$(awk -v a="$a" -v b="$b" -v n="$N" 'BEGIN { printf "%.1f", (a - b) / n }')
	printf '%-13s %-9s %10s\n' "$die" "$method" "$per"
	echo -e "$die\t$method\t$per" >>"$O/callgrind.tsv"
done
exit $rc
