/*
 * calls_options.c - `flameprof calls`, its one file in the front door:
 * exact call counts, call time and call memory per function, from outside
 * the node. The option table (argv to struct calls_config through the
 * option engine, optparse.h; --help printed from the same table), the
 * combinations checked, then the run: connect, start the tracer
 * (calls/calls.h), wait for --duration or a signal while watching the
 * connection, stop, print. Signal handlers only set a flag; the results
 * collected so far are printed either way. If flameprof dies instead, the
 * tracer sees the node go and cleans up.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>
#include "calls_options.h"
#include "lang.h"
#include "msg.h"
#include "optparse.h"
#include "session.h"
#include "../calls/calls_out.h"
#include "../rotate/outfile.h"
#include "../calls/calls.h"
#include "../node/node.h"

/* Each row's id is its kind: the engine's (FP_K_*), or how apply()
 * reads the value into field. */
enum kind { K_LIST, K_TYPE, K_FORMAT, K_PATTERN };

#define F(field) offsetof(struct calls_config, field)

static const struct fp_opt options[] = {
	FP_OPT_OWN('t', "type", "TYPE", K_TYPE, F(type), "count (default: calls, every process), time (microseconds on a scheduler) or memory (heap words; OTP 26+)"),
	FP_OPT_OWN('p', "pattern", "MOD[:FUN[/ARITY]]", K_PATTERN, F(patterns), "trace the matching functions of a loaded module; '_' for any; Elixir's Mod.fun/arity too (repeatable, at least one)"),
	FP_OPT_OWN(0, "pid", "PID", K_LIST, F(pids), "time or memory: measure in this process, e.g. '<0.123.0>' (repeatable)"),
	FP_OPT_OWN(0, "name", "NAME", K_LIST, F(names), "time or memory: measure in this registered process, e.g. my_server or MyApp.Server (repeatable)"),
	FP_OPT_SWITCH(0, "all", F(all), 1, "time or memory: measure in every process, new ones too (the default)"),
	FP_OPT_SWITCH(0, "new", F(new_procs), 1, "time or memory: measure only in processes spawned during the run"),
	FP_OPT_SWITCH(0, "per-process", F(per_process), 1, "time or memory: one table per process, named by its registered name or initial call"),
	FP_ROW_DURATION(struct calls_config, "trace for DUR, e.g. 500ms, 10s, 2m (default 10s; Ctrl-C or SIGTERM end it sooner, with results)"),
	FP_OPT_UINT(0, "top", "N", F(top), 0, 1000000, "print the N largest rows of each table (default: all)"),
	FP_OPT_STRING(0, "json", "FILE", F(json), "also write every row to FILE as JSON ('-': standard output, instead of the table)"),
	FP_OPT_OWN(0, "format", "FORMAT", K_FORMAT, F(format), "table (default, as OTP's tprof) or folded (lines for flame graph tools)"),
	FP_ROW_NAMES(struct calls_config, "spell functions as elixir (Shop.Tax.rate/1) or erlang (Elixir.Shop.Tax:rate/1) in the output; auto (default): elixir when the node runs the elixir application"),
	FP_OPT_UINT(0, "limit", "N", F(limit), 1, 1000000, "refuse patterns that match more than N functions (default 1000)"),
	FP_OPT_SWITCH(0, "force", F(force), 1, "trace however many functions match"),
	FP_OPT_UINT(0, "max-run-queue", "N", F(max_run_queue), 0, 100000000, "end the run early, with its results, once the node's run queues stay above N (or 4x their length at the start) for 1 s (default 200; 0: never)"),
	FP_ROW_NODE_NAME(struct calls_config, "our node name before '@' (default flameprof_calls_<user>, one run of yours per node at a time)"),
	FP_ROW_COOKIE_FILE(struct calls_config),
	FP_ROW_COOKIE(struct calls_config),
	FP_ROW_CONNECT_TIMEOUT(struct calls_config),
	FP_ROW_QUIET(struct calls_config),
	FP_ROW_VERBOSE(struct calls_config),
	FP_ROW_HELP(struct calls_config),
};

