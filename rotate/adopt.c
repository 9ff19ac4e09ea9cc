/*
 * adopt.c - the files of runs that died (see adopt.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "adopt.h"

static int capture_dot_name(const char *name)
{
	static const char *const exts[] = { ".perf", ".perf.zst", ".perf.gz" };
	size_t n = strlen(name);
	if (strncmp(name, ".flameprof_", 11) != 0)
		return 0;
	for (size_t k = 0; k < sizeof exts / sizeof *exts; k++) {
		size_t e = strlen(exts[k]);
		if (n > 11 + e && strcmp(name + n - e, exts[k]) == 0)
			return 1;
	}
	return 0;
}

/* An open fd on a dead run's file, its lock held (LOCK_EX for adopting);
 * -1 when it is not one. */
static int open_dead(int dirfd, const char *name, int how, long long *bytes)
{
	struct stat st;
	if (!capture_dot_name(name))
		return -1;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* not empty: the writer takes its lock before it writes a byte, so a
	 * file with data and a free lock has no writer */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_size <= 0 ||
	    flock(fd, how | LOCK_NB) != 0) {
		close(fd);
		return -1;
	}
	*bytes = (long long)st.st_size;
	return fd;
}

int rot_dead_file(int dirfd, const char *name)
{
	long long bytes;
	int fd = open_dead(dirfd, name, LOCK_SH, &bytes);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int rot_adopt_dead(const char *dir, void (*said)(void *ctx, const char *from, const char *to, long long bytes),
		   void *ctx)
{
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
	if (dirfd < 0)
		return -1;
	int dupfd = dup(dirfd);
	DIR *d = dupfd >= 0 ? fdopendir(dupfd) : NULL;
	if (!d) {
		int e = errno;
		if (dupfd >= 0)
			close(dupfd);
		close(dirfd);
		errno = e;
		return -1;
	}
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		long long bytes;
		int fd = open_dead(dirfd, de->d_name, LOCK_EX, &bytes);
		if (fd < 0)
			continue;
		/* link never replaces a file: a final name taken leaves it be */
		if (linkat(dirfd, de->d_name, dirfd, de->d_name + 1, 0) == 0) {
			if (unlinkat(dirfd, de->d_name, 0) == 0) {
				n++;
				if (said)
					said(ctx, de->d_name, de->d_name + 1, bytes);
			} else {
				unlinkat(dirfd, de->d_name + 1, 0);
			}
		}
		close(fd);
	}
	closedir(d);
	close(dirfd);
	return n;
}
