/*
 * options.h - the capture (record): argv becomes one struct cap_config;
 * nothing past the front door sees argv. Its table runs on the one option
 * engine (optparse.h), which drives parsing and --help alike.
 */
#ifndef FP_OPTIONS_H
#define FP_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include "../capture/cap_config.h"
#include "optparse.h"


/* argv[0] is the program; the rest are the capture's options and NODE.
 * Parses them, prints --help, --version or a usage error, else runs the
 * capture (capture_run()). @return an exit status from <sysexits.h>. */
int fp_record_main(int argc, char **argv);
/* The capture's command: its table, defaults and checks, run by
 * fp_opt_main(). */
extern const struct fp_command fp_record_command;
/* What cfg owns, freed. */
void fp_config_free(struct cap_config *cfg);
/* The capture's defaults into cfg (what fp_parse_options() starts from). */
void fp_record_defaults(struct cap_config *cfg);
/* Applies the capture's option `name` (its long name) with val, as its
 * row in the capture's table reads it: for commands that sample as the
 * capture does (`flameprof top`) and list some of its options in their
 * own table. @return an fp_opt_rc (optparse.h), detail filled on a usage
 * error. */
int fp_record_option(struct cap_config *cfg, const char *name, const char *val, const char *spelled,
		     char *detail, size_t cap);

/* The capture's sampling rows, written once for the capture's table and
 * for `flameprof top`, which lists them too (its kind hands the value to
 * fp_record_option(), so both read and check it alike): kind is the row's
 * id, help its line where the two commands' defaults differ. The field is
 * the capture's config's (top's struct top_config starts with one). */
#define FP_CAP_F(field) offsetof(struct cap_config, field)
#define FP_CAP_ROW_TOP(kind, help) { "top", 0, "N", kind, FP_CAP_F(top), 0, 100000, help }
#define FP_CAP_ROW_EVERY(kind, help) { "every", 0, "DUR", kind, FP_CAP_F(every_us), 0, 0, help }
#define FP_CAP_ROW_HZ(kind, help) { "hz", 0, "N", kind, FP_CAP_F(hz), 0, 0, help }
#define FP_CAP_ROW_DEPTH(kind, help) { "depth", 0, "N", kind, FP_CAP_F(depth), 1, 64, help }
#define FP_CAP_ROW_PID(kind) \
	{ "pid", 0, "PID", kind, FP_CAP_F(pids), 0, 0, "also sample this process, e.g. '<0.123.0>' (repeatable)" }
#define FP_CAP_ROW_NAME(kind, help) { "name", 0, "NAME", kind, FP_CAP_F(names), 0, 0, help }
#define FP_CAP_ROW_MAX_COST(kind, help) { "max-cost", 0, "PCT", kind, FP_CAP_F(max_cost_ppm), 0, 0, help }
#define FP_CAP_ROW_FORCE(kind) \
	{ "force", 0, NULL, kind, FP_CAP_F(force), 1, 0, \
	  "sample more than the load bound allows (--top x --hz beyond " CAP_LOAD_BOUND_TEXT " samples/s)" }
#define FP_CAP_ROW_SILENCE_TIMEOUT(kind) \
	{ "silence-timeout", 0, "DUR", kind, FP_CAP_F(silence_timeout_us), 0, 0, \
	  "call the node lost after DUR without a message from it (default 15s)" }

#endif
