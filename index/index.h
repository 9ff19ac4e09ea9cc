/*
 * rep_index.h - the report index: what `flameprof report` needs from a
 * file, written beside its text so that a report does not re-read it.
 *
 * A 1-hour capture of 100 processes at 97 Hz is ~35M events and ~50 GB of
 * perf-script text; decompressing and parsing that takes minutes. The
 * index holds the same events as columns of small numbers (time, status,
 * pid, stack id, metric values) plus tables of the distinct frames and
 * stacks, in zstd skippable frames inside the zstd file itself: zstd
 * decoders skip them, so the file still decompresses to exactly its text,
 * and a report reads only the columns it needs.
 *
 * The writer is fed the text exactly as it goes into the file. It parses
 * it with the report's own parser, and if anything is unusual (a line the
 * report would count as bad, too many distinct names, no memory) it gives
 * up on that file quietly: the file then has no trailer and the report
 * reads its text, so the index can only ever speed a report up. The
 * format is in doc/output-format.md.
 */
#ifndef REP_INDEX_H
#define REP_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct rep_ixw_s rep_ixw;
struct rot_index;

/* @return a writer (zstd level 0: default), or NULL when out of memory. */
rep_ixw *rep_ixw_create(int level);
void rep_ixw_free(rep_ixw *w);
/* A new file starts: forget the tables, the pending events, the blocks. */
void rep_ixw_reset(rep_ixw *w);
/* Text as it goes into the file (whole lines; a line may span calls). */
void rep_ixw_text(rep_ixw *w, const void *p, size_t n);
/*
 * At a frame boundary of the file: the bytes to write there next (skippable
 * frames), which start at file offset `offset`. With `last` the file ends
 * and the trailer comes too. *len is 0 when there is nothing to write (few
 * events pending, or the index was given up). The bytes stay valid until
 * the next call.
 */
void rep_ixw_take(rep_ixw *w, uint64_t offset, int last, const void **out, size_t *len);
/* Fills a rotate/ index hook that feeds this writer (rotate/rotate.h). */
void rep_ixw_hook(rep_ixw *w, struct rot_index *hook);
/* 1 when this file's index was given up (why: rep_ixw_why). */
int rep_ixw_given_up(const rep_ixw *w);
const char *rep_ixw_why(const rep_ixw *w);

struct rep_collect_s;

enum rep_ix_read {
	REP_IX_NONE = 0,     /* no usable index: read the text (detail says why if damaged) */
	REP_IX_NOMEM = -11,
	REP_IX_CORRUPT = -12 /* damaged past the point where the text could be read instead */
};

/*
 * Reads a file's events into the collector through its index.
 * @return 1 when done (*nevents: how many), REP_IX_NONE when the file has
 * no sound index (nothing was collected; detail is "" or why the index
 * was refused), REP_IX_NOMEM, REP_IX_CORRUPT (detail), or REP_C_METRIC
 * from the collector (the --weight metric is not on the events).
 */
int rep_index_read(struct rep_collect_s *c, const char *path, uint64_t *nevents, char *detail,
		   size_t cap);

#endif
