/*
 * req_names.c - a window of `flameprof requests` in Elixir's spelling
 * (--names elixir): tiers named by a function (--full: Shop.Pricing.price/2),
 * identities that are an alias or a function, and reloaded modules, as
 * Elixir writes them (common/names.h). Tier names the user chose stay.
 */
#include "../common/names.h"
#include "req_table.h"

int req_window_names_elixir(struct req_window *w)
{
	int bad = 0;
	for (size_t k = 0; k < w->nrows; k++)
		bad |= fp_names_respell(&w->rows[k].identity) | fp_names_respell(&w->rows[k].tier);
	for (size_t k = 0; k < w->nslow; k++) {
		bad |= fp_names_respell(&w->slow[k].identity);
		for (size_t j = 0; j < w->slow[k].ntiers; j++)
			bad |= fp_names_respell(&w->slow[k].tiers[j].tier);
	}
	for (size_t k = 0; k < w->nreloaded; k++)
		bad |= fp_names_respell(&w->reloaded[k]);
	for (size_t k = 0; k < w->ntier_out; k++)
		bad |= fp_names_respell(&w->tier_out[k].tier);
	return bad ? -1 : 0;
}