/* MOD[:FUN[/ARITY]] or Elixir's MOD.FUN/ARITY (common/mfa_pattern.h),
 * each part a name or '_'. The text is copied: the pattern points into
 * the copy. */
static int parse_pattern(struct calls_config *cfg, const char *text)
{
	if (cfg->npatterns == CALLS_MAX_PATTERNS)
		return -2;
	char *t = strdup(text);
	if (!t)
		return -3;
	cfg->pattern_text[cfg->npatterns] = t;
	return fp_mfa_parse(t, &cfg->patterns[cfg->npatterns++]) < 0 ? -1 : 0;
}

static int apply(void *ctx, const struct fp_opt *o, const char *val, const char *spelled,
		 char *detail, size_t cap)
{
	struct calls_config *cfg = ctx;
	char *field = (char *)cfg + o->field;
	switch ((enum kind)o->id) {
	case K_LIST:
		return fp_opt_target(val, spelled, o->field == F(names), (const char **)field,
				     o->field == F(pids) ? &cfg->npids : &cfg->nnames, CALLS_MAX_TARGETS, detail, cap);
	case K_TYPE: {
		/* OTP's names of the breakpoints too */
		static const char *const words[] = { "count", "time", "memory", "call_count", "call_time", "call_memory" };
		static const enum calls_type types[] = { CALLS_COUNT, CALLS_TIME, CALLS_MEMORY };
		int k = fp_opt_word(val, spelled, words, 6, "a type", "count, time or memory", detail, cap);
		if (k < 0)
			return FP_OPT_USAGE;
		cfg->type = types[k % 3];
		return FP_OPT_OK;
	}
	case K_FORMAT: {
		static const char *const words[] = { "table", "folded" };
		static const enum calls_format formats[] = { CALLS_FORMAT_TABLE, CALLS_FORMAT_FOLDED };
		int k = fp_opt_word(val, spelled, words, 2, "a format", "table or folded", detail, cap);
		if (k < 0)
			return FP_OPT_USAGE;
		cfg->format = formats[k];
		return FP_OPT_OK;
	}
	case K_PATTERN: {
		int r = parse_pattern(cfg, val);
		if (r == -2)
			snprintf(detail, cap, "too many %s options: at most %d", spelled, CALLS_MAX_PATTERNS);
		else if (r == -3)
			snprintf(detail, cap, "out of memory");
		else if (r < 0)
			snprintf(detail, cap, "'%s' is not a pattern for %s: write MOD, MOD:FUN or MOD:FUN/ARITY, '_' for any part (or Elixir's Mod.fun/arity, :mod.fun/arity)",
				 val, spelled);
		return r < 0 ? FP_OPT_USAGE : FP_OPT_OK;
	}
	}
	return fp_opt_fail(detail, cap, "%s: no such kind of option", spelled);
}

static void defaults(void *arg)
{
	*(struct calls_config *)arg = (struct calls_config){
		.type = CALLS_COUNT, .duration_us = 10000000, .limit = 1000, .max_run_queue = 200,
		FP_NODE_DEFAULTS,
	};
}

/* Combinations, checked once everything is parsed. */
static int check(void *arg, char *detail, size_t cap)
{
	const struct calls_config *cfg = arg;
	int explicit = cfg->npids || cfg->nnames;
	if (cfg->help)
		return FP_OPT_OK;
	if (!cfg->node)
		return fp_opt_fail(detail, cap, "no node given; name the node to trace, e.g. 'flameprof calls --pattern mymod app@db1'");
	if (cfg->npatterns == 0)
		return fp_opt_fail(detail, cap, "no --pattern given; name what to trace, e.g. --pattern mymod:handle_call/3 (flameprof never traces what you did not name)");
	if (cfg->type == CALLS_COUNT && (explicit || cfg->all || cfg->new_procs || cfg->per_process))
		return fp_opt_fail(detail, cap, "--type count counts calls in every process together; --pid, --name, --all, --new and --per-process need --type time or memory");
	if ((cfg->all != 0) + (cfg->new_procs != 0) + (explicit != 0) > 1)
		return fp_opt_fail(detail, cap, "--all, --new and --pid/--name choose the processes in different ways; give one of them");
	if (cfg->duration_us < 1000 || cfg->connect_timeout_us < 100000)
		return fp_opt_fail(detail, cap, "--duration must be at least 1ms and --connect-timeout at least 100ms");
	if (fp_cookie_rows_check(cfg->cookie, cfg->cookie_file, detail, cap) != FP_OPT_OK)
		return FP_OPT_USAGE;
	if (cfg->json && strcmp(cfg->json, "-") == 0 && cfg->format == CALLS_FORMAT_FOLDED)
		return fp_opt_fail(detail, cap, "--json - and --format folded both want standard output; write the JSON to a file");
	return FP_OPT_OK;
}

