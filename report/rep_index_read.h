/*
 * rep_index_read.h - reading a file's events through its report index
 * (index/ix_fmt.h) into report/'s collector; report/rep_main.c falls back
 * to the text where a file has no sound index.
 */
#ifndef REP_INDEX_READ_H
#define REP_INDEX_READ_H

#include <stddef.h>
#include <stdint.h>

struct rep_collect_s;

enum rep_ix_read {
	REP_IX_NONE = 0,     /* no usable index: read the text (detail says why if damaged) */
	REP_IX_NOMEM = -11,
	REP_IX_CORRUPT = -12 /* found damaged once events went in: the file changed while read */
};

/*
 * Reads a file's events into the collector through its index. Every column
 * it needs is checked before any event goes in, and what the index may
 * make it hold is bounded by the file's size (doc/security.md).
 * @return 1 when done (*nevents: how many), REP_IX_NONE when the file has
 * no sound index (nothing was collected; detail is "" or why the index
 * was set aside: damaged, or claiming more than the file holds),
 * REP_IX_NOMEM, REP_IX_CORRUPT (detail), or REP_C_METRIC from the
 * collector (the --weight metric is not on the events).
 */
int rep_index_read(struct rep_collect_s *c, const char *path, uint64_t *nevents, char *detail,
		   size_t cap);

#endif
