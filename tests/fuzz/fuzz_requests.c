/*
 * fuzz_requests.c - libFuzzer over the requests tracer's messages
 * (sampler/requests_decode.c) and what is made of a window: the table's
 * merge (requests/req_table.c, requests/hist.c) and its writers. Any input
 * is refused or decoded into a window that merges and prints without a
 * crash, a leak or an over-read; the JSON lines are valid UTF-8 with no raw
 * control character, and the table carries no control character to the
 * terminal (identities come from clients).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../common/text.h"
#include "../../requests/req_table.h"
#include "../../sampler/requests.h"

/* Valid UTF-8, and no control character but the newline. */
static void check_clean(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		size_t n = fp_utf8_seq(p + i, len - i);
		if (n == 0 || (p[i] < 0x20 && p[i] != '\n') || p[i] == 0x7f)
			abort();
		i += n;
	}
}

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
				check_clean(out, len);
				/* the table: no C0, DEL or C1 control reaches the terminal */
				check_clean(tab, tlen);
				for (size_t i = 0; i + 1 < tlen; i++)
					if ((unsigned char)tab[i] == 0xc2 && (unsigned char)tab[i + 1] < 0xa0 &&
					    (unsigned char)tab[i + 1] >= 0x80)
						abort();
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
