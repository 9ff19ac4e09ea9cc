/*
 * rep_index_write.c - perf-script text in, report index blocks out.
 *
 * Lines are classified and parsed exactly as the report's text path does
 * (rep_parse), so an index says what a text read would have said. Each
 * event becomes a few varints in per-field columns; its frames become one
 * stack id, found by hashing the frame ids, and each distinct frame line
 * and stack is written once per file, in the block where it first occurs.
 * Metric values are kept as the change since the same process's previous
 * event in the file, and the written delta as its difference to that
 * change, which is zero for almost every event and costs nothing after
 * compression.
 */
#include "rep_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "rep_hash.h"
#include "rep_index_fmt.h"
#include "rep_parse.h"
#include "../rotate/rotate.h"

#define NCOLS (IX_S_METRICS + 2 * IX_MAX_SLOTS)
/* Events per block: their columns wait in memory (~45 bytes an event),
 * the compressed block until the next frame boundary (~10 bytes). */
#define BLOCK_EVENTS 8192
#define TABLES_MAX ((size_t)64 << 20) /* give up a file whose tables outgrow this */

struct buf {
	unsigned char *d;
	size_t len, cap;
};

struct frame_ent {
	uint32_t off, sym_len, dso_len; /* in the pool: sym then dso */
	uint32_t hash;
	uint8_t kind;
};

struct stack_ent {
	uint32_t off, n; /* frame ids in spool */
	uint32_t hash;
};

/* A whole frames block (the lines between an event line and its blank
 * line) already seen, by two independent 64-bit hashes of its bytes: the
 * same bytes always parse to the same stack, so a repeat skips the parse. */
struct block_ent {
	uint64_t h1, h2;
	uint32_t len, stack; /* stack + 1; 0: empty slot */
};

struct pid_ent {
	uint32_t pid, tid;
	uint32_t hash;
};

struct blk {
	uint64_t offset, size, events;
};

struct rep_ixw_s {
	ZSTD_CCtx *cc;
	int level;
	const char *why; /* the file's index was given up, and why */

	struct buf carry;          /* a line split across calls */
	/* the event being read */
	int in_event;
	int64_t ev_time;
	uint32_t ev_comm, ev_pid, ev_layout, ev_nslots;
	int64_t ev_v[IX_MAX_SLOTS], ev_d[IX_MAX_SLOTS];
	uint32_t *ev_frames;
	size_t ev_n, ev_cap;
	int ev_has_stack;          /* ev_stack known from the block cache */
	uint32_t ev_stack;
	struct buf sig;            /* the event's metric names, for the layout */

	/* the file's tables; *_done: how many went into earlier blocks */
	struct frame_ent *frames;
	size_t nframes, frames_cap, frames_done;
	uint32_t *frame_slots;     /* id + 1; 0 empty */
	size_t frame_nslots;
	struct buf pool;           /* frame bytes */
	struct stack_ent *stacks;
	size_t nstacks, stacks_cap, stacks_done;
	uint32_t *stack_slots;
	size_t stack_nslots;
	uint32_t *spool;           /* stacks' frame ids */
	size_t splen, spcap;
	struct block_ent *bcache;
	size_t bc_slots, bc_used;
	struct pid_ent *pids;
	size_t npids, pids_cap, pids_done;
	uint32_t *pid_slots;
	size_t pid_nslots;
	int64_t *prev;             /* [pid * IX_MAX_SLOTS + slot], last value in this file */
	size_t prev_cap;
	char *comms[IX_MAX_COMMS];
	size_t comm_len[IX_MAX_COMMS], ncomms, comms_done;
	struct buf layouts[IX_MAX_LAYOUTS]; /* "name\0name\0..." */
	uint32_t layout_n[IX_MAX_LAYOUTS];
	size_t nlayouts, layouts_done;

	struct buf col[NCOLS];
	uint64_t pending;          /* events in col[] */
	int64_t prev_time;
	uint64_t file_events;
	struct blk *blocks;
	size_t nblocks, blocks_cap;

	struct buf out;            /* block frames not yet taken, then the trailer */
	int out_taken;             /* out was handed out: empty it before reuse */
	size_t placed;             /* blocks whose offset is known */
	struct buf raw, data;      /* a block's tables, its compressed sections */
};

