/*
 * rep_heatmap.c - the sub-second heatmap SVG, Flamescope style.
 *
 * x: seconds since the first event's whole second; y: position within the
 * second, REP_HEAT_ROWS rows of 20 ms, top to bottom; colour: samples, or
 * the --weight metric summed (blue where the sum is negative). Vertically
 * adjacent cells of the same colour are drawn as one rect, so an evenly
 * busy hour does not cost 180,000 elements; the numbers themselves ride
 * along for the hover text, only for the seconds that have events (an
 * object by column: a long gap between two events costs neither memory
 * nor bytes).
 */
#include "rep_write.h"

#include <inttypes.h>
#include <string.h>

#include "rep_color.h"
#include "rep_svg_assets.h"
#include "rep_text.h"
#include "../common/text.h"

#define LEVELS 24
#define LEFT 60
#define TOP 64
#define CH 8

static int64_t cell(const struct rep_view *v, const struct rep_heat *h, size_t i)
{
	return v->weighted ? h->w[i] : (int64_t)h->n[i];
}

static int level(int64_t val, int64_t max)
{
	uint64_t a = val < 0 ? (uint64_t)0 - (uint64_t)val : (uint64_t)val;
	if (a == 0 || max <= 0)
		return 0;
	return 1 + (int)((double)(a - 1) / (double)max * LEVELS);
}

/* The seconds that have events as "column:[50 values]": dense within a
 * second, nothing for a second without events. */
static void columns(FILE *f, const struct rep_heat *h, int weights)
{
	for (size_t k = 0; k < h->nsecs; k++) {
		fprintf(f, "%s%" PRIu32 ":[", k ? "," : "", h->sec[k].sec);
		for (size_t r = 0; r < REP_HEAT_ROWS; r++) {
			size_t i = k * REP_HEAT_ROWS + r;
			if (weights)
				fprintf(f, "%s%" PRId64, r ? "," : "", h->w[i]);
			else
				fprintf(f, "%s%" PRIu64, r ? "," : "", h->n[i]);
		}
		fputc(']', f);
	}
}

