/*
 * test_names.c - Elixir's spelling of frames (report/rep_names.c). The
 * expected strings are what Elixir 1.14's Exception.format_mfa/3 prints
 * for the same module, function and arity (run with `elixir` to check).
 */
#include <stdio.h>
#include <string.h>
#include "tap.h"
#include "../../report/rep_names.h"
#include "../../report/rep_frames.h"
#include "../../formatter/formatter.h"

static void code(const char *in, const char *want)
{
	char out[512];
	long n = fp_names_elixir(0, in, strlen(in), out, sizeof out);
	if (!want) {
		ok(n < 0, "%s stays as it is", in);
		return;
	}
	ok(n >= 0 && (size_t)n == strlen(out), "%s translated", in);
	is_str(n >= 0 ? out : "(none)", want, "%s", in);
}

static void category(const char *in, const char *want)
{
	char out[512];
	long n = fp_names_elixir(1, in, strlen(in), out, sizeof out);
	is_str(n >= 0 ? out : "(as is)", want, "category %s", in);
}

static void test_mfa(void)
{
	code("Elixir.Shop.Pricing:handle_call/3", "Shop.Pricing.handle_call/3");
	code("gen_server:handle_msg/6", ":gen_server.handle_msg/6");
	code("Elixir.Enum:-map/2-lists^map/1-0-/1", "Enum.\"-map/2-lists^map/1-0-\"/1");
	code("Elixir.Enum:-handle_call/3-fun-0-/1", "anonymous fn/1 in Enum.handle_call/3");
	code("Elixir.Enum:-reduce/3-fun-1-/1", "anonymous fn/1 in Enum.reduce/3");
	code("Elixir.Enum:-inlined-__info__/1-/1", "Enum.\"-inlined-__info__/1-\"/1");
	code("Elixir.Enum:foo?/1", "Enum.foo?/1");
	code("Elixir.Enum:a b/1", "Enum.\"a b\"/1");
	code("Elixir.Enum:-x-y/1-fun-0-/1", "anonymous fn/1 in Enum.\"x-y\"/1");
	code("Elixir.Enum:-a/b/2-fun-0-/1", "anonymous fn/1 in Enum.\"a/b\"/2");
	code("Elixir.Enum:Foo/1", "Enum.\"Foo\"/1");
	code("Elixir.Enum:+/1", "Enum.+/1");
	code("Elixir.Enum:=</1", "Enum.\"=<\"/1");
	code("Elixir.Enum:do/1", "Enum.do/1");
	code("Elixir.shop:x/2", ":\"Elixir.shop\".x/2");
	code("my mod:x/2", ":\"my mod\".x/2");
	code("Elixir:x/2", "Elixir.x/2");
	code("Foo:x/2", ":Foo.x/2");
	code("foo@bar:x/2", ":foo@bar.x/2");
	code("Elixir.A.b:x/2", ":\"Elixir.A.b\".x/2");
	code("Elixir.A-B:x/2", ":\"Elixir.A-B\".x/2");
	code("q\"m:x/2", ":\"q\\\"m\".x/2");
	code("[unknown]", NULL);
	code("m:f/_", NULL);
	code("m:f/", NULL);
	code("m:f", NULL);
}

static void test_categories(void)
{
	category("initial_call:Elixir.Shop.Pricing:init/1", "initial_call:Shop.Pricing.init/1");
	category("initial_call:proc_lib:init_p/5", "initial_call::proc_lib.init_p/5");
	category("name:Elixir.Shop.Pricer", "name:Shop.Pricer");
	category("name:pricer_4", "(as is)");
	category("memory:1M-10M", "(as is)");
	category("tier:db", "(as is)");
}

