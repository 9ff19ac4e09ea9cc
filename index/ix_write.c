/*
 * ix_write.c - perf-script text in, report index blocks out.
 *
 * Lines are classified and parsed exactly as the report's text path does
 * (ix_parse.h), so an index says what a text read would have said. Each
 * event becomes a few varints in per-field columns; its frames become one
 * stack id, found by hashing the frame ids, and each distinct frame line
 * and stack is written once per file, in the block where it first occurs.
 * Metric values are kept as the change since the same process's previous
 * event in the file, and the written delta as its difference to that
 * change, which is zero for almost every event and costs nothing after
 * compression.
 */
#include "index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "../common/hash.h"
#include "../common/grow.h"
#include "ix_fmt.h"
#include "ix_tables.h"
#include "ix_parse.h"
#include "../rotate/rotate.h"

#define NCOLS (IX_S_METRICS + 2 * IX_MAX_SLOTS)
/* Events per block: their columns wait in memory (~45 bytes an event),
 * the compressed block until the next frame boundary (~10 bytes). */
#define BLOCK_EVENTS IX_BLOCK_EVENTS
/* A block's table section begins with five counts. */
#define TABLE_COUNTS (5 * IX_VARINT_MAX)

/* A whole frames block (the lines between an event line and its blank
 * line) already seen, by two independent 64-bit hashes of its bytes: the
 * same bytes always parse to the same stack, so a repeat skips the parse. */
struct block_ent {
	uint64_t h1, h2;
	uint32_t len, stack; /* stack + 1; 0: empty slot */
};

struct blk {
	uint64_t offset, size, events;
};

struct ix_writer_s {
	ZSTD_CCtx *cc;
	int level;
	const char *why; /* the file's index was given up, and why */

	struct ix_buf carry;          /* a line split across calls */
	/* the event being read */
	int in_event;
	int64_t ev_time;
	uint32_t ev_comm, ev_pid, ev_layout, ev_nslots;
	int64_t ev_v[IX_MAX_SLOTS], ev_d[IX_MAX_SLOTS];
	uint32_t *ev_frames;
	size_t ev_n, ev_cap;
	int ev_has_stack;          /* ev_stack known from the block cache */
	uint32_t ev_stack;
	struct ix_buf sig;            /* the event's metric names, for the layout */

	struct ix_tables tab;     /* the file's frames, stacks, pids, comms, layouts */
	struct block_ent *bcache;  /* frames blocks seen -> stack id */
	size_t bc_slots, bc_used;

	struct ix_buf col[NCOLS];
	uint64_t pending;          /* events in col[] */
	int64_t prev_time;
	uint64_t file_events;
	struct blk *blocks;
	size_t nblocks, blocks_cap;

	struct ix_buf out;            /* block frames not yet taken, then the trailer */
	int out_taken;             /* out was handed out: empty it before reuse */
	size_t placed;             /* blocks whose offset is known */
	struct ix_buf raw, data;      /* a block's tables, its compressed sections */
};

/* Gives this file's index up. Its memory goes back at once (the tables of
 * a file that outgrew their cap are large); the next file starts afresh. */
static void give_up(ix_writer *w, const char *why)
{
	size_t i;
	if (w->why)
		return;
	w->why = why;
	ix_tables_free(&w->tab);
	free(w->bcache);
	w->bcache = NULL;
	w->bc_slots = w->bc_used = 0;
	for (i = 0; i < NCOLS; i++) {
		free(w->col[i].d);
		w->col[i] = (struct ix_buf){ 0 };
	}
	w->pending = 0;
}

/* A table lookup failed: for its reason, or for memory. @return -1. */
static int table_failed(ix_writer *w)
{
	give_up(w, w->tab.why ? w->tab.why : "out of memory");
	return -1;
}

/* ==== events ==== */

