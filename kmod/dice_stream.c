// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * dice_stream.c - an open file of dice: rolls encoded for read(), bits
 * taken from write()
 *
 * series: out-of-tree
 * The module's file operations and libdice's userspace engine both sit on
 * this.
 * series: in-tree
 * The module's file operations sit on this.
 * series: end
 * It produces whole binary rolls or text lines into the stream's
 * buffer, serves them (a text line may be split across reads, a binary roll
 * never), takes written bits for DICE_SRC_WRITTEN, drops what a change of
 * format or source makes stale, and tells whether a roll can be made from
 * the bits written so far.  The caller locks, copies to and from its user
 * (copy_to_iter() or memcpy()) and waits; nothing here sleeps.
 *
 * The encodings themselves are dice_format.c's.
 *
 * Sections: life cycle, reading, writing.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dice_stream.h"

/* ---- life cycle --------------------------------------------------------- */

/**
 * dice_stream_alloc_gfp() - a new open file: a fair d6 in text
 * @fill: source of fresh bits, or NULL for bits given by dice_stream_write()
 * @ctx: argument for @fill
 * @gfp: allocation flags (the module's non-blocking reads pass GFP_NOWAIT)
 *
 * Return: the stream, or NULL without memory.
 */
struct dice_stream *dice_stream_alloc_gfp(dice_fill_fn fill, void *ctx,
					  gfp_t gfp)
{
	struct dice_stream *stream;

	stream = kzalloc_obj(*stream, gfp);
	if (!stream)
		return NULL;
	dice_die_init(&stream->die, fill, ctx);
	stream->format = DICE_FMT_TEXT;
	return stream;
}

/* dice_stream_alloc_gfp() that may sleep, charged to the caller's memcg. */
struct dice_stream *dice_stream_alloc(dice_fill_fn fill, void *ctx)
{
	return dice_stream_alloc_gfp(fill, ctx, GFP_KERNEL_ACCOUNT);
}
EXPORT_SYMBOL_IF_KUNIT(dice_stream_alloc);

/**
 * dice_stream_free() - wipe and free a stream, its die and what it holds
 * @stream: the stream, or NULL
 */
void dice_stream_free(struct dice_stream *stream)
{
	if (!stream)
		return;
	dice_die_wipe(&stream->die);
	kfree(stream->scratch);	/* wiped after each use */
	memzero_explicit(stream, sizeof(*stream));
	kfree(stream);
}
EXPORT_SYMBOL_IF_KUNIT(dice_stream_free);

struct dice_die *dice_stream_die(struct dice_stream *stream)
{
	return &stream->die;
}
EXPORT_SYMBOL_IF_KUNIT(dice_stream_die);

/**
 * dice_stream_info() - the die and its format, for DICE_IOC_GET_DIE
 * @stream: the stream
 * @info: filled in
 */
void dice_stream_info(const struct dice_stream *stream,
		      struct dice_die_info *info)
{
	dice_die_info(&stream->die, info);
	info->format = stream->format;
}

/* Every byte waiting to be read is stale: drop them. */
static void dice_stream_drop_bytes(struct dice_stream *stream)
{
	memzero_explicit(stream->out, stream->out_end);
	stream->out_start = 0;
	stream->out_end = 0;
	stream->midline = false;
}

/*
 * The die changed, or its random state went: drop every roll encoded for
 * it but the rest of a text line a read has begun.  Dropping that would
 * glue the line's first digits to the next die's first face and make a
 * number neither die rolls ("1" of "17\n", then "3\n" of a d6: "13").
 */
static void dice_stream_drop_rolls(struct dice_stream *stream)
{
	unsigned int end = stream->out_start;

	if (dice_format_width(stream->format) || !stream->midline) {
		dice_stream_drop_bytes(stream);
		return;
	}
	while (end < stream->out_end && stream->out[end] != '\n')
		end++;
	end = min(end + 1, stream->out_end);
	memzero_explicit(stream->out + end, stream->out_end - end);
	stream->out_end = end;
}

#ifndef __KERNEL__
/* The setters of one thing each: libdice's userspace engine's. */

