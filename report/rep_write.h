/*
 * rep_write.h - the output formats, one small file each, and one row each
 * in the writers' table (rep_writers.c).
 *
 * Every writer takes the aggregated view and a stdio stream; it returns 0,
 * or -1 when out of memory. Write errors stay in the stream for the caller
 * to find with ferror()/fclose(), which names the file.
 */
#ifndef REP_WRITE_H
#define REP_WRITE_H

#include <stdio.h>

#include "rep_collect.h"
#include "rep_config.h"
#include "rep_frames.h"
#include "rep_order.h"
#include "rep_trie.h"

struct rep_view {
	const struct rep_config *cfg;
	const rep_frames *frames;
	const rep_trie *trie;
	const struct rep_order *order;
	const struct rep_stats *st;
	const char *weight_name;  /* "samples", "reductions_delta"... */
	int weighted;             /* 0: widths are sample counts */
	int64_t from_us, to_us;   /* the time cut, absolute (open: INT64_MIN/MAX) */
	const struct rep_heat *heat;     /* the heatmap grid (a REP_W_HEAT writer's) */
	const struct rep_pprof_s *pprof; /* pprof's sums (a REP_W_PPROF writer's), or NULL */
	struct rep_html_s *events;       /* every kept event (a REP_W_EVENTS writer's), or NULL */
	const struct rep_diff *diff;     /* --diff: BASE's figures at each node (rep_diff.h), or NULL */
};

/* Brendan Gregg's collapsed stacks: "root;...;leaf <weight>" per line. */
int rep_write_folded(FILE *f, const struct rep_view *v);
/* speedscope's file format, one "sampled" profile per status. */
int rep_write_speedscope(FILE *f, const struct rep_view *v);
/* pprof's profile.proto, gzip-compressed: a sample per stack, process and
 * node, with the count and every metric's delta (rep_pprof.h). */
struct rep_pprof_s;
int rep_write_pprof(FILE *f, const struct rep_view *v, const struct rep_pprof_s *agg);
/* What --status kept and hid, for a picture's subtitle, e.g. "on-CPU: 655
 * of 82,433 samples; waiting 81,778 hidden: --status all for the
 * wall-clock view". Empty under --status all with nothing hidden. */
void rep_status_note(const struct rep_view *v, char *out, size_t cap);
/* The interactive flame graph. */
int rep_write_flame(FILE *f, const struct rep_view *v);
/* The hottest functions, self and total: a table, or JSON (cfg->json). */
int rep_write_top(FILE *f, const struct rep_view *v);
/* One offline HTML page: the heatmap, the flame graph of any range, the
 * difference of two (rep_html.h; needs v->events). */
int rep_write_html(FILE *f, const struct rep_view *v);
/* The sub-second heatmap of the whole capture. */
int rep_write_heatmap(FILE *f, const struct rep_view *v, const struct rep_heat *h);

#endif
