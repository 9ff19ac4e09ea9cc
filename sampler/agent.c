/*
 * agent.c - starting the agent, receiving its batches, stopping it and
 * making sure its module is gone from the node afterwards.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"

/* The agent, compiled and embedded at build time (Makefile). */
extern const unsigned char fp_agent_beam[], fp_agent_source[];
extern const size_t fp_agent_beam_len, fp_agent_source_len;
static const struct node_module agent_module = {
	FP_AGENT_MODULE, "flameprof_agent", "the agent", fp_agent_beam, &fp_agent_beam_len, fp_agent_source, &fp_agent_source_len,
};

/* The node's one sampling agent (flameprof_agent.erl adopts the same
 * name), and what a second run is told (after the node's name). */
#define AGENT_LOCK "flameprof_agent"
#define AGENT_BUSY "is already being profiled by another flameprof; wait for it to finish, flameprof runs one at a time per node"

/* ---------------------------------------------------------------- starting */

static int spawn_agent(sampler_t *s)
{
	struct node_args a;
	int r;

	node_args_begin(&a, 4);
	node_arg_atom(&a, FP_AGENT_MODULE);
	node_arg_atom(&a, "init");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0 && ei_x_encode_map_header(&a.x, 10) == 0;
	node_arg_atom(&a, "sink");
	a.ok = a.ok && ei_x_encode_pid(&a.x, node_self(s->node)) == 0;
	node_arg_atom(&a, "top");
	a.ok = a.ok && ei_x_encode_ulong(&a.x, s->opts.top) == 0;
	node_arg_atom(&a, "hz");
	a.ok = a.ok && ei_x_encode_double(&a.x, s->opts.hz) == 0;
	node_arg_atom(&a, "every_ms");
	a.ok = a.ok && ei_x_encode_ulong(&a.x, s->opts.every_ms) == 0;
	node_arg_atom(&a, "depth");
	a.ok = a.ok && ei_x_encode_ulong(&a.x, s->opts.depth) == 0;
	node_arg_atom(&a, "max_cost_ppm");
	a.ok = a.ok && ei_x_encode_ulong(&a.x, s->opts.max_cost_ppm) == 0;
	node_arg_atom(&a, "pids");
	node_arg_binaries(&a, s->opts.pids, s->opts.npids);
	node_arg_atom(&a, "names");
	node_arg_names(&a, s->opts.names, s->opts.nnames);
	node_arg_lock(&a, s->node);
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	/* spawn_opt options: [{priority, high}] (why high: the agent's ?PRIO) */
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0 && ei_x_encode_tuple_header(&a.x, 2) == 0;
	node_arg_atom(&a, "priority");
	node_arg_atom(&a, "high");
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	r = node_rex_call_pid(s->node, "erlang", "spawn_opt", &a, &s->agent);
	if (r == 0)
		r = node_errf(s->node, NODE_ERR_AGENT, "cannot start the agent on '%s' (spawn_opt failed)", node_target(s->node));
	return r < 0 ? r : 0;
}

/* Waits for fp_started (or fp_error), holding any early batch. */
static int await_start(sampler_t *s)
{
	long long deadline = fp_mono_ms() + node_timeout_ms(s->node);
	const ei_x_buff *x;
	struct dec_result res;
	char why[128];
	for (;;) {
		int r = node_recv(s->node, deadline, &x);
		if (r < 0)
			return r;
		if (r == 0)
			return node_errf(s->node, NODE_ERR_AGENT, "the agent did not start on '%s' within %d ms",
				    node_target(s->node), node_timeout_ms(s->node));
		int k = dec_message(&s->tables, x->buff, (size_t)x->index, &res, why, sizeof why);
		if (k == DEC_STARTED) {
			s->old_depth = res.old_depth;
			memcpy(s->missing, res.missing, sizeof s->missing);
			s->nmissing = res.nmissing;
			s->have_agent = 1;
			node_lock_adopted(s->node); /* the agent has it now */
			return 0;
		}
		if (k == DEC_AGENT_ERROR)
			return node_errf(s->node, NODE_ERR_AGENT, "the agent could not start on '%s' (%s: %s)",
				    node_target(s->node), res.reason, res.detail);
		if (k == DEC_LINK_EXIT && node_same_pid(&res.exit_from, &s->agent))
			return node_errf(s->node, NODE_ERR_AGENT, "the agent could not start on '%s' (it ended: %s)",
				    node_target(s->node), res.detail);
	}
}

static int load_and_spawn(sampler_t *s);

int sampler_start(sampler_t **out, node_t *n, const struct sampler_options *opts)
{
	sampler_t *s = calloc(1, sizeof *s);
	int r;
	*out = s;
	if (!s)
		return node_errf(n, NODE_ERR_NOMEM, "out of memory");
	s->node = n;
	s->opts = *opts;
	s->old_depth = -1;
	dec_init(&s->tables);
	if ((r = node_release(n)) < 0 || (r = node_lock_take(n, AGENT_LOCK, AGENT_BUSY)) < 0)
		return r;
	/* Holding the lock, nothing else can be loading or running an agent. */
	if ((r = load_and_spawn(s)) < 0 && r != NODE_ERR_LOST) {
		/* best effort: the first error is the one to report; the module
		 * is deleted and its purge started, not waited for */
		node_lock_release(n);
		node_unload_embedded(n, FP_AGENT_MODULE);
	}
	return r;
}

