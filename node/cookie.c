/*
 * cookie.c - reading the node's cookie from a file.
 *
 * The cookie is a password: it is never printed, never put in a message,
 * and the buffer holding it is the caller's to wipe. The file is held to
 * erl's own rules (auth.erl): a regular file that only its owner may read
 * or write; anything else is refused, as erl refuses it. It is opened
 * without blocking, so a FIFO put in its place cannot hang a run from cron.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "node.h"

/* Reads what the file holds (at most cap - 1 bytes). @return bytes or -1. */
static ssize_t read_some(int fd, char *buf, size_t cap)
{
	size_t got = 0;
	while (got < cap - 1) {
		ssize_t n = read(fd, buf + got, cap - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int node_read_cookie(const char *path, char *buf, size_t cap, char *err, size_t errlen)
{
	char def[4096];
	struct stat st;
	if (!path) {
		const char *home = getenv("HOME");
		if (!home || !*home) {
			snprintf(err, errlen, "cannot find the cookie: HOME is not set; give it with --cookie-file FILE");
			return -1;
		}
		snprintf(def, sizeof def, "%s/.erlang.cookie", home);
		path = def;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		snprintf(err, errlen, "cannot read cookie file '%s': %s; give the node's cookie with --cookie-file FILE",
			 path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "cookie file '%s' is not a regular file; give a file that holds the cookie with --cookie-file FILE",
			 path);
		return -1;
	}
	if (st.st_mode & 077) {
		/* mix release writes releases/COOKIE readable by all (0644), and
		 * its scripts read it without a check: flameprof keeps erl's rule
		 * (the cookie runs any code on the node) and names the release's
		 * own way around it */
		const char *base = strrchr(path, '/');
		int release = strcmp(base ? base + 1 : path, "COOKIE") == 0;
		close(fd);
		snprintf(err, errlen, "cookie file '%s' must be accessible by its owner only, as erl requires; run 'chmod 400 %s'%s",
			 path, path, release ? ", or give a mix release's cookie as its scripts take it: RELEASE_COOKIE=$(cat FILE) flameprof ..." : "");
		return -1;
	}
	ssize_t n = read_some(fd, buf, cap);
	int e = errno;
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "cannot read cookie file '%s': %s", path, strerror(e));
		return -1;
	}
	if ((size_t)n == cap - 1) {
		explicit_bzero(buf, cap);
		snprintf(err, errlen, "cookie in '%s' is too long (at most %zu bytes)", path, cap - 2);
		return -1;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	if (n == 0 || memchr(buf, '\n', (size_t)n)) {
		explicit_bzero(buf, cap);
		snprintf(err, errlen, "cookie file '%s' does not hold one cookie on one line", path);
		return -1;
	}
	return 0;
}
