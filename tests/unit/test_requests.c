/*
 * test_requests.c - the log-linear histogram, the decoder of the requests
 * tracer's messages (built with ei as the node would send them) and the
 * table's merge and writers.
 */
#include <stdlib.h>
#include <string.h>
#include <ei.h>
#include "tap.h"
#include "../../requests/hist.h"
#include "../../requests/req_table.h"
#include "../../requests/requests.h"
#include "../../tracer/tracer_proto.h"

static void buckets(void)
{
	int monotone = 1, contains = 1;
	for (uint64_t v = 0; v < 5000000; v += v < 1000 ? 1 : 997) {
		unsigned b = hist_bucket(v);
		if (v && b < hist_bucket(v - 1))
			monotone = 0;
		if (v < hist_bucket_low(b) || v >= hist_bucket_low(b) + hist_bucket_width(b))
			contains = 0;
	}
	ok(monotone, "bucket index never decreases with the value");
	ok(contains, "each value lies in its bucket's range");
	is_int(hist_bucket(31), 31, "exact below 32 us");
	is_int(hist_bucket(32), 32, "32 us starts the log-linear part");
	is_int(hist_bucket(64), 64, "64 us: next power of two");
	is_int(hist_bucket_width(hist_bucket(1000000)), 16384, "buckets near 1 s are 16.4 ms wide (under 3 %%)");
	is_int(hist_bucket(UINT64_MAX), HIST_BUCKETS - 1, "huge values land in the last bucket");
}

static void quantiles(void)
{
	struct hist *h = calloc(1, sizeof *h);
	is_int(hist_quantile(h, 0.5), 0, "empty: 0");
	for (uint64_t v = 1; v <= 10000; v++)
		hist_add(h, v * 10);   /* 10 us .. 100 ms, uniform */
	uint64_t p50 = hist_quantile(h, 0.5), p99 = hist_quantile(h, 0.99);
	ok(p50 > 50000 * 0.97 && p50 < 50000 * 1.03, "p50 of a uniform 0-100 ms is 50 ms within 3 %% (%llu)",
	   (unsigned long long)p50);
	ok(p99 > 99000 * 0.97 && p99 < 99000 * 1.03, "p99 within 3 %% (%llu)", (unsigned long long)p99);
	is_int(hist_quantile(h, 1.0), 100000, "p100 is the max, not past it");
	is_int(h->count, 10000, "count");
	struct hist *g = calloc(1, sizeof *g);
	hist_add(g, 7);
	hist_merge(g, h);
	is_int(g->count, 10001, "merge adds counts");
	is_int(g->sum, h->sum + 7, "merge adds sums");
	free(h);
	free(g);
}

/* {fp_req_window, 1, End, [{<<"create">>, <<"_total">>, 2, 300, 200, [{B1, 1}, {B2, 1}]}],
 *  [{<<"create">>, 200, [{<<"db">>, 150}], [<<"<0.1.0>">>]}],
 *  {2, 0, 1, 0, 0, 3, [<<"kv">>], 4, 1500000, 12345, 12400, 51, 5, 40, 1, [{<<"db">>, 2, 1}], 5}} */
/* What req_write_table() prints for t, in a buffer the caller frees. */
static char *table_text(const struct req_table *t, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		abort();
	req_write_table(f, t);
	fclose(f);
	return buf;
}

