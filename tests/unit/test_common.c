/*
 * test_common.c - the tools every room shares (common/): fp_grow's
 * capacities and refusals, the slot table against a plain search over
 * thousands of keys, the hashes' spread, and the one parser of
 * MOD:FUN/ARITY and NAME=MOD:FUN/ARITY (requests and record). Under ASan, so a slot or an
 * entry written past its array fails here.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "../../common/grow.h"
#include "../../common/text.h"
#include "../../common/hash.h"
#include "../../common/mfa_pattern.h"
#include "../../common/slots.h"

static void test_grow(void)
{
	int *v = NULL;
	size_t cap = 0;
	is_int(fp_grow((void **)&v, &cap, 0, sizeof *v, 64), 0, "no room asked: nothing to do");
	ok(v == NULL && cap == 0, "... and nothing allocated");
	is_int(fp_grow((void **)&v, &cap, 1, sizeof *v, 64), 0, "the first entry");
	is_int(cap, 64, "an empty array starts at the first capacity");
	v[63] = 1;
	is_int(fp_grow((void **)&v, &cap, 64, sizeof *v, 64), 0, "room already there");
	is_int(cap, 64, "... the capacity stays");
	is_int(fp_grow((void **)&v, &cap, 300, sizeof *v, 64), 0, "room for 300");
	is_int(cap, 512, "doubled until it fits");
	ok(v[63] == 1, "the entries are kept");
	v[511] = 2;
	is_int(fp_grow((void **)&v, &cap, SIZE_MAX / 2, sizeof *v, 64), -1,
	       "a size past the address space is refused");
	ok(cap == 512 && v[511] == 2, "... and the array is unchanged");
	is_int(fp_grow((void **)&v, &cap, SIZE_MAX, 1, 64), -1, "so is SIZE_MAX entries");
	free(v);
}

struct ent {
	uint64_t key;
	uint32_t hash;
};

/* The table's answer for key: its index, or -1. */
static long find(const uint32_t *slots, size_t nslots, const struct ent *v, uint64_t key)
{
	uint32_t h = (uint32_t)fp_mix64(key);
	if (!nslots)
		return -1;
	for (size_t j = h & (nslots - 1); slots[j]; j = (j + 1) & (nslots - 1))
		if (v[slots[j] - 1].key == key)
			return (long)slots[j] - 1;
	return -1;
}

static void test_slots(void)
{
	struct ent *v = NULL;
	uint32_t *slots = NULL;
	size_t n = 0, cap = 0, nslots = 0, used = 0, k;
	int all = 1, half = 1;
	for (k = 0; k < 5000; k++) {
		uint64_t key = k * 7919 + 3;
		if (fp_grow((void **)&v, &cap, n + 1, sizeof *v, 64) != 0 ||
		    fp_slots_room(&slots, &nslots, n, v, sizeof *v, offsetof(struct ent, hash),
				  1024) != 0)
			break;
		v[n].key = key;
		v[n].hash = (uint32_t)fp_mix64(key);
		fp_slots_put(slots, nslots, v[n].hash, n);
		n++;
		if (n * 2 > nslots)
			half = 0;
	}
	is_int(n, 5000, "5000 entries in");
	ok(half, "the table stays at most half full");
	for (k = 0; k < nslots; k++)
		used += slots[k] != 0;
	is_int(used, n, "one slot per entry");
	for (k = 0; k < n; k++)
		if (find(slots, nslots, v, k * 7919 + 3) != (long)k)
			all = 0;
	ok(all, "every key finds its own entry");
	ok(find(slots, nslots, v, 1) == -1 && find(slots, nslots, v, 7919 * 5000 + 3) == -1,
	   "keys never put find nothing");
	ok(find(NULL, 0, NULL, 1) == -1, "an empty table finds nothing");
	free(v);
	free(slots);
}

