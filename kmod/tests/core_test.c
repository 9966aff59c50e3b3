// SPDX-License-Identifier: GPL-2.0
/*
 * core_test.c - userspace unit tests of the die core (the module's own C)
 *
 * Exact checks with injected bits, exhaustive enumeration of every bit
 * string that can decide a roll (with the recycler's widths shrunk so the
 * enumeration is finite), and bits per roll over 10^6 rolls.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "dice_stream.h"
#include "held_bits.h"
#include "splitmix.h"
#include "tap.h"

/* ---- bit sources ---------------------------------------------------------- */

/* Known stream: byte i is (i * 37 + 11) & 0xff, as in ref_recycle.py. */
struct kat_ctx {
	u64 byte;
};

static int kat_fill(void *ctx, u64 *words, unsigned int nwords)
{
	struct kat_ctx *k = ctx;
	unsigned int i, j;

	for (i = 0; i < nwords; i++) {
		u64 w = 0;

		for (j = 0; j < 8; j++)
			w = (w << 8) | ((k->byte++ * 37 + 11) & 0xff);
		words[i] = w;
	}
	return nwords;
}

/* xoshiro256** for the statistical runs: fast and good enough for counts. */
static u64 xs[4] = { 0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL,
		     0x94d049bb133111ebULL, 0x2545f4914f6cdd1dULL };

