/*
 * calls_names.c - the rows of `flameprof calls` in Elixir's spelling
 * (--names elixir): each function as Elixir's stack traces write it
 * (common/names.h: Shop.Tax.rate/1, :lists.reverse/1, anonymous fn/1 in
 * Shop.Checkout.run/1), and a process named by an alias or an initial
 * call the same way.
 */
#include <stdlib.h>
#include <string.h>
#include "../common/names.h"
#include "calls_out.h"

/* Folded lines end with " COUNT", and a space inside a frame is a byte
 * some readers split on: "anonymous fn/1 in X" is written as the report's
 * folded stacks write it, "anonymous_fn/1_in_X". */
static void folded_anonymous(char *s)
{
	static const char anon[] = "anonymous fn/";
	size_t a = sizeof anon - 1, i;
	if (strncmp(s, anon, a) != 0)
		return;
	for (i = a; s[i] >= '0' && s[i] <= '9'; i++)
		;
	if (i == a || strncmp(s + i, " in ", 4) != 0)
		return;
	s[9] = '_';
	s[i] = s[i + 3] = '_';
}

static int respell(char **text, int folded)
{
	if (fp_names_respell(text) < 0)
		return -1;
	if (folded)
		folded_anonymous(*text);
	return 0;
}

int calls_names_elixir(struct calls_result *r, int folded)
{
	int bad = 0;
	for (size_t k = 0; k < r->nrows; k++) {
		if (r->rows[k].mfa && respell(&r->rows[k].mfa, folded) < 0)
			bad = -1;
		if (r->rows[k].name && r->rows[k].name[0] && respell(&r->rows[k].name, folded) < 0)
			bad = -1;
	}
	for (size_t k = 0; k < r->nreloaded; k++)
		if (respell(&r->reloaded[k], 0) < 0)
			bad = -1;
	return bad;
}
