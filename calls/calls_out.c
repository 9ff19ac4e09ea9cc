/*
 * calls_out.c - tprof's table, JSON and folded lines for `flameprof calls`.
 *
 * The table follows OTP 27's tprof:format/1: columns sized to their
 * widest cell, FUNCTION left-aligned and the numbers right-aligned, PER
 * CALL with two decimals, the share in brackets, and a last line with the
 * total and [100.0]. tprof sorts ascending by default; we sort from the
 * largest, so that --top N keeps the N that matter.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "calls_out.h"
#include "../common/text.h"

const char *calls_type_name(enum calls_type t)
{
	return t == CALLS_TIME ? "time" : t == CALLS_MEMORY ? "memory" : "count";
}

/* What a row is ranked by: the measure, or the calls for count. */
static uint64_t value(const struct calls_result *r, const struct calls_row *row)
{
	return r->type == CALLS_COUNT ? row->calls : row->measure;
}

/* A row and the total of its process's table, while sorting. */
struct ranked {
	struct calls_row row;
	uint64_t group;
};

static enum calls_type sort_type;

static int by_pid(const void *a, const void *b)
{
	return strcmp(((const struct calls_row *)a)->pid, ((const struct calls_row *)b)->pid);
}

/* The largest process first, then its rows from the largest. */
static int by_rank(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->group != y->group)
		return x->group > y->group ? -1 : 1;
	int c = strcmp(x->row.pid, y->row.pid);
	if (c)
		return c;
	uint64_t vx = sort_type == CALLS_COUNT ? x->row.calls : x->row.measure;
	uint64_t vy = sort_type == CALLS_COUNT ? y->row.calls : y->row.measure;
	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (x->row.calls != y->row.calls)
		return x->row.calls > y->row.calls ? -1 : 1;
	return strcmp(x->row.mfa, y->row.mfa);
}

