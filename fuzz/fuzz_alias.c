// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_alias.c - libFuzzer target: the die core's alias-table builder and
 * validator, and rolls of the dice they make, against independent oracles
 *
 * The core (kmod/dice_*.c) is the module's own C built for userspace with
 * -DDICE_USERSPACE.  Any violated invariant abort()s with a message, which
 * libFuzzer reports as a crash and saves as an artifact.
 *
 * Input layout (little-endian; missing bytes read as zero):
 *
 *   byte 0     bits 0-1  mode: 0 weights, 1 alias table, 2 and 3 fair die
 *              bits 2-3  width code c (see each mode)
 *              bits 4-6  DICE_METHOD_* to roll with (5..7 must be refused)
 *              bit  7    DICE_FMT_U8 instead of text (big dice: -EOVERFLOW)
 *   weights:   bytes 1-2: n - 1 (mod 4096); then n weights of c + 1 bytes
 *   alias:     bytes 1-2: n - 1 (mod 4096); bytes 3-10: the mass D; then n
 *              columns of (threshold: 1 << c bytes, alias: 2 bytes).  An
 *              all-ones threshold stands for D + 1 (invalid), any other for
 *              itself modulo D + 1; alias 0xffff stands for n (invalid), any
 *              other for itself modulo n.  So most inputs are valid tables
 *              and the invalid ones are one sentinel away.
 *   fair:      bytes 1-8: the number of sides (0 must be refused)
 *   the rest   the bits the die is rolled with, most significant first
 *
 * Checked:
 *  - dice_table_from_weights(): -EINVAL exactly when every weight is zero;
 *    else mass = W, total = n W, share[s] = n w[s], thr[c] <= mass,
 *    alias[c] < n, the shares rebuilt from the columns match, and each
 *    side's pieces lie end to end in column order (what adj[] encodes);
 *  - the same columns fed back to dice_table_from_alias() give the same
 *    shares;
 *  - dice_table_from_alias(): -EINVAL for a zero mass, a threshold above
 *    it or an alias out of range, else -EOVERFLOW exactly when a share
 *    would not fit 64 bits (computed here in 128 bits), else shares that
 *    sum to the total and tile as above;
 *  - dice_table_side() for every column at a few heights: a side with a
 *    share, at an offset inside it;
 *  - rolls: 0 or -EAGAIN only, faces below the sides, never a side with no
 *    share, a failed roll consumes nothing (but DICE_METHOD_BATCH's
 *    rejected tries) and leaves the recycled state as it was, unless the
 *    bits fill the pool, when it discards them all; and two dice fed the
 *    same bits roll the same faces;
 *  - where the core has dice_die_roll_many(), it rolls the same faces as
 *    that many dice_die_roll() calls, on a third die fed the same bits;
 *  - a loaded die draws 0, 1, 2 or 4 columns ahead (by its sides modulo 4;
 *    only tables of 2^14 sides and more do by default), with all of the
 *    above.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "dice_stream.h"

#define MAX_SIDES	4096
#define MAX_ROLLS	256

/* The batched entry point, where the core has it (weak: NULL if not). */
#ifndef __weak
#define __weak	__attribute__((weak))
#endif
int dice_die_roll_many(struct dice_die *die, u64 *faces,
		       unsigned int count) __weak;


static u64 ones(unsigned int bytes)
{
	return bytes >= 8 ? U64_MAX : ((u64)1 << (8 * bytes)) - 1;
}

/*
 * Each side's pieces, laid end to end in the documented order (its own
 * piece, then its alias pieces in column order), must make up its share;
 * adj[c] + thr[c] is where column c's alias piece starts.
 */
