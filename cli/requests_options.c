/*
 * requests_options.c - the option table of `flameprof requests`: argv to
 * struct requests_config through the option engine (optparse.h), the
 * combinations checked; --help is printed from the same table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optparse.h"
#include "session.h"
#include "requests_options.h"

/* Each row's id is its kind: the engine's (FP_K_*), or how apply()
 * reads the value into field. */
enum kind { K_ENTRY, K_TIER, K_FULL, K_IDENTITY, K_IDFUN, K_FRACTION };

#define F(field) offsetof(struct requests_config, field)

static const struct fp_opt options[] = {
	{ "entry", 'e', "MOD:FUN/ARITY", K_ENTRY, F(entry), 0, 0,
	  "each call of this function starts a request (required; ARITY may be '_')" },
	{ "tier", 't', "NAME=MOD:FUN/ARITY", K_TIER, F(tiers), 0, 0,
	  "time these functions, call to return, as tier NAME inside requests ('_' for FUN or ARITY; repeatable)" },
	{ "full", 0, "MOD[:FUN/ARITY]", K_FULL, F(full), 0, 0,
	  "time every function of MOD inside requests, each as a tier named by its MFA (costly: see doc/requests.md; repeatable)" },
	{ "limit", 0, "N", FP_K_UINT, F(limit), 1, 100000,
	  "refuse tier and --full patterns that match more than N functions (default 1000)" },
	{ "identity", 'i', "arg:N", K_IDENTITY, F(identity), 0, 0,
	  "group requests by the entry call's Nth argument (default: the entry function's name)" },
	{ "identity-fun", 0, "SOURCE", K_IDFUN, F(identity_fun), 0, 0,
	  "group by what an Erlang fun({M, F, Args}) (or, on an Elixir node, an Elixir fn) returns (an atom, string or undefined): code the node runs for each request; refused unless it parses as a fun of one argument" },
	FP_ROW_DURATION(struct requests_config,
	  "trace for DUR, e.g. 30s, 5m (default 10s; Ctrl-C or SIGTERM end it sooner, with the summary)"),
	{ "every", 0, "DUR", FP_K_DUR, F(every_us), 0, 0,
	  "one window of figures every DUR: the live table and --stats lines (default 1s)" },
	{ "stats", 0, "FILE", FP_K_STR, F(stats), 0, 0,
	  "append one JSON line per identity and tier per window to FILE" },
	{ "slow", 0, "DUR", FP_K_DUR, F(slow_us), 0, 0,
	  "keep each request slower than DUR (identity, total, tiers, pids) as JSON lines in --slow-file" },
	{ "slow-file", 0, "FILE", FP_K_STR, F(slow_file), 0, 0,
	  "where --slow writes (default flameprof-slow.jsonl)" },
	{ "sample-requests", 0, "P", K_FRACTION, F(sample_permille), 0, 0,
	  "start requests only for the fraction P of each second, e.g. 0.1 (default 1)" },
	{ "max-late", 0, "DUR", FP_K_DUR, F(max_late_us), 0, 0,
	  "circuit breaker: pause tracing when trace messages arrive DUR late (default 1s)" },
	{ "max-queue", 0, "N", FP_K_UINT, F(max_queue), 100, 10000000,
	  "circuit breaker: pause tracing when the node's tracer holds N messages (default 50000)" },
	FP_ROW_NAMES(struct requests_config,
	  "spell functions as elixir (Shop.Pricing.price/2) or erlang (Elixir.Shop.Pricing:price/2) in the table, --stats and --slow; auto (default): elixir when the node runs the elixir application"),
	FP_ROW_NODE_NAME(struct requests_config,
	  "our node name before the '@' (default flameprof_requests_<user>)"),
	FP_ROW_COOKIE_FILE(struct requests_config),
	FP_ROW_COOKIE(struct requests_config),
	FP_ROW_CONNECT_TIMEOUT(struct requests_config),
	FP_ROW_QUIET(struct requests_config),
	FP_ROW_VERBOSE(struct requests_config),
	FP_ROW_HELP(struct requests_config),
};

