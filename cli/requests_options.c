/*
 * requests_options.c - `flameprof requests`, its one file in the front
 * door: where each kind of request spends its time, tier by tier, from
 * outside the node. The option table (argv to struct requests_config
 * through the option engine, optparse.h; --help printed from the same
 * table), the combinations checked, then the run: connect, start the
 * tracer (requests/requests.h), merge each window into the table
 * (requests/req_table.h), write --stats and --slow lines as they come,
 * redraw the table on a terminal; at --duration or a signal stop, take the
 * last window and print the summary. Signal handlers only set a flag. If
 * flameprof dies instead, the tracer sees the node go and cleans up by
 * itself.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>
#include "lang.h"
#include "msg.h"
#include "optparse.h"
#include "requests_options.h"
#include "session.h"
#include "../requests/req_table.h"
#include "../rotate/outfile.h"
#include "../node/node.h"
#include "../requests/requests.h"

/* Each row's id is its kind: the engine's (FP_K_*), or how apply()
 * reads the value into field. */
enum kind { K_ENTRY, K_TIER, K_FULL, K_IDENTITY, K_IDFUN, K_FRACTION };

#define F(field) offsetof(struct requests_config, field)

static const struct fp_opt options[] = {
	FP_OPT_OWN('e', "entry", "MOD:FUN/ARITY", K_ENTRY, F(entry), "each call of this function starts a request (required; ARITY may be '_')"),
	FP_OPT_OWN('t', "tier", "NAME=MOD:FUN/ARITY", K_TIER, F(tiers), "time these functions, call to return, as tier NAME inside requests ('_' for FUN or ARITY; repeatable)"),
	FP_OPT_OWN(0, "full", "MOD[:FUN/ARITY]", K_FULL, F(full), "time every function of MOD inside requests, each as a tier named by its MFA (costly: see doc/requests.md; repeatable)"),
	FP_OPT_UINT(0, "limit", "N", F(limit), 1, 100000, "refuse tier and --full patterns that match more than N functions (default 1000)"),
	FP_OPT_OWN('i', "identity", "arg:N", K_IDENTITY, F(identity), "group requests by the entry call's Nth argument (default: the entry function's name)"),
	FP_OPT_OWN(0, "identity-fun", "SOURCE", K_IDFUN, F(identity_fun), "group by what an Erlang fun({M, F, Args}) (or, on an Elixir node, an Elixir fn) returns (an atom, string or undefined): code the node runs for each request; refused unless it parses as a fun of one argument"),
	FP_ROW_DURATION(struct requests_config, "trace for DUR, e.g. 30s, 5m (default 10s; Ctrl-C or SIGTERM end it sooner, with the summary)"),
	FP_OPT_DUR(0, "every", "DUR", F(every_us), "one window of figures every DUR: the live table and --stats lines (default 1s)"),
	FP_OPT_STRING(0, "stats", "FILE", F(stats), "append one JSON line per identity and tier per window to FILE"),
	FP_OPT_DUR(0, "slow", "DUR", F(slow_us), "keep each request slower than DUR (identity, total, tiers, pids) as JSON lines in --slow-file"),
	FP_OPT_STRING(0, "slow-file", "FILE", F(slow_file), "where --slow writes (default flameprof-slow.jsonl)"),
	FP_OPT_OWN(0, "sample-requests", "P", K_FRACTION, F(sample_permille), "start requests only for the fraction P of each second, e.g. 0.1 (default 1)"),
	FP_OPT_DUR(0, "max-late", "DUR", F(max_late_us), "circuit breaker: pause tracing when trace messages arrive DUR late (default 1s)"),
	FP_OPT_UINT(0, "max-queue", "N", F(max_queue), 100, 10000000, "circuit breaker: pause tracing when the node's tracer holds N messages (default 50000)"),
	FP_ROW_NAMES(struct requests_config, "spell functions as elixir (Shop.Pricing.price/2) or erlang (Elixir.Shop.Pricing:price/2) in the table, --stats and --slow; auto (default): elixir when the node runs the elixir application"),
	FP_ROW_NODE_NAME(struct requests_config, "our node name before the '@' (default flameprof_requests_<user>)"),
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
		if (!(cfg->entry_text = strdup(val)))
			return fp_opt_fail(detail, cap, "out of memory");
		if (fp_mfa_pattern_split(cfg->entry_text, &cfg->entry) < 0)
			return fp_opt_fail(detail, cap, "'%s' is not an entry for %s: write MOD:FUN/ARITY, e.g. kv_handler:handle/2 or MyApp.Handler.handle/2 ('_' for FUN or ARITY)",
					   val, spelled);
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
		if ((parts != 1 && parts != 3) || strcmp(p->module, "_") == 0)
			return fp_opt_fail(detail, cap, "'%s' is not a module or function for %s: write MOD or MOD:FUN/ARITY (a module, not '_')",
					   val, spelled);
		return FP_OPT_OK;
	}
	case K_IDENTITY: {
		errno = 0;
		long n = strncmp(val, "arg:", 4) == 0 ? strtol(val + 4, &end, 10) : 0;
		cfg->identity_options++;
		if (strncmp(val, "arg:", 4) != 0 || end == val + 4 || *end || errno || n < 1 || n > 255)
			return fp_opt_fail(detail, cap, "'%s' is not an identity for %s: write arg:N, N from 1 (the first argument of the entry call), or use --identity-fun",
					   val, spelled);
		cfg->identity = REQ_ID_ARG;
		cfg->identity_arg = (unsigned)n;
		return FP_OPT_OK;
	}
	case K_IDFUN:
		cfg->identity_options++;
		if (strlen(val) > 2000)
			return fp_opt_fail(detail, cap, "%s is longer than 2000 characters; keep the fun short, it runs once per request",
					   spelled);
		cfg->identity = REQ_ID_FUN;
		cfg->identity_fun = val;
		return FP_OPT_OK;
	case K_FRACTION: {
		errno = 0;
		double p = strtod(val, &end);
		if (end == val || *end || errno || !(p > 0.0 && p <= 1.0) || p * 1000 < 1)
			return fp_opt_fail(detail, cap, "'%s' is not a fraction for %s: give a number from 0.001 to 1, e.g. 0.1",
					   val, spelled);
		cfg->sample_permille = (unsigned)(p * 1000 + 0.5);
		return FP_OPT_OK;
	}
	}
	return fp_opt_fail(detail, cap, "%s: no such kind of option", spelled);
}

