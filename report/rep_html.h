/*
 * rep_html.h - the events of a report as one offline HTML page
 * (`flameprof report DIR -o profile.html`).
 *
 * The page (rep_html_page.js and .css, embedded at build time) draws the
 * heatmap and the flame graph of any range the reader picks, so it needs
 * every event's time, not only the trie: the collector calls
 * rep_html_kept() for every event that enters the trie, and this sums them
 * per (20 ms cell, trie leaf). The page holds a frame table, the trie as
 * a stack table (parent, frame) and those sums; doc/report.md has the rest.
 */
#ifndef REP_HTML_H
#define REP_HTML_H

#include <stdio.h>

#include "rep_collect.h"

typedef struct rep_html_s rep_html;

#define REP_HTML_CELL_US 20000 /* a heatmap cell: 1 s / REP_HEAT_ROWS */

/* @return an empty aggregate, or NULL when out of memory. */
rep_html *rep_html_create(void);
void rep_html_free(rep_html *h);
/* A rep_kept_fn: arg is the rep_html. */
int rep_html_kept(void *arg, const struct rep_kept *ev);

#endif
