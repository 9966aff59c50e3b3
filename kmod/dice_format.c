// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * dice_format.c - faces as read() serves them: text lines or little-endian
 * integers of 1, 2, 4 or 8 bytes, one-based unless DICE_FMT_ZERO_BASED
 *
 * The encodings of the stream (dice_stream.c); the die knows nothing of
 * them.
 */
#include <linux/errno.h>
#include <linux/kernel.h>

#include "dice_format.h"

/**
 * dice_format_width() - bytes per roll of a binary format
 * @format: DICE_FMT_* type and flags, already checked
 *
 * Return: 1, 2, 4 or 8, or 0 for text.
 */
unsigned int dice_format_width(u32 format)
{
	switch (format & DICE_FMT_TYPE_MASK) {
	case DICE_FMT_U8:
		return 1;
	case DICE_FMT_U16:
		return 2;
	case DICE_FMT_U32:
		return 4;
	case DICE_FMT_U64:
		return 8;
	default:
		return 0;
	}
}

/**
 * dice_format_check() - can @format serve a die of @sides sides?
 * @format: DICE_FMT_* type or-ed with DICE_FMT_* flags
 * @sides: number of sides, at least 1
 *
 * Return: 0, -EINVAL for an unknown type or flag, -EOVERFLOW if the largest
 * face does not fit the width.
 */
int dice_format_check(u32 format, u64 sides)
{
	u32 type = format & DICE_FMT_TYPE_MASK;
	unsigned int width;
	u64 top;

	if (format & ~(DICE_FMT_TYPE_MASK | DICE_FMT_FLAGS_MASK))
		return -EINVAL;
	if (type > DICE_FMT_U64)
		return -EINVAL;
	width = dice_format_width(format);
	if (!width || width == 8)
		return 0;
	top = format & DICE_FMT_ZERO_BASED ? sides - 1 : sides;
	if (top >> (8 * width))
		return -EOVERFLOW;
	return 0;
}

/**
 * dice_format_face() - encode one face
 * @format: a format that dice_format_check() accepted for the die
 * @face: zero-based face
 * @buf: room for DICE_TEXT_MAX bytes
 *
 * Return: bytes stored.
 */
unsigned int dice_format_face(u32 format, u64 face, u8 *buf)
{
	unsigned int width = dice_format_width(format), i, len;
	u8 c;

	/* Sides stop at 2^64 - 1, so a 1-based face never wraps. */
	if (!(format & DICE_FMT_ZERO_BASED))
		face++;
	if (width) {
		for (i = 0; i < width; i++)
			buf[i] = (u8)(face >> (8 * i));
		return width;
	}
	/* Lowest digit first, then reversed in place: no copy on the stack. */
	len = 0;
	do {
		buf[len++] = '0' + (u8)(face % 10);
		face /= 10;
	} while (face);
	for (i = 0; i < len / 2; i++) {
		c = buf[i];
		buf[i] = buf[len - 1 - i];
		buf[len - 1 - i] = c;
	}
	buf[len] = '\n';
	return len + 1;
}

/* Little-endian words of a constant width: the compiler merges the bytes. */
static __always_inline unsigned int dice_format_le(const u64 *faces,
						   unsigned int count,
						   u64 base,
						   unsigned int width, u8 *buf)
{
	unsigned int i, b;

	for (i = 0; i < count; i++) {
		u64 v = faces[i] + base;

		for (b = 0; b < width; b++)
			buf[width * i + b] = (u8)(v >> (8 * b));
	}
	return width * count;
}

/**
 * dice_format_faces() - encode @count faces
 * @format: a format that dice_format_check() accepted for the die
 * @faces: zero-based faces
 * @count: how many
 * @buf: room for @count * DICE_TEXT_MAX bytes
 *
 * The read path's loop: one switch per batch, not per face.
 *
 * Return: bytes stored.
 */
unsigned int dice_format_faces(u32 format, const u64 *faces,
			       unsigned int count, u8 *buf)
{
	u64 base = format & DICE_FMT_ZERO_BASED ? 0 : 1;
	unsigned int i, end = 0;

	switch (dice_format_width(format)) {
	case 1:
		for (i = 0; i < count; i++)
			buf[i] = (u8)(faces[i] + base);
		return count;
	case 2:
		return dice_format_le(faces, count, base, 2, buf);
	case 4:
		return dice_format_le(faces, count, base, 4, buf);
	case 8:
		return dice_format_le(faces, count, base, 8, buf);
	}
	for (i = 0; i < count; i++) {
		u64 face = faces[i] + base;

		/* Most dice have one-digit faces: no division for them. */
		if (face < 10) {
			buf[end] = '0' + (u8)face;
			buf[end + 1] = '\n';
			end += 2;
		} else {
			end += dice_format_face(format, faces[i], buf + end);
		}
	}
	return end;
}
