/*
 * outfile.h - every output file flameprof writes whole (report -o and
 * --heatmap, calls --json): written aside, published by rename.
 *
 * The new content goes to a temporary file in the target's directory,
 * created O_EXCL|O_NOFOLLOW with mode 0640 (the umask may make it
 * stricter), as captures are; only a complete file is renamed over the
 * target. A failed run leaves an existing file as it was, and a symlink
 * planted at the target is replaced, never written through. "-" is
 * standard output, streamed as is.
 */
#ifndef ROT_OUTFILE_H
#define ROT_OUTFILE_H

#include <stdio.h>

struct rot_out {
	FILE *f;      /* write here; stdout for "-" */
	char *path;   /* the target (NULL for stdout) */
	char *tmp;    /* the file written aside until commit; NULL: written in place (a device) */
};

/*
 * Opens path ("-": stdout) for writing aside; a character device at path
 * (/dev/null, a terminal) is written in place, never replaced by a file. @return 0, or -1 with one
 * sentence in err (errno kept: the caller's exit status is EX_CANTCREAT).
 */
int rot_out_open(struct rot_out *o, const char *path, char *err, size_t cap);
/*
 * Flushes, closes and renames the file over its target (stdout: flushed).
 * @return 0, or -1 with one sentence in err (the target is then as it
 * was). Either way o holds nothing afterwards.
 */
int rot_out_commit(struct rot_out *o, char *err, size_t cap);
/* Drops what was written: the target stays as it was. No-op on an empty o. */
void rot_out_abort(struct rot_out *o);

/*
 * For the files flameprof appends to as it goes (requests --stats and
 * --slow-file: JSON lines to follow with tail -f): opened O_APPEND, never
 * through a symlink, created 0640, refused unless a regular file of the
 * user's own with one link (nothing is written to a refused file).
 * @return the stream, or NULL with one sentence in err.
 */
FILE *rot_append_open(const char *path, char *err, size_t cap);

#endif