/* ==== small helpers ==== */

static int reserve(struct buf *b, size_t more)
{
	size_t cap;
	unsigned char *d;
	if (b->cap - b->len >= more)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap - b->len < more) {
		if (cap > SIZE_MAX / 2)
			return -1;
		cap *= 2;
	}
	if (!(d = realloc(b->d, cap)))
		return -1;
	b->d = d;
	b->cap = cap;
	return 0;
}

static int put_bytes(struct buf *b, const void *p, size_t n)
{
	if (reserve(b, n) != 0)
		return -1;
	if (n)
		memcpy(b->d + b->len, p, n);
	b->len += n;
	return 0;
}

static int put_varint(struct buf *b, uint64_t v)
{
	if (reserve(b, 10) != 0)
		return -1;
	b->len += ix_put_varint(b->d + b->len, v);
	return 0;
}

static void give_up(rep_ixw *w, const char *why)
{
	if (!w->why)
		w->why = why;
}

/* Open addressing over ids + 1, kept under half full: makes room for one
 * more entry after the `count` there are (each with its hash at hash_at). */
static int rehash(uint32_t **slots, size_t *nslots, size_t count, const void *ents, size_t stride,
		  size_t hash_at)
{
	size_t ns = *nslots ? *nslots : 1024, i;
	uint32_t *s;
	while (ns < (count + 1) * 2 + 2)
		ns *= 2;
	if (ns == *nslots)
		return 0;
	if (!(s = calloc(ns, sizeof *s)))
		return -1;
	for (i = 0; i < count; i++) {
		uint32_t h;
		size_t j;
		memcpy(&h, (const char *)ents + i * stride + hash_at, sizeof h);
		j = h & (ns - 1);
		while (s[j])
			j = (j + 1) & (ns - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(*slots);
	*slots = s;
	*nslots = ns;
	return 0;
}

static size_t table_bytes(const rep_ixw *w)
{
	return w->pool.len + w->splen * 4 + w->nframes * sizeof *w->frames +
	       w->bc_slots * sizeof *w->bcache +
	       w->nstacks * sizeof *w->stacks + w->npids * (sizeof *w->pids + 8 * IX_MAX_SLOTS);
}

/* ==== tables ==== */

static int frame_id(rep_ixw *w, const struct rep_frame_line *fr, uint32_t *id)
{
	unsigned kind = fr->is_category ? 1 : 0;
	uint32_t h = rep_hash32(kind, fr->sym, fr->sym_len) ^ rep_hash32(7, fr->dso, fr->dso_len);
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
	    ix_grow((void **)&w->frames, &w->frames_cap, w->nframes + 1, sizeof *w->frames) != 0 ||
	    rehash(&w->frame_slots, &w->frame_nslots, w->nframes, w->frames,
		   sizeof *w->frames, offsetof(struct frame_ent, hash)) != 0)
		return -1;
	e = &w->frames[w->nframes];
	e->off = (uint32_t)w->pool.len;
	e->sym_len = (uint32_t)fr->sym_len;
	e->dso_len = (uint32_t)fr->dso_len;
	e->hash = h;
	e->kind = (uint8_t)kind;
	if (put_bytes(&w->pool, fr->sym, fr->sym_len) != 0 ||
	    put_bytes(&w->pool, fr->dso, fr->dso_len) != 0)
		return -1;
	for (j = h & (w->frame_nslots - 1); w->frame_slots[j]; j = (j + 1) & (w->frame_nslots - 1))
		;
	w->frame_slots[j] = (uint32_t)++w->nframes;
	*id = (uint32_t)w->nframes - 1;
	return 0;
}

static int stack_id(rep_ixw *w, uint32_t *id)
{
	uint32_t h = rep_hash32(3, w->ev_frames, w->ev_n * sizeof *w->ev_frames);
	size_t j, n = w->ev_n;
	struct stack_ent *e;
	if (w->stack_nslots) {
		for (j = h & (w->stack_nslots - 1); w->stack_slots[j];
		     j = (j + 1) & (w->stack_nslots - 1)) {
			e = &w->stacks[w->stack_slots[j] - 1];
			if (e->hash == h && e->n == n &&
			    memcmp(w->spool + e->off, w->ev_frames, n * sizeof *w->spool) == 0) {
				*id = w->stack_slots[j] - 1;
				return 0;
			}
		}
	}
	if (w->splen + n > UINT32_MAX ||
	    ix_grow((void **)&w->spool, &w->spcap, w->splen + n + 1, sizeof *w->spool) != 0 ||
	    ix_grow((void **)&w->stacks, &w->stacks_cap, w->nstacks + 1, sizeof *w->stacks) != 0 ||
	    rehash(&w->stack_slots, &w->stack_nslots, w->nstacks, w->stacks,
		   sizeof *w->stacks, offsetof(struct stack_ent, hash)) != 0)
		return -1;
	e = &w->stacks[w->nstacks];
	e->off = (uint32_t)w->splen;
	e->n = (uint32_t)n;
	e->hash = h;
	if (n)
		memcpy(w->spool + w->splen, w->ev_frames, n * sizeof *w->spool);
	w->splen += n;
	for (j = h & (w->stack_nslots - 1); w->stack_slots[j]; j = (j + 1) & (w->stack_nslots - 1))
		;
	w->stack_slots[j] = (uint32_t)++w->nstacks;
	*id = (uint32_t)w->nstacks - 1;
	return 0;
}

static int pid_id(rep_ixw *w, uint32_t pid, uint32_t tid, uint32_t *id)
{
	uint32_t key[2] = { pid, tid };
	uint32_t h = rep_hash32(5, key, sizeof key);
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
	if (ix_grow((void **)&w->pids, &w->pids_cap, w->npids + 1, sizeof *w->pids) != 0 ||
	    ix_grow((void **)&w->prev, &w->prev_cap, (w->npids + 1) * IX_MAX_SLOTS,
		 sizeof *w->prev) != 0 ||
	    rehash(&w->pid_slots, &w->pid_nslots, w->npids, w->pids, sizeof *w->pids,
		   offsetof(struct pid_ent, hash)) != 0)
		return -1;
	w->pids[w->npids].pid = pid;
	w->pids[w->npids].tid = tid;
	w->pids[w->npids].hash = h;
	memset(w->prev + w->npids * IX_MAX_SLOTS, 0, IX_MAX_SLOTS * sizeof *w->prev);
	for (j = h & (w->pid_nslots - 1); w->pid_slots[j]; j = (j + 1) & (w->pid_nslots - 1))
		;
	w->pid_slots[j] = (uint32_t)++w->npids;
	*id = (uint32_t)w->npids - 1;
	return 0;
}

static int comm_id(rep_ixw *w, const char *s, size_t len, uint32_t *id)
{
	size_t i;
	for (i = 0; i < w->ncomms; i++)
		if (w->comm_len[i] == len && memcmp(w->comms[i], s, len) == 0) {
			*id = (uint32_t)i;
			return 0;
		}
	if (w->ncomms == IX_MAX_COMMS) {
		give_up(w, "too many distinct process names");
		return -1;
	}
	if (!(w->comms[i] = malloc(len + 1)))
		return -1;
	memcpy(w->comms[i], s, len);
	w->comm_len[i] = len;
	w->ncomms++;
	*id = (uint32_t)i;
	return 0;
}

static int layout_id(rep_ixw *w, uint32_t nnames, uint32_t *id)
{
	size_t i;
	for (i = 0; i < w->nlayouts; i++)
		if (w->layout_n[i] == nnames && w->layouts[i].len == w->sig.len &&
		    (w->sig.len == 0 || memcmp(w->layouts[i].d, w->sig.d, w->sig.len) == 0)) {
			*id = (uint32_t)i;
			return 0;
		}
	if (w->nlayouts == IX_MAX_LAYOUTS) {
		give_up(w, "too many distinct metric lists");
		return -1;
	}
	/* A name twice would make the report's "first match" matter: refuse. */
	{
		const char *a = (const char *)w->sig.d, *end = a + w->sig.len;
		for (; a < end; a += strlen(a) + 1)
			for (const char *b = a + strlen(a) + 1; b < end; b += strlen(b) + 1)
				if (strcmp(a, b) == 0) {
					give_up(w, "a metric appears twice on an event");
					return -1;
				}
	}
	w->layouts[i].len = 0;
	if (put_bytes(&w->layouts[i], w->sig.d, w->sig.len) != 0)
		return -1;
	w->layout_n[i] = nnames;
	w->nlayouts++;
	*id = (uint32_t)i;
	return 0;
}

/* ==== events ==== */

static int begin_event(rep_ixw *w, const char *s, size_t len)
{
	struct rep_event_line ev;
	const char *nm;
	size_t pos = 0, nl;
	uint32_t n = 0;
	int64_t v, d;
	int r;
	if (rep_parse_event(s, len, &ev) != 0) {
		give_up(w, "an event line the report cannot parse");
		return -1;
	}
	w->sig.len = 0;
	while ((r = rep_next_metric_value(ev.rest, ev.rest_len, &pos, &nm, &nl, &v, &d)) == 1) {
		/* A blank in a name could hide a "metric_<name>:" that the
		 * report's rep_find_metric finds and rep_next_metric does not. */
		if (n == IX_MAX_SLOTS || memchr(nm, '\0', nl) || memchr(nm, ' ', nl) ||
		    memchr(nm, '\t', nl) || memchr(nm, '\r', nl)) {
			give_up(w, "an event with too many or odd metrics");
			return -1;
		}
		w->ev_v[n] = v;
		w->ev_d[n] = d;
		n++;
		if (put_bytes(&w->sig, nm, nl) != 0 || put_bytes(&w->sig, "", 1) != 0)
			return -1;
	}
	if (r < 0) {
		give_up(w, "a metric the report cannot parse");
		return -1;
	}
	if (comm_id(w, ev.comm, ev.comm_len, &w->ev_comm) != 0 ||
	    pid_id(w, ev.pid, ev.tid, &w->ev_pid) != 0 || layout_id(w, n, &w->ev_layout) != 0)
		return -1;
	w->ev_nslots = n;
	w->ev_time = ev.time_us;
	w->ev_n = 0;
	w->ev_has_stack = 0;
	w->in_event = 1;
	return 0;
}

static int frame(rep_ixw *w, const char *s, size_t len)
{
	struct rep_frame_line fr;
	uint32_t id;
	if (!w->in_event)
		return 0; /* the report ignores frames outside an event too */
	if (rep_parse_frame(s, len, &fr) != 0) {
		give_up(w, "a frame line the report cannot parse");
		return -1;
	}
	if (!fr.dso)
		fr.dso = "";
	if (frame_id(w, &fr, &id) != 0 ||
	    ix_grow((void **)&w->ev_frames, &w->ev_cap, w->ev_n + 1, sizeof *w->ev_frames) != 0)
		return -1;
	w->ev_frames[w->ev_n++] = id;
	return 0;
}

static int block(rep_ixw *w);

static int commit(rep_ixw *w)
{
	uint32_t st;
	uint32_t k;
	int64_t *prev;
	int rc = 0;
	if (!w->in_event)
		return 0;
	w->in_event = 0;
	if (w->ev_has_stack)
		st = w->ev_stack;
	else if (stack_id(w, &st) != 0)
		return -1;
	prev = w->prev + (size_t)w->ev_pid * IX_MAX_SLOTS;
	rc |= put_varint(&w->col[IX_S_TIME],
			 ix_zigzag((int64_t)((uint64_t)w->ev_time - (uint64_t)w->prev_time)));
	rc |= put_varint(&w->col[IX_S_COMM], w->ev_comm);
	rc |= put_varint(&w->col[IX_S_PID], w->ev_pid);
	rc |= put_varint(&w->col[IX_S_STACK], st);
	rc |= put_varint(&w->col[IX_S_LAYOUT], w->ev_layout);
	for (k = 0; k < w->ev_nslots; k++) {
		/* modulo 2^64, as the reader undoes it */
		uint64_t change = (uint64_t)w->ev_v[k] - (uint64_t)prev[k];
		uint64_t corr = (uint64_t)w->ev_d[k] - change;
		rc |= put_varint(&w->col[IX_S_METRICS + 2 * k], ix_zigzag((int64_t)change));
		rc |= put_varint(&w->col[IX_S_METRICS + 2 * k + 1], ix_zigzag((int64_t)corr));
		prev[k] = w->ev_v[k];
	}
	if (rc)
		return -1;
	w->prev_time = w->ev_time;
	w->pending++;
	w->file_events++;
	if (w->pending >= BLOCK_EVENTS && block(w) != 0)
		return -1;
	if (table_bytes(w) > TABLES_MAX) {
		give_up(w, "the tables grew past their cap");
		return -1;
	}
	return 0;
}

static void line(rep_ixw *w, const char *s, size_t len)
{
	int rc = 0;
	switch (rep_line_kind(s, len)) {
	case REP_L_BLANK: rc = commit(w); break;
	case REP_L_COMMENT: break;
	case REP_L_EVENT:
		if ((rc = commit(w)) == 0)
			rc = begin_event(w, s, len);
		break;
	case REP_L_FRAME: rc = frame(w, s, len); break;
	case REP_L_OTHER:
		give_up(w, "a line that is not perf script text");
		rc = -1;
		break;
	}
	if (rc)
		give_up(w, "out of memory");
}

static void hash2(const char *s, size_t len, uint64_t *h1, uint64_t *h2)
{
	uint64_t a = 0x243f6a8885a308d3ull ^ len, b = 0x13198a2e03707344ull;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t x;
		memcpy(&x, s + i, 8);
		a = (a ^ x) * 0xff51afd7ed558ccdull;
		a ^= a >> 31;
		b = (b + x) * 0xc4ceb9fe1a85ec53ull;
		b ^= b >> 29;
	}
	for (; i < len; i++) {
		a = (a ^ (unsigned char)s[i]) * 0x100000001b3ull;
		b = (b + (unsigned char)s[i]) * 0x9e3779b97f4a7c15ull;
	}
	a ^= a >> 33;
	b ^= b >> 32;
	*h1 = a * 0x9e3779b97f4a7c15ull;
	*h2 = b * 0xff51afd7ed558ccdull;
}

