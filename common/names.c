/*
 * names.c - Elixir's spelling of Erlang frames, as Elixir 1.14's
 * Exception.format_mfa/3 writes them (checked against `elixir` itself in
 * tests/unit/test_names.c): the module as Macro.inspect_atom(:literal, m)
 * (`Shop.Pricing`, `:gen_server`, `:"my mod"`), the function as
 * Macro.inspect_atom(:remote_call, f) (`handle_call`, `+`, `"Foo"`), and a
 * fun's `-PARENT/ARITY-KIND-N-` name as `anonymous fn/A in M.PARENT/ARITY`
 * by Code.Identifier.extract_anonymous_fun_parent/1's rule (the last '/'
 * piece must split on '-' into exactly four parts, the last empty; so
 * `-map/2-lists^map/1-0-` stays a quoted name there, as in Elixir).
 * Shared by report/ (rep_frames.c), calls/ and requests/ output.
 */
#include "names.h"

#include <stdlib.h>
#include <string.h>

#include "bounded.h"

static void puts_(struct fp_bounded *o, const char *s)
{
	fp_bounded_put(o, s, strlen(s));
}

static int upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

static int lower_(char c)
{
	return (c >= 'a' && c <= 'z') || c == '_';
}

static int word(char c)
{
	return upper(c) || lower_(c) || (c >= '0' && c <= '9');
}

/* [A-Z][A-Za-z0-9_]*(.[A-Z][A-Za-z0-9_]*)* */
static int is_alias(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (!upper(s[i++]))
			return 0;
		while (i < n && word(s[i]))
			i++;
		if (i < n && (s[i++] != '.' || i == n))
			return 0;
	}
	return n > 0;
}

/* An atom Elixir writes without quotes: [A-Za-z_][A-Za-z0-9_@]*[?!]? for a
 * literal (first_upper allowed), [a-z_][A-Za-z0-9_]*[?!]? for a call. */
static int is_plain(const char *s, size_t n, int literal)
{
	size_t i = 1;
	if (n == 0 || !(lower_(s[0]) || (literal && upper(s[0]))))
		return 0;
	while (i < n && (word(s[i]) || (literal && s[i] == '@')))
		i++;
	if (i < n && (s[i] == '?' || s[i] == '!'))
		i++;
	return i == n;
}

/* Elixir's operators, written bare after "Mod." (Kernel.+/2). */
static int is_operator(const char *s, size_t n)
{
	static const char *const ops[] = {
		"+", "-", "*", "/", "++", "--", "+++", "---", "..", "<>", "!", "^^^", "~~~",
		"&&", "||", "&&&", "|||", "<<<", ">>>", "<<~", "~>>", "<~", "~>", "<~>", "<|>",
		"==", "!=", "===", "!==", "=~", "<", ">", "<=", ">=", "|>", "..//", "**", "@",
	};
	for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
		if (strlen(ops[k]) == n && memcmp(ops[k], s, n) == 0)
			return 1;
	return 0;
}

static void quoted(struct fp_bounded *o, const char *s, size_t n)
{
	fp_bounded_put(o, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\')
			fp_bounded_put(o, "\\", 1);
		fp_bounded_put(o, s + i, 1);
	}
	fp_bounded_put(o, "\"", 1);
}

static void module(struct fp_bounded *o, const char *m, size_t n)
{
	if (n > 7 && memcmp(m, "Elixir.", 7) == 0 && is_alias(m + 7, n - 7)) {
		fp_bounded_put(o, m + 7, n - 7);
	} else if (n == 6 && memcmp(m, "Elixir", 6) == 0) {
		fp_bounded_put(o, m, n);
	} else {
		fp_bounded_put(o, ":", 1);
		if (is_plain(m, n, 1))
			fp_bounded_put(o, m, n);
		else
			quoted(o, m, n);
	}
}

static void call_name(struct fp_bounded *o, const char *f, size_t n)
{
	if (is_plain(f, n, 0) || is_operator(f, n))
		fp_bounded_put(o, f, n);
	else
		quoted(o, f, n);
}

