/*
 * fuzz_rex.c - libFuzzer over rex replies (node/rex_reply.c): whatever
 * a node's rex answers, node_rex_reply_open() refuses it or every reader reads
 * it within its bytes and its buffers, without a crash, a leak or an
 * over-read. The same bytes as a distribution packet (node/packet.c): its
 * control message is refused or read within them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_input.h"
#include "../../node/packet.h"
#include "../../node/rex_reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_copy(data, size);
	if (!buf)
		return 0;
	struct node_rex_reply r;
	if (node_rex_reply_open(buf, size, &r) == 0) {
		erlang_pid pid;
		char small[4], word[16], atom[MAXATOMLEN_UTF8];
		size_t n;
		int found, a, b;
		(void)node_rex_reply_pid(&r, &pid);
		(void)node_rex_reply_atom(&r, small, sizeof small);
		(void)node_rex_reply_atom(&r, atom, sizeof atom);
		(void)node_rex_reply_atom_is(&r, "true");
		(void)node_rex_reply_word(&r, small, sizeof small);
		(void)node_rex_reply_word(&r, word, sizeof word);
		(void)node_rex_reply_has_atom(&r, "a@b", 1000, &found);
		(void)node_rex_reply_ref(&r, &a, &b);
		(void)node_rex_reply_binary_size(&r, 1 << 20, &n);
		(void)node_rex_reply_loaded(&r, small, sizeof small);
		(void)node_rex_reply_loaded(&r, atom, sizeof atom);
		(void)node_rex_reply_bare_lock(&r, &pid);
	}
	struct node_packet p;
	int kind = node_packet_open(buf, size, &p);
	if (kind >= 0 && (p.payload_at > size || p.id_at + p.id_len > size))
		abort(); /* what it points at lies outside the packet */
	free(buf);
	return 0;
}
