/*
 * cap_batch.h - a batch of samples out: in time order, through the
 * formatter, into rotate/. The capture's write step (capture.c); the bench
 * (bench/pipeline.c) measures this same code.
 */
#ifndef CAP_BATCH_H
#define CAP_BATCH_H

#include <stddef.h>
#include "../formatter/formatter.h"
#include "../rotate/rotate.h"

struct cap_batch {
	fmt_ctx *fmt;                     /* the text's context (deltas, last time); not owned */
	rot_t *rot;                       /* the files; NULL: format only; not owned */
	char *buf;                        /* one event's text, grown as needed */
	size_t cap;
	const struct fp_sample **order;   /* the batch in time order */
	size_t order_cap;
};

/* Sets o up for fmt and rot with a 64 KiB event buffer. @return 0, or
 * ROT_ERR_NOMEM. */
int cap_batch_init(struct cap_batch *o, fmt_ctx *fmt, rot_t *rot);
/* Writes n samples in time order (a batch comes in the order its workers
 * answered). @return 0, or a negative rot_err: ROT_ERR_NOMEM or what
 * rot_append() returned. */
int cap_batch_write(struct cap_batch *o, const struct fp_sample *s, size_t n);
/* Frees the buffers (not fmt, not rot). */
void cap_batch_free(struct cap_batch *o);

#endif
