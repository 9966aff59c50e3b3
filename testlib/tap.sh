# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# testlib/tap.sh: TAP for the shell test scripts, with the case filter that
# testlib/tap.h gives the C ones.  POSIX sh; source it:
#
#   . "$TOP/testlib/tap.sh"
#   tap_init cli                     the suite's name, for the closing line
#   tap_section "Roll20 notation"    the section the next cases are in
#   tap_wanted NAME || return 0      is case NAME to run? (TAP_ONLY)
#   tap_ok NAME                      "ok N - NAME"
#   tap_not_ok NAME [WHY...]         "not ok N - NAME", then "#   WHY" lines
#   tap_skip NAME REASON             "ok N - NAME # SKIP REASON"
#   tap_tally LOG                    add the results a child script wrote
#                                    to LOG, numbered on from tap_n;
#                                    returns 1 when one failed
#   tap_done                         "SUITE: N passed, N failed[, N skipped]";
#                                    returns 1 when one failed
#
# TAP_ONLY=PATTERN (a shell pattern, as in case) keeps the script to the
# cases whose "SECTION: NAME" matches it ("NAME" alone before any section):
#   TAP_ONLY='Roll20 notation: *'    one section
#   TAP_ONLY='*: keep highest*'      the cases so named, in every section
# The others are not run; tap_done counts them.  When the pattern matches
# no case, tap_done prints "1..0 # SKIP ..." and scripts/check.sh fails the
# tier, so a misspelt filter cannot pass silently.
#
# Counters: tap_n (cases numbered), tap_passed, tap_failed, tap_skipped,
# tap_left_out.

tap_suite=test tap_section_name=''
tap_n=0 tap_passed=0 tap_failed=0 tap_skipped=0 tap_left_out=0

tap_init() { tap_suite=$1; }
tap_section() { tap_section_name=$1; }

tap_wanted() { # NAME
	[ -n "${TAP_ONLY:-}" ] || return 0
	# shellcheck disable=SC2254 # a pattern on purpose
	case ${tap_section_name:+$tap_section_name: }$1 in
	$TAP_ONLY) return 0 ;;
	esac
	tap_left_out=$((tap_left_out + 1))
	return 1
}

tap_ok() {
	tap_n=$((tap_n + 1)) tap_passed=$((tap_passed + 1))
	echo "ok $tap_n - $1"
}

tap_not_ok() { # NAME [WHY...]
	tap_n=$((tap_n + 1)) tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $1"
	shift
	for why in "$@"; do
		echo "#   $why"
	done
}

tap_skip() { # NAME REASON
	tap_n=$((tap_n + 1)) tap_skipped=$((tap_skipped + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

tap_tally() { # LOG
	tap_tally_p=$(grep -cE '^ok [0-9]+' "$1")
	tap_tally_f=$(grep -cE '^not ok [0-9]+' "$1")
	tap_n=$((tap_n + tap_tally_p + tap_tally_f))
	tap_passed=$((tap_passed + tap_tally_p))
	tap_failed=$((tap_failed + tap_tally_f))
	[ "$tap_tally_f" -eq 0 ]
}

tap_done() {
	if [ "$tap_left_out" -gt 0 ]; then
		echo "# $tap_suite: TAP_ONLY=$TAP_ONLY: $tap_n cases run, $tap_left_out left out"
		[ "$tap_n" -gt 0 ] || echo "1..0 # SKIP TAP_ONLY=$TAP_ONLY matches no case"
	fi
	if [ "$tap_skipped" -gt 0 ]; then
		echo "$tap_suite: $tap_passed passed, $tap_failed failed, $tap_skipped skipped"
	else
		echo "$tap_suite: $tap_passed passed, $tap_failed failed"
	fi
	[ "$tap_failed" -eq 0 ]
}

# Wait until process PID catches signal SIGNUM (its handler is installed:
# /proc/PID/status SigCgt), up to 30 s, so that a signal sent next is not
# lost to a program still starting on a slow machine.  Fails if it never
# does or has gone.
tap_wait_catching() { # PID SIGNUM
	tap_wc_i=0
	while [ "$tap_wc_i" -lt 300 ]; do
		tap_wc_mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null) || return 1
		[ -n "$tap_wc_mask" ] || return 1
		[ $(((0x$tap_wc_mask >> ($2 - 1)) & 1)) -eq 1 ] && return 0
		sleep 0.1
		tap_wc_i=$((tap_wc_i + 1))
	done
	return 1
}
