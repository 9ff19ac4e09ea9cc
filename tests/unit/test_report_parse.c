/*
 * test_report_parse.c - the perf-script line grammar of `report`, the
 * option parsers and the XML/JSON escaping.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "../../cli/optparse.h"
#include "../../cli/report_opts.h"
#include "../../index/ix_parse.h"
#include "../../report/rep_text.h"
#include "../../report/report.h"
#include "../../common/text.h"

/* Lines are copied to the heap with no NUL, so ASan catches any over-read. */
static char *dup_exact(const char *s, size_t *len)
{
	char *p;
	*len = strlen(s);
	p = malloc(*len ? *len : 1);
	memcpy(p, s, *len);
	return p;
}

static void test_kinds(void)
{
	size_t n;
	struct { const char *s; enum ix_line_kind k; } c[] = {
		{ "", IX_L_BLANK }, { " \t", IX_L_BLANK }, { "# header", IX_L_COMMENT },
		{ "running 1/0 [000] 1.000001: 1 cpu-clock:", IX_L_EVENT },
		{ "\t0 a:b/1 (a.erl:1)", IX_L_FRAME }, { "    ffffffff81000000 f+0x1 (x)", IX_L_FRAME },
		{ "\tzz not a frame", IX_L_OTHER },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char *s = dup_exact(c[i].s, &n);
		is_int(ix_line_kind(s, n), c[i].k, "line kind of '%s'", c[i].s);
		free(s);
	}
}

static void test_event_flameprof(void)
{
	struct ix_event_line ev;
	size_t n;
	char *s = dup_exact("garbage_collecting 4711/3 [000] 1700000000.123456: 1 cpu-clock:\t"
			    "metric_erlang_reductions: 2000, -1500\tmetric_erlang_memory: 10, 0", &n);
	int64_t v = 0, d = 0;
	is_int(ix_parse_event(s, n, &ev), 0, "flameprof event parses");
	ok(ev.comm_len == 18 && !memcmp(ev.comm, "garbage_collecting", 18), "comm is the status");
	is_int(ev.pid, 4711, "pid number");
	is_int(ev.tid, 3, "pid serial");
	is_int(ev.time_us, 1700000000123456LL, "time in microseconds");
	is_int(ix_find_metric(ev.rest, ev.rest_len, "erlang_reductions", 17, &v, &d), 1, "metric found");
	is_int(v, 2000, "metric value");
	is_int(d, -1500, "negative delta");
	is_int(ix_find_metric(ev.rest, ev.rest_len, "erlang_memory", 13, &v, &d), 1, "last metric found");
	is_int(ix_find_metric(ev.rest, ev.rest_len, "erlang_memor", 12, &v, &d), 0,
	       "a prefix of a name does not match");
	is_int(ix_find_metric(ev.rest, ev.rest_len, "reductions", 10, &v, &d), 0,
	       "metric_ must start the name");
	{
		size_t pos = 0, nl;
		const char *nm;
		int k = 0;
		while (ix_next_metric(ev.rest, ev.rest_len, &pos, &nm, &nl))
			k++;
		is_int(k, 2, "two metric names iterated");
	}
	free(s);
}

