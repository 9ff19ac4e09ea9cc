/*
 * rotate.c - the file lifecycle: the output directory, opening files under
 * a dot-name, writing whole frames, rotation, closing (fsync, rename) and
 * retention.
 *
 * Records go straight into the codec while the current file is open and no
 * rotation is due. Once rotation is due, records wait in `hold` until there
 * are two of them; only then is the old file closed and the new one opened
 * with the header and the held records. That way no file but a run's only
 * file ever holds fewer than two events (Flamescope crashes on a file with
 * one event). At rot_close() a single held record goes to the old file.
 * A run with no record at all writes no file, or, closed with
 * rot_close_idle(), one idle record: the header and a note, no event.
 *
 * Nothing is fsync'd per flush: a flush is a write(2) of whole frames,
 * which a crash of *this process* cannot lose (the page cache has it); only
 * the machine going down can, and then at most the last few flushes. An
 * fsync costs many times the write and blocks on a busy disk
 * (doc/benchmarks.md, "Measurements behind the code"), so fsync only where
 * it buys something: the file before its rename, the directory after it.
 *
 * Errors are not sticky: a failed write keeps the unwritten rest of its
 * frame in memory (struct rot_buf) and the next flush retries from where
 * the disk stopped, after the bytes already written; nothing is truncated,
 * so earlier frames stay intact whatever happens later.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec.h"
#include "naming.h"
#include "retention.h"
#include "rotate.h"
#include "../common/grow.h"

/* Suffixes -1..-999 for names already taken in the same millisecond. */
#define SEQ_MAX 1000

/* Records waiting for a rotation: their bytes back to back. */
struct hold {
	char *data;
	size_t len, cap;
	unsigned n;             /* records held */
	int64_t first_us;       /* time of the first of them */
};

struct rot_s {
	char *dir;
	char *header;
	size_t header_len;
	enum rot_codec codec_kind;
	int64_t rotate_us;
	uint64_t rotate_bytes;
	unsigned keep;
	uint64_t keep_bytes;
	char fnode[ROT_NODE_MAX + 1];   /* node name as used in file names */
	struct rot_index index;         /* .take NULL: none */

	int dirfd;                      /* the output directory, -1 if not open */
	rot_codec_t *codec;
	struct rot_buf out;             /* compressed, not yet written */
	struct hold hold;

	int fd;                         /* current file, -1 if none */
	char name[ROT_NAME_MAX];        /* its final name */
	char dot[ROT_NAME_MAX + 1];     /* the name it is written under */
	unsigned seq;                   /* the -<n> in that name */
	int64_t first_us;               /* time of its first record */
	uint64_t file_records;
	uint64_t file_bytes;            /* bytes written to it */
	int finished_any;               /* a file was closed and renamed */
	int closed;                     /* rot_close() was called */

	char *path;                     /* rot_current_path() */
	struct rot_stats stats;
	char err[512];
};

/* ==== errors ==== */

__attribute__((format(printf, 3, 4)))
static int fail(rot_t *r, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof r->err, fmt, ap);
	va_end(ap);
	return code;
}

/* ENOSPC, EDQUOT and EFBIG (RLIMIT_FSIZE, the file system's largest file)
 * all mean "make room", not "the disk is broken". */
static int io_code(int e)
{
	return e == ENOSPC || e == EDQUOT || e == EFBIG ? ROT_ERR_NOSPACE : ROT_ERR_IO;
}

/* "cannot <verb> '<path>': <strerror(errno)>" with the matching code. */
static int fail_errno(rot_t *r, const char *verb, const char *path)
{
	int e = errno;

	return fail(r, io_code(e), "cannot %s '%s': %s", verb, path, strerror(e));
}

/* The message wants a path; dir + "/" + name, into r->path. */
static void set_path(rot_t *r, const char *prefix, const char *name)
{
	sprintf(r->path, "%s/%s%s", r->dir, prefix, name);
}

/* ==== writing ==== */

