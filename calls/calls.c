/*
 * calls.c - driving the tracer of `flameprof calls` (flameprof_tracer.erl):
 * load it, start one session, watch the connection, stop and collect.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "calls.h"
#include "../tracer/tracer_session.h"

/* The tracer, compiled and embedded at build time (Makefile). */
extern const unsigned char fp_tracer_beam[], fp_tracer_source[];
extern const size_t fp_tracer_beam_len, fp_tracer_source_len;
static const struct node_module tracer_module = {
	FP_TRACER_MODULE, "flameprof_tracer", fp_tracer_beam, &fp_tracer_beam_len, fp_tracer_source, &fp_tracer_source_len,
};

static const char *type_atom(enum calls_type t)
{
	return t == CALLS_TIME ? "call_time" : t == CALLS_MEMORY ? "call_memory" : "call_count";
}

static void arg_pattern(struct node_args *a, const struct fp_mfa_pattern *p)
{
	a->ok = a->ok && ei_x_encode_tuple_header(&a->x, 3) == 0;
	if (strcmp(p->module, "_") == 0)
		node_arg_atom(a, "_");
	else
		node_arg_module(a, p);
	if (!p->function || strcmp(p->function, "_") == 0)
		node_arg_atom(a, "_");
	else
		a->ok = a->ok && ei_x_encode_binary(&a->x, p->function, (int)strlen(p->function)) == 0;
	if (p->arity < 0)
		node_arg_atom(a, "_");
	else
		a->ok = a->ok && ei_x_encode_long(&a->x, p->arity) == 0;
}

/* The tracer's own pairs of its init map. */
static void args(struct node_args *a, const void *opts)
{
	const struct calls_options *o = opts;
	node_arg_atom(a, "type");
	node_arg_atom(a, type_atom(o->type));
	node_arg_atom(a, "patterns");
	a->ok = a->ok && ei_x_encode_list_header(&a->x, (long)o->npatterns) == 0;
	for (size_t k = 0; k < o->npatterns; k++)
		arg_pattern(a, &o->patterns[k]);
	a->ok = a->ok && ei_x_encode_empty_list(&a->x) == 0;
	node_arg_atom(a, "limit");
	a->ok = a->ok && ei_x_encode_ulong(&a->x, o->limit) == 0;
	node_arg_atom(a, "force");
	node_arg_atom(a, o->force ? "true" : "false");
	node_arg_atom(a, "max_run_queue");
	a->ok = a->ok && ei_x_encode_ulong(&a->x, o->max_run_queue) == 0;
	node_arg_atom(a, "per_process");
	node_arg_atom(a, o->per_process ? "true" : "false");
	node_arg_atom(a, "procs");
	if (o->procs == CALLS_PROCS_LIST) {
		a->ok = a->ok && ei_x_encode_tuple_header(&a->x, 3) == 0;
		node_arg_atom(a, "list");
		node_arg_binaries(a, o->pids, o->npids);
		node_arg_names(a, o->names, o->nnames);
	} else {
		node_arg_atom(a, o->procs == CALLS_PROCS_NEW ? "new" : "all");
	}
}

/* Its refusals, in sentences (tracer/ says lock_lost and the unknown). */
static int refused(tracer_t *s, const struct tracer_word *w, const void *opts)
{
	const struct calls_options *o = opts;
	const char *r = w->reason, *d = w->detail;
	if (strcmp(r, "unsupported") == 0)
		return node_errf(s->node, NODE_ERR_AGENT,
			    "'%s' runs OTP %s and call memory tracing needs OTP 26 or later; use --type count or time there",
			    node_target(s->node), d);
	if (strcmp(r, "nomatch") == 0)
		return node_errf(s->node, NODE_ERR_USAGE, "%s on '%s'; load the module first or correct the pattern",
			    d, node_target(s->node));
	if (strcmp(r, "too_many") == 0)
		return node_errf(s->node, NODE_ERR_USAGE,
			    "the patterns match %s functions on '%s', more than the limit of %u; narrow them, or raise --limit or add --force",
			    d, node_target(s->node), o->limit);
	if (strcmp(r, "in_use") == 0)
		return node_errf(s->node, NODE_ERR_BUSY,
			    "%s is already traced on '%s' by someone else (dbg, tprof or an application tracer) and OTP before 27 has no trace sessions to keep theirs and ours apart; flameprof leaves it alone, try again once that tracing is off",
			    d, node_target(s->node));
	if (strcmp(r, "noproc") == 0)
		return node_errf(s->node, NODE_ERR_USAGE, "no process '%s' on '%s'; check the pid or name", d, node_target(s->node));
	return 0;
}

