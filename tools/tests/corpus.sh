#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# corpus.sh: the CLI tier's every call of dice, recorded byte for byte, so
# that a change that must not alter dice(1)'s output (issue #31: the
# notation engine moved into libdice) can prove it did not.
#
#   corpus.sh record DIR DICE     run cli.sh (with cli_players.sh,
#                                 cli_fair.sh and the Python oracles it
#                                 starts) against DICE through a wrapper
#                                 that keeps, for each call in order, its
#                                 arguments, standard input, standard
#                                 output, standard error and exit status
#                                 in DIR/NNNNNN/
#   corpus.sh compare OLD NEW...  the records of NEW against OLD: the same
#                                 calls must give the same bytes, except
#                                 the calls that differ between two
#                                 records of the same binary (userspace
#                                 engine rolls, commit-reveal nonces):
#                                 pass each extra record of OLD after NEW
#
# The temporary directory of each run is written as @T@ in the records,
# so that two runs compare.  The fuzzer at the end of cli.sh is not run
# (FUZZ_GRAMMAR unset): it does not call dice.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)

record() {
	dir=$(mkdir -p "$1" && cd "$1" && pwd)
	dice=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
	rm -rf "$dir"/[0-9]* "$dir/dice"
	# The wrapper: numbered calls (cli.sh and the oracles call dice one
	# at a time), its temporary directory renamed, then dice itself.
	cat >"$dir/dice" <<EOF
#!/bin/sh
log='$dir'
n=\$(cat "\$log/count" 2>/dev/null || echo 0)
n=\$((n + 1))
echo \$n >"\$log/count"
c=\$(printf '%s/%06d' "\$log" \$n)
mkdir "\$c"
t=\${TMPDIR:-/tmp}/dice-cli.
for a in "\$@"; do printf '%s\n' "\$a"; done | sed "s|\$t[A-Za-z0-9]*|@T@|g" >"\$c/args"
if [ -t 0 ]; then : >"\$c/stdin"; else cat >"\$c/stdin"; fi
rc=0
'$dice' "\$@" <"\$c/stdin" >"\$c/out" 2>"\$c/err" || rc=\$?
echo \$rc >"\$c/rc"
cat "\$c/out"
cat "\$c/err" >&2
for f in out err; do sed -i "s|\$t[A-Za-z0-9]*|@T@|g" "\$c/\$f"; done
exit \$rc
EOF
	chmod +x "$dir/dice"
	echo 0 >"$dir/count"
	sh "$HERE/cli.sh" "$dir/dice" >"$dir/tap" 2>&1 || {
		tail -3 "$dir/tap"
		return 1
	}
	rm -f "$dir/dice"
	echo "corpus: $(cat "$dir/count") calls of dice recorded in $dir"
}

compare() {
	old=$1 new=$2
	shift 2
	same=0 differ=0 unstable=0
	for c in "$old"/[0-9]*; do
		n=$(basename "$c")
		skip=
		for again in "$@"; do
			cmp -s "$c/out" "$again/$n/out" &&
				cmp -s "$c/err" "$again/$n/err" &&
				cmp -s "$c/rc" "$again/$n/rc" || skip=1
		done
		if [ -n "$skip" ]; then
			unstable=$((unstable + 1))
			cmp -s "$c/args" "$new/$n/args" || {
				echo "corpus: call $n: other arguments"
				differ=$((differ + 1))
			}
			continue
		fi
		if [ -d "$new/$n" ] && diff -r "$c" "$new/$n" >/dev/null; then
			same=$((same + 1))
		else
			differ=$((differ + 1))
			echo "corpus: call $n differs: dice $(tr '\n' ' ' <"$c/args")"
			diff -r "$c" "$new/$n" | head -10 || true
		fi
	done
	for c in "$new"/[0-9]*; do
		[ -d "$old/$(basename "$c")" ] || {
			echo "corpus: call $(basename "$c") is new"
			differ=$((differ + 1))
		}
	done
	echo "corpus: $same identical, $differ different," \
	     "$unstable that differ from run to run (arguments compared)"
	[ "$differ" -eq 0 ]
}

case ${1:-} in
record) record "${2:?DIR}" "${3:?DICE}" ;;
compare) shift; compare "$@" ;;
*) sed -n '4,21p' "$0" >&2; exit 2 ;;
esac
