/*
 * cap_agent.c - see cap_agent.h.
 */
#include "cap_agent.h"
#include "cap_internal.h"
#include "../common/clock.h"
#include "../node/node.h"

void cap_agent_options(const struct cap_config *cfg, struct sampler_options *so)
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

int cap_agent_stop(sampler_t *s, node_t *n, const char *node, long long timeout_ms,
		   int (*on_batch)(void *ctx, const struct sampler_batch *b), void *ctx,
		   const struct cap_door *door)
{
	struct sampler_batch b;
	int rc = sampler_request_stop(s);
	long long deadline = fp_mono_ms() + timeout_ms;
	while (rc == 0 && door->stops(door->arg) < 2) {
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
		cap_say(door, CAP_SAY_WARN, "the agent on '%s' did not confirm its stop; it cleans up by itself once we disconnect",
			node);
		return -1;
	}
	return cap_agent_unloaded(s, n, node, door);
}

int cap_agent_unloaded(sampler_t *s, node_t *n, const char *node, const struct cap_door *door)
{
	int u = sampler_unload(s);
	if (u < 0) {
		cap_say(door, CAP_SAY_WARN, "%s", node_error(n));
		return -1;
	}
	if (u == NODE_PURGING)
		cap_say(door, CAP_SAY_NOTE, "agent module deleted; '%s' is still purging its old code and finishes by itself",
			node);
	cap_say(door, CAP_SAY_NOTE, "agent stopped on '%s', backtrace_depth restored to %d, module unloaded", node,
		sampler_old_depth(s));
	return 0;
}
