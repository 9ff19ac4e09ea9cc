/*
 * rep_pprof_write.c - the summed events (rep_pprof.c) as pprof's
 * profile.proto (google/pprof proto/profile.proto), gzipped.
 *
 * Sample types: "samples" (count), then "<metric>_delta" for every metric
 * the events carry, so one file answers "where do the reductions go" and
 * "who grows the heap" alike. Locations are the code frames, leaf first;
 * the status, the pid, the node and the category frames become labels, as
 * they are properties of the process, not of the code.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../formatter/formatter.h"
#include "../common/ctl_escape.h"
#include "../common/grow.h"
#include "../common/hash.h"
#include "../common/slots.h"
#include "rep_pb.h"
#include "rep_pprof.h"
#include "rep_write.h"

#define HZ 97 /* flameprof's sampling rate */

/* ==== Writing ==== */

/* The string table: each distinct string once, string_table[0] = "". */
struct str_ent {
	char *s;
	size_t len;
	uint32_t hash;
};

struct strtab {
	struct rep_pb out; /* the Profile message's field 6 entries */
	struct str_ent *v; /* by id */
	size_t n, cap;
	uint32_t *slots;   /* common/slots.h: id + 1 */
	size_t nslots;
	int failed;
};

/* A string of the table as written: pprof prints names to a terminal
 * (`go tool pprof -top`), so C0 and C1 controls, DEL and bytes that are
 * not UTF-8 are written as \xNN (common/ctl_escape.h), as flameprof's own
 * messages write them. @return 0, or -1 out of memory. */
static int put_string(struct rep_pb *out, const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f)
		i++;
	if (i == len) {
		rep_pb_bytes(out, 6, s, len);
		return 0;
	}
	char *e = malloc(4 * len + 1);
	if (!e)
		return -1;
	size_t n = fp_ctl_escape(e, 4 * len + 1, s, len);
	rep_pb_bytes(out, 6, e, n);
	free(e);
	return 0;
}

static int64_t str_id(struct strtab *t, const char *s, size_t len)
{
	uint32_t h = fp_hash32(1, s, len);
	size_t j;
	struct str_ent *e;
	if (t->failed)
		return 0;
	if (t->nslots)
		for (j = h & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
			e = &t->v[t->slots[j] - 1];
			if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
				return (int64_t)t->slots[j] - 1;
		}
	if (fp_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v, 256) != 0 ||
	    fp_slots_room(&t->slots, &t->nslots, t->n, t->v, sizeof *t->v,
			  offsetof(struct str_ent, hash), 1024) != 0)
		goto fail;
	e = &t->v[t->n];
	if (!(e->s = malloc(len ? len : 1)))
		goto fail;
	memcpy(e->s, s, len);
	e->len = len;
	e->hash = h;
	if (put_string(&t->out, s, len) < 0) {
		free(e->s);
		goto fail;
	}
	fp_slots_put(t->slots, t->nslots, h, t->n);
	return (int64_t)t->n++;
fail:
	t->failed = 1;
	return 0;
}

static int64_t str0(struct strtab *t, const char *s)
{
	return str_id(t, s, strlen(s));
}

static void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].s);
	free(t->v);
	free(t->slots);
	rep_pb_free(&t->out);
}

static void value_type(struct rep_pb *b, unsigned field, struct strtab *t, const char *type,
		       const char *unit, struct rep_pb *tmp)
{
	rep_pb_clear(tmp);
	rep_pb_int(tmp, 1, str0(t, type));
	rep_pb_int(tmp, 2, str0(t, unit));
	rep_pb_msg(b, field, tmp);
}

/* The unit of flameprof's metrics (erlang:process_info/2), by name. */
static const char *metric_unit(const char *name)
{
	if (strstr(name, "memory"))
		return "bytes";
	if (strstr(name, "size"))
		return "words";
	return "count";
}

/* The shown name of a metric column: "erlang_" dropped, as --weight does. */
static const char *short_name(const char *col)
{
	return strncmp(col, "erlang_", 7) == 0 && col[7] ? col + 7 : col;
}

static void label(struct rep_pb *b, struct strtab *t, const char *key, const char *s,
		  size_t len, struct rep_pb *tmp)
{
	rep_pb_clear(tmp);
	rep_pb_int(tmp, 1, str0(t, key));
	rep_pb_int(tmp, 2, str_id(t, s, len));
	rep_pb_msg(b, 3, tmp);
}

