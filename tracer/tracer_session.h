/*
 * tracer_session.h - what `flameprof calls` and `flameprof requests` share
 * in running their in-node tracer: one tracing session per node, held by
 * the lock named NODE_TRACER_LOCK (node/lock.c), which the tracer's
 * guardian adopts.
 *
 * tracer_begin() makes the handle, reads the node's release, takes the
 * lock (NODE_ERR_BUSY when another session holds it) and, holding it,
 * removes a stale copy of the module; only then may the caller load it.
 * tracer_arg_lock() adds the map pairs lock and lock_timer that the
 * guardian needs to adopt it. tracer_adopted() marks it adopted (the
 * tracer answered). tracer_failed() undoes a start that failed with r.
 * tracer_started() reads the session's pid from a started message
 * ({Tag, Proto, Session, ...}; -1 if there is none) and marks it running;
 * tracer_send_stop() asks the running session to stop (its answer is the
 * caller's to read).
 */
#ifndef FLAMEPROF_TRACER_SESSION_H
#define FLAMEPROF_TRACER_SESSION_H
#include "../common/clock.h"
#include "../node/node.h"
#include "tracer.h"

struct tracer_s {
	node_t *node;                /* the connection, the caller's */
	const char *module;          /* the tracer's versioned module name */
	erlang_pid session;          /* the session process on the node */
	int running;                 /* started and not yet ended */
	int lock_busy;               /* the tracer lost its lock (lock_lost) */
};

/* A tracer's first word, as its own decoder read it. */
enum { TRACER_OTHER, TRACER_STARTED, TRACER_REFUSED };
struct tracer_word {
	unsigned a, b;               /* TRACER_STARTED: what it traces (two counts) */
	char reason[32];             /* TRACER_REFUSED: why, an atom ... */
	char detail[512];            /* ... and its detail */
};
/* What differs between the tracers in starting one. */
struct tracer_kind {
	const struct node_module *module;
	/* Adds the tracer's own map pairs to its init map (npairs of them). */
	void (*args)(struct node_args *a, const void *opts);
	int npairs;
	/* Reads one message into *w: @return TRACER_*, or -1 malformed (why
	 * says how), -2 out of memory. Frees whatever else it decoded. */
	int (*decode)(const ei_x_buff *x, struct tracer_word *w, char *why, size_t cap);
	/* The sentence for a refusal of its own, or 0 when reason is none of them. */
	int (*refused)(tracer_t *t, const struct tracer_word *w, const void *opts);
};
/* Starts a tracer: begins (the lock, a stale copy cleared), loads its
 * module, spawns its guardian with {sink, lock, lock_timer} and the
 * kind's pairs, and waits for its first word. *out is set even on
 * failure (free with tracer_free()). @return 0 with *a, *b the started
 * message's counts, or a negative enum node_err (the start undone). */
int tracer_start(tracer_t **out, node_t *n, const struct tracer_kind *k, const void *opts, unsigned *a,
		 unsigned *b);
int tracer_begin(tracer_t **out, node_t *n, const char *module);
void tracer_arg_lock(struct node_args *a, tracer_t *t);
int tracer_started(tracer_t *t, const ei_x_buff *x);
int tracer_send_stop(tracer_t *t);
void tracer_adopted(tracer_t *t);
void tracer_failed(tracer_t *t, int r);
/* After stop: the tracer's module is deleted and purged on the node.
 * @return as node_unload_wait(). */
int tracer_unload(tracer_t *t);

#endif
