/*
 * rep_top.c - the hottest functions, as `go tool pprof -top` lists them:
 * each code frame's self (the samples or weight of the stacks it is the
 * leaf of) and total (of the stacks it is on, a recursive function counted
 * once per stack), with their shares of the whole, sorted by self. A plain
 * table, or JSON with --json. Status and category frames are not functions
 * and are not listed (their samples are in the whole).
 */
#include "rep_write.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rep_text.h"
#include "../common/ctl_escape.h"
#include "../common/text.h"

struct fn {
	uint32_t frame;
	int64_t self, total;
};

struct top {
	const struct rep_view *v;
	struct fn *fns;  /* one per frame id; frame REP_NO_FRAME: not a function */
	size_t nframes;
};

static int64_t self_of(const struct rep_view *v, const struct rep_node *nd)
{
	return v->weighted ? nd->self_w : (int64_t)nd->self_n;
}

static int64_t total_of(const struct rep_view *v, const struct rep_node *nd)
{
	return v->weighted ? nd->total_w : (int64_t)nd->total_n;
}

/* Sums each function's self and total over the tree, on the walk's own
 * stack: on[f] counts f's frames on the path from the root, so a total is
 * added where a function first enters a path. @return 0 or -1 (no memory). */
static int sum(struct top *t)
{
	const struct rep_view *v = t->v;
	size_t n = rep_trie_count(v->trie), maxd = 0, depth, len = 0;
	uint32_t *path, *on, node;
	struct rep_walk w;
	int r;
	for (size_t i = 0; i < n; i++)
		if (rep_trie_node(v->trie, (uint32_t)i)->depth > maxd)
			maxd = rep_trie_node(v->trie, (uint32_t)i)->depth;
	path = malloc((maxd + 1) * sizeof *path);
	on = calloc(t->nframes ? t->nframes : 1, sizeof *on);
	if (!path || !on) {
		free(path);
		free(on);
		return -1;
	}
	rep_walk_init(&w, v->order, 0);
	while ((r = rep_walk_next(&w, 0, &node, &depth)) == 1) {
		const struct rep_node *nd = rep_trie_node(v->trie, node);
		uint32_t f = nd->frame;
		if (node == 0)
			continue;
		for (; len >= depth; len--)
			on[path[len - 1]]--;
		path[depth - 1] = f;
		len = depth;
		on[f]++;
		if (rep_frames_kind(v->frames, f) != REP_K_CODE)
			continue;
		t->fns[f].frame = f;
		if (on[f] == 1)
			t->fns[f].total = rep_add_sat(t->fns[f].total, total_of(v, nd));
		t->fns[f].self = rep_add_sat(t->fns[f].self, self_of(v, nd));
	}
	rep_walk_free(&w);
	free(path);
	free(on);
	return r;
}

static const rep_frames *sort_frames; /* qsort has no argument: one sort at a time */

/* Self, then total, from the largest; then by name. */
static int by_self(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;
	struct rep_frame_info fx, fy;
	int c;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	rep_frames_get(sort_frames, x->frame, &fx);
	rep_frames_get(sort_frames, y->frame, &fy);
	c = memcmp(fx.name, fy.name, fx.name_len < fy.name_len ? fx.name_len : fy.name_len);
	return c ? c : (fx.name_len > fy.name_len) - (fx.name_len < fy.name_len);
}

static double share(int64_t part, int64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : 0;
}

/* part in percent of whole, rounded once: 100 * part is exact, so the
 * table prints what anyone computes from the counts (100 * share() rounds
 * twice, and printed 0.02 % where 100 * 1 / 4000 reads 0.03 %). */
