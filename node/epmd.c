/*
 * epmd.c - asks the target host's epmd where the node listens.
 *
 * ei_connect() does this too, but folds every failure into one errno. Doing
 * it here lets us say which step failed: the host does not resolve, no epmd
 * answers there, or epmd does not know the node (then we list the nodes it
 * does know, which is usually the fix: a typo in the name).
 * Protocol: erts/doc "Distribution Protocol", PORT_PLEASE2_REQ and NAMES_REQ.
 * Each answer is read within the bytes received (epmd_reply.c): the names
 * epmd lists reach the terminal, so only names a node can have are kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "epmd_reply.h"
#include "internal.h"
#include "../common/near.h"

#define EPMD_PORT 4369
#define PORT_PLEASE2_REQ 122
#define NAMES_REQ 110

static int epmd_tcp_port(void)
{
	/* ERL_EPMD_PORT moves epmd for a whole test setup, as erl does. */
	const char *p = getenv("ERL_EPMD_PORT");
	int v = p ? atoi(p) : 0;
	return v > 0 && v < 65536 ? v : EPMD_PORT;
}

/* Where the port came from, for a sentence that names it. */
static const char *epmd_port_origin(void)
{
	return getenv("ERL_EPMD_PORT") && epmd_tcp_port() != EPMD_PORT ? ", from ERL_EPMD_PORT" : "";
}

static int wait_fd(int fd, short events, long long deadline_ms)
{
	for (;;) {
		long long left = deadline_ms - fp_mono_ms();
		if (left <= 0)
			return 0;
		struct pollfd p = { fd, events, 0 };
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		return r;
	}
}

/* Connects to addr:port before the deadline. @return fd, -1 refused or
 * unreachable (errno set), -2 timed out. */
static int connect_by(struct in_addr addr, int port, long long deadline_ms)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr = addr };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
		return fd;
	if (errno != EINPROGRESS) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	int r = wait_fd(fd, POLLOUT, deadline_ms);
	if (r <= 0) {
		close(fd);
		return -2;
	}
	int soerr = 0;
	socklen_t len = sizeof soerr;
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
	if (soerr) {
		close(fd);
		errno = soerr;
		return -1;
	}
	return fd;
}

static int write_all(int fd, const unsigned char *p, size_t n, long long deadline_ms)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			if (wait_fd(fd, POLLOUT, deadline_ms) <= 0)
				return -1;
			continue;
		}
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads until n bytes or EOF. @return bytes read, -1 error, -2 timeout. */
static ssize_t read_upto(int fd, unsigned char *p, size_t n, long long deadline_ms)
{
	size_t got = 0;
	while (got < n) {
		int r = wait_fd(fd, POLLIN, deadline_ms);
		if (r == 0)
			return -2;
		if (r < 0)
			return -1;
		ssize_t k = read(fd, p + got, n - got);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

/* The names epmd knows, as "a, b, c" (for the "not running" message). */
static void known_names(struct in_addr addr, long long deadline_ms, char *out, size_t cap)
{
	unsigned char req[3] = { 0, 1, NAMES_REQ }, buf[4096];
	out[0] = '\0';
	int fd = connect_by(addr, epmd_tcp_port(), deadline_ms);
	if (fd < 0)
		return;
	ssize_t n = -1;
	if (write_all(fd, req, sizeof req, deadline_ms) == 0)
		n = read_upto(fd, buf, sizeof buf - 1, deadline_ms);
	close(fd);
	if (n > 0)
		node_epmd_names_reply(buf, (size_t)n, out, cap);
}

/* Of the names known_names() listed ("'a', 'b'": each quoted, none holds
 * a quote), the one alive was most likely meant to be (common/near.h).
 * @return its first byte in names, its length in *n; NULL: none is near. */
static const char *nearest_name(const char *names, const char *alive, size_t *n)
{
	const char *best = NULL;
	int best_d = -1;
	for (const char *p = strchr(names, '\''); p; p = strchr(p, '\'')) {
		const char *end = strchr(++p, '\'');
		if (!end)
			break;
		int d = fp_near(alive, strlen(alive), p, (size_t)(end - p));
		if (d >= 0 && (best_d < 0 || d < best_d)) {
			best = p;
			best_d = d;
			*n = (size_t)(end - p);
		}
		p = end + 1;
	}
	return best;
}

static int resolve(node_t *s, struct in_addr *addr)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
	int r = getaddrinfo(s->host, NULL, &hints, &res);
	if (r != 0)
		return node_errf(s, NODE_ERR_CONNECT,
			    "cannot reach '%s': host '%s' does not resolve (%s); check the name after the '@'",
			    s->node, s->host, gai_strerror(r));
	*addr = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
	freeaddrinfo(res);
	return 0;
}

int node_epmd_port(node_t *s, const char *alive, struct in_addr *addr, long long deadline_ms)
{
	unsigned char req[3 + 256], resp[4];
	size_t n = strlen(alive);
	int r = resolve(s, addr);
	if (r < 0)
		return r;
	int fd = connect_by(*addr, epmd_tcp_port(), deadline_ms);
	if (fd == -2)
		return node_errf(s, NODE_ERR_CONNECT,
			    "cannot reach '%s': epmd on '%s' did not answer within %d ms; check that the host is up and port %d is open",
			    s->node, s->host, s->opts.connect_timeout_ms, epmd_tcp_port());
	if (fd < 0)
		return node_errf(s, NODE_ERR_CONNECT,
			    "cannot reach '%s': no epmd on '%s' port %d%s (%s); is the node running there?%s",
			    s->node, s->host, epmd_tcp_port(), epmd_port_origin(), strerror(errno),
			    *epmd_port_origin() ? "" : " (a node started with ERL_EPMD_PORT needs it set here too)");
	req[0] = (unsigned char)((n + 1) >> 8);
	req[1] = (unsigned char)(n + 1);
	req[2] = PORT_PLEASE2_REQ;
	memcpy(req + 3, alive, n);
	ssize_t got = -1;
	if (write_all(fd, req, n + 3, deadline_ms) == 0)
		got = read_upto(fd, resp, sizeof resp, deadline_ms);
	close(fd);
	if (got == -2)
		return node_errf(s, NODE_ERR_CONNECT, "cannot reach '%s': epmd on '%s' port %d did not answer within %d ms",
			    s->node, s->host, epmd_tcp_port(), s->opts.connect_timeout_ms);
	int port = got < 0 ? -1 : node_epmd_port_reply(resp, (size_t)got);
	if (port < 0)
		return node_errf(s, NODE_ERR_CONNECT, "cannot reach '%s': epmd on '%s' port %d gave no valid answer",
			    s->node, s->host, epmd_tcp_port());
	if (port == 0) {
		char names[256], meant[300] = "check the node name";
		known_names(*addr, deadline_ms, names, sizeof names);
		size_t mn = 0;
		const char *m = nearest_name(names, alive, &mn);
		if (m)
			snprintf(meant, sizeof meant, "did you mean '%.*s@%s'?", (int)mn, m, s->host);
		return node_errf(s, NODE_ERR_CONNECT, "cannot reach '%s': no node named '%s' on '%s' (epmd on port %d knows %s); %s",
			    s->node, alive, s->host, epmd_tcp_port(), names[0] ? names : "no nodes", meant);
	}
	return port;
}