static inline u64 rotl(u64 x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static u64 xoshiro(void)
{
	u64 r = rotl(xs[1] * 5, 7) * 9, t = xs[1] << 17;

	xs[2] ^= xs[0];
	xs[3] ^= xs[1];
	xs[1] ^= xs[2];
	xs[0] ^= xs[3];
	xs[2] ^= t;
	xs[3] = rotl(xs[3], 45);
	return r;
}

static int prng_fill(void *ctx, u64 *words, unsigned int nwords)
{
	unsigned int i;

	for (i = 0; i < nwords; i++)
		words[i] = xoshiro();
	return nwords;
}

/* ---- pool --------------------------------------------------------------- */

static void test_pool_order(void)
{
	struct dice_pool pool;
	u64 v;
	int i;

	dice_pool_init(&pool, NULL, NULL);
	dice_pool_put(&pool, 0xb, 4);			/* 1011 */
	dice_pool_put(&pool, 0x123456789abcdefULL, 60);
	EXPECT(!dice_pool_take(&pool, 1, &v) && v == 1);
	EXPECT(!dice_pool_take(&pool, 3, &v) && v == 3);
	EXPECT(!dice_pool_take(&pool, 60, &v) && v == 0x123456789abcdefULL);
	EXPECT(dice_pool_take(&pool, 1, &v) == -EAGAIN);
	/* Bits straddling words come out in stream order. */
	for (i = 0; i < 200; i++) {
		dice_pool_commit(&pool);
		dice_pool_put(&pool, i & 1 ? 0x5 : 0x2, 3);
	}
	for (i = 0; i < 200; i++) {
		EXPECT(!dice_pool_take(&pool, 3, &v));
		EXPECT(v == (u64)(i & 1 ? 5 : 2));
	}
	EXPECT(dice_pool_used(&pool) == 664 && dice_pool_drawn(&pool) == 664);
}

static void test_pool_accounting(void)
{
	struct kat_ctx k = { 0 };
	struct dice_pool pool;
	u64 v, first = 0;

	dice_pool_init(&pool, kat_fill, &k);
	EXPECT(!dice_pool_take(&pool, 8, &v) && v == 11);
	EXPECT(!dice_pool_take(&pool, 8, &v) && v == 48);
	EXPECT(dice_pool_used(&pool) == 16);
	EXPECT(dice_pool_drawn(&pool) == DICE_POOL_BITS);
	/* Rollback returns to the mark; the same bits come again. */
	dice_pool_commit(&pool);
	EXPECT(!dice_pool_take(&pool, 33, &first));
	dice_pool_rollback(&pool);
	EXPECT(!dice_pool_take(&pool, 33, &v) && v == first);
	dice_pool_commit(&pool);
	dice_pool_discard(&pool);
	EXPECT(pool.discarded == DICE_POOL_BITS - 49);
	EXPECT(dice_pool_used(&pool) == 49);
	EXPECT(!dice_pool_take(&pool, 64, &v));
	EXPECT(dice_pool_used(&pool) == 113);
	EXPECT(dice_pool_drawn(&pool) == 2 * DICE_POOL_BITS);
}

/* A source that gives one word a call, as the kernel's CRNG does. */
struct one_word {
	u64 calls;
};

static int one_word_fill(void *ctx, u64 *words, unsigned int nwords)
{
	struct one_word *o = ctx;

	o->calls++;
	words[0] = xoshiro();
	return 1;
}

/*
 * A one-word source is asked for a word only when a take would not find
 * its bits (a take looks at up to 64 bits ahead and may spend fewer), so
 * between reads a pool holds under two words unspent: three words drawn
 * for the first roll of any die, never a ring's worth.
 */
static void test_pool_one_word_source(void)
{
	static const u64 sides[] = { 6, 20, 1000003, ~0ULL };
	unsigned int d, r;

	for (d = 0; d < ARRAY_SIZE(sides); d++) {
		struct one_word o = { 0 };
		struct dice_stream *s = dice_stream_alloc(one_word_fill, &o);
		const struct dice_pool *pool = &s->die.pool;
		u8 buf[DICE_TEXT_MAX];
		size_t done;

		EXPECT(!dice_stream_set_sides(s, sides[d]));
		EXPECT(!dice_stream_read(s, buf, sizeof(buf), &done));
		EXPECT(dice_pool_drawn(pool) <= 3 * 64);
		for (r = 0; r < 2000; r++) {
			EXPECT(!dice_stream_read(s, buf, 1 + r % sizeof(buf),
						 &done));
			if (pool->tail - pool->head >= 2 * 64) {
				tap_note("d%llu: %llu bits held after read %u",
					 (unsigned long long)sides[d],
					 (unsigned long long)(pool->tail - pool->head), r);
				EXPECT(pool->tail - pool->head < 2 * 64);
				break;
			}
		}
		EXPECT(o.calls * 64 == dice_pool_drawn(pool));
		dice_stream_free(s);
	}
}

/*
 * A trimmed pool keeps at most the bits asked for, drops the others as
 * discarded, and neither used nor drawn moves; the faces that follow are
 * still faces of the die.
 */
static void test_pool_trim(void)
{
	struct dice_stream *s = dice_stream_alloc(prng_fill, NULL);
	const struct dice_pool *pool = &s->die.pool;
	struct dice_die_stats before, after;
	u8 buf[64];
	size_t done, i;

	EXPECT(!dice_stream_set_sides(s, 6));
	EXPECT(!dice_stream_set_format(s, DICE_FMT_U8));
	EXPECT(!dice_stream_read(s, buf, 10, &done) && done == 10);
	dice_die_stats(dice_stream_die(s), &before);
	EXPECT(pool->tail - pool->head > 127);
	dice_stream_trim(s, 127);
	dice_stream_scrub(s);
	dice_die_stats(dice_stream_die(s), &after);
	EXPECT(pool->tail - pool->head == 127);
	EXPECT(after.bits_used == before.bits_used);
	EXPECT(after.bits_drawn == before.bits_drawn);
	EXPECT(after.bits_discarded - before.bits_discarded ==
	       before.bits_drawn - before.bits_used - before.bits_discarded - 127);
	EXPECT(!dice_stream_read(s, buf, sizeof(buf), &done) && done == 64);
	for (i = 0; i < done; i++)
		EXPECT(buf[i] >= 1 && buf[i] <= 6);
	dice_stream_free(s);
}

/*
 * A trim also drops the rolls waiting in a batch: a one-roll read of a d6
 * under DICE_METHOD_BATCH leaves hundreds, and the roll after the trim
 * draws a new batch (more bits used), where without it that roll would
 * have come from the old one (no bit used).
 */
static void test_trim_drops_batch(void)
{
	struct dice_stream *s = dice_stream_alloc(prng_fill, NULL);
	struct dice_die *die = dice_stream_die(s);
	struct dice_die_stats before, after;
	unsigned int trim, i;
	u8 buf[1];
	size_t done;

	EXPECT(!dice_stream_set_sides(s, 6));
	EXPECT(!dice_stream_set_format(s, DICE_FMT_U8));
	EXPECT(!dice_stream_set_method(s, DICE_METHOD_BATCH));
	for (trim = 0; trim < 2; trim++) {
		EXPECT(!dice_stream_read(s, buf, 1, &done) && done == 1);
		EXPECT(die->batch && die->batch->k > 100);
		EXPECT(die->batch->left + die->batch->in_chunk > 100);
		if (trim)
			dice_stream_trim(s, 127);
		dice_stream_scrub(s);
		if (trim) {
			EXPECT(!die->batch->left && !die->batch->in_chunk &&
			       !die->batch->chunk);
			for (i = 0; i < DICE_BATCH_LIMBS; i++)
				EXPECT(!die->batch->value[i]);
		}
		dice_die_stats(die, &before);
		EXPECT(!dice_stream_read(s, buf, 1, &done) && done == 1);
		EXPECT(buf[0] >= 1 && buf[0] <= 6);
		dice_die_stats(die, &after);
		if (trim)
			EXPECT(after.bits_used - before.bits_used >=
			       die->batch->bits);
		else
			EXPECT(after.bits_used == before.bits_used);
		EXPECT(dice_die_invalid(die) == NULL);
	}
	dice_stream_free(s);
}

/*
 * A trim gives back what a read drew for later rolls: the faces of a d6's
 * group not served join x (m grows by 6^11 exactly), and the 16 columns a
 * 2^14-side loaded die drew ahead join it while m stays narrow, the rest
 * dropped; the die stays valid and rolls on.
 */
static void test_trim_gives_back_drawn_ahead(void)
{
	struct dice_stream *s = dice_stream_alloc(prng_fill, NULL);
	struct dice_die *die = dice_stream_die(s);
	struct dice_table *t = dice_table_alloc(1 << 14);
	u32 *w = calloc(1 << 14, sizeof(*w));
	u128 x, m, pw = 1;
	u64 held, held_size;
	u8 buf[2];
	size_t done;
	unsigned int i, k;

	EXPECT(t && w);
	EXPECT(!dice_stream_set_sides(s, 6));
	EXPECT(!dice_stream_set_format(s, DICE_FMT_U8));
	EXPECT(!dice_stream_read(s, buf, 1, &done) && done == 1);
	EXPECT(die->digits.per == 12 && die->digits.left == 11);
	x = die->rec.x;
	m = die->rec.m;
	dice_stream_trim(s, 127);
	for (i = 0; i < 11; i++)
		pw *= 6;
	EXPECT(!die->digits.left && !die->digits.frac);
	EXPECT(die->rec.m == m * pw && die->rec.x / pw == x);
	EXPECT(dice_die_invalid(die) == NULL);
	EXPECT(!dice_stream_read(s, buf, 1, &done) && done == 1);
	EXPECT(buf[0] >= 1 && buf[0] <= 6);

	/* Heavy weights: n W cells, past the 2^40 of a whole draw. */
	for (i = 0; i < 1 << 14; i++)
		w[i] = 1 + (i * 2654435761U) % 65535;
	EXPECT(!dice_table_from_weights(t, w));
	EXPECT(!dice_stream_set_format(s, DICE_FMT_U16));
	EXPECT(!dice_stream_set_table(s, t));
	EXPECT(!dice_stream_read(s, buf, 2, &done) && done == 2);
	EXPECT(die->rec.ahead_depth == 16 && die->rec.ahead_count == 16);
	x = die->rec.x;
	m = die->rec.m;
	held = die->rec.held;
	held_size = die->rec.held_size;
	dice_stream_trim(s, 127);
	EXPECT(!die->rec.ahead_count && !die->rec.ahead_next);
	for (i = 0; i < DICE_AHEAD; i++)
		EXPECT(!die->rec.ahead[i]);
	/* The held offset waits for the next roll, as it would have. */
	EXPECT(die->rec.held == held && die->rec.held_size == held_size);
	/* k columns merged as digits below x, until the next had no room. */
	for (k = 0, pw = 1; m * pw < die->rec.m; k++)
		pw *= 1 << 14;
	EXPECT(m * pw == die->rec.m && die->rec.x / pw == x);
	EXPECT(k == 16 || (die->rec.m << 14) >> die->rec.narrow_width);
	EXPECT(dice_die_invalid(die) == NULL);
	EXPECT(!dice_stream_read(s, buf, 2, &done) && done == 2);
	EXPECT((buf[0] | buf[1] << 8) >= 1 && (buf[0] | buf[1] << 8) <= 1 << 14);
	EXPECT(dice_die_invalid(die) == NULL);
	free(w);
	dice_stream_free(s);
}

/*
 * After a read, nothing it spent or served stays: every ring word but
 * those holding unspent bits is zero, the spent bits of the first of those
 * are zero, and so are the bytes read and the faces on their way out.
 */
static void test_read_scrubs(void)
{
	static const u32 formats[] = { DICE_FMT_TEXT, DICE_FMT_U8, DICE_FMT_U64 };
	static const size_t lens[] = { 1, 3, 8, 100, 4096, 20000 };
	unsigned int f, l, i;

	for (f = 0; f < ARRAY_SIZE(formats); f++) {
		for (l = 0; l < ARRAY_SIZE(lens); l++) {
			struct dice_stream *s = dice_stream_alloc(prng_fill, NULL);
			const struct dice_pool *pool = &s->die.pool;
			static u8 buf[20000];
			u64 first, end;
			size_t done;

			EXPECT(!dice_stream_set_sides(s, 200));
			EXPECT(!dice_stream_set_format(s, formats[f]));
			EXPECT(!dice_stream_read(s, buf, lens[l], &done) ||
			       lens[l] < 8);
			first = pool->mark / 64;
			end = (pool->tail + 63) / 64;
			for (i = 0; i < DICE_POOL_WORDS; i++) {
				bool live = (i - first) % DICE_POOL_WORDS <
					    end - first;

				if (!live && pool->word[i]) {
					tap_note("format %#x, read %zu: spent word %u not zero",
						 formats[f], lens[l], i);
					EXPECT(!pool->word[i]);
					break;
				}
			}
			if (pool->mark % 64)
				EXPECT(!(pool->word[first % DICE_POOL_WORDS] >>
					 (64 - pool->mark % 64)));
			for (i = 0; i < s->out_start; i++)
				EXPECT(!s->out[i]);
			for (i = s->out_end; i < DICE_OUT_BYTES; i++)
				EXPECT(!s->out[i]);
			for (i = 0; i < DICE_STREAM_FACES; i++)
				EXPECT(!s->faces[i]);
			/* A change drops what waited: zeroed, not just skipped. */
			EXPECT(!dice_stream_set_sides(s, 100));
			for (i = s->out_end; i < DICE_OUT_BYTES; i++)
				EXPECT(!s->out[i]);
			dice_stream_free(s);
		}
	}
}

/* ---- arithmetic ----------------------------------------------------------- */

static void test_div128(void)
{
	/* Divisors at the ends of each normalization shift, and 1. */
	static const u64 edges[] = {
		1, 2, 3, 0xffffffffULL, 0x100000000ULL, 0x100000001ULL,
		0x7fffffffffffffffULL, 0x8000000000000000ULL,
		0x8000000000000001ULL, ~0ULL,
	};
	unsigned int e;
	int i;

	for (i = 0; i < 200000; i++) {
		u128 a = ((u128)xoshiro() << 64) | xoshiro(), q = a;
		u64 d = xoshiro() >> (xoshiro() % 64), rem;

		if (!d)
			d = 1;
		rem = dice_div128(&q, d);
		EXPECT(q == a / d && rem == (u64)(a % d));
		if (tap_case_failed)
			break;
	}
	/* The compiler's own 128-bit division is the oracle. */
	for (e = 0; e < ARRAY_SIZE(edges); e++) {
		static const u64 los[] = { 0, 1, 0xffffffffULL, ~0ULL };
		u64 d = edges[e], his[] = { 0, d - 1, d / 2, ~0ULL }, rem;
		unsigned int h, l;

		for (h = 0; h < ARRAY_SIZE(his); h++) {
			for (l = 0; l < ARRAY_SIZE(los); l++) {
				u128 a = (u128)his[h] << 64 | los[l], q = a;

				rem = dice_div128(&q, d);
				EXPECT(q == a / d && rem == (u64)(a % d));
			}
		}
	}
}

/* Division by multiplication agrees with the hardware for every case tried. */
static void test_divisor(void)
{
	static const u64 edge[] = { 1, 2, 3, 5, 6, 7, 10, 20, 100, 641,
		1000003, (1ULL << 31) + 1, (1ULL << 32) - 1, (1ULL << 32) + 1,
		(1ULL << 63) - 1, 1ULL << 63, (1ULL << 63) + 1, U64_MAX - 1,
		U64_MAX };
	unsigned int i, j;

	for (i = 0; i < 4000 && !tap_case_failed; i++) {
		struct dice_divisor dv;
		u64 d = i < ARRAY_SIZE(edge) ? edge[i] :
			xoshiro() >> (xoshiro() % 64);

		if (!d)
			d = 1;
		dice_divisor_init(&dv, d);
		/* Dividends below 2^63, the narrow draws' m and x. */
		for (j = 0; j < 2000; j++) {
			u64 x = j < 4 ? (u64[]){ 0, 1, S64_MAX, d - 1 }[j] :
				j < 8 ? d * (xoshiro() % (S64_MAX / d + 1)) -
					(j & 1) :
				xoshiro() >> (1 + xoshiro() % 63);

			if (x > S64_MAX)
				continue;

			if (dice_divide(&dv, x) != x / d) {
				printf("#   %llu / %llu\n", (unsigned long long)x,
				       (unsigned long long)d);
				tap_case_failed = 1;
				break;
			}
		}
	}
}

/* ---- formats ---------------------------------------------------------------- */

/* The batch encoder writes what the one-face encoder writes, face by face. */
static void test_format_batch(void)
{
	static const u32 types[] = { DICE_FMT_TEXT, DICE_FMT_U8, DICE_FMT_U16,
				     DICE_FMT_U32, DICE_FMT_U64 };
	static const u64 faces[] = { 0, 1, 8, 9, 10, 99, 254, 255, 65535,
				     1ULL << 32, U64_MAX - 1 };
	u8 one[ARRAY_SIZE(faces) * DICE_TEXT_MAX];
	u8 many[ARRAY_SIZE(faces) * DICE_TEXT_MAX];
	unsigned int t, z, i, len, got;

	for (t = 0; t < ARRAY_SIZE(types); t++) {
		for (z = 0; z < 2; z++) {
			u32 format = types[t] | (z ? DICE_FMT_ZERO_BASED : 0);

			len = 0;
			for (i = 0; i < ARRAY_SIZE(faces); i++)
				len += dice_format_face(format, faces[i],
							one + len);
			got = dice_format_faces(format, faces,
						ARRAY_SIZE(faces), many);
			EXPECT(got == len && !memcmp(one, many, len));
		}
	}
}

static void test_format(void)
{
	u8 buf[DICE_TEXT_MAX];

	EXPECT(dice_format_face(DICE_FMT_TEXT, 0, buf) == 2 &&
	       !memcmp(buf, "1\n", 2));
	EXPECT(dice_format_face(DICE_FMT_TEXT, U64_MAX - 1, buf) == 21 &&
	       !memcmp(buf, "18446744073709551615\n", 21));
	EXPECT(dice_format_face(DICE_FMT_TEXT | DICE_FMT_ZERO_BASED, 0, buf)
	       == 2 && !memcmp(buf, "0\n", 2));
	EXPECT(dice_format_face(DICE_FMT_U16, 0x1233, buf) == 2 &&
	       buf[0] == 0x34 && buf[1] == 0x12);
	EXPECT(dice_format_face(DICE_FMT_U64 | DICE_FMT_ZERO_BASED,
				0x0102030405060708ULL, buf) == 8 &&
	       buf[0] == 8 && buf[7] == 1);
	EXPECT(dice_format_check(DICE_FMT_U8, 255) == 0);
	EXPECT(dice_format_check(DICE_FMT_U8, 256) == -EOVERFLOW);
	EXPECT(dice_format_check(DICE_FMT_U8 | DICE_FMT_ZERO_BASED, 256) == 0);
	EXPECT(dice_format_check(DICE_FMT_U32, 1ULL << 32) == -EOVERFLOW);
	EXPECT(dice_format_check(DICE_FMT_U32 | DICE_FMT_ZERO_BASED,
				 1ULL << 32) == 0);
	EXPECT(dice_format_check(DICE_FMT_U64, U64_MAX) == 0);
	EXPECT(dice_format_check(5, 6) == -EINVAL);
	EXPECT(dice_format_check(0x200, 6) == -EINVAL);
}

/* ---- known answers ------------------------------------------------------------- */

/* Faces from ref_recycle.py, an independent Python implementation. */
static const struct {
	u64 n;
	u64 faces[30];
} kat[] = {
	{ 6ULL, { 3ULL, 2ULL, 5ULL, 5ULL, 4ULL, 3ULL, 5ULL, 4ULL, 2ULL, 4ULL, 5ULL, 5ULL, 4ULL, 3ULL, 3ULL, 5ULL, 0ULL, 4ULL, 5ULL, 2ULL, 1ULL, 4ULL, 0ULL, 0ULL, 4ULL, 3ULL, 3ULL, 1ULL, 1ULL, 3ULL } },
	{ 7ULL, { 3ULL, 3ULL, 1ULL, 2ULL, 4ULL, 3ULL, 3ULL, 3ULL, 5ULL, 4ULL, 3ULL, 2ULL, 6ULL, 5ULL, 6ULL, 1ULL, 2ULL, 5ULL, 1ULL, 5ULL, 6ULL, 6ULL, 5ULL, 0ULL, 2ULL, 2ULL, 6ULL, 5ULL, 3ULL, 3ULL } },
	{ 20ULL, { 11ULL, 9ULL, 4ULL, 12ULL, 17ULL, 8ULL, 19ULL, 3ULL, 1ULL, 0ULL, 12ULL, 13ULL, 5ULL, 0ULL, 12ULL, 2ULL, 8ULL, 9ULL, 14ULL, 18ULL, 1ULL, 4ULL, 9ULL, 17ULL, 0ULL, 7ULL, 17ULL, 7ULL, 6ULL, 0ULL } },
	{ 1000003ULL, { 618171ULL, 259036ULL, 450322ULL, 649885ULL, 199613ULL, 506307ULL, 989888ULL, 349882ULL, 170959ULL, 843433ULL, 134848ULL, 966870ULL, 68124ULL, 142015ULL, 422951ULL, 771656ULL, 765048ULL, 599531ULL, 77726ULL, 196240ULL, 223935ULL, 367445ULL, 302ULL, 636580ULL, 156762ULL, 280563ULL, 71995ULL, 357363ULL, 605678ULL, 901947ULL } },
	{ 4294967297ULL, { 2492732308ULL, 1176566229ULL, 1474852359ULL, 1602264511ULL, 1525116669ULL, 1277094592ULL, 824513033ULL, 200991447ULL, 3668008748ULL, 2652275974ULL, 1465669222ULL, 74502476ULL, 2807363256ULL, 1040828330ULL, 3381477922ULL, 1256286240ULL, 3221501861ULL, 720875951ULL, 2310657856ULL, 3729499735ULL, 648945908ULL, 1675576599ULL, 2531333313ULL, 3182530034ULL, 3662852521ULL, 3938615527ULL, 4043438507ULL, 3943833078ULL, 3656444871ULL, 3198182687ULL } },
	{ 18446744073709551615ULL, { 2253041775215672610ULL, 3699845231968817462ULL, 5146648686582867274ULL, 6593451593588586846ULL, 8040114312861764978ULL, 9450888972604334470ULL, 1674320392511059226ULL, 3121123849264204078ULL, 4567927303878253890ULL, 6014730210883973462ULL, 7461392930157151594ULL, 8872167589899721086ULL, 1095599009806478610ULL, 2542402466567979302ULL, 3989205923321124154ULL, 5436009377935173966ULL, 6882812284940893538ULL, 8293446207195107702ULL, 516877627101865226ULL, 1963681083863365918ULL, 3410484540616510770ULL, 4857287995230560582ULL, 6304090902236280154ULL, 7750753621509458286ULL, 9161528281252027778ULL, 1384959701158785302ULL, 2831763157920285994ULL, 4278566614673430846ULL, 5725369519531666770ULL, 7172032238804844902ULL } },
	{ 8ULL, { 0ULL, 2ULL, 6ULL, 3ULL, 0ULL, 1ULL, 2ULL, 5ULL, 3ULL, 6ULL, 5ULL, 1ULL, 7ULL, 7ULL, 0ULL, 4ULL, 7ULL, 2ULL, 2ULL, 0ULL, 7ULL, 0ULL, 6ULL, 3ULL, 2ULL, 6ULL, 0ULL, 7ULL, 6ULL, 6ULL } },
};

static void test_known_answers(void)
{
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(kat); i++) {
		struct kat_ctx k = { 0 };
		struct dice_die die;
		u64 face;

		dice_die_init(&die, kat_fill, &k);
		EXPECT(!dice_die_set_sides(&die, kat[i].n));
		for (j = 0; j < 30; j++) {
			EXPECT(!dice_die_roll(&die, &face));
			if (face != kat[i].faces[j]) {
				printf("#   n=%llu roll %u: %llu, want %llu\n",
				       (unsigned long long)kat[i].n, j,
				       (unsigned long long)face,
				       (unsigned long long)kat[i].faces[j]);
				tap_case_failed = 1;
				break;
			}
		}
		dice_die_wipe(&die);
	}
}

