/*
 * rep_main.c - `flameprof report` once the front door (cli/report_opts.c)
 * has its config: the stages in order (rep_run.h): input (rep_read.c)
 * into the collector (aggregation), then the writers (rep_writers.c). It
 * prints nothing: a failure is a REP_E_* code and one sentence in the
 * caller's buffer, and what the report says on the way (warnings, the
 * summary) goes to the caller's cfg->say.
 */
#include "report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rep_collect.h"
#include "rep_config.h"
#include "rep_diff.h"
#include "rep_files.h"
#include "rep_html.h"
#include "rep_order.h"
#include "rep_pprof.h"
#include "rep_read.h"
#include "rep_run.h"
#include "rep_writers.h"
#include "../common/names.h"

int rep_fail(struct rep_run *r, int st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, r->cap, fmt, ap);
	va_end(ap);
	return st;
}

void rep_say(struct rep_run *r, enum rep_say kind, const char *fmt, ...)
{
	char text[8192];
	va_list ap;
	if (!r->cfg->say)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	r->cfg->say(r->cfg->say_arg, kind, text);
}

/* One capture read and aggregated: DIR, or --diff's BASE. */
struct side {
	struct rep_file *files;
	size_t nfiles;
	rep_collect *c;
	rep_pprof *pp;
	rep_html *events; /* a REP_W_EVENTS writer's: every kept event */
	struct rep_order order;
	int names;  /* REP_NAMES_*: the spelling its frames were drawn in */
};

static void side_free(struct side *s)
{
	rep_order_free(&s->order);
	rep_pprof_free(s->pp);
	rep_html_free(s->events);
	rep_collect_free(s->c);
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i].path);
	free(s->files);
}

/* "12.50 s" of a time cut relative to the capture's start. */
static double rel_s(const struct rep_stats *st, int64_t us)
{
	return (double)(us - st->t0_s * 1000000) / 1e6;
}

/* Seconds as they were typed: "1795690551", "12.5". @return buf. */
static char *secs(char buf[40], int64_t us)
{
	int64_t a = us < 0 ? -us : us;
	int n = snprintf(buf, 40, "%s%lld.%06lld", us < 0 ? "-" : "", (long long)(a / 1000000),
			 (long long)(a % 1000000));
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = 0;
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = 0;
	return buf;
}

/* A --from/--to that misses the capture is said, with the capture's span
 * (and the '@' a Unix time needs), rather than drawing nothing.
 * @return 0 or REP_E_USAGE. */
static int cut_misses(struct rep_run *r, rep_collect *c, const char *what)
{
	const struct rep_config *cfg = r->cfg;
	const struct rep_stats *st = rep_collect_stats(c);
	int64_t from, to;
	rep_collect_range(c, &from, &to);
	if (!(cfg->has_from || cfg->has_to) || (to > st->first_us && from <= st->last_us))
		return 0;
	int from_out = from > st->last_us;
	int64_t v = from_out ? cfg->from_us : cfg->to_us;
	int abs = from_out ? cfg->from_abs : cfg->to_abs;
	/* a relative second past 2001 is the heatmap's Unix second, typed without '@' */
	char typed[40];
	if (!abs && v >= 1000000000LL * 1000000)
		return rep_fail(r, REP_E_USAGE, "--%s %s counts seconds from the start of %s; for a Unix "
				"time write --%s @%s (it spans @%.2f to @%.2f, seconds %.2f to %.2f)",
				from_out ? "from" : "to", secs(typed, v), what, from_out ? "from" : "to", typed,
				(double)st->first_us / 1e6, (double)st->last_us / 1e6,
				rel_s(st, st->first_us), rel_s(st, st->last_us));
	return rep_fail(r, REP_E_USAGE, "--from/--to cut outside %s, which spans seconds %.2f to %.2f "
			"(@%.2f to @%.2f): choose a range inside it", what, rel_s(st, st->first_us),
			rel_s(st, st->last_us), (double)st->first_us / 1e6, (double)st->last_us / 1e6);
}

/* Input and aggregation of one capture (r->cfg's inputs) into s: the
 * files, the collector, its frames sorted. @return 0 or a REP_E_* code. */
