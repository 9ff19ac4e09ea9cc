/*
 * rep_frames.c - an open-addressing hash of frames over one string pool.
 */
#include "rep_frames.h"

#include <stdlib.h>
#include <string.h>

#include "../common/hash.h"
#include "../formatter/formatter.h"

struct entry {
	uint32_t raw_off, raw_len, name_off, name_len, dso_off, dso_len;
	uint32_t hash, mark;
	uint8_t kind;
};

struct rep_frames_s {
	struct entry *v;
	size_t n, cap;
	uint32_t *slots; /* id + 1; 0 empty */
	size_t nslots;
	char *pool;
	size_t plen, pcap;
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
	if (t->plen + len + 1 > t->pcap) {
		size_t nc = t->pcap ? t->pcap : 4096;
		char *np;
		while (t->plen + len + 1 > nc)
			nc *= 2;
		if (nc > UINT32_MAX || !(np = realloc(t->pool, nc)))
			return -1;
		t->pool = np;
		t->pcap = nc;
	}
	if (len)
		memcpy(t->pool + off, s, len);
	t->pool[off + len] = '\0';
	t->plen += len + 1;
	return (long)off;
}

static int grow_slots(rep_frames *t)
{
	size_t ns = t->nslots * 2, i;
	uint32_t *sl = calloc(ns, sizeof *sl);
	if (!sl)
		return -1;
	for (i = 0; i < t->n; i++) {
		size_t j = t->v[i].hash & (ns - 1);
		while (sl[j])
			j = (j + 1) & (ns - 1);
		sl[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = sl;
	t->nslots = ns;
	return 0;
}

uint32_t rep_frames_intern(rep_frames *t, enum rep_kind kind, const char *raw, size_t len,
			   const char *dso, size_t dso_len, int *is_new)
{
	uint32_t h = ix_hash32(kind, raw, len);
	size_t j = h & (t->nslots - 1);
	struct entry *e;
	long roff, noff, doff;
	while (t->slots[j]) {
		e = &t->v[t->slots[j] - 1];
		if (e->hash == h && e->kind == kind && e->raw_len == len &&
		    memcmp(t->pool + e->raw_off, raw, len) == 0) {
			if (is_new)
				*is_new = 0;
			return t->slots[j] - 1;
		}
		j = (j + 1) & (t->nslots - 1);
	}
	/* New: store raw, unescaped name, dso. */
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 256;
		struct entry *nv = realloc(t->v, nc * sizeof *nv);
		if (!nv)
			return REP_NO_FRAME;
		t->v = nv;
		t->cap = nc;
	}
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
	e->hash = h;
	e->kind = (uint8_t)kind;
	t->n++;
	if (t->n * 2 > t->nslots) {
		if (grow_slots(t) != 0) {
			t->n--;
			return REP_NO_FRAME;
		}
	} else {
		t->slots[j] = (uint32_t)t->n;
	}
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
