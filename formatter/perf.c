/*
 * perf.c - one sample in, one Linux `perf script` event out; the file header.
 *
 * The format and the reader rules behind each choice are in
 * doc/output-format.md ("Reader rules and where they are met"; the reasons
 * in doc/design.md). tests/readers.py checks output
 * against every rule.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#ifndef FP_VERSION
#define FP_VERSION "unknown"
#endif

#define US_PER_S INT64_C(1000000)

struct fmt_ctx_s {
	enum fmt_category cats[FMT_CAT_COUNT]; /* root-most first */
	size_t ncats;
	int64_t last_time_us; /* last time written; -1 before the first event */
	struct fmt_deltas deltas;
	struct fmt_tiers tiers;
	int want_tier;        /* FMT_CAT_TIER is among cats */
	unsigned statuses;    /* written; see fmt_options */
	uint64_t written[FP_STATUS_COUNT], hidden[FP_STATUS_COUNT];
};

fmt_ctx *fmt_create(const struct fmt_options *opts)
{
	fmt_ctx *ctx = calloc(1, sizeof *ctx);
	size_t i;

	if (!ctx)
		return NULL;
	if (fmt_deltas_init(&ctx->deltas) < 0) {
		free(ctx);
		return NULL;
	}
	if (opts && fmt_tiers_init(&ctx->tiers, opts->tiers, opts->ntiers) < 0) {
		fmt_free(ctx);
		return NULL;
	}
	ctx->last_time_us = -1;
	ctx->statuses = opts && opts->statuses ? opts->statuses : FMT_ALL_STATUSES;
	/* Unknown values are skipped and the list is cut at FMT_CAT_COUNT:
	 * the front door parses categories with fmt_category_parse(). */
	for (i = 0; opts && opts->categories && i < opts->ncategories; i++) {
		unsigned c = (unsigned)opts->categories[i];
		if (c < FMT_CAT_COUNT && ctx->ncats < FMT_CAT_COUNT)
			ctx->cats[ctx->ncats++] = (enum fmt_category)c;
		ctx->want_tier |= c == FMT_CAT_TIER;
	}
	return ctx;
}

void fmt_free(fmt_ctx *ctx)
{
	if (!ctx)
		return;
	fmt_deltas_free(&ctx->deltas);
	fmt_tiers_free(&ctx->tiers);
	free(ctx);
}

long fmt_tier_of(const fmt_ctx *ctx, const struct fp_sample *s)
{
	return fmt_tiers_match(&ctx->tiers, s);
}

/*
 * The time to write: never negative, never before the previous event
 * (Flamescope's heatmap and speedscope need time order), never an exact
 * whole second (Flamescope's heatmap crashes when the last event is one).
 */
static int64_t event_time(const fmt_ctx *ctx, int64_t t)
{
	if (t < 0)
		t = 0;
	if (t < ctx->last_time_us)
		t = ctx->last_time_us; /* never a whole second, see below */
	if (t % US_PER_S == 0)
		t += 1;
	return t;
}

static void put_event_line(struct fmt_out *o, const struct fp_sample *s, int64_t t,
			   const struct fmt_prev *prev)
{
	unsigned st = (unsigned)s->status;
	int m;

	/* comm: letters and '_' only (Flamescope cuts comm at the first digit) */
	fmt_puts(o, st < FP_STATUS_COUNT ? fp_status_names[st] : "unknown");
	fmt_putc(o, ' ');
	/* One number, the tid, as plain `perf script` writes it: Firefox
	 * Profiler makes a thread of each tid, speedscope a profile of each
	 * comm and tid. */
	fmt_put_u64(o, fmt_tid(s->pid_number, s->pid_serial));
	fmt_puts(o, " [000] ");
	fmt_put_u64(o, (uint64_t)(t / US_PER_S));
	fmt_putc(o, '.');
	fmt_put_u64_padded(o, (uint64_t)(t % US_PER_S), 6);
	fmt_puts(o, ": 1 cpu-clock:");
	for (m = 0; m < FP_METRIC_COUNT; m++) {
		int64_t v = s->metrics[m];
		/* wraps instead of overflowing (implementation-defined, not UB) */
		int64_t d = prev ? (int64_t)((uint64_t)v - (uint64_t)prev->metrics[m]) : 0;
		fmt_puts(o, "\tmetric_erlang_");
		fmt_puts(o, fp_metric_names[m]);
		fmt_puts(o, ": ");
		fmt_put_i64(o, v);
		fmt_puts(o, ", ");
		fmt_put_i64(o, d);
	}
	fmt_putc(o, '\n');
}

