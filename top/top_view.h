/*
 * top_view.h - what `flameprof top` shows, from the samples alone: the
 * hottest functions and the busiest processes over a sliding window.
 *
 * The window is a ring of slots, one per refresh interval; a sample counts
 * in the current slot, top_view_tick() starts the next one and forgets the
 * oldest. Nothing here talks to a node, a terminal or a clock: the samples
 * come in, the tables go out as text lines cut to a width, onto the
 * caller's stream (tests/unit/test_top.c drives it with made-up samples).
 * Text from the node reaches the lines through fp_ctl_escape().
 */
#ifndef FP_TOP_VIEW_H
#define FP_TOP_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "../common/sample.h"

typedef struct top_view top_view;

enum top_table { TOP_FUNCTIONS, TOP_PROCESSES };

/* The sort keys of each table, in the order 's' cycles through them. */
enum top_fun_sort { TOP_SORT_SELF, TOP_SORT_TOTAL, TOP_SORT_FUNCTION, TOP_FUN_SORTS };
/* The processes' keys in their columns' order: the on-CPU share (RUN%) first,
 * the default, since the first row is read as the CPU's hog. */
enum top_proc_sort { TOP_SORT_RUN, TOP_SORT_REDS, TOP_SORT_MEMORY, TOP_SORT_QUEUE, TOP_SORT_NAME,
		     TOP_PROC_SORTS };
/* The header's name of sort key k of table t (for the title line). */
const char *top_sort_name(enum top_table t, int k);

/* A window of `slots` refresh intervals (1..3600). @return NULL when out
 * of memory or slots is out of range. */
top_view *top_view_create(unsigned slots);
void top_view_free(top_view *v);
/* Names from now on in Elixir's spelling (Shop.Pricing.handle_call/3,
 * :gen_server.loop/7, a registered Shop.Pricer without its Elixir.), as
 * `--names elixir` asks; the default is Erlang's, as the node writes them. */
void top_view_set_elixir(top_view *v, int on);

/* Counts one sample in the current slot: its functions (on-CPU samples:
 * running or garbage_collecting; self for the leaf, total once per sample
 * for every function on the stack; a sample with no stack as a row of its
 * own, [ran_to_receive] or [no_stack], as the report draws it) and its
 * process (status, reductions since its previous sample, memory, queue,
 * current function). @return 0,
 * or -1 when out of memory (the sample is left out, the view stays sound). */
int top_view_add(top_view *v, const struct fp_sample *s);

/* The next interval begins: the oldest slot is forgotten, and functions and
 * processes with nothing left in the window with it. */
void top_view_tick(top_view *v);

/* On-CPU samples and all samples in the window. */
uint64_t top_view_oncpu(const top_view *v);
uint64_t top_view_samples(const top_view *v);

/* Writes table t sorted by key `sort`: a header line and at most `rows`
 * rows, each cut to `width` columns (at least 40) and ended with eol (e.g.
 * "\n", or a terminal's erase-to-end-of-line and "\r\n"). seconds is what
 * the window covers so far (reductions per second). @return the lines
 * written, or -1 when out of memory or the stream failed. */
int top_view_write(top_view *v, FILE *f, enum top_table t, int sort, unsigned rows, unsigned width,
		   double seconds, const char *eol);

#endif