int rep_write_heatmap(FILE *f, const struct rep_view *v, const struct rep_heat *h)
{
	size_t cols = h->ncols, c, r, i, k, tick;
	int64_t max = 0;
	int cw;
	double W, H;
	char a[32];
	for (i = 0; i < h->nsecs * REP_HEAT_ROWS; i++) {
		int64_t x = cell(v, h, i);
		if (x < 0)
			x = -x;
		if (x > max)
			max = x;
	}
	cw = cols ? (int)((v->cfg->width - LEFT - 20) / cols) : 20;
	if (cw < 1)
		cw = 1;
	if (cw > 24)
		cw = 24;
	W = LEFT + (double)cw * (double)cols + 20;
	if (W < 840) /* room for the subtitle */
		W = 840;
	H = TOP + REP_HEAT_ROWS * CH + 56;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		   "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		   "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n<style>\n%s</style>\n",
		W, H, W, H, rep_heat_css);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n", W, H);
	fprintf(f, "<text class=\"title\" x=\"%d\" y=\"24\">", LEFT);
	if (v->cfg->title)
		rep_xml_put(f, v->cfg->title, strlen(v->cfg->title));
	else
		fputs("Sub-second heatmap", f);
	fprintf(f, "</text>\n<text class=\"sub\" x=\"%d\" y=\"44\">colour: %s (max %s per 20 ms cell), "
		   "x: seconds from %" PRId64 " (Unix time), y: ms within the second",
		LEFT, v->weight_name, rep_thousands(max, a), v->st->t0_s);
	if (h->before_t0)
		fprintf(f, ", %" PRIu64 " earlier events not drawn", h->before_t0);
	if (h->beyond)
		fprintf(f, ", %" PRIu64 " events more than 31 days later not drawn", h->beyond);
	fputs("</text>\n", f);
	{
		char note[512];
		rep_status_note(v, note, sizeof note);
		fprintf(f, "<text class=\"sub\" x=\"%d\" y=\"58\">", LEFT);
		rep_xml_put(f, note, strlen(note));
		fputs("</text>\n", f);
	}
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%zu\" height=\"%d\" fill=\"#f4f4f4\"/>\n", LEFT, TOP,
		cols * (size_t)cw, REP_HEAT_ROWS * CH);
	fputs("<g id=\"cells\" shape-rendering=\"crispEdges\">\n", f);
	for (k = 0; k < h->nsecs; k++) {
		c = h->sec[k].sec;
		for (r = 0; r < REP_HEAT_ROWS;) {
			int64_t x = cell(v, h, k * REP_HEAT_ROWS + r);
			int lv = level(x, max), neg = x < 0;
			size_t e = r + 1;
			char col[8];
			while (e < REP_HEAT_ROWS) {
				int64_t y = cell(v, h, k * REP_HEAT_ROWS + e);
				if (level(y, max) != lv || (y < 0) != neg)
					break;
				e++;
			}
			if (lv) {
				rep_heat_color(lv, LEVELS, neg, col);
				fprintf(f, "<rect x=\"%zu\" y=\"%zu\" width=\"%d\" height=\"%zu\" fill=\"%s\"/>\n",
					LEFT + c * (size_t)cw, TOP + r * CH, cw, (e - r) * CH, col);
			}
			r = e;
		}
	}
	fputs("</g>\n", f);
	/* The flame graph's time cut, if any. */
	if (v->cfg->has_from || v->cfg->has_to) {
		double t0 = (double)v->st->t0_s * 1e6;
		double x0 = v->from_us == INT64_MIN ? 0 : ((double)v->from_us - t0) / 1e6;
		double x1 = v->to_us == INT64_MAX ? (double)cols : ((double)v->to_us - t0) / 1e6;
		if (x0 < 0)
			x0 = 0;
		if (x1 > (double)cols)
			x1 = (double)cols;
		if (x1 > x0)
			fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"none\" "
				   "stroke=\"#1a4f8a\" stroke-width=\"2\"><title>--from/--to</title></rect>\n",
				LEFT + x0 * cw, TOP - 2, (x1 - x0) * cw, REP_HEAT_ROWS * CH + 4);
	}
	/* Axes: a tick at least 40 px apart, on a round number of seconds. */
	for (tick = 1; tick * (size_t)cw < 40;)
		tick = tick == 1 ? 2 : tick == 2 ? 5 : tick == 5 ? 10 : tick == 10 ? 30 : tick == 30 ? 60
			: tick * 2;
	for (c = 0; c <= cols; c += tick)
		fprintf(f, "<text x=\"%zu\" y=\"%d\" text-anchor=\"middle\">%zu</text>\n",
			LEFT + c * (size_t)cw, TOP + REP_HEAT_ROWS * CH + 14, c);
	for (r = 0; r <= REP_HEAT_ROWS; r += 10)
		fprintf(f, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\">%zu ms</text>\n", LEFT - 4,
			TOP + r * CH + 4, r * (1000 / REP_HEAT_ROWS));
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%.0f\">hover a cell; click two cells to pick a "
		   "range for --from/--to</text>\n", LEFT, H - 12);
	fputs("<rect id=\"cursor\" x=\"0\" y=\"0\" width=\"0\" height=\"0\"/>\n"
	      "<rect id=\"sel\" x=\"0\" y=\"0\" width=\"0\" height=\"0\"/>\n", f);
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\nwindow.FPH={x:%d,y:%d,cw:%d,ch:%d,"
		   "cols:%zu,rows:%d,wname:\"",
		LEFT, TOP, cw, CH, cols, REP_HEAT_ROWS);
	fp_json_put(f, v->weight_name, strlen(v->weight_name)); /* no ']]>' possible: a metric name */
	fputs("\",n:{", f);
	columns(f, h, 0);
	fputs("},w:", f);
	if (v->weighted) {
		fputc('{', f);
		columns(f, h, 1);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	fprintf(f, "};\n%s]]></script>\n</svg>\n", rep_heat_js);
	return 0;
}
