/*
 * rep_read.c - the report's input stage (rep_read.h): which files, in what
 * order, and each one through its report index or its text into the
 * collector, with the sentence that says what went wrong.
 */
#include "rep_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rep_index_read.h"
#include "rep_input.h"
#include "rep_names.h"
#include "report.h"
#include "../common/grow.h"

/* Says what went wrong when the collector failed (rc a REP_C_* code, or
 * any out-of-memory code given as REP_C_NOMEM), by either reading.
 * @return a REP_E_* code, or 0 when rc is not a failure. */
static int collect_failed(struct rep_run *r, rep_collect *c, const char *path, int rc)
{
	if (rc == REP_C_METRIC || rc == REP_C_USAGE)
		return rep_fail(r, REP_E_USAGE, "cannot weight by '%s': %s", r->cfg->weight,
			    rep_collect_error(c));
	if (rc == REP_C_NOMEM)
		return rep_fail(r, REP_E_NOMEM, "cannot read '%s': out of memory (cut it with --from/--to?)",
			    path);
	if (rc == REP_C_DATA)
		return rep_fail(r, REP_E_DATA, "cannot read '%s': %s (is it a flameprof capture?)", path,
			    rep_collect_error(c));
	return 0;
}

/* Says what went wrong reading a file's text (rin from rep_input_line),
 * or warns that it was cut short. @return a REP_E_* code, or 0. */
static int input_failed(struct rep_run *r, rep_input *in, const char *path, int rin)
{
	if (rin == REP_IN_OPEN)
		return rep_fail(r, REP_E_NOINPUT, "cannot read '%s': %s", path, rep_input_error(in));
	if (rin == REP_IN_CORRUPT)
		return rep_fail(r, REP_E_DATA, "cannot decode '%s': %s (is it a flameprof file?)", path,
			    rep_input_error(in));
	if (rep_input_truncated(in))
		rep_say(r, REP_SAY_WARN, "'%s' ends inside a %s frame (cut short by a crash?); using what "
		    "decoded", path, rep_input_codec(in));
	return 0;
}

/* Through the file's report index, if it has a sound one: *done says
 * whether it was. @return 0 or a REP_E_* code. */
static int read_index(struct rep_run *r, rep_collect *c, const char *path, int *done)
{
	char detail[256];
	uint64_t n;
	int rc = rep_index_read(c, path, &n, detail, sizeof detail);
	*done = rc == 1;
	if (rc == 1)
		return 0;
	if (rc == REP_IX_NONE) {
		if (*detail)
			rep_say(r, REP_SAY_WARN, "the report index in '%s' is not usable (%s); reading its "
			    "text", path, detail);
		return 0;
	}
	if (rc == REP_IX_CORRUPT)
		return rep_fail(r, REP_E_DATA, "cannot decode the report index in '%s': %s (read its text "
			    "with --no-index)", path, detail);
	return collect_failed(r, c, path, rc == REP_IX_NOMEM ? REP_C_NOMEM : rc);
}

/* Reads one file into the collector; *indexed counts the files read
 * through their index. @return 0 or a REP_E_* code. */
static int read_file(struct rep_run *r, rep_collect *c, const char *path, size_t *indexed)
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
		return rep_fail(r, e == REP_IN_NOMEM ? REP_E_NOMEM : REP_E_NOINPUT,
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

int rep_read_all(struct rep_run *r, rep_collect *c, const struct rep_file *files, size_t n,
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
static int pick_nodes(struct rep_run *r, struct rep_file *files, size_t *n)
{
	const struct rep_config *cfg = r->cfg;
	char list[512], missing[256], where[300];
	size_t nodes = rep_files_nodes(files, *n, list, sizeof list);
	if (cfg->ninputs == 1)
		snprintf(where, sizeof where, "'%s'", cfg->inputs[0]);
	else
		snprintf(where, sizeof where, "the inputs");
	if (rep_files_missing_node(files, *n, cfg->nodes, cfg->nnodes, missing, sizeof missing))
		return rep_fail(r, REP_E_NOINPUT, "cannot find files of node '%s' in %s (%s %s; see --node)",
			    missing, where, cfg->ninputs == 1 ? "it holds" : "they hold", list);
	*n = rep_files_keep_nodes(files, *n, cfg->nodes, cfg->nnodes);
	if (cfg->nnodes == 0 && nodes > 1 && !cfg->quiet)
		rep_say(r, REP_SAY_INFO, "%s %s the files of %zu nodes (%s); drawing them together, each "
		    "under a frame node:NAME (--node NODE draws one)", where,
		    cfg->ninputs == 1 ? "holds" : "hold", nodes, list);
	return 0;
}

int rep_read_gather(struct rep_run *r, struct rep_file **out, size_t *nout)
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
			rc = rep_fail(r, REP_E_NOINPUT, "cannot open '%s': %s (check the path)",
				  cfg->inputs[i], detail);
		else if (k == 0)
			rc = rep_fail(r, REP_E_NOINPUT, "cannot find flameprof_*.perf* files in '%s' (is it "
				  "flameprof's output directory?)", cfg->inputs[i]);
		else if (fp_grow((void **)&files, &cap, n + np, sizeof *files, 16) != 0)
			rc = rep_fail(r, REP_E_NOMEM, "cannot start: out of memory");
		for (j = 0; j < np; j++) {
			const char *base = strrchr(paths[j], '/');
			if (rc == 0 && base && base[1] == '.')
				rep_say(r, REP_SAY_INFO, "reading '%s', the file of a run that died before giving "
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

int rep_read_names(const struct rep_config *cfg, const struct rep_file *files, size_t n)
{
	size_t elixir = 0;
	if (cfg->names != FP_NAMES_AUTO)
		return cfg->names == FP_NAMES_ELIXIR ? REP_NAMES_ELIXIR : REP_NAMES_ERLANG;
	for (size_t i = 0; i < n; i++)
		elixir += files[i].names == FP_NAMES_ELIXIR;
	return elixir == 0 ? REP_NAMES_ERLANG : elixir == n ? REP_NAMES_ELIXIR : REP_NAMES_EACH;
}
