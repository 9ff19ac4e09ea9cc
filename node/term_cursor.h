/*
 * term_cursor.h - reading a message of a tracer (calls_decode.c,
 * requests_decode.c) that node_term_check() has already walked: a cursor over
 * the buffer and the readers both decoders use. Each returns 0, or -1 with
 * the cursor's err set to a short reason (node_tc_text also -2: out of memory).
 */
#ifndef FLAMEPROF_TERM_CURSOR_H
#define FLAMEPROF_TERM_CURSOR_H
#include <stddef.h>
#include <stdint.h>

#define TC_MAX_TEXT 4096   /* a module or function name is at most 255 characters */

struct term_cursor {
	const char *buf;
	int i;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
int node_tc_fail(struct term_cursor *c, const char *fmt, ...);
int node_tc_tuple(struct term_cursor *c, int arity);
int node_tc_u64(struct term_cursor *c, uint64_t *v);
int node_tc_atom(struct term_cursor *c, char *out, size_t cap);
/* A binary of at most TC_MAX_TEXT bytes into a fresh NUL-terminated
 * string (NUL bytes refused). */
int node_tc_text(struct term_cursor *c, char **out);
/* The same for text a client chose (a request's identity, a tier): a NUL
 * byte is accepted and becomes U+FFFD, so one odd request does not end
 * the run. */
int node_tc_client_text(struct term_cursor *c, char **out);

/* The head of {Tag, Proto, ...}: *arity, and Tag in tag (of
 * MAXATOMLEN_UTF8). @return 1 one of ours (Tag starts with prefix and
 * Proto is proto), 0 not ours, -1 ours with another protocol. */
int node_tc_head(struct term_cursor *c, const char *prefix, long long proto, char *tag, int *arity);
/* The rest of a {Tag, Proto, Session, A, B} "started" message: skips the
 * session pid and reads the two counts, each capped at UINT32_MAX.
 * @return 0 or -1. */
int node_tc_started(struct term_cursor *c, unsigned *a, unsigned *b);
/* The body of {_, _, Reason, Detail}: an atom and a binary, the binary cut
 * to fit. @return 0, -1 or -2. */
int node_tc_error(struct term_cursor *c, char *reason, size_t rcap, char *detail, size_t dcap);

/* What every tracer says first: {<prefix>started, Proto, Session, A, B}
 * or {<prefix>error, Proto, Reason, Detail}. */
struct node_tc_first {
	unsigned *a, *b;
	char *reason, *detail;
	size_t rcap, dcap;
};
enum { NODE_TC_OTHER, NODE_TC_STARTED, NODE_TC_ERROR, NODE_TC_MORE };
/* Opens a tracer's message of len bytes: exactly one well-formed term
 * (node_term_check()), its head (node_tc_head(): tag, arity), and the two
 * first words into *f. @return NODE_TC_OTHER (not ours), NODE_TC_STARTED,
 * NODE_TC_ERROR, NODE_TC_MORE (ours, another tag: the caller reads on by
 * tag and arity), or -1 / -2 as the readers. */
int node_tc_open(struct term_cursor *c, size_t len, const char *prefix, long long proto, char *tag, int *arity,
		 const struct node_tc_first *f);

#endif
