/*
 * req_table.h - the figures of `flameprof requests` per (identity, tier):
 * windows from the node merged into a running total, and the writers that
 * show them: the table people read, the JSON lines of --stats and of
 * --slow.
 *
 * Pure: windows in, text out through a FILE; no node, no ei. Writers
 * return 0, or -1 when the stream reports a write error.
 */
#ifndef FP_REQ_TABLE_H
#define FP_REQ_TABLE_H

#include <stdio.h>
#include "hist.h"
#include "requests.h"

struct req_cell {
	char *identity, *tier;
	struct hist total;     /* since the start */
	struct hist window;    /* the last window merged, if stamp is the table's */
	uint64_t stamp;
};

/* About 19 KiB a cell: at most this many (identity, tier) pairs are kept,
 * the rest counted in cells_left_out. */
#define REQ_MAX_CELLS 2000

struct req_table {
	struct req_cell *cells;
	size_t ncells, cap;
	uint64_t cells_left_out;   /* rows of new pairs past REQ_MAX_CELLS */
	uint64_t stamp;            /* windows merged */
	uint64_t requests, stray, pauses, dropped, slow_left_out;
	int paused;
	/* what the table does not cover: requests the identity fun failed to
	 * name, time paused by the circuit breaker and the entry calls in it;
	 * win_*: the last window's */
	uint64_t id_fun_failed, paused_us, untraced;
	uint64_t win_id_fun_failed, win_paused_us, win_untraced;
	/* every entry call (requests.h, struct req_window): the node's count,
	 * and where the tracer's ended besides requests, dropped, untraced;
	 * tier calls outside any request, by tier */
	uint64_t calls, entry_msgs, nested, queued, in_flight, overlap;
	uint64_t win_calls, win_dropped;
	struct req_tier_out *tier_out;
	size_t ntier_out, tier_out_cap;
	int cut_short;             /* set by the caller: the tracer's last window never came */
	uint64_t run_us;           /* the run's length so far, set by the caller; 0 unknown */
	unsigned sample_permille;  /* --sample-requests, set by the caller; 0 or 1000: all */
};

/* Merges a window: its histograms into both the window's and the total's
 * (a cell's window is cleared when the window first touches it).
 * @return 0, or -1 out of memory. */
int req_table_merge(struct req_table *t, const struct req_window *w);
void req_table_free(struct req_table *t);

/* Cells in print order: by identity, then "_total" first, then tier. */
void req_table_sort(struct req_table *t);

/* IDENTITY TIER COUNT MEAN P50 P90 P99 MAX (ms), from the totals; then
 * the coverage lines: the circuit breaker's pauses (share of run_us), the
 * entry calls the node made and where each went (in the table, paused,
 * dropped, ...: they add up to the node's count), each tier whose rows
 * are short of _total or that ran outside requests (how many, and why),
 * the sample, the requests the identity fun failed to name. */
int req_write_table(FILE *f, const struct req_table *t);
void req_write_coverage(FILE *f, const struct req_table *t);

/* One JSON object per line for each cell with requests in the window:
 * window_end, identity, tier, count, sum_us, mean_us, p50_us, p90_us,
 * p99_us, max_us, and the window's paused_us, untraced_calls,
 * identity_fun_failed, entry_calls (the node's count) and dropped_calls
 * (by the circuit breaker); a window with no request but a pause writes
 * one line of identity "_paused", tier "_total", count 0. */
int req_write_stats(FILE *f, const struct req_table *t, int64_t window_end_us);

/* The window's identities, tiers and reloaded modules that name a
 * function or an alias, in Elixir's spelling (req_names.c, common/names.h:
 * Shop.Pricing.price/2); the others stay. @return 0, or -1 out of memory
 * (some keep Erlang's spelling). */
int req_window_names_elixir(struct req_window *w);

/* One JSON object per line per slow request: identity, total_us, tiers
 * {name: us}, pids, window_end. */
int req_write_slow(FILE *f, const struct req_window *w);

#endif
