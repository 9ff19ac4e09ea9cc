/*
 * epmd_reply.h - reading epmd's answers (private to node/; the unit
 * tests and the fuzzer use it directly). epmd on the target host is not
 * trusted: each answer is read within the bytes received, and only names
 * a node can have are passed on (to a message on the terminal).
 * Protocol: erts/doc "Distribution Protocol", PORT2_RESP and NAMES_RESP.
 */
#ifndef FP_EPMD_REPLY_H
#define FP_EPMD_REPLY_H

#include <stddef.h>

/* PORT2_RESP, the n bytes received (flameprof reads the first 4).
 * @return the port (1..65535), 0 epmd does not know the node, -1 not a
 * valid answer. */
int node_epmd_port_reply(const unsigned char *buf, size_t n);

/* NAMES_RESP, the n bytes received: the names of its "name N at port P"
 * lines that are node names (letters, digits, '_', '-'; at most 255), as
 * "'a', 'b'" in out; the others are left out. Never more than cap bytes
 * (cap > 0), always NUL-terminated. */
void node_epmd_names_reply(const unsigned char *buf, size_t n, char *out, size_t cap);

#endif
