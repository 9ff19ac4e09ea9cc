/*
 * run.c - one capture: sampler -> formatter -> rotate, until told to stop,
 * on one node or several at once (NODE..., --cluster).
 *
 * Each node has its own connection, agent, formatter and files (struct
 * run); one loop serves them all. It waits in poll(2) on every node's
 * socket at once, always with a deadline (the next flush, the next status
 * line, or 200 ms), then reads what arrived from each node, so no node
 * waits for another and signals, --duration and flushes are handled on
 * time. A node that fails is said in its own sentence and left; the others
 * go on. Signal handlers only set a flag; this loop stops the agents,
 * flushes, closes and renames.
 */
#include <poll.h>
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
#include "cookie_files.h"
#include "status.h"
#include "../common/names.h"
#include "../formatter/formatter.h"
#include "../index/index.h"
#include "../rotate/rotate.h"
#include "../rotate/adopt.h"
#include "../rotate/naming.h"
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

/* One node's capture. */
struct run {
	const struct fp_config *cfg;
	struct fp_node_cmd nc;
	fmt_ctx *fmt;
	sampler_t *sampler;
	rot_t *rot;
	ix_writer *index;
	struct fp_batch_out out; /* formatter -> rotate */
	struct fp_status_state status;
	struct at_start header; /* what the next file's header says of the moment it began */
	const char *node;       /* the node's own name (node()), once connected; cfg->node before */
	const char *names;      /* "elixir" or "erlang" for the header (--names), NULL: nothing */
	char own[MAXATOMLEN_UTF8]; /* node's text once connected: it outlives the connection */
	int sampling;           /* the agent runs and its batches are read */
	int rc;                 /* this node's exit status once it failed; 0 */
	int idle;               /* ended well with no event: its idle record written */
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

/* Connects (unless --cluster's discovery already did). @return 0 or an
 * exit status once said. */
static int connect_only(struct run *r)
{
	return r->nc.n ? 0 : fp_node_connect(&r->nc);
}

/* Loads and starts the agent on the connected node. @return 0 or an exit
 * status once said. */
static int start_agent(struct run *r)
{
	const struct fp_config *cfg = r->cfg;
	struct sampler_options so;
	fp_agent_options(cfg, &so);
	int e = pick_names(r);
	if (e == 0) {
		fp_note("connected to '%s'; loading the agent", r->nc.node);
		e = sampler_start(&r->sampler, r->nc.n, &so);
	}
	if (e < 0)
		return fp_node_fail(&r->nc, e);
	/* Files are named after the node's own name, so that one node reached
	 * as rabbit@vm and as rabbit@127.0.0.1 writes one series of files. */
	snprintf(r->own, sizeof r->own, "%s", node_own_name(r->nc.n));
	r->node = r->status.node = r->own;
	if (strcmp(r->node, r->nc.node) != 0) {
		fp_note("'%s' calls itself '%s'; the files are named after that", r->nc.node, r->node);
		(void)rot_set_node(r->rot, r->node); /* no file is open yet */
		(void)set_header(r, &r->header);
	}
	fp_note("sampling '%s' (OTP %s): top %u every %.1fs at %g Hz, writing to '%s'", r->nc.node,
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
			 "--pid or a registered --name, or sample the busiest with --top N", r->nc.node, names);
		stop_agent(r, 0);
		(void)rot_close(r->rot);
		return EX_USAGE;
	}
	fp_error("warning: no live process on '%s' for %s; sampling the others", r->nc.node, names);
	return 0;
}

/* Closes and renames the current file, then prints the summary. A failed
 * close is reported unless it repeats `said`, the error already printed
 * (closing retries the same write on the same disk: one sentence per
 * failure). @return 0 or the close's rot_err. */
/* The note of an idle record (rot_close_idle()): when the node was
 * profiled, for how long, and why no event was written. */
