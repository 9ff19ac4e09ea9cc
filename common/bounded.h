/*
 * bounded.h - a writer into a caller's buffer that never writes past it and
 * counts every byte asked for, so that one pass with a NULL buffer (cap 0)
 * measures what a second pass then writes.
 */
#ifndef FP_BOUNDED_H
#define FP_BOUNDED_H

#include <stddef.h>
#include <string.h>

struct fp_bounded {
	char *p;    /* may be NULL when cap is 0 */
	size_t len; /* bytes asked for so far, written or not */
	size_t cap; /* room, a final '\0' included */
};

/* Appends n bytes when they fit (with room left for a '\0'); counts them in any case. */
static inline void fp_bounded_put(struct fp_bounded *o, const char *s, size_t n)
{
	if (o->len + n < o->cap)
		memcpy(o->p + o->len, s, n);
	o->len += n;
}

#endif
