/*
 * hash.h - the hashes of every open-addressing table (common/slots.h and
 * the tables that keep records in their slots): fp_hash32 for strings and
 * arrays, fast on short keys (8 bytes a step), fp_mix64 for one integer
 * key. Good enough for open addressing: every hit is confirmed by
 * comparing the keys. fp_hash128, from the same pass, is for the one
 * table whose keys are not kept (index/ix_write.c).
 */
#ifndef FP_HASH_H
#define FP_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* One pass over the bytes, 8 at a time: lane a, and lane b where asked
 * for (a second, independent lane: added words, other multipliers), each
 * still to be finalised. */
static inline uint64_t fp_hash_lanes(uint64_t a, uint64_t *b, const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t c = b ? *b : 0; /* in a register: a store through b might alias s */
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		a = (a ^ w) * 0xff51afd7ed558ccdull;
		a ^= a >> 32;
		if (b) {
			c = (c + w) * 0xc4ceb9fe1a85ec53ull;
			c ^= c >> 29;
		}
	}
	for (; i < len; i++) {
		a = (a ^ s[i]) * 0x100000001b3ull;
		if (b)
			c = (c + s[i]) * 0x9e3779b97f4a7c15ull;
	}
	if (b)
		*b = c;
	return a;
}

static inline uint32_t fp_hash32(uint64_t seed, const void *p, size_t len)
{
	uint64_t h = fp_hash_lanes(0x9e3779b97f4a7c15ull ^ seed ^ len, NULL, p, len);
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 32;
	return (uint32_t)h;
}

/* 128 bits in two lanes of one pass, for a key that is never compared
 * (the index writer's cache of frame blocks): both halves must match. */
static inline void fp_hash128(const void *p, size_t len, uint64_t *h1, uint64_t *h2)
{
	uint64_t b = 0x13198a2e03707344ull;
	uint64_t a = fp_hash_lanes(0x243f6a8885a308d3ull ^ len, &b, p, len);
	a ^= a >> 33;
	b ^= b >> 32;
	*h1 = a * 0x9e3779b97f4a7c15ull;
	*h2 = b * 0xff51afd7ed558ccdull;
}

/* splitmix64's finaliser: spreads dense integers (pid numbers, node ids)
 * over every bit. */
static inline uint64_t fp_mix64(uint64_t k)
{
	k ^= k >> 30;
	k *= UINT64_C(0xbf58476d1ce4e5b9);
	k ^= k >> 27;
	k *= UINT64_C(0x94d049bb133111eb);
	k ^= k >> 31;
	return k;
}

#endif
