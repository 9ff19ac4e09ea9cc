/*
 * retention.c - after each file is closed: drop the oldest closed files of
 * this node beyond the count and byte limits.
 *
 * Age is the name: the UTC stamp of the file's first record, then the -<n>
 * suffix (plain strcmp would put "...Z-1.perf" before "...Z.perf", since
 * '-' < '.'). Sizes are st_size.
 *
 * Only files that are ours are counted or deleted: regular files (never a
 * link), owned by our user, named by our grammar, and not dated more than a
 * day ahead of the clock (a file from the future, planted or from a clock
 * gone wrong, would count as the newest and push real files out).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "naming.h"
#include "retention.h"
#include "../common/grow.h"

struct old_file {
	char name[ROT_NAME_MAX];
	char stamp[ROT_STAMP_LEN + 1];
	unsigned long seq;
	uint64_t size;
};

/* Newest first. */
static int newer_first(const void *a, const void *b)
{
	const struct old_file *x = a, *y = b;
	int c = strcmp(y->stamp, x->stamp);

	if (c)
		return c;
	if (x->seq != y->seq)
		return x->seq < y->seq ? 1 : -1;
	return strcmp(y->name, x->name);
}

unsigned rot_retention(int dirfd, const char *fnode, unsigned keep, uint64_t keep_bytes)
{
	struct old_file *v = NULL;
	size_t n = 0, cap = 0;
	unsigned removed = 0;
	uint64_t total = 0;
	struct dirent *de;
	struct stat st;
	struct timespec now;
	char latest[ROT_STAMP_LEN + 1];
	DIR *d;
	int fd;

	if (keep == 0 && keep_bytes == 0)
		return 0;
	clock_gettime(CLOCK_REALTIME, &now);
	rot_name_stamp(latest, ((int64_t)now.tv_sec + 86400) * 1000000);
	/* fdopendir takes ownership of its fd: give it a copy. */
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		struct old_file f;
		if (strlen(de->d_name) >= sizeof f.name ||
		    !rot_name_parse(de->d_name, fnode, f.stamp, &f.seq) || strcmp(f.stamp, latest) > 0)
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		strcpy(f.name, de->d_name);
		f.size = (uint64_t)st.st_size;
		if (fp_grow((void **)&v, &cap, n + 1, sizeof *v, 64) != 0)
			goto out;       /* keep everything rather than guess */
		v[n++] = f;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, newer_first);
	for (size_t i = 0, over = 0; i < n; i++) {
		if (keep && i >= keep)
			over = 1;
		if (keep_bytes && i > 0 && total + v[i].size > keep_bytes)
			over = 1;
		if (!over) {
			total += v[i].size;
			continue;
		}
		if (unlinkat(dirfd, v[i].name, 0) == 0)
			removed++;
	}
out:
	free(v);
	closedir(d);
	return removed;
}
