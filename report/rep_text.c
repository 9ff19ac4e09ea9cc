/*
 * rep_text.c - UTF-8 aware escaping for the SVG writers (JSON: common/text.h).
 */
#include "rep_text.h"

#include <string.h>

#include "../common/text.h"

static const char REPL[] = "\xef\xbf\xbd"; /* U+FFFD */

/* The replacement for the character at p (*n set to its length in bytes),
 * or NULL to copy it as it is. esc is scratch space for the result. */
typedef const char *escape_fn(const unsigned char *p, size_t left, size_t *n, char esc[8]);

static const char *xml_escape(const unsigned char *p, size_t left, size_t *n, char esc[8])
{
	unsigned char c = p[0];
	(void)esc;
	*n = 1;
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&#39;";
	}
	if (c < 0x20 || c == 0x7f)
		return REPL;
	if (c >= 0x80 && (*n = fp_utf8_seq(p, left)) == 0) {
		*n = 1;
		return REPL;
	}
	/* a C1 control (U+0080..U+009F: NEL, CSI), well-formed but a
	 * terminal's command when the SVG is cat'ed or grepped */
	if (c == 0xc2 && *n == 2 && p[1] <= 0x9f)
		return REPL;
	return NULL;
}

/* Writes s, replacing what escape() says, copying runs in between whole. */
static void put_escaped(FILE *f, const char *s, size_t len, escape_fn *escape)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, start = 0;
	while (i < len) {
		char esc[8];
		size_t n;
		const char *rep = escape(p + i, len - i, &n, esc);
		if (rep) {
			fwrite(s + start, 1, i - start, f);
			fputs(rep, f);
			start = i + n;
		}
		i += n;
	}
	fwrite(s + start, 1, i - start, f);
}

void rep_xml_put(FILE *f, const char *s, size_t len)
{
	put_escaped(f, s, len, xml_escape);
}

size_t rep_utf8_prefix(const char *s, size_t len, size_t maxchars)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k = 0;
	while (i < len && k < maxchars) {
		size_t n = p[i] < 0x80 ? 1 : fp_utf8_seq(p + i, len - i);
		i += n ? n : 1;
		k++;
	}
	return i;
}

size_t rep_utf8_chars(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k = 0;
	while (i < len) {
		size_t n = p[i] < 0x80 ? 1 : fp_utf8_seq(p + i, len - i);
		i += n ? n : 1;
		k++;
	}
	return k;
}

char *rep_thousands(int64_t v, char *buf)
{
	char tmp[32];
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	int n = 0, o = 0, k = 0;
	do {
		if (k && k % 3 == 0)
			tmp[n++] = ',';
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
		k++;
	} while (u);
	if (v < 0)
		buf[o++] = '-';
	while (n)
		buf[o++] = tmp[--n];
	buf[o] = '\0';
	return buf;
}
