// SPDX-License-Identifier: GPL-2.0
/*
 * dice_written_test.c - the module against the userspace core, bit for bit
 *
 * With DICE_SRC_WRITTEN a die rolls from the bytes written to its file, so
 * the module and the userspace build of the die core (kmod/dice_*.c with
 * DICE_USERSPACE, linked into this binary) must make the same faces from
 * the same bits, for every method.  Sections:
 *
 *  - helpers: a deterministic byte stream, the reference die, the module's
 *    die set up the same way;
 *  - same faces: one fixture variant per method and die, bytes written in
 *    pieces with rolls read in between, compared face by face and in the
 *    bit accounting with the reference fed the same way; the reference fed
 *    in other pieces must agree too (chunking does not matter);
 *  - text read in small pieces against the reference's faces as text;
 *  - switching method or source half way, against the reference;
 *  - the written source's rules: EAGAIN when bits run out (never blocking),
 *    bits most significant first, EINVAL for writes to a kernel-source die,
 *    back to the kernel source, unknown sources and methods, methods that
 *    need a fair die;
 *  - Viglietta's exact flip count with kernel bits.
 *
 * Every case opens its own file of /dev/dice and is skipped when the device
 * is absent.  ASSERT_*() and EXPECT_*() go in braces under if, else and for.
 */
#include "dice_stream.h"	/* before the harness: it has ARRAY_SIZE */

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/dice.h>

#include "kselftest_harness.h"

#include "dice_common.h"
#include "dice_fixture.h"

#define FMT_BIN		(DICE_FMT_U64 | DICE_FMT_ZERO_BASED)
#define SIDES_MAX	DICE_MAX_FAIR_SIDES

/* Bytes fed to each die of the same-faces cases, and per write(). */
#define STREAM_BYTES	20000
#define WRITE_BYTES	1000

/* ---- helpers ------------------------------------------------------------- */

/* splitmix64() - seed expander; xorshift64*() - the byte stream itself */
static __u64 splitmix64(__u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static __u64 xorshift64s(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static unsigned char *make_stream(__u64 seed, size_t len)
{
	unsigned char *p = malloc(len);
	__u64 s = splitmix64(seed) | 1, v = 0;
	size_t i;

	if (!p)
		return NULL;
	for (i = 0; i < len; i++) {
		if (i % 8 == 0)
			v = xorshift64s(&s);
		p[i] = (unsigned char)(v >> (56 - 8 * (i % 8)));
	}
	return p;
}

/* struct faces - a growing list of zero-based faces */
struct faces {
	__u64 *v;
	size_t n;
	size_t cap;
};

static void faces_push(struct __test_metadata *_metadata, struct faces *f,
		       __u64 face)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 4096;
		f->v = realloc(f->v, f->cap * sizeof(*f->v));
		ASSERT_TRUE(f->v != NULL);
	}
	f->v[f->n++] = face;
}

