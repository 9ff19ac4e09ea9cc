/*
 * out.c - the bounded writer every formatter file writes through.
 *
 * Like snprintf: it keeps counting past the end of the buffer so the caller
 * learns the length the whole text needs. Hand-rolled integer printing keeps
 * printf's locale and parsing off the per-sample path.
 */
#include <string.h>
#include "internal.h"

void fmt_out_init(struct fmt_out *o, char *buf, size_t cap)
{
	o->buf = buf;
	o->cap = buf ? cap : 0;
	o->len = 0;
}

size_t fmt_out_finish(struct fmt_out *o)
{
	if (o->len < o->cap)
		o->buf[o->len] = '\0';
	return o->len;
}

void fmt_put(struct fmt_out *o, const char *s, size_t n)
{
	if (n == 0)
		return; /* absent strings have a NULL ptr; memcpy must not see it */
	if (o->len < o->cap) {
		size_t room = o->cap - o->len;
		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	o->len += n;
}

void fmt_puts(struct fmt_out *o, const char *s)
{
	fmt_put(o, s, strlen(s));
}

void fmt_putc(struct fmt_out *o, char c)
{
	if (o->len < o->cap)
		o->buf[o->len] = c;
	o->len++;
}

void fmt_put_u64(struct fmt_out *o, uint64_t v)
{
	char tmp[20];
	size_t i = sizeof tmp;

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fmt_put(o, tmp + i, sizeof tmp - i);
}

void fmt_put_i64(struct fmt_out *o, int64_t v)
{
	if (v < 0) {
		fmt_putc(o, '-');
		/* 0 - (uint64_t)v is |v| even for INT64_MIN, without overflow */
		fmt_put_u64(o, 0 - (uint64_t)v);
	} else {
		fmt_put_u64(o, (uint64_t)v);
	}
}

void fmt_put_u64_padded(struct fmt_out *o, uint64_t v, unsigned width)
{
	char tmp[20];
	unsigned i = width < sizeof tmp ? width : (unsigned)sizeof tmp;
	unsigned n = i;

	while (i) {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	}
	fmt_put(o, tmp, n);
}