static struct block_ent *block_slot(rep_ixw *w, uint64_t h1, uint64_t h2, size_t len)
{
	size_t j;
	if ((w->bc_used + 1) * 2 > w->bc_slots) {
		size_t ns = w->bc_slots ? w->bc_slots * 2 : 1024, i;
		struct block_ent *b = calloc(ns, sizeof *b);
		if (!b)
			return NULL;
		for (i = 0; i < w->bc_slots; i++) {
			if (!w->bcache[i].stack)
				continue;
			j = (size_t)w->bcache[i].h1 & (ns - 1);
			while (b[j].stack)
				j = (j + 1) & (ns - 1);
			b[j] = w->bcache[i];
		}
		free(w->bcache);
		w->bcache = b;
		w->bc_slots = ns;
	}
	for (j = (size_t)h1 & (w->bc_slots - 1); w->bcache[j].stack; j = (j + 1) & (w->bc_slots - 1))
		if (w->bcache[j].h1 == h1 && w->bcache[j].h2 == h2 && w->bcache[j].len == len)
			break;
	return &w->bcache[j];
}

/*
 * Right after an event line: if its frames block and the blank line that
 * ends it are in [s, end), the whole block is one lookup (parsed the first
 * time only). @return where the main loop goes on: the blank line, or s
 * itself when the block is not whole here or holds other lines.
 */
