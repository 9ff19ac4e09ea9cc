/*
 * session.h - the one frame of every command that talks to a node (the
 * capture, calls, requests, top, and the next one): the option rows they
 * share (--node-name, --cookie-file, --cookie, --connect-timeout, -q, -v,
 * -h), read by the option engine, and the prologue (names checked, stop
 * signals, cookie, connect, the cookie wiped, errors said with their exit
 * status).
 */
#ifndef FP_CLI_SESSION_H
#define FP_CLI_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include "../common/clock.h"
#include "optparse.h"

typedef struct node_s node_t; /* node/node.h */

/* SIGINT, SIGTERM and SIGHUP only count (fp_stop_signals()); SIGPIPE and
 * SIGXFSZ are ignored, so a closed pipe or a full file is an error we
 * report, not a death with the last frame unwritten. */
void fp_install_stop_signals(void);
/* How many stop signals have arrived (a second one means "now"). */
int fp_stop_signals(void);
/* The cookie into buf: --cookie (with a warning that 'ps' shows it; argv's
 * copy is blanked), else read from cookie_file, else $RELEASE_COOKIE (as a
 * mix release takes it; blanked and unset), else ~/.erlang.cookie (a file
 * others may read, or not a regular file, is refused as erl refuses it).
 * Core dumps are turned off first. *out points at buf; *from says where
 * it came from, for a rejection's sentence ("--cookie-file FILE",
 * "RELEASE_COOKIE", "~/.erlang.cookie": never the cookie). @return 0, or 77
 * (EX_NOPERM) once the reason is said. */
int fp_read_cookie(const char *cookie, const char *cookie_file, char *buf, size_t cap, const char **out,
		   const char **from);
/* Test switch (--test-dumpable): fp_read_cookie() leaves the process
 * dumpable, so that a test can search its memory for the cookie. */
void fp_test_keep_dumpable(void);
/* Wipes every buf of fp_read_cookie(): called right after the handshake
 * (the last one, with several nodes). */
void fp_wipe_cookie(void);
/* The documented exit status of a negative enum node_err. */
int fp_exit_for_node(int err);

/* ---------------------------------------------------------------- the rows */

/* The shared rows, read by the engine (optparse.h's FP_K_* kinds) into
 * the fields of the command's config T that have these names. */
#define FP_ROW_COOKIE_FILE(T)                                                                  \
	{ "cookie-file", 0, "FILE", FP_K_COOKIE_FILE, offsetof(T, cookie_file), 0, 0,              \
	  "read the node's cookie from FILE (default ~/.erlang.cookie); NODE=FILE: that node's own (repeatable)" }
#define FP_ROW_COOKIE(T)                                                                       \
	FP_OPT_STRING(0, "cookie", "COOKIE", offsetof(T, cookie),                                  \
	  "the cookie itself: visible to every user in ps, prefer --cookie-file")
#define FP_ROW_CONNECT_TIMEOUT(T)                                                              \
	{ "connect-timeout", 0, "DUR", FP_K_TIMEOUT, offsetof(T, connect_timeout_us), 0, 0,        \
	  "give up connecting, and each setup request, after DUR (default 5s)" }
/* help: the default name differs per command (flameprof_<role>_<user>) */
#define FP_ROW_NODE_NAME(T, help) FP_OPT_STRING(0, "node-name", "NAME", offsetof(T, node_name), help)
#define FP_ROW_QUIET(T) FP_OPT_SWITCH('q', "quiet", offsetof(T, verbosity), 0, "print errors only")
#define FP_ROW_VERBOSE_HELP(T, help) FP_OPT_SWITCH('v', "verbose", offsetof(T, verbosity), 2, help)
#define FP_ROW_VERBOSE(T) FP_ROW_VERBOSE_HELP(T, "also print each step")
#define FP_ROW_HELP(T) { "help", 'h', NULL, FP_K_HELP, offsetof(T, help), 1, 0, "print this help" }
/* Rows most node commands have, with their own line: -d DUR into
 * duration_us, --names LANG into lang (an enum fp_names). */