static void encode_window_id(ei_x_buff *x, const char *id, int idlen)
{
	ei_x_new_with_version(x);
	ei_x_encode_tuple_header(x, 6);
	ei_x_encode_atom(x, "fp_req_window");
	ei_x_encode_long(x, 1);
	ei_x_encode_longlong(x, 1700000000123456LL);
	ei_x_encode_list_header(x, 1);
	ei_x_encode_tuple_header(x, 6);
	ei_x_encode_binary(x, id, idlen);
	ei_x_encode_binary(x, "_total", 6);
	ei_x_encode_long(x, 2);
	ei_x_encode_long(x, 300);
	ei_x_encode_long(x, 200);
	ei_x_encode_list_header(x, 2);
	ei_x_encode_tuple_header(x, 2);
	ei_x_encode_long(x, hist_bucket(100));
	ei_x_encode_long(x, 1);
	ei_x_encode_tuple_header(x, 2);
	ei_x_encode_long(x, hist_bucket(200));
	ei_x_encode_long(x, 1);
	ei_x_encode_empty_list(x);
	ei_x_encode_empty_list(x);
	ei_x_encode_list_header(x, 1);
	ei_x_encode_tuple_header(x, 4);
	if (idlen == 6 && memcmp(id, "create", 6) == 0)
		ei_x_encode_binary(x, "cre\"ate", 7);
	else
		ei_x_encode_binary(x, id, idlen);
	ei_x_encode_long(x, 200);
	ei_x_encode_list_header(x, 1);
	ei_x_encode_tuple_header(x, 2);
	ei_x_encode_binary(x, "db", 2);
	ei_x_encode_long(x, 150);
	ei_x_encode_empty_list(x);
	ei_x_encode_list_header(x, 1);
	ei_x_encode_binary(x, "<0.1.0>", 7);
	ei_x_encode_empty_list(x);
	ei_x_encode_empty_list(x);
	ei_x_encode_tuple_header(x, 17);
	ei_x_encode_long(x, 2);
	ei_x_encode_long(x, 0);
	ei_x_encode_long(x, 1);
	ei_x_encode_long(x, 0);
	ei_x_encode_long(x, 0);
	ei_x_encode_long(x, 3);
	ei_x_encode_list_header(x, 1);
	ei_x_encode_binary(x, "kv", 2);
	ei_x_encode_empty_list(x);
	ei_x_encode_long(x, 4);
	ei_x_encode_long(x, 1500000);
	ei_x_encode_long(x, 12345);
	/* calls, entry messages (2 requests + 5 nested + 3 dropped + 40
	 * queued + 1 in flight), nested, queued, in flight, tiers outside */
	ei_x_encode_long(x, 12400);
	ei_x_encode_long(x, 51);
	ei_x_encode_long(x, 5);
	ei_x_encode_long(x, 40);
	ei_x_encode_long(x, 1);
	ei_x_encode_list_header(x, 1);
	ei_x_encode_tuple_header(x, 3);
	ei_x_encode_binary(x, "db", 2);
	ei_x_encode_long(x, 2);
	ei_x_encode_long(x, 1);
	ei_x_encode_empty_list(x);
	ei_x_encode_long(x, 5); /* overlap */
}

static void encode_window(ei_x_buff *x)
{
	encode_window_id(x, "create", 6);
}

