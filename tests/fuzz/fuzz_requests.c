/*
 * fuzz_requests.c - libFuzzer over the requests tracer's messages
 * (requests/requests_decode.c) and what is made of a window: the table's
 * merge (requests/req_table.c, requests/hist.c) and its writers. Any input
 * is refused or decoded into a window that merges and prints without a
 * crash, a leak or an over-read; the JSON lines are valid UTF-8 with no raw
 * control character, and the table carries no control character (C0, DEL,
 * C1) to the terminal (identities come from clients).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_input.h"
#include "../../common/text.h"
#include "../../requests/req_table.h"
#include "../../requests/requests.h"

/* No control character but the newline (C0, DEL, C1 as UTF-8); utf8:
 * and valid UTF-8 throughout. */
static void check_clean(const char *s, size_t len, int utf8)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		size_t n = fp_utf8_seq(p + i, len - i);
		if ((utf8 && n == 0) || (p[i] < 0x20 && p[i] != '\n') || p[i] == 0x7f ||
		    (n == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0))
			abort();
		i += n ? n : 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct req_msg m;
	char err[160];
	char *buf = fuzz_copy(data, size);
	if (!buf)
		return 0;
	FILE *sink = fuzz_sink();
	if (req_decode(buf, size, &m, err, sizeof err) == REQ_MSG_WINDOW) {
		struct req_table t;
		memset(&t, 0, sizeof t);
		if (req_table_merge(&t, &m.window) == 0 && sink) {
			char *out = NULL, *tab = NULL;
			size_t len = 0, tlen = 0;
			FILE *json = open_memstream(&out, &len), *table = open_memstream(&tab, &tlen);
			req_table_sort(&t);
			if (json && table) {
				req_write_table(table, &t);
				req_write_stats(json, &t, m.window.end_us);
				req_write_slow(json, &m.window);
				fclose(json);
				fclose(table);
				check_clean(out, len, 1);
				check_clean(tab, tlen, 0);
				free(out);
				free(tab);
			} else {
				if (json)
					fclose(json);
				if (table)
					fclose(table);
				free(out);
				free(tab);
			}
		}
		req_table_free(&t);
		req_window_free(&m.window);
	}
	free(buf);
	return 0;
}
