/*
 * rep_trie.h - stacks aggregated into a tree of frames (a prefix trie).
 *
 * Node 0 is the root ("all"). rep_trie_add() takes a root->leaf path of
 * frame ids; a whole-stack hash maps a path seen before straight to its
 * leaf, so a repeated stack costs one hash and one walk up the tree, and
 * nothing is allocated. Totals are summed once, by rep_trie_finish().
 */
#ifndef REP_TRIE_H
#define REP_TRIE_H

#include <stddef.h>
#include <stdint.h>

typedef struct rep_trie_s rep_trie;

struct rep_node {
	uint32_t frame;     /* frame id (REP_NO_FRAME for the root) */
	uint32_t parent;    /* parent node (the root is its own parent) */
	uint32_t child;     /* first child, 0: none */
	uint32_t sibling;   /* next sibling, 0: none */
	uint32_t depth;     /* 0 for the root */
	int64_t self_w;     /* weight of the stacks ending here */
	int64_t total_w;    /* self_w plus the children's (after finish) */
	uint64_t self_n;    /* samples ending here */
	uint64_t total_n;   /* samples through here (after finish) */
};

/* a + b, held at INT64_MIN/INT64_MAX instead of overflowing: weights are
 * metric values, and a node's extreme ones must not wrap a sum. */
static inline int64_t rep_add_sat(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

rep_trie *rep_trie_create(void);
void rep_trie_free(rep_trie *t);

/* Adds one sample of the given weight. @return 0, or -1 when out of memory. */
int rep_trie_add(rep_trie *t, const uint32_t *path, size_t n, int64_t weight);

/* The node of a root->leaf path, created if needed (the root for n == 0),
 * for callers that add to the same path again and again.
 * @return 0, or -1 when out of memory. */
int rep_trie_leaf(rep_trie *t, const uint32_t *path, size_t n, uint32_t *leaf);
/* Adds one sample of the given weight at a node from rep_trie_leaf(). */
void rep_trie_add_at(rep_trie *t, uint32_t node, int64_t weight);

/* Sums the totals; call once, after the last add. */
void rep_trie_finish(rep_trie *t);

size_t rep_trie_count(const rep_trie *t);
const struct rep_node *rep_trie_node(const rep_trie *t, uint32_t id);

#endif
