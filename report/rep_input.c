/*
 * rep_input.c - decompress-and-split-lines for `flameprof report`.
 *
 * One output buffer holds decoded text; lines are found with memchr and
 * handed out in place, so no line is copied unless it straddles a refill
 * (then the tail moves to the front, and the buffer doubles only for a line
 * longer than it).
 */
#include "rep_input.h"
#include "../rotate/adopt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "../common/grow.h"

enum codec { C_PLAIN, C_ZSTD, C_GZIP };

struct rep_input_s {
	FILE *f;
	enum codec codec;
	unsigned char *ibuf; /* compressed bytes read from the file */
	size_t icap, ipos, iend;
	int ieof;
	char *obuf; /* decoded text */
	size_t ocap, opos, oend;
	int oeof;            /* decoder has nothing more */
	int in_frame;        /* inside a zstd frame / gzip member */
	int truncated;
	int last_blank;      /* the last line handed out was empty */
	ZSTD_DStream *zd;
	z_stream gz;
	int gz_init;
	char err[256];
};

static int refill_in(rep_input *in)
{
	if (in->ipos < in->iend || in->ieof)
		return 0;
	in->ipos = 0;
	in->iend = fread(in->ibuf, 1, in->icap, in->f);
	if (in->iend == 0) {
		if (ferror(in->f)) {
			snprintf(in->err, sizeof in->err, "%s", strerror(errno));
			return REP_IN_OPEN;
		}
		in->ieof = 1;
	}
	return 0;
}

/* Decodes into obuf[oend..ocap). @return 0, or a negative rep_in_err. */
static int decode(rep_input *in)
{
	int rc;
	if (in->codec == C_PLAIN) {
		size_t n = fread(in->obuf + in->oend, 1, in->ocap - in->oend, in->f);
		if (n == 0) {
			if (ferror(in->f)) {
				snprintf(in->err, sizeof in->err, "%s", strerror(errno));
				return REP_IN_OPEN;
			}
			in->oeof = 1;
		}
		in->oend += n;
		return 0;
	}
	while (in->oend < in->ocap) {
		if ((rc = refill_in(in)) < 0)
			return rc;
		if (in->ipos == in->iend && in->ieof) {
			in->oeof = 1;
			if (in->in_frame)
				in->truncated = 1;
			return 0;
		}
		if (in->codec == C_ZSTD) {
			ZSTD_inBuffer ib = { in->ibuf, in->iend, in->ipos };
			ZSTD_outBuffer ob = { in->obuf, in->ocap, in->oend };
			size_t r = ZSTD_decompressStream(in->zd, &ob, &ib);
			if (ZSTD_isError(r)) {
				snprintf(in->err, sizeof in->err, "zstd: %s", ZSTD_getErrorName(r));
				return REP_IN_CORRUPT;
			}
			/* 0: a frame ended; the next call starts the next frame. */
			in->in_frame = r != 0;
			in->ipos = ib.pos;
			in->oend = ob.pos;
			if (ob.pos > 0 && r == 0)
				return 0;
		} else {
			if (!in->in_frame) {
				/* Between members: another must start with the magic. */
				if (in->iend - in->ipos < 2 && !in->ieof) {
					memmove(in->ibuf, in->ibuf + in->ipos, in->iend - in->ipos);
					in->iend -= in->ipos;
					in->ipos = 0;
					in->iend += fread(in->ibuf + in->iend, 1, in->icap - in->iend, in->f);
					if (in->iend < 2)
						in->ieof = 1;
				}
				if (in->iend - in->ipos < 2 || in->ibuf[in->ipos] != 0x1f ||
				    in->ibuf[in->ipos + 1] != 0x8b) {
					in->oeof = 1; /* trailing zeros or garbage: gzip ignores it too */
					return 0;
				}
				if (inflateReset(&in->gz) != Z_OK)
					return REP_IN_CORRUPT;
				in->in_frame = 1;
			}
			in->gz.next_in = in->ibuf + in->ipos;
			in->gz.avail_in = (uInt)(in->iend - in->ipos);
			in->gz.next_out = (Bytef *)in->obuf + in->oend;
			in->gz.avail_out = (uInt)(in->ocap - in->oend);
			rc = inflate(&in->gz, Z_NO_FLUSH);
			in->ipos = in->iend - in->gz.avail_in;
			in->oend = in->ocap - in->gz.avail_out;
			if (rc == Z_STREAM_END) {
				in->in_frame = 0;
			} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
				snprintf(in->err, sizeof in->err, "gzip: %s",
					 in->gz.msg ? in->gz.msg : "invalid data");
				return REP_IN_CORRUPT;
			}
		}
	}
	return 0;
}

rep_input *rep_input_open(const char *path, enum rep_in_err *err, char *detail, size_t cap)
{
	unsigned char m[4];
	size_t n;
	rep_input *in = calloc(1, sizeof *in);
	if (!in) {
		*err = REP_IN_NOMEM;
		snprintf(detail, cap, "out of memory");
		return NULL;
	}
	/* Only a regular file: a FIFO would hang the report (it reads a file
	 * more than once), a device is no capture. O_NONBLOCK for the open. */
	{
		struct stat st = { .st_mode = S_IFREG }; /* a failed fstat keeps its errno */
		int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), e;
		if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
				fcntl(fd, F_SETFL, 0) != 0 || !(in->f = fdopen(fd, "rb")))) {
			e = errno;
			close(fd);
			fd = -1;
			errno = S_ISREG(st.st_mode) ? e : EINVAL;
		}
		if (fd < 0) {
			*err = REP_IN_OPEN;
			snprintf(detail, cap, "%s", errno == EINVAL ? "not a regular file" : strerror(errno));
			free(in);
			return NULL;
		}
	}
	in->icap = 1 << 20;
	in->ocap = 4 << 20;
	in->ibuf = malloc(in->icap);
	in->obuf = malloc(in->ocap);
	if (!in->ibuf || !in->obuf)
		goto nomem;
	n = fread(m, 1, 4, in->f);
	rewind(in->f);
	if (n == 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd)
		in->codec = C_ZSTD;
	else if (n == 4 && (m[0] & 0xf0) == 0x50 && m[1] == 0x2a && m[2] == 0x4d && m[3] == 0x18)
		in->codec = C_ZSTD; /* a skippable frame first */
	else if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
		in->codec = C_GZIP;
	if (in->codec == C_ZSTD) {
		in->zd = ZSTD_createDStream();
		if (!in->zd)
			goto nomem;
	} else if (in->codec == C_GZIP) {
		if (inflateInit2(&in->gz, 15 + 32) != Z_OK)
			goto nomem;
		in->gz_init = 1;
	}
	return in;