static const char *frames_block(rep_ixw *w, const char *s, const char *end)
{
	const char *q = s, *nl;
	uint64_t h1, h2;
	struct block_ent *e;
	uint32_t st;
	/* the block ends where a line is empty */
	while (q < end && *q != '\n') {
		if (!(nl = memchr(q, '\n', (size_t)(end - q))))
			return s;
		q = nl + 1;
	}
	if (q >= end || q - s > UINT32_MAX)
		return s;
	hash2(s, (size_t)(q - s), &h1, &h2);
	if (!(e = block_slot(w, h1, h2, (size_t)(q - s))))
		return s;
	if (e->stack) {
		w->ev_stack = e->stack - 1;
		w->ev_has_stack = 1;
		return q;
	}
	for (const char *l = s; l < q; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(q - l));
		switch (rep_line_kind(l, (size_t)(nl - l))) {
		case REP_L_FRAME:
			if (frame(w, l, (size_t)(nl - l)) != 0) {
				give_up(w, "out of memory");
				return q;
			}
			break;
		case REP_L_COMMENT:
			break;
		default:
			/* a line that is not a frame: leave it to the line loop */
			w->ev_n = 0;
			return s;
		}
	}
	if (stack_id(w, &st) != 0) {
		give_up(w, "out of memory");
		return q;
	}
	/* e is still the free slot: nothing since block_slot() touched the cache */
	e->h1 = h1;
	e->h2 = h2;
	e->len = (uint32_t)(q - s);
	e->stack = st + 1;
	w->bc_used++;
	w->ev_stack = st;
	w->ev_has_stack = 1;
	return q;
}

