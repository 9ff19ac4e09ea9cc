/*
 * rep_collect.h - perf-script lines in, filtered and weighted stacks out.
 *
 * Feeds a frame table, a trie (the flame graph's events: filters and the
 * time cut applied) and a heatmap grid (filters applied, whole capture).
 * One collector reads all input files in turn, so the time origin is the
 * first event's whole second across them all.
 */
#ifndef REP_COLLECT_H
#define REP_COLLECT_H

#include <stddef.h>
#include <stdint.h>

#include "rep_config.h"
#include "rep_frames.h"
#include "rep_trie.h"

#define REP_HEAT_ROWS 50 /* 20 ms each */

typedef struct rep_collect_s rep_collect;

enum rep_c_err {
	REP_C_OK = 0,
	REP_C_NOMEM = -1,
	REP_C_METRIC = -2, /* the --weight metric is not on the events (detail says why) */
	REP_C_USAGE = -3,  /* a filter could not be understood */
	REP_C_DATA = -4,   /* past a bound below: not what a capture writes (detail says which) */
};

/*
 * What one input file can make the report hold, whatever it says: a
 * capture's stacks are --depth deep (at most a few thousand frames) and an
 * atom is at most 255 characters, so these only stop files that are not
 * captures. Everything else the report holds grows with the distinct
 * stacks and frames read (the trie, the frame table) or is bounded in
 * itself (the heatmap: REP_HEAT_MAX_SECONDS).
 */
#define REP_MAX_FRAMES (1u << 20)   /* frames in one event's stack */
#define REP_MAX_FRAME_BYTES 65536  /* a frame's symbol and file together */
/* Lines in a row outside any event (comments, blank lines with spaces,
 * text that is not perf's): a capture writes a header of a few KiB. The
 * bound keeps a small compressed file of filler from holding the report
 * for minutes (runs of empty lines are skipped by rep_input.c). */
#define REP_MAX_FILLER_BYTES (64u << 20)

struct rep_stats {
	uint64_t events;          /* event lines read */
	uint64_t used;            /* events in the flame graph */
	uint64_t filtered;        /* dropped by --status, --pid, --category */
	uint64_t out_of_range;    /* outside --from/--to */
	uint64_t no_metric;       /* events without the --weight metric (weight 0) */
	uint64_t bad_lines;       /* lines that are neither comment, event, frame nor blank */
	uint64_t negative;        /* events with a negative weight */
	int64_t first_us, last_us; /* earliest and latest event time */
	int64_t t0_s;             /* the time origin: the earliest event's whole second */
	/* Events left out by --status alone (they pass --pid), by status:
	 * hidden_id[k] is the status frame, hidden_n[k] its count; statuses
	 * past REP_MAX_HIDDEN add to hidden_more. */
#define REP_MAX_HIDDEN 8
	uint32_t hidden_id[REP_MAX_HIDDEN];
	uint64_t hidden_n[REP_MAX_HIDDEN];
	size_t nhidden;
	uint64_t hidden_more;
	/* Events of a status that is not at work (waiting, suspended, exiting)
	 * given weight 0 under a delta weight: their delta is work done before
	 * the process stopped, at stacks the sample did not see. */
	uint64_t idle_delta;
};

/* The heatmap covers at most 31 days from its first second: a file that
 * spans more (a clock jump, a planted date) does not make the report draw
 * (or hold) years of empty seconds; later events are counted, not drawn. */
#define REP_HEAT_MAX_SECONDS (31LL * 86400)

struct rep_heat_sec {
	uint32_t sec;  /* seconds from t0_s */
	uint32_t hash; /* the collector's own (its slot table) */
};
/* Only the seconds that have events are held (a capture's 30-day-long
 * gap costs nothing), in time order. */
struct rep_heat {
	size_t ncols;             /* columns: seconds from t0_s to the last one's, plus one */
	size_t nsecs;             /* seconds that have events */
	const struct rep_heat_sec *sec; /* each one's column: sec[k].sec, ascending */
	const uint64_t *n;        /* samples, [k * REP_HEAT_ROWS + row] for sec[k] */
	const int64_t *w;         /* weights, same layout */
	uint64_t before_t0;       /* events earlier than t0 (not drawn) */
	uint64_t beyond;          /* events past REP_HEAT_MAX_SECONDS (not drawn) */
};
/*
 * What an export that needs more than the trie (pprof) sees of each event
 * that enters the trie: past the filters, inside the time cut.
 */
struct rep_kept {
	int64_t time_us;
	uint32_t leaf;            /* its trie node: status, categories, code frames */
	uint32_t pid, serial;     /* as rep_parse reads them: <0.N.S>'s N and S */
	size_t nmetrics;          /* its metrics (names as written after "metric_") */
	const char *const *names;
	const size_t *lens;
	const int64_t *deltas;
	int64_t w;                /* the weight it adds (signed: under "negative" when < 0) */
};
#define REP_MAX_METRICS 32
/* @return 0, or -1 when out of memory (the reading stops with REP_C_NOMEM). */
typedef int (*rep_kept_fn)(void *arg, const struct rep_kept *ev);

