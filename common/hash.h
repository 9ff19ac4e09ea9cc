/*
 * ix_hash.h - the hash the index writer's and report/'s tables share: fast on short strings
 * (8 bytes a step), good enough for open addressing; every hit is
 * confirmed by comparing the keys.
 */
#ifndef IX_HASH_H
#define IX_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t ix_hash32(uint64_t seed, const void *p, size_t len)
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

#endif
