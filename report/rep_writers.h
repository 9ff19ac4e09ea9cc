/*
 * rep_writers.h - the report's writers stage: the table of output formats.
 *
 * A format is one file (its writer, declared in rep_write.h) and one row
 * of the table in rep_writers.c: its -f name, the -o endings that choose it
 * without -f, what the summary line calls it, what it needs of the
 * aggregation, and its writer. The front door reaches the table through
 * report.h (report_format_find() and friends); cfg->format is a row's
 * index (REP_F_* names the first rows).
 */
#ifndef REP_WRITERS_H
#define REP_WRITERS_H

#include <stdio.h>

#include "rep_run.h"
#include "rep_write.h"

/* What a writer needs besides the tree, and where it may go. */
#define REP_W_HEAT 1u   /* the heatmap grid (the collector builds it) */
#define REP_W_PPROF 2u  /* pprof's sums per event (rep_pprof.h); the node is then a
			 * label, not a frame node:NAME */
#define REP_W_NO_TTY 4u /* not for a terminal: a picture, a page or binary data */
#define REP_W_EVENTS 8u /* every kept event's time, stack and weight (rep_html.h); without
			 * --status, every status is read (the page switches on-CPU and
			 * wall-clock itself) */

struct rep_writer {
	const char *name;  /* -f NAME */
	const char *alias; /* another -f NAME, or NULL */
	const char *exts;  /* -o endings that choose it without -f, space-separated ("": none) */
	const char *what;  /* the summary line's "wrote WHAT 'FILE' (N KiB)" */
	const char *hint;  /* the summary line's end, e.g. "; open it in a web browser" */
	unsigned needs;    /* REP_W_* */
	/* @return 0, or -1 when out of memory (write errors stay in f) */
	int (*write)(FILE *f, const struct rep_view *v);
};

/* The row of format fmt (cfg->format); the first row for one out of range. */
const struct rep_writer *rep_writer(int fmt);

/* Writes cfg's output (and its --heatmap) aside, then publishes both and
 * says so: a run that fails leaves every existing file as it was.
 * @return 0 or a REP_E_* code (its sentence left in r). */
int rep_write_outputs(struct rep_run *r, const struct rep_view *v);

#endif
