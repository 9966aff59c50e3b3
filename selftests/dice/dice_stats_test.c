// SPDX-License-Identifier: GPL-2.0
/*
 * dice_stats_test.c - statistical tests of fair dice of /dev/dice, from
 * three sides to 2^64 - 1, and proof that the tests can fail
 *
 * The file is organised in sections:
 *
 *  - distributions: p-values of chi-square, normal and Kolmogorov
 *    statistics, checked against reference values (test "reference");
 *  - the battery: eight checks of a sample of faces on [0, n), below;
 *  - fair dice of /dev/dice: every method, sizes chosen where a biased
 *    sampler would show, the battery at p >= 1e-6 per check;
 *  - power: the same battery on userspace samplers with known flaws
 *    (x % n of 64- or 32-bit words, a scaled double, repeated faces) must
 *    fail the check that targets the flaw, and an exact userspace sampler
 *    (the control) must pass them all.  These need no /dev/dice.
 *
 * The battery, for n sides and N faces x on [0, n):
 *
 *  ranges    chi-square over k = min(n, 64) ranges of faces of (almost)
 *            equal size, x * k / n: the high bits.  k = n: face by face.
 *  residues  chi-square over x % 64 (n > 64): the low bits.
 *  pairs     chi-square over consecutive non-overlapping pairs of faces,
 *            each by x * 8 / n (k = min(n, 8)): k * k cells, independence.
 *  bottom    z of the count of faces below n / 1024 (n >= 1024) and
 *  top       of faces at or above n - n / 1024: the ends of the range.
 *  cut64     z of the count of faces below 2^64 mod n: x % n of a uniform
 *            64-bit word gives every such face one more preimage than the
 *            others, e.g. for n = 3 * 2^62 faces below 2^62 come up with
 *            probability 1/2 instead of 1/3.
 *  cut32     the same for 2^32 mod n (n <= 2^32), x % n of 32-bit words;
 *            made only where it differs from cut64.
 *  ks        Kolmogorov-Smirnov distance of the faces' empirical CDF from
 *            the exact discrete uniform CDF, F(x) = (x + 1) / n.
 *
 * Expected counts are exact: a range or residue class holds a known number
 * of faces, computed in 128 bits, so nothing needs n to be divisible by 64.
 * A z check is skipped when N p (1 - p) < 25, where the normal
 * approximation of the binomial stops being good (and where x % n's
 * excess is below any practical power anyway).
 *
 * Every check fails at p < 1e-6 (ALPHA), so a correct die fails a given
 * check about once in a million runs; with about 420 checks a run of this
 * binary fails falsely about once in 2000 runs.  The p-values are computed
 * (regularized incomplete gamma: testlib/chi2.h's chi2_tail(); erfc,
 * Kolmogorov's series); at 1e-6 they
 * amount to these critical values (mpmath; test "reference"):
 *
 *   chi-square, 63 degrees of freedom  131.37
 *   chi-square,  2 degrees of freedom   27.63   (a d3)
 *   |z|, two-sided normal                4.892
 *   Kolmogorov, lambda = sqrt(N) D       2.693   (Stephens' small-sample
 *                                                 correction applied)
 *
 * For a discrete uniform the Kolmogorov p-value is conservative (a fair die
 * fails less often than 1e-6), which costs the small dice a little power;
 * their face-by-face chi-square covers them.
 *
 * ASSERT_*() and EXPECT_*() expand to two statements, so under if, else
 * and for they always go in braces.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <linux/dice.h>

#include "kselftest_harness.h"

#include "dice_common.h"
#include "dice_fixture.h"
#include "../../testlib/chi2.h"

#define U64_MAX_	(~(__u64)0)

/* Per-check false alarm rate of a correct die. */
#define ALPHA		1e-6
/* Smallest N p (1 - p) a z check is made for. */
#define Z_MIN_VAR	25.0

/* ---- distributions ------------------------------------------------------- */

/* chi2_p() - P(X >= @chi2) for X chi-square with @dof degrees of freedom */
static double chi2_p(double chi2, unsigned int dof)
{
	return chi2_tail(chi2, dof);
}

/* z_p() - two-sided normal p-value, P(|Z| >= |z|) */
static double z_p(double z)
{
	return erfc(fabs(z) / sqrt(2.0));
}

