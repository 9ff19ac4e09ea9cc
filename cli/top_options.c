/*
 * top_options.c - the option table of `flameprof top`: its own rows (the
 * refresh, the window, the view), the capture's sampling rows, read by the
 * capture's own code (fp_record_option()), and the rows of every command
 * that talks to a node (session.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optparse.h"
#include "session.h"
#include "top_options.h"
#include "../top/top_view.h"

/* Each row's id is its kind: the engine's (FP_K_*), or how apply() reads
 * the value (K_REC: a capture option, applied to cfg->rec under the row's
 * name). */
enum kind { K_REC, K_VIEW, K_SORT };

#define F(field) offsetof(struct top_config, field)
/* The capture's config comes first, so the shared rows of session.h and
 * FP_NODE_COMMAND, which name its fields, land in it. */
_Static_assert(offsetof(struct top_config, rec) == 0, "top_config.rec first");

static const struct fp_opt options[] = {
	FP_OPT_DUR(0, "interval", "DUR", F(interval_us), "redraw every DUR (default 1s)"),
	FP_OPT_DUR('w', "window", "DUR", F(window_us), "count the shares over the last DUR (default 10s)"),
	FP_OPT_UINT('n', "iterations", "N", F(iterations), 1, 1000000, "stop after N refreshes (default: until 'q', Ctrl-C or SIGTERM)"),
	FP_OPT_SWITCH(0, "once", F(iterations), 1, "one refresh, then stop (the same as -n 1)"),
	FP_OPT_OWN(0, "view", "VIEW", K_VIEW, F(view), "functions (default: the hottest functions) or processes (the busiest processes)"),
	FP_OPT_OWN(0, "sort", "KEY", K_SORT, F(sort), "functions: self (default), total or function; processes: running (default: the on-CPU share), reductions, memory, queue or name"),
	FP_OPT_UINT(0, "rows", "N", F(rows), 1, 100000, "rows of each plain table (default 20; on a terminal: as many as fit)"),
	FP_OPT_SWITCH(0, "plain", F(plain), 1, "print plain tables, one per refresh, even on a terminal"),
	FP_CAP_ROW_TOP(K_REC, "sample the N processes that gained the most reductions in each selection window (default 30)"),
	FP_CAP_ROW_EVERY(K_REC, "pick the busiest processes again every DUR (default 2s)"),
	FP_CAP_ROW_HZ(K_REC, "samples per second per process (default 49)"),
	FP_CAP_ROW_DEPTH(K_REC, "stack frames kept, raises backtrace_depth while sampling (default 64)"),
	FP_CAP_ROW_PID(K_REC),
	FP_CAP_ROW_NAME(K_REC, "also sample this registered process (repeatable)"),
	FP_ROW_NAMES(struct cap_config, "spell functions and names as elixir (Shop.Pricing.handle_call/3, :gen_server.loop/7) or erlang does; auto (default): elixir when the node runs the elixir application"),
	FP_CAP_ROW_MAX_COST(K_REC, "the capture's cost budget: while the node is busy, keep sampling under PCT of its schedulers (default 1%; 0: none)"),
	FP_CAP_ROW_FORCE(K_REC),
	FP_ROW_COOKIE_FILE(struct cap_config),
	FP_ROW_COOKIE(struct cap_config),
	FP_ROW_CONNECT_TIMEOUT(struct cap_config),
	FP_CAP_ROW_SILENCE_TIMEOUT(K_REC),
	FP_ROW_NODE_NAME(struct cap_config, "our own node name on the target (default flameprof_<user>: top and a capture exclude each other)"),
	FP_ROW_QUIET(struct cap_config),
	FP_ROW_VERBOSE_HELP(struct cap_config, "also print each step (before and after the view)"),
	FP_ROW_HELP(struct cap_config),
};

static const char *const fun_sorts[] = { "self", "total", "function" };
static const char *const proc_sorts[] = { "running", "reductions", "memory", "queue", "name" };

static int apply(void *ctx, const struct fp_opt *o, const char *val, const char *spelled,
		 char *detail, size_t cap)
{
	struct top_config *cfg = ctx;
	switch ((enum kind)o->id) {
	case K_REC:
		return fp_record_option(&cfg->rec, o->name, val, spelled, detail, cap);
	case K_VIEW: {
		static const char *const words[] = { "functions", "processes" };
		static const int views[] = { TOP_FUNCTIONS, TOP_PROCESSES };
		int k = fp_opt_word(val, spelled, words, 2, "a view", "functions or processes", detail, cap);
		if (k < 0)
			return FP_OPT_USAGE;
		cfg->view = views[k];
		return FP_OPT_OK;
	}
	case K_SORT:
		/* checked against the view once both are known (check()) */
		for (int k = 0; k < TOP_FUN_SORTS; k++)
			if (strcmp(val, fun_sorts[k]) == 0)
				cfg->sort = k;
		for (int k = 0; k < TOP_PROC_SORTS; k++)
			if (strcmp(val, proc_sorts[k]) == 0)
				cfg->sort = 100 + k;
		if (cfg->sort < 0)
			return fp_opt_fail(detail, cap, "'%s' is not a sort key for %s: use self, total or function (functions), "
					   "reductions, running, memory, queue or name (processes)", val, spelled);
		return FP_OPT_OK;
	}
	return fp_opt_fail(detail, cap, "%s: no such kind of option", spelled);
}