/* f = "-PARENT/OUTER-KIND-N-": *parent and *outer. @return 1 or 0. */
static int anonymous(const char *f, size_t n, const char **parent, size_t *plen,
		     const char **outer, size_t *olen)
{
	const char *rest = f + 1, *end = f + n, *slash = NULL, *t, *dash[3];
	size_t k = 0;
	if (n < 2 || f[0] != '-')
		return 0;
	for (t = rest; t < end; t++)
		if (*t == '/')
			slash = t;
	t = slash ? slash + 1 : rest;
	for (const char *q = t; q < end; q++) {
		if (*q != '-')
			continue;
		if (k == 3)
			return 0;
		dash[k++] = q;
	}
	/* exactly three '-', the last one ending the name */
	if (k != 3 || dash[2] != end - 1)
		return 0;
	*parent = rest;
	*plen = slash ? (size_t)(slash - rest) : 0;
	*outer = t;
	*olen = (size_t)(dash[0] - t);
	return 1;
}

static long finish(struct fp_bounded *o)
{
	if (o->len >= o->cap)
		return -1;
	o->p[o->len] = '\0';
	return (long)o->len;
}

static long mfa(const char *s, size_t n, struct fp_bounded *o)
{
	const char *colon = memchr(s, ':', n), *slash = NULL, *parent, *outer;
	size_t plen, olen, i;
	if (!colon)
		return -1;
	for (i = n; i > 0; i--)
		if (s[i - 1] == '/') {
			slash = s + i - 1;
			break;
		}
	if (!slash || slash < colon || slash == s + n - 1)
		return -1;
	for (const char *d = slash + 1; d < s + n; d++)
		if (*d < '0' || *d > '9')
			return -1;
	const char *f = colon + 1;
	size_t fl = (size_t)(slash - f), ml = (size_t)(colon - s);
	if (anonymous(f, fl, &parent, &plen, &outer, &olen)) {
		puts_(o, "anonymous fn");
		fp_bounded_put(o, slash, (size_t)(s + n - slash));
		puts_(o, " in ");
		module(o, s, ml);
		fp_bounded_put(o, ".", 1);
		call_name(o, parent, plen);
		fp_bounded_put(o, "/", 1);
		fp_bounded_put(o, outer, olen);
	} else {
		module(o, s, ml);
		fp_bounded_put(o, ".", 1);
		call_name(o, f, fl);
		fp_bounded_put(o, slash, (size_t)(s + n - slash));
	}
	return finish(o);
}

long fp_names_elixir(int category, const char *s, size_t n, char *out, size_t cap)
{
	struct fp_bounded o = { out, 0, cap };
	const char *colon;
	if (!category)
		return mfa(s, n, &o);
	if (!(colon = memchr(s, ':', n)))
		return -1;
	size_t kl = (size_t)(colon - s) + 1;
	fp_bounded_put(&o, s, kl);
	if (kl == 13 && memcmp(s, "initial_call:", 13) == 0)
		return mfa(colon + 1, n - kl, &o) < 0 ? -1 : finish(&o);
	if (n - kl > 7 && memcmp(colon + 1, "Elixir.", 7) == 0 && is_alias(colon + 8, n - kl - 7)) {
		fp_bounded_put(&o, colon + 8, n - kl - 7);
		return finish(&o);
	}
	return -1;
}


int fp_names_respell(char **text)
{
	size_t n = strlen(*text), cap = 2 * n + 64;
	char *out = malloc(cap), *in;
	long len;
	if (!out)
		return -1;
	len = fp_names_elixir(0, *text, n, out, cap);
	if (len < 0) {
		/* an alias alone: as the value of a category frame "n:..." */
		if (!(in = malloc(n + 3))) {
			free(out);
			return -1;
		}
		memcpy(in, "n:", 2);
		memcpy(in + 2, *text, n + 1);
		len = fp_names_elixir(1, in, n + 2, out, cap);
		if (len >= 2)
			memmove(out, out + 2, (size_t)len - 1);
		free(in);
	}
	if (len < 0) {
		free(out);
		return 0;
	}
	free(*text);
	*text = out;
	return 0;
}
