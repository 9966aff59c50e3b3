// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * big.c - unsigned big integers for exact dice distributions
 *
 * Schoolbook arithmetic on 64-bit limbs with unsigned __int128 products.
 * The numbers met here are denominators such as 6^1010 (a few thousand
 * bits) and the counts below them, so nothing cleverer is needed.
 */
#include <math.h>
#include <string.h>

#include "big.h"
#include "common.h"

typedef unsigned __int128 u128;


void big_free(struct big *a)
{
	xfree(a->d);
	a->d = NULL;
	a->n = 0;
	a->cap = 0;
}

static void big_reserve(struct big *a, uint32_t cap)
{
	if (a->cap >= cap)
		return;
	if (cap < 2)
		cap = 2;
	if (cap < a->cap * 2)
		cap = a->cap * 2;
	a->d = xrealloc(a->d, cap, sizeof(*a->d));
	a->cap = cap;
}

static void big_trim(struct big *a)
{
	while (a->n && !a->d[a->n - 1])
		a->n--;
}

void big_set_u64(struct big *a, uint64_t v)
{
	if (!v) {
		a->n = 0;
		return;
	}
	big_reserve(a, 1);
	a->d[0] = v;
	a->n = 1;
}

void big_copy(struct big *r, const struct big *a)
{
	if (r == a)
		return;
	big_reserve(r, a->n);
	if (a->n)
		memcpy(r->d, a->d, a->n * sizeof(*a->d));
	r->n = a->n;
}

void big_swap(struct big *a, struct big *b)
{
	struct big t = *a;

	*a = *b;
	*b = t;
}

int big_cmp(const struct big *a, const struct big *b)
{
	uint32_t i;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (i = a->n; i--;) {
		if (a->d[i] != b->d[i])
			return a->d[i] < b->d[i] ? -1 : 1;
	}
	return 0;
}

void big_add(struct big *r, const struct big *a)
{
	uint32_t i, n = r->n > a->n ? r->n : a->n;
	uint64_t carry = 0;

	big_reserve(r, n + 1);
	for (i = r->n; i < n; i++)
		r->d[i] = 0;
	for (i = 0; i < n; i++) {
		u128 s = (u128)r->d[i] + (i < a->n ? a->d[i] : 0) + carry;

		r->d[i] = (uint64_t)s;
		carry = (uint64_t)(s >> 64);
	}
	r->d[n] = carry;
	r->n = n + 1;
	big_trim(r);
}

void big_sub(struct big *r, const struct big *a)
{
	uint32_t i;
	uint64_t borrow = 0;

	for (i = 0; i < r->n; i++) {
		uint64_t x = i < a->n ? a->d[i] : 0;
		u128 s = (u128)r->d[i] - x - borrow;

		r->d[i] = (uint64_t)s;
		borrow = (uint64_t)(s >> 64) ? 1 : 0;
		if (i >= a->n && !borrow)
			break;
	}
	big_trim(r);
}

/* r += a * m, with r's limbs from a->n up already in place. */
static void big_addmul_1(struct big *r, const struct big *a, uint64_t m)
{
	uint64_t carry = 0;
	uint32_t i;

	for (i = 0; i < a->n; i++) {
		u128 p = (u128)a->d[i] * m + r->d[i] + carry;

		r->d[i] = (uint64_t)p;
		carry = (uint64_t)(p >> 64);
	}
	for (; carry; i++) {
		u128 s = (u128)r->d[i] + carry;

		r->d[i] = (uint64_t)s;
		carry = (uint64_t)(s >> 64);
	}
}

void big_addmul(struct big *r, const struct big *a, const struct big *b)
{
	uint32_t i, j, n;

	if (!a->n || !b->n)
		return;
	if (a->n < b->n) {	/* the inner loop runs over the longer one */
		const struct big *t = a;

		a = b;
		b = t;
	}
	n = a->n + b->n;
	if (r->n > n)
		n = r->n;
	big_reserve(r, n + 1);
	for (i = r->n; i <= n; i++)
		r->d[i] = 0;
	notation_work_add((uint64_t)a->n * b->n);
	if (b->n == 1) {
		big_addmul_1(r, a, b->d[0]);
	} else {
		for (j = 0; j < b->n; j++) {
			struct big shifted = { r->d + j, r->n, r->cap };

			big_addmul_1(&shifted, a, b->d[j]);
		}
	}
	r->n = n + 1;
	big_trim(r);
}

