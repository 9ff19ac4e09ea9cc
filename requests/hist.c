/*
 * hist.c - log-linear histogram buckets and quantiles.
 */
#include <math.h>
#include "hist.h"

static unsigned log2u(uint64_t v)
{
	unsigned e = 0;
	while (v > 1) {
		v >>= 1;
		e++;
	}
	return e;
}

unsigned hist_bucket(uint64_t us)
{
	if (us < 32)
		return (unsigned)us;
	unsigned e = log2u(us);
	if (e > HIST_MAX_EXP)
		return HIST_BUCKETS - 1;
	return 32 * (e - 4) + (unsigned)(us >> (e - 5)) - 32;
}

uint64_t hist_bucket_low(unsigned b)
{
	if (b < 64)
		return b;
	unsigned e = b / 32 + 4;
	return (uint64_t)(b % 32 + 32) << (e - 5);
}

uint64_t hist_bucket_width(unsigned b)
{
	return b < 64 ? 1 : (uint64_t)1 << (b / 32 + 4 - 5);
}

void hist_add(struct hist *h, uint64_t us)
{
	h->count++;
	h->sum += us;
	if (us > h->max)
		h->max = us;
	h->n[hist_bucket(us)]++;
}

void hist_add_bucket(struct hist *h, unsigned b, uint64_t n)
{
	h->n[b < HIST_BUCKETS ? b : HIST_BUCKETS - 1] += n;
}

void hist_merge(struct hist *into, const struct hist *from)
{
	into->count += from->count;
	into->sum += from->sum;
	if (from->max > into->max)
		into->max = from->max;
	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		into->n[b] += from->n[b];
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t total = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		total += h->n[b];
	if (total == 0)
		return 0;
	if (q >= 1.0)
		return h->max;
	uint64_t rank = (uint64_t)ceil(q * (double)total), seen = 0;
	if (rank < 1)
		rank = 1;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += h->n[b];
		if (seen >= rank) {
			uint64_t mid = hist_bucket_low(b) + hist_bucket_width(b) / 2;
			return h->max && mid > h->max ? h->max : mid;
		}
	}
	return h->max;
}
