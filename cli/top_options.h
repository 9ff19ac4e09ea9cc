/*
 * top_options.h - argv of `flameprof top` becomes one struct top_config
 * through the option engine (optparse.h). The sampling options are the
 * capture's own (fp_record_option()), so they read and check the same way
 * in both commands; the connection rows are every node command's
 * (session.h).
 */
#ifndef FP_TOP_OPTIONS_H
#define FP_TOP_OPTIONS_H

#include <stdint.h>
#include "options.h"

struct top_config {
	struct cap_config rec;   /* first: NODE, sampling, budget, connection, -q/-v/-h */
	int64_t interval_us;    /* --interval: one refresh */
	int64_t window_us;      /* --window: what the shares are over */
	unsigned iterations;    /* -n: stop after N refreshes; 0: until q or a signal */
	int view;               /* --view: enum top_table */
	int sort;               /* --sort: the view's key; -1: the view's first */
	unsigned rows;          /* --rows: rows of a plain table (a terminal: its height) */
	int plain;              /* --plain: plain tables even on a terminal */
};

/* The command: its table, defaults and checks, run by fp_opt_main(). */
extern const struct fp_command fp_top_command;
/* `flameprof top`: parse, then run (cli/top.c). @return an exit status. */
int top_main(int argc, char **argv);
/* The live view itself. @return an exit status. */
int fp_top_run(const struct top_config *cfg);

#endif
