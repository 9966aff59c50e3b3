/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * big.h - just enough unsigned big integers for exact dice distributions
 *
 * A value is an array of 64-bit limbs, least significant first, with no
 * zero limb at the top (n == 0 is zero).  A zero-filled struct big is a
 * valid zero.  Allocation failure unwinds to the current call (xmalloc,
 * common.h); the limb products go to its work counter, which bounds
 * distributions.
 */
#ifndef _DICE_NOTATION_BIG_H
#define _DICE_NOTATION_BIG_H

#include <stdint.h>

struct big {
	uint64_t *d;
	uint32_t n;
	uint32_t cap;
};

void big_free(struct big *a);
void big_set_u64(struct big *a, uint64_t v);
void big_copy(struct big *r, const struct big *a);
void big_swap(struct big *a, struct big *b);
static inline int big_is_zero(const struct big *a)
{
	return a->n == 0;
}
int big_cmp(const struct big *a, const struct big *b);
/* r += a */
void big_add(struct big *r, const struct big *a);
/* r -= a; requires r >= a */
void big_sub(struct big *r, const struct big *a);
/* r += a * b; r must not alias a or b */
void big_addmul(struct big *r, const struct big *a, const struct big *b);
/* r = a * b; r must not alias a or b */
void big_mul(struct big *r, const struct big *a, const struct big *b);
/* r *= m */
void big_mul_u64(struct big *r, uint64_t m);
/* r += a * m */
void big_addmul_u64(struct big *r, const struct big *a, uint64_t m);
/* a /= m, returns the remainder; m != 0 */
uint64_t big_divmod_u64(struct big *a, uint64_t m);
/* q = a / b, r = a % b (either may be NULL); b != 0; no aliasing */
void big_divmod(struct big *q, struct big *r, const struct big *a,
		const struct big *b);
/* r = gcd(a, b); gcd(0, b) = b */
void big_gcd(struct big *r, const struct big *a, const struct big *b);
/* Number of significant bits. */
uint64_t big_bits(const struct big *a);
/* Fits in 64 bits? Then *v gets it. */
int big_get_u64(const struct big *a, uint64_t *v);
/* Decimal text, malloc()ed. */
char *big_str(const struct big *a);
/* a / b as a long double, without overflow for huge operands; b != 0. */
long double big_ratio(const struct big *a, const struct big *b);
double big_log2(const struct big *a);

#endif /* _DICE_NOTATION_BIG_H */
