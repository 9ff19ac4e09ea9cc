/*
 * ix_parse.c - the perf-script line grammar, tolerant like Flamescope.
 */
#include "ix_parse.h"

#include <string.h>

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

enum ix_line_kind ix_line_kind(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && is_space(s[i]))
		i++;
	if (i == len)
		return IX_L_BLANK;
	if (i == 0 && s[0] == '#')
		return IX_L_COMMENT;
	if (i > 0)
		return is_hex(s[i]) ? IX_L_FRAME : IX_L_OTHER;
	return IX_L_EVENT;
}

/* Finds " <digits>.<digits>:" followed by a blank or the end: Flamescope's
 * " +([0-9.]+): " rule. @return the index of the first digit, or -1. */
static long find_time(const char *s, size_t len, size_t *end)
{
	size_t i;
	for (i = 1; i < len; i++) {
		size_t j = i, dot = 0;
		if (!is_digit(s[i]) || !is_space(s[i - 1]))
			continue;
		while (j < len && (is_digit(s[j]) || s[j] == '.')) {
			if (s[j] == '.')
				dot++;
			j++;
		}
		if (dot == 1 && j < len && s[j] == ':' && s[j - 1] != '.' &&
		    (j + 1 == len || is_space(s[j + 1]))) {
			*end = j;
			return (long)i;
		}
		i = j;
	}
	return -1;
}

