/*
 * rep_index_read.c - a file's events from its report index instead of its
 * text.
 *
 * Two passes over the file's index blocks: the first checks every block
 * and reads its tables (small), so nothing reaches the collector unless
 * the whole index looks sound, and the text can still be read instead;
 * the second decompresses only the columns this report needs and feeds
 * the events to the collector in file order. Frames are interned the
 * first time a kept event uses a stack, which is when the text path
 * would first see them, so both paths build the same tables.
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

#define RAW_MAX ((uint64_t)1 << 30) /* a section bigger than this is not ours */
/* The tables of all blocks stay in memory while the events are read: a
 * file whose tables decompress to more than this (a compression bomb) is
 * read as text instead, which streams. */
#define TABLES_MAX ((uint64_t)1 << 30)
#define BAD (-13)                     /* the index is damaged; x->why says how */
#define ABSENT 1                      /* the file has no index at all */

struct str {
	const char *p;
	size_t len;
};

struct ix_frame {
	struct str sym, dso;
	int is_category;
};

struct ix_stack {
	size_t off, n;     /* file frame ids in fids, then global ids in gids */
	uint32_t catmask;
	int ready;         /* gids interned */
};

struct ix_layout {
	size_t first, n;   /* names in lnames */
	int slot;          /* the weight metric's slot, -1 none, -2 not looked up */
};

struct ix_block {
	unsigned char *frame;  /* the whole skippable frame, while it is being read */
	uint64_t offset;       /* where it is in the file */
	size_t size;
	uint64_t events;
	size_t nsec;
	uint64_t raw[IX_S_METRICS + 2 * IX_MAX_SLOTS];
	size_t at[IX_S_METRICS + 2 * IX_MAX_SLOTS], clen[IX_S_METRICS + 2 * IX_MAX_SLOTS];
};

struct leaf_slot {
	uint64_t key;      /* stack << 8 | comm, + 1; 0 empty */
	uint32_t leaf[2];
};

struct ix {
	rep_collect *c;
	int fd;
	ZSTD_DCtx *dc;
	struct ix_block *blocks;
	size_t nblocks;
	uint64_t total;
	unsigned char **tables; /* decompressed table sections (the names point in) */
	size_t ntables, tables_cap;
	uint64_t tables_bytes; /* their decompressed bytes, all blocks */
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
	uint32_t *fids, *gids;
	size_t nfids, fids_cap;
	uint32_t (*pids)[2];
	signed char *pid_ok; /* -1: not looked up */
	size_t npids, pids_cap;
	struct leaf_slot *leaves;
	size_t nleaves, leaves_used;
	unsigned char *buf;     /* the block being read in pass 2 */
	size_t buf_cap;
	unsigned char *col[IX_S_METRICS + 2 * IX_MAX_SLOTS];
	size_t col_cap[IX_S_METRICS + 2 * IX_MAX_SLOTS];
	int resolved, use_delta; /* --weight resolved (by this file or one before) */
	char *why;
	size_t why_cap;
};

