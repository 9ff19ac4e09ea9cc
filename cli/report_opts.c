/*
 * report_opts.c - the option table of `flameprof report` and its front
 * door: argv to struct rep_config through the option engine (optparse.h),
 * then report_run(), whose warnings, summary and failure it says through
 * the one voice (msg.h) with the exit status it picks here.
 */
#include "report_opts.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "msg.h"
#include "optparse.h"
#include "../common/names.h"
#include "../report/report.h"

enum opt_id {
	O_OUTPUT, O_FORMAT, O_HEATMAP, O_WEIGHT, O_FROM, O_TO, O_STATUS, O_PID, O_CATEGORY,
	O_TITLE, O_WIDTH, O_MIN_WIDTH, O_QUIET, O_NO_INDEX, O_HELP, O_NODE, O_NAMES, O_JSON, O_DIFF
};

static const struct fp_opt OPTS[] = {
	{ "output", 'o', "FILE", O_OUTPUT,
	  .help = "write here; without -f its ending picks the format: .html (the page), .svg "
		  "(a flame graph), .folded, .speedscope.json, .pb.gz (another is refused; "
		  "default: standard output)" },
	{ "format", 'f', "FMT", O_FORMAT,
	  .help = "svg (flame graph, default), html (one page: heatmap and flame graphs), heatmap, "
		  "folded, speedscope, pprof or top (the hottest functions)" },
	{ "diff", 0, "BASE", O_DIFF,
	  .help = "a differential flame graph: the inputs against BASE (a capture's files or "
		  "directory), each side's shares; red where the inputs spend more, blue less; an SVG, "
		  "or with -o diff.html a page with both heatmaps" },
	{ "heatmap", 0, "FILE", O_HEATMAP,
	  .help = "also write the heatmap SVG to FILE, in the same pass" },
	{ "weight", 'w', "W", O_WEIGHT,
	  .help = "samples (default), a metric (memory) or a delta (reductions_delta)" },
	{ "from", 0, "TIME", O_FROM,
	  .help = "flame graph from this time: seconds (12.5) or a duration (5s, 500ms, 2m) from "
		  "the earliest event's whole second (the heatmap's x), or @UNIX_SECONDS" },
	{ "to", 0, "TIME", O_TO, .help = "... up to this time (exclusive), the same forms" },
	{ "status", 0, "LIST", O_STATUS,
	  .help = "keep these statuses only: on-cpu (default: running,garbage_collecting), all (the "
		  "wall-clock view: waiting too), or a list (running,runnable,...)" },
	{ "pid", 0, "PID", O_PID,
	  .help = "keep this process only: <0.N.S>, its tid as written, N/S or N (repeatable)" },
	{ "node", 0, "NODE", O_NODE,
	  .help = "draw this node's files only (repeatable, or a comma list; default: every node's, "
		  "each under a frame node:NAME when there are several)" },
	{ "names", 0, "LANG", O_NAMES,
	  .help = "frames in elixir's spelling (Shop.Pricing.handle_call/3), erlang's, or auto "
		  "(default: as the capture chose, written in the files' headers)" },
	{ "category", 0, "TEXT", O_CATEGORY,
	  .help = "keep events with a category frame containing TEXT (repeatable: all must match)" },
	{ "json", 0, NULL, O_JSON, .help = "-f top as JSON" },
	{ "title", 0, "TEXT", O_TITLE, .help = "title of the picture" },
	{ "width", 0, "PX", O_WIDTH, .help = "picture width in pixels (default 1200)" },
	{ "min-width", 0, "PX", O_MIN_WIDTH, .help = "omit frames narrower than this (default 1)" },
	{ "no-index", 0, NULL, O_NO_INDEX,
	  .help = "read the text even where a file has a report index (slower; same picture)" },
	{ "quiet", 'q', NULL, O_QUIET, .help = "no summary line on standard error" },
	{ "help", 'h', NULL, O_HELP, .help = "print this help" },
};

/* What the engine's callbacks fill: the config, and argv, whose front
 * holds the inputs (in the order given). */
struct report_args {
	struct rep_config *cfg;
	char **argv;
	int format_given; /* -f: else -o's name may choose (report_format_for_path) */
};

static int apply(void *ctx, const struct fp_opt *o, const char *val, const char *spelled,
		 char *detail, size_t cap);
static int operand(void *ctx, const char *arg, char *detail, size_t cap);

