/*
 * test_calls.c - calls/calls_decode.c and calls/calls_out.c without a
 * node.
 *
 * The tracer's result message is built with ei exactly as
 * flameprof_tracer.erl sends it, decoded, sorted and written as a table,
 * JSON and folded lines, and the text is compared with what tprof's layout
 * gives for the same rows. Then every truncation and every changed byte of
 * the message: nothing may crash, leak or be accepted half-read.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ei.h>

#include "ei_enc.h"
#include "tap.h"
#include "../../calls/calls_out.h"
#include "../../calls/calls.h"
#include "../../tracer/tracer_proto.h"


struct row { const char *m, *f; int a; const char *pid; long long calls, measure; const char *name; };

/* {fp_calls_result, 1, Type, Rows, Reloaded, {Elapsed, LeftOut}} */
static void result_msg(ei_x_buff *x, const char *type, const struct row *rows, int n, const char *reloaded)
{
	E(ei_x_new_with_version(x));
	tup(x, 6); atom(x, "fp_calls_result"); lng(x, 1); atom(x, type);
	if (n)
		E(ei_x_encode_list_header(x, n));
	for (int k = 0; k < n; k++) {
		tup(x, 7); bin(x, rows[k].m); bin(x, rows[k].f); lng(x, rows[k].a); bin(x, rows[k].pid);
		bin(x, rows[k].name ? rows[k].name : "");
		lng(x, rows[k].calls); lng(x, rows[k].measure);
	}
	E(ei_x_encode_empty_list(x));
	if (reloaded) {
		E(ei_x_encode_list_header(x, 1));
		bin(x, reloaded);
	}
	E(ei_x_encode_empty_list(x));
	tup(x, 3); lng(x, 1500000); lng(x, 0);
	if (strcmp(type, "call_time") == 0) {
		tup(x, 3); atom(x, "overload"); lng(x, 350); lng(x, 200);
	} else {
		atom(x, "stopped");
	}
}

/* Runs a writer into memory; the text is the caller's to free. */
static char *written(int (*w)(FILE *, const struct calls_result *, size_t), const struct calls_result *r, size_t top)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f || w(f, r, top) != 0)
		abort();
	fclose(f);
	return buf;
}

static int table_w(FILE *f, const struct calls_result *r, size_t top) { return calls_write_table(f, r, top); }
static int json_w(FILE *f, const struct calls_result *r, size_t top) { (void)top; return calls_write_json(f, r, "a@b"); }
static int folded_w(FILE *f, const struct calls_result *r, size_t top) { (void)top; return calls_write_folded(f, r); }

static void test_time_table(void)
{
	static const struct row rows[] = {
		{ "lists", "seq_loop", 3, "", 5, 32, "" },
		{ "test", "test_spawn", 0, "", 1, 14, "" },
		{ "erlang", "spawn_opt", 4, "", 1, 64, "" },
	};
	ei_x_buff x;
	struct calls_msg m;
	char err[160];
	result_msg(&x, "call_time", rows, 3, "test");
	is_int(calls_decode(x.buff, (size_t)x.index, &m, err, sizeof err), CALLS_MSG_RESULT, "a result decodes");
	is_int(m.result.type, CALLS_TIME, "its type is time");
	is_int(m.result.nrows, 3, "three rows");
	is_str(m.result.rows[0].mfa, "lists:seq_loop/3", "mfa text");
	is_int(m.result.nreloaded, 1, "one reloaded module");
	is_str(m.result.reloaded[0], "test", "named");
	is_int(m.result.elapsed_us, 1500000, "elapsed");
	ok(m.result.overload && m.result.run_queue == 350 && m.result.run_queue_limit == 200,
	   "an early end for overload, with the run queue and the limit");
	calls_sort(&m.result);
	is_str(m.result.rows[0].mfa, "erlang:spawn_opt/4", "sorted from the largest time");
	char *t = written(table_w, &m.result, 0);
	is_str(t,
	       "FUNCTION            CALLS  TIME (us)  PER CALL  [     %]\n"
	       "erlang:spawn_opt/4      1         64     64.00  [ 58.18]\n"
	       "lists:seq_loop/3        5         32      6.40  [ 29.09]\n"
	       "test:test_spawn/0       1         14     14.00  [ 12.73]\n"
	       "                        7        110            [ 100.0]\n",
	       "the table has tprof's columns, widths and total line");
	free(t);
	t = written(table_w, &m.result, 1);
	ok(strstr(t, "erlang:spawn_opt/4") && !strstr(t, "lists:seq_loop/3") && strstr(t, "\n... 2 more\n") &&
	   strstr(t, "110"), "--top 1 keeps the largest row, marks the rest and keeps the whole total");
	free(t);
	t = written(json_w, &m.result, 0);
	ok(strstr(t, "{\"mfa\": \"erlang:spawn_opt/4\", \"calls\": 1, \"time_us\": 64, \"per_call\": 64.00, \"percent\": 58.18}") != NULL,
	   "JSON rows carry mfa, calls, time_us, per_call, percent");
	ok(strstr(t, "\"reloaded\": [\"test\"]") && strstr(t, "\"type\": \"time\"") && !strstr(t, "pid"),
	   "JSON says the type and the reloaded modules, and no pid for totals");
	ok(strstr(t, "\"ended_early\": {\"run_queue\": 350, \"limit\": 200}") != NULL, "JSON says the run ended early, and why");
	free(t);
	t = written(folded_w, &m.result, 0);
	is_str(t, "erlang:spawn_opt/4 64\nlists:seq_loop/3 32\ntest:test_spawn/0 14\n", "folded lines");
	free(t);
	calls_result_free(&m.result);
	ei_x_free(&x);
}