/*
 * Faces of loaded dice from kmod/tests/ref_loaded.py, an independent Python
 * implementation written from the documents (recycling.rst, alias.rst and
 * Documentation/misc-devices/dice.rst) without the C: every shape, columns
 * drawn ahead from none to 16, and a mass above 2^32 under both mappings
 * (128 bits under mapping 1, 64 under 2).  Regenerate with
 *   python3 ref_loaded.py -n 40 [--whole-limit 0] [--ahead K] [--mapping M] W
 * (kat_w_wide: 2^26 + 7919 i for i below 200).
 */
static const u32 kat_w_seed[] = { 2, 2, 6, 1, 1 };
static const u32 kat_w_gap[] = { 1, 0, 3 };
static const u32 kat_w_spike[] = { 20, 1, 1, 1, 1, 1, 1 };
static u32 kat_w_wide[200];

static const struct {
	const u32 *w;
	u32 n;
	bool whole;		/* default limits, else column and height */
	unsigned int ahead;	/* then at most this many columns ahead */
	u32 mapping;
	u8 faces[40];
} loaded_kat[] = {
	{ kat_w_seed, 5, false, 0, 2,
	  { 2, 2, 2, 0, 2, 0, 2, 2, 1, 0, 2, 2, 2, 0, 2, 2, 1, 1, 2, 2, 1, 2, 4, 3,
	    4, 2, 2, 0, 2, 1, 0, 2, 2, 2, 0, 2, 3, 0, 1, 0 } },
	{ kat_w_seed, 5, false, 1, 2,
	  { 2, 0, 1, 0, 2, 2, 2, 2, 2, 1, 1, 2, 2, 2, 4, 2, 0, 2, 0, 1, 2, 2, 1, 2,
	    1, 1, 2, 2, 1, 0, 2, 3, 3, 3, 4, 0, 2, 2, 4, 2 } },
	{ kat_w_seed, 5, false, 2, 2,
	  { 4, 2, 2, 0, 2, 3, 2, 2, 2, 2, 1, 0, 2, 2, 3, 0, 2, 0, 2, 0, 2, 1, 2, 0,
	    2, 3, 2, 2, 2, 0, 2, 3, 1, 2, 1, 2, 1, 2, 2, 2 } },
	{ kat_w_seed, 5, false, 4, 2,
	  { 2, 0, 2, 3, 2, 2, 2, 4, 4, 2, 2, 1, 0, 2, 3, 2, 2, 2, 0, 0, 0, 2, 2, 2,
	    2, 4, 2, 2, 1, 2, 0, 1, 1, 2, 2, 3, 2, 1, 2, 1 } },
	{ kat_w_seed, 5, false, 16, 2,
	  { 2, 0, 4, 3, 2, 3, 1, 2, 0, 2, 2, 0, 2, 2, 0, 3, 2, 1, 2, 0, 4, 2, 2, 2,
	    2, 1, 0, 0, 2, 2, 2, 1, 4, 2, 4, 2, 2, 2, 2, 0 } },
	{ kat_w_gap, 3, false, 2, 2,
	  { 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 2, 2, 2, 0, 2, 2, 2, 0, 2, 2, 2,
	    2, 2, 0, 2, 2, 2, 2, 2, 2, 2, 0, 2, 2, 0, 0, 2 } },
	{ kat_w_spike, 7, false, 4, 2,
	  { 0, 4, 5, 3, 3, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 6, 0, 0, 5, 0, 0,
	    0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5 } },
	{ kat_w_seed, 5, true, 0, 2,
	  { 1, 2, 2, 0, 2, 2, 3, 2, 2, 0, 0, 2, 3, 2, 4, 4, 2, 2, 4, 2, 2, 1, 2, 2,
	    3, 0, 2, 1, 0, 2, 2, 2, 3, 2, 2, 4, 2, 2, 2, 2 } },
	{ kat_w_wide, 200, true, 0, 2,
	  { 179, 31, 162, 27, 152, 129, 123, 88, 72, 24, 42, 53, 69, 154, 40, 34,
	    87, 7, 128, 110, 56, 193, 118, 81, 80, 62, 130, 115, 49, 189, 113, 186,
	    183, 129, 162, 107, 12, 142, 99, 107 } },
	{ kat_w_wide, 200, true, 0, 1,
	  { 195, 31, 199, 49, 163, 140, 34, 28, 59, 136, 128, 47, 183, 147, 3, 1,
	    66, 13, 63, 47, 154, 98, 151, 18, 172, 31, 154, 6, 191, 163, 124, 154,
	    177, 101, 91, 33, 34, 168, 191, 6 } },
};

static void test_loaded_known_answers(void)
{
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(kat_w_wide); i++)
		kat_w_wide[i] = (1U << 26) + i * 7919;
	for (i = 0; i < ARRAY_SIZE(loaded_kat); i++) {
		struct kat_ctx k = { 0 };
		struct dice_table *t = dice_table_alloc(loaded_kat[i].n);
		struct dice_die die;
		u64 face;

		EXPECT(t && !dice_table_from_weights(t, loaded_kat[i].w));
		if (tap_case_failed)
			return;
		dice_die_init(&die, kat_fill, &k);
		EXPECT(!dice_die_set_mapping(&die, loaded_kat[i].mapping));
		/* Small tables draw ahead only when told to. */
		if (!loaded_kat[i].whole)
			dice_die_set_ahead(&die, loaded_kat[i].ahead, 1);
		EXPECT(!dice_die_set_table(&die, t));
		if (!loaded_kat[i].whole)
			dice_die_set_widths(&die, 63, 128, 1ULL << 32, 0);
		for (j = 0; j < 40; j++) {
			EXPECT(!dice_die_roll(&die, &face));
			if (face != loaded_kat[i].faces[j]) {
				printf("#   case %u roll %u: %llu, want %u\n", i, j,
				       (unsigned long long)face,
				       loaded_kat[i].faces[j]);
				tap_case_failed = 1;
				break;
			}
		}
		dice_die_wipe(&die);
	}
}

/*
 * Which tables draw columns ahead is part of the mapping: from 2^17 sides
 * under mapping 2, from 2^14 under mapping 3.  Faces of 2^14 and 2^14 - 1
 * sides by default limits, from ref_loaded.py:
 *   python3 ref_loaded.py -n 40 --mapping M W
 * with W = 4096 + (7919 i mod 65536) for i below the sides; and the ring's
 * depth alone on both sides of mapping 2's bound (no faces listed).
 */
#define KAT_AHEAD_SIDES	16384

static u32 kat_w_ahead[1 << 17];

static const struct {
	u32 n;
	u32 mapping;
	unsigned int ahead;	/* columns drawn ahead */
	u16 faces[40];		/* all 0: not checked */
} ahead_kat[] = {
	{ (1 << 17) - 1, 2, 0, {} },
	{ 1 << 17, 2, 16, {} },
	{ KAT_AHEAD_SIDES, 3, 16,
	  { 14915, 8132, 8694, 9020, 15103, 8902, 11791, 4964, 15300, 9674,
	    14862, 917, 15499, 10460, 1561, 13254, 15686, 15183, 12800, 7181,
	    4249, 7282, 941, 16070, 555, 13599, 14956, 16354, 9872, 14024,
	    11133, 14333, 13093, 14089, 2933, 3969, 2643, 5020, 12661,
	    14465 } },
	{ KAT_AHEAD_SIDES, 2, 0,
	  { 14915, 2863, 12698, 5640, 11677, 15365, 11172, 6026, 917, 14861,
	    5222, 7301, 5061, 781, 10996, 7494, 4603, 12838, 6015, 7951, 5158,
	    15461, 4566, 7880, 2221, 10491, 10675, 7715, 1078, 6438, 8048,
	    588, 9656, 12982, 14072, 329, 3699, 9775, 7712, 15537 } },
	{ KAT_AHEAD_SIDES - 1, 3, 0,
	  { 8954, 7935, 4779, 6215, 1501, 13421, 4185, 15014, 14684, 14352,
	    12502, 5298, 12496, 5068, 7047, 15549, 11046, 1525, 9570, 8970,
	    7661, 13721, 3250, 6426, 13487, 15276, 3588, 8497, 4425, 15068,
	    12045, 7099, 5006, 9216, 1715, 4450, 8651, 15407, 15151, 527 } },
};

static void test_loaded_ahead_by_mapping(void)
{
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(kat_w_ahead); i++)
		kat_w_ahead[i] = 4096 + (i * 7919) % 65536;
	for (i = 0; i < ARRAY_SIZE(ahead_kat); i++) {
		struct kat_ctx k = { 0 };
		struct dice_table *t = dice_table_alloc(ahead_kat[i].n);
		struct dice_die die;
		u64 face;

		EXPECT(t && !dice_table_from_weights(t, kat_w_ahead));
		if (tap_case_failed)
			return;
		dice_die_init(&die, kat_fill, &k);
		EXPECT(!dice_die_set_mapping(&die, ahead_kat[i].mapping));
		EXPECT(!dice_die_set_table(&die, t));
		EXPECT(die.rec.ahead_depth == ahead_kat[i].ahead);
		for (j = 0; j < 40 && ahead_kat[i].faces[0] && !tap_case_failed;
		     j++) {
			EXPECT(!dice_die_roll(&die, &face));
			if (face != ahead_kat[i].faces[j]) {
				printf("#   case %u roll %u: %llu, want %u\n", i, j,
				       (unsigned long long)face,
				       ahead_kat[i].faces[j]);
				tap_case_failed = 1;
			}
		}
		dice_die_wipe(&die);
	}
}

static void test_state_invariant(void)
{
	static const u64 sides[] = { 3, 5, 6, 7, 20, 100, 1000003,
		(1ULL << 31) + 1, (1ULL << 32) - 1, (1ULL << 32) + 1,
		(1ULL << 63) + 1, U64_MAX };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		struct dice_die die;
		u64 face;

		dice_die_init(&die, prng_fill, NULL);
		EXPECT(!dice_die_set_sides(&die, sides[i]));
		for (j = 0; j < 20000; j++) {
			EXPECT(!dice_die_roll(&die, &face));
			EXPECT(face < sides[i]);
			EXPECT(die.rec.x < die.rec.m);
			if (tap_case_failed)
				break;
		}
		dice_die_wipe(&die);
	}
}

/* ---- exhaustive exactness -------------------------------------------------------- */

/*
 * Start states x < m may be split into a held offset of this size (x mod it)
 * and the rest, as a loaded roll leaves them; 1 holds nothing.
 */
static u64 ex_held_size = 1;

/*
 * And into a column drawn ahead by the roll before (x mod the sides, when m
 * is a multiple of them), for a die that draws columns ahead.
 */
static bool ex_ahead_split;

/*
 * And, with ex_trim, the leftover after dice_die_trim() (as a read from the
 * CRNG returns) and then dice_die_settle().
 */
static bool ex_trim;

/*
 * Roll once from state (x, m) fed the L-bit string s.  Returns 1 if the roll
 * was decided within those bits, with the face and the state after.
 */

static int roll_from(struct dice_die *die, u128 x, u128 m, u64 s,
		     unsigned int L, u64 *face)
{
	u64 h = m % ex_held_size ? 1 : ex_held_size;

	die->rec.x = x / h;
	die->rec.m = m / h;
	die->rec.held = (u64)(x % h);
	die->rec.held_size = h;
	die->rec.ahead_count = 0;
	die->rec.ahead_next = 0;
	if (ex_ahead_split && die->rec.ahead_depth &&
	    !(die->rec.m % die->sides)) {
		die->rec.ahead[0] = (u32)(die->rec.x % die->sides);
		die->rec.ahead_count = 1;
		die->rec.x /= die->sides;
		die->rec.m /= die->sides;
	}
	dice_pool_discard(&die->pool);
	die->pool.discarded = die->pool.pad = 0;
	dice_pool_put(&die->pool, s, L);
	if (dice_die_roll(die, face))
		return 0;
	/* Faces drawn but not served are leftover randomness too. */
	if (ex_trim) {
		dice_die_trim(die, DICE_POOL_BITS);
		EXPECT(dice_die_invalid(die) == NULL);
	}
	dice_die_settle(die);
	return 1;
}

/*
 * For every start state x < m0 and every L-bit string: the decided rolls
 * must give each face mass exactly proportional to its weight, and given the
 * face and the state size m' left behind, x' must be exactly uniform on
 * [0, m'): the leftover carries no trace of the face.
 */
enum { EX_F = 32 };

/* One decided roll's face and leftover, sorted to count them. */
struct ex_out {
	u64 m, face, x;
};

static int ex_cmp(const void *a, const void *b)
{
	const struct ex_out *p = a, *q = b;

	if (p->m != q->m)
		return p->m < q->m ? -1 : 1;
	if (p->face != q->face)
		return p->face < q->face ? -1 : 1;
	return p->x < q->x ? -1 : p->x > q->x;
}

/*
 * Within each (m', face), every x' in [0, m') must occur, equally often.
 * @out is sorted.
 */