/* Function and location id for a code frame (1-based; 0: not yet). */
struct locs {
	uint32_t *of_frame;
	uint32_t n;
};

/* Adds the Function and Location of a frame to the profile. */
static void put_location(struct rep_pb *prof, struct strtab *t, const rep_frames *fr,
			 uint32_t frame, uint32_t id, struct rep_pb *tmp, struct rep_pb *tmp2)
{
	struct rep_frame_info fi;
	char file[4096];
	long flen = 0;
	int64_t line = 0;
	size_t dl;
	rep_frames_get(fr, frame, &fi);
	dl = fi.dso_len;
	/* the dso is "<file>:<line>", "<file>" or "[unknown]" (doc/output-format.md) */
	if (dl && fi.dso[0] != '[') {
		size_t c = dl;
		while (c > 0 && fi.dso[c - 1] >= '0' && fi.dso[c - 1] <= '9')
			c--;
		if (c > 0 && c < dl && fi.dso[c - 1] == ':') {
			for (size_t i = c; i < dl; i++)
				line = line * 10 + (fi.dso[i] - '0');
			dl = c - 1;
		}
		flen = fmt_unescape(fi.dso, dl, file, sizeof file);
		if (flen < 0 || (size_t)flen >= sizeof file) {
			flen = (long)(dl < sizeof file ? dl : sizeof file - 1);
			memcpy(file, fi.dso, (size_t)flen);
		}
	}
	rep_pb_clear(tmp);
	rep_pb_uint(tmp, 1, id);
	rep_pb_int(tmp, 2, str_id(t, fi.name, fi.name_len));
	rep_pb_int(tmp, 3, str_id(t, fi.raw, fi.raw_len));
	rep_pb_int(tmp, 4, str_id(t, file, (size_t)flen));
	rep_pb_msg(prof, 5, tmp);

	rep_pb_clear(tmp2);
	rep_pb_uint(tmp2, 1, id);
	rep_pb_int(tmp2, 2, line);
	rep_pb_clear(tmp);
	rep_pb_uint(tmp, 1, id);
	rep_pb_uint(tmp, 2, 1); /* the one mapping: "erlang" */
	rep_pb_msg(tmp, 4, tmp2);
	rep_pb_msg(prof, 4, tmp);
}

/* One Sample: locations from the trie leaf up, labels from the status,
 * category frames, process and node. */
static void put_sample(struct rep_pb *prof, struct strtab *t, const struct rep_view *v,
		       const rep_pprof *p, size_t i, struct locs *lc, struct rep_pb *b[4])
{
	struct rep_pprof_sample sm;
	uint32_t node;
	char pid[48];
	size_t c;
	rep_pprof_get(p, i, &sm);
	node = sm.leaf;
	rep_pb_clear(b[0]); /* the sample */
	rep_pb_clear(b[1]); /* packed location ids */
	for (; node != 0; node = rep_trie_node(v->trie, node)->parent) {
		uint32_t f = rep_trie_node(v->trie, node)->frame;
		struct rep_frame_info fi;
		if (rep_frames_kind(v->frames, f) == REP_K_CODE) {
			if (!lc->of_frame[f]) {
				lc->of_frame[f] = ++lc->n;
				put_location(prof, t, v->frames, f, lc->n, b[2], b[3]);
			}
			rep_pb_varint(b[1], lc->of_frame[f]);
			continue;
		}
		rep_frames_get(v->frames, f, &fi);
		if (fi.kind == REP_K_STATUS) {
			label(b[0], t, "status", fi.name, fi.name_len, b[2]);
		} else if (fi.kind == REP_K_CATEGORY) {
			if (fi.name_len > 5 && memcmp(fi.name, "name:", 5) == 0)
				label(b[0], t, "registered_name", fi.name + 5, fi.name_len - 5, b[2]);
			else if (fi.name_len > 13 && memcmp(fi.name, "initial_call:", 13) == 0)
				label(b[0], t, "initial_call", fi.name + 13, fi.name_len - 13, b[2]);
			else if (fi.name_len > 5 && memcmp(fi.name, "tier:", 5) == 0)
				label(b[0], t, "tier", fi.name + 5, fi.name_len - 5, b[2]);
			else
				label(b[0], t, "category", fi.name, fi.name_len, b[2]);
		}
	}
	rep_pb_msg(b[0], 1, b[1]);
	rep_pb_clear(b[1]); /* packed values */
	rep_pb_varint(b[1], sm.count);
	for (c = 0; c < rep_pprof_ncolumns(p); c++)
		rep_pb_varint(b[1], (uint64_t)sm.sums[c]);
	rep_pb_msg(b[0], 2, b[1]);
	snprintf(pid, sizeof pid, "<0.%" PRIu32 ".%" PRIu32 ">", sm.pid, sm.serial);
	label(b[0], t, "pid", pid, strlen(pid), b[2]);
	if (sm.node[0])
		label(b[0], t, "node", sm.node, strlen(sm.node), b[2]);
	rep_pb_msg(prof, 2, b[0]);
}

