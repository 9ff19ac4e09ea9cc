/* ctl_escape.c - see ctl_escape.h. */
#include "ctl_escape.h"

/* The length of the well-formed UTF-8 character at p (n bytes left), or
 * 0 when p does not start one (a stray continuation byte, an overlong or
 * surrogate form, a character cut short). */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len, k;
	unsigned lo = 0x80, hi = 0xbf;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		if (p[0] == 0xe0)
			lo = 0xa0;
		else if (p[0] == 0xed)
			hi = 0x9f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		if (p[0] == 0xf0)
			lo = 0x90;
		else if (p[0] == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (len > n || p[1] < lo || p[1] > hi)
		return 0;
	for (k = 2; k < len; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	return len;
}

size_t fp_ctl_escape(char *out, size_t cap, const char *in, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)in;
	size_t o = 0, i = 0;
	while (i < n) {
		unsigned c = p[i];
		size_t len = c < 0x80 ? 1 : utf8_len(p + i, n - i);
		/* C0, DEL, a C1 character (U+0080..U+009F) and any byte that is
		 * not part of a well-formed character: an 8-bit terminal reads
		 * a lone 0x9b as ESC [ */
		int c1 = len == 2 && c == 0xc2 && p[i + 1] <= 0x9f;
		if (c < 0x20 || c == 0x7f || len == 0 || c1) {
			if (c1)
				c = p[i + 1];
			if (o + 4 >= cap)
				break;
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
			i += len ? len : 1;
			continue;
		}
		if (o + len >= cap)
			break; /* cut at a whole character */
		while (len--)
			out[o++] = (char)p[i++];
	}
	out[o] = '\0';
	return o;
}
