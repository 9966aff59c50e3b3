// SPDX-License-Identifier: GPL-2.0
/*
 * fair.c - rolls anyone can verify: commit, roll, reveal, verify
 *
 * The commit-reveal scheme of provably-fair online games:
 *
 *   dice --commit LOG            draws a 32-byte secret seed from the
 *                                engine (/dev/dice, or -u), keeps it in
 *                                LOG.seed, starts LOG with the commitment
 *                                to it and the log's version, and prints
 *                                both
 *   dice --player-seed TEXT --log LOG
 *                                records the players' seed (before any roll:
 *                                then neither side chooses the rolls alone)
 *   dice --log LOG EXPR...       rolls each expression and appends it to LOG
 *   dice --reveal LOG            appends the secret seed to LOG
 *   dice --verify LOG            checks the commitment and every roll
 *
 * Roll n of a game is rolled by libdice's seeded engine (a ChaCha20
 * keystream, the same exact samplers as every other roll) whose 64-bit seed
 * is the first 8 bytes, little-endian, of
 *
 *   SHA-256("dice-fair-1" 0x00 secret-seed player-seed 0x00 n expression)
 *
 * with n as 8 bytes little-endian, and whose mapping of bits to faces
 * (dice_set_mapping(3)) is the log's version's: version 1, the logs written
 * before there were mappings, rolls by mapping 1; versions 2 and 3 by
 * mapping 2 (mapping 3, which came later, is no version's: new games stay
 * version 3).  The mappings differ only on rolls of some large loaded dice.
 * The commitment is SHA-256(secret seed) in versions 1 and 2, and from
 * version 3 on, what --commit writes now,
 *
 *   SHA-256("dice-fair-commit" 0x00 version 0x00 secret-seed)
 *
 * with the version in decimal and the seed's 32 bytes (not their hex), so
 * that the version line is bound: a game whose version line was changed
 * no longer matches its commitment, and a game has one history that
 * verifies, not one per mapping.
 * --log and --verify take a game by its version, and refuse a version this
 * build does not know.  LOG is JSON Lines, one line each:
 *
 *   {"dice":"commit","version":3,"commitment":"<64 hex>"}
 *   {"player_seed":"..."}
 *   {"counter":0,"expression":"3d6","faces":[4,1,6],"total":11,
 *    "check":"<16 hex>"}
 *
 * (one line), the check being the first 8 bytes of SHA-256(secret seed,
 * the line up to the check).
 *   {"reveal":"<64 hex>","rolls":1}
 *
 * --verify writes the whole log again from the revealed seed and the
 * expressions in it and compares them byte for byte, so that a change of
 * any byte of the log, of the seed or of the commitment is reported.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dice.h>
#include <sodium.h>

#include "cli.h"

#define FAIR_SEED	32
/* A SHA-256 in hex, and its end */
#define FAIR_HEX_HASH	(2 * crypto_hash_sha256_BYTES + 1)
#define FAIR_TAG	"dice-fair-1"
#define FAIR_COMMIT_TAG	"dice-fair-commit"
/* The version --commit writes; the versions this build takes, for errors. */
#define FAIR_VERSION	3
#define FAIR_VERSIONS	"1, 2 and 3"
/* The first version whose commitment binds the version. */
#define FAIR_BOUND	3
/* fair_version() reads one digit. */
_Static_assert(FAIR_VERSION >= 1 && FAIR_VERSION <= 9, "one-digit versions");
#define FAIR_HEAD	"{\"dice\":\"commit\",\"version\":"

static int __attribute__((format(printf, 1, 2))) fair_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("dice: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static void fair_hex(const unsigned char *b, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static int fair_unhex(const char *s, unsigned char *b, size_t n)
{
	size_t i;

	if (strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned int v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1 ||
		    !strchr("0123456789abcdef", s[2 * i]) ||
		    !strchr("0123456789abcdef", s[2 * i + 1]))
			return -1;
		b[i] = (unsigned char)v;
	}
	return 0;
}

/* ---- a growing text buffer, for lines as they are written -------------- */

struct fair_buf {
	char *s;
	size_t n, cap;
};

static void __attribute__((format(printf, 2, 3)))
fair_put(struct fair_buf *b, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (b->n + (size_t)len + 1 > b->cap) {
		b->cap = (b->n + (size_t)len + 1) * 2;
		b->s = cli_realloc(b->s, b->cap, 1);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, (size_t)len + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)len;
}

