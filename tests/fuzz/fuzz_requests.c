/*
 * fuzz_requests.c - libFuzzer over the requests tracer's messages
 * (sampler/requests_decode.c) and what is made of a window: the table's
 * merge (requests/req_table.c, requests/hist.c) and its writers. Any input
 * is refused or decoded into a window that merges and prints without a
 * crash, a leak or an over-read.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../requests/req_table.h"
#include "../../sampler/requests.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	static struct req_msg m;
	char err[160];
	/* an exact-size copy, so that an over-read is caught by ASan */
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (!sink)
		sink = fopen("/dev/null", "w");
	if (req_decode(buf, size, &m, err, sizeof err) == REQ_MSG_WINDOW) {
		struct req_table t;
		memset(&t, 0, sizeof t);
		if (req_table_merge(&t, &m.window) == 0 && sink) {
			req_table_sort(&t);
			req_write_table(sink, &t);
			req_write_stats(sink, &t, m.window.end_us);
			req_write_slow(sink, &m.window);
		}
		req_table_free(&t);
		req_window_free(&m.window);
	}
	free(buf);
	return 0;
}
