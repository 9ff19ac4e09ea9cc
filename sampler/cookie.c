/*
 * cookie.c - reading the node's cookie from a file.
 *
 * The cookie is a password: it is never printed, never put in a message,
 * and the buffer holding it is the caller's to wipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "sampler.h"

int sampler_read_cookie(const char *path, char *buf, size_t cap, int *loose,
			char *err, size_t errlen)
{
	char def[4096];
	struct stat st;
	*loose = 0;
	if (!path) {
		const char *home = getenv("HOME");
		if (!home || !*home) {
			snprintf(err, errlen, "cannot find the cookie: HOME is not set; give it with --cookie-file FILE");
			return -1;
		}
		snprintf(def, sizeof def, "%s/.erlang.cookie", home);
		path = def;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot read cookie file '%s': %s; give the node's cookie with --cookie-file FILE",
			 path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == 0 && (st.st_mode & 077))
		*loose = 1;
	ssize_t n = read(fd, buf, cap - 1);
	int e = errno;
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "cannot read cookie file '%s': %s", path, strerror(e));
		return -1;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	if (n == 0 || memchr(buf, '\n', (size_t)n)) {
		snprintf(err, errlen, "cookie file '%s' does not hold one cookie on one line", path);
		return -1;
	}
	if ((size_t)n == cap - 1) {
		snprintf(err, errlen, "cookie in '%s' is too long (at most %zu bytes)", path, cap - 2);
		return -1;
	}
	return 0;
}
