/*
 * internal.h - the sampler's state, shared by the files of sampler/ only.
 */
#ifndef FP_SAMPLER_INTERNAL_H
#define FP_SAMPLER_INTERNAL_H

#include <ei.h>
#include "decode.h"
#include "rex_reply.h"
#include "sampler.h"

/* Bounds on what a node can make us hold (doc/security.md). A message
 * (one distribution packet) over SAMPLER_MAX_MSG ends the run before ei
 * allocates it; the agent's largest batch (--top 100000) is far below.
 * While a rex reply is awaited, other messages are held for later, at
 * most SAMPLER_MAX_HELD of them and SAMPLER_MAX_HELD_BYTES in all. */
#define SAMPLER_MAX_MSG (128 << 20)
#define SAMPLER_MAX_HELD 10000
#define SAMPLER_MAX_HELD_BYTES (256 << 20)

/* A message that arrived while we waited for something else. */
struct held_msg {
	struct held_msg *next;
	ei_x_buff x;
};

struct sampler_s {
	struct sampler_options opts;
	ei_cnode ec;
	int fd;                      /* -1 until connected */
	char node[512];              /* target name@host */
	char host[256];              /* target host part */
	char err[512];               /* the last error, one sentence */
	char otp[16];                /* target's otp_release */
	char own_name[MAXATOMLEN_UTF8]; /* the target's node(), "" until known */
	erlang_pid agent;
	int have_agent;              /* agent started and not yet stopped */
	int tracer_lock_busy;        /* calls, requests: the tracer lost its lock */
	erlang_pid lock;             /* our lock process on the node (lock.c) */
	const char *lock_name;       /* the name it holds: AGENT_LOCK or TRACER_LOCK */
	int have_lock;               /* spawned and not yet adopted or killed */
	ei_x_buff lock_timer;        /* its erlang:send_after timer reference, encoded */
	int local_lock_fd;           /* flock on our node name and the target; -1 */
	char local_lock_path[1024];
	int old_depth;
	char missing[256];           /* the agent's start: explicit targets not found */
	unsigned nmissing;
	long long last_rx_ms;        /* monotonic time of the last message or tick */
	struct held_msg *held, *held_tail;
	size_t nheld, held_bytes;    /* bounded by SAMPLER_MAX_HELD(_BYTES) */
	ei_x_buff rx;
	struct dec_tables tables;
};

