/*
 * rep_frames.c - the frames, interned in one open-addressing table
 * (common/slots.h) over one string pool.
 */
#include "rep_frames.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/hash.h"
#include "../common/slots.h"
#include "../formatter/formatter.h"
#include "rep_names.h"

struct entry {
	uint32_t raw_off, raw_len, name_off, name_len, dso_off, dso_len, line_off, line_len;
	uint32_t hash, mark;
	uint8_t kind;
	uint8_t elixir; /* spelled as Elixir does: part of the key (files of several nodes) */
};

struct rep_frames_s {
	struct entry *v;
	size_t n, cap;
	uint32_t *slots; /* id + 1; 0 empty */
	size_t nslots;
	char *pool;
	size_t plen, pcap;
	int elixir; /* names in Elixir's spelling */
};

rep_frames *rep_frames_create(void)
{
	rep_frames *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->nslots = 1024;
	t->slots = calloc(t->nslots, sizeof *t->slots);
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void rep_frames_free(rep_frames *t)
{
	if (!t)
		return;
	free(t->v);
	free(t->slots);
	free(t->pool);
	free(t);
}

/* Appends bytes to the pool. @return the offset, or -1. */
static long pool_add(rep_frames *t, const char *s, size_t len)
{
	size_t off = t->plen;
	/* offsets are 32-bit */
	if (t->plen + len + 1 > UINT32_MAX ||
	    fp_grow((void **)&t->pool, &t->pcap, t->plen + len + 1, 1, 4096) != 0)
		return -1;
	if (len)
		memcpy(t->pool + off, s, len);
	t->pool[off + len] = '\0';
	t->plen += len + 1;
	return (long)off;
}

void rep_frames_set_elixir(rep_frames *t, int elixir)
{
	t->elixir = elixir;
}

/* Gives frame e (its name unescaped in the pool) Elixir's spelling when it
 * has one: a new name and line form at the pool's end.
 * @return 0, or -1 when out of memory. */
static int elixir_name(rep_frames *t, struct entry *e)
{
	size_t n = e->name_len, cap = 2 * n + 64, lcap;
	char *tr = malloc(cap), *ln = NULL;
	long tl, noff, loff;
	int rc = -1;
	if (!tr)
		return -1;
	tl = fp_names_elixir(e->kind == REP_K_CATEGORY, t->pool + e->name_off, n, tr, cap);
	if (tl < 0) {
		free(tr);
		return 0; /* not an Erlang frame: as it is */
	}
	lcap = rep_names_line_spelling(tr, (size_t)tl, NULL, 0) + 1;
	if ((ln = malloc(lcap)) != NULL) {
		rep_names_line_spelling(tr, (size_t)tl, ln, lcap);
		if ((noff = pool_add(t, tr, (size_t)tl)) >= 0 &&
		    (loff = pool_add(t, ln, lcap - 1)) >= 0) {
			e->name_off = (uint32_t)noff;
			e->name_len = (uint32_t)tl;
			e->line_off = (uint32_t)loff;
			e->line_len = (uint32_t)(lcap - 1);
			rc = 0;
		}
	}
	free(tr);
	free(ln);
	return rc;
}

uint32_t rep_frames_intern(rep_frames *t, enum rep_kind kind, const char *raw, size_t len,
			   const char *dso, size_t dso_len, int *is_new)
{
	/* a frame of an Elixir node's file and the same frame of an Erlang
	 * node's file are two entries: each is drawn in its node's spelling */
	uint8_t elixir = t->elixir && (kind == REP_K_CODE || kind == REP_K_CATEGORY);
	uint32_t h = fp_hash32(kind + (elixir ? 0x100u : 0), raw, len);
	size_t j = h & (t->nslots - 1);
	struct entry *e;
	long roff, noff, doff;
	while (t->slots[j]) {
		e = &t->v[t->slots[j] - 1];
		if (e->hash == h && e->kind == kind && e->elixir == elixir && e->raw_len == len &&
		    memcmp(t->pool + e->raw_off, raw, len) == 0) {
			if (is_new)
				*is_new = 0;
			return t->slots[j] - 1;
		}
		j = (j + 1) & (t->nslots - 1);
	}
	/* New: store raw, unescaped name, dso. */
	if (fp_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v, 256) != 0 ||
	    fp_slots_room(&t->slots, &t->nslots, t->n, t->v, sizeof *t->v,
			  offsetof(struct entry, hash), 1024) != 0)
		return REP_NO_FRAME;
	if ((roff = pool_add(t, raw, len)) < 0)
		return REP_NO_FRAME;
	/* The name goes right after; unescaped text is never longer. */
	if ((noff = pool_add(t, raw, len)) < 0)
		return REP_NO_FRAME;
	e = &t->v[t->n];
	memset(e, 0, sizeof *e);
	e->name_len = (uint32_t)len;
	if (kind == REP_K_CODE || kind == REP_K_CATEGORY) {
		long ul = fmt_unescape(t->pool + roff, len, t->pool + noff, len + 1);
		if (ul >= 0 && (size_t)ul <= len)
			e->name_len = (uint32_t)ul;
		else
			memcpy(t->pool + noff, t->pool + roff, len); /* not ours: keep as is */
	}
	if ((doff = pool_add(t, dso, dso_len)) < 0)
		return REP_NO_FRAME;
	e = &t->v[t->n];
	e->raw_off = (uint32_t)roff;
	e->raw_len = (uint32_t)len;
	e->name_off = (uint32_t)noff;
	e->dso_off = (uint32_t)doff;
	e->dso_len = (uint32_t)dso_len;
	e->line_off = (uint32_t)roff;
	e->line_len = (uint32_t)len;
	e->hash = h;
	e->kind = (uint8_t)kind;
	e->elixir = elixir;
	if (elixir && elixir_name(t, e) != 0)
		return REP_NO_FRAME;
	fp_slots_put(t->slots, t->nslots, h, t->n);
	t->n++;
	if (is_new)
		*is_new = 1;
	return (uint32_t)t->n - 1;
}

size_t rep_frames_count(const rep_frames *t)
{
	return t->n;
}

void rep_frames_get(const rep_frames *t, uint32_t id, struct rep_frame_info *out)
{
	const struct entry *e = &t->v[id];
	out->name = t->pool + e->name_off;
	out->name_len = e->name_len;
	out->raw = t->pool + e->raw_off;
	out->raw_len = e->raw_len;
	out->line = t->pool + e->line_off;
	out->line_len = e->line_len;
	out->dso = t->pool + e->dso_off;
	out->dso_len = e->dso_len;
	out->kind = (enum rep_kind)e->kind;
	out->mark = e->mark;
}

void rep_frames_set_mark(rep_frames *t, uint32_t id, uint32_t mark)
{
	t->v[id].mark = mark;
}

uint32_t rep_frames_mark(const rep_frames *t, uint32_t id)
{
	return t->v[id].mark;
}

enum rep_kind rep_frames_kind(const rep_frames *t, uint32_t id)
{
	return (enum rep_kind)t->v[id].kind;
}
