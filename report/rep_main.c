/*
 * rep_main.c - `flameprof report` once the front door (cli/report_opts.c)
 * has its config: inputs through the collector, then the writers. It prints
 * nothing: a failure is a REP_E_* code and one sentence in the caller's
 * buffer, and what the report says on the way (warnings, the summary) goes
 * to the caller's cfg->say.
 */
#include "report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rep_collect.h"
#include "rep_config.h"
#include "rep_files.h"
#include "rep_index_read.h"
#include "rep_input.h"
#include "rep_names.h"
#include "rep_order.h"
#include "rep_pprof.h"
#include "rep_text.h"
#include "rep_write.h"
#include "../common/grow.h"
#include "../rotate/outfile.h"

/* One run: what was asked, and where its failure's sentence goes. */
struct run {
	const struct rep_config *cfg;
	char *err;
	size_t cap;
};

/* Leaves the failure's one sentence for the front door. @return st. */
__attribute__((format(printf, 3, 4))) static int fail(struct run *r, int st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, r->cap, fmt, ap);
	va_end(ap);
	return st;
}

/* Hands a warning or a summary line to the front door's cfg->say. */
__attribute__((format(printf, 3, 4))) static void say(struct run *r, enum rep_say kind,
						      const char *fmt, ...)
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

/* Says what went wrong when the collector failed (rc a REP_C_* code, or
 * any out-of-memory code given as REP_C_NOMEM), by either reading.
 * @return a REP_E_* code, or 0 when rc is not a failure. */
static int collect_failed(struct run *r, rep_collect *c, const char *path, int rc)
{
	if (rc == REP_C_METRIC || rc == REP_C_USAGE)
		return fail(r, REP_E_USAGE, "cannot weight by '%s': %s", r->cfg->weight,
			    rep_collect_error(c));
	if (rc == REP_C_NOMEM)
		return fail(r, REP_E_NOMEM, "cannot read '%s': out of memory (cut it with --from/--to?)",
			    path);
	if (rc == REP_C_DATA)
		return fail(r, REP_E_DATA, "cannot read '%s': %s (is it a flameprof capture?)", path,
			    rep_collect_error(c));
	return 0;
}

/* Says what went wrong reading a file's text (rin from rep_input_line),
 * or warns that it was cut short. @return a REP_E_* code, or 0. */
static int input_failed(struct run *r, rep_input *in, const char *path, int rin)
{
	if (rin == REP_IN_OPEN)
		return fail(r, REP_E_NOINPUT, "cannot read '%s': %s", path, rep_input_error(in));
	if (rin == REP_IN_CORRUPT)
		return fail(r, REP_E_DATA, "cannot decode '%s': %s (is it a flameprof file?)", path,
			    rep_input_error(in));
	if (rep_input_truncated(in))
		say(r, REP_SAY_WARN, "'%s' ends inside a %s frame (cut short by a crash?); using what "
		    "decoded", path, rep_input_codec(in));
	return 0;
}

/* Through the file's report index, if it has a sound one: *done says
 * whether it was. @return 0 or a REP_E_* code. */
static int read_index(struct run *r, rep_collect *c, const char *path, int *done)
{
	char detail[256];
	uint64_t n;
	int rc = rep_index_read(c, path, &n, detail, sizeof detail);
	*done = rc == 1;
	if (rc == 1)
		return 0;
	if (rc == REP_IX_NONE) {
		if (*detail)
			say(r, REP_SAY_WARN, "the report index in '%s' is not usable (%s); reading its "
			    "text", path, detail);
		return 0;
	}
	if (rc == REP_IX_CORRUPT)
		return fail(r, REP_E_DATA, "cannot decode the report index in '%s': %s (read its text "
			    "with --no-index)", path, detail);
	return collect_failed(r, c, path, rc == REP_IX_NOMEM ? REP_C_NOMEM : rc);
}

/* Reads one file into the collector; *indexed counts the files read
 * through their index. @return 0 or a REP_E_* code. */
static int read_file(struct run *r, rep_collect *c, const char *path, size_t *indexed)
{
	enum rep_in_err e;
	char detail[256];
	const char *line;
	size_t len;
	int rin, rc = 0, status = 0, done = 0;
	rep_input *in;
	if (!r->cfg->no_index && ((status = read_index(r, c, path, &done)) != 0 || done)) {
		*indexed += (size_t)done;
		return status;
	}
	in = rep_input_open(path, &e, detail, sizeof detail);
	if (!in)
		return fail(r, e == REP_IN_NOMEM ? REP_E_NOMEM : REP_E_NOINPUT,
			    "cannot open '%s': %s (check the path and permissions)", path, detail);
	while ((rin = rep_input_line(in, &line, &len)) > 0)
		if ((rc = rep_collect_line(c, line, len)) < 0)
			break;
	if (rin == 0 && rc == 0)
		rc = rep_collect_end_file(c);
	status = collect_failed(r, c, path, rin == REP_IN_NOMEM ? REP_C_NOMEM : rc);
	if (status == 0)
		status = input_failed(r, in, path, rin);
	rep_input_close(in);
	return status;
}

