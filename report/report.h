/*
 * report.h - `flameprof report`: pictures and exports from flameprof's files.
 *
 * Reads flameprof's perf-script output (zstd, gzip or plain; files or whole
 * directories, in time order) and writes a flame graph SVG, a sub-second
 * heatmap SVG, collapsed stacks or a speedscope JSON file. See doc/report.md.
 */
#ifndef FP_REPORT_H
#define FP_REPORT_H

struct rep_config;

/*
 * Draws what cfg asks for (filled by the front door, cli/report_opts.c).
 * Prints its own messages (prefixed "flameprof: ") on stderr.
 * @return an exit status from <sysexits.h>: 0 ok, 64 usage (a --weight the
 * events lack), 65 an input that is not perf-script text, 66 an input that
 * cannot be opened, 73 an output that cannot be created, 74 a write error.
 */
int report_run(const struct rep_config *cfg);

#endif
