/*
 * mfa_pattern.c - parsing MOD:FUN/ARITY and NAME=MOD:FUN/ARITY, in
 * Erlang's syntax or Elixir's (see mfa_pattern.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mfa_pattern.h"

static int upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

static int word(char c)
{
	return upper(c) || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

int fp_mfa_arity_parse(const char *text, int *arity)
{
	char *end;
	*arity = -1;
	if (strcmp(text, "_") == 0)
		return 0;
	errno = 0;
	long a = strtol(text, &end, 10);
	if (end == text || *end || errno || a < 0 || a > 255)
		return -1;
	*arity = (int)a;
	return 0;
}

/*
 * The quoted name at *s ('...' or "...", the quote is **s): written over
 * the text from *s without its quotes, a backslash escaping the quote or
 * a backslash; *s moves past the closing quote (the name is shorter than
 * its quoted text, so what follows is untouched). @return the name, or
 * NULL (no closing quote, empty, another escape: \n would mean a newline
 * to Erlang and Elixir, and no name holds one).
 */
static char *unquote(char **s)
{
	char q = **s, *in = *s + 1, *out = *s, *name = *s;
	for (; *in && *in != q; in++) {
		if (*in == '\\' && (in[1] == '\\' || in[1] == '\'' || in[1] == '"'))
			in++;
		else if (*in == '\\')
			return NULL;
		*out++ = *in;
	}
	if (*in != q || out == name)
		return NULL;
	*out = '\0';
	*s = in + 1;
	return name;
}

/* The length of the Elixir alias at s (Shop.Pricing: segments starting
 * with a capital, joined by '.'), 0 if none. A '.' before anything else
 * (Shop.Pricing.handle_call) ends it. */
static size_t alias_len(const char *s)
{
	size_t n = 0;
	if (!upper(s[0]))
		return 0;
	for (;;) {
		n++;
		while (word(s[n]))
			n++;
		if (s[n] != '.' || !upper(s[n + 1]))
			return n;
		n++;
	}
}

/* The module: 'quoted', :atom, :"quoted", an alias, or (Erlang's form)
 * anything up to the first ':'. *s moves past it; *dot says whether '.'
 * may separate the function (Elixir's form). @return 0, or -1. */
static int module(char **s, struct fp_mfa_pattern *p, int *dot)
{
	size_t n;
	*dot = 0;
	if (**s == '\'')
		return (p->module = unquote(s)) ? 0 : -1;
	if (**s == ':') {
		*dot = 1;
		++*s;
		if (**s == '"')
			return (p->module = unquote(s)) ? 0 : -1;
		p->module = *s;
		while (word(**s) || **s == '@')
			++*s;
		return *s > p->module ? 0 : -1;
	}
	n = alias_len(*s);
	if (n && ((*s)[n] == '\0' || (*s)[n] == ':' || (*s)[n] == '.')) {
		/* Elixir.Shop.Pricing is the alias Shop.Pricing already spelled out */
		p->alias = !(strncmp(*s, "Elixir", 6) == 0 && (n == 6 || (*s)[6] == '.'));
		p->module = *s;
		*s += n;
		*dot = 1;
		return 0;
	}
	p->module = *s;
	*s += strcspn(*s, ":");
	return 0;
}

int fp_mfa_parse(char *t, struct fp_mfa_pattern *p)
{
	char *s = t, sep;
	int dot, parts = 1;
	p->function = NULL;
	p->arity = -1;
	p->alias = 0;
	if (module(&s, p, &dot) < 0)
		return -1;
	sep = *s;
	*s = '\0';
	if (sep == ':' || (sep == '.' && dot)) {
		s++;
		parts = 2;
		if (*s == '\'' || *s == '"') {
			if (!(p->function = unquote(&s)))
				return -1;
		} else {
			char *slash = strrchr(s, '/');
			p->function = s;
			s = slash ? slash : s + strlen(s);
		}
		sep = *s;
		*s = '\0';
		if (sep == '/') {
			parts = 3;
			if (fp_mfa_arity_parse(s + 1, &p->arity) < 0)
				return -1;
		} else if (sep) {
			return -1;
		}
		if (!*p->function || strlen(p->function) > FP_ATOM_MAX)
			return -1;
	} else if (sep) {
		return -1;
	}
	if (!*p->module || strlen(p->module) > FP_ATOM_MAX)
		return -1;
	return parts;
}

int fp_mfa_pattern_split(char *t, struct fp_mfa_pattern *p)
{
	return fp_mfa_parse(t, p) == 3 && strcmp(p->module, "_") != 0 ? 0 : -1;
}

int fp_name_parse(char *t, struct fp_mfa_pattern *p)
{
	return fp_mfa_parse(t, p) == 1 && strcmp(p->module, "_") != 0 ? 0 : -1;
}

size_t fp_mfa_modules(const struct fp_mfa_pattern *p, char buf[FP_ALIAS_CAP], const char *names[2])
{
	names[0] = p->module;
	if (!p->alias || strlen(p->module) + 7 > FP_ATOM_MAX)
		return 1;
	snprintf(buf, FP_ALIAS_CAP, "Elixir.%s", p->module);
	names[0] = buf;
	names[1] = p->module;
	return 2;
}

int fp_tier_parse(char *t, struct fp_tier_pattern *tp)
{
	char *eq = strchr(t, '=');
	if (!eq || eq == t || eq - t > 64 || fp_mfa_pattern_split(eq + 1, &tp->pattern) < 0)
		return FP_TIER_SYNTAX;
	*eq = '\0';
	tp->name = t;
	return t[0] == '_' ? FP_TIER_RESERVED : FP_TIER_OK;
}

const char *fp_tier_given_twice(const struct fp_tier_pattern *tiers, size_t n)
{
	for (size_t a = 0; a < n; a++)
		for (size_t b = 0; b < a; b++)
			if (strcmp(tiers[a].name, tiers[b].name) == 0 &&
			    strcmp(tiers[a].pattern.module, tiers[b].pattern.module) == 0 &&
			    tiers[a].pattern.alias == tiers[b].pattern.alias &&
			    strcmp(tiers[a].pattern.function, tiers[b].pattern.function) == 0 &&
			    tiers[a].pattern.arity == tiers[b].pattern.arity)
				return tiers[a].name;
	return NULL;
}