/**
 * dice_stream_set_format() - encode the rolls read from now on in @format
 * @stream: the stream
 * @format: DICE_FMT_* type or-ed with flags
 *
 * Bytes still buffered are in the old encoding and are all dropped, the
 * rest of a text line too: the reader asked for another encoding.
 *
 * Return: 0 or the error of dice_format_check(); on error nothing changes.
 */
int dice_stream_set_format(struct dice_stream *stream, u32 format)
{
	int err = dice_format_check(format, stream->die.sides);

	if (err)
		return err;
	stream->format = format;
	dice_stream_drop_bytes(stream);
	return 0;
}
#endif /* !__KERNEL__ */

/**
 * dice_die_args_check() - what DICE_IOC_SET_DIE refuses up front
 * @arg: the die asked for
 *
 * series: loaded
 * Everything that can be refused without reading a table is, before
 * anything is allocated or copied.
 * series: not loaded
 * Everything that can be refused is, before the die changes.
 * series: end
 *
 * Return: 0, -EINVAL,
 * series: loaded
 * then -E2BIG (a loaded die over DICE_TABLE_SIDES_MAX),
 * series: end
 * then -EOVERFLOW (the largest face does not fit the format).
 */
int dice_die_args_check(const struct dice_die_args *arg)
{
	/* series: loaded */
	bool fair = arg->kind == DICE_KIND_FAIR;
	bool alias = arg->kind == DICE_KIND_ALIAS;

	/* series: out-of-tree */
	/* > DICE_METHOD_ALIAS: userspace's REJECTION is no uapi method. */
	/* series: end */
	if (arg->flags || arg->kind > DICE_KIND_ALIAS || !arg->sides ||
	    arg->method > DICE_METHOD_ALIAS)
		return -EINVAL;
	if ((arg->kind != DICE_KIND_WEIGHTS && arg->weights) ||
	    (!alias && (arg->thresholds || arg->aliases || arg->mass)) ||
	    (alias && !arg->mass))
		return -EINVAL;
	if (dice_die_check(arg->sides, !fair, arg->method))
		return -EINVAL;
	if (!fair && arg->sides > DICE_TABLE_SIDES_MAX)
		return -E2BIG;
#ifdef DICE_SERIES_CUT /* series: not loaded */
	if (arg->flags || arg->kind != DICE_KIND_FAIR || arg->weights ||
	    arg->thresholds || arg->aliases || arg->mass ||
	    dice_die_check(arg->sides, arg->method))
		return -EINVAL;
#endif /* series: end */
	return dice_format_check(arg->format, arg->sides);
}

/**
 * dice_stream_set_die() - make the stream's die another die, in one step
 * @stream: the stream
 * series: loaded
 * @sides: sides of a fair die, 1 to 2^64 - 1 (unused when @table is given)
 * @table: a built table for a loaded die, or NULL for a fair one; the die
 *	owns it from here on, even on error.  The die's own table keeps it
 *	loaded as it is.
 * series: not loaded
 * @sides: 1 to 2^64 - 1
 * series: end
 * @method: DICE_METHOD_*
 * @format: DICE_FMT_* type or-ed with flags
 *
 * Everything is checked before anything changes, so the result never
 * depends on what was set before.  Rolls of the old die waiting to be read
 * are dropped (dice_stream_drop_rolls()), and in a new format every byte.
 *
 * Return: 0, -EINVAL (dice_die_check() or dice_format_check()), -EOVERFLOW
 * if the largest face does not fit the format, or -ENOMEM; on error
 * series: loaded
 * nothing changes (a new table is freed).
 * series: not loaded
 * nothing changes.
 * series: end
 */
/* series: loaded */
int dice_stream_set_die(struct dice_stream *stream, u64 sides,
			struct dice_table *table, u32 method, u32 format)
{
	int err = dice_die_check(sides, !!table, method);

