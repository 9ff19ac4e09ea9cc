/*
 * rex_reply.h - the one reading of what a node's rex server answers
 * (private to node/; the unit tests and the fuzzer use it directly,
 * with no node).
 *
 * A reply comes from a node we do not trust: rex may have been replaced,
 * the node may be hostile. So a reply is walked by node_term_check() with its
 * length before ei sees it, and each reader checks the result's type and
 * size with ei_get_type() before it decodes anything into a buffer.
 */
#ifndef FP_REX_REPLY_H
#define FP_REX_REPLY_H

#include <stddef.h>
#include <ei.h>

/* A reply {rex, R}: buf (version byte first) and the index of R. */
struct node_rex_reply {
	const char *buf;
	int at;
};

/* Opens a whole received message. @return 0 with r set on R, or -1: not
 * exactly one well-formed term (term_check) or not {rex, R}. */
int node_rex_reply_open(const char *buf, size_t len, struct node_rex_reply *r);
/* R is a pid. @return 0, or -1 for anything else (undefined, badrpc). */
int node_rex_reply_pid(const struct node_rex_reply *r, erlang_pid *pid);
/* R is an atom of fewer than cap bytes. @return 0, or -1. */
int node_rex_reply_atom(const struct node_rex_reply *r, char *out, size_t cap);
/* R is the atom want. @return 1 or 0. */
int node_rex_reply_atom_is(const struct node_rex_reply *r, const char *want);
/* R is a non-empty string (a list of bytes) of fewer than cap bytes whose bytes are
 * all letters, digits, '.', '_' or '-' (an OTP release, a version).
 * @return 0, or -1 (out left empty). */
int node_rex_reply_word(const struct node_rex_reply *r, char *out, size_t cap);
/* R is the list of atoms; *found tells whether name is among them (a
 * list of at most max atoms). @return 0, or -1 for anything else. */
int node_rex_reply_has_atom(const struct node_rex_reply *r, const char *name, int max, int *found);
/* R is a list of atoms (node names): the first max of them into names
 * (each under cap bytes), *count the list's length (which may be over
 * max: the caller refuses it). @return 0, or -1 for anything else. */
int node_rex_reply_atoms(const struct node_rex_reply *r, char *names, size_t cap, int max, int *count);
/* R is a reference: [*start, *end) its encoded bytes. @return 0 or -1. */
int node_rex_reply_ref(const struct node_rex_reply *r, int *start, int *end);
/* R is a binary of at most max bytes: its size. @return 0 or -1. */
int node_rex_reply_binary_size(const struct node_rex_reply *r, size_t max, size_t *size);
/* R is {module, _} (1), {error, What} with What's atom copied to why
 * (0), or anything else (0, why the empty string). */
int node_rex_reply_loaded(const struct node_rex_reply *r, char *why, size_t cap);
/* R is process_info(P, [initial_call, links, group_leader]) of a bare
 * lock: initial call erlang:hibernate/3, no links; *owner its group
 * leader. @return 1 or 0. */
int node_rex_reply_bare_lock(const struct node_rex_reply *r, erlang_pid *owner);

#endif