static int apply(void *ctx, const struct fp_opt *o, const char *val, const char *spelled,
		 char *detail, size_t cap)
{
	struct requests_config *cfg = ctx;
	char *end;
	switch ((enum kind)o->id) {
	case K_ENTRY:
		free(cfg->entry_text);
		if (!(cfg->entry_text = strdup(val))) {
			snprintf(detail, cap, "out of memory");
			return FP_OPT_USAGE;
		}
		if (fp_mfa_pattern_split(cfg->entry_text, &cfg->entry) < 0) {
			snprintf(detail, cap, "'%s' is not an entry for %s: write MOD:FUN/ARITY, e.g. kv_handler:handle/2 or MyApp.Handler.handle/2 ('_' for FUN or ARITY)",
				 val, spelled);
			return FP_OPT_USAGE;
		}
		return FP_OPT_OK;
	case K_TIER:
		return fp_opt_tier(val, spelled, cfg->tiers, cfg->tier_text, &cfg->ntiers, detail, cap);
	case K_FULL: {
		char *t = fp_opt_repeat(val, spelled, cfg->full_text, cfg->nfull, FP_MAX_TIERS, detail, cap);
		if (!t)
			return FP_OPT_USAGE;
		struct fp_mfa_pattern *p = &cfg->full[cfg->nfull++];
		int parts = fp_mfa_parse(t, p);
		if (parts == 1)
			p->function = "_";
		if ((parts != 1 && parts != 3) || strcmp(p->module, "_") == 0) {
			snprintf(detail, cap, "'%s' is not a module or function for %s: write MOD or MOD:FUN/ARITY (a module, not '_')",
				 val, spelled);
			return FP_OPT_USAGE;
		}
		return FP_OPT_OK;
	}
	case K_IDENTITY: {
		errno = 0;
		long n = strncmp(val, "arg:", 4) == 0 ? strtol(val + 4, &end, 10) : 0;
		cfg->identity_options++;
		if (strncmp(val, "arg:", 4) != 0 || end == val + 4 || *end || errno || n < 1 || n > 255) {
			snprintf(detail, cap, "'%s' is not an identity for %s: write arg:N, N from 1 (the first argument of the entry call), or use --identity-fun",
				 val, spelled);
			return FP_OPT_USAGE;
		}
		cfg->identity = REQ_ID_ARG;
		cfg->identity_arg = (unsigned)n;
		return FP_OPT_OK;
	}
	case K_IDFUN:
		cfg->identity_options++;
		if (strlen(val) > 2000) {
			snprintf(detail, cap, "%s is longer than 2000 characters; keep the fun short, it runs once per request",
				 spelled);
			return FP_OPT_USAGE;
		}
		cfg->identity = REQ_ID_FUN;
		cfg->identity_fun = val;
		return FP_OPT_OK;
	case K_FRACTION: {
		errno = 0;
		double p = strtod(val, &end);
		if (end == val || *end || errno || !(p > 0.0 && p <= 1.0) || p * 1000 < 1) {
			snprintf(detail, cap, "'%s' is not a fraction for %s: give a number from 0.001 to 1, e.g. 0.1",
				 val, spelled);
			return FP_OPT_USAGE;
		}
		cfg->sample_permille = (unsigned)(p * 1000 + 0.5);
		return FP_OPT_OK;
	}
	}
	snprintf(detail, cap, "%s: no such kind of option", spelled);
	return FP_OPT_USAGE;
}

static void defaults(void *arg)
{
	struct requests_config *cfg = arg;
	memset(cfg, 0, sizeof *cfg);
	cfg->duration_us = 10000000;
	cfg->every_us = 1000000;
	cfg->slow_file = "flameprof-slow.jsonl";
	cfg->sample_permille = 1000;
	cfg->max_late_us = 1000000;
	cfg->max_queue = 50000;
	cfg->limit = 1000;
	cfg->connect_timeout_us = FP_CONNECT_TIMEOUT_US;
	cfg->verbosity = 1;
}

