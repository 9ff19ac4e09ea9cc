/*
 * rep_html.c - one offline HTML page: the heatmap, the flame graph of any
 * range, the difference of two (rep_html.h).
 *
 * The data is kept compact, for an hour's capture: the frame names once
 * (a string table), the trie once as a stack table (parent, frame), and
 * per 20 ms cell the stacks sampled in it with their count (and weight),
 * as base64 of varints: cell delta, stacks in the cell, then per stack its
 * node's delta from the previous one's and its count. A cell's stacks are
 * sorted, so most deltas take one byte. The page's script and style follow
 * (build/gen/html_page.c, from rep_html_page.js and .css).
 */
#include "rep_html.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rep_diff.h"
#include "rep_text.h"
#include "rep_write.h"
#include "../common/grow.h"
#include "../common/text.h"

/* the page's script and style (scripts/embed.sh, from the Makefile) */
extern const unsigned char fp_html_js[], fp_html_css[];
extern const size_t fp_html_js_len, fp_html_css_len;

struct rec {
	int64_t cell;  /* time_us / REP_HTML_CELL_US, floored */
	uint32_t leaf; /* trie node */
	uint32_t count;
	int64_t w;
};

struct rep_html_s {
	struct rec *r;
	size_t n, cap;
	size_t compacted; /* n after the last compaction: its records are sorted and distinct */
};

rep_html *rep_html_create(void)
{
	return calloc(1, sizeof(rep_html));
}

void rep_html_free(rep_html *h)
{
	if (!h)
		return;
	free(h->r);
	free(h);
}

static int by_cell_leaf(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->cell != y->cell)
		return x->cell < y->cell ? -1 : 1;
	return x->leaf < y->leaf ? -1 : x->leaf > y->leaf;
}

/* Sorts the records and sums those of one (cell, leaf): memory follows the
 * distinct pairs, not the events (a cell holds a few rounds of samples). */
static void compact(rep_html *h)
{
	size_t o = 0;
	if (h->n == 0)
		return;
	qsort(h->r, h->n, sizeof *h->r, by_cell_leaf);
	for (size_t i = 1; i < h->n; i++) {
		struct rec *p = &h->r[o], *q = &h->r[i];
		if (p->cell == q->cell && p->leaf == q->leaf) {
			p->count = p->count > UINT32_MAX - q->count ? UINT32_MAX : p->count + q->count;
			p->w = rep_add_sat(p->w, q->w);
		} else {
			h->r[++o] = *q;
		}
	}
	h->n = o + 1;
	h->compacted = h->n;
}

int rep_html_kept(void *arg, const struct rep_kept *ev)
{
	rep_html *h = arg;
	int64_t cell = ev->time_us / REP_HTML_CELL_US;
	if (ev->time_us % REP_HTML_CELL_US < 0)
		cell--;
	/* the same stack in the same cell as the last event: the common case
	 * of one process sampled again in its round */
	if (h->n > h->compacted && h->r[h->n - 1].cell == cell && h->r[h->n - 1].leaf == ev->leaf &&
	    h->r[h->n - 1].count < UINT32_MAX) {
		h->r[h->n - 1].count++;
		h->r[h->n - 1].w = rep_add_sat(h->r[h->n - 1].w, ev->w);
		return 0;
	}
	if (h->n == h->cap && h->n - h->compacted >= (1u << 20) && h->n >= 2 * h->compacted)
		compact(h);
	if (fp_grow((void **)&h->r, &h->cap, h->n + 1, sizeof *h->r, 4096) != 0)
		return -1;
	h->r[h->n++] = (struct rec){ cell, ev->leaf, 1, ev->w };
	return 0;
}

/* A JSON string's text that is safe inside <script>: no "</script>" can
 * close it early ('<' as \u003c). */
static void json_put(FILE *f, const char *s, size_t len)
{
	const char *lt;
	while ((lt = memchr(s, '<', len)) != NULL) {
		fp_json_put(f, s, (size_t)(lt - s));
		fputs("\\u003c", f);
		len -= (size_t)(lt - s) + 1;
		s = lt + 1;
	}
	fp_json_put(f, s, len);
}

static void json_str(FILE *f, const char *key, const char *s)
{
	fprintf(f, ",\"%s\":\"", key);
	json_put(f, s, strlen(s));
	fputc('"', f);
}

/* base64 of the varints, streamed: three bytes in, four characters out */
struct b64 {
	FILE *f;
	unsigned char in[3];
	int n;
	int col;
};

static void b64_flush(struct b64 *b, int last)
{
	static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char out[4];
	if (b->n == 0 || (b->n < 3 && !last))
		return;
	if (b->n < 3)
		memset(b->in + b->n, 0, (size_t)(3 - b->n));
	out[0] = A[b->in[0] >> 2];
	out[1] = A[((b->in[0] & 3) << 4) | (b->in[1] >> 4)];
	out[2] = b->n > 1 ? A[((b->in[1] & 15) << 2) | (b->in[2] >> 6)] : '=';
	out[3] = b->n > 2 ? A[b->in[2] & 63] : '=';
	fwrite(out, 1, 4, b->f);
	b->n = 0;
}

