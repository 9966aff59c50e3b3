// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "dice": the die core of /dev/dice, run inside the kernel
 *
 * series: out-of-tree
 * The same core runs in userspace under kmod/tests/core_test.c; here it is
 * built with the kernel's compiler flags and checked where it will run.
 * series: end
 * series: loaded
 * Sections: bit sources and helpers, the bit pool, faces from known bits,
 * recycling invariants, alias construction invariants, every method, table
 * validation, a small exhaustive exactness check, the suite.
 * series: not loaded
 * Sections: bit sources and helpers, the bit pool, faces from known bits,
 * recycling invariants, a small exhaustive exactness check, the suite.
 * series: end
 *
 * Every table is of the kind of lib/cmdline_kunit.c: one row per case,
 * one parameter of a KUNIT_CASE_PARAM per row, named after the row.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sizes.h>

#include "dice_stream.h"

/* ---- bit sources and helpers --------------------------------------------- */

/* Known stream: byte i is (i * 37 + 11) & 0xff, as in ref_recycle.py. */
static u8 dice_kat_byte(u64 i)
{
	return (u8)(i * 37 + 11);
}

/* @nbits (at most 64) bits of the known stream from bit @pos on. */
static u64 dice_kat_bits(u64 pos, unsigned int nbits)
{
	u64 v = 0;
	unsigned int i;

	for (i = 0; i < nbits; i++, pos++)
		v = v << 1 | (dice_kat_byte(pos / 8) >> (7 - pos % 8) & 1);
	return v;
}

static int dice_kat_fill(void *ctx, u64 *words, unsigned int nwords)
{
	u64 *byte = ctx;
	unsigned int i, j;

	for (i = 0; i < nwords; i++) {
		u64 w = 0;

		for (j = 0; j < 8; j++)
			w = w << 8 | dice_kat_byte((*byte)++);
		words[i] = w;
	}
	return nwords;
}

static int dice_random_fill(void *ctx, u64 *words, unsigned int nwords)
{
	get_random_bytes(words, nwords * sizeof(*words));
	return nwords;
}

/* A source that gives *@ctx fills, then fails. */
static int dice_failing_fill(void *ctx, u64 *words, unsigned int nwords)
{
	unsigned int *left = ctx;

	if (!*left)
		return -ENODATA;
	(*left)--;
	return dice_random_fill(NULL, words, nwords);
}

