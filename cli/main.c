/*
 * main.c - the front door: argv in, exit status out. The first argument
 * picks the command; each command's table and parser live in its own file
 * (options.c: record, the default; report_opts.c: report; calls_options.c,
 * requests_options.c, top_options.c), all run by the one option engine
 * (optparse.h).
 *
 * What a new command needs (as git's builtin.h lists it for a builtin):
 *   1. its work in a room of its own, behind one entry that prints nothing
 *      and returns a code (report_run(), capture_run()): what it says
 *      goes through a callback this door supplies (calls and requests run
 *      their session, connect to print, in their one file here: the
 *      front half of a command never in a second file of the same name);
 *   2. one file here, NAME_options.c (and its .h with fp_NAME_main()): its
 *      config, its table of struct fp_opt rows, one line each, by kind
 *      (optparse.h's FP_OPT_SWITCH, FP_OPT_UINT, ..., FP_OPT_OWN; the
 *      shared ones from session.h: FP_ROW_COOKIE_FILE, ..., FP_ROW_HELP,
 *      FP_ROW_DURATION, FP_ROW_NAMES, and FP_NODE_COMMAND for a command
 *      that talks to a node; the capture's sampling rows are options.h's
 *      FP_CAP_ROW_*), apply() for its own kinds (fp_opt_word() for a value
 *      that is one of a few words, fp_opt_fail() for its sentence), check()
 *      for its combinations (fp_cookie_rows_check() among them),
 *      defaults() (a designated initializer with FP_NODE_DEFAULTS), and
 *      the run that maps the room's code to an exit status from
 *      <sysexits.h>;
 *   3. one row in commands[] below;
 *   4. its rows in doc/flameprof.1 (tests/unit/man_options.t compares them
 *      with --help), a paragraph in README.md, and its room's row and
 *      arrows in doc/design.md (tests/unit/house.t holds the code to them);
 *   5. its tests: tests/unit/ for what needs no node, tests/e2e/ against a
 *      real node (tests/lib.sh).
 */
#include <stddef.h>
#include <string.h>
#include "calls_options.h"
#include "options.h"
#include "report_opts.h"
#include "requests_options.h"
#include "top_options.h"

static const struct {
	const char *name;
	int (*main)(int argc, char **argv); /* argv[0] is the command's name */
} commands[] = {
	{ "report", fp_report_main },
	{ "calls", fp_calls_main },
	{ "requests", fp_requests_main },
	{ "top", top_main },
};

int main(int argc, char **argv)
{
	for (size_t k = 0; argc > 1 && k < sizeof commands / sizeof commands[0]; k++)
		if (strcmp(argv[1], commands[k].name) == 0)
			return commands[k].main(argc - 1, argv + 1);
	return fp_record_main(argc, argv);
}
