/*
 * calls.c - `flameprof calls`: exact call counts, call time and call memory
 * per function, from outside the node.
 *
 * Connect, start the tracer (calls/calls.h), wait for --duration or a
 * signal while watching the connection, stop, print. Signal handlers only
 * set a flag; the results collected so far are printed either way. If
 * flameprof dies instead, the tracer sees the node go and cleans up.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>
#include "calls.h"
#include "calls_options.h"
#include "lang.h"
#include "msg.h"
#include "session.h"
#include "../calls/calls_out.h"
#include "../rotate/outfile.h"
#include "../calls/calls.h"
#include "../node/node.h"

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
