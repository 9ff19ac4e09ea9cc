/*
 * driver.c - runs `report` without the rest of flameprof, for working on
 * report/ before or apart from cli/main.c: `driver report ARGS...`.
 * Built by tests/report/build-driver.sh; the e2e tests use $FLAMEPROF.
 */
#include <stdio.h>
#include <string.h>

#include "../../report/report.h"

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "report") != 0) {
		fprintf(stderr, "usage: driver report ARGS...\n");
		return 64;
	}
	return report_main(argc - 1, argv + 1);
}