	if (!err)
		err = dice_format_check(format, table ? table->sides : sides);
	if (!err)
		err = dice_die_set(&stream->die, sides, table, method);
	else if (table && table != stream->die.table)
		dice_table_free(table);
#ifdef DICE_SERIES_CUT /* series: not loaded */
int dice_stream_set_die(struct dice_stream *stream, u64 sides, u32 method,
			u32 format)
{
	int err = dice_die_check(sides, method);

	if (!err)
		err = dice_format_check(format, sides);
	if (!err)
		err = dice_die_set(&stream->die, sides, method);
#endif /* series: end */
	if (err)
		return err;
	if (format != stream->format) {
		stream->format = format;
		dice_stream_drop_bytes(stream);
	} else {
		dice_stream_drop_rolls(stream);
	}
	return 0;
}

#ifndef __KERNEL__
/* dice_stream_set_die(), a fair die in the same method and format. */
int dice_stream_set_sides(struct dice_stream *stream, u64 sides)
{
	return dice_stream_set_die(stream, sides, NULL, stream->die.method,
				   stream->format);
}

/* dice_stream_set_die(), a loaded die in the same method and format. */
int dice_stream_set_table(struct dice_stream *stream, struct dice_table *table)
{
	return dice_stream_set_die(stream, 0, table, stream->die.method,
				   stream->format);
}

/*
 * dice_stream_set_die(), the same die rolled another way: a reader who
 * changes the method means the next roll to be made the new way.
 */
int dice_stream_set_method(struct dice_stream *stream, u32 method)
{
	return dice_stream_set_die(stream, stream->die.sides, stream->die.table,
				   method, stream->format);
}

/*
 * Roll by another mapping of bits to faces (dice_die_set_mapping()): as for
 * a change of method, rolls already made wait no longer.  The same mapping
 * again changes nothing.
 */
int dice_stream_set_mapping(struct dice_stream *stream, u32 mapping)
{
	int err;

	if (mapping == dice_die_get_mapping(&stream->die))
		return 0;
	err = dice_die_set_mapping(&stream->die, mapping);
	if (!err)
		dice_stream_drop_rolls(stream);
	return err;
}
#endif /* !__KERNEL__ */

/* Written bits: the module's test hook (CONFIG_RANDOM_DICE_TEST_HOOKS). */
#if !defined(__KERNEL__) || defined(CONFIG_RANDOM_DICE_TEST_HOOKS)
/**
 * dice_stream_set_source() - take bits from elsewhere from now on
 * @stream: the stream
 * @fill: the new source, or NULL for bits given by dice_stream_write()
 * @ctx: argument for @fill
 *
 * Rolls waiting to be read came from the old source and are dropped
 * (dice_stream_drop_rolls()), with every bit the die holds
 * (dice_die_set_source()).  Written bits get the scratch die that
 * dice_stream_probe() tries rolls on, so that poll() never allocates.
 *
 * Return: 0, or -ENOMEM (the source is unchanged).
 */
int dice_stream_set_source(struct dice_stream *stream, dice_fill_fn fill,
			   void *ctx)
{
	if (!fill && !stream->scratch) {
		stream->scratch = kmalloc_obj(*stream->scratch,
					      GFP_KERNEL_ACCOUNT);
		if (!stream->scratch)
			return -ENOMEM;
	}
	dice_die_set_source(&stream->die, fill, ctx);
	dice_stream_drop_rolls(stream);
	return 0;
}
#endif

/**
 * dice_stream_drop_random() - forget every random bit the stream holds
 * @stream: the stream
 *
 * For a machine or process that may have been cloned (a VM fork, fork()):
 * the die's bits and state go (dice_die_drop_random()), and so does every
 * roll encoded from them, binary or text, but the rest of a text line a
 * read has begun (dice_stream_drop_rolls()).
 */
void dice_stream_drop_random(struct dice_stream *stream)
{
	dice_die_drop_random(&stream->die);
	dice_stream_drop_rolls(stream);
}

/* ---- reading ------------------------------------------------------------ */

/**
 * dice_stream_whole() - @len cut to whole binary rolls
 * @stream: the stream
 * @len: bytes a read asks for
 *
 * Return: @len less what does not make a whole roll; @len in text.
 */
size_t dice_stream_whole(const struct dice_stream *stream, size_t len)
{
	unsigned int width = dice_format_width(stream->format);

	return width ? len - len % width : len;
}

/**
 * dice_stream_read_size() - how much of a read of @len bytes to serve
 * @stream: the stream
 * @len: bytes asked for, cut to whole binary rolls on return
 *
 * Bytes left from an earlier read are served first, whatever @len.
 *
 * Return: 0, or -EINVAL for a binary read shorter than one roll.
 */
int dice_stream_read_size(struct dice_stream *stream, size_t *len)
{
	size_t whole = dice_stream_whole(stream, *len);

	if (stream->out_start != stream->out_end)
		return 0;
	if (*len && !whole)
		return -EINVAL;
	*len = whole;
	return 0;
}

/* Decimal digits of the largest face, plus the newline. */
static unsigned int dice_text_line_max(const struct dice_stream *stream)
{
	u64 sides = stream->die.sides;
	u64 top = stream->format & DICE_FMT_ZERO_BASED ? sides - 1 : sides;
	unsigned int len = 2;

	while (top >= 10) {
		top /= 10;
		len++;
	}
	return len;
}

/**
 * dice_stream_produce() - encode rolls for the next @want bytes of a read
 * @stream: the stream
 * @want: bytes the read still wants, at least 1
 *
 * Does nothing while bytes wait.  Else fills the buffer with whole binary
 * rolls up to @want bytes, or text lines until @want bytes are there (the
 * last line may run past @want and wait for the next read).  Rolls are made
 * a batch at a time, never more than the read asked for; a d6 in U8 goes
 * straight from the die into the buffer.
 *
 * Return: 0 when bytes wait, or the roll's error when none could be made.
 */
int dice_stream_produce(struct dice_stream *stream, size_t want)
{
	struct dice_die *die = &stream->die;
	unsigned int width = dice_format_width(stream->format);
	unsigned int line = width ? width : dice_text_line_max(stream);
	u8 base = stream->format & DICE_FMT_ZERO_BASED ? 0 : 1;
	unsigned int end = 0, count, used = 0;
	int got = 0;

	if (stream->out_start != stream->out_end)
		return 0;
	if (width)
		want = min_t(size_t, want - want % width, DICE_OUT_BYTES);
	else
		want = min_t(size_t, want, DICE_OUT_BYTES - DICE_TEXT_MAX);
	while (end < want) {
		if (width == 1) {
			got = dice_die_roll_u8(die, stream->out + end,
					       want - end, base);
			if (got < 0)
				break;
			end += got;
			continue;
		}
		count = max_t(unsigned int, (want - end) / line, 1);
		count = min_t(unsigned int, count, DICE_STREAM_FACES);
		used = max(used, count);
		got = dice_die_roll_many(die, stream->faces, count);
		if (got < 0)
			break;
		end += dice_format_faces(stream->format, stream->faces, got,
					 stream->out + end);
	}
	/* The faces are in @out now: none stays behind in @faces. */
	memzero_explicit(stream->faces, sizeof(*stream->faces) * used);
	/* Nor a byte of an earlier, longer chunk past the new end. */
	if (stream->out_end > end)
		memzero_explicit(stream->out + end, stream->out_end - end);
	stream->out_start = 0;
	stream->out_end = end;
	return end ? 0 : got;
}

/**
 * dice_stream_bytes() - the bytes waiting to be read
 * @stream: the stream
 * @len: how many
 *
 * Return: where they are.
 */
const u8 *dice_stream_bytes(const struct dice_stream *stream, size_t *len)
{
	*len = stream->out_end - stream->out_start;
	return stream->out + stream->out_start;
}

/**
 * dice_stream_consume() - @copied of the @offered bytes were read
 * @stream: the stream
 * @copied: bytes the copy out delivered
 * @offered: bytes it was given, from dice_stream_bytes()
 *
 * A short copy (a fault) in a binary format keeps whole rolls only: the
 * torn roll and the rest of the buffer are dropped, never served.  A text
 * read keeps the rest for the next read.
 *
 * Return: the bytes that count as read: @copied, less a torn roll's.
 */
size_t dice_stream_consume(struct dice_stream *stream, size_t copied,
			   size_t offered)
{
	unsigned int width = dice_format_width(stream->format);

	stream->out_start += copied;
	if (!width && copied)
		stream->midline = stream->out[stream->out_start - 1] != '\n';
	if (copied == offered || !width)
		return copied;
	stream->out_start = stream->out_end;
	return copied - copied % width;
}

/*
 * The text a read of @room more bytes takes from @bytes (more than @room
 * wait): whole lines only, so that readers sharing a file never split a
 * line between them.  A read that has nothing yet and no room for the
 * next line (a buffer shorter than DICE_TEXT_MAX) takes the start of it,
 * and the rest goes to the file's next read.
 */
static size_t dice_text_fit(const u8 *bytes, size_t room, size_t done)
{
	size_t end = room;

	while (end && bytes[end - 1] != '\n')
		end--;
	if (!end && !done)
		return room;
	return end;
}

/**
 * dice_stream_read_chunk() - serve the next chunk of a read
 * @stream: the stream
 * @read: the read: what it wants, what it has, how to copy
 *
 * The one step of every read loop (the module's read_iter, and
 * dice_stream_read() for memory): rolls are produced if none wait
 * (dice_stream_produce()), the bytes waiting, no more than the read still
 * wants, go to @read->copy, and what it delivered is booked
 * (dice_stream_consume()).  Text is served in whole lines
 * (dice_text_fit()): a read ends early, @read->len cut, when the next line
 * does not fit.  Callers check signals, forks and the scheduler between
 * steps.
 *
 * Return: 0 with @read->done advanced; -EFAULT when the copy came short,
 * with @read->done advanced by the whole rolls it delivered and
 * @read->torn set to the bytes of a torn roll the caller takes back; or the
 * roll's error, nothing served.
 */
int dice_stream_read_chunk(struct dice_stream *stream, struct dice_read *read)
{
	size_t chunk, copied, kept, want = read->len - read->done;
	const u8 *bytes;
	int err;

	read->torn = 0;
	err = dice_stream_produce(stream, want);
	if (err)
		return err;
	/*
	 * The rest of a line another read began (while this one had dropped
	 * the lock) is no whole line: it goes to the next read.
	 */
	if (stream->midline && read->done) {
		read->len = read->done;
		return 0;
	}
	bytes = dice_stream_bytes(stream, &chunk);
	if (chunk > want && !dice_format_width(stream->format)) {
		chunk = dice_text_fit(bytes, want, read->done);
		/* The next line does not fit: the read ends here. */
		read->len = read->done + chunk;
	}
	chunk = min(chunk, want);
	if (!chunk)
		return 0;
	/*
	 * A copy may wait on a page fault (userfaultfd) for as long as the
	 * reader likes: the bits these rolls spent do not wait with it.
	 */
	dice_pool_scrub(&stream->die.pool);
	copied = read->copy(read->ctx, bytes, chunk);
	kept = dice_stream_consume(stream, copied, chunk);
	read->done += kept;
	if (copied == chunk)
		return 0;
	read->torn = copied - kept;
	return -EFAULT;
}
EXPORT_SYMBOL_IF_KUNIT(dice_stream_read_chunk);

/**
 * dice_stream_scrub() - zero what a read has served and spent
 * @stream: the stream
 *
 * Called when a read returns: the pool's spent bits and the encoded bytes
 * already read are zeroed, so that between reads the file holds only what
 * the next rolls need (the recycled state, unspent bits of the last draw,
 * and the rest of a line a short read began; with written bits, which are
 * not trimmed, faces drawn together too).
 */
void dice_stream_scrub(struct dice_stream *stream)
{
	dice_pool_scrub(&stream->die.pool);
	if (stream->out_start == stream->out_end)
		dice_stream_drop_bytes(stream);
	else
		memzero_explicit(stream->out, stream->out_start);
}

/**
 * dice_stream_trim() - hold no more than the next roll needs
 * @stream: the stream, between reads
 * @keep: unspent bits to keep in the pool (dice_pool_trim())
 *
 * The die keeps nothing it drew for rolls not yet asked for
 * (dice_die_trim()), so that no more than a read's own use waits between
 * reads.
 */
void dice_stream_trim(struct dice_stream *stream, unsigned int keep)
{
	dice_die_trim(&stream->die, keep);
}

static size_t dice_copy_to_memory(void *ctx, const u8 *bytes, size_t len)
{
	u8 **to = ctx;

	memcpy(*to, bytes, len);
	*to += len;
	return len;
}

/**
 * dice_stream_read() - read rolls into memory
 * @stream: the stream
 * @buf: where the bytes go
 * @len: bytes wanted
 * @done: bytes stored
 *
 * As read() of the device, for callers that copy with memcpy(): whole
 * binary rolls, text in whole lines (dice_text_fit()).
 *
 * Return: 0, or the error that stopped the read (with *@done bytes read).
 */
int dice_stream_read(struct dice_stream *stream, u8 *buf, size_t len,
		     size_t *done)
{
	struct dice_read read = {
		.len = len,
		.copy = dice_copy_to_memory,
		.ctx = &buf,
	};
	int err;

	err = dice_stream_read_size(stream, &read.len);
	while (!err && read.done < read.len)
		err = dice_stream_read_chunk(stream, &read);
	dice_stream_scrub(stream);
	*done = read.done;
	return err;
}

/* ---- writing: bits for DICE_SRC_WRITTEN ---------------------------------- */

/* The module's test hook only (CONFIG_RANDOM_DICE_TEST_HOOKS). */
#if !defined(__KERNEL__) || defined(CONFIG_RANDOM_DICE_TEST_HOOKS)

/**
 * dice_stream_room() - whole bytes the bit buffer takes now
 * @stream: the stream
 *
 * Return: how many.
 */
size_t dice_stream_room(const struct dice_stream *stream)
{
	return dice_pool_room(&stream->die.pool) / 8;
}

/**
 * dice_stream_write() - take written bytes as bits for later rolls
 * @stream: the stream
 * @buf: the bytes, spent in order, each byte's most significant bit first
 * @len: how many
 *
 * Return: how many were taken: @len, or the room there was.
 */
size_t dice_stream_write(struct dice_stream *stream, const u8 *buf,
			 size_t len)
{
	struct dice_pool *pool = &stream->die.pool;
	size_t i, word;
	u64 bits;

	len = min(len, dice_stream_room(stream));
	for (i = 0; i + 8 <= len; i += 8) {
		bits = 0;
		for (word = 0; word < 8; word++)
			bits = (bits << 8) | buf[i + word];
		dice_pool_put(pool, bits, 64);
	}
	for (; i < len; i++)
		dice_pool_put(pool, buf[i], 8);
	return len;
}

/**
 * dice_stream_probe() - could a read make a roll from the written bits now?
 * @stream: the stream
 * @wedged: set when the bits fill the pool and can never complete the
 *	roll: the read that follows discards them (dice_die_failed()) and
 *	fails with -EAGAIN, and the file turns writable
 *
 * Bytes waiting make a read possible.  Else the same roll is made on a copy
 * of the die (plain data; the table it points to is only read), wiped after
 * use: the stream itself is left as it was.
 *
 * Return: 0 if a read would serve something or the die has no scratch copy
 * (the read then tells), -EAGAIN if the bits do not suffice, or the roll's
 * other error (a read would return it at once).
 */
int dice_stream_probe(struct dice_stream *stream, bool *wedged)
{
	struct dice_die *probe;
	u64 face;
	int got;

	*wedged = false;
	if (stream->out_start != stream->out_end || !stream->scratch)
		return 0;
	probe = &stream->scratch->die;
	memcpy(probe, &stream->die, sizeof(*probe));
	/* series: batch */
	if (stream->die.batch) {
		memcpy(&stream->scratch->batch, stream->die.batch,
		       sizeof(stream->scratch->batch));
		probe->batch = &stream->scratch->batch;
	}
	/* series: end */
	if (dice_format_width(stream->format) == 1)
		got = dice_die_roll_u8(probe, (u8 *)&face, 1, 0);
	else
		got = dice_die_roll_many(probe, &face, 1);
	*wedged = got == -EAGAIN &&
		  probe->pool.discarded != stream->die.pool.discarded;
	memzero_explicit(stream->scratch, sizeof(*stream->scratch));
	memzero_explicit(&face, sizeof(face));
	return got < 0 ? got : 0;
}
#endif
