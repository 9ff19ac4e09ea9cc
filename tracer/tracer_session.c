/*
 * tracer_session.c - taking the node's one tracing session for calls and
 * requests (see tracer_session.h), the same way as the sampling agent: the
 * lock is registered before any code is touched, so two runs started
 * together cannot purge each other's tracer.
 */
#include <stdlib.h>
#include <string.h>
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
	tracer_arg_lock(&a, t);
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
		t->lock_busy = 1;
		return node_errf(t->node, NODE_ERR_BUSY,
				 "'%s' took longer to start the tracer than its lock lasts (%s); try again when the node is less busy",
				 node_target(t->node), w->detail);
	}
	int r = k->refused(t, w, opts);
	return r ? r
		 : node_errf(t->node, NODE_ERR_AGENT, "the tracer refused to start on '%s' (%s: %s)", node_target(t->node),
			     w->reason, w->detail);
}

/* Waits for the tracer's first word, holding anything else. */
static int await_start(tracer_t *t, const struct tracer_kind *k, const void *opts, unsigned *a, unsigned *b)
{
	long long deadline = fp_mono_ms() + node_timeout_ms(t->node);
	const ei_x_buff *x;
	struct tracer_word *w = malloc(sizeof *w);
	char why[160];
	int r;
	if (!w)
		return node_errf(t->node, NODE_ERR_NOMEM, "out of memory");
	for (;;) {
		r = node_recv(t->node, deadline, &x);
		if (r < 0)
			break;
		if (r == 0) {
			r = node_errf(t->node, NODE_ERR_AGENT, "the tracer did not start on '%s' within %d ms",
				      node_target(t->node), node_timeout_ms(t->node));
			break;
		}
		int m = k->decode(x, w, why, sizeof why);
		if (m == -2 || m == -1) {
			r = m == -2 ? node_errf(t->node, NODE_ERR_NOMEM, "out of memory")
				    : node_errf(t->node, NODE_ERR_PROTO, "cannot read a message from the tracer on '%s': %s",
						node_target(t->node), why);
			break;
		}
		if (m == TRACER_STARTED || m == TRACER_REFUSED)
			tracer_adopted(t);
		if (m == TRACER_STARTED) {
			if (tracer_started(t, x) < 0) {
				r = node_errf(t->node, NODE_ERR_PROTO, "the tracer on '%s' sent no session pid",
					      node_target(t->node));
				break;
			}
			*a = w->a;
			*b = w->b;
			r = 0;
			break;
		}
		if (m == TRACER_REFUSED) {
			r = refused(t, k, w, opts);
			break;
		}
	}
	free(w);
	return r;
}

int tracer_start(tracer_t **out, node_t *n, const struct tracer_kind *k, const void *opts, unsigned *a,
		 unsigned *b)
{
	int r;
	/* Holding the lock, no other session can be loading or running a tracer. */
	if ((r = tracer_begin(out, n, k->module->name)) < 0)
		return r;
	tracer_t *t = *out;
	if ((r = node_load_embedded(n, k->module)) < 0 || (r = spawn(t, k, opts)) < 0 ||
	    (r = await_start(t, k, opts, a, b)) < 0) {
		tracer_failed(t, r);
		return r;
	}
	return 0;
}
