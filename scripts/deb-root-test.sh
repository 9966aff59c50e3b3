#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The package tests in the throwaway root; scripts/deb-check.sh runs this
# in a private mount and PID namespace (unshare), so that every mount made
# here goes away with it, and every process, however the run ends.
#
#   deb-root-test.sh PRISTINE WORK NEWDEBS PREVDEBS KVERS N LOGS [NAME]
#
# PRISTINE is the cached root (scripts/deb-root.sh), never written: an
# overlay on top of it, upper layer in WORK, is the root the tests use.
# NEWDEBS and PREVDEBS hold the packages of this version and of the
# previous one: dice-dkms, libdice1, libdice-dev, dice and python3-libdice
# (the Debian 13 run's PREVDEBS lack python3-libdice: the upgrade installs
# it new).  KVERS: the kernels whose headers the root has (one or
# more, space-separated): DKMS must build for each.  TAP from test N+1 on,
# named "NAME: ..." (default deb); test K's output is in LOGS/K.log.
#
#   install   apt-get install of the packages; DKMS built and installed
#             the module for each of the root's kernels (KVERS, found by
#             the package's postinst, as on a user's machine); dice --version;
#             pkg-config; libdice-dev's headers; a program built against
#             libdice-dev links (shared and static) and runs; man pages,
#             udev rule; python3 imports libdice (libdice1's shared
#             library, no rpath), whose Die() says /dev/dice is missing
#             and whose seeded die rolls
#   purge     apt-get purge: no DKMS entry, no module, no source, and the
#             root holds exactly the files it had before the install
#   upgrade   previous packages installed, then this version's: DKMS
#             removed the old module and built the new one; a program
#             built against the previous libdice runs with the new one;
#             purge leaves the root as before
set -uo pipefail
pristine=$1 work=$2 newdebs=$3 prevdebs=$4 kvers=$5 logs=$7
suite=${8:-deb}
arch=$(uname -m)
# The packages of NEWDEBS, by name (dice dice-dkms libdice-dev libdice1
# python3-libdice).
PKGS=$(for f in "$newdebs"/*.deb; do dpkg-deb -f "$f" Package; done | sort | paste -sd' ')

# shellcheck source=testlib/tap.sh
. "$(dirname "$0")/../testlib/tap.sh"
tap_init "$suite"
tap_n=$6	# numbered on from deb-check.sh's cases
ok() { tap_ok "$suite: $1"; }
not_ok() { # NAME [LOG]
	tap_not_ok "$suite: $1"
	[ -n "${2:-}" ] && [ -s "$2" ] && tail -n 25 "$2" | sed 's/^/#   /'
	true
}
check() { # NAME CMD...: CMD's output goes to a log shown on failure
	local name=$1 log t=$SECONDS
	shift
	log=$logs/$((tap_n + 1)).log
	if "$@" >"$log" 2>&1; then
		[ $((SECONDS - t)) -lt 2 ] || name="$name ($((SECONDS - t))s)"
		ok "$name"
	else
		not_ok "$name" "$log"
	fi
}

# ---- the root ------------------------------------------------------------------
root=$work/root
mkdir -p "$work/upper" "$work/ovl" "$root"
if ! mount -t overlay overlay -o \
	"lowerdir=$pristine,upperdir=$work/upper,workdir=$work/ovl" "$root" 2>/dev/null; then
	echo "# no overlayfs here: copying the root instead"
	cp -a "$pristine/." "$root/"
fi
mount -t proc -o ro proc "$root/proc"	# read-only: no /proc/sys writes
mount -t tmpfs -o mode=0755 dev "$root/dev"
for d in null zero full random urandom tty; do
	touch "$root/dev/$d"
	mount --bind "/dev/$d" "$root/dev/$d"
done
ln -s /proc/self/fd "$root/dev/fd"
mkdir -p "$root/tmp/debs/new" "$root/tmp/debs/prev"
cp "$newdebs"/*.deb "$root/tmp/debs/new/"
cp "$prevdebs"/*.deb "$root/tmp/debs/prev/"
chmod -R a+rX "$root/tmp/debs"

R() { # run in the root, clean environment, unable to load kernel modules
	setpriv --bounding-set=-sys_module,-sys_boot,-sys_time -- \
		chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
# Every path in the root, with type, mode and owner; not the package
# manager's own records, caches, logs or scratch space, nor depmod's
# indexes (modules.dep and the like: trixie's DKMS removes those of a
# kernel whose image is not installed when it removes the last module;
# that modules.dep names no dice.ko is checked on its own).
snapshot() {
	R find / -xdev \( -path /proc -o -path /dev -o -path /sys -o -path /run \
		-o -path /tmp -o -path /root -o -path /var/lib/dpkg \
		-o -path /var/lib/apt -o -path /var/cache -o -path /var/log \
		-o -path '/usr/lib/modules/*/modules.*' \
		-o -path '/lib/modules/*/modules.*' \) \
		-prune -o -printf '%y %m %u:%g %p\n' | LC_ALL=C sort
}
same_as_before() { # FILE: the root's paths are those in FILE
	snapshot >"$work/after"
	diff "$1" "$work/after"
}
version_of() { # DIR: the upstream version of the packages in DIR
	dpkg-deb -f "$(ls "$1"/dice-dkms_*.deb)" Version | sed 's/-[^-]*$//'
}
new=$(version_of "$newdebs") prev=$(version_of "$prevdebs")
kernels=$(ls "$root/lib/modules")
echo "# root: $pristine (+ overlay), kernel(s): $kernels; packages $prev -> $new"

dkms_installed() { # VERSION: dice/VERSION built and installed for each of KVERS
	local st kver
	st=$(R dkms status -m dice) || return 1
	echo "dkms status: $st"
	[ "$(echo "$st" | grep -c .)" -eq "$(echo $kvers | wc -w)" ] || return 1
	for kver in $kvers; do
		echo "$st" | grep -qx "dice/$1, $kver, $arch: installed" &&
			test -s "$root/var/lib/dkms/dice/$1/$kver/$arch/log/make.log" ||
			return 1
	done
}
module_in_place() { # VERSION: each kernel's dice.ko is VERSION's DKMS build
	local kver
	for kver in $kvers; do
		module_in_place_for "$1" "$kver" || return 1
	done
}
module_in_place_for() { # VERSION KVER
	local ko built kver=$2
	ko=$(ls "$root/lib/modules/$kver/updates/dkms/"dice.ko* 2>/dev/null | head -n 1)
	built=$(ls "$root/var/lib/dkms/dice/$1/$kver/$arch/module/"dice.ko* 2>/dev/null | head -n 1)
	echo "installed: ${ko:-none}, built: ${built:-none}"
	[ -n "$ko" ] && [ -n "$built" ] && cmp "$ko" "$built" &&
		R modinfo -F vermagic "/${ko#"$root"/}" | grep "^$kver " || return 1
	# In modules.dep, where there is one or the kernel's own modules are
	# installed: trixie's DKMS (do_depmod) removes the depmod indexes of a
	# kernel without modules of its own (headers only: 7.x in the Debian
	# 13 root) when it removes its last module, as in an upgrade, and
	# then skips depmod for it, since its modules.dep is missing.
	if [ -d "$root/lib/modules/$kver/kernel" ] ||
		[ -e "$root/lib/modules/$kver/modules.dep" ]; then
		grep -q "^updates/dkms/dice.ko" "$root/lib/modules/$kver/modules.dep"
	else
		echo "$kver: headers only in this root, no modules.dep to check"
	fi
}
no_dice_left() { # nothing of ours for DKMS or the kernel
	local st
	st=$(R dkms status -m dice 2>&1)
	echo "dkms status: ${st:-(empty)}"
	[ -z "$st" ] && ! test -e "$root/var/lib/dkms/dice" &&
		! ls -d "$root"/usr/src/dice-* 2>/dev/null &&
		! find "$root/lib/modules" -name 'dice.ko*' | grep . &&
		! grep -qsE '(^|/)dice\.ko' $(for k in $kvers; do echo "$root/lib/modules/$k/modules.dep"; done)
}
none_installed() {
	local p
	for p in $PKGS; do
		! R dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^[a-z][^n]' ||
			{ echo "$p is still known to dpkg"; return 1; }
	done
}

cat >"$root/tmp/prog.c" <<'EOF'
#include <errno.h>
#include <stdio.h>
#include <dice.h>

int main(void)
{
	struct dice_info info;	/* the uapi's, through <dice.h> */
	struct dice *d;
	uint64_t f[5];
	size_t done = 0;
	int i;

	/* No /dev/dice in the root: dice_open() must say so, not fall back. */
	if (dice_open(&d) != -ENOENT)
		return 1;
	if (dice_open_seeded(&d, 42) || dice_set_sides(d, 6) ||
	    dice_get_info(d, &info) || info.sides != 6 ||
	    dice_roll(d, f, 5, &done) || done != 5)
		return 1;
	for (i = 0; i < 5; i++) {
		if (f[i] > 6)
			return 1;
		printf("%llu ", (unsigned long long)f[i]);
	}
	printf("\n");
	dice_close(d);
	return 0;
}
EOF

