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
#include "fuzz_input.h"
#include "../../calls/calls_out.h"
#include "../../calls/calls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct calls_msg m;
	char err[160];
	char *buf = fuzz_copy(data, size);
	if (!buf)
		return 0;
	FILE *sink = fuzz_sink();
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
