/*
 * test_formatter.c - fmt_event/fmt_header: the perf-script text, deltas per
 * process, time clamping, category frames, the snprintf contract.
 *
 * With FP_READERS_OUT=<path> in the environment it also writes a file of
 * events with hostile atoms there, for tests/unit/formatter_readers.t to run
 * tests/readers.py on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include "tap.h"
#include "../../formatter/formatter.h"

#define S(lit) ((struct fp_str){ (lit), sizeof(lit) - 1 })
#define NONE ((struct fp_str){ NULL, 0 })

static char buf[1 << 20];

static struct fp_frame frame(struct fp_str m, struct fp_str f, int arity, struct fp_str file,
			     unsigned line)
{
	struct fp_frame fr = { m, f, arity, file, line };
	return fr;
}

static struct fp_sample sample(int64_t t, uint32_t num, uint32_t ser, int64_t base)
{
	struct fp_sample s;
	int m;

	memset(&s, 0, sizeof s);
	s.time_us = t;
	s.pid_number = num;
	s.pid_serial = ser;
	s.status = FP_STATUS_RUNNING;
	for (m = 0; m < FP_METRIC_COUNT; m++)
		s.metrics[m] = base + m;
	return s;
}

static size_t event(fmt_ctx *ctx, const struct fp_sample *s, int64_t *t)
{
	return fmt_event(ctx, s, buf, sizeof buf, t);
}

static int count_str(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* "<value>, <delta>" of one metric on the event line in buf. */
static const char *metric(const char *name)
{
	static char out[64];
	char key[64];
	const char *p;
	size_t n;

	snprintf(key, sizeof key, "\tmetric_erlang_%s: ", name);
	p = strstr(buf, key);
	if (!p)
		return "(missing)";
	p += strlen(key);
	n = strcspn(p, "\t\n");
	if (n >= sizeof out)
		n = sizeof out - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return out;
}

/* Line k (0-based) of buf, without its newline. */
static const char *line(int k)
{
	static char out[4096];
	const char *p = buf;
	size_t n;

	while (k-- > 0) {
		p = strchr(p, '\n');
		if (!p)
			return "(no such line)";
		p++;
	}
	n = strcspn(p, "\n");
	if (n >= sizeof out)
		n = sizeof out - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return out;
}

/* ==== The event format ==== */

static void test_event_format(void)
{
	fmt_ctx *ctx = fmt_create(NULL);
	struct fp_frame f0 = frame(S("lists"), S("foldl"), 3, S("lists.erl"), 1263);
	struct fp_frame f1 = frame(S("proc_lib"), S("init_p_do_apply"), 3, S("proc_lib.erl"), 240);
	const struct fp_frame *frames[] = { &f0, &f1 };
	struct fp_sample s = sample(INT64_C(1700000000123456), 123, 4, 10);
	int64_t t = 0;
	size_t n;

	s.frames = frames;
	s.nframes = 2;
	n = event(ctx, &s, &t);
	is_str(buf,
	       "running 17179869307 [000] 1700000000.123456: 1 cpu-clock:"
	       "\tmetric_erlang_reductions: 10, 0"
	       "\tmetric_erlang_message_queue_len: 11, 0"
	       "\tmetric_erlang_memory: 12, 0"
	       "\tmetric_erlang_total_heap_size: 13, 0"
	       "\tmetric_erlang_heap_block_size: 14, 0"
	       "\tmetric_erlang_old_heap_block_size: 15, 0"
	       "\tmetric_erlang_heap_size: 16, 0"
	       "\tmetric_erlang_old_heap_size: 17, 0"
	       "\tmetric_erlang_stack_size: 18, 0"
	       "\tmetric_erlang_mbuf_size: 19, 0"
	       "\tmetric_erlang_recent_size: 20, 0"
	       "\tmetric_erlang_bin_vheap_size: 21, 0"
	       "\tmetric_erlang_bin_vheap_block_size: 22, 0"
	       "\tmetric_erlang_bin_old_vheap_size: 23, 0"
	       "\tmetric_erlang_bin_old_vheap_block_size: 24, 0"
	       "\tmetric_erlang_minor_gcs: 25, 0\n"
	       "\t0 lists:foldl/3 (lists.erl:1263)\n"
	       "\t0 proc_lib:init_p_do_apply/3 (proc_lib.erl:240)\n"
	       "\n",
	       "whole event: event line, leaf first, root last, blank line");
	is_int(n, strlen(buf), "returns the length written");
	is_int(t, INT64_C(1700000000123456), "time_us_out is the time written");

	s.status = FP_STATUS_GARBAGE_COLLECTING;
	s.time_us += 1;
	event(ctx, &s, NULL);
	ok(strncmp(buf, "garbage_collecting 17179869307 [000] ", 37) == 0, "comm is the status name");
	s.status = (enum fp_status)FP_STATUS_COUNT;
	event(ctx, &s, NULL);
	ok(strncmp(buf, "unknown 17179869307 ", 20) == 0, "an out-of-range status is 'unknown'");
	fmt_free(ctx);
	fmt_free(NULL);
}

