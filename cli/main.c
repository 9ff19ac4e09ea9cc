/*
 * main.c - the front door: argv in, exit status out. The first argument
 * picks the command from the one list of them (commands.c); none named is
 * the capture.
 *
 * Every command has one shape: its work is a room of its own behind one
 * entry that prints nothing and picks no exit status (capture_run(),
 * report_run(), top_run(), calls_run(), requests_run()); what it says,
 * and what it asks (a cookie, the stop signals, a screen), goes through a
 * door this front door supplies; cli/ parses argv into the room's config,
 * calls the entry, and maps its code to an exit status from <sysexits.h>.
 *
 * What a new command NAME needs, all of it:
 *   1. its room, NAME/: NAME.h with its config (plain data) and its entry
 *      NAME_run(cfg, door), NAME.c; the Makefile builds every room's .c
 *      without a list to edit;
 *   2. cli/NAME_options.c (and its .h with fp_NAME_main()): its table of
 *      struct fp_opt rows, one line each, by kind (optparse.h's
 *      FP_OPT_SWITCH, FP_OPT_UINT, ..., FP_OPT_OWN; session.h's shared
 *      rows FP_ROW_COOKIE_FILE, ..., FP_ROW_HELP and FP_NODE_COMMAND for a
 *      command that talks to a node), apply() for its own kinds, check()
 *      for its combinations, defaults(), and the run: the door, the entry,
 *      the exit status;
 *   3. one row in commands.c: its name, usage line, man section and main
 *      (the capture's --help and tests/unit/man_options.t read the list);
 *   4. its section in doc/flameprof.1 (man_options.t compares it with
 *      --help), its room's row and arrows in doc/design.md (house.t holds
 *      the code to them), a row in README.md's table of commands;
 *   5. its tests: tests/unit/ for what needs no node, tests/e2e/ against a
 *      real node (tests/lib.sh).
 */
#include "commands.h"

int main(int argc, char **argv)
{
	const struct fp_cmd *c = fp_command_of(argc, argv);
	return c->name ? c->main(argc - 1, argv + 1) : c->main(argc, argv);
}
