/*
 * requests.h - where each kind of request spends its time, tier by tier,
 * across processes (`flameprof requests`), through the node's tracer
 * (requests/flameprof_requests.erl).
 *
 * On a connected node_t (node/node.h): req_start() loads the tracer,
 * which takes the node's one tracing session (the lock `flameprof calls`
 * takes too) and sets the entry and tier patterns; req_next()
 * returns each window's histograms and slow requests;
 * req_stop() ends the session (the last window comes first)
 * and the tracer removes everything it set. If we die or the connection
 * drops, the tracer cleans up by itself. Nothing here prints; errors are a
 * negative enum node_err with one sentence in node_error().
 */
#ifndef FP_REQUESTS_H
#define FP_REQUESTS_H

#include <stddef.h>
#include <stdint.h>
#include "../common/mfa_pattern.h"
#include "../tracer/tracer.h"

typedef struct node_s node_t; /* node/node.h */

enum req_identity { REQ_ID_NONE, REQ_ID_ARG, REQ_ID_FUN };

struct requests_options {
	struct fp_mfa_pattern entry;    /* each call starts a request */
	const struct fp_tier_pattern *tiers;
	size_t ntiers;
	const struct fp_mfa_pattern *full; /* --full: each function a tier of its own */
	size_t nfull;
	unsigned limit;                /* refuse more tier functions than this */
	enum req_identity identity;    /* NONE: the entry function's name */
	unsigned identity_arg;         /* REQ_ID_ARG: 1-based */
	const char *identity_fun;      /* REQ_ID_FUN: Erlang source of a fun/1 */
	unsigned every_ms;             /* window */
	uint64_t slow_us;              /* 0: no slow requests kept */
	unsigned sample_permille;      /* 1..1000 */
	unsigned max_late_ms;          /* circuit breaker: trace message lateness */
	unsigned max_queue;            /* ... and the tracer's queue */
};

/* One (identity, tier) histogram of a window, as the node sent it. */
struct req_bucket {
	unsigned index;
	uint64_t n;
};
struct req_row {
	char *identity, *tier;         /* tier "_total": the whole request */
	uint64_t count, sum_us, max_us;
	struct req_bucket *buckets;
	size_t nbuckets;
};
struct req_tier_time {
	char *tier;
	uint64_t us;
};
/* A tier's outermost calls that returned outside any request: after
 * their request had ended (a cast, a reply sent before the work), or
 * under a token no request of this run set. */
struct req_tier_out {
	char *tier;
	uint64_t after_end, no_request;
};
struct req_slow {
	char *identity;
	uint64_t total_us;
	struct req_tier_time *tiers;
	size_t ntiers;
	char **pids;
	size_t npids;
};
struct req_window {
	int64_t end_us;                /* system time on the node */
	struct req_row *rows;
	size_t nrows;
	struct req_slow *slow;
	size_t nslow;
	uint64_t requests;             /* requests finished in the window */
	uint64_t stray;                /* tier returns outside any request */
	uint64_t pauses;               /* circuit breaker trips so far */
	int paused;                    /* paused at the window's end */
	uint64_t slow_left_out;        /* slow requests past the per-window bound */
	uint64_t dropped;              /* requests in flight dropped by a pause */
	char **reloaded;               /* modules loaded again (patterns re-applied) */
	size_t nreloaded;
	uint64_t id_fun_failed;        /* requests whose --identity-fun crashed or timed out */
	uint64_t paused_us;            /* time the circuit breaker held tracing off */
	uint64_t untraced;             /* entry calls while paused, not traced */
	/* Every entry call: the node's count (call_count) and where each one
	 * the tracer heard of ended (requests, dropped above, or one of these) */
	uint64_t calls;                /* entry calls the node made in the window */
	uint64_t entry_msgs;           /* entry call trace messages received */
	uint64_t nested;               /* entry calls inside a request of the same process */
	uint64_t queued;               /* dropped unread at a trip, or arriving while paused */
	uint64_t in_flight;            /* requests still running at the end (last window) */
	struct req_tier_out *tier_out; /* tier calls outside any request, by tier */
	size_t ntier_out;
	uint64_t overlap;              /* entry calls heard of that untraced counted too
					* (at a pause's switches): untraced - overlap were
					* not traced */
};

/* NODE_ERR_BUSY: another tracing session of flameprof holds the node.
 * NODE_ERR_USAGE: a pattern matches nothing, a function is traced by
 * someone else, the identity fun does not compile. @return 0 and the
 * number of entry and tier functions traced. *out is set even on failure:
 * free it with req_free(). */
int req_start(tracer_t **out, node_t *n, const struct requests_options *o, unsigned *nentry,
			   unsigned *ntier);

/* Waits up to timeout_ms. @return 1 a window is in *w (free it with
 * req_window_free()), 0 nothing yet, 2 the session has stopped (after
 * req_stop(); *tokens says how its seq_trace tokens were
 * cleared), or a negative enum node_err. */
struct req_tokens {
	uint64_t cleared;              /* processes that carried one at the end */
	uint64_t left;                 /* still carrying one when the tracer gave up */
};
int req_next(tracer_t *s, int timeout_ms, struct req_window *w, struct req_tokens *tokens);

/* Asks the session to stop; keep calling req_next() until 2. */
int req_stop(tracer_t *s);

/* After stop: the tracer's module is deleted and purged on the node. */
int req_unload(tracer_t *s);

/* The session's handle gone (NULL is fine): the front door frees it here,
 * not through tracer/, which it does not reach. */
void req_free(tracer_t *s);

void req_window_free(struct req_window *w);

/* Decodes one message of the tracer (buf starts with the version byte).
 * @return REQ_MSG_* or -1 (malformed, err says why), -2 out of memory. */
enum { REQ_MSG_OTHER, REQ_MSG_STARTED, REQ_MSG_ERROR, REQ_MSG_WINDOW, REQ_MSG_STOPPED };
struct req_msg {
	unsigned nentry, ntier;
	char reason[32];
	char detail[512];
	struct req_window window;
	uint64_t tokens_cleared, tokens_left;   /* REQ_MSG_STOPPED */
};
int req_decode(const char *buf, size_t len, struct req_msg *out, char *err, size_t errlen);
/* The same words as tracer/'s table (requests_decode.c), for requests.c. */
struct tracer_proto;
extern const struct tracer_proto req_proto;

#endif