static const struct fp_command REPORT = {
	.name = "flameprof report",
	.synopsis = "usage: flameprof report [OPTIONS] FILE|DIR...\n\n"
		    "Draws flameprof's files (zstd, gzip or plain; a directory means its\n"
		    "flameprof_*.perf* files, read in time order): one page with the heatmap and\n"
		    "any range's flame graph (-o profile.html), a flame graph, a heatmap, folded\n"
		    "stacks, speedscope JSON, pprof, the hottest functions (-f top), or a\n"
		    "differential flame graph (--diff). Every picture counts samples unless -w.\n\n",
	.epilog = "\nFrames in brackets are flameprof's own: [ran_to_receive] is a process that\n"
		  "was on a CPU but ran on to its receive before its stack could be read (its\n"
		  "CPU is counted, its code is not known: a run too short to read), [no_stack]\n"
		  "one the node gave no stack for. The rows between the status and the code\n"
		  "are category frames: initial_call:, name:, queue:, memory:, seq_trace:,\n"
		  "tier:, node:. The page draws the flame graph root at the top, under its\n"
		  "heatmap; an SVG flame graph root at the bottom, as flame graphs are drawn.\n"
		  "\nexit status: 0 done, 64 usage (also a --weight metric the events lack, a\n"
		  "--from/--to outside the capture, an SVG or pprof for a terminal: use -o FILE),\n"
		  "65 a file that does not decode or holds no event, 66 an input that cannot\n"
		  "be opened or holds no flameprof files, 71 out of memory, 73 an output that\n"
		  "cannot be created, 74 a write error (disk full).\n"
		  "\nexample: flameprof report /var/lib/flameprof -o profile.html\n"
		  "         flameprof report /var/lib/flameprof -f top --from 10s --to 20s\n"
		  "See doc/report.md for the details.\n",
	.help_column = 24,
	.hint_inline = 1,
	.opts = OPTS,
	.nopts = sizeof OPTS / sizeof OPTS[0],
	.apply = apply,
	.operand = operand,
};

void fp_report_help(FILE *f)
{
	fp_opt_help(&REPORT, f);
}

int fp_parse_seconds(const char *s, int64_t *us, int *absolute)
{
	int64_t sec = 0, frac = 0;
	int scale = 0, neg = 0;
	*absolute = 0;
	if (*s == '@') {
		*absolute = 1;
		s++;
	}
	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (!(*s >= '0' && *s <= '9') && !(*s == '.' && s[1] >= '0' && s[1] <= '9'))
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (sec > INT64_MAX / 10000000)
			return -1;
		sec = sec * 10 + (*s - '0');
	}
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			if (scale < 6) {
				frac = frac * 10 + (*s - '0');
				scale++;
			}
	if (*s)
		return -1;
	for (; scale < 6; scale++)
		frac *= 10;
	*us = (sec * 1000000 + frac) * (neg ? -1 : 1);
	return 0;
}

static int parse_u32(const char **s, uint32_t *out)
{
	uint64_t v = 0;
	const char *p = *s;
	if (!(*p >= '0' && *p <= '9'))
		return -1;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((v = v * 10 + (uint64_t)(*p - '0')) > UINT32_MAX)
			return -1;
	*out = (uint32_t)v;
	*s = p;
	return 0;
}

int fp_parse_pid(const char *s, struct rep_pid_filter *out)
{
	uint32_t node;
	memset(out, 0, sizeof *out);
	if (*s == '<') { /* <0.N.S> as the Erlang shell prints it */
		s++;
		if (parse_u32(&s, &node) || *s++ != '.' || parse_u32(&s, &out->pid) || *s++ != '.' ||
		    parse_u32(&s, &out->serial) || *s++ != '>' || *s)
			return -1;
		return 0;
	}
	if (parse_u32(&s, &out->pid)) {
		/* a tid past 2^32 - 1, as flameprof writes <0.N.S>: S * 2^32 + N */
		char *end;
		unsigned long long tid;
		errno = 0;
		tid = strtoull(s, &end, 10);
		if (*s < '0' || *s > '9' || *end || errno || tid <= UINT32_MAX)
			return -1;
		out->pid = (uint32_t)(tid & UINT32_MAX);
		out->serial = (uint32_t)(tid >> 32);
		return 0;
	}
	if (*s == '\0') { /* N, or a tid below 2^32: N with any serial */
		out->any_serial = 1;
		return 0;
	}
	if (*s++ != '/' || parse_u32(&s, &out->serial) || *s)
		return -1;
	return 0;
}

