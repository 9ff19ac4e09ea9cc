/*
 * clock.h - the one monotonic clock: milliseconds that never go back, for
 * deadlines and intervals (never for time stamps in files: those are
 * CLOCK_REALTIME where they are taken).
 */
#ifndef FP_CLOCK_H
#define FP_CLOCK_H

#include <time.h>

/* CLOCK_MONOTONIC in milliseconds. */
static inline long long fp_mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
