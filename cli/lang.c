/*
 * lang.c - which spelling calls and requests print (see lang.h).
 */
#include "lang.h"
#include "../common/names.h"
#include "../node/node.h"

int fp_lang_elixir(int lang, node_t *n)
{
	int elixir = 0;
	if (lang == FP_NAMES_ELIXIR)
		return 1;
	if (lang == FP_NAMES_ERLANG || node_runs_elixir(n, &elixir) < 0)
		return 0;
	return elixir;
}
