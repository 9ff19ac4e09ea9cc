/*
 * calls.c - driving the tracer of `flameprof calls` (flameprof_tracer.erl):
 * load it, start one session, watch the connection, stop and collect.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "calls.h"
#include "internal.h"
#include "tracer_session.h"

static const char *type_atom(enum calls_type t)
{
	return t == CALLS_TIME ? "call_time" : t == CALLS_MEMORY ? "call_memory" : "call_count";
}

static void arg_pattern(struct args *a, const struct fp_mfa_pattern *p)
{
	a->ok = a->ok && ei_x_encode_tuple_header(&a->x, 3) == 0;
	if (strcmp(p->module, "_") == 0)
		arg_atom(a, "_");
	else
		arg_module(a, p);
	if (!p->function || strcmp(p->function, "_") == 0)
		arg_atom(a, "_");
	else
		a->ok = a->ok && ei_x_encode_binary(&a->x, p->function, (int)strlen(p->function)) == 0;
	if (p->arity < 0)
		arg_atom(a, "_");
	else
		a->ok = a->ok && ei_x_encode_long(&a->x, p->arity) == 0;
}

static int spawn_tracer(sampler_t *s, const struct calls_options *o)
{
	struct args a;
	int r;
	erlang_pid pid;

	args_begin(&a, 3);
	arg_atom(&a, FP_TRACER_MODULE);
	arg_atom(&a, "init");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0 && ei_x_encode_map_header(&a.x, 10) == 0;
	arg_atom(&a, "sink");
	a.ok = a.ok && ei_x_encode_pid(&a.x, ei_self(&s->ec)) == 0;
	tracer_arg_lock(&a, s);
	arg_atom(&a, "type");
	arg_atom(&a, type_atom(o->type));
	arg_atom(&a, "patterns");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, (long)o->npatterns) == 0;
	for (size_t k = 0; k < o->npatterns; k++)
		arg_pattern(&a, &o->patterns[k]);
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	arg_atom(&a, "limit");
	a.ok = a.ok && ei_x_encode_ulong(&a.x, o->limit) == 0;
	arg_atom(&a, "force");
	arg_atom(&a, o->force ? "true" : "false");
	arg_atom(&a, "max_run_queue");
	a.ok = a.ok && ei_x_encode_ulong(&a.x, o->max_run_queue) == 0;
	arg_atom(&a, "per_process");
	arg_atom(&a, o->per_process ? "true" : "false");
	arg_atom(&a, "procs");
	if (o->procs == CALLS_PROCS_LIST) {
		a.ok = a.ok && ei_x_encode_tuple_header(&a.x, 3) == 0;
		arg_atom(&a, "list");
		arg_binaries(&a, o->pids, o->npids);
		arg_names(&a, o->names, o->nnames);
	} else {
		arg_atom(&a, o->procs == CALLS_PROCS_NEW ? "new" : "all");
	}
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	r = rex_call_pid(s, "erlang", "spawn", &a, &pid);
	if (r == 0)
		r = serr(s, SAMPLER_ERR_AGENT, "cannot start the tracer on '%s' (spawn failed)", s->node);
	return r < 0 ? r : 0;
}

static int error_sentence(sampler_t *s, const struct calls_msg *m, const struct calls_options *o)
{
	const char *r = m->reason, *d = m->detail;
	if (strcmp(r, "lock_lost") == 0) {
		s->tracer_lock_busy = 1;
		return serr(s, SAMPLER_ERR_BUSY,
			    "'%s' took longer to start the tracer than its lock lasts (%s); try again when the node is less busy",
			    s->node, d);
	}
	if (strcmp(r, "unsupported") == 0)
		return serr(s, SAMPLER_ERR_AGENT,
			    "'%s' runs OTP %s and call memory tracing needs OTP 26 or later; use --type count or time there",
			    s->node, d);
	if (strcmp(r, "nomatch") == 0)
		return serr(s, SAMPLER_ERR_USAGE, "%s on '%s'; load the module first or correct the pattern",
			    d, s->node);
	if (strcmp(r, "too_many") == 0)
		return serr(s, SAMPLER_ERR_USAGE,
			    "the patterns match %s functions on '%s', more than the limit of %u; narrow them, or raise --limit or add --force",
			    d, s->node, o->limit);
	if (strcmp(r, "in_use") == 0)
		return serr(s, SAMPLER_ERR_BUSY,
			    "%s is already traced on '%s' by someone else (dbg, tprof or an application tracer) and OTP before 27 has no trace sessions to keep theirs and ours apart; flameprof leaves it alone, try again once that tracing is off",
			    d, s->node);
	if (strcmp(r, "noproc") == 0)
		return serr(s, SAMPLER_ERR_USAGE, "no process '%s' on '%s'; check the pid or name", d, s->node);
	return serr(s, SAMPLER_ERR_AGENT, "the tracer refused to start on '%s' (%s: %s)", s->node, r, d);
}

/* Waits for the tracer's first word, holding anything else. */
static int await_start(sampler_t *s, const struct calls_options *o, unsigned *nf, unsigned *np)
{
	long long deadline = mono_ms() + s->opts.connect_timeout_ms;
	erlang_msg msg;
	struct calls_msg *m = malloc(sizeof *m);
	char why[160];
	int r;
	if (!m)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	for (;;) {
		r = recv_one(s, &s->rx, &msg, deadline);
		if (r < 0)
			break;
		if (r == 0) {
			r = serr(s, SAMPLER_ERR_AGENT, "the tracer did not start on '%s' within %d ms",
				 s->node, s->opts.connect_timeout_ms);
			break;
		}
		int k = calls_decode(s->rx.buff, (size_t)s->rx.index, m, why, sizeof why);
		if (k == -2) {
			r = serr(s, SAMPLER_ERR_NOMEM, "out of memory");
			break;
		}
		if (k < 0) {
			r = serr(s, SAMPLER_ERR_PROTO, "cannot read a message from the tracer on '%s': %s", s->node, why);
			break;
		}
		if (k == CALLS_MSG_STARTED || k == CALLS_MSG_ERROR)
			tracer_adopted(s);
		if (k == CALLS_MSG_STARTED) {
			if (tracer_session_pid(&s->rx, &s->agent) < 0) {
				r = serr(s, SAMPLER_ERR_PROTO, "the tracer on '%s' sent no session pid", s->node);
				break;
			}
			s->have_agent = 1;
			*nf = m->nfunctions;
			*np = m->nprocs;
			r = 0;
			break;
		}
		if (k == CALLS_MSG_ERROR) {
			r = error_sentence(s, m, o);
			break;
		}
		if (k == CALLS_MSG_RESULT)
			calls_result_free(&m->result);
	}
	free(m);
	return r;
}

