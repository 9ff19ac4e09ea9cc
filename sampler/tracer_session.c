/*
 * tracer_session.c - taking the node's one tracing session for calls and
 * requests (see tracer_session.h), the same way as the sampling agent: the
 * lock is registered before any code is touched, so two runs started
 * together cannot purge each other's tracer.
 */
#include <stdio.h>
#include <time.h>
#include "tracer_session.h"

static int read_release(sampler_t *s)
{
	struct args a;
	ei_x_buff reply;
	int at, r;
	if (ei_x_new(&reply) < 0)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	args_begin(&a, 1);
	arg_atom(&a, "otp_release");
	r = rex_call_args(s, "erlang", "system_info", &a, &reply, &at, s->opts.connect_timeout_ms);
	if (r == 0 && ei_decode_string(reply.buff, &at, s->otp) < 0)
		snprintf(s->otp, sizeof s->otp, "?");
	ei_x_free(&reply);
	return r;
}

/* A stale copy of the module (a run that died between loading and
 * starting; its watchdog removes it within a minute anyway). Only called
 * holding the lock: no live session runs this code. */
static int clear_stale(sampler_t *s, const char *module)
{
	int loaded, old, r;
	if ((r = rex_call_atom_is(s, "erlang", "module_loaded", module, "true", &loaded)) < 0)
		return r;
	if (loaded && (r = unload_embedded(s, module)) < 0)
		return r;
	long long until = mono_ms() + s->opts.connect_timeout_ms;
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	while ((r = rex_call_atom_is(s, "erlang", "check_old_code", module, "true", &old)) == 0 &&
	       old && mono_ms() < until)
		nanosleep(&pause, NULL);
	if (r < 0)
		return r;
	if (old)
		return serr(s, SAMPLER_ERR_BUSY,
			    "'%s' is still purging the tracer of an earlier run (purging checks every process); try again in a minute",
			    s->node);
	return 0;
}

int tracer_begin(sampler_t *s, const char *module)
{
	int r;
	if ((r = read_release(s)) < 0 || (r = lock_take(s, TRACER_LOCK)) < 0)
		return r;
	if ((r = clear_stale(s, module)) < 0 && r != SAMPLER_ERR_LOST)
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