static void test_per_process_and_count(void)
{
	static const struct row rows[] = {
		{ "m", "f", 1, "<0.10.0>", 2, 30, "kv_server" },
		{ "m", "g", 0, "<0.11.0>", 1, 10, "rabbit_channel:init/1" },
		{ "m", "g", 0, "<0.10.0>", 4, 60, "kv_server" },
		{ "m", "h", 2, "<0.9.0>", 1, 5, "" },
	};
	ei_x_buff x;
	struct calls_msg m;
	char err[160];
	result_msg(&x, "call_memory", rows, 4, NULL);
	is_int(calls_decode(x.buff, (size_t)x.index, &m, err, sizeof err), CALLS_MSG_RESULT, "per-process rows decode");
	calls_sort(&m.result);
	char *t = written(table_w, &m.result, 0);
	is_str(t,
	       "****** Process <0.10.0> (kv_server)  --  85.71 % of total ***\n"
	       "FUNCTION  CALLS  WORDS  PER CALL  [     %]\n"
	       "m:g/0         4     60     15.00  [ 66.67]\n"
	       "m:f/1         2     30     15.00  [ 33.33]\n"
	       "              6     90            [ 100.0]\n"
	       "\n"
	       "****** Process <0.11.0> (rabbit_channel:init/1)  --  9.52 % of total ***\n"
	       "FUNCTION  CALLS  WORDS  PER CALL  [     %]\n"
	       "m:g/0         1     10     10.00  [100.00]\n"
	       "              1     10            [ 100.0]\n"
	       "\n"
	       "****** Process <0.9.0>  --  4.76 % of total ***\n"
	       "FUNCTION  CALLS  WORDS  PER CALL  [     %]\n"
	       "m:h/2         1      5      5.00  [100.00]\n"
	       "              1      5            [ 100.0]\n",
	       "one table per process, the largest first, named by its registered name or initial call "
	       "(none for <0.9.0>), each with its share of the total");
	free(t);
	t = written(folded_w, &m.result, 0);
	is_str(t, "kv_server;<0.10.0>;m:g/0 60\nkv_server;<0.10.0>;m:f/1 30\n"
		  "rabbit_channel:init/1;<0.11.0>;m:g/0 10\n<0.9.0>;m:h/2 5\n",
	       "folded lines start with the process's name (root-most, as in the flame graph), then the pid");
	free(t);
	t = written(json_w, &m.result, 0);
	ok(strstr(t, "\"words\": 60") && strstr(t, "\"pid\": \"<0.10.0>\", \"process\": \"kv_server\"") &&
	   strstr(t, "\"process\": \"rabbit_channel:init/1\""), "JSON: words, pid and process name per process");
	free(t);
	calls_result_free(&m.result);
	ei_x_free(&x);

	static const struct row counts[] = { { "a", "b", 2, "", 3, 0, "" }, { "a", "c", 1, "", 1, 0, "" } };
	result_msg(&x, "call_count", counts, 2, NULL);
	is_int(calls_decode(x.buff, (size_t)x.index, &m, err, sizeof err), CALLS_MSG_RESULT, "counts decode");
	calls_sort(&m.result);
	t = written(table_w, &m.result, 0);
	is_str(t,
	       "FUNCTION  CALLS  [     %]\n"
	       "a:b/2         3  [ 75.00]\n"
	       "a:c/1         1  [ 25.00]\n"
	       "              4  [ 100.0]\n",
	       "count: FUNCTION  CALLS  [%%], and the total calls");
	free(t);
	t = written(json_w, &m.result, 0);
	ok(!strstr(t, "time_us") && !strstr(t, "words") && strstr(t, "\"calls\": 3"), "JSON for count: calls only");
	free(t);
	calls_result_free(&m.result);
	ei_x_free(&x);
}


