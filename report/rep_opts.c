/*
 * rep_opts.c - the option table of `flameprof report`.
 */
#include "rep_opts.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum opt_id {
	O_OUTPUT, O_FORMAT, O_HEATMAP, O_WEIGHT, O_FROM, O_TO, O_STATUS, O_PID, O_CATEGORY,
	O_TITLE, O_WIDTH, O_MIN_WIDTH, O_QUIET, O_NO_INDEX, O_HELP, O_NODE
};

struct opt {
	const char *lng;
	char shrt;
	const char *arg; /* NULL: a switch */
	const char *help;
	enum opt_id id;
};

static const struct opt OPTS[] = {
	{ "output", 'o', "FILE", "write here (default: standard output)", O_OUTPUT },
	{ "format", 'f', "FMT", "svg (flame graph, default), heatmap, folded, speedscope or pprof",
	  O_FORMAT },
	{ "heatmap", 0, "FILE", "also write the heatmap SVG to FILE, in the same pass", O_HEATMAP },
	{ "weight", 'w', "W", "samples (default), a metric (memory) or a delta (reductions_delta)",
	  O_WEIGHT },
	{ "from", 0, "SEC", "flame graph from this second: relative to the earliest event's whole "
			    "second (the heatmap's x), or @UNIX_SECONDS", O_FROM },
	{ "to", 0, "SEC", "... up to this second (exclusive), same forms", O_TO },
	{ "status", 0, "LIST", "keep these statuses only (running,runnable,...)", O_STATUS },
	{ "pid", 0, "PID", "keep this process only: <0.N.S>, its tid as written, N/S or N (repeatable)", O_PID },
	{ "node", 0, "NODE", "a directory with several nodes' files: draw this node's (default: the "
			     "node whose capture is latest), or all", O_NODE },
	{ "category", 0, "TEXT", "keep events with a category frame containing TEXT (repeatable: "
				 "all must match)", O_CATEGORY },
	{ "title", 0, "TEXT", "title of the picture", O_TITLE },
	{ "width", 0, "PX", "picture width in pixels (default 1200)", O_WIDTH },
	{ "min-width", 0, "PX", "omit frames narrower than this (default 1)", O_MIN_WIDTH },
	{ "no-index", 0, NULL, "read the text even where a file has a report index (slower; same "
			       "picture)", O_NO_INDEX },
	{ "quiet", 'q', NULL, "no summary line on standard error", O_QUIET },
	{ "help", 'h', NULL, "print this help", O_HELP },
};
#define NOPTS (sizeof OPTS / sizeof OPTS[0])

void rep_opts_help(FILE *f)
{
	size_t i;
	fputs("usage: flameprof report [OPTIONS] FILE|DIR...\n\n"
	      "Draws a flame graph (or heatmap, folded stacks, speedscope JSON, pprof) from\n"
	      "flameprof's output files: zstd, gzip or plain; a directory means its\n"
	      "flameprof_*.perf* files. Files are read in time order.\n\n",
	      f);
	for (i = 0; i < NOPTS; i++) {
		char left[40];
		snprintf(left, sizeof left, "%c%c%c --%s%s%s", OPTS[i].shrt ? '-' : ' ',
			 OPTS[i].shrt ? OPTS[i].shrt : ' ', OPTS[i].shrt ? ',' : ' ', OPTS[i].lng,
			 OPTS[i].arg ? " " : "", OPTS[i].arg ? OPTS[i].arg : "");
		fprintf(f, "  %-24s %s\n", left, OPTS[i].help);
	}
	fputs("\nexample: flameprof report /var/lib/flameprof -o flame.svg --heatmap heat.svg\n"
	      "See doc/report.md for the details.\n", f);
}

int rep_parse_seconds(const char *s, int64_t *us, int *absolute)
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

int rep_parse_pid(const char *s, struct rep_pid_filter *out)
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

