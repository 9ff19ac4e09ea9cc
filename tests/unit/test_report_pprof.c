/*
 * test_report_pprof.c - the protobuf writer (report/rep_pb.c) byte by byte,
 * and a whole pprof profile (report/rep_pprof.c) decoded again by a small
 * protobuf reader here: string table, sample types, samples with their
 * locations, values and labels, functions with file and line, period and
 * time. Runs under ASan and UBSan (make check).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "tap.h"
#include "../../report/rep_collect.h"
#include "../../report/rep_order.h"
#include "../../report/rep_pb.h"
#include "../../report/rep_pprof.h"
#include "../../report/rep_write.h"

static int bytes_are(const struct rep_pb *b, const char *hex)
{
	char got[512] = "";
	size_t i;
	for (i = 0; i < b->len && 2 * i + 2 < sizeof got; i++)
		snprintf(got + 2 * i, 3, "%02x", b->p[i]);
	if (strcmp(got, hex) != 0) {
		fprintf(stderr, "#   got  %s\n#   want %s\n", got, hex);
		return 0;
	}
	return 1;
}

static void test_wire(void)
{
	struct rep_pb b = { 0 }, c = { 0 };
	rep_pb_varint(&b, 0);
	rep_pb_varint(&b, 1);
	rep_pb_varint(&b, 127);
	ok(bytes_are(&b, "00017f"), "varints below 128: one byte each");
	rep_pb_clear(&b);
	rep_pb_varint(&b, 128);
	rep_pb_varint(&b, 300);
	ok(bytes_are(&b, "8001ac02"), "128 and 300: little-endian groups of 7 bits");
	rep_pb_clear(&b);
	rep_pb_varint(&b, UINT64_MAX);
	ok(bytes_are(&b, "ffffffffffffffffff01"), "2^64 - 1: ten bytes");
	rep_pb_clear(&b);
	rep_pb_int(&b, 2, -1);
	ok(bytes_are(&b, "10ffffffffffffffffff01"), "int64 -1: field 2, ten bytes (no zigzag)");
	rep_pb_clear(&b);
	rep_pb_uint(&b, 16, 1);
	ok(bytes_are(&b, "800101"), "field 16: a two-byte tag");
	rep_pb_clear(&b);
	rep_pb_bytes(&b, 6, "abc", 3);
	rep_pb_bytes(&b, 6, "", 0);
	ok(bytes_are(&b, "3203616263" "3200"), "strings: tag, length, bytes; the empty string too");
	rep_pb_clear(&b);
	rep_pb_uint(&c, 1, 150);
	rep_pb_msg(&b, 3, &c);
	ok(bytes_are(&b, "1a03089601"), "a nested message is length-delimited");
	ok(!b.failed && !c.failed, "no allocation failed");
	c.failed = 1;
	rep_pb_msg(&b, 3, &c);
	ok(b.failed, "a failed child fails its parent");
	rep_pb_free(&b);
	rep_pb_free(&c);
}

/* ==== a small protobuf reader for the checks below ==== */

struct field {
	unsigned num, wire;
	uint64_t v;              /* wire 0 */
	const unsigned char *p;  /* wire 2 */
	size_t len;
};

static int next_field(const unsigned char **p, const unsigned char *e, struct field *f)
{
	uint64_t tag = 0, v = 0;
	int sh = 0;
	if (*p >= e)
		return 0;
	while (*p < e && sh < 64) {
		tag |= (uint64_t)(**p & 0x7f) << sh;
		sh += 7;
		if (!(*(*p)++ & 0x80))
			break;
	}
	f->num = (unsigned)(tag >> 3);
	f->wire = (unsigned)(tag & 7);
	sh = 0;
	while (*p < e && sh < 64) {
		v |= (uint64_t)(**p & 0x7f) << sh;
		sh += 7;
		if (!(*(*p)++ & 0x80))
			break;
	}
	f->v = v;
	if (f->wire == 2) {
		if (v > (uint64_t)(e - *p))
			return -1;
		f->p = *p;
		f->len = (size_t)v;
		*p += v;
	} else if (f->wire != 0) {
		return -1;
	}
	return 1;
}

/* The value of field num in a message (the first one), or def. */
static uint64_t get_u(const unsigned char *p, size_t len, unsigned num, uint64_t def)
{
	const unsigned char *e = p + len;
	struct field f;
	while (next_field(&p, e, &f) == 1)
		if (f.num == num && f.wire == 0)
			return f.v;
	return def;
}

#define MAXS 256
struct profile {
	const char *str[MAXS];
	size_t str_len[MAXS], nstr;
	struct field samples[MAXS], types[32], functions[MAXS], locations[MAXS];
	size_t nsamples, ntypes, nfunctions, nlocations;
	uint64_t period, time_nanos, duration;
	int bad;
};