/* A JSON string, as json_string() writes it, into @b. */
static void fair_json_string(struct fair_buf *b, const char *s)
{
	fair_put(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fair_put(b, "\\%c", c);
		else if (c < 0x20)
			fair_put(b, "\\u%04x", c);
		else
			fair_put(b, "%c", c);
	}
	fair_put(b, "\"");
}

/* The JSON string that starts at *@p (on its '"'), unescaped; NULL if bad. */
static char *fair_json_read(const char **p)
{
	const char *s = *p;
	struct fair_buf b = { 0 };

	if (*s++ != '"')
		return NULL;
	fair_put(&b, "%s", "");
	while (*s && *s != '"') {
		if (*s == '\\') {
			unsigned int u;

			s++;
			if (*s == 'u' && sscanf(s + 1, "%4x", &u) == 1 && u < 0x80 &&
			    u) {
				fair_put(&b, "%c", (char)u);
				s += 5;
				continue;
			}
			if (*s != '"' && *s != '\\') {
				free(b.s);
				return NULL;
			}
		}
		fair_put(&b, "%c", *s++);
	}
	if (*s != '"') {
		free(b.s);
		return NULL;
	}
	*p = s + 1;
	return b.s;
}

/* ---- the game ------------------------------------------------------------ */

struct fair_game {
	unsigned int version;	/* of the log: its rolls' mapping */
	unsigned char seed[FAIR_SEED];
	bool have_seed;
	char commitment[FAIR_HEX_HASH];
	char *player;		/* NULL: none recorded */
	uint64_t rolls;		/* roll lines so far */
	bool revealed;
};

/*
 * A version's mapping of bits to faces.  Each version keeps its own for
 * good, whatever libdice's latest, or its logs would no longer verify.
 */
static uint32_t fair_mapping(unsigned int version)
{
	return version == 1 ? DICE_MAPPING_1 : DICE_MAPPING_2;
}

/*
 * The version of a commitment line @line of @log into *@version: 0; 1, said,
 * for a version this build does not know; -1 (nothing said) for a line
 * that does not start as a commitment does.
 */
static int fair_version(const char *log, const char *line,
			unsigned int *version)
{
	const char *p = line + sizeof(FAIR_HEAD) - 1;
	size_t digits;

	if (strncmp(line, FAIR_HEAD, sizeof(FAIR_HEAD) - 1))
		return -1;
	digits = strspn(p, "0123456789");
	if (!digits || p[digits] != ',')
		return -1;
	if (digits == 1 && *p >= '1' && *p <= '0' + FAIR_VERSION) {
		*version = (unsigned int)(*p - '0');
		return 0;
	}
	return fair_error("%s: a game log of version %.*s: this dice knows "
			  "versions " FAIR_VERSIONS, log,
			  digits > 20 ? 20 : (int)digits, p);
}

/* The commitment of @g's seed in @g's version, in hex (see the top). */
static void fair_commitment(const struct fair_game *g, char *hex)
{
	unsigned char h[crypto_hash_sha256_BYTES], zero = 0;
	crypto_hash_sha256_state st;
	char version[12];

	if (g->version < FAIR_BOUND) {
		crypto_hash_sha256(h, g->seed, FAIR_SEED);
		fair_hex(h, sizeof(h), hex);
		return;
	}
	snprintf(version, sizeof(version), "%u", g->version);
	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, (const unsigned char *)FAIR_COMMIT_TAG,
				  sizeof(FAIR_COMMIT_TAG) - 1);
	crypto_hash_sha256_update(&st, &zero, 1);
	crypto_hash_sha256_update(&st, (const unsigned char *)version,
				  strlen(version));
	crypto_hash_sha256_update(&st, &zero, 1);
	crypto_hash_sha256_update(&st, g->seed, FAIR_SEED);
	crypto_hash_sha256_final(&st, h);
	fair_hex(h, sizeof(h), hex);
}

/*
 * The commitment of a line 1 that starts as a commitment line does
 * (@line, its version's one digit read), into @hex: 0, or -1.
 */
static int fair_head_hex(const char *line, char *hex)
{
	if (sscanf(line + sizeof(FAIR_HEAD), ",\"commitment\":\"%64[0-9a-f]\"}",
		   hex) != 1 || strlen(hex) != 64)
		return -1;
	return 0;
}