/* series: loaded */
/* xorshift64*: reproducible weights for the large tables. */
static u64 dice_xorshift(u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* series: end */

static void dice_test_die_release(struct kunit_resource *res)
{
	dice_die_wipe(res->data);
}

/*
 * A die the test owns: wiped, its table and batch freed, when the test
 * ends, whether it passed or an assertion stopped it.  A test may wipe it
 * earlier (a die a loop iteration); wiping twice is harmless.
 */
static struct dice_die *dice_test_die(struct kunit *test, dice_fill_fn fill,
				      void *ctx)
{
	struct dice_die *die = kunit_kzalloc(test, sizeof(*die), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, die);
	dice_die_init(die, fill, ctx);
	KUNIT_ASSERT_NOT_NULL(test,
			      kunit_alloc_resource(test, NULL,
						   dice_test_die_release,
						   GFP_KERNEL, die));
	return die;
}

/* series: loaded */
static void dice_test_table_release(struct kunit_resource *res)
{
	dice_table_free(res->data);
}

/* A table of @sides sides that no die owns, freed when the test ends. */
static struct dice_table *dice_test_table(struct kunit *test, u32 sides)
{
	struct dice_table *t = dice_table_alloc(sides);
	void *res;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	res = kunit_alloc_resource(test, NULL, dice_test_table_release,
				   GFP_KERNEL, t);
	if (!res)
		dice_table_free(t);
	KUNIT_ASSERT_NOT_NULL(test, res);
	return t;
}

/*
 * Make @die a loaded die of @sides weights @w.  Return: 0, or -EINVAL
 * after failing the test when the weights make no table.
 */
static int dice_test_set_weights(struct kunit *test, struct dice_die *die,
				 const u32 *w, u32 sides)
{
	struct dice_table *t = dice_table_alloc(sides);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	if (dice_table_from_weights(t, w)) {
		dice_table_free(t);
		KUNIT_FAIL(test, "dice_table_from_weights() failed");
		return -EINVAL;
	}
	/* The die owns the table from here, even on error. */
	KUNIT_ASSERT_EQ(test, dice_die_set_table(die, t), 0);
	return 0;
}

/* series: end */

/* ---- the bit pool ---------------------------------------------------------- */

static void dice_test_pool_order(struct kunit *test)
{
	struct dice_pool *pool = kunit_kzalloc(test, sizeof(*pool), GFP_KERNEL);
	u64 v;
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	dice_pool_init(pool, NULL, NULL);
	dice_pool_put(pool, 0xb, 4);
	dice_pool_put(pool, 0x123456789abcdefULL, 60);
	KUNIT_EXPECT_EQ(test, dice_pool_take(pool, 1, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 1);
	KUNIT_EXPECT_EQ(test, dice_pool_take(pool, 3, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 3);
	KUNIT_EXPECT_EQ(test, dice_pool_take(pool, 60, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 0x123456789abcdefULL);
	KUNIT_EXPECT_EQ(test, dice_pool_take(pool, 1, &v), -EAGAIN);
	/* Bits straddling words come out in stream order. */
	for (i = 0; i < 200; i++) {
		dice_pool_commit(pool);
		dice_pool_put(pool, i & 1 ? 0x5 : 0x2, 3);
	}
	for (i = 0; i < 200; i++) {
		KUNIT_ASSERT_EQ(test, dice_pool_take(pool, 3, &v), 0);
		KUNIT_ASSERT_EQ_MSG(test, v, (u64)(i & 1 ? 5 : 2), "take %d", i);
	}
	KUNIT_EXPECT_EQ(test, dice_pool_used(pool), 664);
	KUNIT_EXPECT_EQ(test, dice_pool_drawn(pool), 664);
}

/* A read whose every copy checks that the bits spent so far are zeroed. */
struct dice_scrub_check {
	struct kunit *test;
	const struct dice_pool *pool;
	unsigned int copies;
};

static size_t dice_copy_after_scrub(void *ctx, const u8 *bytes, size_t len)
{
	struct dice_scrub_check *c = ctx;
	const struct dice_pool *pool = c->pool;
	u64 end = pool->mark & ~63ULL, live_end = (pool->tail + 63) & ~63ULL;
	u64 bit = live_end > DICE_POOL_BITS ? live_end - DICE_POOL_BITS : 0;
	unsigned int off = pool->mark % 64;

	for (; bit < end; bit += 64)
		KUNIT_EXPECT_EQ_MSG(c->test,
				    pool->word[(bit / 64) % DICE_POOL_WORDS], 0,
				    "copy %u: spent word at bit %llu", c->copies,
				    bit);
	if (off)
		KUNIT_EXPECT_EQ_MSG(c->test,
				    pool->word[(end / 64) % DICE_POOL_WORDS] &
				    ~(~0ULL >> off), 0,
				    "copy %u: the spent top of a word",
				    c->copies);
	c->copies++;
	return len;
}

/*
 * The bits a read spent are zeroed before each copy to the reader, not only
 * when the read returns: a copy can wait on a page fault (userfaultfd) for
 * as long as the reader likes, and spent bits must not wait with it.
 */
static void dice_test_scrub_before_copy(struct kunit *test)
{
	struct dice_stream *stream = dice_stream_alloc(dice_random_fill, NULL);
	struct dice_scrub_check check = { .test = test };
	struct dice_read read = {
		.len = 3 * DICE_OUT_BYTES,
		.copy = dice_copy_after_scrub,
		.ctx = &check,
	};

	/* A new stream is a d6 in text. */
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, stream);
	check.pool = &dice_stream_die(stream)->pool;
	while (read.done < read.len)
		if (dice_stream_read_chunk(stream, &read)) {
			KUNIT_FAIL(test, "read_chunk failed at %zu", read.done);
			break;
		}
	KUNIT_EXPECT_GE(test, check.copies, 3U);
	dice_stream_free(stream);
}

/* ---- faces from known bits --------------------------------------------------- */

#define DICE_KAT_ROLLS	30

/* series: out-of-tree */
/* Faces from kmod/tests/ref_recycle.py, an independent implementation. */
/* series: in-tree */
/* Faces from an independent implementation of the recycler, in Python. */
/* series: end */
struct dice_kat_case {
	u64 sides;
	u64 faces[DICE_KAT_ROLLS];
};

static const struct dice_kat_case dice_kat_cases[] = {
	{ 6, {
		3, 2, 5, 5, 4, 3, 5, 4, 2, 4, 5, 5, 4, 3, 3, 5, 0, 4, 5, 2, 1,
		4, 0, 0, 4, 3, 3, 1, 1, 3 } },
	{ 7, {
		3, 3, 1, 2, 4, 3, 3, 3, 5, 4, 3, 2, 6, 5, 6, 1, 2, 5, 1, 5, 6,
		6, 5, 0, 2, 2, 6, 5, 3, 3 } },
	{ 20, {
		11, 9, 4, 12, 17, 8, 19, 3, 1, 0, 12, 13, 5, 0, 12, 2, 8, 9, 14,
		18, 1, 4, 9, 17, 0, 7, 17, 7, 6, 0 } },
	{ 1000003, {
		618171, 259036, 450322, 649885, 199613, 506307, 989888, 349882,
		170959, 843433, 134848, 966870, 68124, 142015, 422951, 771656,
		765048, 599531, 77726, 196240, 223935, 367445, 302, 636580,
		156762, 280563, 71995, 357363, 605678, 901947 } },
	{ 4294967297ULL, {
		2492732308ULL, 1176566229, 1474852359, 1602264511, 1525116669,
		1277094592, 824513033, 200991447, 3668008748ULL, 2652275974ULL,
		1465669222, 74502476, 2807363256ULL, 1040828330, 3381477922ULL,
		1256286240, 3221501861ULL, 720875951, 2310657856ULL,
		3729499735ULL, 648945908, 1675576599, 2531333313ULL,
		3182530034ULL, 3662852521ULL, 3938615527ULL, 4043438507ULL,
		3943833078ULL, 3656444871ULL, 3198182687ULL } },
	{ 18446744073709551615ULL, {
		2253041775215672610ULL, 3699845231968817462ULL,
		5146648686582867274ULL, 6593451593588586846ULL,
		8040114312861764978ULL, 9450888972604334470ULL,
		1674320392511059226ULL, 3121123849264204078ULL,
		4567927303878253890ULL, 6014730210883973462ULL,
		7461392930157151594ULL, 8872167589899721086ULL,
		1095599009806478610ULL, 2542402466567979302ULL,
		3989205923321124154ULL, 5436009377935173966ULL,
		6882812284940893538ULL, 8293446207195107702ULL,
		516877627101865226ULL, 1963681083863365918ULL,
		3410484540616510770ULL, 4857287995230560582ULL,
		6304090902236280154ULL, 7750753621509458286ULL,
		9161528281252027778ULL, 1384959701158785302ULL,
		2831763157920285994ULL, 4278566614673430846ULL,
		5725369519531666770ULL, 7172032238804844902ULL } },
	/* A power of two spends exactly its log2: the faces are the bits. */
	{ 8, {
		0, 2, 6, 3, 0, 1, 2, 5, 3, 6, 5, 1, 7, 7, 0, 4, 7, 2, 2, 0, 7,
		0, 6, 3, 2, 6, 0, 7, 6, 6 } },
};

static void dice_kat_desc(const struct dice_kat_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "d%llu", c->sides);
}

KUNIT_ARRAY_PARAM(dice_kat, dice_kat_cases, dice_kat_desc);

/*
 * Roll @die, which has no source, feeding it five bits of the known stream
 * from *@pos on whenever it runs dry (counted in *@dry).  A dry roll must
 * leave the die exactly as it was: its recycled state, its held offset and
 * its pool.  Return: the roll's result, -EUCLEAN if a dry roll changed the
 * die.
 */
static int dice_roll_fed(struct kunit *test, struct dice_die *die, u64 *pos,
			 unsigned int *dry, u64 *face)
{
	struct dice_recycler rec;
	u64 head;
	int err;

	for (;;) {
		rec = die->rec;
		head = die->pool.head;
		err = dice_die_roll(die, face);
		if (err != -EAGAIN)
			return err;
		if (die->rec.x != rec.x || die->rec.m != rec.m ||
		    die->rec.held != rec.held ||
		    die->rec.held_size != rec.held_size ||
		    /* series: loaded */
		    die->rec.ahead_count != rec.ahead_count ||
		    die->rec.ahead_next != rec.ahead_next ||
		    /* series: end */
		    die->pool.head != head) {
			KUNIT_FAIL(test, "roll %llu: a dry roll changed the die",
				   die->rolls);
			return -EUCLEAN;
		}
		KUNIT_ASSERT_GE(test, dice_pool_room(&die->pool), 5U);
		dice_pool_put(&die->pool, dice_kat_bits(*pos, 5), 5);
		*pos += 5;
		(*dry)++;
	}
}

/*
 * The same faces twice: from a die that draws the stream from its source,
 * and from a sourceless die fed five bits whenever a roll runs dry
 * (dice_roll_fed()).
 */
static void dice_test_known_bits(struct kunit *test)
{
	const struct dice_kat_case *c = test->param_value;
	u64 byte = 0, pos = 0, face;
	struct dice_die *ref = dice_test_die(test, dice_kat_fill, &byte);
	struct dice_die *die = dice_test_die(test, NULL, NULL);
	unsigned int i, dry = 0;

	KUNIT_ASSERT_EQ(test, dice_die_set_sides(ref, c->sides), 0);
	KUNIT_ASSERT_EQ(test, dice_die_set_sides(die, c->sides), 0);
	for (i = 0; i < DICE_KAT_ROLLS; i++) {
		KUNIT_ASSERT_EQ(test, dice_die_roll(ref, &face), 0);
		KUNIT_EXPECT_EQ_MSG(test, face, c->faces[i],
				    "sourced d%llu, roll %u: %llu, want %llu",
				    c->sides, i, face, c->faces[i]);
		KUNIT_ASSERT_EQ(test, dice_roll_fed(test, die, &pos, &dry, &face),
				0);
		KUNIT_EXPECT_EQ_MSG(test, face, c->faces[i],
				    "fed d%llu, roll %u: %llu, want %llu",
				    c->sides, i, face, c->faces[i]);
		KUNIT_EXPECT_EQ(test, dice_pool_used(&die->pool),
				dice_pool_used(&ref->pool));
	}
	KUNIT_EXPECT_EQ(test, die->rolls, (u64)DICE_KAT_ROLLS);
	KUNIT_EXPECT_GT(test, dry, 0U);
	if (!(c->sides & (c->sides - 1)))
		KUNIT_EXPECT_EQ(test, dice_pool_used(&die->pool),
				(u64)DICE_KAT_ROLLS * (fls64(c->sides) - 1));
	dice_die_wipe(ref);
	dice_die_wipe(die);
}

/* ---- recycling invariants ------------------------------------------------------ */

static const u64 dice_recycle_sides[] = {
	1, 2, 3, 5, 6, 7, 20, 100, 1000003, (1ULL << 31) + 1,
	(1ULL << 32) - 1, 1ULL << 32, (1ULL << 32) + 1, 1ULL << 40,
	(1ULL << 63) + 1, U64_MAX - 1, U64_MAX,
};

static void dice_sides_desc(const u64 *sides, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "d%llu", *sides);
}

KUNIT_ARRAY_PARAM(dice_recycle, dice_recycle_sides, dice_sides_desc);

#define DICE_INVARIANT_ROLLS	2000

/*
 * x < m after every roll, faces in range, bits used only grow and never
 * pass the bits drawn from the source.
 */
static void dice_test_recycle_invariant(struct kunit *test)
{
	u64 n = *(const u64 *)test->param_value, face = 0, used = 0;
	struct dice_die *die = dice_test_die(test, dice_random_fill, NULL);
	unsigned int i;

	KUNIT_ASSERT_EQ(test, dice_die_set_sides(die, n), 0);
	for (i = 0; i < DICE_INVARIANT_ROLLS; i++) {
		if (dice_die_roll(die, &face) || face >= n ||
		    die->rec.x >= die->rec.m ||
		    dice_pool_used(&die->pool) < used ||
		    dice_pool_used(&die->pool) > dice_pool_drawn(&die->pool)) {
			KUNIT_FAIL(test,
				   "d%llu roll %u: face %llu, x %llx:%016llx, m %llx:%016llx, used %llu of %llu",
				   n, i, face, (u64)(die->rec.x >> 64),
				   (u64)die->rec.x, (u64)(die->rec.m >> 64),
				   (u64)die->rec.m, dice_pool_used(&die->pool),
				   dice_pool_drawn(&die->pool));
			break;
		}
		used = dice_pool_used(&die->pool);
	}
	if (i == DICE_INVARIANT_ROLLS)
		KUNIT_EXPECT_EQ(test, die->rolls, (u64)DICE_INVARIANT_ROLLS);
	/* A d1 and a power of two leave the recycler alone. */
	if (!(n & (n - 1)))
		KUNIT_EXPECT_TRUE(test, die->rec.m == 1 && die->rec.x == 0);
	dice_die_wipe(die);
}

/* A failing source fails the roll and leaves the die as it was. */
static void dice_test_source_error(struct kunit *test)
{
	unsigned int left = 1, i;
	struct dice_die *die = dice_test_die(test, dice_failing_fill, &left);
	u64 face, rolls = 0, head = 0;
	u128 x = 0, m = 0;
	int err = 0;

	KUNIT_ASSERT_EQ(test, dice_die_set_sides(die, 1000003), 0);
	/*
	 * One fill is DICE_POOL_BITS bits: about 200 rolls, then the source's
	 * -ENODATA (not -EIO, which the core makes of a broken state).
	 */
	for (i = 0; i < DICE_POOL_BITS; i++) {
		x = die->rec.x;
		m = die->rec.m;
		head = die->pool.head;
		rolls = die->rolls;
		err = dice_die_roll(die, &face);
		if (err)
			break;
		KUNIT_ASSERT_LT(test, face, 1000003ULL);
	}
	KUNIT_EXPECT_EQ(test, err, -ENODATA);
	KUNIT_EXPECT_TRUE(test, die->rec.x == x && die->rec.m == m);
	KUNIT_EXPECT_EQ(test, die->pool.head, head);
	KUNIT_EXPECT_EQ(test, die->rolls, rolls);
	/* The source recovers (a refill may wrap: two fills): the die rolls on. */
	left = 2;
	KUNIT_EXPECT_EQ(test, dice_die_roll(die, &face), 0);
	KUNIT_EXPECT_EQ(test, die->rolls, rolls + 1);
	dice_die_wipe(die);
}

/* series: loaded */
/*
 * The sequence that once looped forever in the kernel: a wide fair die
 * leaves a 128-bit state, a loaded die whose cells are drawn several at a
 * time rolls one face (the rest of its group waits), then a batch of them.
 * Every roll must return and the die invariant hold after each step.
 */
static void dice_test_wide_then_grouped(struct kunit *test)
{
	struct dice_die *die = dice_test_die(test, dice_kat_fill, &(u64){ 0 });
	static const u32 pair[] = { 1, 1 };
	u64 faces[8];
	u8 bytes[32];
	int i;

	KUNIT_ASSERT_EQ(test, dice_die_set_sides(die, (1ULL << 40) + 1), 0);
	KUNIT_EXPECT_EQ(test, dice_die_roll_many(die, faces, 8), 8);
	if (dice_test_set_weights(test, die, pair, 2))
		return;
	KUNIT_EXPECT_NULL(test, dice_die_invalid(die));
	KUNIT_EXPECT_EQ(test, dice_die_roll_u8(die, bytes, 1, 1), 1);
	KUNIT_EXPECT_NULL(test, dice_die_invalid(die));
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, dice_die_roll_u8(die, bytes, 32, 1), 32);
		KUNIT_EXPECT_NULL(test, dice_die_invalid(die));
	}
	KUNIT_EXPECT_TRUE(test, bytes[0] == 1 || bytes[0] == 2);
	dice_die_wipe(die);
}

