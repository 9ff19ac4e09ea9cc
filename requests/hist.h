/*
 * hist.h - a log-linear histogram of microseconds: exact below 32 us, then
 * 32 buckets per power of two (each about 3 % wide), so percentiles come
 * from the distribution in bounded memory, never from averages. The
 * bucket index is the one the node's tracer computes
 * (requests/flameprof_requests.erl, bucket/1).
 */
#ifndef FP_HIST_H
#define FP_HIST_H

#include <stdint.h>

/* Up to 2^40 us (12 days); larger values land in the last bucket. */
#define HIST_MAX_EXP 40
#define HIST_BUCKETS (32 * (HIST_MAX_EXP - 4) + 32)

struct hist {
	uint64_t count, sum, max;
	uint64_t n[HIST_BUCKETS];
};

unsigned hist_bucket(uint64_t us);
/* The smallest value of bucket b, and its width. */
uint64_t hist_bucket_low(unsigned b);
uint64_t hist_bucket_width(unsigned b);

void hist_add(struct hist *h, uint64_t us);
/* Adds n values that fell in bucket b (as the node sends them); b past the
 * last bucket counts in the last. */
void hist_add_bucket(struct hist *h, unsigned b, uint64_t n);
void hist_merge(struct hist *into, const struct hist *from);
/* The value at quantile q (0 < q <= 1): the middle of the bucket holding
 * it, never above max; q = 1 is max. 0 for an empty histogram. */
uint64_t hist_quantile(const struct hist *h, double q);

#endif