#define FP_ROW_DURATION(T, help) FP_OPT_DUR('d', "duration", "DUR", offsetof(T, duration_us), help)
#define FP_ROW_NAMES(T, help) { "names", 0, "LANG", FP_K_NAMES, offsetof(T, lang), 0, 0, help }
#define FP_CONNECT_TIMEOUT_US 5000000 /* --connect-timeout's default */
/* The shared rows' defaults, inside a command's designated initializer of
 * its config in defaults(). */
#define FP_NODE_DEFAULTS .connect_timeout_us = FP_CONNECT_TIMEOUT_US, .verbosity = 1
/* The shared rows' own combination, for a command's check(): --cookie and
 * --cookie-file both given. @return FP_OPT_OK, or FP_OPT_USAGE with the
 * sentence in detail. */
int fp_cookie_rows_check(const char *cookie, const char *cookie_file, char *detail, size_t cap);
/* The rest of the struct fp_command of a node command: its table is
 * options[], its functions apply, check, defaults and config_free, and its
 * config T holds node (NODE) and the shared rows' help and verbosity. */
#define FP_NODE_COMMAND(T)                                                                     \
	.opts = options, .nopts = sizeof options / sizeof options[0], .apply = apply, .check = check,  \
	.defaults = defaults, .free = config_free, .node_field = offsetof(T, node),                   \
	.help_field = offsetof(T, help), .verbosity_field = offsetof(T, verbosity)

/* ---------------------------------------------------------------- the prologue */

struct fp_node_cmd {
	/* from the command's config */
	const char *node;            /* NODE */
	const char *node_name;       /* --node-name; NULL: flameprof[_<role>]_<user> */
	const char *cookie, *cookie_file;
	int64_t connect_timeout_us;
	const char *role;            /* NULL (the capture), "calls", "requests" */
	int compile_on_target;       /* hidden test switch */
	int keep_cookie;             /* several nodes: the cookie outlives this connect; the caller
	                                wipes it after the last one (fp_wipe_cookie()) */
	/* the frame's */
	char cookie_buf[1024];
	const char *ck, *ck_from;    /* the cookie read, and where it came from (fp_read_cookie) */
	node_t *n;                   /* once fp_node_connect() ran */
};
/* A struct fp_node_cmd from a config that has the shared rows' fields
 * (and node, NODE), for the tracing commands of this role. */
#define FP_NODE_CMD(cfg, role_)                                                                \
	{ .node = (cfg)->node, .node_name = (cfg)->node_name, .cookie = (cfg)->cookie,            \
	  .cookie_file = (cfg)->cookie_file, .connect_timeout_us = (cfg)->connect_timeout_us,      \
	  .role = (role_) }
/* The node's and our node name's grammar (a usage error said), the stop
 * signals, the cookie read: from the file --cookie-file NODE=FILE names
 * for this node, else as fp_read_cookie() says. A command of one node
 * (keep_cookie 0) refuses a NODE=FILE for another node (a usage error).
 * @return 0 or an exit status once said. */
int fp_node_begin(struct fp_node_cmd *c);
/* Connects ("connecting to" said), then wipes the cookie (unless keep_cookie). @return 0, or an
 * exit status once the node's sentence is said. */
int fp_node_connect(struct fp_node_cmd *c);
/* Says the node's sentence for a negative enum node_err e. @return its exit status. */
int fp_node_fail(struct fp_node_cmd *c, int e);
/* What an unload (node_unload_wait()) returned, said: a warning, the
 * module still purging, or done. */
void fp_node_say_unload(struct fp_node_cmd *c, int e, const char *what, const char *done);
/* Wipes the cookie and frees the node. */
void fp_node_end(struct fp_node_cmd *c);

#endif