static void test_hash(void)
{
	char a[64], b[64];
	int spread = 1;
	unsigned buckets[16] = { 0 };
	memset(a, 'x', sizeof a);
	memcpy(b, a, sizeof b);
	is_int(fp_hash32(1, a, sizeof a), fp_hash32(1, b, sizeof b), "equal bytes, equal hashes");
	b[63] ^= 1;
	ok(fp_hash32(1, a, sizeof a) != fp_hash32(1, b, sizeof b), "the last byte counts");
	ok(fp_hash32(1, a, 8) != fp_hash32(2, a, 8), "the seed counts");
	ok(fp_hash32(1, a, 8) != fp_hash32(1, a, 9), "the length counts");
	/* dense integers (pid numbers) over 16 buckets: none far from 1/16 */
	for (uint64_t k = 0; k < 16000; k++)
		buckets[fp_mix64(k) & 15]++;
	for (int i = 0; i < 16; i++)
		if (buckets[i] < 800 || buckets[i] > 1200)
			spread = 0;
	ok(spread, "fp_mix64 spreads dense keys over the low bits");
}

static void test_tier_patterns(void)
{
	struct fp_tier_pattern t[3];
	char a[] = "db=kv_db:query/2", b[] = "parse=kv:_/_", c[] = "db=kv_db:query/2";
	is_int(fp_tier_parse(a, &t[0]), FP_TIER_OK, "NAME=MOD:FUN/ARITY");
	ok(strcmp(t[0].name, "db") == 0 && strcmp(t[0].pattern.module, "kv_db") == 0 &&
	   strcmp(t[0].pattern.function, "query") == 0 && t[0].pattern.arity == 2, "... its parts");
	is_int(fp_tier_parse(b, &t[1]), FP_TIER_OK, "'_' for FUN and ARITY");
	ok(strcmp(t[1].pattern.function, "_") == 0 && t[1].pattern.arity == -1, "... any function, any arity");
	ok(fp_tier_given_twice(t, 2) == NULL, "two different tiers");
	is_int(fp_tier_parse(c, &t[2]), FP_TIER_OK, "the first one again");
	ok(fp_tier_given_twice(t, 3) && strcmp(fp_tier_given_twice(t, 3), "db") == 0, "... is given twice");

	static const char *const bad[] = { "db", "=kv:f/1", "db=kv", "db=kv:f", "db=_:f/1", "db=:f/1",
					   "db=kv:/1", "db=kv:f/256", "db=kv:f/-1", "db=kv:f/x",
					   "db=kv:f/1x", "a23456789012345678901234567890123456789012345678901234567890123456=m:f/1" };
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		char text[128];
		snprintf(text, sizeof text, "%s", bad[k]);
		is_int(fp_tier_parse(text, &t[0]), FP_TIER_SYNTAX, "'%s' is refused", bad[k]);
	}
	char r[] = "_total=m:f/1";
	is_int(fp_tier_parse(r, &t[0]), FP_TIER_RESERVED, "a name starting with '_' is flameprof's own");
	char m[] = "kv:handle/_";
	struct fp_mfa_pattern p;
	ok(fp_mfa_pattern_split(m, &p) == 0 && strcmp(p.module, "kv") == 0 && p.arity == -1,
	   "MOD:FUN/_ alone (requests' --entry)");
}


/* One case of fp_mfa_parse: the text, then the parts it should give
 * (parts -1: refused; alias: the module is an Elixir alias). */
struct mfa_case {
	const char *text;
	int parts;
	const char *module, *function;
	int arity, alias;
};

