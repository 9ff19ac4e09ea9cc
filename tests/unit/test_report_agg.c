/*
 * test_report_agg.c - frames, the trie, and the collector's weights,
 * filters and time cut, checked through the folded output.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "../../report/rep_collect.h"
#include "../../report/rep_diff.h"
#include "../../report/rep_frames.h"
#include "../../report/rep_order.h"
#include "../../report/rep_trie.h"
#include "../../report/rep_write.h"

static void test_frames(void)
{
	rep_frames *t = rep_frames_create();
	struct rep_frame_info fi;
	uint32_t a, b, c, d;
	int is_new;
	char name[32];
	a = rep_frames_intern(t, REP_K_CODE, "m%3Bx:f/1", 9, "m.erl:1", 7, &is_new);
	ok(is_new, "first time is new");
	b = rep_frames_intern(t, REP_K_CODE, "m%3Bx:f/1", 9, "m.erl:2", 7, &is_new);
	ok(a == b && !is_new, "same symbol, same id (the dso does not split frames)");
	c = rep_frames_intern(t, REP_K_CATEGORY, "m%3Bx:f/1", 9, "[category]", 10, NULL);
	ok(c != a, "a category frame is apart from a code frame of the same text");
	rep_frames_get(t, a, &fi);
	ok(fi.name_len == 7 && !memcmp(fi.name, "m;x:f/1", 7), "display name unescaped");
	ok(fi.raw_len == 9 && !memcmp(fi.raw, "m%3Bx:f/1", 9), "raw kept");
	ok(fi.dso_len == 7 && !memcmp(fi.dso, "m.erl:1", 7), "first dso kept");
	d = rep_frames_intern(t, REP_K_CODE, "100%", 4, "", 0, NULL);
	rep_frames_get(t, d, &fi);
	ok(fi.name_len == 4 && !memcmp(fi.name, "100%", 4), "malformed escape shown as written");
	for (int i = 0; i < 5000; i++) { /* grow the table */
		int l = snprintf(name, sizeof name, "mod:f%d/0", i);
		rep_frames_intern(t, REP_K_CODE, name, (size_t)l, "", 0, NULL);
	}
	is_int(rep_frames_intern(t, REP_K_CODE, "m%3Bx:f/1", 9, "", 0, NULL), a, "id survives growth");
	is_int(rep_frames_count(t), 5003, "frame count");
	rep_frames_free(t);
}

static void test_trie(void)
{
	rep_trie *t = rep_trie_create();
	uint32_t p1[] = { 1, 2, 3 }, p2[] = { 1, 2 }, p3[] = { 1, 4, 3 };
	const struct rep_node *root;
	for (int i = 0; i < 5; i++)
		rep_trie_add(t, p1, 3, 10);
	rep_trie_add(t, p2, 2, 7);
	rep_trie_add(t, p3, 3, 1);
	for (uint32_t i = 0; i < 3000; i++) { /* grow both tables */
		uint32_t p[] = { 9, i, i + 1 };
		rep_trie_add(t, p, 3, 1);
	}
	rep_trie_add(t, p2, 2, 7);
	rep_trie_finish(t);
	root = rep_trie_node(t, 0);
	is_int(root->total_n, 5 + 2 + 1 + 3000, "all samples reach the root");
	is_int(root->total_w, 50 + 14 + 1 + 3000, "all weight reaches the root");
	/* node 1 is frame 1 (first child made) */
	is_int(rep_trie_node(t, 1)->frame, 1, "first node is frame 1");
	is_int(rep_trie_node(t, 1)->total_n, 8, "prefix shared by three stacks");
	is_int(rep_trie_node(t, 2)->self_w, 14, "a stack that is a prefix of another keeps its own");
	is_int(rep_trie_node(t, 3)->self_n, 5, "repeated stack lands on one leaf");
	is_int(rep_trie_count(t), 1 + 5 + 1 + 3000 * 2, "nodes");
	rep_trie_free(t);
}

/* ==== The collector, through folded output ==== */

