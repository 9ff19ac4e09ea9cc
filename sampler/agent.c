/*
 * agent.c - starting the agent, receiving its batches, stopping it and
 * making sure its module is gone from the node afterwards.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"

/* ---------------------------------------------------------------- starting */

static int spawn_agent(sampler_t *s)
{
	struct args a;
	int r;

	args_begin(&a, 4);
	arg_atom(&a, FP_AGENT_MODULE);
	arg_atom(&a, "init");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0 && ei_x_encode_map_header(&a.x, 10) == 0;
	arg_atom(&a, "sink");
	a.ok = a.ok && ei_x_encode_pid(&a.x, ei_self(&s->ec)) == 0;
	arg_atom(&a, "top");
	a.ok = a.ok && ei_x_encode_ulong(&a.x, s->opts.top) == 0;
	arg_atom(&a, "hz");
	a.ok = a.ok && ei_x_encode_double(&a.x, s->opts.hz) == 0;
	arg_atom(&a, "every_ms");
	a.ok = a.ok && ei_x_encode_ulong(&a.x, s->opts.every_ms) == 0;
	arg_atom(&a, "depth");
	a.ok = a.ok && ei_x_encode_ulong(&a.x, s->opts.depth) == 0;
	arg_atom(&a, "max_cost_ppm");
	a.ok = a.ok && ei_x_encode_ulong(&a.x, s->opts.max_cost_ppm) == 0;
	arg_atom(&a, "pids");
	arg_binaries(&a, s->opts.pids, s->opts.npids);
	arg_atom(&a, "names");
	arg_names(&a, s->opts.names, s->opts.nnames);
	arg_atom(&a, "lock");
	a.ok = a.ok && ei_x_encode_pid(&a.x, &s->lock) == 0;
	arg_atom(&a, "lock_timer");
	arg_raw(&a, s->lock_timer.buff, s->lock_timer.index);
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	/* spawn_opt options: [{priority, high}] (why high: the agent's ?PRIO) */
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0 && ei_x_encode_tuple_header(&a.x, 2) == 0;
	arg_atom(&a, "priority");
	arg_atom(&a, "high");
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	r = rex_call_pid(s, "erlang", "spawn_opt", &a, &s->agent);
	if (r == 0)
		r = serr(s, SAMPLER_ERR_AGENT, "cannot start the agent on '%s' (spawn_opt failed)", s->node);
	return r < 0 ? r : 0;
}

/* Waits for fp_started (or fp_error), holding any early batch. */
static int await_start(sampler_t *s)
{
	long long deadline = mono_ms() + s->opts.connect_timeout_ms;
	erlang_msg msg;
	struct dec_result res;
	char why[128];
	for (;;) {
		int r = recv_one(s, &s->rx, &msg, deadline);
		if (r < 0)
			return r;
		if (r == 0)
			return serr(s, SAMPLER_ERR_AGENT, "the agent did not start on '%s' within %d ms",
				    s->node, s->opts.connect_timeout_ms);
		int k = dec_message(&s->tables, s->rx.buff, (size_t)s->rx.index, &res, why, sizeof why);
		if (k == DEC_STARTED) {
			s->old_depth = res.old_depth;
			memcpy(s->missing, res.missing, sizeof s->missing);
			s->nmissing = res.nmissing;
			s->have_agent = 1;
			s->have_lock = 0; /* the agent has it now */
			return 0;
		}
		if (k == DEC_AGENT_ERROR)
			return serr(s, SAMPLER_ERR_AGENT, "the agent could not start on '%s' (%s: %s)",
				    s->node, res.reason, res.detail);
	}
}

static int load_and_spawn(sampler_t *s);

int sampler_start(sampler_t *s)
{
	int r;
	if ((r = node_release(s)) < 0 || (r = lock_take(s, AGENT_LOCK)) < 0)
		return r;
	/* Holding the lock, nothing else can be loading or running an agent. */
	if ((r = load_and_spawn(s)) < 0 && r != SAMPLER_ERR_LOST) {
		/* best effort: the first error is the one to report */
		lock_release(s);
		unload_module(s);
	}
	return r;
}

