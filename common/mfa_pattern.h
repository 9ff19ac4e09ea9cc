/*
 * mfa_pattern.h - the function patterns the commands share: MOD:FUN/ARITY,
 * and the named tier NAME=MOD:FUN/ARITY that `flameprof requests` times and
 * `flameprof` recordings write as a category frame. One parser for both,
 * so the two commands accept exactly the same text.
 */
#ifndef FP_MFA_PATTERN_H
#define FP_MFA_PATTERN_H

#include <stddef.h>

/* At most this many --tier options per command. */
#define FP_MAX_TIERS 32

/* MOD[:FUN[/ARITY]]. */
struct fp_mfa_pattern {
	const char *module;     /* never NULL; "_" is any module where a command allows it */
	const char *function;   /* "_" or NULL: any */
	int arity;              /* -1: any */
};

struct fp_tier_pattern {
	const char *name;              /* the tier's name, e.g. "db" */
	struct fp_mfa_pattern pattern; /* MOD:FUN/ARITY, '_' for FUN or ARITY */
};

enum fp_tier_parse_rc {
	FP_TIER_OK = 0,
	FP_TIER_SYNTAX = -1,   /* not NAME=MOD:FUN/ARITY */
	FP_TIER_RESERVED = -2  /* a name starting with '_' (flameprof's own, e.g. _total) */
};

/*
 * MOD:FUN/ARITY, FUN and ARITY each a name or '_', MOD a name (not '_'),
 * names at most 255 bytes, ARITY 0..255. text is modified (its ':' and '/'
 * become NULs) and p points into it. @return 0, or -1 when malformed.
 */
int fp_mfa_pattern_split(char *text, struct fp_mfa_pattern *p);
/* An ARITY: '_' (any: -1) or 0..255. @return 0, or -1 when malformed. */
int fp_mfa_arity_parse(const char *text, int *arity);
/*
 * NAME=MOD:FUN/ARITY, NAME 1..64 bytes. text is modified and t points into
 * it. @return an fp_tier_parse_rc.
 */
int fp_tier_parse(char *text, struct fp_tier_pattern *t);
/* Two tiers of one name and one pattern. @return that name, or NULL. */
const char *fp_tier_given_twice(const struct fp_tier_pattern *tiers, size_t n);

#endif
