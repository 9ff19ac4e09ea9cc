/*
 * rotate.h - the output stream: records in, rotated compressed files out.
 *
 * rotate/ knows bytes, not samples. A record is one opaque chunk of text
 * (one perf-script event) with the time it belongs to, used to name files
 * and to rotate by time. Each rot_flush() ends a zstd frame or a gzip member
 * and writes it, so a file cut short by a crash still decodes up to its last
 * flush. A file being written has a dot-name and is renamed on close.
 *
 * Every entry point returns 0 on success or a negative enum rot_err; the
 * detail (path, errno text) is then in rot_error(). Nothing here prints or
 * exits.
 */
#ifndef FP_ROTATE_H
#define FP_ROTATE_H

#include <stddef.h>
#include <stdint.h>

typedef struct rot_s rot_t;

enum rot_codec { ROT_ZSTD, ROT_GZIP, ROT_NONE };

enum rot_err {
	ROT_OK = 0,
	ROT_ERR_DIR = -1,     /* output directory missing, not a directory, not writable */
	ROT_ERR_IO = -2,      /* write, fsync, rename or close failed (errno in the detail) */
	ROT_ERR_NOSPACE = -3, /* ENOSPC, EDQUOT or EFBIG: the disk or a limit is full */
	ROT_ERR_CODEC = -4,   /* the compressor failed */
	ROT_ERR_NOMEM = -5,
};

/*
 * Something written beside the text inside each zstd file (the report
 * index): it sees every byte of text that goes into a file, and at each
 * frame boundary it may add bytes (zstd skippable frames) that start at the
 * given file offset; `last` is the file's final boundary. rotate/ does not
 * look inside either.
 */
struct rot_index {
	void *ctx;
	void (*new_file)(void *ctx);
	void (*text)(void *ctx, const void *p, size_t n);
	void (*take)(void *ctx, uint64_t offset, int last, const void **out, size_t *len);
};

struct rot_options {
	const char *dir;        /* output directory; created (0750) if missing */
	const char *node;       /* target node name, put in file names */
	enum rot_codec codec;
	int level;              /* compression level; 0: the codec's default */
	int64_t rotate_us;      /* start a new file after this long; 0: never */
	uint64_t rotate_bytes;  /* ... or once this many bytes are on disk; 0: never */
	unsigned keep;          /* keep this many closed files of this node; 0: all */
	uint64_t keep_bytes;    /* ... and at most this many bytes of them; 0: no limit */
	const char *header;     /* written at the start of every file; may be NULL */
	const struct rot_index *index; /* zstd only; NULL: none */
};

struct rot_stats {
	uint64_t records;       /* records appended */
	uint64_t bytes_in;      /* uncompressed bytes appended (headers included) */
	uint64_t bytes_out;     /* bytes written to disk */
	unsigned files;         /* files created */
	unsigned deleted;       /* files removed by retention */
};

/* Checks that dir can be written (creating it if needed) and prepares the
 * codec. No file is created until the first record. *out is set even on
 * failure (so rot_error() works) and must be released with rot_free(). */
int rot_open(rot_t **out, const struct rot_options *opts);

/* Names the files begun from now on after this node (rot_options.node).
 * @return 0, or ROT_ERR_IO when a file is open already (its name stays). */
int rot_set_node(rot_t *r, const char *node);

/* Replaces the header written at the start of each file begun from now on;
 * the current file keeps the one it began with. @return 0 or ROT_ERR_NOMEM
 * (the old header stays). */
int rot_set_header(rot_t *r, const char *header);

/* Appends one record. Rotation happens here, between records; a file never
 * holds fewer than 2 records unless the whole run has fewer. */
int rot_append(rot_t *r, const void *rec, size_t len, int64_t time_us);

/* Ends the current compressed frame and writes it out (no-op when nothing
 * is pending). */
int rot_flush(rot_t *r);

/* Flushes, closes and renames the current file, applies retention.
 * After this only rot_stats/rot_error/rot_free may be called. */
int rot_close(rot_t *r);

/* rot_close() for a run that appended no record (an idle node: nothing
 * selected, or nothing of a status --status writes): so that the node is
 * still in the result, one file is written, named for time_us (the run's
 * start), holding the header and then `note` (whole '#' lines, each ending
 * in a newline) and no event. With a record appended, it is rot_close().
 * The one kind of file with fewer than two events (doc/output-format.md,
 * "Idle records"). */
int rot_close_idle(rot_t *r, const char *note, int64_t time_us);

/* Frees everything; an open file is closed *without* renaming (for error
 * paths after rot_close failed). NULL is fine. */
void rot_free(rot_t *r);

const struct rot_stats *rot_stats(const rot_t *r);
/* Detail of the last error, e.g. "cannot write '/x/.f.perf.zst': No space left on device". */
const char *rot_error(const rot_t *r);
/* Path of the file being written (dot-name), or of the last file closed;
 * "" before the first record. */
const char *rot_current_path(const rot_t *r);
/* Parses "zstd", "gzip", "none". @return 0 or -1. */
int rot_codec_parse(const char *name, enum rot_codec *out);

#endif
