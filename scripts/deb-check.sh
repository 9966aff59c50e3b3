#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The deb tier of make check: build the Debian packages, lint them, and
# install, upgrade and purge them in a throwaway Debian root.
#
#   1. make deb: the source package and dice-dkms, libdice1, libdice-dev,
#      dice and python3-libdice, from a clean copy of the tree, without its
#      build-time tests (nocheck): on Debian 12 they are the libdice, cli
#      and python tiers over again, on the same compiler and Python; the
#      Debian 13 build below runs them
#   2. the same sources as the previous version (VERSION~prev1), binary
#      packages only: what the upgrade test starts from.  DICE_DEB_PREV=DIR
#      takes a real previous release's four .deb files from DIR instead.
#   3. one version everywhere; dpkg-source -x gives back the tree; the
#      symbols file lists the version map; debian/copyright agrees with
#      every SPDX line; lintian: no error, no warning (overrides shown with
#      their reasons)
#   4. scripts/deb-root.sh: the root (debootstrap), cached by what it is
#      made from; scripts/deb-root-test.sh: install, purge, upgrade in it,
#      in a private mount and PID namespace over an overlay of the cache;
#      then the same in the Debian 13 root of scripts/trixie.sh (Debian
#      13's 6.12 and trixie-backports' newest 7.x, each also -rt: DKMS
#      builds for all four), TAP names "deb trixie: ..."; there the
#      source package is built too (dpkg-buildpackage -b, its tests run
#      with Debian 13's Python; in the background from the end of step 2,
#      beside steps 3 and 4), and that build's python3-libdice is the
#      one installed (a Python extension is built for the Pythons of its
#      release: Debian 12's, 3.11, does not install on 13's 3.13)
#   5. the host is as it was: its dpkg database, /usr/src, /var/lib/dkms
#      (entries and signing keys), loaded modules and lintian's caches in
#      TMPDIR hold nothing of ours that was not there before
#
# Root, and the network for the root's first making (Debian's archive).
set -uo pipefail
: "${TOP:?run from make}" "${B:?}"
# The Debian 12 root's kernel: the tests' default (Debian 12's
# linux-image-amd64, make bookworm), whatever the host runs.
kver=$("$TOP"/scripts/kernels.sh 6.1) || exit 1
cache=${DICE_CACHE:-/var/tmp/dice}
ver=$(cat "$TOP/VERSION")
prev=$ver~prev1

# shellcheck source=testlib/tap.sh
. "$TOP/testlib/tap.sh"
tap_init deb
ok() { tap_ok "deb: $1"; }
not_ok() { # NAME [LOG]
	tap_not_ok "deb: $1"
	[ -n "${2:-}" ] && [ -s "$2" ] && tail -n 40 "$2" | sed 's/^/#   /'
	true
}
secs() { echo $(( $(date +%s) - $1 )); }

# What of ours the host holds: it must be the same at the end.
host_state() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Version}\n' \
		dice dice-dkms libdice1 libdice-dev python3-libdice 2>/dev/null
	ls -d /usr/src/dice-* 2>/dev/null
	ls -A --full-time /var/lib/dkms 2>/dev/null	# entries, signing keys
	echo "lintian caches: $(find "${TMPDIR:-/tmp}" -maxdepth 1 \
		-name 'mldbm-*' 2>/dev/null | wc -l)"
	find /lib/modules -name 'dice.ko*' 2>/dev/null
	grep -sw '^dice' /proc/modules | cut -d' ' -f1
	findmnt -rn -o TARGET | grep -F "$cache/deb-" || true
}
host_before=$(host_state)

