/*
 * mfa_pattern.h - the function patterns the commands share: MOD:FUN/ARITY,
 * and the named tier NAME=MOD:FUN/ARITY that `flameprof requests` times and
 * `flameprof` recordings write as a category frame. One parser for both,
 * so the commands accept exactly the same text, in Erlang's syntax or in
 * Elixir's:
 *
 *   Erlang   kv_db:query/2   'Elixir.Shop.Pricing':handle_call/3   kv:_/_
 *   Elixir   Shop.Pricing.handle_call/3   Shop.Pricing.handle_call/_
 *            :ets.lookup/2   :"Elixir.Shop.Pricing".handle_call/3
 *
 * A module written as an Elixir alias (Shop.Pricing, Foo) is ambiguous: it
 * may be Elixir's 'Elixir.Shop.Pricing' or an Erlang module of that very
 * name. Such a pattern has alias set, and the node tries the names of
 * fp_mfa_modules() in order (the first one loaded wins). Registered
 * process names (--name) follow the grammar of a module.
 */
#ifndef FP_MFA_PATTERN_H
#define FP_MFA_PATTERN_H

#include <stddef.h>

/* At most this many --tier options per command. */
#define FP_MAX_TIERS 32
/* The longest atom, in bytes, and room for "Elixir." in front of it. */
#define FP_ATOM_MAX 255
#define FP_ALIAS_CAP (FP_ATOM_MAX + 8)

/* MOD[:FUN[/ARITY]]. */
struct fp_mfa_pattern {
	const char *module;     /* never NULL; "_" is any module where a command allows it */
	const char *function;   /* "_" or NULL: any */
	int arity;              /* -1: any */
	int alias;              /* module is an Elixir alias: 'Elixir.MOD', else 'MOD' */
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
 * Any of the forms above, each part optional after the module: MOD,
 * MOD:FUN, MOD:FUN/ARITY (or MOD.FUN... in Elixir's). Quotes are taken off
 * ('...' and "..." with \ escaping the quote or a backslash). text is
 * modified and p points into it; a missing function is NULL, a missing
 * arity -1. Names are 1..255 bytes, ARITY '_' or 0..255.
 * @return how many parts were given (1, 2 or 3), or -1 when malformed.
 */
int fp_mfa_parse(char *text, struct fp_mfa_pattern *p);
/* MOD:FUN/ARITY, all three given, MOD not '_'. @return 0, or -1. */
int fp_mfa_pattern_split(char *text, struct fp_mfa_pattern *p);
/* A registered name (a module's grammar: pricer, :pricer, Shop.Pricer,
 * 'pricer'). text is modified. @return 0, or -1 when malformed. */
int fp_name_parse(char *text, struct fp_mfa_pattern *p);
/* An ARITY: '_' (any: -1) or 0..255. @return 0, or -1 when malformed. */
int fp_mfa_arity_parse(const char *text, int *arity);
/*
 * The module names p's module may be, in the order the node tries them:
 * names[0] = "Elixir.MOD" (written into buf) and names[1] = MOD for an
 * alias, else names[0] = MOD. @return how many (1 or 2).
 */
size_t fp_mfa_modules(const struct fp_mfa_pattern *p, char buf[FP_ALIAS_CAP], const char *names[2]);
/*
 * NAME=MOD:FUN/ARITY, NAME 1..64 bytes. text is modified and t points into
 * it. @return an fp_tier_parse_rc.
 */
int fp_tier_parse(char *text, struct fp_tier_pattern *t);
/* Two tiers of one name and one pattern. @return that name, or NULL. */
const char *fp_tier_given_twice(const struct fp_tier_pattern *tiers, size_t n);

#endif