/* gzip of a message given in two parts onto f (protobuf fields may come in
 * any order). @return 0, or -1 when zlib fails (out of memory). */
static int gzip_out(FILE *f, const struct rep_pb *a, const struct rep_pb *b)
{
	const struct rep_pb *part[2] = { a, b };
	unsigned char out[1 << 16];
	z_stream z;
	int rc = Z_OK, i;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	for (i = 0; i < 2 && rc != Z_STREAM_ERROR; i++) {
		size_t done = 0;
		int flush;
		do { /* avail_in is 32 bits: feed at most 1 GiB a turn */
			size_t chunk = part[i]->len - done > (1u << 30) ? 1u << 30 : part[i]->len - done;
			z.next_in = part[i]->p + done;
			z.avail_in = (uInt)chunk;
			done += chunk;
			flush = i == 1 && done == part[i]->len ? Z_FINISH : Z_NO_FLUSH;
			do {
				z.next_out = out;
				z.avail_out = sizeof out;
				rc = deflate(&z, flush);
				if (rc == Z_STREAM_ERROR)
					break;
				fwrite(out, 1, sizeof out - z.avail_out, f);
			} while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
		} while (done < part[i]->len && rc != Z_STREAM_ERROR);
	}
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -1;
}

int rep_write_pprof(FILE *f, const struct rep_view *v, const struct rep_pprof_s *p)
{
	struct strtab t = { 0 };
	struct rep_pb prof = { 0 }, bufs[4] = { { 0 } };
	struct rep_pb *b[4] = { &bufs[0], &bufs[1], &bufs[2], &bufs[3] };
	struct locs lc = { calloc(rep_frames_count(v->frames) + 1, sizeof(uint32_t)), 0 };
	char name[160];
	int64_t deflt = 0, first_us, last_us;
	size_t i;
	int rc = -1;
	if (!lc.of_frame)
		return -1;
	str0(&t, "");
	value_type(&prof, 1, &t, "samples", "count", b[0]);
	for (i = 0; i < rep_pprof_ncolumns(p); i++) {
		const char *col = rep_pprof_column(p, i);
		snprintf(name, sizeof name, "%s_delta", short_name(col));
		value_type(&prof, 1, &t, name, metric_unit(col), b[0]);
		if (v->weighted && strcmp(name, v->weight_name) == 0)
			deflt = str0(&t, name);
	}
	/* one mapping, so that pprof takes the functions as symbolized */
	rep_pb_clear(b[0]);
	rep_pb_uint(b[0], 1, 1);
	rep_pb_int(b[0], 5, str0(&t, "erlang"));
	rep_pb_uint(b[0], 7, 1);
	rep_pb_uint(b[0], 8, 1);
	rep_pb_uint(b[0], 9, 1);
	rep_pb_msg(&prof, 3, b[0]);
	for (i = 0; i < rep_pprof_nsamples(p); i++)
		put_sample(&prof, &t, v, p, i, &lc, b);
	rep_pprof_times(p, &first_us, &last_us);
	rep_pb_int(&prof, 9, first_us * 1000);
	rep_pb_int(&prof, 10, (last_us - first_us) * 1000);
	value_type(&prof, 11, &t, "cpu", "nanoseconds", b[0]);
	rep_pb_int(&prof, 12, 1000000000 / HZ);
	rep_pb_int(&prof, 13, str0(&t, "flameprof report: Erlang process samples"));
	rep_pb_int(&prof, 14, deflt ? deflt : str0(&t, "samples"));
	if (!t.failed && !t.out.failed && !prof.failed)
		rc = gzip_out(f, &prof, &t.out); /* the string table last: complete only now */
	free(lc.of_frame);
	for (i = 0; i < 4; i++)
		rep_pb_free(&bufs[i]);
	rep_pb_free(&prof);
	strtab_free(&t);
	return rc;
}
