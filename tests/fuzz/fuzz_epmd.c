/*
 * fuzz_epmd.c - libFuzzer over epmd's answers (node/epmd_reply.c): a
 * PORT2_RESP and a NAMES_RESP of any bytes are read within those bytes,
 * and the names list never outgrows its buffer nor carries a byte that is
 * not in a node name.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../node/epmd_reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	int port = node_epmd_port_reply(buf, size);
	if (port > 65535 || port < -1)
		abort();
	static const size_t caps[] = { 1, 7, 256 };
	for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
		char *out = malloc(caps[k]);
		if (!out)
			break;
		node_epmd_names_reply(buf, size, out, caps[k]);
		size_t len = strlen(out);
		if (len >= caps[k])
			abort();
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)out[i];
			if (!(c == '\'' || c == ',' || c == ' ' || c == '_' || c == '-' || (c >= '0' && c <= '9') ||
			      (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
				abort();
		}
		free(out);
	}
	free(buf);
	return 0;
}
