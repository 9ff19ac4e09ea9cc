/*
 * rep_files.c - input files in time order, and the report's time origin.
 */
#include "rep_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formatter/formatter.h"
#include "../rotate/naming.h" /* the file-name grammar, rotate/'s door */
#include "rep_input.h"
#include "rep_names.h"
#include "../index/ix_parse.h"

/* How far into a file its first event is looked for: the header is a few
 * dozen lines, so this only gives up on a file that is not perf text. */
#define FIRST_EVENT_LINES 10000

/* Days since 1970-01-01 of a proleptic Gregorian date (no timegm(): not C11). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;
	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* "YYYYmmddTHHMMSS.mmmZ" (rotate/naming.c) as microseconds, UTC. */
static int64_t stamp_us(const char *st)
{
	static const int pos[7] = { 0, 4, 6, 9, 11, 13, 16 }, len[7] = { 4, 2, 2, 2, 2, 2, 3 };
	int64_t v[7];
	int i, k;
	for (i = 0; i < 7; i++)
		for (v[i] = 0, k = 0; k < len[i]; k++)
			v[i] = v[i] * 10 + (st[pos[i] + k] - '0');
	return ((days_from_civil(v[0], (int)v[1], (int)v[2]) * 86400 + v[3] * 3600 + v[4] * 60 +
		 v[5]) * 1000 + v[6]) * 1000;
}

void rep_file_name(struct rep_file *f)
{
	const char *base = strrchr(f->path, '/'), *end;
	char fnode[ROT_NODE_MAX + 1], st[ROT_STAMP_LEN + 1];
	size_t nl;
	long ul;
	f->node[0] = '\0';
	f->name_us = REP_NO_TIME;
	f->seq = 0;
	base = base ? base + 1 : f->path;
	if (base[0] == '.')   /* a dead run's file, not renamed yet */
		base++;
	if (strncmp(base, "flameprof_", 10) != 0)
		return;
	/* rot_name_node() keeps '_' (app_1@h), and the stamp, the rotation
	 * number and the extension after the node have none: the node ends
	 * at the last one */
	end = strrchr(base + 10, '_');
	nl = end ? (size_t)(end - base - 10) : 0;
	if (nl == 0 || nl > ROT_NODE_MAX)
		return;
	memcpy(fnode, base + 10, nl);
	fnode[nl] = '\0';
	if (!rot_name_parse(base, fnode, st, &f->seq))
		return;
	f->name_us = stamp_us(st);
	ul = fmt_unescape(fnode, nl, f->node, sizeof f->node);
	if (ul < 0 || (size_t)ul >= sizeof f->node)
		memcpy(f->node, fnode, nl + 1); /* not our escape: as written */
}

void rep_file_first_event(struct rep_file *f)
{
	enum rep_in_err e;
	char detail[128];
	rep_input *in = rep_input_open(f->path, &e, detail, sizeof detail);
	const char *line;
	size_t len;
	int n = 0;
	f->first_us = REP_NO_TIME;
	if (!in)
		return;
	while (n++ < FIRST_EVENT_LINES && rep_input_line(in, &line, &len) > 0) {
		struct ix_event_line ev;
		if (len && line[0] == '#' && rep_names_header(line, len) != FP_NAMES_AUTO)
			f->names = (int)rep_names_header(line, len);
		if (len > 8 && memcmp(line, "# idle: ", 8) == 0) {
			size_t n = len - 8 < sizeof f->idle - 1 ? len - 8 : sizeof f->idle - 1;
			memcpy(f->idle, line + 8, n);
			f->idle[n] = '\0';
		}
		if (ix_line_kind(line, len) == IX_L_EVENT && ix_parse_event(line, len, &ev) == 0) {
			f->first_us = ev.time_us;
			break;
		}
	}
	rep_input_close(in);
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_file(const void *pa, const void *pb)
{
	const struct rep_file *a = pa, *b = pb;
	int64_t ta = a->first_us != REP_NO_TIME ? a->first_us : a->name_us;
	int64_t tb = b->first_us != REP_NO_TIME ? b->first_us : b->name_us;
	int c = cmp_i64(ta, tb);
	if (!c)
		c = cmp_i64(a->name_us, b->name_us);
	if (!c)
		c = a->seq < b->seq ? -1 : a->seq > b->seq;
	return c ? c : strcmp(a->path, b->path);
}

void rep_files_sort(struct rep_file *files, size_t n)
{
	if (n > 1)
		qsort(files, n, sizeof *files, cmp_file);
}

int64_t rep_files_t0(const struct rep_file *files, size_t n)
{
	int64_t t0 = REP_NO_TIME;
	for (size_t i = 0; i < n; i++)
		if (files[i].first_us != REP_NO_TIME && (t0 == REP_NO_TIME || files[i].first_us < t0))
			t0 = files[i].first_us;
	return t0;
}

/* Calls fn for each name of a --node value ("a,b" is two names). @return
 * 1 as soon as fn does, else 0. */
static int each_name(const char *list, int (*fn)(const char *name, size_t len, const void *arg),
		     const void *arg)
{
	for (const char *p = list;;) {
		size_t len = strcspn(p, ",");
		if (len && fn(p, len, arg))
			return 1;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static int same_node(const char *name, size_t len, const void *node)
{
	return (len == 3 && memcmp(name, "all", 3) == 0) ||
	       (strlen(node) == len && memcmp(name, node, len) == 0);
}

int rep_node_wanted(const char *const *wanted, size_t nw, const char *node)
{
	if (nw == 0)
		return 1;
	for (size_t k = 0; k < nw; k++)
		if (each_name(wanted[k], same_node, node))
			return 1;
	return 0;
}

size_t rep_files_keep_nodes(struct rep_file *files, size_t n, const char *const *wanted, size_t nw)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (rep_node_wanted(wanted, nw, files[i].node)) {
			struct rep_file t = files[k];
			files[k++] = files[i];
			files[i] = t;
		}
	}
	for (size_t i = k; i < n; i++) {
		free(files[i].path);
		files[i].path = NULL;
	}
	return k;
}

struct files_of {
	const struct rep_file *files;
	size_t n;
	const char *missing; /* the first name no file has */
	size_t missing_len;
};

static int has_no_file(const char *name, size_t len, const void *arg)
{
	struct files_of *f = (struct files_of *)arg;
	if (len == 3 && memcmp(name, "all", 3) == 0)
		return 0;
	for (size_t i = 0; i < f->n; i++)
		if (strlen(f->files[i].node) == len && memcmp(f->files[i].node, name, len) == 0)
			return 0;
	f->missing = name;
	f->missing_len = len;
	return 1;
}

int rep_files_missing_node(const struct rep_file *files, size_t n, const char *const *wanted,
			   size_t nw, char *out, size_t cap)
{
	struct files_of f = { files, n, NULL, 0 };
	for (size_t k = 0; k < nw; k++)
		if (each_name(wanted[k], has_no_file, &f)) {
			snprintf(out, cap, "%.*s", (int)f.missing_len, f.missing);
			return 1;
		}
	return 0;
}

size_t rep_files_nodes(const struct rep_file *files, size_t n, char *list, size_t cap)
{
	size_t nodes = 0, ll = 0;
	if (list && cap)
		list[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t j;
		for (j = 0; j < i && strcmp(files[j].node, files[i].node) != 0; j++)
			;
		if (j < i)
			continue;
		nodes++;
		if (list && ll + strlen(files[i].node) + 8 < cap)
			ll += (size_t)snprintf(list + ll, cap - ll, "%s'%s'", ll ? ", " : "", files[i].node);
	}
	return nodes;
}
