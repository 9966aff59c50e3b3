#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the project needs, by need:
#
#   scripts/deps.sh [-q] [NAME...]
#
# NAME: a tier of scripts/tiers.sh (shell patterns too: kernel-*), "demo"
# or "bench"; without NAME, every tier (make deps, make check).  The list
# of which package serves which tier is scripts/tiers.sh's packages(),
# kept beside the tier list and checked against it by the static tier.
# No kernel image is ever among them: the kernels the tests and the demo
# boot and build against come from their .deb into DICE_CACHE
# (scripts/bookworm.sh, scripts/trixie.sh).
#
# Idempotent: when nothing is missing it exits at once, without touching
# the network, silent with -q (make demo, make check-TIER), one line
# without.  Never removes a package.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
quiet=
[ "${1:-}" = -q ] && { quiet=1; shift; }

# The names asked for, patterns matched against the tiers.
names=
if [ $# -gt 0 ]; then
	tiers=$("$HERE"/tiers.sh --names)
	for w in "$@"; do
		case $w in
		demo | bench) names="$names $w"; continue ;;
		esac
		m=
		for t in $tiers; do
			# shellcheck disable=SC2254 # a pattern on purpose
			case $t in $w) m="$m $t" ;; esac
		done
		[ -n "$m" ] || { echo "deps: no tier matches '$w' (scripts/tiers.sh --names)" >&2; exit 2; }
		names="$names$m"
	done
fi
# shellcheck disable=SC2086
PKGS=$("$HERE"/tiers.sh --packages $names)
what=${names:+" for$names"}

# One dpkg-query call keeps the nothing-to-do path fast.  "ii" = installed;
# anything else (unknown, removed, half-installed) counts as missing so that
# apt-get repairs it.
# shellcheck disable=SC2086
installed=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $PKGS 2>/dev/null |
	awk '$1 == "ii" { print $2 }' || true)
missing=
for p in $PKGS; do
	echo "$installed" | grep -qx -- "$p" || missing="$missing $p"
done

if [ -z "$missing" ]; then
	# shellcheck disable=SC2086
	[ -n "$quiet" ] || echo "deps: all $(echo $PKGS | wc -w) packages$what already installed"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages$what:$missing" >&2
	echo "deps: run 'make deps' as root (or: sudo apt-get install --no-install-recommends$missing)" >&2
	exit 1
fi

echo "deps: installing$what:$missing"
apt-get update
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
