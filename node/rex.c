/*
 * rex.c - correlated requests through the node's rex server, and receiving.
 *
 * ei_rpc() has no timeout and takes the first non-tick message as its
 * reply; rex replies carry no tag. So each request is sent from a fresh pid
 * (ei_make_pid) as {From, {call, M, F, A, user}} and its reply is the
 * message addressed to that pid. Anything else that arrives meanwhile is
 * held for node_next(), up to a bound. Every wait has a deadline; ei's
 * "0 means forever" is never passed.
 *
 * Nothing a node sends is trusted (doc/security.md): packets are read here,
 * not by ei (which grows its buffer to whatever length a packet announces):
 * a packet over NODE_MAX_MSG ends the run before anything is allocated for
 * it, and its control message is read by packet.c; every rex reply is opened by
 * node_rex_reply_open() (term_check, then {rex, R}) and read with the sized
 * readers of rex_reply.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "internal.h"
#include "packet.h"

static unsigned left_ms(long long deadline_ms)
{
	long long left = deadline_ms - fp_mono_ms();
	return left < 1 ? 1 : (unsigned)left;
}

static int lost(node_t *s, int err)
{
	return node_errf(s, NODE_ERR_LOST, "lost the connection to '%s' (%s); the node went down or closed it",
			 s->node, err ? strerror(err) : "closed");
}

/* Reads n bytes into buf, each as soon as it arrives: bytes left unread
 * in the kernel can stop the node from sending the rest (packet.c says
 * how). Before the first byte of a packet (begun 0) the wait ends at
 * deadline_ms; once a packet has begun it is read whole, and the wait ends
 * only when nothing arrives for NODE_PACKET_MS. @return 1 read, 0 nothing
 * arrived by deadline_ms, or a negative node_err. */
static int read_exact(node_t *s, char *buf, size_t n, long long deadline_ms, int begun)
{
	size_t got = 0;
	long long until = begun ? fp_mono_ms() + NODE_PACKET_MS : deadline_ms;
	while (got < n) {
		long long left = until - fp_mono_ms();
		if (left <= 0)
			return begun ? node_errf(s, NODE_ERR_LOST,
						 "'%s' stopped sending halfway through a message for %d s; the connection cannot be read after that",
						 s->node, NODE_PACKET_MS / 1000)
				     : 0;
		struct pollfd p = { s->fd, POLLIN, 0 };
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno != EINTR)
			return lost(s, errno);
		if (r <= 0)
			continue;
		ssize_t k = recv(s->fd, buf + got, n - got, MSG_DONTWAIT);
		if (k == 0)
			return lost(s, 0);
		if (k < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				continue;
			return lost(s, errno);
		}
		got += (size_t)k;
		begun = 1;
		until = fp_mono_ms() + NODE_PACKET_MS;
	}
	return 1;
}

/* Writes all of buf (a tick's answer, an unlink's), or fails. */
static int write_all(node_t *s, const char *buf, size_t n)
{
	size_t put = 0;
	long long until = fp_mono_ms() + NODE_PACKET_MS;
	while (put < n) {
		long long left = until - fp_mono_ms();
		if (left <= 0)
			return node_errf(s, NODE_ERR_LOST, "'%s' stopped reading what flameprof sends for %d s",
					 s->node, NODE_PACKET_MS / 1000);
		struct pollfd p = { s->fd, POLLOUT, 0 };
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno != EINTR)
			return lost(s, errno);
		if (r <= 0)
			continue;
		ssize_t k = send(s->fd, buf + put, n - put, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (k < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				continue;
			return lost(s, errno);
		}
		put += (size_t)k;
	}
	return 0;
}

