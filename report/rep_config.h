/*
 * rep_config.h - what `flameprof report` was asked to do, as plain data.
 *
 * Filled by fp_report_parse() (cli/report_opts.c) from argv; nothing past the
 * front door sees argv. The front door also supplies the voice (say): the
 * report prints nothing itself.
 */
#ifndef REP_CONFIG_H
#define REP_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/* What the report says on its way, besides a failure (report.h). */
enum rep_say {
	REP_SAY_WARN, /* something odd in the input, and what the report did about it */
	REP_SAY_INFO, /* the summary: what was read, what was written */
};

/* The first rows of the writers' table (report/rep_writers.c), in its order;
 * cfg->format is any row's index (report.h: report_format_find()). */
enum rep_format {
	REP_F_SVG, REP_F_HEATMAP, REP_F_FOLDED, REP_F_SPEEDSCOPE, REP_F_PPROF, REP_F_TOP,
	REP_F_HTML
};

#define REP_MAX_PIDS 64
/* The report's default --status: what answers "where does the CPU go". */
#define REP_ON_CPU "running,garbage_collecting"
#define REP_MAX_CATEGORIES 16
#define REP_MAX_NODES 64

struct rep_pid_filter {
	uint32_t pid;     /* pid number */
	uint32_t serial;  /* pid serial */
	int any_serial;   /* "--pid N": any serial */
};

struct rep_config {
	const char *const *inputs; /* files and directories, in the given order */
	size_t ninputs;
	const char *output;        /* -o; "-" or NULL: stdout */
	const char *heatmap;       /* --heatmap FILE: a heatmap too, same pass */
	const char *diff_base;     /* --diff BASE: the flame graph of the inputs against BASE's */
	int format;                /* a row of the writers' table: enum rep_format, or a later row */
	const char *weight;        /* NULL/"samples", "<metric>" or "<metric>_delta" */
	int has_from, has_to;
	int from_abs, to_abs;      /* '@'-prefixed: absolute Unix seconds */
	int64_t from_us, to_us;    /* relative to the first event's whole second, or absolute */
	const char *status;        /* comma-separated list; NULL: all (--status all) */
	int status_default;        /* no --status: the on-CPU statuses (REP_ON_CPU) */
	struct rep_pid_filter pids[REP_MAX_PIDS];
	size_t npids;
	const char *categories[REP_MAX_CATEGORIES]; /* each must match a category frame */
	size_t ncategories;
	const char *title;
	unsigned width;            /* SVG width in pixels */
	double min_width;          /* omit frames narrower than this many pixels */
	int quiet;                 /* no summary line */
	int json;                  /* --json: -f top as JSON */
	int no_index;              /* --no-index: read the text even where an index is */
	const char *nodes[REP_MAX_NODES]; /* --node, repeatable, each NODE or a comma list ("all":
	                              * every node's); none: every node's */
	size_t nnodes;
	int names;                 /* --names: enum fp_names (common/names.h); 0 auto: as the files' headers say */
	/* Called with each warning and summary line, one sentence without
	 * "flameprof: " or a newline; NULL: they are dropped. */
	void (*say)(void *arg, enum rep_say kind, const char *sentence);
	void *say_arg;
};

#endif