static void test_frames(void)
{
	fmt_ctx *ctx = fmt_create(NULL);
	struct fp_frame nofile = frame(S("erlang"), S("apply"), 2, NONE, 0);
	struct fp_frame line0 = frame(S("m"), S("f"), 0, S("/src/m.erl"), 0);
	struct fp_frame noarity = frame(S("m"), S("g"), -1, S("m.erl"), 7);
	struct fp_frame colon = frame(S("a:b"), S("c:d"), 1, S("/x:y/m.erl"), 3);
	struct fp_frame slashdigits = frame(S("m"), S("h/12"), -1, NONE, 0);
	struct fp_frame slashfun = frame(S("m"), S("-handle_call/3-fun-0-"), 1, NONE, 0);
	struct fp_frame empty = frame(NONE, NONE, 0, NONE, 0);
	const struct fp_frame *frames[] = { &nofile, &line0, &noarity, &colon, &slashdigits,
					    &slashfun, &empty };
	struct fp_sample s = sample(5, 1, 0, 0);

	s.frames = frames;
	s.nframes = 7;
	event(ctx, &s, NULL);
	is_str(line(1), "\t0 erlang:apply/2 ([unknown])", "no file: ([unknown])");
	is_str(line(2), "\t0 m:f/0 (/src/m.erl)", "file but line 0: (file)");
	is_str(line(3), "\t0 m:g (m.erl:7)", "arity -1: no /Arity");
	is_str(line(4), "\t0 a%3Ab:c:d/1 (/x%3Ay/m.erl:3)",
	       "':' escaped in module and file, kept in function");
	is_str(line(5), "\t0 m:h%2F12 ([unknown])",
	       "arity -1 and name ending /digits: that '/' escaped");
	is_str(line(6), "\t0 m:-handle_call/3-fun-0-/1 ([unknown])", "fun names keep their '/'");
	is_str(line(7), "\t0 :/0 ([unknown])", "empty atoms still make a symbol");
	is_str(line(8), "", "then the blank line");

	s.frames = NULL;
	s.nframes = 0;
	s.time_us = 6;
	event(ctx, &s, NULL);
	is_str(line(1), "\t0 [no_stack] ([unknown])", "empty stack: one [no_stack] frame");
	is_str(line(2), "", "and nothing else");

	s.stack_late = 1;
	s.time_us = 7;
	event(ctx, &s, NULL);
	is_str(line(1), "\t0 [ran_to_receive] ([unknown])",
	       "a stack not read in time: one [ran_to_receive] frame");
	is_str(line(2), "", "and nothing else");
	fmt_free(ctx);
}

static void test_deep_stack(void)
{
	fmt_ctx *ctx = fmt_create(NULL);
	static struct fp_frame f[64];
	static const struct fp_frame *frames[64];
	static char names[64][16];
	struct fp_sample s = sample(7, 1, 0, 0);
	int i, good = 1;

	for (i = 0; i < 64; i++) {
		snprintf(names[i], sizeof names[i], "f%d", i);
		f[i] = frame(S("deep"), (struct fp_str){ names[i], strlen(names[i]) }, 1, S("deep.erl"),
			     (unsigned)i + 1);
		frames[i] = &f[i];
	}
	s.frames = frames;
	s.nframes = 64;
	event(ctx, &s, NULL);
	for (i = 0; i < 64; i++) {
		char want[64];
		snprintf(want, sizeof want, "\t0 deep:f%d/1 (deep.erl:%d)", i, i + 1);
		if (strcmp(line(1 + i), want) != 0)
			good = 0;
	}
	ok(good, "64 frames, in order, leaf first");
	is_str(line(65), "", "then the blank line");
	fmt_free(ctx);
}

/* ==== Deltas ==== */

static void test_deltas(void)
{
	fmt_ctx *ctx = fmt_create(NULL);
	struct fp_sample a = sample(1000001, 10, 0, 100);
	struct fp_sample b = sample(1000002, 10, 1, 5000); /* same number, other serial */

	event(ctx, &a, NULL);
	is_int(count_str(buf, ", 0\t") + count_str(buf, ", 0\n"), FP_METRIC_COUNT,
	       "first sample of a process: every delta is 0");
	event(ctx, &b, NULL);
	is_str(metric("reductions"), "5000, 0", "another process's first sample: delta 0");

	a.time_us = 2000001;
	a.metrics[FP_M_REDUCTIONS] = 150;
	a.metrics[FP_M_MEMORY] = 50; /* was 102 */
	event(ctx, &a, NULL);
	is_str(metric("reductions"), "150, 50", "delta against the same process's previous");
	is_str(metric("memory"), "50, -52", "deltas may be negative");
	is_str(metric("minor_gcs"), "115, 0", "unchanged metric: delta 0");

	b.time_us = 2000002;
	b.metrics[FP_M_REDUCTIONS] = 7000;
	event(ctx, &b, NULL);
	is_str(metric("reductions"), "7000, 2000", "interleaved pids keep their own previous");

	a.time_us = 3000001;
	a.metrics[FP_M_REDUCTIONS] = INT64_MIN;
	event(ctx, &a, NULL);
	ok(strstr(buf, "metric_erlang_reductions: -9223372036854775808, ") != NULL,
	   "INT64_MIN printed (delta wraps, no UB)");
	fmt_free(ctx);
}