/* {UNLINK_ID_ACK, Id, To, From}: what ei answers to an unlink. */
static int ack_unlink(node_t *s, const char *id, size_t id_len, const erlang_msg *m)
{
	ei_x_buff a;
	static const char head[5] = { 0, 0, 0, 0, ERL_PASS_THROUGH };
	if (ei_x_new(&a) < 0)
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	int r = ei_x_append_buf(&a, head, sizeof head) < 0 || ei_x_encode_version(&a) < 0 ||
			ei_x_encode_tuple_header(&a, 4) < 0 || ei_x_encode_long(&a, NODE_UNLINK_ID_ACK) < 0 ||
			ei_x_append_buf(&a, id, (int)id_len) < 0 || ei_x_encode_pid(&a, &m->to) < 0 ||
			ei_x_encode_pid(&a, &m->from) < 0
		? node_errf(s, NODE_ERR_NOMEM, "out of memory")
		: 0;
	if (r == 0) {
		uint32_t n = (uint32_t)a.index - 4;
		unsigned char *b = (unsigned char *)a.buff;
		b[0] = (unsigned char)(n >> 24), b[1] = (unsigned char)(n >> 16), b[2] = (unsigned char)(n >> 8),
		b[3] = (unsigned char)n;
		r = write_all(s, a.buff, (size_t)a.index);
	}
	ei_x_free(&a);
	return r;
}

/* A process of the node linked to ours has ended (an agent links its
 * coordinator to us, so that even its death by kill is heard at once, not
 * after --silence-timeout): x becomes the message {'EXIT', Pid, Reason}, as
 * an Erlang process trapping exits gets it. ei leaves the reason in x,
 * without a version byte; it is checked with the rest of the message by
 * whoever reads it. @return 0, or -1 out of memory. */
static int exit_as_message(ei_x_buff *x, const erlang_msg *msg)
{
	ei_x_buff m;
	int at = x->index > 0 && (unsigned char)x->buff[0] == 131;
	if (ei_x_new_with_version(&m) < 0)
		return -1;
	if (ei_x_encode_tuple_header(&m, 3) < 0 || ei_x_encode_atom(&m, "EXIT") < 0 ||
	    ei_x_encode_pid(&m, &msg->from) < 0 ||
	    (x->index > at ? ei_x_append_buf(&m, x->buff + at, x->index - at)
			   : ei_x_encode_atom(&m, "unknown")) < 0) {
		ei_x_free(&m);
		return -1;
	}
	ei_x_free(x);
	*x = m;
	return 0;
}

int node_recv_one(node_t *s, ei_x_buff *x, erlang_msg *msg, long long deadline_ms)
{
	for (;;) {
		unsigned char h[4];
		int r = read_exact(s, (char *)h, sizeof h, deadline_ms, 0);
		if (r <= 0)
			return r;
		s->last_rx_ms = fp_mono_ms();
		uint32_t len = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
		if (len == 0) { /* a tick: answered, as ei answers it */
			static const char tock[4];
			if ((r = write_all(s, tock, sizeof tock)) < 0)
				return r;
			continue;
		}
		if (len > NODE_MAX_MSG)
			return node_errf(s, NODE_ERR_PROTO,
				    "'%s' sent a message of %u bytes, more than flameprof accepts (%d MiB); the node is not behaving as an Erlang node should",
				    s->node, (unsigned)len, NODE_MAX_MSG >> 20);
		if ((size_t)x->buffsz < len) {
			char *b = realloc(x->buff, len);
			if (!b)
				return node_errf(s, NODE_ERR_NOMEM, "out of memory");
			x->buff = b;
			x->buffsz = (int)len;
		}
		x->index = 0;
		if ((r = read_exact(s, x->buff, len, deadline_ms, 1)) < 0)
			return r;
		s->last_rx_ms = fp_mono_ms();
		struct node_packet p;
		int kind = node_packet_open(x->buff, len, &p);
		if (kind < 0)
			return node_errf(s, NODE_ERR_PROTO,
				    "'%s' sent a distribution packet that is not one; the node is not behaving as an Erlang node should",
				    s->node);
		if (kind == NODE_PACKET_UNLINK_ID) {
			if ((r = ack_unlink(s, x->buff + p.id_at, p.id_len, &p.msg)) < 0)
				return r;
			continue;
		}
		if (kind == NODE_PACKET_SIGNAL || (p.msg.msgtype != ERL_SEND && p.msg.msgtype != ERL_REG_SEND &&
						   p.msg.msgtype != ERL_EXIT))
			continue; /* links, exit/2, monitors: nothing of ours */
		*msg = p.msg;
		memmove(x->buff, x->buff + p.payload_at, len - p.payload_at);
		x->index = (int)(len - p.payload_at);
		if (kind == NODE_PACKET_EXIT && exit_as_message(x, msg) < 0)
			return node_errf(s, NODE_ERR_NOMEM, "out of memory");
		return 1;
	}
}

