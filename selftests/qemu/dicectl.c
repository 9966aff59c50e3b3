// SPDX-License-Identifier: GPL-2.0
/*
 * dicectl - the smallest ioctl client of /dev/dice, for the demo VM
 *
 *   dicectl rolls SIDES COUNT   roll COUNT d-SIDES as U64, report bits spent
 *   dicectl od SIDES COUNT      write COUNT zero-based U8 rolls to stdout
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/dice.h>

static int open_die(__u64 sides, __u32 format)
{
	struct dice_die_args die = {
		.kind = DICE_KIND_FAIR,
		.sides = sides,
		.format = format,
	};
	int fd = open("/dev/dice", O_RDONLY);

	if (fd < 0 || ioctl(fd, DICE_IOC_SET_DIE, &die)) {
		fprintf(stderr, "dicectl: /dev/dice: %s\n", strerror(errno));
		exit(1);
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct dice_die_stats st;
	__u64 sides, count, done = 0;
	unsigned char buf[65536];
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: dicectl rolls|od SIDES COUNT\n");
		return 2;
	}
	sides = strtoull(argv[2], NULL, 0);
	count = strtoull(argv[3], NULL, 0);
	if (!strcmp(argv[1], "od")) {
		fd = open_die(sides, DICE_FMT_U8 | DICE_FMT_ZERO_BASED);
		if (count > sizeof(buf) || read(fd, buf, count) != (ssize_t)count)
			return 1;
		return write(1, buf, count) == (ssize_t)count ? 0 : 1;
	}
	fd = open_die(sides, DICE_FMT_U64);
	while (done < count) {
		size_t want = (count - done) * 8;
		ssize_t got;

		if (want > sizeof(buf))
			want = sizeof(buf);
		got = read(fd, buf, want);
		if (got <= 0)
			return 1;
		done += got / 8;
	}
	if (ioctl(fd, DICE_IOC_GET_STATS, &st))
		return 1;
	printf("d%llu: %llu rolls, %llu bits used: %.6f bits a roll, log2 n = %.6f\n",
	       (unsigned long long)sides, (unsigned long long)st.rolls,
	       (unsigned long long)st.bits_used,
	       (double)st.bits_used / (double)st.rolls, log2((double)sides));
	return 0;
}
