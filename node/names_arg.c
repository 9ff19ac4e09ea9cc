/*
 * names_arg.c - module and registered names as the node reads them. The
 * user's text is parsed by the one grammar (common/mfa_pattern.h); an
 * Elixir alias (Shop.Pricing) goes as the list of names the node tries in
 * order, [<<"Elixir.Shop.Pricing">>, <<"Shop.Pricing">>], since which one
 * is meant is known only by what is loaded (or registered) there. No atom
 * is made from the text: the node looks the names up as existing atoms.
 */
#include <string.h>
#include "../common/mfa_pattern.h"
#include "internal.h"

void node_arg_module(struct node_args *a, const struct fp_mfa_pattern *p)
{
	char buf[FP_ALIAS_CAP];
	const char *names[2];
	size_t n = fp_mfa_modules(p, buf, names);
	if (n == 1)
		a->ok = a->ok && ei_x_encode_binary(&a->x, names[0], (int)strlen(names[0])) == 0;
	else
		node_arg_binaries(a, names, n);
}

void node_arg_names(struct node_args *a, const char *const *v, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		char text[2 * FP_ATOM_MAX + 8];
		struct fp_mfa_pattern p;
		a->ok = a->ok && ei_x_encode_list_header(&a->x, 1) == 0;
		/* checked when the options were read: a name that does not parse
		 * here (longer than any atom) is sent as typed and found by none */
		if (strlen(v[k]) < sizeof text && (strcpy(text, v[k]), fp_name_parse(text, &p) == 0))
			node_arg_module(a, &p);
		else
			a->ok = a->ok && ei_x_encode_binary(&a->x, v[k], (int)strlen(v[k])) == 0;
	}
	a->ok = a->ok && ei_x_encode_empty_list(&a->x) == 0;
}