static void check_leftovers(const struct ex_out *out, u64 count)
{
	u64 i = 0, j, runs, each;

	while (i < count) {
		const struct ex_out *g = &out[i];

		runs = 0;
		each = 0;
		for (j = i; j < count && out[j].m == g->m &&
		     out[j].face == g->face; ) {
			u64 k = j;

			while (k < count && out[k].m == g->m &&
			       out[k].face == g->face && out[k].x == out[j].x)
				k++;
			if ((each && k - j != each) || out[j].x != runs) {
				printf("#   leftover not uniform: m'=%llu face %llu\n",
				       (unsigned long long)g->m,
				       (unsigned long long)g->face);
				tap_case_failed = 1;
				return;
			}
			each = k - j;
			runs++;
			j = k;
		}
		if (runs != g->m) {
			printf("#   leftover misses values: m'=%llu face %llu\n",
			       (unsigned long long)g->m,
			       (unsigned long long)g->face);
			tap_case_failed = 1;
			return;
		}
		i = j;
	}
}

static void check_exhaustive(struct dice_die *die, const u64 *mass, u64 total,
			     u64 m0, unsigned int L)
{
	u64 byface[EX_F] = { 0 };
	u64 n = die->sides, s, face, decided = 0, x0, f;
	struct ex_out *out = malloc(m0 * (1ULL << L) * sizeof(*out));

	EXPECT(out != NULL);
	if (!out)
		return;
	for (x0 = 0; x0 < m0; x0++) {
		for (s = 0; s < (1ULL << L); s++) {
			if (!roll_from(die, x0, m0, s, L, &face))
				continue;
			byface[face]++;
			EXPECT(die->rec.x < die->rec.m && !(die->rec.m >> 64));
			if (tap_case_failed)
				goto out;
			out[decided].m = (u64)die->rec.m;
			out[decided].face = face;
			out[decided].x = (u64)die->rec.x;
			decided++;
		}
	}
	EXPECT(decided > 0);
	for (f = 0; f < n; f++) {
		/* byface[f] / decided == mass[f] / total, in integers. */
		if ((u128)byface[f] * total != (u128)mass[f] * decided) {
			printf("#   face %llu: %llu of %llu, want %llu/%llu\n",
			       (unsigned long long)f,
			       (unsigned long long)byface[f],
			       (unsigned long long)decided,
			       (unsigned long long)mass[f],
			       (unsigned long long)total);
			tap_case_failed = 1;
		}
	}
	qsort(out, decided, sizeof(*out), ex_cmp);
	check_leftovers(out, decided);
out:
	free(out);
}

static void test_exhaustive_fair(void)
{
	u64 n, mass[16], m0;
	unsigned int wide;

	for (wide = 0; wide < 2; wide++) {
		for (n = 2; n <= 12; n++) {
			struct dice_die die;

			dice_die_init(&die, NULL, NULL);
			EXPECT(!dice_die_set_sides(&die, n));
			dice_die_set_widths(&die, 6, 7, wide ? 0 : 1ULL << 32, 0);
			for (m0 = 0; m0 < n; m0++)
				mass[m0] = 1;
			for (m0 = 1; m0 <= 7; m0 += 3)
				check_exhaustive(&die, mass, n, m0, 14);
			dice_die_wipe(&die);
			if (tap_case_failed) {
				printf("#   n=%llu wide=%u\n",
				       (unsigned long long)n, wide);
				return;
			}
		}
	}
}

/* Small fair dice drawn several faces at a time (n^k <= 2^5). */
static void test_exhaustive_grouped(void)
{
	static const u64 sides[] = { 3, 5 };
	u64 mass[EX_F], m0, f;
	unsigned int i;

	for (f = 0; f < EX_F; f++)
		mass[f] = 1;
	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		struct dice_die die;

		dice_die_init(&die, NULL, NULL);
		EXPECT(!dice_die_set_sides(&die, sides[i]));
		dice_die_set_widths(&die, 10, 128, 1ULL << 32, 0);
		EXPECT(die.digits.per == (sides[i] == 3 ? 3 : 2));
		for (m0 = 1; m0 <= 7; m0 += 3)
			check_exhaustive(&die, mass, sides[i], m0, 14);
		/* The faces not served merged by a trim instead. */
		ex_trim = true;
		check_exhaustive(&die, mass, sides[i], 1, 14);
		ex_trim = false;
		dice_die_wipe(&die);
		if (tap_case_failed) {
			printf("#   n=%llu\n", (unsigned long long)sides[i]);
			return;
		}
	}
}

/*
 * Returns how many cells one draw gave (the die's digits.per).  By column and
 * height: under mapping 1, and under mapping 2 with @ahead columns drawn
 * ahead (a start state may then hold one already).
 */
static unsigned int exhaustive_loaded_at(const u32 *w, u32 n,
					 unsigned int width, unsigned int L,
					 bool whole, u32 mapping,
					 unsigned int ahead)
{
	unsigned int per;
	struct dice_table *table = dice_table_alloc(n);
	struct dice_die die;
	u64 mass[EX_F], total = 0, m0;
	u32 i;

	EXPECT(table && !dice_table_from_weights(table, w));
	if (tap_case_failed)
		return 0;
	for (i = 0; i < n; i++) {
		mass[i] = w[i];
		total += w[i];
	}
	dice_die_init(&die, NULL, NULL);
	EXPECT(!dice_die_set_mapping(&die, mapping));
	dice_die_set_ahead(&die, ahead, 1);
	EXPECT(!dice_die_set_table(&die, table));
	/* Drawn whole, or by column and height. */
	dice_die_set_widths(&die, width, 128, 1ULL << 32, whole ? 1ULL << 40 : 0);
	per = die.digits.per;
	EXPECT(die.rec.ahead_depth == (whole || mapping == DICE_MAPPING_1 ?
				       0 : ahead));
	for (m0 = 1; m0 <= 3; m0 += 2)
		check_exhaustive(&die, mass, total, m0, L);
	/* Start with an offset held back from the roll before. */
	ex_held_size = 3;
	check_exhaustive(&die, mass, total, 3, L);
	ex_held_size = 1;
	if (die.rec.ahead_depth) {
		/* Start with a column drawn ahead, and with both. */
		ex_ahead_split = true;
		check_exhaustive(&die, mass, total, n, L);
		ex_held_size = 3;
		check_exhaustive(&die, mass, total, 3 * n, L);
		/* The columns merged, or dropped, by a trim instead. */
		ex_trim = true;
		check_exhaustive(&die, mass, total, 3 * n, L);
		ex_trim = false;
		ex_held_size = 1;
		ex_ahead_split = false;
	}
	dice_die_wipe(&die);
	if (tap_case_failed)
		printf("#   %u sides, width %u, %s, mapping %u, %u ahead\n", n,
		       width, whole ? "whole" : "column and height", mapping,
		       ahead);
	return per;
}

static unsigned int exhaustive_loaded(const u32 *w, u32 n, unsigned int width,
				      unsigned int L, bool whole)
{
	unsigned int per;

	per = exhaustive_loaded_at(w, n, width, L, whole, DICE_MAPPING_2, 1);
	if (whole)
		return per;
	/* Two ahead need more bits than wider states leave. */
	if (width < 12)
		exhaustive_loaded_at(w, n, width, L, whole, DICE_MAPPING_2, 2);
	exhaustive_loaded_at(w, n, width, L, whole, DICE_MAPPING_1, 0);
	return per;
}

static void test_exhaustive_loaded(void)
{
	static const u32 synopsis[] = { 2, 2, 6, 1, 1 };	/* Games::Dice::Loaded's */
	static const u32 gap[] = { 1, 0, 3 };
	static const u32 flat[] = { 1, 1, 1, 1 };
	static const u32 spike[] = { 20, 1, 1, 1, 1, 1, 1 };
	int whole;

	static const u32 half[] = { 2, 0 }, other[] = { 0, 1 };
	static const u32 first[] = { 1, 0, 0 }, pair[] = { 1, 1 };

	for (whole = 0; whole < 2; whole++) {
		exhaustive_loaded(synopsis, 5, 7, 14, whole);
		exhaustive_loaded(gap, 3, 5, 14, whole);
		exhaustive_loaded(flat, 4, 5, 14, whole);
		exhaustive_loaded(spike, 7, 9, 14, whole);
	}
	/* Few cells: several drawn at once ((n W)^k <= 2^(8/2)). */
	EXPECT(exhaustive_loaded(half, 2, 8, 14, true) == 2);
	EXPECT(exhaustive_loaded(other, 2, 8, 14, true) == 4);
	EXPECT(exhaustive_loaded(first, 3, 8, 14, true) == 2);
	EXPECT(exhaustive_loaded(pair, 2, 8, 14, true) == 2);
	/* Too many cells to group: one draw a roll, at larger widths. */
	EXPECT(exhaustive_loaded(synopsis, 5, 11, 14, true) == 1);
	EXPECT(exhaustive_loaded(spike, 7, 12, 14, false) == 1);
}

/* ---- sequences of dice ------------------------------------------------------------- */

/*
 * One die configuration at shrunk widths: narrow draws below 2^8 topped up
 * to 8 bits, wide ones to 10 bits, narrow_limit 16.  Loaded dice with a
 * zero whole_limit draw by column and height.
 */
struct seq_die {
	const char *name;
	u32 method;
	u64 sides;		/* a fair die, or 0 */
	const u32 *w;		/* a loaded die's weights */
	u32 n;
	u64 whole_limit;
	unsigned int per;	/* faces per draw the plan must give */
	bool narrow;		/* the die draws in 64 bits */
	unsigned int rolls;	/* rolls that fit the bits enumerated */
	unsigned int ahead;	/* columns drawn ahead, at most */
};

#define SEQ_NARROW	8
#define SEQ_WIDE	10
#define SEQ_LIMIT	16

static const u32 seq_w_grouped[] = { 1, 0, 0 };		/* 3 cells, 2 a draw */
static const u32 seq_w_pair[] = { 1, 2 };		/* 6 cells, drawn whole */
static const u32 seq_w_seed[] = { 2, 2, 6, 1, 1 };	/* column and height */
static const u32 seq_w_wide[] = { 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
				  1, 1, 1, 3 };		/* 17 sides: wide */

static const struct seq_die seq_dice[] = {
	{ "fair d3, grouped", DICE_METHOD_RECYCLE, 3, NULL, 0, 1ULL << 40,
	  2, true, 2, 0 },
	{ "fair d5", DICE_METHOD_RECYCLE, 5, NULL, 0, 1ULL << 40, 1, true, 2, 0 },
	{ "fair d17, wide", DICE_METHOD_RECYCLE, 17, NULL, 0, 1ULL << 40, 1,
	  false, 2, 0 },
	{ "loaded {1,0,0}, grouped", DICE_METHOD_RECYCLE, 0, seq_w_grouped, 3,
	  1ULL << 40, 2, true, 2, 0 },
	{ "loaded {1,2}, whole", DICE_METHOD_RECYCLE, 0, seq_w_pair, 2,
	  1ULL << 40, 1, true, 2, 0 },
	{ "loaded {2,2,6,1,1}, column and height", DICE_METHOD_RECYCLE, 0,
	  seq_w_seed, 5, 0, 1, true, 2, 0 },
	{ "loaded {2,2,6,1,1}, a column drawn ahead", DICE_METHOD_RECYCLE, 0,
	  seq_w_seed, 5, 0, 1, true, 1, 1 },
	{ "loaded 17 sides, wide", DICE_METHOD_RECYCLE, 0, seq_w_wide, 17, 0,
	  1, false, 2, 0 },
	{ "viglietta d5", DICE_METHOD_VIGLIETTA, 5, NULL, 0, 1ULL << 40, 1,
	  true, 1, 0 },
	{ "batch d3", DICE_METHOD_BATCH, 3, NULL, 0, 1ULL << 40, 2, true, 0, 0 },
	{ "alias {1,2}", DICE_METHOD_ALIAS, 0, seq_w_pair, 2, 1ULL << 40, 1,
	  true, 2, 0 },
	{ "rejection d5", DICE_METHOD_REJECTION, 5, NULL, 0, 1ULL << 40, 1,
	  true, 2, 0 },
};

static u64 seq_changes;	/* changes checked, for the log */

/* Make @die the configuration @c, as the ioctls would, in a valid order. */
static int seq_apply(struct dice_die *die, const struct seq_die *c)
{
	struct dice_table *t;
	int err;

	dice_die_set_ahead(die, c->ahead, 1);
	dice_die_set_widths(die, SEQ_NARROW, SEQ_WIDE, SEQ_LIMIT,
			    c->whole_limit);
	if (c->sides) {
		err = dice_die_set_sides(die, c->sides);
		return err ? err : dice_die_set_method(die, c->method);
	}
	err = dice_die_set_method(die, c->method);
	if (err)
		return err;
	t = dice_table_alloc(c->n);
	if (!t)
		return -ENOMEM;
	err = dice_table_from_weights(t, c->w);
	if (err) {
		dice_table_free(t);
		return err;
	}
	return dice_die_set_table(die, t);
}