int calls_sort(struct calls_result *r)
{
	if (r->nrows < 2)
		return 0;
	struct ranked *t = malloc(r->nrows * sizeof *t);
	if (!t)
		return -1;
	qsort(r->rows, r->nrows, sizeof *r->rows, by_pid);
	for (size_t from = 0, to; from < r->nrows; from = to) {
		uint64_t sum = 0;
		for (to = from; to < r->nrows && strcmp(r->rows[to].pid, r->rows[from].pid) == 0; to++)
			sum += value(r, &r->rows[to]);
		for (size_t k = from; k < to; k++)
			t[k] = (struct ranked){ r->rows[k], sum };
	}
	sort_type = r->type;
	qsort(t, r->nrows, sizeof *t, by_rank);
	for (size_t k = 0; k < r->nrows; k++)
		r->rows[k] = t[k].row;
	free(t);
	return 0;
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

static int digits(uint64_t v)
{
	char t[32];
	return snprintf(t, sizeof t, "%" PRIu64, v);
}

static int max_i(int a, int b)
{
	return a > b ? a : b;
}

/* One table over rows [from, to): the widths first, then the lines. */
static void table(FILE *f, const struct calls_result *r, size_t from, size_t to, size_t top)
{
	const char *label = r->type == CALLS_TIME ? "TIME (us)" : "WORDS";
	uint64_t total = 0, total_calls = 0;
	size_t shown = top && to - from > top ? top : to - from;
	int wf = (int)strlen("FUNCTION"), wc = 5, wv = (int)strlen(label), wp = 8;
	char pc[64];

	for (size_t k = from; k < to; k++) {
		total += value(r, &r->rows[k]);
		total_calls += r->rows[k].calls;
	}
	wc = max_i(wc, digits(total_calls));
	wv = max_i(wv, digits(total));
	for (size_t k = from; k < from + shown; k++) {
		const struct calls_row *row = &r->rows[k];
		wf = max_i(wf, (int)strlen(row->mfa));
		wc = max_i(wc, digits(row->calls));
		wp = max_i(wp, snprintf(pc, sizeof pc, "%.2f", ratio(row->measure, row->calls)));
	}
	if (r->type == CALLS_COUNT) {
		fprintf(f, "%-*s  %*s  [%6s]\n", wf, "FUNCTION", wc, "CALLS", "%");
		for (size_t k = from; k < from + shown; k++) {
			const struct calls_row *row = &r->rows[k];
			fprintf(f, "%-*s  %*" PRIu64 "  [%6.2f]\n", wf, row->mfa, wc, row->calls,
				100.0 * ratio(row->calls, total_calls));
		}
		if (shown < to - from)
			fprintf(f, "... %zu more\n", to - from - shown);
		fprintf(f, "%-*s  %*" PRIu64 "  [%6s]\n", wf, "", wc, total_calls, "100.0");
		return;
	}
	fprintf(f, "%-*s  %*s  %*s  %*s  [%6s]\n", wf, "FUNCTION", wc, "CALLS", wv, label, wp, "PER CALL", "%");
	for (size_t k = from; k < from + shown; k++) {
		const struct calls_row *row = &r->rows[k];
		fprintf(f, "%-*s  %*" PRIu64 "  %*" PRIu64 "  %*.2f  [%6.2f]\n", wf, row->mfa, wc, row->calls,
			wv, row->measure, wp, ratio(row->measure, row->calls), 100.0 * ratio(row->measure, total));
	}
	if (shown < to - from)
		fprintf(f, "... %zu more\n", to - from - shown);
	fprintf(f, "%-*s  %*" PRIu64 "  %*" PRIu64 "  %*s  [%6s]\n", wf, "", wc, total_calls, wv, total, wp, "",
		"100.0");
}

int calls_write_table(FILE *f, const struct calls_result *r, size_t top)
{
	if (r->nrows == 0) {
		fprintf(f, "no calls of the traced functions\n");
		return ferror(f) ? -1 : 0;
	}
	int per_process = r->rows[0].pid[0] != '\0';
	if (!per_process) {
		table(f, r, 0, r->nrows, top);
		return ferror(f) ? -1 : 0;
	}
	uint64_t grand = 0;
	for (size_t k = 0; k < r->nrows; k++)
		grand += value(r, &r->rows[k]);
	for (size_t from = 0; from < r->nrows;) {
		size_t to = from;
		uint64_t sum = 0;
		while (to < r->nrows && strcmp(r->rows[to].pid, r->rows[from].pid) == 0)
			sum += value(r, &r->rows[to++]);
		const char *name = r->rows[from].name ? r->rows[from].name : "";
		fprintf(f, "%s****** Process %s%s%s%s  --  %.2f %% of total ***\n", from ? "\n" : "",
			r->rows[from].pid, *name ? " (" : "", name, *name ? ")" : "", 100.0 * ratio(sum, grand));
		table(f, r, from, to, top);
		from = to;
	}
	return ferror(f) ? -1 : 0;
}

/* ---------------------------------------------------------------- JSON */

int calls_write_json(FILE *f, const struct calls_result *r, const char *node)
{
	uint64_t total = 0;
	for (size_t k = 0; k < r->nrows; k++)
		total += value(r, &r->rows[k]);
	fprintf(f, "{\"node\": ");
	fp_json_string(f, node);
	fprintf(f, ", \"type\": \"%s\", \"duration_us\": %" PRId64 ", \"rows_left_out\": %" PRIu64 ",\n \"reloaded\": [",
		calls_type_name(r->type), r->elapsed_us, r->rows_left_out);
	for (size_t k = 0; k < r->nreloaded; k++) {
		fputs(k ? ", " : "", f);
		fp_json_string(f, r->reloaded[k]);
	}
	fprintf(f, "],\n \"ended_early\": ");
	if (r->overload)
		fprintf(f, "{\"run_queue\": %" PRIu64 ", \"limit\": %" PRIu64 "}", r->run_queue, r->run_queue_limit);
	else
		fputs("null", f);
	fprintf(f, ",\n \"rows\": [");
	for (size_t k = 0; k < r->nrows; k++) {
		const struct calls_row *row = &r->rows[k];
		fprintf(f, "%s\n  {\"mfa\": ", k ? "," : "");
		fp_json_string(f, row->mfa);
		fprintf(f, ", \"calls\": %" PRIu64, row->calls);
		if (r->type != CALLS_COUNT)
			fprintf(f, ", \"%s\": %" PRIu64 ", \"per_call\": %.2f", r->type == CALLS_TIME ? "time_us" : "words",
				row->measure, ratio(row->measure, row->calls));
		fprintf(f, ", \"percent\": %.2f", 100.0 * ratio(value(r, row), total));
		if (row->pid[0]) {
			fprintf(f, ", \"pid\": ");
			fp_json_string(f, row->pid);
		}
		if (row->name && row->name[0]) {
			fprintf(f, ", \"process\": ");
			fp_json_string(f, row->name);
		}
		fputc('}', f);
	}
	fprintf(f, "%s]}\n", r->nrows ? "\n " : "");
	return ferror(f) ? -1 : 0;
}

/* ---------------------------------------------------------------- folded */

int calls_write_folded(FILE *f, const struct calls_result *r)
{
	for (size_t k = 0; k < r->nrows; k++) {
		const struct calls_row *row = &r->rows[k];
		if (value(r, row) == 0)
			continue; /* a frame of width 0 draws nothing */
		/* as the flame graph: the process's name (or initial call) root-most */
		if (row->name && row->name[0])
			fprintf(f, "%s;", row->name);
		if (row->pid[0])
			fprintf(f, "%s;", row->pid);
		fprintf(f, "%s %" PRIu64 "\n", row->mfa, value(r, row));
	}
	return ferror(f) ? -1 : 0;
}