int sampler_calls_start(sampler_t *s, const struct calls_options *o, unsigned *nfunctions, unsigned *nprocs)
{
	int r;
	/* Holding the lock, no other session can be loading or running a tracer. */
	if ((r = tracer_begin(s, FP_TRACER_MODULE)) < 0)
		return r;
	if ((r = load_embedded(s, &fp_tracer_module)) < 0 || (r = spawn_tracer(s, o)) < 0 ||
	    (r = await_start(s, o, nfunctions, nprocs)) < 0) {
		tracer_failed(s, FP_TRACER_MODULE, r);
		return r;
	}
	return 0;
}

int sampler_calls_wait(sampler_t *s, int timeout_ms, struct calls_result *early)
{
	erlang_msg msg;
	char why[160];
	int r = recv_one(s, &s->rx, &msg, mono_ms() + timeout_ms);
	if (r <= 0)
		return r;
	/* The session says nothing while it runs, unless it died. */
	struct calls_msg *m = malloc(sizeof *m);
	if (!m)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	int k = calls_decode(s->rx.buff, (size_t)s->rx.index, m, why, sizeof why);
	r = 0;
	if (k == CALLS_MSG_ERROR) {
		s->have_agent = 0;
		r = serr(s, SAMPLER_ERR_LOST,
			 "the tracer session on '%s' died (%s); its guardian removed the breakpoints and flags, nothing was collected",
			 s->node, m->detail);
	} else if (k == CALLS_MSG_RESULT) {
		/* it ended the run by itself: the node was overloaded */
		s->have_agent = 0;
		*early = m->result;
		r = 1;
	} else if (k < 0) {
		r = serr(s, k == -2 ? SAMPLER_ERR_NOMEM : SAMPLER_ERR_PROTO,
			 "cannot read a message from the tracer on '%s': %s", s->node, why);
	}
	free(m);
	return r;
}

int sampler_calls_stop(sampler_t *s, struct calls_result *out)
{
	erlang_msg msg;
	char why[160];
	int r;
	memset(out, 0, sizeof *out);
	if ((r = tracer_send_stop(s)) < 0)
		return r;
	struct calls_msg *m = malloc(sizeof *m);
	if (!m)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	/* reading thousands of breakpoints on a busy node takes a while */
	long long deadline = mono_ms() + 4LL * s->opts.connect_timeout_ms;
	for (;;) {
		r = recv_one(s, &s->rx, &msg, deadline);
		if (r < 0)
			break;
		if (r == 0) {
			r = serr(s, SAMPLER_ERR_LOST, "the tracer on '%s' sent no results within %d ms; it removes its breakpoints by itself",
				 s->node, 4 * s->opts.connect_timeout_ms);
			break;
		}
		int k = calls_decode(s->rx.buff, (size_t)s->rx.index, m, why, sizeof why);
		if (k == -2 || k == -1) {
			r = k == -2 ? serr(s, SAMPLER_ERR_NOMEM, "out of memory") :
				serr(s, SAMPLER_ERR_PROTO, "cannot read the results from the tracer on '%s': %s", s->node, why);
			break;
		}
		if (k == CALLS_MSG_ERROR) {
			s->have_agent = 0;
			r = serr(s, SAMPLER_ERR_LOST,
				 "the tracer session on '%s' died (%s); its guardian removed the breakpoints and flags, nothing was collected",
				 s->node, m->detail);
			break;
		}
		if (k == CALLS_MSG_RESULT) {
			*out = m->result;
			s->have_agent = 0;
			r = 0;
			break;
		}
	}
	free(m);
	return r;
}

int sampler_calls_unload(sampler_t *s)
{
	return unload_wait(s, FP_TRACER_MODULE);
}