static int load_and_spawn(sampler_t *s)
{
	int r;
	/* A module left by a run that died between loading and starting, or
	 * one still being purged: purging walks every process, minutes on a
	 * crowded node. */
	if ((r = node_clear_stale(s->node, FP_AGENT_MODULE, "agent")) < 0)
		return r;
	if ((r = node_load_embedded(s->node, &agent_module)) < 0 || (r = spawn_agent(s)) < 0)
		return r;
	return await_start(s);
}

/* ---------------------------------------------------------------- running */

int sampler_next(sampler_t *s, int timeout_ms, struct sampler_batch *out)
{
	long long deadline = fp_mono_ms() + timeout_ms;
	struct dec_result res;
	char why[160];
	for (;;) {
		const ei_x_buff *x;
		long long now = fp_mono_ms(), silent_until = node_last_rx_ms(s->node) + s->opts.silence_timeout_ms;
		long long until = deadline < silent_until ? deadline : silent_until;
		/* Silent for long enough: one last look (1 ms) before saying so,
		 * since nobody may have read this node for a while (a run over
		 * several nodes starts the others' agents meanwhile): a message
		 * that has arrived is no silence. */
		if (silent_until <= now)
			until = now + 1;
		int r = node_next(s->node, until, &x);
		if (r < 0)
			return r;
		if (r == 0 && fp_mono_ms() >= silent_until)
			return node_errf(s->node, NODE_ERR_LOST,
					 "'%s' has sent nothing for %d s (frozen, overloaded or cut off)",
					 node_target(s->node), s->opts.silence_timeout_ms / 1000);
		if (r == 0)
			return 0;
		/* a stranger's messages, however many, do not hold up the caller
		 * past its deadline */
		int k = dec_message(&s->tables, x->buff, (size_t)x->index, &res, why, sizeof why);
		if (k == DEC_OTHER && fp_mono_ms() >= deadline)
			return 0;
		if (k == -2)
			return node_errf(s->node, NODE_ERR_NOMEM, "out of memory");
		/* in the agent's words but unreadable: the agent's, or another
		 * process's on the node that sends in its name */
		if (k < 0)
			return node_errf(s->node, NODE_ERR_PROTO, "'%s' sent a message in the agent's protocol that "
				    "cannot be read (%s), from the agent or a process that mimics it; the samples "
				    "taken so far are kept", node_target(s->node), why);
		if (k == DEC_BATCH) {
			*out = res.batch;
			return 1;
		}
		if (k == DEC_STOPPED) {
			s->have_agent = 0;
			return 2;
		}
		if (k == DEC_AGENT_ERROR) {
			s->have_agent = 0;
			return node_errf(s->node, NODE_ERR_AGENT_DOWN,
				    "the agent on '%s' ended unexpectedly (%s); it restored backtrace_depth and removes its module; "
				    "the samples taken so far are kept",
				    node_target(s->node), res.detail);
		}
		/* The coordinator is linked to us: its end by any means, kill
		 * included, is heard at once. When it was killed with the
		 * guardian, nothing of the agent is left to restore the node:
		 * sampler_unload() does. Its normal end follows its last word
		 * (fp_stopped or fp_error), which has been read by then. */
		if (k == DEC_LINK_EXIT && s->have_agent && node_same_pid(&res.exit_from, &s->agent) &&
		    strcmp(res.detail, "normal") != 0) {
			s->have_agent = 0;
			s->agent_died = 1;
			return node_errf(s->node, NODE_ERR_AGENT_DOWN,
				    "the agent on '%s' ended unexpectedly (coordinator ended: %s); backtrace_depth is restored "
				    "and its module removed; the samples taken so far are kept",
				    node_target(s->node), res.detail);
		}
	}
}

int sampler_request_stop(sampler_t *s)
{
	ei_x_buff x;
	if (!s->have_agent)
		return 0;
	if (ei_x_new_with_version(&x) < 0 || ei_x_encode_atom(&x, "stop") < 0) {
		ei_x_free(&x);
		return node_errf(s->node, NODE_ERR_NOMEM, "out of memory");
	}
	int r = node_send(s->node, &s->agent, &x);
	ei_x_free(&x);
	if (r < 0)
		return node_errf(s->node, NODE_ERR_LOST, "cannot ask the agent on '%s' to stop", node_target(s->node));
	return 0;
}

int sampler_unload(sampler_t *s)
{
	/* A coordinator that ended unasked may have taken its guardian with
	 * it (both killed at once), and nothing else of the agent remembers
	 * the depth it found; setting it again where the guardian did is
	 * harmless. */
	if (s->agent_died && s->old_depth >= 0) {
		struct node_args a;
		node_args_begin(&a, 2);
		node_arg_atom(&a, "backtrace_depth");
		a.ok = a.ok && ei_x_encode_ulong(&a.x, (unsigned long)s->old_depth) == 0;
		int r = node_rex_call_do(s->node, "erlang", "system_flag", &a);
		if (r < 0)
			return r;
	}
	/* 300 ms: the agent deletes its module and starts the purge within
	 * milliseconds of saying it ended; past that, none of it is left to. */
	return node_unload_wait_grace(s->node, FP_AGENT_MODULE, 300);
}

void sampler_free(sampler_t *s)
{
	if (!s)
		return;
	dec_free(&s->tables);
	free(s);
}

int sampler_old_depth(const sampler_t *s)
{
	return s ? s->old_depth : -1;
}

unsigned sampler_missing(const sampler_t *s, const char **names)
{
	*names = s->missing;
	return s->nmissing;
}
