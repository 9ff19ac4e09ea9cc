/*
 * lang.c - which spelling calls and requests print (see lang.h).
 */
#include "lang.h"
#include "../common/names.h"

int fp_lang_elixir(int lang, sampler_t *s)
{
	int elixir = 0;
	if (lang == FP_NAMES_ELIXIR)
		return 1;
	if (lang == FP_NAMES_ERLANG || sampler_runs_elixir(s, &elixir) < 0)
		return 0;
	return elixir;
}