static void decode(const unsigned char *p, size_t len, struct profile *pr)
{
	const unsigned char *e = p + len;
	struct field f;
	int r;
	memset(pr, 0, sizeof *pr);
	while ((r = next_field(&p, e, &f)) == 1) {
		if (f.num == 6 && pr->nstr < MAXS) {
			pr->str[pr->nstr] = (const char *)f.p;
			pr->str_len[pr->nstr++] = f.len;
		} else if (f.num == 1 && pr->ntypes < 32) {
			pr->types[pr->ntypes++] = f;
		} else if (f.num == 2 && pr->nsamples < MAXS) {
			pr->samples[pr->nsamples++] = f;
		} else if (f.num == 4 && pr->nlocations < MAXS) {
			pr->locations[pr->nlocations++] = f;
		} else if (f.num == 5 && pr->nfunctions < MAXS) {
			pr->functions[pr->nfunctions++] = f;
		} else if (f.num == 12) {
			pr->period = f.v;
		} else if (f.num == 9) {
			pr->time_nanos = f.v;
		} else if (f.num == 10) {
			pr->duration = f.v;
		}
	}
	pr->bad = r < 0;
}

static int str_is(const struct profile *pr, uint64_t id, const char *want)
{
	return id < pr->nstr && pr->str_len[id] == strlen(want) &&
	       memcmp(pr->str[id], want, pr->str_len[id]) == 0;
}

/* The string value of label key in a sample, or NULL. */
static const char *label_of(const struct profile *pr, const struct field *s, const char *key,
			    char *buf, size_t cap)
{
	const unsigned char *p = s->p, *e = s->p + s->len;
	struct field f;
	while (next_field(&p, e, &f) == 1) {
		uint64_t k, v;
		if (f.num != 3)
			continue;
		k = get_u(f.p, f.len, 1, 0);
		v = get_u(f.p, f.len, 2, 0);
		if (str_is(pr, k, key) && v < pr->nstr && pr->str_len[v] < cap) {
			memcpy(buf, pr->str[v], pr->str_len[v]);
			buf[pr->str_len[v]] = '\0';
			return buf;
		}
	}
	return NULL;
}

static const char EVENTS[] =
	"# ========\n"
	"# flameprof test\n"
	"# ========\n"
	"#\n"
	"running 5 [000] 1700000000.100000: 1 cpu-clock:\tmetric_erlang_reductions: 100, 40"
	"\tmetric_erlang_memory: 500, -20\n"
	"\t0 lists:foldl/3 (lists.erl:1263)\n"
	"\t0 my_server:loop/1 (/src/my%3Aserver.erl:88)\n"
	"\t0 name:my_server ([category])\n"
	"\t0 initial_call:my_server:init/1 ([category])\n"
	"\n"
	"running 5 [000] 1700000001.100000: 1 cpu-clock:\tmetric_erlang_reductions: 160, 60"
	"\tmetric_erlang_memory: 530, 30\n"
	"\t0 lists:foldl/3 (lists.erl:1263)\n"
	"\t0 my_server:loop/1 (/src/my%3Aserver.erl:88)\n"
	"\t0 name:my_server ([category])\n"
	"\t0 initial_call:my_server:init/1 ([category])\n"
	"\n"
	"waiting 4294967303 [000] 1700000002.600000: 1 cpu-clock:\tmetric_erlang_reductions: 1, 0"
	"\tmetric_erlang_memory: 9, 0\n"
	"\t0 [no_stack] ([unknown])\n"
	"\t0 memory:<4KiB ([category])\n"
	"\n";

