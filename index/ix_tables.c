/*
 * ix_tables.c - the index writer's per-file tables: the first time
 * a frame line, a stack, a pid, a comm or a metric list is seen it gets
 * the next id, and it goes into the next block's table section once.
 * Open addressing over ids, with every hit confirmed against the stored
 * key, so two keys never share an id.
 */
#include "ix_tables.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../common/hash.h"
#include "../common/grow.h"
#include "../common/slots.h"
#include "ix_fmt.h"

/* Room for `more` bytes after len. @return 0, or -1 when out of memory. */
int ix_buf_reserve(struct ix_buf *b, size_t more)
{
	if (more > SIZE_MAX - b->len)
		return -1;
	return fp_grow((void **)&b->d, &b->cap, b->len + more, 1, 256);
}

int ix_buf_put_bytes(struct ix_buf *b, const void *p, size_t n)
{
	if (ix_buf_reserve(b, n) != 0)
		return -1;
	if (n)
		memcpy(b->d + b->len, p, n);
	b->len += n;
	return 0;
}

int ix_buf_put_varint(struct ix_buf *b, uint64_t v)
{
	if (ix_buf_reserve(b, 10) != 0)
		return -1;
	b->len += ix_put_varint(b->d + b->len, v);
	return 0;
}

int ix_frame_id(struct ix_tables *w, const struct ix_frame_line *fr, uint32_t *id)
{
	unsigned kind = fr->is_category ? 1 : 0;
	uint32_t h = fp_hash32(kind, fr->sym, fr->sym_len) ^ fp_hash32(7, fr->dso, fr->dso_len);
	size_t j;
	struct frame_ent *e;
	if (w->frame_nslots) {
		for (j = h & (w->frame_nslots - 1); w->frame_slots[j];
		     j = (j + 1) & (w->frame_nslots - 1)) {
			e = &w->frames[w->frame_slots[j] - 1];
			if (e->hash == h && e->kind == kind && e->sym_len == fr->sym_len &&
			    e->dso_len == fr->dso_len &&
			    memcmp(w->pool.d + e->off, fr->sym, fr->sym_len) == 0 &&
			    (fr->dso_len == 0 ||
			     memcmp(w->pool.d + e->off + e->sym_len, fr->dso, fr->dso_len) == 0)) {
				*id = w->frame_slots[j] - 1;
				return 0;
			}
		}
	}
	if (w->pool.len + fr->sym_len + fr->dso_len > UINT32_MAX ||
	    fp_grow((void **)&w->frames, &w->frames_cap, w->nframes + 1, sizeof *w->frames, 64) != 0 ||
	    fp_slots_room(&w->frame_slots, &w->frame_nslots, w->nframes, w->frames,
		   sizeof *w->frames, offsetof(struct frame_ent, hash), 1024) != 0)
		return -1;
	e = &w->frames[w->nframes];
	e->off = (uint32_t)w->pool.len;
	e->sym_len = (uint32_t)fr->sym_len;
	e->dso_len = (uint32_t)fr->dso_len;
	e->hash = h;
	e->kind = (uint8_t)kind;
	if (ix_buf_put_bytes(&w->pool, fr->sym, fr->sym_len) != 0 ||
	    ix_buf_put_bytes(&w->pool, fr->dso, fr->dso_len) != 0)
		return -1;
	fp_slots_put(w->frame_slots, w->frame_nslots, h, w->nframes);
	*id = (uint32_t)w->nframes++;
	return 0;
}

int ix_stack_id(struct ix_tables *w, const uint32_t *frames, size_t n, uint32_t *id)
{
	uint32_t h = fp_hash32(3, frames, n * sizeof *frames);
	size_t j;
	struct stack_ent *e;
	if (w->stack_nslots) {
		for (j = h & (w->stack_nslots - 1); w->stack_slots[j];
		     j = (j + 1) & (w->stack_nslots - 1)) {
			e = &w->stacks[w->stack_slots[j] - 1];
			if (e->hash == h && e->n == n &&
			    memcmp(w->spool + e->off, frames, n * sizeof *w->spool) == 0) {
				*id = w->stack_slots[j] - 1;
				return 0;
			}
		}
	}
	if (w->splen + n > UINT32_MAX ||
	    fp_grow((void **)&w->spool, &w->spcap, w->splen + n + 1, sizeof *w->spool, 64) != 0 ||
	    fp_grow((void **)&w->stacks, &w->stacks_cap, w->nstacks + 1, sizeof *w->stacks, 64) != 0 ||
	    fp_slots_room(&w->stack_slots, &w->stack_nslots, w->nstacks, w->stacks,
		   sizeof *w->stacks, offsetof(struct stack_ent, hash), 1024) != 0)
		return -1;
	e = &w->stacks[w->nstacks];
	e->off = (uint32_t)w->splen;
	e->n = (uint32_t)n;
	e->hash = h;
	if (n)
		memcpy(w->spool + w->splen, frames, n * sizeof *w->spool);
	w->splen += n;
	fp_slots_put(w->stack_slots, w->stack_nslots, h, w->nstacks);
	*id = (uint32_t)w->nstacks++;
	return 0;
}

