/*
 * cookie_files.h - --cookie-file's two forms, in every command that
 * connects: FILE (the cookie of every node not named otherwise) and
 * NODE=FILE (this node's own, repeatable: nodes of separate releases on
 * one host have separate cookies). The option engine (optparse.c) reads
 * both; the frame (session.c) and the capture's several nodes (run.c)
 * ask which file a node's cookie is in. The names are kept for the one
 * command a process runs, as argv's own strings.
 */
#ifndef FP_CLI_COOKIE_FILES_H
#define FP_CLI_COOKIE_FILES_H

#include <stddef.h>

/* At most this many NODE=FILE (more than the nodes one run profiles). */
#define FP_MAX_COOKIE_FILES 64

/* Forgets every NODE=FILE (the engine calls it before it parses argv). */
void fp_cookie_files_reset(void);
/* One --cookie-file value: NODE=FILE when the text before the first '='
 * is a node name (name@host), kept for that node (a node named twice is a
 * usage error); else FILE itself into *plain. @return FP_OPT_OK, or
 * FP_OPT_USAGE with one sentence in detail. */
int fp_cookie_file_option(const char *val, const char *spelled, const char **plain, char *detail,
			  size_t cap);
/* The file NODE=FILE names for node, or NULL. */
const char *fp_cookie_file_for(const char *node);
/* The first node a NODE=FILE names that is not among nodes[0..n), or NULL. */
const char *fp_cookie_files_unknown(const char *const *nodes, size_t n);

#endif