void big_mul(struct big *r, const struct big *a, const struct big *b)
{
	r->n = 0;
	big_addmul(r, a, b);
}

void big_addmul_u64(struct big *r, const struct big *a, uint64_t m)
{
	struct big t = { .d = &m, .n = m ? 1 : 0, .cap = 1 };

	big_addmul(r, a, &t);
}

void big_mul_u64(struct big *r, uint64_t m)
{
	uint64_t carry = 0;
	uint32_t i;

	if (!m) {
		r->n = 0;
		return;
	}
	big_reserve(r, r->n + 1);
	for (i = 0; i < r->n; i++) {
		u128 p = (u128)r->d[i] * m + carry;

		r->d[i] = (uint64_t)p;
		carry = (uint64_t)(p >> 64);
	}
	notation_work_add(r->n);
	if (carry)
		r->d[r->n++] = carry;
}

uint64_t big_divmod_u64(struct big *a, uint64_t m)
{
	u128 rem = 0;
	uint32_t i;

	for (i = a->n; i--;) {
		u128 cur = (rem << 64) | a->d[i];

		a->d[i] = (uint64_t)(cur / m);
		rem = cur % m;
	}
	notation_work_add(a->n);
	big_trim(a);
	return (uint64_t)rem;
}

uint64_t big_bits(const struct big *a)
{
	if (!a->n)
		return 0;
	return (uint64_t)(a->n - 1) * 64 + 64 - __builtin_clzll(a->d[a->n - 1]);
}

static int big_bit(const struct big *a, uint64_t i)
{
	return (a->d[i / 64] >> (i % 64)) & 1;
}

static void big_shl1_or(struct big *a, int b)
{
	uint64_t carry = (uint64_t)b;
	uint32_t i;

	big_reserve(a, a->n + 1);
	for (i = 0; i < a->n; i++) {
		uint64_t x = a->d[i];

		a->d[i] = (x << 1) | carry;
		carry = x >> 63;
	}
	if (carry)
		a->d[a->n++] = carry;
}

/* Bit by bit: slow, but only reached for rare reductions by a big gcd. */
void big_divmod(struct big *q, struct big *r, const struct big *a,
		const struct big *b)
{
	struct big rem = { 0 }, quo = { 0 };
	uint64_t i, nb = big_bits(a);

	big_reserve(&quo, a->n ? a->n : 1);
	memset(quo.d, 0, (a->n ? a->n : 1) * sizeof(*quo.d));
	quo.n = a->n;
	for (i = nb; i--;) {
		big_shl1_or(&rem, big_bit(a, i));
		if (big_cmp(&rem, b) >= 0) {
			big_sub(&rem, b);
			quo.d[i / 64] |= 1ULL << (i % 64);
		}
		notation_work_add(rem.n);
	}
	big_trim(&quo);
	if (q)
		big_swap(q, &quo);
	if (r)
		big_swap(r, &rem);
	big_free(&quo);
	big_free(&rem);
}

static uint64_t big_ctz(const struct big *a)
{
	uint32_t i;

	for (i = 0; i < a->n; i++) {
		if (a->d[i])
			return (uint64_t)i * 64 + __builtin_ctzll(a->d[i]);
	}
	return 0;
}

static void big_shr(struct big *a, uint64_t bits)
{
	uint32_t limbs = (uint32_t)(bits / 64), s = bits % 64, i;

	if (limbs >= a->n) {
		a->n = 0;
		return;
	}
	for (i = 0; i + limbs < a->n; i++) {
		uint64_t lo = a->d[i + limbs];
		uint64_t hi = i + limbs + 1 < a->n ? a->d[i + limbs + 1] : 0;

		a->d[i] = s ? (lo >> s) | (hi << (64 - s)) : lo;
	}
	a->n -= limbs;
	big_trim(a);
}