/* write(2)s everything produced so far; partial writes and EINTR loop. */
static int write_out(rot_t *r)
{
	struct rot_buf *b = &r->out;

	while (b->done < b->len) {
		size_t n = b->len - b->done;
		ssize_t w = write(r->fd, b->data + b->done, n > (1u << 30) ? (1u << 30) : n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return fail_errno(r, "write", r->path);
		}
		b->done += (size_t)w;
		r->file_bytes += (uint64_t)w;
		r->stats.bytes_out += (uint64_t)w;
	}
	b->len = b->done = 0;
	return 0;
}

static int feed(rot_t *r, const void *p, size_t n)
{
	char why[256];
	int rc = rot_codec_write(r->codec, &r->out, p, n, why, sizeof why);

	if (rc == ROT_ERR_NOMEM)
		return fail(r, rc, "cannot compress for '%s': out of memory", r->path);
	if (rc)
		return fail(r, rc, "cannot compress for '%s': %s", r->path, why);
	if (r->index.text)
		r->index.text(r->index.ctx, p, n);
	return 0;
}

/* Ends the frame, adds what the index has for this boundary, writes. */
static int flush_frame(rot_t *r, int last)
{
	char why[256];
	int rc = rot_codec_end_frame(r->codec, &r->out, why, sizeof why);

	if (rc == ROT_ERR_NOMEM)
		return fail(r, rc, "cannot compress for '%s': out of memory", r->path);
	if (rc)
		return fail(r, rc, "cannot compress for '%s': %s", r->path, why);
	if (r->index.take) {
		const void *p;
		size_t n;
		r->index.take(r->index.ctx, r->file_bytes + (r->out.len - r->out.done), last, &p, &n);
		if (n && rot_buf_reserve(&r->out, n) != 0) {
			/* The text matters, the index only speeds reports up: this
			 * file gets no trailer (readers then use the text), and the
			 * files after it no index. */
			memset(&r->index, 0, sizeof r->index);
		} else if (n) {
			memcpy(r->out.data + r->out.len, p, n);
			r->out.len += n;
		}
	}
	return write_out(r);
}

/* ==== file lifecycle ==== */

/* Opens the next file for the held records: a fresh name (with -<n> if the
 * millisecond is taken, dot-name or final), created 0640 whatever the umask,
 * then the header and the held records go in. */
