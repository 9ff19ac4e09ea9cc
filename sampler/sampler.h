/*
 * sampler.h - everything that talks to the node.
 *
 * Connects to the target as a hidden C-node, loads the in-node agent
 * (sampler/flameprof_agent.erl, embedded at build time), receives its
 * batches and turns them into struct fp_sample records. Every wait has a
 * deadline. Nothing here prints or exits: each entry point returns 0 or a
 * negative enum sampler_err and leaves one plain sentence in
 * sampler_error() (what failed, then what to do). The cookie is never
 * copied into a message, and sampler_connect() wipes ei's copy right
 * after the handshake.
 */
#ifndef FP_SAMPLER_H
#define FP_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include "sample.h"

typedef struct sampler_s sampler_t;

enum sampler_err {
	SAMPLER_OK = 0,
	SAMPLER_ERR_USAGE = -1,   /* the node name is malformed */
	SAMPLER_ERR_CONNECT = -2, /* no epmd, node not running, refused, timed out */
	SAMPLER_ERR_COOKIE = -3,  /* the node rejected our cookie */
	SAMPLER_ERR_AGENT = -4,   /* the agent could not be loaded or started */
	SAMPLER_ERR_BUSY = -5,    /* another flameprof is profiling the node */
	SAMPLER_ERR_LOST = -6,    /* the node went away or fell silent */
	SAMPLER_ERR_PROTO = -7,   /* the node sent something we cannot read */
	SAMPLER_ERR_NOMEM = -8,
	SAMPLER_ERR_AGENT_DOWN = -9, /* the agent ended unasked (crashed or killed) */
	SAMPLER_ERR_LOCAL = -10,  /* this host's lock (/tmp/flameprof-<uid>) cannot be had safely */
};

struct sampler_options {
	const char *node;          /* target, name@host (short or long name) */
	const char *cookie;        /* the cookie text (never printed) */
	const char *alive;         /* our node name before '@'; NULL: flameprof_<user> */
	const char *role;          /* with alive NULL: flameprof_<role>_<user> ("calls"), so a
	                              capture and a tracing command of one user may share a node */
	int connect_timeout_ms;    /* each connect step and each setup request */
	int silence_timeout_ms;    /* no message for this long: the node is lost */
	unsigned top;              /* processes picked by reductions per window */
	double hz;                 /* samples per second per process */
	unsigned every_ms;         /* selection window */
	unsigned depth;            /* backtrace_depth while sampling */
	const char *const *pids;   /* explicit "<0.N.S>" targets */
	size_t npids;
	const char *const *names;  /* explicit registered names */
	size_t nnames;
	int compile_on_target;     /* test switch: skip the embedded .beam */
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
};

struct sampler_batch {
	const struct fp_sample *samples; /* valid until the next sampler call */
	size_t nsamples;
	struct sampler_round round;
	int has_round;             /* 0 for the final batch sent at stop */
};

/* Checks that node is name@host with characters a node name can have.
 * @return 0, or SAMPLER_ERR_USAGE with one sentence in err. */
int sampler_check_node(const char *node, char *err, size_t errlen);

/* Checks a --node-name (our alive part). @return 0, or SAMPLER_ERR_USAGE
 * with one sentence in err. */
int sampler_check_node_name(const char *alive, char *err, size_t errlen);

/* Connects to opts->node (epmd lookup, TCP, handshake). *out is set even on
 * failure so that sampler_error() works; free it with sampler_free(). */
int sampler_connect(sampler_t **out, const struct sampler_options *opts);

/* Takes the node's one flameprof name (SAMPLER_ERR_BUSY if another run
 * holds it; nothing else is touched before), loads the agent (or compiles
 * it on the target if the .beam does not load there), raises
 * backtrace_depth and starts sampling. */
int sampler_start(sampler_t *s);

/* Waits up to timeout_ms for the next batch.
 * @return 1 a batch is in *out, 0 nothing arrived in time, 2 the agent has
 * stopped (after sampler_request_stop), or a negative enum sampler_err
 * (SAMPLER_ERR_AGENT_DOWN: the agent ended unasked and has restored the
 * node; sampler_unload() then checks its module is gone). */
int sampler_next(sampler_t *s, int timeout_ms, struct sampler_batch *out);

/* Asks the agent to stop; keep calling sampler_next() until it returns 2. */
int sampler_request_stop(sampler_t *s);

/* After the agent stopped: makes sure its module is deleted and purged on
 * the node (code:is_loaded/1 false, no old code). @return 0, or
 * SAMPLER_PURGING when the module is deleted and the node is still purging
 * its old code (it finishes by itself), or a negative enum sampler_err. */
#define SAMPLER_PURGING 1
int sampler_unload(sampler_t *s);

void sampler_free(sampler_t *s);

/* Reads a cookie file (path NULL: $HOME/.erlang.cookie) into buf, without
 * the trailing newline. Refused as erl refuses it: a file that is not a
 * regular file (opened without blocking: a FIFO does not hang us), or one
 * that others than its owner may read or write. @return 0, or -1 with one
 * sentence in err. */
int sampler_read_cookie(const char *path, char *buf, size_t cap, char *err, size_t errlen);

const char *sampler_error(const sampler_t *s);
/* The agent's original backtrace_depth (restored on exit), -1 if unknown. */
int sampler_old_depth(const sampler_t *s);
/* After sampler_start(): how many of the --pid and --name targets named no
 * live process when the agent started; *names: them, quoted, comma-joined
 * (cut short past 255 bytes). */
unsigned sampler_missing(const sampler_t *s, const char **names);
/* The target's own name, as its node() says it (e.g. rabbit@vm when it was
 * reached as rabbit@127.0.0.1), once started; before, the name given. */
const char *sampler_node_name(const sampler_t *s);
/* The target's OTP release, e.g. "25", once connected. */
const char *sampler_otp_release(const sampler_t *s);
/* Once connected: *yes tells whether the node runs the `elixir`
 * application (sampler/lang.c). @return 0 or a negative enum sampler_err. */
int sampler_runs_elixir(sampler_t *s, int *yes);

#endif