static u64 seq_mass(const struct seq_die *c, u64 *mass)
{
	u64 total = 0, f;

	for (f = 0; f < (c->sides ? c->sides : c->n); f++) {
		mass[f] = c->sides ? 1 : c->w[f];
		total += mass[f];
	}
	return total;
}

/* The invariant, and no broken bound, or the case fails saying where. */
static bool seq_valid(const struct dice_die *die, const char *when,
		      const struct seq_die *a, const struct seq_die *b)
{
	const char *why = dice_die_invalid(die);

	if (!why && !dice_core_warnings)
		return true;
	printf("#   %s -> %s: %s: %s\n", a->name, b->name, when,
	       why ? why : "a loop bound was broken");
	tap_case_failed = 1;
	return false;
}

/*
 * For every start state x < m0 and every L-bit string: roll A @rolls times,
 * change the die to B, check the invariant, then roll B on the bits left
 * (checking the invariant after each roll).  Given A's faces and the m' the
 * change leaves, x' must be exactly uniform on [0, m'): the change keeps no
 * trace of A's faces and needs nothing of B's draws to stay exact.
 * Returns the largest m' seen.
 */
static u64 seq_pair(const struct seq_die *a, const struct seq_die *b,
		    unsigned int rolls, u64 m0, unsigned int L)
{
	struct ex_out *out = malloc(m0 * (1ULL << L) * sizeof(*out));
	u64 x0, s, count = 0, face, key, top = 0, mass[EX_F];
	struct dice_die die;
	unsigned int r;

	EXPECT(out != NULL);
	if (!out)
		return 0;
	seq_mass(b, mass);
	dice_die_init(&die, NULL, NULL);
	for (x0 = 0; x0 < m0 && !tap_case_failed; x0++) {
		for (s = 0; s < (1ULL << L); s++) {
			if (seq_apply(&die, a)) {
				EXPECT(0);
				goto out;
			}
			die.rec.x = x0;
			die.rec.m = m0;
			dice_pool_discard(&die.pool);
			dice_pool_put(&die.pool, s, L);
			key = 0;
			for (r = 0; r < rolls; r++) {
				if (dice_die_roll(&die, &face))
					break;
				key = key * EX_F + face;
			}
			if (!seq_valid(&die, "after rolling A", a, b))
				goto out;
			if (r < rolls)
				continue;
			if (seq_apply(&die, b)) {
				EXPECT(0);
				goto out;
			}
			if (!seq_valid(&die, "after the change", a, b))
				goto out;
			if (die.rec.m >> 64 || die.digits.left) {
				printf("#   %s -> %s: faces wait after the change\n",
				       a->name, b->name);
				tap_case_failed = 1;
				goto out;
			}
			out[count].m = (u64)die.rec.m;
			out[count].face = key;
			out[count].x = (u64)die.rec.x;
			if (out[count].m > top)
				top = out[count].m;
			count++;
			/* A batch needs thousands of bits: none here. */
			for (r = 0; r < 3 && b->method != DICE_METHOD_BATCH;
			     r++) {
				int err = dice_die_roll(&die, &face);

				if (err == -EAGAIN)
					break;
				if (err || face >= die.sides || !mass[face]) {
					printf("#   %s -> %s: roll %u of B: %d, face %llu\n",
					       a->name, b->name, r, err,
					       (unsigned long long)face);
					tap_case_failed = 1;
					goto out;
				}
				if (!seq_valid(&die, "after rolling B", a, b))
					goto out;
			}
		}
	}
	EXPECT(count > 0);
	seq_changes += count;
	qsort(out, count, sizeof(*out), ex_cmp);
	check_leftovers(out, count);
	if (tap_case_failed)
		printf("#   %s -> %s, %u rolls of A, m0 %llu\n", a->name,
		       b->name, rolls, (unsigned long long)m0);
out:
	dice_die_wipe(&die);
	free(out);
	return top;
}

/*
 * Every pair of die kinds (small and wide fair, grouped and ungrouped
 * loaded, each method), every state the first can leave after one or two
 * rolls (none for a batch, which needs thousands of bits), then rolls of
 * the second; and each second die is exact from the
 * widest state a change left it.
 */
static void test_exhaustive_sequences(void)
{
	u64 widest[ARRAY_SIZE(seq_dice)] = { 0 }, mass[EX_F], total, m;
	unsigned int a, b, rolls;

	for (a = 0; a < ARRAY_SIZE(seq_dice); a++) {
		struct dice_die die;

		dice_die_init(&die, NULL, NULL);
		EXPECT(!seq_apply(&die, &seq_dice[a]));
		EXPECT(die.digits.per == seq_dice[a].per);
		EXPECT(dice_die_invalid(&die) == NULL);
		dice_die_wipe(&die);
	}
	if (tap_case_failed)
		return;
	for (a = 0; a < ARRAY_SIZE(seq_dice); a++)
		for (b = 0; b < ARRAY_SIZE(seq_dice); b++)
			for (rolls = !!seq_dice[a].rolls;
			     rolls <= seq_dice[a].rolls; rolls++) {
				m = seq_pair(&seq_dice[a], &seq_dice[b], rolls,
					     rolls == 1 ? 5 : 2,
					     rolls == 1 ? 12 : 14);
				if (tap_case_failed)
					return;
				if (m > widest[b])
					widest[b] = m;
			}
	for (b = 0; b < ARRAY_SIZE(seq_dice); b++) {
		struct dice_die die;

		if (seq_dice[b].method != DICE_METHOD_RECYCLE)
			continue;
		dice_die_init(&die, NULL, NULL);
		EXPECT(!seq_apply(&die, &seq_dice[b]));
		total = seq_mass(&seq_dice[b], mass);
		/* A narrow die is never left wider than its draws allow. */
		EXPECT(!seq_dice[b].narrow || widest[b] < 1ULL << SEQ_NARROW);
		check_exhaustive(&die, mass, total, widest[b], 12);
		dice_die_wipe(&die);
		if (tap_case_failed) {
			printf("#   %s from m0 = %llu\n", seq_dice[b].name,
			       (unsigned long long)widest[b]);
			return;
		}
	}
	printf("# sequences: %zu kinds, %zu pairs, %llu changes checked\n",
	       ARRAY_SIZE(seq_dice), ARRAY_SIZE(seq_dice) * ARRAY_SIZE(seq_dice),
	       (unsigned long long)seq_changes);
}

/*
 * A state that breaks the invariant (only a bug could make one) never makes
 * a roll loop: the roll fails with -EIO (the core's -EUCLEAN or -ENOBUFS,
 * warning once where a bound broke) and the state is forgotten, so the die
 * is valid again and the next roll works.
 */
static void test_broken_state(void)
{
	static const u64 sides[] = { 6, 3 };
	unsigned int i, j;
	u64 face, faces[8];
	int err;

	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		for (j = 0; j < 3; j++) {
			struct dice_die die;

			dice_die_init(&die, prng_fill, NULL);
			EXPECT(!dice_die_set_sides(&die, sides[i]));
			if (j == 0) {		/* a narrow die left wide */
				die.rec.m = ((u128)1 << 70) + 5;
				die.rec.x = 3;
			} else if (j == 1) {	/* x beyond m */
				die.rec.m = 5;
				die.rec.x = 9;
			} else {		/* m of nothing */
				die.rec.m = 0;
				die.rec.x = 0;
			}
			dice_core_warnings = 0;
			err = j == 2 ? dice_die_roll_many(&die, faces, 8) :
				       dice_die_roll(&die, &face);
			/* x beyond m may wrap back into range and roll. */
			EXPECT(err == -EIO || (j == 1 && !err));
			EXPECT(j != 0 || dice_core_warnings == 1);
			EXPECT(dice_die_invalid(&die) == NULL);
			EXPECT(dice_die_roll_many(&die, faces, 8) == 8);
			EXPECT(!dice_die_roll(&die, &face) && face < sides[i]);
			dice_die_wipe(&die);
		}
	}
	dice_core_warnings = 0;
}

/*
 * Written bits that fill the pool and still cannot complete a roll (0xff
 * bytes for a d3 under REJECTION or RECYCLE) are discarded, so the die
 * never wedges: -EAGAIN, room again, and good bits then roll.
 */
static void test_written_never_wedge(void)
{
	static const u32 methods[] = { DICE_METHOD_REJECTION,
				       DICE_METHOD_RECYCLE };
	unsigned int i;
	u64 face;

	for (i = 0; i < ARRAY_SIZE(methods); i++) {
		struct dice_die die;
		struct dice_die_stats st;

		dice_die_init(&die, NULL, NULL);
		EXPECT(!dice_die_set_sides(&die, 3));
		EXPECT(!dice_die_set_method(&die, methods[i]));
		while (dice_pool_room(&die.pool) >= 8)
			dice_pool_put(&die.pool, 0xff, 8);
		EXPECT(dice_die_roll(&die, &face) == -EAGAIN);
		dice_die_stats(&die, &st);
		EXPECT(st.bits_discarded == DICE_POOL_BITS);
		EXPECT(dice_pool_room(&die.pool) == DICE_POOL_BITS);
		EXPECT(dice_die_invalid(&die) == NULL);
		dice_pool_put(&die.pool, 0, 64);
		EXPECT(!dice_die_roll(&die, &face) && face == 0);
		dice_die_wipe(&die);
	}
}

/*
 * After dice_die_drop_random() (a VM fork) a die rolls exactly what a new
 * die rolls from the bits that follow: nothing drawn before is used, the
 * buffered bits are counted as discarded.
 */
static void test_drop_random(void)
{
	static const u64 sides[] = { 6, 1000003, (1ULL << 40) + 1 };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		struct kat_ctx k1 = { 0 }, k2;
		struct dice_die a, b;
		struct dice_die_stats st;
		u64 fa[40], fb[40], buffered;

		dice_die_init(&a, kat_fill, &k1);
		EXPECT(!dice_die_set_sides(&a, sides[i]));
		EXPECT(dice_die_roll_many(&a, fa, 5) == 5);
		buffered = a.pool.tail - a.pool.head;
		dice_die_drop_random(&a);
		dice_die_stats(&a, &st);
		EXPECT(st.bits_discarded == buffered && buffered > 0);
		EXPECT(a.rec.m == 1 && !a.digits.left);
		EXPECT(dice_die_invalid(&a) == NULL);
		k2.byte = k1.byte;	/* where the stream goes on */
		dice_die_init(&b, kat_fill, &k2);
		EXPECT(!dice_die_set_sides(&b, sides[i]));
		EXPECT(dice_die_roll_many(&a, fa, 40) == 40);
		EXPECT(dice_die_roll_many(&b, fb, 40) == 40);
		for (j = 0; j < 40; j++)
			EXPECT(fa[j] == fb[j]);
		dice_die_wipe(&a);
		dice_die_wipe(&b);
	}
}

/* ---- the stream after a faulting read ------------------------------------------- */

/* A copy into a user buffer that faults after @room bytes. */
struct short_copy {
	u8 *to;
	size_t room;
};

static size_t copy_short(void *ctx, const u8 *bytes, size_t len)
{
	struct short_copy *c = ctx;
	size_t n = len < c->room ? len : c->room;

	memcpy(c->to, bytes, n);
	c->to += n;
	c->room -= n;
	return n;
}

/* read() of @len bytes into a buffer that faults after @room: served bytes */
static size_t stream_read_short(struct dice_stream *s, u8 *buf, size_t len,
				size_t room, int *err)
{
	struct short_copy c = { buf, room };
	struct dice_read rd = { .len = len, .copy = copy_short, .ctx = &c };

	*err = dice_stream_read_size(s, &rd.len);
	while (!*err && rd.done < rd.len)
		*err = dice_stream_read_chunk(s, &rd);
	return rd.done;
}

enum change {
	CHANGE_SIDES,		/* SET_SIDES 1 */
	CHANGE_WEIGHTS,		/* SET_WEIGHTS: all weight on side 6 */
	CHANGE_ALIAS,		/* SET_ALIAS: all mass on side 9 */
	CHANGE_METHOD,		/* SET_METHOD: the same die rolled another way */
	CHANGE_SOURCE,		/* SET_SOURCE: written bits, none written */
	CHANGE_FORK,		/* a VM fork: dice_stream_drop_random() */
	CHANGE_FORMAT,		/* SET_FORMAT, to the same format */
	CHANGES
};

static const char *const change_name[CHANGES] = {
	"sides", "weights", "alias", "method", "source", "fork", "format",
};

