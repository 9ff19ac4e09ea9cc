/*
 * rep_index_read.c - a file's events from its report index instead of its
 * text.
 *
 * Three passes over the file's index blocks, so that nothing reaches the
 * collector unless the whole index is sound and the text can still be
 * read instead: the first checks every block's header and reads its
 * tables; the second decompresses the columns this report needs and walks
 * their events without collecting them; the third walks them again into
 * the collector, in file order. Frames are interned the first time a kept
 * event uses a stack, which is when the text path would first see them, so
 * both paths build the same tables.
 *
 * What a file can make it hold is bounded by what the file holds, not by
 * what its headers claim (doc/security.md): a column at most IX_VARINT_MAX
 * bytes an event, a block at most IX_BLOCK_EVENTS events, one block's
 * columns in memory at a time; the tables, held while the events are read,
 * at most IX_MAX_TABLES in all and, with the entries read from them, at
 * most HOLD_PER_BYTE times the file's size. An index past any of these is
 * set aside before anything is decompressed for it, and the text is read.
 */
#include "rep_index_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "rep_collect.h"
#include "../common/grow.h"
#include "../index/ix_fmt.h"

/* The tables and their entries, held while the events are read, may take
 * this many times the file's size (and HOLD_FLOOR whatever its size). A
 * capture's take under 12 times: deep stacks that differ in their leaf
 * alone, whose table compresses 50 to 1, take 12 (doc/security.md). */
#define HOLD_PER_BYTE 32
#define HOLD_FLOOR ((uint64_t)16 << 20)
#define NSEC (IX_S_METRICS + 2 * IX_MAX_SLOTS)
#define BAD (-13)  /* the index is damaged or claims too much; x->why says how */
#define ABSENT 1   /* the file has no index at all */

struct str {
	const char *p;
	size_t len;
};

struct ix_frame {
	const char *sym, *dso;
	uint32_t sym_len, dso_len;
	uint32_t gid;  /* the collector's id, once a kept event used it */
	unsigned char is_category;
};

struct ix_stack {
	const unsigned char *ids; /* its n frame ids: ids_len bytes of varints in a table section */
	uint32_t n, ids_len, catmask;
	int ready;                /* its frames interned, catmask known */
};

struct ix_layout {
	size_t first, n;   /* names in lnames */
	int slot;          /* the weight metric's slot, -1 none, -2 not looked up */
};

/* A block: where it is, and how many table entries the file has once its
 * tables are read (its events refer to those alone). */
struct ix_block {
	uint64_t offset, size;
	uint32_t events;
	uint32_t ncomms, npids, nstacks, nlayouts;
};

/* A block's header, read each time the block is. */
struct ix_head {
	size_t nsec;
	uint64_t raw[NSEC];
	size_t at[NSEC], clen[NSEC];
};

struct leaf_slot {
	uint64_t key;      /* stack << 8 | comm, + 1; 0 empty */
	uint32_t leaf[2];
};

struct ix {
	rep_collect *c;
	int fd;
	ZSTD_DCtx *dc;
	uint64_t fsize;
	uint64_t held, hold_cap;  /* what the tables and their entries take, and its bound */
	struct ix_block *blocks;
	size_t nblocks;
	uint64_t total;
	unsigned char **tables;   /* decompressed table sections (names and ids point in) */
	size_t ntables, tables_cap;
	uint64_t tables_raw;      /* their bytes, all blocks */
	struct ix_frame *frames;
	size_t nframes, frames_cap;
	struct str comms[IX_MAX_COMMS];
	uint32_t comm_gid[IX_MAX_COMMS];
	int comm_ok[IX_MAX_COMMS], comm_seen[IX_MAX_COMMS];
	size_t ncomms;
	struct str *lnames;
	size_t nlnames, lnames_cap;
	struct ix_layout layouts[IX_MAX_LAYOUTS];
	size_t nlayouts;
	struct ix_stack *stacks;
	size_t nstacks, stacks_cap;
	uint32_t (*pids)[2];
	signed char *pid_ok; /* -1: not looked up */
	size_t npids, pids_cap;
	struct leaf_slot *leaves;
	size_t nleaves, leaves_used;
	unsigned char *buf;     /* the block being read */
	size_t buf_cap;
	unsigned char *col[NSEC];
	size_t col_cap[NSEC];
	uint32_t *ids;          /* a stack's collector ids, for the event at hand */
	size_t ids_cap;
	/* what this report reads: the weight's candidate slots (cand[k] = 1 +
	 * its index in prev), every metric (all), and their history */
	int weighted, all, cand[IX_MAX_SLOTS];
	size_t ncand;
	int64_t *prev;
	int resolved, use_delta; /* --weight resolved (by this file or one before) */
	char *why;
	size_t why_cap;
};