void rep_ixw_text(rep_ixw *w, const void *p, size_t n)
{
	const char *s = p, *end = s + n;
	if (w->why)
		return;
	while (s < end && !w->why) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl) {
			if (put_bytes(&w->carry, s, (size_t)(end - s)) != 0)
				give_up(w, "out of memory");
			return;
		}
		if (w->carry.len) {
			if (put_bytes(&w->carry, s, (size_t)(nl - s)) != 0) {
				give_up(w, "out of memory");
				return;
			}
			line(w, (const char *)w->carry.d, w->carry.len);
			w->carry.len = 0;
		} else {
			line(w, s, (size_t)(nl - s));
		}
		s = nl + 1;
		if (w->in_event && w->ev_n == 0 && !w->ev_has_stack && !w->why)
			s = frames_block(w, s, end);
	}
}

/* ==== blocks ==== */

static int put_str(struct buf *b, const void *p, size_t n)
{
	return put_varint(b, n) | put_bytes(b, p, n);
}

/* The table entries new since the last block, into w->raw. */
static int tables(rep_ixw *w)
{
	struct buf *b = &w->raw;
	size_t i, k;
	int rc = 0;
	b->len = 0;
	rc |= put_varint(b, w->nframes - w->frames_done);
	for (i = w->frames_done; i < w->nframes; i++) {
		const struct frame_ent *e = &w->frames[i];
		rc |= put_varint(b, e->kind);
		rc |= put_str(b, w->pool.d + e->off, e->sym_len);
		rc |= put_str(b, w->pool.d + e->off + e->sym_len, e->dso_len);
	}
	rc |= put_varint(b, w->ncomms - w->comms_done);
	for (i = w->comms_done; i < w->ncomms; i++)
		rc |= put_str(b, w->comms[i], w->comm_len[i]);
	rc |= put_varint(b, w->nlayouts - w->layouts_done);
	for (i = w->layouts_done; i < w->nlayouts; i++) {
		const char *a = (const char *)w->layouts[i].d;
		rc |= put_varint(b, w->layout_n[i]);
		for (k = 0; k < w->layout_n[i]; k++) {
			size_t l = strlen(a);
			rc |= put_str(b, a, l);
			a += l + 1;
		}
	}
	rc |= put_varint(b, w->nstacks - w->stacks_done);
	for (i = w->stacks_done; i < w->nstacks; i++) {
		const struct stack_ent *e = &w->stacks[i];
		rc |= put_varint(b, e->n);
		for (k = 0; k < e->n; k++)
			rc |= put_varint(b, w->spool[e->off + k]);
	}
	rc |= put_varint(b, w->npids - w->pids_done);
	for (i = w->pids_done; i < w->npids; i++)
		rc |= put_varint(b, w->pids[i].pid) | put_varint(b, w->pids[i].tid);
	return rc;
}