static void test_event_generic(void)
{
	struct ix_event_line ev;
	size_t n;
	char *s;
	s = dup_exact("kworker/0:1 H 123/456 [001] 98765.123456789:     250000 cpu-clock: ", &n);
	is_int(ix_parse_event(s, n, &ev), 0, "perf event with a spaced comm parses");
	ok(ev.comm_len == 13 && !memcmp(ev.comm, "kworker/0:1 H", 13), "comm keeps spaces and digits");
	is_int(ev.pid, 123, "pid");
	is_int(ev.tid, 456, "tid");
	is_int(ev.time_us, 98765123456LL, "nanoseconds cut to microseconds");
	free(s);
	s = dup_exact("java 999 12.5: cycles:", &n);
	is_int(ix_parse_event(s, n, &ev), 0, "no cpu field, no tid");
	is_int(ev.pid, 999, "a lone tid below 2^32 is the pid");
	is_int(ev.tid, 0, "and serial 0");
	is_int(ev.time_us, 12500000, "short fraction");
	free(s);
	/* flameprof's tid for <0.4711.3>: 3 * 2^32 + 4711 */
	s = dup_exact("running 12884906599 [000] 1700000000.000001: 1 cpu-clock:", &n);
	is_int(ix_parse_event(s, n, &ev), 0, "a tid past 2^32 parses");
	ok(ev.has_pid && ev.pid == 4711 && ev.tid == 3, "it gives <0.4711.3> back");
	ok(ev.comm_len == 7 && !memcmp(ev.comm, "running", 7), "comm stops before the tid");
	free(s);
	s = dup_exact("running 4711/3 [000] 1700000000.000001: 1 cpu-clock:", &n);
	is_int(ix_parse_event(s, n, &ev), 0, "the N/S of older files parses");
	ok(ev.has_pid && ev.pid == 4711 && ev.tid == 3, "the same process");
	free(s);
	s = dup_exact("running 18446744073709551616 [000] 1.000001: 1 cpu-clock:", &n);
	is_int(ix_parse_event(s, n, &ev), 0, "a number past 2^64 - 1 is no tid...");
	ok(!ev.has_pid && ev.comm_len == 28, "...but part of the comm");
	free(s);
	s = dup_exact("swapper 0 [000] 1: cpu-clock:", &n);
	is_int(ix_parse_event(s, n, &ev), -1, "no fractional timestamp: not an event");
	free(s);
	s = dup_exact("noPid [000] 3.25: x:", &n);
	is_int(ix_parse_event(s, n, &ev), 0, "no pid");
	is_int(ev.has_pid, 0, "has_pid is 0");
	ok(ev.comm_len == 5, "comm without pid");
	free(s);
}

static void test_frames(void)
{
	struct ix_frame_line fr;
	size_t n;
	char *s;
	s = dup_exact("\t0 my%20mod:f%2Bx/2 (my%20mod.erl:12)", &n);
	is_int(ix_parse_frame(s, n, &fr), 0, "flameprof frame");
	ok(fr.sym_len == 16 && !memcmp(fr.sym, "my%20mod:f%2Bx/2", 16), "symbol as written");
	ok(fr.dso_len == 15 && !memcmp(fr.dso, "my%20mod.erl:12", 15), "dso");
	is_int(fr.is_category, 0, "a code frame");
	free(s);
	s = dup_exact("\t0 name:my_server ([category])", &n);
	is_int(ix_parse_frame(s, n, &fr), 0, "category frame");
	is_int(fr.is_category, 1, "recognised by its dso");
	free(s);
	s = dup_exact("\t    ffffffff8100abcd do_syscall_64+0x5b ([kernel.kallsyms])", &n);
	is_int(ix_parse_frame(s, n, &fr), 0, "perf frame");
	ok(fr.sym_len == 13 && !memcmp(fr.sym, "do_syscall_64", 13), "cut at the '+' offset");
	free(s);
	s = dup_exact("\t7f00 std::foo(int) (/usr/lib/lib c.so)", &n);
	is_int(ix_parse_frame(s, n, &fr), 0, "parentheses inside the symbol");
	ok(fr.sym_len == 13 && !memcmp(fr.sym, "std::foo(int)", 13), "the last ' (' starts the dso");
	free(s);
	s = dup_exact("\t7f00 nodso", &n);
	is_int(ix_parse_frame(s, n, &fr), 0, "frame without a dso");
	is_int(fr.dso_len, 0, "empty dso");
	free(s);
	s = dup_exact("\t7f00", &n);
	is_int(ix_parse_frame(s, n, &fr), -1, "address only: not a frame");
	free(s);
}

