#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The throwaway Debian root the package tests install into, cached.
#
#   scripts/deb-root.sh [options] KVER...
#                        print the cached root's directory, making it first
#                        if needed (root, network)
#   --suite SUITE        the Debian release (default: the host's); its
#                        -updates and -security suites come along
#   --backports          SUITE-backports too (at apt's default priority,
#                        100: only what is named from it comes from it)
#   --packages "P..."    more packages
#
# A minimal Debian (debootstrap --variant=minbase, from Debian's archive)
# with what the tests need and what the packages depend on: dkms, gcc and
# make, pkg-config, liburing-dev, libsodium-dev, and linux-headers-KVER for
# each kernel the module is built for.  It has its own dpkg database:
# nothing done in it touches the host's, and no package of another release
# ever reaches the host (scripts/trixie.sh makes the Debian 13 root so).
#
# Cached in $DICE_CACHE/deb-root/KEY/root, KEY a hash of what it is made
# from (release, mirrors, kernel and its headers' version, package list,
# this script), so a change to any of them makes a new one; a root unused
# for a day is removed (another run may still be using a recent one).  The
# tests never write into it: they mount an overlay on top
# (scripts/deb-root-test.sh).  Made in a private mount namespace, so the
# mounts debootstrap makes go away with it however it ends, and renamed
# into place only when complete.
set -euo pipefail
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:?}")
backports='' more=''
while [ $# -gt 0 ]; do
	case $1 in
	--suite) suite=${2:?}; shift ;;
	--backports) backports=1 ;;
	--packages) more=${2?}; shift ;;
	-*) echo "deb-root.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || { echo "usage: deb-root.sh [--suite S] [--backports] [--packages P] KVER..." >&2; exit 2; }
kvers="$*"
cache=${DICE_CACHE:-/var/tmp/dice}/deb-root
mirror=${DEB_MIRROR:-http://deb.debian.org/debian}
security=${DEB_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
# The host's headers' package versions, where the host has them (Debian 12).
hdrver=$(for k in $kvers; do
	dpkg-query -W -f='${Version} ' "linux-headers-$k" 2>/dev/null || true; done)
# shellcheck disable=SC2086
pkgs="dkms gcc make libc6-dev pkg-config liburing-dev libsodium-dev
	kmod $more $(printf 'linux-headers-%s ' $kvers)"

key=$( { echo "$suite $backports $mirror $security $kvers $hdrver"; echo $pkgs
	cat "$0"; } | sha256sum | cut -c1-16)
dir=$cache/$key
if [ -f "$dir/done" ]; then
	touch "$dir/used"
	echo "$dir/root"
	exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -f "$dir/done" ]; then	# made by another run while we waited
	touch "$dir/used"
	echo "$dir/root"
	exit 0
fi
command -v debootstrap >/dev/null || { echo "deb-root: no debootstrap (make deps)" >&2; exit 1; }

new=$cache/.new.$$
ns_pid=
cleanup() {
	trap '' INT TERM	# a second signal must not cut the cleanup short
	# unshare ignores SIGTERM while its child runs; killed, it kills its
	# child (--kill-child), and with that PID namespace's first process
	# every process in it.
	if [ -n "$ns_pid" ]; then	# (|| true: set -e holds here too)
		kill -KILL "$ns_pid" 2>/dev/null || true
		wait "$ns_pid" 2>/dev/null || true
	fi
	# --one-file-system: never into a mount, should one have outlived
	# its namespace.  The namespace's processes die a moment after
	# unshare: try again while they may still be writing.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -e "$new" ] || break
		rm -rf --one-file-system "$new" 2>/dev/null || sleep 1
	done
	true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
rm -rf --one-file-system "$cache"/.new.* 2>/dev/null || true
mkdir -p "$new"

start=$(date +%s)
echo "deb-root: making a $suite root for $kvers in $dir (once)" >&2
# shellcheck disable=SC2016
unshare --mount --propagation private --pid --fork --kill-child --mount-proc \
	bash -euo pipefail -c '
new=$1 suite=$2 mirror=$3 security=$4 backports=$5; shift 5
root=$new/root
debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$new/debootstrap.log" 2>&1 || {
	tail -n 30 "$new/debootstrap.log" >&2; exit 1; }
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb $security $suite-security main
EOF
[ -z "$backports" ] || echo "deb $mirror $suite-backports main" >>"$root/etc/apt/sources.list"
# No daemons start in the root; apt installs no recommends, keeps no debs.
printf "#!/bin/sh\nexit 101\n" >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
printf "APT::Install-Recommends \"false\";\nAPT::Sandbox::User \"root\";\n" \
	>"$root/etc/apt/apt.conf.d/90dice"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount -t tmpfs -o mode=0755 dev "$root/dev"
for n in null zero full random urandom tty; do
	touch "$root/dev/$n"
	mount --bind "/dev/$n" "$root/dev/$n"
done
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
# No initramfs for the kernel images that some headers depend on (the
# 6.12 ones of Debian 12): nothing boots from the root, and making them
# took minutes.  The hook is diverted to a name with a dot, which run-parts
# passes over.
chroot "$root" dpkg-divert --local --rename --add \
	/etc/kernel/postinst.d/initramfs-tools >/dev/null
chroot "$root" apt-get update -q >"$new/apt.log" 2>&1 &&
	chroot "$root" apt-get install -y -q "$@" >>"$new/apt.log" 2>&1 || {
	tail -n 30 "$new/apt.log" >&2; exit 1; }
chroot "$root" apt-get clean
# DKMS makes a module signing key at its first build; make it now, so that
# what a package leaves behind is not mistaken for it.
if chroot "$root" sh -c "command -v openssl" >/dev/null; then
	chroot "$root" openssl req -new -x509 -nodes -days 36500 \
		-subj "/CN=DKMS module signing key" -newkey rsa:2048 \
		-keyout /var/lib/dkms/mok.key -outform DER \
		-out /var/lib/dkms/mok.pub >/dev/null 2>&1
fi
# depmod writes its indexes at the first module install: write them now.
for k in $(ls "$root/lib/modules"); do chroot "$root" depmod "$k" 2>/dev/null; done
' deb-root "$new" "$suite" "$mirror" "$security" "$backports" $pkgs >&2 &
ns_pid=$!
wait "$ns_pid" || exit 1
ns_pid=

# build is an absolute link (/usr/src/...): look inside the root, or the
# host's own headers would answer for it.
for kver in $kvers; do
	chroot "$new/root" test -d "/lib/modules/$kver/build/include" || {
		echo "deb-root: no headers for $kver in the new root" >&2; exit 1; }
done
find "$cache" -mindepth 2 -maxdepth 2 -name used -mmin +1440 -printf '%h\0' |
	xargs -0 -r rm -rf --one-file-system
mv "$new" "$dir"
touch "$dir/used"
echo "$(( $(date +%s) - start ))" >"$dir/seconds"
du -sm "$dir/root" | cut -f1 >"$dir/megabytes"
touch "$dir/done"
echo "deb-root: made in $(cat "$dir/seconds")s, $(cat "$dir/megabytes") MB" >&2
echo "$dir/root"
