/*
 * tracer_session.c - taking the node's one tracing session for calls and
 * requests (see tracer_session.h), the same way as the sampling agent: the
 * lock is registered before any code is touched, so two runs started
 * together cannot purge each other's tracer.
 */
#include <stdlib.h>
#include "tracer_session.h"

int tracer_begin(tracer_t **out, node_t *n, const char *module)
{
	int r;
	tracer_t *t = calloc(1, sizeof *t);
	*out = t;
	if (!t)
		return node_errf(n, NODE_ERR_NOMEM, "out of memory");
	t->node = n;
	t->module = module;
	if ((r = node_release(n)) < 0 || (r = node_lock_take(n, NODE_TRACER_LOCK)) < 0)
		return r;
	if ((r = node_clear_stale(n, module, "tracer")) < 0 && r != NODE_ERR_LOST)
		node_lock_release(n);
	return r;
}

void tracer_free(tracer_t *t)
{
	free(t);
}

void tracer_arg_lock(struct node_args *a, tracer_t *t)
{
	node_arg_lock(a, t->node);
}

int tracer_started(tracer_t *t, const ei_x_buff *x)
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

void tracer_adopted(tracer_t *t)
{
	node_lock_adopted(t->node); /* the guardian has it now, and kills it after its cleanup */
}

void tracer_failed(tracer_t *t, int r)
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
		node_unload_wait(t->node, t->module);
}

int tracer_unload(tracer_t *t)
{
	return node_unload_wait(t->node, t->module);
}