static int read_side(struct rep_run *r, struct side *s)
{
	const struct rep_config *cfg = r->cfg;
	char detail[512];
	size_t i, indexed = 0, idle = 0;
	enum rep_c_err cerr;
	int64_t t0;
	int rc;
	if ((rc = rep_read_gather(r, &s->files, &s->nfiles)) != 0)
		return rc;
	struct rep_file *files = s->files;
	size_t nfiles = s->nfiles;
	/* idle records (rot_close_idle()): the nodes profiled that wrote no
	 * event are named, so that a reader sees every node the run had */
	for (i = 0; i < nfiles; i++)
		if (files[i].idle[0] && idle++ < 10 && !cfg->quiet)
			rep_say(r, REP_SAY_INFO, "'%s' was profiled and idle: %s ('%s' holds no event)",
			    files[i].node[0] ? files[i].node : "?", files[i].idle, files[i].path);
	if (idle > 10 && !cfg->quiet)
		rep_say(r, REP_SAY_INFO, "... and %zu more idle records", idle - 10);
	rep_collect *c = s->c = rep_collect_create(cfg, &cerr, detail, sizeof detail);
	if (!c)
		return rep_fail(r, cerr == REP_C_USAGE ? REP_E_USAGE : REP_E_NOMEM, "cannot start: %s", detail);
	if ((t0 = rep_files_t0(files, nfiles)) != REP_NO_TIME)
		rep_collect_set_t0(c, t0);
	int elixir = s->names = rep_read_names(cfg, files, nfiles);
	rep_frames_set_elixir(rep_collect_frames(c), elixir == REP_NAMES_ELIXIR);
	const struct rep_writer *w = rep_writer(cfg->format);
	if (w->needs & REP_W_HEAT)
		rep_collect_want_heat(c);
	if (w->needs & REP_W_PPROF) {
		if (!(s->pp = rep_pprof_create()))
			return rep_fail(r, REP_E_NOMEM, "cannot start: out of memory");
		rep_collect_on_kept(c, rep_pprof_kept, s->pp);
	}
	if (w->needs & REP_W_EVENTS) {
		if (!(s->events = rep_html_create()))
			return rep_fail(r, REP_E_NOMEM, "cannot start: out of memory");
		rep_collect_on_kept(c, rep_html_kept, s->events);
	}
	int by_node = !(w->needs & REP_W_PPROF) && rep_files_nodes(files, nfiles, NULL, 0) > 1;
	if ((rc = rep_read_all(r, c, files, nfiles, s->pp, by_node, elixir == REP_NAMES_EACH, &indexed)) != 0)
		return rc;
	const struct rep_stats *st = rep_collect_stats(c);
	if (!cfg->quiet && st->events)
		rep_say(r, REP_SAY_INFO, "read %llu events from %zu file%s (%zu through the report index)",
		    (unsigned long long)st->events, nfiles, nfiles == 1 ? "" : "s", indexed);
	if (!cfg->quiet && st->events && elixir == REP_NAMES_ELIXIR)
		rep_say(r, REP_SAY_INFO, "frames in Elixir's names (%s; --names erlang for Erlang's)",
		    cfg->names == FP_NAMES_ELIXIR ? "--names elixir" : "the capture's choice");
	if (!cfg->quiet && st->events && elixir == REP_NAMES_EACH)
		rep_say(r, REP_SAY_INFO, "frames in each node's own language, as its capture chose (--names "
		    "elixir or --names erlang draws all in one)");
	if (st->events == 0 && idle == nfiles)
		return rep_fail(r, REP_E_DATA, "%s only idle records (nodes profiled while they did no work): nothing "
			  "to draw", nfiles > 1 ? "the files hold" : "the file holds");
	if (st->events == 0)
		return rep_fail(r, REP_E_DATA, "cannot find any event in %s'%s' (is it perf script text?)",
			  nfiles > 1 ? "the files from " : "",
			  nfiles > 1 ? cfg->inputs[0] : files[0].path);
	if (st->bad_lines)
		rep_say(r, REP_SAY_WARN, "skipped %llu lines that are not perf script text",
		    (unsigned long long)st->bad_lines);
	if (st->no_metric)
		rep_say(r, REP_SAY_WARN, "%llu events lack the '%s' metric and weigh 0",
		    (unsigned long long)st->no_metric, rep_collect_weight_name(c));
	if (st->used == 0) {
		char what[300];
		snprintf(what, sizeof what, "the capture in '%s'", cfg->ninputs == 1 ? cfg->inputs[0] :
			 files[0].path);
		if ((rc = cut_misses(r, c, cfg->ninputs == 1 ? what : "the capture")) != 0)
			return rc;
		rep_say(r, REP_SAY_WARN, "no event matched the filters and time range (of %llu read)",
		    (unsigned long long)st->events);
	}
	rep_collect_finish(c);
	if (rep_order_build(&s->order, rep_collect_trie(c), rep_collect_frames(c)) != 0)
		return rep_fail(r, REP_E_NOMEM, "cannot sort the frames: out of memory");
	return 0;
}

