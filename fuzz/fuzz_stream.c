// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_stream.c - libFuzzer target: one die carried through a sequence of
 * reconfigurations and rolls, as an open file of /dev/dice sees them
 *
 * The die keeps its state across every change (recycled randomness, faces
 * drawn and not yet served, bits in its pool), and the bugs that live there
 * show only when a die of one width or grouping is followed by another:
 * a wide fair die left m at 2^100 and the next die, a grouped {1, 1},
 * looped forever in the kernel.  fuzz_alias makes one fresh die per input;
 * this target never starts afresh.
 *
 * Two dice get the same operations and the same bits: die A is the die of
 * a core stream (dice_stream.c), read the way the module reads it, through
 * the very produce and consume calls of its read() (kmod/tests/
 * stream_read.h), written the way its write() writes, or rolled by
 * dice_die_roll(), dice_die_roll_many() and dice_die_roll_u8() called
 * directly; die B only ever by dice_die_roll(), one face at a time.
 *
 * Input: a sequence of operations, an opcode byte (modulo OP_NR) and its
 * argument bytes; reading past the end gives zeros, so every input is
 * valid and mutations of one byte stay mostly in step.  fuzz/mkcorpus.py
 * writes the seeds and documents the encoding again.
 *
 *   OP_SIDES    sel: sel < NSPECIAL: special_sides[sel]; < 0x80: 1 + byte;
 *               < 0xc0: 1 + 2 bytes; else 8 bytes (0 must be refused)
 *   OP_WEIGHTS  sel byte: below NPRESET, preset_weights[sel]; else n is
 *               1 + byte mod 16 (sel bit 7: 1 + 2 bytes mod 4096), then a
 *               mode byte (weights of 1 + mode mod 4 bytes; mode bits 2-3:
 *               any, mostly zero, all equal, powers of two) and a seed byte
 *   OP_ALIAS    sel byte, mode byte: n = 1 + sel mod 32 (mode bit 7:
 *               1 + (sel + 256 * next byte) mod 4096); a seed byte; the
 *               mass is masses[mode mod 12] (a random one, maybe 0, when
 *               mode bits 4-6 are all set), thresholds by mode bits 4-5
 *               (any, the mass, 0, halves), one bad column when mode bits
 *               2-3 are both set
 *   OP_METHOD   byte mod 8 (5 to 7 must be refused)
 *   OP_FORMAT   byte: type (bits 0-2) mod 6 (5 must be refused), bit 3
 *               DICE_FMT_ZERO_BASED, bits 4-7 all set: an unknown flag
 *   OP_SOURCE   byte: odd: written bits; even: a PRNG like the CRNG,
 *               seeded with the byte and the next one
 *   OP_WRITE    length byte (0xf0 and up: 2 more bytes), content byte mod
 *               4 (input bytes, PRNG, all ones, all zeros), as write()
 *   OP_READ     length byte: below 0x40, 1 + byte; below 0x80, 65 + 4 times
 *               the next byte; below 0xc0, 64 times 1 + byte mod 16; else
 *               1 + 2 more bytes mod 8192 (8 KiB), as read()
 *   OP_ROLL     one dice_die_roll()
 *   OP_MANY     1 + byte faces with dice_die_roll_many()
 *   OP_U8       1 + 2 bytes mod 2048 faces with dice_die_roll_u8() (a U8
 *               format only; else dice_die_roll_many() of up to 256)
 *   OP_FAULT    a read as OP_READ whose buffer faults after 1 + byte
 *               bytes (the second hostile audit's first step)
 *   OP_FORK     a VM fork: dice_stream_drop_random() of A, and
 *               dice_die_drop_random() of B
 *   OP_FORK_READ  a read as OP_READ, then a byte: a VM fork comes before
 *               its chunk 1 + byte mod 8 (a file on the PRNG only, as the
 *               module drops only what came from the CRNG)
 *
 * Checked after every operation, on both dice:
 *  - dice_die_invalid() is NULL and the core never warned
 *    (dice_core_warnings, a loop bound broken);
 *  - a configuration call returns the same on both, and 0 or only the
 *    errors it documents;
 *  - faces are below the sides and never a side without mass (worked out
 *    here from the weights or columns given); a roll fails only with
 *    -EAGAIN and only on written bits;
 *  - die A's faces equal die B's, one by one: where A stopped early, B's
 *    next roll fails too; GET_INFO and GET_STATS of the two are equal
 *    (rolls, bits used, drawn, discarded, coin bits);
 *  - after a change of die, method, source or format and after a fork,
 *    nothing encoded before waits in A's stream but the rest of a text
 *    line a read began (none after a change of format);
 *  - work is bounded: the PRNG source aborts once one operation has drawn
 *    more than 16 pools a face (128 under DICE_METHOD_BATCH, which keeps
 *    rejected tries) where a roll takes at most one pool, so a runaway
 *    loop that spends bits fails at once; one that spends none becomes a
 *    libFuzzer timeout (check.sh runs with -timeout=10).
 *
 * FUZZ_STREAM_TRACE=1 in the environment prints each step and the die it
 * left, to read an artifact: build/fuzz/fuzz_stream FILE.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "stream_read.h"

#define MAX_OPS		256
#define MAX_FACES	(1U << 17)	/* per input, so that runs stay short */
#define MAX_TABLE	4096

enum {
	OP_SIDES,
	OP_WEIGHTS,
	OP_ALIAS,
	OP_METHOD,
	OP_FORMAT,
	OP_SOURCE,
	OP_WRITE,
	OP_READ,
	OP_ROLL,
	OP_MANY,
	OP_U8,
	OP_FAULT,
	OP_FORK,
	OP_FORK_READ,
	OP_NR
};

static const char *const op_name[OP_NR] = {
	"sides", "weights", "alias", "method", "format", "source", "write",
	"read", "roll", "roll_many", "roll_u8", "fault", "fork", "fork_read",
};

/* Dice whose state or width is an edge: kept in mkcorpus.py's order. */
static const u64 special_sides[] = {
	1, 2, 3, 6, 7, 10, 255, 256, 257, 1000003,
	(1ULL << 31) - 1, (1ULL << 32) - 1, 1ULL << 32, (1ULL << 32) + 1,
	3ULL << 30, (1ULL << 40) + 1, (1ULL << 40) - 1, (1ULL << 53) + 1,
	(1ULL << 62) + 1, 3ULL << 62, (1ULL << 63) - 1, 1ULL << 63,
	(1ULL << 63) + 1, 1000000000000000009ULL, U64_MAX - (1ULL << 54),
	U64_MAX - 1, U64_MAX,
};

#define NSPECIAL	ARRAY_SIZE(special_sides)

struct preset {
	u32 n;
	u32 w[6];
};

/* Grouped dice with few cells, and a few that are not. */
static const struct preset preset_weights[] = {
	{ 2, { 1, 1 } },
	{ 5, { 2, 2, 6, 1, 1 } },
	{ 3, { 1, 2, 3 } },
	{ 3, { 1, 0, 1 } },
	{ 2, { 0, 1 } },
	{ 1, { 7 } },
	{ 2, { 3, 1 } },
	{ 6, { 1, 1, 1, 1, 1, 1 } },
	{ 4, { 5, 0, 0, 7 } },
	{ 3, { U32_MAX, 1, U32_MAX } },
	{ 2, { 1, U32_MAX } },
	{ 6, { 1, 2, 3, 4, 5, 6 } },
};

#define NPRESET		ARRAY_SIZE(preset_weights)

/* ---- input ----------------------------------------------------------------- */

static u64 mix(u64 *s)
{
	u64 x = (*s += 0x9e3779b97f4a7c15ULL);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* ---- the two dice and their sources ---------------------------------------- */

/*
 * A source like the CRNG: whole words on demand.  It counts what one
 * operation draws and stops a runaway loop at @limit words.
 */
struct src {
	u64 state;
	u64 words;
	u64 limit;
	u64 calls;
};

struct side {
	struct dice_die *die;
	struct src src;
	bool written;
	const char *name;
};

struct stream {
	struct side a;		/* rolled as the module rolls */
	struct side b;		/* rolled one face at a time */
	struct dice_stream *as;	/* A's open file: its die and read-ahead */
	struct dice_die bdie;
	u32 b_format;		/* the format A's stream should have */
	u64 faces[2048];		/* OP_U8 rolls up to 2048 at once */
	u8 bytes[2048];
	u32 weights[MAX_TABLE];
	u64 thr[MAX_TABLE];
	u32 alias[MAX_TABLE];
	/* which sides of the loaded die have mass, worked out here */
	bool has_mass[MAX_TABLE];
	bool loaded;
	unsigned long nfaces;
	unsigned int step;
	int op;
};

static struct stream *cur;	/* for messages */

static int src_fill(void *ctx, u64 *words, unsigned int nwords)
{
	struct src *s = ctx;
	unsigned int i;

	s->calls++;
	s->words += nwords;
	CHECK(s->words <= s->limit,
	      "step %u (%s): %llu words drawn in %llu refills, bound %llu: a runaway loop",
	      cur->step, op_name[cur->op], (unsigned long long)s->words,
	      (unsigned long long)s->calls, (unsigned long long)s->limit);
	for (i = 0; i < nwords; i++)
		words[i] = mix(&s->state);
	return nwords;
}

static void side_source(struct side *sd, bool written, u64 seed)
{
	sd->written = written;
	sd->src.state = seed;
	if (sd == &cur->a)
		dice_stream_set_source(cur->as, written ? NULL : src_fill,
				       &sd->src);
	else
		dice_die_set_source(sd->die, written ? NULL : src_fill,
				    &sd->src);
}

/* Allow @faces faces' worth of work to the coming operation. */
static void budget(struct stream *st, u64 faces)
{
	u64 per = st->a.die->method == DICE_METHOD_BATCH ? 128 : 16;
	struct side *sd[2] = { &st->a, &st->b };
	int i;

	for (i = 0; i < 2; i++) {
		sd[i]->src.words = 0;
		sd[i]->src.calls = 0;
		sd[i]->src.limit = (faces + 1) * per * DICE_POOL_WORDS;
	}
}

/* ---- checks ------------------------------------------------------------------- */

static void check_die(struct stream *st, const struct side *sd)
{
	const char *why = dice_die_invalid(sd->die);
	struct dice_die_stats s;

	CHECK(!why, "step %u (%s): die %s invalid: %s", st->step,
	      op_name[st->op], sd->name, why);
	CHECK(!dice_core_warnings,
	      "step %u (%s): die %s: a loop bound was broken (%lu warnings)",
	      st->step, op_name[st->op], sd->name, dice_core_warnings);
	dice_die_stats(sd->die, &s);
	CHECK(s.bits_used + s.bits_discarded <= s.bits_drawn &&
	      s.coin_bits <= s.bits_used,
	      "step %u (%s): die %s: used %llu discarded %llu drawn %llu coin %llu",
	      st->step, op_name[st->op], sd->name,
	      (unsigned long long)s.bits_used,
	      (unsigned long long)s.bits_discarded,
	      (unsigned long long)s.bits_drawn,
	      (unsigned long long)s.coin_bits);
}

/* The two dice say the same in GET_INFO and GET_STATS. */
static void check_same(struct stream *st)
{
	struct dice_die_info ia, ib;
	struct dice_die_stats sa, sb;

	check_die(st, &st->a);
	check_die(st, &st->b);
	dice_stream_info(st->as, &ia);
	dice_die_info(st->b.die, &ib);
	ib.format = st->b_format;
	CHECK(!memcmp(&ia, &ib, sizeof(ia)),
	      "step %u (%s): info differs: sides %llu/%llu kind %u/%u format %#x/%#x method %u/%u",
	      st->step, op_name[st->op], (unsigned long long)ia.sides,
	      (unsigned long long)ib.sides, ia.kind, ib.kind, ia.format,
	      ib.format, ia.method, ib.method);
	dice_die_stats(st->a.die, &sa);
	dice_die_stats(st->b.die, &sb);
	CHECK(!memcmp(&sa, &sb, sizeof(sa)),
	      "step %u (%s): stats differ: rolls %llu/%llu used %llu/%llu drawn %llu/%llu discarded %llu/%llu coin %llu/%llu",
	      st->step, op_name[st->op], (unsigned long long)sa.rolls,
	      (unsigned long long)sb.rolls, (unsigned long long)sa.bits_used,
	      (unsigned long long)sb.bits_used,
	      (unsigned long long)sa.bits_drawn,
	      (unsigned long long)sb.bits_drawn,
	      (unsigned long long)sa.bits_discarded,
	      (unsigned long long)sb.bits_discarded,
	      (unsigned long long)sa.coin_bits,
	      (unsigned long long)sb.coin_bits);
}

static void check_face(struct stream *st, const struct dice_die *die,
		       u64 face)
{
	CHECK(face < die->sides, "step %u (%s): face %llu of a d%llu",
	      st->step, op_name[st->op], (unsigned long long)face,
	      (unsigned long long)die->sides);
	CHECK(!die->table == !st->loaded, "step %u (%s): %s die, want %s",
	      st->step, op_name[st->op], die->table ? "loaded" : "fair",
	      st->loaded ? "loaded" : "fair");
	if (st->loaded)
		CHECK(st->has_mass[face],
		      "step %u (%s): side %llu of %llu has no mass but came up",
		      st->step, op_name[st->op], (unsigned long long)face,
		      (unsigned long long)die->sides);
}

/* A roll fails only when written bits run out. */
static void check_err(struct stream *st, const struct side *sd, int err)
{
	CHECK(err == -EAGAIN && sd->written,
	      "step %u (%s): die %s: roll failed with %d (%s bits)", st->step,
	      op_name[st->op], sd->name, err,
	      sd->written ? "written" : "PRNG");
}

/*
 * Die A made @got faces (or failed with @got < 0) of @count asked: die B
 * rolls them one by one and must agree, and where A stopped early B's next
 * roll must fail too.
 */
static void follow(struct stream *st, const u64 *faces, int got,
		   unsigned int count)
{
	unsigned int i, n = got > 0 ? (unsigned int)got : 0;
	u64 face;
	int err;

	CHECK(got != 0 && (got < 0 || (unsigned int)got <= count),
	      "step %u (%s): %d faces of %u", st->step, op_name[st->op], got,
	      count);
	if (got < 0)
		check_err(st, &st->a, got);
	for (i = 0; i < n; i++) {
		check_face(st, st->a.die, faces[i]);
		err = dice_die_roll(st->b.die, &face);
		CHECK(!err && face == faces[i],
		      "step %u (%s): face %u of %u: A rolled %llu, B one by one %llu (error %d)",
		      st->step, op_name[st->op], i, n,
		      (unsigned long long)faces[i], (unsigned long long)face,
		      err);
	}
	st->nfaces += n;
	if (n == count)
		return;
	err = dice_die_roll(st->b.die, &face);
	CHECK(err < 0,
	      "step %u (%s): A stopped after %u of %u faces, B rolled on (%llu)",
	      st->step, op_name[st->op], n, count, (unsigned long long)face);
	check_err(st, &st->b, err);
	CHECK(got > 0 || err == got,
	      "step %u (%s): A failed with %d, B with %d", st->step,
	      op_name[st->op], got, err);
}

/* Bytes of a U8 format back to zero-based faces. */
static void unbyte(struct stream *st, const u8 *bytes, int got)
{
	u64 base = st->as->format & DICE_FMT_ZERO_BASED ? 0 : 1;
	int i;

	for (i = 0; i < got; i++) {
		CHECK(bytes[i] >= base, "step %u (%s): byte %u, one-based",
		      st->step, op_name[st->op], bytes[i]);
		st->faces[i] = bytes[i] - base;
	}
}

/* ---- the read path of dice_main.c ---------------------------------------------- */

static int roll_u8(struct stream *st, u8 *out, unsigned int count)
{
	int got = dice_die_roll_u8(st->a.die, out, count,
				   st->as->format & DICE_FMT_ZERO_BASED ? 0 : 1);

	if (got > 0)
		unbyte(st, out, got);
	follow(st, st->faces, got, count);
	return got;
}

static int roll_many(struct stream *st, unsigned int count)
{
	int got = dice_die_roll_many(st->a.die, st->faces, count);

	follow(st, st->faces, got, count);
	return got;
}

/* A produce of A's stream made @n faces, and maybe @stopped short. */
static void produced(void *ctx, const u64 *faces, unsigned int n,
		     bool stopped, int err)
{
	struct stream *st = ctx;

	follow(st, faces, n ? (int)n : err, stopped ? n + 1 : n);
}

static void check_stale(struct stream *st, bool line);

/* The VM forked between two chunks of a read: B drops what A dropped. */
static void forked(void *ctx)
{
	struct stream *st = ctx;

	dice_die_drop_random(st->b.die);
	check_stale(st, true);
}

/*
 * read() of the module, without the copy: what the die sees of it; the
 * copy faults after @room bytes, and a fork comes before chunk @fork_at
 * (from 1; 0 for none) of a file on the CRNG, as the module checks.
 */
static void do_read(struct stream *st, u64 len, size_t room,
		    unsigned int fork_at)
{
	struct stream_read_opts opts = {
		.room = room,
		.fork_at = st->a.written ? 0 : fork_at,
		.forked = forked,
	};
	long got = stream_read(st->as, len, &opts, st->faces, produced, st);

	CHECK(got > 0 || got == -EAGAIN || got == -EINVAL || got == -EFAULT,
	      "step %u (%s): read of %llu: %ld", st->step, op_name[st->op],
	      (unsigned long long)len, got);
}

/* write() of the module: whole bytes while the pool has room. */
static void do_write(struct stream *st, struct in *in)
{
	u64 len = get(in, 1), seed, i, n;
	unsigned int mode, room;
	u8 byte;

	if (len >= 0xf0)
		len = 1 + get(in, 2);
	else
		len++;
	mode = get(in, 1);
	seed = mode;
	mode %= 4;
	room = dice_pool_room(&st->a.die->pool);
	CHECK(room == dice_pool_room(&st->b.die->pool),
	      "step %u (write): room %u and %u", st->step, room,
	      dice_pool_room(&st->b.die->pool));
	if (!st->a.written)
		return;		/* -EINVAL */
	n = len < room / 8 ? len : room / 8;
	for (i = 0; i < len; i++) {
		switch (mode) {
		case 0:
			byte = (u8)get(in, 1);
			break;
		case 1:
			byte = (u8)mix(&seed);
			break;
		case 2:
			byte = 0xff;
			break;
		default:
			byte = 0;
		}
		if (i < n) {
			dice_stream_write(st->as, &byte, 1);
			dice_pool_put(&st->b.die->pool, byte, 8);
		} else if (mode != 0) {
			break;
		}
	}
}

/* ---- configuration ----------------------------------------------------------- */

/*
 * After a change or a fork A's stream holds nothing encoded before it but
 * the rest of a text line a read began, and not that after a change of
 * format (@line false).
 */
static void check_stale(struct stream *st, bool line)
{
	const struct dice_stream *s = st->as;
	unsigned int i, newlines = 0;

	if (s->out_start == s->out_end)
		return;
	for (i = s->out_start; i < s->out_end; i++)
		newlines += s->out[i] == '\n';
	CHECK(line && !dice_format_width(s->format) && s->midline &&
	      newlines == 1 && s->out[s->out_end - 1] == '\n',
	      "step %u (%s): %u bytes encoded before the change kept",
	      st->step, op_name[st->op], s->out_end - s->out_start);
}

static void set_sides(struct stream *st, struct in *in)
{
	u64 sel = get(in, 1), sides;
	int ea, eb;

	if (sel < NSPECIAL)
		sides = special_sides[sel];
	else if (sel < 0x80)
		sides = 1 + get(in, 1);
	else if (sel < 0xc0)
		sides = 1 + get(in, 2);
	else
		sides = get(in, 8);
	ea = dice_stream_set_sides(st->as, sides);
	/* B is a bare die: the format is checked as the stream does. */
	eb = sides ? dice_format_check(st->b_format, sides) : 0;
	if (!eb)
		eb = dice_die_set_sides(st->b.die, sides);
	CHECK(ea == eb, "step %u (sides): %d and %d", st->step, ea, eb);
	CHECK(ea == (sides ? dice_format_check(st->as->format, sides) :
			     -EINVAL),
	      "step %u (sides %llu): %d", st->step,
	      (unsigned long long)sides, ea);
	if (!ea) {
		st->loaded = false;
		check_stale(st, true);
	}
}

/* Install the same table in both dice; @fill makes one. */
static int install(struct stream *st, u32 n,
		   int (*fill)(struct stream *st, struct dice_table *t,
			       u64 mass),
		   u64 mass)
{
	struct dice_table *t[2];
	struct side *sd[2] = { &st->a, &st->b };
	int err[2], i;

	for (i = 0; i < 2; i++) {
		t[i] = dice_table_alloc(n);
		CHECK(t[i], "out of memory");
		err[i] = fill(st, t[i], mass);
		if (err[i]) {
			dice_table_free(t[i]);
			continue;
		}
		/* The die owns the table from here, even on error. */
		if (!i) {
			err[i] = dice_stream_set_table(st->as, t[i]);
			continue;
		}
		err[i] = dice_method_check(sd[i]->die->method,
					   DICE_KIND_LOADED);
		if (!err[i])
			err[i] = dice_format_check(st->b_format, n);
		if (err[i])
			dice_table_free(t[i]);
		else
			err[i] = dice_die_set_table(sd[i]->die, t[i]);
	}
	CHECK(err[0] == err[1], "step %u (%s): %d and %d", st->step,
	      op_name[st->op], err[0], err[1]);
	CHECK(!err[0] || err[0] == -EINVAL || err[0] == -EOVERFLOW,
	      "step %u (%s): %d", st->step, op_name[st->op], err[0]);
	if (!err[0])
		check_stale(st, true);
	return err[0];
}

static int fill_weights(struct stream *st, struct dice_table *t, u64 mass)
{
	return dice_table_from_weights(t, st->weights);
}

static int fill_alias(struct stream *st, struct dice_table *t, u64 mass)
{
	memcpy(t->thr, st->thr, t->sides * sizeof(*t->thr));
	memcpy(t->alias, st->alias, t->sides * sizeof(*t->alias));
	return dice_table_from_alias(t, mass);
}

static void set_weights(struct stream *st, struct in *in)
{
	u64 sel = get(in, 1), seed;
	unsigned int mode, bytes;
	u32 n, i;

	if (sel < NPRESET) {
		n = preset_weights[sel].n;
		memcpy(st->weights, preset_weights[sel].w, n * sizeof(u32));
	} else {
		n = sel & 0x80 ? 1 + get(in, 2) % MAX_TABLE :
				 1 + get(in, 1) % 16;
		mode = get(in, 1);
		seed = get(in, 1) | (u64)mode << 8;
		bytes = 1 + mode % 4;
		for (i = 0; i < n; i++) {
			u64 r = mix(&seed);
			u32 w = (u32)(bytes == 4 ? r : r & ((1ULL << (8 * bytes)) - 1));

			switch ((mode >> 2) % 4) {
			case 0:		/* any weight of that many bytes */
				break;
			case 1:		/* mostly zero */
				w = r >> 60 ? 0 : w;
				break;
			case 2:		/* all equal */
				w = bytes == 4 ? U32_MAX : 1U << (8 * bytes - 1);
				break;
			default:	/* powers of two */
				w = 1U << (r % (8 * bytes));
			}
			st->weights[i] = w;
		}
	}
	if (install(st, n, fill_weights, 0))
		return;
	st->loaded = true;
	for (i = 0; i < n; i++)
		st->has_mass[i] = st->weights[i] != 0;
}

static void set_alias(struct stream *st, struct in *in)
{
	static const u64 masses[] = {
		1, 2, 3, 10, 255, 1ULL << 20, (1ULL << 32) - 1, 1ULL << 32,
		(1ULL << 40) + 1, 1ULL << 63, U64_MAX - 1, U64_MAX,
	};
	u64 sel = get(in, 1), mode = get(in, 1), seed, mass;
	u32 n, c;

	n = 1 + (mode & 0x80 ? (sel | get(in, 1) << 8) % MAX_TABLE : sel % 32);
	seed = get(in, 1) | mode << 8;
	mass = masses[mode % ARRAY_SIZE(masses)];
	if ((mode >> 4) % 8 == 7)
		mass = mix(&seed) >> (mix(&seed) % 64);	/* 0 is refused */
	for (c = 0; c < n; c++) {
		u64 r = mix(&seed);

		switch ((mode >> 4) % 4) {
		case 0:		/* anything up to the mass */
			st->thr[c] = mass ? r % ((u128)mass + 1) : r;
			break;
		case 1:		/* a fair die */
			st->thr[c] = mass;
			break;
		case 2:		/* everything to the aliases: shares pile up */
			st->thr[c] = 0;
			break;
		default:	/* halves */
			st->thr[c] = mass / 2 + (r & 1);
		}
		st->alias[c] = (u32)(mix(&seed) % n);
	}
	/* Now and then one column out of range: refused, die unchanged. */
	if ((mode & 0x0c) == 0x0c) {
		c = (u32)(mix(&seed) % n);
		if (seed & 1)
			st->thr[c] = mass == U64_MAX ? mass : mass + 1;
		else
			st->alias[c] = n;
	}
	if (install(st, n, fill_alias, mass))
		return;
	/* Side c has mass from its own piece or another column's alias. */
	st->loaded = true;
	for (c = 0; c < n; c++)
		st->has_mass[c] = st->thr[c] > 0;
	for (c = 0; c < n; c++)
		if (st->thr[c] < mass)
			st->has_mass[st->alias[c]] = true;
}

static void set_method(struct stream *st, struct in *in)
{
	u32 method = (u32)get(in, 1) % 8;
	int ea = dice_stream_set_method(st->as, method);
	int eb = dice_die_set_method(st->b.die, method);

	CHECK(ea == eb && ea == dice_method_check(method, st->b.die->kind),
	      "step %u (method %u): %d and %d", st->step, method, ea, eb);
	if (!ea)
		check_stale(st, true);
}

static void set_format(struct stream *st, struct in *in)
{
	u64 b = get(in, 1);
	u32 format = (u32)(b & 7) % 6;
	int ea, eb;

	if (b & 8)
		format |= DICE_FMT_ZERO_BASED;
	if ((b & 0xf0) == 0xf0)
		format |= 0x200;
	ea = dice_stream_set_format(st->as, format);
	/* B's format, checked as the stream checks it. */
	eb = dice_format_check(format, st->b.die->sides);
	if (!eb)
		st->b_format = format;
	CHECK(ea == eb, "step %u (format %#x): %d and %d", st->step, format,
	      ea, eb);
	/* Bytes still buffered are in the old encoding: dropped. */
	if (!ea)
		check_stale(st, false);
}

static void set_source(struct stream *st, struct in *in)
{
	u64 b = get(in, 1), seed;

	seed = 0x5eed0000ULL ^ b ^ get(in, 1) << 8;
	side_source(&st->a, b & 1, seed);
	side_source(&st->b, b & 1, seed);
	check_stale(st, true);
}

/* ---- the stream --------------------------------------------------------------- */

static u64 read_len(struct in *in)
{
	u64 l = get(in, 1);

	if (l < 0x40)
		return 1 + l;
	if (l < 0x80)
		return 65 + get(in, 1) * 4;
	if (l < 0xc0)
		return 64 * (1 + l % 16);
	return 1 + get(in, 2) % 8192;
}

/* A pool's positions, "mark/head/tail -discarded", for trace(). */
static const char *pool_pos(const struct dice_pool *pool, int which)
{
	static char buf[2][96];

	snprintf(buf[which], sizeof(buf[which]), "%llu/%llu/%llu -%llu",
		 (unsigned long long)pool->mark,
		 (unsigned long long)pool->head,
		 (unsigned long long)pool->tail,
		 (unsigned long long)pool->discarded);
	return buf[which];
}

/* FUZZ_STREAM_TRACE=1: say what each step did (to replay an artifact). */
static void trace(const struct stream *st)
{
	static int on = -1;
	const struct dice_die *die = st->a.die;

	if (on < 0)
		on = getenv("FUZZ_STREAM_TRACE") != NULL;
	if (!on)
		return;
	fprintf(stderr,
		"step %u %-9s: d%llu %s format %#x method %u %s, per %u left %u, rolls %llu, bits used %llu, m 2^%u, pools A %s, B %s\n",
		st->step, op_name[st->op], (unsigned long long)die->sides,
		die->table ? "loaded" : "fair", st->as->format, die->method,
		st->a.written ? "written" : "prng", die->digits.per,
		die->digits.left, (unsigned long long)die->rolls,
		(unsigned long long)dice_pool_used(&die->pool),
		die->rec.m >> 64 ? 64 + fls64((u64)(die->rec.m >> 64)) :
				   fls64((u64)die->rec.m),
		pool_pos(&die->pool, 0), pool_pos(&st->b.die->pool, 1));
}

static void step(struct stream *st, struct in *in)
{
	unsigned int width = dice_format_width(st->as->format), count;
	u64 len, face;
	int err;

	st->op = (int)(get(in, 1) % OP_NR);
	budget(st, 1);
	switch (st->op) {
	case OP_SIDES:
		set_sides(st, in);
		break;
	case OP_WEIGHTS:
		set_weights(st, in);
		break;
	case OP_ALIAS:
		set_alias(st, in);
		break;
	case OP_METHOD:
		set_method(st, in);
		break;
	case OP_FORMAT:
		set_format(st, in);
		break;
	case OP_SOURCE:
		set_source(st, in);
		break;
	case OP_WRITE:
		do_write(st, in);
		break;
	case OP_READ:
		len = read_len(in);
		budget(st, width ? len / width : len);
		do_read(st, len, SIZE_MAX, 0);
		break;
	case OP_FAULT:
		len = read_len(in);
		budget(st, width ? len / width : len);
		do_read(st, len, 1 + get(in, 1), 0);
		break;
	case OP_FORK_READ:
		len = read_len(in);
		count = 1 + (unsigned int)get(in, 1) % 8;
		budget(st, width ? len / width : len);
		do_read(st, len, SIZE_MAX, count);
		break;
	case OP_FORK:
		dice_stream_drop_random(st->as);
		dice_die_drop_random(st->b.die);
		check_stale(st, true);
		break;
	case OP_ROLL:
		err = dice_die_roll(st->a.die, &face);
		st->faces[0] = face;
		follow(st, st->faces, err ? err : 1, 1);
		break;
	case OP_MANY:
		count = 1 + (unsigned int)get(in, 1);
		budget(st, count);
		roll_many(st, count);
		break;
	case OP_U8:
		count = 1 + (unsigned int)get(in, 2) % 2048;
		budget(st, count);
		if ((st->as->format & DICE_FMT_TYPE_MASK) == DICE_FMT_U8)
			roll_u8(st, st->bytes, count);
		else
			roll_many(st, count < 256 ? count : 256);
	}
	trace(st);
	check_same(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct stream s;
	struct stream *st = &s;
	struct in in = { data, size, 0 };

	memset(st, 0, sizeof(*st));
	cur = st;
	st->a.name = "A";
	st->b.name = "B";
	dice_core_warnings = 0;
	st->as = dice_stream_alloc(src_fill, &st->a.src);
	CHECK(st->as, "no memory for a stream");
	st->a.die = &st->as->die;
	st->b.die = &st->bdie;
	dice_die_init(st->b.die, src_fill, &st->b.src);
	budget(st, 1);
	st->a.src.state = st->b.src.state = 0x5eed;
	check_same(st);
	for (st->step = 1; st->step <= MAX_OPS && in.pos < in.len &&
	     st->nfaces < MAX_FACES; st->step++)
		step(st, &in);
	dice_stream_free(st->as);
	dice_die_wipe(st->b.die);
	return 0;
}
