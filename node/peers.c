/*
 * peers.c - the nodes a target is connected to, for --cluster: one rex
 * call of erlang:nodes(visible), its answer read as a bounded list of
 * atoms (a node we do not trust may answer anything).
 */
#include "internal.h"

int node_peers(node_t *s, char *names, size_t cap, int max, int *count)
{
	struct node_args a;
	struct node_rex_reply r;
	ei_x_buff reply;
	node_args_begin(&a, 1);
	node_arg_atom(&a, "visible");
	if (ei_x_new(&reply) < 0) {
		ei_x_free(&a.x);
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	}
	int e = node_rex_call_args(s, "erlang", "nodes", &a, &reply, &r, s->opts.connect_timeout_ms);
	if (e < 0) {
		ei_x_free(&reply);
		return e;
	}
	e = node_rex_reply_atoms(&r, names, cap, max, count);
	ei_x_free(&reply);
	if (e < 0)
		return node_errf(s, NODE_ERR_PROTO, "'%s' answered nodes(visible) with something other than a list of node names",
				 s->node);
	return 0;
}
