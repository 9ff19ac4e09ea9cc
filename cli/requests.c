/*
 * requests.c - `flameprof requests`: where each kind of request spends its
 * time, tier by tier, from outside the node.
 *
 * Connect, start the tracer (requests/requests.h), merge each window into
 * the table (requests/req_table.h), write --stats and --slow lines as they
 * come, redraw the table on a terminal; at --duration or a signal stop,
 * take the last window and print the summary. Signal handlers only set a
 * flag. If flameprof dies instead, the tracer sees the node go and cleans
 * up by itself.
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
#include "session.h"
#include "requests.h"
#include "requests_options.h"
#include "../requests/req_table.h"
#include "../rotate/outfile.h"
#include "../node/node.h"
#include "../requests/requests.h"

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
