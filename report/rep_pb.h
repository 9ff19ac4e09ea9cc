/*
 * rep_pb.h - the protocol buffers wire format, written by hand.
 *
 * pprof's profile.proto needs only two wire types: varints (field numbers,
 * int64, uint64, bool) and length-delimited bytes (strings, nested
 * messages, packed repeated numbers). A message is built in a growable
 * buffer; a nested one is built in its own buffer and appended to its
 * parent with rep_pb_msg(). A failed allocation sticks in the buffer and
 * every later call is a no-op, so callers check once, at the end.
 */
#ifndef REP_PB_H
#define REP_PB_H

#include <stddef.h>
#include <stdint.h>

struct rep_pb {
	unsigned char *p;
	size_t len, cap;
	int failed; /* an allocation failed: the contents are not usable */
};

/* Empties b, keeping its memory. */
void rep_pb_clear(struct rep_pb *b);
void rep_pb_free(struct rep_pb *b);

/* A bare varint (for packed repeated fields). Negative int64 values are
 * written as their two's complement, ten bytes, as protobuf does. */
void rep_pb_varint(struct rep_pb *b, uint64_t v);
/* field = v, as a varint (wire type 0). */
void rep_pb_uint(struct rep_pb *b, unsigned field, uint64_t v);
void rep_pb_int(struct rep_pb *b, unsigned field, int64_t v);
/* field = n bytes (wire type 2): a string, or a message already encoded. */
void rep_pb_bytes(struct rep_pb *b, unsigned field, const void *p, size_t n);
/* field = the message in child (which stays as it is). */
void rep_pb_msg(struct rep_pb *b, unsigned field, const struct rep_pb *child);

#endif