static void test_stale_processes(void)
{
	fmt_ctx *ctx = fmt_create(NULL);
	struct fp_sample s = sample(1, 1, 0, 100);
	uint32_t i;
	int good = 1;

	/* many live processes: the table grows and keeps them all */
	for (i = 0; i < 5000; i++) {
		s.pid_number = i;
		s.time_us = 1 + i;
		event(ctx, &s, NULL);
	}
	s.metrics[FP_M_REDUCTIONS] = 101;
	for (i = 0; i < 5000; i++) {
		s.pid_number = i;
		s.time_us = 10000 + i;
		event(ctx, &s, NULL);
		if (strcmp(metric("reductions"), "101, 1") != 0)
			good = 0;
	}
	ok(good, "5000 processes within 60 s all keep their previous sample");

	/* 61 s later, a crowd of new processes pushes the old ones out */
	s.metrics[FP_M_REDUCTIONS] = 200;
	for (i = 0; i < 20000; i++) {
		s.pid_number = 100000 + i;
		s.time_us = 61 * INT64_C(1000000) + 20000 + i;
		event(ctx, &s, NULL);
	}
	s.pid_number = 0;
	s.time_us += 1;
	event(ctx, &s, NULL);
	is_str(metric("reductions"), "200, 0", "a process dropped as stale starts over at delta 0");
	s.pid_number = 100000;
	s.metrics[FP_M_REDUCTIONS] = 230;
	event(ctx, &s, NULL);
	is_str(metric("reductions"), "230, 30", "recent processes are kept");
	fmt_free(ctx);
}

/* ==== Time ==== */

static void test_time(void)
{
	fmt_ctx *ctx = fmt_create(NULL);
	struct fp_sample s = sample(2500000, 1, 0, 0);
	int64_t t = 0;

	event(ctx, &s, &t);
	ok(strstr(buf, " 2.500000: ") != NULL, "6 decimals, trailing zeros kept");
	s.time_us = 1000000;
	event(ctx, &s, &t);
	ok(strstr(buf, " 2.500000: ") != NULL, "backwards time clamped to the previous event");
	is_int(t, 2500000, "time_us_out reports the clamped time");
	s.time_us = 3000000;
	event(ctx, &s, &t);
	ok(strstr(buf, " 3.000001: ") != NULL, "whole second nudged by 1 us");
	is_int(t, 3000001, "time_us_out reports the nudge");
	s.time_us = 3000000;
	event(ctx, &s, &t);
	is_int(t, 3000001, "clamped to the nudged time, still not whole");
	s.time_us = 3000002;
	event(ctx, &s, &t);
	ok(strstr(buf, " 3.000002: ") != NULL, "later time written as is");
	fmt_free(ctx);

	ctx = fmt_create(NULL);
	s.time_us = -5;
	event(ctx, &s, &t);
	ok(strstr(buf, " 0.000001: ") != NULL, "negative time: 0, nudged");
	is_int(t, 1, "time_us_out 1");
	s.time_us = 0;
	event(ctx, &s, &t);
	is_int(t, 1, "0 after that: still 0.000001");
	s.time_us = INT64_C(123456789012);
	event(ctx, &s, &t);
	ok(strstr(buf, " 123456.789012: ") != NULL, "seconds and microseconds split");
	fmt_free(ctx);
}

/* ==== Categories ==== */

