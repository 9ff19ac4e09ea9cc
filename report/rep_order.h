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

#endif
