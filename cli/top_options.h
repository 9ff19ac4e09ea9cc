/*
 * top_options.h - argv of `flameprof top` becomes one struct top_config
 * through the option engine (optparse.h). The sampling options are the
 * capture's own (fp_record_option()), so they read and check the same way
 * in both commands; the connection rows are every node command's
 * (session.h).
 */
#ifndef FP_TOP_OPTIONS_H
#define FP_TOP_OPTIONS_H

#include <stdint.h>
#include "options.h"
#include "../top/top_run.h"

/* The command: its table, defaults and checks, run by fp_opt_main(). */
extern const struct fp_command fp_top_command;
/* `flameprof top`: parse, then run (cli/top.c). @return an exit status. */
int top_main(int argc, char **argv);
/* The live view: its front door's checks, then top_run() through a door
 * of this terminal (cli/top.c). @return an exit status. */
int fp_top_run(const struct top_config *cfg);

#endif
