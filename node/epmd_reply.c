/*
 * epmd_reply.c - reading epmd's answers (see epmd_reply.h).
 */
#include <stdio.h>
#include <string.h>
#include "epmd_reply.h"

#define PORT2_RESP 119

int node_epmd_port_reply(const unsigned char *buf, size_t n)
{
	if (n < 2 || buf[0] != PORT2_RESP)
		return -1;
	if (buf[1] != 0)
		return 0;
	if (n < 4)
		return -1;
	int port = (buf[2] << 8) | buf[3];
	return port > 0 ? port : -1;
}

static int name_byte(unsigned char c)
{
	return c == '_' || c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

void node_epmd_names_reply(const unsigned char *buf, size_t n, char *out, size_t cap)
{
	static const char prefix[] = "name ", suffix[] = " at port ";
	size_t used = 0;
	out[0] = '\0';
	if (n <= 4)
		return;
	/* after the 4-byte port of epmd itself, one line per node */
	for (size_t i = 4; i < n;) {
		size_t end = i;
		while (end < n && buf[end] != '\n')
			end++;
		const unsigned char *line = buf + i;
		size_t len = end - i, k = sizeof prefix - 1, name = k;
		if (len > k && memcmp(line, prefix, k) == 0) {
			while (k < len && name_byte(line[k]))
				k++;
			size_t nlen = k - name;
			if (nlen > 0 && nlen <= 255 && len - k >= sizeof suffix - 1 &&
			    memcmp(line + k, suffix, sizeof suffix - 1) == 0 && used + (used ? 2 : 0) + nlen + 2 < cap)
				used += (size_t)snprintf(out + used, cap - used, "%s'%.*s'", used ? ", " : "",
							 (int)nlen, (const char *)line + name);
		}
		i = end + 1;
	}
}