static void idle_note(const struct run *r, const uint64_t hidden[FP_STATUS_COUNT], int64_t *start_us,
		      char *out, size_t cap)
{
	const struct fp_status_state *st = &r->status;
	struct timespec now;
	long long mono = fp_mono_ms(), end = st->end_ms ? st->end_ms : mono;
	char stamp[ROT_STAMP_LEN + 1], why[300];
	clock_gettime(CLOCK_REALTIME, &now);
	*start_us = (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000 - (mono - st->start_ms) * 1000;
	rot_name_stamp(stamp, *start_us);
	if (st->selected_max == 0) {
		snprintf(why, sizeof why, "no process selected (none gained reductions in a window of --every)");
	} else {
		size_t n = (size_t)snprintf(why, sizeof why, "%llu samples, none of a status --status writes (",
					    (unsigned long long)st->samples);
		for (int k = 0, first = 1; k < FP_STATUS_COUNT && n < sizeof why; k++)
			if (hidden[k]) {
				n += (size_t)snprintf(why + n, sizeof why - n, "%s%s %llu", first ? "" : ", ",
						      fp_status_names[k], (unsigned long long)hidden[k]);
				first = 0;
			}
		if (n < sizeof why)
			snprintf(why + n, sizeof why - n, ")");
	}
	snprintf(out, cap, "# idle: profiled for %.1f s from %s, no event: %s\n", (end - st->start_ms) / 1000.0,
		 stamp, why);
}

/* Closes the output. A node that ended well with no event written gets
 * its idle record (idle_ok), so the directory says it was profiled. */
static int close_output_idle(struct run *r, const char *said, int idle_ok)
{
	uint64_t written[FP_STATUS_COUNT], hidden[FP_STATUS_COUNT];
	fmt_counts(r->out.fmt, written, hidden);
	int e;
	if (idle_ok && rot_stats(r->rot)->records == 0) {
		char note[512];
		int64_t start_us;
		idle_note(r, hidden, &start_us, note, sizeof note);
		e = rot_close_idle(r->rot, note, start_us);
		r->idle = e == 0;
	} else {
		e = rot_close(r->rot);
	}
	if (e < 0 && (!said || strcmp(said, rot_error(r->rot)) != 0))
		fp_error("%s", rot_error(r->rot));
	fp_status_summary(&r->status, r->rot, r->cfg, written, hidden);
	if (r->idle)
		fp_info("%s%s%swas idle: its file in '%s' holds a note saying so, and no event ('flameprof report' lists it)",
			r->status.multi ? "'" : "the node ", r->status.multi ? r->node : "", r->status.multi ? "' " : "",
			r->cfg->outdir);
	return e;
}

static int close_output(struct run *r, const char *said)
{
	return close_output_idle(r, said, 0);
}

/* A node that failed is let go at once, not at the end of the run: our
 * connection (and the lock file) would stay open on it meanwhile. Its
 * frame's cookie buffer stays: the first node's is the run's one cookie. */
static void hang_up(struct run *r)
{
	sampler_free(r->sampler);
	r->sampler = NULL;
	node_free(r->nc.n);
	r->nc.n = NULL;
}

/* This node has failed: its sentence is said; it is left as its error
 * allows (the agent stopped, or found gone), its files closed. @return rc. */
static int node_failed(struct run *r, int rc)
{
	r->sampling = 0;
	r->rc = rc;
	hang_up(r);
	return rc;
}

/* What sampler_next() returned for this node, handled. @return 0, or the
 * node's exit status once it has failed. */
static int take(struct run *r, int rc, const struct sampler_batch *b)
{
	if (rc < 0) {
		fp_error("%s", node_error(r->nc.n));
		if (rc == NODE_ERR_AGENT_DOWN)
			fp_agent_unloaded(r->sampler, &r->nc);
		else if (rc != NODE_ERR_LOST)
			stop_agent(r, 0);
		close_output(r, NULL);
		return node_failed(r, fp_exit_for_node(rc));
	}
	int e = rc == 1 ? write_batch(r, b) : 0;
	return e < 0 ? e : 0;
}

/* A write or flush error of this node's files: said, the agent stopped.
 * @return the node's exit status. */
static int write_failed(struct run *r, int e)
{
	char first[512];
	snprintf(first, sizeof first, "%s", rot_error(r->rot));
	fp_error("%s; %s", first, e == ROT_ERR_NOSPACE ?
		 "free some space or choose another directory with -o DIR" :
		 "check the output directory, or choose another with -o DIR");
	stop_agent(r, 0);
	close_output(r, first);
	return node_failed(r, exit_for_rotate(e));
}

static void tick(struct run *runs, size_t n)
{
	if (n == 1) {
		fp_status_tick(&runs[0].status, runs[0].rot);
		return;
	}
	struct fp_status_state *sts[FP_MAX_NODES];
	const rot_t *rots[FP_MAX_NODES];
	int live[FP_MAX_NODES];
	for (size_t k = 0; k < n; k++) {
		sts[k] = &runs[k].status;
		rots[k] = runs[k].rot;
		live[k] = runs[k].sampling;
	}
	fp_status_tick_nodes(sts, rots, live, n, runs[0].cfg->verbosity >= 2);
}

/* The capture loop proper, over every node still sampling. Each node's
 * exit status ends in its run's rc. */
static void capture(struct run *runs, size_t n)
{
	const struct fp_config *cfg = runs[0].cfg;
	long long start = fp_mono_ms(), next_flush = start + cfg->flush_us / 1000;
	long long end = cfg->duration_us ? start + cfg->duration_us / 1000 : 0;
	struct pollfd fds[FP_MAX_NODES];
	struct sampler_batch b;
	size_t alive = 0;
	for (size_t k = 0; k < n; k++)
		alive += runs[k].sampling;

	while (alive > 0 && !fp_stop_signals() && (!end || fp_mono_ms() < end)) {
		long long now = fp_mono_ms(), wait = next_flush - now;
		if (end && end - now < wait)
			wait = end - now;
		if (wait > 200)
			wait = 200;
		for (size_t k = 0; k < n; k++) {
			fds[k] = (struct pollfd){ runs[k].sampling ? node_fd(runs[k].nc.n) : -1, POLLIN, 0 };
			if (runs[k].sampling && node_has_held(runs[k].nc.n))
				wait = 0; /* messages already read wait for us */
		}
		if (poll(fds, (nfds_t)n, wait < 0 ? 0 : (int)wait) < 0)
			for (size_t k = 0; k < n; k++)
				fds[k].revents = 0; /* a signal: the loop's top checks it */
		/* Every node still sampling is asked: one with bytes waiting
		 * gets a short wait for the whole message (it is on its way),
		 * the others none, which still tells a node fallen silent
		 * (--silence-timeout). */
		for (size_t k = 0; k < n; k++) {
			struct run *r = &runs[k];
			if (!r->sampling)
				continue;
			int ready = (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
			int e = take(r, sampler_next(r->sampler, ready ? 20 : 0, &b), &b);
			if (e < 0)
				write_failed(r, e);
			alive -= !r->sampling;
		}
		if (fp_mono_ms() >= next_flush) {
			for (size_t k = 0; k < n; k++) {
				int e = runs[k].sampling ? rot_flush(runs[k].rot) : 0;
				if (e < 0) {
					write_failed(&runs[k], e);
					alive--;
				}
			}
			next_flush = fp_mono_ms() + cfg->flush_us / 1000;
		}
		tick(runs, n);
	}
	if (alive == 0)
		return;
	fp_note("stopping");
	/* every node's rates end now, not when its turn to stop comes */
	for (size_t k = 0; k < n; k++)
		if (runs[k].sampling)
			fp_status_stopping(&runs[k].status);
	for (size_t k = 0; k < n; k++) {
		struct run *r = &runs[k];
		if (!r->sampling)
			continue;
		stop_agent(r, 1);
		int e = close_output_idle(r, NULL, 1);
		r->sampling = 0;
		r->rc = e < 0 ? exit_for_rotate(e) : 0;
	}
}

/* One node's frame (its part of the options, its status). */
static void frame(struct run *r, const struct fp_config *cfg, const char *node, int several)
{
	*r = (struct run){ .cfg = cfg, .node = node };
	fp_agent_node(cfg, &r->nc);
	r->nc.node = node;
	r->nc.keep_cookie = several;
	fp_status_init(&r->status, cfg);
	r->status.node = node;
	r->status.multi = several;
}

/* One node's formatter and files, before anything touches the node. */
static int prepare(struct run *r, const struct fp_config *cfg, const char *node)
{
	struct fmt_options fo = { cfg->cats, cfg->ncats, cfg->tiers, cfg->ntiers, cfg->statuses };
	r->fmt = fmt_create(&fo);
	if (!r->fmt || fp_batch_out_init(&r->out, r->fmt, NULL) < 0) {
		fp_error("out of memory");
		return EX_OSERR;
	}
	/* the output first: fail before touching the node */
	return open_output(r, node);
}

static void release(struct run *r)
{
	sampler_free(r->sampler);
	fp_node_end(&r->nc);
	rot_free(r->rot);
	ix_writer_free(r->index);
	fmt_free(r->fmt);
	fp_batch_out_free(&r->out);
}

/* Connects, starts the agent and checks its targets. @return 0, or the
 * node's exit status once said. */
static int start(struct run *r)
{
	int rc = connect_only(r);
	if (rc == 0)
		rc = start_agent(r);
	if (rc == 0)
		rc = check_targets(r);
	r->sampling = rc == 0;
	r->rc = rc;
	if (rc != 0 && r->nc.keep_cookie)
		hang_up(r);
	return rc;
}

/* --cluster: the first node's visible peers, after it (each name checked
 * as a node name; the bound applies). A node may list anything: a name
 * twice, itself (by the name given or its own), a host far away. So
 * duplicates and the first node are dropped, and the nodes are named
 * before any is connected to. runs[0] is connected. @return 0, or an exit
 * status once said. */
static int discover(const struct fp_config *cfg, struct run *r0, char (*names)[MAXATOMLEN_UTF8],
		    const char **nodes, size_t *n)
{
	int count = 0;
	int e = node_release(r0->nc.n);
	if (e == 0)
		e = node_peers(r0->nc.n, names[0], MAXATOMLEN_UTF8, FP_MAX_NODES - 1, &count);
	if (e < 0)
		return fp_node_fail(&r0->nc, e);
	if (count > FP_MAX_NODES - 1) {
		fp_error("'%s' is connected to %d visible nodes: with it, more than the " FP_MAX_NODES_TEXT " one run profiles; "
			 "name at most " FP_MAX_NODES_TEXT " of them instead of --cluster, or run several flameprof", cfg->node, count);
		return EX_USAGE;
	}
	const char *own = node_own_name(r0->nc.n);
	char list[3000];
	size_t used = 0, more = 0;
	*n = 1;
	for (int k = 0; k < count; k++) {
		char err[512];
		int dup = strcmp(names[k], cfg->node) == 0 || strcmp(names[k], own) == 0;
		for (size_t j = 1; j < *n && !dup; j++)
			dup = strcmp(nodes[j], names[k]) == 0;
		if (dup) {
			fp_note("'%s' lists '%s' again, or itself; connected to once", cfg->node, names[k]);
			continue;
		}
		if (node_check_target(names[k], err, sizeof err) < 0) {
			fp_warn("'%s' lists a node flameprof cannot name ('%.80s'); skipped", cfg->node, names[k]);
			continue;
		}
		nodes[(*n)++] = names[k];
		int w = snprintf(list + used, sizeof list - used, "%s'%s'", used ? ", " : ": ", names[k]);
		if (w > 0 && (size_t)w < sizeof list - used)
			used += (size_t)w;
		else
			more++;
	}
	list[used] = '\0';
	if (more)
		snprintf(list + used, sizeof list - used, " and %zu more", more);
	fp_info("--cluster: '%s' and %zu visible node%s it is connected to%s", cfg->node, *n - 1, *n == 2 ? "" : "s",
		list);
	return 0;
}

/* The run's exit status: 0 when every node did well; when some failed and
 * others did well, FP_EX_PARTIAL (each failure was said); when all failed,
 * the first one's, as a run on that node alone would have ended. */
static int overall(const struct run *runs, size_t n)
{
	size_t fine = 0;
	int first = 0;
	for (size_t k = 0; k < n; k++) {
		fine += runs[k].rc == 0;
		if (runs[k].rc && !first)
			first = runs[k].rc;
	}
	return fine == n ? 0 : fine ? FP_EX_PARTIAL : first;
}

int fp_run(const struct fp_config *cfg)
{
	static struct run runs[FP_MAX_NODES];
	static char found[FP_MAX_NODES][MAXATOMLEN_UTF8];
	const char *nodes[FP_MAX_NODES];
	size_t n = cfg->nnodes ? cfg->nnodes : 1, ready = 0;
	int several = n > 1 || cfg->cluster, rc;

	for (size_t k = 0; k < n; k++)
		nodes[k] = cfg->nnodes ? cfg->nodes[k] : cfg->node;
	/* every name checked before anything is touched */
	for (size_t k = 1; k < n; k++) {
		char err[512];
		if (node_check_target(nodes[k], err, sizeof err) < 0) {
			fp_usage("%s", err);
			return EX_USAGE;
		}
	}
	const char *stray = cfg->cluster || n == 1 ? NULL : fp_cookie_files_unknown(nodes, n);
	if (stray) {
		fp_usage("--cookie-file names '%s', which is not one of the nodes given", stray);
		return EX_USAGE;
	}
	frame(&runs[0], cfg, nodes[0], several);
	ready = 1;
	if ((rc = fp_node_begin(&runs[0].nc)) != 0 || (rc = prepare(&runs[0], cfg, nodes[0])) != 0)
		goto out;
	if (cfg->cluster) {
		if ((rc = connect_only(&runs[0])) != 0 || (rc = discover(cfg, &runs[0], found, nodes, &n)) != 0)
			goto out;
		if ((stray = fp_cookie_files_unknown(nodes, n)))
			fp_warn("--cookie-file names '%s', which '%s' is not connected to; not used", stray, cfg->node);
	}
	/* Each node's cookie: its own --cookie-file NODE=FILE, else under
	 * --cluster the first node's (its cluster shares it), else the plain
	 * one (--cookie-file FILE, --cookie, $RELEASE_COOKIE, ~/.erlang.cookie),
	 * read once: --cookie and $RELEASE_COOKIE are blanked once read. */
	const char *plain = fp_cookie_file_for(nodes[0]) ? NULL : runs[0].nc.ck;
	for (size_t k = 1; k < n; k++, ready++) {
		frame(&runs[k], cfg, nodes[k], several);
		if ((rc = prepare(&runs[k], cfg, nodes[k])) != 0) {
			ready++;
			goto out;
		}
		struct fp_node_cmd *nc = &runs[k].nc;
		const char *own = fp_cookie_file_for(nodes[k]);
		if (own)
			rc = fp_read_cookie(NULL, own, nc->cookie_buf, sizeof nc->cookie_buf, &nc->ck);
		else if (cfg->cluster)
			nc->ck = runs[0].nc.ck;
		else if (plain)
			nc->ck = plain;
		else if ((rc = fp_read_cookie(nc->cookie, nc->cookie_file, nc->cookie_buf, sizeof nc->cookie_buf,
					      &nc->ck)) == 0)
			plain = nc->ck;
		if (rc != 0) {
			ready++;
			goto out;
		}
	}
	/* one node after the other: a node that fails is said and left */
	size_t started = 0;
	for (size_t k = 0; k < n; k++) {
		started += start(&runs[k]) == 0;
		if (fp_stop_signals())
			break;
	}
	fp_wipe_cookie();
	explicit_bzero(runs[0].nc.cookie_buf, sizeof runs[0].nc.cookie_buf);
	if (started == 0) {
		rc = overall(runs, n);
		goto out;
	}
	if (several && started < n)
		fp_warn("sampling %zu of %zu nodes; the others are named above", started, n);
	for (size_t k = 0; k < n; k++)
		if (runs[k].sampling)
			fp_status_sampling(&runs[k].status);
	capture(runs, n);
	rc = overall(runs, n);
	if (several) {
		unsigned files = 0;
		for (size_t k = 0; k < n; k++)
			files += runs[k].rot ? rot_stats(runs[k].rot)->files : 0;
		if (files && cfg->verbosity >= 1)
			fprintf(stderr, "flameprof: open them with 'flameprof report %s -o flame.svg' (all nodes, a node:NAME frame each) "
				"or '--node NAME' for one\n", cfg->outdir);
	}
out:
	fp_status_clear();
	fp_wipe_cookie();
	for (size_t k = 0; k < ready; k++)
		release(&runs[k]);
	return rc;
}
