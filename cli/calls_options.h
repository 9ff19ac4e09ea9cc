/*
 * calls_options.h - `flameprof calls`, the command's one file in the front
 * door: argv becomes one struct calls_config through the option engine
 * (optparse.h; one table drives parsing and --help), then the run.
 */
#ifndef FP_CALLS_OPTIONS_H
#define FP_CALLS_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include "../calls/calls.h"
#include "optparse.h"

#define CALLS_MAX_PATTERNS 64
#define CALLS_MAX_TARGETS 64

enum calls_format { CALLS_FORMAT_TABLE, CALLS_FORMAT_FOLDED };

struct calls_config {
	const char *node;                  /* the target, name@host */
	enum calls_type type;              /* --type */
	struct fp_mfa_pattern patterns[CALLS_MAX_PATTERNS]; /* --pattern, repeatable */
	size_t npatterns;
	char *pattern_text[CALLS_MAX_PATTERNS]; /* owned copies the patterns point into */
	const char *pids[CALLS_MAX_TARGETS];   /* --pid, repeatable */
	size_t npids;
	const char *names[CALLS_MAX_TARGETS];  /* --name, repeatable */
	size_t nnames;
	int all, new_procs;                /* --all, --new */
	int per_process;                   /* --per-process */
	int64_t duration_us;               /* --duration */
	unsigned top;                      /* --top; 0: every row */
	const char *json;                  /* --json FILE */
	enum calls_format format;          /* --format */
	int lang;                          /* --names: an enum fp_names */
	unsigned limit;                    /* --limit */
	int force;                         /* --force */
	unsigned max_run_queue;            /* --max-run-queue; 0: no limit */
	const char *node_name;             /* --node-name; NULL: flameprof_calls_<user> */
	const char *cookie_file;           /* --cookie-file */
	const char *cookie;                /* --cookie (discouraged) */
	int64_t connect_timeout_us;        /* --connect-timeout */
	int verbosity;                     /* -q 0, default 1, -v 2 */
	int help;
};

/* The command: its table, defaults and checks, run by fp_opt_main(). */
extern const struct fp_command fp_calls_command;

/* `flameprof calls`: argv[0] is "calls". @return an exit status. */
int fp_calls_main(int argc, char **argv);

#endif
