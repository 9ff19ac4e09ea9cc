/*
 * ix_parse.h - reading perf-script text one line at a time.
 *
 * Follows the readers' rules (doc/output-format.md, "Reader rules and where
 * they are met"): '#' lines are comments, an event line is "<comm>
 * <pid>[/<tid>] [cpu] <sec>.<frac>: ...", a frame line is "<ws><hex>
 * <symbol> (<dso>)", a blank line ends an event. Works on
 * flameprof's output and on plain Linux `perf script` output alike.
 * Nothing here allocates; results point into the line.
 */
#ifndef IX_PARSE_H
#define IX_PARSE_H

#include <stddef.h>
#include <stdint.h>

enum ix_line_kind { IX_L_BLANK, IX_L_COMMENT, IX_L_EVENT, IX_L_FRAME, IX_L_OTHER };

struct ix_event_line {
	const char *comm;    /* process name; flameprof writes the status here */
	size_t comm_len;
	uint32_t pid, tid;   /* flameprof: the pid <0.N.S>'s N and S, from "N/S" (old
			      * files) or the tid S * 2^32 + N; plain perf: "pid/tid",
			      * or a lone tid as pid = tid, tid = 0 */
	int has_pid;         /* 1 when a numeric pid was found */
	int64_t time_us;     /* timestamp in microseconds */
	const char *rest;    /* the text after "<time>:" (event name, metrics) */
	size_t rest_len;
};

struct ix_frame_line {
	const char *sym;     /* symbol, cut at the first '+' (offset) */
	size_t sym_len;
	const char *dso;     /* inside the parentheses; len 0 when absent */
	size_t dso_len;
	int is_category;     /* dso is exactly "[category]" */
};

/* Classifies a line (without its '\n'). */
enum ix_line_kind ix_line_kind(const char *s, size_t len);

/* @return 0 and *ev filled, or -1 when no timestamp is found. */
int ix_parse_event(const char *s, size_t len, struct ix_event_line *ev);

/* @return 0 and *fr filled, or -1 when the line is not a frame. */
int ix_parse_frame(const char *s, size_t len, struct ix_frame_line *fr);

/*
 * Finds "metric_<name>: <value>, <delta>" in text (name as written after
 * "metric_", e.g. "erlang_reductions").
 * @return 1 and the numbers, or 0 when absent or malformed.
 */
int ix_find_metric(const char *s, size_t len, const char *name, size_t nlen, int64_t *value,
		    int64_t *delta);

/*
 * Iterates over the metric names on an event's rest: pass *pos = 0 first.
 * @return 1 with the next name, 0 when there are no more.
 */
int ix_next_metric(const char *s, size_t len, size_t *pos, const char **name, size_t *nlen);

/*
 * Like ix_next_metric, with the numbers: @return 1 with the next name and
 * its value and delta (as ix_find_metric reads them), 0 when there are no
 * more, -1 when the next one's numbers are malformed.
 */
int ix_next_metric_value(const char *s, size_t len, size_t *pos, const char **name,
			  size_t *nlen, int64_t *value, int64_t *delta);

#endif