static void faces_free(struct faces *f)
{
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* expect_same_faces() - @a and @b agree in length and every face */
static void expect_same_faces(struct __test_metadata *_metadata,
			      const struct faces *a, const struct faces *b,
			      const char *what)
{
	size_t i, n = a->n < b->n ? a->n : b->n;

	EXPECT_EQ(a->n, b->n) TH_LOG("%s: number of rolls", what);
	for (i = 0; i < n; i++) {
		if (a->v[i] != b->v[i])
			break;
	}
	EXPECT_EQ(n, i) TH_LOG("%s: roll %zu is %llu, not %llu", what, i,
			       i < n ? a->v[i] : 0ULL, i < n ? b->v[i] : 0ULL);
}

/**
 * struct die_spec - a die and its method
 * @sides: number of sides of a fair die (unused for a loaded one)
 * @weights: weights of a loaded die, NULL for a fair one
 * @nweights: number of @weights
 * @method: DICE_METHOD_*
 */
struct die_spec {
	__u64 sides;
	const __u32 *weights;
	__u32 nweights;
	__u32 method;
};

/* ref_new() - the reference: the userspace core with no bit source */
static struct dice_die *ref_new(struct __test_metadata *_metadata,
				const struct die_spec *spec)
{
	struct dice_die *die = malloc(sizeof(*die));

	ASSERT_TRUE(die != NULL);
	dice_die_init(die, NULL, NULL);
	if (spec->weights) {
		struct dice_table *table = dice_table_alloc(spec->nweights);

		ASSERT_TRUE(table != NULL);
		ASSERT_EQ(0, dice_table_from_weights(table, spec->weights));
		ASSERT_EQ(0, dice_die_set_table(die, table));
	} else {
		ASSERT_EQ(0, dice_die_set_sides(die, spec->sides));
	}
	ASSERT_EQ(0, dice_die_set_method(die, spec->method));
	return die;
}

static void ref_free(struct dice_die *die)
{
	if (die) {
		dice_die_wipe(die);
		free(die);
	}
}

/* ref_write() - what write() does: append whole bytes while there is room */
static size_t ref_write(struct dice_die *die, const unsigned char *buf,
			size_t len)
{
	size_t room = dice_pool_room(&die->pool) / 8, i;

	if (len > room)
		len = room;
	for (i = 0; i < len; i++)
		dice_pool_put(&die->pool, buf[i], 8);
	return len;
}

/* ref_roll() - one roll; ref_roll_all() - roll until the bits run out */
static int ref_roll(struct dice_die *die, struct __test_metadata *_metadata,
		    struct faces *f)
{
	u64 face;
	int err = dice_die_roll(die, &face);

	if (!err)
		faces_push(_metadata, f, face);
	return err;
}

static void ref_roll_all(struct __test_metadata *_metadata,
			 struct dice_die *die, struct faces *f)
{
	int err;

	do {
		err = ref_roll(die, _metadata, f);
	} while (!err);
	ASSERT_EQ(-EAGAIN, err);
}

/* expect_ref_stats() - the module's accounting is the reference's */
static void expect_ref_stats(struct __test_metadata *_metadata, int fd,
			     const struct dice_die *ref)
{
	struct dice_die_stats st;

	get_stats(_metadata, fd, &st);
	EXPECT_EQ(ref->rolls, st.rolls);
	EXPECT_EQ(dice_pool_used(&ref->pool), st.bits_used);
	EXPECT_EQ(dice_pool_drawn(&ref->pool), st.bits_drawn);
	EXPECT_EQ(ref->pool.discarded, st.bits_discarded);
	EXPECT_EQ(ref->coin_bits, st.coin_bits);
}

/* mod_setup() - the module's die: written bits, 64-bit zero-based faces */
static void mod_setup(struct __test_metadata *_metadata, int fd,
		      const struct die_spec *spec)
{
	ASSERT_EQ(0, set_u32(fd, DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN));
	ASSERT_EQ(0, die_set_format(fd, FMT_BIN));
	if (spec->weights) {
		ASSERT_EQ(0, set_weights(fd, spec->weights, spec->nweights));
	} else {
		ASSERT_EQ(0, die_set_sides(fd, spec->sides));
	}
	ASSERT_EQ(0, die_set_method(fd, spec->method))
		TH_LOG("SET_METHOD %u: %s", spec->method, strerror(errno));
}

/* get_le64() - a little-endian roll */
static __u64 get_le64(const unsigned char *p)
{
	__u64 v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/*
 * mod_read() - read binary rolls until EAGAIN, or @max rolls if not 0;
 * returns the rolls read.
 */
static size_t mod_read(struct __test_metadata *_metadata, int fd,
		       struct faces *f, size_t max)
{
	unsigned char buf[8 * 512];
	size_t got = 0;

	for (;;) {
		size_t want = sizeof(buf) / 8, i;
		ssize_t ret;

		if (max && want > max - got)
			want = max - got;
		if (!want)
			break;
		ret = read(fd, buf, 8 * want);
		if (ret < 0) {
			ASSERT_EQ(EAGAIN, errno) TH_LOG("read: %s",
							strerror(errno));
			break;
		}
		ASSERT_LT(0, ret) TH_LOG("read: EOF");
		ASSERT_EQ(0, ret % 8);
		for (i = 0; i < (size_t)ret / 8; i++)
			faces_push(_metadata, f, get_le64(buf + 8 * i));
		got += ret / 8;
	}
	return got;
}

/* mod_write() - write() all of @buf, which must fit */
static void mod_write(struct __test_metadata *_metadata, int fd,
		      const unsigned char *buf, size_t len)
{
	ASSERT_EQ((ssize_t)len, write(fd, buf, len))
		TH_LOG("write %zu: %s", len, strerror(errno));
}

/* ---- same faces from the same bits --------------------------------------- */

enum load {
	FAIR,
	LOADED_SMALL,	/* {2, 2, 6, 1, 1} */
	LOADED_ZIPF,	/* w_k = round(10^6 / k), k = 1..1000 */
	LOADED_ZERO,	/* {1, 0, 3} */
	LOADED_SPREAD,	/* 4096 sides of 100000 to 199999: 2^41 cells, drawn
			 * as a column, then a height
			 */
};

#define ZIPF_SIDES	1000
#define SPREAD_SIDES	4096

static const __u32 weights_small[] = { 2, 2, 6, 1, 1 };
static const __u32 weights_zero[] = { 1, 0, 3 };
static __u32 weights_zipf[ZIPF_SIDES];
static __u32 weights_spread[SPREAD_SIDES];

/* spec_of() - the die of a load, or a fair d@sides */
static void spec_of(struct die_spec *spec, enum load load, __u64 sides,
		    __u32 method)
{
	__u32 k;

	memset(spec, 0, sizeof(*spec));
	spec->method = method;
	switch (load) {
	case FAIR:
		spec->sides = sides;
		break;
	case LOADED_SMALL:
		spec->weights = weights_small;
		spec->nweights = ARRAY_SIZE(weights_small);
		break;
	case LOADED_ZIPF:
		/* round(10^6 / k) = floor((2 * 10^6 + k) / (2k)) */
		for (k = 1; k <= ZIPF_SIDES; k++)
			weights_zipf[k - 1] = (2000000 + k) / (2 * k);
		spec->weights = weights_zipf;
		spec->nweights = ZIPF_SIDES;
		break;
	case LOADED_ZERO:
		spec->weights = weights_zero;
		spec->nweights = ARRAY_SIZE(weights_zero);
		break;
	case LOADED_SPREAD:
		for (k = 0; k < SPREAD_SIDES; k++)
			weights_spread[k] = 100000 + (k * 7919) % 100000;
		spec->weights = weights_spread;
		spec->nweights = SPREAD_SIDES;
		break;
	}
	if (spec->weights)
		spec->sides = spec->nweights;
}

DIE_FIXTURE(written, O_RDWR)

FIXTURE_VARIANT(written) {
	__u32 method;
	enum load load;
	__u64 sides;
};

/* Each method on the fair dice; those that roll loaded dice on four. */
#define FAIR_DICE(m, meth)						\
	VARIANT(written, m##_d2, .method = meth, .load = FAIR, .sides = 2); \
	VARIANT(written, m##_d6, .method = meth, .load = FAIR, .sides = 6); \
	VARIANT(written, m##_d20, .method = meth, .load = FAIR, .sides = 20); \
	VARIANT(written, m##_d100, .method = meth, .load = FAIR,	\
		.sides = 100);						\
	VARIANT(written, m##_d1000003, .method = meth, .load = FAIR,	\
		.sides = 1000003);					\
	VARIANT(written, m##_d2p31p1, .method = meth, .load = FAIR,	\
		.sides = POW2(31) + 1);					\
	VARIANT(written, m##_dmax, .method = meth, .load = FAIR,	\
		.sides = SIDES_MAX)
#define LOADED_DICE(m, meth)						\
	VARIANT(written, m##_loaded_22611, .method = meth,		\
		.load = LOADED_SMALL);					\
	VARIANT(written, m##_loaded_zipf1000, .method = meth,		\
		.load = LOADED_ZIPF);					\
	VARIANT(written, m##_loaded_103, .method = meth, .load = LOADED_ZERO); \
	VARIANT(written, m##_loaded_4096, .method = meth,		\
		.load = LOADED_SPREAD)

FAIR_DICE(recycle, DICE_METHOD_RECYCLE);
LOADED_DICE(recycle, DICE_METHOD_RECYCLE);
FAIR_DICE(viglietta, DICE_METHOD_VIGLIETTA);
FAIR_DICE(batch, DICE_METHOD_BATCH);
FAIR_DICE(alias, DICE_METHOD_ALIAS);
LOADED_DICE(alias, DICE_METHOD_ALIAS);

/*
 * Write the stream WRITE_BYTES at a time (or what write() takes), reading
 * rolls until EAGAIN after each write; feed the reference the same way.
 * Then feed a second reference in pieces of 1 to 257 bytes: rolling until
 * -EAGAIN after every piece, it must make the same rolls.
 */
TEST_F(written, same_faces)
{
	struct faces mod = { 0 }, ref = { 0 }, other = { 0 };
	struct dice_die *die = NULL, *die2 = NULL;
	__u64 seed, s, bits_for_rolls;
	struct die_spec spec;
	unsigned char *bytes;
	size_t pos, i;
	double lg;

	REQUIRE_DIE(self->fd);
	spec_of(&spec, variant->load, variant->sides, variant->method);
	seed = splitmix64(variant->method * 0x100000001ULL ^
			  (__u64)variant->load << 40 ^ spec.sides);
	bytes = make_stream(seed, STREAM_BYTES);
	ASSERT_TRUE(bytes != NULL);
	die = ref_new(_metadata, &spec);
	die2 = ref_new(_metadata, &spec);
	mod_setup(_metadata, self->fd, &spec);

	for (pos = 0; pos < STREAM_BYTES;) {
		size_t want = STREAM_BYTES - pos, took;
		ssize_t ret;

		if (want > WRITE_BYTES)
			want = WRITE_BYTES;
		ret = write(self->fd, bytes + pos, want);
		ASSERT_LT(0, ret) TH_LOG("write %zu at %zu: %s", want, pos,
					 strerror(errno));
		took = ref_write(die, bytes + pos, want);
		ASSERT_EQ(took, (size_t)ret) TH_LOG("write at byte %zu", pos);
		pos += took;
		mod_read(_metadata, self->fd, &mod, 0);
		ref_roll_all(_metadata, die, &ref);
		ASSERT_EQ(ref.n, mod.n) TH_LOG("rolls after %zu bytes", pos);
	}
	expect_same_faces(_metadata, &mod, &ref, "module vs reference");
	expect_ref_stats(_metadata, self->fd, die);
	EXPECT_EQ(8ULL * STREAM_BYTES, dice_pool_drawn(&die->pool));
	EXPECT_EQ(0, die->pool.discarded);

	/* The same bytes in other pieces make the same rolls. */
	s = seed | 1;
	for (pos = 0; pos < STREAM_BYTES;) {
		size_t want = 1 + xorshift64s(&s) % 257;

		if (want > STREAM_BYTES - pos)
			want = STREAM_BYTES - pos;
		pos += ref_write(die2, bytes + pos, want);
		ref_roll_all(_metadata, die2, &other);
	}
	expect_same_faces(_metadata, &other, &ref, "other pieces");
	EXPECT_EQ(die->rolls, die2->rolls);
	EXPECT_EQ(dice_pool_used(&die->pool), dice_pool_used(&die2->pool));
	EXPECT_EQ(die->coin_bits, die2->coin_bits);

	/* Sanity: faces in range, zero weights never up, bits pay for them. */
	for (i = 0; i < ref.n; i++) {
		ASSERT_GT(spec.sides, ref.v[i]) TH_LOG("roll %zu", i);
		if (spec.weights) {
			ASSERT_NE(0, spec.weights[ref.v[i]])
				TH_LOG("roll %zu: face of weight 0", i);
		}
	}
	EXPECT_LT(0, ref.n);
	lg = spec.weights ? 0 : log2((double)spec.sides);
	bits_for_rolls = (__u64)(lg * ref.n);
	EXPECT_GE(dice_pool_used(&die->pool) + 128, bits_for_rolls);
	/* Only Viglietta's (1/n)-coin and a loaded die's alias coin cost. */
	if (variant->method == DICE_METHOD_VIGLIETTA ||
	    (variant->method == DICE_METHOD_ALIAS && spec.weights)) {
		EXPECT_LT(0, die->coin_bits);
	} else {
		EXPECT_EQ(0, die->coin_bits);
	}

	/* Nothing left: the module says EAGAIN, not a roll from other bits. */
	EXPECT_EQ(0, mod_read(_metadata, self->fd, &mod, 0));
	ref_free(die);
	ref_free(die2);
	faces_free(&mod);
	faces_free(&ref);
	faces_free(&other);
	free(bytes);
}

/* ---- text in small pieces ------------------------------------------------ */

/* ref_text() - the faces from @first on as 1-based text lines */
static char *ref_text(const struct faces *f, size_t first, size_t *len)
{
	char *text = malloc((f->n - first) * DICE_TEXT_MAX + 1);
	size_t i, at = 0;

	if (!text)
		return NULL;
	for (i = first; i < f->n; i++)
		at += sprintf(text + at, "%llu\n", f->v[i] + 1);
	*len = at;
	return text;
}

/*
 * read_text() - read in pieces of 1, 2, 3, 5, 8, ... bytes; stop at EAGAIN,
 * or once @stop bytes are in (0: no stop).  Returns the bytes read.
 */
static size_t read_text(struct __test_metadata *_metadata, int fd, char *buf,
			size_t cap, size_t stop)
{
	size_t got = 0, a = 1, b = 2;

	while (!stop || got < stop) {
		ssize_t ret;
		size_t next;

		ASSERT_GT(cap, got + a) TH_LOG("more text than expected");
		ret = read(fd, buf + got, a);
		if (ret < 0) {
			ASSERT_EQ(EAGAIN, errno) TH_LOG("read: %s",
							strerror(errno));
			break;
		}
		ASSERT_LT(0, ret);
		ASSERT_GE(a, (size_t)ret);
		got += ret;
		next = a + b > 400 ? 1 : a + b;
		a = b;
		b = next;
	}
	return got;
}

DIE_FIXTURE(text, O_RDWR)

FIXTURE_VARIANT(text) {
	__u64 sides;
	__u32 method;
};

FIXTURE_VARIANT_ADD(text, recycle_d20) {
	.sides = 20, .method = DICE_METHOD_RECYCLE,
};

FIXTURE_VARIANT_ADD(text, recycle_d1000003) {
	.sides = 1000003, .method = DICE_METHOD_RECYCLE,
};

FIXTURE_VARIANT_ADD(text, batch_d6) {
	.sides = 6, .method = DICE_METHOD_BATCH,
};

/* A fair die rolled by alias is a fresh column: rejection sampling. */
FIXTURE_VARIANT_ADD(text, alias_dmax) {
	.sides = SIDES_MAX, .method = DICE_METHOD_ALIAS,
};

/*
 * Text lines read a few bytes at a time are the reference's faces as text:
 * first part of what 300 bytes give, then (with a line perhaps half read)
 * 700 more bytes, then all the rest.
 */
TEST_F(text, pieces)
{
	struct die_spec spec = {
		.sides = variant->sides, .method = variant->method,
	};
	struct faces ref = { 0 };
	struct dice_die *die;
	unsigned char *bytes;
	size_t got, len;
	char *buf, *want;

	REQUIRE_DIE(self->fd);
	bytes = make_stream(variant->sides ^ 0x7e47, 1000);
	buf = malloc(1 << 16);
	ASSERT_TRUE(bytes && buf);
	die = ref_new(_metadata, &spec);
	ASSERT_EQ(0, set_u32(self->fd, DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN));
	ASSERT_EQ(0, die_set_sides(self->fd, spec.sides));
	ASSERT_EQ(0, die_set_method(self->fd, spec.method));

	mod_write(_metadata, self->fd, bytes, 300);
	ASSERT_EQ(300, ref_write(die, bytes, 300));
	ref_roll_all(_metadata, die, &ref);
	want = ref_text(&ref, 0, &len);
	ASSERT_TRUE(want != NULL);
	got = read_text(_metadata, self->fd, buf, 1 << 16, len / 2 + 1);
	free(want);

	mod_write(_metadata, self->fd, bytes + 300, 700);
	ASSERT_EQ(700, ref_write(die, bytes + 300, 700));
	ref_roll_all(_metadata, die, &ref);
	got += read_text(_metadata, self->fd, buf + got, (1 << 16) - got, 0);

	want = ref_text(&ref, 0, &len);
	ASSERT_TRUE(want != NULL);
	EXPECT_EQ(len, got);
	EXPECT_EQ(0, memcmp(want, buf, got < len ? got : len))
		TH_LOG("text differs from the reference's %zu rolls", ref.n);
	expect_ref_stats(_metadata, self->fd, die);
	free(want);
	free(buf);
	free(bytes);
	faces_free(&ref);
	ref_free(die);
}

/* ---- switching half way -------------------------------------------------- */

DIE_FIXTURE(switching, O_RDWR)

/*
 * mod_ref_rolls() - @n rolls (0: until EAGAIN) from the module and from the
 * reference, which must agree
 */
static void mod_ref_rolls(struct __test_metadata *_metadata, int fd,
			  struct dice_die *die, struct faces *mod,
			  struct faces *ref, size_t n)
{
	size_t i, got = mod_read(_metadata, fd, mod, n);

	if (!n) {
		ref_roll_all(_metadata, die, ref);
	} else {
		ASSERT_EQ(n, got);
		for (i = 0; i < n; i++) {
			ASSERT_EQ(0, ref_roll(die, _metadata, ref));
		}
	}
	ASSERT_EQ(ref->n, mod->n);
}

/* A new method keeps the buffered bits and the recycled state. */
TEST_F(switching, method_keeps_bits)
{
	static const __u32 order[] = {
		DICE_METHOD_RECYCLE, DICE_METHOD_VIGLIETTA, DICE_METHOD_BATCH,
		DICE_METHOD_ALIAS, DICE_METHOD_VIGLIETTA, DICE_METHOD_RECYCLE,
	};
	struct die_spec spec = { .sides = 6, .method = DICE_METHOD_RECYCLE };
	struct faces mod = { 0 }, ref = { 0 };
	struct dice_die *die;
	unsigned char *bytes;
	size_t i;

	REQUIRE_DIE(self->fd);
	bytes = make_stream(6006, 1000);
	ASSERT_TRUE(bytes != NULL);
	die = ref_new(_metadata, &spec);
	mod_setup(_metadata, self->fd, &spec);
	mod_write(_metadata, self->fd, bytes, 1000);
	ASSERT_EQ(1000, ref_write(die, bytes, 1000));
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		ASSERT_EQ(0, die_set_method(self->fd, order[i]));
		ASSERT_EQ(0, dice_die_set_method(die, order[i]));
		/* the last one rolls until the bits run out */
		mod_ref_rolls(_metadata, self->fd, die, &mod, &ref,
			      i + 1 < ARRAY_SIZE(order) ? 10 : 0);
	}
	expect_same_faces(_metadata, &mod, &ref, "switching methods");
	expect_ref_stats(_metadata, self->fd, die);
	faces_free(&mod);
	faces_free(&ref);
	ref_free(die);
	free(bytes);
}

/* SET_SOURCE WRITTEN again drops the bits waiting: none is used twice. */
TEST_F(switching, source_discards_bits)
{
	struct die_spec spec = { .sides = 1000003, .method = DICE_METHOD_RECYCLE };
	struct faces mod = { 0 }, ref = { 0 };
	struct dice_die_stats before, after;
	struct dice_die *die;
	unsigned char *bytes;

	REQUIRE_DIE(self->fd);
	bytes = make_stream(1000003, 1000);
	ASSERT_TRUE(bytes != NULL);
	die = ref_new(_metadata, &spec);
	mod_setup(_metadata, self->fd, &spec);
	mod_write(_metadata, self->fd, bytes, 500);
	ASSERT_EQ(500, ref_write(die, bytes, 500));
	mod_ref_rolls(_metadata, self->fd, die, &mod, &ref, 5);
	get_stats(_metadata, self->fd, &before);

	ASSERT_EQ(0, set_u32(self->fd, DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN));
	dice_die_set_source(die, NULL, NULL);
	get_stats(_metadata, self->fd, &after);
	EXPECT_EQ(before.bits_drawn - before.bits_used, after.bits_discarded);
	EXPECT_EQ(before.bits_used, after.bits_used);
	EXPECT_EQ(before.rolls, after.rolls);
	expect_ref_stats(_metadata, self->fd, die);
	EXPECT_EQ(0, mod_read(_metadata, self->fd, &mod, 0));

	mod_write(_metadata, self->fd, bytes + 500, 500);
	ASSERT_EQ(500, ref_write(die, bytes + 500, 500));
	mod_ref_rolls(_metadata, self->fd, die, &mod, &ref, 0);
	expect_same_faces(_metadata, &mod, &ref, "after SET_SOURCE");
	expect_ref_stats(_metadata, self->fd, die);
	faces_free(&mod);
	faces_free(&ref);
	ref_free(die);
	free(bytes);
}

/* ---- the written source's rules ------------------------------------------ */

DIE_FIXTURE(rules, O_RDWR)

/* No written bits: EAGAIN at once, blocking file or not, any format. */
TEST_F(rules, empty_eagain)
{
	static const __u32 formats[] = { DICE_FMT_TEXT, DICE_FMT_U8, FMT_BIN };
	struct dice_die_stats st;
	char buf[64];
	size_t i;
	int nb;

	REQUIRE_DIE(self->fd);
	ASSERT_EQ(0, set_u32(self->fd, DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN));
	nb = open_die(_metadata, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, nb);
	ASSERT_EQ(0, set_u32(nb, DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN));
	for (i = 0; i < ARRAY_SIZE(formats); i++) {
		ASSERT_EQ(0, die_set_format(self->fd, formats[i]));
		ASSERT_EQ(0, die_set_format(nb, formats[i]));
		errno = 0;
		EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
		EXPECT_EQ(EAGAIN, errno);
		errno = 0;
		EXPECT_EQ(-1, read(nb, buf, sizeof(buf)));
		EXPECT_EQ(EAGAIN, errno);
	}
	get_stats(_metadata, self->fd, &st);
	EXPECT_EQ(0, st.rolls);
	EXPECT_EQ(0, st.bits_used);
	EXPECT_EQ(0, st.bits_drawn);
	close(nb);
}

/* Bits are spent most significant first; a read returns what it could. */
TEST_F(rules, msb_first_and_short_reads)
{
	static const unsigned char two[] = { 0xa5, 0x3c };
	unsigned char bytes[256], buf[1024];
	struct dice_die_stats st;
	size_t i;

	REQUIRE_DIE(self->fd);
	ASSERT_EQ(0, set_u32(self->fd, DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN));
	ASSERT_EQ(0, die_set_format(self->fd,
			     DICE_FMT_U8 | DICE_FMT_ZERO_BASED));

	/* A d2: one bit a roll. */
	ASSERT_EQ(0, die_set_sides(self->fd, 2));
	mod_write(_metadata, self->fd, two, sizeof(two));
	ASSERT_EQ(16, read(self->fd, buf, sizeof(buf)));
	for (i = 0; i < 16; i++) {
		EXPECT_EQ((two[i / 8] >> (7 - i % 8)) & 1, buf[i])
			TH_LOG("roll %zu", i);
	}
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EAGAIN, errno);

	/* A d256: the bytes themselves, served in pieces. */
	ASSERT_EQ(0, die_set_sides(self->fd, 256));
	for (i = 0; i < sizeof(bytes); i++)
		bytes[i] = (unsigned char)(i * 151 + 7);
	mod_write(_metadata, self->fd, bytes, sizeof(bytes));
	ASSERT_EQ(100, read(self->fd, buf, 100));
	ASSERT_EQ(156, read(self->fd, buf + 100, sizeof(buf) - 100));
	EXPECT_EQ(0, memcmp(bytes, buf, sizeof(bytes)));
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EAGAIN, errno);

	get_stats(_metadata, self->fd, &st);
	EXPECT_EQ(16 + 256, st.rolls);
	EXPECT_EQ(8 * (2 + 256), st.bits_used);
	EXPECT_EQ(8 * (2 + 256), st.bits_drawn);
	EXPECT_EQ(0, st.bits_discarded);
}

/* The buffer takes 8192 bits; a full one refuses with EAGAIN. */
TEST_F(rules, write_full_eagain)
{
	unsigned char bytes[2048];
	struct dice_die_stats st;
	ssize_t ret;

	REQUIRE_DIE(self->fd);
	memset(bytes, 0x5a, sizeof(bytes));
	ASSERT_EQ(0, set_u32(self->fd, DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN));
	ret = write(self->fd, bytes, sizeof(bytes));
	EXPECT_EQ(DICE_POOL_BITS / 8, ret);
	errno = 0;
	EXPECT_EQ(-1, write(self->fd, bytes, 1));
	EXPECT_EQ(EAGAIN, errno);
	get_stats(_metadata, self->fd, &st);
	EXPECT_EQ(DICE_POOL_BITS, st.bits_drawn);
	EXPECT_EQ(0, st.bits_used);
}

/* A die on the kernel's bits takes no writes. */
TEST_F(rules, write_kernel_source_einval)
{
	unsigned char byte = 0x42;

	REQUIRE_DIE(self->fd);
	errno = 0;
	EXPECT_EQ(-1, write(self->fd, &byte, 1));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, set_u32(self->fd, DICE_IOC_SET_SOURCE, DICE_SRC_KERNEL));
	errno = 0;
	EXPECT_EQ(-1, write(self->fd, &byte, 1));
	EXPECT_EQ(EINVAL, errno);
}

/* Back to the kernel's bits: written ones are dropped, reads work again. */
TEST_F(rules, back_to_kernel)
{
	unsigned char bytes[100], buf[8 * 1000];
	struct dice_die_stats before, after;
	size_t i;

	REQUIRE_DIE(self->fd);
	memset(bytes, 0xc3, sizeof(bytes));
	ASSERT_EQ(0, set_u32(self->fd, DICE_IOC_SET_SOURCE, DICE_SRC_WRITTEN));
	ASSERT_EQ(0, die_set_format(self->fd, FMT_BIN));
	mod_write(_metadata, self->fd, bytes, sizeof(bytes));
	ASSERT_EQ(8 * 3, read(self->fd, buf, 8 * 3));
	get_stats(_metadata, self->fd, &before);

	ASSERT_EQ(0, set_u32(self->fd, DICE_IOC_SET_SOURCE, DICE_SRC_KERNEL));
	get_stats(_metadata, self->fd, &after);
	EXPECT_EQ(before.bits_drawn - before.bits_used, after.bits_discarded);
	EXPECT_EQ(before.bits_used, after.bits_used);

	ASSERT_EQ(sizeof(buf), read(self->fd, buf, sizeof(buf)));
	for (i = 0; i < sizeof(buf) / 8; i++) {
		ASSERT_GT(6, get_le64(buf + 8 * i));
	}
	get_stats(_metadata, self->fd, &after);
	EXPECT_EQ(3 + sizeof(buf) / 8, after.rolls);
	EXPECT_LT(before.bits_used, after.bits_used);
	EXPECT_LE(after.bits_used + after.bits_discarded, after.bits_drawn);
	errno = 0;
	EXPECT_EQ(-1, write(self->fd, bytes, 1));
	EXPECT_EQ(EINVAL, errno);
}

/* Unknown sources and methods are refused and change nothing. */
TEST_F(rules, unknown_source_method)
{
	static const __u32 bad_source[] = { 2, 5, 0x100, 0xffffffff };
	/* 4: DICE_METHOD_REJECTION, userspace's baseline, not the device's */
	static const __u32 bad_method[] = { 4, 5, 6, 0x100, 0xffffffff };
	struct dice_die_info info;
	size_t i;

	REQUIRE_DIE(self->fd);
	for (i = 0; i < ARRAY_SIZE(bad_source); i++) {
		EXPECT_EQ(EINVAL, set_u32(self->fd, DICE_IOC_SET_SOURCE,
					  bad_source[i]))
			TH_LOG("source %#x", bad_source[i]);
	}
	for (i = 0; i < ARRAY_SIZE(bad_method); i++) {
		EXPECT_EQ(EINVAL, die_set_method(self->fd,
					  bad_method[i]))
			TH_LOG("method %#x", bad_method[i]);
	}
	get_info(_metadata, self->fd, &info);
	EXPECT_EQ(DICE_METHOD_RECYCLE, info.method);
	/* Still the CRNG's: a file of it takes no bits. */
	errno = 0;
	EXPECT_EQ(-1, write(self->fd, "x", 1));
	EXPECT_EQ(EINVAL, errno);
}

/* Viglietta and batch roll fair dice only. */
TEST_F(rules, fair_only_methods)
{
	static const __u32 fair_only[] = {
		DICE_METHOD_VIGLIETTA, DICE_METHOD_BATCH,
	};
	struct dice_die_info info;
	size_t i;

	REQUIRE_DIE(self->fd);
	for (i = 0; i < ARRAY_SIZE(fair_only); i++) {
		/* a loaded die refuses the method... */
		ASSERT_EQ(0, die_set_method(self->fd,
				     DICE_METHOD_RECYCLE));
		ASSERT_EQ(0, set_weights(self->fd, weights_small,
					 ARRAY_SIZE(weights_small)));
		EXPECT_EQ(EINVAL, die_set_method(self->fd,
					  fair_only[i]))
			TH_LOG("method %u on a loaded die", fair_only[i]);
		get_info(_metadata, self->fd, &info);
		EXPECT_EQ(DICE_METHOD_RECYCLE, info.method);
		EXPECT_EQ(DICE_KIND_LOADED, info.kind);
		EXPECT_EQ(0, die_set_method(self->fd,
				     DICE_METHOD_ALIAS));

		/* ...and the method refuses weights */
		ASSERT_EQ(0, die_set_sides(self->fd, 6));
		ASSERT_EQ(0, die_set_method(self->fd,
				     fair_only[i]));
		EXPECT_EQ(EINVAL, set_weights(self->fd, weights_small,
					      ARRAY_SIZE(weights_small)))
			TH_LOG("weights under method %u", fair_only[i]);
		get_info(_metadata, self->fd, &info);
		EXPECT_EQ(fair_only[i], info.method);
		EXPECT_EQ(DICE_KIND_FAIR, info.kind);
		EXPECT_EQ(6, info.sides);
	}
}

/* ---- Viglietta's flips --------------------------------------------------- */

DIE_FIXTURE(viglietta, O_RDWR)

FIXTURE_VARIANT(viglietta) {
	__u64 sides;
};

FIXTURE_VARIANT_ADD(viglietta, d6) {
	.sides = 6,
};

FIXTURE_VARIANT_ADD(viglietta, d1000003) {
	.sides = 1000003,
};

/*
 * With the kernel's bits, N rolls cost exactly N (3 floor(log2 n) + 1) fair
 * flips besides the coins', and a (1/n)-coin takes two bits on average.
 */
TEST_F(viglietta, flips)
{
	const size_t n = 100000;
	unsigned int k = 63 - __builtin_clzll(variant->sides);
	struct dice_die_stats st;
	unsigned char *buf;
	size_t done = 0, i;
	double per_roll;

	REQUIRE_DIE(self->fd);
	ASSERT_EQ(0, die_set_format(self->fd, FMT_BIN));
	ASSERT_EQ(0, die_set_sides(self->fd, variant->sides));
	ASSERT_EQ(0, die_set_method(self->fd,
			     DICE_METHOD_VIGLIETTA));
	buf = malloc(8 * 8192);
	ASSERT_TRUE(buf != NULL);
	while (done < n) {
		size_t want = n - done < 8192 ? n - done : 8192;
		ssize_t ret = read(self->fd, buf, 8 * want);

		ASSERT_EQ((ssize_t)(8 * want), ret)
			TH_LOG("read: %s", ret < 0 ? strerror(errno) : "short");
		for (i = 0; i < want; i++) {
			ASSERT_GT(variant->sides, get_le64(buf + 8 * i));
		}
		done += want;
	}
	free(buf);
	get_stats(_metadata, self->fd, &st);
	EXPECT_EQ(n, st.rolls);
	EXPECT_EQ((__u64)n * (3 * k + 1), st.bits_used - st.coin_bits);
	per_roll = (double)st.coin_bits / n;
	EXPECT_TRUE(per_roll >= 1.9 && per_roll <= 2.1)
		TH_LOG("%.4f coin bits a roll", per_roll);
}

TEST_HARNESS_MAIN
