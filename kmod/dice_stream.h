/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * dice_stream.h - an open file's die and its encoded rolls (dice_stream.c)
 *
 * series: out-of-tree
 * Private to the die core (kmod/dice_*.c), its KUnit suite and its
 * userspace tests and fuzzers; everyone else uses dice_core.h.
 * series: in-tree
 * Private to the die core (dice_*.c) and its KUnit suite; dice_main.c uses
 * dice_core.h.
 * series: end
 */
#ifndef _DICE_STREAM_H
#define _DICE_STREAM_H

#include "dice_die.h"
#include "dice_format.h"

/*
 * Bytes of rolls produced ahead of the copy out: one chunk of a read.
 * 1024 halves the per-chunk work of 512 (d6 U8 in the VM: 0.88 -> 0.94 of
 * /dev/urandom's bytes/s).
 */
#define DICE_OUT_BYTES	1024

/* Faces rolled at once on their way into @out. */
#define DICE_STREAM_FACES	64

/* series: batch */
/* A die and its DICE_METHOD_BATCH state, copied to try a roll on. */
#ifdef DICE_SERIES_CUT /* series: not batch */
/* A die, copied to try a roll on. */
#endif /* series: end */
struct dice_scratch_die {
	struct dice_die die;
	/* series: batch */
	struct dice_batch batch;
	/* series: end */
};

/**
 * struct dice_stream - an open file: its die and the rolls waiting for it
 * @die: configuration and random state
 * @format: DICE_FMT_* type and flags of the rolls read
 * series: batch
 * @scratch: scratch copy of @die (and of its batch state) for
 *	dice_stream_probe(), allocated when the source becomes written bits
 * series: not batch
 * @scratch: scratch copy of @die for dice_stream_probe(), allocated when
 *	the source becomes written bits
 * series: end
 * @out_start: first byte of @out not yet read
 * @out_end: end of the bytes in @out
 * @midline: the last text byte read was no newline: the rest of its line
 *	waits in @out (the bytes read before it are zeroed)
 * @faces: rolls on their way into @out
 * @out: rolls encoded but not yet read: a partly read text line, or what a
 *	faulting copy left behind
 */
struct dice_stream {
	struct dice_die die;
	u32 format;
	struct dice_scratch_die *scratch;
	unsigned int out_start;
	unsigned int out_end;
	bool midline;
	u64 faces[DICE_STREAM_FACES];
	u8 out[DICE_OUT_BYTES];
};

#endif /* _DICE_STREAM_H */