/* A function written without "/Arity" must not look like one that has it:
 * if its name ends in "/<digits>", that '/' is escaped. */
static void put_function(struct fmt_out *o, const struct fp_frame *f)
{
	const char *p = f->function.ptr;
	size_t n = f->function.len, i = n;

	if (f->arity >= 0) {
		fmt_put_escaped(o, p, n, 0);
		fmt_putc(o, '/');
		fmt_put_u64(o, (uint64_t)f->arity);
		return;
	}
	while (i > 0 && p[i - 1] >= '0' && p[i - 1] <= '9')
		i--;
	if (i > 0 && i < n && p[i - 1] == '/') {
		fmt_put_escaped(o, p, i - 1, 0);
		fmt_put_pct(o, "/", 1);
		fmt_put_escaped(o, p + i, n - i, 0);
	} else {
		fmt_put_escaped(o, p, n, 0);
	}
}

static void put_frame(struct fmt_out *o, const struct fp_frame *f)
{
	fmt_puts(o, "\t0 ");
	/* the module ends at the first ':', so a ':' inside it is escaped */
	fmt_put_escaped(o, f->module.ptr, f->module.len, FMT_ESC_COLON);
	fmt_putc(o, ':');
	put_function(o, f);
	fmt_puts(o, " (");
	if (f->file.len == 0) {
		fmt_puts(o, "[unknown]");
	} else {
		/* the line follows the last ':', so a ':' in the path is escaped */
		fmt_put_escaped(o, f->file.ptr, f->file.len, FMT_ESC_COLON);
		if (f->line) {
			fmt_putc(o, ':');
			fmt_put_u64(o, f->line);
		}
	}
	fmt_puts(o, ")\n");
}

size_t fmt_event(fmt_ctx *ctx, const struct fp_sample *s, char *buf, size_t cap,
		 int64_t *time_us_out)
{
	struct fmt_out o;
	int64_t t = event_time(ctx, s->time_us);
	const struct fmt_prev *prev = fmt_deltas_find(&ctx->deltas, s->pid_number, s->pid_serial);
	size_t i, nframes = s->frames ? s->nframes : 0, written = 0, len;
	unsigned st = (unsigned)s->status < FP_STATUS_COUNT ? (unsigned)s->status : FP_STATUS_WAITING;

	if (!(ctx->statuses & (1u << st))) {
		ctx->hidden[st]++;
		fmt_deltas_put(&ctx->deltas, s->pid_number, s->pid_serial, s->time_us, s->metrics);
		return 0;
	}
	fmt_out_init(&o, buf, cap);
	put_event_line(&o, s, t, prev);
	for (i = 0; i < nframes; i++) {
		if (s->frames[i]) {
			put_frame(&o, s->frames[i]);
			written++;
		}
	}
	/* An empty stack still gets a frame, so the event is not just its comm;
	 * '[' is always escaped in atoms, so no real frame can read so. A
	 * stack not read in time says so: the CPU was that process's, the code
	 * is not known. */
	if (written == 0)
		fmt_puts(&o, s->stack_late ? "\t0 [ran_to_receive] ([unknown])\n"
		                           : "\t0 [no_stack] ([unknown])\n");
	struct fp_str tier = { NULL, 0 };
	if (ctx->want_tier) {
		long k = fmt_tiers_match(&ctx->tiers, s);
		if (k >= 0)
			tier = (struct fp_str){ ctx->tiers.v[k].name, ctx->tiers.v[k].name_len };
	}
	fmt_put_categories(&o, s, ctx->cats, ctx->ncats, tier);
	fmt_putc(&o, '\n'); /* a blank line ends the event */
	len = fmt_out_finish(&o);
	if (len >= cap)
		return len; /* the caller grows buf and calls again: no state change */

	ctx->last_time_us = t;
	ctx->written[st]++;
	fmt_deltas_put(&ctx->deltas, s->pid_number, s->pid_serial, t, s->metrics);
	if (time_us_out)
		*time_us_out = t;
	return len;
}