/* by_node: each file's events under a frame node:NAME (files of several
 * nodes drawn together; pprof has a node label instead). each_names: each
 * file's frames in the spelling its header asks for. */
static int read_all(struct run *r, rep_collect *c, const struct rep_file *files, size_t n,
		    rep_pprof *pp, int by_node, int each_names, size_t *indexed)
{
	for (size_t i = 0; i < n; i++) {
		int rc;
		if (each_names)
			rep_frames_set_elixir(rep_collect_frames(c), files[i].names == FP_NAMES_ELIXIR);
		if (by_node && rep_collect_set_node(c, files[i].node) != 0)
			return collect_failed(r, c, files[i].path, REP_C_NOMEM);
		if (pp && rep_pprof_set_node(pp, files[i].node) != 0)
			return collect_failed(r, c, files[i].path, REP_C_NOMEM);
		if ((rc = read_file(r, c, files[i].path, indexed)) != 0)
			return rc;
	}
	return 0;
}

/* --node keeps the files of the nodes it names, and a name no file has is
 * an error; without it every node's files are read, with a word when
 * they come from several (each then under a frame node:NAME). @return 0
 * or a REP_E_* code. */
static int pick_nodes(struct run *r, struct rep_file *files, size_t *n)
{
	const struct rep_config *cfg = r->cfg;
	char list[512], missing[256], where[300];
	size_t nodes = rep_files_nodes(files, *n, list, sizeof list);
	if (cfg->ninputs == 1)
		snprintf(where, sizeof where, "'%s'", cfg->inputs[0]);
	else
		snprintf(where, sizeof where, "the inputs");
	if (rep_files_missing_node(files, *n, cfg->nodes, cfg->nnodes, missing, sizeof missing))
		return fail(r, REP_E_NOINPUT, "cannot find files of node '%s' in %s (%s %s; see --node)",
			    missing, where, cfg->ninputs == 1 ? "it holds" : "they hold", list);
	*n = rep_files_keep_nodes(files, *n, cfg->nodes, cfg->nnodes);
	if (cfg->nnodes == 0 && nodes > 1 && !cfg->quiet)
		say(r, REP_SAY_INFO, "%s %s the files of %zu nodes (%s); drawing them together, each "
		    "under a frame node:NAME (--node NODE draws one)", where,
		    cfg->ninputs == 1 ? "holds" : "hold", nodes, list);
	return 0;
}

/* Expands the inputs into files in time order (see rep_files.h); sets the
 * collector's time origin to the earliest first event. @return 0 or a
 * REP_E_* code. */
static int gather(struct run *r, struct rep_file **out, size_t *nout)
{
	const struct rep_config *cfg = r->cfg;
	struct rep_file *files = NULL;
	size_t n = 0, cap = 0, i;
	char detail[512];
	int rc = 0;
	for (i = 0; i < cfg->ninputs && rc == 0; i++) {
		char **paths = NULL;
		size_t np = 0, pcap = 0, j;
		long k = rep_input_expand(cfg->inputs[i], &paths, &np, &pcap, detail, sizeof detail);
		if (k < 0)
			rc = fail(r, REP_E_NOINPUT, "cannot open '%s': %s (check the path)",
				  cfg->inputs[i], detail);
		else if (k == 0)
			rc = fail(r, REP_E_NOINPUT, "cannot find flameprof_*.perf* files in '%s' (is it "
				  "flameprof's output directory?)", cfg->inputs[i]);
		else if (fp_grow((void **)&files, &cap, n + np, sizeof *files, 16) != 0)
			rc = fail(r, REP_E_NOMEM, "cannot start: out of memory");
		for (j = 0; j < np; j++) {
			const char *base = strrchr(paths[j], '/');
			if (rc == 0 && base && base[1] == '.')
				say(r, REP_SAY_INFO, "reading '%s', the file of a run that died before giving "
				    "it its name (flameprof's next run into '%s' renames it)", paths[j],
				    cfg->inputs[i]);
			if (rc == 0) {
				memset(&files[n], 0, sizeof files[n]);
				files[n].path = paths[j];
				rep_file_name(&files[n++]);
			} else {
				free(paths[j]);
			}
		}
		free(paths);
	}
	if (rc == 0)
		rc = pick_nodes(r, files, &n);
	for (i = 0; i < n && rc == 0; i++)
		rep_file_first_event(&files[i]);
	if (rc == 0)
		rep_files_sort(files, n);
	*out = files;
	*nout = n;
	return rc;
}

