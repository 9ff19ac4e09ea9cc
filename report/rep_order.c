/*
 * rep_order.c - sorting the tree once: rank the frames by name, then sort
 * the nodes by (parent, rank) as plain integer keys.
 */
#include "rep_order.h"

#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"

struct named {
	const char *name;
	size_t len;
	uint32_t kind, id;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);
	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

struct keyed {
	uint64_t key;
	uint32_t node;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

int rep_order_build(struct rep_order *o, const rep_trie *t, const rep_frames *fr)
{
	size_t nf = rep_frames_count(fr), nn = rep_trie_count(t), i;
	struct named *nm = malloc((nf ? nf : 1) * sizeof *nm);
	uint32_t *rank = malloc((nf ? nf : 1) * sizeof *rank);
	struct keyed *k = malloc(nn * sizeof *k);
	memset(o, 0, sizeof *o);
	o->kids = malloc(nn * sizeof *o->kids);
	o->first = calloc(nn + 1, sizeof *o->first);
	o->size = malloc(nn * sizeof *o->size);
	if (!nm || !rank || !k || !o->kids || !o->first || !o->size) {
		free(nm);
		free(rank);
		free(k);
		rep_order_free(o);
		return -1;
	}
	for (i = 0; i < nf; i++) {
		struct rep_frame_info fi;
		rep_frames_get(fr, (uint32_t)i, &fi);
		nm[i].name = fi.name;
		nm[i].len = fi.name_len;
		nm[i].kind = fi.kind;
		nm[i].id = (uint32_t)i;
	}
	qsort(nm, nf, sizeof *nm, cmp_named);
	for (i = 0; i < nf; i++)
		rank[nm[i].id] = (uint32_t)i;
	for (i = 1; i < nn; i++) {
		const struct rep_node *nd = rep_trie_node(t, (uint32_t)i);
		k[i - 1].key = (uint64_t)nd->parent << 32 | rank[nd->frame];
		k[i - 1].node = (uint32_t)i;
		o->first[nd->parent + 1]++;
	}
	qsort(k, nn - 1, sizeof *k, cmp_keyed);
	for (i = 0; i < nn; i++)
		o->first[i + 1] += o->first[i];
	for (i = 0; i + 1 < nn; i++)
		o->kids[i] = k[i].node;
	for (i = 0; i < nn; i++)
		o->size[i] = 1;
	for (i = nn - 1; i > 0; i--)
		o->size[rep_trie_node(t, (uint32_t)i)->parent] += o->size[i];
	free(nm);
	free(rank);
	free(k);
	return 0;
}

void rep_order_free(struct rep_order *o)
{
	free(o->kids);
	free(o->first);
	free(o->size);
	memset(o, 0, sizeof *o);
}

void rep_walk_init(struct rep_walk *w, const struct rep_order *o, uint32_t root)
{
	memset(w, 0, sizeof *w);
	w->o = o;
	w->root = w->last = root;
}

int rep_walk_next(struct rep_walk *w, int skip, uint32_t *node, size_t *depth)
{
	const struct rep_order *o = w->o;
	if (!w->started) {
		w->started = 1;
		*node = w->root;
		*depth = 0;
		return 1;
	}
	if (!skip && o->first[w->last] < o->first[w->last + 1]) {
		size_t cap = w->cap;
		if (w->n == w->cap && (fp_grow((void **)&w->node, &cap, w->n + 1, sizeof *w->node, 64) != 0 ||
				       fp_grow((void **)&w->next, &w->cap, w->n + 1, sizeof *w->next, 64) != 0))
			return -1;
		w->node[w->n] = w->last;
		w->next[w->n++] = o->first[w->last];
	}
	while (w->n > 0) {
		uint32_t top = w->node[w->n - 1];
		if (w->next[w->n - 1] < o->first[top + 1]) {
			w->last = o->kids[w->next[w->n - 1]++];
			*node = w->last;
			*depth = w->n;
			return 1;
		}
		w->n--;
	}
	return 0;
}

void rep_walk_free(struct rep_walk *w)
{
	free(w->node);
	free(w->next);
	memset(w, 0, sizeof *w);
}
