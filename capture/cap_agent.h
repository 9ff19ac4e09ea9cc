/*
 * cap_agent.h - the sampling agent's life as every command that samples
 * sees it (the capture, capture.c, and `flameprof top`, cli/top.c): the
 * sampler's options from the capture's settings, and the bounded stop
 * that leaves the node as it was found. What it cannot confirm it says
 * through the door's voice (capture.h).
 */
#ifndef CAP_AGENT_H
#define CAP_AGENT_H

#include "cap_config.h"
#include "cap_door.h"
#include "../sampler/sampler.h"

typedef struct node_s node_t; /* node/node.h */

/* The sampler's options for cfg's settings (the silence timeout raised to
 * three rounds at low rates). */
void cap_agent_options(const struct cap_config *cfg, struct sampler_options *so);

/* Asks the agent on n (named node) to stop and waits, at most timeout_ms
 * (a second stop signal, door->stops, cuts it short), for its goodbye;
 * each last batch goes to on_batch (NULL: dropped; a return below 0 stops
 * further calls). Then checks that its module is gone
 * (cap_agent_unloaded). Says what it could not confirm as a warning.
 * @return 0, or -1 once said. */
int cap_agent_stop(sampler_t *s, node_t *n, const char *node, long long timeout_ms,
		   int (*on_batch)(void *ctx, const struct sampler_batch *b), void *ctx,
		   const struct cap_door *door);

/* The agent has ended: checks (bounded) that its module is gone, and says
 * so in a note. @return 0, or -1 after a warning. */
int cap_agent_unloaded(sampler_t *s, node_t *n, const char *node, const struct cap_door *door);

#endif