/* ---- alias construction invariants ----------------------------------------------- */

enum dice_weights_gen {
	DICE_GEN_LIST,		/* the listed weights */
	DICE_GEN_ZIPF,		/* 1000000 / (i + 1) */
	DICE_GEN_RANDOM,	/* random, every seventh zero */
	DICE_GEN_SPREAD,	/* 100000 to 199999 */
	DICE_GEN_MAX,		/* all U32_MAX */
};

struct dice_weights_case {
	const char *name;
	enum dice_weights_gen gen;
	u32 sides;
	u32 w[8];
};

static const struct dice_weights_case dice_weights_cases[] = {
	{ "one side", DICE_GEN_LIST, 1, { 7 } },
	{ "seed {2,2,6,1,1}", DICE_GEN_LIST, 5, { 2, 2, 6, 1, 1 } },
	{ "gap {1,0,3}", DICE_GEN_LIST, 3, { 1, 0, 3 } },
	{ "flat {1,1,1,1}", DICE_GEN_LIST, 4, { 1, 1, 1, 1 } },
	{ "spike {20,1,1,1,1,1,1}", DICE_GEN_LIST, 7, { 20, 1, 1, 1, 1, 1, 1 } },
	{ "single {0,0,5,0}", DICE_GEN_LIST, 4, { 0, 0, 5, 0 } },
	{ "extremes {U32_MAX,1,0}", DICE_GEN_LIST, 3, { U32_MAX, 1, 0 } },
	{ "zipf-1000", DICE_GEN_ZIPF, 1000 },
	{ "random-65536", DICE_GEN_RANDOM, 65536 },
	{ "4096 sides, column then height", DICE_GEN_SPREAD, 4096 },
	{ "2^16 sides of U32_MAX", DICE_GEN_MAX, 1 << 16 },
};

