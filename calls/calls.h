/*
 * calls.h - exact call counts, call time and call memory per function
 * (`flameprof calls`), through the node's tracer (flameprof_tracer.erl).
 *
 * On a connected node_t (node/node.h): calls_start() loads the tracer, which
 * takes the node's one tracing session and sets the breakpoints;
 * calls_wait() watches the connection while they count;
 * calls_stop() collects the rows and the tracer removes everything
 * it set; calls_unload() makes sure its module is gone. If we die
 * or the connection drops, the tracer cleans up by itself. Nothing here
 * prints; errors are a negative enum node_err with one sentence in
 * node_error(). The rows are plain data (no ei types).
 */
#ifndef FP_CALLS_H
#define FP_CALLS_H

#include <stddef.h>
#include <stdint.h>
#include "../common/mfa_pattern.h"
#include "../tracer/tracer.h"

typedef struct node_s node_t; /* node/node.h */

enum calls_type { CALLS_COUNT, CALLS_TIME, CALLS_MEMORY };
/* Which processes time and memory are measured in (count: all, always). */
enum calls_procs { CALLS_PROCS_ALL, CALLS_PROCS_NEW, CALLS_PROCS_LIST };

/* Patterns are MOD[:FUN[/ARITY]] (common/mfa_pattern.h): a module "_" is
 * every loaded module, a function NULL or "_" any function. */

struct calls_options {
	enum calls_type type;
	const struct fp_mfa_pattern *patterns;
	size_t npatterns;
	enum calls_procs procs;
	const char *const *pids;   /* CALLS_PROCS_LIST: "<0.N.S>" */
	size_t npids;
	const char *const *names;  /* CALLS_PROCS_LIST: registered names */
	size_t nnames;
	unsigned limit;            /* refuse more functions than this ... */
	int force;                 /* ... unless forced */
	int per_process;           /* rows per process (time and memory) */
	unsigned max_run_queue;    /* end early past this run queue length; 0: never */
};

/* One function (and process, per process) as the node counted it. */
struct calls_row {
	char *mfa;                 /* "mod:fun/arity" */
	char *pid;                 /* "<0.N.S>", or "" for all processes */
	char *name;                /* its registered name, label or initial call; "" */
	uint64_t calls;
	uint64_t measure;          /* microseconds, words, or 0 for count */
};

struct calls_result {
	enum calls_type type;
	struct calls_row *rows;
	size_t nrows;
	char **reloaded;           /* modules loaded again during the run */
	size_t nreloaded;
	int64_t elapsed_us;        /* from breakpoints set to paused */
	uint64_t rows_left_out;    /* past the tracer's bound on rows */
	int overload;              /* the tracer ended the run early by itself: */
	uint64_t run_queue;        /* ... the node's run queues had this length */
	uint64_t run_queue_limit;  /* ... past this limit */
};

/* Another tracer of flameprof (or `calls` of another flameprof) holds the
 * node: NODE_ERR_BUSY. A node older than OTP 26 asked for memory:
 * NODE_ERR_AGENT with the release named. A pattern that matches nothing,
 * too many functions, a process not found or functions already traced by
 * someone else: NODE_ERR_USAGE with the reason.
 * @return 0 and the number of functions and processes traced. *out is set
 * even on failure: free it with calls_free(). */
int calls_start(tracer_t **out, node_t *n, const struct calls_options *o,
			unsigned *nfunctions, unsigned *nprocs);

/* Waits up to timeout_ms while the breakpoints count. @return 0; 1 when
 * the tracer ended the run by itself (the node overloaded) and *early
 * holds its results (free with calls_result_free()); or NODE_ERR_LOST
 * when the node went away or the session died. */
int calls_wait(tracer_t *s, int timeout_ms, struct calls_result *early);

/* Stops the session and fills *out (free it with calls_result_free()). */
int calls_stop(tracer_t *s, struct calls_result *out);

/* After stop: the tracer's module is deleted and purged on the node.
 * @return as node_unload_wait(). */
int calls_unload(tracer_t *s);

/* The session's handle gone (NULL is fine): the front door frees it here,
 * not through tracer/, which it does not reach. */
void calls_free(tracer_t *s);

void calls_result_free(struct calls_result *r);

/* Decodes one message of the tracer (buf starts with the version byte).
 * @return CALLS_MSG_* or -1 (malformed, err says why), -2 out of memory.
 * CALLS_MSG_STARTED fills the counts, CALLS_MSG_ERROR reason and detail,
 * CALLS_MSG_RESULT *res. */
enum { CALLS_MSG_OTHER, CALLS_MSG_STARTED, CALLS_MSG_ERROR, CALLS_MSG_RESULT };
struct calls_msg {
	unsigned nfunctions, nprocs;
	char reason[32];
	char detail[512];
	struct calls_result result;
};
int calls_decode(const char *buf, size_t len, struct calls_msg *out, char *err, size_t errlen);
/* The same words as tracer/'s table (calls_decode.c), for calls.c. */
struct tracer_proto;
extern const struct tracer_proto calls_proto;

#endif