static void defaults(void *arg)
{
	*(struct requests_config *)arg = (struct requests_config){
		.duration_us = 10000000, .every_us = 1000000, .limit = 1000,
		.slow_file = "flameprof-slow.jsonl", .sample_permille = 1000,
		.max_late_us = 1000000, .max_queue = 50000, /* the circuit breaker */
		FP_NODE_DEFAULTS,
	};
}

/* Combinations, checked once everything is parsed. */
static int check(void *arg, char *detail, size_t cap)
{
	const struct requests_config *cfg = arg;
	if (cfg->help)
		return FP_OPT_OK;
	if (!cfg->node)
		return fp_opt_fail(detail, cap, "no node given; name the node to trace, e.g. 'flameprof requests --entry kv:handle/2 app@db1'");
	if (!cfg->entry_text)
		return fp_opt_fail(detail, cap, "no --entry given; name the function whose calls start requests, e.g. --entry kv_handler:handle/2");
	if (cfg->identity_options > 1)
		return fp_opt_fail(detail, cap, "--identity and --identity-fun both say how to group requests; give one of them");
	if (fp_opt_tiers_check(cfg->tiers, cfg->ntiers, detail, cap) != FP_OPT_OK)
		return FP_OPT_USAGE;
	if (cfg->duration_us < 1000 || cfg->every_us < 100000 || cfg->connect_timeout_us < 100000 ||
	    cfg->max_late_us < 10000)
		return fp_opt_fail(detail, cap, "--duration must be at least 1ms, --every and --connect-timeout at least 100ms, --max-late at least 10ms");
	if (fp_cookie_rows_check(cfg->cookie, cfg->cookie_file, detail, cap) != FP_OPT_OK)
		return FP_OPT_USAGE;
	return FP_OPT_OK;
}