static enum rep_opts_result apply(const struct opt *o, const char *val, struct rep_config *cfg,
				  char *detail, size_t cap)
{
	double d;
	switch (o->id) {
	case O_OUTPUT: cfg->output = val; break;
	case O_HEATMAP: cfg->heatmap = val; break;
	case O_WEIGHT: cfg->weight = val; break;
	case O_TITLE: cfg->title = val; break;
	case O_QUIET: cfg->quiet = 1; break;
	case O_NO_INDEX: cfg->no_index = 1; break;
	case O_NODE: cfg->node = val; break;
	case O_HELP: return REP_OPTS_HELP;
	case O_FORMAT:
		if (!strcmp(val, "svg") || !strcmp(val, "flamegraph"))
			cfg->format = REP_F_SVG;
		else if (!strcmp(val, "heatmap"))
			cfg->format = REP_F_HEATMAP;
		else if (!strcmp(val, "folded") || !strcmp(val, "collapsed"))
			cfg->format = REP_F_FOLDED;
		else if (!strcmp(val, "speedscope"))
			cfg->format = REP_F_SPEEDSCOPE;
		else if (!strcmp(val, "pprof"))
			cfg->format = REP_F_PPROF;
		else {
			snprintf(detail, cap, "unknown format '%s' (use svg, heatmap, folded, speedscope or pprof)", val);
			return REP_OPTS_USAGE;
		}
		break;
	case O_FROM:
	case O_TO: {
		int64_t us;
		int abs;
		if (rep_parse_seconds(val, &us, &abs)) {
			snprintf(detail, cap, "cannot read '%s' as seconds for --%s (e.g. 12.5 or @1700000000.5)",
				 val, o->lng);
			return REP_OPTS_USAGE;
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
		if (!*val || strspn(val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_,-/:.") != strlen(val)) {
			snprintf(detail, cap, "cannot read '%s' as a list of statuses (e.g. running,runnable)", val);
			return REP_OPTS_USAGE;
		}
		cfg->status = val;
		break;
	case O_PID:
		if (cfg->npids == REP_MAX_PIDS) {
			snprintf(detail, cap, "too many --pid options (at most %d)", REP_MAX_PIDS);
			return REP_OPTS_USAGE;
		}
		if (rep_parse_pid(val, &cfg->pids[cfg->npids])) {
			snprintf(detail, cap, "cannot read '%s' as a process (use <0.N.S>, a tid, N/S or N)", val);
			return REP_OPTS_USAGE;
		}
		cfg->npids++;
		break;
	case O_CATEGORY:
		if (cfg->ncategories == REP_MAX_CATEGORIES || !*val) {
			snprintf(detail, cap, "cannot use --category '%s' (at most %d, none empty)", val,
				 REP_MAX_CATEGORIES);
			return REP_OPTS_USAGE;
		}
		cfg->categories[cfg->ncategories++] = val;
		break;
	case O_WIDTH:
		if (parse_px(val, 200, 100000, &d)) {
			snprintf(detail, cap, "cannot use width '%s' (200 to 100000 pixels)", val);
			return REP_OPTS_USAGE;
		}
		cfg->width = (unsigned)d;
		break;
	case O_MIN_WIDTH:
		if (parse_px(val, 0, 1000, &d)) {
			snprintf(detail, cap, "cannot use min-width '%s' (0 to 1000 pixels)", val);
			return REP_OPTS_USAGE;
		}
		cfg->min_width = d;
		break;
	}
	return REP_OPTS_OK;
}

enum rep_opts_result rep_opts_parse(int argc, char **argv, struct rep_config *cfg, char *detail,
				    size_t cap)
{
	int i, only_files = 0;
	size_t k;
	memset(cfg, 0, sizeof *cfg);
	cfg->width = 1200;
	cfg->min_width = 1;
	/* Inputs are collected in place at the front of argv+1 (order kept). */
	cfg->inputs = (const char *const *)(argv + 1);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq;
		const struct opt *o = NULL;
		enum rep_opts_result r;
		if (only_files || a[0] != '-' || a[1] == '\0') {
			argv[1 + cfg->ninputs++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			only_files = 1;
			continue;
		}
		if (a[1] == '-') {
			size_t nl;
			eq = strchr(a + 2, '=');
			nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			for (k = 0; k < NOPTS; k++)
				if (strlen(OPTS[k].lng) == nl && !strncmp(OPTS[k].lng, a + 2, nl))
					o = &OPTS[k];
			if (o && eq)
				val = eq + 1;
		} else {
			for (k = 0; k < NOPTS; k++)
				if (OPTS[k].shrt && OPTS[k].shrt == a[1])
					o = &OPTS[k];
			if (o && a[2])
				val = a + 2;
			if (o && !o->arg && a[2])
				o = NULL;
		}
		if (!o) {
			snprintf(detail, cap, "unknown option '%s'", a);
			return REP_OPTS_USAGE;
		}
		if (o->arg && !val) {
			if (i + 1 >= argc) {
				snprintf(detail, cap, "option '%s' needs a value (%s)", a, o->arg);
				return REP_OPTS_USAGE;
			}
			val = argv[++i];
		} else if (!o->arg && val) {
			snprintf(detail, cap, "option '--%s' takes no value", o->lng);
			return REP_OPTS_USAGE;
		}
		if ((r = apply(o, val, cfg, detail, cap)) != REP_OPTS_OK)
			return r;
	}
	/* Combinations. */
	if (cfg->ninputs == 0) {
		snprintf(detail, cap, "no input given (name flameprof's files or their directory)");
		return REP_OPTS_USAGE;
	}
	if (cfg->has_from && cfg->has_to && cfg->from_abs == cfg->to_abs &&
	    cfg->from_us >= cfg->to_us) {
		snprintf(detail, cap, "the --from second is not before the --to second");
		return REP_OPTS_USAGE;
	}
	if (cfg->heatmap && cfg->output && !strcmp(cfg->heatmap, cfg->output) && strcmp(cfg->output, "-")) {
		snprintf(detail, cap, "--heatmap and --output both name '%s'", cfg->output);
		return REP_OPTS_USAGE;
	}
	return REP_OPTS_OK;
}