static void config_free(void *arg)
{
	struct calls_config *cfg = arg;
	fp_opt_free_texts(cfg->pattern_text, &cfg->npatterns);
}

const struct fp_command fp_calls_command = {
	.name = "flameprof calls",
	.help_column = 30,
	.hint_inline = 0,
	.duration_eg = "10s",
	FP_NODE_COMMAND(struct calls_config),
	.synopsis = "usage: flameprof calls [options] --pattern MOD[:FUN[/ARITY]]... NODE\n\n"
		    "Counts every call of the named functions on a running node, with the time\n"
		    "or heap words they took, using the VM's call_count, call_time and\n"
		    "call_memory breakpoints (what OTP 27's tprof uses), from outside the node.\n"
		    "Everything set is removed at the end, on Ctrl-C, and if flameprof dies.\n\n"
		    "options:\n",
	.epilog = "\nexample: flameprof calls --type time --pattern 'my_db:query/_' -d 30s app@db1\n"
		  "         flameprof calls --pattern Shop.Pricing.handle_call/3 shop@db1\n"
		  "         (the second in Elixir's syntax)\n"
		  "\nexit status: 0 done, 64 usage (also: a pattern that matches nothing, too many\n"
		  "functions), 69 cannot connect, node busy (another tracing session, an earlier\n"
		  "run's purge, the tracing lock ended) or memory asked of a node older than\n"
		  "OTP 26, 73 JSON file or /tmp/flameprof-UID not usable, 74 I/O error, 75 node\n"
		  "lost during the run, 76 protocol error, 77 cookie rejected or its file refused.\n"
		  "See doc/calls.md and flameprof(1).\n",
};

/* ---------------------------------------------------------------- the run */

/* Waits for --duration or a signal; the connection is read all along, so
 * a node that goes away is noticed. @return 0, 1 when the tracer ended the
 * run by itself (results in *early), or a sampler error. */
static int trace_for(tracer_t *s, const struct calls_config *cfg, struct calls_result *early)
{
	long long end = fp_mono_ms() + cfg->duration_us / 1000;
	while (!fp_stop_signals()) {
		long long left = end - fp_mono_ms();
		if (left <= 0)
			return 0;
		int r = calls_wait(s, left > 200 ? 200 : (int)left, early);
		if (r != 0)
			return r;
	}
	fp_note("stopping on a signal; printing what was counted so far");
	return 0;
}

static int print_results(const struct calls_config *cfg, struct calls_result *res, struct rot_out *json)
{
	if (calls_sort(res) < 0)
		fp_warn("out of memory while sorting; the rows are printed by process only");
	for (size_t k = 0; k < res->nreloaded; k++)
		fp_warn("module '%s' was loaded again during the run; its breakpoints were set again on the new code, but calls before that are not counted",
			res->reloaded[k]);
	if (res->rows_left_out)
		fp_warn("%llu rows left out by the tracer's bound; trace fewer functions or processes",
			(unsigned long long)res->rows_left_out);
	int bad = 0;
	char err[1200];
	if (json->f) {
		/* a file is published (renamed over the old one) only when complete */
		if (calls_write_json(json->f, res, cfg->node) < 0) {
			rot_out_abort(json);
			fp_error("cannot write '%s': out of memory; the old file, if any, is kept", cfg->json);
			bad = 1;
		} else if (rot_out_commit(json, err, sizeof err) != 0) {
			fp_error("%s", err);
			bad = 1;
		}
	}
	if (!cfg->json || strcmp(cfg->json, "-") != 0) {
		int w = cfg->format == CALLS_FORMAT_FOLDED ? calls_write_folded(stdout, res)
							   : calls_write_table(stdout, res, cfg->top);
		if (w < 0 || fflush(stdout) != 0) {
			fp_error("cannot write the results to standard output");
			bad = 1;
		}
	}
	fp_note("%s of %zu rows over %.3f s", calls_type_name(res->type), res->nrows, res->elapsed_us / 1e6);
	return bad ? EX_IOERR : 0;
}