static int bad(struct ix *x, const char *why)
{
	snprintf(x->why, x->why_cap, "%s", why);
	return BAD;
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

/* ==== pass 1: the trailer, the blocks, the tables ==== */

static int read_trailer(struct ix *x, uint64_t fsize)
{
	unsigned char foot[IX_FOOT], head[4], *t;
	const unsigned char *p, *end;
	uint64_t tsize, nb, v[3], sum = 0, prev_end = 4, toff;
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
	if (ix_get_le32(t) != IX_SKIP_MAGIC || ix_get_le32(t + 4) != tsize - IX_SKIP_HDR ||
	    memcmp(t + 8, IX_TRAIL_TAG, 4) != 0 || t[12] != IX_VERSION ||
	    ix_get_varint(&p, end, &nb) != 0 || nb > tsize) {
		free(t);
		return bad(x, "its trailer is malformed");
	}
	if (!(x->blocks = calloc(nb ? nb : 1, sizeof *x->blocks))) {
		free(t);
		return REP_IX_NOMEM;
	}
	x->nblocks = nb;
	for (i = 0; i < nb; i++) {
		struct ix_block *b = &x->blocks[i];
		if (ix_get_varint(&p, end, &v[0]) || ix_get_varint(&p, end, &v[1]) ||
		    ix_get_varint(&p, end, &v[2]) || v[0] < prev_end || v[1] < IX_SKIP_HDR ||
		    v[1] > toff || v[0] > toff - v[1] || v[2] > UINT32_MAX)
			break;
		prev_end = v[0] + v[1];
		b->offset = v[0];
		b->size = v[1];
		b->events = v[2];
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

static int section(struct ix *x, const struct ix_block *b, size_t k, unsigned char *dst)
{
	size_t r;
	if (b->raw[k] == 0)
		return 0;
	r = ZSTD_decompressDCtx(x->dc, dst, b->raw[k], b->frame + b->at[k], b->clen[k]);
	return ZSTD_isError(r) || r != b->raw[k] ? -1 : 0;
}

static int block_header(struct ix *x, struct ix_block *b, uint64_t seq)
{
	const unsigned char *p = b->frame + IX_SKIP_HDR + 5, *end = b->frame + b->size;
	uint64_t v, ev, ns, at;
	size_t k;
	if (b->size < IX_SKIP_HDR + 5 || ix_get_le32(b->frame) != IX_SKIP_MAGIC ||
	    ix_get_le32(b->frame + 4) != b->size - IX_SKIP_HDR ||
	    memcmp(b->frame + 8, IX_BLOCK_TAG, 4) != 0 || b->frame[12] != IX_VERSION ||
	    ix_get_varint(&p, end, &v) || v != seq || ix_get_varint(&p, end, &ev) ||
	    ev != b->events || ix_get_varint(&p, end, &ns) || ns < IX_S_METRICS ||
	    ns > IX_S_METRICS + 2 * IX_MAX_SLOTS)
		return bad(x, "a block is malformed");
	b->nsec = ns;
	for (k = 0; k < ns; k++) {
		uint64_t cl;
		if (ix_get_varint(&p, end, &b->raw[k]) || ix_get_varint(&p, end, &cl) ||
		    b->raw[k] > RAW_MAX || (cl == 0) != (b->raw[k] == 0))
			return bad(x, "a block is malformed");
		b->clen[k] = cl;
	}
	at = (uint64_t)(p - b->frame);
	for (k = 0; k < ns; k++) {
		if (b->clen[k] > b->size - at)
			return bad(x, "a block is malformed");
		b->at[k] = at;
		at += b->clen[k];
	}
	return at == b->size ? 0 : bad(x, "a block is malformed");
}

static int tables(struct ix *x, const struct ix_block *b)
{
	unsigned char *raw;
	const unsigned char *p, *end;
	uint64_t n, i, k, v, w;
	if ((x->tables_bytes += b->raw[0]) > TABLES_MAX)
		return bad(x, "its tables add up to more than 1 GiB");
	if (fp_grow((void **)&x->tables, &x->tables_cap, x->ntables + 1, sizeof *x->tables, 64) != 0 ||
	    !(raw = malloc(b->raw[0] ? b->raw[0] : 1)))
		return REP_IX_NOMEM;
	x->tables[x->ntables++] = raw;
	if (section(x, b, IX_S_TABLES, raw) != 0)
		return bad(x, "a table section does not decompress");
	p = raw;
	end = raw + b->raw[0];
	if (b->raw[0] == 0)
		return bad(x, "a block has no tables");
	/* frames */
	if (ix_get_varint(&p, end, &n) || n > b->raw[0] ||
	    fp_grow((void **)&x->frames, &x->frames_cap, x->nframes + n, sizeof *x->frames, 64))
		return bad(x, "a frame table is malformed");
	for (i = 0; i < n; i++) {
		struct ix_frame *f = &x->frames[x->nframes++];
		if (ix_get_varint(&p, end, &v) || v > 1 || get_str(&p, end, &f->sym) ||
		    get_str(&p, end, &f->dso))
			return bad(x, "a frame table is malformed");
		f->is_category = (int)v;
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
		if (ix_get_varint(&p, end, &v) || v > IX_MAX_SLOTS ||
		    fp_grow((void **)&x->lnames, &x->lnames_cap, x->nlnames + v, sizeof *x->lnames, 64))
			return bad(x, "a metric table is malformed");
		l->first = x->nlnames;
		l->n = v;
		l->slot = -2;
		for (k = 0; k < v; k++)
			if (get_str(&p, end, &x->lnames[x->nlnames++]))
				return bad(x, "a metric table is malformed");
		if (IX_S_METRICS + 2 * v > b->nsec)
			return bad(x, "a block lacks metric columns");
	}
	/* stacks */
	if (ix_get_varint(&p, end, &n) || n > b->raw[0] ||
	    fp_grow((void **)&x->stacks, &x->stacks_cap, x->nstacks + n, sizeof *x->stacks, 64))
		return bad(x, "a stack table is malformed");
	for (i = 0; i < n; i++) {
		struct ix_stack *s = &x->stacks[x->nstacks++];
		if (ix_get_varint(&p, end, &v) || v > (uint64_t)(end - p) ||
		    fp_grow((void **)&x->fids, &x->fids_cap, x->nfids + v, sizeof *x->fids, 64))
			return bad(x, "a stack table is malformed");
		s->off = x->nfids;
		s->n = v;
		s->ready = 0;
		s->catmask = 0;
		for (k = 0; k < v; k++) {
			if (ix_get_varint(&p, end, &w) || w >= x->nframes)
				return bad(x, "a stack table is malformed");
			x->fids[x->nfids++] = (uint32_t)w;
		}
	}
	/* pids */
	if (ix_get_varint(&p, end, &n) || n > b->raw[0] ||
	    fp_grow((void **)&x->pids, &x->pids_cap, x->npids + n, sizeof *x->pids, 64))
		return bad(x, "a pid table is malformed");
	for (i = 0; i < n; i++) {
		if (ix_get_varint(&p, end, &v) || ix_get_varint(&p, end, &w) || v > UINT32_MAX ||
		    w > UINT32_MAX)
			return bad(x, "a pid table is malformed");
		x->pids[x->npids][0] = (uint32_t)v;
		x->pids[x->npids][1] = (uint32_t)w;
		x->npids++;
	}
	return p == end ? 0 : bad(x, "a table section has trailing bytes");
}

/* ==== pass 2: events ==== */

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

/* The first kept use of a stack: its frames go into the frame table now. */
static int intern_stack(struct ix *x, struct ix_stack *s)
{
	size_t k;
	if (s->n > REP_MAX_FRAMES)
		return bad(x, "a stack has more than 1048576 frames");
	for (k = 0; k < s->n; k++) {
		const struct ix_frame *f = &x->frames[x->fids[s->off + k]];
		if (f->sym.len + f->dso.len > REP_MAX_FRAME_BYTES)
			return bad(x, "a frame is longer than 65536 bytes");
		uint32_t id = rep_collect_frame(x->c, f->is_category, f->sym.p, f->sym.len, f->dso.p,
						f->dso.len, &s->catmask);
		if (id == REP_NO_FRAME)
			return REP_IX_NOMEM;
		x->gids[s->off + k] = id;
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

/* Leaves through `out`, which frees prev. */
#define NEXT(col, v)                                                       \
	do {                                                               \
		if (ix_get_varint(&p[col], e[col], &(v)) != 0) {           \
			rc = bad(x, "a column ends early");                \
			goto out;                                          \
		}                                                          \
	} while (0)

/* The sections this report decompresses: the per-event columns, and the
 * columns of the metric slots that may hold the weight. */
static int wanted(size_t k, int weighted, const int *cand, int all_metrics)
{
	return k < IX_S_METRICS || all_metrics || (weighted && cand[(k - IX_S_METRICS) / 2]);
}

static int events(struct ix *x, int weighted, const int *cand, size_t ncand_slots)
{
	int64_t t = 0, *prev = NULL;
	size_t bi, k;
	int rc = 0, all = rep_collect_wants_metrics(x->c); /* every metric's delta */
	if (weighted && ncand_slots &&
	    !(prev = calloc(x->npids ? x->npids * ncand_slots : 1, sizeof *prev)))
		return REP_IX_NOMEM;
	for (bi = 0; bi < x->nblocks && rc == 0; bi++) {
		struct ix_block *b = &x->blocks[bi];
		const unsigned char *p[IX_S_METRICS + 2 * IX_MAX_SLOTS], *e[IX_S_METRICS + 2 * IX_MAX_SLOTS];
		uint64_t i;
		if (fp_grow((void **)&x->buf, &x->buf_cap, b->size, 1, 64) != 0) {
			rc = REP_IX_NOMEM;
			break;
		}
		if (pread_all(x->fd, x->buf, b->size, b->offset) != 0 ||
		    ix_get_le32(x->buf + 4) != b->size - IX_SKIP_HDR) {
			rc = bad(x, "a block cannot be read again");
			break;
		}
		b->frame = x->buf;
		for (k = IX_S_TIME; k < b->nsec; k++) {
			if (!wanted(k, weighted, cand, all))
				continue;
			if (fp_grow((void **)&x->col[k], &x->col_cap[k], b->raw[k] + 1, 1, 64) != 0) {
				rc = REP_IX_NOMEM;
				break;
			}
			if (section(x, b, k, x->col[k]) != 0) {
				rc = bad(x, "a column does not decompress");
				break;
			}
			p[k] = x->col[k];
			e[k] = x->col[k] + b->raw[k];
		}
		for (i = 0; i < b->events && rc == 0; i++) {
			uint64_t dt, comm, pid, st, lay, ch, corr;
			int64_t vals[IX_MAX_SLOTS], dels[IX_MAX_SLOTS], w = 0;
			struct ix_stack *s;
			struct ix_layout *l;
			int pass, has_w = 0;
			uint32_t *leaf;
			const char *knames[REP_MAX_METRICS];
			size_t klens[REP_MAX_METRICS];
			struct rep_kept kept = { 0, 0, 0, 0, 0, knames, klens, dels, 0 };
			NEXT(IX_S_TIME, dt);
			NEXT(IX_S_COMM, comm);
			NEXT(IX_S_PID, pid);
			NEXT(IX_S_STACK, st);
			NEXT(IX_S_LAYOUT, lay);
			/* A layout from a later block may have more metric slots than
			 * this block has columns for (the writer never makes one). */
			if (comm >= x->ncomms || pid >= x->npids || st >= x->nstacks ||
			    lay >= x->nlayouts || IX_S_METRICS + 2 * x->layouts[lay].n > b->nsec) {
				rc = bad(x, "an event refers past a table");
				break;
			}
			t = (int64_t)((uint64_t)t + (uint64_t)ix_unzigzag(dt));
			l = &x->layouts[lay];
			for (k = 0; (weighted || all) && k < l->n; k++) {
				int64_t *pv;
				if (!all && !cand[k])
					continue;
				NEXT(IX_S_METRICS + 2 * k, ch);
				NEXT(IX_S_METRICS + 2 * k + 1, corr);
				dels[k] = (int64_t)((uint64_t)ix_unzigzag(ch) + (uint64_t)ix_unzigzag(corr));
				if (!weighted || !cand[k])
					continue;
				pv = &prev[pid * ncand_slots + (size_t)cand[k] - 1];
				vals[k] = (int64_t)((uint64_t)*pv + (uint64_t)ix_unzigzag(ch));
				*pv = vals[k];
			}
			if (!x->comm_seen[comm]) {
				x->comm_gid[comm] = rep_collect_status(x->c, x->comms[comm].p,
								       x->comms[comm].len,
								       &x->comm_ok[comm]);
				if (x->comm_gid[comm] == REP_NO_FRAME) {
					rc = REP_IX_NOMEM;
					break;
				}
				x->comm_seen[comm] = 1;
			}
			if (x->pid_ok[pid] < 0)
				x->pid_ok[pid] = (signed char)rep_collect_pid_ok(x->c, x->pids[pid][0],
										 x->pids[pid][1]);
			pass = x->comm_ok[comm] && x->pid_ok[pid];
			s = &x->stacks[st];
			leaf = NULL;
			if (pass) {
				if (weighted) {
					int slot;
					if (!x->resolved) { /* on the first kept event, as the text path */
						if ((rc = resolve(x, l)) != 0)
							break;
						x->resolved = 1;
						x->use_delta = rep_collect_weighs_delta(x->c);
					}
					slot = layout_slot(x, l);
					if (slot >= 0) {
						has_w = 1;
						w = x->use_delta ? dels[slot] : vals[slot];
					}
				}
				if (!s->ready && (rc = intern_stack(x, s)) != 0)
					break;
				if (!(leaf = leaf_of(x, st, (uint32_t)comm))) {
					rc = REP_IX_NOMEM;
					break;
				}
			}
			kept.pid = x->pids[pid][0];
			kept.serial = x->pids[pid][1];
			if (all && pass) {
				for (k = 0; k < l->n && k < REP_MAX_METRICS; k++) {
					knames[k] = x->lnames[l->first + k].p;
					klens[k] = x->lnames[l->first + k].len;
				}
				kept.nmetrics = k;
			}
			rc = rep_collect_pre_event(x->c, t, x->comm_gid[comm], pass,
						   x->gids + s->off, s->n, s->catmask, has_w, w, leaf,
						   &kept);
			if (rc == REP_C_NOMEM)
				rc = REP_IX_NOMEM;
		}
		if (rc == 0)
			for (k = IX_S_TIME; k < b->nsec; k++)
				if (wanted(k, weighted, cand, all) && p[k] != e[k])
					rc = bad(x, "a column has bytes left over");
	}
out:
	free(prev);
	return rc;
}

/* ==== the entry point ==== */

static void ix_free(struct ix *x)
{
	size_t i;
	free(x->blocks); /* their frames are freed in pass 1, or are x->buf */
	free(x->buf);
	for (i = 0; i < x->ntables; i++)
		free(x->tables[i]);
	free(x->tables);
	free(x->frames);
	free(x->lnames);
	free(x->stacks);
	free(x->fids);
	free(x->gids);
	free(x->pids);
	free(x->pid_ok);
	free(x->leaves);
	for (i = 0; i < IX_S_METRICS + 2 * IX_MAX_SLOTS; i++)
		free(x->col[i]);
	ZSTD_freeDCtx(x->dc);
	if (x->fd >= 0)
		close(x->fd);
}

int rep_index_read(rep_collect *c, const char *path, uint64_t *nevents, char *detail,
		   size_t cap)
{
	struct ix x = { 0 };
	struct stat st;
	int cand[IX_MAX_SLOTS] = { 0 }, weighted = rep_collect_weighted(c), rc;
	size_t i, k, ncand = 0;
	*detail = '\0';
	*nevents = 0;
	x.c = c;
	x.why = detail;
	x.why_cap = cap;
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
	rc = read_trailer(&x, (uint64_t)st.st_size);
	/* Pass 1 keeps only the tables: a file's index can be hundreds of MB. */
	for (i = 0; rc == 0 && i < x.nblocks; i++) {
		struct ix_block *b = &x.blocks[i];
		if (!(b->frame = malloc(b->size)))
			rc = REP_IX_NOMEM;
		else if (pread_all(x.fd, b->frame, b->size, b->offset) != 0)
			rc = bad(&x, "a block cannot be read");
		else if ((rc = block_header(&x, b, i)) == 0)
			rc = tables(&x, b);
		free(b->frame);
		b->frame = NULL;
	}
	if (rc == 0 && (!(x.gids = malloc((x.nfids ? x.nfids : 1) * sizeof *x.gids)) ||
			!(x.pid_ok = malloc(x.npids ? x.npids : 1))))
		rc = REP_IX_NOMEM;
	if (rc != 0) {
		ix_free(&x);
		/* nothing collected yet: the text will do */
		return rc == BAD || rc == ABSENT ? REP_IX_NONE : rc;
	}
	memset(x.pid_ok, -1, x.npids);
	/* The slots whose metric might be the weight: their history is needed
	 * from the file's first event. cand[k] = 1 + its index in prev. */
	for (i = 0; weighted && i < x.nlayouts; i++)
		for (k = 0; k < x.layouts[i].n; k++) {
			const struct str *nm = &x.lnames[x.layouts[i].first + k];
			if (!cand[k] && rep_collect_weight_candidate(c, nm->p, nm->len))
				cand[k] = (int)++ncand;
		}
	rc = events(&x, weighted, cand, ncand);
	if (rc == BAD)
		rc = REP_IX_CORRUPT; /* events went in: too late to read the text */
	else if (rc == 0) {
		*nevents = x.total;
		rc = 1;
	}
	ix_free(&x);
	return rc;
}
