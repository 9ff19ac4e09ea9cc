/*
 * connect.c - joining the target as a hidden C-node.
 *
 * erl_call's order (ei_init, ei_connect_xinit, connect), but with our own
 * epmd lookup (epmd.c) so each failure gets its own sentence, and a deadline
 * on every step. Our node name is the same for every run of one user on one
 * host, flameprof_<user>: the target keeps each node name it has seen as an
 * atom for good, so a name per run would add an atom per run (525,000 a
 * year from cron once a minute; the default limit is 1,048,576 and reaching
 * it kills the node). The creation still differs per run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pwd.h>
#include <arpa/inet.h>
#include "internal.h"

static int valid_alive(const char *p, size_t n)
{
	if (n == 0 || n > 255)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(p[i] == '_' || p[i] == '-' || (p[i] >= '0' && p[i] <= '9') ||
		      (p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z')))
			return 0;
	return 1;
}

static int valid_host(const char *p)
{
	size_t n = strlen(p);
	if (n == 0 || n > 255)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(p[i] == '.' || p[i] == '-' || p[i] == '_' || (p[i] >= '0' && p[i] <= '9') ||
		      (p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z')))
			return 0;
	return 1;
}

int node_check_target(const char *node, char *err, size_t errlen)
{
	const char *at = strchr(node, '@');
	if (at && valid_alive(node, (size_t)(at - node)) && valid_host(at + 1) && strlen(node) < 512)
		return 0;
	snprintf(err, errlen, "'%.80s%s' is not a node name; give it as name@host, e.g. app@db1 or app@db1.example.com",
		 node, strlen(node) > 80 ? "..." : "");
	return NODE_ERR_USAGE;
}

/* Our host part: short or long, following the target's form. */
static void our_host(const node_t *s, char *out, size_t cap)
{
	char h[256] = "localhost";
	int long_names = strchr(s->host, '.') != NULL;
	if (gethostname(h, sizeof h - 1) != 0 || !valid_host(h))
		snprintf(h, sizeof h, "localhost");
	char *dot = strchr(h, '.');
	if (!long_names && dot)
		*dot = '\0';
	if (long_names && !dot)
		snprintf(h, sizeof h, "%s", s->host); /* a long name is a label here, nothing resolves it */
	snprintf(out, cap, "%s", h);
}

/* flameprof_<user>, or flameprof_<role>_<user>: the same every run (a
 * node keeps each name it sees as an atom), the user name cut to what a
 * node name can hold. */
static void default_alive(const char *role, char *out, size_t cap)
{
	const struct passwd *pw = getpwuid(geteuid());
	char user[33];
	size_t n = 0;
	if (pw && pw->pw_name)
		for (const char *p = pw->pw_name; *p && n < sizeof user - 1; p++)
			user[n++] = valid_alive(p, 1) ? *p : '_';
	user[n] = '\0';
	if (n == 0)
		snprintf(user, sizeof user, "uid%u", (unsigned)geteuid());
	if (role)
		snprintf(out, cap, "flameprof_%s_%s", role, user);
	else
		snprintf(out, cap, "flameprof_%s", user);
}

int node_check_alive(const char *alive, char *err, size_t errlen)
{
	if (valid_alive(alive, strlen(alive)) && strlen(alive) < 64)
		return 0;
	snprintf(err, errlen, "'%.80s' cannot be our node name; use letters, digits, '_' and '-' (at most 63), without '@host'",
		 alive);
	return NODE_ERR_USAGE;
}

/* ei's table of connections (ei_connect.c, ei_socket_info) keeps, for
 * each socket, a copy of the cookie and a copy of the ei_cnode (with the
 * cookie in it) made during the handshake, and writes the first into the
 * header of every message sent, as the distribution protocol's old
 * cookie field (send.c, send_reg.c): the cookie in clear text on the
 * wire, for the whole run. Both copies are reached through functions
 * libei exports but ei.h does not declare (erl_call's own way to the
 * cookie of a connection), and wiped right after the handshake; the
 * field is then the empty atom, as the node's own connections send it. */
extern const char *ei_getfdcookie(int fd);
extern ei_cnode *ei_fd_to_cnode(int fd);

static void wipe_ei_copies(int fd)
{
	char *c = (char *)ei_getfdcookie(fd); /* "" (a literal) when fd has no entry */
	size_t n = strlen(c);
	if (n)
		explicit_bzero(c, n);
	ei_cnode *cn = ei_fd_to_cnode(fd);
	if (cn)
		explicit_bzero(cn->ei_connect_cookie, sizeof cn->ei_connect_cookie);
}

static unsigned run_random(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned)(ts.tv_nsec ^ (ts.tv_sec << 10) ^ ((unsigned)getpid() << 16));
}

