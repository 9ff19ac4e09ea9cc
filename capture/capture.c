/*
 * capture.c - one capture: sampler -> formatter -> rotate, until told to stop,
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cap_agent.h"
#include "cap_batch.h"
#include "cap_internal.h"
#include "cap_status.h"
#include "capture.h"
#include "../common/clock.h"
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
	const struct cap_config *cfg;
	const struct cap_door *door;
	const char *given;      /* the node as given (NODE, or --cluster's discovery) */
	const char *ck;         /* its cookie (the door's), until wiped */
	const char *ck_from;    /* where it came from (the door's), for a rejection's sentence */
	node_t *n;              /* once connected */
	fmt_ctx *fmt;
	sampler_t *sampler;
	rot_t *rot;
	ix_writer *index;
	struct cap_batch out; /* formatter -> rotate */
	struct cap_status status;
	struct at_start header; /* what the next file's header says of the moment it began */
	const char *node;       /* the node's own name (node()), once connected; given before */
	const char *names;      /* "elixir" or "erlang" for the header (--names), NULL: nothing */
	char own[MAXATOMLEN_UTF8]; /* node's text once connected: it outlives the connection */
	int sampling;           /* the agent runs and its batches are read */
	int rc;                 /* this node's exit status once it failed; 0 */
	int idle;               /* ended well with no event: its idle record written */
};

static int set_header(struct run *r, const struct at_start *now);

static int rc_for_rotate(int err)
{
	return err == ROT_ERR_DIR ? CAP_E_CANTCREAT : err == ROT_ERR_NOMEM ? CAP_E_NOMEM : CAP_E_IO;
}

/* What a negative enum node_err means for the capture's end. */
static int rc_for_node(int err)
{
	switch (err) {
	case NODE_ERR_USAGE: return CAP_E_USAGE;
	case NODE_ERR_COOKIE: return CAP_E_COOKIE;
	case NODE_ERR_LOST: return CAP_E_LOST;
	case NODE_ERR_PROTO: return CAP_E_PROTOCOL;
	case NODE_ERR_NOMEM: return CAP_E_NOMEM;
	case NODE_ERR_AGENT_DOWN: return CAP_E_AGENT_DOWN;
	case NODE_ERR_LOCAL: return CAP_E_CANTCREAT;
	default: return CAP_E_NODE;
	}
}

/* Says the node's sentence for a negative enum node_err e. @return its CAP_E_*. */
static int node_fail(struct run *r, int e)
{
	cap_say(r->door, CAP_SAY_ERROR, "%s", node_error(r->n));
	return rc_for_node(e);
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
	cap_status_batch(&r->status, b);
	/* Each new file says in its header how many processes were selected,
	 * how much the budget sampled and how much was delivered when it
	 * began; the header is made again when any has moved (a failed update
	 * keeps the old one: nothing is lost), before the batch is written, so
	 * that a file this batch opens tells its own selection. */
	struct at_start now = { r->status.share, r->status.rate, r->status.requested_rate,
				r->status.last_selected };
	if (now.share != r->header.share || now.selected != r->header.selected || moved(&r->header, &now))
		(void)set_header(r, &now);
	return cap_batch_write(&r->out, b->samples, b->nsamples);
}

static int batch_sink(void *ctx, const struct sampler_batch *b)
{
	return write_batch(ctx, b);
}

/* Stops the agent and waits (bounded) for its last batch and its goodbye
 * (cap_agent.c). Writing errors here are reported by the caller; the
 * node comes first. */
static int stop_agent(struct run *r, int write)
{
	cap_status_stopping(&r->status);
	return cap_agent_stop(r->sampler, r->n, r->given, r->cfg->connect_timeout_us / 1000, write ? batch_sink : NULL, r,
			      r->door);
}