static void decode_and_write(void)
{
	ei_x_buff x;
	struct req_msg *m = calloc(1, sizeof *m);
	char err[160];
	encode_window(&x);
	is_int(req_decode(x.buff, (size_t)x.index, m, err, sizeof err), REQ_MSG_WINDOW, "a window decodes");
	struct req_window *w = &m->window;
	is_int(w->nrows, 1, "one row");
	is_str(w->rows[0].tier, "_total", "its tier");
	is_int(w->rows[0].nbuckets, 2, "its buckets");
	is_int(w->nslow, 1, "one slow request");
	is_int(w->slow[0].tiers[0].us, 150, "with its db time");
	is_int(w->pauses, 1, "pauses");
	is_int(w->dropped, 3, "dropped");
	is_str(w->reloaded[0], "kv", "reloaded module");
	is_int(w->id_fun_failed, 4, "identity fun failures");
	is_int(w->paused_us, 1500000, "paused time");
	is_int(w->untraced, 12345, "entry calls not traced");
	is_int(w->calls, 12400, "the node's entry calls");
	is_int(w->entry_msgs, 51, "entry calls heard of");
	is_int(w->nested, 5, "nested");
	is_int(w->queued, 40, "dropped unread");
	is_int(w->in_flight, 1, "in flight at the end");
	is_int(w->ntier_out, 1, "a tier outside requests");
	is_str(w->tier_out[0].tier, "db", "its name");
	is_int(w->tier_out[0].after_end + 10 * w->tier_out[0].no_request, 12, "after the end, under no request");
	is_int(w->overlap, 5, "entry calls in a pause's count and traced");

	struct req_table t;
	memset(&t, 0, sizeof t);
	is_int(req_table_merge(&t, w), 0, "merged");
	is_int(req_table_merge(&t, w), 0, "merged twice");
	is_int(t.cells[0].total.count, 4, "the total holds both windows");
	is_int(t.cells[0].window.count, 2, "the window only the last");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	req_write_stats(f, &t, w->end_us);
	req_write_slow(f, w);
	req_write_table(f, &t);
	fclose(f);
	ok(strstr(buf, "{\"window_end\":\"2023-11-14T22:13:20.123Z\",\"identity\":\"create\",\"tier\":\"_total\",\"count\":2,\"sum_us\":300,\"mean_us\":150,\"p50_us\":101,") != NULL,
	   "a stats line with the documented fields");
	ok(strstr(buf, "\"identity\":\"cre\\\"ate\",\"total_us\":200,\"tiers\":{\"db\":150},\"pids\":[\"<0.1.0>\"]}") != NULL,
	   "a slow line, its identity escaped");
	ok(strstr(buf, "create    _total        4") != NULL, "the table's row");
	ok(strstr(buf, "\"max_us\":200,\"paused_us\":1500000,\"untraced_calls\":12340,\"identity_fun_failed\":4,\"entry_calls\":12400,\"dropped_calls\":43}") != NULL,
	   "a stats line ends with the window's pause, untraced calls, identity fun failures, entry calls and dropped ones");
	ok(strstr(buf, "# covers part of the run: the circuit breaker paused tracing 1 time(s), 3.0 s\n") != NULL,
	   "the table says it covers part of the run (the run's length unknown)");
	ok(strstr(buf, "# 24800 entry calls on the node (its call_count): 4 in the table (8 of them _identity_fun_failed), 24680 not traced while the circuit breaker paused tracing, 86 dropped when it tripped (80 unread in the tracer's queue, 6 requests in flight), 2 still running at the end, 10 inside a request of the same process (counted with it), 18 not traced while the entry pattern was switched (at the stop, or in flight at a pause's end)\n") != NULL,
	   "every entry call accounted for: the parts add up to the node's count");
	ok(strstr(buf, "# tier db: in 0 of 4 requests; 4 of its calls returned after their request had ended or was dropped (in no row); 2 ran under the token of no recent request (an older one's, or the application's own: in no row)\n") != NULL,
	   "a tier short of _total says why");
	ok(!strstr(buf, "counted nowhere"), "nothing counted nowhere");
	ok(strstr(buf, "# 8 requests named _identity_fun_failed") != NULL, "and how many the identity fun failed to name");
	free(buf);
	buf = NULL;
	t.run_us = 10000000;
	t.sample_permille = 250;
	buf = table_text(&t, &len);
	ok(strstr(buf, "# covers 70.0 % of the run: the circuit breaker paused tracing 1 time(s), 3.0 s of 10.0 s") != NULL,
	   "with the run's length, the share it covers");
	ok(strstr(buf, "# a sample: requests started only in the first 250 ms of each second") != NULL, "and a sample says so");
	ok(strstr(buf, ", 18 not traced outside the sample, or while the entry pattern was switched\n") != NULL,
	   "calls outside the sample are named so");
	free(buf);
	buf = NULL;
	t.entry_msgs += 7;
	t.cut_short = 1;
	buf = table_text(&t, &len);
	ok(strstr(buf, ", 7 heard of and counted nowhere (please report it) (up to the tracer's last window: the run did not end normally)\n") != NULL,
	   "calls heard of but in no part are said, not lost; a run cut short says so");
	free(buf);
	req_table_free(&t);

	/* past REQ_MAX_CELLS pairs, new ones are counted, not kept */
	memset(&t, 0, sizeof t);
	char name[32];
	int merged = 1;
	for (int k = 0; k < REQ_MAX_CELLS + 5; k++) {
		snprintf(name, sizeof name, "id%d", k);
		char *keep = w->rows[0].identity;
		w->rows[0].identity = name;
		merged &= req_table_merge(&t, w) == 0;
		w->rows[0].identity = keep;
	}
	ok(merged, "merging past the bound succeeds");
	is_int(t.ncells, REQ_MAX_CELLS, "the table keeps REQ_MAX_CELLS pairs");
	is_int(t.cells_left_out, 5, "and counts the rows left out");
	req_table_free(&t);
	req_window_free(w);

	/* every truncation of the message is refused, never read past */
	int refused = 1;
	for (int n = 1; n < x.index; n++) {
		int k = req_decode(x.buff, (size_t)n, m, err, sizeof err);
		if (k == REQ_MSG_WINDOW) {
			refused = 0;
			req_window_free(&m->window);
		}
	}
	ok(refused, "every truncated window is refused");
	ei_x_free(&x);

	ei_x_new_with_version(&x);
	ei_x_encode_tuple_header(&x, 4);
	ei_x_encode_atom(&x, "fp_req_error");
	ei_x_encode_long(&x, 1);
	ei_x_encode_atom(&x, "nomatch");
	ei_x_encode_binary(&x, "pattern 'a:b/1' matches no function", 35);
	is_int(req_decode(x.buff, (size_t)x.index, m, err, sizeof err), REQ_MSG_ERROR, "an error decodes");
	is_str(m->reason, "nomatch", "its reason");
	ei_x_free(&x);
	free(m);
}

