/*
 * test_cli.c - parts of the front door (cli/) and the capture (capture/)
 * that need no node: the capture's write step on an empty batch (a batch
 * of 0 samples is normal: a window where nothing selected ran), and
 * --cookie-file's two forms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "../../capture/cap_batch.h"
#include "../../cli/cookie_files.h"
#include "../../cli/optparse.h"

/* A batch of no samples: qsort(NULL, 0, ...) is undefined behaviour
 * (glibc declares its first argument nonnull), and UBSan stops the run. */
static void test_empty_batch(void)
{
	struct fmt_options fo = { 0 };
	fmt_ctx *fmt = fmt_create(&fo);
	struct cap_batch o;
	ok(fmt != NULL, "formatter created");
	is_int(cap_batch_init(&o, fmt, NULL), 0, "batch writer set up");
	is_int(cap_batch_write(&o, NULL, 0), 0, "an empty first batch is written (nothing)");
	is_int(cap_batch_write(&o, NULL, 0), 0, "and a second one");
	cap_batch_free(&o);
	fmt_free(fmt);
}

/* --cookie-file FILE and NODE=FILE */
static void test_cookie_files(void)
{
	const char *plain = NULL;
	char d[256];
	fp_cookie_files_reset();
	is_int(fp_cookie_file_option("/etc/ck", "--cookie-file", &plain, d, sizeof d), FP_OPT_OK, "a path");
	is_str(plain, "/etc/ck", "... is the plain form");
	is_int(fp_cookie_file_option("/x/a=b", "--cookie-file", &plain, d, sizeof d), FP_OPT_OK, "a path with '='");
	is_str(plain, "/x/a=b", "... is a path");
	is_int(fp_cookie_file_option("./a@b=c", "--cookie-file", &plain, d, sizeof d), FP_OPT_OK, "./a@b=c");
	is_str(plain, "./a@b=c", "... is a path ('./' is no node name)");
	is_int(fp_cookie_file_option("app@db1=/srv/a/cookie", "--cookie-file", &plain, d, sizeof d), FP_OPT_OK,
	       "NODE=FILE");
	is_str(plain, "./a@b=c", "... leaves the plain form as it was");
	is_str(fp_cookie_file_for("app@db1"), "/srv/a/cookie", "... is that node's file");
	ok(fp_cookie_file_for("app@db2") == NULL, "another node has none");
	is_int(fp_cookie_file_option("b@db1.example.com=/srv/b=c", "--cookie-file", &plain, d, sizeof d), FP_OPT_OK,
	       "a long name, a file with '='");
	is_str(fp_cookie_file_for("b@db1.example.com"), "/srv/b=c", "... split at the first '='");
	is_int(fp_cookie_file_option("app@db1=/other", "--cookie-file", &plain, d, sizeof d), FP_OPT_USAGE,
	       "a node given twice");
	is_str(d, "--cookie-file gives the cookie of 'app@db1' twice", "... says so");
	is_int(fp_cookie_file_option("app@db3=", "--cookie-file", &plain, d, sizeof d), FP_OPT_USAGE, "no file");
	is_str(d, "--cookie-file 'app@db3=' names no file; give it as --cookie-file NODE=FILE", "... says so");
	const char *nodes[] = { "app@db1", "x@y" };
	is_str(fp_cookie_files_unknown(nodes, 2), "b@db1.example.com", "a NODE=FILE for a node not given is found");
	const char *all[] = { "b@db1.example.com", "app@db1" };
	ok(fp_cookie_files_unknown(all, 2) == NULL, "none when every one is given");
	fp_cookie_files_reset();
	ok(fp_cookie_file_for("app@db1") == NULL, "reset forgets them");
}

int main(void)
{
	subtest("an empty batch", test_empty_batch);
	subtest("--cookie-file FILE and NODE=FILE", test_cookie_files);
	return done_testing();
}
