/*
 * node.h - talking to a node: the door of node/.
 *
 * Connects to the target as a hidden C-node (epmd lookup, TCP, handshake),
 * takes the node's one flameprof lock, calls functions through the node's
 * rex server (one correlated call with a deadline, its reply checked before
 * it is read), loads and removes our embedded modules, and receives
 * messages within bounds. The sampling agent (sampler/) and the tracers
 * (tracer/, calls/, requests/) all talk to the node through this door;
 * node/ knows none of them: a lock's name, what a second run is told, and
 * what a module is called in a sentence are the caller's.
 *
 * Every wait has a deadline. Nothing here prints or exits: each entry point
 * returns 0 or a negative enum node_err and leaves one plain sentence in
 * node_error() (what failed, then what to do). The cookie is never copied
 * into a message, and node_connect() wipes ei's copies (our ei_cnode's
 * and the two in libei's table of connections) right after the handshake.
 */
#ifndef FP_NODE_H
#define FP_NODE_H

#include <stddef.h>
#include <ei.h>
#include "rex_reply.h"

typedef struct node_s node_t;

enum node_err {
	NODE_OK = 0,
	NODE_ERR_USAGE = -1,   /* the node name is malformed */
	NODE_ERR_CONNECT = -2, /* no epmd, node not running, refused, timed out */
	NODE_ERR_COOKIE = -3,  /* the node rejected our cookie */
	NODE_ERR_AGENT = -4,   /* the agent could not be loaded or started */
	NODE_ERR_BUSY = -5,    /* another flameprof is profiling the node */
	NODE_ERR_LOST = -6,    /* the node went away or fell silent */
	NODE_ERR_PROTO = -7,   /* the node sent something we cannot read */
	NODE_ERR_NOMEM = -8,
	NODE_ERR_AGENT_DOWN = -9, /* the agent ended unasked (crashed or killed) */
	NODE_ERR_LOCAL = -10,  /* this host's lock (/tmp/flameprof-<uid>) cannot be had safely */
};

/* Bounds on what a node can make us hold (doc/security.md). A message
 * (one distribution packet) over NODE_MAX_MSG ends the run before ei
 * allocates it; the agent's largest batch (--top 100000) is far below.
 * While a rex reply is awaited, other messages are held for later, at
 * most NODE_MAX_HELD of them and NODE_MAX_HELD_BYTES in all. */
#define NODE_MAX_MSG (128 << 20)
#define NODE_MAX_HELD 10000
#define NODE_MAX_HELD_BYTES (256 << 20)

struct node_options {
	const char *node;          /* target, name@host (short or long name) */
	const char *cookie;        /* the cookie text (never printed) */
	const char *cookie_from;   /* where it came from, for the sentence of a rejection
	                              ("~/.erlang.cookie", "--cookie-file FILE"); NULL: not said */
	const char *alive;         /* our node name before '@'; NULL: flameprof_<user> */
	const char *role;          /* with alive NULL: flameprof_<role>_<user> ("calls"), so a
	                              capture and a tracing command of one user may share a node */
	int connect_timeout_ms;    /* each connect step and each setup request */
	int compile_on_target;     /* test switch: skip the embedded .beam */
};

/* ---------------------------------------------------------------- connecting */

/* Checks that node is name@host with characters a node name can have.
 * @return 0, or NODE_ERR_USAGE with one sentence in err. */
int node_check_target(const char *node, char *err, size_t errlen);
/* Checks a --node-name (our alive part). @return 0, or NODE_ERR_USAGE
 * with one sentence in err. */
int node_check_alive(const char *alive, char *err, size_t errlen);
/* Reads a cookie file (path NULL: $HOME/.erlang.cookie) into buf, without
 * the trailing newline. Refused as erl refuses it: a file that is not a
 * regular file (opened without blocking: a FIFO does not hang us), or one
 * that others than its owner may read or write. @return 0, or -1 with one
 * sentence in err. */
int node_read_cookie(const char *path, char *buf, size_t cap, char *err, size_t errlen);