static void defaults(void *arg)
{
	struct top_config *cfg = arg;
	memset(cfg, 0, sizeof *cfg);
	fp_record_defaults(&cfg->rec);
	/* lighter than a capture: a live view needs shares, not every stack */
	cfg->rec.top = 30;
	cfg->rec.hz = 49;
	cfg->rec.every_us = 2000000;
	cfg->interval_us = 1000000;
	cfg->window_us = 10000000;
	cfg->view = TOP_FUNCTIONS;
	cfg->sort = -1;
	cfg->rows = 20;
}

static int check(void *arg, char *detail, size_t cap)
{
	struct top_config *cfg = arg;
	const struct cap_config *r = &cfg->rec;
	if (r->help)
		return FP_OPT_OK;
	if (cfg->sort >= 100 && cfg->view == TOP_FUNCTIONS && cfg->sort != -1)
		cfg->view = TOP_PROCESSES; /* a processes key picks its view */
	else if (cfg->sort >= 0 && cfg->sort < 100 && cfg->view == TOP_PROCESSES)
		return fp_opt_fail(detail, cap, "--sort %s is a key of the functions view; the processes view sorts by running, reductions, memory, queue or name",
				   fun_sorts[cfg->sort]);
	if (cfg->sort >= 100)
		cfg->sort -= 100;
	if (!r->node)
		return fp_opt_fail(detail, cap, "no node given; name the node to watch, e.g. 'flameprof top app@db1'");
	if (cfg->interval_us < 100000 || cfg->window_us < cfg->interval_us)
		return fp_opt_fail(detail, cap, "--interval must be at least 100ms and --window at least one --interval");
	if (cfg->window_us / cfg->interval_us > 3600)
		return fp_opt_fail(detail, cap, "--window covers at most 3600 intervals; lengthen --interval or shorten --window");
	if (r->every_us < 100000)
		return fp_opt_fail(detail, cap, "--every must be at least 100ms");
	if (r->connect_timeout_us < 100000 || r->silence_timeout_us < 1000000)
		return fp_opt_fail(detail, cap, "--connect-timeout must be at least 100ms and --silence-timeout at least 1s");
	if (fp_cookie_rows_check(r->cookie, r->cookie_file, detail, cap) != FP_OPT_OK)
		return FP_OPT_USAGE;
	if (r->top + r->npids + r->nnames == 0)
		return fp_opt_fail(detail, cap, "--top 0 with no --pid or --name leaves nothing to watch");
	if ((double)(r->top + r->npids + r->nnames) * r->hz > CAP_LOAD_BOUND && !r->force)
		return fp_opt_fail(detail, cap, "--top %u at --hz %g asks for %.0f samples/s, beyond the %s the agent delivers on the node without harm; "
				   "lower --top or --hz, or add --force", r->top, r->hz, (r->top + r->npids + r->nnames) * r->hz,
				   CAP_LOAD_BOUND_TEXT);
	return FP_OPT_OK;
}

static void config_free(void *arg)
{
	struct top_config *cfg = arg;
	fp_config_free(&cfg->rec);
}

const struct fp_command fp_top_command = {
	.name = "flameprof top",
	.help_column = 26,
	.hint_inline = 0,
	.duration_eg = "1s",
	FP_NODE_COMMAND(struct cap_config),
	.synopsis = "usage: flameprof top [options] NODE\n\n"
		    "A live view of a running node, redrawn every second: the hottest functions\n"
		    "(their share of the on-CPU samples, self and total, over the last 10 s;\n"
		    "[ran_to_receive]: on a CPU in runs too short to read their code) or the\n"
		    "busiest processes (by the share of their samples on a CPU, then\n"
		    "reductions/s, memory, message queue, current function). The same agent and\n"
		    "cost budget as a capture; nothing is written. On a terminal, keys: Tab or v\n"
		    "switch view (f functions, p processes), s next sort key (1-5 pick one),\n"
		    "space pause, q quit. Elsewhere (a pipe, a log, watch) one plain table per\n"
		    "refresh.\n\n"
		    "options:\n",
	.epilog = "\nexample: flameprof top --view processes app@db1\n"
		  "\nexit status: 0 done (q, Ctrl-C, SIGTERM, SIGHUP, -n), 64 usage, 69 cannot\n"
		  "connect or start the agent (another flameprof holds the node), 70 the agent\n"
		  "ended unasked (node restored), 73 /tmp/flameprof-UID not usable, 74 cannot\n"
		  "write to standard output, 75 node lost, 76 protocol error, 77 cookie\n"
		  "rejected or its file refused.\n"
		  "See flameprof(1) and README.md.\n",
};

static int run(void *cfg)
{
	return fp_top_run(cfg);
}

int top_main(int argc, char **argv)
{
	struct top_config cfg;
	return fp_opt_main(&fp_top_command, argc, argv, &cfg, run);
}
