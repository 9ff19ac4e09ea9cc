/*
 * test_report_index.c - the report index against the text it indexes.
 *
 * Perf-script text is generated here (many processes, statuses, deep and
 * empty stacks, category frames, hostile symbols, 16 moving metrics and
 * other metric lists, comments, events without a blank line, a last event
 * without one), written through rotate/ with the index hook exactly as a
 * capture writes it, and read both ways for many report configs: the
 * index must give the same stats, frame table, trie, heatmap, folded and
 * speedscope output as the text, byte for byte (and fp_report_main with and
 * without --no-index the same files). Then the cases where the index must
 * step aside (the writer gave up, other codecs, damage), a loop that
 * damages every byte of an index (nothing may crash or leak, and what still
 * reads must read as before), and hand-built indexes for shapes the writer
 * never makes.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "rnd.h"
#include "tap.h"
#include "../../report/rep_collect.h"
#include "../../index/index.h"
#include "../../report/rep_index_read.h"
#include "../../index/ix_fmt.h"
#include "../../report/rep_input.h"
#include "../../report/rep_order.h"
#include "../../report/rep_write.h"
#include "../../cli/report_opts.h"
#include "../../report/report.h"
#include "../../rotate/rotate.h"

static char dir[64];

static char *path(const char *name)
{
	return tap_path(dir, name);
}

/* ==== small helpers ==== */

struct sb {
	char *d;
	size_t len, cap;
};

static void sb_put(struct sb *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		if (!(b->d = realloc(b->d, cap)))
			abort();
		b->cap = cap;
	}
	if (n)
		memcpy(b->d + b->len, p, n);
	b->len += n;
	b->d[b->len] = '\0';
}

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sb *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof tmp)
		abort(); /* the generator never writes a longer piece */
	sb_put(b, tmp, (size_t)n);
}

static void sb_varint(struct sb *b, uint64_t v)
{
	unsigned char t[10];
	sb_put(b, t, ix_put_varint(t, v));
}

static void sb_le32(struct sb *b, uint32_t v)
{
	unsigned char t[4];
	ix_put_le32(t, v);
	sb_put(b, t, 4);
}

static char *slurp(const char *p, size_t *len)
{
	struct sb b = { 0 };
	char buf[65536];
	size_t n;
	FILE *f = fopen(p, "rb");
	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sb_put(&b, buf, n);
	fclose(f);
	sb_put(&b, "", 0);
	*len = b.len;
	return b.d;
}

static void spit(const char *p, const void *data, size_t len)
{
	FILE *f = fopen(p, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
		abort();
}

/* The text a zstd file decompresses to (skippable frames are skipped). */
static char *unzstd(const char *p, size_t *len)
{
	size_t n, r = 1;
	char *in = slurp(p, &n), out[65536];
	struct sb b = { 0 };
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, n, 0 };
	while (ib.pos < ib.size && !ZSTD_isError(r)) {
		ZSTD_outBuffer ob = { out, sizeof out, 0 };
		r = ZSTD_decompressStream(ds, &ob, &ib);
		sb_put(&b, out, ob.pos);
	}
	sb_put(&b, "", 0);
	ZSTD_freeDStream(ds);
	free(in);
	*len = ZSTD_isError(r) || r != 0 ? (size_t)-1 : b.len;
	return b.d;
}

/* Tells where two byte strings first differ, as lines. */
static void show_diff(const char *a, size_t al, const char *b, size_t bl)
{
	size_t i = 0, ls = 0, an, bn;
	while (i < al && i < bl && a[i] == b[i])
		if (a[i++] == '\n')
			ls = i;
	an = strcspn(a + ls, "\n");
	bn = strcspn(b + ls, "\n");
	fprintf(stderr, "#   differ at byte %zu (index %zu bytes, text %zu)\n", i, al, bl);
	fprintf(stderr, "#   index: %.*s\n", (int)(an < 200 ? an : 200), a + ls);
	fprintf(stderr, "#   text:  %.*s\n", (int)(bn < 200 ? bn : 200), b + ls);
}

/* ==== the generator ==== */

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	return xorshift64(&rng);
}

static unsigned rn(unsigned n)
{
	return (unsigned)(rnd() % n);
}

#define NM 16 /* the erlang metrics; slot NM is custom_gauge */
#define BIG 9223372036854775799LL /* the largest value the report parses */
#define XMETRIC 14                /* the metric that takes the extremes */

static const char *const MNAMES[NM + 1] = {
	"erlang_reductions", "erlang_message_queue_len", "erlang_memory",
	"erlang_total_heap_size", "erlang_heap_block_size", "erlang_old_heap_block_size",
	"erlang_heap_size", "erlang_old_heap_size", "erlang_stack_size", "erlang_mbuf_size",
	"erlang_recent_size", "erlang_bin_vheap_size", "erlang_bin_vheap_block_size",
	"erlang_bin_old_vheap_size", "erlang_bin_old_vheap_block_size", "erlang_minor_gcs",
	"custom_gauge",
};

static const char *const STATUS[] = { "running", "runnable", "waiting",
				      "garbage_collecting", "exiting", "suspended" };

/* Whole frame lines the formatter would never write but the report reads:
 * the same symbol under two dsos, escapes good and bad, raw UTF-8 and
 * invalid bytes, offsets, parentheses, no dso, odd addresses and spaces. */
static const char *const ODD[] = {
	"\t0 lists:foldl/3 (lists.erl:1263)",
	"\t0 lists:foldl/3 (lists.erl:1265)",
	"\t0 m%3Bx:f%2By/1 (m%3Bx.erl:7)",
	"\t0 caf\xc3\xa9:\xe6\x97\xa5\xe6\x9c\xac/1 (caf\xc3\xa9.erl:1)",
	"\t0 bad%zz:f/0 (bad.erl:2)",
	"\t0 100%:f/0 (x.erl:3)",
	"\t0 m:f/1+0x1f (m.erl:4)",
	"\t0 m:f/1+0x20 (m.erl:4)",
	"\t0 weird (paren) sym (w.erl:1)",
	"\t0 %5Bunknown%5D:x/0 ([unknown])",
	"\t0 \xff\xfe:raw/0 (raw.erl:1)",
	"\t0 a%00b:nul/0 (n.erl:9)",
	"\t0 nodso:f/0",
	"\t0 emptydso:f/0 ()",
	"\t0 sp:f/0    (sp.erl:1)  ",
	"\t0 m:h%2F12 (m.erl)",
	"\tffffffff8100abcd kernel_sym ([kernel.kallsyms])",
	"        0 spaced:f/0 (s.erl:1)",
	"\t0 -handle_call/3-fun-0-:x/2 (g.erl:5)",
};

static const char *const MODS[] = { "lists", "gen_server", "my_server", "ets", "proc_lib", "maps" };
static const char *const FUNS[] = { "loop/3", "handle_call/3", "foldl/3", "do_it/0",
				    "-handle_call/3-fun-0-/2" };

struct gopt {
	size_t events;
	unsigned procs;
	int hostile; /* odd frames and comms, CRLF events, odd time digits, a 3000-frame stack */
	int layouts; /* other metric lists from the middle on */
	int quirks;  /* comments, events without a blank line, orphan frames, time going back */
	int tail;    /* last event: 0 blank line after, 1 none, 2 not even its last '\n' */
};

struct proc {
	uint32_t pid, tid;
	int64_t m[NM + 1], last[NM + 1];
	int seen[NM + 1];
	struct sb stack[4]; /* code frame lines, leaf first, '\n' after each */
	unsigned nstacks;
	const char *name;   /* the name category, or NULL */
};

/* The records (one event each, as rotate/ gets them) and their times. */
struct capture {
	struct sb hdr, text;
	size_t *end; /* record i is text[end[i - 1] .. end[i]) */
	int64_t *t;
	size_t n;
	int64_t special[2]; /* times of pid 999/7's two events (extreme values) */
};

struct gen {
	const struct gopt *o;
	struct capture *c;
	struct proc *procs, special;
	int64_t t;
	size_t i;
};

static void make_stack(struct sb *s, unsigned depth, int hostile)
{
	for (unsigned d = 0; d < depth; d++) {
		if (hostile && rn(4) == 0)
			sb_printf(s, "%s\n", ODD[rn(sizeof ODD / sizeof *ODD)]);
		else
			sb_printf(s, "\t0 %s:%s (%s.erl:%u)\n", MODS[rn(6)], FUNS[rn(5)],
				  MODS[rn(6)], 100 + rn(3));
	}
}