int node_connect(node_t **out, const struct node_options *opts)
{
	static int ei_ready;
	char alive[64], host[256], self[320], target_alive[256];
	struct in_addr addr;
	node_t *s = calloc(1, sizeof *s);

	*out = s;
	if (!s)
		return NODE_ERR_NOMEM;
	s->fd = -1;
	s->local_lock_fd = -1;
	s->opts = *opts;
	if (ei_x_new(&s->rx) < 0 || ei_x_new(&s->lock_timer) < 0)
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");

	if (node_check_target(opts->node, s->err, sizeof s->err) < 0)
		return NODE_ERR_USAGE;
	const char *at = strchr(opts->node, '@');
	snprintf(s->node, sizeof s->node, "%s", opts->node);
	snprintf(s->host, sizeof s->host, "%s", at + 1);
	snprintf(target_alive, sizeof target_alive, "%.*s", (int)(at - opts->node), opts->node);

	if (!ei_ready) {
		if (ei_init() != 0)
			return node_errf(s, NODE_ERR_CONNECT, "cannot start erl_interface (ei_init failed)");
		ei_ready = 1;
	}
	unsigned rnd = run_random();
	if (opts->alive) {
		if (node_check_alive(opts->alive, s->err, sizeof s->err) < 0)
			return NODE_ERR_USAGE;
		snprintf(alive, sizeof alive, "%s", opts->alive);
	} else {
		default_alive(opts->role, alive, sizeof alive);
	}
	int e = node_lock_local(s, alive);
	if (e < 0)
		return e;
	our_host(s, host, sizeof host);
	snprintf(self, sizeof self, "%s@%s", alive, host);
	inet_aton("127.0.0.1", &addr);
	/* creation tells this run from an earlier one with the same name */
	if (ei_connect_xinit(&s->ec, host, alive, self, &addr, opts->cookie, (rnd % 0x7ffffff0) + 4) < 0) {
		explicit_bzero(s->ec.ei_connect_cookie, sizeof s->ec.ei_connect_cookie);
		return node_errf(s, NODE_ERR_CONNECT, "cannot set up our node name '%s' (ei_connect_xinit failed)", self);
	}

	/* ei keeps the cookie in s->ec for the handshake only: it is wiped
	 * right after it, whatever the outcome (a run connects once). */
	s->opts.cookie = NULL;
	long long deadline = fp_mono_ms() + opts->connect_timeout_ms;
	int port = node_epmd_port(s, target_alive, &addr, deadline);
	if (port < 0) {
		explicit_bzero(s->ec.ei_connect_cookie, sizeof s->ec.ei_connect_cookie);
		return port;
	}
	/* A refused handshake (EIO) is a wrong cookie, or our own name still
	 * connected: the run before this one has closed its connection, but
	 * a busy node may not have noticed yet. So it is tried again, twice,
	 * half a second apart, within the deadline. */
	int fd;
	for (int tries = 0;; tries++) {
		long long left = deadline - fp_mono_ms();
		if (left < 1)
			left = 1;
		fd = ei_xconnect_host_port_tmo(&s->ec, &addr, port, (unsigned)left);
		if (fd >= 0 || erl_errno != EIO || tries == 2 || deadline - fp_mono_ms() < 1000)
			break;
		struct timespec pause = { 0, 500 * 1000 * 1000 };
		nanosleep(&pause, NULL);
	}
	explicit_bzero(s->ec.ei_connect_cookie, sizeof s->ec.ei_connect_cookie);
	if (fd < 0) {
		e = erl_errno;
		if (fd == ERL_TIMEOUT || e == ETIMEDOUT)
			return node_errf(s, NODE_ERR_CONNECT,
				    "cannot reach '%s': no handshake within %d ms on port %d; the node may be overloaded, try --connect-timeout 30s",
				    s->node, opts->connect_timeout_ms, port);
		if (e == EIO)
			/* a name already connected is refused the same way; on this
			 * host node_lock_local() has ruled that out */
			return node_errf(s, NODE_ERR_COOKIE,
				    "'%s' rejected the cookie %s%s; give its cookie with --cookie-file %s=FILE (or, if another host connects as '%s', choose another --node-name)",
				    s->node, opts->cookie_from ? "from " : "we gave", opts->cookie_from ? opts->cookie_from : "",
				    s->node, alive);
		return node_errf(s, NODE_ERR_CONNECT, "cannot reach '%s' on port %d: %s; is the node running?",
			    s->node, port, strerror(e ? e : ECONNREFUSED));
	}
	wipe_ei_copies(fd);
	s->fd = fd;
	s->last_rx_ms = fp_mono_ms();
	return NODE_OK;
}

void node_free(node_t *s)
{
	if (!s)
		return;
	node_runner_stop(s);
	if (s->fd >= 0)
		ei_close_connection(s->fd);
	struct node_held *h = s->taken;
	do {
		if (h) {
			ei_x_free(&h->x);
			free(h);
		}
	} while ((h = node_held_pop(s)));
	node_lock_local_free(s);
	ei_x_free(&s->rx);
	ei_x_free(&s->lock_timer);
	free(s);
}