/* The one face (1-based) a die changed to can roll, or 0 if any. */
static u64 change_apply(struct dice_stream *s, enum change c, u32 format)
{
	struct dice_table *t;
	u32 w[20] = { 0 };
	unsigned int i;

	switch (c) {
	case CHANGE_SIDES:
		EXPECT(!dice_stream_set_sides(s, 1));
		return 1;
	case CHANGE_WEIGHTS:
		t = dice_table_alloc(20);
		w[5] = 1;
		EXPECT(t && !dice_table_from_weights(t, w));
		EXPECT(!dice_stream_set_table(s, t));
		return 6;
	case CHANGE_ALIAS:
		t = dice_table_alloc(20);
		EXPECT(t != NULL);
		for (i = 0; i < 20; i++) {
			dice_table_thresholds(t)[i] = i == 8;
			dice_table_aliases(t)[i] = 8;
		}
		EXPECT(!dice_table_from_alias(t, 1));
		EXPECT(!dice_stream_set_table(s, t));
		return 9;
	case CHANGE_METHOD:
		EXPECT(!dice_stream_set_method(s, DICE_METHOD_REJECTION));
		return 0;
	case CHANGE_SOURCE:
		dice_stream_set_source(s, NULL, NULL);
		return 0;
	case CHANGE_FORK:
		dice_stream_drop_random(s);
		return 0;
	default:
		EXPECT(!dice_stream_set_format(s, format));
		return 0;
	}
}

/* Face @i of @n bytes of @format, 1-based; *@at moves past it. */
static u64 face_at(const u8 *buf, size_t n, size_t *at, u32 format)
{
	unsigned int width = dice_format_width(format), b;
	u64 v = 0;

	if (width) {
		for (b = 0; b < width; b++)
			v |= (u64)buf[*at + b] << (8 * b);
		*at += width;
		return v;
	}
	while (*at < n && buf[*at] != '\n')
		v = 10 * v + (buf[(*at)++] - '0');
	(*at)++;
	return v;
}

/*
 * A read that faults after @room bytes, a change, then a read of 4096
 * bytes: only the rest of a text line the first read began may come from
 * before the change (and not after a change of format); every other roll
 * served is made after the change, and is a face of the new die.
 */
static void stream_change_case(u32 format, enum change c, size_t room)
{
	unsigned int width = dice_format_width(format);
	u8 first[4096], next[4096 + DICE_OUT_BYTES];
	struct dice_stream *s = dice_stream_alloc(prng_fill, NULL);
	size_t got, n, at = 0, left, rest = 0, lines = 0;
	struct dice_die_stats before, after;
	u64 only, face;
	const u8 *tail;
	int err;

	EXPECT(s && !dice_stream_set_sides(s, 20));
	EXPECT(!dice_stream_set_format(s, format));
	got = stream_read_short(s, first, sizeof(first), room, &err);
	dice_stream_scrub(s);	/* as the module does when a read returns */
	EXPECT(err == -EFAULT);
	EXPECT(got == (width ? room - room % width : room));
	dice_die_stats(dice_stream_die(s), &before);
	only = change_apply(s, c, format);
	dice_die_stats(dice_stream_die(s), &after);
	if (c != CHANGE_METHOD && c != CHANGE_SOURCE && c != CHANGE_FORK)
		before = after;	/* a change of die may settle state: not rolls */
	EXPECT(after.rolls == before.rolls);
	n = stream_read_short(s, next, 4096, 4096, &err);
	/* The rest of a line begun before the change. */
	if (!width && c != CHANGE_FORMAT && first[got - 1] != '\n') {
		while (next[rest] != '\n')
			rest++;
		rest++;
		memcpy(first + got, next, rest);
		at = got;
		while (at && first[at - 1] != '\n')
			at--;
		face = face_at(first, got + rest, &at, format);
		EXPECT(face >= 1 && face <= 20);
	}
	if (c == CHANGE_SOURCE) {
		EXPECT(err == -EAGAIN && n == rest);
		goto out;
	}
	/* Binary fills the read; text serves the whole lines that fit. */
	EXPECT(!err && (width ? n == 4096 :
			n > 4096 - DICE_TEXT_MAX && next[n - 1] == '\n'));
	tail = dice_stream_bytes(s, &left);
	memcpy(next + n, tail, left);
	for (at = rest; at < n;) {
		face = face_at(next, n, &at, format);
		if (only && at <= n && face != only) {
			tap_note("%s, format %u: face %llu of the old die served",
				 change_name[c], format, (unsigned long long)face);
			EXPECT(face == only);
			break;
		}
	}
	/* Every roll made since: the last text line may wait, its roll made. */
	for (at = rest; at < n + left; at++)
		lines += width ? !((at - rest) % width) : next[at] == '\n';
	dice_die_stats(dice_stream_die(s), &after);
	if (after.rolls - before.rolls != lines)
		tap_note("%s, format %u, room %zu: %llu rolls, %zu served",
			 change_name[c], format, room,
			 (unsigned long long)(after.rolls - before.rolls), lines);
	EXPECT(after.rolls - before.rolls == lines);
out:
	dice_stream_free(s);
}

/*
 * Text reads serve whole lines: a read with room for the next line ends on
 * a newline, and one without room for it gets its start only when it has
 * nothing else, the rest going to the next read.  Reads of every size
 * from 1 to 64 bytes, one after another, still make whole lines of faces
 * when put together.
 */
static void test_text_whole_lines(void)
{
	static const u64 sides[] = { 6, 20, 100, 1000003, ~0ULL };
	unsigned int d;

	for (d = 0; d < ARRAY_SIZE(sides); d++) {
		struct dice_stream *s = dice_stream_alloc(prng_fill, NULL);
		u8 all[8192], *at = all;
		size_t room, done, line, pos, start;
		int err;

		EXPECT(s && !dice_stream_set_sides(s, sides[d]));
		for (room = 1; room <= 64 && at + room <= all + sizeof(all);
		     room++) {
			const u8 *wait;
			size_t waiting;

			wait = dice_stream_bytes(s, &waiting);
			/* The next line's length, if its start was served. */
			line = 0;
			while (line < waiting && wait[line] != '\n')
				line++;
			err = dice_stream_read(s, at, room, &done);
			EXPECT(!err && done >= 1 && done <= room);
			if (waiting && line < room)
				EXPECT(at[done - 1] == '\n');
			if (done < room)	/* cut short: the next line would not fit */
				EXPECT(at[done - 1] == '\n');
			if (at[done - 1] != '\n')
				EXPECT(done == room);
			at += done;
		}
		/* Put together, the reads make lines of faces of the die. */
		for (pos = start = 0; pos < (size_t)(at - all); pos++) {
			u64 face = 0;

			if (all[pos] != '\n')
				continue;
			EXPECT(pos > start && pos - start < DICE_TEXT_MAX);
			for (; start < pos; start++) {
				EXPECT(all[start] >= '0' && all[start] <= '9');
				face = face * 10 + (all[start] - '0');
			}
			EXPECT(face >= 1 && face <= sides[d]);
			start = pos + 1;
		}
		dice_stream_free(s);
	}
}

/*
 * A read that has served lines stops at the rest of a line another read
 * began (while the module had dropped the lock): that rest is no whole
 * line, and goes to the next read.
 */
static void test_text_rest_not_glued(void)
{
	struct dice_stream *s = dice_stream_alloc(prng_fill, NULL);
	u8 part[1], buf[64], *to = buf;
	struct dice_read rd = {
		.len = sizeof(buf), .done = 10, .copy = copy_short,
	};
	struct short_copy c = { buf, sizeof(buf) };
	size_t done, waiting;

	EXPECT(!dice_stream_set_sides(s, 1000));
	EXPECT(!dice_stream_read(s, part, 1, &done) && done == 1);
	dice_stream_bytes(s, &waiting);
	EXPECT(waiting > 0);
	rd.ctx = &c;
	/* A read that already has 10 bytes meets that rest: it ends. */
	EXPECT(!dice_stream_read_chunk(s, &rd));
	EXPECT(rd.len == 10 && rd.done == 10 && c.to == to);
	/* A fresh read takes it. */
	EXPECT(!dice_stream_read(s, buf, sizeof(buf), &done));
	EXPECT(done >= 2 && buf[done - 1] == '\n');
	/*
	 * A read cut by a fault mid-line leaves many lines; a change keeps
	 * the rest of that line only, and zeroes the others.
	 */
	{
		static u8 big[4096];
		unsigned int i;
		int err;

		EXPECT(stream_read_short(s, big, sizeof(big), 5, &err) == 5 &&
		       err == -EFAULT);
		dice_stream_bytes(s, &waiting);
		EXPECT(waiting > DICE_TEXT_MAX);
		EXPECT(!dice_stream_set_sides(s, 6));
		dice_stream_bytes(s, &waiting);
		EXPECT(waiting < DICE_TEXT_MAX);
		for (i = s->out_end; i < DICE_OUT_BYTES; i++)
			EXPECT(!s->out[i]);
	}
	dice_stream_free(s);
}

static void test_stream_changes(void)
{
	static const u32 formats[] = {
		DICE_FMT_TEXT, DICE_FMT_U8, DICE_FMT_U16, DICE_FMT_U32,
		DICE_FMT_U64,
	};
	static const size_t rooms[] = { 1, 2, 3, 9, 17, 1500 };
	unsigned int f, c, r;

	for (f = 0; f < ARRAY_SIZE(formats); f++)
		for (c = 0; c < CHANGES; c++)
			for (r = 0; r < ARRAY_SIZE(rooms); r++) {
				if (rooms[r] < dice_format_width(formats[f]))
					continue;
				stream_change_case(formats[f], c, rooms[r]);
			}
}

/* ---- alias tables --------------------------------------------------------------------- */

static void test_alias_build(void)
{
	static const u32 sizes[] = { 1, 2, 5, 33, 1000, 65536 };
	unsigned int i;
	u32 c, s;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u32 n = sizes[i], *w = malloc(n * sizeof(*w));
		struct dice_table *t = dice_table_alloc(n);
		u64 colsum;

		for (c = 0; c < n; c++)
			w[c] = c % 7 == 3 ? 0 : (u32)(xoshiro() >> (xoshiro() % 40));
		w[n / 2] |= 1;
		EXPECT(!dice_table_from_weights(t, w));
		for (s = 0; s < n; s++) {
			/* Every side's share is exactly n * w in column units. */
			EXPECT(t->share[s] == (u64)n * w[s]);
			EXPECT(t->thr[s] <= t->mass && t->alias[s] < n);
		}
		for (c = 0, colsum = 0; c < n; c++)
			colsum += t->share[c];
		EXPECT((u128)colsum == t->total);
		free(w);
		dice_table_free(t);
	}
}

static void test_alias_validate(void)
{
	struct dice_table *t = dice_table_alloc(2);
	static const u32 zero[] = { 0, 0 };

	EXPECT(dice_table_from_weights(t, zero) == -EINVAL);
	t->thr[0] = 5; t->thr[1] = 3; t->alias[0] = 1; t->alias[1] = 0;
	EXPECT(dice_table_from_alias(t, 0) == -EINVAL);
	EXPECT(dice_table_from_alias(t, 4) == -EINVAL);	/* thr > mass */
	t->thr[0] = 1; t->alias[1] = 2;
	EXPECT(dice_table_from_alias(t, 4) == -EINVAL);	/* alias >= n */
	t->alias[1] = 0;
	EXPECT(dice_table_from_alias(t, 4) == 0);
	EXPECT(t->share[0] == 1 + 1 && t->share[1] == 3 + 3);
	t->thr[0] = 0; t->thr[1] = 0; t->alias[0] = 1; t->alias[1] = 1;
	EXPECT(dice_table_from_alias(t, 1ULL << 63) == -EOVERFLOW);
	dice_table_free(t);
}

/* ---- written bits ------------------------------------------------------------------------- */

static unsigned int kat_bit(u64 j)
{
	return (((j / 8) * 37 + 11) & 0xff) >> (7 - j % 8) & 1;
}

/*
 * Roll @die, fed @step written bits whenever it runs dry, beside @ref, which
 * draws the same stream freely: the same faces from the same bits, one at a
 * time or @many at once.  Return: how many rolls failed and were undone.
 */
static unsigned int rollback_against(struct dice_die *ref,
				     struct dice_die *die, unsigned int step,
				     unsigned int many)
{
	u64 want, faces[16], fed = 0;
	unsigned int failed = 0, done = 0, b;
	int got, f;

	while (done < 300 && !tap_case_failed) {
		got = many > 1 ? dice_die_roll_many(die, faces, many) :
				 dice_die_roll(die, &faces[0]) ?: 1;
		if (got == -EAGAIN) {
			for (b = 0; b < step; b++)
				dice_pool_put(&die->pool, kat_bit(fed++), 1);
			failed++;
			continue;
		}
		EXPECT(got > 0);
		for (f = 0; f < got && !tap_case_failed; f++) {
			EXPECT(!dice_die_roll(ref, &want));
			EXPECT(faces[f] == want);
		}
		done += got;
		EXPECT(dice_pool_used(&die->pool) == dice_pool_used(&ref->pool));
		EXPECT(die->rolls == ref->rolls);
	}
	return failed;
}

/* Weights of a loaded die drawn by column, then height, in 64 bits. */
static u32 two_draw[4096];

/* And of one whose mass passes 2^32: the 128-bit loaded roll. */
static u32 rollback_wide[300];
static u32 one_draw[1000];