/* ks_p() - Kolmogorov's limit law, P(K >= @lambda) */
static double ks_p(double lambda)
{
	double sum = 0, term;
	int j;

	if (lambda < 0.2)
		return 1;
	for (j = 1; j <= 100; j++) {
		term = exp(-2.0 * j * j * lambda * lambda);
		sum += (j & 1) ? term : -term;
		if (term < 1e-17)
			break;
	}
	sum *= 2;
	return sum < 0 ? 0 : sum > 1 ? 1 : sum;
}

/* Reference values from mpmath (30 digits), and the critical values. */
TEST(reference)
{
	static const struct {
		double stat;
		unsigned int dof;
		double p;
	} chi[] = {
		{ 100.0, 63, 0.002077236553 },
		{ 129.0, 63, 1.90455975e-6 },
		{ 131.37, 63, 1.0e-6 },
		{ 30.0, 2, 3.059023205e-7 },
		{ 300.0, 255, 0.02772752205 },
		{ 377.078, 255, 1.0e-6 },
		{ 27.631, 2, 1.0e-6 },
		{ 23.9281, 1, 1.0e-6 },
	};
	static const struct {
		double lambda, p;
	} ks[] = {
		{ 0.5, 0.9639452437 },
		{ 1.0, 0.2699996717 },
		{ 1.5, 0.02221796262 },
		{ 2.0, 0.0006709252558 },
		{ 2.69339, 1.0e-6 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(chi); i++) {
		double p = chi2_p(chi[i].stat, chi[i].dof);

		EXPECT_GT(1e-4, fabs(p - chi[i].p) / chi[i].p)
			TH_LOG("chi2 %.4f, %u dof: p %.10g, want %.10g",
			       chi[i].stat, chi[i].dof, p, chi[i].p);
	}
	for (i = 0; i < ARRAY_SIZE(ks); i++) {
		double p = ks_p(ks[i].lambda);

		EXPECT_GT(1e-4, fabs(p - ks[i].p) / ks[i].p)
			TH_LOG("ks %.5f: p %.10g, want %.10g",
			       ks[i].lambda, p, ks[i].p);
	}
	EXPECT_GT(1e-4, fabs(z_p(4.89164) - 1e-6) / 1e-6);
	EXPECT_GT(1e-4, fabs(z_p(-4.89164) - 1e-6) / 1e-6);
}

/* ---- the battery --------------------------------------------------------- */

enum {
	CK_RANGES, CK_RESIDUES, CK_PAIRS, CK_BOTTOM, CK_TOP, CK_CUT64,
	CK_CUT32, CK_KS, CK_COUNT
};

static const char *const check_names[CK_COUNT] = {
	"ranges", "residues", "pairs", "bottom", "top", "cut64", "cut32", "ks",
};

/**
 * struct check - the outcome of one check
 * @done: made (else skipped: it does not apply to this n or N)
 * @p: p-value
 * @text: the statistic, for the log
 */
struct check {
	int done;
	double p;
	char text[80];
};

struct battery {
	__u64 sides;
	size_t rolls;
	struct check ck[CK_COUNT];
};

static unsigned int range_of(__u64 x, __u64 n, unsigned int k)
{
	return (__uint128_t)x * k / n;
}

/* chi_check() - chi-square of @cells counts @obs of @total, probs @prob */
static void chi_check(struct check *c, const __u64 *obs,
		      const double *prob, unsigned int cells, double total)
{
	double chi2 = 0;
	unsigned int i;

	for (i = 0; i < cells; i++) {
		double e = total * prob[i], d = obs[i] - e;

		chi2 += d * d / e;
	}
	c->done = 1;
	c->p = chi2_p(chi2, cells - 1);
	snprintf(c->text, sizeof(c->text), "chi2 %.1f/%u", chi2, cells - 1);
}

/* z_check() - @count of @total faces fell where each falls with @p */
static void z_check(struct check *c, size_t count, size_t total, double p)
{
	double var = total * p * (1 - p), z;

	if (var < Z_MIN_VAR)
		return;
	z = (count - total * p) / sqrt(var);
	c->done = 1;
	c->p = z_p(z);
	snprintf(c->text, sizeof(c->text), "%.6f want %.6f z %+.2f",
		 (double)count / total, p, z);
}

/* radix_sort() - sort @x (16 bits a pass), @tmp is as large as @x */
static void radix_sort(__u64 *x, __u64 *tmp, size_t len)
{
	static size_t count[65536];
	unsigned int shift;
	size_t i, sum;

	for (shift = 0; shift < 64; shift += 16) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < len; i++)
			count[(x[i] >> shift) & 0xffff]++;
		sum = 0;
		for (i = 0; i < 65536; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < len; i++)
			tmp[count[(x[i] >> shift) & 0xffff]++] = x[i];
		memcpy(x, tmp, len * sizeof(*x));
	}
}

