/*
 * calls.h - `flameprof calls` (cli/calls.c).
 */
#ifndef FP_CLI_CALLS_H
#define FP_CLI_CALLS_H

/* argv[0] is "calls". @return an exit status. */
int fp_calls_main(int argc, char **argv);

#endif
