/*
 * tracer_session.c - taking the node's one tracing session for calls and
 * requests (see tracer_session.h), the same way as the sampling agent: the
 * lock is registered before any code is touched, so two runs started
 * together cannot purge each other's tracer; then the session's one
 * receive, by the tracer's table of words (tracer_proto.c).
 */
#include <stdlib.h>
#include <string.h>
#include "tracer_session.h"

/* The node's one tracing session, shared by calls and requests (the
 * tracers' fp_trace_common.hrl adopts the same name), and what a second
 * one is told (after the node's name). */
#define TRACER_LOCK "flameprof_tracer"
#define TRACER_BUSY                                                                                      \
	"already has a flameprof tracing session (flameprof calls or requests); wait for it to finish, one " \
	"runs at a time per node"

struct tracer_s {
	node_t *node;                /* the connection, the caller's */
	const struct tracer_kind *kind;
	erlang_pid session;          /* the session process on the node */
	int running;                 /* started and not yet ended */
	int lock_busy;               /* the tracer lost its lock (lock_lost) */
	struct tracer_word word;     /* the last first word read */
	const ei_x_buff *last;       /* the last message read (until the next receive) */
};

/* Makes the handle, reads the node's release, takes the lock and, holding
 * it, removes a stale copy of the module; only then may it be loaded. */
static int begin(tracer_t **out, node_t *n, const struct tracer_kind *k)
{
	int r;
	tracer_t *t = calloc(1, sizeof *t);
	*out = t;
	if (!t)
		return node_errf(n, NODE_ERR_NOMEM, "out of memory");
	t->node = n;
	t->kind = k;
	if ((r = node_release(n)) < 0 || (r = node_lock_take(n, TRACER_LOCK, TRACER_BUSY)) < 0)
		return r;
	if ((r = node_clear_stale(n, k->module->name, "tracer")) < 0 && r != NODE_ERR_LOST)
		node_lock_release(n);
	return r;
}

void tracer_free(tracer_t *t)
{
	free(t);
}

node_t *tracer_node(const tracer_t *t)
{
	return t->node;
}

/* Reads the session's pid from a started message ({Tag, Proto, Session,
 * ...}; -1 if there is none) and marks it running. */
static int started(tracer_t *t, const ei_x_buff *x)
{
	int i = 0, v, n;
	long long proto;
	char tag[MAXATOMLEN_UTF8];
	if (ei_decode_version(x->buff, &i, &v) < 0 || ei_decode_tuple_header(x->buff, &i, &n) < 0 ||
	    ei_decode_atom(x->buff, &i, tag) < 0 || ei_decode_longlong(x->buff, &i, &proto) < 0 ||
	    ei_decode_pid(x->buff, &i, &t->session) < 0)
		return -1;
	t->running = 1;
	return 0;
}

int tracer_send_stop(tracer_t *t)
{
	ei_x_buff x;
	if (!t->running)
		return node_errf(t->node, NODE_ERR_AGENT, "no tracing session on '%s' to stop", node_target(t->node));
	if (ei_x_new_with_version(&x) < 0 || ei_x_encode_atom(&x, "stop") < 0) {
		ei_x_free(&x);
		return node_errf(t->node, NODE_ERR_NOMEM, "out of memory");
	}
	int r = node_send(t->node, &t->session, &x);
	ei_x_free(&x);
	return r < 0 ? node_errf(t->node, NODE_ERR_LOST, "cannot ask the tracer on '%s' to stop", node_target(t->node))
		     : 0;
}

/* The tracer answered: the guardian has the lock now, and kills it after
 * its cleanup. */
static void adopted(tracer_t *t)
{
	node_lock_adopted(t->node);
}

/* Undoes a start that failed with r. */
static void failed(tracer_t *t, int r)
{
	if (r == NODE_ERR_LOST)
		return;
	/* Not adopted: ours to end. Adopted: the guardian ends it, after its
	 * cleanup, and deletes the module; waiting for that here lets a run
	 * right after find the node free. A guardian that found the lock gone
	 * (reason lock_lost) leaves the module to the watchdog: another run may
	 * hold the node by now, and the module be its code. */
	node_lock_release(t->node);
	if (!t->lock_busy)
		node_unload_wait(t->node, t->kind->module->name);
}

int tracer_unload(tracer_t *t)
{
	return node_unload_wait(t->node, t->kind->module->name);
}

static int spawn(tracer_t *t, const struct tracer_kind *k, const void *opts)
{
	struct node_args a;
	erlang_pid pid;
	/* erlang:spawn_opt(M, init, [Map], [{priority, high}]): the guardian
	 * starts at once on a saturated node, not behind its run queue */
	node_args_begin(&a, 4);
	node_arg_atom(&a, k->module->name);
	node_arg_atom(&a, "init");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0 && ei_x_encode_map_header(&a.x, 3 + k->npairs) == 0;
	node_arg_atom(&a, "sink");
	a.ok = a.ok && ei_x_encode_pid(&a.x, node_self(t->node)) == 0;
	node_arg_lock(&a, t->node);
	k->args(&a, opts);
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0 && ei_x_encode_list_header(&a.x, 1) == 0 &&
	       ei_x_encode_tuple_header(&a.x, 2) == 0;
	node_arg_atom(&a, "priority");
	node_arg_atom(&a, "high");
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	int r = node_rex_call_pid(t->node, "erlang", "spawn_opt", &a, &pid);
	if (r == 0)
		r = node_errf(t->node, NODE_ERR_AGENT, "cannot start the tracer on '%s' (spawn failed)", node_target(t->node));
	return r < 0 ? r : 0;
}

