/*
 * calls_decode.c - the tracer's messages (flameprof_tracer.erl) into
 * struct calls_msg. A message is first walked by term_check() with its
 * length, then decoded with ei; every size is checked before it is used.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ei.h>
#include "calls.h"
#include "term_check.h"

#define PROTO 1
#define MAX_TEXT 4096   /* a module or function name is at most 255 characters */

struct cur {
	const char *buf;
	int i;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct cur *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int get_tuple(struct cur *c, int arity)
{
	int n;
	if (ei_decode_tuple_header(c->buf, &c->i, &n) < 0 || n != arity)
		return fail(c, "expected a tuple of %d at byte %d", arity, c->i);
	return 0;
}

static int get_u64(struct cur *c, uint64_t *v)
{
	long long x;
	if (ei_decode_longlong(c->buf, &c->i, &x) < 0 || x < 0)
		return fail(c, "expected a count at byte %d", c->i);
	*v = (uint64_t)x;
	return 0;
}

static int get_atom(struct cur *c, char *out, size_t cap)
{
	char a[MAXATOMLEN_UTF8];
	if (ei_decode_atom(c->buf, &c->i, a) < 0)
		return fail(c, "expected an atom at byte %d", c->i);
	if (strlen(a) >= cap)
		return fail(c, "atom too long at byte %d", c->i);
	memcpy(out, a, strlen(a) + 1);
	return 0;
}

/* A binary into a fresh NUL-terminated string (NUL bytes refused). */
static int get_text(struct cur *c, char **out)
{
	int type, size;
	long n;
	if (ei_get_type(c->buf, &c->i, &type, &size) < 0 || type != ERL_BINARY_EXT || size > MAX_TEXT)
		return fail(c, "expected a short binary at byte %d", c->i);
	char *p = malloc((size_t)size + 1);
	if (!p)
		return -2;
	if (ei_decode_binary(c->buf, &c->i, p, &n) < 0 || memchr(p, '\0', (size_t)n)) {
		free(p);
		return fail(c, "bad binary at byte %d", c->i);
	}
	p[n] = '\0';
	*out = p;
	return 0;
}

void calls_result_free(struct calls_result *r)
{
	for (size_t k = 0; k < r->nrows; k++) {
		free(r->rows[k].mfa);
		free(r->rows[k].pid);
	}
	for (size_t k = 0; k < r->nreloaded; k++)
		free(r->reloaded[k]);
	free(r->rows);
	free(r->reloaded);
	memset(r, 0, sizeof *r);
}

/* {Module, Function, Arity, Pid, Calls, Measure} */
static int get_row(struct cur *c, struct calls_row *row)
{
	char *mod = NULL, *fun = NULL;
	uint64_t arity = 0;
	int r;
	if (get_tuple(c, 6) < 0)
		return -1;
	if ((r = get_text(c, &mod)) < 0)
		return r;
	if ((r = get_text(c, &fun)) < 0 || (r = get_u64(c, &arity)) < 0 || arity > 255 ||
	    (r = get_text(c, &row->pid)) < 0 || (r = get_u64(c, &row->calls)) < 0 ||
	    (r = get_u64(c, &row->measure)) < 0)
		goto out;
	size_t n = strlen(mod) + strlen(fun) + 8;
	row->mfa = malloc(n);
	if (!row->mfa) {
		r = -2;
		goto out;
	}
	snprintf(row->mfa, n, "%s:%s/%u", mod, fun, (unsigned)arity);
	r = 0;
out:
	if (r == 0 && arity > 255)
		r = fail(c, "arity out of range");
	free(mod);
	free(fun);
	return r;
}

static int get_result(struct cur *c, struct calls_result *res)
{
	char type[32];
	int n, r;
	if (get_atom(c, type, sizeof type) < 0)
		return -1;
	if (strcmp(type, "call_count") == 0)
		res->type = CALLS_COUNT;
	else if (strcmp(type, "call_time") == 0)
		res->type = CALLS_TIME;
	else if (strcmp(type, "call_memory") == 0)
		res->type = CALLS_MEMORY;
	else
		return fail(c, "unknown type '%s'", type);
	if (ei_decode_list_header(c->buf, &c->i, &n) < 0 || n < 0)
		return fail(c, "expected the rows at byte %d", c->i);
	if (n > 0 && !(res->rows = calloc((size_t)n, sizeof *res->rows)))
		return -2;
	for (int k = 0; k < n; k++) {
		res->nrows++;
		if ((r = get_row(c, &res->rows[k])) < 0)
			return r;
	}
	if (n > 0 && ei_decode_list_header(c->buf, &c->i, &n) < 0)
		return fail(c, "rows not ended at byte %d", c->i);
	if (ei_decode_list_header(c->buf, &c->i, &n) < 0 || n < 0)
		return fail(c, "expected the reloaded modules at byte %d", c->i);
	if (n > 0 && !(res->reloaded = calloc((size_t)n, sizeof *res->reloaded)))
		return -2;
	for (int k = 0; k < n; k++) {
		res->nreloaded++;
		if ((r = get_text(c, &res->reloaded[k])) < 0)
			return r;
	}
	if (n > 0 && ei_decode_list_header(c->buf, &c->i, &n) < 0)
		return fail(c, "modules not ended at byte %d", c->i);
	long long elapsed;
	if (get_tuple(c, 3) < 0 || ei_decode_longlong(c->buf, &c->i, &elapsed) < 0 ||
	    get_u64(c, &res->rows_left_out) < 0)
		return fail(c, "expected {Elapsed, LeftOut, Why} at byte %d", c->i);
	res->elapsed_us = elapsed;
	/* Why: stopped, or {overload, RunQueue, Limit} */
	char why[16];
	int at = c->i;
	if (get_atom(c, why, sizeof why) == 0)
		return strcmp(why, "stopped") == 0 ? 0 : fail(c, "unknown end '%s'", why);
	c->i = at;
	if (get_tuple(c, 3) < 0 || get_atom(c, why, sizeof why) < 0 || strcmp(why, "overload") != 0 ||
	    get_u64(c, &res->run_queue) < 0 || get_u64(c, &res->run_queue_limit) < 0)
		return fail(c, "expected stopped or {overload, RunQueue, Limit} at byte %d", c->i);
	res->overload = 1;
	return 0;
}

int calls_decode(const char *buf, size_t len, struct calls_msg *out, char *err, size_t errlen)
{
	struct cur c = { buf, 0, err, errlen };
	char tag[MAXATOMLEN_UTF8];
	int version, arity, r;
	long long proto;

	memset(out, 0, sizeof *out);
	if (term_check(buf, len) < 0)
		return fail(&c, "not one well-formed term");
	if (ei_decode_version(buf, &c.i, &version) < 0 ||
	    ei_decode_tuple_header(buf, &c.i, &arity) < 0 || arity < 2)
		return CALLS_MSG_OTHER;
	if (ei_decode_atom(buf, &c.i, tag) < 0 || strncmp(tag, "fp_calls_", 9) != 0)
		return CALLS_MSG_OTHER;
	if (ei_decode_longlong(buf, &c.i, &proto) < 0 || proto != PROTO)
		return fail(&c, "tracer protocol %lld, expected %d", proto, PROTO);
	if (strcmp(tag, "fp_calls_started") == 0 && arity == 5) {
		uint64_t nf = 0, np = 0;
		if (ei_skip_term(buf, &c.i) < 0 || get_u64(&c, &nf) < 0 || get_u64(&c, &np) < 0)
			return -1;
		out->nfunctions = nf > UINT32_MAX ? UINT32_MAX : (unsigned)nf;
		out->nprocs = np > UINT32_MAX ? UINT32_MAX : (unsigned)np;
		return CALLS_MSG_STARTED;
	}
	if (strcmp(tag, "fp_calls_error") == 0 && arity == 4) {
		char *detail = NULL;
		if (get_atom(&c, out->reason, sizeof out->reason) < 0)
			return -1;
		if ((r = get_text(&c, &detail)) < 0)
			return r;
		snprintf(out->detail, sizeof out->detail, "%s", detail);
		free(detail);
		return CALLS_MSG_ERROR;
	}
	if (strcmp(tag, "fp_calls_result") == 0 && arity == 6) {
		if ((r = get_result(&c, &out->result)) < 0) {
			calls_result_free(&out->result);
			return r;
		}
		return CALLS_MSG_RESULT;
	}
	return fail(&c, "unknown message '%s'/%d", tag, arity);
}