/* Compresses src onto the end of dst; *clen gets the compressed size. */
static int squeeze(rep_ixw *w, struct buf *dst, const struct buf *src, size_t *clen)
{
	size_t bound, r;
	*clen = 0;
	if (src->len == 0)
		return 0;
	bound = ZSTD_compressBound(src->len);
	if (reserve(dst, bound) != 0)
		return -1;
	r = ZSTD_compress2(w->cc, dst->d + dst->len, bound, src->d, src->len);
	if (ZSTD_isError(r))
		return -1;
	dst->len += r;
	*clen = r;
	return 0;
}

/* Makes the pending events one block frame at the end of w->out, which
 * holds the frames not yet taken. Its offset is relative to w->out until
 * rep_ixw_take() learns where w->out goes in the file. */
static int block(rep_ixw *w)
{
	size_t nsec = IX_S_METRICS, i, hdr_at, clen[NCOLS];
	struct buf *data = &w->data;
	unsigned char head[16 + 20 * NCOLS], *h = head;
	int rc = 0;
	if (w->out_taken) {
		w->out.len = 0;
		w->out_taken = 0;
	}
	data->len = 0;
	for (i = 0; i < w->nlayouts; i++)
		if (IX_S_METRICS + 2 * (size_t)w->layout_n[i] > nsec)
			nsec = IX_S_METRICS + 2 * (size_t)w->layout_n[i];
	if (tables(w) != 0 || squeeze(w, data, &w->raw, &clen[0]) != 0)
		goto oom;
	for (i = 1; i < nsec; i++)
		if (squeeze(w, data, &w->col[i], &clen[i]) != 0)
			goto oom;
	memcpy(h, IX_BLOCK_TAG, 4);
	h += 4;
	*h++ = IX_VERSION;
	h += ix_put_varint(h, w->nblocks);
	h += ix_put_varint(h, w->pending);
	h += ix_put_varint(h, nsec);
	h += ix_put_varint(h, w->raw.len);
	h += ix_put_varint(h, clen[0]);
	for (i = 1; i < nsec; i++) {
		h += ix_put_varint(h, w->col[i].len);
		h += ix_put_varint(h, clen[i]);
	}
	hdr_at = w->out.len;
	if (reserve(&w->out, IX_SKIP_HDR) != 0)
		goto oom;
	w->out.len += IX_SKIP_HDR;
	rc |= put_bytes(&w->out, head, (size_t)(h - head));
	rc |= put_bytes(&w->out, data->d, data->len);
	if (rc || w->out.len - hdr_at - IX_SKIP_HDR > UINT32_MAX ||
	    ix_grow((void **)&w->blocks, &w->blocks_cap, w->nblocks + 1, sizeof *w->blocks) != 0)
		goto oom;
	ix_put_le32(w->out.d + hdr_at, IX_SKIP_MAGIC);
	ix_put_le32(w->out.d + hdr_at + 4, (uint32_t)(w->out.len - hdr_at - IX_SKIP_HDR));
	w->blocks[w->nblocks].offset = hdr_at;
	w->blocks[w->nblocks].size = w->out.len - hdr_at;
	w->blocks[w->nblocks].events = w->pending;
	w->nblocks++;
	for (i = 0; i < NCOLS; i++)
		w->col[i].len = 0;
	w->pending = 0;
	w->frames_done = w->nframes;
	w->comms_done = w->ncomms;
	w->layouts_done = w->nlayouts;
	w->stacks_done = w->nstacks;
	w->pids_done = w->npids;
	return 0;
oom:
	give_up(w, "out of memory");
	return -1;
}