static void test_elixir_names(void)
{
	static const struct row rows[] = {
		{ "Elixir.Shop.Tax", "rate", 1, "<0.10.0>", 5, 50, "Elixir.Shop.Pricer" },
		{ "Elixir.Shop.Checkout", "-run/1-fun-0-", 2, "<0.11.0>", 3, 30, "Elixir.Shop.Pricing:init/1" },
		{ "lists", "reverse", 1, "<0.12.0>", 1, 10, "kv_server" },
	};
	ei_x_buff x;
	struct calls_msg m;
	char err[160];
	result_msg(&x, "call_time", rows, 3, "Elixir.Shop.Tax");
	is_int(calls_decode(x.buff, (size_t)x.index, &m, err, sizeof err), CALLS_MSG_RESULT, "rows decode");
	is_int(calls_names_elixir(&m.result, 1), 0, "spelled as Elixir does (folded)");
	calls_sort(&m.result);
	char *t = written(folded_w, &m.result, 0);
	is_str(t, "Shop.Pricer;<0.10.0>;Shop.Tax.rate/1 50\n"
		  "Shop.Pricing.init/1;<0.11.0>;anonymous_fn/2_in_Shop.Checkout.run/1 30\n"
		  "kv_server;<0.12.0>;:lists.reverse/1 10\n",
	       "folded: functions, aliases and initial calls in Elixir's spelling, an anonymous fn without spaces");
	free(t);
	is_str(m.result.reloaded[0], "Shop.Tax", "a reloaded module as its alias");
	calls_result_free(&m.result);
	ei_x_free(&x);

	result_msg(&x, "call_time", rows, 3, NULL);
	is_int(calls_decode(x.buff, (size_t)x.index, &m, err, sizeof err), CALLS_MSG_RESULT, "rows decode again");
	is_int(calls_names_elixir(&m.result, 0), 0, "spelled as Elixir does (table)");
	calls_sort(&m.result);
	t = written(table_w, &m.result, 0);
	ok(strstr(t, "\nanonymous fn/2 in Shop.Checkout.run/1  ") && strstr(t, "(Shop.Pricing.init/1)"),
	   "table: Elixir's own 'anonymous fn/2 in Shop.Checkout.run/1'");
	free(t);
	calls_result_free(&m.result);
	ei_x_free(&x);
}

static void test_other_messages(void)
{
	ei_x_buff x;
	struct calls_msg m;
	char err[160];
	E(ei_x_new_with_version(&x));
	tup(&x, 4); atom(&x, "fp_calls_error"); lng(&x, 1); atom(&x, "too_many"); bin(&x, "2345");
	is_int(calls_decode(x.buff, (size_t)x.index, &m, err, sizeof err), CALLS_MSG_ERROR, "an error decodes");
	is_str(m.reason, "too_many", "its reason");
	is_str(m.detail, "2345", "its detail");
	ei_x_free(&x);
	E(ei_x_new_with_version(&x));
	tup(&x, 2); atom(&x, "something"); lng(&x, 1);
	is_int(calls_decode(x.buff, (size_t)x.index, &m, err, sizeof err), CALLS_MSG_OTHER, "a message not ours is ignored");
	ei_x_free(&x);
	/* regression (found by fuzz_calls): a tag atom longer than 31 bytes
	 * was decoded into a 32-byte buffer on the stack */
	char long_tag[250];
	memset(long_tag, 'a', sizeof long_tag - 1);
	memcpy(long_tag, "fp_calls_", 9);
	long_tag[sizeof long_tag - 1] = '\0';
	E(ei_x_new_with_version(&x));
	tup(&x, 4); atom(&x, long_tag); lng(&x, 1); atom(&x, "busy"); bin(&x, "x");
	ok(calls_decode(x.buff, (size_t)x.index, &m, err, sizeof err) == -1, "a long unknown tag is refused (%s)", err);
	ei_x_free(&x);
	E(ei_x_new_with_version(&x));
	tup(&x, 4); atom(&x, "fp_calls_error"); lng(&x, 2); atom(&x, "busy"); bin(&x, "x");
	ok(calls_decode(x.buff, (size_t)x.index, &m, err, sizeof err) == -1, "another protocol is refused (%s)", err);
	ei_x_free(&x);
}

