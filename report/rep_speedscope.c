/*
 * rep_speedscope.c - speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json).
 *
 * One "sampled" profile per status (and per status under "negative"): each
 * distinct stack is one sample, its weight the sum of its events' weights,
 * so the file stays the size of the tree, not of the capture. speedscope's
 * "left heavy" and "sandwich" views read it as is; its time order view shows
 * stacks, not time.
 */
#include "rep_write.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rep_text.h"
#include "../common/text.h"

struct ss {
	FILE *f;
	const struct rep_view *v;
	uint32_t *path;
	int first;
	int pass; /* 0: samples, 1: weights */
	int64_t total;
};

/* One pass over a status's subtree: each stack (pass 0) or its weight
 * (pass 1). @return 0 or -1 (no memory). */
static int stacks(struct ss *s, uint32_t top)
{
	const struct rep_view *v = s->v;
	struct rep_walk wk;
	uint32_t node;
	size_t depth;
	int r;
	rep_walk_init(&wk, v->order, top);
	while ((r = rep_walk_next(&wk, 0, &node, &depth)) == 1) {
		const struct rep_node *nd = rep_trie_node(v->trie, node);
		int64_t w = v->weighted ? nd->self_w : (int64_t)nd->self_n;
		if (depth > 0)
			s->path[depth - 1] = nd->frame;
		if (w == 0)
			continue;
		fputs(s->first ? "" : ",", s->f);
		s->first = 0;
		if (s->pass == 0 && depth == 0) { /* an empty stack: the status alone */
			fprintf(s->f, "[%" PRIu32 "]", nd->frame);
		} else if (s->pass == 0) {
			fputc('[', s->f);
			for (size_t d = 0; d < depth; d++)
				fprintf(s->f, "%s%" PRIu32, d ? "," : "", s->path[d]);
			fputc(']', s->f);
		} else {
			fprintf(s->f, "%" PRId64, w);
			s->total += w;
		}
	}
	rep_walk_free(&wk);
	return r;
}

static int profile(struct ss *s, uint32_t node, const char *prefix, int *firstp)
{
	struct rep_frame_info fi;
	rep_frames_get(s->v->frames, rep_trie_node(s->v->trie, node)->frame, &fi);
	fprintf(s->f, "%s{\"type\":\"sampled\",\"name\":\"%s", *firstp ? "" : ",", prefix);
	fp_json_put(s->f, fi.name, fi.name_len);
	fprintf(s->f, " (%s)\",\"unit\":\"none\",\"startValue\":0,\"samples\":[", s->v->weight_name);
	*firstp = 0;
	s->first = 1;
	s->pass = 0;
	if (stacks(s, node) != 0)
		return -1;
	fputs("],\"weights\":[", s->f);
	s->first = 1;
	s->pass = 1;
	s->total = 0;
	if (stacks(s, node) != 0)
		return -1;
	fprintf(s->f, "],\"endValue\":%" PRId64 "}", s->total);
	return 0;
}

/* Splits "file:line" when it ends in digits. The line is written as a
 * JSON number: leading zeros dropped ("007" is not JSON), and a line of
 * more than 9 digits is no line (the whole text stays the file). */
static void frame_file(FILE *f, const struct rep_frame_info *fi)
{
	size_t n = fi->dso_len, c = n, z;
	while (c > 0 && fi->dso[c - 1] >= '0' && fi->dso[c - 1] <= '9')
		c--;
	if (n == 0)
		return;
	for (z = c; z + 1 < n && fi->dso[z] == '0'; z++)
		;
	if (c > 1 && c < n && fi->dso[c - 1] == ':' && n - z <= 9) {
		fputs(",\"file\":\"", f);
		fp_json_put(f, fi->dso, c - 1);
		fprintf(f, "\",\"line\":%.*s", (int)(n - z), fi->dso + z);
	} else {
		fputs(",\"file\":\"", f);
		fp_json_put(f, fi->dso, n);
		fputc('"', f);
	}
}

int rep_write_speedscope(FILE *f, const struct rep_view *v)
{
	size_t nf = rep_frames_count(v->frames), n = rep_trie_count(v->trie), maxd = 0, i;
	struct ss s = { f, v, NULL, 1, 0, 0 };
	int firstp = 1, rc = 0;
	uint32_t k, j;
	for (i = 0; i < n; i++)
		if (rep_trie_node(v->trie, (uint32_t)i)->depth > maxd)
			maxd = rep_trie_node(v->trie, (uint32_t)i)->depth;
	s.path = malloc((maxd + 1) * sizeof *s.path);
	if (!s.path)
		return -1;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
	      "\"exporter\":\"flameprof report " FP_VERSION "\",\"name\":\"",
	      f);
	if (v->cfg->title)
		fp_json_put(f, v->cfg->title, strlen(v->cfg->title));
	else
		fprintf(f, "flameprof (%s)", v->weight_name);
	fputs("\",\"activeProfileIndex\":0,\"shared\":{\"frames\":[", f);
	for (i = 0; i < nf; i++) {
		struct rep_frame_info fi;
		rep_frames_get(v->frames, (uint32_t)i, &fi);
		fprintf(f, "%s{\"name\":\"", i ? "," : "");
		fp_json_put(f, fi.name, fi.name_len);
		fputc('"', f);
		if (fi.kind == REP_K_CODE)
			frame_file(f, &fi);
		fputc('}', f);
	}
	fputs("]},\"profiles\":[", f);
	for (k = v->order->first[0]; k < v->order->first[1] && rc == 0; k++) {
		uint32_t node = v->order->kids[k];
		const struct rep_node *nd = rep_trie_node(v->trie, node);
		if (rep_frames_kind(v->frames, nd->frame) != REP_K_NEGATIVE) {
			rc = profile(&s, node, "", &firstp);
			continue;
		}
		for (j = v->order->first[node]; j < v->order->first[node + 1] && rc == 0; j++)
			rc = profile(&s, v->order->kids[j], "negative ", &firstp);
	}
	if (firstp) /* nothing matched: one empty profile keeps the file valid */
		fprintf(f, "{\"type\":\"sampled\",\"name\":\"no events\",\"unit\":\"none\","
			   "\"startValue\":0,\"endValue\":0,\"samples\":[],\"weights\":[]}");
	fputs("]}\n", f);
	free(s.path);
	return rc;
}
