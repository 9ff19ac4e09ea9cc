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
static int refused(tracer_t *s, const struct tracer_word *w, const void *opts)
{
	(void)opts;
	const char *r = w->reason, *d = w->detail;
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
			    "--identity-fun is not a fun of one argument that '%s' can read (%s); write it in Erlang's syntax, e.g. 'fun({_M, _F, [Req | _]}) -> element(1, Req) end', or in Elixir's on a node that runs Elixir, e.g. 'fn {_m, _f, [req | _]} -> elem(req, 0) end'",
			    node_target(s->node), d);
	return 0;
}

/* Its first word: started (two counts) or refused, anything else freed. */
static int decode(const ei_x_buff *x, struct tracer_word *w, char *why, size_t cap)
{
	struct req_msg *m = malloc(sizeof *m);
	if (!m)
		return -2;
	int k = req_decode(x->buff, (size_t)x->index, m, why, cap);
	if (k == REQ_MSG_STARTED) {
		w->a = m->nentry;
		w->b = m->ntier;
	} else if (k == REQ_MSG_ERROR) {
		memcpy(w->reason, m->reason, sizeof w->reason);
		memcpy(w->detail, m->detail, sizeof w->detail);
	} else if (k == REQ_MSG_WINDOW) {
		req_window_free(&m->window);
	}
	free(m);
	return k < 0 ? k : k == REQ_MSG_STARTED ? TRACER_STARTED : k == REQ_MSG_ERROR ? TRACER_REFUSED : TRACER_OTHER;
}

static const struct tracer_kind kind = { &tracer_module, args, 10, decode, refused };

int req_start(tracer_t **out, node_t *n, const struct requests_options *o, unsigned *nentry, unsigned *ntier)
{
	return tracer_start(out, n, &kind, o, nentry, ntier);
}

int req_next(tracer_t *s, int timeout_ms, struct req_window *w, struct req_tokens *tokens)
{
	const ei_x_buff *x;
	char why[160];
	int r = node_recv(s->node, fp_mono_ms() + timeout_ms, &x);
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

void req_free(tracer_t *s)
{
	tracer_free(s);
}
