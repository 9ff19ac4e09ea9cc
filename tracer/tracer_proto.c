/*
 * tracer_proto.c - the tracers' wire format and the readers
 * calls_decode.c and requests_decode.c share (see tracer_proto.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ei.h>
#include "tracer_proto.h"
#include "../node/term_check.h"

int tracer_tc_fail(struct tracer_cursor *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int tracer_tc_tuple(struct tracer_cursor *c, int arity)
{
	int n;
	if (ei_decode_tuple_header(c->buf, &c->i, &n) < 0 || n != arity)
		return tracer_tc_fail(c, "expected a tuple of %d at byte %d", arity, c->i);
	return 0;
}

int tracer_tc_u64(struct tracer_cursor *c, uint64_t *v)
{
	long long x;
	if (ei_decode_longlong(c->buf, &c->i, &x) < 0 || x < 0)
		return tracer_tc_fail(c, "expected a count at byte %d", c->i);
	*v = (uint64_t)x;
	return 0;
}

int tracer_tc_atom(struct tracer_cursor *c, char *out, size_t cap)
{
	char a[MAXATOMLEN_UTF8];
	if (ei_decode_atom(c->buf, &c->i, a) < 0)
		return tracer_tc_fail(c, "expected an atom at byte %d", c->i);
	if (strlen(a) >= cap)
		return tracer_tc_fail(c, "atom too long at byte %d", c->i);
	memcpy(out, a, strlen(a) + 1);
	return 0;
}

/* A binary of at most TRACER_MAX_TEXT bytes into *out (room for a NUL after
 * it), its length in *n. @return 0, -1 or -2. */
static int binary(struct tracer_cursor *c, char **out, long *n)
{
	int type, size;
	char *p;
	if (ei_get_type(c->buf, &c->i, &type, &size) < 0 || type != ERL_BINARY_EXT || size > TRACER_MAX_TEXT)
		return tracer_tc_fail(c, "expected a short binary at byte %d", c->i);
	if (!(p = malloc((size_t)size + 1)))
		return -2;
	if (ei_decode_binary(c->buf, &c->i, p, n) < 0) {
		free(p);
		return tracer_tc_fail(c, "bad binary at byte %d", c->i);
	}
	*out = p;
	return 0;
}

int tracer_tc_text(struct tracer_cursor *c, char **out)
{
	char *p;
	long n;
	int r = binary(c, &p, &n);
	if (r < 0)
		return r;
	if (memchr(p, '\0', (size_t)n)) {
		free(p);
		return tracer_tc_fail(c, "bad binary at byte %d", c->i);
	}
	p[n] = '\0';
	*out = p;
	return 0;
}

int tracer_tc_client_text(struct tracer_cursor *c, char **out)
{
	size_t nul = 0, i, o;
	char *p, *q;
	long n;
	int r = binary(c, &p, &n);
	if (r < 0)
		return r;
	for (i = 0; i < (size_t)n; i++)
		nul += p[i] == '\0';
	if (!nul) {
		p[n] = '\0';
		*out = p;
		return 0;
	}
	if (!(q = malloc((size_t)n + 2 * nul + 1))) { /* each NUL: three bytes */
		free(p);
		return -2;
	}
	for (i = 0, o = 0; i < (size_t)n; i++) {
		if (p[i] == '\0') {
			memcpy(q + o, "\xef\xbf\xbd", 3);
			o += 3;
		} else {
			q[o++] = p[i];
		}
	}
	q[o] = '\0';
	free(p);
	*out = q;
	return 0;
}

/* The head of {Tag, Proto, ...}: *arity, and Tag in tag (of
 * MAXATOMLEN_UTF8). @return 1 one of ours (Tag starts with prefix and
 * Proto is proto), 0 not ours, -1 ours with another protocol. */
