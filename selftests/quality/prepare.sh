#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# prepare.sh DIR: fill DIR, for mkinitramfs.sh --extra, with what
# quality.sh runs in the VM: dicecat (built static here), ent and
# dieharder (copied from the host; mkinitramfs.sh copies their shared
# libraries).  Without ent or dieharder (make deps installs them) it says so
# and leaves them out: quality.sh then skips.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
DIR=${1:?usage: prepare.sh DIR}

mkdir -p "$DIR"
${CC:-cc} -static -O2 -Wall -Wextra -Werror -I"$TOP/kmod/include/uapi" \
	-I"$TOP/libdice" \
	-o "$DIR/dicecat" "$HERE/dicecat.c"
for tool in ent dieharder; do
	if path=$(command -v $tool); then
		cp "$path" "$DIR/$tool"
	else
		echo "prepare.sh: $tool not found (make deps); quality.sh will skip" >&2
	fi
done