nomem:
	*err = REP_IN_NOMEM;
	snprintf(detail, cap, "out of memory");
	rep_input_close(in);
	return NULL;
}

int rep_input_line(rep_input *in, const char **line, size_t *len)
{
	for (;;) {
		char *s = in->obuf + in->opos;
		char *nl = memchr(s, '\n', in->oend - in->opos);
		if (nl == s && in->last_blank) {
			/* A run of empty lines is one end of event: handed out once,
			 * the rest skipped here at memory speed (a 61 KB zstd file
			 * can hold 2 GB of them; one call per line took a minute). */
			char *end = in->obuf + in->oend;
			while (nl < end && *nl == '\n')
				nl++;
			in->opos = (size_t)(nl - in->obuf);
			continue;
		}
		if (nl) {
			in->last_blank = nl == s;
			*line = s;
			*len = (size_t)(nl - s);
			in->opos += *len + 1;
			return 1;
		}
		if (in->oeof) {
			/* A cut frame ends mid-line: that half line is not data. */
			if (in->opos == in->oend || in->truncated)
				return 0;
			*line = s;
			*len = in->oend - in->opos;
			in->opos = in->oend;
			return 1;
		}
		/* Keep the partial line, make room, decode more. */
		memmove(in->obuf, s, in->oend - in->opos);
		in->oend -= in->opos;
		in->opos = 0;
		/* a line longer than the buffer: double it, up to a bound */
		if (in->oend == in->ocap && in->ocap >= REP_MAX_LINE) {
			snprintf(in->err, sizeof in->err, "a line is longer than %d MiB", REP_MAX_LINE >> 20);
			return REP_IN_CORRUPT;
		}
		if (in->oend == in->ocap &&
		    fp_grow((void **)&in->obuf, &in->ocap, in->ocap + 1, 1, 4 << 20) != 0) {
			snprintf(in->err, sizeof in->err, "out of memory");
			return REP_IN_NOMEM;
		}
		int rc = decode(in);
		if (rc < 0)
			return rc;
	}
}

int rep_input_truncated(const rep_input *in)
{
	return in->truncated;
}

const char *rep_input_codec(const rep_input *in)
{
	return in->codec == C_ZSTD ? "zstd" : in->codec == C_GZIP ? "gzip" : "plain";
}

const char *rep_input_error(const rep_input *in)
{
	return in->err;
}

void rep_input_close(rep_input *in)
{
	if (!in)
		return;
	if (in->f)
		fclose(in->f);
	ZSTD_freeDStream(in->zd);
	if (in->gz_init)
		inflateEnd(&in->gz);
	free(in->ibuf);
	free(in->obuf);
	free(in);
}

/* ==== Directory expansion ==== */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int push(char ***paths, size_t *n, size_t *cap, char *s)
{
	if (fp_grow((void **)paths, cap, *n + 1, sizeof **paths, 16) != 0)
		return -1;
	(*paths)[(*n)++] = s;
	return 0;
}

long rep_input_expand(const char *arg, char ***paths, size_t *n, size_t *cap, char *detail,
		      size_t dcap)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	size_t first = *n;
	if (stat(arg, &st) != 0) {
		snprintf(detail, dcap, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		char *s = strdup(arg);
		if (!s || push(paths, n, cap, s) != 0) {
			free(s);
			snprintf(detail, dcap, "out of memory");
			return -1;
		}
		return 1;
	}
	d = opendir(arg);
	if (!d) {
		snprintf(detail, dcap, "%s", strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		const char *nm = de->d_name;
		size_t al = strlen(arg), nl = strlen(nm);
		char *s;
		/* a dot-name: a file being written, read only when its run died
		 * (rotate/adopt.h) */
		if (nm[0] == '.' ? !rot_dead_file(dirfd(d), nm) :
		    strncmp(nm, "flameprof_", 10) != 0 || !strstr(nm, ".perf"))
			continue;
		/* only regular files: a FIFO or a link planted in a shared
		 * directory must neither hang the report nor lead it elsewhere */
		if (fstatat(dirfd(d), nm, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		s = malloc(al + nl + 2);
		if (!s) {
			closedir(d);
			snprintf(detail, dcap, "out of memory");
			return -1;
		}
		memcpy(s, arg, al);
		s[al] = '/';
		memcpy(s + al + 1, nm, nl + 1);
		if (al > 0 && arg[al - 1] == '/')
			memmove(s + al, s + al + 1, nl + 1);
		if (push(paths, n, cap, s) != 0) {
			free(s);
			closedir(d);
			snprintf(detail, dcap, "out of memory");
			return -1;
		}
	}
	closedir(d);
	if (*n > first)
		qsort(*paths + first, *n - first, sizeof **paths, cmp_str);
	return (long)(*n - first);
}
