/*
 * main.c - the front door: argv in, exit status out. The first argument
 * picks the command; each command's table and parser live in its own file
 * (options.c: record, the default; report_opts.c: report; top_options.c:
 * top), all run by the
 * one option engine (optparse.h). A new command is one row here.
 */
#include <stddef.h>
#include <string.h>
#include "calls.h"
#include "options.h"
#include "report_opts.h"
#include "requests.h"
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
