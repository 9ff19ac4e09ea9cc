/*
 * tracer_session.h - what `flameprof calls` and `flameprof requests` share
 * in starting their in-node tracer: one tracing session per node, held by
 * the lock named TRACER_LOCK (lock.c), which the tracer's guardian adopts.
 *
 * tracer_begin() reads the node's release into s->otp, takes the lock
 * (SAMPLER_ERR_BUSY when another session holds it) and, holding it,
 * removes a stale copy of the module; only then may the caller load it.
 * tracer_arg_lock() adds the two map pairs lock and lock_timer that the
 * guardian needs to adopt it. tracer_adopted() marks it adopted (the
 * tracer answered). tracer_failed() undoes a start that failed with r.
 * tracer_session_pid() reads the session's pid from a started message
 * ({Tag, Proto, Session, ...}; -1 if there is none); tracer_send_stop()
 * asks the running session to stop (its answer is the caller's to read).
 */
#ifndef FLAMEPROF_TRACER_SESSION_H
#define FLAMEPROF_TRACER_SESSION_H
#include "internal.h"

int tracer_begin(sampler_t *s, const char *module);
void tracer_arg_lock(struct args *a, sampler_t *s);
int tracer_session_pid(const ei_x_buff *x, erlang_pid *pid);
int tracer_send_stop(sampler_t *s);
void tracer_adopted(sampler_t *s);
void tracer_failed(sampler_t *s, const char *module, int r);

#endif
