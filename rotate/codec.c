/*
 * codec.c - zstd, gzip and plain text streams behind one table of functions
 * (begin, write, end_frame, free), chosen once in rot_codec_new().
 *
 * zstd follows zstd's own FIO_compressZstdFrame(): ZSTD_e_continue while
 * input lasts, ZSTD_e_end to close the frame, ZSTD_compressStream2() called
 * again until it returns 0, every return checked with ZSTD_isError(). Never
 * ZSTD_e_flush: it leaves the frame open, and an open frame at the end of a
 * crashed file does not decode. gzip is one complete member per frame
 * (deflate Z_FINISH, then deflateReset), which gzip -dc and Python's gzip
 * module (Flamescope) read as one stream.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

#include "codec.h"
#include "../common/grow.h"

/* ==== output buffer ==== */

int rot_buf_reserve(struct rot_buf *b, size_t more)
{
	if (more > SIZE_MAX - b->len ||
	    fp_grow((void **)&b->data, &b->cap, b->len + more, 1, 64 * 1024) != 0)
		return ROT_ERR_NOMEM;
	return 0;
}

void rot_buf_free(struct rot_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

/* ==== the table ==== */

struct rot_codec_s;
struct codec_ops {
	int (*begin)(struct rot_codec_s *c, int level, char *err, size_t errlen);
	int (*write)(struct rot_codec_s *c, struct rot_buf *out, const void *p, size_t n,
		     char *err, size_t errlen);
	int (*end_frame)(struct rot_codec_s *c, struct rot_buf *out, char *err, size_t errlen);
	void (*free)(struct rot_codec_s *c);
};

struct rot_codec_s {
	const struct codec_ops *ops;
	size_t pending;         /* bytes in since the last end_frame */
	ZSTD_CCtx *zc;
	z_stream zs;
	int zs_live;
};

/* ==== zstd ==== */

static int zstd_fail(size_t rc, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "zstd %s failed: %s", what, ZSTD_getErrorName(rc));
	return ROT_ERR_CODEC;
}

static int zstd_begin(struct rot_codec_s *c, int level, char *err, size_t errlen)
{
	size_t rc;

	c->zc = ZSTD_createCCtx();
	if (!c->zc) {
		snprintf(err, errlen, "cannot create a zstd context: out of memory");
		return ROT_ERR_NOMEM;
	}
	rc = ZSTD_CCtx_setParameter(c->zc, ZSTD_c_compressionLevel,
				    level ? level : ZSTD_CLEVEL_DEFAULT);
	if (ZSTD_isError(rc))
		return zstd_fail(rc, "compression level", err, errlen);
	/* A checksum per frame: a frame damaged on disk is reported, not decoded
	 * into garbage. 4 bytes a frame. */
	rc = ZSTD_CCtx_setParameter(c->zc, ZSTD_c_checksumFlag, 1);
	if (ZSTD_isError(rc))
		return zstd_fail(rc, "checksum flag", err, errlen);
	return 0;
}

/* One pass of FIO_compressZstdFrame()'s loop: runs until the input is taken
 * (e_continue) or the frame is completely out (e_end returns 0). */
static int zstd_run(struct rot_codec_s *c, struct rot_buf *out, const void *p, size_t n,
		    ZSTD_EndDirective mode, char *err, size_t errlen)
{
	ZSTD_inBuffer in = { p, n, 0 };
	size_t left;

	for (;;) {
		if (rot_buf_reserve(out, ZSTD_CStreamOutSize()))
			return ROT_ERR_NOMEM;
		ZSTD_outBuffer ob = { out->data + out->len, out->cap - out->len, 0 };
		left = ZSTD_compressStream2(c->zc, &ob, &in, mode);
		if (ZSTD_isError(left))
			return zstd_fail(left, "compression", err, errlen);
		out->len += ob.pos;
		if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size)
			return 0;
	}
}

static int zstd_write(struct rot_codec_s *c, struct rot_buf *out, const void *p, size_t n,
		      char *err, size_t errlen)
{
	return zstd_run(c, out, p, n, ZSTD_e_continue, err, errlen);
}

static int zstd_end(struct rot_codec_s *c, struct rot_buf *out, char *err, size_t errlen)
{
	return zstd_run(c, out, NULL, 0, ZSTD_e_end, err, errlen);
}

static void zstd_free(struct rot_codec_s *c)
{
	ZSTD_freeCCtx(c->zc);   /* NULL is fine */
}

static const struct codec_ops zstd_ops = { zstd_begin, zstd_write, zstd_end, zstd_free };

/* ==== gzip ==== */

static int gz_fail(struct rot_codec_s *c, int rc, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "zlib %s failed: %s (%d)", what,
		 c->zs.msg ? c->zs.msg : "no detail", rc);
	return rc == Z_MEM_ERROR ? ROT_ERR_NOMEM : ROT_ERR_CODEC;
}

static int gz_begin(struct rot_codec_s *c, int level, char *err, size_t errlen)
{
	int rc;

	/* windowBits 15 + 16: a gzip header and trailer instead of zlib's. */
	rc = deflateInit2(&c->zs, level ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED,
			  15 + 16, 8, Z_DEFAULT_STRATEGY);
	if (rc != Z_OK)
		return gz_fail(c, rc, "deflateInit2", err, errlen);
	c->zs_live = 1;
	return 0;
}

/* Runs deflate until the input is taken (Z_NO_FLUSH) or the member is
 * finished (Z_FINISH returns Z_STREAM_END). */
