/*
 * rep_trie.c - the aggregation tree and its two hash tables.
 *
 * Children are found through one table keyed by (parent, frame), not by
 * walking sibling lists (a status node has thousands of children). The
 * stack table keys whole paths by hash and checks a hit by walking from the
 * leaf up, so it stores no copy of the path.
 */
#include "rep_trie.h"

#include <stdlib.h>
#include <string.h>

#include "rep_frames.h"
#include "../common/grow.h"
#include "../common/hash.h"

struct stack_slot {
	uint32_t hash;
	uint32_t leaf; /* node id; 0: empty (the root is never a leaf here) */
	uint32_t len;
};

struct rep_trie_s {
	struct rep_node *v;
	size_t n, cap;
	uint32_t *kids; /* (parent, frame) -> node id; 0 empty */
	size_t nkids;
	struct stack_slot *stacks;
	size_t nstacks, used_stacks;
};

static uint64_t kid_hash(uint32_t parent, uint32_t frame)
{
	return fp_mix64((uint64_t)parent << 32 | frame);
}

rep_trie *rep_trie_create(void)
{
	rep_trie *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->cap = 1024;
	t->nkids = 2048;
	t->nstacks = 1024;
	t->v = malloc(t->cap * sizeof *t->v);
	t->kids = calloc(t->nkids, sizeof *t->kids);
	t->stacks = calloc(t->nstacks, sizeof *t->stacks);
	if (!t->v || !t->kids || !t->stacks) {
		rep_trie_free(t);
		return NULL;
	}
	memset(&t->v[0], 0, sizeof t->v[0]);
	t->v[0].frame = REP_NO_FRAME;
	t->n = 1;
	return t;
}

void rep_trie_free(rep_trie *t)
{
	if (!t)
		return;
	free(t->v);
	free(t->kids);
	free(t->stacks);
	free(t);
}

static int grow_kids(rep_trie *t)
{
	size_t ns = t->nkids * 2, i;
	uint32_t *k = calloc(ns, sizeof *k);
	if (!k)
		return -1;
	for (i = 1; i < t->n; i++) {
		size_t j = kid_hash(t->v[i].parent, t->v[i].frame) & (ns - 1);
		while (k[j])
			j = (j + 1) & (ns - 1);
		k[j] = (uint32_t)i;
	}
	free(t->kids);
	t->kids = k;
	t->nkids = ns;
	return 0;
}

/* @return the child of parent for frame, created if needed; 0 on OOM. */
static uint32_t child(rep_trie *t, uint32_t parent, uint32_t frame)
{
	size_t j = kid_hash(parent, frame) & (t->nkids - 1);
	struct rep_node *nd;
	while (t->kids[j]) {
		nd = &t->v[t->kids[j]];
		if (nd->parent == parent && nd->frame == frame)
			return t->kids[j];
		j = (j + 1) & (t->nkids - 1);
	}
	/* node ids are 32-bit */
	if (t->n == UINT32_MAX || fp_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v, 1024) != 0)
		return 0;
	nd = &t->v[t->n];
	memset(nd, 0, sizeof *nd);
	nd->frame = frame;
	nd->parent = parent;
	nd->depth = t->v[parent].depth + 1;
	nd->sibling = t->v[parent].child;
	t->v[parent].child = (uint32_t)t->n;
	t->kids[j] = (uint32_t)t->n;
	t->n++;
	if (t->n * 2 > t->nkids && grow_kids(t) != 0)
		return 0;
	return (uint32_t)t->n - 1;
}

static int same_path(const rep_trie *t, uint32_t leaf, const uint32_t *path, size_t n)
{
	while (n > 0) {
		const struct rep_node *nd = &t->v[leaf];
		if (nd->frame != path[--n])
			return 0;
		leaf = nd->parent;
	}
	return leaf == 0;
}

static int grow_stacks(rep_trie *t)
{
	size_t ns = t->nstacks * 2, i;
	struct stack_slot *s = calloc(ns, sizeof *s);
	if (!s)
		return -1;
	for (i = 0; i < t->nstacks; i++) {
		size_t j;
		if (!t->stacks[i].leaf)
			continue;
		j = t->stacks[i].hash & (ns - 1);
		while (s[j].leaf)
			j = (j + 1) & (ns - 1);
		s[j] = t->stacks[i];
	}
	free(t->stacks);
	t->stacks = s;
	t->nstacks = ns;
	return 0;
}

int rep_trie_leaf(rep_trie *t, const uint32_t *path, size_t n, uint32_t *leaf)
{
	uint32_t h;
	size_t j, i;
	uint32_t node = 0;
	*leaf = 0;
	if (n == 0)
		return 0;
	h = fp_hash32(0x243f6a8885a308d3ull, path, n * sizeof *path);
	j = h & (t->nstacks - 1);
	while (t->stacks[j].leaf) {
		struct stack_slot *s = &t->stacks[j];
		if (s->hash == h && s->len == n && same_path(t, s->leaf, path, n)) {
			*leaf = s->leaf;
			return 0;
		}
		j = (j + 1) & (t->nstacks - 1);
	}
	for (i = 0; i < n; i++)
		if ((node = child(t, node, path[i])) == 0)
			return -1;
	t->stacks[j].hash = h;
	t->stacks[j].leaf = node;
	t->stacks[j].len = (uint32_t)n;
	if (++t->used_stacks * 2 > t->nstacks && grow_stacks(t) != 0)
		return -1;
	*leaf = node;
	return 0;
}

void rep_trie_add_at(rep_trie *t, uint32_t node, int64_t weight)
{
	t->v[node].self_w = rep_add_sat(t->v[node].self_w, weight);
	t->v[node].self_n++;
}

int rep_trie_add(rep_trie *t, const uint32_t *path, size_t n, int64_t weight)
{
	uint32_t leaf;
	if (rep_trie_leaf(t, path, n, &leaf) != 0)
		return -1;
	rep_trie_add_at(t, leaf, weight);
	return 0;
}

void rep_trie_finish(rep_trie *t)
{
	size_t i;
	for (i = 0; i < t->n; i++) {
		t->v[i].total_w = t->v[i].self_w;
		t->v[i].total_n = t->v[i].self_n;
	}
	/* Children always come after their parent: sum from the end. */
	for (i = t->n - 1; i > 0; i--) {
		struct rep_node *p = &t->v[t->v[i].parent];
		p->total_w = rep_add_sat(p->total_w, t->v[i].total_w);
		p->total_n += t->v[i].total_n;
	}
}

size_t rep_trie_count(const rep_trie *t)
{
	return t->n;
}

const struct rep_node *rep_trie_node(const rep_trie *t, uint32_t id)
{
	return &t->v[id];
}
