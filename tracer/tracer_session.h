/*
 * tracer_session.h - what `flameprof calls` and `flameprof requests` share
 * in running their in-node tracer: one tracing session per node, held by
 * the node's lock named flameprof_tracer (node/lock.c takes it for us),
 * which the tracer's guardian adopts; and the one receive of a tracer's
 * messages, read by its table of words (tracer_proto.h).
 *
 * The handle is opaque: tracer_start() makes it, tracer_recv() reads the
 * session's messages (and knows when they end it), tracer_send_stop()
 * asks it to stop, tracer_unload() waits for its module to go, and
 * tracer_free() (tracer.h) frees it.
 */
#ifndef FLAMEPROF_TRACER_SESSION_H
#define FLAMEPROF_TRACER_SESSION_H
#include "../common/clock.h"
#include "../node/node.h"
#include "tracer.h"
#include "tracer_proto.h"

/* A tracer's first word, as tracer/ read it. */
struct tracer_word {
	unsigned a, b;               /* started: what it traces (two counts) */
	char reason[32];             /* error: why, an atom ... */
	char detail[512];            /* ... and its detail */
};
/* What differs between the tracers in starting one and reading it. */
struct tracer_kind {
	const struct node_module *module;
	/* Adds the tracer's own map pairs to its init map (npairs of them). */
	void (*args)(struct node_args *a, const void *opts);
	int npairs;
	/* Its words: the first two, then its own bodies. */
	const struct tracer_proto *proto;
	/* The sentence for a refusal of its own, or 0 when reason is none of them. */
	int (*refused)(node_t *n, const struct tracer_word *w, const void *opts);
	/* What its guardian removed when the session died, for that sentence. */
	const char *cleaned;
};

/* Starts a tracer: takes the node's tracing lock (NODE_ERR_BUSY when
 * another session holds it), clears a stale copy of its module, loads it,
 * spawns its guardian with {sink, lock, lock_timer} and the kind's pairs,
 * and waits for its first word. *out is set even on failure (free with
 * tracer_free()). @return 0 with *a, *b the started message's counts, or
 * a negative enum node_err (the start undone; a refusal said). */
int tracer_start(tracer_t **out, node_t *n, const struct tracer_kind *k, const void *opts, unsigned *a,
		 unsigned *b);
/* Receives the session's next message before deadline_ms, its body (if
 * any) read into msg (the kind's message struct, zeroed first; the
 * caller owns what a body read). A message that ends the session (its
 * proto's ends) marks it ended; its error word after the start is the
 * session's death, said with the kind's cleaned (NODE_ERR_LOST). A
 * malformed message is NODE_ERR_PROTO, "cannot read <what> from the
 * tracer on ...". @return 1 with *code the message's (TRACER_* or a
 * body's msg), 0 timeout, or a negative enum node_err. */
int tracer_recv(tracer_t *t, long long deadline_ms, const char *what, void *msg, int *code);
/* The node the session runs on, for the caller's own sentences. */
node_t *tracer_node(const tracer_t *t);
/* Asks the running session to stop (its answer is tracer_recv()'s). */
int tracer_send_stop(tracer_t *t);
/* After stop: the tracer's module is deleted and purged on the node.
 * @return as node_unload_wait(). */
int tracer_unload(tracer_t *t);

#endif
