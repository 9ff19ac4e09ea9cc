/*
 * tiers.c - which tier a sample is in: the innermost (leaf-most) stack
 * frame that matches a --tier pattern names it. The patterns' texts are
 * copied and measured once, at fmt_create(); matching a sample compares
 * lengths first and allocates nothing.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* "_" (or NULL for a function): any. */
static int any(const char *s)
{
	return !s || (s[0] == '_' && s[1] == '\0');
}

/* Copies s into *at and returns the copy; *len its length. */
static const char *keep(char **at, const char *s, size_t *len)
{
	char *d = *at;
	*len = strlen(s);
	memcpy(d, s, *len + 1);
	*at += *len + 1;
	return d;
}

int fmt_tiers_init(struct fmt_tiers *t, const struct fp_tier_pattern *p, size_t n)
{
	size_t bytes = 0;
	memset(t, 0, sizeof *t);
	if (!p || n == 0)
		return 0;
	for (size_t k = 0; k < n; k++)
		bytes += strlen(p[k].name) + strlen(p[k].pattern.module) +
			 (any(p[k].pattern.function) ? 0 : strlen(p[k].pattern.function)) + 3;
	t->v = calloc(n, sizeof *t->v);
	t->text = malloc(bytes);
	if (!t->v || !t->text) {
		fmt_tiers_free(t);
		return -1;
	}
	char *at = t->text;
	for (size_t k = 0; k < n; k++) {
		struct fmt_tier *d = &t->v[k];
		d->name = keep(&at, p[k].name, &d->name_len);
		d->any_module = any(p[k].pattern.module);
		d->module = keep(&at, p[k].pattern.module, &d->module_len);
		d->any_function = any(p[k].pattern.function);
		d->function = keep(&at, d->any_function ? "" : p[k].pattern.function, &d->function_len);
		d->arity = p[k].pattern.arity;
		d->alias = p[k].pattern.alias;
	}
	t->n = n;
	return 0;
}

void fmt_tiers_free(struct fmt_tiers *t)
{
	free(t->v);
	free(t->text);
	memset(t, 0, sizeof *t);
}

static int same(struct fp_str s, const char *text, size_t len)
{
	return s.len == len && memcmp(s.ptr, text, len) == 0;
}

/* An Elixir alias (Shop.Repo) is Elixir's module 'Elixir.Shop.Repo' or an
 * Erlang module of that very name: a recording has no node to ask which
 * one is loaded, and a frame can only be of a loaded one. */
static int same_module(const struct fmt_tier *t, struct fp_str m)
{
	static const char elixir[] = "Elixir.";
	const size_t e = sizeof elixir - 1;
	if (same(m, t->module, t->module_len))
		return 1;
	return t->alias && m.len == e + t->module_len && memcmp(m.ptr, elixir, e) == 0 &&
	       memcmp(m.ptr + e, t->module, t->module_len) == 0;
}

/* A frame whose arity the node did not give (-1) matches only ARITY '_'. */
static int matches(const struct fmt_tier *t, const struct fp_frame *f)
{
	return (t->arity < 0 || t->arity == f->arity) &&
	       (t->any_function || same(f->function, t->function, t->function_len)) &&
	       (t->any_module || same_module(t, f->module));
}

long fmt_tiers_match(const struct fmt_tiers *t, const struct fp_sample *s)
{
	size_t nframes = s->frames ? s->nframes : 0;
	/* frames[0] is the leaf: the first frame that matches is the innermost;
	 * of several tiers matching that frame, the first given wins. */
	for (size_t i = 0; i < nframes && t->n; i++) {
		const struct fp_frame *f = s->frames[i];
		if (!f)
			continue;
		for (size_t k = 0; k < t->n; k++)
			if (matches(&t->v[k], f))
				return (long)k;
	}
	return -1;
}
