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

void rep_xml_put(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, start = 0;
	while (i < len) {
		unsigned char c = p[i];
		const char *rep = NULL;
		size_t n = 1;
		if (c == '&')
			rep = "&amp;";
		else if (c == '<')
			rep = "&lt;";
		else if (c == '>')
			rep = "&gt;";
		else if (c == '"')
			rep = "&quot;";
		else if (c == '\'')
			rep = "&#39;";
		else if (c < 0x20 || c == 0x7f)
			rep = REPL;
		else if (c >= 0x80 && (n = utf8_seq(p + i, len - i)) == 0) {
			rep = REPL;
			n = 1;
		}
		if (rep) {
			fwrite(s + start, 1, i - start, f);
			fputs(rep, f);
			i += n;
			start = i;
		} else {
			i += n;
		}
	}
	fwrite(s + start, 1, i - start, f);
}

void rep_json_put(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, start = 0;
	while (i < len) {
		unsigned char c = p[i];
		size_t n = 1;
		char esc[8];
		const char *rep = NULL;
		if (c == '"')
			rep = "\\\"";
		else if (c == '\\')
			rep = "\\\\";
		else if (c < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", c);
			rep = esc;
		} else if (c >= 0x80 && (n = utf8_seq(p + i, len - i)) == 0) {
			rep = "\\ufffd";
			n = 1;
		}
		if (rep) {
			fwrite(s + start, 1, i - start, f);
			fputs(rep, f);
			i += n;
			start = i;
		} else {
			i += n;
		}
	}
	fwrite(s + start, 1, i - start, f);
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
