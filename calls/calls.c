/*
 * calls.c - driving the tracer of `flameprof calls` (flameprof_tracer.erl):
 * load it, start one session, watch the connection, stop and collect.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "calls.h"
#include "../node/node.h"
#include "../tracer/tracer_session.h"

/* The tracer, compiled and embedded at build time (Makefile). */
extern const unsigned char fp_tracer_beam[], fp_tracer_source[];
extern const size_t fp_tracer_beam_len, fp_tracer_source_len;
static const struct node_module tracer_module = {
	FP_TRACER_MODULE, "flameprof_tracer", "the tracer", fp_tracer_beam, &fp_tracer_beam_len, fp_tracer_source, &fp_tracer_source_len,
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
static int refused(node_t *n, const struct tracer_word *w, const void *opts)
{
	const struct calls_options *o = opts;
	const char *r = w->reason, *d = w->detail;
	if (strcmp(r, "unsupported") == 0)
		return node_errf(n, NODE_ERR_AGENT,
			    "'%s' runs OTP %s and call memory tracing needs OTP 26 or later; use --type count or time there",
			    node_target(n), d);
	if (strcmp(r, "nomatch") == 0)
		return node_errf(n, NODE_ERR_USAGE, "%s on '%s'; load the module first or correct the pattern",
			    d, node_target(n));
	if (strcmp(r, "too_many") == 0)
		return node_errf(n, NODE_ERR_USAGE,
			    "the patterns match %s functions on '%s', more than the limit of %u; narrow them, or raise --limit or add --force",
			    d, node_target(n), o->limit);
	if (strcmp(r, "in_use") == 0)
		return node_errf(n, NODE_ERR_BUSY,
			    "%s is already traced on '%s' by someone else (dbg, tprof or an application tracer) and OTP before 27 has no trace sessions to keep theirs and ours apart; flameprof leaves it alone, try again once that tracing is off",
			    d, node_target(n));
	if (strcmp(r, "noproc") == 0)
		return node_errf(n, NODE_ERR_USAGE, "no process '%s' on '%s'; check the pid or name", d, node_target(n));
	return 0;
}

static const struct tracer_kind kind = {
	&tracer_module, args, 7, &calls_proto, refused, "the breakpoints and flags, nothing was collected",
};

int calls_start(tracer_t **out, node_t *n, const struct calls_options *o, unsigned *nfunctions, unsigned *nprocs)
{
	return tracer_start(out, n, &kind, o, nfunctions, nprocs);
}

int calls_wait(tracer_t *s, int timeout_ms, struct calls_result *early)
{
	struct calls_msg m;
	int k, r = tracer_recv(s, fp_mono_ms() + timeout_ms, "a message", &m, &k);
	if (r <= 0)
		return r;
	/* The session says nothing while it runs, unless it died (tracer_recv
	 * said so) or ended the run by itself: the node was overloaded. */
	if (k != CALLS_MSG_RESULT)
		return 0;
	*early = m.result;
	return 1;
}

int calls_stop(tracer_t *s, struct calls_result *out)
{
	struct calls_msg m;
	node_t *n = tracer_node(s);
	int k, r;
	memset(out, 0, sizeof *out);
	if ((r = tracer_send_stop(s)) < 0)
		return r;
	/* reading thousands of breakpoints on a busy node takes a while */
	long long deadline = fp_mono_ms() + 4LL * node_timeout_ms(n);
	while ((r = tracer_recv(s, deadline, "the results", &m, &k)) > 0)
		if (k == CALLS_MSG_RESULT) {
			*out = m.result;
			return 0;
		}
	if (r == 0)
		r = node_errf(n, NODE_ERR_LOST, "the tracer on '%s' sent no results within %d ms; it removes its breakpoints by itself",
			      node_target(n), 4 * node_timeout_ms(n));
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
