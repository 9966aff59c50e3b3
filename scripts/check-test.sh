#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check.sh's ending: a failed test and its first diagnostic lines
# come again under "failed:" just before the closing line, so that a
# reader of only the tail of make check (as CI shows it) learns why; a
# passing run has no such section, and the closing line counts right.
# check.sh runs in a stand-in tree whose scripts/tiers.sh lists two fake
# tiers.
#
#   scripts/check-test.sh       exit 1 on any wrong outcome
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
D=$(mktemp -d "${TMPDIR:-/tmp}/check-test.XXXXXX") || exit 1
trap 'rm -rf "$D"' EXIT
mkdir -p "$D/top/scripts" "$D/b"
cp "$HERE/check.sh" "$D/top/scripts/"
cat >"$D/top/scripts/tiers.sh" <<'EOF'
#!/bin/bash
cat <<'LIST'
good - printf 'ok 1 - good: one\nok 2 - good: two\n'
bad - printf 'ok 1 - bad: fine\nnot ok 2 - bad: verdict received # no verdict: soft lockup\n# why 1\n# why 2\nok 3 - bad: after\n'; exit 1
LIST
EOF
chmod +x "$D/top/scripts/tiers.sh"

# run TIERS: check.sh's output for those tiers into $D/out; its status.
run() {
	TOP=$D/top B=$D/b TIERS="$1" bash "$D/top/scripts/check.sh" >"$D/out" 2>&1
}
fail() { echo "check-test: $*"; cat "$D/out"; exit 1; }

run 'good bad' && fail "a failed tier did not fail make check"
tail -n 1 "$D/out" | grep -qx '4 passed, 1 failed' || fail "wrong closing line"
sed -n '/^failed:$/,$p' "$D/out" >"$D/section"
grep -qx '  bad: not ok 2 - bad: verdict received # no verdict: soft lockup' "$D/section" ||
	fail "the failed test is not under 'failed:'"
grep -qx '  bad:   # why 2' "$D/section" || fail "its diagnostics are not under 'failed:'"
grep -q 'bad: after' "$D/section" && fail "a passed test is under 'failed:'"
run good || fail "a passing tier failed make check"
grep -q '^failed' "$D/out" && fail "a passing run printed a failed section"
tail -n 1 "$D/out" | grep -qx '2 passed, 0 failed' || fail "wrong closing line"
exit 0