static void test_categories(void)
{
	const enum fmt_category all[] = { FMT_CAT_INITIAL_CALL, FMT_CAT_NAME, FMT_CAT_MEMORY,
					  FMT_CAT_QUEUE, FMT_CAT_SEQ_TRACE };
	struct fmt_options opts = { .categories = all, .ncategories = 5 };
	fmt_ctx *ctx = fmt_create(&opts);
	struct fp_frame f0 = frame(S("m"), S("f"), 0, NONE, 0);
	const struct fp_frame *frames[] = { &f0 };
	struct fp_sample s = sample(1, 1, 0, 0);

	s.frames = frames;
	s.nframes = 1;
	s.initial_call = S("gen_server:init_it/6");
	s.name = S("my server");
	s.seq_label = S("{req,42}");
	s.metrics[FP_M_MEMORY] = 70000;
	s.metrics[FP_M_MESSAGE_QUEUE_LEN] = 12;
	event(ctx, &s, NULL);
	is_str(line(1), "\t0 m:f/0 ([unknown])", "code frames first");
	is_str(line(2), "\t0 seq_trace:{req,42} ([category])", "last listed category first");
	is_str(line(3), "\t0 queue:10-99 ([category])", "queue bucket");
	is_str(line(4), "\t0 memory:64KiB-1MiB ([category])", "memory bucket");
	is_str(line(5), "\t0 name:my%20server ([category])", "name escaped");
	is_str(line(6), "\t0 initial_call:gen_server:init_it/6 ([category])",
	       "first listed is root-most (last)");
	is_str(line(7), "", "blank line");

	s.name = NONE;
	s.seq_label = NONE;
	s.initial_call = NONE;
	s.time_us = 2;
	event(ctx, &s, NULL);
	is_str(line(2), "\t0 queue:10-99 ([category])", "empty seq_trace label skipped");
	is_str(line(3), "\t0 memory:64KiB-1MiB ([category])", "buckets always written");
	is_str(line(4), "", "empty name and initial_call skipped");
	fmt_free(ctx);

	const enum fmt_category two[] = { FMT_CAT_QUEUE, FMT_CAT_NAME };
	opts.categories = two;
	opts.ncategories = 2;
	ctx = fmt_create(&opts);
	s.name = S("reg");
	event(ctx, &s, NULL);
	is_str(line(2), "\t0 name:reg ([category])", "custom order: name is leaf-most");
	is_str(line(3), "\t0 queue:10-99 ([category])", "queue root-most");
	is_str(line(4), "", "only the chosen categories");
	fmt_free(ctx);

	enum fmt_category c = FMT_CAT_COUNT;
	ok(fmt_category_parse("seq_trace", 9, &c) == 0 && c == FMT_CAT_SEQ_TRACE, "parse seq_trace");
	ok(fmt_category_parse("memory", 6, &c) == 0 && c == FMT_CAT_MEMORY, "parse memory");
	ok(fmt_category_parse("tier", 4, &c) == 0 && c == FMT_CAT_TIER, "parse tier");
	ok(fmt_category_parse("name", 3, &c) < 0, "a prefix is not a category");
	ok(fmt_category_parse("bogus", 5, &c) < 0, "unknown category rejected");
	is_str(fmt_category_names[FMT_CAT_INITIAL_CALL], "initial_call", "category names");
}

/* ==== The seq_trace label only while working; the innermost tier ==== */

static void test_label_gating(void)
{
	const enum fmt_category one[] = { FMT_CAT_SEQ_TRACE };
	struct fmt_options opts = { one, 1, NULL, 0, 0 };
	fmt_ctx *ctx = fmt_create(&opts);
	struct fp_frame f0 = frame(S("m"), S("f"), 0, NONE, 0);
	const struct fp_frame *frames[] = { &f0 };
	struct fp_sample s = sample(1, 1, 0, 0);
	static const struct {
		enum fp_status status;
		int shown;
	} cases[] = {
		{ FP_STATUS_RUNNING, 1 },  { FP_STATUS_RUNNABLE, 1 },  { FP_STATUS_GARBAGE_COLLECTING, 1 },
		{ FP_STATUS_WAITING, 0 },  { FP_STATUS_EXITING, 0 },   { FP_STATUS_SUSPENDED, 0 },
	};

	s.frames = frames;
	s.nframes = 1;
	s.seq_label = S("{kv,read}");
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		s.status = cases[k].status;
		s.time_us = (int64_t)k + 1;
		event(ctx, &s, NULL);
		is_str(line(2), cases[k].shown ? "\t0 seq_trace:{kv,read} ([category])" : "",
		       "%s: label frame %s", fp_status_names[cases[k].status],
		       cases[k].shown ? "written" : "left out (a stale token)");
	}
	fmt_free(ctx);
}

/* A stack of n frames, leaf first, built from "m:f/a" texts. */
struct stack {
	struct fp_frame f[8];
	const struct fp_frame *p[8];
	struct fp_sample s;
};

static void stack_of(struct stack *st, const char *const *mfa, size_t n)
{
	static char text[8][64];
	st->s = sample(1, 1, 0, 0);
	for (size_t k = 0; k < n && k < 8; k++) {
		snprintf(text[k], sizeof text[k], "%s", mfa[k]);
		char *colon = strchr(text[k], ':'), *slash = strrchr(text[k], '/');
		int arity = -1;
		if (slash && strcmp(slash + 1, "?") != 0)
			arity = atoi(slash + 1);
		st->f[k] = frame((struct fp_str){ text[k], (size_t)(colon - text[k]) },
				 (struct fp_str){ colon + 1, (size_t)((slash ? slash : colon + strlen(colon)) - colon - 1) },
				 arity, NONE, 0);
		st->p[k] = &st->f[k];
	}
	st->s.frames = st->p;
	st->s.nframes = n;
}

