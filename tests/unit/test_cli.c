/*
 * test_cli.c - parts of the front door (cli/) that need no node: the
 * capture's write step on an empty batch (a batch of 0 samples is normal:
 * a window where nothing selected ran), and --cookie-file's two forms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "../../cli/batch_out.h"

/* A batch of no samples: qsort(NULL, 0, ...) is undefined behaviour
 * (glibc declares its first argument nonnull), and UBSan stops the run. */
static void test_empty_batch(void)
{
	struct fmt_options fo = { 0 };
	fmt_ctx *fmt = fmt_create(&fo);
	struct fp_batch_out o;
	ok(fmt != NULL, "formatter created");
	is_int(fp_batch_out_init(&o, fmt, NULL), 0, "batch writer set up");
	is_int(fp_batch_write(&o, NULL, 0), 0, "an empty first batch is written (nothing)");
	is_int(fp_batch_write(&o, NULL, 0), 0, "and a second one");
	fp_batch_out_free(&o);
	fmt_free(fmt);
}

int main(void)
{
	subtest("an empty batch", test_empty_batch);
	return done_testing();
}
