/*
 * tracer_session.c - taking the node's one tracing session for calls and
 * requests (see tracer_session.h), the same way as the sampling agent: the
 * lock is registered before any code is touched, so two runs started
 * together cannot purge each other's tracer.
 */
#include "tracer_session.h"

int tracer_begin(sampler_t *s, const char *module)
{
	int r;
	if ((r = node_release(s)) < 0 || (r = lock_take(s, TRACER_LOCK)) < 0)
		return r;
	if ((r = clear_stale(s, module, "tracer")) < 0 && r != SAMPLER_ERR_LOST)
		lock_release(s);
	return r;
}

void tracer_arg_lock(struct args *a, sampler_t *s)
{
	arg_atom(a, "lock");
	a->ok = a->ok && ei_x_encode_pid(&a->x, &s->lock) == 0;
	arg_atom(a, "lock_timer");
	arg_raw(a, s->lock_timer.buff, s->lock_timer.index);
}

int tracer_session_pid(const ei_x_buff *x, erlang_pid *pid)
{
	int i = 0, v, n;
	long long proto;
	char tag[MAXATOMLEN_UTF8];
	return ei_decode_version(x->buff, &i, &v) < 0 || ei_decode_tuple_header(x->buff, &i, &n) < 0 ||
	       ei_decode_atom(x->buff, &i, tag) < 0 || ei_decode_longlong(x->buff, &i, &proto) < 0 ||
	       ei_decode_pid(x->buff, &i, pid) < 0 ? -1 : 0;
}

int tracer_send_stop(sampler_t *s)
{
	ei_x_buff x;
	if (!s->have_agent)
		return serr(s, SAMPLER_ERR_AGENT, "no tracing session on '%s' to stop", s->node);
	if (ei_x_new_with_version(&x) < 0 || ei_x_encode_atom(&x, "stop") < 0) {
		ei_x_free(&x);
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	}
	int r = ei_send_tmo(s->fd, &s->agent, x.buff, x.index, (unsigned)s->opts.connect_timeout_ms);
	ei_x_free(&x);
	return r < 0 ? serr(s, SAMPLER_ERR_LOST, "cannot ask the tracer on '%s' to stop", s->node) : 0;
}

void tracer_adopted(sampler_t *s)
{
	s->have_lock = 0; /* the guardian has it now, and kills it after its cleanup */
}

void tracer_failed(sampler_t *s, const char *module, int r)
{
	if (r == SAMPLER_ERR_LOST)
		return;
	/* Not adopted: ours to end. Adopted: the guardian ends it, after its
	 * cleanup, and deletes the module; waiting for that here lets a run
	 * right after find the node free. A guardian that found the lock gone
	 * (reason lock_lost) leaves the module to the watchdog: another run may
	 * hold the node by now, and the module be its code. */
	lock_release(s);
	if (!s->tracer_lock_busy)
		unload_wait(s, module);
}
