/*
 * requests.c - driving the tracer of `flameprof requests`
 * (flameprof_requests.erl): load it, start one session, pass its windows
 * on, stop it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "requests.h"
#include "../tracer/tracer_session.h"

/* The tracer, compiled and embedded at build time (Makefile). */
extern const unsigned char fp_requests_beam[], fp_requests_source[];
extern const size_t fp_requests_beam_len, fp_requests_source_len;
static const struct node_module tracer_module = {
	FP_REQUESTS_MODULE, "flameprof_requests", fp_requests_beam, &fp_requests_beam_len, fp_requests_source, &fp_requests_source_len,
};

static void arg_text_or_any(struct node_args *a, const char *t)
{
	if (!t || strcmp(t, "_") == 0)
		node_arg_atom(a, "_");
	else
		a->ok = a->ok && ei_x_encode_binary(&a->x, t, (int)strlen(t)) == 0;
}

static void arg_pattern(struct node_args *a, const struct fp_mfa_pattern *p)
{
	a->ok = a->ok && ei_x_encode_tuple_header(&a->x, 3) == 0;
	a->ok = a->ok && ei_x_encode_binary(&a->x, p->module, (int)strlen(p->module)) == 0;
	arg_text_or_any(a, p->function);
	if (p->arity < 0)
		node_arg_atom(a, "_");
	else
		a->ok = a->ok && ei_x_encode_long(&a->x, p->arity) == 0;
}

static void arg_uint(struct node_args *a, const char *key, unsigned long long v)
{
	node_arg_atom(a, key);
	a->ok = a->ok && ei_x_encode_ulonglong(&a->x, v) == 0;
}

static int spawn_tracer(tracer_t *s, const struct requests_options *o)
{
	struct node_args a;
	int r;
	erlang_pid pid;

	node_args_begin(&a, 3);
	node_arg_atom(&a, FP_REQUESTS_MODULE);
	node_arg_atom(&a, "init");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0 && ei_x_encode_map_header(&a.x, 13) == 0;
	node_arg_atom(&a, "sink");
	a.ok = a.ok && ei_x_encode_pid(&a.x, node_self(s->node)) == 0;
	tracer_arg_lock(&a, s);
	node_arg_atom(&a, "entry");
	arg_pattern(&a, &o->entry);
	node_arg_atom(&a, "tiers");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, (long)o->ntiers) == 0;
	for (size_t k = 0; k < o->ntiers; k++) {
		a.ok = a.ok && ei_x_encode_tuple_header(&a.x, 2) == 0 &&
		       ei_x_encode_binary(&a.x, o->tiers[k].name, (int)strlen(o->tiers[k].name)) == 0;
		arg_pattern(&a, &o->tiers[k].pattern);
	}
	/* a list header of 0 is already the empty list */
	if (o->ntiers)
		a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	node_arg_atom(&a, "full");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, (long)o->nfull) == 0;
	for (size_t k = 0; k < o->nfull; k++)
		arg_pattern(&a, &o->full[k]);
	if (o->nfull)
		a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	arg_uint(&a, "limit", o->limit);
	node_arg_atom(&a, "identity");
	if (o->identity == REQ_ID_ARG) {
		a.ok = a.ok && ei_x_encode_tuple_header(&a.x, 2) == 0;
		node_arg_atom(&a, "arg");
		a.ok = a.ok && ei_x_encode_ulong(&a.x, o->identity_arg) == 0;
	} else if (o->identity == REQ_ID_FUN) {
		a.ok = a.ok && ei_x_encode_tuple_header(&a.x, 2) == 0;
		node_arg_atom(&a, "fun");
		a.ok = a.ok && ei_x_encode_binary(&a.x, o->identity_fun, (int)strlen(o->identity_fun)) == 0;
	} else {
		node_arg_atom(&a, "none");
	}
	arg_uint(&a, "every_ms", o->every_ms);
	arg_uint(&a, "slow_us", o->slow_us);
	arg_uint(&a, "sample", o->sample_permille);
	arg_uint(&a, "max_late_ms", o->max_late_ms);
	arg_uint(&a, "max_queue", o->max_queue);
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	r = node_rex_call_pid(s->node, "erlang", "spawn", &a, &pid);
	if (r == 0)
		r = node_errf(s->node, NODE_ERR_AGENT, "cannot start the tracer on '%s' (spawn failed)", node_target(s->node));
	return r < 0 ? r : 0;
}

