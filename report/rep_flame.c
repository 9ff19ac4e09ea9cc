/*
 * rep_flame.c - the flame graph SVG.
 *
 * Root ("all") at the bottom, leaves up. A frame's width is its share of
 * the total weight; frames narrower than --min-width pixels are left out
 * with their subtrees and counted in a note on the picture, which keeps an
 * hour-long capture's picture small. Geometry is computed here; the inline
 * script (rep_svg_assets.c) only rescales it.
 */
#include "rep_write.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rep_color.h"
#include "rep_diff.h"
#include "rep_svg_assets.h"
#include "rep_text.h"

#define PAD 10.0
#define TOP 76.0
#define FH 16
#define CW 7.2 /* width of a 12px monospace character */

struct fl {
	FILE *f;
	const struct rep_view *v;
	double scale; /* pixels per unit of value */
	double total;
	uint32_t maxdepth;
	uint64_t omitted;
	double maxdelta; /* --diff: the largest change of share, for the colour scale */
};

static double value(const struct rep_view *v, const struct rep_node *nd)
{
	return v->weighted ? (double)nd->total_w : (double)nd->total_n;
}

/* --diff: a node's share of BASE's whole and of DIR's (each side's own
 * figures: samples, or the weight). */
static void shares(const struct fl *s, const struct rep_node *nd, double *before, double *after)
{
	const struct rep_diff *d = s->v->diff;
	uint32_t id = (uint32_t)(nd - rep_trie_node(s->v->trie, 0));
	*before = d->base_whole > 0 ? d->base[id] / d->base_whole : 0;
	*after = s->total > 0 ? value(s->v, nd) / s->total : 0;
}

/* What walk() hands each frame: its width w in pixels, and whether it is
 * drawn (as wide as --min-width; a narrower one's subtree is not walked). */
typedef void visit_fn(struct fl *s, uint32_t node, const struct rep_node *nd, size_t depth, double w,
		      int drawn, void *arg);

/* Every frame wide enough, and each narrower one without its subtree,
 * root first: the one walk of measure() and draw(). @return 0 or -1 (no
 * memory). */
static int walk(struct fl *s, visit_fn *visit, void *arg)
{
	const struct rep_view *v = s->v;
	struct rep_walk wk;
	uint32_t node;
	size_t depth;
	int r, skip = 0;
	rep_walk_init(&wk, v->order, 0);
	while ((r = rep_walk_next(&wk, skip, &node, &depth)) == 1) {
		const struct rep_node *nd = rep_trie_node(v->trie, node);
		double w = value(v, nd) * s->scale;
		skip = w < v->cfg->min_width;
		visit(s, node, nd, depth, w, !skip, arg);
	}
	rep_walk_free(&wk);
	return r;
}

static void measure_one(struct fl *s, uint32_t node, const struct rep_node *nd, size_t depth, double w,
			int drawn, void *arg)
{
	(void)depth, (void)w, (void)arg;
	if (!drawn) {
		s->omitted += s->v->order->size[node];
		return;
	}
	if (nd->depth > s->maxdepth)
		s->maxdepth = nd->depth;
	if (s->v->diff) {
		double before, after;
		shares(s, nd, &before, &after);
		if (after - before > s->maxdelta || before - after > s->maxdelta)
			s->maxdelta = after > before ? after - before : before - after;
	}
}

/* The deepest frame drawn, and what is left out. @return 0 or -1 (no memory). */
static int measure(struct fl *s)
{
	return walk(s, measure_one, NULL);
}

/* --diff: the frame's before and after, in its hover title. */
static void diff_title(struct fl *s, const struct rep_node *nd)
{
	const struct rep_diff *d = s->v->diff;
	uint32_t id = (uint32_t)(nd - rep_trie_node(s->v->trie, 0));
	double before, after;
	char a[32], b[32], c[32], e[32];
	shares(s, nd, &before, &after);
	fprintf(s->f, "\nbefore %.2f%% (%s of %s), after %.2f%% (%s of %s): %+.2f points",
		100 * before, rep_thousands((int64_t)d->base[id], a), rep_thousands((int64_t)d->base_whole, b),
		100 * after, rep_thousands((int64_t)value(s->v, nd), c), rep_thousands((int64_t)s->total, e),
		100 * (after - before));
}

