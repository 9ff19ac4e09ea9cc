/*
 * run.c - one capture: sampler -> formatter -> rotate, until told to stop.
 *
 * The only loop that waits is sampler_next(), and it always has a deadline
 * (the next flush, the next status line, or 200 ms), so signals, --duration
 * and flushes are handled on time. Signal handlers only set a flag; this
 * loop stops the agent, flushes, closes and renames.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>
#include "agent_ctl.h"
#include "batch_out.h"
#include "msg.h"
#include "run.h"
#include "session.h"
#include "status.h"
#include "../common/names.h"
#include "../formatter/formatter.h"
#include "../index/index.h"
#include "../rotate/rotate.h"
#include "../rotate/adopt.h"
#include "../node/node.h"
#include "../sampler/sampler.h"

/* How sampling went when a file began, for its header: the cost budget's
 * part (permille) and the samples delivered and requested per second over
 * the status line's last window (0 requested: not known yet). */
struct at_start {
	unsigned share;
	double rate, requested;
	unsigned selected; /* processes selected at the last round */
};

struct run {
	const struct fp_config *cfg;
	struct fp_node_cmd nc;
	sampler_t *sampler;
	rot_t *rot;
	ix_writer *index;
	struct fp_batch_out out; /* formatter -> rotate */
	struct fp_status_state status;
	struct at_start header; /* what the next file's header says of the moment it began */
	const char *node;       /* the node's own name (node()), once connected; cfg->node before */
	const char *names;      /* "elixir" or "erlang" for the header (--names), NULL: nothing */
};

static int set_header(struct run *r, const struct at_start *now);

static int exit_for_rotate(int err)
{
	return err == ROT_ERR_DIR ? EX_CANTCREAT : err == ROT_ERR_NOMEM ? EX_OSERR : EX_IOERR;
}

/* The delivered share of the requested rate has moved by 5 points or more. */
static int moved(const struct at_start *a, const struct at_start *b)
{
	double pa = a->requested > 0 ? a->rate / a->requested : -1;
	double pb = b->requested > 0 ? b->rate / b->requested : -1;
	return pa - pb >= 0.05 || pb - pa >= 0.05;
}

/* Writes a batch in time order. @return 0 or a negative rot_err. */
static int write_batch(struct run *r, const struct sampler_batch *b)
{
	fp_status_batch(&r->status, b);
	/* Each new file says in its header how many processes were selected,
	 * how much the budget sampled and how much was delivered when it
	 * began; the header is made again when any has moved (a failed update
	 * keeps the old one: nothing is lost), before the batch is written, so
	 * that a file this batch opens tells its own selection. */
	struct at_start now = { r->status.share, r->status.rate, r->status.requested_rate,
				r->status.last_selected };
	if (now.share != r->header.share || now.selected != r->header.selected || moved(&r->header, &now))
		(void)set_header(r, &now);
	return fp_batch_write(&r->out, b->samples, b->nsamples);
}

static int batch_sink(void *ctx, const struct sampler_batch *b)
{
	return write_batch(ctx, b);
}

/* Stops the agent and waits (bounded) for its last batch and its goodbye
 * (cli/agent_ctl.c). Writing errors here are reported by the caller; the
 * node comes first. */
static int stop_agent(struct run *r, int write)
{
	fp_status_stopping(&r->status);
	return fp_agent_stop(r->sampler, &r->nc, r->cfg->connect_timeout_us / 1000, write ? batch_sink : NULL, r);
}