static double percent(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

static void write_json(FILE *f, const struct rep_view *v, const struct fn *fns, size_t n,
		       int64_t whole)
{
	char note[512];
	rep_status_note(v, note, sizeof note);
	fputs("{\"unit\":", f);
	fp_json_string(f, v->weight_name);
	fprintf(f, ",\"total\":%" PRId64 ",\"samples\":%" PRIu64 ",\"note\":", whole,
		rep_trie_node(v->trie, 0)->total_n);
	fp_json_string(f, note);
	fputs(",\"functions\":[", f);
	for (size_t i = 0; i < n; i++) {
		struct rep_frame_info fi;
		rep_frames_get(v->frames, fns[i].frame, &fi);
		fputs(i ? ",\n{\"name\":\"" : "\n{\"name\":\"", f);
		fp_json_put(f, fi.name, fi.name_len);
		fprintf(f, "\",\"self\":%" PRId64 ",\"self_share\":%.6f,\"total\":%" PRId64
			   ",\"total_share\":%.6f}",
			fns[i].self, share(fns[i].self, whole), fns[i].total, share(fns[i].total, whole));
	}
	fputs("]}\n", f);
}

/* The table; names escaped for a terminal (fp_ctl_escape). @return 0 or -1. */
static int write_table(FILE *f, const struct rep_view *v, const struct fn *fns, size_t n,
		       int64_t whole)
{
	char note[512], a[32];
	int64_t cum = 0; /* sum% is the running sum of the counts, not of rounded shares */
	int ran = 0, nostack = 0; /* flameprof's own frames among the rows: said below them */
	rep_status_note(v, note, sizeof note);
	fprintf(f, "%s %s in %zu functions%s%s\n", rep_thousands(whole, a), v->weight_name, n,
		*note ? "; " : "", note);
	fprintf(f, "%12s %7s %7s %12s %7s  %s\n", "self", "self%", "sum%", "total", "total%",
		"function");
	for (size_t i = 0; i < n; i++) {
		struct rep_frame_info fi;
		char *name;
		rep_frames_get(v->frames, fns[i].frame, &fi);
		if (!(name = malloc(fi.name_len * 4 + 1)))
			return -1;
		fp_ctl_escape(name, fi.name_len * 4 + 1, fi.name, fi.name_len);
		ran |= !strcmp(name, "[ran_to_receive]");
		nostack |= !strcmp(name, "[no_stack]");
		cum += fns[i].self;
		fprintf(f, "%12" PRId64 " %6.2f%% %6.2f%% %12" PRId64 " %6.2f%%  %s\n", fns[i].self,
			percent(fns[i].self, whole), percent(cum, whole), fns[i].total,
			percent(fns[i].total, whole), name);
		free(name);
	}
	/* after a blank line, so that a reader of the rows stops before it */
	if (ran)
		fputs("\n[ran_to_receive]: a process on a CPU whose run ended before its stack could be\n"
		      "read: its CPU is counted, its code is not known (a run too short to read; see\n"
		      "'flameprof report --help')\n", f);
	if (nostack)
		fprintf(f, "%s[no_stack]: a process the node gave no stack for\n", ran ? "" : "\n");
	return 0;
}

int rep_write_top(FILE *f, const struct rep_view *v)
{
	struct top t = { v, NULL, rep_frames_count(v->frames) };
	int64_t whole = total_of(v, rep_trie_node(v->trie, 0));
	size_t n = 0;
	int rc = -1;
	if (!(t.fns = calloc(t.nframes ? t.nframes : 1, sizeof *t.fns)))
		return -1;
	for (size_t i = 0; i < t.nframes; i++)
		t.fns[i].frame = REP_NO_FRAME;
	if (sum(&t) != 0)
		goto out;
	for (size_t i = 0; i < t.nframes; i++) /* the functions to the front */
		if (t.fns[i].frame != REP_NO_FRAME)
			t.fns[n++] = t.fns[i];
	sort_frames = v->frames;
	qsort(t.fns, n, sizeof *t.fns, by_self);
	if (v->cfg->json)
		write_json(f, v, t.fns, n, whole);
	else if (write_table(f, v, t.fns, n, whole) != 0)
		goto out;
	rc = 0;
out:
	free(t.fns);
	return rc;
}
