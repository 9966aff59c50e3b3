/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * dice_format.h - faces as read() serves them (dice_format.c)
 *
 * series: out-of-tree
 * Private to the die core (kmod/dice_*.c), its KUnit suite and its
 * userspace tests and fuzzers; everyone else uses dice_core.h.
 * series: in-tree
 * Private to the die core (dice_*.c) and its KUnit suite; dice_main.c uses
 * dice_core.h.
 * series: end
 */
#ifndef _DICE_FORMAT_H
#define _DICE_FORMAT_H

#include <linux/types.h>
#include <linux/dice.h>

#define DICE_TEXT_MAX	21	/* "18446744073709551615\n" */

int dice_format_check(u32 format, u64 sides);
unsigned int dice_format_width(u32 format);
unsigned int dice_format_face(u32 format, u64 face, u8 *buf);
unsigned int dice_format_faces(u32 format, const u64 *faces,
			       unsigned int count, u8 *buf);

#endif /* _DICE_FORMAT_H */