/* Whether the frames are drawn in Elixir's spelling: as --names says, else
 * as the capture chose (the files' headers). @return NAMES_ERLANG,
 * NAMES_ELIXIR, or NAMES_EACH: files of Elixir nodes and of Erlang nodes
 * (a cluster's directory), each file drawn in its own node's spelling. */
enum { NAMES_ERLANG, NAMES_ELIXIR, NAMES_EACH };
static int elixir_names(const struct rep_config *cfg, const struct rep_file *files, size_t n)
{
	size_t elixir = 0;
	if (cfg->names != FP_NAMES_AUTO)
		return cfg->names == FP_NAMES_ELIXIR ? NAMES_ELIXIR : NAMES_ERLANG;
	for (size_t i = 0; i < n; i++)
		elixir += files[i].names == FP_NAMES_ELIXIR;
	return elixir == 0 ? NAMES_ERLANG : elixir == n ? NAMES_ELIXIR : NAMES_EACH;
}

/* Writes one format into an output opened aside (rotate/outfile.h).
 * @return 0 or a REP_E_* code (its sentence left in r). */
static int write_one(struct run *r, struct rot_out *o, const char *what, const struct rep_view *v,
		     const struct rep_heat *heat, const rep_pprof *pp, enum rep_format fmt)
{
	int rc;
	switch (fmt) {
	case REP_F_SVG: rc = rep_write_flame(o->f, v); break;
	case REP_F_HEATMAP: rc = rep_write_heatmap(o->f, v, heat); break;
	case REP_F_FOLDED: rc = rep_write_folded(o->f, v); break;
	case REP_F_PPROF: rc = rep_write_pprof(o->f, v, pp); break;
	default: rc = rep_write_speedscope(o->f, v); break;
	}
	if (rc != 0)
		return fail(r, REP_E_NOMEM, "cannot write %s '%s': out of memory", what,
			    o->path ? o->path : "-");
	return 0;
}

/* Publishes a written output and says so. @return 0 or a REP_E_* code. */
static int publish(struct run *r, struct rot_out *o, const char *what, enum rep_format fmt,
		   int quiet)
{
	char *path = o->path ? strdup(o->path) : NULL;
	int to_file = o->path != NULL;
	if (to_file && !path) {
		rot_out_abort(o);
		return fail(r, REP_E_NOMEM, "cannot write %s: out of memory", what);
	}
	if (rot_out_commit(o, r->err, r->cap) != 0) {
		free(path);
		return REP_E_IO;
	}
	if (!quiet && to_file) {
		struct stat st;
		long long kb = stat(path, &st) == 0 ? (long long)(st.st_size + 1023) / 1024 : 0;
		say(r, REP_SAY_INFO, "wrote %s '%s' (%lld KiB)%s", what, path, kb,
		    fmt == REP_F_SVG || fmt == REP_F_HEATMAP ? "; open it in a web browser"
		    : fmt == REP_F_SPEEDSCOPE ? "; open it at https://www.speedscope.app"
		    : fmt == REP_F_PPROF ? "; open it with go tool pprof -http=: FILE" : "");
	}
	free(path);
	return 0;
}

/* Both outputs written aside, then both published: a run that fails
 * leaves every existing file as it was. @return 0 or a REP_E_* code. */
static int write_outputs(struct run *r, const struct rep_view *v, const struct rep_heat *heat,
			 const rep_pprof *pp, const char *what)
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
	rc = write_one(r, &out, what, v, heat, pp, cfg->format);
	if (rc == 0 && cfg->heatmap)
		rc = write_one(r, &hm, "heatmap", v, heat, pp, REP_F_HEATMAP);
	if (rc == 0)
		rc = publish(r, &out, what, cfg->format, cfg->quiet);
	if (rc == 0 && cfg->heatmap)
		rc = publish(r, &hm, "heatmap", REP_F_HEATMAP, cfg->quiet);
	rot_out_abort(&out);
	rot_out_abort(&hm);
	return rc;
}

static const char *format_name(enum rep_format f)
{
	return f == REP_F_SVG ? "flame graph" : f == REP_F_HEATMAP ? "heatmap"
		: f == REP_F_FOLDED ? "folded stacks" : f == REP_F_PPROF ? "pprof profile"
		: "speedscope profile";
}