static void big_shl(struct big *a, uint64_t bits)
{
	uint32_t limbs = (uint32_t)(bits / 64), s = bits % 64, i;

	if (!a->n)
		return;
	big_reserve(a, a->n + limbs + 1);
	a->d[a->n + limbs] = 0;
	for (i = a->n; i--;) {
		uint64_t x = a->d[i];

		if (s) {
			a->d[i + limbs + 1] |= x >> (64 - s);
			a->d[i + limbs] = x << s;
		} else {
			a->d[i + limbs] = x;
		}
	}
	for (i = 0; i < limbs; i++)
		a->d[i] = 0;
	a->n += limbs + 1;
	big_trim(a);
}

/* Binary gcd: shifts and subtractions only. */
void big_gcd(struct big *r, const struct big *a, const struct big *b)
{
	struct big x = { 0 }, y = { 0 };
	uint64_t za, zb, k;

	if (!a->n) {
		big_copy(r, b);
		return;
	}
	if (!b->n) {
		big_copy(r, a);
		return;
	}
	big_copy(&x, a);
	big_copy(&y, b);
	za = big_ctz(&x);
	zb = big_ctz(&y);
	k = za < zb ? za : zb;
	big_shr(&x, za);
	big_shr(&y, zb);
	for (;;) {
		int c = big_cmp(&x, &y);

		if (!c)
			break;
		if (c < 0)
			big_swap(&x, &y);
		big_sub(&x, &y);	/* x - y is even and non-zero */
		notation_work_add(x.n);
		big_shr(&x, big_ctz(&x));
	}
	big_shl(&x, k);
	big_swap(r, &x);
	big_free(&x);
	big_free(&y);
}

int big_get_u64(const struct big *a, uint64_t *v)
{
	if (a->n > 1)
		return 0;
	*v = a->n ? a->d[0] : 0;
	return 1;
}

char *big_str(const struct big *a)
{
	struct big t = { 0 };
	size_t len = (size_t)(big_bits(a) / 3) + 2, i = 0, j;
	char *s = xmalloc(len + 20), c;

	big_copy(&t, a);
	do {
		uint64_t chunk = big_divmod_u64(&t, 10000000000000000000ULL);
		int digits;

		for (digits = 0; digits < 19; digits++) {
			s[i++] = '0' + chunk % 10;
			chunk /= 10;
			if (!t.n && !chunk)
				break;
		}
	} while (t.n);
	s[i] = '\0';
	for (j = 0; j < i / 2; j++) {
		c = s[j];
		s[j] = s[i - 1 - j];
		s[i - 1 - j] = c;
	}
	big_free(&t);
	return s;
}

/* Top 64 bits of @a as a long double times 2^*exp. */
static long double big_top(const struct big *a, long *exp)
{
	uint64_t nb = big_bits(a), hi, lo;
	unsigned int s;

	if (nb <= 64) {
		*exp = 0;
		return (long double)(a->n ? a->d[0] : 0);
	}
	s = (unsigned int)((nb - 1) % 64) + 1;	/* bits used in the top limb */
	hi = a->d[a->n - 1];
	lo = a->d[a->n - 2];
	*exp = (long)(nb - 64);
	return (long double)(s == 64 ? hi : (hi << (64 - s)) | (lo >> s));
}

/* log2 @a for @a >= 1; 0 for 0 */
double big_log2(const struct big *a)
{
	long e;
	long double t = big_top(a, &e);

	return t > 0 ? (double)(log2l(t) + (long double)e) : 0;
}

long double big_ratio(const struct big *a, const struct big *b)
{
	long ea, eb;
	long double ta = big_top(a, &ea), tb = big_top(b, &eb);

	if (ta == 0)
		return 0;
	return ldexpl(ta / tb, (int)(ea - eb > 20000 ? 20000 :
				     ea - eb < -20000 ? -20000 : ea - eb));
}