static void settings_text(const struct fp_config *cfg, const struct at_start *at, const char *names,
			  char *out, size_t cap)
{
	char statuses[128] = "";
	size_t sl = 0;
	for (int k = 0; k < FP_STATUS_COUNT && sl < sizeof statuses; k++)
		if (cfg->statuses & (1u << k))
			sl += (size_t)snprintf(statuses + sl, sizeof statuses - sl, "%s%s", sl ? "," : "",
					       fp_status_names[k]);
	size_t n = (size_t)snprintf(out, cap, "top=%u selected=%u (when this file began) every=%.3fs hz=%g "
				    "(each round at a random point of its period) depth=%u status=%s categories=",
				    cfg->top, at->selected, cfg->every_us / 1e6, cfg->hz, cfg->depth, statuses);
	for (size_t k = 0; k < cfg->ncats && n < cap; k++)
		n += (size_t)snprintf(out + n, cap - n, "%s%s", k ? "," : "", fmt_category_names[cfg->cats[k]]);
	if (cfg->ncats == 0 && n < cap)
		n += (size_t)snprintf(out + n, cap - n, "none");
	/* the spelling report draws (report/rep_names.h); an Erlang node's
	 * header says nothing, so its files stay as they were */
	if (names && n < cap)
		n += (size_t)snprintf(out + n, cap - n, " names=%s", names);
	if (n < cap && cfg->max_cost_ppm)
		n += (size_t)snprintf(out + n, cap - n, " max-cost=%gpct (while the node is busy, a part of the selected processes each round; "
				      "when this file began: %gpct)", cfg->max_cost_ppm / 1e4, at->share / 10.0);
	else if (n < cap)
		n += (size_t)snprintf(out + n, cap - n, " max-cost=none");
	/* cut at cap: the header says what it can, it is a comment */
	for (size_t k = 0; k < cfg->ntiers && n < cap; k++) {
		const struct fp_tier_pattern *t = &cfg->tiers[k];
		char arity[16] = "_";
		if (t->pattern.arity >= 0)
			snprintf(arity, sizeof arity, "%d", t->pattern.arity);
		n += (size_t)snprintf(out + n, cap - n, "%s%s=%s:%s/%s", k ? "," : " tiers=", t->name,
				      t->pattern.module, t->pattern.function, arity);
	}
	if (n < cap && at->requested > 0)
		snprintf(out + n, cap - n, " delivered=%.0f/%.0f samples/s (the second before this file began)",
			 at->rate, at->requested);
}

static void header_text(const struct fp_config *cfg, const char *node, const struct at_start *at,
			const char *names, char *out, size_t cap)
{
	char settings[1024];
	settings_text(cfg, at, names, settings, sizeof settings);
	if (fmt_header(node, settings, out, cap) >= cap)
		out[0] = '\0';
}

static int set_header(struct run *r, const struct at_start *now)
{
	char header[4096];
	header_text(r->cfg, r->node, now, r->names, header, sizeof header);
	r->header = *now;
	return r->rot ? rot_set_header(r->rot, header) : 0;
}

struct adopted {
	int n;
	long long bytes;
	char first[300];
};

static void adopted_one(void *ctx, const char *from, const char *to, long long bytes)
{
	struct adopted *a = ctx;
	(void)from;
	if (a->n++ == 0)
		snprintf(a->first, sizeof a->first, "%s", to);
	a->bytes += bytes;
}

/* The files that runs which died (kill -9) left under their dot-names in
 * the directory get their final names: report and retention see them. */
static void adopt_dead(const char *dir)
{
	struct adopted a = { 0 };
	if (rot_adopt_dead(dir, adopted_one, &a) > 0)
		fp_warn("%d file(s) of runs that died before finishing them (%lld bytes, e.g. '%s') renamed from their dot-names in '%s'; report sees them now",
			a.n, a.bytes, a.first, dir);
}

