/*
 * rep_diff.h - `report --diff BASE DIR`: the base capture's figures at each
 * stack of DIR's tree (aggregation), for the differential flame graph
 * (rep_flame.c), as Brendan Gregg's difffolded.pl pairs two profiles:
 * frames are DIR's and as wide as DIR's figures; each carries BASE's
 * figure for the same path (the same frames, root to it), 0 where BASE
 * has no such stack. Both sides are then compared as shares of their own
 * whole, so captures of different lengths or rates compare.
 */
#ifndef REP_DIFF_H
#define REP_DIFF_H

#include "rep_frames.h"
#include "rep_trie.h"

struct rep_stats;
struct rep_html_s;

struct rep_diff {
	double *base;       /* per node of DIR's trie: BASE's total there */
	double base_whole;  /* BASE's whole (its root's total) */
	double gone;        /* BASE's figure on stacks DIR lacks (leaves and the self of inner frames) */
	const char *base_name; /* BASE as given */
	/* the matching, kept for the page (rep_html.c), which draws both
	 * captures' events on one stack table: */
	uint32_t *frame_map;   /* per BASE frame: the same frame in DIR's table */
	uint32_t *match;       /* per DIR node: the BASE node of the same path, or UINT32_MAX */
	/* BASE's side, filled by the run for the page (rep_main.c) */
	const rep_trie *base_trie;
	const struct rep_stats *base_st;
	struct rep_html_s *base_events; /* BASE's kept events (a REP_W_EVENTS writer's), or NULL */
};

/*
 * Fills d from DIR's tree (t, fr; fr gains BASE's frames that DIR lacks)
 * and BASE's (bt, bfr), by sample counts, or by weight when weighted.
 * @return 0, or -1 when out of memory (d then holds nothing to free).
 */
int rep_diff_build(struct rep_diff *d, const rep_trie *t, rep_frames *fr, const rep_trie *bt,
		   const rep_frames *bfr, int weighted);
void rep_diff_free(struct rep_diff *d);

#endif