static void b64_byte(struct b64 *b, unsigned char c)
{
	b->in[b->n++] = c;
	if (b->n == 3)
		b64_flush(b, 0);
}

static void varint(struct b64 *b, uint64_t x)
{
	while (x >= 128) {
		b64_byte(b, (unsigned char)(x | 128));
		x >>= 7;
	}
	b64_byte(b, (unsigned char)x);
}

/* The records from the first cell at or after t0 on; @return how many. */
static size_t records(FILE *f, const rep_html *h, int64_t cell0, int weighted)
{
	struct b64 b = { f, { 0 }, 0, 0 };
	int64_t prev = 0;
	size_t i = 0, n = 0;
	while (i < h->n && h->r[i].cell < cell0)
		i++;
	while (i < h->n) {
		size_t e = i;
		uint32_t leaf = 0;
		while (e < h->n && h->r[e].cell == h->r[i].cell)
			e++;
		varint(&b, (uint64_t)(h->r[i].cell - cell0 - prev));
		prev = h->r[i].cell - cell0;
		varint(&b, e - i);
		for (; i < e; i++, n++) {
			varint(&b, h->r[i].leaf - leaf);
			leaf = h->r[i].leaf;
			varint(&b, h->r[i].count);
			if (weighted) /* zigzag: small magnitudes of either sign stay short */
				varint(&b, ((uint64_t)h->r[i].w << 1) ^ (uint64_t)(h->r[i].w >> 63));
		}
	}
	b64_flush(&b, 1);
	return n;
}

/* The events counted from cell0 on (the page's "events"). */
static uint64_t events_from(const rep_html *h, int64_t cell0)
{
	uint64_t events = 0;
	for (size_t i = 0; i < h->n; i++)
		if (h->r[i].cell >= cell0)
			events += h->r[i].count;
	return events;
}

/*
 * --diff: BASE's nodes on DIR's stack table, by rep_diff.c's matching: a
 * BASE node matched by a DIR node is that node; the others are appended
 * (their parent's id, BASE's frame as DIR's frame table holds it), in
 * BASE's id order, so a parent still comes before its children. BASE's
 * events are renumbered to these ids. xparent and xframe get the appended
 * nodes (*nx of them, ids from rep_trie_count(DIR) on).
 * @return 0, or -1 when out of memory.
 */
static int base_on_dir(const struct rep_view *v, uint32_t **xparent, uint32_t **xframe, size_t *nx)
{
	const struct rep_diff *d = v->diff;
	size_t n = rep_trie_count(v->trie), bn = rep_trie_count(d->base_trie), i, x = 0;
	uint32_t *bmap = malloc(bn * sizeof *bmap);
	*xparent = malloc(bn * sizeof **xparent);
	*xframe = malloc(bn * sizeof **xframe);
	if (!bmap || !*xparent || !*xframe) {
		free(bmap);
		free(*xparent);
		free(*xframe);
		*xparent = *xframe = NULL;
		return -1;
	}
	for (i = 0; i < bn; i++)
		bmap[i] = UINT32_MAX;
	for (i = 0; i < n; i++)
		if (d->match[i] != UINT32_MAX)
			bmap[d->match[i]] = (uint32_t)i;
	bmap[0] = 0;
	for (i = 1; i < bn; i++) {
		const struct rep_node *nd = rep_trie_node(d->base_trie, (uint32_t)i);
		if (bmap[i] != UINT32_MAX)
			continue;
		(*xparent)[x] = bmap[nd->parent];
		(*xframe)[x] = d->frame_map[nd->frame];
		bmap[i] = (uint32_t)(n + x++);
	}
	*nx = x;
	rep_html *h = d->base_events;
	for (i = 0; i < h->n; i++)
		h->r[i].leaf = bmap[h->r[i].leaf];
	h->compacted = 0;
	compact(h); /* sorted by the new ids: the deltas stay positive */
	free(bmap);
	return 0;
}

static char kind_char(enum rep_kind k)
{
	return k == REP_K_STATUS ? 's' : k == REP_K_CODE ? 'c' : k == REP_K_CATEGORY ? 'k'
		: k == REP_K_NEGATIVE ? 'n' : 'r';
}

