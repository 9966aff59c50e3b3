#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What "make demo" shows inside the VM: real rolls from a real /dev/dice.
set -e
PATH=/extra:$PATH
say() { printf '\n$ %s\n' "$*"; }
say ls -l /dev/dice
ls -l /dev/dice
say head -n 5 /dev/dice
head -n 5 /dev/dice
say "dicectl od 256 32 | od -An -tu1   # zero-based d256 as bytes"
dicectl od 256 32 | od -An -tu1
echo
echo "(the kernel's get_random_u32_below() spends 32 bits on every roll)"
for n in 6 20 100 1000003 4294967297 18446744073709551615; do
	say dicectl rolls $n 100000
	dicectl rolls $n 100000
done
say "cat /sys/kernel/debug/dice/{rolls,bits_used,bits_drawn,open_dice}"
for f in rolls bits_used bits_drawn open_dice; do
	printf '%-10s %s\n' "$f" "$(cat /sys/kernel/debug/dice/$f)"
done
