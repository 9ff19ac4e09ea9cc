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
		a->ok = a->ok && ei_x_encode_binary(&a->x, p->module, (int)strlen(p->module)) == 0;
	if (!p->function || strcmp(p->function, "_") == 0)
		node_arg_atom(a, "_");
	else
		a->ok = a->ok && ei_x_encode_binary(&a->x, p->function, (int)strlen(p->function)) == 0;
	if (p->arity < 0)
		node_arg_atom(a, "_");
	else
		a->ok = a->ok && ei_x_encode_long(&a->x, p->arity) == 0;
}

static int spawn_tracer(tracer_t *s, const struct calls_options *o)
{
	struct node_args a;
	int r;
	erlang_pid pid;

	node_args_begin(&a, 3);
	node_arg_atom(&a, FP_TRACER_MODULE);
	node_arg_atom(&a, "init");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0 && ei_x_encode_map_header(&a.x, 10) == 0;
	node_arg_atom(&a, "sink");
	a.ok = a.ok && ei_x_encode_pid(&a.x, node_self(s->node)) == 0;
	tracer_arg_lock(&a, s);
	node_arg_atom(&a, "type");
	node_arg_atom(&a, type_atom(o->type));
	node_arg_atom(&a, "patterns");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, (long)o->npatterns) == 0;
	for (size_t k = 0; k < o->npatterns; k++)
		arg_pattern(&a, &o->patterns[k]);
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	node_arg_atom(&a, "limit");
	a.ok = a.ok && ei_x_encode_ulong(&a.x, o->limit) == 0;
	node_arg_atom(&a, "force");
	node_arg_atom(&a, o->force ? "true" : "false");
	node_arg_atom(&a, "max_run_queue");
	a.ok = a.ok && ei_x_encode_ulong(&a.x, o->max_run_queue) == 0;
	node_arg_atom(&a, "per_process");
	node_arg_atom(&a, o->per_process ? "true" : "false");
	node_arg_atom(&a, "procs");
	if (o->procs == CALLS_PROCS_LIST) {
		a.ok = a.ok && ei_x_encode_tuple_header(&a.x, 3) == 0;
		node_arg_atom(&a, "list");
		node_arg_binaries(&a, o->pids, o->npids);
		node_arg_binaries(&a, o->names, o->nnames);
	} else {
		node_arg_atom(&a, o->procs == CALLS_PROCS_NEW ? "new" : "all");
	}
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	r = node_rex_call_pid(s->node, "erlang", "spawn", &a, &pid);
	if (r == 0)
		r = node_errf(s->node, NODE_ERR_AGENT, "cannot start the tracer on '%s' (spawn failed)", node_target(s->node));
	return r < 0 ? r : 0;
}

static int error_sentence(tracer_t *s, const struct calls_msg *m, const struct calls_options *o)
{
	const char *r = m->reason, *d = m->detail;
	if (strcmp(r, "lock_lost") == 0) {
		s->lock_busy = 1;
		return node_errf(s->node, NODE_ERR_BUSY,
			    "'%s' took longer to start the tracer than its lock lasts (%s); try again when the node is less busy",
			    node_target(s->node), d);
	}
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
	return node_errf(s->node, NODE_ERR_AGENT, "the tracer refused to start on '%s' (%s: %s)", node_target(s->node), r, d);
}

/* Waits for the tracer's first word, holding anything else. */
static int await_start(tracer_t *s, const struct calls_options *o, unsigned *nf, unsigned *np)
{
	long long deadline = fp_now_ms() + node_timeout_ms(s->node);
	const ei_x_buff *x;
	struct calls_msg *m = malloc(sizeof *m);
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
		int k = calls_decode(x->buff, (size_t)x->index, m, why, sizeof why);
		if (k == -2) {
			r = node_errf(s->node, NODE_ERR_NOMEM, "out of memory");
			break;
		}
		if (k < 0) {
			r = node_errf(s->node, NODE_ERR_PROTO, "cannot read a message from the tracer on '%s': %s", node_target(s->node), why);
			break;
		}
		if (k == CALLS_MSG_STARTED || k == CALLS_MSG_ERROR)
			tracer_adopted(s);
		if (k == CALLS_MSG_STARTED) {
			if (tracer_started(s, x) < 0) {
				r = node_errf(s->node, NODE_ERR_PROTO, "the tracer on '%s' sent no session pid", node_target(s->node));
				break;
			}
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

int calls_start(tracer_t **out, node_t *n, const struct calls_options *o, unsigned *nfunctions, unsigned *nprocs)
{
	int r;
	/* Holding the lock, no other session can be loading or running a tracer. */
	if ((r = tracer_begin(out, n, FP_TRACER_MODULE)) < 0)
		return r;
	tracer_t *s = *out;
	if ((r = node_load_embedded(n, &tracer_module)) < 0 || (r = spawn_tracer(s, o)) < 0 ||
	    (r = await_start(s, o, nfunctions, nprocs)) < 0) {
		tracer_failed(s, r);
		return r;
	}
	return 0;
}

int calls_wait(tracer_t *s, int timeout_ms, struct calls_result *early)
{
	const ei_x_buff *x;
	char why[160];
	int r = node_recv(s->node, fp_now_ms() + timeout_ms, &x);
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
	long long deadline = fp_now_ms() + 4LL * node_timeout_ms(s->node);
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