static void make_proc(struct proc *p, uint32_t pid, uint32_t tid, int hostile, int deep)
{
	static const char *const names[] = { NULL, "my_server", "a%3Bb", "x%2By%20z", "p+q" };
	memset(p, 0, sizeof *p);
	p->pid = pid;
	p->tid = tid;
	p->nstacks = 1 + rn(4);
	for (unsigned k = 0; k < p->nstacks; k++)
		make_stack(&p->stack[k], deep && k == 0 ? 300 : 1 + rn(12), hostile);
	p->name = names[rn(hostile ? 5 : 3)];
	p->m[2] = rn(2u << 20);
}

static void move_metrics(struct proc *p)
{
	p->m[0] += rn(4000);                   /* reductions grow */
	p->m[1] = rn(4) ? 0 : rn(200);         /* message_queue_len */
	p->m[2] += (int64_t)rn(40001) - 20000; /* memory goes up and down */
	for (int k = 3; k < XMETRIC; k++)
		p->m[k] += (int64_t)rn(2001) - 1000;
	p->m[XMETRIC] = rn(100000);
	p->m[15] += rn(2);
	p->m[NM] = (int64_t)rn(1000) - 500;
}

/* "value, delta": the delta since this process's previous sample, modulo
 * 2^64 as the formatter computes it; now and then 0 (a process the
 * formatter forgot), so the delta is not always the value's change. */
static void put_metric(struct sb *b, struct proc *p, int k, int quirks)
{
	int64_t v = p->m[k];
	int64_t d = p->seen[k] && !(quirks && rn(20) == 0)
			    ? (int64_t)((uint64_t)v - (uint64_t)p->last[k]) : 0;
	p->last[k] = v;
	p->seen[k] = 1;
	sb_printf(b, "\tmetric_%s: %lld, %lld", MNAMES[k], (long long)v, (long long)d);
}

/* Layouts: 0 all 16 in order, 1 three (another order, a non-erlang name),
 * 2 none (plain perf script), 3 all 16 reversed. */
static void put_metrics(struct sb *b, struct proc *p, int layout, int quirks)
{
	static const int three[] = { 2, 0, NM };
	for (int k = 0; layout == 0 && k < NM; k++)
		put_metric(b, p, k, quirks);
	for (int k = 0; layout == 1 && k < 3; k++)
		put_metric(b, p, three[k], quirks);
	for (int k = NM - 1; layout == 3 && k >= 0; k--)
		put_metric(b, p, k, quirks);
}

static void event_line(struct gen *g, struct sb *b, struct proc *p, int layout, int plain_time,
		       const char *eol)
{
	const struct gopt *o = g->o;
	const char *st = STATUS[rn(6)];
	long long s = g->t / 1000000, us = g->t % 1000000;
	unsigned form = o->hostile && !plain_time ? rn(12) : 0;
	if (o->hostile && rn(40) == 0)
		st = "my prog";
	if (form == 1) { /* no pid at all: generic perf text */
		sb_printf(b, "kworker [001] %lld.%06lld: 1 cpu-clock:", s, us);
	} else {
		if (form == 2) /* no tid: the tid is the pid */
			sb_printf(b, "%s %u [000] ", st, p->pid);
		else
			sb_printf(b, "%s %u/%u [000] ", st, p->pid, p->tid);
		if (form == 3)
			sb_printf(b, "%lld.%03lld: 1 cpu-clock:", s, us / 1000);
		else if (form == 4)
			sb_printf(b, "%lld.%06lld789: 1 cpu-clock:", s, us);
		else
			sb_printf(b, "%lld.%06lld: 1 cpu-clock:", s, us);
		put_metrics(b, p, layout, o->quirks);
	}
	sb_printf(b, "%s", eol);
}

static const char *memory_bucket(int64_t m)
{
	return m < 4096 ? "<4KiB" : m < 65536 ? "4KiB-64KiB" : m < (1 << 20) ? "64KiB-1MiB"
								  : "1MiB-16MiB";
}

static void frames(struct gen *g, struct sb *b, struct proc *p, const char *eol)
{
	const struct sb *s = &p->stack[rn(p->nstacks)];
	int comment = g->o->quirks && rn(30) == 0;
	if (rn(50) == 0)
		return; /* an event with no frames at all */
	if (rn(50) == 0) {
		sb_printf(b, "\t0 [no_stack] ([unknown])%s", eol);
	} else if (g->o->hostile && g->o->events >= 1000 && g->i == g->o->events / 2) {
		for (unsigned d = 0; d < 3000; d++)
			sb_printf(b, "\t0 deep:f%u/0 (deep.erl:%u)%s", d % 7, d, eol);
	} else {
		for (const char *l = s->d, *nl; *l; l = nl + 1) {
			nl = strchr(l, '\n');
			sb_put(b, l, (size_t)(nl - l));
			sb_printf(b, "%s", eol);
			if (comment && l == s->d)
				sb_printf(b, "# a comment inside the frames%s", eol);
		}
	}
	sb_printf(b, "\t0 queue:%s ([category])%s", p->m[1] ? "10-99" : "0", eol);
	sb_printf(b, "\t0 memory:%s ([category])%s", memory_bucket(p->m[2]), eol);
	if (p->name)
		sb_printf(b, "\t0 name:%s ([category])%s", p->name, eol);
	sb_printf(b, "\t0 initial_call:proc_lib:init_p/5 ([category])%s", eol);
}

static void event_end(struct gen *g, struct sb *b, const char *eol, int last)
{
	unsigned r = g->o->quirks ? rn(100) : 99;
	if (last) {
		if (g->o->tail == 0)
			sb_printf(b, "%s", eol);
		else if (g->o->tail == 2)
			b->d[b->len -= strlen(eol)] = '\0';
	} else if (r < 4) {
		/* no blank line: the next event line ends this one */
	} else if (r < 7) {
		sb_printf(b, "  \t\n"); /* blank, though not empty */
	} else if (r < 9) {
		sb_printf(b, "%s%s%s", eol, eol, eol);
	} else if (r < 11) {
		sb_printf(b, "%s\t0 orphan:f/0 (o.erl:1)\n\t0\n", eol); /* frames of no event */
	} else {
		sb_printf(b, "%s", eol);
	}
}

static void push_record(struct capture *c, int64_t t)
{
	if ((c->n & (c->n - 1)) == 0) { /* 0, 1, 2, 4...: double */
		size_t cap = c->n ? 2 * c->n : 1;
		c->end = realloc(c->end, cap * sizeof *c->end);
		c->t = realloc(c->t, cap * sizeof *c->t);
		if (!c->end || !c->t)
			abort();
	}
	c->end[c->n] = c->text.len;
	c->t[c->n++] = t;
}

/* The process of event i, and its metric layout. Pid 999/7 has two
 * events, `special` 0 and 1 (else -1), a second apart so that no heatmap
 * cell adds them up. */
static struct proc *pick(struct gen *g, int *layout, int *special)
{
	size_t q = g->o->events / 4;
	*special = g->o->events >= 40 && (g->i == q || g->i == q + 3) ? g->i == q + 3 : -1;
	*layout = g->o->layouts && g->i >= g->o->events / 2 && g->i ? (int)rn(4) : 0;
	if (*special < 0)
		return &g->procs[rn(g->o->procs)];
	*layout = *special && g->o->layouts ? 3 : 0;
	g->t += 1000000;
	return &g->special;
}

static void gen_capture(struct capture *c, const struct gopt *o, uint64_t seed)
{
	struct gen g = { o, c, NULL, { 0 }, 1700000000250000LL, 0 };
	memset(c, 0, sizeof *c);
	rng = seed;
	sb_printf(&c->hdr, "# flameprof 0.1.0: test capture (doc/output-format.md)\n"
			   "# node: test@host\n# metric_erlang_reductions: count\n");
	sb_put(&c->text, "", 0);
	g.procs = calloc(o->procs, sizeof *g.procs);
	for (unsigned k = 0; k < o->procs; k++)
		make_proc(&g.procs[k], 100 + k, k % 3, o->hostile, k == 0 && o->procs >= 10);
	make_proc(&g.special, 999, 7, 0, 0);
	for (g.i = 0; g.i < o->events; g.i++) {
		int layout, special, last = g.i + 1 == o->events;
		struct proc *p = pick(&g, &layout, &special);
		const char *eol = o->hostile && rn(40) == 0 ? "\r\n" : "\n";
		g.t += rn(30000);
		if (o->quirks && special < 0 && rn(30) == 0)
			g.t -= rn(20000); /* time going back */
		if (o->quirks && rn(30) == 0)
			sb_printf(&c->text, "# a comment between events\n");
		move_metrics(p);
		if (special >= 0) {
			/* the extremes: BIG, then -BIG (the change wraps modulo
			 * 2^64 and the delta is 18) */
			p->m[XMETRIC] = special ? -BIG : BIG;
			c->special[special] = g.t;
		}
		event_line(&g, &c->text, p, g.i ? layout : 0, special >= 0 || g.i == 0, eol);
		frames(&g, &c->text, p, eol);
		event_end(&g, &c->text, eol, last);
		push_record(c, g.t);
	}
	for (unsigned k = 0; k < o->procs; k++)
		for (unsigned s = 0; s < 4; s++)
			free(g.procs[k].stack[s].d);
	for (unsigned s = 0; s < 4; s++)
		free(g.special.stack[s].d);
	free(g.procs);
}

