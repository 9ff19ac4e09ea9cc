/*
 * requests.c - driving the tracer of `flameprof requests`
 * (flameprof_requests.erl): load it, start one session, pass its windows
 * on, stop it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "requests.h"
#include "internal.h"
#include "tracer_session.h"

static void arg_text_or_any(struct args *a, const char *t)
{
	if (!t || strcmp(t, "_") == 0)
		arg_atom(a, "_");
	else
		a->ok = a->ok && ei_x_encode_binary(&a->x, t, (int)strlen(t)) == 0;
}

static void arg_pattern(struct args *a, const struct fp_mfa_pattern *p)
{
	a->ok = a->ok && ei_x_encode_tuple_header(&a->x, 3) == 0;
	arg_module(a, p);
	arg_text_or_any(a, p->function);
	if (p->arity < 0)
		arg_atom(a, "_");
	else
		a->ok = a->ok && ei_x_encode_long(&a->x, p->arity) == 0;
}

static void arg_uint(struct args *a, const char *key, unsigned long long v)
{
	arg_atom(a, key);
	a->ok = a->ok && ei_x_encode_ulonglong(&a->x, v) == 0;
}

static int spawn_tracer(sampler_t *s, const struct requests_options *o)
{
	struct args a;
	int r;
	erlang_pid pid;

	args_begin(&a, 3);
	arg_atom(&a, FP_REQUESTS_MODULE);
	arg_atom(&a, "init");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0 && ei_x_encode_map_header(&a.x, 13) == 0;
	arg_atom(&a, "sink");
	a.ok = a.ok && ei_x_encode_pid(&a.x, ei_self(&s->ec)) == 0;
	tracer_arg_lock(&a, s);
	arg_atom(&a, "entry");
	arg_pattern(&a, &o->entry);
	arg_atom(&a, "tiers");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, (long)o->ntiers) == 0;
	for (size_t k = 0; k < o->ntiers; k++) {
		a.ok = a.ok && ei_x_encode_tuple_header(&a.x, 2) == 0 &&
		       ei_x_encode_binary(&a.x, o->tiers[k].name, (int)strlen(o->tiers[k].name)) == 0;
		arg_pattern(&a, &o->tiers[k].pattern);
	}
	/* a list header of 0 is already the empty list */
	if (o->ntiers)
		a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	arg_atom(&a, "full");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, (long)o->nfull) == 0;
	for (size_t k = 0; k < o->nfull; k++)
		arg_pattern(&a, &o->full[k]);
	if (o->nfull)
		a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	arg_uint(&a, "limit", o->limit);
	arg_atom(&a, "identity");
	if (o->identity == REQ_ID_ARG) {
		a.ok = a.ok && ei_x_encode_tuple_header(&a.x, 2) == 0;
		arg_atom(&a, "arg");
		a.ok = a.ok && ei_x_encode_ulong(&a.x, o->identity_arg) == 0;
	} else if (o->identity == REQ_ID_FUN) {
		a.ok = a.ok && ei_x_encode_tuple_header(&a.x, 2) == 0;
		arg_atom(&a, "fun");
		a.ok = a.ok && ei_x_encode_binary(&a.x, o->identity_fun, (int)strlen(o->identity_fun)) == 0;
	} else {
		arg_atom(&a, "none");
	}
	arg_uint(&a, "every_ms", o->every_ms);
	arg_uint(&a, "slow_us", o->slow_us);
	arg_uint(&a, "sample", o->sample_permille);
	arg_uint(&a, "max_late_ms", o->max_late_ms);
	arg_uint(&a, "max_queue", o->max_queue);
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	r = rex_call_pid(s, "erlang", "spawn", &a, &pid);
	if (r == 0)
		r = serr(s, SAMPLER_ERR_AGENT, "cannot start the tracer on '%s' (spawn failed)", s->node);
	return r < 0 ? r : 0;
}