static int begin_event(ix_writer *w, const char *s, size_t len)
{
	struct ix_event_line ev;
	const char *nm;
	size_t pos = 0, nl;
	uint32_t n = 0;
	int64_t v, d;
	int r;
	if (ix_parse_event(s, len, &ev) != 0) {
		give_up(w, "an event line the report cannot parse");
		return -1;
	}
	w->sig.len = 0;
	while ((r = ix_next_metric_value(ev.rest, ev.rest_len, &pos, &nm, &nl, &v, &d)) == 1) {
		/* A blank in a name could hide a "metric_<name>:" that the
		 * report's ix_find_metric finds and ix_next_metric does not. */
		if (n == IX_MAX_SLOTS || memchr(nm, '\0', nl) || memchr(nm, ' ', nl) ||
		    memchr(nm, '\t', nl) || memchr(nm, '\r', nl)) {
			give_up(w, "an event with too many or odd metrics");
			return -1;
		}
		w->ev_v[n] = v;
		w->ev_d[n] = d;
		n++;
		if (ix_buf_put_bytes(&w->sig, nm, nl) != 0 || ix_buf_put_bytes(&w->sig, "", 1) != 0)
			return -1;
	}
	if (r < 0) {
		give_up(w, "a metric the report cannot parse");
		return -1;
	}
	if (ix_comm_id(&w->tab, ev.comm, ev.comm_len, &w->ev_comm) != 0 ||
	    ix_pid_id(&w->tab, ev.pid, ev.tid, &w->ev_pid) != 0 ||
	    ix_layout_id(&w->tab, (const char *)w->sig.d, w->sig.len, n, &w->ev_layout) != 0)
		return table_failed(w);
	w->ev_nslots = n;
	w->ev_time = ev.time_us;
	w->ev_n = 0;
	w->ev_has_stack = 0;
	w->in_event = 1;
	return 0;
}

static int frame(ix_writer *w, const char *s, size_t len)
{
	struct ix_frame_line fr;
	uint32_t id;
	if (!w->in_event)
		return 0; /* the report ignores frames outside an event too */
	if (ix_parse_frame(s, len, &fr) != 0) {
		give_up(w, "a frame line the report cannot parse");
		return -1;
	}
	if (!fr.dso)
		fr.dso = "";
	if (ix_frame_id(&w->tab, &fr, &id) != 0)
		return table_failed(w);
	if (fp_grow((void **)&w->ev_frames, &w->ev_cap, w->ev_n + 1, sizeof *w->ev_frames, 64) != 0)
		return -1;
	w->ev_frames[w->ev_n++] = id;
	return 0;
}

static int block(ix_writer *w);

static int commit(ix_writer *w)
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
	else if (ix_stack_id(&w->tab, w->ev_frames, w->ev_n, &st) != 0)
		return table_failed(w);
	prev = ix_pid_prev(&w->tab, w->ev_pid);
	rc |= ix_buf_put_varint(&w->col[IX_S_TIME],
			   ix_zigzag((int64_t)((uint64_t)w->ev_time - (uint64_t)w->prev_time)));
	rc |= ix_buf_put_varint(&w->col[IX_S_COMM], w->ev_comm);
	rc |= ix_buf_put_varint(&w->col[IX_S_PID], w->ev_pid);
	rc |= ix_buf_put_varint(&w->col[IX_S_STACK], st);
	rc |= ix_buf_put_varint(&w->col[IX_S_LAYOUT], w->ev_layout);
	for (k = 0; k < w->ev_nslots; k++) {
		/* modulo 2^64, as the reader undoes it */
		uint64_t change = (uint64_t)w->ev_v[k] - (uint64_t)prev[k];
		uint64_t corr = (uint64_t)w->ev_d[k] - change;
		rc |= ix_buf_put_varint(&w->col[IX_S_METRICS + 2 * k], ix_zigzag((int64_t)change));
		rc |= ix_buf_put_varint(&w->col[IX_S_METRICS + 2 * k + 1], ix_zigzag((int64_t)corr));
		prev[k] = w->ev_v[k];
	}
	if (rc)
		return -1;
	w->prev_time = w->ev_time;
	w->pending++;
	w->file_events++;
	if (w->pending >= BLOCK_EVENTS && block(w) != 0)
		return -1;
	/* what the reader holds to (IX_MAX_TABLES), counted as the writer's memory */
	if (ix_tables_bytes(&w->tab) + w->bc_slots * sizeof *w->bcache +
		    TABLE_COUNTS * (w->nblocks + 1) > IX_MAX_TABLES) {
		give_up(w, "the tables grew past their cap");
		return -1;
	}
	return 0;
}