static int gz_run(struct rot_codec_s *c, struct rot_buf *out, const void *p, size_t n,
		  int flush, char *err, size_t errlen)
{
	const unsigned char *src = p;
	int rc;

	do {
		/* avail_in is a uInt: feed huge inputs in slices. */
		size_t slice = n > (1u << 30) ? (1u << 30) : n;
		c->zs.next_in = (unsigned char *)src;
		c->zs.avail_in = (uInt)slice;
		for (;;) {
			if (rot_buf_reserve(out, 64 * 1024))
				return ROT_ERR_NOMEM;
			size_t room = out->cap - out->len;
			if (room > UINT_MAX)
				room = UINT_MAX;
			c->zs.next_out = out->data + out->len;
			c->zs.avail_out = (uInt)room;
			rc = deflate(&c->zs, flush);
			out->len += room - c->zs.avail_out;
			if (rc == Z_STREAM_END)
				break;
			/* Z_BUF_ERROR is "no progress possible": with room in out
			 * that only happens once Z_NO_FLUSH input is used up. */
			if (rc != Z_OK && !(rc == Z_BUF_ERROR && flush == Z_NO_FLUSH))
				return gz_fail(c, rc, "deflate", err, errlen);
			if (flush == Z_NO_FLUSH && c->zs.avail_in == 0)
				break;
		}
		if (slice) {    /* NULL + 0 is undefined too */
			src += slice;
			n -= slice;
		}
	} while (n > 0);
	c->zs.next_in = NULL;
	return 0;
}

static int gz_write(struct rot_codec_s *c, struct rot_buf *out, const void *p, size_t n,
		    char *err, size_t errlen)
{
	return gz_run(c, out, p, n, Z_NO_FLUSH, err, errlen);
}

static int gz_end(struct rot_codec_s *c, struct rot_buf *out, char *err, size_t errlen)
{
	int rc = gz_run(c, out, NULL, 0, Z_FINISH, err, errlen);

	if (rc)
		return rc;
	rc = deflateReset(&c->zs);
	if (rc != Z_OK)
		return gz_fail(c, rc, "deflateReset", err, errlen);
	return 0;
}

static void gz_free(struct rot_codec_s *c)
{
	if (c->zs_live)
		deflateEnd(&c->zs);
	c->zs_live = 0;
}

static const struct codec_ops gz_ops = { gz_begin, gz_write, gz_end, gz_free };

/* ==== plain text ==== */

static int none_begin(struct rot_codec_s *c, int level, char *err, size_t errlen)
{
	(void)c, (void)level, (void)err, (void)errlen;
	return 0;
}

static int none_write(struct rot_codec_s *c, struct rot_buf *out, const void *p, size_t n,
		      char *err, size_t errlen)
{
	(void)c, (void)err, (void)errlen;
	if (rot_buf_reserve(out, n))
		return ROT_ERR_NOMEM;
	if (n)
		memcpy(out->data + out->len, p, n);
	out->len += n;
	return 0;
}

static int none_end(struct rot_codec_s *c, struct rot_buf *out, char *err, size_t errlen)
{
	(void)c, (void)out, (void)err, (void)errlen;
	return 0;
}

static void none_free(struct rot_codec_s *c)
{
	(void)c;
}

static const struct codec_ops none_ops = { none_begin, none_write, none_end, none_free };

/* ==== entry points ==== */

int rot_codec_new(rot_codec_t **out, enum rot_codec kind, int level, char *err, size_t errlen)
{
	struct rot_codec_s *c;
	int rc;

	*out = NULL;
	c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, errlen, "cannot allocate a codec: out of memory");
		return ROT_ERR_NOMEM;
	}
	switch (kind) {
	case ROT_ZSTD: c->ops = &zstd_ops; break;
	case ROT_GZIP: c->ops = &gz_ops; break;
	case ROT_NONE: c->ops = &none_ops; break;
	default:
		free(c);
		snprintf(err, errlen, "unknown codec %d", (int)kind);
		return ROT_ERR_CODEC;
	}
	rc = c->ops->begin(c, level, err, errlen);
	if (rc) {
		rot_codec_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

int rot_codec_write(rot_codec_t *c, struct rot_buf *out, const void *p, size_t n,
		    char *err, size_t errlen)
{
	int rc;

	if (n == 0)
		return 0;
	rc = c->ops->write(c, out, p, n, err, errlen);
	if (rc == 0)
		c->pending += n;
	return rc;
}

int rot_codec_end_frame(rot_codec_t *c, struct rot_buf *out, char *err, size_t errlen)
{
	int rc;

	/* An empty frame would still cost bytes (and an empty gzip member). */
	if (c->pending == 0)
		return 0;
	rc = c->ops->end_frame(c, out, err, errlen);
	if (rc == 0)
		c->pending = 0;
	return rc;
}

const char *rot_codec_ext(enum rot_codec kind)
{
	return kind == ROT_ZSTD ? ".zst" : kind == ROT_GZIP ? ".gz" : "";
}

void rot_codec_free(rot_codec_t *c)
{
	if (!c)
		return;
	c->ops->free(c);
	free(c);
}

int rot_codec_parse(const char *name, enum rot_codec *out)
{
	static const struct { const char *name; enum rot_codec kind; } names[] = {
		{ "zstd", ROT_ZSTD }, { "gzip", ROT_GZIP }, { "none", ROT_NONE },
	};

	for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++) {
		if (strcmp(name, names[i].name) == 0) {
			*out = names[i].kind;
			return 0;
		}
	}
	return -1;
}