static const char *EV =
	"# header\n"
	"running 10/0 [000] 1700000000.100000: 1 cpu-clock:\tmetric_erlang_reductions: 100, 40\tmetric_erlang_memory: 500, -20\n"
	"\t0 m:leaf/0 (m.erl:1)\n\t0 m:root/0 (m.erl:2)\n\t0 name:a%3Bb ([category])\n\t0 initial_call:m:i/0 ([category])\n\n"
	"waiting 11/2 [000] 1700000000.600000: 1 cpu-clock:\tmetric_erlang_reductions: 7, 7\tmetric_erlang_memory: 900, 300\n"
	"\t0 m:root/0 (m.erl:2)\n\t0 name:x ([category])\n\n"
	"running 10/0 [000] 1700000001.200000: 1 cpu-clock:\tmetric_erlang_reductions: 150, 50\tmetric_erlang_memory: 480, -20\n"
	"\t0 m:leaf/0 (m.erl:1)\n\t0 m:root/0 (m.erl:2)\n\t0 name:a%3Bb ([category])\n\t0 initial_call:m:i/0 ([category])\n\n"
	"runnable 12/0 [000] 1700000002.500000: 1 cpu-clock:\tmetric_erlang_reductions: 1, 0\tmetric_erlang_memory: 1, 0\n"
	"\t0 [no_stack] ([unknown])\n"; /* last event without a blank line */

/* Runs the collector on text with cfg, returns what wr writes (malloc'd). */
static char *written_of(const char *text, struct rep_config *cfg, int *rc_out, struct rep_stats *st_out,
			int (*wr)(FILE *, const struct rep_view *))
{
	enum rep_c_err e;
	char d[256], *buf = NULL;
	size_t len = 0;
	const char *p = text;
	struct rep_order o;
	int rc = 0;
	rep_collect *c;
	if (!cfg->width)
		cfg->width = 1200;
	c = rep_collect_create(cfg, &e, d, sizeof d);
	while (*p && rc == 0) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		rc = rep_collect_line(c, p, l);
		p += l + (nl ? 1 : 0);
	}
	if (rc == 0)
		rc = rep_collect_end_file(c);
	*rc_out = rc;
	if (rc == 0) {
		FILE *f = open_memstream(&buf, &len);
		struct rep_view v = { .cfg = cfg, .frames = rep_collect_frames(c), .trie = rep_collect_trie(c),
				      .order = &o, .st = rep_collect_stats(c), .weight_name = rep_collect_weight_name(c),
				      .weighted = rep_collect_weighted(c) };
		rep_collect_finish(c);
		rep_order_build(&o, rep_collect_trie(c), rep_collect_frames(c));
		if (wr(f, &v) != 0)
			*rc_out = -1;
		fclose(f);
		rep_order_free(&o);
		*st_out = *rep_collect_stats(c);
	}
	rep_collect_free(c);
	return buf;
}

static char *folded_of(const char *text, struct rep_config *cfg, int *rc_out, struct rep_stats *st_out)
{
	return written_of(text, cfg, rc_out, st_out, rep_write_folded);
}

/* -f top: a recursive function's total counts each stack once; self is the
 * leaf's; rows by self, then total; status frames are not functions. */
