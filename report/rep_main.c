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

int report_run(const struct rep_config *asked, char *err, size_t errcap)
{
	const struct rep_writer *w = rep_writer(asked->format);
	/* the page holds every status unless --status says: it switches
	 * between on-CPU and wall-clock itself */
	struct rep_config all = *asked;
	const struct rep_config *cfg = asked;
	if ((w->needs & REP_W_EVENTS) && asked->status_default) {
		all.status = NULL;
		all.status_default = 0;
		cfg = &all;
	}
	struct rep_run run = { cfg, err, errcap }, *r = &run;
	char detail[512];
	struct rep_file *files = NULL;
	size_t nfiles = 0, i, indexed = 0;
	rep_collect *c = NULL;
	rep_pprof *pp = NULL;
	rep_html *events = NULL;
	enum rep_c_err cerr;
	struct rep_order order = { 0 };
	int64_t t0;
	int rc = 0;

	if (errcap)
		*err = 0;
	if ((rc = rep_read_gather(r, &files, &nfiles)) != 0)
		goto out;
	/* idle records (rot_close_idle()): the nodes profiled that wrote no
	 * event are named, so that a reader sees every node the run had */
	size_t idle = 0;
	for (i = 0; i < nfiles; i++)
		if (files[i].idle[0] && idle++ < 10 && !cfg->quiet)
			rep_say(r, REP_SAY_INFO, "'%s' was profiled and idle: %s ('%s' holds no event)",
			    files[i].node[0] ? files[i].node : "?", files[i].idle, files[i].path);
	if (idle > 10 && !cfg->quiet)
		rep_say(r, REP_SAY_INFO, "... and %zu more idle records", idle - 10);
	c = rep_collect_create(cfg, &cerr, detail, sizeof detail);
	if (!c) {
		rc = rep_fail(r, cerr == REP_C_USAGE ? REP_E_USAGE : REP_E_NOMEM, "cannot start: %s", detail);
		goto out;
	}
	if ((t0 = rep_files_t0(files, nfiles)) != REP_NO_TIME)
		rep_collect_set_t0(c, t0);
	int elixir = rep_read_names(cfg, files, nfiles);
	rep_frames_set_elixir(rep_collect_frames(c), elixir == REP_NAMES_ELIXIR);
	if (w->needs & REP_W_HEAT)
		rep_collect_want_heat(c);
	if (w->needs & REP_W_PPROF) {
		if (!(pp = rep_pprof_create())) {
			rc = rep_fail(r, REP_E_NOMEM, "cannot start: out of memory");
			goto out;
		}
		rep_collect_on_kept(c, rep_pprof_kept, pp);
	}
	if (w->needs & REP_W_EVENTS) {
		if (!(events = rep_html_create())) {
			rc = rep_fail(r, REP_E_NOMEM, "cannot start: out of memory");
			goto out;
		}
		rep_collect_on_kept(c, rep_html_kept, events);
	}
	int by_node = !(w->needs & REP_W_PPROF) && rep_files_nodes(files, nfiles, NULL, 0) > 1;
	if ((rc = rep_read_all(r, c, files, nfiles, pp, by_node, elixir == REP_NAMES_EACH, &indexed)) != 0)
		goto out;
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
	if (st->events == 0 && idle == nfiles) {
		rc = rep_fail(r, REP_E_DATA, "%s only idle records (nodes profiled while they did no work): nothing "
			  "to draw", nfiles > 1 ? "the files hold" : "the file holds");
		goto out;
	}
	if (st->events == 0) {
		rc = rep_fail(r, REP_E_DATA, "cannot find any event in %s'%s' (is it perf script text?)",
			  nfiles > 1 ? "the files from " : "",
			  nfiles > 1 ? cfg->inputs[0] : files[0].path);
		goto out;
	}
	if (st->bad_lines)
		rep_say(r, REP_SAY_WARN, "skipped %llu lines that are not perf script text",
		    (unsigned long long)st->bad_lines);
	if (st->no_metric)
		rep_say(r, REP_SAY_WARN, "%llu events lack the '%s' metric and weigh 0",
		    (unsigned long long)st->no_metric, rep_collect_weight_name(c));
	if (st->used == 0)
		rep_say(r, REP_SAY_WARN, "no event matched the filters and time range (of %llu read)",
		    (unsigned long long)st->events);
	rep_collect_finish(c);
	if (rep_order_build(&order, rep_collect_trie(c), rep_collect_frames(c)) != 0) {
		rc = rep_fail(r, REP_E_NOMEM, "cannot sort the frames: out of memory");
		goto out;
	}
	{
		struct rep_view v = { cfg, rep_collect_frames(c), rep_collect_trie(c), &order, st,
				      rep_collect_weight_name(c), rep_collect_weighted(c), 0, 0, NULL, pp, events };
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
	rep_order_free(&order);
	rep_pprof_free(pp);
	rep_html_free(events);
	rep_collect_free(c);
	for (i = 0; i < nfiles; i++)
		free(files[i].path);
	free(files);
	return rc;
}
