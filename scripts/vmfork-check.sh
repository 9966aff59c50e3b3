#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's VM fork tier: boot the default kernel with dice.ko, save the
# running VM and start two clones of it (selftests/qemu/vmfork.py); the
# clones must roll different dice.  TAP.
set -uo pipefail
: "${TOP:?run from make}" "${B:?}" "${KIMAGE:?}"
W=$B/vmfork
rm -rf "$W"
mkdir -p "$W/extra"
cc -static -O2 -Wall -Wextra -Werror -I"$TOP/kmod/include/uapi" \
	-o "$W/extra/vmfork_guest" "$TOP/selftests/qemu/vmfork_guest.c" ||
	exit 1
printf '#!/bin/sh\nexec /extra/vmfork_guest\n' >"$W/script"
"$TOP"/selftests/qemu/mkinitramfs.sh --out "$W/initrd.gz" \
	--module "$TOP/kmod/dice.ko" --extra "$W/extra" --script "$W/script" \
	--test-timeout 120 >/dev/null || exit 1
exec python3 "$TOP/selftests/qemu/vmfork.py" --kernel "$KIMAGE" \
	--initrd "$W/initrd.gz"