/* --diff: Brendan Gregg's colours: red where DIR spends a larger share
 * than BASE, blue where a smaller one, the deeper the larger the change
 * (against the largest of the picture, or one point where all are
 * smaller: two runs of the same work differ by hundredths of a point,
 * which must not look like a change), white where none. */
static void diff_color(const struct fl *s, const struct rep_node *nd, char out[8])
{
	double before, after, t;
	int fade;
	shares(s, nd, &before, &after);
	t = (after - before) / (s->maxdelta > 0.01 ? s->maxdelta : 0.01);
	fade = 232 - (int)(190 * (t < 0 ? -t : t) + 0.5);
	if (t > 0)
		snprintf(out, 8, "#%02x%02x%02x", 255, fade, fade);
	else if (t < 0)
		snprintf(out, 8, "#%02x%02x%02x", fade, fade, 255);
	else
		snprintf(out, 8, "#%02x%02x%02x", 232, 232, 232);
}

static void frame_title(struct fl *s, const struct rep_node *nd, const struct rep_frame_info *fi)
{
	FILE *f = s->f;
	char a[32], b[32];
	double share = s->total > 0 ? 100.0 * value(s->v, nd) / s->total : 0;
	if (fi->kind == REP_K_ROOT)
		fputs("all", f);
	else
		rep_xml_put(f, fi->name, fi->name_len);
	fputc('\n', f);
	if (s->v->weighted)
		fprintf(f, "%s %s (%.2f%%), %s samples", s->v->weight_name,
			rep_thousands(nd->total_w, a), share, rep_thousands((int64_t)nd->total_n, b));
	else
		fprintf(f, "%s samples (%.2f%%)", rep_thousands((int64_t)nd->total_n, a), share);
	if (fi->kind == REP_K_CATEGORY)
		fputs("\ncategory frame", f);
	else if (fi->kind == REP_K_NEGATIVE)
		fputs("\nevents whose weight was negative, drawn by magnitude", f);
	else if (fi->kind == REP_K_STATUS)
		fputs("\nprocess status", f);
	if (s->v->diff)
		diff_title(s, nd);
}

static void draw_one(struct fl *s, uint32_t node, const struct rep_node *nd, double x, double w)
{
	const struct rep_view *v = s->v;
	struct rep_frame_info fi = { "all", 3, "all", 3, "", 0, REP_K_ROOT, 0, "all", 3 };
	double y;
	char col[8];
	size_t fit, chars;
	if (node != 0)
		rep_frames_get(v->frames, nd->frame, &fi);
	y = TOP + (double)(s->maxdepth - nd->depth) * FH;
	if (v->diff)
		diff_color(s, nd, col);
	else
		rep_color(fi.kind, fi.name, fi.name_len, col);
	fputs("<g class=\"f\"><title>", s->f);
	frame_title(s, nd, &fi);
	fprintf(s->f, "</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>",
		x, y, w, FH - 1, col);
	fprintf(s->f, "<text x=\"%.2f\" y=\"%.0f\">", x + 3, y + FH - 4.5);
	fit = w > 6 ? (size_t)((w - 6) / CW) : 0;
	chars = rep_utf8_chars(fi.name, fi.name_len);
	if (fit >= 3) {
		if (chars <= fit) {
			rep_xml_put(s->f, fi.name, fi.name_len);
		} else {
			rep_xml_put(s->f, fi.name, rep_utf8_prefix(fi.name, fi.name_len, fit - 2));
			fputs("..", s->f);
		}
	}
	fputs("</text></g>\n", s->f);
}

