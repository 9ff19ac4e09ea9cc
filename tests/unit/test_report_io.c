/*
 * test_report_io.c - reading inputs (zstd, gzip, plain; concatenated and
 * truncated), directories, and fp_report_main's exit statuses end to end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "tap.h"
#include "../../report/rep_input.h"
#include "../../cli/report_opts.h"
#include "../../report/report.h"

static char dir[64];

static char *path(const char *name)
{
	return tap_path(dir, name);
}

static void put(const char *name, const void *data, size_t len)
{
	FILE *f = fopen(path(name), "wb");
	fwrite(data, 1, len, f);
	fclose(f);
}

static size_t zst(const char *s, char *out, size_t cap)
{
	return ZSTD_compress(out, cap, s, strlen(s), 3);
}

static size_t gz(const char *s, char *out, size_t cap)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (Bytef *)(uintptr_t)s;
	z.avail_in = (uInt)strlen(s);
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)cap;
	deflate(&z, Z_FINISH);
	deflateEnd(&z);
	return cap - z.avail_out;
}

/* Reads every line of a file, joined with '|'. */
static char *lines(const char *name, int *truncated, int *rc_out)
{
	enum rep_in_err e;
	char d[128];
	static char acc[1 << 16];
	const char *l;
	size_t n, k = 0;
	int rc;
	rep_input *in = rep_input_open(path(name), &e, d, sizeof d);
	acc[0] = 0;
	if (!in) {
		*rc_out = e;
		return acc;
	}
	while ((rc = rep_input_line(in, &l, &n)) > 0) {
		if (k + n + 2 < sizeof acc) {
			if (k)
				acc[k++] = '|';
			memcpy(acc + k, l, n);
			k += n;
			acc[k] = 0;
		}
	}
	*rc_out = rc;
	*truncated = rep_input_truncated(in);
	rep_input_close(in);
	return acc;
}

/* Two compressed pieces one after the other in both, written as name. */
static void put_two(const char *name, char *both, const char *a, size_t na, const char *b, size_t nb)
{
	memcpy(both, a, na);
	memcpy(both + na, b, nb);
	put(name, both, na + nb);
}

static void test_codecs(void)
{
	char a[4096], b[4096], both[8192];
	size_t na, nb;
	int tr = 0, rc;
	put("plain", "x\ny\n\nz", 6);
	is_str(lines("plain", &tr, &rc), "x|y||z", "plain text, last line without newline");
	na = zst("one\ntwo\n", a, sizeof a);
	nb = zst("three\n", b, sizeof b);
	put_two("z2", both, a, na, b, nb);
	is_str(lines("z2", &tr, &rc), "one|two|three", "two zstd frames");
	ok(!tr && rc == 0, "complete");
	put("zcut", both, na + nb - 3);
	is_str(lines("zcut", &tr, &rc), "one|two", "a cut last zstd frame: the first frame still reads");
	ok(tr && rc == 0, "reported as truncated, not as an error");
	na = gz("g1\n", a, sizeof a);
	nb = gz("g2\ng3\n", b, sizeof b);
	put_two("g2", both, a, na, b, nb);
	is_str(lines("g2", &tr, &rc), "g1|g2|g3", "two gzip members");
	ok(!tr, "complete");
	put("gcut", both, na + nb - 10);
	lines("gcut", &tr, &rc);
	ok(tr && rc == 0, "a cut gzip member is reported as truncated");
	both[na + 12] ^= 0x55;
	put("zbad", "\x28\xb5\x2f\xfd garbage garbage", 20);
	lines("zbad", &tr, &rc);
	is_int(rc, REP_IN_CORRUPT, "corrupt zstd is an error");
	lines("nonexistent", &tr, &rc);
	is_int(rc, REP_IN_OPEN, "missing file");
}