static void rollback_weights(void)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(two_draw); i++)
		two_draw[i] = 100000 + (i * 7919) % 100000;
	for (i = 0; i < ARRAY_SIZE(rollback_wide); i++)
		rollback_wide[i] = (1U << 31) + i;
	for (i = 0; i < ARRAY_SIZE(one_draw); i++)
		one_draw[i] = 1000000 / (i + 1);
}

static const u64 rollback_sides[] = { 2, 6, 20, 1000003, (1ULL << 32) + 1,
	(1ULL << 63) + 1, U64_MAX };
static const u32 rollback_five[] = { 2, 2, 6, 1, 1 };

/*
 * Die @i of rollback_sides[] and then of four loaded dice (grouped cells,
 * column and height in 64 bits, 128 bits, one draw from the whole table in
 * 64 bits), on @ref and on @die alike.
 * Return: the weights of a loaded die, else NULL.
 */
static const u32 *rollback_die(unsigned int i, struct dice_die *ref,
			       struct dice_die *die)
{
	struct dice_table *t1, *t2;
	const u32 *w;
	u32 n;

	if (i < ARRAY_SIZE(rollback_sides)) {
		EXPECT(!dice_die_set_sides(ref, rollback_sides[i]));
		EXPECT(!dice_die_set_sides(die, rollback_sides[i]));
		return NULL;
	}
	i -= ARRAY_SIZE(rollback_sides);
	w = i == 0 ? rollback_five : i == 1 ? two_draw :
	    i == 2 ? rollback_wide : one_draw;
	n = i == 0 ? ARRAY_SIZE(rollback_five) :
	    i == 1 ? ARRAY_SIZE(two_draw) :
	    i == 2 ? ARRAY_SIZE(rollback_wide) : ARRAY_SIZE(one_draw);
	t1 = dice_table_alloc(n);
	t2 = dice_table_alloc(n);
	EXPECT(t1 && !dice_table_from_weights(t1, w));
	EXPECT(t2 && !dice_table_from_weights(t2, w));
	EXPECT(!dice_die_set_table(ref, t1));
	EXPECT(!dice_die_set_table(die, t2));
	/* The case this test was written for: the register loop's two draws. */
	if (w == two_draw)
		EXPECT(!dice_loaded_one_draw(die) && die->narrow_table);
	if (w == rollback_wide)
		EXPECT(!die->narrow_table);
	/* Rolls that run dry after ready ones in the same call. */
	if (w == one_draw)
		EXPECT(dice_loaded_one_draw(die) && die->digits.per == 1 &&
		       die->narrow_table);
	return w;
}

/*
 * Every kind of die and every method it takes: a roll that runs out of
 * written bits part way leaves no trace, whichever of its draws ran dry:
 * the same faces, from the same bits, as a die that draws them freely.
 * (A loaded die's height running dry after its column kept the column's
 * top-up in the state while the bits went back to the pool: used twice.)
 */
static void test_rollback_every_die(void)
{
	static const unsigned int steps[] = { 1, 3, 5, 13 }, manys[] = { 1, 7 };
	const unsigned int ndice = ARRAY_SIZE(rollback_sides) + 4;
	const unsigned int nmethods = DICE_METHOD_REJECTION + 1;
	unsigned int c, m, step, many;

	rollback_weights();
	/* Case c: die, method, bits fed at a time, faces asked at once. */
	for (c = 0; c < ndice * nmethods * 4 * 2 && !tap_case_failed; c++) {
		struct kat_ctx k = { 0 };
		struct dice_die ref, die;
		const u32 *w;

		m = c / 8 % nmethods;
		step = steps[c / 2 % 4];
		many = manys[c % 2];
		dice_die_init(&ref, kat_fill, &k);
		dice_die_init(&die, NULL, NULL);
		w = rollback_die(c / (8 * nmethods), &ref, &die);
		if (dice_die_set_method(&ref, m) ||
		    dice_die_set_method(&die, m))
			EXPECT(w && m != DICE_METHOD_RECYCLE &&
			       m != DICE_METHOD_ALIAS);
		else
			EXPECT_EQ(rollback_against(&ref, &die, step, many) > 20, 1);
		if (tap_case_failed)
			tap_note("d%llu%s, method %u, %u bits at a time, %u at once",
				 (unsigned long long)ref.sides,
				 w ? " loaded" : "", m, step, many);
		dice_die_wipe(&ref);
		dice_die_wipe(&die);
	}
}

/* Rolling many at once gives the faces and bit counts of one by one. */
static void test_roll_many(void)
{
	static const u64 sides[] = { 2, 3, 6, 7, 20, 1000003,
		(1ULL << 32) - 1, (1ULL << 32) + 1, U64_MAX };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		struct kat_ctx k1 = { 0 }, k2 = { 0 };
		struct dice_die one, many;
		u64 want, faces[37];
		int got;

		dice_die_init(&one, kat_fill, &k1);
		dice_die_init(&many, kat_fill, &k2);
		dice_die_set_sides(&one, sides[i]);
		dice_die_set_sides(&many, sides[i]);
		for (j = 0; j < 300; j++) {
			got = dice_die_roll_many(&many, faces, 37);
			EXPECT(got == 37);
			for (int f = 0; f < got; f++) {
				EXPECT(!dice_die_roll(&one, &want));
				EXPECT(faces[f] == want);
			}
			if (tap_case_failed)
				break;
		}
		EXPECT(dice_pool_used(&one.pool) == dice_pool_used(&many.pool));
		EXPECT(one.rolls == many.rolls);
	}
	/*
	 * Shrunk widths: at 13 bits a grouped draw rejects up to once in 40
	 * draws, so the group loop often stops before a draw it would
	 * reject, and the general loop must make that draw the same way.
	 * Each die starts from its own state, and from states of m at or
	 * past the loop's bound (2^(w-1), and d * 2^(w/2) or more, where no
	 * draw tops m up), which the loop must leave to the general one; the
	 * bytes of dice_die_roll_u8() are checked against the same faces.
	 */
	for (i = 0; i < 24; i++) {
		static const u64 few[] = { 3, 6, 7, 10 };
		unsigned int width = i % 8 < 4 ? 13 : 15, start = i / 8, f;
		struct kat_ctx k1 = { 0 }, k2 = { 0 }, k3 = { 0 };
		struct dice_die one, many, bytes;
		struct dice_die *all[] = { &one, &many, &bytes };
		u64 want, faces[37];
		u8 b[37];

		dice_die_init(&one, kat_fill, &k1);
		dice_die_init(&many, kat_fill, &k2);
		dice_die_init(&bytes, kat_fill, &k3);
		for (f = 0; f < 3; f++) {
			dice_die_set_widths(all[f], width, 128, 1ULL << 32, 0);
			EXPECT(!dice_die_set_sides(all[f], few[i % 4]));
			if (start) {
				all[f]->rec.m = (1ULL << (width - 2 + start)) - 1;
				all[f]->rec.x = all[f]->rec.m / 3;
				/* bits held, so the group loop sees m first */
				EXPECT(!dice_pool_refill(&all[f]->pool, 64));
			}
		}
		EXPECT(many.digits.per > 1);
		for (j = 0; j < 300 && !tap_case_failed; j++) {
			EXPECT(dice_die_roll_many(&many, faces, 37) == 37);
			EXPECT(dice_die_roll_u8(&bytes, b, 37, 0) == 37);
			for (f = 0; f < 37; f++) {
				EXPECT(!dice_die_roll(&one, &want));
				EXPECT(faces[f] == want);
				EXPECT(b[f] == want);
			}
		}
		for (f = 1; f < 3; f++) {
			EXPECT(dice_pool_used(&one.pool) ==
			       dice_pool_used(&all[f]->pool));
			EXPECT(one.rolls == all[f]->rolls);
		}
	}
	/* Written bits: the batch stops at the last whole roll, undoing the
	 * partial one, and goes on from there when more bits come.
	 */
	{
		struct kat_ctx k = { 0 };
		struct dice_die ref, die;
		u64 faces[64], want, fed = 0;
		int got, total = 0;

		dice_die_init(&ref, kat_fill, &k);
		dice_die_init(&die, NULL, NULL);
		dice_die_set_sides(&ref, 6);
		dice_die_set_sides(&die, 6);
		while (total < 500) {
			for (j = 0; j < 29; j++)
				dice_pool_put(&die.pool, kat_bit(fed++), 1);
			got = dice_die_roll_many(&die, faces, 64);
			if (got == -EAGAIN)
				continue;
			EXPECT(got > 0);
			for (int f = 0; f < got; f++) {
				dice_die_roll(&ref, &want);
				EXPECT(faces[f] == want);
			}
			total += got;
			if (tap_case_failed)
				break;
		}
		EXPECT(dice_pool_used(&die.pool) == dice_pool_used(&ref.pool));
	}
}

/* dice_die_roll_u8() gives the bytes of dice_die_roll_many()'s faces. */
static void test_roll_u8(void)
{
	static const u32 five[] = { 2, 2, 6, 1, 1 };
	static const u64 sides[] = { 3, 6, 20, 255, 256, 0 };
	unsigned int i, j, f;

	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		struct kat_ctx k1 = { 0 }, k2 = { 0 };
		struct dice_die a, b;
		u64 faces[100];
		u8 bytes[100];
		u8 base = i % 2;
		int got;

		dice_die_init(&a, kat_fill, &k1);
		dice_die_init(&b, kat_fill, &k2);
		if (sides[i]) {
			EXPECT(!dice_die_set_sides(&a, sides[i]));
			EXPECT(!dice_die_set_sides(&b, sides[i]));
		} else {
			struct dice_table *t1 = dice_table_alloc(5);
			struct dice_table *t2 = dice_table_alloc(5);

			EXPECT(!dice_table_from_weights(t1, five));
			EXPECT(!dice_table_from_weights(t2, five));
			EXPECT(!dice_die_set_table(&a, t1));
			EXPECT(!dice_die_set_table(&b, t2));
		}
		for (j = 0; j < 50; j++) {
			got = dice_die_roll_many(&a, faces, 100 - j);
			EXPECT(got == (int)(100 - j));
			EXPECT(a.pool.mark == a.pool.head);
			EXPECT(dice_die_roll_u8(&b, bytes, 100 - j, base) == got);
			for (f = 0; f < 100 - j; f++)
				EXPECT(bytes[f] == (u8)(faces[f] + base));
			if (tap_case_failed)
				break;
		}
		EXPECT(dice_pool_used(&a.pool) == dice_pool_used(&b.pool));
		EXPECT(a.rolls == b.rolls);
		dice_die_wipe(&a);
		dice_die_wipe(&b);
	}
}

/* A die with weights @w; @pack: as dice_die_set_table() leaves it, or not. */
static void loaded_die(struct dice_die *die, const u32 *w, u32 n, bool pack,
		       dice_fill_fn fill, void *ctx)
{
	struct dice_table *t = dice_table_alloc(n);

	dice_die_init(die, fill, ctx);
	EXPECT(t && !dice_table_from_weights(t, w));
	if (pack) {
		EXPECT(!dice_die_set_table(die, t));
		return;
	}
	die->table = t;
	die->sides = n;
	die->kind = DICE_KIND_LOADED;
	/* Plans the die for its table, with the default widths. */
	dice_die_set_widths(die, 63, 128, 1ULL << 32, 1ULL << 40);
}

/*
 * Loaded dice: rolling many equals one by one, and the packed table rolls
 * the very faces of the 28-bytes-a-side one.  Sizes cover one narrow draw
 * (n * D < 2^32), two narrow draws, and the 128-bit path.
 */
static void test_roll_many_loaded(void)
{
	/* 2 sides of mass 8: 16 cells, whose powers reach 2^32 exactly. */
	static const u32 sizes[] = { 5, 1000, 65536, 300, 2, 4096 };
	unsigned int i, j, f;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u32 n = sizes[i], *w = malloc(n * sizeof(*w)), c;
		struct kat_ctx k1 = { 0 }, k2 = { 0 }, k3 = { 0 };
		struct dice_die one, many, wide;
		u64 want, other, faces[37];
		int got;

		for (c = 0; c < n; c++)
			w[c] = i == 0 ? (u32[]){ 2, 2, 6, 1, 1 }[c] :
			       i == 1 ? (1000000 / (c + 1)) :
			       i == 2 ? 1 + (u32)(xoshiro() % 65535) :
			       i == 3 ? (u32)(xoshiro() >> 32) | 1 :
			       i == 4 ? (u32[]){ 7, 1 }[c] :
					1 + (u32)(xoshiro() % (1U << 21));
		loaded_die(&one, w, n, true, kat_fill, &k1);
		loaded_die(&many, w, n, true, kat_fill, &k2);
		loaded_die(&wide, w, n, false, kat_fill, &k3);
		/* Weights near 2^32 cannot be packed; shares beyond 2^32 go
		 * into 128-bit words; the rest into 32-bit columns.
		 */
		EXPECT(!!one.table->col == (i != 3 && i != 5));
		EXPECT(!!one.table->packed == (i == 5));
		for (j = 0; j < 200; j++) {
			got = dice_die_roll_many(&many, faces, 37);
			EXPECT(got == 37);
			/* At rest: a later failure undoes only itself. */
			EXPECT(many.pool.mark == many.pool.head);
			for (f = 0; f < 37; f++) {
				EXPECT(!dice_die_roll(&one, &want));
				EXPECT(!dice_die_roll(&wide, &other));
				EXPECT(faces[f] == want && want == other);
			}
			if (tap_case_failed)
				break;
		}
		EXPECT(dice_pool_used(&one.pool) == dice_pool_used(&many.pool));
		EXPECT(dice_pool_used(&one.pool) == dice_pool_used(&wide.pool));
		EXPECT(one.rolls == many.rolls);
		dice_die_wipe(&one);
		dice_die_wipe(&many);
		dice_die_wipe(&wide);
		free(w);
		if (tap_case_failed) {
			printf("#   %u sides\n", n);
			return;
		}
	}
}

