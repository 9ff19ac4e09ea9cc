/*
 * rep_opts.h - argv to struct rep_config through one option table, which
 * also prints --help (so the help cannot drift from the parser).
 */
#ifndef REP_OPTS_H
#define REP_OPTS_H

#include <stddef.h>
#include <stdio.h>

#include "../report/rep_config.h"

enum rep_opts_result { REP_OPTS_OK, REP_OPTS_HELP, REP_OPTS_USAGE };

/*
 * Fills cfg (inputs point into argv). On REP_OPTS_USAGE, detail holds one
 * sentence naming the offending argument.
 */
enum rep_opts_result rep_opts_parse(int argc, char **argv, struct rep_config *cfg, char *detail,
				    size_t cap);
void rep_opts_help(FILE *f);

/* "12.5" -> 12500000 relative; "@1700000000.25" -> absolute. @return 0 or -1. */
int rep_parse_seconds(const char *s, int64_t *us, int *absolute);
/* "N/S", "N" or "<0.N.S>". @return 0 or -1. */
int rep_parse_pid(const char *s, struct rep_pid_filter *out);

#endif
