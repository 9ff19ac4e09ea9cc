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

#endif