static void test_tiers(void)
{
	const struct fp_tier_pattern tiers[] = { { "handle", { "kv", "handle", 2, 0 } },
						 { "db", { "kv", "db", -1, 0 } } };
	const enum fmt_category cats[] = { FMT_CAT_SEQ_TRACE, FMT_CAT_TIER, FMT_CAT_NAME };
	struct fmt_options opts = { cats, 3, tiers, 2, 0 };
	fmt_ctx *ctx = fmt_create(&opts);
	struct stack st;

	const char *in_db[] = { "timer:sleep/1", "kv:db/3", "kv:handle/2", "gen_server:loop/7" };
	stack_of(&st, in_db, 4);
	is_int(fmt_tier_of(ctx, &st.s), 1, "db inside handle: db, the innermost");
	const char *in_handle[] = { "lists:nth/2", "kv:handle/2", "gen_server:loop/7" };
	stack_of(&st, in_handle, 3);
	is_int(fmt_tier_of(ctx, &st.s), 0, "handle alone: handle");
	const char *wrong_arity[] = { "kv:handle/3", "gen_server:loop/7" };
	stack_of(&st, wrong_arity, 2);
	is_int(fmt_tier_of(ctx, &st.s), -1, "handle/3 is not handle/2");
	const char *other_module[] = { "kvx:db/3", "db:db/3", "k:db/3" };
	stack_of(&st, other_module, 3);
	is_int(fmt_tier_of(ctx, &st.s), -1, "db of another module is not the tier (nor a prefix of it)");
	const char *no_arity[] = { "kv:db/?", "kv:handle/?" };
	stack_of(&st, no_arity, 2);
	is_int(fmt_tier_of(ctx, &st.s), 1, "arity not given: only ARITY '_' matches");
	st.s.nframes = 0;
	is_int(fmt_tier_of(ctx, &st.s), -1, "an empty stack is in no tier");

	/* the frames: label root-most, the tier under it, in the given order */
	stack_of(&st, in_db, 4);
	st.s.seq_label = S("{kv,read}");
	st.s.name = S("kv_server");
	event(ctx, &st.s, NULL);
	is_str(line(5), "\t0 name:kv_server ([category])", "name leaf-most of the categories");
	is_str(line(6), "\t0 tier:db ([category])", "the tier frame names the innermost tier");
	is_str(line(7), "\t0 seq_trace:{kv,read} ([category])", "the label root-most");
	st.s.status = FP_STATUS_WAITING;
	st.s.time_us = 2;
	event(ctx, &st.s, NULL);
	is_str(line(6), "\t0 tier:db ([category])", "waiting: the tier is still written");
	is_str(line(7), "", "... and no label");
	stack_of(&st, wrong_arity, 2);
	st.s.time_us = 3;
	event(ctx, &st.s, NULL);
	is_str(line(3), "", "no tier matches: no tier frame (nor an empty name)");
	fmt_free(ctx);

	/* several tiers match one frame: the first given */
	const struct fp_tier_pattern both[] = { { "any", { "kv", "_", -1, 0 } }, { "db", { "kv", "db", -1, 0 } } };
	opts.tiers = both;
	opts.ntiers = 2;
	ctx = fmt_create(&opts);
	stack_of(&st, in_db, 4);
	is_int(fmt_tier_of(ctx, &st.s), 0, "two tiers match the innermost frame: the first given");
	fmt_free(ctx);

	/* tiers given but no tier category: none written, the rest as before */
	opts.categories = cats + 2;
	opts.ncategories = 1;
	ctx = fmt_create(&opts);
	st.s.name = S("kv_server");
	event(ctx, &st.s, NULL);
	is_str(line(5), "\t0 name:kv_server ([category])", "without the tier category ...");
	is_str(line(6), "", "... no tier frame");
	fmt_free(ctx);

	/* an Elixir alias (Shop.Repo): Elixir's 'Elixir.Shop.Repo' or an Erlang
	 * module of that very name, never a longer or shorter one */
	const struct fp_tier_pattern alias[] = { { "db", { "Shop.Repo", "query", 2, 1 } } };
	opts.tiers = alias;
	opts.ntiers = 1;
	ctx = fmt_create(&opts);
	const char *elixir[] = { "Elixir.Shop.Repo:query/2" }, *erlang[] = { "Shop.Repo:query/2" },
		   *other[] = { "Elixir.Shop.Repox:query/2", "Elixir.Repo:query/2", "Elixir.Shop.Repo:query/3" };
	stack_of(&st, elixir, 1);
	is_int(fmt_tier_of(ctx, &st.s), 0, "the alias Shop.Repo matches 'Elixir.Shop.Repo'");
	stack_of(&st, erlang, 1);
	is_int(fmt_tier_of(ctx, &st.s), 0, "... and an Erlang module 'Shop.Repo'");
	stack_of(&st, other, 3);
	is_int(fmt_tier_of(ctx, &st.s), -1, "... and nothing else");
	fmt_free(ctx);
}

static const char *bucket_of(enum fmt_category cat, int64_t v)
{
	static char out[64];
	const enum fmt_category one[] = { cat };
	struct fmt_options opts = { .categories = one, .ncategories = 1 };
	fmt_ctx *ctx = fmt_create(&opts);
	struct fp_sample s = sample(1, 1, 0, 0);
	const char *p;

	s.metrics[cat == FMT_CAT_MEMORY ? FP_M_MEMORY : FP_M_MESSAGE_QUEUE_LEN] = v;
	event(ctx, &s, NULL);
	fmt_free(ctx);
	snprintf(out, sizeof out, "%s", line(2));
	p = strchr(out, ':');
	if (!p)
		return "(none)";
	memmove(out, p + 1, strlen(p));
	out[strcspn(out, " ")] = '\0';
	return out;
}

