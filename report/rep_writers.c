/*
 * rep_writers.c - the writers stage (rep_writers.h): the table of output
 * formats, and writing and publishing a run's outputs through it.
 */
#include "rep_writers.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"
#include "../rotate/outfile.h"

static int heatmap(FILE *f, const struct rep_view *v)
{
	return rep_write_heatmap(f, v, v->heat);
}

static int pprof(FILE *f, const struct rep_view *v)
{
	return rep_write_pprof(f, v, v->pprof);
}

/* One row per format; the first rows in enum rep_format's order. */
static const struct rep_writer WRITERS[] = {
	[REP_F_SVG] = { "svg", "flamegraph", ".svg", "flame graph", "; open it in a web browser",
			REP_W_NO_TTY, rep_write_flame },
	[REP_F_HEATMAP] = { "heatmap", NULL, "", "heatmap", "; open it in a web browser",
			    REP_W_HEAT | REP_W_NO_TTY, heatmap },
	[REP_F_FOLDED] = { "folded", "collapsed", ".folded .collapsed", "folded stacks", "", 0,
			   rep_write_folded },
	[REP_F_SPEEDSCOPE] = { "speedscope", NULL, ".speedscope.json", "speedscope profile",
			       "; open it at https://www.speedscope.app", 0, rep_write_speedscope },
	[REP_F_PPROF] = { "pprof", NULL, ".pb.gz .pprof", "pprof profile",
			  "; open it with go tool pprof -http=: FILE", REP_W_PPROF | REP_W_NO_TTY,
			  pprof },
	[REP_F_TOP] = { "top", NULL, "", "hottest functions", "", 0, rep_write_top },
	[REP_F_HTML] = { "html", NULL, ".html .htm", "page", "; open it in a web browser",
			 REP_W_EVENTS | REP_W_NO_TTY, rep_write_html },
};
#define NWRITERS (sizeof WRITERS / sizeof WRITERS[0])

const struct rep_writer *rep_writer(int fmt)
{
	return fmt >= 0 && (size_t)fmt < NWRITERS ? &WRITERS[fmt] : &WRITERS[0];
}

int report_format_find(const char *name)
{
	for (size_t i = 0; i < NWRITERS; i++)
		if (!strcmp(name, WRITERS[i].name) || (WRITERS[i].alias && !strcmp(name, WRITERS[i].alias)))
			return (int)i;
	return -1;
}

/* Whether path ends in one of the space-separated endings of exts. */
static int ends_in(const char *path, const char *exts)
{
	size_t pl = strlen(path);
	while (*exts) {
		size_t el = strcspn(exts, " ");
		if (el && el <= pl && !strncmp(path + pl - el, exts, el))
			return 1;
		exts += el + (exts[el] == ' ');
	}
	return 0;
}

int report_format_for_path(const char *path)
{
	int best = -1;
	size_t i;
	if (!path || !strcmp(path, "-"))
		return -1;
	for (i = 0; i < NWRITERS; i++)
		if (ends_in(path, WRITERS[i].exts))
			best = (int)i;
	return best;
}

void report_format_list(char *out, size_t cap)
{
	size_t used = 0;
	if (cap)
		*out = 0;
	for (size_t i = 0; i < NWRITERS && used < cap; i++) {
		const char *sep = i == 0 ? "" : i + 1 == NWRITERS ? " or " : ", ";
		int k = snprintf(out + used, cap - used, "%s%s", sep, WRITERS[i].name);
		if (k < 0)
			break;
		used += (size_t)k;
	}
}

int report_format_terminal_ok(int fmt)
{
	return !(rep_writer(fmt)->needs & REP_W_NO_TTY);
}

/* Writes one format into an output opened aside (rotate/outfile.h).
 * @return 0 or a REP_E_* code (its sentence left in r). */
static int write_one(struct rep_run *r, struct rot_out *o, const struct rep_view *v, int fmt)
{
	const struct rep_writer *w = rep_writer(fmt);
	if (w->write(o->f, v) != 0)
		return rep_fail(r, REP_E_NOMEM, "cannot write %s '%s': out of memory", w->what,
				o->path ? o->path : "-");
	return 0;
}

/* Publishes a written output and says so. @return 0 or a REP_E_* code. */
static int publish(struct rep_run *r, struct rot_out *o, int fmt, int quiet)
{
	const struct rep_writer *w = rep_writer(fmt);
	char *path = o->path ? strdup(o->path) : NULL;
	int to_file = o->path != NULL;
	if (to_file && !path) {
		rot_out_abort(o);
		return rep_fail(r, REP_E_NOMEM, "cannot write %s: out of memory", w->what);
	}
	if (rot_out_commit(o, r->err, r->cap) != 0) {
		free(path);
		return REP_E_IO;
	}
	if (!quiet && to_file) {
		struct stat st;
		long long kb = stat(path, &st) == 0 ? (long long)(st.st_size + 1023) / 1024 : 0;
		rep_say(r, REP_SAY_INFO, "wrote %s '%s' (%lld KiB)%s", w->what, path, kb, w->hint);
	}
	free(path);
	return 0;
}

int rep_write_outputs(struct rep_run *r, const struct rep_view *v)
{
	const struct rep_config *cfg = r->cfg;
	struct rot_out out, hm;
	int rc;
	memset(&hm, 0, sizeof hm);
	if (rot_out_open(&out, cfg->output, r->err, r->cap) != 0)
		return REP_E_CANTCREAT;
	if (cfg->heatmap && rot_out_open(&hm, cfg->heatmap, r->err, r->cap) != 0) {
		rot_out_abort(&out);
		return REP_E_CANTCREAT;
	}
	rc = write_one(r, &out, v, cfg->format);
	if (rc == 0 && cfg->heatmap)
		rc = write_one(r, &hm, v, REP_F_HEATMAP);
	if (rc == 0)
		rc = publish(r, &out, cfg->format, cfg->quiet);
	if (rc == 0 && cfg->heatmap)
		rc = publish(r, &hm, REP_F_HEATMAP, cfg->quiet);
	rot_out_abort(&out);
	rot_out_abort(&hm);
	return rc;
}
