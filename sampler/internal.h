/*
 * internal.h - the sampling agent's state, shared by the files of sampler/ only.
 */
#ifndef FP_SAMPLER_INTERNAL_H
#define FP_SAMPLER_INTERNAL_H

#include "../common/clock.h"
#include "../node/node.h"
#include "decode.h"
#include "sampler.h"

struct sampler_s {
	node_t *node;                /* the connection, the caller's */
	struct sampler_options opts;
	erlang_pid agent;
	int have_agent;              /* agent started and not yet stopped */
	int agent_died;              /* its coordinator ended unasked (a link exit) */
	int old_depth;
	char missing[256];           /* the agent's start: explicit targets not found */
	unsigned nmissing;
	struct dec_tables tables;
};

#endif