# ---- the tests, each a function that check runs -------------------------------
install_debs() { R sh -c "apt-get install -y /tmp/debs/$1/*.deb"; }
purge() { R apt-get purge -y $PKGS; }
cli_version() { # VERSION
	local v
	v=$(R dice --version) || return 1
	echo "$v"
	[ "$v" = "dice $1" ]
}
pkg_config() { # VERSION
	local libs mv
	libs=$(R pkg-config --libs libdice) && echo "$libs" &&
		mv=$(R pkg-config --modversion libdice) && echo "$mv" &&
		grep -qx -- '-ldice *' <<<"$libs" && [ "$mv" = "$1" ] &&
		R pkg-config --cflags libdice
}
build_shared() { # OUT: build prog.c as the -dev package says, run it
	R sh -c "cc -Wall -Werror -o $1 /tmp/prog.c \$(pkg-config --cflags --libs libdice)" &&
		R ldd "$1" | grep 'libdice.so.1 => /' && R "$1"
}
build_static() {
	R sh -c 'cc -Wall -Werror -o /tmp/prog-static /tmp/prog.c \
		-Wl,-Bstatic -ldice -Wl,-Bdynamic \
		$(pkg-config --static --libs libdice | sed "s/-ldice//")' &&
		! R ldd /tmp/prog-static | grep libdice && R /tmp/prog-static
}
headers() { # <dice.h>, <dice_notation.h>, the uapi as <libdice/uapi.h>; nothing in the kernel's place
	R dpkg -L libdice-dev | grep '^/usr/include/' &&
		test -f "$root/usr/include/dice.h" &&
		test -f "$root/usr/include/dice_notation.h" &&
		test -f "$root/usr/include/libdice/uapi.h" &&
		! R dpkg -L libdice-dev | grep '^/usr/include/linux'
}
man_pages() {
	ls -l "$root/usr/share/man/man1/dice.1.gz" \
		"$root/usr/share/man/man3/libdice.3.gz" \
		"$root/usr/share/man/man3/dice_open.3.gz" \
		"$root/usr/share/man/man3/dice_expr_parse.3.gz"
}
udev_rule() {
	grep -x 'SUBSYSTEM=="misc", KERNEL=="dice", MODE="0666"' \
		"$root/lib/udev/rules.d/60-dice.rules"
}
all_at() { # VERSION: dpkg has VERSION of the four packages
	local p v
	for p in $PKGS; do
		v=$(R dpkg-query -W -f='${Version}' "$p") || return 1
		echo "$p $v"
		[ "${v%-*}" = "$1" ] || return 1
	done
}
rebuilt() { # OLD NEW: the upgrade replaced OLD's module by NEW's fresh build
	local kver
	dkms_installed "$2" && module_in_place "$2" &&
		! test -e "$root/var/lib/dkms/dice/$1" &&
		! test -e "$root/usr/src/dice-$1" || return 1
	for kver in $kvers; do
		test "$root/var/lib/dkms/dice/$2/$kver/$arch/log/make.log" -nt "$work/upgrade-start" &&
			test "$(ls "$root/lib/modules/$kver/updates/dkms/"dice.ko* | head -n 1)" \
				-nt "$work/upgrade-start" || return 1
	done
}
purged() { no_dice_left && none_installed; }
python_import() { # the module, from Debian's python3, without /dev/dice
	R python3 -c '
import errno, sys, libdice
print(sys.version.split()[0], libdice.__file__)
assert libdice.__file__.startswith("/usr/lib/python3/dist-packages/")
try:
    libdice.Die()
except libdice.DeviceNotFoundError as e:
    print(e)
    assert e.errno == errno.ENOENT and "modprobe dice" in str(e)
else:
    sys.exit("Die() opened something without /dev/dice")
with libdice.Die(weights=[2, 2, 6, 1, 1], seed=42) as d:
    faces = d.roll(1000)
    print(faces[:10], d.stats)
assert set(faces) == {1, 2, 3, 4, 5}
'
}
python_links() { # libdice1's libdice.so.1, found without an rpath; typed
	# Output is captured, then matched: "ldd | tee | grep -q" under
	# pipefail failed when grep quit before ldd's last write (SIGPIPE).
	local so deps
	so=$(R dpkg -L python3-libdice | grep '/_ext\..*\.so$') && echo "$so" &&
		deps=$(R ldd "$so") && echo "$deps" &&
		grep -qE 'libdice\.so\.1 => /(usr/)?lib/' <<<"$deps" &&
		! R readelf -d "$so" | grep -E 'R(UN)?PATH' &&
		R dpkg -L python3-libdice | grep -E '/libdice/(py\.typed|__init__\.pyi|_ext\.pyi)$' |
		wc -l | grep -qx 3
}
python_version() { R python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])'; }