int report_run(const struct rep_config *cfg, char *err, size_t errcap)
{
	struct run run = { cfg, err, errcap }, *r = &run;
	char detail[512];
	struct rep_file *files = NULL;
	size_t nfiles = 0, i, indexed = 0;
	rep_collect *c = NULL;
	rep_pprof *pp = NULL;
	enum rep_c_err cerr;
	struct rep_order order = { 0 };
	int64_t t0;
	int rc = 0;

	if (errcap)
		*err = 0;
	if ((rc = gather(r, &files, &nfiles)) != 0)
		goto out;
	/* idle records (rot_close_idle()): the nodes profiled that wrote no
	 * event are named, so that a reader sees every node the run had */
	size_t idle = 0;
	for (i = 0; i < nfiles; i++)
		if (files[i].idle[0] && idle++ < 10 && !cfg->quiet)
			say(r, REP_SAY_INFO, "'%s' was profiled and idle: %s ('%s' holds no event)",
			    files[i].node[0] ? files[i].node : "?", files[i].idle, files[i].path);
	if (idle > 10 && !cfg->quiet)
		say(r, REP_SAY_INFO, "... and %zu more idle records", idle - 10);
	c = rep_collect_create(cfg, &cerr, detail, sizeof detail);
	if (!c) {
		rc = fail(r, cerr == REP_C_USAGE ? REP_E_USAGE : REP_E_NOMEM, "cannot start: %s", detail);
		goto out;
	}
	if ((t0 = rep_files_t0(files, nfiles)) != REP_NO_TIME)
		rep_collect_set_t0(c, t0);
	int elixir = elixir_names(cfg, files, nfiles);
	rep_frames_set_elixir(rep_collect_frames(c), elixir == NAMES_ELIXIR);
	if (cfg->format == REP_F_PPROF) {
		if (!(pp = rep_pprof_create())) {
			rc = fail(r, REP_E_NOMEM, "cannot start: out of memory");
			goto out;
		}
		rep_collect_on_kept(c, rep_pprof_kept, pp);
	}
	int by_node = cfg->format != REP_F_PPROF && rep_files_nodes(files, nfiles, NULL, 0) > 1;
	if ((rc = read_all(r, c, files, nfiles, pp, by_node, elixir == NAMES_EACH, &indexed)) != 0)
		goto out;
	const struct rep_stats *st = rep_collect_stats(c);
	if (!cfg->quiet && st->events)
		say(r, REP_SAY_INFO, "read %llu events from %zu file%s (%zu through the report index)",
		    (unsigned long long)st->events, nfiles, nfiles == 1 ? "" : "s", indexed);
	if (!cfg->quiet && st->events && elixir == NAMES_ELIXIR)
		say(r, REP_SAY_INFO, "frames in Elixir's names (%s; --names erlang for Erlang's)",
		    cfg->names == FP_NAMES_ELIXIR ? "--names elixir" : "the capture's choice");
	if (!cfg->quiet && st->events && elixir == NAMES_EACH)
		say(r, REP_SAY_INFO, "frames in each node's own language, as its capture chose (--names "
		    "elixir or --names erlang draws all in one)");
	if (st->events == 0 && idle == nfiles) {
		rc = fail(r, REP_E_DATA, "%s only idle records (nodes profiled while they did no work): nothing "
			  "to draw", nfiles > 1 ? "the files hold" : "the file holds");
		goto out;
	}
	if (st->events == 0) {
		rc = fail(r, REP_E_DATA, "cannot find any event in %s'%s' (is it perf script text?)",
			  nfiles > 1 ? "the files from " : "",
			  nfiles > 1 ? cfg->inputs[0] : files[0].path);
		goto out;
	}
	if (st->bad_lines)
		say(r, REP_SAY_WARN, "skipped %llu lines that are not perf script text",
		    (unsigned long long)st->bad_lines);
	if (st->no_metric)
		say(r, REP_SAY_WARN, "%llu events lack the '%s' metric and weigh 0",
		    (unsigned long long)st->no_metric, rep_collect_weight_name(c));
	if (st->used == 0)
		say(r, REP_SAY_WARN, "no event matched the filters and time range (of %llu read)",
		    (unsigned long long)st->events);
	rep_collect_finish(c);
	if (rep_order_build(&order, rep_collect_trie(c), rep_collect_frames(c)) != 0) {
		rc = fail(r, REP_E_NOMEM, "cannot sort the frames: out of memory");
		goto out;
	}
	{
		struct rep_view v = { cfg, rep_collect_frames(c), rep_collect_trie(c), &order, st,
				      rep_collect_weight_name(c), rep_collect_weighted(c), 0, 0 };
		struct rep_heat heat;
		rep_collect_range(c, &v.from_us, &v.to_us);
		if (rep_collect_heat(c, &heat) != 0) {
			rc = fail(r, REP_E_NOMEM, "cannot draw the heatmap: out of memory");
			goto out;
		}
		rc = write_outputs(r, &v, &heat, pp, format_name(cfg->format));
	}
out:
	rep_order_free(&order);
	rep_pprof_free(pp);
	rep_collect_free(c);
	for (i = 0; i < nfiles; i++)
		free(files[i].path);
	free(files);
	return rc;
}
