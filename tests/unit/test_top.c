/*
 * test_top.c - top/top_view.c without a node: made-up samples in, the
 * tables' text out. Shares over the window, self against total (a
 * recursive function counted once a sample), the window sliding (what
 * falls out is forgotten), reductions per second from sample to sample,
 * the sort keys, the width cut, and control bytes from the node escaped.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "../../top/top_view.h"

#define S(text) { text, sizeof text - 1 }

static struct fp_frame fr(const char *m, const char *f, int a)
{
	struct fp_frame x = { { m, strlen(m) }, { f, strlen(f) }, a, { NULL, 0 }, 0 };
	return x;
}

/* one sample of pid <0.n.0>: stack leaf first */
static void add(top_view *v, uint32_t n, enum fp_status st, const struct fp_frame *const *frames, size_t nf,
		int64_t reds, const char *name)
{
	struct fp_sample s;
	memset(&s, 0, sizeof s);
	s.pid_number = n;
	s.status = st;
	s.frames = frames;
	s.nframes = nf;
	s.name.ptr = name;
	s.name.len = name ? strlen(name) : 0;
	s.initial_call.ptr = "m:init/0";
	s.initial_call.len = 8;
	s.metrics[FP_M_REDUCTIONS] = reds;
	s.metrics[FP_M_MEMORY] = 123456;
	s.metrics[FP_M_MESSAGE_QUEUE_LEN] = 7;
	ok(top_view_add(v, &s) == 0, "sample of <0.%u.0> added", n);
}

static char *table(top_view *v, enum top_table t, int sort, unsigned width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n = top_view_write(v, f, t, sort, 10, width, 2.0, "\n");
	fclose(f);
	ok(n >= 1, "table written (%d lines)", n);
	return buf;
}

static void shares(void)
{
	top_view *v = top_view_create(2);
	top_view_tick(v); /* a refresh before any sample */
	struct fp_frame spin = fr("busy", "spin", 1), loop = fr("busy", "loop", 0), rec = fr("r", "rec", 2),
			wait = fr("gen_server", "loop", 7);
	const struct fp_frame *a[] = { &spin, &loop }, *b[] = { &rec, &rec, &rec, &loop }, *w[] = { &wait };
	/* 3 on-CPU samples of spin, 1 of a recursion three deep, 1 waiting */
	for (int k = 0; k < 3; k++)
		add(v, 10, FP_STATUS_RUNNING, a, 2, 1000 * (k + 1), NULL);
	add(v, 11, FP_STATUS_GARBAGE_COLLECTING, b, 4, 50, "worker");
	add(v, 12, FP_STATUS_WAITING, w, 1, 5, "idle\x1b[2J");
	is_int(top_view_oncpu(v), 4, "four on-CPU samples");
	is_int(top_view_samples(v), 5, "five samples");
	char *t = table(v, TOP_FUNCTIONS, TOP_SORT_SELF, 80);
	is_str(t, "  %SELF %TOTAL  FUNCTION\n"
		  "  75.0   75.0  busy:spin/1\n"
		  "  25.0   25.0  r:rec/2\n"
		  "   0.0  100.0  busy:loop/0\n", "by self: the recursion counts once in total, waiting samples not at all");
	free(t);
	t = table(v, TOP_FUNCTIONS, TOP_SORT_TOTAL, 80);
	ok(strstr(t, "FUNCTION\n   0.0  100.0  busy:loop/0\n") != NULL, "by total: the root first");
	free(t);
	t = table(v, TOP_PROCESSES, TOP_SORT_REDS, 100);
	/* <0.10.0>: 2000 reductions over 2 s; the first sample has nothing before it */
	ok(strstr(t, "\n<0.10.0>     100    0   1000   123K     7 m:init/0") != NULL,
	   "on-CPU share, runnable share, reductions per second, memory, queue, initial call");
	ok(strncmp(t, "PID         RUN% RNQ% REDS/S MEMORY  MSGQ", 41) == 0, "the on-CPU share is the first column");
	ok(strstr(t, "busy:spin/1\n") != NULL, "the current function");
	ok(strstr(t, "idle\\x1B[2J") != NULL || strstr(t, "idle\\x1b[2J") != NULL, "a name's escape byte is written as text");
	ok(strchr(t, '\x1b') == NULL, "no control byte from the node reaches the terminal");
	free(t);
	t = table(v, TOP_PROCESSES, TOP_SORT_RUN, 100);
	{
		const char *p10 = strstr(t, "<0.10.0>"), *p11 = strstr(t, "<0.11.0>"), *p12 = strstr(t, "<0.12.0>");
		ok(p10 && p11 && p12 && p10 < p11 && p11 < p12,
		   "by on-CPU share (the default key, 0): both at 100 %% by reductions, then the waiting one");
	}
	is_int(TOP_SORT_RUN, 0, "the on-CPU share is the processes' first key, the default");
	free(t);
	t = table(v, TOP_PROCESSES, TOP_SORT_NAME, 100);
	const char *i = strstr(t, "idle"), *m = strstr(t, "m:init/0"), *wk = strstr(t, "worker");
	ok(i && m && wk && i < m && m < wk, "by name");
	free(t);
	t = table(v, TOP_FUNCTIONS, TOP_SORT_SELF, 40);
	for (char *l = t; *l;) {
		size_t n = strcspn(l, "\n");
		ok(n <= 40, "a line cut to 40 columns (%zu)", n);
		l += n + (l[n] == '\n');
	}
	free(t);

	/* the window slides: two ticks and the first interval is gone */
	top_view_tick(v);
	add(v, 10, FP_STATUS_RUNNING, a, 2, 5000, NULL);
	is_int(top_view_oncpu(v), 5, "the previous interval still counts");
	top_view_tick(v);
	is_int(top_view_oncpu(v), 1, "after two ticks only the last interval is left");
	t = table(v, TOP_FUNCTIONS, TOP_SORT_SELF, 80);
	is_str(t, "  %SELF %TOTAL  FUNCTION\n"
		  " 100.0  100.0  busy:spin/1\n"
		  "   0.0  100.0  busy:loop/0\n", "functions that fell out of the window are forgotten");
	free(t);
	t = table(v, TOP_PROCESSES, TOP_SORT_REDS, 100);
	ok(strstr(t, "<0.11.0>") == NULL && strstr(t, "<0.10.0>") != NULL, "... and processes too");
	free(t);
	top_view_tick(v);
	top_view_tick(v);
	is_int(top_view_samples(v), 0, "an empty window");
	t = table(v, TOP_PROCESSES, TOP_SORT_REDS, 80);
	ok(strncmp(t, "PID", 3) == 0 && strchr(t, '\n') == t + strcspn(t, "\n") && t[strcspn(t, "\n") + 1] == '\0',
	   "an empty window: the header alone");
	free(t);
	top_view_free(v);
}