static int tc_head(struct tracer_cursor *c, const char *prefix, long long proto, char *tag, int *arity)
{
	int version;
	long long p = -1;
	if (ei_decode_version(c->buf, &c->i, &version) < 0 ||
	    ei_decode_tuple_header(c->buf, &c->i, arity) < 0 || *arity < 2)
		return 0;
	if (ei_decode_atom(c->buf, &c->i, tag) < 0 || strncmp(tag, prefix, strlen(prefix)) != 0)
		return 0;
	if (ei_decode_longlong(c->buf, &c->i, &p) < 0 || p != proto)
		return tracer_tc_fail(c, "tracer protocol %lld, expected %lld", p, proto);
	return 1;
}

static int tc_started(struct tracer_cursor *c, unsigned *a, unsigned *b)
{
	uint64_t x = 0, y = 0;
	if (ei_skip_term(c->buf, &c->i) < 0 || tracer_tc_u64(c, &x) < 0 || tracer_tc_u64(c, &y) < 0)
		return -1;
	*a = x > UINT32_MAX ? UINT32_MAX : (unsigned)x;
	*b = y > UINT32_MAX ? UINT32_MAX : (unsigned)y;
	return 0;
}

static int tc_error(struct tracer_cursor *c, char *reason, size_t rcap, char *detail, size_t dcap)
{
	char *text = NULL;
	int r;
	if (tracer_tc_atom(c, reason, rcap) < 0)
		return -1;
	if ((r = tracer_tc_text(c, &text)) < 0)
		return r;
	snprintf(detail, dcap, "%s", text);
	free(text);
	return 0;
}

#define TC_MORE 3 /* ours, another tag: read on by tag and arity */

/* Opens a tracer's message of len bytes: exactly one well-formed term
 * (node_term_check()), its head (tc_head(): tag, arity), and the two
 * first words into *f. @return TRACER_OTHER (not ours), TRACER_STARTED,
 * TRACER_ERROR, TC_MORE (ours, another tag: the caller reads on by
 * tag and arity), or -1 / -2 as the readers. */
static int tc_open(struct tracer_cursor *c, size_t len, const char *prefix, long long proto, char *tag, int *arity,
		   const struct tracer_first *f)
{
	size_t n = strlen(prefix);
	int r;
	if (node_term_check(c->buf, len) < 0)
		return TRACER_OTHER; /* a fun, a term too deep: a stranger's, not the tracer's */
	if ((r = tc_head(c, prefix, proto, tag, arity)) <= 0)
		return r < 0 ? r : TRACER_OTHER;
	if (strcmp(tag + n, "started") == 0 && *arity == 5)
		return tc_started(c, f->a, f->b) < 0 ? -1 : TRACER_STARTED;
	if (strcmp(tag + n, "error") == 0 && *arity == 4)
		return (r = tc_error(c, f->reason, f->rcap, f->detail, f->dcap)) < 0 ? r : TRACER_ERROR;
	return TC_MORE;
}

int tracer_decode(const struct tracer_proto *p, const char *buf, size_t len, const struct tracer_first *f,
		  void *out, char *err, size_t errlen)
{
	struct tracer_cursor c = { buf, 0, err, errlen };
	char tag[MAXATOMLEN_UTF8];
	int arity, r = tc_open(&c, len, p->prefix, p->proto, tag, &arity, f);
	if (r != TC_MORE)
		return r;
	for (size_t k = 0; k < p->nbodies; k++)
		if (strcmp(tag, p->bodies[k].tag) == 0 && arity == p->bodies[k].arity)
			return (r = p->bodies[k].read(&c, out)) < 0 ? r : p->bodies[k].msg;
	return tracer_tc_fail(&c, "unknown message '%s'/%d", tag, arity);
}

const struct tracer_body *tracer_body_of(const struct tracer_proto *p, int msg)
{
	for (size_t k = 0; k < p->nbodies; k++)
		if (p->bodies[k].msg == msg)
			return &p->bodies[k];
	return NULL;
}