static int hold(node_t *s, const ei_x_buff *x)
{
	if (s->nheld >= NODE_MAX_HELD || s->held_bytes + (size_t)x->index > NODE_MAX_HELD_BYTES)
		return node_errf(s, NODE_ERR_PROTO,
			    "'%s' sent more than %d messages or %d MiB while flameprof waited for one answer; the node is flooding us",
			    s->node, NODE_MAX_HELD, NODE_MAX_HELD_BYTES >> 20);
	struct node_held *h = calloc(1, sizeof *h);
	if (!h || ei_x_new(&h->x) < 0 || ei_x_append_buf(&h->x, x->buff, x->index) < 0) {
		if (h)
			ei_x_free(&h->x);
		free(h);
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	}
	if (s->held_tail)
		s->held_tail->next = h;
	else
		s->held = h;
	s->held_tail = h;
	s->nheld++;
	s->held_bytes += (size_t)x->index;
	return 0;
}

struct node_held *node_held_pop(node_t *s)
{
	struct node_held *h = s->held;
	if (!h)
		return NULL;
	s->held = h->next;
	if (!s->held)
		s->held_tail = NULL;
	s->nheld--;
	s->held_bytes -= (size_t)h->x.index;
	return h;
}

int node_recv(node_t *s, long long deadline_ms, const ei_x_buff **msg)
{
	erlang_msg m;
	int r = node_recv_one(s, &s->rx, &m, deadline_ms);
	*msg = &s->rx;
	return r;
}

int node_next(node_t *s, long long deadline_ms, const ei_x_buff **msg)
{
	if (s->taken) {
		ei_x_free(&s->taken->x);
		free(s->taken);
	}
	s->taken = node_held_pop(s);
	if (s->taken) {
		*msg = &s->taken->x;
		return 1;
	}
	return node_recv(s, deadline_ms, msg);
}

int node_send(node_t *s, const erlang_pid *pid, const ei_x_buff *x)
{
	return ei_send_tmo(s->fd, (erlang_pid *)pid, x->buff, x->index, (unsigned)s->opts.connect_timeout_ms) < 0
		       ? -1
		       : 0;
}

const erlang_pid *node_self(node_t *s)
{
	return ei_self(&s->ec);
}

int node_fd(const node_t *s)
{
	return s->fd;
}

int node_has_held(const node_t *s)
{
	return s->held != NULL;
}

long long node_last_rx_ms(const node_t *s)
{
	return s->last_rx_ms;
}

int node_same_pid(const erlang_pid *a, const erlang_pid *b)
{
	return a->num == b->num && a->serial == b->serial && a->creation == b->creation &&
	       strcmp(a->node, b->node) == 0;
}