# ---- install ---------------------------------------------------------------------
snapshot >"$work/before"
check "apt-get install ./*.deb: $PKGS $new" \
	install_debs new
check "DKMS built and installed dice/$new for $kvers, the root's kernels" \
	dkms_installed "$new"
check "dice.ko in /lib/modules/KVER/updates/dkms, vermagic KVER, in modules.dep (kernels installed), for each" \
	module_in_place "$new"
check "dice --version prints 'dice $new'" cli_version "$new"
check "dice --seed 42 3d6 rolls with the userspace engine" R dice --seed 42 3d6
check "pkg-config --libs libdice is -ldice, --modversion $new" pkg_config "$new"
check "libdice-dev: <dice.h>, <dice_notation.h> and <libdice/uapi.h>, nothing in /usr/include/linux" headers
check "a program built against libdice-dev links libdice.so.1 and runs" \
	build_shared /tmp/prog
check "the same program links libdice.a (pkg-config --static) and runs" build_static
check "man pages dice(1), libdice(3), dice_open(3), dice_expr_parse(3)" man_pages
check "udev rule 60-dice.rules: misc device dice, mode 0666" udev_rule
if [[ " $PKGS " = *" python3-libdice "* ]]; then
	pyver=$(python_version)
	check "python3-libdice: import libdice in Python $pyver; no /dev/dice: DeviceNotFoundError naming modprobe; a seeded loaded die rolls" \
		python_import
	check "python3-libdice: its extension links libdice1's libdice.so.1, no rpath; py.typed and the .pyi stubs" \
		python_links
