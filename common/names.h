/*
 * names.h - which language's spelling frames are shown in: `--names
 * elixir|erlang|auto` of `flameprof` (record), `flameprof report`,
 * `calls` and `requests`; and Elixir's spelling of one name (names.c,
 * pure: no I/O, no allocation).
 */
#ifndef FP_NAMES_H
#define FP_NAMES_H

#include <stddef.h>
#include <string.h>

/* auto: record asks the node (Elixir when it runs the `elixir` application);
 * report does as the files' headers say. */
enum fp_names { FP_NAMES_AUTO, FP_NAMES_ERLANG, FP_NAMES_ELIXIR };

/* @return the enum fp_names that s spells, or -1. */
static inline int fp_names_parse(const char *s)
{
	return !strcmp(s, "auto") ? FP_NAMES_AUTO : !strcmp(s, "erlang") ? FP_NAMES_ERLANG :
	       !strcmp(s, "elixir") ? FP_NAMES_ELIXIR : -1;
}

/*
 * The Elixir spelling of a display (unescaped) frame name into out: a code
 * frame `MOD:FUN/ARITY` (category 0) becomes `Shop.Pricing.handle_call/3`,
 * `:gen_server.handle_msg/6` or `anonymous fn/1 in Shop.Pricing.price/2`; a
 * category frame `key:value` (category 1) has an `initial_call` value
 * translated as a code frame and a value that is an Elixir alias
 * (`name:Elixir.Shop.Pricer`) written as the alias.
 * @return the length written (a '\0' follows), or -1 when the name stays as
 * it is (not a frame of that shape, or cap too small: 2 * n + 64 always fits).
 */
long fp_names_elixir(int category, const char *s, size_t n, char *out, size_t cap);

/*
 * *text (malloc'd, the caller's) replaced by its Elixir spelling: a code
 * name `MOD:FUN/ARITY` as fp_names_elixir() writes it, an alias
 * `Elixir.Shop.Pricer` as `Shop.Pricer`; anything else stays as it is.
 * @return 0, or -1 out of memory (*text unchanged).
 */
int fp_names_respell(char **text);

#endif
