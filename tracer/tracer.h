/*
 * tracer.h - the door of tracer/: the tracers' protocol, one tracing
 * session on a node (tracer_session.h) and its messages (tracer_proto.h).
 * This is the handle `flameprof calls` (calls/calls.h) and `flameprof
 * requests` (requests/requests.h) start, read, stop and free; opaque.
 */
#ifndef FP_TRACER_H
#define FP_TRACER_H

typedef struct tracer_s tracer_t;

/* Frees the session's handle (not its node). */
void tracer_free(tracer_t *t);

#endif
