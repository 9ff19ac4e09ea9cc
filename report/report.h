/*
 * report.h - `flameprof report`: pictures and exports from flameprof's files.
 *
 * Reads flameprof's perf-script output (zstd, gzip or plain; files or whole
 * directories, in time order) and writes a flame graph SVG, a sub-second
 * heatmap SVG, collapsed stacks, a speedscope JSON file or a pprof profile.
 * See doc/report.md.
 */
#ifndef FP_REPORT_H
#define FP_REPORT_H

#include <stddef.h>

struct rep_config;

/* What went wrong, for the front door to turn into an exit status. */
enum rep_status {
	REP_OK = 0,
	REP_E_USAGE,     /* the options ask for what the events lack (a --weight metric) */
	REP_E_DATA,      /* an input that does not decode or holds no event */
	REP_E_NOINPUT,   /* an input that cannot be opened or found */
	REP_E_NOMEM,     /* out of memory */
	REP_E_CANTCREAT, /* an output that cannot be created */
	REP_E_IO,        /* an output that cannot be written or published */
};

/*
 * Draws what cfg asks for (filled by the front door, cli/report_opts.c).
 * Prints nothing: warnings and the summary lines go to cfg->say as they
 * happen; a failure leaves one sentence (what failed, its subject quoted,
 * then what to do) in err (errcap bytes).
 * @return REP_OK, or the failure's REP_E_* code.
 */
int report_run(const struct rep_config *cfg, char *err, size_t errcap);

/*
 * The formats, from the writers' table (report/rep_writers.c), for the
 * front door: a format is a row's index, cfg->format.
 */
/* The format -f NAME names (a name or an alias). @return it, or -1. */
int report_format_find(const char *name);
/* The format an output's name chooses (-o flame.svg, out.folded) when -f
 * is not given. @return it, or -1 (no ending known, or standard output). */
int report_format_for_path(const char *path);
/* "svg, heatmap, folded, speedscope or pprof", for a sentence. */
void report_format_list(char *out, size_t cap);
/* 0 for a format not to be poured onto a terminal (an SVG, binary data). */
int report_format_terminal_ok(int fmt);

#endif
