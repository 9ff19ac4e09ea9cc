/*
 * rep_run.h - one run of `flameprof report`, as its stages share it: what
 * was asked, and where a failure's sentence and the run's words go.
 *
 * The stages, each its own files (report.h's door runs them in order):
 *   input        rep_read.c (which files, in what order, into the collector),
 *                on rep_files.c, rep_input.c, rep_index_read.c;
 *   aggregation  rep_collect.c (filters, time cut, weights) into
 *                rep_frames.c, rep_trie.c, rep_order.c, rep_pprof.c;
 *   writers      rep_writers.c (the table of formats, writing and publishing
 *                the outputs), one file per format (rep_write.h).
 */
#ifndef REP_RUN_H
#define REP_RUN_H

#include <stddef.h>

#include "rep_config.h"

struct rep_run {
	const struct rep_config *cfg;
	char *err;  /* the failure's one sentence (cap bytes) */
	size_t cap;
};

/* Leaves the failure's one sentence for the front door. @return st. */
__attribute__((format(printf, 3, 4))) int rep_fail(struct rep_run *r, int st, const char *fmt,
						   ...);
/* Hands a warning or a summary line to the front door's cfg->say. */
__attribute__((format(printf, 3, 4))) void rep_say(struct rep_run *r, enum rep_say kind,
						   const char *fmt, ...);

#endif