int ix_pid_id(struct ix_tables *w, uint32_t pid, uint32_t tid, uint32_t *id)
{
	uint32_t key[2] = { pid, tid };
	uint32_t h = fp_hash32(5, key, sizeof key);
	size_t j;
	if (w->pid_nslots) {
		for (j = h & (w->pid_nslots - 1); w->pid_slots[j]; j = (j + 1) & (w->pid_nslots - 1)) {
			const struct pid_ent *e = &w->pids[w->pid_slots[j] - 1];
			if (e->pid == pid && e->tid == tid) {
				*id = w->pid_slots[j] - 1;
				return 0;
			}
		}
	}
	if (fp_grow((void **)&w->pids, &w->pids_cap, w->npids + 1, sizeof *w->pids, 64) != 0 ||
	    fp_grow((void **)&w->prev, &w->prev_cap, (w->npids + 1) * IX_MAX_SLOTS,
		 sizeof *w->prev, 64) != 0 ||
	    fp_slots_room(&w->pid_slots, &w->pid_nslots, w->npids, w->pids, sizeof *w->pids,
		   offsetof(struct pid_ent, hash), 1024) != 0)
		return -1;
	w->pids[w->npids].pid = pid;
	w->pids[w->npids].tid = tid;
	w->pids[w->npids].hash = h;
	memset(w->prev + w->npids * IX_MAX_SLOTS, 0, IX_MAX_SLOTS * sizeof *w->prev);
	fp_slots_put(w->pid_slots, w->pid_nslots, h, w->npids);
	*id = (uint32_t)w->npids++;
	return 0;
}

int ix_comm_id(struct ix_tables *w, const char *s, size_t len, uint32_t *id)
{
	size_t i;
	for (i = 0; i < w->ncomms; i++)
		if (w->comm_len[i] == len && memcmp(w->comms[i], s, len) == 0) {
			*id = (uint32_t)i;
			return 0;
		}
	if (w->ncomms == IX_MAX_COMMS) {
		w->why = "too many distinct process names";
		return -1;
	}
	if (!(w->comms[i] = malloc(len + 1)))
		return -1;
	memcpy(w->comms[i], s, len);
	w->comm_len[i] = len;
	w->names_bytes += len + IX_VARINT_MAX;
	w->ncomms++;
	*id = (uint32_t)i;
	return 0;
}

int ix_layout_id(struct ix_tables *w, const char *sig, size_t sig_len, uint32_t nnames,
		 uint32_t *id)
{
	size_t i;
	for (i = 0; i < w->nlayouts; i++)
		if (w->layout_n[i] == nnames && w->layouts[i].len == sig_len &&
		    (sig_len == 0 || memcmp(w->layouts[i].d, sig, sig_len) == 0)) {
			*id = (uint32_t)i;
			return 0;
		}
	if (w->nlayouts == IX_MAX_LAYOUTS) {
		w->why = "too many distinct metric lists";
		return -1;
	}
	/* A name twice would make the report's "first match" matter: refuse. */
	{
		const char *a = sig, *end = a + sig_len;
		for (; a < end; a += strlen(a) + 1)
			for (const char *b = a + strlen(a) + 1; b < end; b += strlen(b) + 1)
				if (strcmp(a, b) == 0) {
					w->why = "a metric appears twice on an event";
					return -1;
				}
	}
	w->layouts[i].len = 0;
	if (ix_buf_put_bytes(&w->layouts[i], sig, sig_len) != 0)
		return -1;
	w->layout_n[i] = nnames;
	w->nlayouts++;
	/* each name's length as a varint where the writer's memory has a NUL */
	w->names_bytes += sig_len + IX_VARINT_MAX * ((size_t)nnames + 1);
	*id = (uint32_t)i;
	return 0;
}

