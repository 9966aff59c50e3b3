#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command inside a cached Debian root (scripts/deb-root.sh), with this
# tree and the build directory at the same paths as outside:
#
#   scripts/in-root.sh ROOT CMD...
#
# The root itself is never written: the command sees an overlay of it whose
# upper layer is a tmpfs, in a private mount and PID namespace (unshare), so
# everything it mounts or writes outside TOP and B is gone when it ends,
# however it ends (a signal to this script kills the namespace).  TOP and
# B (and TMPDIR's /tmp) are bind mounts, writable.  Root only.
set -uo pipefail
ROOT=${1:?usage: in-root.sh ROOT CMD...}
shift
: "${TOP:?run from make}"
B=${B:-$TOP/build}
[ -d "$ROOT/usr" ] || { echo "in-root.sh: no root at $ROOT" >&2; exit 1; }
mkdir -p "$B"
# The mount point of the namespace's tmpfs: one empty directory, shared by
# every run (each mounts its own tmpfs on it, seen by itself alone).
MNT=${DICE_CACHE:-/var/tmp/dice}/in-root
mkdir -p "$MNT"

pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; exit 130' INT TERM
# shellcheck disable=SC2016
unshare --mount --propagation private --pid --fork --kill-child --mount-proc \
	bash -euo pipefail -c '
ROOT=$1 TOP=$2 B=$3 w=$4; shift 4
mount -t tmpfs -o mode=0755 tmpfs "$w"
mkdir "$w/upper" "$w/work" "$w/root"
mount -t overlay overlay -o "lowerdir=$ROOT,upperdir=$w/upper,workdir=$w/work" "$w/root"
r=$w/root
mount -t proc proc "$r/proc"
mount -t tmpfs -o mode=0755 dev "$r/dev"
for d in null zero full random urandom tty; do
	touch "$r/dev/$d"
	mount --bind "/dev/$d" "$r/dev/$d"
done
ln -s /proc/self/fd "$r/dev/fd"
# Pseudo-terminals of its own, as a build chroot has (sbuild): tests that
# run a program in a terminal (script(1)) need them.
mkdir "$r/dev/pts"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$r/dev/pts"
ln -s pts/ptmx "$r/dev/ptmx"
mount -t tmpfs -o mode=1777 tmp "$r/tmp"
for d in "$TOP" "$B"; do
	mkdir -p "$r$d"
	mount --bind "$d" "$r$d"
done
chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	LC_ALL=C.UTF-8 TOP="$TOP" B="$B" sh -c "cd \"\$TOP\" && exec \"\$@\"" sh "$@"
' in-root "$ROOT" "$TOP" "$B" "$MNT" "$@" &
pid=$!
wait "$pid"
exit $?