static uint64_t fair_roll_seed(const struct fair_game *g, uint64_t n,
			       const char *expr)
{
	crypto_hash_sha256_state st;
	unsigned char h[crypto_hash_sha256_BYTES], le[8], zero = 0;
	uint64_t s = 0;
	int i;

	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, (const unsigned char *)FAIR_TAG,
				  sizeof(FAIR_TAG) - 1);
	crypto_hash_sha256_update(&st, &zero, 1);
	crypto_hash_sha256_update(&st, g->seed, FAIR_SEED);
	if (g->player)
		crypto_hash_sha256_update(&st, (const unsigned char *)g->player,
					  strlen(g->player));
	crypto_hash_sha256_update(&st, &zero, 1);
	for (i = 0; i < 8; i++)
		le[i] = (unsigned char)(n >> (8 * i));
	crypto_hash_sha256_update(&st, le, 8);
	crypto_hash_sha256_update(&st, (const unsigned char *)expr, strlen(expr));
	crypto_hash_sha256_final(&st, h);
	for (i = 7; i >= 0; i--)
		s = s << 8 | h[i];
	return s;
}

/*
 * Roll @text as roll @n of @g into the log line @line (without its
 * newline); *@rp keeps the roll for printing, and *@ep the expression it
 * refers to.  0, or 1 with the reason said.
 */
static int fair_roll(const struct fair_game *g, uint64_t n, const char *text,
		     struct fair_buf *line, struct dice_expr **ep,
		     struct dice_result **rp)
{
	struct options eo = {
		.seeded = true,
		.fair = true,
		.mapping = fair_mapping(g->version),
	};
	struct dice_notation_error err;
	struct dice_notation *ctx;
	struct dice_result *r;
	struct dice_expr *e;
	char buf[DICE_VALUE_STRLEN];
	unsigned int i;
	size_t j;
	bool first = true;
	int ret;

	ret = dice_notation_new(&ctx);	/* the defaults: no dialect, no dW */
	if (ret)
		return fair_error("cannot read %s: %s", text, strerror(-ret));
	ret = dice_expr_parse(ctx, text, &e, &err);
	if (ret == -EINVAL) {
		dice_notation_free(ctx);
		return fair_error("%s: %s (column %zu)", text, err.message,
				  err.offset + 1);
	}
	if (ret) {
		dice_notation_free(ctx);
		return fair_error("cannot read %s: %s", text, strerror(-ret));
	}
	if (dice_expr_repeat(e) != 1 || dice_expr_flags(e) & DICE_EXPR_CUSTOM) {
		dice_expr_free(e);
		dice_notation_free(ctx);
		return fair_error("%s: a logged roll is one expression without a repeat or dW",
				  text);
	}
	eo.seed = fair_roll_seed(g, n, dice_expr_text(e));
	engine_open(&eo);
	ret = dice_expr_roll_source(ctx, e, engine_roll, &eng, 0, &r);
	engine_close();
	dice_notation_free(ctx);
	if (ret) {
		dice_expr_free(e);
		return fair_error("%s: the roll failed (%s)", text, strerror(-ret));
	}
	fair_put(line, "{\"counter\":%llu,\"expression\":", (unsigned long long)n);
	fair_json_string(line, dice_expr_text(e));
	fair_put(line, ",\"faces\":[");
	for (i = 0; i < dice_result_ngroups(r); i++) {
		for (j = 0; !dice_result_face_str(r, i, j, buf, sizeof(buf)); j++) {
			fair_put(line, "%s%s", first ? "" : ",", buf);
			first = false;
		}
	}
	dice_result_total_str(r, buf, sizeof(buf));
	fair_put(line, "],\"total\":%s", buf);

	{
		/*
		 * A check bound to the secret seed and the whole line: another
		 * expression that happens to roll the same faces (d30 for d20)
		 * still changes it.
		 */
		unsigned char h[crypto_hash_sha256_BYTES];
		char hex[FAIR_HEX_HASH];
		crypto_hash_sha256_state st;

		crypto_hash_sha256_init(&st);
		crypto_hash_sha256_update(&st, g->seed, FAIR_SEED);
		crypto_hash_sha256_update(&st, (const unsigned char *)line->s,
					  line->n);
		crypto_hash_sha256_final(&st, h);
		fair_hex(h, 8, hex);
		fair_put(line, ",\"check\":\"%s\"}", hex);
	}
	*ep = e;
	*rp = r;
	return 0;
}

/* ---- the log --------------------------------------------------------------- */

static char *fair_seed_path(const char *log)
{
	struct fair_buf b = { 0 };

	fair_put(&b, "%s.seed", log);
	return b.s;
}

