/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stream_read.h - read() of /dev/dice over the core's stream, for tests
 *
 * The loop of dice_file_read_iter() (kmod/dice_main.c) without the copy:
 * dice_stream_read_size(), then dice_stream_produce(), dice_stream_bytes()
 * and dice_stream_consume() until the read is served.  After each produce
 * the caller sees the faces just encoded, decoded back, and whether the
 * produce stopped short of what it was asked (a roll failed), so a twin die
 * rolled one face at a time can follow every batch of the shipped code.
 * Used by kmod/tests/regress_test.c and fuzz/fuzz_stream.c.
 */
#ifndef _DICE_STREAM_READ_H
#define _DICE_STREAM_READ_H

#include "dice_stream.h"

/*
 * @faces: the @n faces a produce encoded, zero-based; @stopped: it made
 * fewer bytes than it was asked for, with @err (0 if it made some).
 */
typedef void (*stream_rolled_fn)(void *ctx, const u64 *faces, unsigned int n,
				 bool stopped, int err);

/* The faces of a freshly produced buffer, zero-based. */
static inline unsigned int stream_decode(const struct dice_stream *s,
					 u64 *faces)
{
	u32 format = s->die.format;
	unsigned int width = dice_format_width(format), n = 0, i, b;
	u64 base = format & DICE_FMT_ZERO_BASED ? 0 : 1, v;

	for (i = s->out_start; i < s->out_end; n++) {
		v = 0;
		if (width) {
			for (b = 0; b < width; b++)
				v |= (u64)s->out[i + b] << (8 * b);
			i += width;
		} else {
			while (s->out[i] != '\n')
				v = 10 * v + (s->out[i++] - '0');
			i++;
		}
		faces[n] = v - base;
	}
	return n;
}

/* Bytes dice_stream_produce() makes for @want when no roll fails. */
static inline size_t stream_target(const struct dice_stream *s, size_t want)
{
	unsigned int width = dice_format_width(s->die.format);

	if (width)
		want -= want % width;
	if (want > DICE_OUT_BYTES - (width ? 0 : DICE_TEXT_MAX))
		want = DICE_OUT_BYTES - (width ? 0 : DICE_TEXT_MAX);
	return want;
}

/* Bytes served, or the error; @faces has room for DICE_OUT_BYTES faces. */
static inline long stream_read(struct dice_stream *s, size_t len, u64 *faces,
			       stream_rolled_fn rolled, void *ctx)
{
	size_t done = 0, chunk, target;
	unsigned int n;
	int err;

	err = dice_stream_read_size(s, &len);
	if (err)
		return err;
	while (done < len) {
		dice_stream_bytes(s, &chunk);
		if (!chunk) {
			target = stream_target(s, len - done);
			err = dice_stream_produce(s, len - done);
			dice_stream_bytes(s, &chunk);
			n = stream_decode(s, faces);
			rolled(ctx, faces, n, chunk < target, err);
			if (err)
				break;
		}
		if (chunk > len - done)
			chunk = len - done;
		done += dice_stream_consume(s, chunk, chunk);
	}
	return done ? (long)done : err;
}

#endif /* _DICE_STREAM_READ_H */
