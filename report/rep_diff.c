/*
 * rep_diff.c - BASE's figures at DIR's stacks (rep_diff.h). Nodes are
 * matched root down: a node of DIR's tree matches the child of its
 * parent's match that has the same frame (kind and symbol as written).
 * A trie's node ids grow from parent to child, so one pass in id order
 * sees every parent before its children.
 */
#include "rep_diff.h"

#include <stdint.h>
#include <stdlib.h>

#define NONE UINT32_MAX

static double figure(const struct rep_node *nd, int weighted)
{
	return weighted ? (double)nd->total_w : (double)nd->total_n;
}

int rep_diff_build(struct rep_diff *d, const rep_trie *t, rep_frames *fr, const rep_trie *bt,
		   const rep_frames *bfr, int weighted)
{
	size_t n = rep_trie_count(t), bn = rep_trie_count(bt), nf = rep_frames_count(bfr), i;
	uint32_t *xmap = malloc((nf ? nf : 1) * sizeof *xmap); /* BASE frame -> DIR frame */
	uint32_t *match = malloc(n * sizeof *match);           /* DIR node -> BASE node */
	char *seen = calloc(bn, 1);                             /* BASE nodes matched */
	d->base = calloc(n, sizeof *d->base);
	d->base_whole = figure(rep_trie_node(bt, 0), weighted);
	d->gone = d->base_whole;
	if (!xmap || !match || !seen || !d->base)
		goto nomem;
	for (i = 0; i < nf; i++) {
		struct rep_frame_info fi;
		rep_frames_get(bfr, (uint32_t)i, &fi);
		xmap[i] = rep_frames_intern(fr, fi.kind, fi.raw, fi.raw_len, fi.dso, fi.dso_len, NULL);
		if (xmap[i] == REP_NO_FRAME)
			goto nomem;
	}
	match[0] = 0;
	d->base[0] = d->base_whole;
	seen[0] = 1;
	for (i = 1; i < n; i++) {
		const struct rep_node *nd = rep_trie_node(t, (uint32_t)i);
		uint32_t bp = match[nd->parent], k;
		match[i] = NONE;
		if (bp == NONE)
			continue;
		for (k = rep_trie_node(bt, bp)->child; k; k = rep_trie_node(bt, k)->sibling)
			if (xmap[rep_trie_node(bt, k)->frame] == nd->frame) {
				match[i] = k;
				d->base[i] = figure(rep_trie_node(bt, k), weighted);
				seen[k] = 1;
				break;
			}
	}
	/* what BASE has where DIR has nothing: each matched node's own
	 * figure, less its matched children's */
	for (i = 0; i < bn; i++)
		if (seen[i])
			d->gone -= weighted ? (double)rep_trie_node(bt, (uint32_t)i)->self_w
					    : (double)rep_trie_node(bt, (uint32_t)i)->self_n;
	free(seen);
	d->frame_map = xmap;
	d->match = match;
	return 0;
nomem:
	free(xmap);
	free(match);
	free(seen);
	free(d->base);
	d->base = NULL;
	return -1;
}

void rep_diff_free(struct rep_diff *d)
{
	free(d->base);
	free(d->frame_map);
	free(d->match);
	d->base = NULL;
	d->frame_map = d->match = NULL;
}
