/*
 * deltas.c - each process's previous metrics, for the per-event deltas.
 *
 * An open-addressing table keyed on (pid_number, pid_serial), linear probing,
 * deletion by backward shift (Knuth's Algorithm R) so no tombstones pile up.
 * It allocates only when it grows. Processes die all the time on a busy node,
 * so before growing past the load factor it first drops every process whose
 * last sample is more than FMT_STALE_US older than the newest sample; it
 * grows only if that did not free enough. A process seen again after being
 * dropped starts over with delta 0, as on its first sample.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "../common/hash.h"

#define FMT_STALE_US (60 * INT64_C(1000000))
#define FMT_INITIAL_CAP 256 /* a power of two; top 100 fits without growing */

static size_t slot_of(const struct fmt_deltas *d, uint32_t number, uint32_t serial)
{
	/* pid numbers are dense: spread them */
	return (size_t)fp_mix64((uint64_t)serial << 32 | number) & (d->cap - 1);
}

static int table_alloc(struct fmt_deltas *d, size_t cap)
{
	d->slots = malloc(cap * sizeof *d->slots);
	d->used = calloc(cap, 1);
	if (!d->slots || !d->used) {
		free(d->slots);
		free(d->used);
		d->slots = NULL;
		d->used = NULL;
		return -1;
	}
	d->cap = cap;
	d->count = 0;
	return 0;
}

int fmt_deltas_init(struct fmt_deltas *d)
{
	return table_alloc(d, FMT_INITIAL_CAP);
}

void fmt_deltas_free(struct fmt_deltas *d)
{
	free(d->slots);
	free(d->used);
	memset(d, 0, sizeof *d);
}

/* The slot holding the key, or the empty slot where it would go. */
static size_t probe(const struct fmt_deltas *d, uint32_t number, uint32_t serial)
{
	size_t i = slot_of(d, number, serial);

	while (d->used[i] &&
	       (d->slots[i].pid_number != number || d->slots[i].pid_serial != serial))
		i = (i + 1) & (d->cap - 1);
	return i;
}

const struct fmt_prev *fmt_deltas_find(const struct fmt_deltas *d, uint32_t number,
				       uint32_t serial)
{
	size_t i = probe(d, number, serial);

	return d->used[i] ? &d->slots[i] : NULL;
}

/* Algorithm R: empty slot i, then pull back every later entry of the same
 * cluster whose home slot is not cyclically in (i, j]. */
static void delete_at(struct fmt_deltas *d, size_t i)
{
	size_t mask = d->cap - 1, j = i;

	d->used[i] = 0;
	d->count--;
	for (;;) {
		j = (j + 1) & mask;
		if (!d->used[j])
			return;
		size_t k = slot_of(d, d->slots[j].pid_number, d->slots[j].pid_serial);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		d->slots[i] = d->slots[j];
		d->used[i] = 1;
		d->used[j] = 0;
		i = j;
	}
}

static void drop_stale(struct fmt_deltas *d, int64_t newest)
{
	size_t i = 0;

	/* After a delete, slot i may hold an entry pulled back from later in
	 * its cluster: look at it again before moving on. */
	while (i < d->cap) {
		if (d->used[i] && newest - d->slots[i].time_us > FMT_STALE_US)
			delete_at(d, i);
		else
			i++;
	}
}

static int grow(struct fmt_deltas *d)
{
	struct fmt_deltas old = *d;
	size_t i;

	if (old.cap > SIZE_MAX / 2 / sizeof *d->slots || table_alloc(d, old.cap * 2) < 0) {
		*d = old;
		return -1;
	}
	for (i = 0; i < old.cap; i++) {
		if (old.used[i]) {
			size_t j = probe(d, old.slots[i].pid_number, old.slots[i].pid_serial);
			d->slots[j] = old.slots[i];
			d->used[j] = 1;
			d->count++;
		}
	}
	free(old.slots);
	free(old.used);
	return 0;
}

static void evict_stalest(struct fmt_deltas *d)
{
	size_t i, best = d->cap;

	for (i = 0; i < d->cap; i++)
		if (d->used[i] && (best == d->cap || d->slots[i].time_us < d->slots[best].time_us))
			best = i;
	if (best < d->cap)
		delete_at(d, best);
}

void fmt_deltas_put(struct fmt_deltas *d, uint32_t number, uint32_t serial, int64_t time_us,
		    const int64_t metrics[FP_METRIC_COUNT])
{
	size_t i = probe(d, number, serial);

	if (!d->used[i]) {
		/* Load factor 3/4. Grow only when dropping the stale left the
		 * table more than half full, so the scan is not repeated on
		 * every new process. */
		if ((d->count + 1) * 4 > d->cap * 3) {
			drop_stale(d, time_us);
			if (d->count * 2 > d->cap)
				(void)grow(d); /* out of memory: run fuller */
		}
		if (d->count + 1 >= d->cap)
			evict_stalest(d); /* always keep one empty slot */
		i = probe(d, number, serial);
		d->used[i] = 1;
		d->count++;
		d->slots[i].pid_number = number;
		d->slots[i].pid_serial = serial;
	}
	d->slots[i].time_us = time_us;
	memcpy(d->slots[i].metrics, metrics, sizeof d->slots[i].metrics);
}
