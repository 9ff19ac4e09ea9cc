/*
 * tracer_proto.h - the tracers' wire format: what every tracer's message
 * looks like ({Tag, Proto, ...}, its first words started and error), the
 * check that a message is one of ours in our protocol, and a cursor with
 * the readers both decoders (calls_decode.c, requests_decode.c) use on a
 * message that node_term_check() has already walked. Each reader returns
 * 0, or -1 with the cursor's err set to a short reason (tracer_tc_text
 * also -2: out of memory).
 */
#ifndef FLAMEPROF_TRACER_PROTO_H
#define FLAMEPROF_TRACER_PROTO_H
#include <stddef.h>
#include <stdint.h>

#define TRACER_MAX_TEXT 4096   /* a module or function name is at most 255 characters */

struct tracer_cursor {
	const char *buf;
	int i;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
int tracer_tc_fail(struct tracer_cursor *c, const char *fmt, ...);
int tracer_tc_tuple(struct tracer_cursor *c, int arity);
int tracer_tc_u64(struct tracer_cursor *c, uint64_t *v);
int tracer_tc_atom(struct tracer_cursor *c, char *out, size_t cap);
/* A binary of at most TRACER_MAX_TEXT bytes into a fresh NUL-terminated
 * string (NUL bytes refused). */
int tracer_tc_text(struct tracer_cursor *c, char **out);
/* The same for text a client chose (a request's identity, a tier): a NUL
 * byte is accepted and becomes U+FFFD, so one odd request does not end
 * the run. */
int tracer_tc_client_text(struct tracer_cursor *c, char **out);

/* What every tracer says first: {<prefix>started, Proto, Session, A, B}
 * (the counts each capped at UINT32_MAX) or {<prefix>error, Proto, Reason,
 * Detail} (an atom and a binary, cut to fit). */
struct tracer_first {
	unsigned *a, *b;
	char *reason, *detail;
	size_t rcap, dcap;
};
enum { TRACER_OTHER, TRACER_STARTED, TRACER_ERROR };

/* A message a tracer sends after its first words: {Tag, Proto, ...} of
 * this arity, read by read() into the caller's message out (read() frees
 * what it read when it fails; @return 0, -1 or -2), said as msg; drop()
 * frees what read() put into out, for a message nobody takes (NULL:
 * nothing to free). A message that ends the session (ends: its last word,
 * the results or stopped) marks it ended (tracer_recv()). */
struct tracer_body {
	const char *tag;
	int arity;
	int msg;
	int (*read)(struct tracer_cursor *c, void *out);
	void (*drop)(void *out);
	int ends;
};
/* A tracer's words: their tag prefix ("fp_calls_"), protocol, and bodies,
 * read into a message of msg_size bytes (the tracer's own struct). */
struct tracer_proto {
	const char *prefix;
	long long proto;
	const struct tracer_body *bodies;
	size_t nbodies;
	size_t msg_size;
};
/* Decodes one message of len bytes of the tracer p speaks for: exactly
 * one well-formed term (node_term_check()), its head {Tag, Proto, ...}
 * (Tag starting with p's prefix, Proto p's protocol), the first words read
 * into *f, any other tag by the body of its tag and arity into out.
 * The caller's codes start as TRACER_OTHER, TRACER_STARTED, TRACER_ERROR. @return one of those three, the body's msg, or -1
 * (malformed, err says why; a tag of ours with no body too) / -2. */
int tracer_decode(const struct tracer_proto *p, const char *buf, size_t len, const struct tracer_first *f,
		  void *out, char *err, size_t errlen);
/* The body p reads for the code msg, or NULL (a first word, another's). */
const struct tracer_body *tracer_body_of(const struct tracer_proto *p, int msg);

#endif
