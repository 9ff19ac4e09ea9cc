/* ctl_escape.c - see ctl_escape.h. */
#include "ctl_escape.h"

size_t fp_ctl_escape(char *out, size_t cap, const char *in, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)in;
	size_t o = 0, i;
	for (i = 0; i < n; i++) {
		unsigned c = p[i];
		int c1 = c == 0xc2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f;
		if (c < 0x20 || c == 0x7f || c1) {
			if (o + 4 >= cap)
				break;
			if (c1)
				c = p[++i];
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
			continue;
		}
		if (o + 1 >= cap)
			break;
		out[o++] = (char)c;
	}
	if (i < n) {
		/* cut: drop a character left half-written */
		size_t k = o;
		while (k > 0 && ((unsigned char)out[k - 1] & 0xc0) == 0x80)
			k--;
		if (k > 0 && ((unsigned char)out[k - 1] & 0xc0) == 0xc0)
			o = k - 1;
	}
	out[o] = '\0';
	return o;
}
