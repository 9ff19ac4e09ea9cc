/*
 * internal.h - shared by the files of formatter/ only; the room's interface
 * is formatter.h. Everything here writes through one bounded writer, so the
 * snprintf contract of formatter.h holds by construction: bytes that do not
 * fit are counted, not written.
 */
#ifndef FP_FORMATTER_INTERNAL_H
#define FP_FORMATTER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "formatter.h"

/* ==== The bounded writer (out.c) ==== */

struct fmt_out {
	char *buf;  /* caller's buffer; may be NULL when cap is 0 */
	size_t cap; /* its size */
	size_t len; /* bytes the whole text needs so far (may exceed cap) */
};

void fmt_out_init(struct fmt_out *o, char *buf, size_t cap);
/* NUL-terminates when there is room and returns o->len (snprintf-like). */
size_t fmt_out_finish(struct fmt_out *o);
void fmt_put(struct fmt_out *o, const char *s, size_t n);
void fmt_puts(struct fmt_out *o, const char *s);
void fmt_putc(struct fmt_out *o, char c);
void fmt_put_u64(struct fmt_out *o, uint64_t v);
void fmt_put_i64(struct fmt_out *o, int64_t v);
/* v as exactly `width` decimal digits, zero-padded (v < 10^width). */
void fmt_put_u64_padded(struct fmt_out *o, uint64_t v, unsigned width);

/* ==== The symbol escape (escape.c) ==== */

/* Extra bytes escaped on top of the always-escaped set, per field. */
#define FMT_ESC_COLON 1u /* ':' - module and file names (see output-format.md) */

void fmt_put_escaped(struct fmt_out *o, const char *s, size_t n, unsigned extra);
/* Writes bytes s[0..n) as %XX each, uppercase hex. */
void fmt_put_pct(struct fmt_out *o, const char *s, size_t n);

/* ==== Per-process previous metrics (deltas.c) ==== */

struct fmt_prev {
	uint32_t pid_number, pid_serial;
	int64_t time_us;                  /* time written for its last sample */
	int64_t metrics[FP_METRIC_COUNT]; /* values of its last sample */
};

struct fmt_deltas {
	struct fmt_prev *slots; /* open addressing, linear probing */
	unsigned char *used;    /* 1 where slots[i] holds an entry */
	size_t cap;             /* power of two */
	size_t count;
};

int fmt_deltas_init(struct fmt_deltas *d);
void fmt_deltas_free(struct fmt_deltas *d);
/* @return the process's previous sample, or NULL on its first. */
const struct fmt_prev *fmt_deltas_find(const struct fmt_deltas *d, uint32_t number,
				       uint32_t serial);
/* Records a sample written at time_us (the newest so far). Never fails: when
 * the table cannot grow, it evicts the stalest process instead. */
void fmt_deltas_put(struct fmt_deltas *d, uint32_t number, uint32_t serial, int64_t time_us,
		    const int64_t metrics[FP_METRIC_COUNT]);

/* ==== Tiers (tiers.c) ==== */

/* One --tier pattern, its texts copied and measured. */
struct fmt_tier {
	const char *name, *module, *function;
	size_t name_len, module_len, function_len;
	int any_module, any_function; /* "_" */
	int arity;                    /* -1: any */
	int alias;                    /* an Elixir alias: 'Elixir.MOD' or 'MOD' */
};

struct fmt_tiers {
	struct fmt_tier *v;
	size_t n;
	char *text; /* every copied text, one block */
};

/* Copies the n patterns p. @return 0, or -1 when out of memory (t empty). */
int fmt_tiers_init(struct fmt_tiers *t, const struct fp_tier_pattern *p, size_t n);
void fmt_tiers_free(struct fmt_tiers *t);
/* @return the index of the tier of the innermost frame of s that matches
 * one (the first given, when several match that frame), or -1. */
long fmt_tiers_match(const struct fmt_tiers *t, const struct fp_sample *s);

/* ==== Category frames (categories.c) ==== */

const char *fmt_memory_bucket(int64_t bytes);
const char *fmt_queue_bucket(int64_t len);
/* Writes the category frame lines of s, cats given root-most first; tier
 * is the tier frame's name (len 0: none). */
void fmt_put_categories(struct fmt_out *o, const struct fp_sample *s,
			const enum fmt_category *cats, size_t ncats, struct fp_str tier);

#endif