logs=$B/deb-logs
mkdir -p "$logs"
unshare_pid=
prev_pid=
trixie_pid=
root_pid=
work=
lintian_tmp=
cleanup() {
	trap '' INT TERM	# a second signal must not cut the cleanup short
	# The previous version's build runs in its own process group.
	[ -n "$prev_pid" ] && kill -- -"$prev_pid" 2>/dev/null
	# So does the Debian 13 build (in-root.sh ends its namespace).
	if [ -n "$trixie_pid" ]; then
		kill -- -"$trixie_pid" 2>/dev/null
		wait "$trixie_pid" 2>/dev/null
	fi
	# deb-root.sh cleans up after itself when told to stop.
	if [ -n "$root_pid" ]; then
		kill "$root_pid" 2>/dev/null
		wait "$root_pid" 2>/dev/null
	fi
	# unshare ignores SIGTERM while its child runs; killed, it kills its
	# child (--kill-child), the PID namespace's first process, and with it
	# every process in the namespace.
	if [ -n "$unshare_pid" ]; then
		kill -KILL "$unshare_pid" 2>/dev/null
		wait "$unshare_pid" 2>/dev/null
	fi
	[ -n "$lintian_tmp" ] && rm -rf "$lintian_tmp"
	# The namespace took its mounts along; --one-file-system all the same.
	# Its processes die a moment after unshare: try again meanwhile.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -n "$work" ] && [ -e "$work" ] || break
		rm -rf --one-file-system "$work" 2>/dev/null || sleep 1
	done
	true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- 1, 2: build ---------------------------------------------------------------
# The previous version builds beside this one (their serial steps overlap).
t=$(date +%s)
if [ -z "${DICE_DEB_PREV:-}" ]; then
	setsid "$TOP"/scripts/deb-build.sh --out "$B/deb-prev" --version "$prev" \
		--binary-only >"$logs/build-prev.log" 2>&1 &
	prev_pid=$!
fi
if DEB_BUILD_OPTIONS=nocheck "$TOP"/scripts/deb-build.sh --out "$B/deb" \
	>"$logs/build.log" 2>&1 &&
	[ "$(cd "$B/deb" && ls -- *.deb | sed 's/_.*//' | LC_ALL=C sort | tr '\n' ' ')" = \
		"dice dice-dkms libdice-dev libdice1 python3-libdice " ] &&
	ls "$B/deb/dice_$ver-"*.dsc >/dev/null; then
	ok "make deb (nocheck): dice_$ver source package, dice-dkms, libdice1, libdice-dev, dice, python3-libdice ($(secs "$t")s)"
	sed -n '/^deb-build: in/,$p' "$logs/build.log" | sed 's/^/# /'
else
	not_ok "make deb" "$logs/build.log"
	exit 1
fi

if [ -n "${DICE_DEB_PREV:-}" ]; then
	if rm -rf "$B/deb-prev" && mkdir -p "$B/deb-prev" &&
		cp "$DICE_DEB_PREV"/*.deb "$B/deb-prev/"; then
		ok "previous packages from $DICE_DEB_PREV"
	else
		not_ok "previous packages from $DICE_DEB_PREV"
	fi
elif wait "$prev_pid"; then
	prev_pid=
	ok "previous version's packages ($prev, same sources, no tests) build ($(secs "$t")s)"
else
	prev_pid=
	not_ok "previous version's packages ($prev)" "$logs/build-prev.log"
fi

# trixie_build_start ROOT: the source package built in the Debian 13 root
# (dpkg-source -x, dpkg-buildpackage -b, build-time tests included, in an
# overlay: scripts/in-root.sh), as a Debian 13 build machine would, in the
# background from the moment make deb's packages are there: it needs
# nothing of steps 3 and 4, and keeps the cores busy while the Debian 12
# root is made (the network's and dpkg's time).  trixie_build_finish waits
# for it, then gathers the packages the Debian 13 tests install: make
# deb's but python3-libdice, which comes from this build (Python 3.13),
# and the previous version's without python3-libdice (built for Debian
# 12's Python only): the upgrade installs it new.
trixie_build_start() {
	local d=$B/deb-trixie
	trixie_t=$(date +%s)
	rm -rf "$d" && mkdir -p "$d/new" "$d/prev" || return 1
	# shellcheck disable=SC2016 # expanded in the root
	setsid "$TOP"/scripts/in-root.sh "$1" sh -euc '
		cd "$B/deb-trixie"
		dpkg-source -x "$B"/deb/dice_*.dsc src >/dev/null
		cd src
		dpkg-checkbuilddeps
		DEB_BUILD_OPTIONS="noautodbgsym" dpkg-buildpackage -us -uc -b \
			-j"$(nproc)"
		python3 --version' >"$logs/build-trixie.log" 2>&1 </dev/null &
	trixie_pid=$!
}
trixie_build_finish() {
	local d=$B/deb-trixie p rc=1 secs
	# trixie_pid stays set while we wait: a signal then stops the build.
	[ -n "$trixie_pid" ] && wait "$trixie_pid" && rc=0
	trixie_pid=
	secs=$(( $(stat -c %Y "$logs/build-trixie.log") - trixie_t ))
	if [ $rc -eq 0 ] &&
		cp "$d"/python3-libdice_*.deb "$d/new/" &&
		for p in "$B"/deb/*.deb; do
			case ${p##*/} in python3-libdice_*) ;; *) cp "$p" "$d/new/" ;; esac
		done &&
		for p in "$B"/deb-prev/*.deb; do
			case ${p##*/} in python3-libdice_*) ;; *) cp "$p" "$d/prev/" ;; esac
		done; then
		ok "Debian 13: the source package builds in the root, its tests pass ($(tail -n 1 "$logs/build-trixie.log"), ${secs}s)"
		rm -rf "$d/src"
	else
		not_ok "Debian 13: the source package builds in the root" "$logs/build-trixie.log"
		return 1
	fi
}