static void test_long_line(void)
{
	size_t n = 9 << 20; /* longer than the 4 MiB buffer */
	char *s = malloc(n + 3);
	int tr, rc;
	enum rep_in_err e;
	char d[64];
	const char *l;
	size_t len;
	rep_input *in;
	memset(s, 'a', n);
	memcpy(s + n, "\nb", 2);
	put("long", s, n + 2);
	in = rep_input_open(path("long"), &e, d, sizeof d);
	is_int(rep_input_line(in, &l, &len), 1, "long line read");
	is_int(len, n, "whole");
	is_int(rep_input_line(in, &l, &len), 1, "next line");
	ok(len == 1 && l[0] == 'b', "after the long one");
	is_int(rep_input_line(in, &l, &len), 0, "end");
	rep_input_close(in);
	(void)tr;
	(void)rc;
	free(s);
}

/* A run of empty lines is handed out as one: a blank line ends an event,
 * more of them say nothing, and one call per line let a small zstd file of
 * newlines hold the report for a minute. */
static void test_blank_runs(void)
{
	size_t n = 9 << 20; /* longer than the 4 MiB buffer: the run spans refills */
	char *s = malloc(n + 16), *z;
	int tr = 0, rc;
	size_t zn;
	memcpy(s, "a\n", 2);
	memset(s + 2, '\n', n);
	memcpy(s + 2 + n, "b\n \n\nc\n", 7);
	zn = ZSTD_compressBound(n + 9);
	z = malloc(zn);
	zn = ZSTD_compress(z, zn, s, n + 9, 3);
	put("blanks", z, zn);
	is_str(lines("blanks", &tr, &rc), "a||b| ||c", "9 MiB of empty lines come out as one empty line");
	is_int(rc, 0, "and the file reads to its end");
	put("blanks_plain", "x\n\n\n\ny\n\n", 8);
	is_str(lines("blanks_plain", &tr, &rc), "x||y|", "plain text alike");
	free(z);
	free(s);
}

