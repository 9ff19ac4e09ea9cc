/*
 * test_escape.c - fmt_escape/fmt_unescape against tests/golden/escape.txt,
 * plus round trips of every byte and of random byte strings.
 *
 * Inputs and outputs sit right before a PROT_NONE page (as picohttpparser's
 * tests do), so reading past the input or writing past cap crashes.
 * Run from the repo root (prove does), or set FP_GOLDEN to the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "rnd.h"
#include "tap.h"
#include "../../formatter/formatter.h"

#define AREA 16384 /* bytes usable before each guard page */

struct guarded {
	char *base;  /* start of the mapping */
	char *limit; /* first byte of the PROT_NONE page */
};

static int guard_init(struct guarded *g)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t data = (AREA + pg - 1) / pg * pg;
	char *p = mmap(NULL, data + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || mprotect(p + data, pg, PROT_NONE) != 0)
		return -1;
	g->base = p;
	g->limit = p + data;
	return 0;
}

/* n bytes of src placed so they end exactly at the guard page. */
static const char *guarded_copy(struct guarded *g, const char *src, size_t n)
{
	char *p = g->limit - n;
	if (n)
		memcpy(p, src, n);
	return p;
}

static struct guarded gin, gout, gback;

/* Escape src (placed against a guard page) into a buffer of exactly the
 * needed size + 1, also against a guard page. @return the output. */
static const char *escape_guarded(const char *src, size_t n, size_t *outlen)
{
	const char *in = guarded_copy(&gin, src, n);
	size_t need = fmt_escape(in, n, NULL, 0);
	char *dst = gout.limit - (need + 1);
	size_t got;

	if (need + 1 > AREA) {
		*outlen = 0;
		return "(too long)";
	}
	got = fmt_escape(in, n, dst, need + 1);
	*outlen = got;
	return got == need ? dst : "(length changed)";
}

/* unescape(s) against guard pages; @return length or -1, *out the bytes. */
static long unescape_guarded(const char *s, size_t n, const char **out)
{
	const char *in = guarded_copy(&gin, s, n);
	long need = fmt_unescape(in, n, NULL, 0);
	char *dst;

	if (need < 0)
		return need;
	dst = gback.limit - (need + 1);
	*out = dst;
	return fmt_unescape(in, n, dst, (size_t)need + 1);
}

static int upper_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
}

/* Every symbol obeys the reader rules (doc/output-format.md) by itself. */
static int symbol_is_safe(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x21 || c == 0x7f || strchr("+();>[]\"'\\", c))
			return 0;
		if (c == '%' && (i + 2 >= n || !upper_hex(s[i + 1]) || !upper_hex(s[i + 2])))
			return 0;
	}
	return 1;
}

static int round_trips(const char *src, size_t n)
{
	size_t elen;
	const char *e = escape_guarded(src, n, &elen);
	const char *back = NULL;
	long blen;

	if (!symbol_is_safe(e, elen))
		return 0;
	/* copy e away: unescape_guarded reuses the input area */
	static char ecopy[AREA];
	memcpy(ecopy, e, elen);
	blen = unescape_guarded(ecopy, elen, &back);
	return blen == (long)n && (n == 0 || memcmp(back, src, n) == 0);
}

/* ==== Golden data ==== */

static int hexdigit(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* Decodes the C escapes of the golden file's atom text. @return length, -1 if bad. */
static long decode_c(const char *s, size_t n, char *out)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (s[i] != '\\') {
			out[o++] = s[i];
			continue;
		}
		if (++i >= n)
			return -1;
		switch (s[i]) {
		case 't': out[o++] = '\t'; break;
		case 'n': out[o++] = '\n'; break;
		case 'r': out[o++] = '\r'; break;
		case '\\': out[o++] = '\\'; break;
		case 'x':
			if (i + 2 >= n || hexdigit(s[i + 1]) < 0 || hexdigit(s[i + 2]) < 0)
				return -1;
			out[o++] = (char)(hexdigit(s[i + 1]) << 4 | hexdigit(s[i + 2]));
			i += 2;
			break;
		default:
			return -1;
		}
	}
	return (long)o;
}