static void test_top(void)
{
	static const char *rec =
		"running 10/0 [000] 1700000000.100000: 1 cpu-clock:\n"
		"\t0 m:a/0 (m.erl:1)\n\t0 m:b/0 (m.erl:2)\n\t0 m:a/0 (m.erl:1)\n\n"
		"running 11/0 [000] 1700000000.200000: 1 cpu-clock:\n"
		"\t0 m:c/0 (m.erl:3)\n\t0 m:a/0 (m.erl:1)\n\n"
		"waiting 12/0 [000] 1700000000.300000: 1 cpu-clock:\n"
		"\t0 m:a/0 (m.erl:1)\n\n";
	struct rep_config cfg = { 0 };
	struct rep_stats st;
	int rc;
	char *s = written_of(rec, &cfg, &rc, &st, rep_write_top);
	is_int(rc, 0, "top: written");
	is_str(s,
	       "3 samples in 3 functions\n"
	       "        self   self%    sum%        total  total%  function\n"
	       "           2  66.67%  66.67%            3 100.00%  m:a/0\n"
	       "           1  33.33% 100.00%            1  33.33%  m:c/0\n"
	       "           0   0.00% 100.00%            1  33.33%  m:b/0\n",
	       "top: self, total (recursion once), shares, running sum");
	free(s);
	cfg.json = 1;
	s = written_of(rec, &cfg, &rc, &st, rep_write_top);
	ok(s && strstr(s, "{\"name\":\"m:a/0\",\"self\":2,\"self_share\":0.666667,\"total\":3,"
			   "\"total_share\":1.000000}"), "top --json: the same figures");
	ok(s && !strncmp(s, "{\"unit\":\"samples\",\"total\":3,", 27), "top --json: the unit and the whole");
	free(s);
}

/* A collector fed text, finished (NULL on a failure). */
static rep_collect *collected(const char *text, struct rep_config *cfg)
{
	enum rep_c_err e;
	char d[256];
	rep_collect *c = rep_collect_create(cfg, &e, d, sizeof d);
	int rc = 0;
	while (c && *text && rc == 0) {
		const char *nl = strchr(text, '\n');
		size_t l = nl ? (size_t)(nl - text) : strlen(text);
		rc = rep_collect_line(c, text, l);
		text += l + (nl ? 1 : 0);
	}
	if (c && (rc != 0 || rep_collect_end_file(c) != 0)) {
		rep_collect_free(c);
		return NULL;
	}
	if (c)
		rep_collect_finish(c);
	return c;
}

/* The node of a path of frame names under the root (0: none). */
static uint32_t node_at(rep_collect *c, const char *const *names, size_t n)
{
	const rep_trie *t = rep_collect_trie(c);
	uint32_t at = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t k;
		for (k = rep_trie_node(t, at)->child; k; k = rep_trie_node(t, k)->sibling) {
			struct rep_frame_info fi;
			rep_frames_get(rep_collect_frames(c), rep_trie_node(t, k)->frame, &fi);
			if (fi.name_len == strlen(names[i]) && !memcmp(fi.name, names[i], fi.name_len))
				break;
		}
		if (!k)
			return 0;
		at = k;
	}
	return at;
}

/* --diff: BASE's figures land on DIR's nodes of the same path; what BASE
 * has elsewhere is counted as gone. */