static void free_capture(struct capture *c)
{
	free(c->hdr.d);
	free(c->text.d);
	free(c->end);
	free(c->t);
}

/* ==== writing through rotate/ with the index hook ==== */

static ix_writer *ixw; /* one writer for the run, as a capture has one */

#define MAXF 8

struct fileset {
	char *paths[MAXF];
	size_t n;
	int given_up; /* the writer gave up on some file */
	char why[128];
};

static void free_files(struct fileset *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		free(fs->paths[i]);
	fs->n = 0;
}

/* Records [lo, hi) into one file (flushed every per_flush records, or at
 * random with 0). @return its path (malloc'd), or NULL. */
static char *write_file(const struct capture *c, size_t lo, size_t hi, size_t per_flush,
			enum rot_codec codec, const char *sub, struct fileset *fs)
{
	struct rot_index ix;
	struct rot_options ro = { .dir = path(sub), .node = "test@host", .codec = codec,
				  .header = c->hdr.d, .index = &ix };
	char *p = NULL;
	rot_t *r;
	int rc;
	ix_writer_hook(ixw, &ix);
	rc = rot_open(&r, &ro);
	for (size_t i = lo; rc == 0 && i < hi; i++) {
		size_t at = i ? c->end[i - 1] : 0;
		rc = rot_append(r, c->text.d + at, c->end[i] - at, c->t[i]);
		if (rc == 0 && (per_flush ? (i - lo + 1) % per_flush == 0 : rn(9) == 0))
			rc = rot_flush(r);
	}
	if (rc == 0)
		rc = rot_close(r);
	if (rc == 0)
		p = strdup(rot_current_path(r));
	else
		fprintf(stderr, "# rotate: %s\n", rot_error(r));
	if (codec == ROT_ZSTD && ix_writer_given_up(ixw)) {
		fs->given_up = 1;
		snprintf(fs->why, sizeof fs->why, "%s", ix_writer_why(ixw));
	}
	rot_free(r);
	return p;
}

/* The capture split over nfiles files in directory sub; each must
 * decompress to exactly its header and records. */
static int write_files(const struct capture *c, size_t nfiles, size_t per_flush,
		       enum rot_codec codec, const char *sub, struct fileset *fs)
{
	int good = 1;
	memset(fs, 0, sizeof *fs);
	for (size_t f = 0; f < nfiles; f++) {
		size_t lo = f * c->n / nfiles, hi = (f + 1) * c->n / nfiles, len;
		char *p = write_file(c, lo, hi, per_flush, codec, sub, fs), *text;
		size_t a = lo ? c->end[lo - 1] : 0;
		if (!p)
			return 0;
		fs->paths[fs->n++] = p;
		if (codec != ROT_ZSTD)
			continue;
		text = unzstd(p, &len);
		good &= len == c->hdr.len + c->end[hi - 1] - a &&
			memcmp(text, c->hdr.d, c->hdr.len) == 0 &&
			memcmp(text + c->hdr.len, c->text.d + a, c->end[hi - 1] - a) == 0;
		free(text);
	}
	return good;
}

/* ==== reading both ways ==== */

struct result {
	int rc;
	int ix[MAXF];   /* rep_index_read's answer per file (index runs) */
	char detail[256];
	struct rep_stats st;
	struct sb dump; /* everything the report could draw, as text */
};

static int read_text(rep_collect *c, const char *p)
{
	enum rep_in_err e;
	char d[128];
	const char *l;
	size_t n;
	int rin, rc = 0;
	rep_input *in = rep_input_open(p, &e, d, sizeof d);
	if (!in)
		return -100;
	while ((rin = rep_input_line(in, &l, &n)) > 0)
		if ((rc = rep_collect_line(c, l, n)) < 0)
			break;
	if (rc == 0 && rin < 0)
		rc = -100 + rin;
	if (rc == 0)
		rc = rep_collect_end_file(c);
	rep_input_close(in);
	return rc;
}

static void dump_frames(FILE *f, rep_collect *c)
{
	rep_frames *fr = rep_collect_frames(c);
	size_t n = rep_frames_count(fr);
	fprintf(f, "frames %zu\n", n);
	for (uint32_t id = 0; id < n; id++) {
		struct rep_frame_info fi;
		rep_frames_get(fr, id, &fi);
		fprintf(f, "%u kind %d mark %u name '", id, (int)fi.kind, fi.mark);
		fwrite(fi.name, 1, fi.name_len, f);
		fputs("' raw '", f);
		fwrite(fi.raw, 1, fi.raw_len, f);
		fputs("' dso '", f);
		fwrite(fi.dso, 1, fi.dso_len, f);
		fputs("'\n", f);
	}
}

static void dump_trie(FILE *f, rep_collect *c)
{
	rep_trie *t = rep_collect_trie(c);
	size_t n = rep_trie_count(t);
	fprintf(f, "nodes %zu\n", n);
	for (uint32_t i = 0; i < n; i++) {
		const struct rep_node *d = rep_trie_node(t, i);
		fprintf(f, "%u f %u p %u c %u s %u d %u w %lld/%lld n %llu/%llu\n", i, d->frame,
			d->parent, d->child, d->sibling, d->depth, (long long)d->self_w,
			(long long)d->total_w, (unsigned long long)d->self_n,
			(unsigned long long)d->total_n);
	}
}

static void dump_heat(FILE *f, rep_collect *c)
{
	struct rep_heat h;
	if (rep_collect_heat(c, &h) != 0)
		abort();
	fprintf(f, "heat %zu cols, %llu before t0\n", h.ncols, (unsigned long long)h.before_t0);
	for (size_t k = 0; k < h.nsecs; k++)
		for (size_t r = 0; r < REP_HEAT_ROWS; r++) {
			size_t i = k * REP_HEAT_ROWS + r;
			if (h.n[i] || h.w[i])
				fprintf(f, "%zu %llu %lld\n", (size_t)h.sec[k].sec * REP_HEAT_ROWS + r,
					(unsigned long long)h.n[i], (long long)h.w[i]);
		}
}

static void dump(rep_collect *c, const struct rep_config *cfg, struct sb *out)
{
	const struct rep_stats *st = rep_collect_stats(c);
	struct rep_order o;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct rep_view v = { .cfg = cfg, .frames = rep_collect_frames(c), .trie = rep_collect_trie(c),
			      .order = &o, .st = st, .weight_name = rep_collect_weight_name(c),
			      .weighted = rep_collect_weighted(c) };
	rep_collect_finish(c);
	rep_collect_range(c, &v.from_us, &v.to_us);
	fprintf(f, "events %llu used %llu filtered %llu out %llu no_metric %llu bad %llu "
		   "negative %llu first %lld last %lld t0 %lld\n",
		(unsigned long long)st->events, (unsigned long long)st->used,
		(unsigned long long)st->filtered, (unsigned long long)st->out_of_range,
		(unsigned long long)st->no_metric, (unsigned long long)st->bad_lines,
		(unsigned long long)st->negative, (long long)st->first_us, (long long)st->last_us,
		(long long)st->t0_s);
	fprintf(f, "weight %s %d range %lld %lld\n", v.weight_name, v.weighted,
		(long long)v.from_us, (long long)v.to_us);
	dump_frames(f, c);
	dump_trie(f, c);
	dump_heat(f, c);
	if (rep_order_build(&o, rep_collect_trie(c), rep_collect_frames(c)) != 0)
		abort();
	fputs("folded\n", f);
	rep_write_folded(f, &v);
	fputs("speedscope\n", f);
	rep_write_speedscope(f, &v);
	rep_order_free(&o);
	fclose(f);
	sb_put(out, buf, len);
	free(buf);
}

/* Reads the files in order as `report` does: through each one's index
 * (when use_index and it has a sound one), else its text. */