/* Combinations, checked once everything is parsed. */
static int check(void *arg, char *detail, size_t cap)
{
	const struct requests_config *cfg = arg;
	if (cfg->help)
		return FP_OPT_OK;
	if (!cfg->node)
		snprintf(detail, cap, "no node given; name the node to trace, e.g. 'flameprof requests --entry kv:handle/2 app@db1'");
	else if (!cfg->entry_text)
		snprintf(detail, cap, "no --entry given; name the function whose calls start requests, e.g. --entry kv_handler:handle/2");
	else if (cfg->identity_options > 1)
		snprintf(detail, cap, "--identity and --identity-fun both say how to group requests; give one of them");
	else if (fp_opt_tiers_check(cfg->tiers, cfg->ntiers, detail, cap) != FP_OPT_OK)
		return FP_OPT_USAGE;
	else if (cfg->duration_us < 1000 || cfg->every_us < 100000 || cfg->connect_timeout_us < 100000 ||
		 cfg->max_late_us < 10000)
		snprintf(detail, cap, "--duration must be at least 1ms, --every and --connect-timeout at least 100ms, --max-late at least 10ms");
	else if (fp_cookie_rows_check(cfg->cookie, cfg->cookie_file, detail, cap) != FP_OPT_OK)
		return FP_OPT_USAGE;
	else
		return FP_OPT_OK;
	return FP_OPT_USAGE;
}

static void config_free(void *arg)
{
	struct requests_config *cfg = arg;
	free(cfg->entry_text);
	cfg->entry_text = NULL;
	for (size_t k = 0; k < cfg->ntiers; k++)
		free(cfg->tier_text[k]);
	cfg->ntiers = 0;
	for (size_t k = 0; k < cfg->nfull; k++)
		free(cfg->full_text[k]);
	cfg->nfull = 0;
}

const struct fp_command fp_requests_command = {
	.name = "flameprof requests",
	.synopsis = "usage: flameprof requests [options] --entry MOD:FUN/ARITY [--tier NAME=MOD:FUN/ARITY]... NODE\n\n"
		    "Where each kind of request spends its time, tier by tier, across processes.\n"
		    "Each call of the entry function starts a request: it gets a seq_trace token,\n"
		    "which the VM passes along with every message, so the gen_servers and workers\n"
		    "that serve it are timed too. Tiers are timed call to return, only inside\n"
		    "requests; _total is the entry call to its return. Percentiles come from\n"
		    "log-linear histograms. Everything set is removed at the end, on Ctrl-C, and\n"
		    "if flameprof dies, the request tokens too. A table that covers part of the\n"
		    "run (circuit breaker) says which part, and the line under it where every\n"
		    "entry call went (the node's call_count, split into parts that add up).\n\n"
		    "options:\n",
	.epilog = "\nexample: flameprof requests --entry kv_handler:handle/2 --identity arg:1 \\\n"
		  "           --tier parse=kv_proto:parse/1 --tier db=kv_db:_/_ --stats s.jsonl app@db1\n"
		  "         flameprof requests --entry Shop.Pricing.handle_call/3 --tier db=Shop.Repo.query/_ shop@db1\n"
		  "\nCost: two trace messages per entry and per tier call inside a request; a\n"
		  "message sent without waiting for its answer (a cast) carries the request's\n"
		  "token into the work it starts: call seq_trace:set_token([]) before casting\n"
		  "work that is not part of the request. See doc/requests.md.\n"
		  "\nexit status: 0 done, 64 usage (also: a pattern that matches nothing, a bad\n"
		  "--identity-fun), 69 cannot connect, node busy with another tracing session,\n"
		  "or a function traced by someone else, 73 a file or /tmp/flameprof-UID not\n"
		  "usable, 74 I/O error, 75 node lost during the run, 76 protocol error,\n"
		  "77 cookie rejected or its file refused.\n",
	.help_column = 32,
	.hint_inline = 0,
	.duration_eg = "10s",
	FP_NODE_COMMAND(struct requests_config),
};
