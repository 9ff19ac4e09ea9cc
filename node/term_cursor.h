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

/* What every tracer says first: {<prefix>started, Proto, Session, A, B}
 * (the counts each capped at UINT32_MAX) or {<prefix>error, Proto, Reason,
 * Detail} (an atom and a binary, cut to fit). */
struct node_tc_first {
	unsigned *a, *b;
	char *reason, *detail;
	size_t rcap, dcap;
};
enum { NODE_TC_OTHER, NODE_TC_STARTED, NODE_TC_ERROR };

/* A message a tracer sends after its first words: {Tag, Proto, ...} of
 * this arity, read by read() into the caller's message out (read() frees
 * what it read when it fails; @return 0, -1 or -2), said as msg. */
struct node_tc_body {
	const char *tag;
	int arity;
	int msg;
	int (*read)(struct term_cursor *c, void *out);
};
/* A tracer's words: their tag prefix ("fp_calls_"), protocol, and bodies. */
struct node_tc_proto {
	const char *prefix;
	long long proto;
	const struct node_tc_body *bodies;
	size_t nbodies;
};
/* Decodes one message of len bytes of the tracer p speaks for: exactly
 * one well-formed term (node_term_check()), its head {Tag, Proto, ...}
 * (Tag starting with p's prefix, Proto p's protocol), the first words read
 * into *f, any other tag by the body of its tag and arity into out. The caller's codes start as NODE_TC_OTHER, NODE_TC_STARTED,
 * NODE_TC_ERROR. @return one of those three, the body's msg, or -1
 * (malformed, err says why; a tag of ours with no body too) / -2. */
int node_tc_decode(const struct node_tc_proto *p, const char *buf, size_t len, const struct node_tc_first *f,
		   void *out, char *err, size_t errlen);

#endif
