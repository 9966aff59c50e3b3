/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/* userspace/include/linux/gcd.h - gcd(), binary, as lib/math/gcd.c */
#ifndef _DICE_SHIM_LINUX_GCD_H
#define _DICE_SHIM_LINUX_GCD_H

static inline unsigned long gcd(unsigned long a, unsigned long b)
{
	unsigned long r = a | b;
	unsigned int shift;

	if (!a || !b)
		return r;
	shift = __builtin_ctzl(r);
	b >>= __builtin_ctzl(b);
	for (;;) {
		a >>= __builtin_ctzl(a);
		if (a == b)
			return a << shift;
		if (a < b) {
			unsigned long t = a;

			a = b;
			b = t;
		}
		a -= b;
	}
}

#endif
