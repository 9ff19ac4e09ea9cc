/*
 * names.h - which language's spelling frames are shown in: `--names
 * elixir|erlang|auto` of `flameprof` (record) and `flameprof report`.
 */
#ifndef FP_NAMES_H
#define FP_NAMES_H

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

#endif