static int refused(tracer_t *t, const struct tracer_kind *k, const struct tracer_word *w, const void *opts)
{
	if (strcmp(w->reason, "lock_lost") == 0) {
		/* The lock ends at the first message it gets (node/lock.c), so
		 * a process of the node that sends to every registered name
		 * ends it as surely as its timer on a start too slow: the
		 * sentence names both (tests/e2e/advice_retry.t provokes the
		 * first, and a retry once it stops gets through). */
		t->lock_busy = 1;
		return node_errf(t->node, NODE_ERR_BUSY,
				 "'%s' ended flameprof's tracing lock (the process registered as %s) before the tracer could adopt it: a message to that name ends it, and so does its %d s timer when the start takes longer; try again once nothing on the node sends to that name, or when the node is less busy",
				 node_target(t->node), TRACER_LOCK, NODE_LOCK_TTL_MS / 1000);
	}
	int r = k->refused(t->node, w, opts);
	return r ? r
		 : node_errf(t->node, NODE_ERR_AGENT, "the tracer refused to start on '%s' (%s: %s)", node_target(t->node),
			     w->reason, w->detail);
}

int tracer_recv(tracer_t *t, long long deadline_ms, const char *what, void *msg, int *code)
{
	const struct tracer_proto *p = t->kind->proto;
	const ei_x_buff *x;
	void *scratch = NULL;
	char why[160];
	int r = node_recv(t->node, deadline_ms, &x);
	if (r <= 0)
		return r;
	/* no msg: a body is read and dropped (one before the start) */
	if (!msg && !(msg = scratch = malloc(p->msg_size)))
		return node_errf(t->node, NODE_ERR_NOMEM, "out of memory");
	memset(msg, 0, p->msg_size);
	memset(&t->word, 0, sizeof t->word);
	struct tracer_first f = { &t->word.a, &t->word.b, t->word.reason, t->word.detail, sizeof t->word.reason,
				  sizeof t->word.detail };
	int k = tracer_decode(p, x->buff, (size_t)x->index, &f, msg, why, sizeof why);
	const struct tracer_body *b = k > TRACER_ERROR ? tracer_body_of(p, k) : NULL;
	if (scratch) {
		if (b && b->drop)
			b->drop(scratch);
		free(scratch);
	}
	if (k == -2)
		return node_errf(t->node, NODE_ERR_NOMEM, "out of memory");
	if (k < 0)
		return node_errf(t->node, NODE_ERR_PROTO, "cannot read %s from the tracer on '%s': %s", what,
				 node_target(t->node), why);
	t->last = x;
	if (k == TRACER_ERROR && t->running) {
		t->running = 0;
		return node_errf(t->node, NODE_ERR_LOST, "the tracer session on '%s' died (%s); its guardian removed %s",
				 node_target(t->node), t->word.detail, t->kind->cleaned);
	}
	if (b && b->ends)
		t->running = 0;
	*code = k;
	return 1;
}

/* Waits for the tracer's first word, holding anything else. */
static int await_start(tracer_t *t, const void *opts, unsigned *a, unsigned *b)
{
	long long deadline = fp_mono_ms() + node_timeout_ms(t->node);
	int r, k;
	for (;;) {
		r = tracer_recv(t, deadline, "a message", NULL, &k);
		if (r < 0)
			return r;
		if (r == 0)
			return node_errf(t->node, NODE_ERR_AGENT, "the tracer did not start on '%s' within %d ms",
					 node_target(t->node), node_timeout_ms(t->node));
		if (k == TRACER_STARTED || k == TRACER_ERROR)
			adopted(t);
		if (k == TRACER_STARTED) {
			if (started(t, t->last) < 0)
				return node_errf(t->node, NODE_ERR_PROTO, "the tracer on '%s' sent no session pid",
						 node_target(t->node));
			*a = t->word.a;
			*b = t->word.b;
			return 0;
		}
		if (k == TRACER_ERROR)
			return refused(t, t->kind, &t->word, opts);
	}
}

int tracer_start(tracer_t **out, node_t *n, const struct tracer_kind *k, const void *opts, unsigned *a,
		 unsigned *b)
{
	int r;
	/* Holding the lock, no other session can be loading or running a tracer. */
	if ((r = begin(out, n, k)) < 0)
		return r;
	tracer_t *t = *out;
	if ((r = node_load_embedded(n, k->module)) < 0 || (r = spawn(t, k, opts)) < 0 ||
	    (r = await_start(t, opts, a, b)) < 0) {
		failed(t, r);
		return r;
	}
	return 0;
}
