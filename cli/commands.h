/*
 * commands.h - the one list of flameprof's commands (commands.c): main()
 * picks a command from it, the capture's --help prints its usage lines
 * from it, and tests/unit/man_options.t reads them back from --help all to
 * check each command's section of flameprof(1). A new command is a row;
 * the capture's row is the first.
 */
#ifndef FP_COMMANDS_H
#define FP_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

struct fp_cmd {
	const char *name;  /* the first argument; NULL: the capture (no command named) */
	const char *usage; /* its usage after "flameprof" (and its name); its section
	                      of flameprof(1) is its name in capitals (the capture's:
	                      OPTIONS), which man_options.t checks */
	int (*main)(int argc, char **argv); /* argv[0] is the command's name */
};

extern const struct fp_cmd fp_commands[];
extern const size_t fp_ncommands;

/* The command argv[1] names, else the capture's row. */
const struct fp_cmd *fp_command_of(int argc, char **argv);
/* Every command's usage line, the first after "usage: " (--help all). */
void fp_commands_usage(FILE *f);
/* The capture's usage line, then one line naming the others (--help). */
void fp_commands_brief(FILE *f);

#endif
