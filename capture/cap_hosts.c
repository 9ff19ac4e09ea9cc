/*
 * cap_hosts.c - --cluster-hosts: which hosts --cluster may connect to.
 *
 * A node answers nodes(visible) with whatever it likes: a peer on any host.
 * Connecting there sends it our handshake, whose answer to its challenge
 * is a hash of the cookie it can test guesses against offline; so an
 * operator may bound the hosts (doc/security.md).
 */
#include <ctype.h>
#include <fnmatch.h>
#include <string.h>

#include "cap_config.h"

/* s lowercased into out (cap > 0), cut to fit. */
static void lower(char *out, size_t cap, const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n && i + 1 < cap; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[i] = '\0';
}

int cap_host_allowed(const char *node, const char *patterns)
{
	const char *at = strchr(node, '@');
	char host[256], pat[256];
	if (!at)
		return 0;
	lower(host, sizeof host, at + 1, strlen(at + 1));
	for (const char *p = patterns; *p;) {
		size_t n = strcspn(p, ",");
		lower(pat, sizeof pat, p, n); /* host names are case-blind */
		if (n > 0 && n < sizeof pat && fnmatch(pat, host, 0) == 0)
			return 1;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}