static void test_buckets(void)
{
	is_str(bucket_of(FMT_CAT_MEMORY, -1), "<4KiB", "memory -1");
	is_str(bucket_of(FMT_CAT_MEMORY, 2688), "<4KiB", "memory of a fresh process");
	is_str(bucket_of(FMT_CAT_MEMORY, 4095), "<4KiB", "memory 4095");
	is_str(bucket_of(FMT_CAT_MEMORY, 4096), "4KiB-64KiB", "memory 4096");
	is_str(bucket_of(FMT_CAT_MEMORY, 65535), "4KiB-64KiB", "memory 64Ki-1");
	is_str(bucket_of(FMT_CAT_MEMORY, 65536), "64KiB-1MiB", "memory 64Ki");
	is_str(bucket_of(FMT_CAT_MEMORY, 1 << 20), "1MiB-16MiB", "memory 1Mi");
	is_str(bucket_of(FMT_CAT_MEMORY, (16 << 20) - 1), "1MiB-16MiB", "memory 16Mi-1");
	is_str(bucket_of(FMT_CAT_MEMORY, 16 << 20), "16MiB-256MiB", "memory 16Mi");
	is_str(bucket_of(FMT_CAT_MEMORY, 256 << 20), "256MiB-or-more", "memory 256Mi");
	is_str(bucket_of(FMT_CAT_MEMORY, INT64_MAX), "256MiB-or-more", "memory huge");
	is_str(bucket_of(FMT_CAT_QUEUE, -3), "0", "queue negative");
	is_str(bucket_of(FMT_CAT_QUEUE, 0), "0", "queue 0");
	is_str(bucket_of(FMT_CAT_QUEUE, 1), "1-9", "queue 1");
	is_str(bucket_of(FMT_CAT_QUEUE, 9), "1-9", "queue 9");
	is_str(bucket_of(FMT_CAT_QUEUE, 10), "10-99", "queue 10");
	is_str(bucket_of(FMT_CAT_QUEUE, 999), "100-999", "queue 999");
	is_str(bucket_of(FMT_CAT_QUEUE, 1000), "1000-9999", "queue 1000");
	is_str(bucket_of(FMT_CAT_QUEUE, 10000), "10000-or-more", "queue 10000");
}

/* ==== tid ==== */

static void test_tid(void)
{
	static const uint32_t nums[] = { 0, 1, 4711, 32767, 32768, UINT32_MAX };
	static const uint32_t sers[] = { 0, 1, 2, 8191, UINT32_MAX };
	size_t i, j, k, l;
	int rev = 1, uniq = 1;

	is_int(fmt_tid(4711, 0), 4711, "serial 0: the tid is N");
	ok(fmt_tid(5, 1) == UINT64_C(4294967301), "<0.5.1> is 2^32 + 5");
	for (i = 0; i < sizeof nums / sizeof *nums; i++)
		for (j = 0; j < sizeof sers / sizeof *sers; j++) {
			uint64_t t = fmt_tid(nums[i], sers[j]);
			if ((t & UINT32_MAX) != nums[i] || (t >> 32) != sers[j])
				rev = 0;
			for (k = 0; k < sizeof nums / sizeof *nums; k++)
				for (l = 0; l < sizeof sers / sizeof *sers; l++)
					if ((k != i || l != j) && fmt_tid(nums[k], sers[l]) == t)
						uniq = 0;
		}
	ok(rev, "N = tid mod 2^32 and S = tid / 2^32, for extreme values too");
	ok(uniq, "different pids, different tids");
}

/* ==== Header ==== */

static void test_header(void)
{
	size_t n = fmt_header("app@db1", "--top 100 --every 5s", buf, sizeof buf);
	const char *p;
	int m, lines_ok = 1;
	char want[128];

	is_int(n, strlen(buf), "header length");
	for (p = buf; *p; p = strchr(p, '\n') + 1)
		if (p[0] != '#' || (p[1] != ' ' && p[1] != '\n') || !strchr(p, '\n'))
			lines_ok = 0;
	ok(lines_ok, "every header line is '#' or starts with '# ', and ends with a newline");
	ok(strncmp(buf, "# ========\n", 11) == 0, "first line as perf script --header's");
	ok(strncmp(buf + 11, "# flameprof " FP_VERSION, 12 + strlen(FP_VERSION)) == 0,
	   "tool and version next");
	ok(n > 14 && strcmp(buf + n - 14, "\n# ========\n#\n") == 0, "ends as perf's header");
	ok(strstr(buf, "\n# node: app@db1\n") != NULL, "node");
	ok(strstr(buf, "\n# settings: --top 100 --every 5s\n") != NULL, "settings");
	for (m = 0; m < FP_METRIC_COUNT; m++) {
		snprintf(want, sizeof want, "\n# metric_erlang_%s: ", fp_metric_names[m]);
		if (!strstr(buf, want))
			lines_ok = 0;
	}
	ok(lines_ok, "every metric listed");
	ok(strstr(buf, "# metric_erlang_memory: bytes\n") != NULL, "memory in bytes");
	ok(strstr(buf, "# metric_erlang_heap_size: words\n") != NULL, "heap sizes in words");
	ok(strstr(buf, "# metric_erlang_minor_gcs: count\n") != NULL, "minor_gcs a count");

	fmt_header("evil\nnode", "50%\r", buf, sizeof buf);
	ok(strstr(buf, "# node: evil%0Anode\n") != NULL, "a newline cannot end a header line");
	ok(strstr(buf, "# settings: 50%25%0D\n") != NULL, "percent and CR escaped in settings");
	fmt_header(NULL, NULL, buf, sizeof buf);
	ok(strstr(buf, "# node: unknown\n# settings: \n") != NULL, "NULL node and settings");

	char small[10];
	n = fmt_header("a@b", "", small, sizeof small);
	ok(n > sizeof small, "too small: the needed length");
	is_int(fmt_header("a@b", "", NULL, 0), n, "NULL buffer: the needed length");
}