static void run(const struct rep_config *cfg, char *const *paths, size_t n, int use_index,
		struct result *r)
{
	enum rep_c_err e;
	struct rep_config hc = *cfg; /* with a heatmap: the collector builds one only when asked */
	rep_collect *c;
	hc.heatmap = "heat";
	cfg = &hc;
	c = rep_collect_create(cfg, &e, r->detail, sizeof r->detail);
	r->rc = 0;
	r->dump.len = 0;
	sb_put(&r->dump, "", 0);
	for (size_t i = 0; i < n && r->rc == 0; i++) {
		r->ix[i] = -99;
		if (use_index) {
			uint64_t nev;
			r->ix[i] = rep_index_read(c, paths[i], &nev, r->detail, sizeof r->detail);
			if (r->ix[i] == 1)
				continue;
			if (r->ix[i] != 0) {
				r->rc = r->ix[i];
				break;
			}
		}
		r->rc = read_text(c, paths[i]);
	}
	r->st = *rep_collect_stats(c);
	if (r->rc == 0)
		dump(c, cfg, &r->dump);
	else
		sb_printf(&r->dump, "rc %d: %s\n", r->rc, rep_collect_error(c));
	rep_collect_free(c);
}

/* Index and text agree on everything. @return 1 if so. */
static int agree(const struct rep_config *cfg, char *const *paths, size_t n, const char *what,
		 struct result *tx)
{
	struct result ix = { 0 };
	int same;
	run(cfg, paths, n, 0, tx);
	run(cfg, paths, n, 1, &ix);
	same = ix.rc == tx->rc && ix.dump.len == tx->dump.len &&
	       memcmp(ix.dump.d, tx->dump.d, ix.dump.len) == 0;
	if (!ok(same, "%s: index and text agree", what))
		show_diff(ix.dump.d, ix.dump.len, tx->dump.d, tx->dump.len);
	memcpy(tx->ix, ix.ix, sizeof ix.ix);
	free(ix.dump.d);
	return same;
}

/* ==== index and text agree ==== */

struct ccase {
	const char *name;
	struct rep_config cfg;
	int want_metric_err; /* REP_C_METRIC both ways */
};

static size_t make_cases(struct ccase *cs, const struct capture *c)
{
	size_t n = 0;
	cs[n++] = (struct ccase){ "samples", { 0 }, 0 };
	cs[n++] = (struct ccase){ "--weight reductions", { .weight = "reductions" }, 0 };
	cs[n++] = (struct ccase){ "--weight erlang_memory_delta",
				  { .weight = "erlang_memory_delta" }, 0 };
	cs[n++] = (struct ccase){ "--weight message_queue_len (missing on some layouts)",
				  { .weight = "message_queue_len" }, 0 };
	cs[n++] = (struct ccase){ "--weight heap_size_delta --status",
				  { .weight = "heap_size_delta",
				    .status = "waiting,garbage_collecting" }, 0 };
	cs[n++] = (struct ccase){ "--status", { .status = "running,waiting,my prog" }, 0 };
	cs[n++] = (struct ccase){ "--pid", { .npids = 3, .pids = { { 101, 1, 0 }, { 103, 0, 1 },
								  { 0, 0, 0 } } }, 0 };
	cs[n++] = (struct ccase){ "--category memory", { .ncategories = 1,
							  .categories = { "memory:4KiB-64KiB" } }, 0 };
	cs[n++] = (struct ccase){ "two --category, one escaped",
				  { .ncategories = 2, .categories = { "name:a;b", "initial_call" } },
				  0 };
	cs[n++] = (struct ccase){ "relative --from/--to", { .has_from = 1, .from_us = 2000000,
							     .has_to = 1, .to_us = 5500000 }, 0 };
	cs[n++] = (struct ccase){ "absolute --from/--to",
				  { .has_from = 1, .from_abs = 1, .from_us = c->special[0],
				    .has_to = 1, .to_abs = 1, .to_us = c->special[1] }, 0 };
	/* the extremes, one event at a time in the trie (a sum would overflow) */
	cs[n++] = (struct ccase){ "--weight at -BIG (after a BIG)",
				  { .weight = "bin_old_vheap_block_size", .npids = 1,
				    .pids = { { 999, 7, 0 } }, .has_from = 1, .from_abs = 1,
				    .from_us = c->special[1] }, 0 };
	cs[n++] = (struct ccase){ "--weight at BIG",
				  { .weight = "bin_old_vheap_block_size", .npids = 1,
				    .pids = { { 999, 7, 0 } }, .has_to = 1, .to_abs = 1,
				    .to_us = c->special[1] }, 0 };
	cs[n++] = (struct ccase){ "--weight a delta that wraps",
				  { .weight = "bin_old_vheap_block_size_delta" }, 0 };
	cs[n++] = (struct ccase){ "--weight resolved on a later event",
				  { .weight = "reductions", .npids = 1, .pids = { { 999, 7, 0 } } },
				  0 };
	cs[n++] = (struct ccase){ "--weight only on a later layout",
				  { .weight = "custom_gauge" }, 1 };
	cs[n++] = (struct ccase){ "--weight an unknown metric", { .weight = "nosuch" }, 1 };
	return n;
}

/* What each case must show in the text's result, so that no case passes
 * by being empty. */
static void sanity(const struct ccase *k, const struct result *tx, int layouts, const char *what)
{
	const struct rep_stats *st = &tx->st;
	if (k->want_metric_err) {
		is_int(tx->rc, REP_C_METRIC, "%s: an error both ways", what);
		return;
	}
	ok(tx->rc == 0 && st->events > 0 && st->used > 0, "%s: events used", what);
	if (k->cfg.npids || k->cfg.status || k->cfg.ncategories)
		ok(st->filtered > 0, "%s: some filtered", what);
	if (k->cfg.has_from || k->cfg.has_to)
		ok(st->out_of_range > 0, "%s: some out of range", what);
	if (layouts && k->cfg.weight && strstr(k->cfg.weight, "queue"))
		ok(st->no_metric > 0, "%s: some events lack the metric", what);
	if (strstr(k->name, "BIG"))
		ok(strstr(tx->dump.d, " 9223372036854775799\n") != NULL, "%s: weighs BIG", what);
}

static void check_cases(const struct capture *c, const struct fileset *fs, int layouts,
			const char *set)
{
	struct ccase cs[24];
	size_t n = make_cases(cs, c);
	struct result tx = { 0 };
	char what[160];
	for (size_t i = 0; i < n; i++) {
		int all = 1;
		snprintf(what, sizeof what, "%s, %s", set, cs[i].name);
		agree(&cs[i].cfg, fs->paths, fs->n, what, &tx);
		for (size_t f = 0; f < fs->n && !cs[i].want_metric_err; f++)
			all &= tx.ix[f] == 1;
		if (!cs[i].want_metric_err)
			ok(all, "%s: every file read through its index", what);
		else
			is_int(tx.ix[0], REP_C_METRIC, "%s: REP_C_METRIC from the index", what);
		sanity(&cs[i], &tx, layouts, what);
	}
	free(tx.dump.d);
}

static void test_agree_files(void)
{
	struct gopt o = { .events = 2000, .procs = 12, .hostile = 1, .layouts = 1, .quirks = 1,
			  .tail = 1 };
	struct capture c;
	struct fileset fs;
	gen_capture(&c, &o, 1);
	ok(write_files(&c, 3, 0, ROT_ZSTD, "a", &fs), "3 files decompress to exactly their text");
	ok(!fs.given_up, "the writer kept every index (%s)", fs.why);
	ok(strstr(c.text.d, "vheap_block_size: 9223372036854775799, 0") &&
	   strstr(c.text.d, "vheap_block_size: -9223372036854775799, 18"), "the extremes are there");
	check_cases(&c, &fs, 1, "3 hostile files");
	free_files(&fs);
	free_capture(&c);
}

static char *big_file; /* 17000 events in 3 blocks, from test_agree_blocks */

static void test_agree_blocks(void)
{
	struct gopt o = { .events = 17000, .procs = 40, .layouts = 1, .quirks = 1, .tail = 2 };
	struct capture c;
	struct fileset fs;
	gen_capture(&c, &o, 2);
	ok(write_files(&c, 1, 700, ROT_ZSTD, "b", &fs), "decompresses to exactly its text");
	ok(!fs.given_up, "the writer kept the index (%s)", fs.why);
	check_cases(&c, &fs, 1, "17000 events, several blocks");
	big_file = fs.paths[0]; /* for test_damage */
	free_capture(&c);
}