static void config_free(void *arg)
{
	struct requests_config *cfg = arg;
	free(cfg->entry_text);
	cfg->entry_text = NULL;
	fp_opt_free_texts(cfg->tier_text, &cfg->ntiers);
	fp_opt_free_texts(cfg->full_text, &cfg->nfull);
}

const struct fp_command fp_requests_command = {
	.name = "flameprof requests",
	.help_column = 32,
	.hint_inline = 0,
	.duration_eg = "10s",
	FP_NODE_COMMAND(struct requests_config),
	.synopsis = "usage: flameprof requests [options] --entry MOD:FUN/ARITY\n"
		    "                          [--tier NAME=MOD:FUN/ARITY]... NODE\n\n"
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
		  "           --tier parse=kv_proto:parse/1 --tier db=kv_db:_/_ \\\n"
		  "           --stats s.jsonl app@db1\n"
		  "         flameprof requests --entry Shop.Pricing.handle_call/3 \\\n"
		  "           --tier db=Shop.Repo.query/_ shop@db1\n"
		  "\nCost: two trace messages per entry and per tier call inside a request; a\n"
		  "message sent without waiting for its answer (a cast) carries the request's\n"
		  "token into the work it starts: call seq_trace:set_token([]) before casting\n"
		  "work that is not part of the request. See doc/requests.md.\n"
		  "\nexit status: 0 done, 64 usage (also: a pattern that matches nothing, a bad\n"
		  "--identity-fun), 69 cannot connect, node busy (another tracing session, an\n"
		  "earlier run's purge, the tracing lock ended) or a function traced by someone\n"
		  "else, 73 a file or /tmp/flameprof-UID not usable, 74 I/O error, 75 node lost\n"
		  "during the run, 76 protocol error, 77 cookie rejected or its file refused.\n",
};

/* ---------------------------------------------------------------- the run */

struct outputs {
	FILE *stats, *slow;
	const char *stats_name, *slow_name;
	int live;           /* redraw the table on the terminal each window */
	int bad;            /* a write failed (said once) */
	uint64_t pauses_said;
	int id_fun_said;    /* identity fun failures said (once) */
	long long start_ms; /* tracing started: the run's length for the table */
	int elixir;         /* --names: Elixir's spelling */
	struct req_tokens tokens;
};

/* One window: merged, written, said. @return 0 or -1 out of memory. */
static int take_window(struct req_table *t, struct req_window *w, struct outputs *o)
{
	if (req_table_merge(t, w) < 0)
		return -1;
	t->run_us = (uint64_t)(fp_mono_ms() - o->start_ms) * 1000;
	req_table_sort(t);
	if (o->stats && !o->bad && req_write_stats(o->stats, t, w->end_us) < 0) {
		fp_error("cannot write '%s'; check the disk (the table still shows the figures)", o->stats_name);
		o->bad = 1;
	}
	if (o->slow && w->nslow && !o->bad && req_write_slow(o->slow, w) < 0) {
		fp_error("cannot write '%s'; check the disk", o->slow_name);
		o->bad = 1;
	}
	if (w->pauses > o->pauses_said) {
		fp_warn("the node's tracer fell behind: tracing paused (%llu pause(s) so far, %llu entry calls dropped so far); it resumes by itself",
			(unsigned long long)w->pauses, (unsigned long long)(t->dropped + t->queued));
		o->pauses_said = w->pauses;
	}
	if (w->id_fun_failed && !o->id_fun_said) {
		fp_warn("--identity-fun crashed or took more than 100 ms on %llu request(s) of this window: each is named _identity_fun_failed and counted (the table says how many in all)",
			(unsigned long long)w->id_fun_failed);
		o->id_fun_said = 1;
	}
	if (w->slow_left_out)
		fp_warn("%llu slow requests left out of this window (at most 100 a window)",
			(unsigned long long)w->slow_left_out);
	for (size_t k = 0; k < w->nreloaded; k++)
		fp_warn("module '%s' was loaded again; its patterns were set again on the new code (requests in between were not timed there)",
			w->reloaded[k]);
	if (o->live) {
		printf("\033[H\033[2J");
		req_write_table(stdout, t);
		printf("\n%llu requests; %llu pause(s)%s\n", (unsigned long long)t->requests,
		       (unsigned long long)t->pauses, t->paused ? ", paused now" : "");
		fflush(stdout);
	}
	return 0;
}

