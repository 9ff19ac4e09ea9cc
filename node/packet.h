/* packet.h - what one distribution packet from the node holds. */
#ifndef FP_NODE_PACKET_H
#define FP_NODE_PACKET_H
#include <stddef.h>
#include <ei.h>

/* OTP 23's unlink protocol, which ei.h does not name: {UNLINK_ID, Id,
 * From, To}, answered {UNLINK_ID_ACK, Id, To, From}. */
#define NODE_UNLINK_ID 35
#define NODE_UNLINK_ID_ACK 36

/* What the node's control message asks of us. */
enum node_packet_kind {
	NODE_PACKET_MESSAGE,   /* SEND, REG_SEND: msg, and the message at payload_at */
	NODE_PACKET_EXIT,      /* EXIT: msg, and the reason at payload_at (no version byte) */
	NODE_PACKET_UNLINK_ID, /* {UNLINK_ID, Id, From, To}: answered with Id (id_at, id_len) */
	NODE_PACKET_SIGNAL     /* links, exit/2, the rest: nothing of ours */
};

struct node_packet {
	erlang_msg msg;        /* msgtype as ei gives it: a traced type less 10 */
	size_t payload_at;     /* where the message or the reason starts */
	size_t id_at, id_len;  /* UNLINK_ID's Id, external format without a version byte */
};

/* body is a packet without its 4-byte length: pass-through (112), the
 * control message, the message. A node may be hostile: the control
 * message is walked within len (node_term_size()) before ei reads it.
 * @return an enum node_packet_kind, or -1 when body is not one. */
int node_packet_open(const char *body, size_t len, struct node_packet *out);

#endif
