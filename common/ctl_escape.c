/* ctl_escape.c - see ctl_escape.h. */
#include <stdio.h>

#include "ctl_escape.h"
#include "text.h"

/* The code point of a well-formed sequence of len bytes. */
static unsigned point(const unsigned char *p, size_t len)
{
	if (len == 2)
		return (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu);
	if (len == 3)
		return (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu);
	return 0; /* none of those escaped below takes 1 or 4 bytes */
}

/* Characters a terminal or a text viewer acts on: the line and paragraph
 * separators (a line break to some), and the bidirectional controls, which
 * reorder what is shown around them so that a name reads as another. */
static int acts(unsigned cp)
{
	return cp == 0x2028 || cp == 0x2029 || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t fp_ctl_escape(char *out, size_t cap, const char *in, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)in;
	size_t o = 0, i = 0;
	while (i < n) {
		unsigned c = p[i];
		size_t len = fp_utf8_seq(p + i, n - i);
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
		if ((len == 2 || len == 3) && acts(point(p + i, len))) {
			if (o + 6 >= cap)
				break;
			o += (size_t)snprintf(out + o, cap - o, "\\u%04x", point(p + i, len));
			i += len;
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
