/*
 * sampler.h - the sampling agent on a connected node (node/node.h).
 *
 * Loads the in-node agent (sampler/flameprof_agent.erl, embedded at build
 * time), receives its batches and turns them into struct fp_sample records
 * (common/sample.h). Every wait has a deadline. Nothing here prints or
 * exits: each entry point returns 0 or a negative enum node_err and leaves
 * one plain sentence in node_error() (what failed, then what to do).
 */
#ifndef FP_SAMPLER_H
#define FP_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include "../common/sample.h"

typedef struct sampler_s sampler_t;
typedef struct node_s node_t; /* node/node.h */

struct sampler_options {
	int silence_timeout_ms;    /* no message for this long: the node is lost */
	unsigned top;              /* processes picked by reductions per window */
	double hz;                 /* samples per second per process */
	unsigned every_ms;         /* selection window */
	unsigned depth;            /* backtrace_depth while sampling */
	const char *const *pids;   /* explicit "<0.N.S>" targets */
	size_t npids;
	const char *const *names;  /* explicit registered names */
	size_t nnames;
	unsigned max_cost_ppm;     /* cost budget, millionths of the schedulers; 0: none */
};

/* What one batch from the agent carries besides its samples. */
struct sampler_round {
	int64_t start_us;          /* target time the round started */
	int64_t duration_us;       /* from asking to the last answer (or deadline) */
	int64_t lateness_us;       /* how late the round started */
	unsigned selected;         /* processes being sampled (top N plus explicit) */
	unsigned asked, answered;  /* processes asked (not still busy) / that answered in time */
	uint64_t late_total;       /* answers that came after their round */
	uint64_t missed_total;     /* rounds skipped because the agent fell behind */
	uint64_t dropped_total;    /* samples the agent dropped (nosuspend) */
	unsigned share_permille;   /* part of the selected asked per round (cost budget) */
	unsigned cost_ppm;         /* what sampling cost the node over the agent's last second, in
	                              millionths of its schedulers (the budget's model); 0 before */
	uint64_t work_reds;        /* since the agent started, the node's reductions other than the
	                              agent's, over the selection scans' windows */
	uint64_t unseen_reds;      /* the part of them done by processes born or dead within a
	                              window: no scan saw them, none was selectable (at most work_reds) */
	unsigned at_once;          /* schedulers that can run at the same time (online, and no more
	                              than the processors the node may use); 0: not said */
	int busy_permille;         /* since the agent started, how many of them were busy on
	                              average, in thousandths; -1: not known (no cost budget) */
};

struct sampler_batch {
	const struct fp_sample *samples; /* valid until the next sampler call */
	size_t nsamples;
	struct sampler_round round;
	int has_round;             /* 0 for the final batch sent at stop */
};

/* On a connected node: takes the node's one flameprof name
 * (NODE_ERR_BUSY if another run holds it; nothing else is touched
 * before), loads the agent (or compiles it on the target if the .beam does
 * not load there), raises backtrace_depth and starts sampling. *out is set
 * even on failure (free it with sampler_free()); errors are a negative
 * enum node_err with the sentence in node_error(n). */
int sampler_start(sampler_t **out, node_t *n, const struct sampler_options *opts);

/* Waits up to timeout_ms for the next batch.
 * @return 1 a batch is in *out, 0 nothing arrived in time, 2 the agent has
 * stopped (after sampler_request_stop), or a negative enum node_err
 * (NODE_ERR_AGENT_DOWN: the agent ended unasked and has restored the
 * node; sampler_unload() then checks its module is gone). */
int sampler_next(sampler_t *s, int timeout_ms, struct sampler_batch *out);

/* Asks the agent to stop; keep calling sampler_next() until it returns 2. */
int sampler_request_stop(sampler_t *s);

/* After the agent stopped: makes sure its module is deleted and purged on
 * the node (code:is_loaded/1 false, no old code). @return 0, or
 * NODE_PURGING when the module is deleted and the node is still purging
 * its old code (it finishes by itself), or a negative enum node_err. */
int sampler_unload(sampler_t *s);

/* Frees the sampler (not its node). */
void sampler_free(sampler_t *s);

/* The agent's original backtrace_depth (restored on exit), -1 if unknown. */
int sampler_old_depth(const sampler_t *s);
/* After sampler_start(): how many of the --pid and --name targets named no
 * live process when the agent started; *names: them, quoted, comma-joined
 * (cut short past 255 bytes). */
unsigned sampler_missing(const sampler_t *s, const char **names);

#endif
