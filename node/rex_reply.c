/*
 * rex_reply.c - reading rex replies, checked before decoding (see
 * rex_reply.h).
 */
#include <stdio.h>
#include <string.h>
#include "rex_reply.h"
#include "term_check.h"

/* Large enough for any message flameprof accepts; ei counts in ints. */
#define MAX_INDEX 0x7fffffff

int node_rex_reply_open(const char *buf, size_t len, struct node_rex_reply *r)
{
	int version, arity, i = 0;
	char tag[MAXATOMLEN_UTF8];
	if (len > MAX_INDEX || node_term_check(buf, len) < 0)
		return -1;
	if (ei_decode_version(buf, &i, &version) < 0 || ei_decode_tuple_header(buf, &i, &arity) < 0 ||
	    arity != 2 || ei_decode_atom(buf, &i, tag) < 0 || strcmp(tag, "rex") != 0)
		return -1;
	r->buf = buf;
	r->at = i;
	return 0;
}

static int is_type(const struct node_rex_reply *r, int at, int want, int *size)
{
	int type;
	return ei_get_type(r->buf, &at, &type, size) == 0 && type == want;
}

int node_rex_reply_pid(const struct node_rex_reply *r, erlang_pid *pid)
{
	int at = r->at, size;
	if (!is_type(r, at, ERL_PID_EXT, &size) && !is_type(r, at, ERL_NEW_PID_EXT, &size))
		return -1;
	return ei_decode_pid(r->buf, &at, pid) < 0 ? -1 : 0;
}

/* An atom at *at into out (fewer than cap bytes); advances *at. */
static int atom_at(const char *buf, int *at, char *out, size_t cap)
{
	char a[MAXATOMLEN_UTF8];
	int type, size;
	if (ei_get_type(buf, at, &type, &size) < 0 ||
	    !(type == ERL_ATOM_EXT || type == ERL_SMALL_ATOM_EXT || type == ERL_ATOM_UTF8_EXT ||
	      type == ERL_SMALL_ATOM_UTF8_EXT) ||
	    ei_decode_atom(buf, at, a) < 0 || strlen(a) >= cap)
		return -1;
	memcpy(out, a, strlen(a) + 1);
	return 0;
}

int node_rex_reply_atom(const struct node_rex_reply *r, char *out, size_t cap)
{
	int at = r->at;
	return atom_at(r->buf, &at, out, cap);
}

int node_rex_reply_atom_is(const struct node_rex_reply *r, const char *want)
{
	char a[MAXATOMLEN_UTF8];
	return node_rex_reply_atom(r, a, sizeof a) == 0 && strcmp(a, want) == 0;
}

static int word_byte(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
	       c == '_' || c == '-';
}

int node_rex_reply_word(const struct node_rex_reply *r, char *out, size_t cap)
{
	int at = r->at, type, size;
	out[0] = '\0';
	/* A list of bytes travels as STRING_EXT (at most 65,535) or, when an
	 * element is not a byte, as LIST_EXT: both are sized first, so ei
	 * never writes more than cap bytes. */
	if (cap == 0 || ei_get_type(r->buf, &at, &type, &size) < 0 ||
	    !(type == ERL_STRING_EXT || type == ERL_LIST_EXT) || size < 0 ||
	    size == 0 || (size_t)size >= cap || ei_decode_string(r->buf, &at, out) < 0) {
		out[0] = '\0';
		return -1;
	}
	for (int k = 0; k < size; k++)
		if (!word_byte((unsigned char)out[k])) {
			out[0] = '\0';
			return -1;
		}
	return 0;
}

int node_rex_reply_has_atom(const struct node_rex_reply *r, const char *name, int max, int *found)
{
	char a[MAXATOMLEN_UTF8];
	int at = r->at, n, type, size;
	*found = 0;
	if (ei_get_type(r->buf, &at, &type, &size) < 0 || size > max)
		return -1;
	if (ei_decode_list_header(r->buf, &at, &n) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		if (atom_at(r->buf, &at, a, sizeof a) < 0)
			return -1;
		if (strcmp(a, name) == 0)
			*found = 1;
	}
	return 0;
}

