// SPDX-License-Identifier: GPL-2.0
/*
 * engine.c - the engine that rolls: libdice over /dev/dice (the device),
 * or libdice's userspace engine (getrandom() bits, or a seed's ChaCha20
 * keystream with --seed), behind the source of faces libdice's notation
 * engine asks for sides (dice_expr_roll_source())
 *
 * One engine is open at a time (dice rolls one expression after another).
 * It configures the die only when the die changes, keeps a buffer of faces
 * for --histogram, and counts the faces it hands out and their entropy for
 * --bits.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <dice.h>

#include "cli.h"

#define PREFETCH		4096


struct engine eng;
static bool eng_open;

static long double engine_entropy(const uint32_t *w, uint64_t n)
{
	long double h = 0;
	uint64_t i, sum = 0;

	for (i = 0; i < n; i++)
		sum += w[i];
	for (i = 0; i < n; i++) {
		if (w[i]) {
			long double p = (long double)w[i] / (long double)sum;

			h -= p * log2l(p);
		}
	}
	return h;
}

static bool engine_same_die(const struct engine *s, uint64_t sides,
			    const uint32_t *w)
{
	if (!s->configured || s->sides != sides || !w != !s->weights)
		return false;
	return !w || w == s->weights ||
	       !memcmp(w, s->weights, sides * sizeof(*w));
}

static int engine_configure(struct engine *s, uint64_t sides,
			    const uint32_t *w)
{
	int err;

	if (engine_same_die(s, sides, w))
		return 0;
	s->configured = false;
	s->pos = s->len = 0;	/* buffered faces were of the old die */
	if (w)
		err = dice_set_weights(s->h, w, (uint32_t)sides);
	else
		err = dice_set_sides(s->h, sides);
	if (err) {
		snprintf(s->what, sizeof(s->what), "cannot set up a %s die of %llu sides%s%s",
			 w ? "loaded" : "fair", (unsigned long long)sides,
			 s->method ? " with --method " : "",
			 s->method ? s->method : "");
		return err;
	}
	s->configured = true;
	s->sides = sides;
	s->weights = w;
	s->entropy = w ? engine_entropy(w, sides) : log2l((long double)sides);
	return 0;
}

static int engine_fetch(struct engine *s, uint64_t *out, size_t count)
{
	int err = dice_roll(s->h, out, count, NULL);

	if (err) {
		snprintf(s->what, sizeof(s->what), "cannot roll");
		return err;
	}
	s->faces += count;
	s->bound += (long double)count * s->entropy;
	return 0;
}

int engine_roll(void *arg, uint64_t sides, const uint32_t *weights,
		uint64_t *out, size_t count)
{
	struct engine *s = arg;
	int err = engine_configure(s, sides, weights);

	if (err)
		return err;
	if (!s->prefetch || count > PREFETCH)
		return engine_fetch(s, out, count);
	if (s->len - s->pos < count) {
		err = engine_fetch(s, s->buf, PREFETCH);
		if (err)
			return err;
		s->pos = 0;
		s->len = PREFETCH;
	}
	memcpy(out, s->buf + s->pos, count * sizeof(*out));
	s->pos += count;
	return 0;
}

const char *engine_name(const struct options *o)
{
	return o->seeded ? "seeded" : o->userspace ? "userspace" : "/dev/dice";
}

void engine_open(const struct options *o)
{
	const char *what = "/dev/dice";
	struct engine *s = &eng;
	int err;

	if (eng_open)
		return;
	memset(s, 0, sizeof(*s));
	if (o->seeded) {
		what = "the seeded engine";
		err = dice_open_seeded(&s->h, o->seed);
	} else if (o->userspace) {
		what = "the userspace engine";
		err = dice_open_flags(&s->h, DICE_OPEN_USERSPACE);
	} else {
		err = dice_open(&s->h);
	}
	if ((err == -ENOENT || err == -ENODEV || err == -ENXIO) && !o->seeded &&
	    !o->userspace)
		die_fail("cannot open /dev/dice: %s (is the dice module loaded? load it with 'sudo modprobe dice', or roll with the userspace engine: dice -u, or DICE_ENGINE=userspace; see dice(1))",
			 strerror(-err));
	if (err && !o->seeded && !o->userspace && dice_open_hint(err))
		die_fail("cannot open /dev/dice: %s (%s; or roll with the userspace engine: dice -u)",
			 strerror(-err), dice_open_hint(err));
	if (err)
		die_fail("cannot open %s: %s", what, strerror(-err));
	if (o->seeded && !o->fair)
		fprintf(stderr, "dice: seeded replay (seed %llu) - not random\n",
			(unsigned long long)o->seed);
	if (o->method_name) {
		err = dice_set_method(s->h, o->method);
		if (err == -EINVAL && o->method == DICE_METHOD_REJECTION &&
		    !dice_is_userspace(s->h))
			die_fail("--method rejection: the baseline runs on the userspace engine only, not /dev/dice (add --userspace)");
		if (err)
			die_fail("--method %s: %s", o->method_name, strerror(-err));
	}
	if (o->mapping) {
		err = dice_set_mapping(s->h, o->mapping);
		if (err)
			die_fail("cannot roll by mapping %u: %s",
				 (unsigned int)o->mapping, strerror(-err));
	}
	s->buf = cli_malloc(PREFETCH * sizeof(*s->buf));
	s->method = o->method_name;
	eng_open = true;
}

void engine_close(void)
{
	if (!eng_open)
		return;
	dice_close(eng.h);
	free(eng.buf);
	eng_open = false;
}