static int load_and_spawn(sampler_t *s)
{
	int r;
	/* A module left by a run that died between loading and starting, or
	 * one still being purged: purging walks every process, minutes on a
	 * crowded node. */
	if ((r = clear_stale(s, FP_AGENT_MODULE, "agent")) < 0)
		return r;
	if ((r = load_agent(s)) < 0 || (r = spawn_agent(s)) < 0)
		return r;
	return await_start(s);
}

/* ---------------------------------------------------------------- running */

int sampler_next(sampler_t *s, int timeout_ms, struct sampler_batch *out)
{
	long long deadline = mono_ms() + timeout_ms;
	struct dec_result res;
	erlang_msg msg;
	char why[160];
	for (;;) {
		const ei_x_buff *x = &s->rx;
		struct held_msg *h = held_pop(s);
		if (h) {
			x = &h->x;
		} else {
			long long silent_until = s->last_rx_ms + s->opts.silence_timeout_ms;
			int r = recv_one(s, &s->rx, &msg, deadline < silent_until ? deadline : silent_until);
			if (r < 0)
				return r;
			if (r == 0 && mono_ms() >= silent_until)
				return serr(s, SAMPLER_ERR_LOST,
					    "'%s' has sent nothing for %d s (frozen, overloaded or cut off)",
					    s->node, s->opts.silence_timeout_ms / 1000);
			if (r == 0)
				return 0;
		}
		int k = dec_message(&s->tables, x->buff, (size_t)x->index, &res, why, sizeof why);
		if (h) {
			ei_x_free(&h->x);
			free(h);
		}
		if (k == -2)
			return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
		if (k < 0)
			return serr(s, SAMPLER_ERR_PROTO, "cannot read a message from the agent on '%s': %s",
				    s->node, why);
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
			return serr(s, SAMPLER_ERR_AGENT_DOWN,
				    "the agent on '%s' ended unexpectedly (%s); it restored backtrace_depth and removes its module; "
				    "the samples taken so far are kept",
				    s->node, res.detail);
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
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	}
	int r = ei_send_tmo(s->fd, &s->agent, x.buff, x.index, (unsigned)s->opts.connect_timeout_ms);
	ei_x_free(&x);
	if (r < 0)
		return serr(s, SAMPLER_ERR_LOST, "cannot ask the agent on '%s' to stop", s->node);
	return 0;
}

int sampler_unload(sampler_t *s)
{
	return unload_wait(s, FP_AGENT_MODULE);
}

int unload_wait(sampler_t *s, const char *name)
{
	long long deadline = mono_ms() + s->opts.connect_timeout_ms;
	int loaded, old, r, deleted = 0;
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	for (;;) {
		if ((r = rex_call_atom_is(s, "erlang", "module_loaded", name, "true", &loaded)) < 0 ||
		    (r = rex_call_atom_is(s, "erlang", "check_old_code", name, "true", &old)) < 0)
			return r;
		if (!loaded && !old)
			return 0;
		if (mono_ms() >= deadline)
			break;
		/* Deleted: give the node's purge a second, not the whole timeout. */
		if (!loaded && deadline > mono_ms() + 1000)
			deadline = mono_ms() + 1000;
		/* The agent deletes its module itself; if it could not, we do. */
		if (loaded && !deleted && mono_ms() + s->opts.connect_timeout_ms / 2 >= deadline) {
			if ((r = rex_call_atom_is(s, "code", "delete", name, "true", &deleted)) < 0)
				return r;
			deleted = 1;
		}
		nanosleep(&pause, NULL);
	}
	if (!loaded)
		/* Purging walks every process of the node (slow with 100,000 of
		 * them); the purge the agent started goes on by itself. */
		return SAMPLER_PURGING;
	return serr(s, SAMPLER_ERR_AGENT,
		    "module '%s' is still loaded on '%s'; remove it with code:purge(%s), code:delete(%s)",
		    name, s->node, name, name);
}