/*
 * ks_check() - D = sup |F_N - F| with F(x) = (x + 1) / n.  Between two
 * observed faces F_N is flat, F grows, so the supremum is reached just
 * below or at an observed face: |i/N - x/n| or |j/N - (x+1)/n| where
 * i, j are the numbers of faces below x and at most x.  @x is sorted.
 */
static void ks_check(struct check *c, const __u64 *x, size_t len, __u64 n)
{
	double d = 0, big_n = len, lambda, below, upto;
	size_t i = 0, j;

	while (i < len) {
		for (j = i; j < len && x[j] == x[i]; j++)
			;
		below = fabs(i / big_n - (double)x[i] / (double)n);
		upto = fabs(j / big_n - ((double)x[i] + 1) / (double)n);
		if (below > d)
			d = below;
		if (upto > d)
			d = upto;
		i = j;
	}
	lambda = (sqrt(big_n) + 0.12 + 0.11 / sqrt(big_n)) * d;
	c->done = 1;
	c->p = ks_p(lambda);
	snprintf(c->text, sizeof(c->text), "D %.5f lambda %.3f", d, lambda);
}

/* pow2_mod() - 2^@k mod @n, for k <= 64 */
static __u64 pow2_mod(unsigned int k, __u64 n)
{
	return ((__uint128_t)1 << k) % n;
}

/*
 * run_battery() - all checks of @len faces @x of a d@n; sorts @x.
 * Returns -1 when a face is out of range (nothing else is then checked).
 */
static int run_battery(struct battery *bt, __u64 *x, size_t len, __u64 n)
{
	unsigned int k = n < 64 ? n : 64, kp = n < 8 ? n : 8, b, a;
	__u64 ranges[64] = { 0 }, residues[64] = { 0 }, pairs[64] = { 0 };
	double prob[64];
	__u64 tail = n >> 10, cut;
	size_t bottom = 0, top = 0, below64 = 0, below32 = 0, i;
	__u64 cut64 = pow2_mod(64, n), cut32 = n > POW2(32) ? 0 : pow2_mod(32, n);
	__u64 *tmp;

	memset(bt, 0, sizeof(*bt));
	bt->sides = n;
	bt->rolls = len;
	for (i = 0; i < len; i++) {
		if (x[i] >= n)
			return -1;
		ranges[range_of(x[i], n, k)]++;
		residues[x[i] % 64]++;
		if (i & 1)
			pairs[range_of(x[i - 1], n, kp) * kp +
			      range_of(x[i], n, kp)]++;
		bottom += x[i] < tail;
		top += x[i] >= n - tail;
		below64 += x[i] < cut64;
		below32 += x[i] < cut32;
	}

	for (b = 0; b < k; b++)
		prob[b] = (double)range_size(n, k, b) / (double)n;
	chi_check(&bt->ck[CK_RANGES], ranges, prob, k, len);
	if (n > 64) {
		for (b = 0; b < 64; b++)
			prob[b] = (double)residue_size(n, 64, b) / (double)n;
		chi_check(&bt->ck[CK_RESIDUES], residues, prob, 64, len);
	}
	for (a = 0; a < kp; a++)
		for (b = 0; b < kp; b++)
			prob[a * kp + b] = (double)range_size(n, kp, a) *
					   (double)range_size(n, kp, b) /
					   ((double)n * (double)n);
	chi_check(&bt->ck[CK_PAIRS], pairs, prob, kp * kp, len / 2);
	if (tail) {
		z_check(&bt->ck[CK_BOTTOM], bottom, len, (double)tail / n);
		z_check(&bt->ck[CK_TOP], top, len, (double)tail / n);
	}
	cut = cut64;
	if (cut)
		z_check(&bt->ck[CK_CUT64], below64, len, (double)cut / n);
	cut = cut32;
	if (cut && cut != cut64)
		z_check(&bt->ck[CK_CUT32], below32, len, (double)cut / n);

	tmp = malloc(len * sizeof(*tmp));
	if (!tmp)
		return -1;
	radix_sort(x, tmp, len);
	free(tmp);
	ks_check(&bt->ck[CK_KS], x, len, n);
	return 0;
}