static char *fair_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct fair_buf b = { 0 };
	char chunk[4096];
	size_t n;

	if (!f)
		return NULL;
	fair_put(&b, "%s", "");
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fair_put(&b, "%.*s", (int)n, chunk);
	fclose(f);
	*len = b.n;
	return b.s;
}

static int fair_append(const char *log, const char *line)
{
	FILE *f = fopen(log, "a");

	if (!f || fprintf(f, "%s\n", line) < 0 || fclose(f))
		return fair_error("cannot write %s: %s", log, strerror(errno));
	return 0;
}

/*
 * Read the game of @log: its commitment, player seed, rolls so far and
 * whether it is revealed; the secret seed from LOG.seed when @want_seed.
 */
static int fair_load(const char *log, struct fair_game *g, bool want_seed)
{
	size_t len;
	char *text = fair_read_file(log, &len), *line, *save = NULL;
	char chex[FAIR_HEX_HASH];
	unsigned int no = 0;

	memset(g, 0, sizeof(*g));
	if (!text)
		return fair_error("cannot read %s: %s", log, strerror(errno));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *p;

		no++;
		if (no == 1) {
			int known = fair_version(log, line, &g->version);

			if (known > 0) {
				free(text);
				return 1;
			}
			if (known || fair_head_hex(line, g->commitment)) {
				free(text);
				return fair_error("%s: line 1 is not a commitment", log);
			}
		} else if (!strncmp(line, "{\"player_seed\":", 15)) {
			p = line + 15;
			free(g->player);
			g->player = fair_json_read(&p);
		} else if (!strncmp(line, "{\"counter\":", 11)) {
			g->rolls++;
		} else if (!strncmp(line, "{\"reveal\":", 10)) {
			g->revealed = true;
		}
	}
	free(text);
	if (want_seed) {
		char *path = fair_seed_path(log), *s = fair_read_file(path, &len);

		if (s && len > 2 * FAIR_SEED)
			s[2 * FAIR_SEED] = '\0';	/* the line end */
		if (!s || len < 2 * FAIR_SEED ||
		    fair_unhex(s, g->seed, FAIR_SEED)) {
			fair_error("cannot read the secret seed from %s", path);
			free(path);
			free(s);
			return 1;
		}
		g->have_seed = true;
		free(path);
		free(s);
		/* The wrong seed file would only show at --verify. */
		fair_commitment(g, chex);
		if (strcmp(chex, g->commitment))
			return fair_error("%s: the secret seed in %s.seed is not the one the log commits to",
					  log, log);
	}
	return 0;
}