/* Windows until --duration or a signal, then stop and the last window.
 * @return 0 or a sampler error. */
static int trace_for(tracer_t *s, const struct requests_config *cfg, struct req_table *t, struct outputs *o)
{
	long long end = fp_mono_ms() + cfg->duration_us / 1000, deadline = 0;
	int stopping = 0;
	for (;;) {
		if (!stopping && (fp_stop_signals() || fp_mono_ms() >= end)) {
			if (fp_stop_signals())
				fp_note("stopping on a signal; printing what was measured so far");
			int r = req_stop(s);
			if (r < 0)
				return r;
			stopping = 1;
			/* the tracer may clear our seq_trace tokens for up to 5 s
			 * before it confirms (flameprof_requests.erl, TOKEN_MAX_MS) */
			deadline = fp_mono_ms() + 4LL * (cfg->connect_timeout_us / 1000) + 6000;
		}
		if (stopping && fp_mono_ms() > deadline)
			return -1;
		struct req_window w;
		int r = req_next(s, 200, &w, &o->tokens);
		if (r < 0 || r == 2)
			return r < 0 ? r : 0;
		if (r == 1) {
			if (o->elixir && req_window_names_elixir(&w) < 0)
				fp_warn("out of memory while spelling names as Elixir does; some keep Erlang's spelling");
			int m = take_window(t, &w, o);
			req_window_free(&w);
			if (m < 0) {
				fp_error("out of memory");
				return -1;
			}
		}
	}
}