static void test_line_spelling(void)
{
	char out[256];
	const char *a = "anonymous fn/1 in Shop.Pricing.handle_call/3";
	size_t n = rep_names_line_spelling(a, strlen(a), out, sizeof out);
	is_str(out, "anonymous_fn/1_in_Shop.Pricing.handle_call/3", "no space in the line form");
	is_int(n, strlen(out), "its length");
	const char *q = "Enum.\"a b\"/1";
	rep_names_line_spelling(q, strlen(q), out, sizeof out);
	is_str(out, "Enum.\"a%20b\"/1", "spaces escaped, quotes kept");
	const char *h = "Enum.\"a;b%c\té\xff\xe2\x80\x83\"/1";
	n = rep_names_line_spelling(h, strlen(h), out, sizeof out);
	is_str(out, "Enum.\"a%3Bb%25c%09é%FF%E2%80%83\"/1", "';', '%%', controls, bad UTF-8 and Unicode spaces escaped");
	char back[256];
	long bl = fmt_unescape(out, n, back, sizeof back);
	ok(bl == (long)strlen(h) && memcmp(back, h, (size_t)bl) == 0, "fmt_unescape gives the name back");
	const char *op = ":erlang.>=/2";
	rep_names_line_spelling(op, strlen(op), out, sizeof out);
	is_str(out, ":erlang.>=/2", "an operator as it is");
	char small[8];
	n = rep_names_line_spelling(a, strlen(a), small, sizeof small);
	ok(n == strlen("anonymous_fn/1_in_Shop.Pricing.handle_call/3") && small[0] == '\0',
	   "a small buffer: the full length, and an empty string");
	is_int(rep_names_line_spelling(a, strlen(a), NULL, 0), strlen("anonymous_fn/1_in_Shop.Pricing.handle_call/3"),
	       "the length without a buffer");
}

static void test_header(void)
{
	const char *h = "# settings: top=10 every=5.000s hz=97 depth=64 categories=name names=elixir max-cost=none";
	is_int(rep_names_header(h, strlen(h)), FP_NAMES_ELIXIR, "names=elixir");
	h = "# settings: top=10 categories=none names=erlang";
	is_int(rep_names_header(h, strlen(h)), FP_NAMES_ERLANG, "names=erlang at the end");
	h = "# settings: top=10 categories=none max-cost=none";
	is_int(rep_names_header(h, strlen(h)), FP_NAMES_AUTO, "none said");
	h = "# node: names=elixir";
	is_int(rep_names_header(h, strlen(h)), FP_NAMES_AUTO, "only the settings line");
}

static void test_frames(void)
{
	rep_frames *t = rep_frames_create();
	struct rep_frame_info fi;
	const char *raw = "Elixir.Enum:-reduce/3-fun-1-/1";
	rep_frames_set_elixir(t, 1);
	uint32_t id = rep_frames_intern(t, REP_K_CODE, raw, strlen(raw), "Elixir.Enum", 11, NULL);
	uint32_t st = rep_frames_intern(t, REP_K_STATUS, "running", 7, "", 0, NULL);
	rep_frames_get(t, id, &fi);
	is_str(fi.name, "anonymous fn/1 in Enum.reduce/3", "the display name");
	ok(fi.line_len == strlen("anonymous_fn/1_in_Enum.reduce/3") &&
	   !memcmp(fi.line, "anonymous_fn/1_in_Enum.reduce/3", fi.line_len), "the line form");
	ok(fi.raw_len == strlen(raw) && !memcmp(fi.raw, raw, fi.raw_len), "raw as written");
	rep_frames_get(t, st, &fi);
	ok(fi.name_len == 7 && !memcmp(fi.name, "running", 7), "a status stays");
	rep_frames_free(t);
	t = rep_frames_create();
	id = rep_frames_intern(t, REP_K_CODE, raw, strlen(raw), "", 0, NULL);
	rep_frames_get(t, id, &fi);
	ok(fi.name_len == strlen(raw) && fi.line == fi.raw, "Erlang names: as written");
	rep_frames_free(t);
}

int main(void)
{
	subtest("code frames as Exception.format_mfa/3", test_mfa);
	subtest("category frames", test_categories);
	subtest("the line form", test_line_spelling);
	subtest("the header's choice", test_header);
	subtest("the frame table", test_frames);
	return done_testing();
}