int rep_write_html(FILE *f, const struct rep_view *v)
{
	rep_html *h = v->events;
	const struct rep_config *cfg = v->cfg;
	const struct rep_diff *d = v->diff && v->diff->base_events ? v->diff : NULL;
	size_t nf = rep_frames_count(v->frames), nn = rep_trie_count(v->trie), i, nrec, nx = 0;
	int64_t cell0 = v->st->t0_s * (1000000 / REP_HTML_CELL_US);
	uint64_t events;
	uint32_t *xparent = NULL, *xframe = NULL;
	char note[1024], a[32];
	compact(h);
	events = events_from(h, cell0);
	if (d && base_on_dir(v, &xparent, &xframe, &nx) != 0)
		return -1;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"flameprof report " FP_VERSION "\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>flameprof</title>\n<style>\n", f);
	fwrite(fp_html_css, 1, fp_html_css_len, f);
	fputs("</style></head>\n<body>\n<noscript>This page draws its pictures with JavaScript: allow it "
	      "for this file.</noscript>\n<script id=\"fp-data\" type=\"application/json\">{\"v\":1", f);
	if (cfg->title) {
		json_str(f, "title", cfg->title);
	} else {
		fputs(",\"title\":\"flameprof: ", f);
		json_put(f, cfg->inputs[0], strlen(cfg->inputs[0]));
		fputs(cfg->ninputs > 1 ? " ..." : "", f);
		if (d) {
			fputs(" against ", f);
			json_put(f, d->base_name, strlen(d->base_name));
		}
		fputc('"', f);
	}
	json_str(f, "input", cfg->ninputs == 1 ? cfg->inputs[0] : "FILES");
	json_str(f, "weight", v->weight_name);
	json_str(f, "status", cfg->status ? (cfg->status_default ? "on-cpu" : cfg->status) : "all");
	fprintf(f, ",\"weighted\":%d,\"t0\":%" PRId64 ",\"cell_us\":%d,\"rows\":%d,\"events\":%" PRIu64
		   ",\"all_status\":%d,\"oncpu\":[\"",
		v->weighted, v->st->t0_s, REP_HTML_CELL_US, REP_HEAT_ROWS, events, cfg->status == NULL);
	for (const char *s = REP_ON_CPU; *s; s++) /* "running,garbage_collecting" as a list */
		if (*s == ',')
			fputs("\",\"", f);
		else
			fputc(*s, f);
	fputs("\"]", f);
	rep_status_note(v, note, sizeof note);
	if (v->from_us != INT64_MIN || v->to_us != INT64_MAX) {
		size_t l = strlen(note);
		snprintf(note + l, sizeof note - l, "%sthe page holds only the events of --from/--to",
			 l ? "; " : "");
	}
	if (v->st->out_of_range || v->st->filtered) {
		size_t l = strlen(note);
		snprintf(note + l, sizeof note - l, "%s%s events left out by the filters and time range",
			 l ? "; " : "", rep_thousands((int64_t)(v->st->out_of_range + v->st->filtered), a));
	}
	json_str(f, "note", note);
	fputs(",\"names\":[", f);
	for (i = 0; i < nf; i++) {
		struct rep_frame_info fi;
		rep_frames_get(v->frames, (uint32_t)i, &fi);
		fputs(i ? ",\"" : "\"", f);
		json_put(f, fi.name, fi.name_len);
		fputc('"', f);
	}
	fputs("],\"kinds\":\"", f);
	for (i = 0; i < nf; i++)
		fputc(kind_char(rep_frames_kind(v->frames, (uint32_t)i)), f);
	fputs("\",\"parent\":[", f);
	for (i = 0; i < nn; i++)
		fprintf(f, i ? ",%" PRIu32 : "%" PRIu32, i ? rep_trie_node(v->trie, (uint32_t)i)->parent : 0);
	for (i = 0; i < nx; i++)
		fprintf(f, ",%" PRIu32, xparent[i]);
	fputs("],\"frame\":[", f);
	for (i = 0; i < nn; i++) {
		uint32_t fr = rep_trie_node(v->trie, (uint32_t)i)->frame;
		if (i == 0 || fr == REP_NO_FRAME)
			fputs(i ? ",-1" : "-1", f);
		else
			fprintf(f, ",%" PRIu32, fr);
	}
	for (i = 0; i < nx; i++)
		fprintf(f, ",%" PRIu32, xframe[i]);
	free(xparent);
	free(xframe);
	if (d) {
		/* BASE: its events on the same stack table, its own time origin */
		int64_t bcell0 = d->base_st->t0_s * (1000000 / REP_HTML_CELL_US);
		fputs("],\"base\":{\"input\":\"", f);
		json_put(f, d->base_name, strlen(d->base_name));
		fprintf(f, "\",\"t0\":%" PRId64 ",\"events\":%" PRIu64 ",\"recs\":\"", d->base_st->t0_s,
			events_from(d->base_events, bcell0));
		nrec = records(f, d->base_events, bcell0, v->weighted);
		fprintf(f, "\",\"nrec\":%zu},\"recs\":\"", nrec);
	} else {
		fputs("],\"recs\":\"", f);
	}
	nrec = records(f, h, cell0, v->weighted);
	/* the count after the blob it counts: the page reads the JSON whole */
	fprintf(f, "\",\"nrec\":%zu}</script>\n<script>\n", nrec);
	fwrite(fp_html_js, 1, fp_html_js_len, f);
	fputs("</script>\n</body></html>\n", f);
	return 0;
}