static void test_diff(void)
{
#define EVT(t, leaf, root) "running 10/0 [000] 170000000" t ": 1 cpu-clock:\n\t0 " leaf " (m.erl:1)\n\t0 " root " (m.erl:1)\n\n"
	static const char *base_text = EVT("0.1", "m:b/0", "m:a/0") EVT("0.2", "m:b/0", "m:a/0")
		EVT("0.3", "m:c/0", "m:a/0") EVT("0.4", "m:c/0", "m:a/0") EVT("0.5", "m:c/0", "m:x/0");
	static const char *dir_text = EVT("1.1", "m:b/0", "m:a/0") EVT("1.2", "m:d/0", "m:a/0")
		EVT("1.3", "m:d/0", "m:a/0") EVT("1.4", "m:d/0", "m:a/0");
#undef EVT
	struct rep_config cfg = { 0 };
	rep_collect *b = collected(base_text, &cfg), *c = collected(dir_text, &cfg);
	struct rep_diff d = { .base_name = "base" };
	const char *a[] = { "running", "m:a/0" }, *ab[] = { "running", "m:a/0", "m:b/0" },
		   *ad[] = { "running", "m:a/0", "m:d/0" };
	ok(b && c, "both sides collect");
	if (!b || !c)
		goto out;
	is_int(rep_diff_build(&d, rep_collect_trie(c), rep_collect_frames(c), rep_collect_trie(b),
			      rep_collect_frames(b), 0), 0, "diff built");
	is_int((int64_t)d.base_whole, 5, "BASE's whole");
	is_int((int64_t)d.base[0], 5, "the root: BASE's whole");
	is_int((int64_t)d.base[node_at(c, a, 2)], 4, "running;m:a/0: 4 in BASE");
	is_int((int64_t)d.base[node_at(c, ab, 3)], 2, "running;m:a/0;m:b/0: 2 in BASE");
	is_int((int64_t)d.base[node_at(c, ad, 3)], 0, "running;m:a/0;m:d/0: none in BASE");
	is_int((int64_t)d.gone, 3, "BASE's m:a/0;m:c/0 (2) and m:x/0;m:c/0 (1) are not in DIR");
	/* the matching kept for the page: DIR's node -> BASE's node of the same path */
	ok(d.match[node_at(c, ab, 3)] == node_at(b, ab, 3), "match: running;m:a/0;m:b/0 is BASE's node of that path");
	ok(d.match[node_at(c, ad, 3)] == UINT32_MAX, "match: running;m:a/0;m:d/0 has none in BASE");
	ok(d.frame_map[rep_trie_node(rep_collect_trie(b), node_at(b, ab, 3))->frame] ==
	   rep_trie_node(rep_collect_trie(c), node_at(c, ab, 3))->frame, "frame_map: BASE's m:b/0 is DIR's m:b/0");
	rep_diff_free(&d);
out:
	rep_collect_free(b);
	rep_collect_free(c);
}

static char *folded(struct rep_config *cfg, int *rc_out, struct rep_stats *st_out)
{
	return folded_of(EV, cfg, rc_out, st_out);
}

static void test_samples(void)
{
	struct rep_config cfg = { 0 };
	struct rep_stats st;
	int rc;
	char *s = folded(&cfg, &rc, &st);
	is_int(rc, 0, "collects");
	is_str(s,
	       "runnable;[no_stack] 1\n"
	       "running;initial_call:m:i/0;name:a%3Bb;m:root/0;m:leaf/0 2\n"
	       "waiting;name:x;m:root/0 1\n",
	       "folded: status, categories root-most first, code root to leaf; counts");
	is_int(st.events, 4, "events");
	is_int(st.used, 4, "all used");
	is_int(st.t0_s, 1700000000, "time origin is the first whole second");
	free(s);
}

static void test_weights(void)
{
	struct rep_config cfg = { 0 };
	struct rep_stats st;
	int rc;
	char *s;
	cfg.weight = "reductions";
	s = folded(&cfg, &rc, &st);
	is_str(s,
	       "runnable;[no_stack] 1\n"
	       "running;initial_call:m:i/0;name:a%3Bb;m:root/0;m:leaf/0 250\n"
	       "waiting;name:x;m:root/0 7\n",
	       "weighted by a metric's value (short name)");
	free(s);
	cfg.weight = "erlang_memory_delta";
	s = folded(&cfg, &rc, &st);
	is_str(s,
	       "negative;running;initial_call:m:i/0;name:a%3Bb;m:root/0;m:leaf/0 40\n",
	       "negative deltas under 'negative' by magnitude, zero weights left out, the waiting "
	       "sample's delta (300: work done before it waited) on no stack");
	is_int(st.negative, 2, "two negative events");
	is_int(st.idle_delta, 1, "one waiting sample weighs 0 under a delta");
	free(s);
	cfg.weight = "heap_size";
	s = folded(&cfg, &rc, &st);
	is_int(rc, REP_C_METRIC, "unknown metric is an error");
	free(s);
}

