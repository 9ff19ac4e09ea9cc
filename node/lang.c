/*
 * lang.c - which language the node runs, for `--names auto`: Elixir when
 * the `elixir` application is running (application_controller knows its
 * master process), as on every node started by `elixir`, `iex` or a
 * `mix release`.
 */
#include "internal.h"

int node_runs_elixir(node_t *s, int *yes)
{
	struct node_args a;
	erlang_pid master;
	int r;
	node_args_begin(&a, 1);
	node_arg_atom(&a, "elixir");
	r = node_rex_call_pid(s, "application_controller", "get_master", &a, &master);
	*yes = r == 1;
	return r < 0 ? r : 0;
}