int node_rex_reply_atoms(const struct node_rex_reply *r, char *names, size_t cap, int max, int *count)
{
	char a[MAXATOMLEN_UTF8];
	int at = r->at, n, type, size;
	*count = 0;
	if (ei_get_type(r->buf, &at, &type, &size) < 0 || !(type == ERL_NIL_EXT || type == ERL_LIST_EXT))
		return -1;
	if (ei_decode_list_header(r->buf, &at, &n) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		if (atom_at(r->buf, &at, a, sizeof a) < 0 || strlen(a) >= cap)
			return -1;
		if (i < max)
			memcpy(names + (size_t)i * cap, a, strlen(a) + 1);
	}
	*count = n;
	return 0;
}

int node_rex_reply_ref(const struct node_rex_reply *r, int *start, int *end)
{
	erlang_ref ref;
	int at = r->at, size;
	if (!is_type(r, at, ERL_NEW_REFERENCE_EXT, &size) && !is_type(r, at, ERL_NEWER_REFERENCE_EXT, &size))
		return -1;
	if (ei_decode_ref(r->buf, &at, &ref) < 0)
		return -1;
	*start = r->at;
	*end = at;
	return 0;
}

int node_rex_reply_binary_size(const struct node_rex_reply *r, size_t max, size_t *size)
{
	int n;
	if (!is_type(r, r->at, ERL_BINARY_EXT, &n) || n < 0 || (size_t)n > max)
		return -1;
	*size = (size_t)n;
	return 0;
}

int node_rex_reply_loaded(const struct node_rex_reply *r, char *why, size_t cap)
{
	char tag[MAXATOMLEN_UTF8];
	int at = r->at, arity;
	why[0] = '\0';
	if (ei_decode_tuple_header(r->buf, &at, &arity) < 0 || arity != 2 ||
	    atom_at(r->buf, &at, tag, sizeof tag) < 0)
		return 0;
	if (strcmp(tag, "module") == 0)
		return 1;
	if (atom_at(r->buf, &at, why, cap) < 0)
		snprintf(why, cap, "%.*s", (int)(cap ? cap - 1 : 0), tag);
	return 0;
}

/* {Key, _} at *at with Key key; leaves *at on the value. */
static int pair_is(const char *buf, int *at, const char *key)
{
	char a[MAXATOMLEN_UTF8];
	int n;
	return ei_decode_tuple_header(buf, at, &n) == 0 && n == 2 && atom_at(buf, at, a, sizeof a) == 0 &&
	       strcmp(a, key) == 0;
}

int node_rex_reply_bare_lock(const struct node_rex_reply *r, erlang_pid *owner)
{
	const char *buf = r->buf;
	char m[MAXATOMLEN_UTF8], f[MAXATOMLEN_UTF8];
	long arity;
	int at = r->at, n;
	if (ei_decode_list_header(buf, &at, &n) < 0 || n != 3)
		return 0;
	if (!pair_is(buf, &at, "initial_call") || ei_decode_tuple_header(buf, &at, &n) < 0 || n != 3 ||
	    atom_at(buf, &at, m, sizeof m) < 0 || atom_at(buf, &at, f, sizeof f) < 0 ||
	    ei_decode_long(buf, &at, &arity) < 0 || strcmp(m, "erlang") != 0 || strcmp(f, "hibernate") != 0 ||
	    arity != 3)
		return 0;
	if (!pair_is(buf, &at, "links") || ei_decode_list_header(buf, &at, &n) < 0 || n != 0)
		return 0;
	struct node_rex_reply gl = { buf, at };
	return pair_is(buf, &gl.at, "group_leader") && node_rex_reply_pid(&gl, owner) == 0;
}