static void test_agree_small(void)
{
	static const size_t sizes[] = { 1, 2, 3, 39, 40 };
	struct rep_config samples = { 0 }, weight = { .weight = "memory_delta" };
	struct result tx = { 0 };
	char sub[16], what[64];
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		struct gopt o = { .events = sizes[i], .procs = 3, .hostile = 1, .quirks = 1,
				  .tail = (int)(i % 3) };
		struct capture c;
		struct fileset fs;
		gen_capture(&c, &o, 10 + i);
		snprintf(sub, sizeof sub, "s%zu", i);
		snprintf(what, sizeof what, "%zu events, tail %d", sizes[i], o.tail);
		ok(write_files(&c, 1, 1, ROT_ZSTD, sub, &fs) && !fs.given_up, "%s: written", what);
		agree(&samples, fs.paths, fs.n, what, &tx);
		is_int(tx.ix[0], 1, "%s: read through the index", what);
		is_int(tx.st.events, sizes[i], "%s: every event", what);
		agree(&weight, fs.paths, fs.n, what, &tx);
		free_files(&fs);
		free_capture(&c);
	}
	free(tx.dump.d);
}

/* ==== the writer gives up: no trailer, the text is read ==== */

static void bad_capture(struct capture *c, int which)
{
	static const char ev[] = "running 5/0 [000] 1700000000.%06d: 1 cpu-clock:%s\n"
				 "\t0 m:f/0 (m.erl:1)\n\n";
	const char *mid = "";
	char buf[1024];
	memset(c, 0, sizeof *c);
	sb_printf(&c->hdr, "# header\n");
	sb_put(&c->text, "", 0);
	for (int i = 0; i < 400; i++) {
		const char *metrics = "\tmetric_erlang_reductions: 5, 5";
		char comm[32], lay[64];
		int n;
		if (which == 6) { /* 300 statuses: past the table's 256 */
			snprintf(comm, sizeof comm, "status_%d", i % 300);
			n = snprintf(buf, sizeof buf, "%s 5/0 [000] 1700000000.%06d: 1 cpu-clock:\n\n",
				     comm, i + 1);
		} else if (which == 7) { /* 65 metric lists: past the table's 64 */
			snprintf(lay, sizeof lay, "\tmetric_m%d: 1, 1", i % 65);
			n = snprintf(buf, sizeof buf, ev, i + 1, lay);
		} else {
			n = snprintf(buf, sizeof buf, ev, i + 1, metrics);
		}
		sb_put(&c->text, buf, (size_t)n);
		if (i == 200) {
			static const char *const bad[] = {
				"garbage line\n",                                  /* no time */
				"running 5/0 [000] 1700000000.300000: 1 c:\n\tzzz\n\n", /* not a frame */
				"running 5/0 [000] 1700000000.300000: 1 c:\tmetric_x: abc, 1\n\n",
				"running 5/0 [000] 1700000000.300000: 1 c:"
				"\tmetric_x: 99999999999999999999, 1\n\n",
				"running 5/0 [000] 1700000000.300000: 1 c:"
				"\tmetric_x: 1, 1\tmetric_x: 2, 1\n\n",
				"running 5/0 [000] 1700000000.300000: 1 c:\n\t0 \n\n", /* empty frame */
				"", "", "",
				/* a name with a blank, hiding a metric the report finds */
				"running 5/0 [000] 1700000000.300000: 1 c:"
				"\tmetric_a b metric_erlang_reductions: 7, 7\n\n",
			};
			mid = bad[which];
			sb_put(&c->text, mid, strlen(mid));
		}
		push_record(c, 1700000000000000LL + i);
	}
	if (which == 8) { /* 33 metrics on one event: past the 32 slots */
		sb_printf(&c->text, "running 5/0 [000] 1700000001.000001: 1 cpu-clock:");
		for (int k = 0; k < 33; k++)
			sb_printf(&c->text, "\tmetric_m%d: %d, 1", k, k);
		sb_printf(&c->text, "\n\n");
		push_record(c, 1700000001000001LL);
	}
}

static void test_given_up(void)
{
	static const char *const what[] = {
		"an event line without a time", "a line that is not perf text",
		"a malformed metric", "a metric past int64", "a metric twice",
		"an empty frame", "300 statuses", "65 metric lists", "33 metrics",
		"a metric name with a blank",
	};
	struct rep_config samples = { 0 }, weight = { .weight = "reductions" };
	for (int i = 0; i < 10; i++) {
		struct capture c;
		struct fileset fs;
		struct result tx = { 0 }, ix = { 0 };
		rep_collect *col;
		enum rep_c_err e;
		char d[256] = "x";
		uint64_t nev = 7;
		bad_capture(&c, i);
		ok(write_files(&c, 1, 50, ROT_ZSTD, "g", &fs), "%s: written", what[i]);
		ok(fs.given_up && fs.why[0], "%s: the writer gave up (%s)", what[i], fs.why);
		col = rep_collect_create(&samples, &e, d, sizeof d);
		is_int(rep_index_read(col, fs.paths[0], &nev, d, sizeof d), REP_IX_NONE,
		       "%s: no index", what[i]);
		ok(d[0] == '\0' && nev == 0 && rep_collect_stats(col)->events == 0,
		   "%s: quietly, nothing collected", what[i]);
		rep_collect_free(col);
		run(&samples, fs.paths, 1, 0, &tx);
		run(&samples, fs.paths, 1, 1, &ix);
		ok(tx.rc == 0 && tx.st.events >= 400 && ix.dump.len == tx.dump.len &&
		   !memcmp(ix.dump.d, tx.dump.d, tx.dump.len), "%s: the text is read", what[i]);
		if (i == 0 || i == 1 || i == 5)
			ok(tx.st.bad_lines == 1, "%s: one bad line", what[i]);
		agree(&weight, fs.paths, 1, what[i], &tx);
		free(tx.dump.d);
		free(ix.dump.d);
		free_files(&fs);
		free_capture(&c);
	}
}

/* Indexed files around one the writer gave up on: the weight is resolved
 * through an index, the middle file is read as text, the last through its
 * index again, and it all adds up as the text does. */
static void test_mixed(void)
{
	struct gopt o = { .events = 300, .procs = 5, .hostile = 1, .layouts = 1, .quirks = 1 };
	struct rep_config cfgs[] = { { 0 }, { .weight = "reductions" },
				     { .weight = "memory_delta", .status = "running,waiting" } };
	struct capture good, bad;
	struct fileset fg, fb;
	struct result tx = { 0 };
	char *paths[3];
	gen_capture(&good, &o, 6);
	bad_capture(&bad, 0);
	ok(write_files(&good, 2, 0, ROT_ZSTD, "m", &fg) && !fg.given_up, "two indexed files");
	ok(write_files(&bad, 1, 0, ROT_ZSTD, "m", &fb) && fb.given_up, "one without");
	paths[0] = fg.paths[0];
	paths[1] = fb.paths[0];
	paths[2] = fg.paths[1];
	for (size_t i = 0; i < sizeof cfgs / sizeof *cfgs; i++) {
		agree(&cfgs[i], paths, 3, "index, text, index", &tx);
		ok(tx.ix[0] == 1 && tx.ix[1] == 0 && tx.ix[2] == 1, "index, text, index: as said");
	}
	free(tx.dump.d);
	free_files(&fg);
	free_files(&fb);
	free_capture(&good);
	free_capture(&bad);
}

/* fp_report_main with "-q" and the arguments given, up to a NULL. */
static int report(const char *arg, ...)
{
	char *av[16] = { "report", "-q" };
	int ac = 2;
	va_list ap;
	va_start(ap, arg);
	for (; arg && ac < 15; arg = va_arg(ap, const char *))
		av[ac++] = (char *)(uintptr_t)arg;
	va_end(ap);
	av[ac] = NULL;
	return fp_report_main(ac, av);
}

static int same_file(const char *a, const char *b)
{
	size_t na, nb;
	char *x = slurp(a, &na), *y = slurp(b, &nb);
	int same = x && y && na == nb && na > 0 && memcmp(x, y, na) == 0;
	free(x);
	free(y);
	return same;
}

/* `flameprof report` on the hostile files' directory, with and without
 * --no-index: the same pictures, byte for byte. */
static void test_report_main(void)
{
	char d[256];
	snprintf(d, sizeof d, "%s", path("a")); /* path() reuses its buffers */
	is_int(report(d, "-w", "memory_delta", "-o", path("ix.svg"), "--heatmap", path("ix.heat"),
		      NULL), 0, "report through the indexes");
	is_int(report(d, "-w", "memory_delta", "-o", path("tx.svg"), "--heatmap", path("tx.heat"),
		      "--no-index", NULL), 0, "report --no-index");
	ok(same_file(path("ix.svg"), path("tx.svg")), "the same flame graph");
	ok(same_file(path("ix.heat"), path("tx.heat")), "the same heatmap");
	is_int(report(d, "-f", "speedscope", "--status", "running", "-o", path("ix.json"), NULL),
	       0, "speedscope through the indexes");
	is_int(report(d, "-f", "speedscope", "--status", "running", "-o", path("tx.json"),
		      "--no-index", NULL), 0, "speedscope --no-index");
	ok(same_file(path("ix.json"), path("tx.json")), "the same speedscope profile");
	is_int(report(d, "-w", "nosuch", "-o", path("x"), NULL), 64,
	       "an unknown metric through the index: 64, as through the text");
}

