/*
 * mfa_pattern.c - parsing MOD:FUN/ARITY and NAME=MOD:FUN/ARITY (see
 * mfa_pattern.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "mfa_pattern.h"

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

int fp_mfa_pattern_split(char *t, struct fp_mfa_pattern *p)
{
	char *colon = strchr(t, ':'), *slash = colon ? strrchr(colon, '/') : NULL;
	if (!colon || !slash)
		return -1;
	*colon = *slash = '\0';
	p->module = t;
	p->function = colon + 1;
	if (fp_mfa_arity_parse(slash + 1, &p->arity) < 0)
		return -1;
	if (!*p->module || !*p->function || strcmp(p->module, "_") == 0 || strlen(p->module) > 255 ||
	    strlen(p->function) > 255)
		return -1;
	return 0;
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
			    strcmp(tiers[a].pattern.function, tiers[b].pattern.function) == 0 &&
			    tiers[a].pattern.arity == tiers[b].pattern.arity)
				return tiers[a].name;
	return NULL;
}