/* xs[d]: where the next node at depth d starts (drawn nodes are at most
 * maxdepth deep, as measure() found); a narrow one takes its room too. */
static void draw_at(struct fl *s, uint32_t node, const struct rep_node *nd, size_t depth, double w,
		    int drawn, void *arg)
{
	double *xs = arg, x = xs[depth];
	xs[depth] += w;
	if (!drawn)
		return;
	draw_one(s, node, nd, x, w);
	xs[depth + 1] = x;
}

/* Every frame wide enough, root first; a child starts where its previous
 * sibling ends. @return 0 or -1 (no memory). */
static int draw(struct fl *s)
{
	double *xs = calloc((size_t)s->maxdepth + 2, sizeof *xs);
	if (!xs)
		return -1;
	xs[0] = PAD;
	int r = walk(s, draw_at, xs);
	free(xs);
	return r;
}

void rep_status_note(const struct rep_view *v, char *out, size_t cap)
{
	const struct rep_stats *st = v->st;
	uint64_t hid = st->hidden_more, kept = st->events - st->filtered;
	char a[32], b[32];
	size_t n = 0;
	out[0] = '\0';
	for (size_t k = 0; k < st->nhidden; k++)
		hid += st->hidden_n[k];
	if (!v->cfg->status && !hid) {
		if (st->idle_delta)
			snprintf(out, cap, "%s idle samples weigh 0 (their delta is work done before they waited)",
				 rep_thousands((int64_t)st->idle_delta, a));
		return;
	}
	if (v->cfg->status_default)
		n = (size_t)snprintf(out, cap, "on-CPU: %s of %s samples", rep_thousands((int64_t)kept, a),
				     rep_thousands((int64_t)(kept + hid), b));
	else
		n = (size_t)snprintf(out, cap, "--status %s: %s of %s samples", v->cfg->status ? v->cfg->status : "all",
				     rep_thousands((int64_t)kept, a), rep_thousands((int64_t)(kept + hid), b));
	for (size_t k = 0; k < st->nhidden && n < cap; k++) {
		struct rep_frame_info fi;
		rep_frames_get(v->frames, st->hidden_id[k], &fi);
		n += (size_t)snprintf(out + n, cap - n, "%s%.*s %s", k ? ", " : "; ", (int)fi.name_len, fi.name,
				      rep_thousands((int64_t)st->hidden_n[k], a));
	}
	if (st->hidden_more && n < cap)
		n += (size_t)snprintf(out + n, cap - n, ", others %s", rep_thousands((int64_t)st->hidden_more, a));
	if (n < cap && hid)
		n += (size_t)snprintf(out + n, cap - n, " hidden: --status all for the wall-clock view");
	else if (n < cap && v->cfg->status_default)
		n += (size_t)snprintf(out + n, cap - n, " (the files hold no others: record with --status all "
				      "for the wall-clock view)");
	if (st->idle_delta && n < cap)
		snprintf(out + n, cap - n, "; %s idle samples weigh 0 (their delta is work done before they waited)",
			 rep_thousands((int64_t)st->idle_delta, a));
}

static void subtitle(struct fl *s)
{
	const struct rep_view *v = s->v;
	const struct rep_stats *st = v->st;
	char a[32], note[512];
	double t0 = (double)st->t0_s;
	rep_status_note(v, note, sizeof note);
	if (*note) {
		rep_xml_put(s->f, note, strlen(note));
		fputs("; ", s->f);
	}
	fprintf(s->f, "%s events, weight: %s", rep_thousands((int64_t)st->used, a), v->weight_name);
	if (v->cfg->has_from || v->cfg->has_to) {
		double from = v->from_us == INT64_MIN ? 0 : (double)v->from_us / 1e6 - t0;
		double to = v->to_us == INT64_MAX ? (double)st->last_us / 1e6 - t0
						   : (double)v->to_us / 1e6 - t0;
		fprintf(s->f, ", seconds %.2f to %.2f", from, to);
	}
	if (st->events)
		fprintf(s->f, " of %.2f s captured", (double)(st->last_us - st->t0_s * 1000000) / 1e6);
	if (v->st->negative)
		fprintf(s->f, ", %s negative", rep_thousands((int64_t)v->st->negative, a));
}