fi

# ---- purge -----------------------------------------------------------------------
check "apt-get purge of the packages" purge
check "purge: no DKMS entry, no dice.ko, no /usr/src/dice-*, dpkg knows none" purged
check "purge: every file installed is gone, the root is as before" \
	same_as_before "$work/before"

# ---- upgrade ---------------------------------------------------------------------
check "previous packages ($prev) install" install_debs prev
check "DKMS built and installed dice/$prev for $kvers" dkms_installed "$prev"
build_shared /tmp/prog-prev >"$logs/prog-prev.log" 2>&1
touch "$work/upgrade-start"
sleep 1
check "upgrade $prev -> $new: apt-get install of this version's packages" \
	install_debs new
check "upgrade: dpkg has $new of every package" all_at "$new"
check "upgrade: module rebuilt: dice/$new built and installed for $kvers, dice/$prev gone" \
	rebuilt "$prev" "$new"
check "upgrade: dice --version prints 'dice $new'" cli_version "$new"
check "upgrade: a program built against libdice $prev runs with $new" R /tmp/prog-prev
check "upgrade, then apt-get purge" purge
check "upgrade, purge: no DKMS entry, no dice.ko, dpkg knows none" purged
check "upgrade, purge: the root is as before" same_as_before "$work/before"

echo "# $suite: tests in the root done, $tap_failed failed"
[ "$tap_failed" -eq 0 ]