static void log_battery(struct __test_metadata *_metadata,
			const struct battery *bt, const char *what)
{
	int i;

	for (i = 0; i < CK_COUNT; i++) {
		const struct check *c = &bt->ck[i];

		if (!c->done)
			continue;
		TH_LOG("%s d%llu N=%zu %-8s p=%-9.3g %s%s", what, bt->sides,
		       bt->rolls, check_names[i], c->p, c->text,
		       c->p < ALPHA ? "  <-- FAILS" : "");
	}
}

/* ---- sizes --------------------------------------------------------------- */

/*
 * Dice whose faces a flawed sampler would get wrong, and at what N:
 *  3 * 2^30, 3 * 2^62   x % n of 32/64-bit words: 1/2 for 1/3 below 2^30/2^62
 *  2^31 + 1, 2^63 + 1   plain rejection's worst case (half the tries
 *                       rejected).  x % n of 32/64-bit words is harmless
 *                       there: it halves only the two top faces.
 *  2^64 - 2^54          x % n doubles the bottom 1/1024
 *  10^18 + 9            x % n: 19/18 on faces below 0.4467 n
 *  10^9 + 7             x % n of 32-bit words: 5/4 below 0.295 n
 *  2^53 + 1             the end of exact doubles
 *  2^64 - 1             the largest die
 */
#define D3X2P30		(3 * POW2(30))
#define D3X2P62		(3 * POW2(62))
#define DTOPBIAS	(U64_MAX_ - POW2(54) + 1)
#define D1E18P9		1000000000000000009ULL
#define D1E9P7		1000000007ULL

/* ---- fair dice of /dev/dice ---------------------------------------------- */

DIE_FIXTURE(fair, O_RDONLY)

/*
 * @sides: n; @method: DICE_METHOD_*; @rolls: N.  One case per die reads
 * N faces zero-based in U64 and runs the battery.  ROLLS_MANY for the dice
 * where x % n would show, so that a smaller bias shows too.
 */
#define ROLLS		200000
#define ROLLS_MANY	1000000

FIXTURE_VARIANT(fair) {
	__u64 sides;
	__u32 method;
	size_t rolls;
};

/* The default method over the whole range of sizes. */
#define RECYCLE(name, n, r)						\
	VARIANT(fair, recycle_##name, .sides = (n),			\
		.method = DICE_METHOD_RECYCLE, .rolls = (r))

RECYCLE(d3, 3, ROLLS);
RECYCLE(d5, 5, ROLLS);
RECYCLE(d7, 7, ROLLS);
RECYCLE(d10, 10, ROLLS);
RECYCLE(d12, 12, ROLLS);
RECYCLE(d100, 100, ROLLS);
RECYCLE(d1000, 1000, ROLLS);
RECYCLE(d2p16_plus_1, POW2(16) + 1, ROLLS);
RECYCLE(d1e6_plus_3, 1000003, ROLLS);
RECYCLE(d1e9_plus_7, D1E9P7, ROLLS);
RECYCLE(d2p31_minus_1, POW2(31) - 1, ROLLS);
RECYCLE(d2p31_plus_1, POW2(31) + 1, ROLLS_MANY);
RECYCLE(d3x2p30, D3X2P30, ROLLS_MANY);
RECYCLE(d2p32_minus_1, POW2(32) - 1, ROLLS);
RECYCLE(d2p32_plus_1, POW2(32) + 1, ROLLS);
RECYCLE(d1e12_plus_39, 1000000000039ULL, ROLLS);
RECYCLE(d2p53_plus_1, POW2(53) + 1, ROLLS);
RECYCLE(d2p62_plus_1, POW2(62) + 1, ROLLS);
RECYCLE(d3x2p62, D3X2P62, ROLLS_MANY);
RECYCLE(d2p63, POW2(63), ROLLS);
RECYCLE(d2p63_plus_1, POW2(63) + 1, ROLLS_MANY);
RECYCLE(d1e18_plus_9, D1E18P9, ROLLS_MANY);
RECYCLE(d2p64_minus_2p54, DTOPBIAS, ROLLS_MANY);
RECYCLE(d2p64_minus_1, U64_MAX_, ROLLS_MANY);