/* ==== files without an index ==== */

static void expect_none(const char *p, const char *what)
{
	struct rep_config cfg = { 0 };
	enum rep_c_err e;
	char d[256] = "x";
	uint64_t nev = 7;
	rep_collect *c = rep_collect_create(&cfg, &e, d, sizeof d);
	is_int(rep_index_read(c, p, &nev, d, sizeof d), REP_IX_NONE, "%s: no index", what);
	ok(d[0] == '\0' && nev == 0 && rep_collect_stats(c)->events == 0,
	   "%s: quietly, nothing collected", what);
	rep_collect_free(c);
}

static void test_no_index(void)
{
	struct gopt o = { .events = 30, .procs = 3 };
	struct capture c;
	struct fileset gz, plain;
	char z[4096];
	size_t nz;
	gen_capture(&c, &o, 3);
	ok(write_files(&c, 1, 5, ROT_GZIP, "gz", &gz), "gzip written");
	expect_none(gz.paths[0], "gzip");
	ok(write_files(&c, 1, 5, ROT_NONE, "plain", &plain), "plain written");
	expect_none(plain.paths[0], "plain text");
	nz = ZSTD_compress(z, sizeof z, c.text.d, 1000, 3);
	spit(path("plain.zst"), z, nz);
	expect_none(path("plain.zst"), "zstd without an index");
	spit(path("empty"), "", 0);
	expect_none(path("empty"), "a zero-length file");
	spit(path("tiny"), "\x28\xb5\x2f\xfd", 4);
	expect_none(path("tiny"), "a 4-byte file");
	spit(path("foot"), "\x28\xb5\x2f\xfd\x14\0\0\0FLPFIDX1", 16);
	expect_none(path("foot"), "a footer and nothing else");
	expect_none(path("nonexistent"), "a missing file");
	expect_none(dir, "a directory");
	free_files(&gz);
	free_files(&plain);
	free_capture(&c);
}

/* ==== damage ==== */

struct frame_at {
	size_t off, size;
};

/* The index frames of a file (skippable frames with our magic), in order;
 * the last is the trailer. */
static size_t index_frames(const unsigned char *f, size_t n, struct frame_at *out, size_t cap)
{
	size_t at = 0, k = 0;
	while (at + 8 <= n) {
		size_t sz;
		if (ix_get_le32(f + at) == IX_SKIP_MAGIC) {
			sz = 8 + (size_t)ix_get_le32(f + at + 4);
			if (k < cap)
				out[k++] = (struct frame_at){ at, sz };
		} else {
			sz = ZSTD_findFrameCompressedSize(f + at, n - at);
			if (ZSTD_isError(sz))
				break;
		}
		at += sz;
	}
	return k;
}

/* Where section `sec` of the block frame at f starts, and its length. */
static size_t section_at(const unsigned char *f, size_t size, size_t sec, size_t *clen)
{
	const unsigned char *p = f + IX_SKIP_HDR + 5, *end = f + size;
	uint64_t v, ns, raw[IX_S_METRICS + 2 * IX_MAX_SLOTS], cl[IX_S_METRICS + 2 * IX_MAX_SLOTS];
	size_t at;
	ix_get_varint(&p, end, &v);
	ix_get_varint(&p, end, &v);
	ix_get_varint(&p, end, &ns);
	for (size_t k = 0; k < ns; k++) {
		ix_get_varint(&p, end, &raw[k]);
		ix_get_varint(&p, end, &cl[k]);
	}
	at = (size_t)(p - f);
	for (size_t k = 0; k < sec; k++)
		at += cl[k];
	*clen = cl[sec];
	return at;
}

/* rep_index_read on a file, with a fresh collector; when it reads, what
 * it read goes into *out (if given). */
static int read_ix_dump(const char *p, int weighted, char *d, size_t cap, uint64_t *events,
			struct sb *out)
{
	struct rep_config cfg = { .weight = weighted ? "memory_delta" : NULL };
	enum rep_c_err e;
	uint64_t nev;
	rep_collect *c = rep_collect_create(&cfg, &e, d, cap);
	int rc = rep_index_read(c, p, &nev, d, cap);
	*events = rep_collect_stats(c)->events;
	if (rc == 1 && out) {
		out->len = 0;
		dump(c, &cfg, out);
	}
	rep_collect_free(c);
	return rc;
}

static int read_ix(const char *p, int weighted, char *d, size_t cap, uint64_t *events)
{
	return read_ix_dump(p, weighted, d, cap, events, NULL);
}

static void flip(const char *p, size_t off, unsigned char mask)
{
	unsigned char b;
	int fd = open(p, O_RDWR);
	if (fd < 0 || pread(fd, &b, 1, (off_t)off) != 1)
		abort();
	b ^= mask;
	if (pwrite(fd, &b, 1, (off_t)off) != 1 || close(fd) != 0)
		abort();
}

static void test_trailer_damage(const char *p)
{
	size_t n, nf, bad = 0, first_bad = 0;
	unsigned char *f = (unsigned char *)slurp(p, &n);
	struct frame_at fr[64];
	char d[256];
	uint64_t ev;
	nf = index_frames(f, n, fr, 64);
	ok(nf >= 2 && fr[nf - 1].off + fr[nf - 1].size == n, "the trailer is the last frame");
	/* every byte of the trailer but its magic: a damaged index, said so */
	for (size_t off = fr[nf - 1].off; off < n - 8; off++) {
		int rc;
		flip(p, off, 0x21);
		rc = read_ix(p, (int)(off & 1), d, sizeof d, &ev);
		flip(p, off, 0x21);
		if (!(rc == REP_IX_NONE && d[0] && ev == 0) && bad++ == 0)
			first_bad = off - fr[nf - 1].off;
	}
	if (!ok(bad == 0, "each trailer byte damaged: refused with a reason, nothing collected"))
		fprintf(stderr, "#   %zu bytes not refused, the first at +%zu\n", bad, first_bad);
	for (size_t off = n - 8; off < n; off++) {
		int rc;
		flip(p, off, 0x80);
		rc = read_ix(p, 0, d, sizeof d, &ev);
		flip(p, off, 0x80);
		bad += !(rc == REP_IX_NONE && ev == 0);
	}
	ok(bad == 0, "a damaged footer magic: no index");
	free(f);
}

static void test_truncated(const char *p)
{
	size_t n, bad = 0;
	char *f = slurp(p, &n), d[256];
	uint64_t ev;
	for (size_t k = 1; k < n && k <= 600; k++) {
		spit(path("cut"), f, n - k);
		bad += !(read_ix(path("cut"), (int)(k & 1), d, sizeof d, &ev) == REP_IX_NONE &&
			 ev == 0);
	}
	ok(bad == 0, "cut short by 1..600 bytes: no index, nothing collected");
	free(f);
}

static void test_concatenated(char *const *pp)
{
	size_t na, nb;
	char *a = slurp(pp[0], &na), *b = slurp(pp[1], &nb), d[256];
	char *both = malloc(na + nb), *paths[1] = { path("cat") };
	struct rep_config cfg = { 0 };
	struct result ta = { 0 }, tb = { 0 }, tc = { 0 };
	uint64_t ev;
	memcpy(both, a, na);
	memcpy(both + na, b, nb);
	spit(paths[0], both, na + nb);
	is_int(read_ix(paths[0], 0, d, sizeof d, &ev), REP_IX_NONE, "cat a b: no index");
	ok(d[0] && ev == 0, "cat a b: refused with a reason (%s), nothing collected", d);
	run(&cfg, pp, 1, 0, &ta);
	run(&cfg, pp + 1, 1, 0, &tb);
	run(&cfg, paths, 1, 1, &tc);
	is_int(tc.st.events, ta.st.events + tb.st.events, "cat a b: the text holds both");
	free(ta.dump.d);
	free(tb.dump.d);
	free(tc.dump.d);
	free(a);
	free(b);
	free(both);
}