static void dice_weights_desc(const struct dice_weights_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(dice_weights, dice_weights_cases, dice_weights_desc);

static u32 *dice_make_weights(struct kunit *test,
			      const struct dice_weights_case *c)
{
	u32 *w = kunit_kmalloc_array(test, c->sides, sizeof(*w), GFP_KERNEL);
	u64 s = 0x9e3779b97f4a7c15ULL;
	u32 i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w);
	for (i = 0; i < c->sides; i++) {
		switch (c->gen) {
		case DICE_GEN_LIST:
			w[i] = c->w[i];
			break;
		case DICE_GEN_ZIPF:
			w[i] = 1000000 / (i + 1);
			break;
		case DICE_GEN_RANDOM:
			w[i] = i % 7 == 3 ? 0 :
			       (u32)(dice_xorshift(&s) >> (32 + i % 29));
			break;
		case DICE_GEN_MAX:
			w[i] = U32_MAX;
			break;
		case DICE_GEN_SPREAD:
			w[i] = 100000 + (i * 7919) % 100000;
			break;
		}
	}
	if (c->gen == DICE_GEN_RANDOM)
		w[c->sides / 2] |= 1;	/* never all zero */
	return w;
}

/*
 * Check a finished table against the mass each side should have: the
 * pieces of every column, added up side by side, give each side its share;
 * the shares add up to the whole table; and dice_table_side() lays each
 * side's pieces end to end, own piece first, then alias pieces in column
 * order, so a position inside a share is hit by exactly one (c, y).
 */
