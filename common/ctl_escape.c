/* ctl_escape.c - see ctl_escape.h. */
#include "ctl_escape.h"
#include "text.h"

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
		if (o + len >= cap)
			break; /* cut at a whole character */
		while (len--)
			out[o++] = (char)p[i++];
	}
	out[o] = '\0';
	return o;
}