/* Formats the error sentence; @return code (for `return serr(...)`). */
int serr(sampler_t *s, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
long long mono_ms(void);

/* epmd.c: asks epmd on host for alive's port. @return port, or a negative
 * enum sampler_err with s->err set. */
int epmd_port(sampler_t *s, const char *alive, struct in_addr *addr, long long deadline_ms);

/* rex.c: the one call through the node's rex server, correlated by a
 * fresh pid and bounded by a deadline. args is an encoded list (no version
 * byte). On success reply holds the whole message, checked by
 * rex_reply_open(), and *out is on its result: read it only with the
 * rex_reply_*() readers. SAMPLER_ERR_PROTO when the reply is not one. */
int rex_call(sampler_t *s, const char *mod, const char *fun, const ei_x_buff *args,
	     ei_x_buff *reply, struct rex_reply *out, int timeout_ms);
/* Receives one message (at most SAMPLER_MAX_MSG bytes, else
 * SAMPLER_ERR_PROTO) or times out, holding nothing back.
 * @return 1 message in x, 0 timeout, negative sampler_err. */
int recv_one(sampler_t *s, ei_x_buff *x, erlang_msg *msg, long long deadline_ms);
/* Keeps a message for sampler_next() (SAMPLER_ERR_PROTO past the bounds). */
int hold(sampler_t *s, const ei_x_buff *x);
/* The oldest held message, or NULL; the caller frees it. */
struct held_msg *held_pop(sampler_t *s);

/* rex.c: building a request's argument list. Each step is skipped once one
 * has failed; args_end() reports the failure and frees the buffer. */
struct args {
	ei_x_buff x;
	int ok;
};
void args_begin(struct args *a, int n);
int args_end(sampler_t *s, struct args *a);
void arg_atom(struct args *a, const char *v);
void arg_raw(struct args *a, const char *buf, int len);
/* A list of n strings, each as a binary. */
void arg_binaries(struct args *a, const char *const *v, size_t n);
/* names_arg.c: a pattern's module as the node's tracers read it: one
 * binary, or the list of names to try in order (an Elixir alias); and n
 * registered names (--name) the same way. */
struct fp_mfa_pattern;
void arg_module(struct args *a, const struct fp_mfa_pattern *p);
void arg_names(struct args *a, const char *const *v, size_t n);
/* M:F(Args) through rex; frees the args. reply/out as rex_call(). */
int rex_call_args(sampler_t *s, const char *mod, const char *fun, struct args *a,
		  ei_x_buff *reply, struct rex_reply *out, int timeout_ms);
/* The same with the setup timeout and a reply of its own. rex_call_pid:
 * @return 1 the answer is a pid (in *pid), 0 it is not, <0 error.
 * rex_call_do: for the effect, @return 0 or <0. rex_call_is: *yes tells
 * whether the answer is the atom `want`; rex_call_atom_is: M:F(Atom). */
int rex_call_pid(sampler_t *s, const char *mod, const char *fun, struct args *a, erlang_pid *pid);
int rex_call_do(sampler_t *s, const char *mod, const char *fun, struct args *a);
int rex_call_is(sampler_t *s, const char *mod, const char *fun, struct args *a, const char *want, int *yes);
int rex_call_atom_is(sampler_t *s, const char *mod, const char *fun, const char *arg,
		     const char *want, int *yes);

/* load.c: a module embedded at build time, its beam and its preprocessed
 * source (for nodes that cannot load our beam). */
struct embedded_module {
	const char *name;            /* the versioned module name */
	const char *file;            /* the file name code:load_binary/3 records */
	const unsigned char *beam;
	const size_t *beam_len;
	const unsigned char *source;
	const size_t *source_len;
};
extern const struct embedded_module fp_agent_module, fp_tracer_module, fp_requests_module;
/* Loads m (or compiles it on the node when our beam does not load). */
int load_embedded(sampler_t *s, const struct embedded_module *m);
/* Deletes module name on the node and starts purging it there. */
int unload_embedded(sampler_t *s, const char *name);
/* The node's release into s->otp. */
int node_release(sampler_t *s);
/* A stale copy of module on the node (a run that died between loading and
 * starting; its watchdog removes it within a minute anyway) deleted and
 * its purge waited for, a few seconds at most (SAMPLER_ERR_BUSY, naming
 * what, if it takes longer). Only called holding the node's lock: no live
 * run of ours executes that code. */
int clear_stale(sampler_t *s, const char *module, const char *what);

/* agent.c: waits (bounded) until module name is deleted and purged on the
 * node; @return as sampler_unload(). */
int unload_wait(sampler_t *s, const char *name);
/* lock.c: lock_local() takes this host's lock on our node name and the
 * target (SAMPLER_ERR_BUSY when held); lock_take() the node's name
 * (a static string: AGENT_LOCK for the agent, TRACER_LOCK for the tracing
 * session shared by calls and requests; SAMPLER_ERR_BUSY when another run
 * holds it); lock_release() kills our lock process if no agent or guardian
 * has adopted it (best effort). */
#define AGENT_LOCK "flameprof_agent"
#define TRACER_LOCK "flameprof_tracer"
int lock_local(sampler_t *s, const char *alive);
void lock_local_free(sampler_t *s);
int lock_take(sampler_t *s, const char *name);
void lock_release(sampler_t *s);

/* load.c: loads the agent module (or compiles it on the node). */
int load_agent(sampler_t *s);
/* Deletes our module on the node and starts purging it there (a stale
 * copy, or cleanup after a failed start); does not wait for the purge. */
int unload_module(sampler_t *s);

#endif
