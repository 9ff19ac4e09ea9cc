/*
 * formatter.h - samples in, Linux `perf script` text out.
 *
 * Pure and boring: no I/O, no ei, no allocation per sample. The caller owns
 * the output buffer. One context per output stream: it remembers each
 * process's previous metrics (for the deltas) and the last timestamp written
 * (timestamps never go backwards in the output).
 *
 * The text format, the escape scheme and the category frames are documented
 * in doc/output-format.md.
 */
#ifndef FP_FORMATTER_H
#define FP_FORMATTER_H

#include <stddef.h>
#include <stdint.h>
#include "../common/mfa_pattern.h"
#include "../common/sample.h"

typedef struct fmt_ctx_s fmt_ctx;

/* Root-most pseudo-frames written after the code frames. */
enum fmt_category {
	FMT_CAT_INITIAL_CALL, /* proc_lib '$initial_call' or initial_call */
	FMT_CAT_NAME,         /* registered name or process label */
	FMT_CAT_MEMORY,       /* bucket of the process's memory */
	FMT_CAT_QUEUE,        /* bucket of the message queue length */
	FMT_CAT_SEQ_TRACE,    /* seq_trace label, only while the process works */
	FMT_CAT_TIER,         /* the innermost --tier its stack is in */
	FMT_CAT_COUNT
};

struct fmt_options {
	/* Category frames, root-most first (the first listed is the outermost
	 * level under the status). NULL/0: none. At most FMT_CAT_COUNT. */
	const enum fmt_category *categories;
	size_t ncategories;
	/* The patterns of FMT_CAT_TIER (copied by fmt_create). NULL/0: none. */
	const struct fp_tier_pattern *tiers;
	size_t ntiers;
	/* The statuses written, a bit (1u << enum fp_status) each; 0: all. A
	 * sample of another status is not written, but still counts for its
	 * process's next deltas and in fmt_counts(). */
	unsigned statuses;
};

/* The on-CPU statuses: running and garbage_collecting (the capture's and
 * the report's default; waiting, runnable, suspended and exiting samples
 * make the wall-clock view). */
#define FMT_ON_CPU ((1u << FP_STATUS_RUNNING) | (1u << FP_STATUS_GARBAGE_COLLECTING))
#define FMT_ALL_STATUSES ((1u << FP_STATUS_COUNT) - 1)

/* Parses "on-cpu", "all" or a comma-separated list of status names
 * (running,runnable,waiting,garbage_collecting,exiting,suspended) into a
 * mask for fmt_options.statuses. @return 0, or -1 when a name is unknown. */
int fmt_status_parse(const char *text, unsigned *mask);

/* Samples seen so far, by status: written, and not written (their status
 * is not in fmt_options.statuses). */
void fmt_counts(const fmt_ctx *ctx, uint64_t written[FP_STATUS_COUNT],
		uint64_t hidden[FP_STATUS_COUNT]);

/* @return a new context, or NULL when out of memory. */
fmt_ctx *fmt_create(const struct fmt_options *opts);
void fmt_free(fmt_ctx *ctx);

/*
 * Formats one event (event line, frames, category frames, blank line) into
 * buf. Like snprintf: @return the length of the whole event; when that is
 * >= cap nothing usable was written and the context is unchanged, so the
 * caller grows buf and calls again. On success the context records the
 * process's metrics and the timestamp; *time_us_out (if not NULL) receives
 * the timestamp actually written (clamped to be non-decreasing and never an
 * exact whole second). A sample whose status is not written returns 0 and
 * writes nothing (its metrics still make the deltas of the next).
 */
size_t fmt_event(fmt_ctx *ctx, const struct fp_sample *s, char *buf, size_t cap,
		 int64_t *time_us_out);

/*
 * The tier of s, as its FMT_CAT_TIER frame names it: the index in
 * fmt_options.tiers of the pattern that matches the innermost (leaf-most)
 * frame of s that any pattern matches (the first given, when several match
 * that frame). A frame whose arity the node did not give matches only
 * ARITY '_'. @return that index, or -1 when no frame matches.
 */
long fmt_tier_of(const fmt_ctx *ctx, const struct fp_sample *s);

/*
 * Writes the '#' comment lines that open every file: tool version, node,
 * sampling settings, the metric list. Same snprintf contract.
 */
size_t fmt_header(const char *node, const char *settings, char *buf, size_t cap);

/*
 * The tid written for the pid <0.N.S>: S * 2^32 + N, so N for the usual
 * serial 0. Unique per process within a file; N = tid mod 2^32 and
 * S = tid / 2^32 give the pid back.
 */
uint64_t fmt_tid(uint32_t pid_number, uint32_t pid_serial);

/* Parses a category name ("initial_call", "name", "memory", "queue",
 * "seq_trace", "tier"). @return 0 and *out set, or -1 when unknown. */
int fmt_category_parse(const char *name, size_t len, enum fmt_category *out);
extern const char *const fmt_category_names[FMT_CAT_COUNT];

/*
 * The reversible symbol escape (exported for tests and for `report`):
 * writes the escaped form of src into dst, snprintf contract.
 * fmt_unescape reverses it; @return the unescaped length or -1 if malformed.
 */
size_t fmt_escape(const char *src, size_t len, char *dst, size_t cap);
long fmt_unescape(const char *src, size_t len, char *dst, size_t cap);

#endif