/* The other methods, each on the dice where a flaw would show. */
#define FLAW_DICE(m, meth)						\
	VARIANT(fair, m##_d6, .sides = 6, .method = meth, .rolls = ROLLS); \
	VARIANT(fair, m##_d3x2p30, .sides = D3X2P30, .method = meth,	\
		.rolls = ROLLS);					\
	VARIANT(fair, m##_d2p31_plus_1, .sides = POW2(31) + 1,		\
		.method = meth, .rolls = ROLLS);			\
	VARIANT(fair, m##_d3x2p62, .sides = D3X2P62, .method = meth,	\
		.rolls = ROLLS);					\
	VARIANT(fair, m##_d2p63_plus_1, .sides = POW2(63) + 1,		\
		.method = meth, .rolls = ROLLS);			\
	VARIANT(fair, m##_d1e18_plus_9, .sides = D1E18P9, .method = meth, \
		.rolls = ROLLS);					\
	VARIANT(fair, m##_d2p64_minus_1, .sides = U64_MAX_, .method = meth, \
		.rolls = ROLLS)

FLAW_DICE(viglietta, DICE_METHOD_VIGLIETTA);
FLAW_DICE(batch, DICE_METHOD_BATCH);
FLAW_DICE(alias, DICE_METHOD_ALIAS);

static void read_faces(struct __test_metadata *_metadata, int fd, __u64 *x,
		       size_t len)
{
	unsigned char *p = (unsigned char *)x;
	size_t left = len * sizeof(*x);

	while (left) {
		ssize_t r = read(fd, p, left > 65536 ? 65536 : left);

		ASSERT_LT(0, r) TH_LOG("read: %s", r ? strerror(errno) : "EOF");
		ASSERT_EQ(0, r % 8) TH_LOG("read %zd bytes: half a roll", r);
		p += r;
		left -= r;
	}
}

TEST_F_TIMEOUT(fair, battery, 300)
{
	struct dice_die_args die = {
		.kind = DICE_KIND_FAIR,
		.sides = variant->sides,
		.method = variant->method,
		.format = DICE_FMT_U64 | DICE_FMT_ZERO_BASED,
	};
	__u64 n = variant->sides;
	struct battery bt;
	struct timespec t0, t1;
	__u64 *x;
	int i;

	REQUIRE_DIE(self->fd);
	ASSERT_EQ(0, set_die(self->fd, &die)) TH_LOG("SET_DIE: %s",
						      strerror(errno));

	x = malloc(variant->rolls * sizeof(*x));
	ASSERT_NE(NULL, x);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	read_faces(_metadata, self->fd, x, variant->rolls);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_EQ(0, run_battery(&bt, x, variant->rolls, n))
		TH_LOG("d%llu: a face out of range (or no memory)", n);
	free(x);
	TH_LOG("d%llu: %zu rolls read in %.2f s", n, variant->rolls,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	log_battery(_metadata, &bt, "fair");
	for (i = 0; i < CK_COUNT; i++) {
		if (!bt.ck[i].done)
			continue;
		EXPECT_LE(ALPHA, bt.ck[i].p)
			TH_LOG("d%llu: %s fails, p %.3g < %g: %s", n,
			       check_names[i], bt.ck[i].p, ALPHA,
			       bt.ck[i].text);
	}
}

/* ---- power: flawed userspace samplers must fail -------------------------- */

/* Random 64-bit words from getrandom(), buffered. */
struct words {
	__u64 buf[4096];
	unsigned int pos;
};

static __u64 next_word(struct words *w)
{
	if (w->pos == 0 || w->pos == ARRAY_SIZE(w->buf)) {
		unsigned char *p = (unsigned char *)w->buf;
		size_t left = sizeof(w->buf);

		while (left) {
			ssize_t r = getrandom(p, left, 0);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				abort();
			p += r;
			left -= r;
		}
		w->pos = 0;
	}
	return w->buf[w->pos++];
}

enum sampler {
	EXACT,		/* Lemire's multiply-and-reject: exactly uniform */
	MOD64,		/* x % n, x a uniform 64-bit word */
	MOD32,		/* x % n, x a uniform 32-bit word (n < 2^32) */
	MOD63,		/* x % n, x a uniform 63-bit word */
	SCALED,		/* floor(u * n), u a double with 53 random bits */
	REPEAT,		/* exact, but every face twice in a row */
};

static __u64 sample(struct words *w, enum sampler s, __u64 n, size_t i,
		    __u64 prev)
{
	__uint128_t m;
	__u64 x;

	if (s == REPEAT && (i & 1))
		return prev;
	switch (s) {
	case MOD64:
		return next_word(w) % n;
	case MOD32:
		return (next_word(w) >> 32) % n;
	case MOD63:
		return (next_word(w) >> 1) % n;
	case SCALED:
		x = (__u64)((next_word(w) >> 11) * 0x1p-53 * (double)n);
		return x < n ? x : n - 1;
	case REPEAT:	/* odd i: see above */
	case EXACT:
	default:
		/* Lemire 2019: reject the 2^64 mod n lowest products. */
		for (;;) {
			m = (__uint128_t)next_word(w) * n;
			if ((__u64)m >= (-n) % n)
				return m >> 64;
		}
	}
}

static void sample_many(enum sampler s, __u64 n, __u64 *x, size_t len)
{
	struct words *w = calloc(1, sizeof(*w));
	size_t i;

	if (!w)
		abort();
	for (i = 0; i < len; i++)
		x[i] = sample(w, s, n, i, i ? x[i - 1] : 0);
	free(w);
}

FIXTURE(power) {
	int unused;
};

/*
 * @sampler and @sides: the flawed die; @must_fail: the check made to catch
 * this flaw, which must fail (p < ALPHA); 0 with EXACT: every check must pass.
 */
FIXTURE_VARIANT(power) {
	enum sampler sampler;
	__u64 sides;
	size_t rolls;
	unsigned int must_fail;
	unsigned int also_fail;		/* bit mask of further checks */
};

#define BIT_(c)	(1U << (c))

/* x % n of 64-bit words, n = 3 * 2^62: faces below 2^62 with p 1/2. */
FIXTURE_VARIANT_ADD(power, mod64_d3x2p62) {
	.sampler = MOD64, .sides = D3X2P62, .rolls = 100000,
	.must_fail = CK_CUT64,
	.also_fail = BIT_(CK_RANGES) | BIT_(CK_KS) | BIT_(CK_PAIRS),
};

/* ... n = 2^64 - 2^54: the bottom 1/1024 twice as likely. */
FIXTURE_VARIANT_ADD(power, mod64_d2p64_minus_2p54) {
	.sampler = MOD64, .sides = DTOPBIAS, .rolls = 200000,
	.must_fail = CK_BOTTOM, .also_fail = BIT_(CK_CUT64),
};

/* ... n = 10^18 + 9: faces below 0.4467 n weigh 19/18. */
FIXTURE_VARIANT_ADD(power, mod64_d1e18_plus_9) {
	.sampler = MOD64, .sides = D1E18P9, .rolls = 200000,
	.must_fail = CK_CUT64, .also_fail = BIT_(CK_KS),
};

/*
 * x % n of 32-bit words, n = 3 * 2^30: faces below 2^30 with p 1/2.  Here
 * 2^64 mod n = 2^32 mod n, so the cut is cut64's.
 */
FIXTURE_VARIANT_ADD(power, mod32_d3x2p30) {
	.sampler = MOD32, .sides = D3X2P30, .rolls = 100000,
	.must_fail = CK_CUT64, .also_fail = BIT_(CK_RANGES) | BIT_(CK_KS),
};

/* ... n = 10^9 + 7: faces below 0.295 n weigh 5/4. */
FIXTURE_VARIANT_ADD(power, mod32_d1e9_plus_7) {
	.sampler = MOD32, .sides = D1E9P7, .rolls = 100000,
	.must_fail = CK_CUT32, .also_fail = BIT_(CK_KS),
};

/*
 * x % n of 63-bit words (a source that gives 63 bits, like random() gives
 * 31), n = 3 * 2^62: no face in the top third.
 */
FIXTURE_VARIANT_ADD(power, mod63_d3x2p62) {
	.sampler = MOD63, .sides = D3X2P62, .rolls = 100000,
	.must_fail = CK_TOP, .also_fail = BIT_(CK_RANGES) | BIT_(CK_KS),
};

/* A scaled double, n = 2^64 - 1: low bits all set (x = k 2^11 - 1). */
FIXTURE_VARIANT_ADD(power, scaled_d2p64_minus_1) {
	.sampler = SCALED, .sides = U64_MAX_, .rolls = 100000,
	.must_fail = CK_RESIDUES,
};

/* Every face twice: uniform faces, dependent pairs. */
FIXTURE_VARIANT_ADD(power, repeat_d6) {
	.sampler = REPEAT, .sides = 6, .rolls = 100000,
	.must_fail = CK_PAIRS,
};

FIXTURE_VARIANT_ADD(power, repeat_d2p64_minus_1) {
	.sampler = REPEAT, .sides = U64_MAX_, .rolls = 100000,
	.must_fail = CK_PAIRS,
};

FIXTURE_SETUP(power)
{
}

FIXTURE_TEARDOWN(power)
{
}

TEST_F(power, flaw_is_caught)
{
	struct battery bt;
	unsigned int i;
	__u64 *x;

	x = malloc(variant->rolls * sizeof(*x));
	ASSERT_NE(NULL, x);
	sample_many(variant->sampler, variant->sides, x, variant->rolls);
	ASSERT_EQ(0, run_battery(&bt, x, variant->rolls, variant->sides));
	free(x);
	log_battery(_metadata, &bt, "flawed");
	ASSERT_TRUE(bt.ck[variant->must_fail].done)
		TH_LOG("check %s was not made", check_names[variant->must_fail]);
	EXPECT_GT(ALPHA, bt.ck[variant->must_fail].p)
		TH_LOG("check %s missed the flaw: p %.3g",
		       check_names[variant->must_fail],
		       bt.ck[variant->must_fail].p);
	for (i = 0; i < CK_COUNT; i++) {
		if (!(variant->also_fail & BIT_(i)))
			continue;
		EXPECT_GT(ALPHA, bt.ck[i].p)
			TH_LOG("check %s missed the flaw: p %.3g",
			       check_names[i], bt.ck[i].p);
	}
}

/*
 * The control: an exact userspace sampler passes the battery on every size
 * the device is tested at, so the expected counts are right.
 */
FIXTURE(control) {
	int unused;
};

FIXTURE_VARIANT(control) {
	__u64 sides;
};

VARIANT(control, d3, .sides = 3);
VARIANT(control, d6, .sides = 6);
VARIANT(control, d7, .sides = 7);
VARIANT(control, d12, .sides = 12);
VARIANT(control, d100, .sides = 100);
VARIANT(control, d1000, .sides = 1000);
VARIANT(control, d2p16_plus_1, .sides = POW2(16) + 1);
VARIANT(control, d1e9_plus_7, .sides = D1E9P7);
VARIANT(control, d2p31_plus_1, .sides = POW2(31) + 1);
VARIANT(control, d3x2p30, .sides = D3X2P30);
VARIANT(control, d2p32_plus_1, .sides = POW2(32) + 1);
VARIANT(control, d2p53_plus_1, .sides = POW2(53) + 1);
VARIANT(control, d3x2p62, .sides = D3X2P62);
VARIANT(control, d2p63_plus_1, .sides = POW2(63) + 1);
VARIANT(control, d1e18_plus_9, .sides = D1E18P9);
VARIANT(control, d2p64_minus_2p54, .sides = DTOPBIAS);
VARIANT(control, d2p64_minus_1, .sides = U64_MAX_);

FIXTURE_SETUP(control)
{
}

FIXTURE_TEARDOWN(control)
{
}

TEST_F_TIMEOUT(control, exact_sampler_passes, 120)
{
	const size_t rolls = 100000;
	__u64 n = variant->sides;
	struct battery bt;
	__u64 *x;
	int i;

	x = malloc(rolls * sizeof(*x));
	ASSERT_NE(NULL, x);
	sample_many(EXACT, n, x, rolls);
	ASSERT_EQ(0, run_battery(&bt, x, rolls, n));
	free(x);
	log_battery(_metadata, &bt, "exact");
	for (i = 0; i < CK_COUNT; i++) {
		if (!bt.ck[i].done)
			continue;
		EXPECT_LE(ALPHA, bt.ck[i].p)
			TH_LOG("exact d%llu: %s fails, p %.3g: %s", n,
			       check_names[i], bt.ck[i].p, bt.ck[i].text);
	}
}

TEST_HARNESS_MAIN