static void test_golden(void)
{
	const char *path = getenv("FP_GOLDEN") ? getenv("FP_GOLDEN") : "tests/golden/escape.txt";
	FILE *fp = fopen(path, "r");
	static char line[4096], raw[4096], why[4096];
	int lineno = 0, pairs = 0;

	if (!ok(fp != NULL, "open %s", path))
		return;
	why[0] = '\0';
	while (fgets(line, sizeof line, fp)) {
		size_t len = strcspn(line, "\n");
		char *tab;
		long rawlen;
		size_t elen;
		const char *e;

		lineno++;
		line[len] = '\0';
		if (line[0] == '#') {
			snprintf(why, sizeof why, "%s", line + 1 + (line[1] == ' '));
			continue;
		}
		if (len == 0)
			continue;
		tab = strchr(line, '\t');
		if (!ok(tab != NULL, "line %d has a tab", lineno))
			continue;
		rawlen = decode_c(line, (size_t)(tab - line), raw);
		if (!ok(rawlen >= 0, "line %d: atom text decodes", lineno))
			continue;
		pairs++;
		e = escape_guarded(raw, (size_t)rawlen, &elen);
		{
			static char got[AREA];
			memcpy(got, e, elen);
			got[elen] = '\0';
			is_str(got, tab + 1, "escape: %s", why);
		}
		ok(round_trips(raw, (size_t)rawlen), "round trip: %s", why);
		if (!why[0])
			ok(0, "line %d: pair without a comment saying why", lineno);
		why[0] = '\0';
	}
	fclose(fp);
	ok(pairs >= 40, "%d golden pairs", pairs);
}

/* ==== Properties ==== */

static void test_every_byte(void)
{
	int c, good = 1, kept = 0;

	for (c = 0; c < 256; c++) {
		char b = (char)c;
		size_t elen;
		const char *e = escape_guarded(&b, 1, &elen);
		int plain = c > 0x20 && c < 0x7f && !strchr("%+();>[]\"'\\", c);
		if (plain != (elen == 1))
			good = 0;
		kept += elen == 1;
		if (!plain && (elen != 3 || e[0] != '%'))
			good = 0;
		if (!round_trips(&b, 1))
			good = 0;
	}
	ok(good, "each single byte: kept iff printable ASCII outside the escape set");
	is_int(kept, 94 - 11, "83 bytes pass alone");
}

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next(void)
{
	return xorshift64(&rng);
}

static void test_random(void)
{
	static const char *pieces[] = { "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x94\xa5", "%",
					"%2", "->", "\xc2\xa0", "\xed\xa0", "a", ":", "/1" };
	static char s[1024];
	int i, good = 1, good_utf8 = 1;

	for (i = 0; i < 20000; i++) {
		size_t n = next() % 600, k;
		for (k = 0; k < n; k++)
			s[k] = (char)(next() & 0xff);
		if (!round_trips(s, n))
			good = 0;
	}
	ok(good, "20000 random byte strings round-trip and escape safely");
	for (i = 0; i < 20000; i++) {
		size_t n = 0;
		while (n < 500) {
			const char *p = pieces[next() % (sizeof pieces / sizeof *pieces)];
			memcpy(s + n, p, strlen(p));
			n += strlen(p);
			if (next() % 8 == 0)
				break;
		}
		if (!round_trips(s, n))
			good_utf8 = 0;
	}
	ok(good_utf8, "20000 random UTF-8-ish strings round-trip");
}

static void test_unescape(void)
{
	const char *out = NULL;
	char small[4];

	is_int(unescape_guarded("%", 1, &out), -1, "%s at the end is malformed", "'%'");
	is_int(unescape_guarded("%4", 2, &out), -1, "%s at the end is malformed", "'%4'");
	is_int(unescape_guarded("a%G0", 4, &out), -1, "%s is malformed", "'%G0'");
	is_int(unescape_guarded("%0g", 3, &out), -1, "%s is malformed", "'%0g'");
	is_int(unescape_guarded("%2b", 3, &out), 1, "lowercase hex is accepted");
	ok(out && out[0] == '+', "and decoded");
	is_int(unescape_guarded("", 0, &out), 0, "empty");
	is_int(fmt_unescape("a%20b%20c", 9, small, sizeof small), 5, "too small: the whole length");
	ok(memcmp(small, "a b ", 4) == 0, "and only cap bytes written");
	is_int(fmt_unescape("a%00b", 5, small, sizeof small), 3, "%s gives a NUL byte", "%00");
	ok(memcmp(small, "a\0b", 4) == 0, "NUL-terminated after it");
}

static void test_escape_contract(void)
{
	/* cap == length: all of cap may be used but nothing past it */
	size_t need = fmt_escape("a b", 3, NULL, 0);
	char *dst = gout.limit - need;
	is_int(fmt_escape("a b", 3, dst, need), need, "cap == length: returns the length");
	ok(memcmp(dst, "a%20b", need) == 0, "the text without NUL");
	dst = gout.limit - 2;
	is_int(fmt_escape("a b", 3, dst, 2), need, "cap 2: returns the length");
	is_int(fmt_escape(NULL, 0, NULL, 0), 0, "NULL, 0: length 0");
}

int main(void)
{
	if (guard_init(&gin) || guard_init(&gout) || guard_init(&gback)) {
		printf("Bail out! cannot map guard pages\n");
		return 1;
	}
	subtest("golden pairs (tests/golden/escape.txt)", test_golden);
	subtest("every byte", test_every_byte);
	subtest("random strings", test_random);
	subtest("unescape", test_unescape);
	subtest("snprintf contract", test_escape_contract);
	return done_testing();
}
