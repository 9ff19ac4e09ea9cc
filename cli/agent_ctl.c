/*
 * agent_ctl.c - see agent_ctl.h.
 */
#include "agent_ctl.h"
#include "msg.h"
#include "session.h"

void fp_agent_options(const struct fp_config *cfg, const char *cookie, struct sampler_options *so)
{
	*so = (struct sampler_options){
		.node = cfg->node, .cookie = cookie, .alive = cfg->node_name,
		.connect_timeout_ms = (int)(cfg->connect_timeout_us / 1000),
		.silence_timeout_ms = (int)(cfg->silence_timeout_us / 1000),
		.top = cfg->top, .hz = cfg->hz, .every_ms = (unsigned)(cfg->every_us / 1000),
		.depth = cfg->depth, .pids = cfg->pids, .npids = cfg->npids,
		.names = cfg->names, .nnames = cfg->nnames,
		.compile_on_target = cfg->compile_on_target,
		.max_cost_ppm = cfg->max_cost_ppm,
	};
	/* at low rates the silence timeout must cover three agent rounds
	 * (a period is 1000 / hz ms) */
	if (so->silence_timeout_ms < 3000 / cfg->hz)
		so->silence_timeout_ms = (int)(3000 / cfg->hz);
}

int fp_agent_stop(sampler_t *s, const char *node, long long timeout_ms,
		  int (*on_batch)(void *ctx, const struct sampler_batch *b), void *ctx)
{
	struct sampler_batch b;
	int rc = sampler_request_stop(s);
	long long deadline = fp_now_ms() + timeout_ms;
	while (rc == 0 && fp_stop_signals() < 2) {
		long long left = deadline - fp_now_ms();
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
		fp_warn("the agent on '%s' did not confirm its stop; it cleans up by itself once we disconnect", node);
		return -1;
	}
	return fp_agent_unloaded(s, node);
}

int fp_agent_unloaded(sampler_t *s, const char *node)
{
	int u = sampler_unload(s);
	if (u < 0) {
		fp_warn("%s", sampler_error(s));
		return -1;
	}
	if (u == SAMPLER_PURGING)
		fp_note("agent module deleted; '%s' is still purging its old code and finishes by itself", node);
	fp_note("agent stopped, backtrace_depth restored to %d, module unloaded", sampler_old_depth(s));
	return 0;
}