static void line(ix_writer *w, const char *s, size_t len)
{
	int rc = 0;
	switch (ix_line_kind(s, len)) {
	case IX_L_BLANK: rc = commit(w); break;
	case IX_L_COMMENT: break;
	case IX_L_EVENT:
		if ((rc = commit(w)) == 0)
			rc = begin_event(w, s, len);
		break;
	case IX_L_FRAME: rc = frame(w, s, len); break;
	case IX_L_OTHER:
		give_up(w, "a line that is not perf script text");
		rc = -1;
		break;
	}
	if (rc)
		give_up(w, "out of memory");
}

static struct block_ent *block_slot(ix_writer *w, uint64_t h1, uint64_t h2, size_t len)
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
static const char *frames_block(ix_writer *w, const char *s, const char *end)
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
	fp_hash128(s, (size_t)(q - s), &h1, &h2);
	if (!(e = block_slot(w, h1, h2, (size_t)(q - s))))
		return s;
	if (e->stack) {
		w->ev_stack = e->stack - 1;
		w->ev_has_stack = 1;
		return q;
	}
	for (const char *l = s; l < q; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(q - l));
		switch (ix_line_kind(l, (size_t)(nl - l))) {
		case IX_L_FRAME:
			if (frame(w, l, (size_t)(nl - l)) != 0) {
				give_up(w, "out of memory");
				return q;
			}
			break;
		case IX_L_COMMENT:
			break;
		default:
			/* a line that is not a frame: leave it to the line loop */
			w->ev_n = 0;
			return s;
		}
	}
	if (ix_stack_id(&w->tab, w->ev_frames, w->ev_n, &st) != 0) {
		table_failed(w);
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

void ix_writer_text(ix_writer *w, const void *p, size_t n)
{
	const char *s = p, *end = s + n;
	if (w->why)
		return;
	while (s < end && !w->why) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl) {
			if (ix_buf_put_bytes(&w->carry, s, (size_t)(end - s)) != 0)
				give_up(w, "out of memory");
			return;
		}
		if (w->carry.len) {
			if (ix_buf_put_bytes(&w->carry, s, (size_t)(nl - s)) != 0) {
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

/* Compresses src onto the end of dst; *clen gets the compressed size. */
static int squeeze(ix_writer *w, struct ix_buf *dst, const struct ix_buf *src, size_t *clen)
{
	size_t bound, r;
	*clen = 0;
	if (src->len == 0)
		return 0;
	bound = ZSTD_compressBound(src->len);
	if (ix_buf_reserve(dst, bound) != 0)
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
 * ix_writer_take() learns where w->out goes in the file. */
static int block(ix_writer *w)
{
	size_t nsec = IX_S_METRICS, i, hdr_at, clen[NCOLS];
	struct ix_buf *data = &w->data;
	unsigned char head[16 + 20 * NCOLS], *h = head;
	int rc = 0;
	if (w->out_taken) {
		w->out.len = 0;
		w->out_taken = 0;
	}
	data->len = 0;
	nsec += 2 * (size_t)ix_tables_max_slots(&w->tab);
	w->raw.len = 0;
	if (ix_tables_encode(&w->tab, &w->raw) != 0 || squeeze(w, data, &w->raw, &clen[0]) != 0)
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
	if (ix_buf_reserve(&w->out, IX_SKIP_HDR) != 0)
		goto oom;
	w->out.len += IX_SKIP_HDR;
	rc |= ix_buf_put_bytes(&w->out, head, (size_t)(h - head));
	rc |= ix_buf_put_bytes(&w->out, data->d, data->len);
	if (rc || w->out.len - hdr_at - IX_SKIP_HDR > UINT32_MAX ||
	    fp_grow((void **)&w->blocks, &w->blocks_cap, w->nblocks + 1, sizeof *w->blocks, 64) != 0)
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
	return 0;
oom:
	give_up(w, "out of memory");
	return -1;
}

/* The trailer frame: where every block is, and the footer that finds it. */
static int trailer(ix_writer *w, uint64_t offset)
{
	size_t at = w->out.len, i;
	struct ix_buf *b = &w->out;
	int rc = 0;
	if (ix_buf_reserve(b, IX_SKIP_HDR) != 0)
		return -1;
	b->len += IX_SKIP_HDR;
	rc |= ix_buf_put_bytes(b, IX_TRAIL_TAG, 4);
	rc |= ix_buf_put_bytes(b, &(unsigned char){ IX_VERSION }, 1);
	rc |= ix_buf_put_varint(b, w->nblocks);
	for (i = 0; i < w->nblocks; i++)
		rc |= ix_buf_put_varint(b, w->blocks[i].offset) | ix_buf_put_varint(b, w->blocks[i].size) |
		      ix_buf_put_varint(b, w->blocks[i].events);
	rc |= ix_buf_put_varint(b, w->file_events);
	rc |= ix_buf_put_varint(b, offset);
	if (rc || ix_buf_reserve(b, IX_FOOT) != 0 || b->len + IX_FOOT - at > UINT32_MAX)
		return -1;
	ix_put_le32(b->d + b->len, (uint32_t)(b->len + IX_FOOT - at));
	memcpy(b->d + b->len + 4, IX_FOOT_MAGIC, 8);
	b->len += IX_FOOT;
	ix_put_le32(b->d + at, IX_SKIP_MAGIC);
	ix_put_le32(b->d + at + 4, (uint32_t)(b->len - at - IX_SKIP_HDR));
	return 0;
}

void ix_writer_take(ix_writer *w, uint64_t offset, int last, const void **out, size_t *len)
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

ix_writer *ix_writer_create(int level)
{
	ix_writer *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->level = level ? level : 3;
	w->cc = ZSTD_createCCtx();
	if (!w->cc || ZSTD_isError(ZSTD_CCtx_setParameter(w->cc, ZSTD_c_compressionLevel,
							    w->level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cc, ZSTD_c_checksumFlag, 1))) {
		ix_writer_free(w);
		return NULL;
	}
	return w;
}

void ix_writer_reset(ix_writer *w)
{
	size_t i;
	ix_tables_reset(&w->tab);
	if (w->bcache)
		memset(w->bcache, 0, w->bc_slots * sizeof *w->bcache);
	w->bc_used = 0;
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

void ix_writer_free(ix_writer *w)
{
	size_t i;
	if (!w)
		return;
	ix_tables_free(&w->tab);
	for (i = 0; i < NCOLS; i++)
		free(w->col[i].d);
	free(w->carry.d);
	free(w->ev_frames);
	free(w->sig.d);
	free(w->bcache);
	free(w->blocks);
	free(w->out.d);
	free(w->raw.d);
	free(w->data.d);
	ZSTD_freeCCtx(w->cc);
	free(w);
}

static void hook_new_file(void *ctx)
{
	ix_writer_reset(ctx);
}

static void hook_text(void *ctx, const void *p, size_t n)
{
	ix_writer_text(ctx, p, n);
}

static void hook_take(void *ctx, uint64_t offset, int last, const void **out, size_t *len)
{
	ix_writer_take(ctx, offset, last, out, len);
}

void ix_writer_hook(ix_writer *w, struct rot_index *hook)
{
	hook->ctx = w;
	hook->new_file = hook_new_file;
	hook->text = hook_text;
	hook->take = hook_take;
}

int ix_writer_given_up(const ix_writer *w)
{
	return w->why != NULL;
}

const char *ix_writer_why(const ix_writer *w)
{
	return w->why ? w->why : "";
}