static void check_layout(const struct dice_table *t)
{
	u64 *end = calloc(t->sides, sizeof(*end));
	u32 c;

	CHECK(end, "out of memory");
	for (c = 0; c < t->sides; c++)
		end[c] = t->thr[c];
	for (c = 0; c < t->sides; c++) {
		u32 a = t->alias[c];
		u64 piece = t->mass - t->thr[c];

		CHECK(t->thr[c] <= t->mass, "column %u: thr %llu > mass %llu",
		      c, (unsigned long long)t->thr[c],
		      (unsigned long long)t->mass);
		CHECK(a < t->sides, "column %u: alias %u of %u sides", c, a,
		      t->sides);
		if (!piece)
			continue;
		CHECK(t->thr[c] + t->adj[c] == end[a],
		      "column %u: alias piece of side %u starts at %llu, not %llu",
		      c, a, (unsigned long long)(t->thr[c] + t->adj[c]),
		      (unsigned long long)end[a]);
		end[a] += piece;
	}
	for (c = 0; c < t->sides; c++)
		CHECK(end[c] == t->share[c], "side %u: pieces end at %llu, share %llu",
		      c, (unsigned long long)end[c],
		      (unsigned long long)t->share[c]);
	free(end);
}

static u64 mix(u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Shares sum to the total; dice_table_side() stays inside them. */
static void check_sides(const struct dice_table *t)
{
	u128 sum = 0;
	u64 off, y;
	u32 c, s;
	int k;

	for (c = 0; c < t->sides; c++)
		sum += t->share[c];
	CHECK(sum == t->total, "shares sum to %llu*2^64+%llu, total differs",
	      (unsigned long long)(sum >> 64), (unsigned long long)sum);
	CHECK(t->total == (u128)t->sides * t->mass, "total is not n * mass");
	for (c = 0; c < t->sides; c++) {
		for (k = 0; k < 4; k++) {
			switch (k) {
			case 0:
				y = 0;
				break;
			case 1:
				y = t->mass - 1;
				break;
			case 2:
				y = t->thr[c] < t->mass ? t->thr[c] : 0;
				break;
			default:
				y = mix(c ^ t->mass) % t->mass;
				break;
			}
			s = dice_table_side(t, c, y, &off);
			CHECK(s < t->sides, "side %u of %u", s, t->sides);
			CHECK(off < t->share[s],
			      "column %u height %llu: side %u offset %llu, share %llu",
			      c, (unsigned long long)y, s,
			      (unsigned long long)off,
			      (unsigned long long)t->share[s]);
		}
	}
}

static struct dice_table *copy_columns(const struct dice_table *t)
{
	struct dice_table *u = dice_table_alloc(t->sides);

	CHECK(u, "out of memory");
	memcpy(u->thr, t->thr, t->sides * sizeof(*t->thr));
	memcpy(u->alias, t->alias, t->sides * sizeof(*t->alias));
	return u;
}

static struct dice_table *build_weights(struct in *in, unsigned int code)
{
	u32 n = (u32)(get(in, 2) % MAX_SIDES) + 1, i;
	u32 *w = malloc(n * sizeof(*w));
	struct dice_table *t, *u;
	u64 sum = 0;
	int err;

	CHECK(w, "out of memory");
	for (i = 0; i < n; i++) {
		w[i] = (u32)get(in, code + 1);
		sum += w[i];
	}
	t = dice_table_alloc(n);
	CHECK(t, "out of memory");
	err = dice_table_from_weights(t, w);
	if (!sum) {
		CHECK(err == -EINVAL, "all weights zero: %d", err);
		dice_table_free(t);
		free(w);
		return NULL;
	}
	CHECK(!err, "%u weights summing to %llu: %d", n,
	      (unsigned long long)sum, err);
	CHECK(t->sides == n && t->mass == sum, "mass %llu, want %llu",
	      (unsigned long long)t->mass, (unsigned long long)sum);
	for (i = 0; i < n; i++)
		CHECK(t->share[i] == (u64)n * w[i],
		      "side %u: share %llu, want %u * %u", i,
		      (unsigned long long)t->share[i], n, w[i]);
	check_layout(t);
	check_sides(t);

	/* The builder's columns are a valid user table of the same die. */
	u = copy_columns(t);
	err = dice_table_from_alias(u, t->mass);
	CHECK(!err, "own columns refused: %d", err);
	for (i = 0; i < n; i++)
		CHECK(u->share[i] == t->share[i], "side %u: %llu vs %llu", i,
		      (unsigned long long)u->share[i],
		      (unsigned long long)t->share[i]);
	dice_table_free(u);
	free(w);
	return t;
}

static struct dice_table *build_alias(struct in *in, unsigned int code)
{
	unsigned int tb = 1U << code;
	u32 n = (u32)(get(in, 2) % MAX_SIDES) + 1, c;
	u64 mass = get(in, 8);
	struct dice_table *t = dice_table_alloc(n);
	u128 *want = calloc(n, sizeof(*want));
	bool invalid = !mass, overflow = false;
	u32 *alias = malloc(n * sizeof(*alias));
	u64 *thr = malloc(n * sizeof(*thr));
	int err, expect;

	CHECK(t && want && alias && thr, "out of memory");
	for (c = 0; c < n; c++) {
		u64 raw = get(in, tb);
		u64 a = get(in, 2);

		if (raw == ones(tb))
			thr[c] = mass == U64_MAX ? mass : mass + 1;
		else
			thr[c] = mass ? raw % ((u128)mass + 1) : raw;
		alias[c] = a == 0xffff ? n : (u32)(a % n);
		invalid |= thr[c] > mass || alias[c] >= n;
	}
	memcpy(t->thr, thr, n * sizeof(*thr));
	memcpy(t->alias, alias, n * sizeof(*alias));
	if (!invalid) {
		for (c = 0; c < n; c++) {
			want[c] += thr[c];
			if (thr[c] < mass)
				want[alias[c]] += mass - thr[c];
		}
		for (c = 0; c < n; c++)
			overflow |= want[c] >> 64 != 0;
	}
	expect = invalid ? -EINVAL : overflow ? -EOVERFLOW : 0;
	err = dice_table_from_alias(t, mass);
	CHECK(err == expect, "%u columns of mass %llu: got %d, want %d", n,
	      (unsigned long long)mass, err, expect);
	if (!err) {
		CHECK(t->mass == mass, "mass changed");
		for (c = 0; c < n; c++) {
			CHECK(t->share[c] == want[c], "side %u: share %llu",
			      c, (unsigned long long)t->share[c]);
			CHECK(t->thr[c] == thr[c], "column %u: thr changed", c);
			CHECK(t->alias[c] == (thr[c] == mass ? c : alias[c]),
			      "column %u: alias %u, given %u", c, t->alias[c],
			      alias[c]);
		}
		check_layout(t);
		check_sides(t);
	}
	free(want);
	free(alias);
	free(thr);
	if (err) {
		dice_table_free(t);
		return NULL;
	}
	return t;
}

/* Put up to a pool's worth of the input's remaining bytes into @die. */
static size_t feed(struct dice_die *die, const struct in *in)
{
	size_t room = dice_pool_room(&die->pool) / 8, i;
	size_t left = in->pos < in->len ? in->len - in->pos : 0;

	if (left > room)
		left = room;
	for (i = 0; i < left; i++)
		dice_pool_put(&die->pool, in->p[in->pos + i], 8);
	return left;
}

/*
 * Roll up to @max - @nroll more faces with dice_die_roll_many(), in chunks
 * of varying size.  Return: faces made, or the error if none.
 */
static int roll_many(struct dice_die *die, u64 *faces, unsigned int nroll,
		     unsigned int max)
{
	static const unsigned int chunk[] = { 1, 2, 7, 64, 3, 200 };
	unsigned int want = chunk[nroll % ARRAY_SIZE(chunk)];
	int got;

	if (want > max - nroll)
		want = max - nroll;
	got = dice_die_roll_many(die, faces + nroll, want);
	CHECK(got != 0 && got <= (int)want, "roll_many of %u: %d", want, got);
	CHECK(got > 0 || got == -EAGAIN, "roll_many: %d", got);
	return got;
}

/*
 * A roll failed with -EAGAIN: nothing is spent (but DICE_METHOD_BATCH's
 * rejected tries, which are spent for good), unless the written bits filled
 * the pool: no byte more fits, so they can never complete the roll and
 * dice_die_failed() discards every one of them, as it documents.
 */
static void check_failed_roll(const struct dice_die *die,
			      const struct dice_pool *before,
			      const struct dice_recycler *rec)
{
	const struct dice_pool *now = &die->pool;
	bool batch = die->method == DICE_METHOD_BATCH;

	/* The recycled state too: a top-up kept while its bits went back
	 * to the pool would spend them twice.
	 */
	CHECK(batch || (die->rec.x == rec->x && die->rec.m == rec->m &&
			die->rec.held == rec->held &&
			die->rec.held_size == rec->held_size),
	      "a failed roll changed the recycled state: m %#llx:%016llx, was %#llx:%016llx",
	      (unsigned long long)(die->rec.m >> 64),
	      (unsigned long long)die->rec.m,
	      (unsigned long long)(rec->m >> 64), (unsigned long long)rec->m);
	/* And the columns drawn ahead: the ones waiting, where they wait. */
	CHECK(batch || (die->rec.ahead_count == rec->ahead_count &&
			die->rec.ahead_next == rec->ahead_next),
	      "a failed roll changed the ring: %u columns from %u, was %u from %u",
	      die->rec.ahead_count, die->rec.ahead_next, rec->ahead_count,
	      rec->ahead_next);
	for (unsigned int i = 0; !batch && i < rec->ahead_count; i++) {
		unsigned int at = (rec->ahead_next + i) &
				  (rec->ahead_depth - 1);

		CHECK(die->rec.ahead[at] == rec->ahead[at],
		      "a failed roll changed waiting column %u", i);
	}

	if (now->discarded == before->discarded) {
		CHECK(now->tail == before->tail &&
		      (now->head == before->head ||
		       (batch && now->head > before->head)),
		      "a failed roll moved the pool from %llu to %llu",
		      (unsigned long long)before->head,
		      (unsigned long long)now->head);
		/* A full pool kept would fail the same roll for ever. */
		CHECK(dice_pool_room(now) >= 8,
		      "a failed roll left a full pool: %u bits of room",
		      dice_pool_room(now));
		return;
	}
	/* Discarded: the pool was full (mark and all, less what BATCH
	 * committed), and every bit left it, none vanishing from the
	 * accounting.
	 */
	CHECK(dice_pool_room(before) < 8,
	      "a failed roll discarded a pool with %u bits of room",
	      dice_pool_room(before));
	CHECK(now->head == now->tail && now->mark == now->head &&
	      now->tail == ((before->tail + 63) & ~63ULL) &&
	      dice_pool_room(now) == DICE_POOL_BITS,
	      "a full pool that cannot roll was not emptied: head %llu, tail %llu",
	      (unsigned long long)now->head, (unsigned long long)now->tail);
	CHECK(batch ? now->discarded - before->discarded <=
		      before->tail - before->head :
		      now->discarded - before->discarded ==
		      before->tail - before->head,
	      "a full pool discarded %llu bits, %llu were unread",
	      (unsigned long long)(now->discarded - before->discarded),
	      (unsigned long long)(before->tail - before->head));
}

/*
 * Make a die (a copy of @t when loaded, else a fair d@sides), roll it with
 * the rest of the input until the bits run out (one roll at a time, or
 * with dice_die_roll_many() if @many), and return the faces.
 */
static unsigned int roll(const struct dice_table *t, u64 sides, u32 method,
			 u32 format, const struct in *in, u64 *faces,
			 bool many)
{
	struct dice_die die;
	struct dice_pool before;
	struct dice_recycler before_rec;
	unsigned int nroll = 0;
	u64 used, drawn, face;
	int err, want;

	dice_die_init(&die, NULL, NULL);
	if (t) {
		struct dice_table *u = copy_columns(t);

		CHECK(!dice_table_from_alias(u, t->mass), "copy refused");
		/* What SET_ALIAS checks of the format before it installs. */
		err = dice_format_check(format, t->sides);
		want = format == DICE_FMT_U8 && t->sides > 255 ? -EOVERFLOW : 0;
		CHECK(err == want, "format check: %d, want %d", err, want);
		if (err) {
			dice_table_free(u);
			goto out;
		}
		/*
		 * Tables this small draw no columns ahead by default: 0, 1, 2
		 * or 4 of them, by the sides, so the ring is fuzzed too.
		 */
		dice_die_set_ahead(&die, (1U << (t->sides & 3)) >> 1, 1);
		err = dice_die_set_table(&die, u);	/* owns u, even on error */
		CHECK(!err, "set_table: %d", err);
		CHECK(die.kind == DICE_KIND_LOADED && die.sides == t->sides,
		      "loaded die of %llu sides", (unsigned long long)die.sides);
		err = dice_die_set_method(&die, method);
		want = method == DICE_METHOD_RECYCLE ||
		       method == DICE_METHOD_ALIAS ? 0 : -EINVAL;
	} else {
		err = dice_die_set_sides(&die, sides);
		CHECK(err == (sides ? 0 : -EINVAL), "set_sides %llu: %d",
		      (unsigned long long)sides, err);
		if (err)
			goto out;
		err = dice_format_check(format, sides);
		want = format == DICE_FMT_U8 && sides > 255 ? -EOVERFLOW : 0;
		CHECK(err == want, "format check: %d, want %d", err, want);
		err = dice_die_set_method(&die, method);
		want = method <= DICE_METHOD_REJECTION ? 0 : -EINVAL;
	}
	CHECK(err == want, "set_method %u: %d, want %d", method, err, want);
	feed(&die, in);
	while (nroll < MAX_ROLLS) {
		unsigned int got = 1, i;

		before = die.pool;
		before_rec = die.rec;
		if (many) {
			err = roll_many(&die, faces, nroll, MAX_ROLLS);
			if (err > 0) {
				got = (unsigned int)err;
				err = 0;
			}
		} else {
			err = dice_die_roll(&die, &faces[nroll]);
		}
		used = dice_pool_used(&die.pool);
		drawn = dice_pool_drawn(&die.pool);
		CHECK(used <= drawn, "used %llu > drawn %llu",
		      (unsigned long long)used, (unsigned long long)drawn);
		if (err) {
			CHECK(err == -EAGAIN, "roll: %d", err);
			check_failed_roll(&die, &before, &before_rec);
			CHECK(die.rolls == nroll, "rolls %llu after %u",
			      (unsigned long long)die.rolls, nroll);
			break;
		}
		for (i = 0; i < got; i++, nroll++) {
			face = faces[nroll];
			CHECK(face < die.sides, "face %llu of %llu",
			      (unsigned long long)face,
			      (unsigned long long)die.sides);
			if (t)
				CHECK(t->share[face] > 0, "side %llu has no mass",
				      (unsigned long long)face);
		}
		CHECK(die.rolls == nroll, "rolls %llu after %u",
		      (unsigned long long)die.rolls, nroll);
	}
out:
	dice_die_wipe(&die);
	return nroll;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static u64 a[MAX_ROLLS], b[MAX_ROLLS];
	struct in in = { data, size, 0 };
	struct dice_table *t = NULL;
	unsigned int head = (unsigned int)get(&in, 1), na, nb;
	unsigned int mode = head & 3, code = (head >> 2) & 3;
	u32 method = (head >> 4) & 7;
	u32 format = head & 0x80 ? DICE_FMT_U8 : DICE_FMT_TEXT;
	u64 sides = 0;

	if (mode == 0)
		t = build_weights(&in, code);
	else if (mode == 1)
		t = build_alias(&in, code);
	else
		sides = get(&in, 8);
	if (mode < 2 && !t)
		return 0;
	na = roll(t, sides, method, format, &in, a, false);
	nb = roll(t, sides, method, format, &in, b, false);
	CHECK(na == nb && !memcmp(a, b, na * sizeof(*a)),
	      "two dice fed the same bits differ (%u and %u rolls)", na, nb);
	if (dice_die_roll_many) {
		nb = roll(t, sides, method, format, &in, b, true);
		CHECK(na == nb && !memcmp(a, b, na * sizeof(*a)),
		      "dice_die_roll_many() differs from dice_die_roll() (%u and %u rolls)",
		      na, nb);
	}
	if (t)
		dice_table_free(t);
	return 0;
}
