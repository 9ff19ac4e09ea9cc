/*
 * rep_text.c - UTF-8 aware escaping for the SVG and JSON writers.
 */
#include "rep_text.h"

#include <string.h>

/* Length of a valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	unsigned c = s[0];
	size_t n, i;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	if (cp == 0xfffe || cp == 0xffff) /* not XML characters */
		return 0;
	return n;
}

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
	if (c >= 0x80 && (*n = utf8_seq(p, left)) == 0) {
		*n = 1;
		return REPL;
	}
	return NULL;
}

static const char *json_escape(const unsigned char *p, size_t left, size_t *n, char esc[8])
{
	unsigned char c = p[0];
	*n = 1;
	if (c == '"')
		return "\\\"";
	if (c == '\\')
		return "\\\\";
	if (c < 0x20) {
		snprintf(esc, 8, "\\u%04x", c);
		return esc;
	}
	if (c >= 0x80 && (*n = utf8_seq(p, left)) == 0) {
		*n = 1;
		return "\\ufffd";
	}
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

void rep_json_put(FILE *f, const char *s, size_t len)
{
	put_escaped(f, s, len, json_escape);
}

size_t rep_utf8_prefix(const char *s, size_t len, size_t maxchars)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k = 0;
	while (i < len && k < maxchars) {
		size_t n = p[i] < 0x80 ? 1 : utf8_seq(p + i, len - i);
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
		size_t n = p[i] < 0x80 ? 1 : utf8_seq(p + i, len - i);
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
