/*
 * hash.h - the hashes of every open-addressing table (common/slots.h and
 * the tables that keep records in their slots): fp_hash32 for strings and
 * arrays, fast on short keys (8 bytes a step), fp_mix64 for one integer
 * key. Good enough for open addressing: every hit is confirmed by
 * comparing the keys.
 */
#ifndef FP_HASH_H
#define FP_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t fp_hash32(uint64_t seed, const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ seed ^ len;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	for (; i < len; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 32;
	return (uint32_t)h;
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
