/*
 * tracer.h - the door of tracer/: one tracing session on a node, the
 * handle `flameprof calls` (calls/calls.h) and `flameprof requests`
 * (requests/requests.h) start, stop and free.
 */
#ifndef FP_TRACER_H
#define FP_TRACER_H

typedef struct tracer_s tracer_t;

/* Frees the session's handle (not its node). */
void tracer_free(tracer_t *t);

#endif