static void test_cut_and_filters(void)
{
	struct rep_config cfg = { 0 };
	struct rep_stats st;
	int rc;
	char *s;
	cfg.has_from = 1;
	cfg.from_us = 500000;
	cfg.has_to = 1;
	cfg.to_us = 1200000;
	s = folded(&cfg, &rc, &st);
	is_str(s, "waiting;name:x;m:root/0 1\n", "relative cut [0.5, 1.2): the end is exclusive");
	is_int(st.out_of_range, 3, "three outside");
	free(s);
	cfg.from_abs = 1;
	cfg.from_us = 1700000001000000LL;
	cfg.to_abs = 1;
	cfg.to_us = 1700000003000000LL;
	s = folded(&cfg, &rc, &st);
	is_str(s,
	       "runnable;[no_stack] 1\n"
	       "running;initial_call:m:i/0;name:a%3Bb;m:root/0;m:leaf/0 1\n",
	       "absolute cut");
	free(s);
	memset(&cfg, 0, sizeof cfg);
	cfg.status = "waiting,runnable";
	s = folded(&cfg, &rc, &st);
	is_str(s, "runnable;[no_stack] 1\nwaiting;name:x;m:root/0 1\n", "--status list");
	is_int(st.filtered, 2, "two filtered");
	free(s);
	memset(&cfg, 0, sizeof cfg);
	cfg.npids = 2;
	cfg.pids[0].pid = 11;
	cfg.pids[0].serial = 2;
	cfg.pids[1].pid = 12;
	cfg.pids[1].any_serial = 1;
	s = folded(&cfg, &rc, &st);
	is_str(s, "runnable;[no_stack] 1\nwaiting;name:x;m:root/0 1\n", "--pid N/S and N");
	free(s);
	cfg.pids[0].serial = 3;
	cfg.npids = 1;
	s = folded(&cfg, &rc, &st);
	is_str(s, "", "--pid with the wrong serial keeps nothing");
	free(s);
	memset(&cfg, 0, sizeof cfg);
	cfg.ncategories = 1;
	cfg.categories[0] = "name:a;b";
	s = folded(&cfg, &rc, &st);
	is_str(s, "running;initial_call:m:i/0;name:a%3Bb;m:root/0;m:leaf/0 2\n",
	       "--category matches the unescaped name");
	free(s);
	cfg.ncategories = 2;
	cfg.categories[1] = "initial_call";
	s = folded(&cfg, &rc, &st);
	ok(s && strstr(s, " 2\n") && !strstr(s, "waiting"), "two --category: all must match");
	free(s);
	cfg.categories[1] = "nope";
	s = folded(&cfg, &rc, &st);
	is_str(s, "", "a --category nothing has");
	free(s);
}

/* Events of as many frames as the collector's first buffers hold, and one
 * more: the text's last frame id once sat exactly at the end of its buffer,
 * and making room for the path moved the buffer the ids were read from
 * (found by fuzz_index under ASan). */
static void test_deep_events(void)
{
	static const size_t sizes[] = { 255, 256, 257, 511, 512, 513 };
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		size_t n = sizes[k], len = 0, semis = 0;
		char *text = NULL, *out;
		FILE *f = open_memstream(&text, &len);
		struct rep_config cfg = { 0 };
		struct rep_stats st;
		int rc;
		fprintf(f, "running 10/0 [000] 1700000000.100000: 1 cpu-clock:\n");
		for (size_t i = 0; i < n; i++)
			fprintf(f, "\t0 m:f%zu/0 (m.erl:1)\n", i);
		fprintf(f, "\n");
		fclose(f);
		out = folded_of(text, &cfg, &rc, &st);
		is_int(rc, 0, "an event of %zu frames is collected", n);
		for (const char *c = out ? out : ""; *c; c++)
			semis += *c == ';';
		is_int((long long)semis, (long long)n, "its folded line holds the status and all %zu frames", n);
		ok(out && strstr(out, "m:f0/0 1\n") != NULL, "leaf last, counted once");
		free(out);
		free(text);
	}
}

int main(void)
{
	subtest("frame table", test_frames);
	subtest("trie", test_trie);
	subtest("samples", test_samples);
	subtest("top", test_top);
	subtest("diff", test_diff);
	subtest("weights and negatives", test_weights);
	subtest("time cut and filters", test_cut_and_filters);
	subtest("events as deep as the first buffers", test_deep_events);
	return done_testing();
}
