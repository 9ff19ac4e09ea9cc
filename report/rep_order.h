/*
 * rep_order.h - each trie node's children, sorted by frame name.
 *
 * Flame graphs sort siblings alphabetically (so the same picture comes out
 * of the same data whatever the order of the input), and the writers walk
 * children as a contiguous slice: kids[first[i] .. first[i + 1]).
 */
#ifndef REP_ORDER_H
#define REP_ORDER_H

#include <stdint.h>

#include "rep_frames.h"
#include "rep_trie.h"

struct rep_order {
	uint32_t *kids;
	uint32_t *first; /* one per node, plus one */
	uint32_t *size;  /* nodes in each subtree, the node itself included */
};

/* @return 0, or -1 when out of memory (o then holds nothing to free). */
int rep_order_build(struct rep_order *o, const rep_trie *t, const rep_frames *fr);
void rep_order_free(struct rep_order *o);

/*
 * A depth-first walk of the sorted tree, children in order, on a stack of
 * its own: a file decides how deep a stack is (300,000 frames and more),
 * so no writer recurses per frame.
 */
struct rep_walk {
	const struct rep_order *o;
	uint32_t *node, *next; /* the path from the root down: each node, its next child */
	size_t n, cap;
	uint32_t root, last;
	int started;
};
void rep_walk_init(struct rep_walk *w, const struct rep_order *o, uint32_t root);
/*
 * The next node (the root first), with its depth below the root in *depth.
 * skip: do not enter the children of the node returned last.
 * @return 1, 0 at the end, or -1 when out of memory.
 */
int rep_walk_next(struct rep_walk *w, int skip, uint32_t *node, size_t *depth);
void rep_walk_free(struct rep_walk *w);

#endif
