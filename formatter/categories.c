/*
 * categories.c - the root-most pseudo-frames: initial call, name, memory and
 * queue buckets, seq_trace label, tier.
 *
 * Each is one frame line "\t0 <category>:<value> ([category])": the dso marks
 * it as ours (real frames have a file or "[unknown]"), and the symbol starts
 * with a letter, never with '(' (stackcollapse-perf.pl drops those).
 * Bucket names are fixed text chosen to be harmless to every reader: no '+',
 * no "->", no spaces.
 */
#include <string.h>
#include "internal.h"

const char *const fmt_category_names[FMT_CAT_COUNT] = {
	"initial_call", "name", "memory", "queue", "seq_trace", "tier",
};

int fmt_category_parse(const char *name, size_t len, enum fmt_category *out)
{
	int i;

	for (i = 0; i < FMT_CAT_COUNT; i++) {
		if (strlen(fmt_category_names[i]) == len &&
		    memcmp(fmt_category_names[i], name, len) == 0) {
			*out = (enum fmt_category)i;
			return 0;
		}
	}
	return -1;
}

/* Powers of 16 from 4 KiB: a process's memory spans 2.6 KiB (a fresh
 * process) to gigabytes, and each bucket is one readable step. */
const char *fmt_memory_bucket(int64_t bytes)
{
	if (bytes < INT64_C(4) << 10)
		return "<4KiB";
	if (bytes < INT64_C(64) << 10)
		return "4KiB-64KiB";
	if (bytes < INT64_C(1) << 20)
		return "64KiB-1MiB";
	if (bytes < INT64_C(16) << 20)
		return "1MiB-16MiB";
	if (bytes < INT64_C(256) << 20)
		return "16MiB-256MiB";
	return "256MiB-or-more";
}

/* Decades: an empty mailbox is the normal case and gets its own bucket. */
const char *fmt_queue_bucket(int64_t len)
{
	if (len <= 0)
		return "0";
	if (len < 10)
		return "1-9";
	if (len < 100)
		return "10-99";
	if (len < 1000)
		return "100-999";
	if (len < 10000)
		return "1000-9999";
	return "10000-or-more";
}

static void frame_start(struct fmt_out *o, enum fmt_category c)
{
	fmt_puts(o, "\t0 ");
	fmt_puts(o, fmt_category_names[c]);
	fmt_putc(o, ':');
}

static void frame_end(struct fmt_out *o)
{
	fmt_puts(o, " ([category])\n");
}

static void put_text(struct fmt_out *o, enum fmt_category c, struct fp_str v)
{
	if (v.len == 0)
		return; /* absent: no frame at all */
	frame_start(o, c);
	fmt_put_escaped(o, v.ptr, v.len, 0);
	frame_end(o);
}

static void put_bucket(struct fmt_out *o, enum fmt_category c, const char *bucket)
{
	frame_start(o, c);
	fmt_puts(o, bucket);
	frame_end(o);
}

/* A process keeps its seq_trace token after the work that set it: waiting
 * in receive for the next message, it still carries the last request's
 * label. Only a process that is working shows it, so the label frame
 * splits the work of each request kind, not idle processes. */
static int working(enum fp_status status)
{
	return status == FP_STATUS_RUNNING || status == FP_STATUS_RUNNABLE ||
	       status == FP_STATUS_GARBAGE_COLLECTING;
}

void fmt_put_categories(struct fmt_out *o, const struct fp_sample *s,
			const enum fmt_category *cats, size_t ncats, struct fp_str tier)
{
	/* Given root-most first, written leaf-most first: perf script lists
	 * the leaf first and the root last. */
	while (ncats-- > 0) {
		switch (cats[ncats]) {
		case FMT_CAT_INITIAL_CALL:
			put_text(o, FMT_CAT_INITIAL_CALL, s->initial_call);
			break;
		case FMT_CAT_NAME:
			put_text(o, FMT_CAT_NAME, s->name);
			break;
		case FMT_CAT_MEMORY:
			put_bucket(o, FMT_CAT_MEMORY, fmt_memory_bucket(s->metrics[FP_M_MEMORY]));
			break;
		case FMT_CAT_QUEUE:
			put_bucket(o, FMT_CAT_QUEUE,
				   fmt_queue_bucket(s->metrics[FP_M_MESSAGE_QUEUE_LEN]));
			break;
		case FMT_CAT_SEQ_TRACE:
			if (working(s->status))
				put_text(o, FMT_CAT_SEQ_TRACE, s->seq_label);
			break;
		case FMT_CAT_TIER:
			put_text(o, FMT_CAT_TIER, tier);
			break;
		case FMT_CAT_COUNT:
			break;
		}
	}
}