static int rex_call(node_t *s, const char *mod, const char *fun, const ei_x_buff *args,
	     ei_x_buff *reply, struct node_rex_reply *out, int timeout_ms)
{
	long long deadline = fp_mono_ms() + timeout_ms;
	erlang_pid from;
	erlang_msg msg;
	ei_x_buff req;
	int r;

	if (ei_make_pid(&s->ec, &from) < 0)
		return node_errf(s, NODE_ERR_AGENT, "cannot make a pid for a request to '%s'", s->node);
	if (ei_x_new_with_version(&req) < 0)
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	if (ei_x_encode_tuple_header(&req, 2) < 0 || ei_x_encode_pid(&req, &from) < 0 ||
	    ei_x_encode_tuple_header(&req, 5) < 0 || ei_x_encode_atom(&req, "call") < 0 ||
	    ei_x_encode_atom(&req, mod) < 0 || ei_x_encode_atom(&req, fun) < 0 ||
	    ei_x_append_buf(&req, args->buff, args->index) < 0 || ei_x_encode_atom(&req, "user") < 0) {
		ei_x_free(&req);
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	}
	if (s->have_runner && !s->runner_off)
		r = ei_send_tmo(s->fd, &s->runner, req.buff, req.index, left_ms(deadline));
	else
		r = ei_reg_send_tmo(&s->ec, s->fd, "rex", req.buff, req.index, left_ms(deadline));
	ei_x_free(&req);
	if (r < 0)
		return node_errf(s, NODE_ERR_LOST, "cannot send a request to '%s' (%s)", s->node,
			    erl_errno == ETIMEDOUT ? "timed out" : strerror(erl_errno));
	for (;;) {
		r = node_recv_one(s, reply, &msg, deadline);
		if (r < 0)
			return r;
		if (r == 0)
			return node_errf(s, NODE_ERR_LOST, "'%s' did not answer %s:%s within %d ms; the node may be overloaded",
				    s->node, mod, fun, timeout_ms);
		if (msg.msgtype == ERL_SEND && node_same_pid(&msg.to, &from))
			break;
		if ((r = hold(s, reply)) < 0)
			return r;
	}
	if (reply->index < 0 || node_rex_reply_open(reply->buff, (size_t)reply->index, out) < 0)
		return node_errf(s, NODE_ERR_PROTO, "'%s' answered %s:%s with something that is not a rex reply",
			    s->node, mod, fun);
	return 0;
}

/* ---------------------------------------------------------------- the runner */

/* node/runner.exprs says why: erlang:spawn_opt(erl_eval, exprs, [Exprs,
 * [{'Sink', Self}]], [{priority, high}]) through rex, the one call of the
 * run that waits behind a saturated node's run queue twice. Without it
 * (it could not be started) the calls go to rex as before. */
int node_runner_start(node_t *s)
{
	struct node_args a;
	erlang_pid pid;
	if (s->have_runner)
		return 0;
	node_args_begin(&a, 4);
	node_arg_atom(&a, "erl_eval");
	node_arg_atom(&a, "exprs");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 2) == 0;
	/* the parsed expressions, their version byte left out */
	node_arg_raw(&a, (const char *)fp_runner_exprs + 1, (int)fp_runner_exprs_len - 1);
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0 && ei_x_encode_tuple_header(&a.x, 2) == 0;
	node_arg_atom(&a, "Sink");
	a.ok = a.ok && ei_x_encode_pid(&a.x, node_self(s)) == 0 && ei_x_encode_empty_list(&a.x) == 0 &&
	       ei_x_encode_empty_list(&a.x) == 0 && ei_x_encode_list_header(&a.x, 1) == 0 &&
	       ei_x_encode_tuple_header(&a.x, 2) == 0;
	node_arg_atom(&a, "priority");
	node_arg_atom(&a, "high");
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	int r = node_rex_call_pid(s, "erlang", "spawn_opt", &a, &pid);
	if (r < 0)
		return r;
	if (r > 0) {
		s->runner = pid;
		s->have_runner = 1;
	}
	return 0;
}

void node_runner_stop(node_t *s)
{
	ei_x_buff x;
	if (!s->have_runner || s->fd < 0)
		return;
	s->have_runner = 0;
	if (ei_x_new_with_version(&x) < 0)
		return;
	/* best effort: if it is lost, the runner ends with our connection */
	if (ei_x_encode_atom(&x, "stop") == 0)
		(void)node_send(s, &s->runner, &x);
	ei_x_free(&x);
}

