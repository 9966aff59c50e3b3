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
#                                 calls (paired by their arguments, in
#                                 order) must give the same bytes, except
#                                 the calls that differ between two
#                                 records of the same binary (userspace
#                                 engine rolls, commit-reveal nonces, and
#                                 the runs whose number of calls varies):
#                                 pass each extra record of OLD after NEW
#
# Through the wrapper, the cases that need dice's standard output to be a
# terminal or /dev/full, or that signal dice, fail (6 of them); they are
# recorded all the same, and the cli tier itself checks them.
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
	# A few cases fail through the wrapper, and are recorded all the same:
	# those that need dice's standard output to be a terminal or
	# /dev/full, or that signal dice (the wrapper is in between).
	sh "$HERE/cli.sh" "$dir/dice" >"$dir/tap" 2>&1 || :
	rm -f "$dir/dice"
	echo "corpus: $(cat "$dir/count") calls of dice recorded in $dir;" \
	     "cli.sh through the wrapper: $(tail -1 "$dir/tap")"
}

compare() {
	/usr/bin/python3 - "$@" <<'PY'
import difflib, os, sys

def load(d):
    calls = []
    for n in sorted(x for x in os.listdir(d) if x.isdigit()):
        c = os.path.join(d, n)
        rd = lambda f: open(os.path.join(c, f), 'rb').read()
        calls.append((n, rd('args'), (rd('out'), rd('err'), rd('rc'))))
    return calls

def align(a, b):
    """Pairs of indices of calls with the same arguments, in order, and
    the calls of each side left unpaired (a run whose number of calls
    varies: --verify over a log of random length)."""
    sm = difflib.SequenceMatcher(None, [c[1] for c in a], [c[1] for c in b],
                                 autojunk=False)
    pairs, left_a, left_b = [], [], []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == 'equal':
            pairs += zip(range(i1, i2), range(j1, j2))
        else:
            left_a += range(i1, i2)
            left_b += range(j1, j2)
    return pairs, left_a, left_b

old, new = load(sys.argv[1]), load(sys.argv[2])
unstable, loose = set(), set()   # arguments that vary between two old runs
for again in map(load, sys.argv[3:]):
    pairs, la, lb = align(old, again)
    unstable |= {old[i][1] for i, j in pairs if old[i][2] != again[j][2]}
    loose |= {old[i][1] for i in la} | {again[j][1] for j in lb}
pairs, la, lb = align(old, new)
same = differ = skipped = 0
for i, j in pairs:
    if old[i][2] == new[j][2]:
        same += 1
    elif old[i][1] in unstable:
        skipped += 1
    else:
        differ += 1
        print('corpus: call %s (new %s) differs: dice %s' %
              (old[i][0], new[j][0], old[i][1].decode(errors='replace').replace('\n', ' ')))
        for k, name in enumerate(('stdout', 'stderr', 'status')):
            if old[i][2][k] != new[j][2][k]:
                print('  %s: %r\n  now: %r' % (name, old[i][2][k][:300], new[j][2][k][:300]))
bad = [c for c in [old[i] for i in la] + [new[j] for j in lb] if c[1] not in loose]
for c in bad:
    print('corpus: call %s has no counterpart: dice %s' % (c[0], c[1].decode(errors='replace').replace('\n', ' ')))
print('corpus: %d identical, %d different, %d that differ from run to run '
      '(userspace rolls, nonces), %d + %d unpaired calls of runs whose '
      'length varies (%d unexplained)' % (same, differ, skipped, len(la), len(lb), len(bad)))
sys.exit(1 if differ or bad else 0)
PY
}

case ${1:-} in
record) record "${2:?DIR}" "${3:?DICE}" ;;
compare) shift; compare "$@" ;;
*) sed -n '4,21p' "$0" >&2; exit 2 ;;
esac