static int start_file(rot_t *r)
{
	char *dot = r->dot;
	struct stat st;
	int fd = -1, rc;
	unsigned seq;

	for (seq = 0; seq < SEQ_MAX; seq++) {
		rot_name_file(r->name, r->fnode, r->hold.first_us, seq, r->codec_kind);
		snprintf(dot, sizeof r->dot, ".%s", r->name);
		if (fstatat(r->dirfd, r->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		fd = openat(r->dirfd, dot, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	set_path(r, ".", r->name);
	if (seq == SEQ_MAX)
		return fail(r, ROT_ERR_IO, "cannot create '%s': %d names in that millisecond are taken",
			    r->path, SEQ_MAX);
	if (fd < 0)
		return fail_errno(r, "create", r->path);
	/* held until the file has its final name and is closed: a dot-file
	 * whose lock is free lost its writer (rotate/adopt.h); where flock is
	 * not supported, nothing is ever taken for dead */
	(void)flock(fd, LOCK_EX | LOCK_NB);
	if (fchmod(fd, 0640) != 0) {
		rc = fail_errno(r, "set the mode of", r->path);
		close(fd);
		unlinkat(r->dirfd, dot, 0);
		return rc;
	}
	r->fd = fd;
	r->seq = seq;
	r->first_us = r->hold.first_us;
	r->file_bytes = 0;
	r->file_records = 0;
	r->stats.files++;
	if (r->index.new_file)
		r->index.new_file(r->index.ctx);

	/* From here the file exists: whatever fails, rot_free() leaves it. */
	rc = feed(r, r->header, r->header_len);
	if (rc)
		return rc;
	r->stats.bytes_in += r->header_len;
	rc = feed(r, r->hold.data, r->hold.len);
	if (rc)
		return rc;
	r->file_records = r->hold.n;
	r->hold.len = 0;
	r->hold.n = 0;
	return 0;
}

/* Gives the dot-file its final name without ever replacing a file: link()
 * fails on an existing name (rename() would overwrite it), so a name taken
 * meanwhile just moves us on to the next -<n>. Where hard links are not
 * supported, rename() after a check. On failure the file keeps its dot-name
 * (and rot_current_path() says so). */
static int publish(rot_t *r)
{
	struct stat st, mine;
	int e, rc;

	for (;;) {
		set_path(r, "", r->name);
		if (linkat(r->dirfd, r->dot, r->dirfd, r->name, 0) == 0)
			break;
		e = errno;
		if (e == EEXIST && fstatat(r->dirfd, r->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    fstat(r->fd, &mine) == 0 && st.st_dev == mine.st_dev && st.st_ino == mine.st_ino)
			break;          /* linked by an earlier call whose unlink failed */
		if (e != EEXIST && fstatat(r->dirfd, r->name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			if (renameat(r->dirfd, r->dot, r->dirfd, r->name) == 0)
				return 0;
			e = errno;
			rc = fail(r, ROT_ERR_IO, "cannot rename '%s/%s' to '%s': %s", r->dir, r->dot,
				  r->path, strerror(e));
			set_path(r, "", r->dot);
			return rc;
		}
		if (++r->seq >= SEQ_MAX) {
			set_path(r, "", r->dot);
			return fail(r, ROT_ERR_IO, "cannot rename '%s': %d names in that "
				    "millisecond are taken", r->path, SEQ_MAX);
		}
		rot_name_file(r->name, r->fnode, r->first_us, r->seq, r->codec_kind);
	}
	if (unlinkat(r->dirfd, r->dot, 0) != 0) {
		e = errno;
		set_path(r, "", r->dot);
		return fail(r, ROT_ERR_IO, "cannot remove '%s': %s", r->path, strerror(e));
	}
	return 0;
}

/* Last frame out, fsync, final name, fsync the directory, close, retention.
 * The fd is closed last: until the file has its name, a failure leaves it
 * open and rot_free() leaves the dot-file as it is. */
static int finish_file(rot_t *r)
{
	int rc = flush_frame(r, 1);

	if (rc)
		return rc;
	if (fsync(r->fd) != 0)
		return fail_errno(r, "sync", r->path);
	rc = publish(r);
	if (rc)
		return rc;
	/* Some file systems cannot sync a directory (EINVAL): nothing to do there. */
	if (fsync(r->dirfd) != 0 && errno != EINVAL && errno != EROFS)
		rc = fail_errno(r, "sync the directory", r->dir);
	if (close(r->fd) != 0 && rc == 0)
		rc = fail_errno(r, "close", r->path);
	r->fd = -1;
	r->finished_any = 1;
	r->stats.deleted += rot_retention(r->dirfd, r->fnode, r->keep, r->keep_bytes);
	return rc;
}

/* A file holds at least 2 records before it can be rotated away. */
static int rotation_due(const rot_t *r, int64_t t)
{
	if (r->fd < 0 || r->file_records < 2)
		return 0;
	if (r->rotate_us > 0 && t > r->first_us &&
	    (uint64_t)t - (uint64_t)r->first_us >= (uint64_t)r->rotate_us)
		return 1;
	if (r->rotate_bytes > 0 && r->file_bytes + (r->out.len - r->out.done) >= r->rotate_bytes)
		return 1;
	return 0;
}

/* Moves held records on: with 2 held, the old file is finished; with enough
 * held (1 for a run's first file, else 2), the next file starts. */
static int settle(rot_t *r)
{
	int rc;

	if (r->fd >= 0 && r->hold.n >= 2) {
		rc = finish_file(r);
		if (rc)
			return rc;
	}
	if (r->fd < 0 && r->hold.n >= (r->finished_any ? 2u : 1u))
		return start_file(r);
	return 0;
}

static int hold_add(rot_t *r, const void *rec, size_t len, int64_t t)
{
	struct hold *h = &r->hold;

	if (len > SIZE_MAX - h->len || fp_grow((void **)&h->data, &h->cap, h->len + len, 1, 4096) != 0)
		return fail(r, ROT_ERR_NOMEM, "cannot hold a record: out of memory");
	if (len)
		memcpy(h->data + h->len, rec, len);
	h->len += len;
	if (h->n++ == 0)
		h->first_us = t;
	return 0;
}

/* ==== entry points ==== */

/* Whose directory it is: files are created and retention deletes in it, so
 * it must be ours or root's, and nobody else may write in it (plant or
 * swap names) unless it is sticky. A group-writable one is accepted when
 * the group is our own (a user-private group, as with umask 002). */
static int check_dir(rot_t *r)
{
	struct stat st;
	uid_t me = geteuid();
	if (fstat(r->dirfd, &st) != 0)
		return fail(r, ROT_ERR_DIR, "cannot check '%s': %s", r->dir, strerror(errno));
	if (st.st_uid != me && st.st_uid != 0)
		return fail(r, ROT_ERR_DIR, "cannot use '%s': it belongs to another user (uid %u)",
			    r->dir, (unsigned)st.st_uid);
	if (!(st.st_mode & S_ISVTX) &&
	    ((st.st_mode & S_IWOTH) || ((st.st_mode & S_IWGRP) && st.st_gid != getegid())))
		return fail(r, ROT_ERR_DIR, "cannot use '%s': other users can write in it (mode %04o, "
			    "not sticky: chmod go-w it)", r->dir, (unsigned)(st.st_mode & 07777));
	return 0;
}

/* The directory: created (only its last component; a missing parent is an
 * error, so a typo in -o does not quietly build a tree somewhere) with mode
 * 0750 whatever the umask, then proved writable by creating and removing a
 * dot-file (access() says nothing about read-only mounts, and root passes
 * it everywhere). */
static int open_dir(rot_t *r)
{
	char probe[64];
	struct stat st;
	int fd, e, link;

	if (mkdir(r->dir, 0750) == 0) {
		if (chmod(r->dir, 0750) != 0)
			return fail(r, ROT_ERR_DIR, "cannot set the mode of '%s': %s", r->dir,
				    strerror(errno));
	} else if (errno != EEXIST) {
		e = errno;
		return fail(r, ROT_ERR_DIR, "cannot create '%s': %s", r->dir, strerror(e));
	}
	/* A symlink is followed only when it is ours or root's: one planted by
	 * another user (in /tmp) must not steer the files elsewhere. */
	link = lstat(r->dir, &st) == 0 && S_ISLNK(st.st_mode);
	if (link && st.st_uid != geteuid() && st.st_uid != 0)
		return fail(r, ROT_ERR_DIR, "cannot use '%s': it is a symbolic link of another user "
			    "(uid %u)", r->dir, (unsigned)st.st_uid);
	r->dirfd = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (link ? 0 : O_NOFOLLOW));
	if (r->dirfd < 0) {
		e = errno;
		return fail(r, ROT_ERR_DIR, "cannot open '%s': %s", r->dir, strerror(e));
	}
	if ((e = check_dir(r)) != 0)
		return e;
	snprintf(probe, sizeof probe, ".flameprof-probe-%ld", (long)getpid());
	fd = openat(r->dirfd, probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST) {        /* left by a killed run of this pid */
		unlinkat(r->dirfd, probe, 0);
		fd = openat(r->dirfd, probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	}
	if (fd < 0) {
		e = errno;
		return fail(r, ROT_ERR_DIR, "cannot write to '%s': %s", r->dir, strerror(e));
	}
	close(fd);
	unlinkat(r->dirfd, probe, 0);
	return 0;
}

int rot_open(rot_t **out, const struct rot_options *opts)
{
	const char *dir = opts && opts->dir && *opts->dir ? opts->dir : ".";
	char why[256];
	rot_t *r;
	int rc;

	*out = r = calloc(1, sizeof *r);
	if (!r)
		return ROT_ERR_NOMEM;
	r->fd = -1;
	r->dirfd = -1;
	r->dir = strdup(dir);
	r->path = calloc(1, strlen(dir) + ROT_NAME_MAX + 3);
	if (!r->dir || !r->path)
		return fail(r, ROT_ERR_NOMEM, "cannot open the output: out of memory");
	if (!opts)
		return fail(r, ROT_ERR_IO, "no output options given");
	if (opts->header && *opts->header) {
		r->header = strdup(opts->header);
		if (!r->header)
			return fail(r, ROT_ERR_NOMEM, "cannot open the output: out of memory");
		r->header_len = strlen(r->header);
	}
	r->codec_kind = opts->codec;
	r->rotate_us = opts->rotate_us;
	r->rotate_bytes = opts->rotate_bytes;
	r->keep = opts->keep;
	r->keep_bytes = opts->keep_bytes;
	if (opts->index && opts->codec == ROT_ZSTD)
		r->index = *opts->index;
	rot_name_node(r->fnode, opts->node);

	rc = rot_codec_new(&r->codec, opts->codec, opts->level, why, sizeof why);
	if (rc)
		return fail(r, rc, "cannot start the compressor: %s", why);
	return open_dir(r);
}

int rot_set_node(rot_t *r, const char *node)
{
	if (r->fd >= 0 || r->finished_any || r->hold.n)
		return ROT_ERR_IO;
	rot_name_node(r->fnode, node);
	return 0;
}

int rot_set_header(rot_t *r, const char *header)
{
	char *copy = NULL;
	if (header && *header && !(copy = strdup(header)))
		return ROT_ERR_NOMEM;
	free(r->header);
	r->header = copy;
	r->header_len = copy ? strlen(copy) : 0;
	return 0;
}

int rot_append(rot_t *r, const void *rec, size_t len, int64_t time_us)
{
	int rc;

	if (r->closed)
		return fail(r, ROT_ERR_IO, "cannot append to '%s': the output is closed", r->dir);
	if (r->fd >= 0 && r->hold.n == 0 && !rotation_due(r, time_us)) {
		rc = feed(r, rec, len);
		if (rc)
			return rc;
		r->file_records++;
	} else {
		rc = hold_add(r, rec, len, time_us);
		if (rc)
			return rc;
	}
	r->stats.records++;
	r->stats.bytes_in += len;
	return settle(r);
}

int rot_flush(rot_t *r)
{
	int rc;

	if (r->closed)
		return fail(r, ROT_ERR_IO, "cannot flush '%s': the output is closed", r->dir);
	rc = settle(r);         /* retries a file start that failed */
	if (rc || r->fd < 0)
		return rc;
	return flush_frame(r, 0);
}

int rot_close(rot_t *r)
{
	int rc;

	if (r->closed)
		return 0;
	r->closed = 1;
	/* One record held and nothing to pair it with: it ends the old file. */
	if (r->fd >= 0 && r->hold.n == 1) {
		rc = feed(r, r->hold.data, r->hold.len);
		if (rc)
			return rc;
		r->file_records++;
		r->hold.len = 0;
		r->hold.n = 0;
	}
	rc = settle(r);
	if (rc == 0 && r->fd < 0 && r->hold.n > 0)
		rc = start_file(r);
	if (rc == 0 && r->fd >= 0)
		rc = finish_file(r);
	return rc;
}

int rot_close_idle(rot_t *r, const char *note, int64_t time_us)
{
	int rc;
	size_t n = note ? strlen(note) : 0;

	if (r->closed || r->stats.records || r->fd >= 0 || r->finished_any || r->hold.n)
		return rot_close(r);
	r->closed = 1;
	r->hold.first_us = time_us;
	rc = start_file(r);
	if (rc == 0 && n)
		rc = feed(r, note, n);
	if (rc == 0)
		r->stats.bytes_in += n;
	if (rc == 0)
		rc = finish_file(r);
	return rc;
}

void rot_free(rot_t *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);   /* no rename: the dot-file is the partial data */
	if (r->dirfd >= 0)
		close(r->dirfd);
	rot_codec_free(r->codec);
	rot_buf_free(&r->out);
	free(r->hold.data);
	free(r->header);
	free(r->path);
	free(r->dir);
	free(r);
}

const struct rot_stats *rot_stats(const rot_t *r)
{
	static const struct rot_stats none;

	return r ? &r->stats : &none;
}

const char *rot_error(const rot_t *r)
{
	if (!r)
		return "cannot open the output: out of memory";
	return r->err;
}

const char *rot_current_path(const rot_t *r)
{
	return r && r->path ? r->path : "";
}