static void test_profile(void)
{
	struct rep_config cfg;
	enum rep_c_err err;
	char detail[256], lbl[64];
	rep_collect *c;
	rep_pprof *pp = rep_pprof_create();
	struct rep_order order = { 0 };
	struct profile pr;
	const char *s = EVENTS;
	FILE *f = tmpfile();
	static unsigned char gz[1 << 16], raw[1 << 18];
	size_t gzlen, i;
	uLongf rawlen = sizeof raw;
	z_stream z;

	memset(&cfg, 0, sizeof cfg);
	cfg.format = REP_F_PPROF;
	c = rep_collect_create(&cfg, &err, detail, sizeof detail);
	ok(c && pp && f, "collector, aggregate and a file");
	if (!c || !pp || !f)
		return;
	rep_collect_on_kept(c, rep_pprof_kept, pp);
	ok(rep_pprof_set_node(pp, "app@db1") == 0, "the node of the next events");
	while (*s) {
		const char *nl = strchr(s, '\n');
		rep_collect_line(c, s, (size_t)(nl - s));
		s = nl + 1;
	}
	rep_collect_end_file(c);
	rep_collect_finish(c);
	ok(rep_order_build(&order, rep_collect_trie(c), rep_collect_frames(c)) == 0, "order");
	{
		struct rep_view v = { .cfg = &cfg, .frames = rep_collect_frames(c), .trie = rep_collect_trie(c),
				      .order = &order, .st = rep_collect_stats(c), .weight_name = rep_collect_weight_name(c),
				      .weighted = 0, .pprof = pp };
		is_int(rep_write_pprof(f, &v, pp), 0, "rep_write_pprof returns 0");
	}
	rewind(f);
	gzlen = fread(gz, 1, sizeof gz, f);
	ok(gzlen > 18 && gz[0] == 0x1f && gz[1] == 0x8b, "gzip magic");
	memset(&z, 0, sizeof z);
	inflateInit2(&z, 15 + 16);
	z.next_in = gz;
	z.avail_in = (uInt)gzlen;
	z.next_out = raw;
	z.avail_out = (uInt)rawlen;
	is_int(inflate(&z, Z_FINISH), Z_STREAM_END, "one whole gzip member");
	rawlen = z.total_out;
	inflateEnd(&z);

	decode(raw, rawlen, &pr);
	ok(!pr.bad, "every field is well formed");
	ok(pr.nstr > 0 && pr.str_len[0] == 0, "string_table[0] is \"\"");
	is_int(pr.ntypes, 3, "sample types: samples and the two metrics' deltas");
	ok(str_is(&pr, get_u(pr.types[0].p, pr.types[0].len, 1, 0), "samples") &&
	   str_is(&pr, get_u(pr.types[0].p, pr.types[0].len, 2, 0), "count"), "samples/count first");
	ok(str_is(&pr, get_u(pr.types[2].p, pr.types[2].len, 1, 0), "memory_delta") &&
	   str_is(&pr, get_u(pr.types[2].p, pr.types[2].len, 2, 0), "bytes"), "memory_delta/bytes");
	is_int(pr.period, 1000000000 / 97, "period: 97 Hz in nanoseconds");
	ok(pr.time_nanos == 1700000000100000000ull, "time_nanos: the first event");
	ok(pr.duration == 2500000000ull, "duration_nanos: first to last event");
	is_int(pr.nsamples, 2, "two samples: one per stack, process and node");
	is_int(pr.nlocations, 3, "three locations: the code frames");
	is_int(pr.nfunctions, 3, "three functions");
	{
		const struct field *sm = &pr.samples[0];
		const unsigned char *p = sm->p, *e = sm->p + sm->len;
		struct field fl;
		uint64_t vals[8], locs[8];
		size_t nv = 0, nloc = 0;
		while (next_field(&p, e, &fl) == 1) {
			const unsigned char *q = fl.p, *qe = fl.p + (fl.wire == 2 ? fl.len : 0);
			while (q < qe) { /* packed varints */
				uint64_t v = 0;
				int sh = 0;
				while (q < qe && sh < 64) {
					v |= (uint64_t)(*q & 0x7f) << sh;
					sh += 7;
					if (!(*q++ & 0x80))
						break;
				}
				if (fl.num == 1 && nloc < 8)
					locs[nloc++] = v;
				if (fl.num == 2 && nv < 8)
					vals[nv++] = v;
			}
		}
		is_int(nv, 3, "a value per sample type");
		ok(nv == 3 && vals[0] == 2 && vals[1] == 100 && vals[2] == 10,
		   "2 samples, reductions 40 + 60, memory -20 + 30");
		is_int(nloc, 2, "the code frames only, no status or category");
		ok(nloc == 2 && locs[0] != locs[1], "leaf first, distinct locations");
		is_str(label_of(&pr, sm, "pid", lbl, sizeof lbl), "<0.5.0>", "label pid");
		is_str(label_of(&pr, sm, "node", lbl, sizeof lbl), "app@db1", "label node");
		is_str(label_of(&pr, sm, "status", lbl, sizeof lbl), "running", "label status");
		is_str(label_of(&pr, sm, "registered_name", lbl, sizeof lbl), "my_server",
		       "label registered_name");
		is_str(label_of(&pr, sm, "initial_call", lbl, sizeof lbl), "my_server:init/1",
		       "label initial_call");
		is_str(label_of(&pr, &pr.samples[1], "pid", lbl, sizeof lbl), "<0.7.1>",
		       "the tid 2^32 + 7 is <0.7.1>");
		is_str(label_of(&pr, &pr.samples[1], "category", lbl, sizeof lbl), "memory:<4KiB",
		       "other category frames: label category");
	}
	for (i = 0; i < pr.nfunctions; i++) {
		const struct field *fn = &pr.functions[i];
		if (str_is(&pr, get_u(fn->p, fn->len, 2, 0), "my_server:loop/1"))
			ok(str_is(&pr, get_u(fn->p, fn->len, 4, 0), "/src/my:server.erl"),
			   "a function's file, unescaped");
	}
	for (i = 0; i < pr.nlocations; i++) {
		const struct field *lc = &pr.locations[i];
		const unsigned char *p = lc->p, *e = lc->p + lc->len;
		struct field fl;
		while (next_field(&p, e, &fl) == 1)
			if (fl.num == 4 && get_u(fl.p, fl.len, 2, 0) == 1263)
				ok(get_u(fl.p, fl.len, 1, 0) == get_u(lc->p, lc->len, 1, 0),
				   "a location's line 1263, its function's id");
	}
	fclose(f);
	rep_order_free(&order);
	rep_pprof_free(pp);
	rep_collect_free(c);
}

int main(void)
{
	subtest("wire format", test_wire);
	subtest("a whole profile", test_profile);
	return done_testing();
}