static void many(void)
{
	/* tables grow and shrink through many entries without losing any */
	top_view *v = top_view_create(3);
	char names[2000][16];
	struct fp_frame frames[2000];
	for (int k = 0; k < 2000; k++) {
		snprintf(names[k], sizeof names[k], "f%d", k);
		frames[k] = fr("m", names[k], 0);
	}
	int good = 1;
	for (int k = 0; k < 2000; k++) {
		const struct fp_frame *st[] = { &frames[k] };
		struct fp_sample s;
		memset(&s, 0, sizeof s);
		s.pid_number = (uint32_t)k;
		s.frames = st;
		s.nframes = 1;
		good &= top_view_add(v, &s) == 0;
		if (k == 999)
			top_view_tick(v);
	}
	ok(good, "2000 processes and functions added");
	is_int(top_view_oncpu(v), 2000, "all counted");
	top_view_tick(v);
	top_view_tick(v);
	is_int(top_view_oncpu(v), 1000, "the first thousand fell out");
	ok(top_view_create(0) == NULL && top_view_create(3601) == NULL, "a window of 0 or over 3600 slots is refused");
	top_view_free(v);
}

/* A line separator and a right-to-left override in names (issue 50): a
 * terminal would break the line or show the name reordered. */
static void line_breakers(void)
{
	top_view *v = top_view_create(2);
	struct fp_frame odd = fr("evil\xe2\x80\xa8mod", "f\xe2\x80\xaeg", 0);
	const struct fp_frame *o[] = { &odd };
	char *t;
	add(v, 13, FP_STATUS_RUNNING, o, 1, 10, "n\xe2\x80\xa9\xe2\x81\xa6x");
	t = table(v, TOP_FUNCTIONS, TOP_SORT_SELF, 100);
	ok(strstr(t, "evil\\u2028mod:f\\u202eg/0") && !strstr(t, "\xe2\x80"),
	   "U+2028 and U+202E in a function's name are written as \\uNNNN");
	free(t);
	t = table(v, TOP_PROCESSES, TOP_SORT_NAME, 120);
	ok(strstr(t, "n\\u2029\\u2066x") && !strstr(t, "\xe2\x80") && !strstr(t, "\xe2\x81"),
	   "U+2029 and U+2066 in a process name are written as \\uNNNN");
	free(t);
	top_view_free(v);
}

/* on-CPU samples whose stack was not read are rows of their own, so that
 * the functions' self shares add up to the on-CPU samples */
static void unread(void)
{
	top_view *v = top_view_create(1);
	struct fp_frame spin = fr("busy", "spin", 1);
	const struct fp_frame *a[] = { &spin };
	add(v, 10, FP_STATUS_RUNNING, a, 1, 100, NULL);
	struct fp_sample s;
	memset(&s, 0, sizeof s);
	s.pid_number = 11;
	s.status = FP_STATUS_RUNNING;
	s.stack_late = 1;
	for (int k = 0; k < 3; k++)
		ok(top_view_add(v, &s) == 0, "a running sample with no stack read, added");
	s.pid_number = 12;
	s.stack_late = 0;
	ok(top_view_add(v, &s) == 0, "a running sample the node gave no stack for, added");
	s.status = FP_STATUS_WAITING;
	ok(top_view_add(v, &s) == 0, "a waiting one, added");
	char *t = table(v, TOP_FUNCTIONS, TOP_SORT_SELF, 80);
	is_str(t, "  %SELF %TOTAL  FUNCTION\n"
		  "  60.0   60.0  [ran_to_receive]\n"
		  "  20.0   20.0  [no_stack]\n"
		  "  20.0   20.0  busy:spin/1\n",
	       "[ran_to_receive] and [no_stack] are rows: the self shares add up to 100 %%");
	free(t);
	top_view_free(v);
}

int main(void)
{
	subtest("shares, sorting, sliding", shares);
	subtest("many entries", many);
	subtest("names that break or reorder a line", line_breakers);
	subtest("samples with no stack read", unread);
	return done_testing();
}
