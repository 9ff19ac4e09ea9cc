/*
 * slots.h - the one open-addressing table over an array of entries: slots
 * hold an entry's index + 1 (0: empty), linear probing, kept under half
 * full, each entry keeping its own 32-bit hash so that growing never
 * rehashes a key. The caller owns the entries and probes for its key
 * itself (the comparison is its own):
 *
 *     for (j = h & (nslots - 1); slots[j]; j = (j + 1) & (nslots - 1))
 *             if (the entry slots[j] - 1 has this key) return it;
 *     fp_slots_room(...); append the entry; fp_slots_put(..., h, index);
 *
 * Tables whose slots hold whole records (report/rep_trie.c's stacks,
 * formatter/deltas.c, index/ix_write.c's frames blocks) probe the same way.
 */
#ifndef FP_SLOTS_H
#define FP_SLOTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Puts id + 1 in the first free slot from hash h on. */
static inline void fp_slots_put(uint32_t *slots, size_t nslots, uint32_t h, size_t id)
{
	size_t j = h & (nslots - 1);
	while (slots[j])
		j = (j + 1) & (nslots - 1);
	slots[j] = (uint32_t)id + 1;
}

/*
 * Makes room for one more entry after the `count` there are (first: the
 * slots of an empty table, a power of two); each entry is `stride` bytes
 * with its uint32_t hash at byte `hash_at`. @return 0, or -1 when out of
 * memory (the table unchanged).
 */
static inline int fp_slots_room(uint32_t **slots, size_t *nslots, size_t count, const void *ents,
				size_t stride, size_t hash_at, size_t first)
{
	size_t ns = *nslots ? *nslots : first, i;
	uint32_t *s;
	while (ns < (count + 1) * 2 + 2)
		ns *= 2;
	if (ns == *nslots)
		return 0;
	if (!(s = calloc(ns, sizeof *s)))
		return -1;
	for (i = 0; i < count; i++) {
		uint32_t h;
		memcpy(&h, (const char *)ents + i * stride + hash_at, sizeof h);
		fp_slots_put(s, ns, h, i);
	}
	free(*slots);
	*slots = s;
	*nslots = ns;
	return 0;
}

#endif