/* The trailer frame: where every block is, and the footer that finds it. */
static int trailer(rep_ixw *w, uint64_t offset)
{
	size_t at = w->out.len, i;
	struct buf *b = &w->out;
	int rc = 0;
	if (reserve(b, IX_SKIP_HDR) != 0)
		return -1;
	b->len += IX_SKIP_HDR;
	rc |= put_bytes(b, IX_TRAIL_TAG, 4);
	rc |= put_bytes(b, &(unsigned char){ IX_VERSION }, 1);
	rc |= put_varint(b, w->nblocks);
	for (i = 0; i < w->nblocks; i++)
		rc |= put_varint(b, w->blocks[i].offset) | put_varint(b, w->blocks[i].size) |
		      put_varint(b, w->blocks[i].events);
	rc |= put_varint(b, w->file_events);
	rc |= put_varint(b, offset);
	if (rc || reserve(b, IX_FOOT) != 0 || b->len + IX_FOOT - at > UINT32_MAX)
		return -1;
	ix_put_le32(b->d + b->len, (uint32_t)(b->len + IX_FOOT - at));
	memcpy(b->d + b->len + 4, IX_FOOT_MAGIC, 8);
	b->len += IX_FOOT;
	ix_put_le32(b->d + at, IX_SKIP_MAGIC);
	ix_put_le32(b->d + at + 4, (uint32_t)(b->len - at - IX_SKIP_HDR));
	return 0;
}