static int error_sentence(sampler_t *s, const struct req_msg *m)
{
	const char *r = m->reason, *d = m->detail;
	if (strcmp(r, "lock_lost") == 0) {
		s->tracer_lock_busy = 1;
		return serr(s, SAMPLER_ERR_BUSY,
			    "'%s' took longer to start the tracer than its lock lasts (%s); try again when the node is less busy",
			    s->node, d);
	}
	if (strcmp(r, "nomatch") == 0)
		return serr(s, SAMPLER_ERR_USAGE, "%s on '%s'; load the module first or correct the pattern",
			    d, s->node);
	if (strcmp(r, "in_use") == 0)
		return serr(s, SAMPLER_ERR_BUSY,
			    "%s is already traced on '%s' by someone else (dbg or an application tracer) and OTP before 27 has no trace sessions to keep theirs and ours apart; flameprof leaves it alone, try again once that tracing is off",
			    d, s->node);
	if (strcmp(r, "seq_tracer") == 0)
		return serr(s, SAMPLER_ERR_BUSY,
			    "'%s' already has a sequential tracer (%s, seq_trace:set_system_tracer/1) and flameprof requests labels messages with seq_trace tokens, which have no sessions and would mix with theirs; try again once that tracer is off",
			    s->node, d);
	if (strcmp(r, "too_many") == 0)
		return serr(s, SAMPLER_ERR_USAGE,
			    "the tier and --full patterns match %s functions on '%s', more than --limit; narrow them or raise --limit",
			    d, s->node);
	if (strcmp(r, "badfun") == 0)
		return serr(s, SAMPLER_ERR_USAGE,
			    "--identity-fun is not a fun of one argument that '%s' can read (%s); write it in Erlang's syntax, e.g. 'fun({_M, _F, [Req | _]}) -> element(1, Req) end', or in Elixir's on a node that runs Elixir, e.g. 'fn {_m, _f, [req | _]} -> elem(req, 0) end'",
			    s->node, d);
	return serr(s, SAMPLER_ERR_AGENT, "the tracer refused to start on '%s' (%s: %s)", s->node, r, d);
}

static int await_start(sampler_t *s, unsigned *ne, unsigned *nt)
{
	long long deadline = mono_ms() + s->opts.connect_timeout_ms;
	erlang_msg msg;
	struct req_msg *m = malloc(sizeof *m);
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
		int k = req_decode(s->rx.buff, (size_t)s->rx.index, m, why, sizeof why);
		if (k == -2 || k == -1) {
			r = k == -2 ? serr(s, SAMPLER_ERR_NOMEM, "out of memory") :
				serr(s, SAMPLER_ERR_PROTO, "cannot read a message from the tracer on '%s': %s", s->node, why);
			break;
		}
		if (k == REQ_MSG_STARTED || k == REQ_MSG_ERROR)
			tracer_adopted(s);
		if (k == REQ_MSG_STARTED) {
			if (tracer_session_pid(&s->rx, &s->agent) < 0) {
				r = serr(s, SAMPLER_ERR_PROTO, "the tracer on '%s' sent no session pid", s->node);
				break;
			}
			s->have_agent = 1;
			*ne = m->nentry;
			*nt = m->ntier;
			r = 0;
			break;
		}
		if (k == REQ_MSG_ERROR) {
			r = error_sentence(s, m);
			break;
		}
		if (k == REQ_MSG_WINDOW)
			req_window_free(&m->window);
	}
	free(m);
	return r;
}

int sampler_requests_start(sampler_t *s, const struct requests_options *o, unsigned *nentry, unsigned *ntier)
{
	int r;
	/* Holding the lock, no other session can be loading or running a tracer. */
	if ((r = tracer_begin(s, FP_REQUESTS_MODULE)) < 0)
		return r;
	if ((r = load_embedded(s, &fp_requests_module)) < 0 || (r = spawn_tracer(s, o)) < 0 ||
	    (r = await_start(s, nentry, ntier)) < 0) {
		tracer_failed(s, FP_REQUESTS_MODULE, r);
		return r;
	}
	return 0;
}

int sampler_requests_next(sampler_t *s, int timeout_ms, struct req_window *w, struct req_tokens *tokens)
{
	erlang_msg msg;
	char why[160];
	int r = recv_one(s, &s->rx, &msg, mono_ms() + timeout_ms);
	if (r <= 0)
		return r;
	struct req_msg *m = malloc(sizeof *m);
	if (!m)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	int k = req_decode(s->rx.buff, (size_t)s->rx.index, m, why, sizeof why);
	r = 0;
	if (k == -2)
		r = serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	else if (k == -1)
		r = serr(s, SAMPLER_ERR_PROTO, "cannot read a window from the tracer on '%s': %s", s->node, why);
	else if (k == REQ_MSG_WINDOW) {
		*w = m->window;
		r = 1;
	} else if (k == REQ_MSG_STOPPED) {
		s->have_agent = 0;
		tokens->cleared = m->tokens_cleared;
		tokens->left = m->tokens_left;
		r = 2;
	} else if (k == REQ_MSG_ERROR) {
		s->have_agent = 0;
		r = serr(s, SAMPLER_ERR_LOST,
			 "the tracer session on '%s' died (%s); its guardian removed the patterns and flags",
			 s->node, m->detail);
	}
	free(m);
	return r;
}

int sampler_requests_stop(sampler_t *s)
{
	return tracer_send_stop(s);
}

int sampler_requests_unload(sampler_t *s)
{
	return unload_wait(s, FP_REQUESTS_MODULE);
}
