// SPDX-License-Identifier: GPL-2.0
/*
 * written_bits.c - what the documentation says of written bits, checked
 * against the userspace engine (the module's core, built into libdice):
 * the read/write example of Documentation/userspace-api/dice.rst, and the
 * bytes each method needs for the first roll of a die, as dice_write_bits(3)
 * tabulates them.  cli.sh builds it against the tree through
 * libdice-uninstalled.pc, which checks that file too.
 *
 * Prints "name value" lines for cli.sh to compare; exit 1 if libdice
 * fails in a way the lines cannot show.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <dice.h>	/* and through it the uapi, <libdice/uapi.h> */

/*
 * Bytes written, one at a time, before the first roll of a fresh die of
 * @sides (or loaded with @w) comes out; the bytes are all zero, which no
 * method rejects.  -1 if the method cannot roll that die.
 */
static int first_roll(uint32_t method, uint64_t sides, const uint32_t *w,
		      uint32_t nw)
{
	struct dice *d;
	uint64_t face;
	uint8_t zero = 0;
	int n, err;

	if (dice_open_flags(&d, DICE_OPEN_USERSPACE))
		return -2;
	err = w ? dice_set_weights(d, w, nw) : dice_set_sides(d, sides);
	if (!err)
		err = dice_set_method(d, method);
	if (!err)
		err = dice_set_source(d, DICE_SRC_WRITTEN);
	for (n = 0; !err && n < 4096; n++) {
		err = dice_roll(d, &face, 1, NULL);
		if (err != -EAGAIN)
			break;
		err = dice_write_bits(d, &zero, 1) == 1 ? 0 : -EIO;
	}
	dice_close(d);
	return err ? -1 : n;
}

int main(void)
{
	static const uint64_t sides[] = { 6, 20, 100, 4294967297ULL };
	static const uint32_t w[] = { 1, 2, 3 };
	uint8_t buf[4000], zero[8] = { 0 };
	struct dice *d;
	unsigned int m, i;

	/* dice.rst, "Written bits" */
	if (dice_open_flags(&d, DICE_OPEN_USERSPACE) ||
	    dice_set_sides(d, 6) || dice_set_format(d, DICE_FMT_U8) ||
	    dice_set_source(d, DICE_SRC_WRITTEN))
		return 1;
	printf("fresh-read %ld\n", dice_read(d, buf, 4));
	printf("write-7 %ld\n", dice_write_bits(d, zero, 7));
	printf("read-after-7 %ld\n", dice_read(d, buf, 4));
	printf("write-1 %ld\n", dice_write_bits(d, zero, 1));
	printf("read-4-after-8 %ld\n", dice_read(d, buf, 4));
	memset(buf, 0x5a, sizeof(buf));
	printf("write-4000 %ld\n", dice_write_bits(d, buf, sizeof(buf)));
	printf("write-more %ld\n", dice_write_bits(d, buf, 1));
	dice_close(d);

	/* dice_write_bits(3), "Bits a first roll needs" */
	for (m = 0; dice_method_name(m); m++) {
		printf("first-roll %s", dice_method_name(m));
		for (i = 0; i < sizeof(sides) / sizeof(sides[0]); i++)
			printf(" d%llu:%d", (unsigned long long)sides[i],
			       first_roll(m, sides[i], NULL, 0));
		printf(" loaded:%d\n", first_roll(m, 0, w, 3));
	}
	return 0;
}
