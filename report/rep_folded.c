/*
 * rep_folded.c - collapsed stacks, as stackcollapse-perf.pl writes them.
 *
 * Frames are written as the input had them (flameprof's escape keeps ';'
 * and spaces out of symbols), or in Elixir's spelling, escaped the same
 * way (report/rep_names.h), root first: [negative;]status;categories;code.
 * Negative weights sit under "negative" with their magnitude, as in the
 * flame graph, so every count is a plain non-negative integer.
 */
#include "rep_write.h"

#include <inttypes.h>
#include <stdlib.h>

static void line(FILE *f, const struct rep_view *v, const struct rep_node *nd, const uint32_t *path,
		 size_t depth)
{
	for (size_t d = 0; d < depth; d++) {
		struct rep_frame_info fi;
		rep_frames_get(v->frames, path[d], &fi);
		if (d)
			fputc(';', f);
		for (size_t b = 0; b < fi.line_len; b++) {
			char c = fi.line[b];
			/* Not ours (plain perf text): keep the line format intact. */
			fputc(c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c, f);
		}
	}
	if (v->weighted)
		fprintf(f, " %" PRId64 "\n", nd->self_w);
	else
		fprintf(f, " %" PRIu64 "\n", nd->self_n);
}

int rep_write_folded(FILE *f, const struct rep_view *v)
{
	size_t n = rep_trie_count(v->trie), maxd = 0, depth;
	struct rep_walk w;
	uint32_t *path, node;
	int r;
	for (size_t i = 0; i < n; i++)
		if (rep_trie_node(v->trie, (uint32_t)i)->depth > maxd)
			maxd = rep_trie_node(v->trie, (uint32_t)i)->depth;
	path = malloc((maxd + 1) * sizeof *path);
	if (!path)
		return -1;
	rep_walk_init(&w, v->order, 0);
	while ((r = rep_walk_next(&w, 0, &node, &depth)) == 1) {
		const struct rep_node *nd = rep_trie_node(v->trie, node);
		if (node == 0)
			continue;
		path[depth - 1] = nd->frame;
		if (v->weighted ? nd->self_w != 0 : nd->self_n != 0)
			line(f, v, nd, path, depth);
	}
	rep_walk_free(&w);
	free(path);
	return r;
}