static int run(const struct calls_config *cfg, struct fp_node_cmd *nc, struct rot_out *json)
{
	struct calls_options co = {
		.type = cfg->type, .patterns = cfg->patterns, .npatterns = cfg->npatterns,
		.procs = cfg->npids || cfg->nnames ? CALLS_PROCS_LIST : cfg->new_procs ? CALLS_PROCS_NEW : CALLS_PROCS_ALL,
		.pids = cfg->pids, .npids = cfg->npids, .names = cfg->names, .nnames = cfg->nnames,
		.limit = cfg->limit, .force = cfg->force, .per_process = cfg->per_process,
		.max_run_queue = cfg->max_run_queue,
	};
	struct calls_result res;
	unsigned nf = 0, np = 0;
	tracer_t *s = NULL;
	int rc, e, elixir = 0;

	if ((rc = fp_node_connect(nc)) != 0)
		goto out;
	if ((e = calls_start(&s, nc->n, &co, &nf, &np)) < 0) {
		rc = fp_node_fail(nc, e);
		goto out;
	}
	elixir = fp_lang_elixir(cfg->lang, nc->n);
	if (cfg->type == CALLS_COUNT)
		fp_note("counting calls of %u functions on '%s' (OTP %s) for %.3g s", nf, cfg->node,
			node_otp_release(nc->n), cfg->duration_us / 1e6);
	else
		fp_note("measuring %s of %u functions in %u processes%s on '%s' (OTP %s) for %.3g s",
			calls_type_name(cfg->type), nf, np, co.procs == CALLS_PROCS_LIST ? "" : " and those spawned",
			cfg->node, node_otp_release(nc->n), cfg->duration_us / 1e6);
	if ((e = trace_for(s, cfg, &res)) == 0)
		e = calls_stop(s, &res);
	if (e == 1) {
		fp_warn("'%s' fell behind (run queues %llu, limit %llu): the tracer ended the run after %.1f s, with what it counted; raise --max-run-queue or trace fewer functions or processes",
			cfg->node, (unsigned long long)res.run_queue, (unsigned long long)res.run_queue_limit,
			res.elapsed_us / 1e6);
		e = 0;
	}
	if (e < 0) {
		rc = fp_node_fail(nc, e);
		goto out;
	}
	if (elixir && calls_names_elixir(&res, cfg->format == CALLS_FORMAT_FOLDED) < 0)
		fp_warn("out of memory while spelling the rows as Elixir does; some keep Erlang's spelling");
	rc = print_results(cfg, &res, json);
	calls_result_free(&res);
	fp_node_say_unload(nc, calls_unload(s), "tracer", "breakpoints and trace flags removed, tracer unloaded");
out:
	rot_out_abort(json); /* a failed run: an existing --json file stays as it was */
	calls_free(s);
	return rc;
}

/* After the options: the node's prologue, the --json file, the run. */
static int calls_main(void *arg)
{
	struct calls_config *cfg = arg;
	char err[1200];
	int rc;
	struct fp_node_cmd nc = FP_NODE_CMD(cfg, "calls");
	if ((rc = fp_node_begin(&nc)) != 0)
		goto end;
	/* the output before the node: fail before touching it */
	struct rot_out json;
	memset(&json, 0, sizeof json);
	if (cfg->json && rot_out_open(&json, cfg->json, err, sizeof err) != 0) {
		fp_error("%s (for --json)", err);
		rc = EX_CANTCREAT;
		goto end;
	}
	rc = run(cfg, &nc, &json);
end:
	fp_node_end(&nc);
	return rc;
}

int fp_calls_main(int argc, char **argv)
{
	struct calls_config cfg;
	return fp_opt_main(&fp_calls_command, argc, argv, &cfg, calls_main);
}