/* Connects to opts->node (this host's lock, epmd lookup, TCP, handshake).
 * *out is set even on failure so that node_error() works; free it with
 * node_free(). */
int node_connect(node_t **out, const struct node_options *opts);
void node_free(node_t *n);

const char *node_error(const node_t *n);
/* Formats the error sentence; @return code (for `return node_errf(...)`). */
int node_errf(node_t *n, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The target as it was given (name@host), for sentences. */
const char *node_target(const node_t *n);
/* The target's own name, as its node() says it (e.g. rabbit@vm when it was
 * reached as rabbit@127.0.0.1), once node_release() ran; before, the name given. */
const char *node_own_name(const node_t *n);
/* The target's OTP release, e.g. "25", once node_release() ran. */
const char *node_otp_release(const node_t *n);
/* Reads the node's release and its own name (node_otp_release(), node_own_name()). */
int node_release(node_t *n);
/* Starts our stand-in for rex on the node, at high priority
 * (node/runner.exprs): the run's later calls no longer wait behind a
 * saturated node's run queue. node_release() starts it; node_free() ends
 * it. @return 0 (also when the node would not start it: rex then serves
 * every call), or <0. */
int node_runner_start(node_t *n);
void node_runner_stop(node_t *n);
/* *yes tells whether the node runs the `elixir` application (lang.c).
 * @return 0 or a negative enum node_err. */
int node_runs_elixir(node_t *n, int *yes);
/* --connect-timeout: the bound on each setup step and request. */
int node_timeout_ms(const node_t *n);

/* ---------------------------------------------------------------- messages */

/* Our C-node's pid (the sink our agents and tracers send to). */
const erlang_pid *node_self(node_t *n);
/* Whether a and b are the same process. */
int node_same_pid(const erlang_pid *a, const erlang_pid *b);
/* Sends an encoded message (version byte first) to pid, within the connect
 * timeout. @return 0, or -1 (the caller says what could not be sent). */
int node_send(node_t *n, const erlang_pid *pid, const ei_x_buff *x);
/* Receives one message (at most NODE_MAX_MSG bytes, else NODE_ERR_PROTO)
 * before deadline_ms (fp_mono_ms()), leaving held messages where they are.
 * A process of the node linked to ours that ends arrives as the message
 * {'EXIT', Pid, Reason}, as to an Erlang process trapping exits.
 * @return 1 with *msg on it (valid until the next receive), 0 timeout,
 * negative node_err. */
int node_recv(node_t *n, long long deadline_ms, const ei_x_buff **msg);
/* The same, but the messages held during rex calls first, oldest first. */
int node_next(node_t *n, long long deadline_ms, const ei_x_buff **msg);
/* The connection's socket, for poll(2) over several nodes (-1 before
 * connecting); read it only through node_next(). */
int node_fd(const node_t *n);
/* Whether messages held during rex calls wait for node_next(): it returns
 * them without reading the socket, so a poll must not wait for them. */
int node_has_held(const node_t *n);
/* When the last message or tick arrived (fp_mono_ms()). */
long long node_last_rx_ms(const node_t *n);

/* ---------------------------------------------------------------- rex calls */

/* Building a request's argument list. Each step is skipped once one has
 * failed; the call reports the failure and frees the buffer. */
struct node_args {
	ei_x_buff x;
	int ok;
};
void node_args_begin(struct node_args *a, int n);
void node_arg_atom(struct node_args *a, const char *v);
void node_arg_raw(struct node_args *a, const char *buf, int len);
/* A list of n strings, each as a binary. */
void node_arg_binaries(struct node_args *a, const char *const *v, size_t n);
/* names_arg.c: a pattern's module as the node's tracers read it: one
 * binary, or the list of names to try in order (an Elixir alias); and n
 * registered names (--name) the same way. */
struct fp_mfa_pattern;
void node_arg_module(struct node_args *a, const struct fp_mfa_pattern *p);
void node_arg_names(struct node_args *a, const char *const *v, size_t n);

/* The one call through the node's rex server: M:F(Args) sent from a fresh
 * pid, its reply the message to that pid, received before timeout_ms,
 * anything else held (bounded). Frees the args. On success reply holds the
 * whole message, checked by node_rex_reply_open(), and *out is on its
 * result: read it only with the node_rex_reply_*() readers.
 * NODE_ERR_PROTO when the reply is not one. */
int node_rex_call_args(node_t *n, const char *mod, const char *fun, struct node_args *a,
		       ei_x_buff *reply, struct node_rex_reply *out, int timeout_ms);
/* The same with the setup timeout and a reply of its own. node_rex_call_pid:
 * @return 1 the answer is a pid (in *pid), 0 it is not, <0 error.
 * node_rex_call_do: for the effect, @return 0 or <0. node_rex_call_is: *yes
 * tells whether the answer is the atom `want`; node_rex_call_atom_is: M:F(Atom). */
int node_rex_call_pid(node_t *n, const char *mod, const char *fun, struct node_args *a, erlang_pid *pid);
int node_rex_call_do(node_t *n, const char *mod, const char *fun, struct node_args *a);
int node_rex_call_is(node_t *n, const char *mod, const char *fun, struct node_args *a, const char *want,
		     int *yes);
int node_rex_call_atom_is(node_t *n, const char *mod, const char *fun, const char *arg, const char *want,
			  int *yes);

/* The visible nodes the target is connected to (its nodes(visible): our
 * own hidden connection is not among them): the first max names into
 * names, each a slot of cap bytes; *count how many it has (maybe over max).
 * @return 0 or a negative enum node_err. */
int node_peers(node_t *n, char *names, size_t cap, int max, int *count);

/* ---------------------------------------------------------------- the lock */

/* How long a lock nobody adopted lives: its timer ends it then (longer
 * than loading can take, LOAD_TIMEOUT_MS in load.c, twice over). */
#define NODE_LOCK_TTL_MS 150000

/* Takes the node's lock of a job, registered under name (a static
 * string the caller's room owns: one name per job). When another run
 * holds it: NODE_ERR_BUSY, the sentence "'NODE' " then busy (static too:
 * what the caller's users are told). */
int node_lock_take(node_t *n, const char *name, const char *busy);
/* Adds the map pairs lock => Pid and lock_timer => TRef that the module
 * adopting the lock needs. */
void node_arg_lock(struct node_args *a, node_t *n);
/* A module of ours has adopted the lock: it is theirs to end now. */
void node_lock_adopted(node_t *n);
/* Kills our lock process if nothing has adopted it (best effort). */
void node_lock_release(node_t *n);

/* ---------------------------------------------------------------- modules */

/* A module embedded at build time, its beam and its preprocessed source
 * (for nodes that cannot load our beam). */
struct node_module {
	const char *name;            /* the versioned module name */
	const char *what;            /* what it is, for sentences: "the agent" */
	const char *file;            /* the file name code:load_binary/3 records */
	const unsigned char *beam;
	const size_t *beam_len;
	const unsigned char *source;
	const size_t *source_len;
};
/* Loads m (or compiles it on the node when our beam does not load). */
int node_load_embedded(node_t *n, const struct node_module *m);
/* Deletes module name on the node and starts purging it there. */
int node_unload_embedded(node_t *n, const char *name);
/* A stale copy of module on the node (a run that died between loading and
 * starting; its watchdog removes it within a minute anyway) deleted and
 * its purge waited for, a few seconds at most (NODE_ERR_BUSY, naming
 * what, if it takes longer). Only called holding the node's lock: no live
 * run of ours executes that code. */
int node_clear_stale(node_t *n, const char *module, const char *what);
/* Waits (bounded) until module name is deleted and purged on the node.
 * @return 0, or NODE_PURGING when the module is deleted and the node is
 * still purging its old code (it finishes by itself), or a negative
 * enum node_err. */
#define NODE_PURGING 1
int node_unload_wait(node_t *n, const char *name);
/* node_unload_wait(), and if the module is still there grace_ms after the
 * call (its owner gone without deleting it), deletes it and starts its
 * purge itself (the agent's end: sampler_unload()). */
int node_unload_wait_grace(node_t *n, const char *name, int grace_ms);

#endif
