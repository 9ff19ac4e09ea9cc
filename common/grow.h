/*
 * grow.h - the one way an array grows: doubling, from a first capacity,
 * with the size checked for overflow. Every room's buffers and tables
 * use it.
 */
#ifndef FP_GROW_H
#define FP_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Grows *p, an array of `size`-byte entries with room for *cap, to room
 * for at least `need` (first: the capacity of an empty array, doubled
 * until it fits). @return 0, or -1 when out of memory or too large (*p
 * and *cap unchanged).
 */
static inline int fp_grow(void **p, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t nc = *cap ? *cap : first;
	void *np;
	if (need <= *cap)
		return 0;
	while (nc < need) {
		if (nc > SIZE_MAX / 2)
			return -1;
		nc *= 2;
	}
	if (nc > SIZE_MAX / size || !(np = realloc(*p, nc * size)))
		return -1;
	*p = np;
	*cap = nc;
	return 0;
}

#endif
