/*
 * ix_fmt.h - the bytes of the report index (index/ writes them,
 * report/rep_index_read.c reads them).
 *
 * The index rides inside a zstd output file as skippable frames, which
 * every zstd decoder passes over, so the file still decompresses to exactly
 * its perf-script text. The layout is documented in doc/output-format.md
 * ("The report index"); this header is its one definition in code.
 */
#ifndef IX_FMT_H
#define IX_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* A zstd skippable frame: magic (0x184D2A50..5F; 0x184D2A5E is taken by
 * zstd's seekable format), then the payload size, both little-endian. */
#define IX_SKIP_MAGIC 0x184D2A5Bu
#define IX_SKIP_HDR 8

#define IX_BLOCK_TAG "FPIB" /* payload of a block frame starts with this */
#define IX_TRAIL_TAG "FPIT" /* ... of the trailer frame */
#define IX_VERSION 1
/* The file's last 12 bytes: the trailer frame's total size (u32 LE) and this. */
#define IX_FOOT_MAGIC "FLPFIDX1"
#define IX_FOOT 12

/* Sections of a block, each compressed on its own so that a reader only
 * decompresses what it needs: the tables, then one column per field, then
 * two columns per metric slot (value change, delta correction). */
enum ix_section {
	IX_S_TABLES,
	IX_S_TIME,   /* time_us - previous event's, zigzag */
	IX_S_COMM,   /* comm id */
	IX_S_PID,    /* pid id */
	IX_S_STACK,  /* stack id */
	IX_S_LAYOUT, /* metric layout id */
	IX_S_METRICS /* slot k: IX_S_METRICS + 2k value, + 2k + 1 delta */
};

#define IX_MAX_SLOTS 32      /* metrics on one event */
#define IX_MAX_COMMS 256     /* distinct comm strings in one file */
#define IX_MAX_LAYOUTS 64    /* distinct metric name lists in one file */
#define IX_BLOCK_EVENTS 8192 /* events in one block, at most (a file's last block fewer) */
#define IX_VARINT_MAX 10     /* bytes of one varint, at most: a column's bytes per event */
/* A file's table sections, decompressed, add up to at most this: the writer
 * gives a file's index up when its tables' memory passes it, and a table
 * entry takes no more bytes encoded than in the writer's memory. */
#define IX_MAX_TABLES ((uint64_t)64 << 20)

static inline uint64_t ix_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t ix_unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* LEB128. @return bytes written (at most 10). */
static inline size_t ix_put_varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

/* @return 0 and *v, or -1 at the end of the buffer or on a varint over 64 bits. */
static inline int ix_get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	const unsigned char *q = *p;
	uint64_t r = 0;
	unsigned shift = 0;
	while (q < end) {
		unsigned char b = *q++;
		if (shift == 63 && b > 1)
			return -1;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*p = q;
			*v = r;
			return 0;
		}
		shift += 7;
		if (shift > 63)
			return -1;
	}
	return -1;
}

static inline void ix_put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static inline uint32_t ix_get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
