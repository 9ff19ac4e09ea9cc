/*
 * clock.h - the one monotonic clock every wait and deadline is measured on.
 */
#ifndef FP_CLOCK_H
#define FP_CLOCK_H

/* Milliseconds on CLOCK_MONOTONIC (never jumps with the wall clock). */
long long fp_now_ms(void);

#endif