int fmt_status_parse(const char *text, unsigned *mask)
{
	*mask = 0;
	if (strcmp(text, "on-cpu") == 0) {
		*mask = FMT_ON_CPU;
		return 0;
	}
	if (strcmp(text, "all") == 0) {
		*mask = FMT_ALL_STATUSES;
		return 0;
	}
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, ","), k;
		for (k = 0; k < FP_STATUS_COUNT; k++)
			if (strlen(fp_status_names[k]) == n && memcmp(fp_status_names[k], p, n) == 0)
				break;
		if (k == FP_STATUS_COUNT)
			return -1;
		*mask |= 1u << k;
		p += n;
		if (*p == ',' && p[1])
			p++;
		else if (*p == ',')
			return -1;
	}
	return *mask ? 0 : -1;
}

void fmt_counts(const fmt_ctx *ctx, uint64_t written[FP_STATUS_COUNT],
		uint64_t hidden[FP_STATUS_COUNT])
{
	memcpy(written, ctx->written, sizeof ctx->written);
	memcpy(hidden, ctx->hidden, sizeof ctx->hidden);
}

/* ==== Header ==== */

/* Units as the node reports them (erlang:process_info/2). */
static const char *const metric_units[FP_METRIC_COUNT] = {
	[FP_M_REDUCTIONS] = "count",
	[FP_M_MESSAGE_QUEUE_LEN] = "count",
	[FP_M_MEMORY] = "bytes",
	[FP_M_TOTAL_HEAP_SIZE] = "words",
	[FP_M_HEAP_BLOCK_SIZE] = "words",
	[FP_M_OLD_HEAP_BLOCK_SIZE] = "words",
	[FP_M_HEAP_SIZE] = "words",
	[FP_M_OLD_HEAP_SIZE] = "words",
	[FP_M_STACK_SIZE] = "words",
	[FP_M_MBUF_SIZE] = "words",
	[FP_M_RECENT_SIZE] = "words",
	[FP_M_BIN_VHEAP_SIZE] = "words",
	[FP_M_BIN_VHEAP_BLOCK_SIZE] = "words",
	[FP_M_BIN_OLD_VHEAP_SIZE] = "words",
	[FP_M_BIN_OLD_VHEAP_BLOCK_SIZE] = "words",
	[FP_M_MINOR_GCS] = "count",
};

/* Header text stays on its '#' line: control bytes (and '%', so it stays
 * reversible) become %XX, everything else is kept for people to read. */
static void put_comment_text(struct fmt_out *o, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f || c == '%')
			fmt_put_pct(o, s, 1);
		else
			fmt_putc(o, *s);
	}
}

size_t fmt_header(const char *node, const char *settings, char *buf, size_t cap)
{
	struct fmt_out o;
	int m;

	fmt_out_init(&o, buf, cap);
	/* `perf script --header` opens with this line, and Firefox Profiler
	 * takes a file that starts with it for perf text. */
	fmt_puts(&o, "# ========\n");
	fmt_puts(&o, "# flameprof " FP_VERSION
		     ": Erlang process samples as perf script text (doc/output-format.md)\n");
	fmt_puts(&o, "# node: ");
	put_comment_text(&o, node && *node ? node : "unknown");
	fmt_puts(&o, "\n# settings: ");
	put_comment_text(&o, settings);
	fmt_puts(&o, "\n# comm is the process status, tid the pid <0.N.S> as S*4294967296+N; "
		     "each metric is 'value, delta since this process's previous sample'\n");
	for (m = 0; m < FP_METRIC_COUNT; m++) {
		fmt_puts(&o, "# metric_erlang_");
		fmt_puts(&o, fp_metric_names[m]);
		fmt_puts(&o, ": ");
		fmt_puts(&o, metric_units[m]);
		fmt_putc(&o, '\n');
	}
	fmt_puts(&o, "# ========\n#\n"); /* as perf ends its header */
	return fmt_out_finish(&o);
}

uint64_t fmt_tid(uint32_t pid_number, uint32_t pid_serial)
{
	return ((uint64_t)pid_serial << 32) | pid_number;
}
