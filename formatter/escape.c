/*
 * escape.c - the reversible symbol escape (doc/output-format.md, "Escaping").
 *
 * Atoms can hold any byte. Every perf-script reader we target splits lines on
 * characters an atom may contain (doc/output-format.md, "Reader rules and
 * where they are met"): Flamescope cuts a symbol at its first '+' and
 * splits it on "->", stackcollapse-perf.pl joins frames with
 * ';', drops symbols starting with '(' and deletes quotes, speedscope wants a
 * dso without whitespace (JavaScript's \s, which includes Unicode spaces),
 * and every reader is line based. So a byte that could matter becomes %XX
 * (uppercase hex), '%' included, which makes the scheme reversible; valid
 * UTF-8 that is neither a control nor a space passes through unchanged.
 */
#include "internal.h"

static const char hex[] = "0123456789ABCDEF";

/* ASCII bytes escaped in every field; bytes < 0x21 and 0x7f are too. */
static int ascii_unsafe(unsigned char c, unsigned extra)
{
	if (c < 0x21 || c == 0x7f)
		return 1;
	switch (c) {
	case '%':  /* the escape character itself */
	case '+':  /* Flamescope cuts the symbol at the first '+' */
	case '>':  /* Flamescope splits on "->" (inlined frames) */
	case '(':  /* frame regexes end at " (dso)"; stackcollapse drops "(..." */
	case ')':
	case ';':  /* stackcollapse's frame separator */
	case '[':  /* keeps "[unknown]", "[category]", "[no_stack]", "[ran_to_receive]" ours alone */
	case ']':
	case '"':  /* stackcollapse-perf.pl deletes quotes */
	case '\'':
	case '\\': /* the golden data's escape character; no reader needs it raw */
		return 1;
	case ':':
		return (extra & FMT_ESC_COLON) != 0;
	default:
		return 0;
	}
}

/* 1 for the bytes no field ever escapes: [A-Za-z0-9_./-]. */
static const unsigned char plain[256] = {
	['-'] = 1, ['.'] = 1, ['/'] = 1, ['_'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1,
	['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1,
	['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
	['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1,
	['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1,
	['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1,
	['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
	['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

/*
 * Length of the valid UTF-8 sequence at s (at most n bytes), or 0 if the
 * bytes there are not one (overlong, surrogate, > U+10FFFF, truncated).
 * *cp receives the code point. Never reads past s[n-1].
 */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t len, i;
	unsigned char lo = 0x80, hi = 0xBF; /* bounds of the second byte */
	uint32_t v;

	if (c >= 0xC2 && c <= 0xDF) {
		len = 2; v = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3; v = c & 0x0F;
		if (c == 0xE0) lo = 0xA0;      /* no overlongs */
		if (c == 0xED) hi = 0x9F;      /* no surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4; v = c & 0x07;
		if (c == 0xF0) lo = 0x90;      /* no overlongs */
		if (c == 0xF4) hi = 0x8F;      /* <= U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3F);
	}
	*cp = v;
	return len;
}

/*
 * Code points escaped although valid: C1 controls, and every character that
 * JavaScript's \s (speedscope) or Python's str.isspace()/splitlines() treat
 * as a space or a line break.
 */
static int cp_unsafe(uint32_t cp)
{
	return cp <= 0x9F || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
	       cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
	       cp == 0x3000 || cp == 0xFEFF;
}

void fmt_put_pct(struct fmt_out *o, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[3] = { '%', hex[c >> 4], hex[c & 15] };
		fmt_put(o, e, 3);
	}
}

void fmt_put_escaped(struct fmt_out *o, const char *s, size_t n, unsigned extra)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0; /* run: start of the pending plain bytes */

	if (n == 0)
		return; /* s may be NULL: not even s + 0 */

	while (i < n) {
		size_t len = 1;
		int unsafe;

		/* Fast path: most symbols are plain ASCII letters, digits, '_',
		 * '/' and '.'; skip a run of them with one table look-up a byte
		 * (this loop was 45% of fmt_event's time, bench/pipeline.c). */
		while (i < n && plain[u[i]])
			i++;
		if (i == n)
			break;
		if (u[i] < 0x80) {
			unsafe = ascii_unsafe(u[i], extra);
		} else {
			uint32_t cp = 0;
			len = utf8_seq(u + i, n - i, &cp);
			if (len == 0) {
				len = 1; /* a byte that is not valid UTF-8 */
				unsafe = 1;
			} else {
				unsafe = cp_unsafe(cp);
			}
		}
		if (unsafe) {
			fmt_put(o, s + run, i - run);
			fmt_put_pct(o, s + i, len);
			run = i + len;
		}
		i += len;
	}
	fmt_put(o, s + run, n - run);
}

size_t fmt_escape(const char *src, size_t len, char *dst, size_t cap)
{
	struct fmt_out o;

	fmt_out_init(&o, dst, cap);
	fmt_put_escaped(&o, src, len, 0);
	return fmt_out_finish(&o);
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

long fmt_unescape(const char *src, size_t len, char *dst, size_t cap)
{
	struct fmt_out o;
	size_t i = 0;

	fmt_out_init(&o, dst, cap);
	while (i < len) {
		if (src[i] != '%') {
			fmt_putc(&o, src[i++]);
			continue;
		}
		if (len - i < 3)
			return -1;
		int h = hexval((unsigned char)src[i + 1]), l = hexval((unsigned char)src[i + 2]);
		if (h < 0 || l < 0)
			return -1;
		fmt_putc(&o, (char)(h << 4 | l));
		i += 3;
	}
	return (long)fmt_out_finish(&o);
}