int ix_buf_put_str(struct ix_buf *b, const void *p, size_t n)
{
	return ix_buf_put_varint(b, n) | ix_buf_put_bytes(b, p, n);
}

int ix_tables_encode(struct ix_tables *w, struct ix_buf *b)
{
	size_t i, k;
	int rc = 0;
	b->len = 0;
	rc |= ix_buf_put_varint(b, w->nframes - w->frames_done);
	for (i = w->frames_done; i < w->nframes; i++) {
		const struct frame_ent *e = &w->frames[i];
		rc |= ix_buf_put_varint(b, e->kind);
		rc |= ix_buf_put_str(b, w->pool.d + e->off, e->sym_len);
		rc |= ix_buf_put_str(b, w->pool.d + e->off + e->sym_len, e->dso_len);
	}
	rc |= ix_buf_put_varint(b, w->ncomms - w->comms_done);
	for (i = w->comms_done; i < w->ncomms; i++)
		rc |= ix_buf_put_str(b, w->comms[i], w->comm_len[i]);
	rc |= ix_buf_put_varint(b, w->nlayouts - w->layouts_done);
	for (i = w->layouts_done; i < w->nlayouts; i++) {
		const char *a = (const char *)w->layouts[i].d;
		rc |= ix_buf_put_varint(b, w->layout_n[i]);
		for (k = 0; k < w->layout_n[i]; k++) {
			size_t l = strlen(a);
			rc |= ix_buf_put_str(b, a, l);
			a += l + 1;
		}
	}
	rc |= ix_buf_put_varint(b, w->nstacks - w->stacks_done);
	for (i = w->stacks_done; i < w->nstacks; i++) {
		const struct stack_ent *e = &w->stacks[i];
		rc |= ix_buf_put_varint(b, e->n);
		for (k = 0; k < e->n; k++)
			rc |= ix_buf_put_varint(b, w->spool[e->off + k]);
	}
	rc |= ix_buf_put_varint(b, w->npids - w->pids_done);
	for (i = w->pids_done; i < w->npids; i++)
		rc |= ix_buf_put_varint(b, w->pids[i].pid) | ix_buf_put_varint(b, w->pids[i].tid);
	w->frames_done = w->nframes;
	w->comms_done = w->ncomms;
	w->layouts_done = w->nlayouts;
	w->stacks_done = w->nstacks;
	w->pids_done = w->npids;
	return rc;
}

size_t ix_tables_bytes(const struct ix_tables *w)
{
	return w->pool.len + w->names_bytes + w->splen * 4 + w->nframes * sizeof *w->frames +
	       w->nstacks * sizeof *w->stacks + w->npids * (sizeof *w->pids + IX_MAX_SLOTS * sizeof *w->prev);
}

uint32_t ix_tables_max_slots(const struct ix_tables *w)
{
	uint32_t m = 0;
	for (size_t i = 0; i < w->nlayouts; i++)
		if (w->layout_n[i] > m)
			m = w->layout_n[i];
	return m;
}

int64_t *ix_pid_prev(struct ix_tables *w, uint32_t id)
{
	return w->prev + (size_t)id * IX_MAX_SLOTS;
}

void ix_tables_reset(struct ix_tables *w)
{
	size_t i;
	for (i = 0; i < w->ncomms; i++)
		free(w->comms[i]);
	w->ncomms = w->comms_done = 0;
	w->nlayouts = w->layouts_done = 0;
	w->nframes = w->frames_done = w->pool.len = 0;
	w->nstacks = w->stacks_done = w->splen = 0;
	w->npids = w->pids_done = 0;
	w->names_bytes = 0;
	if (w->frame_slots)
		memset(w->frame_slots, 0, w->frame_nslots * sizeof *w->frame_slots);
	if (w->stack_slots)
		memset(w->stack_slots, 0, w->stack_nslots * sizeof *w->stack_slots);
	if (w->pid_slots)
		memset(w->pid_slots, 0, w->pid_nslots * sizeof *w->pid_slots);
	w->why = NULL;
}

void ix_tables_free(struct ix_tables *w)
{
	size_t i;
	for (i = 0; i < w->ncomms; i++)
		free(w->comms[i]);
	for (i = 0; i < IX_MAX_LAYOUTS; i++)
		free(w->layouts[i].d);
	free(w->frames);
	free(w->frame_slots);
	free(w->pool.d);
	free(w->stacks);
	free(w->stack_slots);
	free(w->spool);
	free(w->pids);
	free(w->pid_slots);
	free(w->prev);
	memset(w, 0, sizeof *w);
}
