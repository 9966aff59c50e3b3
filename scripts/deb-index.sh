# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A private apt index of another Debian release, for scripts/bookworm.sh
# and scripts/trixie.sh (sourced):
#
#   deb_index DIR NAME OFFLINE < sources.list
#
# makes DIR/apt (its own sources, lists, cache and an empty dpkg status:
# nothing is ever installed from it on the host), sets APT, the apt
# options that use it, and refreshes the lists unless OFFLINE is set; with
# no network it keeps the lists it has, saying so, and fails without any.
# NAME prefixes the messages.  acache runs apt-cache on it.

deb_index() {
	local dir=$1 name=$2 offline=$3
	mkdir -p "$dir/apt/lists/partial" "$dir/apt/archives/partial"
	cat >"$dir/apt/sources.list"
	: >"$dir/apt/status"
	APT=(-o "Dir::Etc::SourceList=$dir/apt/sources.list"
		-o Dir::Etc::SourceParts=/dev/null/none
		-o Dir::Etc::Preferences=/dev/null
		-o Dir::Etc::PreferencesParts=/dev/null/none
		-o "Dir::State=$dir/apt" -o "Dir::State::Lists=$dir/apt/lists"
		-o "Dir::State::status=$dir/apt/status"
		-o "Dir::Cache=$dir/apt" -o "Dir::Cache::Archives=$dir/apt/archives"
		-o Acquire::Languages=none -o APT::Architecture=amd64
		-o APT::Architectures::=amd64 -o Debug::NoLocking=1
		-o APT::Sandbox::User=root)
	[ -z "$offline" ] || return 0
	apt-get "${APT[@]}" -q update >"$dir/update.log" 2>&1 && return 0
	if ls "$dir"/apt/lists/*_Packages* >/dev/null 2>&1; then
		echo "$name: index not refreshed (network?), using the one of $(date -r "$dir/apt/lists" '+%F %R')" >&2
		return 0
	fi
	cat "$dir/update.log" >&2
	return 1
}

acache() { apt-cache "${APT[@]}" "$@" 2>/dev/null; }

# deb_image KVER DIR PKG...: the image and config of kernel KVER, taken out
# of the .deb files of PKG... (downloaded from the index, never installed)
# into DIR/vmlinuz and DIR/config, with DIR/from naming the .debs; DIR is
# replaced whole, or left as it was on failure.  Only those two files are
# unpacked, not the modules that are most of a package: from /boot
# (Debian 12, 13's 6.12) or from usr/lib/modules/KVER (7.x, whose
# linux-binary-KVER and linux-base-KVER put them there).  Works in $tmp,
# which the caller's EXIT trap removes.
deb_image() {
	local k=$1 d=$2 p f names img cfg
	shift 2
	tmp=$(mktemp -d "$(dirname "$d")/.new.XXXXXX")
	mkdir "$tmp/debs" "$tmp/x" "$tmp/k"
	for p in "$@"; do
		(cd "$tmp/debs" && apt-get "${APT[@]}" -q download "$p" >/dev/null) ||
			{ echo "cannot download $p" >&2; return 1; }
	done
	for f in "$tmp"/debs/*.deb; do
		names=$(dpkg-deb --fsys-tarfile "$f" | tar -t | awk -v k="$k" '
			$0 == "./boot/vmlinuz-" k || $0 == "./boot/config-" k ||
			$0 == "./usr/lib/modules/" k "/vmlinuz" ||
			$0 == "./usr/lib/modules/" k "/config"')
		[ -n "$names" ] || continue
		# shellcheck disable=SC2086 # one name a word: no spaces in them
		dpkg-deb --fsys-tarfile "$f" | tar -C "$tmp/x" -x $names
	done
	img=$(find "$tmp/x" -type f \( -name "vmlinuz-$k" -o -path "*/modules/$k/vmlinuz" \) | head -n 1)
	cfg=$(find "$tmp/x" -type f \( -name "config-$k" -o -path "*/modules/$k/config" \) | head -n 1)
	[ -n "$img" ] && [ -n "$cfg" ] || { echo "no vmlinuz or config for $k in $*" >&2; return 1; }
	cp "$img" "$tmp/k/vmlinuz" && cp "$cfg" "$tmp/k/config" &&
		(cd "$tmp/debs" && ls -- *.deb) >"$tmp/k/from" || return 1
	rm -rf "$d" && mv "$tmp/k" "$d" || return 1
	rm -rf "$tmp"
	tmp=
}
