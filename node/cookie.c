/*
 * cookie.c - reading the node's cookie from a file.
 *
 * The cookie is a password: it is never printed, never put in a message,
 * and the buffer holding it is the caller's to wipe. The file is held to
 * erl's own rules (auth.erl): a regular file that only its owner may read
 * or write; anything else is refused, as erl refuses it. It is opened
 * without blocking, so a FIFO put in its place cannot hang a run from cron.
 *
 * A symbolic link on the way to it (the file itself, or a directory above
 * it) is followed only when root or the file's owner owns the link, as the
 * kernel's protected_symlinks reasons: otherwise any user could point a
 * link of theirs at a secret of root's (a one-line file that root alone
 * reads) and have root's flameprof send a node a challenge answered with
 * it. The path is walked component by component (openat, O_NOFOLLOW) so
 * that each link's owner is known; a link swapped in meanwhile makes the
 * open fail, never followed unseen.
 */
/* O_PATH: a directory on the way is opened to walk through, not to read,
 * so one its user may only search (mode 0711) still opens */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "node.h"

#define LINKS_MAX 40 /* as the kernel's ELOOP */

/* The links met on the way whose owner is not root: the first, and the
 * first one of another owner (then one of the two is not the file's). */
struct links {
	int n;
	uid_t uid[2];
	char where[2][PATH_MAX];
};

static void saw_link(struct links *lk, uid_t uid, const char *dir, const char *name)
{
	if (uid == 0 || lk->n == 2 || (lk->n == 1 && lk->uid[0] == uid))
		return;
	lk->uid[lk->n] = uid;
	/* only said: a path cut at PATH_MAX is cut in the sentence alone */
	if (snprintf(lk->where[lk->n], sizeof lk->where[0], "%s%s%s", dir,
		     *dir && dir[strlen(dir) - 1] != '/' ? "/" : "", name) < 0)
		lk->where[lk->n][0] = '\0';
	lk->n++;
}

/* "user nobody (uid 65534)", or "uid 65534" when it has no name. */
static void who(uid_t uid, char *out, size_t cap)
{
	struct passwd pw, *r = NULL;
	char buf[1024];
	if (getpwuid_r(uid, &pw, buf, sizeof buf, &r) == 0 && r)
		snprintf(out, cap, "user %s (uid %u)", r->pw_name, (unsigned)uid);
	else
		snprintf(out, cap, "uid %u", (unsigned)uid);
}

/* Opens path for reading, resolving it as the kernel does but by hand,
 * each symbolic link met noted in lk. @return the fd, or -1 with errno. */
static int open_walked(const char *path, struct links *lk)
{
	char rest[2 * PATH_MAX], dir[PATH_MAX], target[PATH_MAX];
	int at, links = 0, e;
	if (!*path || strlen(path) >= sizeof rest) {
		errno = *path ? ENAMETOOLONG : ENOENT;
		return -1;
	}
	snprintf(rest, sizeof rest, "%s", path);
	snprintf(dir, sizeof dir, "%s", path[0] == '/' ? "/" : "");
	if ((at = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	for (;;) {
		char *name = rest, *next;
		struct stat st;
		ssize_t n;
		int fd;
		while (*name == '/')
			name++;
		if (!*name) { /* the path ends at a directory */
			close(at);
			errno = EISDIR;
			return -1;
		}
		next = strchr(name, '/');
		if (next)
			*next++ = '\0';
		if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			goto fail;
		if (S_ISLNK(st.st_mode)) {
			size_t tl;
			if (++links > LINKS_MAX) {
				errno = ELOOP;
				goto fail;
			}
			if ((n = readlinkat(at, name, target, sizeof target)) < 0)
				goto fail;
			if ((size_t)n == sizeof target) {
				errno = ENAMETOOLONG;
				goto fail;
			}
			target[n] = '\0';
			saw_link(lk, st.st_uid, dir, name);
			tl = (size_t)n;
			/* the link's text, then what was left after it */
			if (next && *next) {
				size_t nl = strlen(next);
				if (tl + 1 + nl >= sizeof rest) {
					errno = ENAMETOOLONG;
					goto fail;
				}
				memmove(rest + tl + 1, next, nl + 1);
				rest[tl] = '/';
			} else {
				rest[tl] = '\0';
			}
			memcpy(rest, target, tl);
			if (target[0] == '/') {
				close(at);
				if ((at = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
					return -1;
				snprintf(dir, sizeof dir, "/");
			}
			continue;
		}
		if (!next || !*next) {
			/* the file: O_NOFOLLOW, a link put here since is refused */
			fd = openat(at, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
			e = errno;
			close(at);
			errno = e;
			return fd;
		}
		if ((fd = openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			goto fail;
		close(at);
		at = fd;
		{ /* the directory's path, for sentences (cut at PATH_MAX) */
			size_t dl = strlen(dir);
			if (snprintf(dir + dl, sizeof dir - dl, "%s%s", dl && dir[dl - 1] != '/' ? "/" : "", name) < 0)
				dir[dl] = '\0';
		}
		memmove(rest, next, strlen(next) + 1);
	}
fail:
	e = errno;
	close(at);
	errno = e;
	return -1;
}

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
	struct links lk = { 0 };
	int fd = open_walked(path, &lk);
	if (fd < 0 && errno == EISDIR) {
		snprintf(err, errlen, "cookie file '%s' is not a regular file; give a file that holds the cookie with --cookie-file FILE",
			 path);
		return -1;
	}
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
	for (int k = 0; k < lk.n; k++) {
		char link_owner[300], file_owner[300];
		if (lk.uid[k] == st.st_uid)
			continue;
		close(fd);
		who(lk.uid[k], link_owner, sizeof link_owner);
		who(st.st_uid, file_owner, sizeof file_owner);
		if (strcmp(lk.where[k], path) == 0)
			snprintf(err, errlen, "cookie file '%s' is a symbolic link of %s to a file of %s; give the "
				 "file's own path with --cookie-file (a link to a cookie is followed only when its "
				 "owner owns the file too, or is root)", path, link_owner, file_owner);
		else
			snprintf(err, errlen, "cookie file '%s' is reached through the symbolic link '%s' of %s but "
				 "belongs to %s; give the file's own path with --cookie-file (a link to a cookie is "
				 "followed only when its owner owns the file too, or is root)",
				 path, lk.where[k], link_owner, file_owner);
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
