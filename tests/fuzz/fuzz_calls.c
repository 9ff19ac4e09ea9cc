/*
 * fuzz_calls.c - libFuzzer over the tracer's messages (calls/calls_decode.c)
 * and the writers that print what it decoded (calls/calls_out.c): any
 * input is refused or decoded into rows that sort and print without a
 * crash, a leak or an over-read.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../calls/calls_out.h"
#include "../../calls/calls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct calls_msg m;
	char err[160];
	/* an exact-size copy, so that an over-read is caught by ASan */
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (!sink)
		sink = fopen("/dev/null", "w");
	if (calls_decode(buf, size, &m, err, sizeof err) == CALLS_MSG_RESULT) {
		calls_sort(&m.result);
		if (sink) {
			calls_write_table(sink, &m.result, 3);
			calls_write_json(sink, &m.result, "fuzz@host");
			calls_write_folded(sink, &m.result);
		}
		calls_result_free(&m.result);
	}
	free(buf);
	return 0;
}