/* ==== The snprintf contract ==== */

static void test_contract(void)
{
	fmt_ctx *ctx = fmt_create(NULL);
	struct fp_frame f0 = frame(S("m"), S("f"), 1, S("m.erl"), 2);
	const struct fp_frame *frames[] = { &f0 };
	struct fp_sample s = sample(5000000, 3, 0, 7);
	static char small[4096];
	int64_t t = -42;
	size_t need, n;

	s.frames = frames;
	s.nframes = 1;
	need = fmt_event(ctx, &s, NULL, 0, &t);
	ok(need > 100, "NULL/0 buffer: the needed length");
	is_int(t, -42, "time_us_out untouched when nothing was written");
	n = fmt_event(ctx, &s, small, need, &t);
	is_int(n, need, "cap == length: too small (no room for NUL), same length");
	n = fmt_event(ctx, &s, small, 10, &t);
	is_int(n, need, "cap 10: same length");

	/* the context did not change: still a first sample at the given time */
	s.time_us = 4000001;
	n = fmt_event(ctx, &s, small, need + 1, &t);
	is_int(n, need, "fits with room for the NUL");
	is_int(small[n], '\0', "NUL-terminated");
	ok(strstr(small, " 4.000001: ") != NULL, "time not clamped by the failed calls");
	is_int(t, 4000001, "time_us_out set on success");
	ok(strstr(small, "metric_erlang_reductions: 7, 0\t") != NULL,
	   "deltas not recorded by the failed calls");

	s.metrics[FP_M_REDUCTIONS] = 9;
	s.time_us = 6000001;
	need = fmt_event(ctx, &s, small, 20, &t);
	n = fmt_event(ctx, &s, small, sizeof small, &t);
	is_int(n, need, "second event: same length both ways");
	ok(strstr(small, "metric_erlang_reductions: 9, 2\t") != NULL, "recorded after success");
	fmt_free(ctx);

	char e[8];
	is_int(fmt_escape("a b", 3, e, sizeof e), 5, "fmt_escape returns the length");
	is_str(e, "a%20b", "and writes it");
	is_int(fmt_escape("a b", 3, e, 3), 5, "too small: the needed length");
	is_int(fmt_escape("a b", 3, NULL, 0), 5, "NULL: the needed length");
}

/* ==== A file for tests/readers.py ==== */

static int write_readers_file(const char *path)
{
	const enum fmt_category all[] = { FMT_CAT_INITIAL_CALL, FMT_CAT_NAME, FMT_CAT_MEMORY,
					  FMT_CAT_QUEUE, FMT_CAT_SEQ_TRACE };
	struct fmt_options opts = { .categories = all, .ncategories = 5 };
	fmt_ctx *ctx = fmt_create(&opts);
	static const char nul_atom[] = { 'a', '\0', 'b' };
	struct fp_frame hostile[] = {
		frame(S("'quoted'"), S("\"double\""), 0, S("/tmp/with space/m.erl"), 1),
		frame(S("plus+minus"), S("a->b"), 2, S("file (1).erl"), 2),
		frame(S("(paren)"), S("semi;colon"), 3, S("tab\there.erl"), 0),
		frame(S("new\nline"), S("cr\rx"), -1, S("/x:y/z.erl"), 4),
		frame(S("%25"), S("[unknown]"), 1, S("\xc2\xa0nbsp.erl"), 5),
		frame(S("caf\xc3\xa9"), S("\xe6\x97\xa5\xe6\x9c\xac"), 1, S("\xff\xfe.erl"), 6),
		frame((struct fp_str){ nul_atom, 3 }, S("f/12"), -1, NONE, 0),
		frame(S("Elixir.Foo.Bar"), S("-handle_call/3-fun-0-"), 3, S("lib/foo.ex"), 7),
		frame(S("\x7f\x01\x1b[31m"), S("\xe2\x80\xa8sep"), 0, S("\xef\xbb\xbf"), 8),
		frame(S(" "), S("#"), 0, S(" "), 0),
	};
	const struct fp_frame *frames[10];
	FILE *fp;
	size_t i, n;
	int k;

	for (i = 0; i < 10; i++)
		frames[i] = &hostile[i];
	fp = fopen(path, "w");
	if (!fp || !ctx)
		return 1;
	n = fmt_header("hostile@host", "--top 100\n--every 5s", buf, sizeof buf);
	fwrite(buf, 1, n, fp);
	for (k = 0; k < 40; k++) {
		struct fp_sample s = sample(INT64_C(1700000000000000) + k * 250000 - (k % 3) * 400000,
					    (uint32_t)(k % 4), (uint32_t)(k % 2), k * (k % 5 - 2));
		s.status = (enum fp_status)(k % FP_STATUS_COUNT);
		s.frames = frames + k % 10;
		s.nframes = k % 7 == 0 ? 0 : (size_t)(10 - k % 10); /* some empty stacks */
		s.initial_call = k % 3 ? S("proc_lib:init_p/5") : NONE;
		s.name = k % 2 ? S("name with (parens) + ->;") : NONE;
		s.seq_label = k % 4 ? S("{label,\"x\"}\n") : NONE;
		s.metrics[FP_M_MEMORY] = (int64_t)k << 22;
		s.metrics[FP_M_MESSAGE_QUEUE_LEN] = k * k * k;
		n = fmt_event(ctx, &s, buf, sizeof buf, NULL);
		fwrite(buf, 1, n, fp);
	}
	fmt_free(ctx);
	return fclose(fp) != 0;
}