static void test_opts(void)
{
	int64_t us;
	int abs;
	struct rep_pid_filter p;
	struct rep_config cfg;
	char d[256];
	is_int(fp_parse_seconds("12.5", &us, &abs), 0, "relative seconds");
	ok(us == 12500000 && !abs, "12.5 s");
	is_int(fp_parse_seconds("@1700000000.000001", &us, &abs), 0, "absolute seconds");
	ok(us == 1700000000000001LL && abs, "absolute value");
	is_int(fp_parse_seconds("1x", &us, &abs), -1, "junk rejected");
	is_int(fp_parse_seconds("", &us, &abs), -1, "empty rejected");
	is_int(fp_parse_pid("12/3", &p), 0, "N/S");
	ok(p.pid == 12 && p.serial == 3 && !p.any_serial, "N/S values");
	is_int(fp_parse_pid("12884906599", &p), 0, "a tid past 2^32 - 1");
	ok(p.pid == 4711 && p.serial == 3 && !p.any_serial, "tid values: <0.4711.3>");
	is_int(fp_parse_pid("18446744073709551616", &p), -1, "a tid past 2^64 - 1 is refused");
	is_int(fp_parse_pid("<0.77.1>", &p), 0, "<0.N.S>");
	ok(p.pid == 77 && p.serial == 1, "<0.N.S> values");
	is_int(fp_parse_pid("5", &p), 0, "N");
	ok(p.any_serial, "N matches any serial");
	is_int(fp_parse_pid("5/", &p), -1, "N/ rejected");
	{
		char *av[] = { "report", "-o", "x.svg", "in1", "--weight=memory", "--pid", "1/0",
			       "--from", "2", "--to", "@1700000000", "-fspeedscope", "in2", NULL };
		is_int(fp_report_parse(13, av, &cfg, d, sizeof d), FP_OPT_OK, "options parse");
		is_str(cfg.output, "x.svg", "-o");
		is_str(cfg.weight, "memory", "--weight=");
		is_int(cfg.format, REP_F_SPEEDSCOPE, "-fVALUE");
		is_int(cfg.ninputs, 2, "two inputs");
		is_str(cfg.inputs[0], "in1", "first input kept in order");
		is_str(cfg.inputs[1], "in2", "second input");
		ok(cfg.has_from && !cfg.from_abs && cfg.has_to && cfg.to_abs, "from relative, to absolute");
	}
	{
		char *av[] = { "report", "--bogus", "in", NULL };
		is_int(fp_report_parse(3, av, &cfg, d, sizeof d), FP_OPT_USAGE, "unknown option");
		ok(strstr(d, "'--bogus'") != NULL, "message names it: %s", d);
	}
	{
		char *av[] = { "report", "in", "--from", "5", "--to", "4", NULL };
		is_int(fp_report_parse(6, av, &cfg, d, sizeof d), FP_OPT_USAGE, "--from after --to");
	}
	{
		char *av[] = { "report", "in", "-o", NULL };
		is_int(fp_report_parse(3, av, &cfg, d, sizeof d), FP_OPT_USAGE, "missing value");
	}
	{
		char *av[] = { "report", "-o", "x", NULL };
		is_int(fp_report_parse(3, av, &cfg, d, sizeof d), FP_OPT_USAGE, "no input");
	}
	{
		char *av[] = { "report", "--help", NULL };
		is_int(fp_report_parse(2, av, &cfg, d, sizeof d), FP_OPT_STOP, "--help");
	}
}