static void dice_check_table(struct kunit *test, const struct dice_table *t,
			     const u64 *want)
{
	u64 *sum = kunit_kcalloc(test, t->sides, sizeof(*sum), GFP_KERNEL);
	u64 *next = kunit_kcalloc(test, t->sides, sizeof(*next), GFP_KERNEL);
	u128 total = 0;
	u64 off;
	u32 c, s;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sum);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, next);
	KUNIT_ASSERT_GT(test, t->mass, 0ULL);
	KUNIT_EXPECT_TRUE(test, t->total == (u128)t->sides * t->mass);
	for (c = 0; c < t->sides; c++) {
		if (t->thr[c] > t->mass || t->alias[c] >= t->sides) {
			KUNIT_FAIL(test, "column %u: thr %llu of %llu, alias %u",
				   c, t->thr[c], t->mass, t->alias[c]);
			return;
		}
		sum[c] += t->thr[c];
		sum[t->alias[c]] += t->mass - t->thr[c];
		next[c] = t->thr[c];
	}
	for (s = 0; s < t->sides; s++) {
		if (sum[s] != t->share[s] || (want && sum[s] != want[s])) {
			KUNIT_FAIL(test, "side %u: pieces add up to %llu, share %llu, want %llu",
				   s, sum[s], t->share[s], want ? want[s] : sum[s]);
			return;
		}
		total += t->share[s];
	}
	KUNIT_EXPECT_TRUE(test, total == t->total);
	for (c = 0; c < t->sides; c++) {
		u64 piece = t->mass - t->thr[c];
		u32 a = t->alias[c];

		if (t->thr[c]) {
			s = dice_table_side(t, c, 0, &off);
			KUNIT_ASSERT_EQ(test, s, c);
			KUNIT_ASSERT_EQ(test, off, 0ULL);
			s = dice_table_side(t, c, t->thr[c] - 1, &off);
			KUNIT_ASSERT_EQ(test, s, c);
			KUNIT_ASSERT_EQ(test, off, t->thr[c] - 1);
		}
		if (!piece)
			continue;
		s = dice_table_side(t, c, t->thr[c], &off);
		if (s != a || off != next[a]) {
			KUNIT_FAIL(test,
				   "column %u: alias piece of side %u at %llu, want side %u at %llu",
				   c, s, off, a, next[a]);
			return;
		}
		s = dice_table_side(t, c, t->mass - 1, &off);
		KUNIT_ASSERT_EQ(test, s, a);
		KUNIT_ASSERT_EQ(test, off, next[a] + piece - 1);
		next[a] += piece;
	}
	for (s = 0; s < t->sides; s++)
		if (next[s] != t->share[s]) {
			KUNIT_FAIL(test, "side %u: pieces end at %llu, share %llu",
				   s, next[s], t->share[s]);
			return;
		}
}

/*
 * A table built from weights: column mass W = sum(w), side i's share
 * exactly n * w_i in column units.  Its columns, given back to
 * dice_table_from_alias(), must make the same table.
 */
static void dice_test_alias_build(struct kunit *test)
{
	const struct dice_weights_case *c = test->param_value;
	u32 n = c->sides, *w = dice_make_weights(test, c), i;
	u64 *want = kunit_kcalloc(test, n, sizeof(*want), GFP_KERNEL);
	struct dice_table *t, *t2;
	u64 sum = 0;
	int err;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, want);
	for (i = 0; i < n; i++) {
		want[i] = (u64)n * w[i];
		sum += w[i];
	}
	t = dice_test_table(test, n);
	t2 = dice_test_table(test, n);
	err = dice_table_from_weights(t, w);
	KUNIT_EXPECT_EQ(test, err, 0);
	if (!err) {
		KUNIT_EXPECT_EQ(test, t->sides, n);
		KUNIT_EXPECT_EQ(test, t->mass, sum);
		dice_check_table(test, t, want);

		memcpy(t2->thr, t->thr, n * sizeof(*t->thr));
		memcpy(t2->alias, t->alias, n * sizeof(*t->alias));
		err = dice_table_from_alias(t2, t->mass);
		KUNIT_EXPECT_EQ(test, err, 0);
		if (!err) {
			dice_check_table(test, t2, want);
			KUNIT_EXPECT_EQ(test, memcmp(t2->adj, t->adj,
						     n * sizeof(*t->adj)), 0);
		}
	}
}

/*
 * Rolls of a loaded die: faces in range, never a side of weight zero,
 * x < m after every roll.
 */
static void dice_test_loaded_rolls(struct kunit *test)
{
	const struct dice_weights_case *c = test->param_value;
	u32 *w = dice_make_weights(test, c);
	struct dice_die *die = dice_test_die(test, dice_random_fill, NULL);
	unsigned int i;
	u64 face;

	if (dice_test_set_weights(test, die, w, c->sides))
		return;
	for (i = 0; i < DICE_INVARIANT_ROLLS; i++) {
		if (dice_die_roll(die, &face) || face >= c->sides ||
		    !w[face] || die->rec.x >= die->rec.m) {
			KUNIT_FAIL(test, "roll %u: face %llu of %u, x < m: %d",
				   i, face, c->sides, die->rec.x < die->rec.m);
			break;
		}
	}
	dice_die_wipe(die);
}

/*
 * Tables of DICE_AHEAD_SIDES (2^14) sides and more draw their columns
 * ahead: faces of 2^14 sides, and of 2^14 - 1, which draw none, from an
 * independent implementation in Python (weights 4096 + (7919 i mod 65536)).
 */
static const struct {
	u32 sides;
	unsigned int ahead;
	u16 faces[20];
} dice_ahead_kat[] = {
	{ 16384, DICE_AHEAD,
	  { 14915, 8132, 8694, 9020, 15103, 8902, 11791, 4964, 15300, 9674,
	    14862, 917, 15499, 10460, 1561, 13254, 15686, 15183, 12800,
	    7181 } },
	{ 16383, 0,
	  { 8954, 7935, 4779, 6215, 1501, 13421, 4185, 15014, 14684, 14352,
	    12502, 5298, 12496, 5068, 7047, 15549, 11046, 1525, 9570,
	    8970 } },
};

