/* cap_batch.c - see cap_batch.h. */
#include <stdlib.h>
#include <string.h>
#include "cap_batch.h"
#include "../common/grow.h"

int cap_batch_init(struct cap_batch *o, fmt_ctx *fmt, rot_t *rot)
{
	memset(o, 0, sizeof *o);
	o->fmt = fmt;
	o->rot = rot;
	o->cap = 1 << 16;
	o->buf = malloc(o->cap);
	return o->buf ? 0 : ROT_ERR_NOMEM;
}

static int by_time(const void *a, const void *b)
{
	const struct fp_sample *x = *(const struct fp_sample *const *)a;
	const struct fp_sample *y = *(const struct fp_sample *const *)b;
	return (x->time_us > y->time_us) - (x->time_us < y->time_us);
}

int cap_batch_write(struct cap_batch *o, const struct fp_sample *s, size_t n)
{
	if (fp_grow((void **)&o->order, &o->order_cap, n, sizeof *o->order, 64) != 0)
		return ROT_ERR_NOMEM;
	for (size_t k = 0; k < n; k++)
		o->order[k] = &s[k];
	if (n > 1) /* qsort's array may not be NULL, even for 0 items */
		qsort(o->order, n, sizeof *o->order, by_time);
	for (size_t k = 0; k < n; k++) {
		int64_t t;
		size_t len = fmt_event(o->fmt, o->order[k], o->buf, o->cap, &t);
		if (len >= o->cap) {
			if (fp_grow((void **)&o->buf, &o->cap, len + 1, 1, 4096) != 0)
				return ROT_ERR_NOMEM;
			len = fmt_event(o->fmt, o->order[k], o->buf, o->cap, &t);
		}
		if (len == 0) /* a status not written */
			continue;
		if (o->rot) {
			int e = rot_append(o->rot, o->buf, len, t);
			if (e < 0)
				return e;
		}
	}
	return 0;
}

void cap_batch_free(struct cap_batch *o)
{
	free(o->buf);
	free(o->order);
	memset(o, 0, sizeof *o);
}