void rep_ixw_take(rep_ixw *w, uint64_t offset, int last, const void **out, size_t *len)
{
	size_t i;
	*out = NULL;
	*len = 0;
	if (w->out_taken) {
		w->out.len = 0;
		w->out_taken = 0;
	}
	if (!w->why && last) {
		if (w->carry.len) { /* text that did not end with a newline */
			line(w, (const char *)w->carry.d, w->carry.len);
			w->carry.len = 0;
		}
		if (commit(w) != 0)
			give_up(w, "out of memory");
		if (!w->why && w->pending)
			block(w);
	}
	if (w->why) {
		w->out.len = 0;
		return;
	}
	for (i = w->placed; i < w->nblocks; i++)
		w->blocks[i].offset += offset;
	w->placed = w->nblocks;
	if (last && trailer(w, offset + w->out.len) != 0) {
		give_up(w, "out of memory");
		w->out.len = 0;
		return;
	}
	*out = w->out.d;
	*len = w->out.len;
	w->out_taken = 1;
}

/* ==== life ==== */

rep_ixw *rep_ixw_create(int level)
{
	rep_ixw *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->level = level ? level : 3;
	w->cc = ZSTD_createCCtx();
	if (!w->cc || ZSTD_isError(ZSTD_CCtx_setParameter(w->cc, ZSTD_c_compressionLevel,
							    w->level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cc, ZSTD_c_checksumFlag, 1))) {
		rep_ixw_free(w);
		return NULL;
	}
	return w;
}

void rep_ixw_reset(rep_ixw *w)
{
	size_t i;
	for (i = 0; i < w->ncomms; i++)
		free(w->comms[i]);
	w->ncomms = w->comms_done = 0;
	w->nlayouts = w->layouts_done = 0;
	w->nframes = w->frames_done = w->pool.len = 0;
	w->nstacks = w->stacks_done = w->splen = 0;
	if (w->bcache)
		memset(w->bcache, 0, w->bc_slots * sizeof *w->bcache);
	w->bc_used = 0;
	w->npids = w->pids_done = 0;
	if (w->frame_slots)
		memset(w->frame_slots, 0, w->frame_nslots * sizeof *w->frame_slots);
	if (w->stack_slots)
		memset(w->stack_slots, 0, w->stack_nslots * sizeof *w->stack_slots);
	if (w->pid_slots)
		memset(w->pid_slots, 0, w->pid_nslots * sizeof *w->pid_slots);
	for (i = 0; i < NCOLS; i++)
		w->col[i].len = 0;
	w->pending = w->file_events = 0;
	w->prev_time = 0;
	w->nblocks = w->placed = 0;
	w->out.len = 0;
	w->out_taken = 0;
	w->carry.len = 0;
	w->in_event = 0;
	w->why = NULL;
}

void rep_ixw_free(rep_ixw *w)
{
	size_t i;
	if (!w)
		return;
	for (i = 0; i < w->ncomms; i++)
		free(w->comms[i]);
	for (i = 0; i < IX_MAX_LAYOUTS; i++)
		free(w->layouts[i].d);
	for (i = 0; i < NCOLS; i++)
		free(w->col[i].d);
	free(w->carry.d);
	free(w->ev_frames);
	free(w->sig.d);
	free(w->frames);
	free(w->frame_slots);
	free(w->pool.d);
	free(w->stacks);
	free(w->stack_slots);
	free(w->bcache);
	free(w->spool);
	free(w->pids);
	free(w->pid_slots);
	free(w->prev);
	free(w->blocks);
	free(w->out.d);
	free(w->raw.d);
	free(w->data.d);
	ZSTD_freeCCtx(w->cc);
	free(w);
}

static void hook_new_file(void *ctx)
{
	rep_ixw_reset(ctx);
}

static void hook_text(void *ctx, const void *p, size_t n)
{
	rep_ixw_text(ctx, p, n);
}

static void hook_take(void *ctx, uint64_t offset, int last, const void **out, size_t *len)
{
	rep_ixw_take(ctx, offset, last, out, len);
}

void rep_ixw_hook(rep_ixw *w, struct rot_index *hook)
{
	hook->ctx = w;
	hook->new_file = hook_new_file;
	hook->text = hook_text;
	hook->take = hook_take;
}

int rep_ixw_given_up(const rep_ixw *w)
{
	return w->why != NULL;
}

const char *rep_ixw_why(const rep_ixw *w)
{
	return w->why ? w->why : "";
}
