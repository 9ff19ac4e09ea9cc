/*
 * agent_ctl.h - the sampling agent's life as every command that samples
 * sees it (the capture, cli/run.c, and `flameprof top`, cli/top.c): the
 * sampler's options from the capture's settings, and the bounded stop
 * that leaves the node as it was found.
 */
#ifndef FP_AGENT_CTL_H
#define FP_AGENT_CTL_H

#include "options.h"
#include "session.h"
#include "../sampler/sampler.h"

/* The sampler's options for cfg's settings (the
 * silence timeout raised to three rounds at low rates). */
void fp_agent_options(const struct fp_config *cfg, struct sampler_options *so);
/* The node part of cfg (NODE, --node-name, the cookie options,
 * --connect-timeout, the test switch) for the frame (session.h). */
void fp_agent_node(const struct fp_config *cfg, struct fp_node_cmd *nc);

/* Asks the agent to stop and waits, at most timeout_ms (a second stop
 * signal cuts it short), for its goodbye; each last batch goes to
 * on_batch (NULL: dropped; a return below 0 stops further calls). Then
 * checks that its module is gone (fp_agent_unloaded). Says what it could
 * not confirm as a warning. @return 0, or -1 once said. */
int fp_agent_stop(sampler_t *s, struct fp_node_cmd *nc, long long timeout_ms,
		  int (*on_batch)(void *ctx, const struct sampler_batch *b), void *ctx);

/* The agent has ended: checks (bounded) that its module is gone, and says
 * so in a note. @return 0, or -1 after a warning. */
int fp_agent_unloaded(sampler_t *s, struct fp_node_cmd *nc);

#endif