/* Every truncation and every changed byte: decoded fully or refused. */
static void test_damaged(void)
{
	static const struct row rows[] = {
		{ "lists", "seq_loop", 3, "<0.1.0>", 5, 32, "" },
		{ "test", "test_spawn", 0, "", 1, 14, "" },
	};
	ei_x_buff x;
	struct calls_msg m;
	char err[160];
	int accepted = 0, refused = 0;
	result_msg(&x, "call_time", rows, 2, "test");
	for (int len = 0; len < x.index; len++) {
		char *copy = malloc((size_t)len + 1);
		memcpy(copy, x.buff, (size_t)len);
		int k = calls_decode(copy, (size_t)len, &m, err, sizeof err);
		if (k == CALLS_MSG_RESULT)
			accepted++, calls_result_free(&m.result);
		else
			refused++;
		free(copy);
	}
	is_int(accepted, 0, "no truncation of a result is accepted (%d refused)", refused);
	int results = 0;
	for (int at = 1; at < x.index; at++)
		for (int v = 0; v < 256; v += 7) {
			char *copy = malloc((size_t)x.index);
			memcpy(copy, x.buff, (size_t)x.index);
			copy[at] = (char)v;
			int k = calls_decode(copy, (size_t)x.index, &m, err, sizeof err);
			if (k == CALLS_MSG_RESULT) {
				results++;
				for (size_t r = 0; r < m.result.nrows; r++)
					if (!m.result.rows[r].mfa || !m.result.rows[r].pid)
						results = -1000000;
				calls_result_free(&m.result);
			}
			free(copy);
		}
	ok(results >= 0, "every changed byte is refused or decodes to whole rows (%d decoded)", results);
	ei_x_free(&x);
}

/* The table tracer/ reads the tracer's messages by (tracer_recv()): the
 * result ends the session, and one nobody takes (before the start) is
 * dropped whole (ASan's leak check). */
static void test_table(void)
{
	static const struct row rows[] = { { "lists", "seq_loop", 3, "", 5, 32, "" } };
	const struct tracer_body *b = tracer_body_of(&calls_proto, CALLS_MSG_RESULT);
	ei_x_buff x;
	struct calls_msg m;
	char err[160];
	ok(b && b->ends && b->drop, "the result is a body that ends the session and can be dropped");
	ok(!tracer_body_of(&calls_proto, CALLS_MSG_ERROR) && !tracer_body_of(&calls_proto, CALLS_MSG_STARTED),
	   "the first words are tracer/'s own, no body of the table");
	is_int((int)calls_proto.msg_size, (int)sizeof m, "read into a struct calls_msg");
	result_msg(&x, "call_count", rows, 1, "test");
	is_int(calls_decode(x.buff, (size_t)x.index, &m, err, sizeof err), CALLS_MSG_RESULT, "a result decodes");
	if (b && b->drop)
		b->drop(&m);
	ok(m.result.nrows == 0 && !m.result.rows, "and is dropped whole");
	ei_x_free(&x);
}

int main(void)
{
	subtest("time table, JSON and folded", test_time_table);
	subtest("per process, and count", test_per_process_and_count);
	subtest("Elixir's names", test_elixir_names);
	subtest("errors and other messages", test_other_messages);
	subtest("damaged messages", test_damaged);
	subtest("the table tracer/ reads by", test_table);
	return done_testing();
}
