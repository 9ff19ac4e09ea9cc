/*
 * packet.c - the control message of one distribution packet.
 *
 * flameprof reads each packet whole itself (rex.c), rather than through
 * ei_xreceive_msg(), so that every byte the kernel holds is read as it
 * comes. Waiting to read until a packet's length had arrived whole left a
 * loopback connection stuck for good under a flood of small messages
 * (tests/e2e/hostile_rex.t): 3 bytes of a length unread on our side, 0.9
 * MB unsent on the node's, for 60 s, the kernel sending nothing more until
 * they were read (as far as seen: a window it would not reopen). What ei's
 * receive does with the packet is done here, with the length in hand:
 * the types ei accepts, traced types as the untraced ones, an unlink
 * answered as ei answers it.
 */
#include <string.h>
#include "packet.h"
#include "term_check.h"


static int pid_pair(const char *c, int *i, erlang_msg *m)
{
	return ei_decode_pid(c, i, &m->from) < 0 || ei_decode_pid(c, i, &m->to) < 0 ? -1 : 0;
}

static int name(const char *c, int *i, char *out, size_t cap)
{
	return ei_decode_atom_as(c, i, out, (int)cap, ERLANG_UTF8, NULL, NULL) < 0 ? -1 : 0;
}

int node_packet_open(const char *body, size_t len, struct node_packet *out)
{
	memset(out, 0, sizeof *out);
	if (len < 2 || (unsigned char)body[0] != ERL_PASS_THROUGH)
		return -1;
	long csize = node_term_size(body + 1, len - 1);
	if (csize < 0)
		return -1;
	const char *c = body + 1;
	erlang_msg *m = &out->msg;
	int i = 1, arity, ty, size;
	long type;
	if (ei_decode_tuple_header(c, &i, &arity) < 0 || arity < 1 || ei_get_type(c, &i, &ty, &size) < 0 ||
	    (ty != ERL_SMALL_INTEGER_EXT && ty != ERL_INTEGER_EXT) || ei_decode_long(c, &i, &type) < 0)
		return -1;
	m->msgtype = type;
	switch (type) {
	case ERL_SEND:     /* {SEND, Cookie, ToPid} */
	case ERL_SEND_TT:  /* {SEND_TT, Cookie, ToPid, Token} */
		if (arity != (type == ERL_SEND ? 3 : 4) || name(c, &i, m->cookie, sizeof m->cookie) < 0 ||
		    ei_decode_pid(c, &i, &m->to) < 0)
			return -1;
		break;
	case ERL_REG_SEND:    /* {REG_SEND, From, Cookie, ToName} */
	case ERL_REG_SEND_TT: /* {REG_SEND_TT, From, Cookie, ToName, Token} */
		if (arity != (type == ERL_REG_SEND ? 4 : 5) || ei_decode_pid(c, &i, &m->from) < 0 ||
		    name(c, &i, m->cookie, sizeof m->cookie) < 0 || name(c, &i, m->toname, sizeof m->toname) < 0)
			return -1;
		break;
	case ERL_EXIT:     /* {EXIT, From, To, Reason} */
	case ERL_EXIT_TT:  /* {EXIT_TT, From, To, Token, Reason} */
		if (arity != (type == ERL_EXIT ? 4 : 5) || pid_pair(c, &i, m) < 0)
			return -1;
		if (type == ERL_EXIT_TT && ei_skip_term(c, &i) < 0)
			return -1;
		m->msgtype = ERL_EXIT;
		out->payload_at = 1 + (size_t)i; /* the reason, the control message's last element */
		return NODE_PACKET_EXIT;
	case NODE_UNLINK_ID: { /* {UNLINK_ID, Id, From, To} */
		int id = i;
		if (arity != 4 || ei_skip_term(c, &i) < 0)
			return -1;
		out->id_at = 1 + (size_t)id;
		out->id_len = (size_t)(i - id);
		if (pid_pair(c, &i, m) < 0)
			return -1;
		m->msgtype = ERL_UNLINK;
		return NODE_PACKET_UNLINK_ID;
	}
	default:
		return NODE_PACKET_SIGNAL;
	}
	/* a message: what follows the control message, traced or not */
	m->msgtype = type > 10 ? type - 10 : type;
	out->payload_at = 1 + (size_t)csize;
	return NODE_PACKET_MESSAGE;
}