/* The writers' table, as the front door sees it (report.h). */
static void test_formats(void)
{
	struct rep_config cfg;
	char d[512], list[256];
	report_format_list(list, sizeof list);
	is_str(list, "svg, heatmap, folded, speedscope, pprof, top or html", "the formats, from the table");
	is_int(report_format_find("collapsed"), REP_F_FOLDED, "an alias");
	is_int(report_format_find("top"), REP_F_TOP, "top");
	is_int(report_format_find("nope"), -1, "unknown");
	is_int(report_format_for_path("x/flame.svg"), REP_F_SVG, ".svg");
	is_int(report_format_for_path("out.pb.gz"), REP_F_PPROF, ".pb.gz");
	is_int(report_format_for_path("p.speedscope.json"), REP_F_SPEEDSCOPE, ".speedscope.json");
	is_int(report_format_for_path("a.json"), -1, "a bare .json chooses nothing");
	is_int(report_format_find("html"), REP_F_HTML, "html");
	is_int(report_format_for_path("demo-out/profile.html"), REP_F_HTML, ".html: the page");
	is_int(report_format_for_path("p.htm"), REP_F_HTML, ".htm: the page");
	ok(!report_format_terminal_ok(REP_F_HTML), "the page: not for a terminal");
	is_int(report_format_for_path("-"), -1, "standard output chooses nothing");
	ok(!report_format_terminal_ok(REP_F_SVG) && !report_format_terminal_ok(REP_F_PPROF) &&
	   !report_format_terminal_ok(REP_F_HEATMAP), "pictures and binary data: not for a terminal");
	ok(report_format_terminal_ok(REP_F_FOLDED) && report_format_terminal_ok(REP_F_TOP),
	   "text formats: for a terminal");
	{
		char *av[] = { "report", "-o", "out.folded", "in", NULL };
		is_int(fp_report_parse(4, av, &cfg, d, sizeof d), FP_OPT_OK, "-o out.folded parses");
		is_int(cfg.format, REP_F_FOLDED, "-o's ending chooses the format without -f");
	}
	{
		char *av[] = { "report", "-f", "svg", "-o", "out.folded", "in", NULL };
		is_int(fp_report_parse(6, av, &cfg, d, sizeof d), FP_OPT_OK, "-f svg -o out.folded parses");
		is_int(cfg.format, REP_F_SVG, "-f wins over the ending");
	}
	{
		char *av[] = { "report", "-o", "flame.png", "in", NULL };
		is_int(fp_report_parse(4, av, &cfg, d, sizeof d), FP_OPT_USAGE, "-o flame.png without -f is refused");
		ok(strstr(d, "'-o flame.png': its ending '.png' names no format") == d && strstr(d, ".html (the page)"),
		   "... saying the endings that do: %s", d);
	}
	{
		char *av[] = { "report", "-o", "top.json", "in", NULL };
		is_int(fp_report_parse(4, av, &cfg, d, sizeof d), FP_OPT_USAGE, "-o top.json without -f: refused too");
	}
	{
		char *av[] = { "report", "-o", "dir.d/flame", "in", NULL };
		is_int(fp_report_parse(4, av, &cfg, d, sizeof d), FP_OPT_OK, "-o a name without an ending (in dir.d/)");
		is_int(cfg.format, REP_F_SVG, "... is the default format");
	}
	{
		char *av[] = { "report", "-f", "folded", "-o", "out.txt", "in", NULL };
		is_int(fp_report_parse(6, av, &cfg, d, sizeof d), FP_OPT_OK, "-f folded -o out.txt: -f says it");
	}
	{
		char *av[] = { "report", "--from", "5s", "--to", "2m", "in", NULL };
		is_int(fp_report_parse(6, av, &cfg, d, sizeof d), FP_OPT_OK, "--from 5s --to 2m: --duration's units");
		ok(cfg.from_us == 5000000 && cfg.to_us == 120000000 && !cfg.from_abs && !cfg.to_abs,
		   "... 5 s and 120 s from the start (%lld, %lld)", (long long)cfg.from_us, (long long)cfg.to_us);
	}
	{
		char *av[] = { "report", "--from", "500ms", "--to", "1.5", "in", NULL };
		is_int(fp_report_parse(6, av, &cfg, d, sizeof d), FP_OPT_OK, "--from 500ms --to 1.5");
		ok(cfg.from_us == 500000 && cfg.to_us == 1500000, "... 0.5 s and 1.5 s");
	}
	{
		char *av[] = { "report", "--from", "@5s", "in", NULL };
		is_int(fp_report_parse(4, av, &cfg, d, sizeof d), FP_OPT_USAGE, "--from @5s: a Unix time is in seconds");
		ok(strstr(d, "e.g. 12.5, 5s, 500ms, 2m") != NULL, "... the forms said: %s", d);
	}
	{
		char *av[] = { "report", "-f", "flame", "in", NULL };
		is_int(fp_report_parse(4, av, &cfg, d, sizeof d), FP_OPT_USAGE, "unknown -f");
		ok(strstr(d, "(use svg, heatmap, folded, speedscope, pprof, top or html)") != NULL, "lists them: %s", d);
	}
	{
		char *av[] = { "report", "--json", "in", NULL };
		is_int(fp_report_parse(3, av, &cfg, d, sizeof d), FP_OPT_USAGE, "--json without -f top");
	}
	{
		char *av[] = { "report", "-f", "top", "--json", "in", NULL };
		is_int(fp_report_parse(5, av, &cfg, d, sizeof d), FP_OPT_OK, "-f top --json");
		ok(cfg.json && cfg.format == REP_F_TOP, "both set");
	}
	{
		char *av[] = { "report", "--diff", "base", "dir", "-o", "d.svg", NULL };
		is_int(fp_report_parse(6, av, &cfg, d, sizeof d), FP_OPT_OK, "--diff BASE DIR");
		ok(cfg.diff_base && !strcmp(cfg.diff_base, "base") && cfg.ninputs == 1 &&
		   !strcmp(cfg.inputs[0], "dir"), "BASE apart, DIR the input");
	}
	{
		char *av[] = { "report", "--diff", "base", "dir", "-f", "folded", NULL };
		is_int(fp_report_parse(6, av, &cfg, d, sizeof d), FP_OPT_USAGE, "--diff with -f folded");
		ok(strstr(d, "(-f svg) or a page (-f html)") != NULL, "... says the two it draws: %s", d);
	}
	{
		char *av[] = { "report", "--diff", "base", "dir", "-o", "d.html", NULL };
		is_int(fp_report_parse(6, av, &cfg, d, sizeof d), FP_OPT_OK, "--diff BASE DIR -o d.html");
		ok(cfg.format == REP_F_HTML && cfg.diff_base, "the page, by the name");
	}
}

