/*
 * text.c - the JSON escape (text.h).
 */
#include "text.h"

#include <stdint.h>
#include <string.h>

size_t fp_utf8_seq(const unsigned char *s, size_t len)
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
	if (cp == 0xfffe || cp == 0xffff)
		return 0;
	return n;
}

void fp_json_put(FILE *f, const char *s, size_t len)
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
		else if (c < 0x20 || c == 0x7f)
			snprintf(esc, sizeof esc, "\\u%04x", c), rep = esc;
		else if (c >= 0x80 && (n = fp_utf8_seq(p + i, len - i)) == 0)
			n = 1, rep = "\\ufffd";
		else if (n == 2 && c == 0xc2 && p[i + 1] < 0xa0) /* a C1 control, U+0080..U+009F */
			snprintf(esc, sizeof esc, "\\u%04x", p[i + 1]), rep = esc;
		if (rep) { /* copy the run before it whole, then the escape */
			fwrite(s + start, 1, i - start, f);
			fputs(rep, f);
			start = i + n;
		}
		i += n;
	}
	fwrite(s + start, 1, i - start, f);
}

void fp_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	fp_json_put(f, s, strlen(s));
	fputc('"', f);
}