/* ---------------------------------------------------------------- arguments */

void node_args_begin(struct node_args *a, int n)
{
	a->ok = ei_x_new(&a->x) == 0;
	if (a->ok && n > 0)
		a->ok = ei_x_encode_list_header(&a->x, n) == 0;
}

static int args_end(node_t *s, struct node_args *a)
{
	if (a->ok)
		a->ok = ei_x_encode_empty_list(&a->x) == 0;
	if (!a->ok) {
		ei_x_free(&a->x);
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	}
	return 0;
}

void node_arg_binaries(struct node_args *a, const char *const *v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		a->ok = a->ok && ei_x_encode_list_header(&a->x, 1) == 0 &&
			ei_x_encode_binary(&a->x, v[k], (int)strlen(v[k])) == 0;
	a->ok = a->ok && ei_x_encode_empty_list(&a->x) == 0;
}

void node_arg_atom(struct node_args *a, const char *v)
{
	a->ok = a->ok && ei_x_encode_atom(&a->x, v) == 0;
}

void node_arg_raw(struct node_args *a, const char *buf, int len)
{
	a->ok = a->ok && ei_x_append_buf(&a->x, buf, len) == 0;
}

/* Calls M:F(Args), frees the args; reply/out as node_rex_call. */
int node_rex_call_args(node_t *s, const char *mod, const char *fun, struct node_args *a,
		  ei_x_buff *reply, struct node_rex_reply *out, int timeout_ms)
{
	int r = args_end(s, a);
	if (r < 0)
		return r;
	r = rex_call(s, mod, fun, &a->x, reply, out, timeout_ms);
	ei_x_free(&a->x);
	return r;
}

/* M:F(Args) with a reply of its own, freed once what is wanted is read. */
static int call_then(node_t *s, const char *mod, const char *fun, struct node_args *a,
		     int (*read)(const struct node_rex_reply *, void *), void *arg)
{
	ei_x_buff reply;
	struct node_rex_reply rr;
	if (ei_x_new(&reply) < 0) {
		ei_x_free(&a->x);
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	}
	int r = node_rex_call_args(s, mod, fun, a, &reply, &rr, s->opts.connect_timeout_ms);
	if (r == 0 && read)
		r = read(&rr, arg);
	ei_x_free(&reply);
	return r;
}

static int read_pid(const struct node_rex_reply *rr, void *pid)
{
	return node_rex_reply_pid(rr, pid) == 0;
}

int node_rex_call_pid(node_t *s, const char *mod, const char *fun, struct node_args *a, erlang_pid *pid)
{
	return call_then(s, mod, fun, a, read_pid, pid);
}

int node_rex_call_do(node_t *s, const char *mod, const char *fun, struct node_args *a)
{
	return call_then(s, mod, fun, a, NULL, NULL);
}

struct want {
	const char *atom;
	int *yes;
};

static int read_is(const struct node_rex_reply *rr, void *arg)
{
	struct want *w = arg;
	*w->yes = node_rex_reply_atom_is(rr, w->atom);
	return 0;
}

int node_rex_call_is(node_t *s, const char *mod, const char *fun, struct node_args *a, const char *want, int *yes)
{
	struct want w = { want, yes };
	*yes = 0;
	return call_then(s, mod, fun, a, read_is, &w);
}

/* Calls M:F(Atom) and reports whether the answer is the atom `want`. */
int node_rex_call_atom_is(node_t *s, const char *mod, const char *fun, const char *arg,
		     const char *want, int *yes)
{
	struct node_args a;
	node_args_begin(&a, 1);
	node_arg_atom(&a, arg);
	return node_rex_call_is(s, mod, fun, &a, want, yes);
}
