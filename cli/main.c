/*
 * main.c - the front door: argv in, exit status out.
 */
#include <stdio.h>
#include <string.h>
#include "calls.h"
#include "requests.h"
#include "msg.h"
#include "options.h"
#include "run.h"
#include "../report/report.h"

int main(int argc, char **argv)
{
	struct fp_config cfg;

	if (argc > 1 && strcmp(argv[1], "report") == 0)
		return report_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "calls") == 0)
		return calls_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "requests") == 0)
		return requests_main(argc - 1, argv + 1);
	int rc = fp_parse_options(argc, argv, &cfg);
	if (rc)
		return rc;
	if (cfg.help) {
		fp_print_help();
		return 0;
	}
	if (cfg.version) {
		printf("flameprof %s (agent %s)\n", FP_VERSION, FP_AGENT_MODULE);
		return 0;
	}
	fp_verbosity = cfg.verbosity;
	return fp_run(&cfg);
}