/* --diff: against what, and the colours' meaning (the note line). */
static void diff_note(struct fl *s)
{
	const struct rep_diff *d = s->v->diff;
	char a[32];
	fputs("against ", s->f);
	rep_xml_put(s->f, d->base_name, strlen(d->base_name));
	fprintf(s->f, " (%s %s): red where this spends a larger share, blue a smaller",
		rep_thousands((int64_t)d->base_whole, a), s->v->weight_name);
	if (d->base_whole > 0 && d->gone > 0)
		fprintf(s->f, "; %.2f%% of the base on stacks not drawn here", 100 * d->gone / d->base_whole);
	if (s->total > 0 && s->omitted)
		fputs("; ", s->f);
}

#define FLAME_IDLE "root at the bottom, as flame graphs are drawn (the page, -o profile.html, draws it " \
	"at the top, under its heatmap); hover a frame for its share, click to zoom"

int rep_write_flame(FILE *f, const struct rep_view *v)
{
	struct fl s;
	double W = v->cfg->width, H;
	const struct rep_node *root = rep_trie_node(v->trie, 0);
	memset(&s, 0, sizeof s);
	s.f = f;
	s.v = v;
	s.total = value(v, root);
	s.scale = s.total > 0 ? (W - 2 * PAD) / s.total : 0;
	if (s.total > 0 && measure(&s) != 0)
		return -1;
	H = TOP + (s.maxdepth + 1) * FH + 34;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		   "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		   "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
		W, H, W, H);
	fprintf(f, "<style>\n%s</style>\n", rep_flame_css);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fbf8f2\"/>\n", W, H);
	fprintf(f, "<text class=\"title\" x=\"%.1f\" y=\"24\" text-anchor=\"middle\">", W / 2);
	if (v->cfg->title)
		rep_xml_put(f, v->cfg->title, strlen(v->cfg->title));
	else
		fputs(v->diff ? "Differential flame graph" : "Flame graph", f);
	fprintf(f, "</text>\n<text class=\"sub\" x=\"%.1f\" y=\"44\" text-anchor=\"middle\">", W / 2);
	subtitle(&s);
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"note\" class=\"note\" x=\"%.1f\" y=\"62\" text-anchor=\"middle\">", W / 2);
	if (v->diff)
		diff_note(&s);
	if (s.total <= 0)
		fputs(v->st->used ? "the total weight is 0: nothing to draw" : "no events matched", f);
	else if (s.omitted)
		fprintf(f, "%" PRIu64 " frames narrower than %g px omitted", s.omitted, v->cfg->min_width);
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"unzoom\" class=\"btn hide\" x=\"%.1f\" y=\"24\">Reset zoom</text>\n", PAD);
	fprintf(f, "<text id=\"search\" class=\"btn\" x=\"%.1f\" y=\"24\" text-anchor=\"end\">Search</text>\n",
		W - PAD);
	/* what the line says until a frame is hovered: which way the graph
	 * points, since the page (rep_html_page.js) draws it the other way */
	fprintf(f, "<text id=\"details\" x=\"%.1f\" y=\"%.0f\" data-idle=\"%s\">%s</text>\n", PAD, H - 12,
		FLAME_IDLE, FLAME_IDLE);
	fprintf(f, "<text id=\"matched\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"end\"> </text>\n", W - PAD,
		H - 12);
	fputs("<g id=\"frames\">\n", f);
	if (s.total > 0 && draw(&s) != 0)
		return -1;
	fputs("</g>\n", f);
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\nwindow.FP={px:%.1f,pw:%.2f,cw:%.1f};\n%s]]></script>\n",
		PAD, W - 2 * PAD, CW, rep_flame_js);
	fputs("</svg>\n", f);
	return 0;
}
