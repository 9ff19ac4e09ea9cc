/*
 * lang.h - `--names elixir|erlang|auto` of calls and requests: whether
 * their output spells names as Elixir does.
 */
#ifndef FP_CLI_LANG_H
#define FP_CLI_LANG_H

typedef struct node_s node_t; /* node/node.h */

/* lang is an enum fp_names; auto asks the connected node (Elixir when it
 * runs the `elixir` application; a node that cannot say is taken for an
 * Erlang one). @return 1 for Elixir's spelling, 0 for Erlang's. */
int fp_lang_elixir(int lang, node_t *n);

#endif
