/* term_check.h - is this buffer exactly one well-formed external term? */
#ifndef FP_TERM_CHECK_H
#define FP_TERM_CHECK_H
#include <stddef.h>
/* buf starts with the version byte (131). @return 0 when buf holds exactly
 * one term within len bytes and at most 64 levels deep, -1 otherwise. */
int node_term_check(const char *buf, size_t len);
/* The same walk over the first term of buf (what follows it is not
 * looked at). @return its size with the version byte, or -1. */
long node_term_size(const char *buf, size_t len);
#endif
