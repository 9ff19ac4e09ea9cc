/*
 * rnd.h - the tests' reproducible pseudo-random numbers (Marsaglia's
 * xorshift64): the state is the caller's, so each file keeps its own seed
 * and a failure names the seed that shows it again.
 */
#ifndef FP_TEST_RND_H
#define FP_TEST_RND_H

#include <stdint.h>

static inline uint64_t xorshift64(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

#endif