static int bad(struct ix *x, const char *why)
{
	snprintf(x->why, x->why_cap, "%s", why);
	return BAD;
}

/* n more bytes held for the tables. @return 0, or BAD past the file's bound. */
static int hold(struct ix *x, uint64_t n)
{
	if (n > x->hold_cap - x->held) {
		snprintf(x->why, x->why_cap, "its tables would take more than %llu MiB, more than a file of "
			 "%llu bytes holds", (unsigned long long)(x->hold_cap >> 20),
			 (unsigned long long)x->fsize);
		return BAD;
	}
	x->held += n;
	return 0;
}

static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	unsigned char *p = buf;
	while (n) {
		ssize_t r = pread(fd, p, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/* ==== the trailer, a block's bytes and header ==== */

static int read_trailer(struct ix *x)
{
	unsigned char foot[IX_FOOT], head[4], *t;
	const unsigned char *p, *end;
	uint64_t fsize = x->fsize, tsize, nb, v[3], sum = 0, prev_end = 4, toff;
	size_t i;
	if (fsize < 4 + IX_SKIP_HDR + 5 + IX_FOOT || pread_all(x->fd, head, 4, 0) != 0 ||
	    ix_get_le32(head) != ZSTD_MAGICNUMBER || pread_all(x->fd, foot, IX_FOOT, fsize - IX_FOOT) != 0 ||
	    memcmp(foot + 4, IX_FOOT_MAGIC, 8) != 0)
		return ABSENT; /* not an error: most files but zstd captures have none */
	tsize = ix_get_le32(foot);
	if (tsize < IX_SKIP_HDR + 5 + IX_FOOT || tsize > fsize - 4)
		return bad(x, "its trailer has a bad size");
	if (!(t = malloc(tsize)))
		return REP_IX_NOMEM;
	toff = fsize - tsize;
	if (pread_all(x->fd, t, tsize, toff) != 0) {
		free(t);
		return bad(x, "its trailer cannot be read");
	}
	p = t + IX_SKIP_HDR + 5;
	end = t + tsize - IX_FOOT;
	/* each block is a skippable frame of its own before the trailer */
	if (ix_get_le32(t) != IX_SKIP_MAGIC || ix_get_le32(t + 4) != tsize - IX_SKIP_HDR ||
	    memcmp(t + 8, IX_TRAIL_TAG, 4) != 0 || t[12] != IX_VERSION ||
	    ix_get_varint(&p, end, &nb) != 0 || nb > tsize || nb > (toff - 4) / IX_SKIP_HDR) {
		free(t);
		return bad(x, "its trailer is malformed");
	}
	if (hold(x, nb * sizeof *x->blocks) != 0) {
		free(t);
		return BAD;
	}
	if (!(x->blocks = calloc(nb ? nb : 1, sizeof *x->blocks))) {
		free(t);
		return REP_IX_NOMEM;
	}
	x->nblocks = nb;
	for (i = 0; i < nb; i++) {
		struct ix_block *b = &x->blocks[i];
		if (ix_get_varint(&p, end, &v[0]) || ix_get_varint(&p, end, &v[1]) ||
		    ix_get_varint(&p, end, &v[2]) || v[0] < prev_end || v[1] < IX_SKIP_HDR + 5 ||
		    v[1] > toff || v[0] > toff - v[1])
			break;
		if (v[2] > IX_BLOCK_EVENTS) {
			free(t);
			return bad(x, "a block claims more than 8192 events");
		}
		prev_end = v[0] + v[1];
		b->offset = v[0];
		b->size = v[1];
		b->events = (uint32_t)v[2];
		sum += v[2];
	}
	if (i < nb || ix_get_varint(&p, end, &v[0]) || v[0] != sum ||
	    ix_get_varint(&p, end, &v[1]) || v[1] != toff || p != end) {
		free(t);
		return bad(x, "its trailer does not match the file (was it changed?)");
	}
	x->total = sum;
	free(t);
	return 0;
}

/* A block's header takes at most this: tag, seq, events, nsec, two
 * varints a section. */
#define HEAD_MAX (IX_SKIP_HDR + 5 + 3 * IX_VARINT_MAX + 2 * IX_VARINT_MAX * NSEC)

/* The block's first n bytes (its whole size at most) into x->buf. */
static int read_block(struct ix *x, const struct ix_block *b, uint64_t n)
{
	if (n > b->size)
		n = b->size;
	if (fp_grow((void **)&x->buf, &x->buf_cap, n, 1, 64) != 0)
		return REP_IX_NOMEM;
	if (pread_all(x->fd, x->buf, n, b->offset) != 0 || ix_get_le32(x->buf + 4) != b->size - IX_SKIP_HDR)
		return bad(x, "a block cannot be read");
	return 0;
}

/* The header of block seq (its first `have` bytes in x->buf): its
 * sections, each no bigger than what its events can need. */
static int block_head(struct ix *x, const struct ix_block *b, uint64_t seq, uint64_t have,
		      struct ix_head *h)
{
	const unsigned char *f = x->buf, *p = f + IX_SKIP_HDR + 5, *end = f + (have < b->size ? have : b->size);
	uint64_t v, ev, ns, at;
	size_t k;
	if (ix_get_le32(f) != IX_SKIP_MAGIC || memcmp(f + 8, IX_BLOCK_TAG, 4) != 0 ||
	    f[12] != IX_VERSION || ix_get_varint(&p, end, &v) || v != seq ||
	    ix_get_varint(&p, end, &ev) || ev != b->events || ix_get_varint(&p, end, &ns) ||
	    ns < IX_S_METRICS || ns > NSEC)
		return bad(x, "a block is malformed");
	h->nsec = ns;
	for (k = 0; k < ns; k++) {
		uint64_t cl;
		if (ix_get_varint(&p, end, &h->raw[k]) || ix_get_varint(&p, end, &cl) ||
		    (cl == 0) != (h->raw[k] == 0) || cl > b->size)
			return bad(x, "a block is malformed");
		h->clen[k] = cl;
		if (k > 0 && h->raw[k] > (uint64_t)IX_VARINT_MAX * b->events)
			return bad(x, "a column claims more bytes than its events can hold");
	}
	if (h->raw[0] == 0)
		return bad(x, "a block has no tables");
	at = (uint64_t)(p - f);
	for (k = 0; k < ns; k++) {
		if (h->clen[k] > b->size - at)
			return bad(x, "a block is malformed");
		h->at[k] = at;
		at += h->clen[k];
	}
	return at == b->size ? 0 : bad(x, "a block is malformed");
}

/* Section k of the block in x->buf, into dst (h->raw[k] bytes). */
static int section(struct ix *x, const struct ix_head *h, size_t k, unsigned char *dst)
{
	size_t r;
	if (h->raw[k] == 0)
		return 0;
	r = ZSTD_decompressDCtx(x->dc, dst, h->raw[k], x->buf + h->at[k], h->clen[k]);
	return ZSTD_isError(r) || r != h->raw[k] ? -1 : 0;
}

/* ==== pass 1: the tables ==== */

static int get_str(const unsigned char **p, const unsigned char *end, struct str *s)
{
	uint64_t n;
	if (ix_get_varint(p, end, &n) || n > (uint64_t)(end - *p))
		return -1;
	s->p = (const char *)*p;
	s->len = n;
	*p += n;
	return 0;
}

/* Room for n more entries of size each in *arr, held. */
static int more(struct ix *x, void **arr, size_t *cap, size_t have, uint64_t n, size_t size)
{
	if (hold(x, n * size) != 0)
		return BAD;
	return fp_grow(arr, cap, have + (size_t)n, size, 64) != 0 ? REP_IX_NOMEM : 0;
}

/* The table section of block b (header h, bytes in x->buf). A table names
 * the entries first used in its block: no more stacks or pids than the
 * block has events, no more frames than its new stacks name. */
static int tables(struct ix *x, struct ix_block *b, const struct ix_head *h)
{
	unsigned char *raw;
	const unsigned char *p, *end;
	uint64_t n, i, k, v, w, new_ids = 0;
	size_t frames_before = x->nframes;
	int rc;
	if (h->raw[0] > IX_MAX_TABLES - x->tables_raw)
		return bad(x, "its tables add up to more than 64 MiB, more than flameprof writes");
	x->tables_raw += h->raw[0];
	if ((rc = hold(x, h->raw[0])) != 0)
		return rc;
	if (fp_grow((void **)&x->tables, &x->tables_cap, x->ntables + 1, sizeof *x->tables, 64) != 0 ||
	    !(raw = malloc(h->raw[0])))
		return REP_IX_NOMEM;
	x->tables[x->ntables++] = raw;
	if (section(x, h, IX_S_TABLES, raw) != 0)
		return bad(x, "a table section does not decompress");
	p = raw;
	end = raw + h->raw[0];
	/* frames: at least three bytes each */
	if (ix_get_varint(&p, end, &n) || n > (uint64_t)(end - p) / 3)
		return bad(x, "a frame table is malformed");
	if ((rc = more(x, (void **)&x->frames, &x->frames_cap, x->nframes, n, sizeof *x->frames)) != 0)
		return rc;
	for (i = 0; i < n; i++) {
		struct ix_frame *f = &x->frames[x->nframes++];
		struct str sym, dso;
		if (ix_get_varint(&p, end, &v) || v > 1 || get_str(&p, end, &sym) ||
		    get_str(&p, end, &dso))
			return bad(x, "a frame table is malformed");
		if (sym.len + dso.len > REP_MAX_FRAME_BYTES)
			return bad(x, "a frame is longer than 65536 bytes");
		*f = (struct ix_frame){ sym.p, dso.p, (uint32_t)sym.len, (uint32_t)dso.len, REP_NO_FRAME,
					(unsigned char)v };
	}
	/* comms */
	if (ix_get_varint(&p, end, &n) || n > IX_MAX_COMMS - x->ncomms)
		return bad(x, "a name table is malformed");
	for (i = 0; i < n; i++)
		if (get_str(&p, end, &x->comms[x->ncomms++]))
			return bad(x, "a name table is malformed");
	/* layouts */
	if (ix_get_varint(&p, end, &n) || n > IX_MAX_LAYOUTS - x->nlayouts)
		return bad(x, "a metric table is malformed");
	for (i = 0; i < n; i++) {
		struct ix_layout *l = &x->layouts[x->nlayouts++];
		if (ix_get_varint(&p, end, &v) || v > IX_MAX_SLOTS || IX_S_METRICS + 2 * v > h->nsec)
			return bad(x, "a metric table is malformed");
		if ((rc = more(x, (void **)&x->lnames, &x->lnames_cap, x->nlnames, v, sizeof *x->lnames)) != 0)
			return rc;
		l->first = x->nlnames;
		l->n = v;
		l->slot = -2;
		for (k = 0; k < v; k++)
			if (get_str(&p, end, &x->lnames[x->nlnames++]))
				return bad(x, "a metric table is malformed");
	}
	/* stacks: their ids are read where they lie, when an event uses them */
	if (ix_get_varint(&p, end, &n) || n > b->events)
		return bad(x, "a stack table is malformed");
	if ((rc = more(x, (void **)&x->stacks, &x->stacks_cap, x->nstacks, n, sizeof *x->stacks)) != 0)
		return rc;
	for (i = 0; i < n; i++) {
		struct ix_stack *s = &x->stacks[x->nstacks++];
		if (ix_get_varint(&p, end, &v) || v > (uint64_t)(end - p) || v > REP_MAX_FRAMES)
			return bad(x, "a stack table is malformed");
		const unsigned char *ids = p;
		new_ids += v;
		for (k = 0; k < v; k++)
			if (ix_get_varint(&p, end, &w) || w >= x->nframes)
				return bad(x, "a stack table is malformed");
		*s = (struct ix_stack){ ids, (uint32_t)v, (uint32_t)(p - ids), 0, 0 };
	}
	if (x->nframes - frames_before > new_ids)
		return bad(x, "a frame table holds frames no new stack uses");
	/* pids */
	if (ix_get_varint(&p, end, &n) || n > b->events)
		return bad(x, "a pid table is malformed");
	if ((rc = more(x, (void **)&x->pids, &x->pids_cap, x->npids, n, sizeof *x->pids + 1)) != 0)
		return rc;
	for (i = 0; i < n; i++) {
		if (ix_get_varint(&p, end, &v) || ix_get_varint(&p, end, &w) || v > UINT32_MAX ||
		    w > UINT32_MAX)
			return bad(x, "a pid table is malformed");
		x->pids[x->npids][0] = (uint32_t)v;
		x->pids[x->npids][1] = (uint32_t)w;
		x->npids++;
	}
	b->ncomms = (uint32_t)x->ncomms;
	b->npids = (uint32_t)x->npids;
	b->nstacks = (uint32_t)x->nstacks;
	b->nlayouts = (uint32_t)x->nlayouts;
	return p == end ? 0 : bad(x, "a table section has trailing bytes");
}

static int read_tables(struct ix *x)
{
	struct ix_head h;
	int rc = 0;
	/* the header, then as far as the table section's end: the columns
	 * are read in the next passes */
	for (size_t i = 0; rc == 0 && i < x->nblocks; i++) {
		struct ix_block *b = &x->blocks[i];
		if ((rc = read_block(x, b, HEAD_MAX)) == 0 && (rc = block_head(x, b, i, HEAD_MAX, &h)) == 0 &&
		    (rc = read_block(x, b, h.at[0] + h.clen[0])) == 0)
			rc = tables(x, b, &h);
	}
	return rc;
}

/* ==== passes 2 and 3: the events, checked, then collected ==== */

static uint32_t *leaf_of(struct ix *x, uint64_t stack, uint32_t comm)
{
	uint64_t key = (stack << 8 | comm) + 1, h;
	size_t j;
	if (x->leaves_used * 2 >= x->nleaves) {
		size_t ns = x->nleaves ? x->nleaves * 2 : 4096, i;
		struct leaf_slot *s = calloc(ns, sizeof *s);
		if (!s)
			return NULL;
		for (i = 0; i < x->nleaves; i++) {
			if (!x->leaves[i].key)
				continue;
			h = x->leaves[i].key * 0x9e3779b97f4a7c15ull;
			j = (h >> 32) & (ns - 1);
			while (s[j].key)
				j = (j + 1) & (ns - 1);
			s[j] = x->leaves[i];
		}
		free(x->leaves);
		x->leaves = s;
		x->nleaves = ns;
	}
	h = key * 0x9e3779b97f4a7c15ull;
	for (j = (h >> 32) & (x->nleaves - 1); x->leaves[j].key; j = (j + 1) & (x->nleaves - 1))
		if (x->leaves[j].key == key)
			return x->leaves[j].leaf;
	x->leaves[j].key = key;
	x->leaves_used++;
	return x->leaves[j].leaf;
}

/* A stack's frames as the collector's ids, into x->ids; on its first kept
 * use its frames are interned and its catmask learnt. The ids were
 * checked in pass 1. */
static int stack_ids(struct ix *x, struct ix_stack *s)
{
	const unsigned char *p = s->ids, *end = p + s->ids_len;
	uint64_t fid;
	if (fp_grow((void **)&x->ids, &x->ids_cap, s->n ? s->n : 1, sizeof *x->ids, 64) != 0)
		return REP_IX_NOMEM;
	for (uint32_t k = 0; k < s->n; k++) {
		struct ix_frame *f;
		if (ix_get_varint(&p, end, &fid) != 0)
			return bad(x, "a stack table is malformed");
		f = &x->frames[fid];
		if (!s->ready) {
			uint32_t id = rep_collect_frame(x->c, f->is_category, f->sym, f->sym_len, f->dso,
							f->dso_len, &s->catmask);
			if (id == REP_NO_FRAME)
				return REP_IX_NOMEM;
			f->gid = id;
		}
		x->ids[k] = f->gid;
	}
	s->ready = 1;
	return 0;
}

static int resolve(struct ix *x, const struct ix_layout *l)
{
	const char *names[IX_MAX_SLOTS];
	size_t lens[IX_MAX_SLOTS], k;
	for (k = 0; k < l->n; k++) {
		names[k] = x->lnames[l->first + k].p;
		lens[k] = x->lnames[l->first + k].len;
	}
	return rep_collect_resolve(x->c, names, lens, l->n);
}

/* Where the resolved weight metric is in a layout, -1 if absent. */
static int layout_slot(struct ix *x, struct ix_layout *l)
{
	size_t k;
	if (l->slot == -2) {
		l->slot = -1;
		for (k = 0; k < l->n; k++)
			if (rep_collect_metric_is(x->c, x->lnames[l->first + k].p,
						  x->lnames[l->first + k].len)) {
				l->slot = (int)k;
				break;
			}
	}
	return l->slot;
}

/* One event as its columns give it. */
struct ix_event {
	int64_t t;
	uint64_t comm, pid, stack, layout;
	uint64_t ch[IX_MAX_SLOTS], corr[IX_MAX_SLOTS]; /* the slots this report reads */
};

/* The metric slots this report reads: the weight's candidates, or all. */
static int reads_slot(const struct ix *x, size_t k)
{
	return x->all || (x->weighted && x->cand[k]);
}

/* Into the collector. */
static int collect(struct ix *x, const struct ix_event *ev)
{
	struct ix_layout *l = &x->layouts[ev->layout];
	struct ix_stack *s = &x->stacks[ev->stack];
	int64_t vals[IX_MAX_SLOTS], dels[IX_MAX_SLOTS], w = 0;
	const char *knames[REP_MAX_METRICS];
	size_t klens[REP_MAX_METRICS], k;
	struct rep_kept kept = { 0, 0, 0, 0, 0, knames, klens, dels, 0 };
	uint32_t *leaf = NULL, comm = (uint32_t)ev->comm;
	int pass, has_w = 0, rc;
	for (k = 0; (x->weighted || x->all) && k < l->n; k++) {
		if (!reads_slot(x, k))
			continue;
		dels[k] = (int64_t)((uint64_t)ix_unzigzag(ev->ch[k]) + (uint64_t)ix_unzigzag(ev->corr[k]));
		if (x->weighted && x->cand[k]) {
			int64_t *pv = &x->prev[ev->pid * x->ncand + (size_t)x->cand[k] - 1];
			vals[k] = (int64_t)((uint64_t)*pv + (uint64_t)ix_unzigzag(ev->ch[k]));
			*pv = vals[k];
		}
	}
	if (!x->comm_seen[comm]) {
		x->comm_gid[comm] = rep_collect_status(x->c, x->comms[comm].p, x->comms[comm].len,
						       &x->comm_ok[comm]);
		if (x->comm_gid[comm] == REP_NO_FRAME)
			return REP_IX_NOMEM;
		x->comm_seen[comm] = 1;
	}
	if (x->pid_ok[ev->pid] < 0)
		x->pid_ok[ev->pid] = (signed char)rep_collect_pid_ok(x->c, x->pids[ev->pid][0],
								     x->pids[ev->pid][1]);
	pass = x->comm_ok[comm] && x->pid_ok[ev->pid];
	if (pass) {
		if (x->weighted) {
			int slot;
			if (!x->resolved) { /* on the first kept event, as the text path */
				if ((rc = resolve(x, l)) != 0)
					return rc;
				x->resolved = 1;
				x->use_delta = rep_collect_weighs_delta(x->c);
			}
			slot = layout_slot(x, l);
			if (slot >= 0) {
				has_w = 1;
				w = x->use_delta ? dels[slot] : vals[slot];
			}
		}
		if (!(leaf = leaf_of(x, ev->stack, comm)))
			return REP_IX_NOMEM;
		/* the ids are read only where the collector has no leaf to go
		 * by: the first use of a stack, or of its negative side */
		if ((!s->ready || !leaf[0] || (has_w && w < 0 && !leaf[1])) &&
		    (rc = stack_ids(x, s)) != 0)
			return rc;
	}
	kept.pid = x->pids[ev->pid][0];
	kept.serial = x->pids[ev->pid][1];
	if (x->all && pass) {
		for (k = 0; k < l->n && k < REP_MAX_METRICS; k++) {
			knames[k] = x->lnames[l->first + k].p;
			klens[k] = x->lnames[l->first + k].len;
		}
		kept.nmetrics = k;
	}
	rc = rep_collect_pre_event(x->c, ev->t, x->comm_gid[comm], pass, x->ids, s->n, s->catmask,
				   has_w, w, leaf, &kept);
	return rc == REP_C_NOMEM ? REP_IX_NOMEM : rc;
}

/* The sections this report decompresses: the per-event columns, and the
 * columns of the metric slots it reads. */
static int wanted(const struct ix *x, size_t k)
{
	return k < IX_S_METRICS || reads_slot(x, (k - IX_S_METRICS) / 2);
}

/* ==== pass 2: each column checked on its own ==== */

/* *n: how many varints p..e holds, as ix_get_varint() reads them.
 * @return 0, or -1 when one is malformed or cut. */
static int count_varints(const unsigned char *p, const unsigned char *e, uint64_t *n)
{
	uint64_t k = 0;
	unsigned run = 0; /* continuation bytes so far */
	for (; p < e; p++) {
		if (*p & 0x80) {
			if (++run > IX_VARINT_MAX - 1)
				return -1;
			continue;
		}
		if (run == IX_VARINT_MAX - 1 && *p > 1)
			return -1; /* past 64 bits */
		run = 0;
		k++;
	}
	*n = k;
	return run ? -1 : 0;
}

/* *n: how many varints p..e holds, each below `below` (hist[v] counted
 * when given). @return 0, -1 when one is malformed, -2 past `below`. */
static int count_below(const unsigned char *p, const unsigned char *e, uint64_t below, uint64_t *n,
		       uint32_t *hist)
{
	uint64_t k = 0, v;
	while (p < e) {
		if (*p < 0x80) /* most ids take one byte */
			v = *p++;
		else if (ix_get_varint(&p, e, &v) != 0)
			return -1;
		if (v >= below)
			return -2;
		if (hist)
			hist[v]++;
		k++;
	}
	*n = k;
	return 0;
}

/* The block's columns (decompressed, p[k]..e[k]) hold exactly what its
 * events read, and every id is of an entry its block or an earlier one
 * brought: then pass 3 cannot fail on them. Column by column, which takes
 * a third of the time of walking the events. */
static int check_columns(struct ix *x, const struct ix_block *b, const struct ix_head *h,
			 const unsigned char *const *p, const unsigned char *const *e)
{
	static const size_t ids[] = { IX_S_COMM, IX_S_PID, IX_S_STACK, IX_S_LAYOUT };
	const uint64_t below[] = { b->ncomms, b->npids, b->nstacks, b->nlayouts };
	uint32_t hist[IX_MAX_LAYOUTS] = { 0 };
	uint64_t n = 0, want;
	size_t i, k;
	int r;
	if (count_varints(p[IX_S_TIME], e[IX_S_TIME], &n) != 0 || n != b->events)
		return bad(x, n < b->events ? "a column ends early" : "a column has bytes left over");
	for (i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		r = count_below(p[ids[i]], e[ids[i]], below[i], &n, ids[i] == IX_S_LAYOUT ? hist : NULL);
		if (r == -2)
			return bad(x, "an event refers past a table");
		if (r != 0 || n != b->events)
			return bad(x, r || n < b->events ? "a column ends early" : "a column has bytes left over");
	}
	for (i = 0; i < b->nlayouts; i++)
		if (hist[i] && IX_S_METRICS + 2 * x->layouts[i].n > h->nsec)
			return bad(x, "an event refers past a table");
	for (k = 0; k < IX_MAX_SLOTS && IX_S_METRICS + 2 * k < h->nsec; k++) {
		if (!reads_slot(x, k))
			continue;
		for (want = 0, i = 0; i < b->nlayouts; i++)
			want += x->layouts[i].n > k ? hist[i] : 0;
		for (i = IX_S_METRICS + 2 * k; i <= IX_S_METRICS + 2 * k + 1; i++)
			if (count_varints(p[i], e[i], &n) != 0 || n != want)
				return bad(x, n < want ? "a column ends early" : "a column has bytes left over");
	}
	return 0;
}

/* Leaves through `out`. */
#define NEXT(col, v)                                                       \
	do {                                                               \
		if (ix_get_varint(&p[col], e[col], &(v)) != 0) {           \
			rc = bad(x, "a column ends early");                \
			goto out;                                          \
		}                                                          \
	} while (0)

/* Every block's columns checked (collecting nothing), or its events into
 * the collector. @return 0, BAD, or the collector's failure. */
static int walk(struct ix *x, int into_collector)
{
	int64_t t = 0;
	int rc = 0;
	for (size_t bi = 0; bi < x->nblocks && rc == 0; bi++) {
		const struct ix_block *b = &x->blocks[bi];
		const unsigned char *p[NSEC], *e[NSEC];
		struct ix_head h;
		size_t k;
		if ((rc = read_block(x, b, b->size)) != 0 || (rc = block_head(x, b, bi, b->size, &h)) != 0)
			break;
		for (k = IX_S_TIME; k < h.nsec; k++) {
			if (!wanted(x, k))
				continue;
			if (fp_grow((void **)&x->col[k], &x->col_cap[k], h.raw[k] + 1, 1, 64) != 0) {
				rc = REP_IX_NOMEM;
				goto out;
			}
			if (section(x, &h, k, x->col[k]) != 0) {
				rc = bad(x, "a column does not decompress");
				goto out;
			}
			p[k] = x->col[k];
			e[k] = x->col[k] + h.raw[k];
		}
		if (!into_collector) {
			if ((rc = check_columns(x, b, &h, p, e)) != 0)
				goto out;
			continue;
		}
		for (uint32_t i = 0; i < b->events && rc == 0; i++) {
			struct ix_event ev;
			uint64_t dt;
			NEXT(IX_S_TIME, dt);
			NEXT(IX_S_COMM, ev.comm);
			NEXT(IX_S_PID, ev.pid);
			NEXT(IX_S_STACK, ev.stack);
			NEXT(IX_S_LAYOUT, ev.layout);
			/* an event refers to entries its block or an earlier one
			 * brought, and its metrics to columns its block has */
			if (ev.comm >= b->ncomms || ev.pid >= b->npids || ev.stack >= b->nstacks ||
			    ev.layout >= b->nlayouts || IX_S_METRICS + 2 * x->layouts[ev.layout].n > h.nsec) {
				rc = bad(x, "an event refers past a table");
				goto out;
			}
			t = (int64_t)((uint64_t)t + (uint64_t)ix_unzigzag(dt));
			ev.t = t;
			for (k = 0; (x->weighted || x->all) && k < x->layouts[ev.layout].n; k++) {
				if (!reads_slot(x, k))
					continue;
				NEXT(IX_S_METRICS + 2 * k, ev.ch[k]);
				NEXT(IX_S_METRICS + 2 * k + 1, ev.corr[k]);
			}
			rc = collect(x, &ev);
		}
		for (k = IX_S_TIME; rc == 0 && k < h.nsec; k++)
			if (wanted(x, k) && p[k] != e[k])
				rc = bad(x, "a column has bytes left over");
	}
out:
	return rc;
}

/* ==== the entry point ==== */

static void ix_free(struct ix *x)
{
	size_t i;
	free(x->blocks);
	free(x->buf);
	for (i = 0; i < x->ntables; i++)
		free(x->tables[i]);
	free(x->tables);
	free(x->frames);
	free(x->lnames);
	free(x->stacks);
	free(x->pids);
	free(x->pid_ok);
	free(x->leaves);
	free(x->ids);
	free(x->prev);
	for (i = 0; i < NSEC; i++)
		free(x->col[i]);
	ZSTD_freeDCtx(x->dc);
	if (x->fd >= 0)
		close(x->fd);
}

/* What this report reads of the metrics: the slots whose metric might be
 * the weight (their history is needed from the file's first event), or
 * every metric's delta. */
static int plan_metrics(struct ix *x)
{
	size_t i, k;
	x->all = rep_collect_wants_metrics(x->c);
	for (i = 0; x->weighted && i < x->nlayouts; i++)
		for (k = 0; k < x->layouts[i].n; k++) {
			const struct str *nm = &x->lnames[x->layouts[i].first + k];
			if (!x->cand[k] && rep_collect_weight_candidate(x->c, nm->p, nm->len))
				x->cand[k] = (int)++x->ncand;
		}
	if (hold(x, x->npids + (uint64_t)x->npids * x->ncand * sizeof *x->prev) != 0)
		return BAD;
	if (!(x->pid_ok = malloc(x->npids ? x->npids : 1)) ||
	    (x->ncand && !(x->prev = calloc(x->npids ? x->npids * x->ncand : 1, sizeof *x->prev))))
		return REP_IX_NOMEM;
	memset(x->pid_ok, -1, x->npids);
	return 0;
}

int rep_index_read(rep_collect *c, const char *path, uint64_t *nevents, char *detail,
		   size_t cap)
{
	struct ix x = { 0 };
	struct stat st;
	int rc;
	*detail = '\0';
	*nevents = 0;
	x.c = c;
	x.why = detail;
	x.why_cap = cap;
	x.weighted = rep_collect_weighted(c);
	/* O_NONBLOCK: a FIFO must not hang the open (it is no index: the text
	 * reader then reads it, as the user named it) */
	x.fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (x.fd < 0 || fstat(x.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		ix_free(&x);
		return REP_IX_NONE; /* the text reader says what is wrong */
	}
	if (!(x.dc = ZSTD_createDCtx())) {
		ix_free(&x);
		return REP_IX_NOMEM;
	}
	x.fsize = (uint64_t)st.st_size;
	x.hold_cap = HOLD_FLOOR + (x.fsize < UINT64_MAX / HOLD_PER_BYTE / 2 ? x.fsize * HOLD_PER_BYTE
									  : UINT64_MAX / 2);
	rc = read_trailer(&x);
	if (rc == 0)
		rc = read_tables(&x);
	if (rc == 0)
		rc = plan_metrics(&x);
	if (rc == 0)
		rc = walk(&x, 0);
	if (rc != 0) {
		ix_free(&x);
		/* nothing collected yet: the text will do */
		return rc == BAD || rc == ABSENT ? REP_IX_NONE : rc;
	}
	rc = walk(&x, 1);
	if (rc == BAD)
		rc = REP_IX_CORRUPT; /* events went in: too late to read the text */
	else if (rc == 0) {
		*nevents = x.total;
		rc = 1;
	}
	ix_free(&x);
	return rc;
}
