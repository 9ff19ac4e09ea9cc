/*
 * calls_decode.c - the tracer's messages (flameprof_tracer.erl) into
 * struct calls_msg. A message is first walked by node_term_check() with its
 * length, then decoded with ei; every size is checked before it is used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ei.h>
#include "calls.h"
#include "../common/ctl_escape.h"
#include "../tracer/tracer_proto.h"

#define PROTO 1

void calls_result_free(struct calls_result *r)
{
	for (size_t k = 0; k < r->nrows; k++) {
		free(r->rows[k].mfa);
		free(r->rows[k].pid);
		free(r->rows[k].name);
	}
	for (size_t k = 0; k < r->nreloaded; k++)
		free(r->reloaded[k]);
	free(r->rows);
	free(r->reloaded);
	memset(r, 0, sizeof *r);
}

/* The text with its control bytes as \xNN: rows reach the terminal. */
static char *escaped(const char *text)
{
	size_t n = strlen(text), cap = 4 * n + 1;
	char *e = malloc(cap);
	if (e)
		fp_ctl_escape(e, cap, text, n);
	return e;
}

/* {Module, Function, Arity, Pid, Name, Calls, Measure} */
static int get_row(struct tracer_cursor *c, struct calls_row *row)
{
	char *mod = NULL, *fun = NULL, *pid = NULL, *name = NULL;
	uint64_t arity = 0;
	int r;
	if (tracer_tc_tuple(c, 7) < 0)
		return -1;
	/* an atom may hold a NUL (a function 'a\0b', a registered name): it
	 * becomes U+FFFD, as in a request's identity, and the run goes on */
	if ((r = tracer_tc_client_text(c, &mod)) < 0)
		return r;
	if ((r = tracer_tc_client_text(c, &fun)) < 0 || (r = tracer_tc_u64(c, &arity)) < 0 || arity > 255 ||
	    (r = tracer_tc_text(c, &pid)) < 0 || (r = tracer_tc_client_text(c, &name)) < 0 ||
	    (r = tracer_tc_u64(c, &row->calls)) < 0 ||
	    (r = tracer_tc_u64(c, &row->measure)) < 0)
		goto out;
	char *m = escaped(mod), *f = escaped(fun);
	size_t n = (m ? strlen(m) : 0) + (f ? strlen(f) : 0) + 8;
	row->mfa = m && f ? malloc(n) : NULL;
	row->pid = escaped(pid);
	row->name = escaped(name);
	if (row->mfa)
		snprintf(row->mfa, n, "%s:%s/%u", m, f, (unsigned)arity);
	free(m);
	free(f);
	r = row->mfa && row->pid && row->name ? 0 : -2;
out:
	if (r == 0 && arity > 255)
		r = tracer_tc_fail(c, "arity out of range");
	free(mod);
	free(fun);
	free(pid);
	free(name);
	return r;
}

static int get_result(struct tracer_cursor *c, struct calls_result *res)
{
	char type[32];
	int n, r;
	if (tracer_tc_atom(c, type, sizeof type) < 0)
		return -1;
	if (strcmp(type, "call_count") == 0)
		res->type = CALLS_COUNT;
	else if (strcmp(type, "call_time") == 0)
		res->type = CALLS_TIME;
	else if (strcmp(type, "call_memory") == 0)
		res->type = CALLS_MEMORY;
	else
		return tracer_tc_fail(c, "unknown type '%s'", type);
	if (ei_decode_list_header(c->buf, &c->i, &n) < 0 || n < 0)
		return tracer_tc_fail(c, "expected the rows at byte %d", c->i);
	if (n > 0 && !(res->rows = calloc((size_t)n, sizeof *res->rows)))
		return -2;
	for (int k = 0; k < n; k++) {
		res->nrows++;
		if ((r = get_row(c, &res->rows[k])) < 0)
			return r;
	}
	if (n > 0 && ei_decode_list_header(c->buf, &c->i, &n) < 0)
		return tracer_tc_fail(c, "rows not ended at byte %d", c->i);
	if (ei_decode_list_header(c->buf, &c->i, &n) < 0 || n < 0)
		return tracer_tc_fail(c, "expected the reloaded modules at byte %d", c->i);
	if (n > 0 && !(res->reloaded = calloc((size_t)n, sizeof *res->reloaded)))
		return -2;
	for (int k = 0; k < n; k++) {
		res->nreloaded++;
		if ((r = tracer_tc_client_text(c, &res->reloaded[k])) < 0)
			return r;
	}
	if (n > 0 && ei_decode_list_header(c->buf, &c->i, &n) < 0)
		return tracer_tc_fail(c, "modules not ended at byte %d", c->i);
	long long elapsed;
	if (tracer_tc_tuple(c, 3) < 0 || ei_decode_longlong(c->buf, &c->i, &elapsed) < 0 ||
	    tracer_tc_u64(c, &res->rows_left_out) < 0)
		return tracer_tc_fail(c, "expected {Elapsed, LeftOut, Why} at byte %d", c->i);
	res->elapsed_us = elapsed;
	/* Why: stopped, or {overload, RunQueue, Limit} */
	char why[16];
	int at = c->i;
	if (tracer_tc_atom(c, why, sizeof why) == 0)
		return strcmp(why, "stopped") == 0 ? 0 : tracer_tc_fail(c, "unknown end '%s'", why);
	c->i = at;
	if (tracer_tc_tuple(c, 3) < 0 || tracer_tc_atom(c, why, sizeof why) < 0 || strcmp(why, "overload") != 0 ||
	    tracer_tc_u64(c, &res->run_queue) < 0 || tracer_tc_u64(c, &res->run_queue_limit) < 0)
		return tracer_tc_fail(c, "expected stopped or {overload, RunQueue, Limit} at byte %d", c->i);
	res->overload = 1;
	return 0;
}

static int read_result(struct tracer_cursor *c, void *out)
{
	struct calls_msg *m = out;
	int r = get_result(c, &m->result);
	if (r < 0)
		calls_result_free(&m->result);
	return r;
}

_Static_assert((int)CALLS_MSG_OTHER == TRACER_OTHER && (int)CALLS_MSG_STARTED == TRACER_STARTED &&
		       (int)CALLS_MSG_ERROR == TRACER_ERROR,
	       "the first words' codes are tracer_decode()'s");
static void drop_result(void *out)
{
	calls_result_free(&((struct calls_msg *)out)->result);
}

static const struct tracer_body bodies[] = {
	{ "fp_calls_result", 6, CALLS_MSG_RESULT, read_result, drop_result, 1 },
};
const struct tracer_proto calls_proto = { "fp_calls_", PROTO, bodies, sizeof bodies / sizeof bodies[0],
					  sizeof(struct calls_msg) };

int calls_decode(const char *buf, size_t len, struct calls_msg *out, char *err, size_t errlen)
{
	struct tracer_first f = { &out->nfunctions, &out->nprocs, out->reason, out->detail, sizeof out->reason,
				   sizeof out->detail };
	memset(out, 0, sizeof *out);
	return tracer_decode(&calls_proto, buf, len, &f, out, err, errlen);
}
