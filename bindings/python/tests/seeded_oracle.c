// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * seeded_oracle.c - the faces libdice's C seeded engine rolls, for the
 * Python tests to compare the binding with (it shares no Python code):
 *
 *   seeded_oracle SEED COUNT DIE [METHOD]
 *
 * DIE: "d" SIDES, "w" W,W,... (dice_set_weights), or "a" W,W,... (an alias
 * table dice_alias_build() makes from those weights, set with
 * dice_set_alias()); METHOD a name of dice_method_parse().  Prints COUNT
 * faces, one a line, rolled by one dice_roll() call.  Exit 1 on an error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dice.h>

static int fail(const char *what, int err)
{
	fprintf(stderr, "seeded_oracle: %s: %s\n", what, strerror(-err));
	return 1;
}

static uint32_t parse_weights(char *list, uint32_t *weights, uint32_t max)
{
	uint32_t n = 0;
	char *tok;

	for (tok = strtok(list, ","); tok && n < max; tok = strtok(NULL, ","))
		weights[n++] = (uint32_t)strtoul(tok, NULL, 0);
	return n;
}

int main(int argc, char **argv)
{
	static uint32_t weights[4096], aliases[4096];
	static uint64_t thresholds[4096];
	uint64_t seed, count, mass, *faces;
	uint32_t method, n;
	size_t done = 0, i;
	struct dice *d;
	int err;

	if (argc < 4 || argc > 5) {
		fprintf(stderr,
			"usage: seeded_oracle SEED COUNT DIE [METHOD]\n");
		return 2;
	}
	seed = strtoull(argv[1], NULL, 0);
	count = strtoull(argv[2], NULL, 0);
	faces = calloc(count ? count : 1, sizeof(*faces));
	if (!faces)
		return fail("calloc", -ENOMEM);
	err = dice_open_seeded(&d, seed);
	if (err)
		return fail("dice_open_seeded", err);
	switch (argv[3][0]) {
	case 'd':
		err = dice_set_sides(d, strtoull(argv[3] + 1, NULL, 0));
		break;
	case 'w':
		n = parse_weights(argv[3] + 1, weights, 4096);
		err = dice_set_weights(d, weights, n);
		break;
	case 'a':
		n = parse_weights(argv[3] + 1, weights, 4096);
		err = dice_alias_build(weights, n, thresholds, aliases, &mass);
		if (!err)
			err = dice_set_alias(d, thresholds, aliases, n, mass);
		break;
	default:
		err = -EINVAL;
	}
	if (err)
		return fail("the die", err);
	if (argc == 5) {
		err = dice_method_parse(argv[4], &method);
		if (!err)
			err = dice_set_method(d, method);
		if (err)
			return fail("the method", err);
	}
	err = dice_roll(d, faces, count, &done);
	if (err)
		return fail("dice_roll", err);
	for (i = 0; i < done; i++)
		printf("%" PRIu64 "\n", faces[i]);
	dice_close(d);
	free(faces);
	return 0;
}