static int run(const struct requests_config *cfg, struct fp_node_cmd *nc, struct outputs *o)
{
	struct requests_options ro = {
		.entry = cfg->entry, .tiers = cfg->tiers, .ntiers = cfg->ntiers,
		.full = cfg->full, .nfull = cfg->nfull, .limit = cfg->limit,
		.identity = cfg->identity, .identity_arg = cfg->identity_arg, .identity_fun = cfg->identity_fun,
		.every_ms = (unsigned)(cfg->every_us / 1000), .slow_us = (uint64_t)cfg->slow_us,
		.sample_permille = cfg->sample_permille, .max_late_ms = (unsigned)(cfg->max_late_us / 1000),
		.max_queue = cfg->max_queue,
	};
	struct req_table t;
	unsigned ne = 0, nt = 0;
	tracer_t *s = NULL;
	int rc = 0, e;

	memset(&t, 0, sizeof t);
	t.sample_permille = cfg->sample_permille;
	if ((rc = fp_node_connect(nc)) != 0)
		goto out;
	if ((e = req_start(&s, nc->n, &ro, &ne, &nt)) < 0) {
		rc = fp_node_fail(nc, e);
		goto out;
	}
	if (cfg->nfull)
		fp_warn("--full: every call of the %u function(s) traced is timed inside requests, two trace messages per call, a few microseconds each on the node; keep the run short, or lower --sample-requests",
			nt);
	fp_note("tracing requests from %u entry function(s) with %u tier function(s) on '%s' (OTP %s) for %.3g s",
		ne, nt, cfg->node, node_otp_release(nc->n), cfg->duration_us / 1e6);
	o->elixir = fp_lang_elixir(cfg->lang, nc->n);
	o->start_ms = fp_mono_ms();
	e = trace_for(s, cfg, &t, o);
	t.run_us = (uint64_t)(fp_mono_ms() - o->start_ms) * 1000;
	if (e == -1) {
		fp_error("the tracer on '%s' did not confirm its stop in time; it removes its patterns by itself", cfg->node);
		rc = EX_TEMPFAIL;
	} else if (e < 0) {
		rc = fp_node_fail(nc, e);
	}
	/* the summary: whatever was measured, even after an error */
	t.cut_short = e != 0;
	req_table_sort(&t);
	if (o->live)
		printf("\033[H\033[2J");
	if (req_write_table(stdout, &t) < 0 || fflush(stdout) != 0) {
		fp_error("cannot write the summary to standard output");
		rc = rc ? rc : EX_IOERR;
	}
	fp_note("%llu requests measured; %llu tier returns outside any request; %llu pause(s) of the circuit breaker (%.1f s paused, %llu entry calls not traced); %llu identity fun failures",
		(unsigned long long)t.requests, (unsigned long long)t.stray, (unsigned long long)t.pauses,
		t.paused_us / 1e6, (unsigned long long)(t.untraced >= t.overlap ? t.untraced - t.overlap : 0),
		(unsigned long long)t.id_fun_failed);
	if (e == 0 && o->tokens.left)
		fp_warn("%llu process(es) on '%s' still carried a seq_trace token of this run after 5 s of clearing (of %llu); each drops it at its next message that has none",
			(unsigned long long)o->tokens.left, cfg->node, (unsigned long long)o->tokens.cleared);
	else if (e == 0 && o->tokens.cleared)
		fp_note("seq_trace tokens of this run cleared from %llu process(es)", (unsigned long long)o->tokens.cleared);
	if (t.cells_left_out)
		fp_warn("%llu rows of more than %d identity and tier pairs were left out; use fewer identities or tiers",
			(unsigned long long)t.cells_left_out, REQ_MAX_CELLS);
	if (t.requests == 0 && rc == 0)
		fp_warn("no request finished during the run: was the entry function called?");
	if (o->bad && rc == 0)
		rc = EX_IOERR;
	if (e == 0 || e == NODE_ERR_LOST)
		fp_node_say_unload(nc, req_unload(s), "tracer", "trace patterns and flags removed, tracer unloaded");
out:
	req_table_free(&t);
	req_free(s);
	return rc;
}

/* --stats and --slow-file grow line by line during the run (tail -f), so
 * they are appended to, not written aside: never through a symlink, only
 * a regular file, created 0640 (rotate/outfile.h). */
static FILE *open_out(const char *name, const char *opt)
{
	char err[1200];
	FILE *f = rot_append_open(name, err, sizeof err);
	if (!f)
		fp_error("%s (for %s)", err, opt);
	return f;
}

/* After the options: the node's prologue, the output files, the run. */
static int requests_main(void *arg)
{
	struct requests_config *cfg = arg;
	struct outputs o;
	memset(&o, 0, sizeof o);
	int rc;
	struct fp_node_cmd nc = FP_NODE_CMD(cfg, "requests");
	if ((rc = fp_node_begin(&nc)) != 0)
		goto end;
	/* the outputs before the node: fail before touching it */
	o.stats_name = cfg->stats;
	o.slow_name = cfg->slow_file;
	if ((cfg->stats && !(o.stats = open_out(cfg->stats, "--stats"))) ||
	    (cfg->slow_us && !(o.slow = open_out(cfg->slow_file, "--slow-file")))) {
		rc = EX_CANTCREAT;
		goto end;
	}
	o.live = isatty(STDOUT_FILENO) && cfg->verbosity > 0;
	rc = run(cfg, &nc, &o);
end:
	fp_node_end(&nc);
	if (o.stats && fclose(o.stats) != 0 && rc == 0)
		rc = EX_IOERR;
	if (o.slow && fclose(o.slow) != 0 && rc == 0)
		rc = EX_IOERR;
	return rc;
}

int fp_requests_main(int argc, char **argv)
{
	struct requests_config cfg;
	return fp_opt_main(&fp_requests_command, argc, argv, &cfg, requests_main);
}