/*
 * Bit @j of splitmix_fill()'s stream from state 0: a stream with no period
 * a pool's ring could hide.  (kat_fill() repeats every 2048 bits, which
 * divides the ring, so a loop that read past the pool's tail into stale
 * words would read the very bits it should have waited for.)
 */
static unsigned int mix_bit(u64 j)
{
	return splitmix_at(j / 64) >> (63 - j % 64) & 1;
}

/*
 * Loaded dice at shrunk widths, drawn whole and by column and height, packed
 * and not: at 16 and 20 bits a draw rejects often (up to 1 in 2^7), and
 * dice_die_roll_many()'s register loop runs the pool dry in the middle of
 * its rolls.  The reference is fed the same bits 5 at a time, never the bits
 * of a whole roll, so that every one of its draws waits for more: the faces
 * and the bits spent must be the same.  (A faster loop that rolled from the
 * bits the pool held was tried against this test: it caught the head not
 * put back after a rejection, an accept test off by one, and reading past
 * the pool's tail.)
 */
static void test_roll_many_loaded_narrow(void)
{
	static const u32 spread[13] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9 };
	/* A side above 1/2 leaves m at 2^(w - 1) and more after its merge. */
	static const u32 heavy[13] = { 200, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	unsigned int i, j, f, b;

	for (i = 0; i < 32; i++) {
		unsigned int width = i & 1 ? 20 : 16, n = i & 2 ? 13 : 8;
		bool whole = i & 4, pack = i & 8;
		const u32 *w = i & 16 ? heavy : spread;
		struct dice_die ref, many;
		u64 want, faces[37], fed = 0, state = 0;
		int got;

		loaded_die(&ref, w, n, pack, NULL, NULL);
		loaded_die(&many, w, n, pack, splitmix_fill, &state);
		dice_die_set_widths(&ref, width, 128, 1ULL << 32,
				    whole ? 1ULL << 40 : 0);
		dice_die_set_widths(&many, width, 128, 1ULL << 32,
				    whole ? 1ULL << 40 : 0);
		EXPECT(many.digits.per == 1 && many.narrow_table);
		EXPECT(dice_loaded_one_draw(&many) == whole);
		for (j = 0; j < 300 && !tap_case_failed; j++) {
			EXPECT(dice_die_roll_many(&many, faces, 37) == 37);
			EXPECT(many.pool.mark == many.pool.head);
			for (f = 0; f < 37 && !tap_case_failed; f++) {
				while ((got = dice_die_roll(&ref, &want)) ==
				       -EAGAIN)
					for (b = 0; b < 5; b++)
						dice_pool_put(&ref.pool,
							      mix_bit(fed++),
							      1);
				EXPECT(!got && faces[f] == want);
			}
		}
		EXPECT(dice_pool_used(&ref.pool) == dice_pool_used(&many.pool));
		EXPECT(ref.rolls == many.rolls);
		dice_die_wipe(&ref);
		dice_die_wipe(&many);
		if (tap_case_failed) {
			printf("#   %u sides%s, width %u, %s, %s\n", n,
			       w == heavy ? " (one heavy)" : "", width,
			       whole ? "whole" : "column and height",
			       pack ? "packed" : "not packed");
			return;
		}
	}
}

/* A die left with a 128-bit state by a larger one shrinks back to 64. */
static void test_state_shrinks(void)
{
	struct dice_die die;
	u64 face, faces[64];
	int i;

	dice_die_init(&die, prng_fill, NULL);
	EXPECT(!dice_die_set_sides(&die, (1ULL << 33) + 1));
	EXPECT(!dice_die_roll(&die, &face));
	EXPECT(die.rec.m >> 64);
	EXPECT(!dice_die_set_sides(&die, 6));
	for (i = 0; i < 10; i++)
		EXPECT(dice_die_roll_many(&die, faces, 64) == 64);
	EXPECT(!(die.rec.m >> 64));
	dice_die_wipe(&die);
}

/* ---- bits per roll ------------------------------------------------------------------------ */

/* Bits a roll drawn from the pool; *@net: less what the die still holds. */
static double bits_per_roll(struct dice_die *die, unsigned long rolls,
			    double *net)
{
	unsigned long i;
	u64 face;

	*net = -1;
	for (i = 0; i < rolls; i++)
		if (dice_die_roll(die, &face) || face >= die->sides)
			return -1;
	*net = (double)(((long double)dice_pool_used(&die->pool) -
			 dice_held_bits(die, die->sides)) / rolls);
	return (double)dice_pool_used(&die->pool) / (double)rolls;
}

static void test_bits_fair(void)
{
	static const u64 sides[] = { 2, 3, 6, 7, 20, 100, 1000003,
		(1ULL << 31) + 1, (1ULL << 32) - 1, (1ULL << 63) + 1,
		U64_MAX };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		struct dice_die die;
		double h = log2((double)sides[i]), b, net;

		dice_die_init(&die, prng_fill, NULL);
		dice_die_set_sides(&die, sides[i]);
		b = bits_per_roll(&die, 1000000, &net);
		printf("#   d%llu: %.6f bits/roll, log2 n %.6f, waste %.2e, net of what the die holds %.2e\n",
		       (unsigned long long)sides[i], b, h, b - h, net - h);
		EXPECT(b >= h * 0.999 && b <= h * 1.001);
		/* At the entropy bound: under 1e-4 bits a roll wasted. */
		EXPECT(net - h < 1e-4);
		dice_die_wipe(&die);
	}
}

static void test_bits_exact(void)
{
	struct dice_die die;
	u64 face;
	int i;

	dice_die_init(&die, prng_fill, NULL);
	dice_die_set_sides(&die, 1ULL << 40);
	for (i = 0; i < 1000; i++)
		EXPECT(!dice_die_roll(&die, &face) && face < (1ULL << 40));
	EXPECT(dice_pool_used(&die.pool) == 40 * 1000);
	dice_die_set_sides(&die, 1);
	for (i = 0; i < 1000; i++)
		EXPECT(!dice_die_roll(&die, &face) && face == 0);
	EXPECT(dice_pool_used(&die.pool) == 40 * 1000);
	dice_die_wipe(&die);
}

static double entropy(const u32 *w, u32 n)
{
	double total = 0, h = 0;
	u32 i;

	for (i = 0; i < n; i++)
		total += w[i];
	for (i = 0; i < n; i++)
		if (w[i])
			h -= w[i] / total * log2(w[i] / total);
	return h;
}

static void bits_loaded(const char *name, const u32 *w, u32 n)
{
	struct dice_table *t = dice_table_alloc(n);
	struct dice_die die;
	double h = entropy(w, n), b, net;

	double total = 0, info = 0;
	u64 face;
	u32 i;

	for (i = 0; i < n; i++)
		total += w[i];
	EXPECT(t && !dice_table_from_weights(t, w));
	dice_die_init(&die, prng_fill, NULL);
	EXPECT(!dice_die_set_table(&die, t));
	for (i = 0; i < 1000000; i++) {
		EXPECT(!dice_die_roll(&die, &face) && face < n && w[face]);
		info += log2(total / w[face]);
	}
	b = (double)dice_pool_used(&die.pool) / 1e6;
	net = (double)(((long double)dice_pool_used(&die.pool) -
			dice_held_bits(&die, n)) / 1e6);
	/* Waste is measured against the information of the faces rolled, so
	 * the faces' own sampling noise (about 0.05% for Games::Dice::Loaded's die) does
	 * not count; that information must itself be near H.
	 */
	printf("#   %s: %.6f bits/roll, H %.6f, rolled faces' information %.6f, waste %.2e, net of what the die holds %.2e\n",
	       name, b, h, info / 1e6, b - info / 1e6, net - info / 1e6);
	EXPECT(fabs(b - info / 1e6) <= 0.001 * h);
	EXPECT(net - info / 1e6 < 1e-4);
	EXPECT(fabs(info / 1e6 - h) <= 0.005 * h);
	dice_die_wipe(&die);
}

static void test_bits_loaded(void)
{
	static const u32 synopsis[] = { 2, 2, 6, 1, 1 };
	u32 *w = malloc((1U << 20) * sizeof(*w)), i;

	bits_loaded("{2,2,6,1,1}", synopsis, 5);
	for (i = 0; i < 1000; i++)
		w[i] = (u32)(1000000.0 / (i + 1) + 0.5);
	bits_loaded("zipf-1000", w, 1000);
	for (i = 0; i < 65536; i++)
		w[i] = 1 + (u32)(xoshiro() % 65535);
	bits_loaded("65536 random weights", w, 65536);
	/* Large enough to draw its columns ahead, and rolled in 64 bits. */
	for (i = 0; i < (1U << 20); i++)
		w[i] = 1 + (u32)(xoshiro() % 65535);
	bits_loaded("2^20 random weights", w, 1U << 20);
	for (i = 0; i < (1U << 20); i++)
		w[i] = U32_MAX;
	bits_loaded("2^20 sides of 2^32-1", w, 1U << 20);
	free(w);
}

int main(void)
{
	printf("TAP version 13\n");
	tap_run("core: pool bit order", test_pool_order);
	tap_run("core: pool accounting, rollback, discard", test_pool_accounting);
	tap_run("core: a one-word source is drawn only as needed",
		test_pool_one_word_source);
	tap_run("core: a read leaves no spent bit or served byte",
		test_read_scrubs);
	tap_run("core: a trimmed pool keeps what it was asked, the rest discarded",
		test_pool_trim);
	tap_run("core: a trim drops the rolls waiting in a batch",
		test_trim_drops_batch);
	tap_run("core: a trim gives back the faces and columns drawn ahead",
		test_trim_gives_back_drawn_ahead);
	tap_run("core: 128-by-64 division", test_div128);
	tap_run("core: division by multiplication", test_divisor);
	tap_run("core: face formats", test_format);
	tap_run("core: batch encoder matches the one-face encoder",
		test_format_batch);
	tap_run("core: known answers against the Python reference",
		test_known_answers);
	tap_run("core: loaded known answers against the Python reference",
		test_loaded_known_answers);
	tap_run("core: tables draw ahead from 2^17 sides by mapping 2, 2^14 by 3",
		test_loaded_ahead_by_mapping);
	tap_run("core: recycler state stays x < m", test_state_invariant);
	tap_run("core: exhaustive exactness, fair dice", test_exhaustive_fair);
	tap_run("core: exhaustive exactness, faces drawn together",
		test_exhaustive_grouped);
	tap_run("core: exhaustive exactness, loaded dice",
		test_exhaustive_loaded);
	tap_run("core: exhaustive exactness, sequences of dice",
		test_exhaustive_sequences);
	tap_run("core: a broken state fails one roll and is forgotten",
		test_broken_state);
	tap_run("core: written bits that cannot roll are discarded",
		test_written_never_wedge);
	tap_run("core: after dropping its random state a die uses only new bits",
		test_drop_random);
	tap_run("core: a change after a faulting read serves no stale roll",
		test_stream_changes);
	tap_run("core: text reads serve whole lines", test_text_whole_lines);
	tap_run("core: a read with lines served leaves another's rest alone",
		test_text_rest_not_glued);
	tap_run("core: alias construction invariants", test_alias_build);
	tap_run("core: alias table validation", test_alias_validate);
	tap_run("core: every die and method rolls back a roll that runs dry",
		test_rollback_every_die);
	tap_run("core: rolling many equals rolling one by one", test_roll_many);
	tap_run("core: rolling into bytes equals rolling many", test_roll_u8);
	tap_run("core: loaded: many, one by one and packed agree",
		test_roll_many_loaded);
	tap_run("core: loaded: many equals one by one at shrunk widths",
		test_roll_many_loaded_narrow);
	tap_run("core: a 128-bit state shrinks back for a small die",
		test_state_shrinks);
	tap_run("core: power-of-two and d1 cost exactly", test_bits_exact);
	tap_run("core: fair bits per roll within 0.1% of log2 n",
		test_bits_fair);
	tap_run("core: loaded bits per roll within 0.1% of H",
		test_bits_loaded);
	return tap_done("core");
}