static void test_section_damage(const char *p, const char *big)
{
	size_t n, nf, clen, at;
	unsigned char *f = (unsigned char *)slurp(p, &n);
	struct frame_at fr[64];
	char d[256];
	uint64_t ev;
	int rc;
	nf = index_frames(f, n, fr, 64);
	at = fr[0].off + section_at(f + fr[0].off, fr[0].size, IX_S_TABLES, &clen);
	flip(p, at + clen / 2, 0x10);
	rc = read_ix(p, 0, d, sizeof d, &ev);
	flip(p, at + clen / 2, 0x10);
	ok(rc == REP_IX_NONE && d[0] && ev == 0, "a damaged table: refused (%s)", d);
	at = fr[0].off + section_at(f + fr[0].off, fr[0].size, IX_S_STACK, &clen);
	flip(p, at + clen / 2, 0x10);
	rc = read_ix(p, 0, d, sizeof d, &ev);
	flip(p, at + clen / 2, 0x10);
	ok(rc == REP_IX_NONE && d[0] && ev == 0, "a damaged column: refused (%s)", d);
	free(f);
	/* in the second block of three: every column is checked before any
	 * event goes in, so the text is still read instead */
	if (!big)
		return;
	f = (unsigned char *)slurp(big, &n);
	nf = index_frames(f, n, fr, 64);
	ok(nf >= 4, "the big file has %zu blocks", nf - 1);
	at = fr[1].off + section_at(f + fr[1].off, fr[1].size, IX_S_STACK, &clen);
	flip(big, at + clen / 2, 0x10);
	rc = read_ix(big, 1, d, sizeof d, &ev);
	ok(rc == REP_IX_NONE && d[0] && ev == 0, "a damaged column in block 2: refused, nothing collected (%s)", d);
	char out[600], plain[600];
	snprintf(out, sizeof out, "%s.damaged.folded", big);
	snprintf(plain, sizeof plain, "%s.text.folded", big);
	is_int(report(big, "-f", "folded", "-o", out, NULL), 0, "report on it: exit 0, its text read");
	is_int(report(big, "--no-index", "-f", "folded", "-o", plain, NULL), 0, "report --no-index on it: exit 0");
	{
		size_t la, lb;
		char *a = slurp(out, &la), *b = slurp(plain, &lb);
		ok(la > 0 && la == lb && memcmp(a, b, la) == 0, "... the same stacks as --no-index's (%zu bytes)", la);
		free(a);
		free(b);
	}
	flip(big, at + clen / 2, 0x10);
	free(f);
}

/* Every byte of every index frame, damaged in turn and read unweighted and
 * weighted: never a crash, a leak or a sanitizer report; only the
 * documented answers. (REP_C_METRIC: a metric list or layout id damaged
 * so that the weight is not on the first event; 1: a column this read does
 * not need, or bits zstd does not use.) */
static void test_every_byte(const char *p)
{
	static const unsigned char masks[] = { 0x01, 0x80, 0xff };
	size_t n, nf, bad = 0, read_ok = 0, tries = 0, differ = 0;
	unsigned char *f = (unsigned char *)slurp(p, &n);
	struct frame_at fr[64];
	struct sb base[2] = { { 0 } }, got = { 0 };
	char d[256];
	uint64_t ev;
	nf = index_frames(f, n, fr, 64);
	ok(read_ix_dump(p, 0, d, sizeof d, &ev, &base[0]) == 1 &&
	   read_ix_dump(p, 1, d, sizeof d, &ev, &base[1]) == 1, "undamaged, it reads both ways");
	for (size_t k = 0; k < nf; k++) {
		for (size_t off = fr[k].off; off < fr[k].off + fr[k].size; off++) {
			flip(p, off, masks[off % 3]);
			for (int w = 0; w < 2; w++) {
				int rc = read_ix_dump(p, w, d, sizeof d, &ev, &got);
				tries++;
				read_ok += rc == 1;
				/* never corrupt: a damaged index is found before any
				 * event goes in */
				bad += !((rc == REP_IX_NONE && ev == 0) || rc == 1 ||
					 (w && rc == REP_C_METRIC));
				differ += rc == 1 && (got.len != base[w].len ||
						      memcmp(got.d, base[w].d, got.len) != 0);
			}
			flip(p, off, masks[off % 3]);
		}
	}
	ok(tries > 1000 && bad == 0, "%zu damaged indexes: each refused or read, none half read", tries);
	if (!ok(differ == 0, "what still reads reads as the undamaged index"))
		fprintf(stderr, "#   %zu of %zu differ\n", differ, read_ok);
	free(base[0].d);
	free(base[1].d);
	free(got.d);
	free(f);
}

static void test_damage(void)
{
	struct gopt small = { .events = 60, .procs = 4, .hostile = 1, .layouts = 1, .quirks = 1 };
	struct capture c;
	struct fileset fs;
	gen_capture(&c, &small, 4);
	ok(write_files(&c, 2, 10, ROT_ZSTD, "d", &fs) && !fs.given_up, "small files written");
	test_trailer_damage(fs.paths[0]);
	test_truncated(fs.paths[0]);
	test_concatenated(fs.paths);
	test_section_damage(fs.paths[0], big_file);
	test_every_byte(fs.paths[1]);
	free_files(&fs);
	free(big_file);
	free_capture(&c);
}

/* ==== hand-built indexes: shapes the writer never makes ==== */

struct craft {
	struct sb file, entries;
	uint64_t nb, total;
};

static void craft_start(struct craft *k)
{
	char z[64];
	size_t n = ZSTD_compress(z, sizeof z, "x\n", 2, 1);
	memset(k, 0, sizeof *k);
	sb_put(&k->file, z, n);
}

/* One block: sections as raw bytes (empty ones stay empty); section
 * `claim` (unless it is nsec) says it inflates to `raw` bytes, whatever its
 * bytes do. */
static void craft_block_claiming(struct craft *k, uint64_t events, const struct sb *sec,
				 size_t nsec, size_t claim, uint64_t raw)
{
	struct sb pay = { 0 }, data = { 0 };
	sb_put(&pay, IX_BLOCK_TAG "\x01", 5);
	sb_varint(&pay, k->nb);
	sb_varint(&pay, events);
	sb_varint(&pay, nsec);
	for (size_t s = 0; s < nsec; s++) {
		char z[1024];
		size_t cl = sec[s].len ? ZSTD_compress(z, sizeof z, sec[s].d, sec[s].len, 1) : 0;
		sb_varint(&pay, s == claim ? raw : sec[s].len);
		sb_varint(&pay, cl);
		sb_put(&data, z, cl);
	}
	sb_put(&pay, data.d, data.len);
	sb_varint(&k->entries, k->file.len);
	sb_varint(&k->entries, IX_SKIP_HDR + pay.len);
	sb_varint(&k->entries, events);
	sb_le32(&k->file, IX_SKIP_MAGIC);
	sb_le32(&k->file, (uint32_t)pay.len);
	sb_put(&k->file, pay.d, pay.len);
	k->nb++;
	k->total += events;
	free(pay.d);
	free(data.d);
}

static void craft_block(struct craft *k, uint64_t events, const struct sb *sec, size_t nsec)
{
	craft_block_claiming(k, events, sec, nsec, nsec, 0);
}

static void craft_finish(struct craft *k, const char *p)
{
	struct sb t = { 0 };
	size_t at = k->file.len;
	sb_put(&t, IX_TRAIL_TAG "\x01", 5);
	sb_varint(&t, k->nb);
	sb_put(&t, k->entries.d, k->entries.len);
	sb_varint(&t, k->total);
	sb_varint(&t, at);
	sb_le32(&k->file, IX_SKIP_MAGIC);
	sb_le32(&k->file, (uint32_t)(t.len + IX_FOOT));
	sb_put(&k->file, t.d, t.len);
	sb_le32(&k->file, (uint32_t)(IX_SKIP_HDR + t.len + IX_FOOT));
	sb_put(&k->file, IX_FOOT_MAGIC, 8);
	spit(p, k->file.d, k->file.len);
	free(t.d);
	free(k->file.d);
	free(k->entries.d);
}

static void put_str(struct sb *b, const char *s)
{
	sb_varint(b, strlen(s));
	sb_put(b, s, strlen(s));
}

/* Tables: frames "m:f/0", comm "running", the layouts given, one stack
 * of frame 0, pid 5/0 (each only when `full`). */
static void craft_tables(struct sb *t, int full, size_t nlayouts, const char *const *names,
			 size_t nnames)
{
	sb_varint(t, full);
	if (full) {
		sb_varint(t, 0);
		put_str(t, "m:f/0");
		put_str(t, "m.erl:1");
	}
	sb_varint(t, full);
	if (full)
		put_str(t, "running");
	sb_varint(t, nlayouts);
	for (size_t l = 0; l < nlayouts; l++) {
		sb_varint(t, nnames);
		for (size_t i = 0; i < nnames; i++)
			put_str(t, names[i]);
	}
	sb_varint(t, full);
	if (full) {
		sb_varint(t, 1);
		sb_varint(t, 0);
	}
	sb_varint(t, full);
	if (full) {
		sb_varint(t, 5);
		sb_varint(t, 0);
	}
}