# The Debian 13 root: scripts/trixie.sh made it (make trixie), with the
# headers of every trixie-* kernel of scripts/kernels.sh.
trixie_root='' trixie_kvers=''
for k in trixie-6.12 trixie-6.12-rt trixie-bpo trixie-bpo-rt; do
	if i=$(KERNELS=$k "$TOP"/scripts/kernels.sh --info "$k" 2>>"$logs/trixie.log"); then
		read -r v _ _ r <<<"$i"
		trixie_root=$r trixie_kvers="$trixie_kvers${trixie_kvers:+ }$v"
	fi
done
# The root of this tree's scripts/trixie.sh (its package list: the
# Build-Depends), not the one the shared state file names.
[ -n "$trixie_root" ] && trixie_root=$("$TOP"/scripts/trixie.sh --root 2>>"$logs/trixie.log")
# shellcheck disable=SC2086 # count the words
[ -n "$trixie_root" ] && [ "$(echo $trixie_kvers | wc -w)" -eq 4 ] || trixie_root=
[ -z "$trixie_root" ] || trixie_build_start "$trixie_root"

# ---- 3: what the packages say ----------------------------------------------------
one_version() {
	local d=$B/deb x=$logs/version.d
	rm -rf "$x" && mkdir -p "$x" || return 1
	for p in "$d"/*.deb; do dpkg-deb -x "$p" "$x"; done
	echo "VERSION $ver"
	local cl
	cl=$(cd "$TOP" && dpkg-parsechangelog -SVersion) && echo "$cl" &&
		grep -qx "$ver-[^-]*" <<<"$cl" &&
		grep -x "PACKAGE_VERSION=\"$ver\"" "$x/usr/src/dice-$ver/dkms.conf" &&
		grep -x "Version: $ver" "$x"/usr/lib/*/pkgconfig/libdice.pc &&
		grep -x "Version: $ver" "$x"/usr/lib/python3/dist-packages/libdice-*-info/PKG-INFO
	local rc=$?
	rm -rf "$x"
	return $rc
}
if one_version >"$logs/version.log" 2>&1; then
	ok "one version $ver: debian/changelog, dkms.conf, libdice.pc, python3-libdice's PKG-INFO (dice --version below)"
else
	not_ok "one version $ver everywhere" "$logs/version.log"
fi

source_package() { # dpkg-source -x gives back the tree git knows
	local x=$logs/source.d rc
	rm -rf "$x" && mkdir -p "$x" || return 1
	dpkg-source -x "$B"/deb/dice_"$ver"-*.dsc "$x/src" >/dev/null &&
		(cd "$x/src" && find . -type f ! -path './.pc/*' | sed 's|^\./||' |
			LC_ALL=C sort) >"$x/got" &&
		if git -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
			(cd "$TOP" && git ls-files --cached --others --exclude-standard |
				while read -r f; do [ -f "$f" ] && echo "$f"; done |
				LC_ALL=C sort) >"$x/want"
			diff "$x/want" "$x/got"
		fi
	rc=$?
	rm -rf "$x"
	return $rc
}
if source_package >"$logs/source.log" 2>&1; then
	ok "source package: dpkg-source -x gives back every file of the tree"
else
	not_ok "source package unpacks to the tree" "$logs/source.log"
fi

symbols() {
	local want got
	local nodes
	# every name of every version node (LIBDICE_1, LIBDICE_1.1, ...), and
	# the nodes themselves, which the symbols file lists too
	want=$(grep -cE '^[[:space:]]+dice_[a-z0-9_]+;' "$TOP/libdice/libdice.map")
	nodes=$(grep -cE '^LIBDICE_[0-9.]+ [{]' "$TOP/libdice/libdice.map")
	dpkg-deb --ctrl-tarfile "$B"/deb/libdice1_*.deb | tar -xO ./symbols | tee /dev/stderr |
		grep -cE '@LIBDICE_[0-9.]+ ' >"$logs/symbols.count"
	got=$(cat "$logs/symbols.count")
	echo "map: $want names in $nodes nodes, symbols file: $got (with the nodes themselves)"
	[ "$got" -eq $((want + nodes)) ]
}
if symbols >"$logs/symbols.log" 2>&1; then
	ok "libdice1's symbols file lists every name of libdice.map"
else
	not_ok "libdice1's symbols file" "$logs/symbols.log"
