/*
 * agent_ctl.c - see agent_ctl.h.
 */
#include "agent_ctl.h"
#include "msg.h"
#include "session.h"

void fp_agent_node(const struct fp_config *cfg, struct fp_node_cmd *nc)
{
	*nc = (struct fp_node_cmd){
		.node = cfg->node, .node_name = cfg->node_name, .cookie = cfg->cookie,
		.cookie_file = cfg->cookie_file, .connect_timeout_us = cfg->connect_timeout_us,
		.compile_on_target = cfg->compile_on_target,
	};
}

void fp_agent_options(const struct fp_config *cfg, struct sampler_options *so)
{
	*so = (struct sampler_options){
		.silence_timeout_ms = (int)(cfg->silence_timeout_us / 1000),
		.top = cfg->top, .hz = cfg->hz, .every_ms = (unsigned)(cfg->every_us / 1000),
		.depth = cfg->depth, .pids = cfg->pids, .npids = cfg->npids,
		.names = cfg->names, .nnames = cfg->nnames,
		.max_cost_ppm = cfg->max_cost_ppm,
	};
	/* at low rates the silence timeout must cover three agent rounds
	 * (a period is 1000 / hz ms) */
	if (so->silence_timeout_ms < 3000 / cfg->hz)
		so->silence_timeout_ms = (int)(3000 / cfg->hz);
}

int fp_agent_stop(sampler_t *s, struct fp_node_cmd *nc, long long timeout_ms,
		  int (*on_batch)(void *ctx, const struct sampler_batch *b), void *ctx)
{
	struct sampler_batch b;
	int rc = sampler_request_stop(s);
	long long deadline = fp_mono_ms() + timeout_ms;
	while (rc == 0 && fp_stop_signals() < 2) {
		long long left = deadline - fp_mono_ms();
		if (left <= 0)
			break;
		rc = sampler_next(s, left > 200 ? 200 : (int)left, &b);
		if (rc == 1) {
			if (on_batch && on_batch(ctx, &b) < 0)
				on_batch = NULL;
			rc = 0;
		} else if (rc == 2) {
			break;
		}
	}
	if (rc != 2) {
		fp_warn("the agent on '%s' did not confirm its stop; it cleans up by itself once we disconnect", nc->node);
		return -1;
	}
	return fp_agent_unloaded(s, nc);
}

int fp_agent_unloaded(sampler_t *s, struct fp_node_cmd *nc)
{
	int u = sampler_unload(s);
	fp_node_say_unload(nc, u, "agent", NULL);
	if (u < 0)
		return -1;
	fp_note("agent stopped on '%s', backtrace_depth restored to %d, module unloaded", nc->node, sampler_old_depth(s));
	return 0;
}
