/*
 * requests.c - driving the tracer of `flameprof requests`
 * (flameprof_requests.erl): load it, start one session, pass its windows
 * on, stop it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "requests.h"
#include "../node/node.h"
#include "../tracer/tracer_session.h"

/* The tracer, compiled and embedded at build time (Makefile). */
extern const unsigned char fp_requests_beam[], fp_requests_source[];
extern const size_t fp_requests_beam_len, fp_requests_source_len;
static const struct node_module tracer_module = {
	FP_REQUESTS_MODULE, "flameprof_requests", "the tracer", fp_requests_beam, &fp_requests_beam_len, fp_requests_source, &fp_requests_source_len,
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
	node_arg_module(a, p);
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

/* The tracer's own pairs of its init map. */
static void args(struct node_args *a, const void *opts)
{
	const struct requests_options *o = opts;
	node_arg_atom(a, "entry");
	arg_pattern(a, &o->entry);
	node_arg_atom(a, "tiers");
	a->ok = a->ok && ei_x_encode_list_header(&a->x, (long)o->ntiers) == 0;
	for (size_t k = 0; k < o->ntiers; k++) {
		a->ok = a->ok && ei_x_encode_tuple_header(&a->x, 2) == 0 &&
		       ei_x_encode_binary(&a->x, o->tiers[k].name, (int)strlen(o->tiers[k].name)) == 0;
		arg_pattern(a, &o->tiers[k].pattern);
	}
	/* a list header of 0 is already the empty list */
	if (o->ntiers)
		a->ok = a->ok && ei_x_encode_empty_list(&a->x) == 0;
	node_arg_atom(a, "full");
	a->ok = a->ok && ei_x_encode_list_header(&a->x, (long)o->nfull) == 0;
	for (size_t k = 0; k < o->nfull; k++)
		arg_pattern(a, &o->full[k]);
	if (o->nfull)
		a->ok = a->ok && ei_x_encode_empty_list(&a->x) == 0;
	arg_uint(a, "limit", o->limit);
	node_arg_atom(a, "identity");
	if (o->identity == REQ_ID_ARG) {
		a->ok = a->ok && ei_x_encode_tuple_header(&a->x, 2) == 0;
		node_arg_atom(a, "arg");
		a->ok = a->ok && ei_x_encode_ulong(&a->x, o->identity_arg) == 0;
	} else if (o->identity == REQ_ID_FUN) {
		a->ok = a->ok && ei_x_encode_tuple_header(&a->x, 2) == 0;
		node_arg_atom(a, "fun");
		a->ok = a->ok && ei_x_encode_binary(&a->x, o->identity_fun, (int)strlen(o->identity_fun)) == 0;
	} else {
		node_arg_atom(a, "none");
	}
	arg_uint(a, "every_ms", o->every_ms);
	arg_uint(a, "slow_us", o->slow_us);
	arg_uint(a, "sample", o->sample_permille);
	arg_uint(a, "max_late_ms", o->max_late_ms);
	arg_uint(a, "max_queue", o->max_queue);
}

/* Its refusals, in sentences (tracer/ says lock_lost and the unknown). */
static int refused(node_t *n, const struct tracer_word *w, const void *opts)
{
	(void)opts;
	const char *r = w->reason, *d = w->detail;
	if (strcmp(r, "nomatch") == 0)
		return node_errf(n, NODE_ERR_USAGE, "%s on '%s'; load the module first or correct the pattern",
			    d, node_target(n));
	if (strcmp(r, "in_use") == 0)
		return node_errf(n, NODE_ERR_BUSY,
			    "%s is already traced on '%s' by someone else (dbg or an application tracer) and OTP before 27 has no trace sessions to keep theirs and ours apart; flameprof leaves it alone, try again once that tracing is off",
			    d, node_target(n));
	if (strcmp(r, "seq_tracer") == 0)
		return node_errf(n, NODE_ERR_BUSY,
			    "'%s' already has a sequential tracer (%s, seq_trace:set_system_tracer/1) and flameprof requests labels messages with seq_trace tokens, which have no sessions and would mix with theirs; try again once that tracer is off",
			    node_target(n), d);
	if (strcmp(r, "too_many") == 0)
		return node_errf(n, NODE_ERR_USAGE,
			    "the tier and --full patterns match %s functions on '%s', more than --limit; narrow them or raise --limit",
			    d, node_target(n));
	if (strcmp(r, "badfun") == 0)
		return node_errf(n, NODE_ERR_USAGE,
			    "--identity-fun is not a fun of one argument that '%s' can read (%s); write it in Erlang's syntax, e.g. 'fun({_M, _F, [Req | _]}) -> element(1, Req) end', or in Elixir's on a node that runs Elixir, e.g. 'fn {_m, _f, [req | _]} -> elem(req, 0) end'",
			    node_target(n), d);
	return 0;
}

static const struct tracer_kind kind = { &tracer_module, args, 10, &req_proto, refused, "the patterns and flags" };

int req_start(tracer_t **out, node_t *n, const struct requests_options *o, unsigned *nentry, unsigned *ntier)
{
	return tracer_start(out, n, &kind, o, nentry, ntier);
}

int req_next(tracer_t *s, int timeout_ms, struct req_window *w, struct req_tokens *tokens)
{
	struct req_msg m;
	int k, r = tracer_recv(s, fp_mono_ms() + timeout_ms, "a window", &m, &k);
	if (r <= 0)
		return r;
	if (k == REQ_MSG_WINDOW) {
		*w = m.window;
		return 1;
	}
	if (k == REQ_MSG_STOPPED) {
		tokens->cleared = m.tokens_cleared;
		tokens->left = m.tokens_left;
		return 2;
	}
	return 0;
}

int req_stop(tracer_t *s)
{
	return tracer_send_stop(s);
}

int req_unload(tracer_t *s)
{
	return tracer_unload(s);
}

void req_free(tracer_t *s)
{
	tracer_free(s);
}