fi

if python3 "$TOP"/scripts/deb-copyright.py "$TOP" >"$logs/copyright.log" 2>&1; then
	ok "debian/copyright (DEP-5) agrees with every SPDX line: $(grep -o '[0-9]* files' "$logs/copyright.log")"
else
	not_ok "debian/copyright agrees with the SPDX lines" "$logs/copyright.log"
fi

t=$(date +%s)
# lintian leaves its MLDBM caches (mldbm-elf-*) in TMPDIR: a private one,
# removed with the run.
lintian_tmp=$(mktemp -d "${TMPDIR:-/tmp}/dice-lintian.XXXXXX")
TMPDIR=$lintian_tmp lintian --display-info --show-overrides --fail-on none \
	"$B"/deb/dice_"$ver"-*.changes >"$logs/lintian.log" 2>&1
rc=$?
rm -rf "$lintian_tmp"
lintian_tmp=
grep -v '^running with root privileges' "$logs/lintian.log" | sed 's/^/# lintian: /'
if [ $rc -eq 0 ] && ! grep -qE '^[EW]: ' "$logs/lintian.log"; then
	ok "lintian: no error, no warning ($(secs "$t")s)"
else
	not_ok "lintian: no error, no warning" "$logs/lintian.log"
fi

# ---- 4: the throwaway root -------------------------------------------------------
# In the background, so that a signal is handled at once, not after it.
t=$(date +%s)
# python3: what python3-libdice depends on is there before the install, so
# that the purge leaves the root exactly as it was.
timeout 1800 "$TOP"/scripts/deb-root.sh --packages python3 "$kver" \
	>"$logs/root.path" 2>"$logs/root.log" &
root_pid=$!
if ! wait "$root_pid"; then
	root_pid=
	not_ok "a Debian root with linux-headers-$kver (debootstrap)" "$logs/root.log"
	exit 1
fi
root_pid=
pristine=$(cat "$logs/root.path")
ok "Debian 12 root: $(cat "$pristine/../megabytes") MB, made in $(cat "$pristine/../seconds")s, now $(secs "$t")s"

# A run killed outright (SIGKILL) leaves its directory: gone after a day.
find "$cache" -maxdepth 1 -name 'deb-run.*' -mmin +1440 \
	-exec rm -rf --one-file-system {} + 2>/dev/null
# in_root NAME PRISTINE KVERS [NEWDEBS PREVDEBS]: the install, purge and
# upgrade tests there (default: make deb's packages and the previous ones).
in_root() {
	local name=$1 pristine=$2 kvers=$3 rc t l=${1// /-}
	local newdebs=${4:-$B/deb} prevdebs=${5:-$B/deb-prev}
	t=$(date +%s)
	work=$(mktemp -d "$cache/deb-run.XXXXXX")
	rm -rf "${logs:?}/$l" && mkdir -p "$logs/$l"
	unshare --mount --propagation private --pid --fork --kill-child --mount-proc \
		timeout 1200 "$TOP"/scripts/deb-root-test.sh "$pristine" "$work" "$newdebs" "$prevdebs" \
		"$kvers" "$tap_n" "$logs/$l" "$name" >"$logs/$l-test.log" 2>&1 &
	unshare_pid=$!
	wait "$unshare_pid"
	rc=$?
	unshare_pid=
	cat "$logs/$l-test.log"
	if tap_tally "$logs/$l-test.log" && [ $rc -ne 0 ]; then
		not_ok "tests in the $name root ended early (exit $rc)"
	fi
	echo "# $name: install, purge, upgrade in the root: $(secs "$t")s"
	rm -rf --one-file-system "$work"
	work=
}
in_root deb "$pristine" "$kver"

if [ -n "$trixie_root" ]; then
	ok "Debian 13 root of scripts/trixie.sh: $(cat "$trixie_root/../megabytes") MB, made in $(cat "$trixie_root/../seconds")s; kernels $trixie_kvers"
	trixie_build_finish &&
		in_root "deb trixie" "$trixie_root" "$trixie_kvers" "$B/deb-trixie/new" \
			"$B/deb-trixie/prev"
else
	not_ok "the Debian 13 root with the four trixie kernels' headers (make trixie)" "$logs/trixie.log"
fi

# ---- 5: the host ----------------------------------------------------------------
host_after=$(host_state)
if [ "$host_before" = "$host_after" ]; then
	ok "host untouched: dpkg, /usr/src, DKMS, modules, mounts, TMPDIR as before"
else
	not_ok "host untouched"
	diff <(echo "$host_before") <(echo "$host_after") | sed 's/^/#   /'
fi

tap_done