/* Identities are whatever clients send: a terminal escape, a NUL, bytes
 * that are not UTF-8, a C1 control. The window decodes (a NUL does not end
 * the run), the table shows escapes, the JSON stays valid UTF-8. */
static void hostile_identity(void)
{
	static const char id[] = "\x1b]0;pwn\x07" "a\0b\xff\xc2\x9b[2J\"\\";
	ei_x_buff x;
	struct req_msg *m = calloc(1, sizeof *m);
	struct req_table t;
	char err[160], *buf = NULL;
	size_t len = 0;
	FILE *f;
	encode_window_id(&x, id, (int)sizeof id - 1);
	is_int(req_decode(x.buff, (size_t)x.index, m, err, sizeof err), REQ_MSG_WINDOW,
	       "a window whose identity holds a NUL decodes");
	is_str(m->window.rows[0].identity, "\x1b]0;pwn\x07" "a\xef\xbf\xbd" "b\xff\xc2\x9b[2J\"\\",
	       "the NUL became U+FFFD");
	memset(&t, 0, sizeof t);
	is_int(req_table_merge(&t, &m->window), 0, "merged");
	buf = table_text(&t, &len);
	ok(!memchr(buf, 0x1b, len) && !memchr(buf, 0x07, len) && !strstr(buf, "\xc2\x9b"),
	   "no ESC, BEL or CSI reaches the table");
	ok(strstr(buf, "\\x1b]0;pwn\\x07a\xef\xbf\xbd" "b\\xff\\x9b[2J\"\\") != NULL,
	   "controls and bytes that are not UTF-8 are shown as \\xNN (C1 by its second byte), UTF-8 passes");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	req_write_stats(f, &t, m->window.end_us);
	req_write_slow(f, &m->window);
	fclose(f);
	ok(strstr(buf, "\"identity\":\"\\u001b]0;pwn\\u0007a\xef\xbf\xbd" "b\\ufffd\\u009b[2J\\\"\\\\\"") != NULL,
	   "JSON: controls (C1 too) as \\u00XX, a byte that is not UTF-8 as \\ufffd, quotes escaped");
	free(buf);
	req_table_free(&t);
	req_window_free(&m->window);
	ei_x_free(&x);
	free(m);
}

/* The table tracer/ reads the tracer's messages by (tracer_recv()): a
 * window goes on, stopped ends the session, and a window nobody takes
 * (before the start) is dropped whole (ASan's leak check). */
static void table(void)
{
	const struct tracer_body *w = tracer_body_of(&req_proto, REQ_MSG_WINDOW),
				 *st = tracer_body_of(&req_proto, REQ_MSG_STOPPED);
	ei_x_buff x;
	struct req_msg *m = calloc(1, sizeof *m);
	char err[160];
	ok(w && !w->ends && w->drop, "a window is a body that does not end the session and can be dropped");
	ok(st && st->ends, "stopped ends it");
	ok(!tracer_body_of(&req_proto, REQ_MSG_ERROR), "the first words are tracer/'s own, no body of the table");
	is_int((int)req_proto.msg_size, (int)sizeof *m, "read into a struct req_msg");
	encode_window(&x);
	is_int(req_decode(x.buff, (size_t)x.index, m, err, sizeof err), REQ_MSG_WINDOW, "a window decodes");
	if (w && w->drop)
		w->drop(m);
	ok(m->window.nrows == 0 && !m->window.rows, "and is dropped whole");
	ei_x_free(&x);
	free(m);
}

int main(void)
{
	subtest("buckets", buckets);
	subtest("quantiles", quantiles);
	subtest("decode and write", decode_and_write);
	subtest("hostile identities", hostile_identity);
	subtest("the table tracer/ reads by", table);
	return done_testing();
}
