/*
 * rep_names.c - the report's side of Elixir's names: which spelling a
 * file's header asks for, and the folded (line) form of a spelling; the
 * spelling itself is common/names.c (fp_names_elixir), shared with the
 * calls and requests output.
 */
#include "rep_names.h"

#include <string.h>

#include "../common/bounded.h"
#include "../formatter/formatter.h"

enum fp_names rep_names_header(const char *line, size_t len)
{
	static const char head[] = "# settings: ";
	if (len < sizeof head - 1 || memcmp(line, head, sizeof head - 1) != 0)
		return FP_NAMES_AUTO;
	for (size_t i = 0; i + 7 <= len; i++) {
		if (memcmp(line + i, " names=", 7) != 0)
			continue;
		const char *v = line + i + 7;
		size_t vl = len - i - 7;
		if (vl >= 6 && memcmp(v, "elixir", 6) == 0 && (vl == 6 || v[6] == ' '))
			return FP_NAMES_ELIXIR;
		if (vl >= 6 && memcmp(v, "erlang", 6) == 0 && (vl == 6 || v[6] == ' '))
			return FP_NAMES_ERLANG;
	}
	return FP_NAMES_AUTO;
}

/* The folded form of s (see rep_names_line_spelling), appended to o. */
static void line_escape(struct fp_bounded *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i = 0;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80) { /* a run past ASCII: flameprof's escape checks its UTF-8 */
			size_t j = i, r;
			while (j < n && (unsigned char)s[j] >= 0x80)
				j++;
			r = fmt_escape(s + i, j - i, NULL, 0);
			if (o->len + r < o->cap)
				fmt_escape(s + i, j - i, o->p + o->len, o->cap - o->len);
			o->len += r;
			i = j;
			continue;
		}
		if (c < 0x21 || c == 0x7f || c == '%' || c == ';') {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };
			fp_bounded_put(o, e, 3);
		} else {
			fp_bounded_put(o, s + i, 1);
		}
		i++;
	}
}

size_t rep_names_line_spelling(const char *s, size_t n, char *out, size_t cap)
{
	static const char anon[] = "anonymous fn/";
	struct fp_bounded o = { out, 0, out ? cap : 0 };
	size_t a = sizeof anon - 1, i, head = 0;
	if (n > a && memcmp(s, anon, a) == 0) {
		for (i = a; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i > a && n - i > 4 && memcmp(s + i, " in ", 4) == 0) {
			/* "anonymous_fn/N_in_" then the rest */
			head = i + 4;
			fp_bounded_put(&o, "anonymous_fn", 12);
			fp_bounded_put(&o, s + 12, i - 12);
			fp_bounded_put(&o, "_in_", 4);
		}
	}
	line_escape(&o, s + head, n - head);
	if (o.len < o.cap)
		o.p[o.len] = '\0';
	else if (o.cap)
		o.p[0] = '\0'; /* too small: nothing usable, but a string */
	return o.len;
}