/* @return a collector, or NULL with detail set (bad --status list, no memory). */
rep_collect *rep_collect_create(const struct rep_config *cfg, enum rep_c_err *err, char *detail,
				size_t cap);
void rep_collect_free(rep_collect *c);
/* The earliest event of all inputs, when known before reading them: the
 * time origin is its whole second (else the first event read's). Only
 * before the first event. */
void rep_collect_set_t0(rep_collect *c, int64_t time_us);
/* Builds the heatmap grid too (a writer needs it; --heatmap and -f heatmap
 * ask for it already). Only before the first event. */
void rep_collect_want_heat(rep_collect *c);

/* The events read from now on are drawn under a category frame
 * node:NAME, outermost (files of several nodes drawn together); NULL:
 * none. A --category filter sees it as any category frame. @return 0 or
 * REP_C_NOMEM. */
int rep_collect_set_node(rep_collect *c, const char *node);

/* One input line (without '\n'). @return 0 or a negative enum rep_c_err
 * (detail in rep_collect_error()). */
int rep_collect_line(rep_collect *c, const char *line, size_t len);
/* Ends the current file (an event never spans files). Same contract. */
int rep_collect_end_file(rep_collect *c);
/* After the last file: sums the trie. */
void rep_collect_finish(rep_collect *c);

const char *rep_collect_error(const rep_collect *c);
/* Calls fn for every event that enters the trie, with every metric's delta. */
void rep_collect_on_kept(rep_collect *c, rep_kept_fn fn, void *arg);
/* 1 when an on_kept callback is set: readers then pass every metric. */
int rep_collect_wants_metrics(const rep_collect *c);
const struct rep_stats *rep_collect_stats(const rep_collect *c);
rep_frames *rep_collect_frames(rep_collect *c);
rep_trie *rep_collect_trie(rep_collect *c);
/* The heatmap (empty unless one was asked for). @return 0, or -1 when
 * out of memory (sorting the seconds of files read out of order). */
int rep_collect_heat(rep_collect *c, struct rep_heat *out);
/* "samples", or the metric name and "_delta" as resolved ("erlang_reductions_delta"). */
const char *rep_collect_weight_name(const rep_collect *c);
int rep_collect_weighted(const rep_collect *c); /* 0: samples */
/* The time cut as absolute microseconds (INT64_MIN/INT64_MAX when open). */
void rep_collect_range(const rep_collect *c, int64_t *from_us, int64_t *to_us);

/*
 * Pre-parsed events, for the report index (rep_index_read.c). The calls
 * mirror what the text path does line by line, in the same order, so both
 * paths build the same frame table, trie and heatmap.
 */
/* Interns a status (comm); *ok: it passes --status. REP_NO_FRAME: no memory. */
uint32_t rep_collect_status(rep_collect *c, const char *comm, size_t len, int *ok);
int rep_collect_pid_ok(const rep_collect *c, uint32_t pid, uint32_t tid);
/* Interns a frame of a kept event; ORs a category frame's filter bits into
 * *catmask. REP_NO_FRAME: no memory. */
uint32_t rep_collect_frame(rep_collect *c, int is_category, const char *sym, size_t len,
			   const char *dso, size_t dso_len, uint32_t *catmask);
/* 1 when this metric name could be (or is) the --weight metric. */
int rep_collect_weight_candidate(const rep_collect *c, const char *name, size_t len);
/* Resolves --weight among the first kept event's metric names (no-op when
 * unweighted or done). @return 0 or REP_C_METRIC. */
int rep_collect_resolve(rep_collect *c, const char *const *names, const size_t *lens, size_t n);
/* 1 when name is the resolved weight metric. */
int rep_collect_metric_is(const rep_collect *c, const char *name, size_t len);
/* 1 when the resolved weight is the metric's delta, not its value. */
int rep_collect_weighs_delta(const rep_collect *c);
/*
 * One event. pass: its status and pid passed the filters (ids, catmask and
 * w are then needed; ids leaf first). has_w: it carries the weight metric
 * (ignored when unweighted). leaf: 2 cached trie nodes for this stack under
 * this status (0: unknown), filled in here. kept: its pid and (when
 * rep_collect_wants_metrics) metrics for an on_kept callback; time_us and
 * leaf are filled in here. @return 0 or REP_C_NOMEM.
 */
int rep_collect_pre_event(rep_collect *c, int64_t time_us, uint32_t status_id, int pass,
			  const uint32_t *ids, size_t nids, uint32_t catmask, int has_w, int64_t w,
			  uint32_t *leaf, const struct rep_kept *kept);

#endif
