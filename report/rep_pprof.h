/*
 * rep_pprof.h - the events of a report as pprof's profile.proto.
 *
 * pprof (`go tool pprof`, Pyroscope, Parca, Google Cloud Profiler,
 * Datadog) wants a sample per stack *and* label set, so the trie alone is
 * not enough: the collector calls rep_pprof_kept() for every event that
 * enters the trie, and this sums the events per (trie leaf, process, node),
 * with the sample count and every metric's delta. The writer
 * (rep_write_pprof in rep_write.h) is rep_pprof_write.c; the format's
 * rules are in doc/report.md.
 */
#ifndef REP_PPROF_H
#define REP_PPROF_H

#include "rep_collect.h"

typedef struct rep_pprof_s rep_pprof;

/* @return an empty aggregate, or NULL when out of memory. */
rep_pprof *rep_pprof_create(void);
void rep_pprof_free(rep_pprof *p);

/* The node the next events come from (its name; "" or NULL: unknown).
 * @return 0, or -1 when out of memory. */
int rep_pprof_set_node(rep_pprof *p, const char *node);

/* A rep_kept_fn: arg is the rep_pprof. */
int rep_pprof_kept(void *arg, const struct rep_kept *ev);

/* The sums, for the writer: samples in order of first appearance. */
struct rep_pprof_sample {
	uint32_t leaf;            /* trie node: status, categories, code frames */
	uint32_t pid, serial;     /* <0.N.S> */
	const char *node;         /* "" when unknown */
	uint64_t count;           /* events */
	const int64_t *sums;      /* each column's summed delta */
};
size_t rep_pprof_nsamples(const rep_pprof *p);
void rep_pprof_get(const rep_pprof *p, size_t i, struct rep_pprof_sample *out);
/* The metric columns, names as written after "metric_" (erlang_memory). */
size_t rep_pprof_ncolumns(const rep_pprof *p);
const char *rep_pprof_column(const rep_pprof *p, size_t k);
/* First and last time of the events summed (0 and 0 when none). */
void rep_pprof_times(const rep_pprof *p, int64_t *first_us, int64_t *last_us);

#endif
