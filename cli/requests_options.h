/*
 * requests_options.h - `flameprof requests`, the command's one file in the
 * front door: argv becomes one struct requests_config through the option
 * engine (optparse.h; one table drives parsing and --help), then the run.
 */
#ifndef FP_REQUESTS_OPTIONS_H
#define FP_REQUESTS_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include "../requests/requests.h"
#include "optparse.h"

struct requests_config {
	const char *node;
	struct fp_mfa_pattern entry;            /* --entry */
	char *entry_text;                      /* owned copy entry points into */
	struct fp_tier_pattern tiers[FP_MAX_TIERS]; /* --tier NAME=MOD:FUN/ARITY */
	char *tier_text[FP_MAX_TIERS];
	size_t ntiers;
	struct fp_mfa_pattern full[FP_MAX_TIERS]; /* --full MOD[:FUN/ARITY] */
	char *full_text[FP_MAX_TIERS];
	size_t nfull;
	unsigned limit;                        /* --limit */
	enum req_identity identity;            /* --identity arg:N / --identity-fun */
	unsigned identity_arg;
	const char *identity_fun;
	unsigned identity_options;             /* how many --identity/--identity-fun given */
	int64_t duration_us;                   /* --duration */
	int64_t every_us;                      /* --every */
	const char *stats;                     /* --stats FILE */
	int64_t slow_us;                       /* --slow DUR */
	const char *slow_file;                 /* --slow-file FILE */
	unsigned sample_permille;              /* --sample-requests P */
	int64_t max_late_us;                   /* --max-late */
	unsigned max_queue;                    /* --max-queue */
	const char *node_name;                 /* --node-name */
	const char *cookie_file;
	const char *cookie;
	int64_t connect_timeout_us;
	int lang;                      /* --names: an enum fp_names */
	int verbosity;
	int help;
};

/* The command: its table, defaults and checks, run by fp_opt_main(). */
extern const struct fp_command fp_requests_command;

/* `flameprof requests`: argv[0] is "requests". @return the exit status. */
int fp_requests_main(int argc, char **argv);

#endif
