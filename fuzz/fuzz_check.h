/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_check.h - the fuzz targets' assertion: print where and why, then
 * abort so libFuzzer keeps the input as a crash.
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

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

#endif /* FUZZ_CHECK_H */