/* One event in columns: time, comm 0, pid 0, stack 0, layout, then a
 * (change, correction) pair per slot. */
static size_t craft_event(struct sb *sec, int64_t dt, uint64_t layout, size_t nslots,
			  int64_t change, int64_t delta)
{
	sb_varint(&sec[IX_S_TIME], ix_zigzag(dt));
	sb_varint(&sec[IX_S_COMM], 0);
	sb_varint(&sec[IX_S_PID], 0);
	sb_varint(&sec[IX_S_STACK], 0);
	sb_varint(&sec[IX_S_LAYOUT], layout);
	for (size_t k = 0; k < nslots; k++) {
		sb_varint(&sec[IX_S_METRICS + 2 * k], ix_zigzag(change));
		sb_varint(&sec[IX_S_METRICS + 2 * k + 1], ix_zigzag(delta - change));
	}
	return IX_S_METRICS + 2 * nslots;
}

static void free_secs(struct sb *sec, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(sec[i].d);
	memset(sec, 0, n * sizeof *sec);
}

static int64_t craft_weight(const char *p, const char *weight, int *rc)
{
	struct rep_config cfg = { .weight = weight };
	enum rep_c_err e;
	char d[256];
	uint64_t nev;
	int64_t w;
	rep_collect *c = rep_collect_create(&cfg, &e, d, sizeof d);
	*rc = rep_index_read(c, p, &nev, d, sizeof d);
	rep_collect_finish(c);
	w = rep_trie_node(rep_collect_trie(c), 0)->total_w;
	rep_collect_free(c);
	return w;
}

static void test_crafted(void)
{
	static const char *const one[] = { "erlang_reductions" };
	static const char *const two[] = { "erlang_reductions", "x" };
	struct sb sec[IX_S_METRICS + 2 * IX_MAX_SLOTS] = { { 0 } };
	struct craft k;
	size_t ns;
	int rc;
	/* a sound one, to prove the builder right */
	craft_start(&k);
	craft_tables(&sec[IX_S_TABLES], 1, 1, one, 1);
	ns = craft_event(sec, 1700000000500000LL, 0, 1, 100, 7);
	craft_block(&k, 1, sec, ns);
	free_secs(sec, ns);
	craft_finish(&k, path("craft1"));
	is_int(craft_weight(path("craft1"), "reductions", &rc), 100, "a hand-built index: value");
	is_int(rc, 1, "a hand-built index reads");
	is_int(craft_weight(path("craft1"), "reductions_delta", &rc), 7, "... and delta");
	/* an event of block 1 uses a layout that block 2 defines, with metric
	 * columns block 1 does not have */
	craft_start(&k);
	craft_tables(&sec[IX_S_TABLES], 1, 0, NULL, 0);
	ns = craft_event(sec, 1700000000500000LL, 0, 0, 0, 0);
	craft_block(&k, 1, sec, ns);
	free_secs(sec, ns);
	craft_tables(&sec[IX_S_TABLES], 0, 1, two, 2);
	ns = craft_event(sec, 1, 0, 2, 1, 1);
	craft_block(&k, 1, sec, ns);
	free_secs(sec, ns);
	craft_finish(&k, path("craft2"));
	craft_weight(path("craft2"), "reductions", &rc);
	is_int(rc, REP_IX_NONE, "a layout wider than its block's columns: refused before any event goes in");
}

/* A one-block file whose index claims more than it holds, read: it must be
 * refused with a reason that has `want` in it, nothing collected. */
static void claims(const char *name, uint64_t events, const struct sb *sec, size_t nsec,
		   size_t claim, uint64_t raw, const char *want, const char *what)
{
	struct craft k;
	char d[256];
	uint64_t ev;
	int rc;
	craft_start(&k);
	craft_block_claiming(&k, events, sec, nsec, claim, raw);
	craft_finish(&k, path(name));
	rc = read_ix(path(name), 0, d, sizeof d, &ev);
	ok(rc == REP_IX_NONE && ev == 0 && strstr(d, want), "%s: set aside (%s)", what, d);
}

/* Tables of nframes frames "m:fK/0", nstacks stacks of frame 0, comm
 * "running", pid 5/0. */
static void tables_of(struct sb *t, size_t nframes, size_t nstacks)
{
	sb_varint(t, nframes);
	for (size_t i = 0; i < nframes; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "m:f%zu/0", i);
		sb_varint(t, 0);
		put_str(t, nm);
		put_str(t, "m.erl:1");
	}
	sb_varint(t, 1);
	put_str(t, "running");
	sb_varint(t, 0);
	sb_varint(t, nstacks);
	for (size_t i = 0; i < nstacks; i++) {
		sb_varint(t, 1);
		sb_varint(t, 0);
	}
	sb_varint(t, 1);
	sb_varint(t, 5);
	sb_varint(t, 0);
}

/* Claims past what the events and the file can hold (doc/security.md):
 * each sets the index aside before anything is decompressed for it. */
static void test_claims(void)
{
	struct sb sec[IX_S_METRICS + 2 * IX_MAX_SLOTS] = { { 0 } };
	struct craft k;
	char d[256];
	uint64_t ev;
	size_t ns;
	int rc;
	tables_of(&sec[IX_S_TABLES], 1, 1);
	ns = craft_event(sec, 1700000000500000LL, 0, 0, 0, 0);
	claims("claim_events", IX_BLOCK_EVENTS + 1, sec, ns, ns, 0, "more than 8192 events",
	       "a block claiming 8,193 events");
	claims("claim_column", 1, sec, ns, IX_S_STACK, (uint64_t)1 << 30, "more bytes than its events",
	       "a column of one event claiming 1 GiB");
	claims("claim_column_11", 1, sec, ns, IX_S_TIME, IX_VARINT_MAX + 1, "more bytes than its events",
	       "a column of one event claiming 11 bytes");
	claims("claim_tables", 1, sec, ns, IX_S_TABLES, IX_MAX_TABLES + 1, "more than 64 MiB",
	       "tables claiming 64 MiB and a byte");
	claims("claim_tables_hold", 1, sec, ns, IX_S_TABLES, (uint64_t)20 << 20, "more than a file of",
	       "tables claiming 20 MiB in a file of a few hundred bytes");
	free_secs(sec, ns);
	/* a table names only what its block's events first use */
	tables_of(&sec[IX_S_TABLES], 1, 2);
	ns = craft_event(sec, 1700000000500000LL, 0, 0, 0, 0);
	claims("more_stacks", 1, sec, ns, ns, 0, "stack table", "two new stacks for one event");
	free_secs(sec, ns);
	tables_of(&sec[IX_S_TABLES], 2, 1);
	ns = craft_event(sec, 1700000000500000LL, 0, 0, 0, 0);
	claims("idle_frames", 1, sec, ns, ns, 0, "frames no new stack uses", "a frame no stack uses");
	free_secs(sec, ns);
	/* an event refers to what its block or an earlier one brought */
	craft_start(&k);
	sb_varint(&sec[IX_S_TABLES], 0);
	sb_varint(&sec[IX_S_TABLES], 0);
	sb_varint(&sec[IX_S_TABLES], 0);
	sb_varint(&sec[IX_S_TABLES], 0);
	sb_varint(&sec[IX_S_TABLES], 0);
	ns = craft_event(sec, 1700000000500000LL, 0, 0, 0, 0);
	craft_block(&k, 1, sec, ns);
	free_secs(sec, ns);
	tables_of(&sec[IX_S_TABLES], 1, 1);
	ns = craft_event(sec, 1, 0, 0, 0, 0);
	craft_block(&k, 1, sec, ns);
	free_secs(sec, ns);
	craft_finish(&k, path("later_tables"));
	rc = read_ix(path("later_tables"), 0, d, sizeof d, &ev);
	ok(rc == REP_IX_NONE && ev == 0 && strstr(d, "refers past a table"),
	   "an event using a stack a later block brings: set aside (%s)", d);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/fp_report_index.XXXXXX");
	if (!mkdtemp(dir) || !(ixw = ix_writer_create(3)))
		return 1;
	subtest("hand-built indexes", test_crafted);
	subtest("claims past what a file holds", test_claims);
	subtest("index and text agree: small files", test_agree_small);
	subtest("index and text agree: several hostile files", test_agree_files);
	subtest("index and text agree: several blocks", test_agree_blocks);
	subtest("the writer gives up", test_given_up);
	subtest("indexed and not, mixed", test_mixed);
	subtest("report_main with and without --no-index", test_report_main);
	subtest("files without an index", test_no_index);
	subtest("damage", test_damage);
	ix_writer_free(ixw);
	{
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "# could not remove %s\n", dir);
	}
	return done_testing();
}
