/*
 * commands.c - the commands (commands.h), one row each.
 */
#include "commands.h"

#include <string.h>
#include "calls_options.h"
#include "options.h"
#include "report_opts.h"
#include "requests_options.h"
#include "top_options.h"

const struct fp_cmd fp_commands[] = {
	{ NULL, "[options] NODE...   (or --cluster NODE)", fp_record_main },
	{ "report", "[options] FILE|DIR...", fp_report_main },
	{ "calls", "[options] --pattern MOD[:FUN[/ARITY]]... NODE", fp_calls_main },
	{ "requests", "[options] --entry MOD:FUN/ARITY NODE", fp_requests_main },
	{ "top", "[options] NODE   (a live view)", top_main },
};
const size_t fp_ncommands = sizeof fp_commands / sizeof fp_commands[0];

const struct fp_cmd *fp_command_of(int argc, char **argv)
{
	for (size_t k = 0; argc > 1 && k < fp_ncommands; k++)
		if (fp_commands[k].name && strcmp(argv[1], fp_commands[k].name) == 0)
			return &fp_commands[k];
	return &fp_commands[0];
}

void fp_commands_usage(FILE *f)
{
	for (size_t k = 0; k < fp_ncommands; k++)
		fprintf(f, "%s flameprof%s%s %s\n", k ? "      " : "usage:", fp_commands[k].name ? " " : "",
			fp_commands[k].name ? fp_commands[k].name : "", fp_commands[k].usage);
	fputs("       (each command with its own --help)\n", f);
}

void fp_commands_brief(FILE *f)
{
	fprintf(f, "usage: flameprof %s\n       flameprof ", fp_commands[0].usage);
	for (size_t k = 1; k < fp_ncommands; k++)
		fprintf(f, "%s%s", k > 1 ? "|" : "", fp_commands[k].name);
	fputs(" ...   (each has its own --help)\n", f);
}
