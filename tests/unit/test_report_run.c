/*
 * test_report_run.c - report/ says nothing itself (design.md: no room below
 * cli/ prints): report_run() returns a REP_E_* code and leaves one sentence,
 * and hands its warnings and summary lines to the caller's say callback.
 * Standard error is a file here, which must stay empty.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "../../cli/report_opts.h"
#include "../../report/report.h"

static char dir[64];
static char said[8][512];
static enum rep_say said_kind[8];
static int nsaid;

static void collect(void *arg, enum rep_say kind, const char *sentence)
{
	(void)arg;
	if (nsaid < 8) {
		snprintf(said[nsaid], sizeof said[nsaid], "%s", sentence);
		said_kind[nsaid] = kind;
	}
	nsaid++;
}

static const char *path(const char *name)
{
	static char p[4][256];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
	return p[k];
}

/* Runs `report ARGS...` through report_run (not fp_report_main). */
static int run(char *err, size_t cap, int argc, const char **args)
{
	char *av[16], detail[256];
	struct rep_config cfg;
	av[0] = "report";
	for (int i = 0; i < argc; i++)
		av[i + 1] = (char *)args[i];
	if (fp_report_parse(argc + 1, av, &cfg, detail, sizeof detail) != 0) {
		snprintf(err, cap, "parse: %s", detail);
		return -1;
	}
	cfg.say = collect;
	nsaid = 0;
	return report_run(&cfg, err, cap);
}

int main(void)
{
	char err[1024], errpath[128];
	struct stat st;
	int saved, fd;
	FILE *f;

	snprintf(dir, sizeof dir, "/tmp/fp_report_run.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	f = fopen(path("in.perf"), "w");
	fputs("running 1/0 [000] 10.5: 1 cpu-clock:\n\t0 m:f/0 (m.erl:1)\n\n"
	      "not perf script\n"
	      "running 1/0 [000] 10.7: 1 cpu-clock:\n\t0 m:f/0 (m.erl:1)\n\n", f);
	fclose(f);
	f = fopen(path("junk.txt"), "w");
	fputs("nothing to see\n", f);
	fclose(f);
	snprintf(errpath, sizeof errpath, "%s", path("stderr"));
	fflush(stderr);
	saved = dup(2);
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);

	{
		const char *a[] = { path("in.perf"), "-f", "folded", "-o", path("out.folded") };
		int rc = run(err, sizeof err, 5, a);
		is_int(rc, REP_OK, "a report that works: REP_OK");
		is_int(nsaid, 3, "it says three things: what it read, a warning, what it wrote");
		ok(nsaid >= 3 && said_kind[0] == REP_SAY_INFO &&
		   strncmp(said[0], "read 2 events from 1 file", 25) == 0, "first, what it read (%s)", said[0]);
		is_str(said[1], "skipped 1 lines that are not perf script text",
		       "then the warning, without 'warning: ' (the voice adds it)");
		ok(said_kind[1] == REP_SAY_WARN, "... as a warning");
		ok(nsaid >= 3 && said_kind[2] == REP_SAY_INFO && strstr(said[2], "wrote folded stacks '"),
		   "last, what it wrote (%s)", said[2]);
	}
	{
		const char *a[] = { path("nope.perf") };
		int rc = run(err, sizeof err, 1, a);
		is_int(rc, REP_E_NOINPUT, "a missing input: REP_E_NOINPUT");
		ok(strncmp(err, "cannot open '", 13) == 0 && strstr(err, "nope.perf': ") &&
		   !strchr(err, '\n'), "and one sentence naming it (%s)", err);
		is_int(nsaid, 0, "and nothing else said");
	}
	{
		const char *a[] = { path("in.perf"), "-w", "nosuchmetric" };
		is_int(run(err, sizeof err, 3, a), REP_E_USAGE, "a --weight the events lack: REP_E_USAGE");
		ok(strncmp(err, "cannot weight by 'nosuchmetric': ", 33) == 0, "one sentence (%s)", err);
	}
	{
		const char *a[] = { path("in.perf"), "-o", path("no/such/dir/x.svg") };
		is_int(run(err, sizeof err, 3, a), REP_E_CANTCREAT,
		       "an output that cannot be created: REP_E_CANTCREAT");
	}
	{
		const char *a[] = { path("junk.txt") };
		is_int(run(err, sizeof err, 1, a), REP_E_DATA, "a file with no event: REP_E_DATA");
	}

	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	if (stat(errpath, &st) != 0)
		st.st_size = -1;
	/* (a failed test above says why on standard error, so this fails too) */
	ok(st.st_size == 0, "nothing was written on standard error (%lld bytes)", (long long)st.st_size);
	unlink(path("in.perf"));
	unlink(path("out.folded"));
	unlink(path("junk.txt"));
	unlink(errpath);
	rmdir(dir);
	return done_testing();
}
