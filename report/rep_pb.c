/*
 * rep_pb.c - protobuf varints and length-delimited fields into a buffer.
 */
#include "rep_pb.h"

#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"

static int reserve(struct rep_pb *b, size_t n)
{
	if (b->failed)
		return -1;
	if (n > SIZE_MAX - b->len || fp_grow((void **)&b->p, &b->cap, b->len + n, 1, 256) != 0) {
		b->failed = 1;
		return -1;
	}
	return 0;
}

void rep_pb_clear(struct rep_pb *b)
{
	b->len = 0;
	b->failed = 0;
}

void rep_pb_free(struct rep_pb *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->failed = 0;
}

void rep_pb_varint(struct rep_pb *b, uint64_t v)
{
	if (reserve(b, 10) != 0)
		return;
	while (v >= 0x80) {
		b->p[b->len++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b->p[b->len++] = (unsigned char)v;
}

void rep_pb_uint(struct rep_pb *b, unsigned field, uint64_t v)
{
	rep_pb_varint(b, (uint64_t)field << 3);
	rep_pb_varint(b, v);
}

void rep_pb_int(struct rep_pb *b, unsigned field, int64_t v)
{
	rep_pb_uint(b, field, (uint64_t)v);
}

void rep_pb_bytes(struct rep_pb *b, unsigned field, const void *p, size_t n)
{
	rep_pb_varint(b, (uint64_t)field << 3 | 2);
	rep_pb_varint(b, n);
	if (n == 0 || reserve(b, n) != 0)
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void rep_pb_msg(struct rep_pb *b, unsigned field, const struct rep_pb *child)
{
	if (child->failed) {
		b->failed = 1;
		return;
	}
	rep_pb_bytes(b, field, child->p, child->len);
}