/* ==== Statuses written (--status) ==== */

static void test_statuses(void)
{
	struct fmt_options opts = { NULL, 0, NULL, 0, FMT_ON_CPU };
	fmt_ctx *ctx = fmt_create(&opts);
	uint64_t w[FP_STATUS_COUNT], h[FP_STATUS_COUNT];
	struct fp_sample s = sample(INT64_C(1700000000100000), 7, 0, 100);
	int64_t t = -1;
	unsigned mask;

	ok(event(ctx, &s, &t) > 0 && strncmp(buf, "running ", 8) == 0, "a running sample is written");
	s = sample(INT64_C(1700000000200000), 7, 0, 150);
	s.status = FP_STATUS_WAITING;
	t = -1;
	is_int((long long)event(ctx, &s, &t), 0, "a waiting sample is not written under on-cpu (length 0)");
	is_int(t, -1, "... and gives no time");
	s = sample(INT64_C(1700000000300000), 7, 0, 170);
	s.status = FP_STATUS_GARBAGE_COLLECTING;
	ok(event(ctx, &s, &t) > 0 && strncmp(buf, "garbage_collecting ", 19) == 0,
	   "a garbage_collecting sample is written");
	is_str(metric("reductions"), "170, 20",
	       "its delta counts from the waiting sample not written (170 - 150), not from the last written");
	s.status = FP_STATUS_SUSPENDED;
	event(ctx, &s, &t);
	s.status = FP_STATUS_WAITING;
	event(ctx, &s, &t);
	fmt_counts(ctx, w, h);
	ok(w[FP_STATUS_RUNNING] == 1 && w[FP_STATUS_GARBAGE_COLLECTING] == 1 && h[FP_STATUS_WAITING] == 2 &&
	   h[FP_STATUS_SUSPENDED] == 1 && h[FP_STATUS_RUNNING] == 0 && w[FP_STATUS_WAITING] == 0,
	   "fmt_counts: 1 running and 1 garbage_collecting written; 2 waiting and 1 suspended not");
	fmt_free(ctx);

	ctx = fmt_create(NULL);
	s.status = FP_STATUS_WAITING;
	ok(event(ctx, &s, &t) > 0 && strncmp(buf, "waiting ", 8) == 0, "without statuses (0): every status is written");
	fmt_free(ctx);

	ok(fmt_status_parse("on-cpu", &mask) == 0 && mask == FMT_ON_CPU, "'on-cpu' is running and garbage_collecting");
	ok(fmt_status_parse("all", &mask) == 0 && mask == FMT_ALL_STATUSES, "'all' is every status");
	ok(fmt_status_parse("running,waiting", &mask) == 0 &&
	   mask == ((1u << FP_STATUS_RUNNING) | (1u << FP_STATUS_WAITING)), "a list: running,waiting");
	ok(fmt_status_parse("running,sleeping", &mask) < 0, "an unknown status is refused");
	ok(fmt_status_parse("", &mask) < 0 && fmt_status_parse("running,", &mask) < 0 &&
	   fmt_status_parse("run", &mask) < 0, "an empty list, a trailing comma and a prefix are refused");
}

int main(void)
{
	const char *out = getenv("FP_READERS_OUT");

	subtest("event format", test_event_format);
	subtest("frames", test_frames);
	subtest("64-deep stack", test_deep_stack);
	subtest("deltas per process", test_deltas);
	subtest("stale processes dropped", test_stale_processes);
	subtest("time", test_time);
	subtest("categories", test_categories);
	subtest("seq_trace label gating", test_label_gating);
	subtest("tiers", test_tiers);
	subtest("buckets", test_buckets);
	subtest("tid", test_tid);
	subtest("header", test_header);
	subtest("snprintf contract", test_contract);
	subtest("statuses written", test_statuses);
	if (out && *out)
		ok(write_readers_file(out) == 0, "wrote %s for tests/readers.py", out);
	return done_testing();
}