static int parse_px(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

static int apply(void *ctx, const struct fp_opt *o, const char *val, const char *spelled,
		 char *detail, size_t cap)
{
	struct rep_config *cfg = ((struct report_args *)ctx)->cfg;
	double d;
	switch ((enum opt_id)o->id) {
	case O_OUTPUT: cfg->output = val; break;
	case O_HEATMAP: cfg->heatmap = val; break;
	case O_WEIGHT: cfg->weight = val; break;
	case O_TITLE: cfg->title = val; break;
	case O_QUIET: cfg->quiet = 1; break;
	case O_JSON: cfg->json = 1; break;
	case O_DIFF: cfg->diff_base = val; break;
	case O_NO_INDEX: cfg->no_index = 1; break;
	case O_NODE:
		if (cfg->nnodes == REP_MAX_NODES)
			return fp_opt_fail(detail, cap, "too many --node options: at most %d (give a comma list)", REP_MAX_NODES);
		cfg->nodes[cfg->nnodes++] = val;
		break;
	case O_NAMES:
		if ((cfg->names = fp_names_parse(val)) < 0)
			return fp_opt_fail(detail, cap, "unknown names '%s' (use elixir, erlang or auto)", val);
		break;
	case O_HELP: return FP_OPT_STOP;
	case O_FORMAT:
		if ((cfg->format = report_format_find(val)) < 0) {
			char list[256];
			report_format_list(list, sizeof list);
			return fp_opt_fail(detail, cap, "unknown format '%s' (use %s)", val, list);
		}
		((struct report_args *)ctx)->format_given = 1;
		break;
	case O_FROM:
	case O_TO: {
		int64_t us;
		int abs;
		/* seconds as the heatmap's axis reads them, or a duration as
		 * --duration takes it (5s, 500ms, 2m) */
		if (fp_parse_seconds(val, &us, &abs) != 0) {
			if (*val == '@' || fp_parse_duration(val, &us) < 0)
				return fp_opt_fail(detail, cap, "cannot read '%s' as a time for %s (e.g. 12.5, 5s, 500ms, 2m, "
						   "or @1700000000.5 for a Unix time)", val, spelled);
			abs = 0;
		}
		if (o->id == O_FROM) {
			cfg->has_from = 1;
			cfg->from_us = us;
			cfg->from_abs = abs;
		} else {
			cfg->has_to = 1;
			cfg->to_us = us;
			cfg->to_abs = abs;
		}
		break;
	}
	case O_STATUS:
		if (!*val || strspn(val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_,-/:.") != strlen(val))
			return fp_opt_fail(detail, cap, "cannot read '%s' as a list of statuses (e.g. running,runnable)", val);
		cfg->status = !strcmp(val, "all") ? NULL : !strcmp(val, "on-cpu") ? REP_ON_CPU : val;
		cfg->status_default = 0;
		break;
	case O_PID:
		if (cfg->npids == REP_MAX_PIDS)
			return fp_opt_fail(detail, cap, "too many --pid options (at most %d)", REP_MAX_PIDS);
		if (fp_parse_pid(val, &cfg->pids[cfg->npids]))
			return fp_opt_fail(detail, cap, "cannot read '%s' as a process (use <0.N.S>, a tid, N/S or N)", val);
		cfg->npids++;
		break;
	case O_CATEGORY:
		if (cfg->ncategories == REP_MAX_CATEGORIES || !*val)
			return fp_opt_fail(detail, cap, "cannot use --category '%s' (at most %d, none empty)", val,
					   REP_MAX_CATEGORIES);
		cfg->categories[cfg->ncategories++] = val;
		break;
	case O_WIDTH:
		if (parse_px(val, 200, 100000, &d))
			return fp_opt_fail(detail, cap, "cannot use width '%s' (200 to 100000 pixels)", val);
		cfg->width = (unsigned)d;
		break;
	case O_MIN_WIDTH:
		if (parse_px(val, 0, 1000, &d))
			return fp_opt_fail(detail, cap, "cannot use min-width '%s' (0 to 1000 pixels)", val);
		cfg->min_width = d;
		break;
	}
	return FP_OPT_OK;
}

/* The ending of a file name (".png" of "dir.d/flame.png"), NULL where it has
 * none: a name without one is the default format's. */
static const char *ending(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	return dot && dot != base && dot[1] ? dot : NULL;
}

/* Inputs are collected in place at the front of argv+1 (order kept). */
static int operand(void *ctx, const char *arg, char *detail, size_t cap)
{
	struct report_args *ra = ctx;
	(void)detail, (void)cap;
	ra->argv[1 + ra->cfg->ninputs++] = (char *)arg;
	return FP_OPT_OK;
}

int fp_report_parse(int argc, char **argv, struct rep_config *cfg, char *detail, size_t cap)
{
	struct report_args ra = { cfg, argv, 0 };
	int rc;
	memset(cfg, 0, sizeof *cfg);
	cfg->width = 1200;
	cfg->min_width = 1;
	cfg->status = REP_ON_CPU;
	cfg->status_default = 1;
	cfg->inputs = (const char *const *)(argv + 1);
	if ((rc = fp_opt_parse(&REPORT, argc, argv, &ra, detail, cap)) != FP_OPT_OK)
		return rc;
	/* Combinations. */
	if (!ra.format_given && report_format_for_path(cfg->output) >= 0)
		cfg->format = report_format_for_path(cfg->output);
	else if (!ra.format_given && cfg->output && ending(cfg->output))
		return fp_opt_fail(detail, cap, "'-o %s': its ending '%s' names no format: name the file .html (the "
				   "page), .svg (a flame graph), .folded, .speedscope.json or .pb.gz, or give -f FMT",
				   cfg->output, ending(cfg->output));
	if (cfg->ninputs == 0)
		return fp_opt_fail(detail, cap, "no input given (name flameprof's files or their directory)");
	if (cfg->has_from && cfg->has_to && cfg->from_abs == cfg->to_abs &&
	    cfg->from_us >= cfg->to_us) {
		return fp_opt_fail(detail, cap, "the --from second is not before the --to second");
	}
	if (cfg->diff_base && cfg->format != REP_F_SVG && cfg->format != REP_F_HTML)
		return fp_opt_fail(detail, cap, "--diff draws a flame graph SVG (-f svg) or a page (-f html); use "
				   "-f folded on each capture for the rest");
	if (cfg->json && cfg->format != REP_F_TOP)
		return fp_opt_fail(detail, cap, "--json is for -f top (the other formats have one form each)");
	if (cfg->heatmap && cfg->output && !strcmp(cfg->heatmap, cfg->output) && strcmp(cfg->output, "-"))
		return fp_opt_fail(detail, cap, "--heatmap and --output both name '%s'", cfg->output);
	return FP_OPT_OK;
}

/* The report's voice: its warnings and summary lines, as they happen. */
static void report_says(void *arg, enum rep_say kind, const char *sentence)
{
	(void)arg;
	if (kind == REP_SAY_WARN)
		fp_warn("%s", sentence);
	else
		fp_info("%s", sentence);
}

/* report.h's codes as <sysexits.h> statuses (flameprof(1) lists them). */
static int report_status(int st)
{
	switch (st) {
	case REP_OK: return 0;
	case REP_E_USAGE: return EX_USAGE;
	case REP_E_DATA: return EX_DATAERR;
	case REP_E_NOINPUT: return EX_NOINPUT;
	case REP_E_CANTCREAT: return EX_CANTCREAT;
	case REP_E_IO: return EX_IOERR;
	default: return EX_OSERR;
	}
}

int fp_report_main(int argc, char **argv)
{
	struct rep_config cfg;
	char detail[512];
	switch (fp_report_parse(argc, argv, &cfg, detail, sizeof detail)) {
	case FP_OPT_STOP:
		fp_report_help(stdout);
		return 0;
	case FP_OPT_USAGE:
		fp_opt_usage(&REPORT, detail);
		return EX_USAGE;
	}
	/* a picture or binary data poured onto a terminal helps no one */
	int to_tty_main = (!cfg.output || !strcmp(cfg.output, "-")) &&
			  !report_format_terminal_ok(cfg.format);
	int to_tty_heat = cfg.heatmap && !strcmp(cfg.heatmap, "-");
	if ((to_tty_main || to_tty_heat) && isatty(STDOUT_FILENO)) {
		fp_error("will not write %s to the terminal: name a file with %s (or pipe it)",
			 to_tty_heat ? "a heatmap SVG" : cfg.format == REP_F_PPROF ? "a gzipped pprof profile"
			 : cfg.diff_base && cfg.format == REP_F_SVG ? "a differential flame graph SVG" : cfg.format == REP_F_HEATMAP
			 ? "a heatmap SVG" : cfg.format == REP_F_SVG ? "a flame graph SVG" : "this format",
			 to_tty_heat ? "--heatmap FILE" : "-o FILE");
		return EX_USAGE;
	}
	cfg.say = report_says;
	char err[4096];
	int st = report_run(&cfg, err, sizeof err);
	if (st != REP_OK)
		fp_error("%s", err);
	return report_status(st);
}
