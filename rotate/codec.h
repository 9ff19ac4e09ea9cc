/*
 * codec.h - zstd, gzip or plain text behind one small table (internal to rotate/).
 *
 * A codec turns bytes into compressed bytes appended to an in-memory output
 * buffer (struct rot_buf). Nothing here touches a file: rotate.c writes the
 * buffer out, so a frame only reaches the disk whole (a crash never leaves a
 * frame that was not ended), and bytes a failed write() left behind stay
 * here to be retried.
 */
#ifndef FP_ROTATE_CODEC_H
#define FP_ROTATE_CODEC_H

#include <stddef.h>

#include "rotate.h"

/* Compressed bytes not yet on disk: data[done..len) is still to be written. */
struct rot_buf {
	unsigned char *data;
	size_t len;             /* bytes produced */
	size_t done;            /* bytes of them already written */
	size_t cap;
};

/* Makes room for at least `more` bytes after len. @return 0 or ROT_ERR_NOMEM. */
int rot_buf_reserve(struct rot_buf *b, size_t more);
void rot_buf_free(struct rot_buf *b);

typedef struct rot_codec_s rot_codec_t;

/* Creates a codec; level 0 means the codec's default. @return 0, ROT_ERR_NOMEM
 * or ROT_ERR_CODEC; on error `err` (size errlen) says why. */
int rot_codec_new(rot_codec_t **out, enum rot_codec kind, int level,
		  char *err, size_t errlen);
/* Feeds n bytes into the current frame, output goes to `out`.
 * @return 0, ROT_ERR_NOMEM or ROT_ERR_CODEC (err filled). */
int rot_codec_write(rot_codec_t *c, struct rot_buf *out, const void *p, size_t n,
		    char *err, size_t errlen);
/* Ends the current frame (zstd frame, gzip member) into `out`; the next
 * write starts a new one. No-op when nothing was written since the last
 * end. @return as rot_codec_write. */
int rot_codec_end_frame(rot_codec_t *c, struct rot_buf *out, char *err, size_t errlen);
/* File name extension, e.g. ".zst"; "" for plain text. */
const char *rot_codec_ext(enum rot_codec kind);
void rot_codec_free(rot_codec_t *c);

#endif
