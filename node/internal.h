/*
 * internal.h - the connection's state, shared by the files of node/ only.
 */
#ifndef FP_NODE_INTERNAL_H
#define FP_NODE_INTERNAL_H

#include <ei.h>
#include "node.h"
#include "../common/clock.h"

/* A message that arrived while we waited for something else. */
struct node_held {
	struct node_held *next;
	ei_x_buff x;
};

struct node_s {
	struct node_options opts;
	ei_cnode ec;
	int fd;                      /* -1 until connected */
	char node[512];              /* target name@host */
	char host[256];              /* target host part */
	char err[512];               /* the last error, one sentence */
	char otp[16];                /* target's otp_release */
	char own_name[MAXATOMLEN_UTF8]; /* the target's node(), "" until known */
	erlang_pid lock;             /* our lock process on the node (lock.c) */
	const char *lock_name;       /* the name it holds: NODE_AGENT_LOCK or NODE_TRACER_LOCK */
	int have_lock;               /* spawned and not yet adopted or killed */
	ei_x_buff lock_timer;        /* its erlang:send_after timer reference, encoded */
	int local_lock_fd;           /* flock on our node name and the target; -1 */
	char local_lock_path[1024];
	long long last_rx_ms;        /* monotonic time of the last message or tick */
	struct node_held *held, *held_tail;
	size_t nheld, held_bytes;    /* bounded by NODE_MAX_HELD(_BYTES) */
	struct node_held *taken;     /* the held message node_next() handed out last */
	ei_x_buff rx;
};

/* epmd.c: asks epmd on host for alive's port. @return port, or a negative
 * enum node_err with s->err set. */
int node_epmd_port(node_t *s, const char *alive, struct in_addr *addr, long long deadline_ms);

/* How long the rest of a packet may take once its length has arrived: ei
 * loses the part it has read when a read times out halfway, and the
 * connection cannot be read after that, so a packet is read whole, not
 * within the caller's (often short) wait. */
#define NODE_PACKET_MS 10000

/* rex.c: receives one message (at most NODE_MAX_MSG bytes, else
 * NODE_ERR_PROTO) into x or times out, holding nothing back.
 * @return 1 message in x, 0 timeout, negative node_err. */
int node_recv_one(node_t *s, ei_x_buff *x, erlang_msg *msg, long long deadline_ms);
/* The oldest held message, or NULL; the caller frees it. */
struct node_held *node_held_pop(node_t *s);

/* lock.c: node_lock_local() takes this host's lock on our node name and
 * the target (NODE_ERR_BUSY when held), before we connect. */
int node_lock_local(node_t *s, const char *alive);
void node_lock_local_free(node_t *s);

#endif