static void test_expand(void)
{
	char **paths = NULL, d[128];
	size_t n = 0, cap = 0;
	mkdir(path("cap"), 0755);
	put("cap/flameprof_n_2.perf.zst", "", 0);
	put("cap/flameprof_n_1.perf.gz", "", 0);
	put("cap/.flameprof_n_3.perf.zst", "", 0);
	put("cap/notes.txt", "", 0);
	is_int(rep_input_expand(path("cap"), &paths, &n, &cap, d, sizeof d), 2,
	       "directory: two files, not the dotfile nor other names");
	ok(n == 2 && strstr(paths[0], "_1.perf") && strstr(paths[1], "_2.perf"), "sorted by name");
	is_int(rep_input_expand(path("plain"), &paths, &n, &cap, d, sizeof d), 1, "a file is itself");
	is_int(rep_input_expand(path("nope"), &paths, &n, &cap, d, sizeof d), -1, "missing");
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

static int run(const char *a1, const char *a2, const char *a3, const char *a4, const char *a5)
{
	char *av[8] = { "report" };
	int ac = 1;
	const char *in[] = { a1, a2, a3, a4, a5 };
	for (int i = 0; i < 5 && in[i]; i++)
		av[ac++] = (char *)(uintptr_t)in[i];
	av[ac] = NULL;
	return fp_report_main(ac, av);
}

/* The whole file, NUL-terminated (the caller frees it); "" when unreadable. */
static char *slurp(const char *p)
{
	FILE *f = fopen(p, "r");
	long len = 0;
	char *out;
	if (f && fseek(f, 0, SEEK_END) == 0)
		len = ftell(f);
	out = calloc(1, len > 0 ? (size_t)len + 1 : 1);
	if (f && out && len > 0) {
		rewind(f);
		if (fread(out, 1, (size_t)len, f) != (size_t)len)
			out[0] = 0;
	}
	if (f)
		fclose(f);
	return out;
}

static void test_main(void)
{
	static const char ev[] =
		"running 1/0 [000] 10.5: 1 cpu-clock:\n\t0 m:f/0 (m.erl:1)\n\n"
		"running 1/0 [000] 10.7: 1 cpu-clock:\n\t0 m:f/0 (m.erl:1)\n\n"
		"waiting 2/0 [000] 11.1: 1 cpu-clock:\n\t0 m:g/0 (m.erl:1)\n\n";
	char z[4096], *out = NULL;
	size_t nz = zst(ev, z, sizeof z);
	put("cap/flameprof_n_1.perf.gz", ev, strlen(ev));
	put("cap/flameprof_n_2.perf.zst", z, nz);
	is_int(run(path("cap"), "-f", "folded", "-o", path("out.folded")), 0, "directory, mixed codecs");
	out = slurp(path("out.folded"));
	is_str(out, "running;m:f/0 4\n", "both files counted; the default keeps the on-CPU samples only");
	free(out);
	{
		char *av[] = { "report", (char *)path("cap"), "--status", "all", "-f", "folded", "-o",
			       (char *)path("out_all.folded"), NULL };
		is_int(fp_report_main(8, av), 0, "--status all");
	}
	out = slurp(path("out_all.folded"));
	is_str(out, "running;m:f/0 4\nwaiting;m:g/0 2\n", "--status all: the waiting samples too (the wall-clock view)");
	free(out);
	is_int(run(path("cap"), "-q", "-o", path("out.svg"), NULL), 0, "svg");
	is_int(run(path("nope"), "-o", path("x"), NULL, NULL), 66, "missing input: 66");
	put("empty_dir_marker", "", 0);
	mkdir(path("empty"), 0755);
	is_int(run(path("empty"), "-o", path("x"), NULL, NULL), 66, "directory without captures: 66");
	put("garbage", "hello\nworld\n", 12);
	is_int(run(path("garbage"), "-o", path("x"), NULL, NULL), 65, "no events: 65");
	put("zbad2", "\x28\xb5\x2f\xfd garbage garbage", 20);
	is_int(run(path("zbad2"), "-o", path("x"), NULL, NULL), 65, "corrupt zstd: 65");
	is_int(run(path("cap"), "-o", path("no/such/dir/x.svg"), NULL, NULL), 73, "cannot create: 73");
	is_int(run(path("cap"), "--frobnicate", NULL, NULL, NULL), 64, "unknown option: 64");
	is_int(run(path("cap"), "-w", "memory", "-o", path("x")), 64, "no such metric: 64");
}

/* Two events of 300,000 frames each, through every format under the
 * sanitizers: the writers walk the tree on their own stack (a recursion
 * per frame overflowed the C stack here). */
static void test_deep(void)
{
	static const char *const fmts[] = { "svg", "heatmap", "folded", "speedscope", "pprof", "html" };
	FILE *f = fopen(path("deep.perf"), "w");
	char out[64];
	for (int e = 0; e < 2; e++) {
		fprintf(f, "running 1/0 [000] 10.%d: 1 cpu-clock:\n", e + 1);
		for (int i = 0; i < 300000; i++)
			fprintf(f, "\t0 m:f%d/0 (m.erl:%d)\n", i % 997, i % 50 + 1);
		fputc('\n', f);
	}
	fclose(f);
	for (size_t k = 0; k < sizeof fmts / sizeof *fmts; k++) {
		snprintf(out, sizeof out, "deep.%s", fmts[k]);
		{
			char *av[] = { "report", path("deep.perf"), "-q", "-f", (char *)(uintptr_t)fmts[k], "-o",
				       path(out), NULL };
			is_int(fp_report_main(7, av), 0, "300,000 frames a stack: %s", fmts[k]);
		}
	}
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/fp_report_io.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	subtest("codecs", test_codecs);
	subtest("a line longer than the buffer", test_long_line);
	subtest("runs of empty lines", test_blank_runs);
	subtest("directory expansion", test_expand);
	subtest("report_main", test_main);
	subtest("300,000 frames a stack", test_deep);
	{
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "# could not remove %s\n", dir);
	}
	return done_testing();
}
