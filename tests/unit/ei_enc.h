/*
 * ei_enc.h - the unit tests' encoders of Erlang terms (what a node or our
 * tracers send): ei's, each aborting on a failure, which is a bug in the
 * test, so that a test never goes on with half a message.
 */
#ifndef FP_TEST_EI_ENC_H
#define FP_TEST_EI_ENC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ei.h>

#define E(call) do { if ((call) < 0) { fprintf(stderr, "encode failed: %s\n", #call); abort(); } } while (0)

static inline void atom(ei_x_buff *x, const char *a) { E(ei_x_encode_atom(x, a)); }
static inline void lng(ei_x_buff *x, long long v) { E(ei_x_encode_longlong(x, v)); }
static inline void bin(ei_x_buff *x, const char *s) { E(ei_x_encode_binary(x, s, (int)strlen(s))); }
static inline void tup(ei_x_buff *x, int n) { E(ei_x_encode_tuple_header(x, n)); }
static inline void lst(ei_x_buff *x, int n) { if (n) E(ei_x_encode_list_header(x, n)); }
static inline void nil(ei_x_buff *x) { E(ei_x_encode_empty_list(x)); }

#endif
