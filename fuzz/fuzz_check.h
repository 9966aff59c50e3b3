/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_check.h - what the fuzz targets share: the assertion (print where
 * and why, then abort so libFuzzer keeps the input as a crash) and a
 * cursor over the input.
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__,	\
			#cond);						\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		abort();						\
	}								\
} while (0)

/* A cursor over the input: reads past the end give zeros. */
struct in {
	const uint8_t *p;
	size_t len;
	size_t pos;
};

/* The next @bytes bytes of the input, little-endian. */
static inline uint64_t get(struct in *in, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++, in->pos++)
		if (in->pos < in->len)
			v |= (uint64_t)in->p[in->pos] << (8 * i);
	return v;
}

#endif /* FUZZ_CHECK_H */