int report_run(const struct rep_config *asked, char *err, size_t errcap)
{
	/* the page holds every status unless --status says: it switches
	 * between on-CPU and wall-clock itself (not with --heatmap, whose SVG
	 * shows what --status keeps) */
	struct rep_config all = *asked;
	const struct rep_config *cfg = asked;
	if ((rep_writer(asked->format)->needs & REP_W_EVENTS) && asked->status_default && !asked->heatmap) {
		all.status = NULL;
		all.status_default = 0;
		cfg = &all;
	}
	struct rep_run run = { cfg, err, errcap }, *r = &run;
	struct side dir, base;
	struct rep_diff diff = { .base_name = cfg->diff_base };
	int rc;

	memset(&dir, 0, sizeof dir);
	memset(&base, 0, sizeof base);
	if (errcap)
		*err = 0;
	if ((rc = read_side(r, &dir)) != 0)
		goto out;
	if (cfg->diff_base) {
		/* BASE through the same filters, cut and weight as DIR */
		struct rep_config bcfg = *cfg;
		struct rep_run br = { &bcfg, err, errcap };
		bcfg.inputs = &cfg->diff_base;
		bcfg.ninputs = 1;
		bcfg.heatmap = NULL;
		/* BASE in DIR's spelling, so that a frame is the same frame on both sides */
		if (dir.names != REP_NAMES_EACH)
			bcfg.names = dir.names == REP_NAMES_ELIXIR ? FP_NAMES_ELIXIR : FP_NAMES_ERLANG;
		if ((rc = read_side(&br, &base)) != 0)
			goto out;
		rep_frames_set_elixir(rep_collect_frames(dir.c), dir.names == REP_NAMES_ELIXIR);
		if (rep_diff_build(&diff, rep_collect_trie(dir.c), rep_collect_frames(dir.c),
				   rep_collect_trie(base.c), rep_collect_frames(base.c),
				   rep_collect_weighted(dir.c)) != 0) {
			rc = rep_fail(r, REP_E_NOMEM, "cannot compare the captures: out of memory");
			goto out;
		}
		diff.base_trie = rep_collect_trie(base.c);
		diff.base_st = rep_collect_stats(base.c);
		diff.base_events = base.events;
	}
	{
		rep_collect *c = dir.c;
		struct rep_view v = { .cfg = cfg, .frames = rep_collect_frames(c), .trie = rep_collect_trie(c),
				      .order = &dir.order, .st = rep_collect_stats(c),
				      .weight_name = rep_collect_weight_name(c),
				      .weighted = rep_collect_weighted(c), .pprof = dir.pp, .events = dir.events,
				      .diff = cfg->diff_base ? &diff : NULL };
		struct rep_heat heat;
		rep_collect_range(c, &v.from_us, &v.to_us);
		if (rep_collect_heat(c, &heat) != 0) {
			rc = rep_fail(r, REP_E_NOMEM, "cannot draw the heatmap: out of memory");
			goto out;
		}
		v.heat = &heat;
		rc = rep_write_outputs(r, &v);
	}
out:
	rep_diff_free(&diff);
	side_free(&base);
	side_free(&dir);
	return rc;
}