/* Its first word: started (two counts) or refused, anything else freed. */
static int decode(const ei_x_buff *x, struct tracer_word *w, char *why, size_t cap)
{
	struct calls_msg *m = malloc(sizeof *m);
	if (!m)
		return -2;
	int k = calls_decode(x->buff, (size_t)x->index, m, why, cap);
	if (k == CALLS_MSG_STARTED) {
		w->a = m->nfunctions;
		w->b = m->nprocs;
	} else if (k == CALLS_MSG_ERROR) {
		memcpy(w->reason, m->reason, sizeof w->reason);
		memcpy(w->detail, m->detail, sizeof w->detail);
	} else if (k == CALLS_MSG_RESULT) {
		calls_result_free(&m->result);
	}
	free(m);
	return k < 0 ? k : k == CALLS_MSG_STARTED ? TRACER_STARTED : k == CALLS_MSG_ERROR ? TRACER_REFUSED : TRACER_OTHER;
}

static const struct tracer_kind kind = { &tracer_module, args, 7, decode, refused };

int calls_start(tracer_t **out, node_t *n, const struct calls_options *o, unsigned *nfunctions, unsigned *nprocs)
{
	return tracer_start(out, n, &kind, o, nfunctions, nprocs);
}

int calls_wait(tracer_t *s, int timeout_ms, struct calls_result *early)
{
	const ei_x_buff *x;
	char why[160];
	int r = node_recv(s->node, fp_mono_ms() + timeout_ms, &x);
	if (r <= 0)
		return r;
	/* The session says nothing while it runs, unless it died. */
	struct calls_msg *m = malloc(sizeof *m);
	if (!m)
		return node_errf(s->node, NODE_ERR_NOMEM, "out of memory");
	int k = calls_decode(x->buff, (size_t)x->index, m, why, sizeof why);
	r = 0;
	if (k == CALLS_MSG_ERROR) {
		s->running = 0;
		r = node_errf(s->node, NODE_ERR_LOST,
			 "the tracer session on '%s' died (%s); its guardian removed the breakpoints and flags, nothing was collected",
			 node_target(s->node), m->detail);
	} else if (k == CALLS_MSG_RESULT) {
		/* it ended the run by itself: the node was overloaded */
		s->running = 0;
		*early = m->result;
		r = 1;
	} else if (k < 0) {
		r = node_errf(s->node, k == -2 ? NODE_ERR_NOMEM : NODE_ERR_PROTO,
			 "cannot read a message from the tracer on '%s': %s", node_target(s->node), why);
	}
	free(m);
	return r;
}

int calls_stop(tracer_t *s, struct calls_result *out)
{
	const ei_x_buff *x;
	char why[160];
	int r;
	memset(out, 0, sizeof *out);
	if ((r = tracer_send_stop(s)) < 0)
		return r;
	struct calls_msg *m = malloc(sizeof *m);
	if (!m)
		return node_errf(s->node, NODE_ERR_NOMEM, "out of memory");
	/* reading thousands of breakpoints on a busy node takes a while */
	long long deadline = fp_mono_ms() + 4LL * node_timeout_ms(s->node);
	for (;;) {
		r = node_recv(s->node, deadline, &x);
		if (r < 0)
			break;
		if (r == 0) {
			r = node_errf(s->node, NODE_ERR_LOST, "the tracer on '%s' sent no results within %d ms; it removes its breakpoints by itself",
				 node_target(s->node), 4 * node_timeout_ms(s->node));
			break;
		}
		int k = calls_decode(x->buff, (size_t)x->index, m, why, sizeof why);
		if (k == -2 || k == -1) {
			r = k == -2 ? node_errf(s->node, NODE_ERR_NOMEM, "out of memory") :
				node_errf(s->node, NODE_ERR_PROTO, "cannot read the results from the tracer on '%s': %s", node_target(s->node), why);
			break;
		}
		if (k == CALLS_MSG_ERROR) {
			s->running = 0;
			r = node_errf(s->node, NODE_ERR_LOST,
				 "the tracer session on '%s' died (%s); its guardian removed the breakpoints and flags, nothing was collected",
				 node_target(s->node), m->detail);
			break;
		}
		if (k == CALLS_MSG_RESULT) {
			*out = m->result;
			s->running = 0;
			r = 0;
			break;
		}
	}
	free(m);
	return r;
}

int calls_unload(tracer_t *s)
{
	return tracer_unload(s);
}

void calls_free(tracer_t *s)
{
	tracer_free(s);
}