static void dice_test_ahead_sides(struct kunit *test)
{
	u32 *w = kunit_kmalloc_array(test, 16384, sizeof(*w), GFP_KERNEL);
	unsigned int i, j;
	u64 face;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w);
	for (i = 0; i < 16384; i++)
		w[i] = 4096 + (i * 7919) % 65536;
	for (i = 0; i < ARRAY_SIZE(dice_ahead_kat); i++) {
		u64 byte = 0;
		struct dice_die *die = dice_test_die(test, dice_kat_fill, &byte);

		if (dice_test_set_weights(test, die, w, dice_ahead_kat[i].sides))
			return;
		KUNIT_EXPECT_EQ(test, die->rec.ahead_depth,
				dice_ahead_kat[i].ahead);
		for (j = 0; j < ARRAY_SIZE(dice_ahead_kat[i].faces); j++) {
			KUNIT_ASSERT_EQ(test, dice_die_roll(die, &face), 0);
			KUNIT_EXPECT_EQ_MSG(test, face,
					    (u64)dice_ahead_kat[i].faces[j],
					    "%u sides, roll %u",
					    dice_ahead_kat[i].sides, j);
		}
		dice_die_wipe(die);
	}
}

/*
 * Table memory past a page comes from vmalloc()'s single pages, never from
 * a kmalloc() of a high order, whose reclaim and compaction a user looping
 * SET_DIE could set off (dice_table_mem()); up to a page from kmalloc().
 * A table of 2,048 sides (57 KiB) is allocated that way too.
 */
static void dice_test_table_mem(struct kunit *test)
{
	static const size_t sizes[] = {
		1, PAGE_SIZE, PAGE_SIZE + 1, 16 * PAGE_SIZE, SZ_4M + 1,
	};
	struct dice_table *table;
	unsigned int i;
	void *p;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		p = dice_table_mem(sizes[i]);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
		KUNIT_EXPECT_EQ_MSG(test, is_vmalloc_addr(p),
				    sizes[i] > PAGE_SIZE, "%zu bytes",
				    sizes[i]);
		kvfree(p);
	}
	table = dice_test_table(test, 2048);
	KUNIT_EXPECT_TRUE(test, is_vmalloc_addr(table));
}

#define DICE_LOADED_KAT_ROLLS	300

/*
 * As dice_test_known_bits(), loaded: a sourceless die fed five bits when a
 * roll runs dry rolls the faces of one that draws the same stream freely,
 * and a dry roll leaves the die exactly as it was, whichever of its draws
 * ran dry (a height after its column once kept the column's top-up while
 * the bits went back to the pool, to be used twice).
 */
static void dice_test_loaded_known_bits(struct kunit *test)
{
	const struct dice_weights_case *c = test->param_value;
	u32 *w = dice_make_weights(test, c);
	u64 byte = 0, pos = 0, want, face;
	struct dice_die *ref, *die;
	unsigned int i, dry = 0;

	ref = dice_test_die(test, dice_kat_fill, &byte);
	die = dice_test_die(test, NULL, NULL);
	if (dice_test_set_weights(test, ref, w, c->sides) ||
	    dice_test_set_weights(test, die, w, c->sides))
		return;
	for (i = 0; i < DICE_LOADED_KAT_ROLLS; i++) {
		KUNIT_ASSERT_EQ(test, dice_die_roll(ref, &want), 0);
		KUNIT_ASSERT_EQ(test, dice_roll_fed(test, die, &pos, &dry, &face),
				0);
		KUNIT_ASSERT_EQ_MSG(test, face, want, "roll %u", i);
		KUNIT_ASSERT_EQ(test, dice_pool_used(&die->pool),
				dice_pool_used(&ref->pool));
	}
	/* A die of one side, or all weight on one, needs no bits. */
	if (c->sides > 1 && c->gen != DICE_GEN_LIST)
		KUNIT_EXPECT_GT(test, dry, 0U);
	dice_die_wipe(ref);
	dice_die_wipe(die);
}

/* series: end */

/* series: viglietta */
/* ---- every method ---------------------------------------------------------------- */

struct dice_method_case {
	const char *name;
	u32 method;
	u64 sides;		/* 0: the loaded die {2,2,0,6,1,1} */
};

static const struct dice_method_case dice_method_cases[] = {
	{ "recycle d6", DICE_METHOD_RECYCLE, 6 },
	{ "recycle loaded", DICE_METHOD_RECYCLE, 0 },
	{ "viglietta d6", DICE_METHOD_VIGLIETTA, 6 },
	{ "viglietta d1000003", DICE_METHOD_VIGLIETTA, 1000003 },
	{ "viglietta d2^63+1", DICE_METHOD_VIGLIETTA, (1ULL << 63) + 1 },
	/* series: batch */
	{ "batch d6", DICE_METHOD_BATCH, 6 },
	{ "batch d1000003", DICE_METHOD_BATCH, 1000003 },
	{ "batch d2^64-1", DICE_METHOD_BATCH, U64_MAX },
	/* series: end */
	/* series: alias-method */
	{ "alias d6", DICE_METHOD_ALIAS, 6 },
	{ "alias loaded", DICE_METHOD_ALIAS, 0 },
	/* series: end */
};