static int fair_commit(const char *log, bool userspace)
{
	struct options eo = { .userspace = userspace };
	char hex[2 * FAIR_SEED + 1], chex[FAIR_HEX_HASH];
	struct fair_game g = { 0 };
	uint64_t faces[FAIR_SEED];
	struct fair_buf line = { 0 };
	char *path = fair_seed_path(log);
	int fd, i, ret;

	/* the secret: 32 bytes as 32 faces of a d256 from the engine */
	engine_open(&eo);
	ret = engine_roll(&eng, 256, NULL, faces, FAIR_SEED);
	engine_close();
	if (ret)
		return fair_error("cannot draw a seed: %s", strerror(-ret));
	for (i = 0; i < FAIR_SEED; i++)
		g.seed[i] = (unsigned char)(faces[i] - 1);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return fair_error("cannot create %s: %s", path, strerror(errno));
	fair_hex(g.seed, FAIR_SEED, hex);
	if (dprintf(fd, "%s\n", hex) < 0 || close(fd))
		return fair_error("cannot write %s: %s", path, strerror(errno));
	g.version = FAIR_VERSION;
	fair_commitment(&g, chex);
	fd = open(log, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return fair_error("cannot create %s: %s", log, strerror(errno));
	close(fd);
	fair_put(&line, FAIR_HEAD "%u,\"commitment\":\"%s\"}", g.version,
		 chex);
	ret = fair_append(log, line.s);
	/* Publish both: the version is part of what the players hold. */
	if (!ret)
		printf("commitment: %s\nversion: %u\n", chex, g.version);
	sodium_memzero(g.seed, sizeof(g.seed));
	sodium_memzero(hex, sizeof(hex));
	free(line.s);
	free(path);
	return ret;
}

static int fair_player(const char *log, const char *player)
{
	struct fair_game g;
	struct fair_buf line = { 0 };
	int ret = fair_load(log, &g, false);

	if (ret)
		return ret;
	if (g.player || g.rolls || g.revealed)
		ret = fair_error("%s: the players' seed goes in once, before any roll",
				 log);
	if (!ret) {
		fair_put(&line, "{\"player_seed\":");
		fair_json_string(&line, player);
		fair_put(&line, "}");
		ret = fair_append(log, line.s);
	}
	free(line.s);
	free(g.player);
	return ret;
}

static int fair_log(const char *log, char **exprs, int n, bool json)
{
	struct fair_game g;
	int ret = fair_load(log, &g, true), i;

	if (!ret && g.revealed)
		ret = fair_error("%s: the seed is revealed: the game is over", log);
	for (i = 0; !ret && i < n; i++) {
		struct fair_buf line = { 0 };
		struct dice_result *r;
		struct dice_expr *e;

		ret = fair_roll(&g, g.rolls, exprs[i], &line, &e, &r);
		if (ret)
			break;
		ret = fair_append(log, line.s);
		if (!ret && json) {
			puts(line.s);
		} else if (!ret) {	/* the number, for the players to see */
			printf("#%llu ", (unsigned long long)g.rolls);
			print_roll(r, DICE_TEXT_TOTAL);
		}
		g.rolls++;
		dice_result_free(r);
		dice_expr_free(e);
		free(line.s);
	}
	sodium_memzero(g.seed, sizeof(g.seed));
	free(g.player);
	return ret;
}

static int fair_reveal(const char *log)
{
	struct fair_game g;
	struct fair_buf line = { 0 };
	char hex[2 * FAIR_SEED + 1];
	int ret = fair_load(log, &g, true);

	if (!ret && g.revealed)
		ret = fair_error("%s: the seed is revealed already", log);
	if (!ret) {
		fair_hex(g.seed, FAIR_SEED, hex);
		fair_put(&line, "{\"reveal\":\"%s\",\"rolls\":%llu}", hex,
			 (unsigned long long)g.rolls);
		ret = fair_append(log, line.s);
		if (!ret)
			printf("seed: %s\n", hex);
	}
	free(line.s);
	free(g.player);
	return ret;
}

/*
 * Say why line 1 of @log does not verify: no commitment line at all
 * (@head < 0: fair_version() found none), or a commitment that is not that
 * of the revealed seed in the line's @version.
 */
static void fair_head_error(const char *log, const char *line, int head,
			    unsigned int version)
{
	char hex[FAIR_HEX_HASH];

	if (head < 0 || fair_head_hex(line, hex))
		fair_error("%s: line 1 does not verify (it is not a commitment line)",
			   log);
	else if (version < FAIR_BOUND)
		fair_error("%s: line 1 does not verify (the commitment is not the SHA-256 of the revealed seed)",
			   log);
	else
		fair_error("%s: line 1 does not verify (the commitment is not that of the revealed seed in version %u)",
			   log, version);
}

/* Write @log again from its revealed seed and compare, line by line. */
static int fair_verify(const char *log)
{
	size_t len;
	char *text = fair_read_file(log, &len), *p, *nl;
	struct fair_game g = { 0 };
	struct fair_buf want = { 0 };
	char chex[FAIR_HEX_HASH];
	unsigned int no = 0, bad = 0;
	const char *rv;
	int head;

	if (!text)
		return fair_error("cannot read %s: %s", log, strerror(errno));
	if (!len || text[len - 1] != '\n') {
		free(text);
		return fair_error("%s: not a game log (it must end with a line end)", log);
	}
	/*
	 * The version says how to roll every line: a version this build does
	 * not know is refused before anything.  A line 1 that is no
	 * commitment does not verify, and the rolls are checked as new logs.
	 */
	g.version = FAIR_VERSION;
	head = fair_version(log, text, &g.version);
	if (head > 0) {
		free(text);
		return 1;
	}
	/* the seed comes last: find it first */
	rv = strstr(text, "\n{\"reveal\":\"");
	if (!rv) {
		free(text);
		return fair_error("%s: no revealed seed: run dice --reveal %s after the game",
				  log, log);
	}
	{
		char hex[2 * FAIR_SEED + 1] = { 0 };

		strncpy(hex, rv + 12, 2 * FAIR_SEED);
		if (fair_unhex(hex, g.seed, FAIR_SEED)) {
			free(text);
			return fair_error("%s: the revealed seed is not 64 hex digits", log);
		}
	}
	fair_commitment(&g, chex);
	for (p = text; *p; p = nl + 1) {
		char *line;

		nl = strchr(p, '\n');
		*nl = '\0';
		line = p;
		no++;
		want.n = 0;
		if (no == 1) {
			fair_put(&want, FAIR_HEAD "%u,\"commitment\":\"%s\"}",
				 g.version, chex);
		} else if (no == 2 && !strncmp(line, "{\"player_seed\":", 15)) {
			const char *q = line + 15;

			g.player = fair_json_read(&q);
			if (!g.player) {
				bad++;
				fair_error("%s: line %u: not a players' seed", log, no);
				continue;
			}
			fair_put(&want, "{\"player_seed\":");
			fair_json_string(&want, g.player);
			fair_put(&want, "}");
		} else if (!strncmp(line, "{\"counter\":", 11)) {
			const char *q = strstr(line, ",\"expression\":");
			struct dice_result *r;
			struct dice_expr *e;
			char *ex;

			if (!q || !(q += 14, ex = fair_json_read(&q))) {
				bad++;
				fair_error("%s: line %u: not a roll", log, no);
				continue;
			}
			if (fair_roll(&g, g.rolls, ex, &want, &e, &r)) {
				bad++;
				free(ex);
				continue;
			}
			g.rolls++;
			dice_result_free(r);
			dice_expr_free(e);
			free(ex);
		} else if (!strncmp(line, "{\"reveal\":", 10) && !nl[1]) {
			char hex[2 * FAIR_SEED + 1];

			fair_hex(g.seed, FAIR_SEED, hex);
			fair_put(&want, "{\"reveal\":\"%s\",\"rolls\":%llu}", hex,
				 (unsigned long long)g.rolls);
		} else {
			fair_put(&want, "(a line that is no part of a game)");
		}
		if (!want.s || strcmp(want.s, line)) {
			bad++;
			if (no == 1)
				fair_head_error(log, line, head, g.version);
			else
				fair_error("%s: line %u does not verify", log,
					   no);
		}
	}
	if (!bad)
		printf("verified: %s: commitment %s, %llu rolls%s, version %u%s\n",
		       log, chex, (unsigned long long)g.rolls,
		       g.player ? ", with the players' seed" : "", g.version,
		       g.version < FAIR_BOUND ?
		       " (its commitment does not cover the version)" : "");
	free(want.s);
	free(g.player);
	free(text);
	return bad ? 1 : 0;
}

int fair_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "commit", required_argument, NULL, 'C' },
		{ "log", required_argument, NULL, 'L' },
		{ "reveal", required_argument, NULL, 'R' },
		{ "verify", required_argument, NULL, 'Y' },
		{ "player-seed", required_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ "userspace", no_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env = getenv("DICE_ENGINE"), *log = NULL, *player = NULL;
	bool json = false, userspace = env && !strcmp(env, "userspace");
	int c, verb = 0, ret;

	if (sodium_init() < 0)
		return fair_error("cannot start libsodium");
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+ju", opts, NULL)) != -1) {
		switch (c) {
		case 'C':
		case 'L':
		case 'R':
		case 'Y':
			if (verb && verb != c) {
				fair_error("--commit, --log, --reveal and --verify go one at a time");
				return 2;
			}
			verb = c;
			log = optarg;
			break;
		case 'P':
			player = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'u':
			userspace = true;
			break;
		default:
			fair_error("%s: not an option of --commit, --log, --reveal or --verify (they take --player-seed, --json, -u)",
				   argv[optind - 1]);
			return 2;
		}
	}
	if (player && verb != 'L') {
		fair_error("--player-seed goes with --log LOG");
		return 2;
	}
	if (verb == 'L' && !player && optind >= argc) {
		fair_error("--log LOG needs expressions to roll (or --player-seed)");
		return 2;
	}
	if (verb != 'L' && optind < argc) {
		fair_error("unexpected '%s'", argv[optind]);
		return 2;
	}
	switch (verb) {
	case 'C':
		ret = fair_commit(log, userspace);
		break;
	case 'L':
		ret = player ? fair_player(log, player) : 0;
		if (!ret && optind < argc)
			ret = fair_log(log, argv + optind, argc - optind, json);
		break;
	case 'R':
		ret = fair_reveal(log);
		break;
	default:
		ret = fair_verify(log);
		break;
	}
	if (fflush(stdout) || ferror(stdout))
		ret = fair_error("cannot write output: %s", strerror(errno));
	return ret;
}
