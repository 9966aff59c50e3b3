// SPDX-License-Identifier: GPL-2.0
/*
 * dicecat - write the rolls of a /dev/dice die to stdout as raw bytes, for
 * ent and dieharder (selftests/quality/quality.sh).
 *
 *   dicecat [-m METHOD] d256|d2 [SIZE]
 *
 * d256: a zero-based d256 in DICE_FMT_U8, one roll per byte, served as read.
 * d2:   a zero-based d2 in DICE_FMT_U8, eight rolls packed into each byte,
 *       the first roll in the most significant bit.
 * SIZE: bytes to write, with an optional suffix K, M, G (powers of 1000) or
 *       KiB, MiB, GiB; 0 or none: write until stdout is closed.
 * METHOD: recycle (default), viglietta, batch or alias.
 *
 * A closed pipe (the reader is done) ends dicecat with exit status 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/dice.h>
#include "method_names.h"

#define CHUNK	65536
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))


static void bad_usage(void)
{
	fprintf(stderr,
		"usage: dicecat [-m recycle|viglietta|batch|alias] d256|d2 [SIZE]\n"
		"  SIZE in bytes, suffix K/M/G or KiB/MiB/GiB; 0 or none: endless\n");
	exit(2);
}

static int parse_size(const char *s, unsigned long long *out)
{
	static const struct {
		const char *suffix;
		unsigned long long mult;
	} units[] = {
		{ "", 1 }, { "K", 1000 }, { "M", 1000000 }, { "G", 1000000000 },
		{ "KiB", 1ULL << 10 }, { "MiB", 1ULL << 20 },
		{ "GiB", 1ULL << 30 },
	};
	unsigned long long v;
	char *end;
	size_t i;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (v > ~0ULL / units[i].mult)
			return -1;
		*out = v * units[i].mult;
		return 0;
	}
	return -1;
}

static int xioctl(int fd, unsigned long cmd, void *arg, const char *what)
{
	if (ioctl(fd, cmd, arg) == 0)
		return 0;
	fprintf(stderr, "dicecat: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void read_full(int fd, unsigned char *buf, size_t len)
{
	while (len) {
		ssize_t r = read(fd, buf, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			fprintf(stderr, "dicecat: read /dev/dice: %s\n",
				r ? strerror(errno) : "end of file");
			exit(1);
		}
		buf += r;
		len -= r;
	}
}

/* write_full() - false when the reader has gone away */
static int write_full(const unsigned char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(STDOUT_FILENO, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EPIPE)
			return 0;
		if (w <= 0) {
			fprintf(stderr, "dicecat: write: %s\n", strerror(errno));
			exit(1);
		}
		buf += w;
		len -= w;
	}
	return 1;
}

int main(int argc, char **argv)
{
	static unsigned char rolls[8 * CHUNK], out[CHUNK];
	unsigned long long left = 0;
	unsigned char bad;
	__u32 method = DICE_METHOD_RECYCLE, fmt = DICE_FMT_U8 | DICE_FMT_ZERO_BASED;
	__u64 sides;
	int endless, packed, fd, opt;

	while ((opt = getopt(argc, argv, "m:")) != -1) {
		size_t i;

		if (opt != 'm')
			bad_usage();
		for (i = 0; i < DICE_METHOD_COUNT; i++)
			if (dice_method_names[i] &&
			    !strcmp(optarg, dice_method_names[i]))
				break;
		if (i == DICE_METHOD_COUNT)
			bad_usage();
		method = i;
	}
	if (argc - optind < 1 || argc - optind > 2)
		bad_usage();
	if (!strcmp(argv[optind], "d256"))
		packed = 0, sides = 256;
	else if (!strcmp(argv[optind], "d2"))
		packed = 1, sides = 2;
	else
		bad_usage();
	if (argc - optind == 2 && parse_size(argv[optind + 1], &left))
		bad_usage();
	endless = !left;

	signal(SIGPIPE, SIG_IGN);
	fd = open("/dev/dice", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "dicecat: /dev/dice: %s\n", strerror(errno));
		return 1;
	}
	xioctl(fd, DICE_IOC_SET_DIE, &(struct dice_die_args){
		.kind = DICE_KIND_FAIR, .sides = sides, .method = method,
		.format = fmt }, "SET_DIE");

	while (endless || left) {
		size_t n = CHUNK, i;

		if (!endless && left < n)
			n = left;
		if (packed) {
			read_full(fd, rolls, 8 * n);
			bad = 0;
			for (i = 0; i < 8 * n; i++)
				bad |= rolls[i];
			if (bad & ~1) {
				fprintf(stderr, "dicecat: d2 rolled a face above 1\n");
				return 1;
			}
			for (i = 0; i < n; i++) {
				const unsigned char *r = rolls + 8 * i;

				out[i] = r[0] << 7 | r[1] << 6 | r[2] << 5 |
					 r[3] << 4 | r[4] << 3 | r[5] << 2 |
					 r[6] << 1 | r[7];
			}
		} else {
			read_full(fd, out, n);
		}
		if (!write_full(out, n))
			break;
		if (!endless)
			left -= n;
	}
	close(fd);
	return 0;
}