static void dice_method_desc(const struct dice_method_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(dice_method, dice_method_cases, dice_method_desc);

/* Every method serves faces in range, and never a side of weight zero. */
static void dice_test_methods(struct kunit *test)
{
	static const u32 w[] = { 2, 2, 0, 6, 1, 1 };
	const struct dice_method_case *c = test->param_value;
	struct dice_die *die = dice_test_die(test, dice_random_fill, NULL);
	u64 n = c->sides ? c->sides : ARRAY_SIZE(w), face = 0;
	unsigned int i;
	int err = 0;

	if (c->sides)
		KUNIT_ASSERT_EQ(test, dice_die_set_sides(die, n), 0);
	else if (dice_test_set_weights(test, die, w, n))
		return;
	err = dice_die_set_method(die, c->method);
	KUNIT_EXPECT_EQ(test, err, 0);
	for (i = 0; !err && i < DICE_INVARIANT_ROLLS; i++) {
		err = dice_die_roll(die, &face);
		if (err || face >= n || (!c->sides && !w[face])) {
			KUNIT_FAIL(test, "roll %u: error %d, face %llu of %llu",
				   i, err, face, n);
			break;
		}
	}
	if (!err)
		KUNIT_EXPECT_EQ(test, die->rolls, (u64)DICE_INVARIANT_ROLLS);
	KUNIT_EXPECT_LE(test, dice_pool_used(&die->pool),
			dice_pool_drawn(&die->pool));
	dice_die_wipe(die);
}

/*
 * A loaded die takes only the methods that can roll it; the module knows
 * no DICE_METHOD_REJECTION (the reserved number 4).
 */
static void dice_test_method_check(struct kunit *test)
{
	static const u32 w[] = { 1, 3 };
	struct dice_die *die = dice_test_die(test, NULL, NULL);

	KUNIT_EXPECT_EQ(test, dice_die_set_method(die, DICE_METHOD_REJECTION),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, dice_die_set_method(die, 5), -EINVAL);
	KUNIT_EXPECT_EQ(test, dice_die_set_method(die, U32_MAX), -EINVAL);
	if (dice_test_set_weights(test, die, w, ARRAY_SIZE(w)))
		return;
	KUNIT_EXPECT_EQ(test, dice_die_set_method(die, DICE_METHOD_VIGLIETTA),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, dice_die_set_method(die, DICE_METHOD_BATCH),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, dice_die_set_method(die, DICE_METHOD_REJECTION),
			-EINVAL);
	/* series: alias-method */
	KUNIT_EXPECT_EQ(test, dice_die_set_method(die, DICE_METHOD_ALIAS), 0);
	KUNIT_EXPECT_EQ(test, die->method, (u32)DICE_METHOD_ALIAS);
	/* series: end */
	KUNIT_EXPECT_EQ(test, dice_die_set_sides(die, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, die->sides, 2ULL);
	dice_die_wipe(die);
}

/* series: end */

/* series: loaded */
/* ---- table validation ------------------------------------------------------------ */

struct dice_alias_case {
	const char *name;
	bool weights;		/* dice_table_from_weights(), or from_alias */
	u32 sides;
	u64 mass;
	u64 thr[3];		/* for weights: the weights */
	u32 alias[3];
	int err;
	u64 share[3];		/* when err is 0 */
};

static const struct dice_alias_case dice_alias_cases[] = {
	{ "all weights zero", true, 2, 0, { 0, 0 }, {}, -EINVAL },
	{ "the one weight zero", true, 1, 0, { 0 }, {}, -EINVAL },
	{ "zero mass", false, 2, 0, { 0, 0 }, { 1, 0 }, -EINVAL },
	{ "threshold above mass", false, 2, 4, { 5, 3 }, { 1, 0 }, -EINVAL },
	{ "threshold above mass, last", false, 3, 4, { 4, 0, 5 }, { 0, 0, 0 },
	  -EINVAL },
	{ "alias out of range", false, 2, 4, { 1, 3 }, { 1, 2 }, -EINVAL },
	{ "alias out of range, full column", false, 2, 4, { 4, 4 }, { 7, 1 },
	  -EINVAL },
	{ "share overflows", false, 2, 1ULL << 63, { 0, 0 }, { 1, 1 },
	  -EOVERFLOW },
	{ "share overflows by one", false, 2, U64_MAX, { U64_MAX - 1, U64_MAX },
	  { 1, 1 }, -EOVERFLOW },
	{ "valid", false, 2, 4, { 1, 3 }, { 1, 0 }, 0, { 2, 6 } },
	{ "valid, full columns ignore alias", false, 3, 2, { 2, 2, 2 },
	  { 1, 2, 0 }, 0, { 2, 2, 2 } },
	{ "valid, largest shares", false, 2, U64_MAX, { U64_MAX, U64_MAX },
	  { 1, 0 }, 0, { U64_MAX, U64_MAX } },
	{ "valid, weights", true, 3, 0, { 1, 0, 3 }, {}, 0, { 3, 0, 9 } },
};

static void dice_alias_desc(const struct dice_alias_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(dice_alias, dice_alias_cases, dice_alias_desc);

static void dice_test_alias_validate(struct kunit *test)
{
	const struct dice_alias_case *c = test->param_value;
	struct dice_table *t = dice_test_table(test, c->sides);
	u32 w[ARRAY_SIZE(c->thr)], i;
	int err;

	for (i = 0; i < c->sides; i++) {
		w[i] = (u32)c->thr[i];
		t->thr[i] = c->thr[i];
		t->alias[i] = c->alias[i];
	}
	if (c->weights)
		err = dice_table_from_weights(t, w);
	else
		err = dice_table_from_alias(t, c->mass);
	KUNIT_EXPECT_EQ(test, err, c->err);
	if (!err && !c->err) {
		dice_check_table(test, t, c->share);
		for (i = 0; i < c->sides; i++)
			if (t->thr[i] == t->mass)
				KUNIT_EXPECT_EQ(test, t->alias[i], i);
	}
}

/* series: end */

/* ---- exhaustive exactness -------------------------------------------------------- */

/*
 * With the recycler's width shrunk, enumerate every start state x < m0 and
 * every L-bit string.  Over the rolls those bits decide, each face must
 * come up exactly in proportion to its weight, and given the face and the
 * m' left behind, x' must be exactly uniform on [0, m').
 */
#define DICE_EX_BITS	12
#define DICE_EX_M	256	/* above every m' for widths up to 8 */
#define DICE_EX_SIDES	8

struct dice_exact_case {
	const char *name;
	u32 sides;
	bool loaded;
	u32 w[DICE_EX_SIDES];
	bool wide;		/* take the 128-bit path */
	bool whole;		/* draw a loaded die whole, not column, height */
	unsigned int width;
	u64 m0[3];
	unsigned int ahead;	/* columns drawn ahead */
};

static const struct dice_exact_case dice_exact_cases[] = {
	{ "fair d6", 6, false, {}, false, false, 6, { 1, 4, 7 }, 0 },
	{ "fair d7, wide", 7, false, {}, true, false, 7, { 1, 4, 7 }, 0 },
	{ "fair d3, two faces a draw", 3, false, {}, false, false, 8,
	  { 1, 4, 7 }, 0 },
	/* series: loaded */
	{ "loaded {2,2,6,1,1}", 5, true, { 2, 2, 6, 1, 1 }, false, true, 7,
	  { 1, 3 }, 0 },
	{ "loaded {2,2,6,1,1}, column then height", 5, true,
	  { 2, 2, 6, 1, 1 }, false, false, 7, { 1, 3 }, 0 },
	{ "loaded {0,1,0,3}", 4, true, { 0, 1, 0, 3 }, false, true, 5,
	  { 1, 3 }, 0 },
	{ "loaded {0,1,0,3}, column then height", 4, true, { 0, 1, 0, 3 },
	  false, false, 5, { 1, 3 }, 0 },
	{ "loaded {0,1,0,3}, a column drawn ahead", 4, true, { 0, 1, 0, 3 },
	  false, false, 5, { 1, 3 }, 1 },
	{ "loaded {0,1}, four cells a draw", 2, true, { 0, 1 }, false, true,
	  8, { 1, 3 }, 0 },
	{ "loaded {1,0,0}, two cells a draw", 3, true, { 1, 0, 0 }, false,
	  true, 8, { 1, 3 }, 0 },
	/* series: end */
};

static void dice_exact_desc(const struct dice_exact_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(dice_exact, dice_exact_cases, dice_exact_desc);

static void dice_test_exhaustive(struct kunit *test)
{
	const struct dice_exact_case *c = test->param_value;
	struct dice_die *die = dice_test_die(test, NULL, NULL);
	u32 (*cnt)[DICE_EX_SIDES][DICE_EX_M];
	u64 byface[DICE_EX_SIDES] = {}, mass[DICE_EX_SIDES], total = 0;
	u64 x0, s, f, m1, x1, decided = 0, face;
	unsigned int i;

	cnt = kunit_kzalloc(test, sizeof(*cnt) * DICE_EX_M, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cnt);
	for (i = 0; i < c->sides; i++) {
		mass[i] = c->loaded ? c->w[i] : 1;
		total += mass[i];
	}
	/* series: loaded */
	if (c->loaded) {
		if (dice_test_set_weights(test, die, c->w, c->sides))
			return;
	} else {
		KUNIT_ASSERT_EQ(test, dice_die_set_sides(die, c->sides), 0);
	}
#ifdef DICE_SERIES_CUT /* series: not loaded */
	KUNIT_ASSERT_EQ(test, dice_die_set_sides(die, c->sides), 0);
#endif /* series: end */
	dice_die_set_widths(die, c->width, c->width,
			    c->wide ? 0 : 1ULL << 32, c->whole ? 1ULL << 40 : 0);
	/* series: loaded */
	dice_die_set_ahead(die, c->ahead, 1);
	KUNIT_ASSERT_EQ(test, die->rec.ahead_depth, c->ahead);
	/* series: end */

	for (i = 0; i < ARRAY_SIZE(c->m0) && c->m0[i]; i++) {
		for (x0 = 0; x0 < c->m0[i]; x0++) {
			for (s = 0; s < 1U << DICE_EX_BITS; s++) {
				die->rec.x = x0;
				die->rec.m = c->m0[i];
				dice_pool_discard(&die->pool);
				dice_pool_put(&die->pool, s, DICE_EX_BITS);
				if (dice_die_roll(die, &face))
					continue;
				/* Faces drawn, not served, are leftovers too. */
				dice_die_settle(die);
				m1 = (u64)die->rec.m;
				x1 = (u64)die->rec.x;
				if (face >= c->sides || x1 >= m1 ||
				    die->rec.m >= DICE_EX_M) {
					KUNIT_FAIL(test,
						   "x0 %llu bits %llx: face %llu, x' %llu, m' %llu",
						   x0, s, face, x1, m1);
					goto out;
				}
				decided++;
				byface[face]++;
				cnt[m1][face][x1]++;
			}
		}
	}
	KUNIT_EXPECT_GT(test, decided, 0ULL);
	for (f = 0; f < c->sides; f++)
		KUNIT_EXPECT_EQ_MSG(test, byface[f] * total, mass[f] * decided,
				    "face %llu: %llu of %llu rolls, want %llu/%llu",
				    f, byface[f], decided, mass[f], total);
	for (m1 = 1; m1 < DICE_EX_M; m1++)
		for (f = 0; f < c->sides; f++)
			for (x1 = 1; x1 < m1; x1++)
				if (cnt[m1][f][x1] != cnt[m1][f][0]) {
					KUNIT_FAIL(test, "leftover not uniform: m' %llu, face %llu",
						   m1, f);
					goto out;
				}
out:
	dice_die_wipe(die);
}

/* ---- the suite --------------------------------------------------------------------- */

static struct kunit_case dice_test_cases[] = {
	KUNIT_CASE(dice_test_pool_order),
	KUNIT_CASE(dice_test_scrub_before_copy),
	KUNIT_CASE_PARAM(dice_test_known_bits, dice_kat_gen_params),
	KUNIT_CASE_PARAM(dice_test_recycle_invariant, dice_recycle_gen_params),
	KUNIT_CASE(dice_test_source_error),
	/* series: loaded */
	KUNIT_CASE(dice_test_wide_then_grouped),
	KUNIT_CASE_PARAM(dice_test_alias_build, dice_weights_gen_params),
	KUNIT_CASE_PARAM(dice_test_loaded_rolls, dice_weights_gen_params),
	KUNIT_CASE_PARAM(dice_test_loaded_known_bits, dice_weights_gen_params),
	KUNIT_CASE_PARAM(dice_test_alias_validate, dice_alias_gen_params),
	KUNIT_CASE(dice_test_ahead_sides),
	KUNIT_CASE(dice_test_table_mem),
	/* series: end */
	/* series: viglietta */
	KUNIT_CASE_PARAM(dice_test_methods, dice_method_gen_params),
	KUNIT_CASE(dice_test_method_check),
	/* series: end */
	KUNIT_CASE_PARAM(dice_test_exhaustive, dice_exact_gen_params),
	{}
};

static struct kunit_suite dice_test_suite = {
	.name = "dice",
	.test_cases = dice_test_cases,
};

kunit_test_suite(dice_test_suite);

MODULE_DESCRIPTION("KUnit tests for the die core of /dev/dice");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