static void test_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	char t[32];
	FILE *f = open_memstream(&buf, &len);
	rep_xml_put(f, "a<b>&\"'\x01\xff\xc3\xa9", 11);
	fclose(f);
	is_str(buf, "a&lt;b&gt;&amp;&quot;&#39;\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9",
	       "XML: markup escaped, control and invalid bytes replaced, UTF-8 kept");
	free(buf);
	f = open_memstream(&buf, &len);
	fp_json_put(f, "q\"\\\n\xfe", 5);
	fclose(f);
	is_str(buf, "q\\\"\\\\\\u000a\\ufffd", "JSON escaping");
	free(buf);
	is_str(rep_thousands(1234567, t), "1,234,567", "thousands");
	is_str(rep_thousands(-1000, t), "-1,000", "negative thousands");
	is_int(rep_utf8_prefix("\xc3\xa9\xc3\xa9x", 5, 1), 2, "prefix keeps whole characters");
	is_int(rep_utf8_chars("\xc3\xa9\xffx", 4), 3, "invalid byte counts as one");
}

int main(void)
{
	subtest("line kinds", test_kinds);
	subtest("flameprof event line", test_event_flameprof);
	subtest("generic perf event lines", test_event_generic);
	subtest("frame lines", test_frames);
	subtest("options", test_opts);
	subtest("formats", test_formats);
	subtest("text escaping", test_text);
	return done_testing();
}