static void test_mfa_syntax(void)
{
	static const struct mfa_case cases[] = {
		/* Erlang's syntax, as before */
		{ "kv_db:query/2", 3, "kv_db", "query", 2, 0 },
		{ "kv:_/_", 3, "kv", "_", -1, 0 },
		{ "kv", 1, "kv", NULL, -1, 0 },
		{ "kv:handle", 2, "kv", "handle", -1, 0 },
		{ "_:handle/1", 3, "_", "handle", 1, 0 },
		{ "Elixir.Shop.Pricing", 1, "Elixir.Shop.Pricing", NULL, -1, 0 },
		{ "Elixir.Shop.Pricing:handle_call/3", 3, "Elixir.Shop.Pricing", "handle_call", 3, 0 },
		{ "Elixir.Enum:-map/2-lists^map/1-0-/2", 3, "Elixir.Enum", "-map/2-lists^map/1-0-", 2, 0 },
		{ "my.mod:f/1", 3, "my.mod", "f", 1, 0 },
		/* quoted Erlang atoms: the quotes are taken off */
		{ "'Elixir.Shop.Pricing':handle_call/3", 3, "Elixir.Shop.Pricing", "handle_call", 3, 0 },
		{ "'Elixir.Shop.Pricing'", 1, "Elixir.Shop.Pricing", NULL, -1, 0 },
		{ "'Elixir.Enum':'-map/2-fun-0-'/2", 3, "Elixir.Enum", "-map/2-fun-0-", 2, 0 },
		{ "'it''s':f/0", -1, NULL, NULL, 0, 0 },
		{ "'it\\'s':'a\\\\b'/0", 3, "it's", "a\\b", 0, 0 },
		{ "'Foo':bar/1", 3, "Foo", "bar", 1, 0 },
		/* Elixir's syntax */
		{ "Shop.Pricing", 1, "Shop.Pricing", NULL, -1, 1 },
		{ "Shop.Pricing.handle_call/3", 3, "Shop.Pricing", "handle_call", 3, 1 },
		{ "Shop.Pricing.handle_call/_", 3, "Shop.Pricing", "handle_call", -1, 1 },
		{ "Shop.Pricing.handle_call", 2, "Shop.Pricing", "handle_call", -1, 1 },
		{ "Shop.Pricing:handle_call/3", 3, "Shop.Pricing", "handle_call", 3, 1 },
		{ "Foo", 1, "Foo", NULL, -1, 1 },
		{ "Shop.Pricing.valid?/1", 3, "Shop.Pricing", "valid?", 1, 1 },
		{ "Enum.\"-map/2-lists^map/1-0-\"/2", 3, "Enum", "-map/2-lists^map/1-0-", 2, 1 },
		{ ":ets.lookup/2", 3, "ets", "lookup", 2, 0 },
		{ ":ets", 1, "ets", NULL, -1, 0 },
		{ ":gen_server.handle_msg/_", 3, "gen_server", "handle_msg", -1, 0 },
		{ ":\"Elixir.Shop.Pricing\"", 1, "Elixir.Shop.Pricing", NULL, -1, 0 },
		{ ":\"Elixir.Shop.Pricing\".handle_call/3", 3, "Elixir.Shop.Pricing", "handle_call", 3, 0 },
		{ "Elixir.Shop.Pricing.handle_call/3", 3, "Elixir.Shop.Pricing", "handle_call", 3, 0 },
		/* refused */
		{ "", -1, NULL, NULL, 0, 0 },
		{ ":", -1, NULL, NULL, 0, 0 },
		{ "kv:", -1, NULL, NULL, 0, 0 },
		{ "kv:f/", -1, NULL, NULL, 0, 0 },
		{ "kv:f/256", -1, NULL, NULL, 0, 0 },
		{ "'kv", -1, NULL, NULL, 0, 0 },
		{ "''", -1, NULL, NULL, 0, 0 },
		{ "'kv'x", -1, NULL, NULL, 0, 0 },
		{ "'a\\nb'", -1, NULL, NULL, 0, 0 },
		{ ":ets.", -1, NULL, NULL, 0, 0 },
		{ ":\"Elixir.Shop\"/1", -1, NULL, NULL, 0, 0 },
		{ "Shop.Pricing.\"x\"y/1", -1, NULL, NULL, 0, 0 },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		const struct mfa_case *c = &cases[k];
		char text[128];
		struct fp_mfa_pattern p;
		snprintf(text, sizeof text, "%s", c->text);
		int parts = fp_mfa_parse(text, &p);
		if (c->parts < 0) {
			is_int(parts, -1, "'%s' is refused", c->text);
			continue;
		}
		ok(parts == c->parts && strcmp(p.module, c->module) == 0 &&
		   (c->function ? p.function && strcmp(p.function, c->function) == 0 : !p.function) &&
		   p.arity == c->arity && p.alias == c->alias,
		   "'%s': %d parts, module '%s'%s, function '%s', arity %d", c->text, c->parts, c->module,
		   c->alias ? " (an alias)" : "", c->function ? c->function : "(none)", c->arity);
	}

	/* every prefix of every case, and every case with each byte changed to
	 * each of the grammar's own bytes: parsed without a crash (ASan), and
	 * what parses has a module of 1..255 bytes */
	static const char marks[] = "'\":./_\\A a9";
	int sane = 1;
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		size_t n = strlen(cases[k].text);
		for (size_t cut = 0; cut <= n; cut++)
			for (size_t m = 0; m <= sizeof marks - 1; m++) {
				char text[128];
				struct fp_mfa_pattern p;
				memcpy(text, cases[k].text, cut);
				text[cut] = '\0';
				if (m < sizeof marks - 1 && cut < n) {
					memcpy(text, cases[k].text, n + 1);
					text[cut] = marks[m];
				}
				int parts = fp_mfa_parse(text, &p);
				if (parts > 0 && (!*p.module || strlen(p.module) > FP_ATOM_MAX))
					sane = 0;
			}
	}
	ok(sane, "cut and changed texts: no crash, and a module whenever one parses");

	char buf[FP_ALIAS_CAP], a[] = "Shop.Pricing", e[] = "'Foo'", n[] = "Shop.Pricer", x[] = "pricer:x";
	const char *names[2];
	struct fp_mfa_pattern p;
	ok(fp_mfa_parse(a, &p) == 1 && fp_mfa_modules(&p, buf, names) == 2 &&
	   strcmp(names[0], "Elixir.Shop.Pricing") == 0 && strcmp(names[1], "Shop.Pricing") == 0,
	   "an alias is tried as 'Elixir.Shop.Pricing', then 'Shop.Pricing'");
	ok(fp_mfa_parse(e, &p) == 1 && fp_mfa_modules(&p, buf, names) == 1 && strcmp(names[0], "Foo") == 0,
	   "a quoted atom is that atom only");
	ok(fp_name_parse(n, &p) == 0 && p.alias && strcmp(p.module, "Shop.Pricer") == 0,
	   "a registered name may be an alias");
	is_int(fp_name_parse(x, &p), -1, "a registered name is not a function");
	char t[] = "db=Shop.Repo.query/_";
	struct fp_tier_pattern tp;
	ok(fp_tier_parse(t, &tp) == FP_TIER_OK && strcmp(tp.name, "db") == 0 && tp.pattern.alias &&
	   strcmp(tp.pattern.module, "Shop.Repo") == 0 && strcmp(tp.pattern.function, "query") == 0,
	   "a tier in Elixir's syntax");
}

static void test_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fp_json_put(f, "a\"\\\n\x01\xff\xc3\xa9\xed\xa0\x80\xc2\x9b\xc2\xa0", 15);
	fp_json_string(f, "x");
	fclose(f);
	is_str(buf, "a\\\"\\\\\\u000a\\u0001\\ufffd\xc3\xa9\\ufffd\\ufffd\\ufffd\\u009b\xc2\xa0\"x\"",
	       "JSON: quotes, backslashes, controls (C1 too), invalid bytes (a surrogate too) escaped, UTF-8 kept");
	free(buf);
}

int main(void)
{
	subtest("fp_grow", test_grow);
	subtest("slot table", test_slots);
	subtest("hashes", test_hash);
	subtest("tier patterns", test_tier_patterns);
	subtest("Erlang's and Elixir's syntax", test_mfa_syntax);
	subtest("the JSON escape", test_text);
	return done_testing();
}
