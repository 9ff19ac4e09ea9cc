/*
 * report_opts.h - `flameprof report`'s front door: its option table (run
 * by the one option engine, optparse.h), argv to struct rep_config, --help.
 */
#ifndef FP_REPORT_OPTS_H
#define FP_REPORT_OPTS_H

#include <stddef.h>
#include <stdio.h>

#include "../report/rep_config.h"

/*
 * argv[0] is "report"; the rest are its options and inputs. Parses them,
 * prints --help or a usage error, else runs the report (report_run()) and
 * says what it says.
 * @return an exit status from <sysexits.h> (report/report.h lists them).
 */
int fp_report_main(int argc, char **argv);

/*
 * Fills cfg (inputs point into argv, whose front is reordered to hold
 * them). @return FP_OPT_OK, FP_OPT_STOP (--help) or FP_OPT_USAGE with one
 * sentence in detail naming the offending argument (optparse.h).
 */
int fp_report_parse(int argc, char **argv, struct rep_config *cfg, char *detail, size_t cap);
void fp_report_help(FILE *f);

/* "12.5" -> 12500000 relative; "@1700000000.25" -> absolute. @return 0 or -1. */
int fp_parse_seconds(const char *s, int64_t *us, int *absolute);
/* "N/S", "N" or "<0.N.S>". @return 0 or -1. */
int fp_parse_pid(const char *s, struct rep_pid_filter *out);

#endif