static int parse_u64(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;
	if (len == 0 || len > 20)
		return -1;
	for (i = 0; i < len; i++) {
		if (!is_digit(s[i]) || v > (max - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

static int parse_u32(const char *s, size_t len, uint32_t *out)
{
	uint64_t v;
	if (parse_u64(s, len, UINT32_MAX, &v) != 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* "<pid>/<tid>" (perf -F pid,tid; flameprof before 0.2 wrote the pid
 * <0.N.S> as N/S) or "<tid>" (plain perf; flameprof writes S * 2^32 + N):
 * both end as pid = N, tid = S, and a plain perf tid as pid = tid, tid = 0. */
static int parse_pid_tid(const char *s, size_t len, uint32_t *pid, uint32_t *tid)
{
	const char *slash = memchr(s, '/', len);
	uint64_t t;
	if (slash) {
		size_t plen = (size_t)(slash - s);
		if (parse_u32(s, plen, pid) != 0 || parse_u32(slash + 1, len - plen - 1, tid) != 0)
			return -1;
		return 0;
	}
	if (parse_u64(s, len, UINT64_MAX, &t) != 0)
		return -1;
	*pid = (uint32_t)(t & UINT32_MAX);
	*tid = (uint32_t)(t >> 32);
	return 0;
}

int ix_parse_event(const char *s, size_t len, struct ix_event_line *ev)
{
	size_t tend, i, e, b;
	long t = find_time(s, len, &tend);
	int64_t sec = 0, us = 0;
	int scale = 0;
	if (t < 0)
		return -1;
	for (i = (size_t)t; s[i] != '.'; i++) {
		if (sec > INT64_MAX / 100)
			return -1;
		sec = sec * 10 + (s[i] - '0');
	}
	for (i++; i < tend; i++)
		if (scale < 6) {
			us = us * 10 + (s[i] - '0');
			scale++;
		}
	for (; scale < 6; scale++)
		us *= 10;
	if (sec > (INT64_MAX - 999999) / 1000000)
		return -1; /* no clock says that: not a time */
	ev->time_us = sec * 1000000 + us;
	ev->rest = s + tend + 1;
	ev->rest_len = len - tend - 1;

	/* Before the time: comm, pid[/tid], optional [cpu]. */
	e = (size_t)t;
	while (e > 0 && is_space(s[e - 1]))
		e--;
	b = e;
	while (b > 0 && !is_space(s[b - 1]))
		b--;
	if (b < e && s[b] == '[' && s[e - 1] == ']') { /* the cpu */
		e = b;
		while (e > 0 && is_space(s[e - 1]))
			e--;
		b = e;
		while (b > 0 && !is_space(s[b - 1]))
			b--;
	}
	ev->has_pid = 0;
	ev->pid = ev->tid = 0;
	if (b < e && b > 0 && parse_pid_tid(s + b, e - b, &ev->pid, &ev->tid) == 0) {
		ev->has_pid = 1;
		e = b;
	} else {
		ev->pid = ev->tid = 0;
	}
	while (e > 0 && is_space(s[e - 1]))
		e--;
	ev->comm = s;
	ev->comm_len = e;
	return 0;
}

int ix_parse_frame(const char *s, size_t len, struct ix_frame_line *fr)
{
	size_t i = 0, j, e = len;
	while (i < len && is_space(s[i]))
		i++;
	j = i;
	while (j < len && is_hex(s[j]))
		j++;
	if (j == i || j == len || s[j] != ' ')
		return -1;
	i = j + 1;
	while (e > i && (s[e - 1] == '\r' || s[e - 1] == ' ' || s[e - 1] == '\t'))
		e--;
	fr->dso = NULL;
	fr->dso_len = 0;
	if (e > i && s[e - 1] == ')') {
		/* The last " (" before the final ')' starts the dso. */
		for (j = e - 1; j > i; j--)
			if (s[j] == '(' && s[j - 1] == ' ')
				break;
		if (j > i) {
			fr->dso = s + j + 1;
			fr->dso_len = e - 1 - (j + 1);
			e = j - 1;
		}
	}
	fr->is_category = fr->dso_len == 10 && memcmp(fr->dso, "[category]", 10) == 0;
	fr->sym = s + i;
	fr->sym_len = e - i;
	if (!fr->is_category) {
		const char *plus = memchr(fr->sym, '+', fr->sym_len);
		if (plus && plus > fr->sym)
			fr->sym_len = (size_t)(plus - fr->sym);
	}
	return fr->sym_len > 0 ? 0 : -1;
}

static int parse_i64(const char *s, size_t len, size_t *i, int64_t *out)
{
	int neg = 0;
	int64_t v = 0;
	size_t st;
	if (*i < len && s[*i] == '-') {
		neg = 1;
		(*i)++;
	}
	st = *i;
	while (*i < len && is_digit(s[*i])) {
		if (v > (INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (s[*i] - '0');
		(*i)++;
	}
	if (*i == st)
		return -1;
	*out = neg ? -v : v;
	return 0;
}

/* "<value>, <delta>" from s[*i] (just after a metric's ':'), blanks
 * allowed around both. @return 0 with *i after the delta, or -1. */
static int value_pair(const char *s, size_t len, size_t *i, int64_t *value, int64_t *delta)
{
	while (*i < len && is_space(s[*i]))
		(*i)++;
	if (parse_i64(s, len, i, value) != 0)
		return -1;
	while (*i < len && is_space(s[*i]))
		(*i)++;
	if (*i >= len || s[*i] != ',')
		return -1;
	(*i)++;
	while (*i < len && is_space(s[*i]))
		(*i)++;
	return parse_i64(s, len, i, delta);
}

int ix_find_metric(const char *s, size_t len, const char *name, size_t nlen, int64_t *value,
		    int64_t *delta)
{
	const char *p = s, *end = s + len;
	while ((p = memchr(p, 'm', (size_t)(end - p))) != NULL) {
		size_t i;
		if ((size_t)(end - p) < 8 + nlen || memcmp(p, "metric_", 7) != 0 ||
		    memcmp(p + 7, name, nlen) != 0 || p[7 + nlen] != ':' ||
		    (p > s && !is_space(p[-1]))) {
			p++;
			continue;
		}
		i = (size_t)(p - s) + 8 + nlen;
		return value_pair(s, len, &i, value, delta) == 0;
	}
	return 0;
}

int ix_next_metric(const char *s, size_t len, size_t *pos, const char **name, size_t *nlen)
{
	while (*pos + 7 < len) {
		const char *p = memchr(s + *pos, 'm', len - *pos);
		const char *c;
		if (!p)
			break;
		*pos = (size_t)(p - s) + 1;
		if ((size_t)(s + len - p) < 8 || memcmp(p, "metric_", 7) != 0 ||
		    (p > s && !is_space(p[-1])))
			continue;
		c = memchr(p + 7, ':', (size_t)(s + len - p - 7));
		if (!c || c == p + 7)
			continue;
		*name = p + 7;
		*nlen = (size_t)(c - p - 7);
		*pos = (size_t)(c - s);
		return 1;
	}
	*pos = len;
	return 0;
}

int ix_next_metric_value(const char *s, size_t len, size_t *pos, const char **name,
			  size_t *nlen, int64_t *value, int64_t *delta)
{
	size_t i;
	if (!ix_next_metric(s, len, pos, name, nlen))
		return 0;
	i = *pos + 1; /* after the ':' */
	if (value_pair(s, len, &i, value, delta) != 0)
		return -1;
	*pos = i;
	return 1;
}