static void settings_text(const struct cap_config *cfg, const struct at_start *at, const char *names,
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

static void header_text(const struct cap_config *cfg, const char *node, const struct at_start *at,
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
static void adopt_dead(const struct cap_door *door, const char *dir)
{
	struct adopted a = { 0 };
	if (rot_adopt_dead(dir, adopted_one, &a) > 0)
		cap_say(door, CAP_SAY_WARN, "%d file(s) of runs that died before finishing them (%lld bytes, e.g. '%s') renamed from their dot-names in '%s'; report sees them now",
			a.n, a.bytes, a.first, dir);
}

static int open_output(struct run *r, const char *node)
{
	const struct cap_config *cfg = r->cfg;
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
		cap_say(r->door, CAP_SAY_ERROR, "%s; choose another directory with -o DIR", rot_error(r->rot));
		return rc_for_rotate(e);
	}
	adopt_dead(r->door, ro.dir && *ro.dir ? ro.dir : ".");
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
	if (r->cfg->lang == FP_NAMES_AUTO && node_runs_elixir(r->n, &elixir) < 0)
		elixir = 0;
	r->names = elixir ? "elixir" : r->cfg->lang == FP_NAMES_ERLANG ? "erlang" : NULL;
	if (elixir)
		cap_say(r->door, CAP_SAY_NOTE, "the node runs Elixir: 'flameprof report' draws Elixir's names (--names erlang for Erlang's)");
	if (r->names)
		(void)set_header(r, &r->header); /* out of memory: the header stays as it was */
	return 0;
}

/* Connects (unless --cluster's discovery already did), then has the
 * cookie wiped when it serves no other node. @return 0 or a CAP_E_* once
 * said. */
static int connect_only(struct run *r)
{
	if (r->n)
		return 0;
	struct node_options no = {
		.node = r->given, .cookie = r->ck, .cookie_from = r->ck_from, .alive = r->cfg->node_name,
		.connect_timeout_ms = (int)(r->cfg->connect_timeout_us / 1000),
		.compile_on_target = r->cfg->compile_on_target,
	};
	cap_say(r->door, CAP_SAY_NOTE, "connecting to '%s'", r->given);
	int e = node_connect(&r->n, &no);
	if (!r->status.multi)
		r->door->wipe(r->door->arg);
	return e < 0 ? node_fail(r, e) : 0;
}

/* Loads and starts the agent on the connected node. @return 0 or an exit
 * status once said. */
static int start_agent(struct run *r)
{
	const struct cap_config *cfg = r->cfg;
	struct sampler_options so;
	cap_agent_options(cfg, &so);
	int e = pick_names(r);
	if (e == 0) {
		cap_say(r->door, CAP_SAY_NOTE, "connected to '%s'; loading the agent", r->given);
		e = sampler_start(&r->sampler, r->n, &so);
	}
	if (e < 0)
		return node_fail(r, e);
	/* Files are named after the node's own name, so that one node reached
	 * as rabbit@vm and as rabbit@127.0.0.1 writes one series of files. */
	snprintf(r->own, sizeof r->own, "%s", node_own_name(r->n));
	r->node = r->status.node = r->own;
	if (strcmp(r->node, r->given) != 0) {
		cap_say(r->door, CAP_SAY_NOTE, "'%s' calls itself '%s'; the files are named after that", r->given, r->node);
		(void)rot_set_node(r->rot, r->node); /* no file is open yet */
		(void)set_header(r, &r->header);
	}
	cap_say(r->door, CAP_SAY_NOTE, "sampling '%s' (OTP %s): top %u every %.1fs at %g Hz, writing to '%s'", r->given,
		node_otp_release(r->n), cfg->top, cfg->every_us / 1e6, cfg->hz, cfg->outdir);
	return 0;
}

/* The --pid and --name processes the agent found no live process for: an
 * error when they were all there was to sample (--top 0), else a warning;
 * both also under -q, since a run that samples nothing it was asked to is
 * no success. @return 0 or an exit status. */
static int check_targets(struct run *r)
{
	const struct cap_config *cfg = r->cfg;
	const char *names;
	unsigned n = sampler_missing(r->sampler, &names);
	if (n == 0)
		return 0;
	if (cfg->top == 0 && n >= cfg->npids + cfg->nnames) {
		cap_say(r->door, CAP_SAY_ERROR, "no live process on '%s' for %s; with --top 0 nothing is left to sample: give a live "
			"--pid or a registered --name, or sample the busiest with --top N", r->given, names);
		stop_agent(r, 0);
		(void)rot_close(r->rot);
		return CAP_E_USAGE;
	}
	cap_say(r->door, CAP_SAY_ERROR, "warning: no live process on '%s' for %s; sampling the others", r->given, names);
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
	const struct cap_status *st = &r->status;
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
		cap_say(r->door, CAP_SAY_ERROR, "%s", rot_error(r->rot));
	cap_status_summary(&r->status, r->rot, r->cfg, written, hidden);
	if (r->idle)
		cap_say(r->door, CAP_SAY_INFO, "%s%s%swas idle: its file in '%s' holds a note saying so, and no event ('flameprof report' lists it)",
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
	node_free(r->n);
	r->n = NULL;
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
		cap_say(r->door, CAP_SAY_ERROR, "%s", node_error(r->n));
		if (rc == NODE_ERR_AGENT_DOWN)
			cap_agent_unloaded(r->sampler, r->n, r->given, r->door);
		else if (rc != NODE_ERR_LOST)
			stop_agent(r, 0);
		close_output(r, NULL);
		return node_failed(r, rc_for_node(rc));
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
	cap_say(r->door, CAP_SAY_ERROR, "%s; %s", first, e == ROT_ERR_NOSPACE ?
		 "free some space or choose another directory with -o DIR" :
		 "check the output directory, or choose another with -o DIR");
	stop_agent(r, 0);
	close_output(r, first);
	return node_failed(r, rc_for_rotate(e));
}

static void tick(struct run *runs, size_t n)
{
	if (n == 1) {
		cap_status_tick(&runs[0].status, runs[0].rot);
		return;
	}
	struct cap_status *sts[CAP_MAX_NODES];
	const rot_t *rots[CAP_MAX_NODES];
	int live[CAP_MAX_NODES];
	for (size_t k = 0; k < n; k++) {
		sts[k] = &runs[k].status;
		rots[k] = runs[k].rot;
		live[k] = runs[k].sampling;
	}
	cap_status_tick_nodes(sts, rots, live, n, runs[0].cfg->verbosity >= 2);
}

/* The capture loop proper, over every node still sampling. Each node's
 * exit status ends in its run's rc. */
static void capture(struct run *runs, size_t n)
{
	const struct cap_config *cfg = runs[0].cfg;
	long long start = fp_mono_ms(), next_flush = start + cfg->flush_us / 1000;
	long long end = cfg->duration_us ? start + cfg->duration_us / 1000 : 0;
	struct pollfd fds[CAP_MAX_NODES];
	struct sampler_batch b;
	size_t alive = 0;
	for (size_t k = 0; k < n; k++)
		alive += runs[k].sampling;

	const struct cap_door *door = runs[0].door;
	while (alive > 0 && !door->stops(door->arg) && (!end || fp_mono_ms() < end)) {
		long long now = fp_mono_ms(), wait = next_flush - now;
		if (end && end - now < wait)
			wait = end - now;
		if (wait > 200)
			wait = 200;
		for (size_t k = 0; k < n; k++) {
			fds[k] = (struct pollfd){ runs[k].sampling ? node_fd(runs[k].n) : -1, POLLIN, 0 };
			if (runs[k].sampling && node_has_held(runs[k].n))
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
	cap_say(door, CAP_SAY_NOTE, "stopping");
	/* every node's rates end now, not when its turn to stop comes */
	for (size_t k = 0; k < n; k++)
		if (runs[k].sampling)
			cap_status_stopping(&runs[k].status);
	for (size_t k = 0; k < n; k++) {
		struct run *r = &runs[k];
		if (!r->sampling)
			continue;
		stop_agent(r, 1);
		int e = close_output_idle(r, NULL, 1);
		r->sampling = 0;
		r->rc = e < 0 ? rc_for_rotate(e) : 0;
	}
}

/* One node's frame (its part of the options, its status). */
static void frame(struct run *r, const struct cap_config *cfg, const struct cap_door *door, const char *node,
		  int several)
{
	*r = (struct run){ .cfg = cfg, .door = door, .given = node, .node = node };
	cap_status_init(&r->status, cfg, door);
	r->status.node = node;
	r->status.multi = several;
}

/* One node's formatter and files, before anything touches the node. */
static int prepare(struct run *r, const struct cap_config *cfg, const char *node)
{
	struct fmt_options fo = { cfg->cats, cfg->ncats, cfg->tiers, cfg->ntiers, cfg->statuses };
	r->fmt = fmt_create(&fo);
	if (!r->fmt || cap_batch_init(&r->out, r->fmt, NULL) < 0) {
		cap_say(r->door, CAP_SAY_ERROR, "out of memory");
		return CAP_E_NOMEM;
	}
	/* the output first: fail before touching the node */
	return open_output(r, node);
}

static void release(struct run *r)
{
	sampler_free(r->sampler);
	node_free(r->n);
	rot_free(r->rot);
	ix_writer_free(r->index);
	fmt_free(r->fmt);
	cap_batch_free(&r->out);
}

/* Connects, starts the agent and checks its targets. @return 0, or the
 * node's CAP_E_* once said. */
static int start(struct run *r)
{
	int rc = connect_only(r);
	if (rc == 0)
		rc = start_agent(r);
	if (rc == 0)
		rc = check_targets(r);
	r->sampling = rc == 0;
	r->rc = rc;
	if (rc != 0 && r->status.multi)
		hang_up(r);
	return rc;
}

/* --cluster: the first node's visible peers, after it (each name checked
 * as a node name; the bound applies). A node may list anything: a name
 * twice, itself (by the name given or its own), a host far away. So
 * duplicates and the first node are dropped, and the nodes are named
 * before any is connected to. runs[0] is connected. @return 0, or a
 * CAP_E_* once said. */
static int discover(const struct cap_config *cfg, struct run *r0, char (*names)[MAXATOMLEN_UTF8],
		    const char **nodes, size_t *n)
{
	const struct cap_door *door = r0->door;
	int count = 0;
	int e = node_release(r0->n);
	if (e == 0)
		e = node_peers(r0->n, names[0], MAXATOMLEN_UTF8, CAP_MAX_NODES - 1, &count);
	if (e < 0)
		return node_fail(r0, e);
	if (count > CAP_MAX_NODES - 1) {
		cap_say(door, CAP_SAY_ERROR, "'%s' is connected to %d visible nodes: with it, more than the " CAP_MAX_NODES_TEXT
			" one run profiles; name at most " CAP_MAX_NODES_TEXT " of them instead of --cluster, or run several flameprof",
			cfg->node, count);
		return CAP_E_USAGE;
	}
	const char *own = node_own_name(r0->n);
	char list[3000];
	size_t used = 0, more = 0;
	*n = 1;
	for (int k = 0; k < count; k++) {
		char err[512];
		int dup = strcmp(names[k], cfg->node) == 0 || strcmp(names[k], own) == 0;
		for (size_t j = 1; j < *n && !dup; j++)
			dup = strcmp(nodes[j], names[k]) == 0;
		if (dup) {
			cap_say(door, CAP_SAY_NOTE, "'%s' lists '%s' again, or itself; connected to once", cfg->node, names[k]);
			continue;
		}
		if (node_check_target(names[k], err, sizeof err) < 0) {
			cap_say(door, CAP_SAY_WARN, "'%s' lists a node flameprof cannot name ('%.80s'); skipped", cfg->node,
				names[k]);
			continue;
		}
		if (cfg->cluster_hosts && !cap_host_allowed(names[k], cfg->cluster_hosts)) {
			cap_say(door, CAP_SAY_WARN, "'%s' lists '%s', on a host --cluster-hosts '%s' does not allow; skipped, "
				"never connected to", cfg->node, names[k], cfg->cluster_hosts);
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
	cap_say(door, CAP_SAY_INFO, "--cluster: '%s' and %zu visible node%s it is connected to%s", cfg->node, *n - 1,
		*n == 2 ? "" : "s", list);
	return 0;
}

/* The run's end: CAP_OK when every node did well; when some failed and
 * others did well, CAP_E_PARTIAL (each failure was said); when all failed,
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
	return fine == n ? CAP_OK : fine ? CAP_E_PARTIAL : first;
}

int capture_run(const struct cap_config *cfg, const struct cap_door *door)
{
	static struct run runs[CAP_MAX_NODES];
	static char found[CAP_MAX_NODES][MAXATOMLEN_UTF8];
	const char *nodes[CAP_MAX_NODES];
	size_t n = cfg->nnodes ? cfg->nnodes : 1, ready = 0;
	int several = n > 1 || cfg->cluster, rc;

	for (size_t k = 0; k < n; k++)
		nodes[k] = cfg->nnodes ? cfg->nodes[k] : cfg->node;
	frame(&runs[0], cfg, door, nodes[0], several);
	ready = 1;
	if (door->cookie(door->arg, nodes[0], 1, &runs[0].ck, &runs[0].ck_from) < 0) {
		rc = CAP_E_COOKIE;
		goto out;
	}
	if ((rc = prepare(&runs[0], cfg, nodes[0])) != 0)
		goto out;
	if (cfg->cluster) {
		if ((rc = connect_only(&runs[0])) != 0 || (rc = discover(cfg, &runs[0], found, nodes, &n)) != 0)
			goto out;
		door->found(door->arg, nodes, n);
	}
	/* Each node's cookie, as the door reads it: its own --cookie-file
	 * NODE=FILE, else under --cluster the first node's (its cluster
	 * shares it), else the plain one, read once. */
	for (size_t k = 1; k < n; k++, ready++) {
		frame(&runs[k], cfg, door, nodes[k], several);
		if ((rc = prepare(&runs[k], cfg, nodes[k])) != 0) {
			ready++;
			goto out;
		}
		if (door->cookie(door->arg, nodes[k], 0, &runs[k].ck, &runs[k].ck_from) < 0) {
			rc = CAP_E_COOKIE;
			ready++;
			goto out;
		}
	}
	/* one node after the other: a node that fails is said and left */
	size_t started = 0;
	for (size_t k = 0; k < n; k++) {
		started += start(&runs[k]) == 0;
		if (door->stops(door->arg))
			break;
	}
	door->wipe(door->arg);
	if (started == 0) {
		rc = overall(runs, n);
		goto out;
	}
	if (several && started < n)
		cap_say(door, CAP_SAY_WARN, "sampling %zu of %zu nodes; the others are named above", started, n);
	for (size_t k = 0; k < n; k++)
		if (runs[k].sampling)
			cap_status_sampling(&runs[k].status);
	capture(runs, n);
	rc = overall(runs, n);
	if (several) {
		unsigned files = 0;
		for (size_t k = 0; k < n; k++)
			files += runs[k].rot ? rot_stats(runs[k].rot)->files : 0;
		if (files && cfg->verbosity >= 1)
			cap_say(door, CAP_SAY_INFO, "open them with 'flameprof report %s -o profile.html' (all nodes, a node:NAME frame each) "
				"or '--node NAME' for one", cfg->outdir);
	}
out:
	door->wipe(door->arg);
	for (size_t k = 0; k < ready; k++)
		release(&runs[k]);
	return rc;
}
