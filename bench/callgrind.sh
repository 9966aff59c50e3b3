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
# The peers are counted the same way: batched ranged integers with the k
# that bench_core.tsv found fastest (the largest k without it), the exact
# alias sampler Vose64 and GSL's gsl_ran_discrete() with taus2, generator
# included.
#
# Then cache misses per roll on the 2^20-side die, ours against the
# peers' (valgrind --tool=cachegrind, (N rolls - 0 rolls) / N: cachegrind
# 3.19 cannot count a single function).  Its D1 is this host's L1d (48 KiB,
# 12-way); its LL is set to one core's L2 (CG_LL, 2 MiB, 16-way), so an LL
# miss is a line fetched from beyond L2.
#
# Usage: callgrind.sh BENCH_CORE [N]
#   O=<dir>    where callgrind's files and callgrind.tsv go (build/bench)
#   JOBS=<n>   valgrind runs at a time (nproc)
#   CACHEGRIND=0  skip the cache misses
set -euo pipefail

LOOPS=(roll_core roll_many roll_lemire32 roll_lemire64 roll_fdr 'roll_brl*'
	roll_vose roll_gsl)
CG_D1=${CG_D1:-49152,12,64}
CG_LL=${CG_LL:-2097152,16,64}

# --cache DIR BENCH DIE METHOD COUNT: one cachegrind run (for xargs).
if [ "${1:-}" = --cache ]; then
	out="$2/${4//^/p}.$5.$6.cache.out"
	valgrind --tool=cachegrind --cache-sim=yes --D1="$CG_D1" \
		--LL="$CG_LL" --cachegrind-out-file="$out" \
		"$3" --callgrind "$4" "$5" "$6" >/dev/null 2>"$out.log" || {
		echo "callgrind.sh: cachegrind $4 $5 $6 failed:" >&2
		cat "$out.log" >&2
	}
	exit 0
fi

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

# Batched ranged integers on DIE: the k of bench_core.tsv's row, if any.
brl() {
	local k=
	if [ -f "$O/bench_core.tsv" ]; then
		k=$(awk -F'\t' -v d="$1" '$1 == d && $4 ~ /^Batched/ {
			sub(/^Batched/, "", $4); print $4; exit }' \
			"$O/bench_core.tsv")
	fi
	echo "$1 Batched$k"
}

# die method: the default method on every die, the baselines and the peers
# on some.
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
	"d100 Lemire" "$(brl d6)" "$(brl d20)" "$(brl d100)"
	"loaded5 Vose64" "zipf1000 Vose64" "random65536 Vose64"
	"random2^20 Vose64" "loaded5 GSL-taus2" "zipf1000 GSL-taus2"
	"random65536 GSL-taus2" "random2^20 GSL-taus2"
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
printf '%-13s %-11s %10s\n' die method Ir/roll
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
		printf '%-13s %-11s %10s\n' "$die" "$method" failed
		rc=1
		continue
	fi
	per=$(awk -v a="$a" -v b="$b" -v n="$N" 'BEGIN { printf "%.1f", (a - b) / n }')
	printf '%-13s %-11s %10s\n' "$die" "$method" "$per"
	echo -e "$die\t$method\t$per" >>"$O/callgrind.tsv"
done

[ "${CACHEGRIND:-1}" = 0 ] && exit $rc

# Cache misses on the 2^20-side die: N rolls and 0 rolls of each.
CACHE=("random2^20 RECYCLE64" "random2^20 RECYCLE" "random2^20 Vose64"
	"random2^20 GSL-taus2" "random2^20 GSL-gfsr4")
for c in "${CACHE[@]}"; do
	echo "$c $N"
	echo "$c 0"
done | xargs -P "$JOBS" -L 1 "$0" --cache "$CG" "$BENCH"

# FILE: Ir D1mr DLmr, reads and writes together (D1m, DLm)
misses() {
	awk '/^events:/ { for (i = 2; i <= NF; i++) ev[$i] = i - 1 }
	     /^summary:/ { print $(ev["Ir"] + 1), $(ev["D1mr"] + 1) + $(ev["D1mw"] + 1),
			   $(ev["DLmr"] + 1) + $(ev["DLmw"] + 1) }' "$1" 2>/dev/null
}

echo
echo "Cache misses per roll, 2^20 random (valgrind --tool=cachegrind," \
	"(N - 0 rolls) / N, N = $N; D1 $CG_D1, LL $CG_LL)"
printf '%-13s %-11s %10s %10s %10s\n' die method Ir/roll D1miss/roll \
	LLmiss/roll
echo -e "die\tmethod\tir_per_roll\td1_miss_per_roll\tll_miss_per_roll" \
	>"$O/cachegrind.tsv"
for c in "${CACHE[@]}"; do
	read -r die method <<<"$c"
	f=$CG/${die//^/p}.$method
	read -r ia da la <<<"$(misses "$f.$N.cache.out")" || true
	read -r ib db lb <<<"$(misses "$f.0.cache.out")" || true
	if [ -z "${ia:-}" ] || [ -z "${ib:-}" ]; then
		printf '%-13s %-11s %10s\n' "$die" "$method" failed
		rc=1
		continue
	fi
	read -r pi pd pl <<<"$(awk -v n="$N" -v ia="$ia" -v ib="$ib" \
		-v da="$da" -v db="$db" -v la="$la" -v lb="$lb" 'BEGIN {
		printf "%.1f %.3f %.3f", (ia - ib) / n, (da - db) / n,
		       (la - lb) / n }')"
	printf '%-13s %-11s %10s %10s %10s\n' "$die" "$method" "$pi" "$pd" "$pl"
	echo -e "$die\t$method\t$pi\t$pd\t$pl" >>"$O/cachegrind.tsv"
done
exit $rc