static int error_sentence(tracer_t *s, const struct req_msg *m)
{
	const char *r = m->reason, *d = m->detail;
	if (strcmp(r, "lock_lost") == 0) {
		s->lock_busy = 1;
		return node_errf(s->node, NODE_ERR_BUSY,
			    "'%s' took longer to start the tracer than its lock lasts (%s); try again when the node is less busy",
			    node_target(s->node), d);
	}
	if (strcmp(r, "nomatch") == 0)
		return node_errf(s->node, NODE_ERR_USAGE, "%s on '%s'; load the module first or correct the pattern",
			    d, node_target(s->node));
	if (strcmp(r, "in_use") == 0)
		return node_errf(s->node, NODE_ERR_BUSY,
			    "%s is already traced on '%s' by someone else (dbg or an application tracer) and OTP before 27 has no trace sessions to keep theirs and ours apart; flameprof leaves it alone, try again once that tracing is off",
			    d, node_target(s->node));
	if (strcmp(r, "seq_tracer") == 0)
		return node_errf(s->node, NODE_ERR_BUSY,
			    "'%s' already has a sequential tracer (%s, seq_trace:set_system_tracer/1) and flameprof requests labels messages with seq_trace tokens, which have no sessions and would mix with theirs; try again once that tracer is off",
			    node_target(s->node), d);
	if (strcmp(r, "too_many") == 0)
		return node_errf(s->node, NODE_ERR_USAGE,
			    "the tier and --full patterns match %s functions on '%s', more than --limit; narrow them or raise --limit",
			    d, node_target(s->node));
	if (strcmp(r, "badfun") == 0)
		return node_errf(s->node, NODE_ERR_USAGE,
			    "--identity-fun is not a fun of one argument that '%s' can read (%s); write it in Erlang's syntax, also for an Elixir node (not fn ... end), e.g. 'fun({_M, _F, [Req | _]}) -> element(1, Req) end'",
			    node_target(s->node), d);
	return node_errf(s->node, NODE_ERR_AGENT, "the tracer refused to start on '%s' (%s: %s)", node_target(s->node), r, d);
}

static int await_start(tracer_t *s, unsigned *ne, unsigned *nt)
{
	long long deadline = fp_now_ms() + node_timeout_ms(s->node);
	const ei_x_buff *x;
	struct req_msg *m = malloc(sizeof *m);
	char why[160];
	int r;
	if (!m)
		return node_errf(s->node, NODE_ERR_NOMEM, "out of memory");
	for (;;) {
		r = node_recv(s->node, deadline, &x);
		if (r < 0)
			break;
		if (r == 0) {
			r = node_errf(s->node, NODE_ERR_AGENT, "the tracer did not start on '%s' within %d ms",
				 node_target(s->node), node_timeout_ms(s->node));
			break;
		}
		int k = req_decode(x->buff, (size_t)x->index, m, why, sizeof why);
		if (k == -2 || k == -1) {
			r = k == -2 ? node_errf(s->node, NODE_ERR_NOMEM, "out of memory") :
				node_errf(s->node, NODE_ERR_PROTO, "cannot read a message from the tracer on '%s': %s", node_target(s->node), why);
			break;
		}
		if (k == REQ_MSG_STARTED || k == REQ_MSG_ERROR)
			tracer_adopted(s);
		if (k == REQ_MSG_STARTED) {
			if (tracer_started(s, x) < 0) {
				r = node_errf(s->node, NODE_ERR_PROTO, "the tracer on '%s' sent no session pid", node_target(s->node));
				break;
			}
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

int req_start(tracer_t **out, node_t *n, const struct requests_options *o, unsigned *nentry, unsigned *ntier)
{
	int r;
	/* Holding the lock, no other session can be loading or running a tracer. */
	if ((r = tracer_begin(out, n, FP_REQUESTS_MODULE)) < 0)
		return r;
	tracer_t *s = *out;
	if ((r = node_load_embedded(n, &tracer_module)) < 0 || (r = spawn_tracer(s, o)) < 0 ||
	    (r = await_start(s, nentry, ntier)) < 0) {
		tracer_failed(s, r);
		return r;
	}
	return 0;
}

int req_next(tracer_t *s, int timeout_ms, struct req_window *w, struct req_tokens *tokens)
{
	const ei_x_buff *x;
	char why[160];
	int r = node_recv(s->node, fp_now_ms() + timeout_ms, &x);
	if (r <= 0)
		return r;
	struct req_msg *m = malloc(sizeof *m);
	if (!m)
		return node_errf(s->node, NODE_ERR_NOMEM, "out of memory");
	int k = req_decode(x->buff, (size_t)x->index, m, why, sizeof why);
	r = 0;
	if (k == -2)
		r = node_errf(s->node, NODE_ERR_NOMEM, "out of memory");
	else if (k == -1)
		r = node_errf(s->node, NODE_ERR_PROTO, "cannot read a window from the tracer on '%s': %s", node_target(s->node), why);
	else if (k == REQ_MSG_WINDOW) {
		*w = m->window;
		r = 1;
	} else if (k == REQ_MSG_STOPPED) {
		s->running = 0;
		tokens->cleared = m->tokens_cleared;
		tokens->left = m->tokens_left;
		r = 2;
	} else if (k == REQ_MSG_ERROR) {
		s->running = 0;
		r = node_errf(s->node, NODE_ERR_LOST,
			 "the tracer session on '%s' died (%s); its guardian removed the patterns and flags",
			 node_target(s->node), m->detail);
	}
	free(m);
	return r;
}

int req_stop(tracer_t *s)
{
	return tracer_send_stop(s);
}

int req_unload(tracer_t *s)
{
	return tracer_unload(s);
}