static int open_output(struct run *r, const char *node)
{
	const struct fp_config *cfg = r->cfg;
	char header[4096];
	r->header = (struct at_start){ .share = 1000 };
	header_text(cfg, node, &r->header, r->names, header, sizeof header);
	struct rot_options ro = {
		.dir = cfg->outdir, .node = node, .codec = cfg->codec, .level = cfg->level,
		.rotate_us = cfg->rotate_us, .rotate_bytes = cfg->rotate_bytes,
		.keep = cfg->keep, .keep_bytes = cfg->keep_bytes, .header = header,
	};
	struct rot_index ix;
	/* The report index reads the text as it goes out. Without memory for
	 * it the files are only slower to report on. */
	if (cfg->codec == ROT_ZSTD && !cfg->no_index && (r->index = ix_writer_create(cfg->level))) {
		ix_writer_hook(r->index, &ix);
		ro.index = &ix;
	}
	int e = rot_open(&r->rot, &ro);
	if (e < 0) {
		fp_error("%s; choose another directory with -o DIR", rot_error(r->rot));
		return exit_for_rotate(e);
	}
	adopt_dead(ro.dir && *ro.dir ? ro.dir : ".");
	r->out.rot = r->rot;
	return 0;
}

/* --names: the spelling the header asks report for; auto asks the node.
 * No file exists yet (rotate/ creates it at the first record), so the
 * first file gets the new header. @return 0. */
static int pick_names(struct run *r)
{
	int elixir = r->cfg->lang == FP_NAMES_ELIXIR;
	/* a node that cannot say is taken for an Erlang one: the files are
	 * the same either way, and `report --names elixir` still draws them */
	if (r->cfg->lang == FP_NAMES_AUTO && node_runs_elixir(r->nc.n, &elixir) < 0)
		elixir = 0;
	r->names = elixir ? "elixir" : r->cfg->lang == FP_NAMES_ERLANG ? "erlang" : NULL;
	if (elixir)
		fp_note("the node runs Elixir: 'flameprof report' draws Elixir's names (--names erlang for Erlang's)");
	if (r->names)
		(void)set_header(r, &r->header); /* out of memory: the header stays as it was */
	return 0;
}

static int connect_node(struct run *r)
{
	const struct fp_config *cfg = r->cfg;
	struct sampler_options so;
	fp_agent_options(cfg, &so);
	int e = fp_node_connect(&r->nc);
	if (e != 0)
		return e;
	e = pick_names(r);
	if (e == 0) {
		fp_note("connected; loading the agent");
		e = sampler_start(&r->sampler, r->nc.n, &so);
	}
	if (e < 0)
		return fp_node_fail(&r->nc, e);
	/* Files are named after the node's own name, so that one node reached
	 * as rabbit@vm and as rabbit@127.0.0.1 writes one series of files. */
	r->node = node_own_name(r->nc.n);
	if (strcmp(r->node, cfg->node) != 0) {
		fp_note("'%s' calls itself '%s'; the files are named after that", cfg->node, r->node);
		(void)rot_set_node(r->rot, r->node); /* no file is open yet */
		(void)set_header(r, &r->header);
	}
	fp_note("sampling '%s' (OTP %s): top %u every %.1fs at %g Hz, writing to '%s'", cfg->node,
		node_otp_release(r->nc.n), cfg->top, cfg->every_us / 1e6, cfg->hz, cfg->outdir);
	return 0;
}

/* The --pid and --name processes the agent found no live process for: an
 * error when they were all there was to sample (--top 0), else a warning;
 * both also under -q, since a run that samples nothing it was asked to is
 * no success. @return 0 or an exit status. */
static int check_targets(struct run *r)
{
	const struct fp_config *cfg = r->cfg;
	const char *names;
	unsigned n = sampler_missing(r->sampler, &names);
	if (n == 0)
		return 0;
	if (cfg->top == 0 && n >= cfg->npids + cfg->nnames) {
		fp_error("no live process on '%s' for %s; with --top 0 nothing is left to sample: give a live "
			 "--pid or a registered --name, or sample the busiest with --top N", cfg->node, names);
		stop_agent(r, 0);
		(void)rot_close(r->rot);
		return EX_USAGE;
	}
	fp_error("warning: no live process on '%s' for %s; sampling the others", cfg->node, names);
	return 0;
}

