/*
 * outfile.c - output files written aside and renamed (outfile.h).
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ".NAME.tmp-<pid>-<n>" beside NAME: a dot-file, so a capture directory's
 * readers (report DIR) never take it for a finished file. */
static char *aside_name(const char *path, unsigned n)
{
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) + 1 : 0, cap = strlen(path) + 64;
	char *t = malloc(cap);
	if (t)
		snprintf(t, cap, "%.*s.%s.tmp-%ld-%u", (int)dl, path, path + dl, (long)getpid(), n);
	return t;
}

int rot_out_open(struct rot_out *o, const char *path, char *err, size_t cap)
{
	struct timespec ts;
	int fd = -1;
	memset(o, 0, sizeof o[0]);
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	/* a device at the name is written itself: renamed over, /dev/null
	 * would become a file of ours (as root), and every writer after us
	 * would fill it */
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISCHR(st.st_mode)) {
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && (o->path = strdup(path)) &&
		    (o->f = fdopen(fd, "w")))
			return 0;
		int e = fd < 0 ? errno : ENOMEM;
		snprintf(err, cap, "cannot write to '%s': %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		free(o->path);
		memset(o, 0, sizeof o[0]);
		errno = e;
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	for (unsigned i = 0; i < 100 && fd < 0; i++) {
		free(o->tmp);
		if (!(o->tmp = aside_name(path, (unsigned)ts.tv_nsec + i)))
			break;
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0 || !(o->path = strdup(path)) || !(o->f = fdopen(fd, "w"))) {
		int e = fd < 0 && o->tmp ? errno : ENOMEM;
		snprintf(err, cap, "cannot create '%s': %s; check the directory exists and is writable", path,
			 strerror(e));
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->tmp);
		free(o->path);
		memset(o, 0, sizeof o[0]);
		errno = e;
		return -1;
	}
	return 0;
}

int rot_out_commit(struct rot_out *o, char *err, size_t cap)
{
	int rc = 0;
	if (!o->f)
		return 0;
	if (o->f == stdout) {
		if (ferror(stdout) || fflush(stdout) != 0) {
			snprintf(err, cap, "cannot write to standard output: %s", strerror(errno));
			rc = -1;
		}
		memset(o, 0, sizeof o[0]);
		return rc;
	}
	if (!o->tmp) { /* a device, written in place: nothing to rename */
		int bad = ferror(o->f) | fflush(o->f);
		if (fclose(o->f) != 0 || bad) {
			snprintf(err, cap, "cannot write '%s': %s", o->path, strerror(errno));
			rc = -1;
		}
		free(o->path);
		memset(o, 0, sizeof o[0]);
		return rc;
	}
	errno = EIO;
	if (ferror(o->f) | fflush(o->f) | fsync(fileno(o->f))) {
		snprintf(err, cap, "cannot write '%s': %s; is the disk full? (the old file, if any, is kept)",
			 o->path, strerror(errno));
		rot_out_abort(o);
		return -1;
	}
	if (fclose(o->f) != 0) {
		o->f = NULL;
		snprintf(err, cap, "cannot write '%s': %s; is the disk full? (the old file, if any, is kept)",
			 o->path, strerror(errno));
		rot_out_abort(o);
		return -1;
	}
	o->f = NULL;
	/* rename replaces whatever the name holds (a symlink included) and
	 * never follows it; a directory there makes it fail. */
	if (rename(o->tmp, o->path) != 0) {
		snprintf(err, cap, "cannot replace '%s': %s; choose another file", o->path, strerror(errno));
		rot_out_abort(o);
		return -1;
	}
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof o[0]);
	return 0;
}

void rot_out_abort(struct rot_out *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof o[0]);
}

FILE *rot_append_open(const char *path, char *err, size_t cap)
{
	struct stat st;
	FILE *f;
	/* O_NONBLOCK: a FIFO planted at the name must not hang the open. */
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0640);
	if (fd < 0) {
		if (errno == ENXIO) /* a FIFO nobody reads */
			snprintf(err, cap, "cannot append to '%s': not a regular file; name a plain file",
				 path);
		else
			snprintf(err, cap, "cannot open '%s': %s%s", path, strerror(errno),
				 errno == ELOOP ? " (a symbolic link: name the file itself)"
						: "; check the directory exists and is writable");
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, cap, "cannot append to '%s': not a regular file; name a plain file", path);
		close(fd);
		return NULL;
	}
	/* A file somebody else created (in /tmp, say, open to all) would get
	 * our lines where they can read or change them; a second hard link
	 * would put them into another file too. Nothing was written yet. */
	if (st.st_uid != geteuid()) {
		snprintf(err, cap, "cannot append to '%s': it belongs to another user (uid %lu); name a file of your own or remove that one",
			 path, (unsigned long)st.st_uid);
		close(fd);
		return NULL;
	}
	if (st.st_nlink != 1) {
		snprintf(err, cap, "cannot append to '%s': it has %lu hard links, so the lines would go to another name too; name a file of your own",
			 path, (unsigned long)st.st_nlink);
		close(fd);
		return NULL;
	}
	if (fcntl(fd, F_SETFL, O_APPEND) != 0 || !(f = fdopen(fd, "a"))) {
		snprintf(err, cap, "cannot open '%s': %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}