/* Closes and renames the current file, then prints the summary. A failed
 * close is reported unless it repeats `said`, the error already printed
 * (closing retries the same write on the same disk: one sentence per
 * failure). @return 0 or the close's rot_err. */
static int close_output(struct run *r, const char *said)
{
	int e = rot_close(r->rot);
	if (e < 0 && (!said || strcmp(said, rot_error(r->rot)) != 0))
		fp_error("%s", rot_error(r->rot));
	uint64_t written[FP_STATUS_COUNT], hidden[FP_STATUS_COUNT];
	fmt_counts(r->out.fmt, written, hidden);
	fp_status_summary(&r->status, r->rot, r->cfg, written, hidden);
	return e;
}

/* The capture loop proper. @return an exit status. */
static int capture(struct run *r)
{
	const struct fp_config *cfg = r->cfg;
	long long start = fp_mono_ms(), next_flush = start + cfg->flush_us / 1000;
	long long end = cfg->duration_us ? start + cfg->duration_us / 1000 : 0;
	struct sampler_batch b;

	while (!fp_stop_signals() && (!end || fp_mono_ms() < end)) {
		long long now = fp_mono_ms(), wait = next_flush - now;
		if (end && end - now < wait)
			wait = end - now;
		if (wait > 200)
			wait = 200;
		int rc = sampler_next(r->sampler, wait < 1 ? 1 : (int)wait, &b);
		if (rc < 0) {
			fp_error("%s", node_error(r->nc.n));
			if (rc == NODE_ERR_AGENT_DOWN)
				fp_agent_unloaded(r->sampler, &r->nc);
			else if (rc != NODE_ERR_LOST)
				stop_agent(r, 0);
			close_output(r, NULL);
			return fp_exit_for_node(rc);
		}
		int e = rc == 1 ? write_batch(r, &b) : 0;
		if (e == 0 && fp_mono_ms() >= next_flush) {
			e = rot_flush(r->rot);
			next_flush = fp_mono_ms() + cfg->flush_us / 1000;
		}
		if (e < 0) {
			char first[512];
			snprintf(first, sizeof first, "%s", rot_error(r->rot));
			fp_error("%s; %s", first, e == ROT_ERR_NOSPACE ?
				 "free some space or choose another directory with -o DIR" :
				 "check the output directory, or choose another with -o DIR");
			stop_agent(r, 0);
			close_output(r, first);
			return exit_for_rotate(e);
		}
		fp_status_tick(&r->status, r->rot);
	}
	fp_note("stopping");
	stop_agent(r, 1);
	int e = close_output(r, NULL);
	return e < 0 ? exit_for_rotate(e) : 0;
}

int fp_run(const struct fp_config *cfg)
{
	struct run r = { .cfg = cfg, .node = cfg->node };
	int rc;

	fp_agent_node(cfg, &r.nc);
	fp_status_init(&r.status, cfg);
	fmt_ctx *fmt = NULL;
	struct fmt_options fo = { cfg->cats, cfg->ncats, cfg->tiers, cfg->ntiers, cfg->statuses };
	if ((rc = fp_node_begin(&r.nc)) != 0)
		goto out;
	fmt = fmt_create(&fo);
	if (!fmt || fp_batch_out_init(&r.out, fmt, NULL) < 0) {
		fp_error("out of memory");
		rc = EX_OSERR;
		goto out;
	}
	/* the output first: fail before touching the node */
	if ((rc = open_output(&r, cfg->node)) != 0)
		goto out;
	if ((rc = connect_node(&r)) != 0)
		goto out;
	if ((rc = check_targets(&r)) != 0)
		goto out;
	fp_status_sampling(&r.status);
	rc = capture(&r);
out:
	fp_status_clear();
	sampler_free(r.sampler);
	fp_node_end(&r.nc);
	rot_free(r.rot);
	ix_writer_free(r.index);
	fmt_free(fmt);
	fp_batch_out_free(&r.out);
	return rc;
}
